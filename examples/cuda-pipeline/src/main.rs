//! A small pipeline that looks like real work: one MLP step (layer norm -> GEMM -> GELU) run
//! many times over device-resident data on one CUDA stream, through the typed launchers
//! `dianran::build` generated from `shaders/mlp.wgsl`. Nothing goes back to the host until
//! the end, when the result is checked against the CPU. Without a CUDA device it says
//! `skipped: no CUDA device`.

use cuda_pipeline::shaders::mlp;
use cuda_pipeline::{step_reference, Layer};
use dianran::launch::LaunchError;
use std::process::ExitCode;
use std::time::Instant;

const ROWS: u32 = 64;
const COLS: u32 = 256;
const STEPS: usize = 200;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(LaunchError::NoDevice) => {
            println!("skipped: no CUDA device");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Deterministic values in [-scale, scale).
fn values(n: usize, seed: u32, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn run() -> Result<(), LaunchError> {
    let kernels = mlp::Kernels::load()?;
    let stream = kernels.module().context().new_stream()?;
    let (rows, cols) = (ROWS as usize, COLS as usize);
    let dims = mlp::Dims { rows: ROWS, cols: COLS, eps: 1e-5, _unused: 0 };
    let x0 = values(rows * cols, 1, 2.0);
    let gamma = values(cols, 2, 0.5).iter().map(|g| 1.0 + g).collect::<Vec<_>>();
    let beta = values(cols, 3, 0.1);
    // Scaled so each output sums `cols` terms of unit variance to about unit variance.
    let w = values(cols * cols, 4, (3.0 / cols as f32).sqrt());
    let bias = values(cols, 5, 0.1);

    let layer = Layer { gamma: &gamma, beta: &beta, w: &w, bias: &bias, cols, eps: dims.eps };
    let upload = |v: &[f32]| stream.clone_htod(v).map_err(LaunchError::from);
    let (gamma_d, beta_d, w_d, bias_d) =
        (upload(&gamma)?, upload(&beta)?, upload(&w)?, upload(&bias)?);
    let mut x_d = upload(&x0)?;
    let mut h_d = stream.alloc_zeros::<f32>(rows * cols)?;

    let step = |x: &mut dianran::launch::CudaSlice<f32>,
                h: &mut dianran::launch::CudaSlice<f32>|
     -> Result<(), LaunchError> {
        kernels.layer_norm(&stream, [ROWS, 1, 1], &dims, x, &gamma_d, &beta_d, h)?;
        // The GEMM writes the next step's input over this one's.
        kernels.gemm(
            &stream,
            [COLS.div_ceil(16), ROWS.div_ceil(16), 1],
            &dims,
            h,
            &w_d,
            &bias_d,
            x,
        )?;
        kernels.gelu(&stream, [(ROWS * COLS).div_ceil(256), 1, 1], &dims, x)
    };
    // One step first, checked on its own, then the timed loop.
    step(&mut x_d, &mut h_d)?;
    let first = stream.clone_dtoh(&x_d)?;
    let want = step_reference(&x0, &layer);
    compare(&first, &want, "step 1")?;
    let start = Instant::now();
    for _ in 2..STEPS {
        step(&mut x_d, &mut h_d)?;
    }
    stream.synchronize()?;
    let elapsed = start.elapsed();
    // The last step checked on its own too: many steps of f32 and f64 drift apart as any
    // iterated map does, one step does not.
    let before = stream.clone_dtoh(&x_d)?;
    step(&mut x_d, &mut h_d)?;
    let got = stream.clone_dtoh(&x_d)?;
    let want = step_reference(&before, &layer);
    compare(&got, &want, &format!("step {STEPS}"))?;
    let launches = 3 * (STEPS - 2);
    println!(
        "{STEPS} steps of layer norm -> GEMM -> GELU ({ROWS}x{COLS}) on one stream: {:.1} us per step, {:.2} us per launch; results match the CPU",
        elapsed.as_secs_f64() * 1e6 / (STEPS - 2) as f64,
        elapsed.as_secs_f64() * 1e6 / launches as f64,
    );
    Ok(())
}

/// Agreement of one step with the CPU: 1e-3 relative to the values' scale (precise math, f32
/// accumulation over 256 terms).
fn compare(got: &[f32], want: &[f32], what: &str) -> Result<(), LaunchError> {
    let tol = 1e-3;
    let bad =
        got.iter().zip(want).filter(|(g, w)| (**g - **w).abs() > tol * (1.0 + w.abs())).count();
    if bad == 0 && got.len() == want.len() {
        Ok(())
    } else {
        Err(LaunchError::Execution(format!(
            "{what}: {bad} of {} values differ from the CPU",
            want.len()
        )))
    }
}
