//! The assembler example `ptx/examples/mma_tile.rs` (a loop, shared memory and `mma.sync`,
//! built through the PTX model) runs on the emulator from the model itself and from its
//! printed text, and computes the same product as plain Rust.

use dianran_verify::agree::Rng;
use dianran_verify::emu::{self, EmuOptions};
use half::f16;

#[allow(dead_code)]
mod example {
    include!("../../ptx/examples/mma_tile.rs");
}

/// A (16 x k) and B transposed (8 x k) as f16 bytes, plus the reference C (16 x 8) computed
/// in f64 from the same f16 values.
fn inputs(k: usize, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let a: Vec<f16> = (0..16 * k).map(|_| f16::from_f32(rng.next_unit())).collect();
    let bt: Vec<f16> = (0..8 * k).map(|_| f16::from_f32(rng.next_unit())).collect();
    let mut c = vec![0f64; 16 * 8];
    for i in 0..16 {
        for j in 0..8 {
            c[i * 8 + j] = (0..k).map(|p| f64::from(a[i * k + p]) * f64::from(bt[j * k + p])).sum();
        }
    }
    let bytes = |v: &[f16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    (bytes(&a), bytes(&bt), c)
}

fn run(k: usize, from_text: bool) -> Vec<f32> {
    let (a, bt, want) = inputs(k, 7 + k as u64);
    let module = example::build_mma_tile();
    module.validate().expect("the model accepts the example");
    let mut params = vec![a, bt, vec![0u8; 16 * 8 * 4], (k as u32).to_le_bytes().to_vec()];
    let opts = EmuOptions::default();
    let result = if from_text {
        let text = module.to_ptx().expect("prints");
        emu::run(&text, "mma_tile", &mut params, [1, 1, 1], [32, 1, 1], &opts)
    } else {
        emu::run_module(&module, "mma_tile", &mut params, [1, 1, 1], [32, 1, 1], &opts)
    };
    result.expect("runs");
    let got: Vec<f32> =
        params[2].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        // f32 accumulation of k exact f16 x f16 products (each below 1 in magnitude).
        let bound = 1e-6 * k as f64 + 1e-5 * w.abs();
        assert!((f64::from(g) - w).abs() <= bound, "k {k}, C[{}][{}]: {g} vs {w}", i / 8, i % 8);
    }
    got
}

#[test]
fn mma_tile_example_matches_plain_rust() {
    for k in [16, 64, 160] {
        let from_model = run(k, false);
        let from_text = run(k, true);
        assert_eq!(from_model, from_text, "one decoder: the model and its text run the same");
    }
}

#[test]
fn run_module_names_printed_lines_in_errors() {
    // A launch with the wrong block size fails before decoding; a bad access fails with the
    // line the printer gives the instruction.
    let module = example::build_mma_tile();
    let mut params = vec![vec![0u8; 16]; 4];
    let e = emu::run_module(
        &module,
        "mma_tile",
        &mut params,
        [1, 1, 1],
        [64, 1, 1],
        &Default::default(),
    )
    .expect_err("reqntid is 32");
    assert_eq!(e.kind, emu::EmuErrorKind::Launch);
    params[3] = 16u32.to_le_bytes().to_vec();
    let e = emu::run_module(
        &module,
        "mma_tile",
        &mut params,
        [1, 1, 1],
        [32, 1, 1],
        &Default::default(),
    )
    .expect_err("A is too small for a 16 x 16 tile");
    assert_eq!(e.kind, emu::EmuErrorKind::OutOfBounds);
    let text = module.to_ptx().expect("prints");
    let line = e.line.expect("the error names a line") as usize;
    let at = text.lines().nth(line - 1).unwrap_or_default();
    assert!(at.contains("ld.global.v4.u32"), "line {line} is {at:?}");
}
