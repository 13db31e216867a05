//! Every compute sample agrees across executors on seeded random inputs: the PTX emulator
//! (running our PTX, and LLVM's when the `llvm` feature is built), lavapipe running the input
//! WGSL, and lavapipe running the WGSL dianran prints are each compared with the reference
//! interpreter by the agreement engine (`dianran_verify::engine`, which also reads what the
//! sample's header says is nondeterministic). Disagreements and timeouts fail; other verdicts
//! are printed.

use dianran_frontend::ir;
use dianran_verify::agree::random_buffers;
use dianran_verify::engine::{self, Kind};
use dianran_verify::executors::{Executor, Job};
use dianran_verify::samples::SampleHeader;
use std::path::PathBuf;

/// Elements per runtime-sized array: enough that kernels whose sizes come from random `u32`
/// values in [0, 64) (matrix dimensions up to 63 x 63, row lengths) stay in bounds, and small
/// enough for llvmpipe, which silently stops an invocation's loops after 65535 iterations in
/// all (`runtime_array_length.wgsl` loops over two arrays: 2 x 32640 iterations passed only
/// the first 255 elements of the second).
const RUNTIME_LEN: u32 = 16384;

struct Sample {
    name: String,
    source: String,
    /// The header's `// entry:`; `None`: every compute entry.
    entry: Option<String>,
    dispatch: [u32; 3],
    header: SampleHeader,
}

/// Time limit of each run and comparison: far more than any sample needs.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

fn compute_samples() -> Vec<Sample> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("samples dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let source = std::fs::read_to_string(&p).expect("readable");
        let header = dianran_verify::samples::header(&source)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let Some(dispatch) = header.dispatch else {
            continue; // vertex/fragment samples have no dispatch line
        };
        let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        out.push(Sample { name, source, entry: header.entry.clone(), dispatch, header });
    }
    out
}

#[test]
fn every_compute_sample_agrees_across_executors() {
    dianran_verify::lavapipe::quiet_mesa_warnings();
    let lavapipe = dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for s in compute_samples() {
        let module = match dianran_frontend::compile(&s.name, &s.source, &Default::default()) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{}: frontend error\n{d}", s.name));
                continue;
            }
        };
        let entries: Vec<String> = match &s.entry {
            Some(e) => vec![e.clone()],
            None => module
                .entry_points
                .iter()
                .filter(|e| e.stage == ir::Stage::Compute)
                .map(|e| e.name.clone())
                .collect(),
        };
        let nondeterminism = |entry: &str| s.header.nondeterminism(entry);
        for entry in entries {
            let input = match random_buffers(&module, &entry, RUNTIME_LEN, 0x5EED) {
                Ok(b) => b,
                Err(d) => {
                    failures.push(format!("{}/{entry}: {}", s.name, d.message));
                    continue;
                }
            };
            let job = Job::new(&s.name, &s.source, &module, &entry, s.dispatch);
            let mut executors = vec![Executor::Emu];
            // LLVM's PTX for the same SSA, when the backend is built (the README's test
            // command builds it).
            if cfg!(feature = "llvm") {
                executors.push(Executor::LlvmEmu);
            }
            if lavapipe {
                executors.extend([Executor::Lavapipe, Executor::LavapipeOut]);
            }
            let opts = engine::Options {
                nondeterminism: nondeterminism(&entry),
                ..engine::Options::new(executors, TIMEOUT)
            };
            for v in engine::check(&job, &input, &opts).verdicts {
                let line = format!(
                    "{}/{entry}: {} {}: {}",
                    s.name,
                    v.executor.name(),
                    v.kind.label(),
                    v.detail
                );
                match v.kind {
                    Kind::Disagree | Kind::Timeout => failures.push(line),
                    Kind::Agree => {}
                    // Random data may drive a data-dependent kernel out of bounds (a property
                    // of the kernel); skips, notes, racy samples and wgpu's panics are reported.
                    _ => report.push(line),
                }
            }
        }
    }
    for r in &report {
        println!("{r}");
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
