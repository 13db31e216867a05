//! No input may panic or hang (SPEC §5): every sample and error sample, truncated at about 40
//! points and mutated about 100 ways (deterministically), goes through the frontend inside
//! `catch_unwind`; whatever compiles goes through every back end (PTX with and without TF32,
//! MSL, WGSL) and runs each compute entry on the interpreter with small buffers and a step
//! limit.

use dianran::frontend::ir::Stage;
use dianran::verify::buffers::default_buffers;
use dianran::verify::interp::{self, InterpOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use dianran::fuzz::mutate::{mutant, truncations};
use dianran::fuzz::rng::Rng;

const CUTS: usize = 40;
const MUTANTS: usize = 150;

fn wgsl_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    for dir in ["samples", "errors"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "wgsl")),
            );
        }
    }
    files.sort();
    files
}

/// What happened to one input.
enum Outcome {
    Rejected,
    /// Compiled; the number of entry points run.
    Compiled(usize),
    Panicked(String),
}

/// Compiles `src` and runs every compute entry, catching panics.
fn exercise(name: &str, src: &str) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Ok(module) = dianran::frontend::compile(name, src, &Default::default()) else {
            return Outcome::Rejected;
        };
        // Every back end, with and without TF32: a diagnostic is fine, a panic is not.
        for tf32 in [false, true] {
            let _ = dianran::ptx::codegen::compile_module(
                &module,
                &dianran::ptx::codegen::Options { sm: 80, tf32, ..Default::default() },
            );
        }
        let _ = dianran::msl::write_module(&module);
        let _ = dianran::wgsl::write_module(&module, &Default::default());
        let mut ran = 0;
        for ep in module.entry_points.iter().filter(|e| e.stage == Stage::Compute) {
            let Ok(mut buffers) = default_buffers(&module, &ep.name, 16) else { continue };
            let opts =
                InterpOptions { subgroup_size: 32, max_steps: 200_000, ..Default::default() };
            let _ = interp::run(&module, &ep.name, [1, 1, 1], &mut buffers, &opts);
            ran += 1;
        }
        Outcome::Compiled(ran)
    }));
    match result {
        Ok(o) => o,
        Err(e) => Outcome::Panicked(dianran::fuzz::check::panic_text(&*e)),
    }
}

#[test]
fn truncated_and_mutated_sources_never_panic() {
    let started = Instant::now();
    let files = wgsl_files();
    let mut jobs: Vec<(String, String, String)> = Vec::new(); // (file, what, text)
    for (k, path) in files.iter().enumerate() {
        let Ok(src) = std::fs::read_to_string(path) else { continue };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for (i, t) in truncations(&src, CUTS).into_iter().enumerate() {
            jobs.push((name.clone(), format!("truncation {i} ({} bytes)", t.len()), t));
        }
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15 ^ (k as u64 + 1));
        for i in 0..MUTANTS {
            jobs.push((name.clone(), format!("mutant {i}"), mutant(&src, &mut rng)));
        }
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let chunk = jobs.len().div_ceil(threads.max(1)).max(1);
    let results: Vec<(Vec<String>, usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut failures, mut compiled, mut runs) = (Vec::new(), 0, 0);
                    for (file, what, text) in part {
                        match exercise(file, text) {
                            Outcome::Rejected => {}
                            Outcome::Compiled(n) => {
                                compiled += 1;
                                runs += n;
                            }
                            Outcome::Panicked(m) => failures.push(format!(
                                "{file} {what}: panic: {m}\n--- input ---\n{text}\n---"
                            )),
                        }
                    }
                    (failures, compiled, runs)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| (vec!["worker thread died".to_string()], 0, 0)))
            .collect()
    });
    let compiled: usize = results.iter().map(|r| r.1).sum();
    let runs: usize = results.iter().map(|r| r.2).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.0).collect();
    eprintln!(
        "robustness: {} inputs from {} files ({compiled} compiled, {runs} interpreter runs) in {:.1?}",
        jobs.len(),
        files.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{} input(s) panicked:\n{}", failures.len(), failures.join("\n"));
}
