//! Reference tests for the tensor-core GEMM samples (`gemm_*.wgsl` in `tests/samples/`).
//!
//! Inputs are f16 bit patterns; the expected output is a plain Rust f32 computation over the
//! same f16 values (never the interpreter). Every f16 product is exact in f32, so the only
//! difference an implementation may show is the order and precision of the f32 sums: each
//! element may differ by `REL * sum_k |a_ik * b_kj| + ABS`, a bound relative to the size of
//! the terms rather than of the (possibly cancelled) result.
//!
//! Besides the interpreter, each sample runs on the PTX emulator (and the CUDA driver when a
//! device is present) through `dianran_verify::executors`, and must agree with the interpreter
//! within the same bound. Only a missing CUDA device skips an executor (`skipped: ...`); a
//! sample without PTX, or a skip on the emulator, fails.

// Reference code indexes matrices by position, the way the WGSL does.
#![allow(clippy::needless_range_loop)]

mod common;

use common::*;
use dianran_verify::executors::{self, ExecError, Executor, Job};
use dianran_verify::interp::Buffers;
use half::f16;

/// Relative part of the bound, against `sum_k |a_ik * b_kj|`: generous for f32 sums of
/// at most a few hundred exact products in any order (tensor cores included).
const REL: f32 = 1e-3;
/// Absolute floor (results that are sums of tiny terms).
const ABS: f32 = 1e-5;

/// One problem: sizes, f16 inputs, and the bias for the fused variant.
struct Problem {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<f16>,
    b: Vec<f16>,
    bias: Vec<f32>,
}

impl Problem {
    /// Random inputs in [-1, 1) (A, B as f16; bias as f32).
    fn new(seed: u32, m: usize, n: usize, k: usize) -> Problem {
        let mut rng = Rng::new(seed);
        let a = rng.vec(m * k, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
        let b = rng.vec(k * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
        let bias = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
        Problem { m, n, k, a, b, bias }
    }

    /// The uniform `Dims { m, n, k }`, padded to 16 bytes.
    fn dims(&self) -> Vec<u8> {
        u32_bytes(&[self.m as u32, self.n as u32, self.k as u32, 0])
    }

    /// `A * B` in plain f32, and per element the bound `REL * sum |a b| + ABS`.
    fn reference(&self) -> (Vec<f32>, Vec<f32>) {
        let (m, n, k) = (self.m, self.n, self.k);
        let mut c = vec![0.0f32; m * n];
        let mut tol = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut sum = 0.0f32;
                let mut mag = 0.0f32;
                for p in 0..k {
                    let prod = self.a[i * k + p].to_f32() * self.b[p * n + j].to_f32();
                    sum += prod;
                    mag += prod.abs();
                }
                c[i * n + j] = sum;
                tol[i * n + j] = REL * mag + ABS;
            }
        }
        (c, tol)
    }
}

/// Compares with a per-element bound; reports up to 8 mismatches.
fn check_within(what: &str, got: &[f32], want: &[f32], tol: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length differs");
    let bad: Vec<String> = (0..want.len())
        .filter(|&i| !(got[i] - want[i]).abs().le(&tol[i]))
        .take(8)
        .map(|i| format!("  [{i}] expected {:e} (within {:e}), got {:e}", want[i], tol[i], got[i]))
        .collect();
    assert!(bad.is_empty(), "{what}: mismatches\n{}", bad.join("\n"));
}

/// Runs `sample` over `dispatch` on every executor that can run it here: the interpreter
/// always (its buffers are returned), the emulator and CUDA when they run, each checked
/// against the interpreter on the output binding within `tol`.
fn run_all(
    sample: &str,
    dispatch: [u32; 3],
    input: Buffers,
    out_binding: u32,
    tol: &[f32],
) -> Buffers {
    let src = std::fs::read_to_string(sample_path(sample)).expect("cannot read sample");
    let (_, entry) = sample_header(&src);
    let module = match dianran_frontend::compile(sample, &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => panic!("{sample}: frontend failed:\n{d}"),
    };
    let job = Job::new(sample, &src, &module, &entry, dispatch);
    let reference = match executors::run(Executor::Interp, &job, &input) {
        Ok(b) => b,
        Err(e) => panic!("{sample}: interpreter failed: {e}"),
    };
    let want = f32s(out(&reference, out_binding));
    for exec in [Executor::Emu, Executor::Cuda] {
        match executors::run(exec, &job, &input) {
            Ok(bufs) => {
                let what = format!("{sample} on {} vs interp", exec.name());
                check_within(&what, &f32s(out(&bufs, out_binding)), &want, tol);
            }
            // Only the absence of a CUDA device excuses an executor: every GEMM sample
            // compiles to PTX (cooperative matrices included), so the emulator always runs.
            Err(ExecError::Skipped(why))
                if matches!(exec, Executor::Cuda) && why.starts_with("no CUDA device") =>
            {
                eprintln!("skipped: {sample} on {}: {why}", exec.name())
            }
            Err(e) => panic!("{sample} on {}: {e}", exec.name()),
        }
    }
    reference
}

/// Workgroups for the 64x64-block kernels.
fn blocks(p: &Problem) -> [u32; 3] {
    [p.n.div_ceil(64) as u32, p.m.div_ceil(64) as u32, 1]
}

fn tiled(p: &Problem, dispatch: [u32; 3]) {
    let (want, tol) = p.reference();
    let input = group0(vec![
        (0, p.dims()),
        (1, f16_bytes(&p.a)),
        (2, f16_bytes(&p.b)),
        (3, zeros(4 * p.m * p.n)),
    ]);
    let bufs = run_all("gemm_tiled_f16.wgsl", dispatch, input, 3, &tol);
    check_within("C", &f32s(out(&bufs, 3)), &want, &tol);
}

#[test]
fn gemm_tiled_f16_header_problem() {
    // The sizes the sample's `// dispatch: 2,2,1` header is written for: partial blocks in
    // M and N, and a K (48) that ends in half a slab, so the zero padding is exercised.
    let p = Problem::new(61, 80, 112, 48);
    let src = std::fs::read_to_string(sample_path("gemm_tiled_f16.wgsl")).expect("sample");
    let (dispatch, _) = sample_header(&src);
    assert_eq!(dispatch, blocks(&p));
    tiled(&p, dispatch);
}

#[test]
fn gemm_tiled_f16_square_multi_slab() {
    // Whole blocks and four K slabs: both staging buffers are used twice.
    let p = Problem::new(62, 64, 128, 128);
    tiled(&p, blocks(&p));
}

#[test]
fn gemm_tiled_f16_single_tile() {
    // The smallest problem: one 16x16 tile, one half slab; three of four subgroups store
    // nothing.
    let p = Problem::new(63, 16, 16, 16);
    tiled(&p, blocks(&p));
}

#[test]
fn gemm_tiled_f16_whole_blocks_two_by_two() {
    // Four whole blocks (the direct-store path in every workgroup), two slabs.
    let p = Problem::new(67, 128, 128, 64);
    tiled(&p, blocks(&p));
}

#[test]
fn gemm_tiled_f16_odd_slabs_narrow_edge() {
    // K = 80: three slabs, the last one half zeros, so the stages alternate 0, 1, 0; N = 176
    // ends 16 columns into the third block (6 of its 8 B pieces per row are zeros).
    let p = Problem::new(68, 48, 176, 80);
    tiled(&p, blocks(&p));
}

fn small_m(p: &Problem) {
    let (want, tol) = p.reference();
    let input = group0(vec![
        (0, p.dims()),
        (1, f16_bytes(&p.a)),
        (2, f16_bytes(&p.b)),
        (3, zeros(4 * p.m * p.n)),
    ]);
    let dispatch = [p.n.div_ceil(64) as u32, 1, 1];
    let bufs = run_all("gemm_small_m.wgsl", dispatch, input, 3, &tol);
    check_within("C", &f32s(out(&bufs, 3)), &want, &tol);
}

#[test]
fn gemm_small_m_decode() {
    // M = 8 (one decode step of a batch of 8), N = 96 (a partial last workgroup), K = 160.
    let p = Problem::new(64, 8, 96, 160);
    let src = std::fs::read_to_string(sample_path("gemm_small_m.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [p.n.div_ceil(64) as u32, 1, 1]);
    small_m(&p);
}

#[test]
fn gemm_small_m_fewer_rows() {
    // M below 8: the padding rows stay zero and nothing is written past row M.
    let p = Problem::new(65, 3, 64, 48);
    small_m(&p);
}

#[test]
fn gemm_small_m_full_tile_one_slab() {
    // M = 16 (every row of the tile real) and K = 64: exactly one slab, no prefetch.
    let p = Problem::new(69, 16, 128, 64);
    small_m(&p);
}

#[test]
fn gemm_small_m_single_row_single_strip() {
    // M = 1, N = 16: three of the four subgroups multiply zero columns and store nothing.
    let p = Problem::new(70, 1, 16, 16);
    small_m(&p);
}

fn bias_relu(p: &Problem) {
    let (prod, prod_tol) = p.reference();
    // relu(A * B + bias[col]); relu is 1-Lipschitz, so the product's bound carries over
    // (plus one f32 rounding of the addition).
    let mut want = vec![0.0f32; p.m * p.n];
    let mut tol = vec![0.0f32; p.m * p.n];
    for i in 0..p.m {
        for j in 0..p.n {
            let v = prod[i * p.n + j] + p.bias[j];
            want[i * p.n + j] = v.max(0.0);
            tol[i * p.n + j] = prod_tol[i * p.n + j] + v.abs() * f32::EPSILON;
        }
    }
    let input = group0(vec![
        (0, p.dims()),
        (1, f16_bytes(&p.a)),
        (2, f16_bytes(&p.b)),
        (3, f32_bytes(&p.bias)),
        (4, zeros(4 * p.m * p.n)),
    ]);
    let bufs = run_all("gemm_bias_relu.wgsl", blocks(p), input, 4, &tol);
    let got = f32s(out(&bufs, 4));
    check_within("C", &got, &want, &tol);
    // Some outputs clamp and some do not, or the test would not show the ReLU.
    assert!(got.contains(&0.0) && got.iter().any(|&x| x > 0.0));
}

#[test]
fn gemm_bias_relu_fused() {
    // The header's problem: a partial block in N.
    let p = Problem::new(66, 48, 80, 64);
    let src = std::fs::read_to_string(sample_path("gemm_bias_relu.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, blocks(&p));
    bias_relu(&p);
}

#[test]
fn gemm_bias_relu_edges_in_both_dimensions() {
    // Partial blocks in M and N, K ending in half a slab.
    let p = Problem::new(71, 80, 96, 48);
    bias_relu(&p);
}
