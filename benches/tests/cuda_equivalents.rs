//! The CUDA C++ equivalents compute what their samples compute: each one is compiled by
//! NVRTC and run on our PTX emulator against a plain Rust reference. The GEMM equivalents
//! are written on inline-PTX `ldmatrix` + `mma.sync` (the forms our codegen emits and the
//! emulator runs), so they are checked here too, over several shapes including edges.
//! NVRTC absent: `skipped: nvrtc not found` (a failure under CI=true).

use dianran_benches::device::Rng;
use dianran_benches::kernels::{self, Pair, PAIRS};
use dianran_benches::nvrtc::{self, NvrtcError};

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
    let data: Vec<u32> = (0..16).map(|_| rng.next_u32()).collect();
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
    let ints: Vec<u32> = (0..1024).map(|_| rng.next_u32()).collect();
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

/// `got` within `rel` relative (or `abs` absolute) of `want`, element by element.
fn check_rel(what: &str, got: &[f32], want: &[f32], abs: f32, rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = (g - w).abs() <= abs || (g - w).abs() <= rel * w.abs();
        assert!(ok, "{what}[{i}] = {g}, expected {w}");
    }
}

#[test]
fn gelu_equivalent() {
    let n = 512;
    let mut rng = Rng(11);
    let x: Vec<f32> = (0..n).map(|_| 6.0 * rng.unit()).collect();
    let mut params = vec![bytes_f32(&x), vec![0; 12 * n]];
    if run("gelu.wgsl", &mut params, [8, 1, 1], [64, 1, 1]).is_none() {
        return;
    }
    let want: Vec<f32> = x
        .iter()
        .flat_map(|&vf| {
            let v = vf as f64;
            let inner = 0.7978845608028654 * (v + 0.044715 * v.powf(3.0));
            [0.5 * v * (1.0 + inner.tanh()), v / (1.0 + (-1.702 * v).exp()), v / (1.0 + (-v).exp())]
                .map(|e| e as f32)
        })
        .collect();
    // NVRTC's powf of negative bases is C99's too.
    check_rel("y", &f32s(&params[1]), &want, 1e-6, 1e-5);
}

#[test]
fn layer_norm_pow_equivalent() {
    let (rows, cols) = (4, 256);
    let mut rng = Rng(12);
    let x: Vec<f32> = (0..rows * cols).map(|_| 4.0 * rng.unit()).collect();
    let mut params = vec![bytes_f32(&x), vec![0; 8 * rows], vec![0; 4 * rows * cols]];
    if run("layer_norm_pow.wgsl", &mut params, [4, 1, 1], [256, 1, 1]).is_none() {
        return;
    }
    let mut stats = Vec::new();
    let mut y = Vec::new();
    for row in x.chunks(cols) {
        let mean = row.iter().map(|v| *v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let std = (var + 1e-5).sqrt();
        stats.extend([mean as f32, std as f32]);
        y.extend(row.iter().map(|v| ((*v as f64 - mean) / std) as f32));
    }
    check_rel("stats", &f32s(&params[1]), &stats, 1e-5, 1e-5);
    check_rel("y", &f32s(&params[2]), &y, 1e-5, 1e-5);
}

#[test]
fn trig_waves_equivalent() {
    let n = 256;
    let mut rng = Rng(13);
    let t: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
    let mut params = vec![bytes_f32(&t), vec![0; 32 * n]];
    if run("trig_waves.wgsl", &mut params, [4, 1, 1], [64, 1, 1]).is_none() {
        return;
    }
    let f = |x: f64| x as f32 as f64;
    let want: Vec<f32> = t
        .iter()
        .flat_map(|&v| {
            let big = (v * 98765.4) as f64;
            let huge = (v * 1.0e9) as f64;
            let w = v as f64;
            [
                big.sin(),
                ((v * 98765.4 + 0.5) as f64).cos(),
                f(huge.sin()) * f(huge.cos()),
                ((v * 1234.5) as f64).tan(),
                f(big.sin()).atan2(f(huge.cos())),
                f(((v * 0.99) as f64).asin())
                    + f(((v * 0.5) as f64).acos())
                    + f(((v * 50.0) as f64).atan()),
                f(((v * 2.0) as f64).sinh()) - f(w.cosh()) + f(((v * 8.0) as f64).tanh()),
                f(((v * 100.0) as f64).asinh())
                    + f(((v * 0.9) as f64).atanh())
                    + f(((2.0 + v) as f64).acosh()),
            ]
            .map(|e| e as f32)
        })
        .collect();
    // CUDA's library runs here with its `.approx` steps evaluated exactly by the emulator.
    check_rel("out", &f32s(&params[1]), &want, 1e-6, 1e-5);
}

/// f16 bit patterns of random values in [-1, 1), and the values they hold.
fn halves(rng: &mut Rng, n: usize) -> (Vec<u8>, Vec<f32>) {
    let h: Vec<half::f16> = (0..n).map(|_| half::f16::from_f32(rng.unit())).collect();
    (
        h.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        h.iter().map(|x| x.to_f32()).collect(),
    )
}

/// `a (m x k) * b (k x n)` in f64 (row-major), and per element `sum |a b|`.
fn matmul_ref(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
    let mut c = vec![0.0f32; m * n];
    let mut mag = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut g) = (0.0f64, 0.0f64);
            for p in 0..k {
                let x = a[i * k + p] as f64 * b[p * n + j] as f64;
                s += x;
                g += x.abs();
            }
            c[i * n + j] = s as f32;
            mag[i * n + j] = g as f32;
        }
    }
    (c, mag)
}

/// f16 products are exact in f32; only the order of the f32 sums differs from the f64
/// reference: within `1e-5 * sum |a b| + 1e-6` per element.
fn check_gemm(what: &str, got: &[f32], want: &[f32], mag: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, ((g, w), s)) in got.iter().zip(want).zip(mag).enumerate() {
        assert!((g - w).abs() <= 1e-5 * s + 1e-6, "{what}[{i}] = {g}, expected {w}");
    }
}

fn dims(m: usize, n: usize, k: usize) -> Vec<u8> {
    bytes_u32(&[m as u32, n as u32, k as u32, 0])
}

#[test]
fn gemm_tiled_f16_equivalent() {
    // Partial blocks in M and N with K ending in half a slab; whole blocks over several
    // slabs; a single 16x16 tile; a 2x2 grid of whole blocks.
    for (seed, m, n, k) in
        [(20, 80, 112, 48), (21, 64, 128, 128), (22, 16, 16, 16), (23, 128, 128, 64)]
    {
        let mut rng = Rng(seed);
        let (a, af) = halves(&mut rng, m * k);
        let (b, bf) = halves(&mut rng, k * n);
        let mut params = vec![dims(m, n, k), a, b, vec![0; 4 * m * n]];
        let grid = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
        if run("gemm_tiled_f16.wgsl", &mut params, grid, [128, 1, 1]).is_none() {
            return;
        }
        let (want, mag) = matmul_ref(&af, &bf, m, n, k);
        check_gemm(&format!("C {m}x{n}x{k}"), &f32s(&params[3]), &want, &mag);
    }
}

#[test]
fn gemm_bias_relu_equivalent() {
    for (seed, m, n, k) in [(24, 48, 80, 64), (25, 64, 64, 32)] {
        let mut rng = Rng(seed);
        let (a, af) = halves(&mut rng, m * k);
        let (b, bf) = halves(&mut rng, k * n);
        let bias: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
        let mut params = vec![dims(m, n, k), a, b, bytes_f32(&bias), vec![0; 4 * m * n]];
        let grid = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
        if run("gemm_bias_relu.wgsl", &mut params, grid, [128, 1, 1]).is_none() {
            return;
        }
        let (prod, mag) = matmul_ref(&af, &bf, m, n, k);
        let want: Vec<f32> =
            prod.iter().enumerate().map(|(i, v)| (v + bias[i % n]).max(0.0)).collect();
        let got = f32s(&params[4]);
        check_gemm(&format!("C {m}x{n}x{k}"), &got, &want, &mag);
        assert!(got.contains(&0.0) && got.iter().any(|&x| x > 0.0), "ReLU not exercised");
    }
}

#[test]
fn gemm_small_m_equivalent() {
    // M = 8 with a partial last block and K ending inside a slab; M = 3; M = 16.
    for (seed, m, n, k) in [(26, 8, 96, 160), (27, 3, 64, 48), (28, 16, 128, 64)] {
        let mut rng = Rng(seed);
        let (a, af) = halves(&mut rng, m * k);
        let (b, bf) = halves(&mut rng, k * n);
        let mut params = vec![dims(m, n, k), a, b, vec![0; 4 * m * n]];
        if run("gemm_small_m.wgsl", &mut params, [n.div_ceil(64) as u32, 1, 1], [128, 1, 1])
            .is_none()
        {
            return;
        }
        let (want, mag) = matmul_ref(&af, &bf, m, n, k);
        check_gemm(&format!("C {m}x{n}x{k}"), &f32s(&params[3]), &want, &mag);
    }
}

#[test]
fn saxpy_vec4_equivalent() {
    let count = 1000;
    let alpha = 0.75f32;
    let mut rng = Rng(29);
    let x: Vec<f32> = (0..4 * count).map(|_| rng.unit()).collect();
    let y: Vec<f32> = (0..4 * count).map(|_| rng.unit()).collect();
    let mut uniform = alpha.to_le_bytes().to_vec();
    uniform.extend(bytes_u32(&[count as u32, 0, 0]));
    let mut params = vec![uniform, bytes_f32(&x), bytes_f32(&y)];
    if run("saxpy_vec4.wgsl", &mut params, [4, 1, 1], [256, 1, 1]).is_none() {
        return;
    }
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| alpha.mul_add(*a, *b)).collect();
    check_close("y", &f32s(&params[2]), &want, 0.0);
}

#[test]
fn softmax_rows_equivalent() {
    // Rows longer than one pass of the block (2056 = 2 x 1024 + 8) and rows shorter than a
    // warp's share (40: most threads hold no element).
    for (seed, rows, cols) in [(30, 8, 2056), (31, 3, 40)] {
        let mut rng = Rng(seed);
        let x: Vec<f32> = (0..rows * cols).map(|_| 8.0 * rng.unit()).collect();
        let mut params =
            vec![bytes_u32(&[cols as u32, 0, 0, 0]), bytes_f32(&x), vec![0; 4 * rows * cols]];
        if run("softmax_rows.wgsl", &mut params, [rows as u32, 1, 1], [256, 1, 1]).is_none() {
            return;
        }
        let mut want = Vec::new();
        for row in x.chunks(cols) {
            let max = row.iter().copied().fold(f32::MIN, f32::max) as f64;
            let e: Vec<f64> = row.iter().map(|v| (*v as f64 - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            want.extend(e.iter().map(|v| (v / sum) as f32));
        }
        check_rel(&format!("y {rows}x{cols}"), &f32s(&params[2]), &want, 1e-9, 1e-5);
    }
}

#[test]
fn sgm_gemm_i8_equivalent() {
    // Partial blocks in M and N with K ending inside a slab; whole blocks; K = 4 (one word).
    for (seed, m, n, k) in [(29, 72, 40, 56), (30, 64, 64, 96), (31, 17, 33, 4)] {
        let mut rng = Rng(seed);
        let mut bytes =
            |len: usize| -> Vec<i8> { (0..len).map(|_| rng.next_u32() as i8).collect() };
        let (a, bt) = (bytes(m * k), bytes(n * k));
        let raw = |v: &[i8]| -> Vec<u8> { v.iter().map(|&x| x as u8).collect() };
        let mut params = vec![dims(m, n, k), raw(&a), raw(&bt), vec![0; 4 * m * n]];
        let grid = [n.div_ceil(32) as u32, m.div_ceil(32) as u32, 1];
        if run("sgm_gemm_i8.wgsl", &mut params, grid, [128, 1, 1]).is_none() {
            return;
        }
        let want: Vec<u32> = (0..m * n)
            .map(|i| {
                let (r, c) = (i / n, i % n);
                let dot: i32 =
                    (0..k).map(|p| i32::from(a[r * k + p]) * i32::from(bt[c * k + p])).sum();
                dot as u32
            })
            .collect();
        assert_eq!(u32s(&params[3]), want, "C {m}x{n}x{k}");
    }
}

#[test]
fn sgm_gemm_f16_equivalent() {
    // Partial blocks in M and N (the sample's header problem), K ending inside a slab; whole
    // blocks over several slabs.
    for (seed, m, n, k) in [(32, 40, 72, 40), (33, 64, 64, 64)] {
        let mut rng = Rng(seed);
        let (a, af) = halves(&mut rng, m * k);
        let (b, bf) = halves(&mut rng, k * n);
        let mut params = vec![dims(m, n, k), a, b, vec![0; 4 * m * n]];
        let grid = [n.div_ceil(32) as u32, m.div_ceil(32) as u32, 1];
        if run("sgm_gemm_f16.wgsl", &mut params, grid, [128, 1, 1]).is_none() {
            return;
        }
        let (want, mag) = matmul_ref(&af, &bf, m, n, k);
        check_gemm(&format!("C {m}x{n}x{k}"), &f32s(&params[3]), &want, &mag);
    }
}
