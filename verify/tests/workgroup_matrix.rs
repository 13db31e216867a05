//! The GEMM samples written with dianran's workgroup matrices (`tests/samples/tile_gemm.wgsl`,
//! `tile_gemm_f32.wgsl`, `tile_gemm_bias_relu.wgsl`, `docs/workgroup-matrix.md`) against plain
//! Rust on every executor that runs them: the interpreter, the PTX emulator (the PTX for
//! sm_80 and for sm_90a, Hopper's `wgmma`), LLVM's PTX on the emulator and lavapipe running
//! the printed (portable) WGSL.
//!
//! The reference semantics fix the order: each element starts from the accumulator and adds
//! `fma(a_ik, b_kj, s)` for k = 0, 1, ..., which `f32::mul_add` computes exactly, so the
//! interpreter, and every executor of the portable form with IEEE `fma` (LLVM's PTX, and the
//! PTX of `tile_gemm_f32`, whose f32 operand keeps it portable), must match bit for bit. The
//! PTX backend's tensor-core form (f16 operands: `tile_gemm`, `tile_gemm_bias_relu`) sums in
//! the tensor cores' order, and lavapipe may or may not fuse WGSL's `fma`: those are held to
//! `REL * sum_k |a_ik b_kj|`. Elements outside the matrix (partial blocks) must keep the
//! buffer's old contents.

mod common;

use common::*;
use dianran_verify::executors::{self, ExecError, Executor, Job};
use dianran_verify::interp::Buffers;
use half::f16;

const REL: f32 = 1e-5;
const SENTINEL: f32 = 123.25;

/// Runs `sample` on every executor and compares output `binding` with `want`: exactly on the
/// executors in `exact`, within `tol` on the others.
fn check(
    sample: &str,
    dispatch: [u32; 3],
    input: &Buffers,
    (binding, exact): (u32, &[Executor]),
    want: &[f32],
    tol: &[f32],
) {
    let src = std::fs::read_to_string(sample_path(sample)).expect("sample");
    let (_, entry) = sample_header(&src);
    let module = dianran_frontend::compile(sample, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{sample}: frontend failed:\n{d}"));
    let job = Job::new(sample, &src, &module, &entry, dispatch);
    // The interpreter runs first (below, for the printed WGSL too); these after it.
    let mut execs = Vec::new();
    if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_some() {
        execs.push(Executor::Emu);
    }
    if cfg!(feature = "llvm") {
        execs.push(Executor::LlvmEmu);
    }
    dianran_verify::lavapipe::quiet_mesa_warnings();
    if dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    ) {
        execs.push(Executor::LavapipeOut);
    }
    // The WGSL printed in the extension's own syntax reads back to the same computation.
    let printed = dianran_wgsl::write_module(&module, &Default::default())
        .unwrap_or_else(|d| panic!("{sample}: printing WGSL failed: {d:?}"));
    assert!(printed.contains("enable dianran_workgroup_matrix;"), "{printed}");
    assert!(printed.contains("workgroupMatrixMultiplyAccumulate<"), "{printed}");
    assert!(!printed.contains("_dr_wgm"), "helper names leak:\n{printed}");
    let again = dianran_frontend::compile(sample, &printed, &Default::default())
        .unwrap_or_else(|d| panic!("{sample}: the printed WGSL does not compile:\n{d}\n{printed}"));
    // Reading and printing is a fixed point when the bounds policy adds no checks (with it,
    // the checks are explicit WGSL that reading applies the policy to again, as for Dawn's
    // subgroup matrices).
    let off = dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    };
    let print = |text: &str| {
        let m = dianran_frontend::compile(sample, text, &off)
            .unwrap_or_else(|d| panic!("{sample}: does not compile:\n{d}\n{text}"));
        dianran_wgsl::write_module(&m, &Default::default())
            .unwrap_or_else(|d| panic!("{sample}: printing WGSL failed: {d:?}"))
    };
    let first = print(&src);
    assert_eq!(first, print(&first), "{sample}: printing is not a fixed point");
    // The printer escapes `main` (a reserved word in MSL): the entry is the only one.
    let printed_entry = again.entry_points.first().map(|e| e.name.clone()).unwrap_or_default();
    let rerun = Job::new(sample, &printed, &again, &printed_entry, dispatch);
    let reread = executors::run(Executor::Interp, &rerun, input)
        .unwrap_or_else(|e| panic!("{sample}: the printed WGSL on the interpreter: {e}"));
    let bits = |b: &Buffers| f32s(out(b, binding)).iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let reference = executors::run(Executor::Interp, &job, input)
        .unwrap_or_else(|e| panic!("{sample} on the interpreter: {e}"));
    assert_eq!(bits(&reread), bits(&reference), "{sample}: the printed WGSL computes otherwise");
    let compare = |exec: Executor, bufs: &Buffers| {
        let got = f32s(out(bufs, binding));
        assert_eq!(got.len(), want.len(), "{sample} on {}", exec.name());
        let exact = exact.contains(&exec);
        let bad: Vec<String> = (0..want.len())
            .filter(|&i| {
                if exact {
                    got[i].to_bits() != want[i].to_bits()
                } else {
                    !(got[i] - want[i]).abs().le(&tol[i])
                }
            })
            .take(8)
            .map(|i| format!("  [{i}] expected {:e}, got {:e}", want[i], got[i]))
            .collect();
        assert!(bad.is_empty(), "{sample} on {}:\n{}", exec.name(), bad.join("\n"));
    };
    compare(Executor::Interp, &reference);
    for exec in execs {
        let bufs = match executors::run(exec, &job, input) {
            Ok(b) => b,
            Err(ExecError::Skipped(why)) if exec == Executor::LlvmEmu => {
                println!("skipped: llvm-emu: {why}");
                continue;
            }
            Err(e) => panic!("{sample} on {}: {e}", exec.name()),
        };
        compare(exec, &bufs);
    }
    // `--sm 90a`: f16 products on Hopper's `wgmma` (docs/hopper.md), run by the emulator,
    // held to the same bound as the `mma.sync` form (exact where the form stays portable).
    if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_some() {
        let hopper = Job { sm: dianran_ptx::model::SM_90A, ..job };
        let bufs = executors::run(Executor::Emu, &hopper, input)
            .unwrap_or_else(|e| panic!("{sample} on emu (sm_90a): {e}"));
        compare(Executor::Emu, &bufs);
    }
}

/// `tile_gemm_f32`: C = A (f32, M x K) * B, B given as its N x K transpose in f16. C's buffer
/// has 64 elements more than M x N, which must keep their sentinel.
fn tile_gemm_f32(seed: u32, m: usize, n: usize, k: usize) {
    let mut rng = Rng::new(seed);
    let a: Vec<f32> = rng.vec(m * k, |r| r.f32_in(-1.0, 1.0));
    let bt: Vec<f16> = rng.vec(n * k, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let total = m * n + 64;
    let (mut want, mut tol) = (vec![SENTINEL; total], vec![0f32; total]);
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut mag) = (0f32, 0f32);
            for p in 0..k {
                let b = bt[j * k + p].to_f32();
                s = a[i * k + p].mul_add(b, s);
                mag += (a[i * k + p] * b).abs();
            }
            want[i * n + j] = s;
            tol[i * n + j] = REL * mag;
        }
    }
    let input = group0(vec![
        (0, u32_bytes(&[m as u32, n as u32, k as u32, 0])),
        (1, f32_bytes(&a)),
        (2, f16_bytes(&bt)),
        (3, f32_bytes(&vec![SENTINEL; total])),
    ]);
    let dispatch = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
    let exact = [Executor::Interp, Executor::Emu, Executor::LlvmEmu];
    check("tile_gemm_f32.wgsl", dispatch, &input, (3, &exact), &want, &tol);
}

/// `tile_gemm`: C = A * B, f16 row-major (K and N multiples of 8), staged as
/// `gemm_tiled_f16.wgsl` stages them; partial blocks, and a sentinel past C's end.
fn tile_gemm(seed: u32, m: usize, n: usize, k: usize) {
    assert!(k.is_multiple_of(8) && n.is_multiple_of(8), "the sample reads 8 halves at a time");
    let mut rng = Rng::new(seed);
    let a: Vec<f16> = rng.vec(m * k, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let b: Vec<f16> = rng.vec(k * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let total = m * n + 64;
    let (mut want, mut tol) = (vec![SENTINEL; total], vec![0f32; total]);
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut mag) = (0f32, 0f32);
            for p in 0..k {
                let (x, y) = (a[i * k + p].to_f32(), b[p * n + j].to_f32());
                s = x.mul_add(y, s);
                mag += (x * y).abs();
            }
            want[i * n + j] = s;
            tol[i * n + j] = REL * mag;
        }
    }
    let input = group0(vec![
        (0, u32_bytes(&[m as u32, n as u32, k as u32, 0])),
        (1, f16_bytes(&a)),
        (2, f16_bytes(&b)),
        (3, f32_bytes(&vec![SENTINEL; total])),
    ]);
    let dispatch = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
    let exact = [Executor::Interp, Executor::LlvmEmu];
    check("tile_gemm.wgsl", dispatch, &input, (3, &exact), &want, &tol);
}

/// `tile_gemm_bias_relu`: Y = relu(A * B + R + bias), A and B f16 row-major, K a multiple
/// of 32.
fn tile_gemm_bias_relu(seed: u32, m: usize, n: usize, k: usize) {
    assert!(k.is_multiple_of(32), "the sample reads A and B in steps of 32");
    let mut rng = Rng::new(seed);
    let a: Vec<f16> = rng.vec(m * k, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let b: Vec<f16> = rng.vec(k * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let res: Vec<f32> = rng.vec(m * n, |r| r.f32_in(-1.0, 1.0));
    let bias: Vec<f32> = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
    let (mut want, mut tol) = (vec![0f32; m * n], vec![0f32; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut mag) = (res[i * n + j], res[i * n + j].abs());
            for p in 0..k {
                let (x, y) = (a[i * k + p].to_f32(), b[p * n + j].to_f32());
                s = x.mul_add(y, s);
                mag += (x * y).abs();
            }
            want[i * n + j] = (s + bias[j]).max(0.0);
            tol[i * n + j] = REL * (mag + bias[j].abs());
        }
    }
    let input = group0(vec![
        (0, u32_bytes(&[m as u32, n as u32, k as u32, 0])),
        (1, f16_bytes(&a)),
        (2, f16_bytes(&b)),
        (3, f32_bytes(&res)),
        (4, f32_bytes(&bias)),
        (5, f32_bytes(&vec![SENTINEL; m * n])),
    ]);
    let dispatch = [n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1];
    let exact = [Executor::Interp, Executor::LlvmEmu];
    check("tile_gemm_bias_relu.wgsl", dispatch, &input, (5, &exact), &want, &tol);
}

#[test]
fn tile_gemm_header_problem() {
    // Partial blocks in M (80 = 64 + 16) and N (112 = 64 + 48), a K (48) that ends half-way
    // into its second slab.
    let src = std::fs::read_to_string(sample_path("tile_gemm.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [2, 2, 1]);
    tile_gemm(0x41, 80, 112, 48);
}

#[test]
fn tile_gemm_whole_blocks_and_short_k() {
    tile_gemm(0x42, 128, 64, 96);
    tile_gemm(0x43, 5, 8, 8);
}

#[test]
fn tile_gemm_f32_header_problem() {
    // Partial blocks in M (80 = 64 + 16) and N (72 = 64 + 8), a K (40) that ends part-way
    // into its second slab.
    let src = std::fs::read_to_string(sample_path("tile_gemm_f32.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [2, 2, 1]);
    tile_gemm_f32(0x51, 80, 72, 40);
}

#[test]
fn tile_gemm_f32_whole_and_thin_blocks() {
    tile_gemm_f32(0x52, 64, 64, 32);
    tile_gemm_f32(0x53, 3, 130, 7);
}

#[test]
fn tile_gemm_bias_relu_header_problem() {
    let src = std::fs::read_to_string(sample_path("tile_gemm_bias_relu.wgsl")).expect("sample");
    assert_eq!(sample_header(&src).0, [2, 2, 1]);
    tile_gemm_bias_relu(0x61, 96, 80, 64);
}

#[test]
fn tile_gemm_bias_relu_small() {
    tile_gemm_bias_relu(0x62, 5, 3, 32);
    tile_gemm_bias_relu(0x63, 64, 128, 32);
}

/// `--tf32`: a product of f32 by f32 workgroup matrices on TF32 tensor cores. Without the
/// option the PTX is the portable form (no `mma`); with it, 2 k-steps of `mma.m16n8k8.tf32`
/// per 16-deep step, 16-column block and 8-column half, the PTX assembles for sm_80 and
/// sm_90, and on the emulator every element is within the TF32 bound `2^-9 sum_k |a b|` of
/// the interpreter's exact-f32 result (and some differ: the inputs are not TF32-exact).
#[test]
fn tf32_products_run_on_tf32_tensor_cores() {
    const SRC: &str = "enable dianran_workgroup_matrix;
@group(0) @binding(0) var<storage, read> a: array<f32>; // 64 x 32, row-major
@group(0) @binding(1) var<storage, read> b: array<f32>; // B's 64 x 32 transpose
@group(0) @binding(2) var<storage, read_write> c: array<f32>; // 64 x 64
@compute @workgroup_size(128)
fn main() {
    var acc = workgroup_matrix_result<f32, 64, 64>(0.5);
    acc = workgroupMatrixMultiplyAccumulate<32, row_major, col_major>(&a, 0u, 32u, &b, 0u, 32u, acc);
    workgroupMatrixStore<row_major>(&c, 0u, acc, 64u);
}
";
    let off = dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    };
    let m = dianran_frontend::compile("tf32.wgsl", SRC, &off).unwrap_or_else(|d| panic!("{d}"));
    let compile = |tf32: bool, sm: u32| {
        let opts = dianran_ptx::codegen::Options { sm, tf32, ..Default::default() };
        let out = dianran_ptx::codegen::compile_module(&m, &opts);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        out
    };
    let plain = compile(false, 80);
    assert!(!plain.text.contains("mma.sync"), "without --tf32 the f32 product is portable");
    for sm in [80, 90] {
        let out = compile(true, sm);
        assert!(out.entries.iter().all(|e| e.tf32()));
        let mma = out.text.matches("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32").count();
        assert_eq!(mma, 2 * 4 * 2 * 2, "2 steps x 4 blocks x 2 halves x 2 k-steps");
        if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_some() {
            if let Err(e) = dianran_verify::ptxas::check(&out.text, sm) {
                panic!("ptxas sm_{sm}: {e}");
            }
        }
    }
    let a: Vec<f32> = (0..2048).map(|i| ((i * 37 % 2048) as f32 - 1023.3) / 1031.0).collect();
    let b: Vec<f32> = (0..2048).map(|i| ((i * 91 % 2048) as f32 - 1000.7) / 1043.0).collect();
    let mut want = group0(vec![(0, f32_bytes(&a)), (1, f32_bytes(&b)), (2, zeros(4 * 4096))]);
    let opts = dianran_verify::interp::InterpOptions::default();
    if let Err(d) = dianran_verify::interp::run(&m, "main", [1, 1, 1], &mut want, &opts) {
        panic!("interpreter: {d:?}");
    }
    let ptx = compile(true, 80);
    let [info] = ptx.entries.as_slice() else { panic!("{:?}", ptx.diagnostics) };
    let mut params = vec![f32_bytes(&a), f32_bytes(&b), zeros(4 * 4096)];
    let emu_opts = dianran_verify::emu::EmuOptions::default();
    let (name, block) = (&info.ptx_name, info.workgroup_size);
    if let Err(e) =
        dianran_verify::emu::run(&ptx.text, name, &mut params, [1, 1, 1], block, &emu_opts)
    {
        panic!("emulator: {e}");
    }
    let (got, exp) = (f32s(&params[2]), f32s(out(&want, 2)));
    let mut differs = false;
    for r in 0..64 {
        for col in 0..64 {
            let terms: f32 = (0..32).map(|k| (a[r * 32 + k] * b[col * 32 + k]).abs()).sum();
            // The interpreter's result is the reference's exact f32 sum started at 0.5.
            let mut s = 0.5f32;
            for k in 0..32 {
                s = a[r * 32 + k].mul_add(b[col * 32 + k], s);
            }
            let (x, y) = (got[r * 64 + col], exp[r * 64 + col]);
            assert_eq!(y.to_bits(), s.to_bits(), "interpreter C[{r}][{col}]");
            let bound = terms / 512.0 + 1e-6;
            assert!((x - y).abs() <= bound, "C[{r}][{col}]: emu {x}, interp {y}, bound {bound}");
            differs |= x != y;
        }
    }
    assert!(differs, "TF32 rounds the inputs: some results must differ from exact f32");
}

/// `--sm 90a` stages `wgmma` operands in workgroup memory (docs/hopper.md): in two buffers
/// when they fit beside the entry's own variables, in one when only that fits, and a
/// diagnostic (not a ptxas failure) when not even one does. Two products of K = 128 (two
/// 64-deep chunks each, so chunks alternate buffers within a product and across products)
/// run on the emulator against plain Rust with each staging.
#[test]
fn hopper_staging_fits_beside_workgroup_memory() {
    let source = |pad: usize| {
        format!(
            "enable f16;
enable dianran_workgroup_matrix;
@group(0) @binding(0) var<storage, read> a: array<f16>; // 64 x 128, row-major
@group(0) @binding(1) var<storage, read> b: array<f16>; // 128 x 64, row-major
@group(0) @binding(2) var<storage, read_write> c: array<f32>; // 64 x 64
@group(0) @binding(3) var<storage, read_write> d: array<f32>; // 128
var<workgroup> pad: array<f32, {pad}>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) i: u32) {{
    pad[i] = f32(i);
    workgroupBarrier();
    d[i] = pad[127u - i];
    var acc = workgroup_matrix_result<f32, 64, 64>(0.25);
    acc = workgroupMatrixMultiplyAccumulate<128, row_major, row_major>(&a, 0u, 128u, &b, 0u, 64u, acc);
    acc = workgroupMatrixMultiplyAccumulate<128, row_major, row_major>(&a, 0u, 128u, &b, 0u, 64u, acc);
    workgroupMatrixStore<row_major>(&c, 0u, acc, 64u);
}}
"
        )
    };
    let mut rng = Rng::new(0x71);
    let a: Vec<f16> = rng.vec(64 * 128, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let b: Vec<f16> = rng.vec(128 * 64, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let module = |pad: usize| {
        dianran_frontend::compile("stage.wgsl", &source(pad), &Default::default())
            .unwrap_or_else(|d| panic!("{d}"))
    };
    let compile = |pad: usize| {
        let m = module(pad);
        let opts =
            dianran_ptx::codegen::Options { sm: dianran_ptx::model::SM_90A, ..Default::default() };
        dianran_ptx::codegen::compile_module(&m, &opts)
    };
    // 4 KiB of the entry's own: two buffers of 16 KiB and the phase word; 24 KiB: one.
    for (pad, stage, double) in [(1024, 32784, true), (6144, 16384, false)] {
        let ptx = compile(pad);
        assert!(ptx.diagnostics.is_empty(), "{pad}: {:?}", ptx.diagnostics);
        let decl = format!(".shared .align 1024 .b8 _dr_wgm_stage[{stage}];");
        assert!(ptx.text.contains(&decl), "{pad}: {decl}");
        assert_eq!(ptx.text.contains("wgmma.wait_group.sync.aligned \t1;"), double, "{pad}");
        if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_none() {
            continue;
        }
        if let Err(e) = dianran_verify::ptxas::check(&ptx.text, dianran_ptx::model::SM_90A) {
            panic!("ptxas ({pad}): {e}");
        }
        let (src, m) = (source(pad), module(pad));
        let job = Job {
            sm: dianran_ptx::model::SM_90A,
            ..Job::new("stage.wgsl", &src, &m, "main", [1, 1, 1])
        };
        let input = group0(vec![
            (0, f16_bytes(&a)),
            (1, f16_bytes(&b)),
            (2, zeros(4 * 4096)),
            (3, zeros(4 * 128)),
        ]);
        let bufs = executors::run(Executor::Emu, &job, &input)
            .unwrap_or_else(|e| panic!("emulator ({pad}): {e}"));
        let got = f32s(out(&bufs, 2));
        for r in 0..64 {
            for col in 0..64 {
                let (mut s, mut mag) = (0.25f32, 0.25f32);
                for _ in 0..2 {
                    for k in 0..128 {
                        let x = a[r * 128 + k].to_f32() * b[k * 64 + col].to_f32();
                        s += x;
                        mag += x.abs();
                    }
                }
                let g = got[r * 64 + col];
                assert!(
                    (g - s).abs() <= 2.0 * REL * mag,
                    "{pad}: C[{r}][{col}] = {g}, expected {s}"
                );
            }
        }
        let pads = f32s(out(&bufs, 3));
        assert!((0..128).all(|i| pads[i] == (127 - i) as f32), "{pad}: the entry's own array");
    }
    // 40 KiB of its own leaves no room for one 16 KiB buffer.
    let ptx = compile(10240);
    assert!(
        ptx.diagnostics.iter().any(|d| d.message.contains("wgmma products need 16384 more")),
        "{:?}",
        ptx.diagnostics
    );
}
