//! Compile time: every sample through dianran (WGSL text -> PTX text, sm_80), and the CUDA C++
//! equivalents of some of them through NVRTC (CUDA C++ -> PTX, sm_80), then a table of the
//! pairs with the ratio, and a table of what precise math costs: the pairs that call math
//! builtins in both modes of both compilers (dianran's precise default and `--fast-math`,
//! NVRTC's default and `--use_fast_math`). NVRTC absent: its half prints
//! `skipped: nvrtc not found`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use dianran_benches::kernels::{self, MATH_PAIRS, PAIRS};
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
    // The math samples again, with --fast-math.
    let mut ours_fast = Means::new();
    {
        let mut g = c.benchmark_group("wgsl_to_ptx_fast_math");
        g.sampling_mode(SamplingMode::Flat);
        let opts = dianran_ptx::codegen::Options { fast_math: true, ..Default::default() };
        for (name, src) in samples.iter().filter(|(n, _)| MATH_PAIRS.contains(&n.as_str())) {
            if pipeline::wgsl_to_ptx_with(name, src, &opts).is_err() {
                continue;
            }
            bench(&mut g, name, &mut ours_fast, || {
                let _ = black_box(pipeline::wgsl_to_ptx_with(name, src, &opts));
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

    let mut theirs_fast = Means::new();
    if nvrtc_missing.is_none() {
        let mut g = c.benchmark_group("nvrtc_fast_math");
        g.sampling_mode(SamplingMode::Flat);
        g.measurement_time(Duration::from_secs(3));
        for pair in PAIRS.iter().filter(|p| MATH_PAIRS.contains(&p.sample)) {
            let Ok(src) = kernels::cuda_source(pair) else { continue };
            if nvrtc::compile_with(&src, pair.cuda_file, 80, true).is_err() {
                continue;
            }
            bench(&mut g, pair.sample, &mut theirs_fast, || {
                let _ = black_box(nvrtc::compile_with(&src, pair.cuda_file, 80, true));
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

    println!(
        "\nWhat precise math costs in compile time (sm_80, mean per compile; fast = dianran \
         --fast-math, NVRTC --use_fast_math):"
    );
    let mut t = Table::new(&[
        "kernel",
        "dianran precise",
        "dianran fast",
        "precise/fast",
        "NVRTC default",
        "NVRTC fast",
    ]);
    for sample in MATH_PAIRS {
        let get = |m: &Means| m.get(sample).copied();
        let cell = |d: Option<Duration>| d.map(ms).unwrap_or_else(|| "-".into());
        let r = match (get(&ours), get(&ours_fast)) {
            (Some(p), Some(f)) => ratio(p.as_secs_f64(), f.as_secs_f64()),
            _ => "-".into(),
        };
        t.row(vec![
            sample.trim_end_matches(".wgsl").into(),
            cell(get(&ours)),
            cell(get(&ours_fast)),
            r,
            cell(get(&theirs)),
            cell(get(&theirs_fast)),
        ]);
    }
    print!("{}", t.render());
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
