//! The f16 GEMM written with Dawn's subgroup matrices (`tests/samples/sgm_gemm_f16.wgsl`)
//! against plain Rust: random f16 A and B, `A * B` summed in f32 here, on the interpreter, the
//! PTX emulator (`ldmatrix` + `mma.m16n8k16` from `u32` stages) and LLVM's PTX on the emulator.
//! Every f16 product is exact in f32; only the order of the f32 sums may differ, so each element
//! may differ by `REL * sum_k |a_ik b_kj| + ABS` (as `verify/tests/gemm.rs`).

mod common;

use common::*;
use dianran_verify::executors::{self, Executor, Job};
use half::f16;

const REL: f32 = 1e-3;
const ABS: f32 = 1e-5;

fn gemm(seed: u32, m: usize, n: usize, k: usize) {
    assert!(k.is_multiple_of(2) && n.is_multiple_of(2), "the sample needs even K and N");
    let mut rng = Rng::new(seed);
    let a: Vec<f16> = rng.vec(m * k, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let b: Vec<f16> = rng.vec(k * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let (mut want, mut tol) = (vec![0f32; m * n], vec![0f32; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (mut sum, mut mag) = (0f32, 0f32);
            for p in 0..k {
                let prod = a[i * k + p].to_f32() * b[p * n + j].to_f32();
                sum += prod;
                mag += prod.abs();
            }
            want[i * n + j] = sum;
            tol[i * n + j] = REL * mag + ABS;
        }
    }
    let name = "sgm_gemm_f16.wgsl";
    let src = std::fs::read_to_string(sample_path(name)).expect("sample");
    let (_, entry) = sample_header(&src);
    let module = dianran_frontend::compile(name, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: frontend failed:\n{d}"));
    let dispatch = [n.div_ceil(32) as u32, m.div_ceil(32) as u32, 1];
    let job = Job::new(name, &src, &module, &entry, dispatch);
    let input = group0(vec![
        (0, u32_bytes(&[m as u32, n as u32, k as u32, 0])),
        (1, f16_bytes(&a)),
        (2, f16_bytes(&b)),
        (3, zeros(4 * m * n)),
    ]);
    for exec in [Executor::Interp, Executor::Emu, Executor::LlvmEmu] {
        let bufs = executors::run(exec, &job, &input)
            .unwrap_or_else(|e| panic!("{name} on {}: {e}", exec.name()));
        let got = f32s(out(&bufs, 3));
        let bad: Vec<String> = (0..want.len())
            .filter(|&i| !(got[i] - want[i]).abs().le(&tol[i]))
            .take(8)
            .map(|i| {
                format!("  [{i}] expected {:e} (within {:e}), got {:e}", want[i], tol[i], got[i])
            })
            .collect();
        assert!(bad.is_empty(), "C {m}x{n}x{k} on {}:\n{}", exec.name(), bad.join("\n"));
    }
}

#[test]
fn f16_gemm_header_problem() {
    // The header's sizes: partial blocks in M (40 = 32 + 8) and N (72 = 2 * 32 + 8), and a
    // K (40) that ends half-way into its third slab.
    let src = std::fs::read_to_string(sample_path("sgm_gemm_f16.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [3, 2, 1]);
    gemm(0x71, 40, 72, 40);
}

#[test]
fn f16_gemm_whole_blocks_and_short_k() {
    gemm(0x72, 64, 64, 64);
    gemm(0x73, 17, 34, 2);
}
