//! Dawn's 8-row subgroup-matrix shapes against plain Rust: 8 × 16 × 16 f16
//! (`tests/samples/sgm_short_f16.wgsl`) on the interpreter, the PTX emulator and LLVM's PTX on
//! it, and 8 × 16 × 32 int8 (`tests/samples/sgm_short_i8.wgsl`) on the interpreter and the
//! emulator. The PTX pads both to the 16-row `mma` instructions (docs/subgroup-matrix.md); these
//! tests show that rows 8..15 never leak into the result.
//!
//! The f16 inputs are small integers, so every product and sum is exact in f32 and in f16 and
//! every executor must give the same bits whatever its summation order.

mod common;

use common::*;
use dianran_verify::executors::Executor;
use half::f16;

/// `A * B` for A (`m` x `k`, row-major) and B (`k` x `n`) given as its transpose `bt` (`n` x
/// `k`, row-major), in i64.
fn product(a: &[i64], bt: &[i64], (m, n, k): (usize, usize, usize)) -> Vec<i64> {
    let mut out = vec![0; m * n];
    for r in 0..m {
        for c in 0..n {
            out[r * n + c] = (0..k).map(|p| a[r * k + p] * bt[c * k + p]).sum();
        }
    }
    out
}

fn f16_on(exec: Executor, seed: u32) {
    let mut rng = Rng::new(seed);
    let a: Vec<i64> = rng.vec(8 * 16, |r| i64::from(r.i32_in(-3, 3)));
    let bt: Vec<i64> = rng.vec(16 * 16, |r| i64::from(r.i32_in(-3, 3)));
    // C is read column-major: element (row, col) at col * 8 + row.
    let c: Vec<i64> = rng.vec(8 * 16, |r| i64::from(r.i32_in(-50, 50)));
    let halves = |v: &[i64]| v.iter().map(|&x| f16::from_f32(x as f32)).collect::<Vec<_>>();
    let c_f32: Vec<f32> = c.iter().map(|&x| x as f32).collect();
    let bufs = run_bound_on(
        exec,
        "sgm_short_f16.wgsl",
        vec![
            f16_bytes(&halves(&a)),
            f16_bytes(&halves(&bt)),
            f32_bytes(&c_f32),
            zeros(4 * 128),
            zeros(2 * 128),
        ],
    );
    let ab = product(&a, &bt, (8, 16, 16));
    // D row-major: (row, col) at row * 16 + col.
    let want_d: Vec<f32> = (0..128).map(|i| (ab[i] + c[(i % 16) * 8 + i / 16]) as f32).collect();
    check_eq(&format!("D on {}", exec.name()), &f32s(out(&bufs, 3)), &want_d);
    // E column-major: (row, col) at col * 8 + row.
    let want_e: Vec<f16> =
        (0..128).map(|i| f16::from_f32(ab[(i % 8) * 16 + i / 8] as f32)).collect();
    check_eq(&format!("E on {}", exec.name()), &f16s(out(&bufs, 4)), &want_e);
}

#[test]
fn f16_8x16x16_on_interpreter_emulator_and_llvm() {
    for exec in [Executor::Interp, Executor::Emu, Executor::LlvmEmu] {
        f16_on(exec, 0x816);
    }
}

/// i8 values packed four to a little-endian word.
fn pack(v: &[i64]) -> Vec<u32> {
    v.chunks(4)
        .map(|q| u32::from_le_bytes([q[0] as u8, q[1] as u8, q[2] as u8, q[3] as u8]))
        .collect()
}

fn i8_on(exec: Executor, seed: u32, lo: i32, hi: i32) {
    let mut rng = Rng::new(seed);
    let a: Vec<i64> = rng.vec(8 * 32, |r| i64::from(r.i32_in(lo, hi)));
    let bt: Vec<i64> = rng.vec(16 * 32, |r| i64::from(r.i32_in(lo, hi)));
    let bufs = run_bound_on(
        exec,
        "sgm_short_i8.wgsl",
        vec![u32_bytes(&pack(&a)), u32_bytes(&pack(&bt)), zeros(4 * 128), zeros(4 * 32)],
    );
    let ab = product(&a, &bt, (8, 16, 32));
    let want_d: Vec<i32> = ab.iter().map(|&x| x as i32 + 7).collect();
    check_eq(&format!("D on {}", exec.name()), &i32s(out(&bufs, 2)), &want_d);
    // E: the low byte of each sum, column-major, four bytes to a word.
    let bytes = out(&bufs, 3);
    let got_e: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
    let want_e: Vec<i8> = (0..128).map(|i| ab[(i % 8) * 16 + i / 8] as i8).collect();
    check_eq(&format!("E on {}", exec.name()), &got_e, &want_e);
}

#[test]
fn int8_8x16x32_on_interpreter_and_emulator() {
    for exec in [Executor::Interp, Executor::Emu] {
        i8_on(exec, 0x832, -128, 127);
        // All -128: the largest sums (32 * 2^14), whose low bytes are zero.
        i8_on(exec, 0x833, -128, -128);
    }
}
