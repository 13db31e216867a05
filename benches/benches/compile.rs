//! Compile time: every sample through dianran (WGSL text -> PTX text, sm_80), and the CUDA C++
//! equivalents of some of them through NVRTC (CUDA C++ -> PTX, sm_80), then a table of the
//! pairs with the ratio. NVRTC absent: its half prints `skipped: nvrtc not found`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use dianran_benches::kernels::{self, PAIRS};
use dianran_benches::nvrtc::{self, NvrtcError};
use dianran_benches::pipeline;
use dianran_benches::table::{ms, ratio, Table};

/// Mean time per compile, from the iterations criterion ran (warm-up included).
type Means = BTreeMap<String, Duration>;

/// Benchmarks `compile` as `group/id` and records its mean time per call in `means`.
fn bench(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    means: &mut Means,
    mut compile: impl FnMut(),
) {
    let total = RefCell::new((0u64, Duration::ZERO));
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                compile();
            }
            let d = start.elapsed();
            let mut t = total.borrow_mut();
            t.0 += iters;
            t.1 += d;
            d
        })
    });
    let (n, d) = *total.borrow();
    if n > 0 {
        means.insert(id.to_string(), d / n as u32);
    }
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(400))
        .nresamples(10_000)
        .without_plots()
        .configure_from_args();

    let samples = match kernels::all_samples() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };

    let mut ours = Means::new();
    let mut not_timed = Vec::new();
    {
        let mut g = c.benchmark_group("wgsl_to_ptx");
        g.sampling_mode(SamplingMode::Flat);
        for (name, src) in &samples {
            if let Err(e) = pipeline::wgsl_to_ptx(name, src, 80) {
                not_timed.push(format!("{name}: {e}"));
                continue;
            }
            bench(&mut g, name, &mut ours, || {
                let _ = black_box(pipeline::wgsl_to_ptx(name, src, 80));
            });
        }
        g.finish();
    }
    if !not_timed.is_empty() {
        println!("\nsamples without PTX (not timed):");
        for line in &not_timed {
            println!("  {line}");
        }
    }

    let mut theirs = Means::new();
    let mut nvrtc_missing = None;
    let mut nvrtc_failed = BTreeMap::new();
    {
        let mut g = c.benchmark_group("nvrtc");
        g.sampling_mode(SamplingMode::Flat);
        // NVRTC takes 20-250 ms per compile: room for 10 samples of one compile each.
        g.measurement_time(Duration::from_secs(3));
        for pair in PAIRS {
            let src = match kernels::cuda_source(pair) {
                Ok(s) => s,
                Err(e) => {
                    nvrtc_failed.insert(pair.sample, e);
                    continue;
                }
            };
            match nvrtc::compile(&src, pair.cuda_file, 80) {
                Ok(_) => {}
                Err(NvrtcError::NotFound(why)) => {
                    nvrtc_missing = Some(why);
                    break;
                }
                Err(e) => {
                    nvrtc_failed.insert(pair.sample, e.to_string());
                    continue;
                }
            }
            bench(&mut g, pair.sample, &mut theirs, || {
                let _ = black_box(nvrtc::compile(&src, pair.cuda_file, 80));
            });
        }
        g.finish();
    }

    println!("\nCompile time, source text -> PTX text for sm_80 (mean per compile):");
    if let Some(why) = &nvrtc_missing {
        println!("skipped: nvrtc not found ({why})");
    }
    let mut t = Table::new(&["kernel", "dianran WGSL->PTX", "NVRTC CUDA->PTX", "dianran/NVRTC"]);
    for pair in PAIRS {
        let o = ours.get(pair.sample);
        let n = theirs.get(pair.sample);
        let cell = |d: Option<&Duration>, fallback: String| d.map(|d| ms(*d)).unwrap_or(fallback);
        let our_cell = cell(o, not_run(&not_timed, pair.sample));
        let their_cell = cell(
            n,
            if nvrtc_missing.is_some() {
                "skipped".into()
            } else if nvrtc_failed.contains_key(pair.sample) {
                "failed".into()
            } else {
                "-".into()
            },
        );
        let r = match (o, n) {
            (Some(o), Some(n)) => ratio(o.as_secs_f64(), n.as_secs_f64()),
            _ => "-".into(),
        };
        t.row(vec![pair.sample.trim_end_matches(".wgsl").into(), our_cell, their_cell, r]);
    }
    print!("{}", t.render());
    for (sample, e) in &nvrtc_failed {
        println!("NVRTC failed on the equivalent of {sample}: {e}");
    }
    c.final_summary();
}

/// Why a sample has no dianran time: "not yet" when the codegen reported a diagnostic.
fn not_run(not_timed: &[String], sample: &str) -> String {
    if not_timed.iter().any(|l| l.starts_with(&format!("{sample}:"))) {
        "not yet (no PTX)".into()
    } else {
        "-".into()
    }
}
