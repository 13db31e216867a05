//! Every compute sample agrees across executors on seeded random inputs (SPEC §6): the PTX
//! emulator (running our PTX, and LLVM's when the `llvm` feature is built), lavapipe running the input WGSL, and lavapipe running the WGSL dianran prints are
//! each compared with the reference interpreter. Subgroup samples are compared with lavapipe at
//! lavapipe's subgroup size (8) and with the emulator at 32.

use dianran_frontend::ir;
use dianran_verify::agree::random_buffers;
use dianran_verify::executors::{self, ExecError, Executor, Job};
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
}

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
        out.push(Sample { name, source, entry: header.entry, dispatch });
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
        // The lavapipe executors are predicted by the module compiled without contraction
        // (`dianran_verify::contraction`).
        let unfused_opts = dianran_frontend::Options { no_fma: true, ..Default::default() };
        let unfused = match dianran_frontend::compile(&s.name, &s.source, &unfused_opts) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{}: frontend error (--no-fma)\n{d}", s.name));
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
        let subgroups = module.uses_subgroups();
        let coop = module.uses_cooperative_matrices();
        for entry in entries {
            let input = match random_buffers(&module, &entry, RUNTIME_LEN, 0x5EED) {
                Ok(b) => b,
                Err(d) => {
                    failures.push(format!("{}/{entry}: {}", s.name, d.message));
                    continue;
                }
            };
            let job = |subgroup_size| Job {
                file_name: &s.name,
                source: &s.source,
                overrides: &[],
                module: &module,
                entry: &entry,
                dispatch: s.dispatch,
                subgroup_size,
                sm: 80,
                tf32: false,
                fast_math: false,
                ptx: None,
            };
            let reference32 = match executors::run(Executor::Interp, &job(32), &input) {
                Ok(b) => b,
                Err(e) => {
                    // Random data may drive a data-dependent kernel out of bounds; that is a
                    // property of the kernel, reported but not an executor disagreement.
                    report.push(format!("{}/{entry}: interp on random data: {e}", s.name));
                    continue;
                }
            };
            let mut others = vec![(Executor::Emu, 32)];
            // LLVM's PTX for the same SSA, when the backend is built (the README's test
            // command builds it).
            if cfg!(feature = "llvm") {
                others.push((Executor::LlvmEmu, 32));
            }
            if lavapipe && !coop {
                let size = if subgroups { 8 } else { 32 };
                others.push((Executor::Lavapipe, size));
                others.push((Executor::LavapipeOut, size));
            }
            for (exec, size) in others {
                let follows = dianran_verify::contraction::follows_ssa_contraction(exec);
                let own =
                    |size| Job { module: if follows { &module } else { &unfused }, ..job(size) };
                let reference = if size == 32 && follows {
                    reference32.clone()
                } else {
                    match executors::run(Executor::Interp, &own(size), &input) {
                        Ok(b) => b,
                        Err(e) => {
                            failures
                                .push(format!("{}/{entry}: interp (subgroup {size}): {e}", s.name));
                            continue;
                        }
                    }
                };
                match executors::run(exec, &job(size), &input) {
                    Ok(out) => {
                        // Each executor's own bounds: precise PTX math for the emulator, Vulkan's
                        // (and WGSL's undefined values left out) for lavapipe.
                        let verdict =
                            executors::compare_run(exec, &own(size), &input, &reference, &out);
                        if let Ok(Some(note)) = &verdict {
                            report.push(format!("{}/{entry}: {}: {note}", s.name, exec.name()));
                        }
                        if let Err(diff) = verdict {
                            failures.push(format!(
                                "{}/{entry}: {} DISAGREE: {diff}",
                                s.name,
                                exec.name()
                            ));
                        }
                    }
                    Err(ExecError::Skipped(why)) => {
                        report.push(format!("{}/{entry}: {} skipped: {why}", s.name, exec.name()))
                    }
                    // A cooperative-matrix form a PTX backend declines (f32 16x16 products
                    // without --tf32) is a diagnostic; that is reported, not hidden.
                    Err(ExecError::Failed(why))
                        if matches!(exec, Executor::Emu | Executor::LlvmEmu)
                            && coop
                            && why.contains("does not support") =>
                    {
                        report.push(format!("{}/{entry}: emu not applicable: {why}", s.name))
                    }
                    // naga's SPIR-V backend inside wgpu panics on some valid WGSL (seen on
                    // `functions_ptr.wgsl`, input and printed alike): a third-party bug.
                    Err(ExecError::Failed(why))
                        if matches!(exec, Executor::Lavapipe | Executor::LavapipeOut)
                            && why.contains("panicked") =>
                    {
                        report.push(format!(
                            "{}/{entry}: {} crashed in wgpu: {why}",
                            s.name,
                            exec.name()
                        ))
                    }
                    Err(e @ (ExecError::Failed(_) | ExecError::Timeout(_))) => {
                        failures.push(format!("{}/{entry}: {} failed: {e}", s.name, exec.name()))
                    }
                }
            }
        }
    }
    for r in &report {
        println!("{r}");
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
