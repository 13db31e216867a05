//! The CUDA C++ equivalents compute what their samples compute: each one is compiled by
//! NVRTC and run on our PTX emulator against a plain Rust reference. The GEMM equivalents
//! use `wmma`, which the emulator does not implement (it runs the `mma.sync`/`ldmatrix` forms
//! our codegen emits); the `gemm_device` bench spot-checks them on a device instead.
//! NVRTC absent: `skipped: nvrtc not found` (a failure under CI=true).

use dianran_benches::kernels::{self, Pair, PAIRS};
use dianran_benches::nvrtc::{self, NvrtcError};

/// xorshift32.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// Uniform in [-1, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

fn bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
fn f32s(b: &[u8]) -> Vec<f32> {
    u32s(b).into_iter().map(f32::from_bits).collect()
}

/// Compiles the pair's CUDA with NVRTC and runs it on the emulator; `None` without NVRTC.
fn run(sample: &str, params: &mut [Vec<u8>], grid: [u32; 3], block: [u32; 3]) -> Option<()> {
    let p: &Pair = PAIRS.iter().find(|p| p.sample == sample).expect("pair listed");
    let src = kernels::cuda_source(p).expect("cuda source");
    let ptx = match nvrtc::compile(&src, p.cuda_file, 80) {
        Ok(ptx) => ptx,
        Err(NvrtcError::NotFound(why)) => {
            dianran_verify::tools::require_that(false, &format!("nvrtc not found ({why})"));
            return None;
        }
        Err(e) => panic!("{}: {e}", p.cuda_file),
    };
    let opts = Default::default();
    if let Err(e) = dianran_verify::emu::run(&ptx, p.cuda_entry, params, grid, block, &opts) {
        panic!("{} on the emulator: {e}", p.cuda_file);
    }
    Some(())
}

fn check_close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}[{i}] = {g}, expected {w}");
    }
}

#[test]
fn double_equivalent() {
    let mut rng = Rng(7);
    let data: Vec<u32> = (0..16).map(|_| rng.next()).collect();
    let mut params = vec![bytes_u32(&data)];
    if run("double_unicode.wgsl", &mut params, [4, 1, 1], [4, 1, 1]).is_none() {
        return;
    }
    let want: Vec<u32> = data.iter().map(|x| x.wrapping_mul(2)).collect();
    assert_eq!(u32s(&params[0]), want);
}

#[test]
fn matmul_tiled_equivalent() {
    let n = 64;
    let mut rng = Rng(8);
    let a: Vec<f32> = (0..n * n).map(|_| rng.unit()).collect();
    let b: Vec<f32> = (0..n * n).map(|_| rng.unit()).collect();
    let mut params = vec![bytes_f32(&a), bytes_f32(&b), vec![0; 4 * n * n]];
    if run("matmul_tiled.wgsl", &mut params, [4, 4, 1], [16, 16, 1]).is_none() {
        return;
    }
    let mut want = vec![0.0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).map(|k| a[r * n + k] * b[k * n + c]).sum();
        }
    }
    // 64 products of values in [-1, 1), summed in a different order (and fused): 1e-4.
    check_close("C", &f32s(&params[2]), &want, 1e-4);
}

#[test]
fn reduce_tree_equivalent() {
    let mut rng = Rng(9);
    let ints: Vec<u32> = (0..1024).map(|_| rng.next()).collect();
    let floats: Vec<f32> = (0..1024).map(|_| rng.unit()).collect();
    let mut params = vec![bytes_u32(&ints), bytes_f32(&floats), vec![0; 16], vec![0; 16]];
    if run("reduce_tree.wgsl", &mut params, [4, 1, 1], [256, 1, 1]).is_none() {
        return;
    }
    let sums: Vec<u32> =
        ints.chunks(256).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
    let maxima: Vec<f32> =
        floats.chunks(256).map(|c| c.iter().copied().fold(f32::MIN, f32::max)).collect();
    assert_eq!(u32s(&params[2]), sums);
    assert_eq!(f32s(&params[3]), maxima);
}

#[test]
fn softmax_equivalent() {
    let (rows, cols) = (16, 128);
    let mut rng = Rng(10);
    let x: Vec<f32> = (0..rows * cols).map(|_| 4.0 * rng.unit()).collect();
    let mut params = vec![bytes_f32(&x), vec![0; 4 * rows * cols]];
    if run("softmax.wgsl", &mut params, [16, 1, 1], [64, 1, 1]).is_none() {
        return;
    }
    let mut want = Vec::new();
    for row in x.chunks(cols) {
        let max = row.iter().copied().fold(f32::MIN, f32::max);
        let e: Vec<f64> = row.iter().map(|v| ((v - max) as f64).exp()).collect();
        let sum: f64 = e.iter().sum();
        want.extend(e.iter().map(|v| (v / sum) as f32));
    }
    // Outputs are below 1; expf and the division are within a few ulp: 1e-6.
    check_close("y", &f32s(&params[1]), &want, 1e-6);
}
