//! Cooperative matrices through the LLVM backend: every orientation and form of
//! `verify/tests/coop_forms.rs` (`D = A * B + C` on one warp, A/B from storage buffers or
//! from `var<workgroup>` arrays with aligned and misaligned offsets and strides, known at
//! compile time or only at run time; D stored with `coopStore` and `coopStoreT`), run on the
//! PTX emulator and checked against plain Rust arithmetic and, bit for bit, against our own
//! backend's PTX on the emulator (same fragments, same `mma`/`ldmatrix`/FMA sequences).
//! The coop samples run the same way against the interpreter and our backend. LLVM's PTX is
//! assembled with ptxas for sm_80 and sm_90 where ptxas is installed.

use dianran_frontend::ir::{self, Scalar, Type, TypeId};
use dianran_ptx::abi::EntryInfo;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::executors::ptx_params;
use dianran_verify::interp::{self, Buffers, InterpOptions};
use dianran_verify::{ptxas, tools};
use half::f16;

// The cases, their data and checks are `coop_forms.rs`'s, defined once for both backends.
#[path = "../../verify/tests/coop_cases/mod.rs"]
mod coop_cases;

use coop_cases::{cases, check, data, Case, Mem, Rng, Ty};

/// Runs `info` of PTX `text` on the emulator with `input`; returns the buffers after.
fn run_emu(
    text: &str,
    info: &EntryInfo,
    input: &Buffers,
    grid: [u32; 3],
) -> Result<Buffers, String> {
    let mut p = ptx_params(info, input).map_err(|e| e.to_string())?;
    let opts = EmuOptions { max_steps: 1 << 24, undefined_registers: Some(0x9e37_79b9_7f4a_7c15) };
    emu::run(text, &info.ptx_name, &mut p.buffers, grid, info.workgroup_size, &opts)
        .map_err(|e| e.to_string())?;
    Ok(p.bindings.into_iter().zip(p.buffers).filter_map(|(k, b)| Some((k?, b))).collect())
}

/// How [`llvm_ptx`] says that a kernel needs libdevice and there is none (after
/// `tools::require`, which fails under `CI=true`).
const SKIP: &str = "skip: ";

/// The LLVM backend's PTX and entry `main` of `m`, or why there is none; ptxas (sm_80 and
/// sm_90) checks the PTX where it is installed.
fn llvm_ptx(m: &ir::Module) -> Result<(String, EntryInfo), String> {
    let out = dianran_llvm::compile_module(m, &dianran_llvm::Options::default());
    let d = &out.diagnostics;
    if d.iter().any(|d| d.message.contains("libdevice.10.bc"))
        && tools::require("libdevice.10.bc", dianran_llvm::libdevice_path()).is_none()
    {
        return Err(format!("{SKIP}libdevice.10.bc not found"));
    }
    if !d.is_empty() {
        return Err(format!("{d:#?}"));
    }
    let info = out.entries.iter().find(|e| e.name == "main").cloned().ok_or("no entry main")?;
    if tools::require("ptxas", tools::ptxas()).is_some() {
        for sm in [80, 90] {
            ptxas::check(&out.text, sm)
                .map_err(|e| format!("ptxas sm_{sm} rejects LLVM's PTX: {e}\n{}", out.text))?;
        }
    }
    Ok((out.text, info))
}

/// Our backend's PTX of `m` on the emulator.
fn ours(m: &ir::Module, input: &Buffers, grid: [u32; 3]) -> Result<Buffers, String> {
    let c = dianran_ptx::codegen::compile_module(m, &Default::default());
    let info = c.entries.iter().find(|e| e.name == "main").ok_or(format!("{:?}", c.diagnostics))?;
    run_emu(&c.text, info, input, grid)
}

/// Bitwise comparison of the bindings both runs produced.
fn same_bits(who: &str, got: &Buffers, want: &Buffers, failures: &mut Vec<String>) {
    for (key, w) in want {
        let Some(g) = got.get(key) else { continue };
        if g != w {
            let first = g.iter().zip(w).position(|(x, y)| x != y).unwrap_or(0);
            failures.push(format!("{who}: binding {key:?} differs from byte {first} on"));
        }
    }
}

fn run_case(case: &Case, seed: u32) -> Vec<String> {
    let mut failures = Vec::new();
    let name = case.name();
    let src = case.wgsl();
    let m = match dianran_frontend::compile("coop_ops.wgsl", &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => return vec![format!("{name}: frontend failed:\n{d}\n{src}")],
    };
    let data = data(case, seed);
    let (text, info) = match llvm_ptx(&m) {
        Ok(x) => x,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let got = match run_emu(&text, &info, &data.input, [1, 1, 1]) {
        Ok(b) => b,
        Err(e) => return vec![format!("{name}: LLVM's PTX on the emulator: {e}\n{text}")],
    };
    check(case, "llvm-emu", &data, &got, &mut failures);
    match ours(&m, &data.input, [1, 1, 1]) {
        Ok(o) => same_bits(&format!("{name}: llvm-emu vs ours-emu"), &got, &o, &mut failures),
        Err(e) => failures.push(format!("{name}: our backend: {e}")),
    }
    failures
}

fn run_group(group: char) {
    let list = cases(group);
    assert!(!list.is_empty());
    let mut failures = Vec::new();
    for (i, case) in list.iter().enumerate() {
        failures.extend(run_case(case, 0x5eed_0000 + i as u32 * 7919));
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_16x16_f16_f32_acc_from_storage() {
    run_group('a');
}

#[test]
fn b_16x16_f16_f32_acc_from_workgroup_memory() {
    run_group('b');
}

#[test]
fn c_16x16_f16_f16_acc() {
    run_group('c');
}

#[test]
fn d_8x8_f16_f32_and_f16_acc() {
    run_group('d');
}

#[test]
fn e_8x8_f32_exact() {
    run_group('e');
}

/// 16x16 f32 A/B matrices stay a diagnostic (our backend computes them only with `--tf32`),
/// for loads and products alike, and never a panic; other entries of the module still
/// compile.
#[test]
fn f32_16x16_is_a_diagnostic() {
    let case = Case {
        n: 16,
        ab: Ty::F32,
        acc: Ty::F32,
        a_row: true,
        b_row: false,
        mem: Mem::Storage,
        tf32: false,
    };
    let src = case.wgsl()
        + "
@compute @workgroup_size(32)
fn other(@builtin(local_invocation_index) lid: u32) { d_row[lid] = c[lid]; }
";
    let m = dianran_frontend::compile("f32.wgsl", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
    assert_eq!(out.diagnostics.len(), 1, "{:#?}", out.diagnostics);
    let d = &out.diagnostics[0];
    assert!(d.message.contains("exact f32 x f32 cooperative-matrix products"), "{}", d.message);
    assert!(d.message.contains("'main'"), "{}", d.message);
    assert_eq!(out.entries.len(), 1);
    assert_eq!(out.entries[0].name, "other");
}

/// The f16 forms use the NVVM tensor-core intrinsics (`ldmatrix` from workgroup memory,
/// `mma.m16n8k16`/`m16n8k8`), and there are as many run-time alignment tests (`vote.sync.all`)
/// as in our backend's PTX: none for A and B at offsets and strides known to be 16-byte
/// aligned, one each when they are known only at run time (C and D in storage buffers test
/// theirs in both backends: a binding only promises its element alignment).
#[test]
fn intrinsics_and_alignment_tests_where_ours_has_them() {
    use Mem::*;
    let forms: [(u32, Mem, &[&str]); 3] = [
        (
            16,
            Workgroup { off_a: 8, off_b: 16, stride: 24 },
            &[
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            ],
        ),
        (16, WorkgroupRuntime { off_a: 8, off_b: 16, stride: 24 }, &["ldmatrix", "m16n8k16"]),
        (
            8,
            Workgroup { off_a: 8, off_b: 16, stride: 16 },
            &["ldmatrix.sync.aligned.m8n8.x1", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"],
        ),
    ];
    for (n, mem, needles) in forms {
        for (a_row, b_row) in [(false, false), (true, false), (false, true), (true, true)] {
            let case = Case { n, ab: Ty::F16, acc: Ty::F32, a_row, b_row, mem, tf32: false };
            let m = dianran_frontend::compile("forms.wgsl", &case.wgsl(), &Default::default())
                .unwrap_or_else(|d| panic!("{d}"));
            let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
            assert!(out.diagnostics.is_empty(), "{:#?}", out.diagnostics);
            if a_row && b_row {
                for needle in needles {
                    assert!(
                        out.text.contains(needle),
                        "{}: {needle} missing\n{}",
                        case.name(),
                        out.text
                    );
                }
            }
            let ours = dianran_ptx::codegen::compile_module(&m, &Default::default());
            assert_eq!(
                out.ir.matches("call i1 @llvm.nvvm.vote.all.sync(").count(),
                ours.text.matches("vote.sync.all").count(),
                "{}\n{}",
                case.name(),
                out.ir
            );
        }
    }
}

/// What a 4-byte word of a buffer holds, for comparisons with the interpreter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    F32,
    F16,
}

/// Fills `buf[at..]` with values of type `ty` (f32 multiples of 1/8 in [-4, 4), f16 in
/// [-2, 2)) and records each word's kind.
fn fill(m: &ir::Module, ty: TypeId, at: usize, buf: &mut [u8], kinds: &mut [Kind], rng: &mut Rng) {
    let mut scalar = |s: Scalar, at: usize, buf: &mut [u8], kinds: &mut [Kind]| {
        let r = rng.next();
        let (bytes, kind): (Vec<u8>, Kind) = match s {
            Scalar::F32 => ((((r % 64) as f32 - 32.0) / 8.0).to_le_bytes().to_vec(), Kind::F32),
            Scalar::F16 => {
                (f16::from_f32(((r % 32) as f32 - 16.0) / 8.0).to_le_bytes().to_vec(), Kind::F16)
            }
            _ => ((r % 64).to_le_bytes().to_vec(), Kind::Int),
        };
        if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
            if let Some(k) = kinds.get_mut(at / 4) {
                *k = kind;
            }
        }
    };
    match m.types.get(ty) {
        Type::Scalar(s) => scalar(*s, at, buf, kinds),
        Type::Array { base, len, stride } => {
            let n = match len {
                Some(n) => *n as usize,
                None => buf.len().saturating_sub(at) / (*stride).max(1) as usize,
            };
            for e in 0..n {
                fill(m, *base, at + e * *stride as usize, buf, kinds, rng);
            }
        }
        _ => {}
    }
}

/// Runs a coop sample (entry `main`) on LLVM's PTX, our PTX and (`vs_interp`) the
/// interpreter; `uniform` gives the words of a uniform binding the random fill must not touch.
fn run_sample(path: &str, uniform: Option<((u32, u32), &[u32])>, vs_interp: bool) -> Vec<String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let src = std::fs::read_to_string(root.join(path)).expect("sample");
    let header = dianran_verify::samples::header(&src).expect("header");
    let grid = header.dispatch.expect("dispatch");
    let m = dianran_frontend::compile(path, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{path}: {d}"));
    let bindings = dianran_verify::buffers::entry_bindings(&m, "main").expect("bindings");
    let mut input = dianran_verify::buffers::default_buffers(&m, "main", 1 << 14)
        .unwrap_or_else(|d| panic!("{path}: {}", d.message));
    let mut rng = Rng(0x1234_5678);
    let mut kinds = std::collections::BTreeMap::new();
    for b in &bindings {
        let key = (b.group, b.binding);
        if let Some(buf) = input.get_mut(&key) {
            let mut k = vec![Kind::Int; buf.len().div_ceil(4)];
            fill(&m, b.ty, 0, buf, &mut k, &mut rng);
            kinds.insert(key, k);
        }
    }
    if let Some((key, words)) = uniform {
        input.insert(key, words.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    let mut failures = Vec::new();
    let (text, info) = match llvm_ptx(&m) {
        Ok(x) => x,
        // `tools::require` has printed `skipped: ...`.
        Err(e) if e.starts_with(SKIP) => return Vec::new(),
        Err(e) => return vec![format!("{path}: {e}")],
    };
    let got = match run_emu(&text, &info, &input, grid) {
        Ok(b) => b,
        Err(e) => return vec![format!("{path}: LLVM's PTX on the emulator: {e}")],
    };
    match ours(&m, &input, grid) {
        Ok(o) => same_bits(&format!("{path}: llvm-emu vs ours-emu"), &got, &o, &mut failures),
        Err(e) => failures.push(format!("{path}: our backend: {e}")),
    }
    if !vs_interp {
        return failures;
    }
    let mut want = input.clone();
    if let Err(d) = interp::run(&m, "main", grid, &mut want, &InterpOptions::default()) {
        failures.push(format!("{path}: interpreter: {}", d.message));
        return failures;
    }
    for (key, w) in &want {
        let Some(g) = got.get(key) else { continue };
        let kind = |i: usize| kinds.get(key).and_then(|k| k.get(i).copied()).unwrap_or(Kind::Int);
        let mut bad = 0;
        for (i, (a, b)) in g.chunks(4).zip(w.chunks(4)).enumerate() {
            let word = |x: &[u8]| u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
            let (x, y) = (word(a), word(b));
            let ok = x == y
                || match kind(i) {
                    Kind::F32 => {
                        let (p, q) = (f32::from_bits(x), f32::from_bits(y));
                        (p - q).abs() <= 1e-3 * (1.0 + q.abs())
                    }
                    Kind::F16 => [0, 16].iter().all(|&s| {
                        let p = f16::from_bits((x >> s) as u16).to_f32();
                        let q = f16::from_bits((y >> s) as u16).to_f32();
                        (p - q).abs() <= 1e-2 * (1.0 + q.abs())
                    }),
                    Kind::Int => false,
                };
            if !ok {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!(
                        "{path} vs interp: binding {key:?} word {i}: got {x:#010x}, expected {y:#010x}"
                    ));
                }
            }
        }
        if bad > 3 {
            failures.push(format!("{path} vs interp: binding {key:?}: {bad} words differ"));
        }
    }
    failures
}

#[test]
fn coop_samples() {
    let mut failures = Vec::new();
    failures.extend(run_sample("tests/samples/coop_matmul_8.wgsl", None, true));
    failures.extend(run_sample("tests/samples/coop_matmul_16.wgsl", None, true));
    // M = 80, N = 112, K = 48 (the sample header's dispatch fits them).
    failures.extend(run_sample(
        "tests/samples/gemm_tiled_f16.wgsl",
        Some(((0, 0), &[80, 112, 48, 0])),
        true,
    ));
    // M = 8, N = 96, K = 160 and M = 48, N = 80, K = 64, as verify/tests/gemm.rs runs them.
    failures.extend(run_sample(
        "tests/samples/gemm_small_m.wgsl",
        Some(((0, 0), &[8, 96, 160, 0])),
        true,
    ));
    failures.extend(run_sample(
        "tests/samples/gemm_bias_relu.wgsl",
        Some(((0, 0), &[48, 80, 64, 0])),
        true,
    ));
    // M = N = K = stride = 16. Its workgroup of 8x8 is two warps that both load, update and
    // store the same C tile, a race the interpreter (lockstep) and the emulator (one warp
    // after the other) resolve differently; the two PTX texts still agree bit for bit.
    failures.extend(run_sample(
        "tests/realworld/wgpu_cooperative_matrix.wgsl",
        Some(((0, 3), &[16, 16, 16, 16])),
        false,
    ));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
