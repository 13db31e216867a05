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

/// i8 values packed four to a little-endian word (element `4w` the low byte).
fn pack(v: &[i8]) -> Vec<u32> {
    v.chunks(4)
        .map(|q| u32::from_le_bytes([q[0] as u8, q[1] as u8, q[2] as u8, q[3] as u8]))
        .collect()
}

/// Random i8 matrices packed four bytes to a word, row by row (A: 16 rows of K = 32 bytes;
/// B^T: 16 rows, one per column of B), and `A * B` computed in i64.
fn problem(seed: u32, lo: i32, hi: i32) -> (Vec<u32>, Vec<u32>, Vec<i64>) {
    let mut rng = Rng::new(seed);
    let a: Vec<i8> = rng.vec(16 * 32, |r| r.i32_in(lo, hi) as i8);
    let bt: Vec<i8> = rng.vec(16 * 32, |r| r.i32_in(lo, hi) as i8);
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

/// The int8 GEMM sample (`sgm_gemm_i8.wgsl`): random i8 A (M x K) and Bt (N x K) packed
/// four bytes to a word, `C = A * Bt^T` in plain Rust (i64, wrapped to i32 as the kernel's
/// accumulator does; no wrap happens at these sizes), exact on the interpreter and the emulator.
fn gemm(seed: u32, m: usize, n: usize, k: usize) {
    assert_eq!(k % 4, 0, "the sample needs K to be a multiple of 4");
    let mut rng = Rng::new(seed);
    let a: Vec<i8> = rng.vec(m * k, |r| r.i32_in(-128, 127) as i8);
    let bt: Vec<i8> = rng.vec(n * k, |r| r.i32_in(-128, 127) as i8);
    let want: Vec<i32> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            let dot: i64 = (0..k).map(|p| i64::from(a[r * k + p]) * i64::from(bt[c * k + p])).sum();
            dot as i32
        })
        .collect();
    let name = "sgm_gemm_i8.wgsl";
    let src = std::fs::read_to_string(sample_path(name)).expect("sample");
    let (_, entry) = sample_header(&src);
    let module = dianran_frontend::compile(name, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: frontend failed:\n{d}"));
    let dispatch = [n.div_ceil(32) as u32, m.div_ceil(32) as u32, 1];
    let job = dianran_verify::executors::Job::new(name, &src, &module, &entry, dispatch);
    let input = group0(vec![
        (0, u32_bytes(&[m as u32, n as u32, k as u32, 0])),
        (1, u32_bytes(&pack(&a))),
        (2, u32_bytes(&pack(&bt))),
        (3, zeros(4 * m * n)),
    ]);
    for exec in [Executor::Interp, Executor::Emu] {
        let bufs = dianran_verify::executors::run(exec, &job, &input)
            .unwrap_or_else(|e| panic!("{name} on {}: {e}", exec.name()));
        check_eq(&format!("C {m}x{n}x{k} on {}", exec.name()), &i32s(out(&bufs, 3)), &want);
    }
}

#[test]
fn int8_gemm_header_problem() {
    // The header's sizes: partial blocks in M (72 = 2 * 32 + 8) and N (40 = 32 + 8), and a
    // K (56) that ends 24 bytes into its second slab, so the zero padding is exercised.
    let src = std::fs::read_to_string(sample_path("sgm_gemm_i8.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [2, 3, 1]);
    gemm(0x61, 72, 40, 56);
}

#[test]
fn int8_gemm_whole_blocks_and_single_word_k() {
    gemm(0x62, 64, 64, 96);
    // K = 4: one word per row, 7 of the slab's 8 words zero.
    gemm(0x63, 17, 33, 4);
}
