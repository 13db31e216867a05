//! Launch overhead of dianran's device-resident path against a raw cudarc launch of the same
//! PTX (docs/host.md): `CudaModule::launch_on` as the typed launchers call it (launch plan,
//! binding checks, cached uniform and sizes blocks) and `launch_builder` with the pointers
//! pushed by hand, for the saxpy sample over 4096 floats. What is timed is submission: each
//! batch of launches is queued without waiting (fewer than the driver's queue holds), then the
//! stream is synchronized outside the timed region. Criterion reports both; the closing
//! `SUMMARY` line (for `verify/gpu-check.sh --bench`) is the ratio of medians over interleaved
//! rounds. Goal: within 5 %. Without a device: `skipped: no CUDA device`.

use criterion::Criterion;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use dianran_runtime::launch::{CudaModule, DeviceArg, LaunchError};
use dianran_runtime::reflect::{from_module::ptx_entry, Entry};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SRC: &str = include_str!("../../tests/samples/saxpy_vec4.wgsl");
/// vec4 elements: one thread each.
const N4: usize = 1024;
const GRID: [u32; 3] = [4, 1, 1];
/// Launches queued between synchronizations.
const BATCH: u32 = 256;
const ROUNDS: usize = 15;

struct Setup {
    module: CudaModule,
    entry: Entry,
    stream: Arc<CudaStream>,
    raw: CudaFunction,
    params: [u32; 2],
    params_dev: CudaSlice<u32>,
    sizes_dev: CudaSlice<u32>,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
}

fn setup() -> Result<Setup, String> {
    let ir = dianran_frontend::compile("saxpy_vec4.wgsl", SRC, &Default::default())
        .map_err(|d| d.to_string())?;
    let out = dianran_ptx::codegen::compile_module(&ir, &Default::default());
    let info = out.entries.first().ok_or("no entry")?;
    let entry = ptx_entry(&ir, info, Some(&out.module))?;
    let module = match CudaModule::load(&out.text) {
        Err(LaunchError::NoDevice) => return Err("skipped: no CUDA device".into()),
        m => m.map_err(|e| e.to_string())?,
    };
    let ctx = module.context().clone();
    let e = |e: cudarc::driver::DriverError| format!("{e:?}");
    let stream = ctx.new_stream().map_err(e)?;
    let raw = ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(out.text.clone()))
        .map_err(e)?
        .load_function(&info.ptx_name)
        .map_err(e)?;
    let params = [3.0f32.to_bits(), N4 as u32];
    let bytes = |n: usize| (n * 16) as u32;
    Ok(Setup {
        params_dev: stream.clone_htod(&params).map_err(e)?,
        // p_sizes: the byte length of each buffer parameter (params, x, y).
        sizes_dev: stream.clone_htod(&[8, bytes(N4), bytes(N4)]).map_err(e)?,
        x: stream.clone_htod(&vec![1.0f32; 4 * N4]).map_err(e)?,
        y: stream.clone_htod(&vec![2.0f32; 4 * N4]).map_err(e)?,
        module,
        entry,
        stream,
        raw,
        params,
    })
}

fn ours(s: &mut Setup) {
    let r = s.module.launch_on(
        &s.stream,
        &s.entry,
        GRID,
        &mut [
            DeviceArg::value(0, 0, &s.params),
            DeviceArg::read(0, 1, &s.x),
            DeviceArg::write(0, 2, &mut s.y),
        ],
        &[],
    );
    if let Err(e) = r {
        panic!("launch_on: {e}");
    }
}

fn raw(s: &mut Setup) {
    let cfg =
        LaunchConfig { grid_dim: (GRID[0], 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let mut b = s.stream.launch_builder(&s.raw);
    b.arg(&s.params_dev).arg(&s.x).arg(&mut s.y).arg(&s.sizes_dev);
    // SAFETY: saxpy_vec4's parameters are these four device pointers (docs/abi.md), sized for
    // the grid.
    if let Err(e) = unsafe { b.launch(cfg) } {
        panic!("raw launch: {e:?}");
    }
}

/// Submission time of `iters` launches, queued in batches, the waits untimed.
fn timed(s: &mut Setup, iters: u64, f: fn(&mut Setup)) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let n = left.min(u64::from(BATCH));
        let t = Instant::now();
        for _ in 0..n {
            f(s);
        }
        total += t.elapsed();
        s.stream.synchronize().unwrap_or_else(|e| panic!("{e:?}"));
        left -= n;
    }
    total
}

fn main() {
    let mut s = match setup() {
        Ok(s) => s,
        Err(why) if why.starts_with("skipped") => {
            println!("{why}");
            return;
        }
        Err(why) => panic!("{why}"),
    };
    // Correctness first: one launch of each gives y = 2 + 3 * 1, twice.
    timed(&mut s, 1, ours);
    timed(&mut s, 1, raw);
    let y = s.stream.clone_dtoh(&s.y).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(y.iter().all(|v| *v == 8.0), "saxpy result {:?}", &y[..4]);

    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    c.bench_function("launch_overhead/dianran launch_on", |b| {
        b.iter_custom(|iters| timed(&mut s, iters, ours))
    });
    c.bench_function("launch_overhead/raw cudarc", |b| {
        b.iter_custom(|iters| timed(&mut s, iters, raw))
    });

    // Interleaved rounds for the ratio, so clock and queue drift hit both alike.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        a.push(timed(&mut s, 4 * u64::from(BATCH), ours));
        b.push(timed(&mut s, 4 * u64::from(BATCH), raw));
    }
    a.sort();
    b.sort();
    let per = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(4 * BATCH);
    let (ours_us, raw_us) = (per(a[ROUNDS / 2]), per(b[ROUNDS / 2]));
    println!(
        "launch submission, saxpy 4096 floats, median of {ROUNDS} rounds of {} launches:",
        4 * BATCH
    );
    println!("  dianran launch_on  {ours_us:8.2} us");
    println!("  raw cudarc         {raw_us:8.2} us");
    println!("SUMMARY\tlaunch overhead (launch_on / raw cudarc)\t{:.2}x ({ours_us:.2} vs {raw_us:.2} us)", ours_us / raw_us);
}
