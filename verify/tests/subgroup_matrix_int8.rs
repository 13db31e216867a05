//! The int8 tensor-core sample (`tests/samples/sgm_int8_tile.wgsl`) against plain Rust: the
//! integer product of random i8 matrices, computed here in i64, must come out exactly on the
//! interpreter and on the PTX emulator (`mma.m16n8k32.s8` with `ldmatrix`-staged operands),
//! and the design documents' integer-tile rule must hold: an accumulator filled with
//! `0x4B400000` read through `bitcast<f32>` is `12582912 + dot` while `|dot| < 2^22`.

mod common;

use common::*;
use dianran_verify::executors::Executor;

/// The sample's fill value (the f32 1.5 * 2^23).
const BIAS: i32 = 0x4B40_0000;

/// Random i8 matrices packed four bytes to a word, row by row (A: 16 rows of K = 32 bytes;
/// B^T: 16 rows, one per column of B), and `A * B` computed in i64.
fn problem(seed: u32, lo: i32, hi: i32) -> (Vec<u32>, Vec<u32>, Vec<i64>) {
    let mut rng = Rng::new(seed);
    let a: Vec<i8> = rng.vec(16 * 32, |r| r.i32_in(lo, hi) as i8);
    let bt: Vec<i8> = rng.vec(16 * 32, |r| r.i32_in(lo, hi) as i8);
    let pack = |v: &[i8]| -> Vec<u32> {
        v.chunks(4)
            .map(|q| u32::from_le_bytes([q[0] as u8, q[1] as u8, q[2] as u8, q[3] as u8]))
            .collect()
    };
    let mut dot = vec![0i64; 256];
    for m in 0..16 {
        for n in 0..16 {
            dot[m * 16 + n] =
                (0..32).map(|k| i64::from(a[m * 32 + k]) * i64::from(bt[n * 32 + k])).sum();
        }
    }
    (pack(&a), pack(&bt), dot)
}

fn check(exec: Executor, seed: u32, lo: i32, hi: i32) {
    let (a, bt, dot) = problem(seed, lo, hi);
    let bufs = run_bound_on(
        exec,
        "sgm_int8_tile.wgsl",
        vec![u32_bytes(&a), u32_bytes(&bt), zeros(4 * 256), zeros(4 * 256)],
    );
    // Both stores are row-major (the deprecated form's `col_major` is `false`).
    let raw = i32s(out(&bufs, 2));
    let want: Vec<i32> = dot.iter().map(|&d| BIAS.wrapping_add(d as i32)).collect();
    check_eq(&format!("raw on {}", exec.name()), &raw, &want);
    let dots = f32s(out(&bufs, 3));
    let want: Vec<f32> = dot.iter().map(|&d| d as f32).collect();
    check_eq(&format!("dots on {}", exec.name()), &dots, &want);
}

#[test]
fn int8_tile_full_range_on_interpreter_and_emulator() {
    // |dot| <= 32 * 128 * 128 = 2^19 < 2^22: the rule holds for every i8 input.
    for exec in [Executor::Interp, Executor::Emu] {
        check(exec, 0x51, -128, 127);
    }
}

#[test]
fn int8_tile_extremes() {
    // All -128: every dot is 32 * 2^14 = 2^19, the largest magnitude.
    for exec in [Executor::Interp, Executor::Emu] {
        check(exec, 0x52, -128, -128);
    }
}
