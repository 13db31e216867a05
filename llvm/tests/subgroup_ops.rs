//! Subgroup operations through the LLVM backend, run on the PTX emulator and compared with
//! our own backend's PTX on the emulator (bit for bit: both select the same algorithm, so
//! even float reductions round alike) and with the reference interpreter (integers exactly,
//! floats within a relative 1e-5 for f32 and 1e-2 for f16, since WGSL leaves the order of a
//! float reduction open and the interpreter adds lane by lane).
//!
//! Kernels: the `tests/samples/subgroup_*.wgsl` samples, and generated kernels with every
//! collective (reduce, inclusive and exclusive scans; u32, i32, f32, vectors, bool, f16) and
//! every gather (broadcasts, shuffles, quad operations, ballots), each with the whole warp
//! active, with divergent control flow and with a partial last warp (workgroup of 48).

use dianran_frontend::ir::{self, Scalar, Type, TypeId};
use dianran_ptx::abi::EntryInfo;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::executors::ptx_params;
use dianran_verify::interp::{self, Buffers, InterpOptions};
use dianran_verify::{ptxas, tools};
use half::f16;

/// xorshift32.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

/// What a 4-byte word of a buffer holds, for the comparison with the interpreter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    F32,
    F16,
}

fn compile(name: &str, src: &str) -> ir::Module {
    dianran_frontend::compile(name, src, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: frontend: {d}\n{src}"))
}

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

/// The LLVM backend's PTX of `m`, checked by ptxas for sm_80 and sm_90 where it is installed;
/// `None` when it needs libdevice and there is none (`skipped: ...`, a failure under
/// `CI=true`).
fn llvm_ptx(name: &str, m: &ir::Module, entry: &str) -> Option<(String, EntryInfo)> {
    let out = dianran_llvm::compile_module(m, &dianran_llvm::Options::default());
    if out.diagnostics.iter().any(|d| d.message.contains("libdevice.10.bc"))
        && tools::require("libdevice.10.bc", dianran_llvm::libdevice_path()).is_none()
    {
        return None;
    }
    assert!(out.diagnostics.is_empty(), "{name}: {:#?}\n{}", out.diagnostics, out.ir);
    let info = out.entries.iter().find(|e| e.name == entry).cloned();
    let info = info.unwrap_or_else(|| panic!("{name}: no entry {entry}"));
    if tools::require("ptxas", tools::ptxas()).is_some() {
        for sm in [80, 90] {
            if let Err(e) = ptxas::check(&out.text, sm) {
                panic!("{name}: ptxas sm_{sm} rejects LLVM's PTX: {e}\n{}", out.text);
            }
        }
    }
    Some((out.text, info))
}

/// Compares `got` (LLVM's PTX on the emulator) with `want` word by word; `kinds` gives each
/// binding's word kinds (missing: exact). Returns the differences.
fn compare(
    who: &str,
    got: &Buffers,
    want: &Buffers,
    kinds: &dyn Fn((u32, u32), usize) -> Kind,
    exact: bool,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (key, w) in want {
        // A binding the entry does not use is no parameter of it.
        let Some(g) = got.get(key) else { continue };
        let mut n = 0;
        for (i, (a, b)) in g.chunks(4).zip(w.chunks(4)).enumerate() {
            if a == b {
                continue;
            }
            let word = |x: &[u8]| u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
            let (x, y) = (word(a), word(b));
            let close = !exact
                && match kinds(*key, i) {
                    Kind::Int => false,
                    Kind::F32 => {
                        let (p, q) = (f32::from_bits(x), f32::from_bits(y));
                        (p - q).abs() <= 1e-5 * q.abs().max(1e-3)
                    }
                    Kind::F16 => [0, 16].iter().all(|&s| {
                        let p = f16::from_bits((x >> s) as u16).to_f32();
                        let q = f16::from_bits((y >> s) as u16).to_f32();
                        p == q || (p - q).abs() <= 1e-2 * q.abs().max(1e-2)
                    }),
                };
            if !close {
                n += 1;
                if n <= 5 {
                    bad.push(format!(
                        "{who}: binding {key:?} word {i}: got {x:#010x}, expected {y:#010x}"
                    ));
                }
            }
        }
        if n > 5 {
            bad.push(format!("{who}: binding {key:?}: {n} words differ"));
        }
    }
    bad
}

/// Runs entry `entry` of `src` through the LLVM backend on the emulator and compares it with
/// the interpreter and, when `ours` is given, with our backend's PTX on the emulator (`true`:
/// bit for bit, `false`: within the interpreter's tolerances, for kernels whose other
/// arithmetic, such as `exp`, the backends compute differently).
fn check_kernel(
    name: &str,
    (src, entry): (&str, &str),
    input: &Buffers,
    grid: [u32; 3],
    kinds: &dyn Fn((u32, u32), usize) -> Kind,
    ours: Option<bool>,
) -> Vec<String> {
    let m = compile(name, src);
    let Some((text, info)) = llvm_ptx(name, &m, entry) else { return Vec::new() };
    let got = match run_emu(&text, &info, input, grid) {
        Ok(b) => b,
        Err(e) => return vec![format!("{name}: LLVM's PTX on the emulator: {e}\n{text}")],
    };
    let mut bad = Vec::new();
    let mut want = input.clone();
    let opts = InterpOptions { max_steps: 1 << 28, ..InterpOptions::default() };
    match interp::run(&m, entry, grid, &mut want, &opts) {
        Ok(()) => bad.extend(compare(&format!("{name} vs interp"), &got, &want, kinds, false)),
        Err(d) => bad.push(format!("{name}: interpreter: {}", d.message)),
    }
    if let Some(exact) = ours {
        let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
        match c.entries.iter().find(|e| e.name == entry) {
            Some(oi) => match run_emu(&c.text, oi, input, grid) {
                Ok(o) => bad.extend(compare(&format!("{name} vs ours"), &got, &o, kinds, exact)),
                Err(e) => bad.push(format!("{name}: our PTX on the emulator: {e}")),
            },
            None => bad.push(format!("{name}: our backend: {:?}", c.diagnostics)),
        }
    }
    bad
}

fn words(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// Active-lane conditions: the whole warp, two divergent patterns.
const CONDS: [&str; 3] = ["true", "lid % 3u != 1u", "lid < 13u || lid > 40u"];

/// Workgroup sizes: one full warp, and a warp and a half (the second warp is partial).
const SIZES: [u32; 2] = [32, 48];

/// Inputs: `iu` small integers, `iw` random words, `fi` f32 multiples of 1/8 in [-4, 4), `hi`
/// f16 multiples of 1/8 in [-2, 2).
fn inputs(n: u32, seed: u32) -> Buffers {
    let mut r = Rng(seed);
    let mut b = Buffers::new();
    b.insert((0, 0), words((0..n).map(|_| r.next() % 9)));
    b.insert((0, 1), words((0..n).map(|_| r.next())));
    b.insert((0, 2), words((0..n).map(|_| (((r.next() % 64) as f32 - 32.0) / 8.0).to_bits())));
    let h: Vec<u8> = (0..n)
        .flat_map(|_| f16::from_f32(((r.next() % 32) as f32 - 16.0) / 8.0).to_le_bytes())
        .collect();
    b.insert((0, 3), h);
    b
}

const DECLS: &str = "
@group(0) @binding(0) var<storage, read> iu: array<u32>;
@group(0) @binding(1) var<storage, read> iw: array<u32>;
@group(0) @binding(2) var<storage, read> fi: array<f32>;
@group(0) @binding(3) var<storage, read> hi: array<f16>;
@group(0) @binding(4) var<storage, read_write> out_u: array<u32>;
@group(0) @binding(5) var<storage, read_write> out_f: array<f32>;
@group(0) @binding(6) var<storage, read_write> out_h: array<f16>;
";

fn kinds(key: (u32, u32), _: usize) -> Kind {
    match key.1 {
        2 | 5 => Kind::F32,
        3 | 6 => Kind::F16,
        _ => Kind::Int,
    }
}

/// A kernel whose invocation `g` writes `u[k]`, `f[k]`, `h[k]` to `ou[g*NU + k]`, ... (only
/// the invocations where `cond` holds).
fn kernel(wg: u32, cond: &str, u: &[&str], f: &[&str], h: &[&str]) -> String {
    let mut body = String::new();
    for (list, out) in [(u, "out_u"), (f, "out_f"), (h, "out_h")] {
        for (k, e) in list.iter().enumerate() {
            body += &format!("        {out}[g * {n}u + {k}u] = {e};\n", n = list.len());
        }
    }
    format!(
        "enable f16;
enable subgroups;
{DECLS}
@compute @workgroup_size({wg})
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(subgroup_invocation_id) sid: u32) {{
    let g = wid.x * {wg}u + lid;
    let u = iu[g];
    let w = iw[g];
    let i = bitcast<i32>(w);
    let f = fi[g];
    let h = hi[g];
    let m = 1.0 + f / 32.0;
    if ({cond}) {{
{body}    }}
}}
"
    )
}

/// Runs one kernel shape over every condition and workgroup size.
fn run_all(what: &str, u: &[&str], f: &[&str], h: &[&str], ours: Option<bool>) {
    let mut bad = Vec::new();
    for wg in SIZES {
        for (ci, cond) in CONDS.iter().enumerate() {
            let grid = [2, 1, 1];
            let n = 2 * wg;
            let src = kernel(wg, cond, u, f, h);
            let mut input = inputs(n, 0x5eed + wg * 31 + ci as u32);
            input.insert((0, 4), vec![0; (n as usize * u.len()).max(1) * 4]);
            input.insert((0, 5), vec![0; (n as usize * f.len()).max(1) * 4]);
            input.insert((0, 6), vec![0; (n as usize * h.len()).max(2) * 2]);
            let name = format!("{what} (workgroup {wg}, if {cond})");
            bad.extend(check_kernel(&name, (&src, "main"), &input, grid, &kinds, ours));
        }
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn integer_collectives() {
    let u = [
        "subgroupAdd(u)",
        "subgroupInclusiveAdd(u)",
        "subgroupExclusiveAdd(u)",
        "subgroupMul(u)",
        "subgroupInclusiveMul(u)",
        "subgroupExclusiveMul(u)",
        "subgroupMin(w)",
        "subgroupMax(w)",
        "subgroupAnd(w)",
        "subgroupOr(w)",
        "subgroupXor(w)",
        "bitcast<u32>(subgroupAdd(i))",
        "bitcast<u32>(subgroupExclusiveAdd(i - 4))",
        "bitcast<u32>(subgroupInclusiveMul(i % 5))",
        "bitcast<u32>(subgroupMin(i))",
        "bitcast<u32>(subgroupMax(i))",
        "bitcast<u32>(subgroupAnd(i))",
        "bitcast<u32>(subgroupOr(i))",
        "bitcast<u32>(subgroupXor(i))",
        "subgroupInclusiveAdd(vec3<u32>(u, w, u * w)).y",
        "subgroupMax(vec2<u32>(u, w)).x",
        "bitcast<u32>(subgroupMin(vec2<i32>(i, -i)).y)",
        "u32(subgroupAll(u != 3u))",
        "u32(subgroupAny(u == 3u))",
        "u32(subgroupAll(w != 0u))",
        "u32(subgroupAny(sid == 40u))",
    ];
    run_all("integer collectives", &u, &[], &[], Some(true));
}

#[test]
fn float_collectives() {
    let f = [
        "subgroupAdd(f)",
        "subgroupInclusiveAdd(f)",
        "subgroupExclusiveAdd(f)",
        "subgroupMul(m)",
        "subgroupInclusiveMul(m)",
        "subgroupExclusiveMul(m)",
        "subgroupMin(f)",
        "subgroupMax(f)",
        "subgroupAdd(vec2<f32>(f, m)).y",
        "subgroupExclusiveAdd(vec4<f32>(f, m, -f, 2.0 * m)).w",
        "subgroupMin(vec3<f32>(f, m, -f)).z",
    ];
    run_all("float collectives", &[], &f, &[], Some(true));
}

/// f16 reductions and scans: our backend reports them unsupported, so only the interpreter
/// checks them.
#[test]
fn f16_collectives() {
    let h = [
        "subgroupAdd(h)",
        "subgroupInclusiveAdd(h)",
        "subgroupExclusiveAdd(h)",
        "subgroupMul(1.0h + h / 16.0h)",
        "subgroupInclusiveMul(1.0h + h / 16.0h)",
        "subgroupExclusiveMul(1.0h + h / 16.0h)",
        "subgroupMin(h)",
        "subgroupMax(h)",
        "subgroupAdd(vec2<f16>(h, -h)).y",
        "subgroupMax(vec3<f16>(h, -h, h * 2.0h)).z",
    ];
    run_all("f16 collectives", &[], &[], &h, None);
}

#[test]
fn gathers_and_ballots() {
    let u = [
        "subgroupBroadcastFirst(w)",
        "subgroupBroadcast(w, 5u)",
        "subgroupBroadcast(w, 31u)",
        "subgroupShuffle(w, (sid * 7u + 3u) % 32u)",
        "subgroupShuffleDown(w, 3u)",
        "subgroupShuffleDown(w, u)",
        "subgroupShuffleUp(w, 5u)",
        "subgroupShuffleUp(w, u)",
        "subgroupShuffleXor(w, 6u)",
        "subgroupShuffleXor(w, u & 31u)",
        "quadBroadcast(w, 2u)",
        "quadSwapX(w)",
        "quadSwapY(w)",
        "quadSwapDiagonal(w)",
        "bitcast<u32>(subgroupShuffle(i, 31u - sid))",
        "subgroupShuffleXor(u32((w & 1u) == 1u), 1u)",
        "subgroupBroadcastFirst(select(3u, 5u, u > 4u))",
        "subgroupShuffle(vec3<u32>(u, w, sid), (sid + 9u) % 32u).z",
        "subgroupBallot((w & 1u) == 1u).x",
        "subgroupBallot((w & 1u) == 1u).y",
        "subgroupBallot((w & 1u) == 1u).w",
        "subgroupBallot().x",
    ];
    let f = [
        "subgroupShuffleXor(f, 1u)",
        "subgroupBroadcastFirst(f)",
        "subgroupShuffle(vec3<f32>(f, m, -f), (sid + 1u) % 32u).y",
        "quadSwapY(vec2<f32>(f, m)).y",
    ];
    let h = [
        "subgroupShuffleDown(h, 1u)",
        "subgroupShuffle(h, 30u - (sid % 16u))",
        "subgroupBroadcast(vec2<f16>(h, -h), 7u).y",
        "quadSwapDiagonal(h)",
    ];
    run_all("gathers", &u, &f, &h, Some(true));
}

/// Fills `buf[at..]` with values of type `ty` (small integers, f32 multiples of 1/8 in
/// [-4, 4), f16 in [-2, 2)) and records each word's kind.
fn fill(m: &ir::Module, ty: TypeId, at: usize, buf: &mut [u8], kinds: &mut [Kind], rng: &mut Rng) {
    let mut scalar = |s: Scalar, at: usize, buf: &mut [u8], kinds: &mut [Kind]| {
        let r = rng.next();
        let (bytes, kind): (Vec<u8>, Kind) = match s {
            Scalar::F32 => ((((r % 64) as f32 - 32.0) / 8.0).to_le_bytes().to_vec(), Kind::F32),
            Scalar::F16 => {
                (f16::from_f32(((r % 32) as f32 - 16.0) / 8.0).to_le_bytes().to_vec(), Kind::F16)
            }
            Scalar::Bool => ((r % 2).to_le_bytes().to_vec(), Kind::Int),
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
        Type::Scalar(s) | Type::Atomic(s) => scalar(*s, at, buf, kinds),
        Type::Vector { size, scalar: s } => {
            for c in 0..usize::from(*size) {
                scalar(*s, at + c * s.size() as usize, buf, kinds);
            }
        }
        Type::Array { base, len, stride } => {
            let n = match len {
                Some(n) => *n as usize,
                None => buf.len().saturating_sub(at) / (*stride).max(1) as usize,
            };
            for e in 0..n {
                fill(m, *base, at + e * *stride as usize, buf, kinds, rng);
            }
        }
        Type::Struct { members, .. } => {
            for mem in members {
                fill(m, mem.ty, at + mem.offset as usize, buf, kinds, rng);
            }
        }
        _ => {}
    }
}

#[test]
fn subgroup_samples() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/samples")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("subgroup_") && n.ends_with(".wgsl"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    let mut bad = Vec::new();
    for name in &names {
        let src = std::fs::read_to_string(dir.join(name)).expect("sample");
        let header = dianran_verify::samples::header(&src).expect("header");
        let grid = header.dispatch.expect("dispatch");
        let m = compile(name, &src);
        let ep = m.entry_points.iter().find(|e| e.stage == ir::Stage::Compute).expect("entry");
        let entry = header.entry.unwrap_or_else(|| ep.name.clone());
        assert_eq!(entry, "main", "{name}");
        let invocations: u32 = grid.iter().chain(&ep.workgroup_size).product();
        let bindings = dianran_verify::buffers::entry_bindings(&m, &entry).expect("bindings");
        // The smallest runtime-array length (of a few) the interpreter runs cleanly with.
        let mut chosen = None;
        for len in [invocations, invocations * 4, invocations * 16] {
            let Ok(mut input) = dianran_verify::buffers::default_buffers(&m, &entry, len) else {
                continue;
            };
            let mut rng = Rng(0x9E37_79B9);
            let mut kind_map = std::collections::BTreeMap::new();
            for b in &bindings {
                if let Some(buf) = input.get_mut(&(b.group, b.binding)) {
                    let mut k = vec![Kind::Int; buf.len().div_ceil(4)];
                    fill(&m, b.ty, 0, buf, &mut k, &mut rng);
                    kind_map.insert((b.group, b.binding), k);
                }
            }
            let mut out = input.clone();
            if interp::run(&m, &entry, grid, &mut out, &InterpOptions::default()).is_ok() {
                chosen = Some((input, kind_map));
                break;
            }
        }
        let (input, kind_map) = chosen.unwrap_or_else(|| panic!("{name}: no input size works"));
        let kinds = |key: (u32, u32), i: usize| {
            kind_map.get(&key).and_then(|k| k.get(i).copied()).unwrap_or(Kind::Int)
        };
        bad.extend(check_kernel(name, (&src, "main"), &input, grid, &kinds, Some(true)));
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

/// Subgroup operations in loops whose trip count differs between lanes (each iteration has
/// fewer active lanes), and after the loop (the warp reconverged).
#[test]
fn divergent_loops() {
    let src = format!(
        "enable f16;
enable subgroups;
{DECLS}
@compute @workgroup_size(48)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
    let g = wid.x * 48u + lid;
    var acc = iu[g];
    var fa = fi[g];
    for (var k = 0u; k < lid % 5u + 1u; k++) {{
        acc += subgroupAdd(acc + k);
        acc ^= subgroupShuffleXor(acc, 1u) + subgroupExclusiveMul(acc | 1u);
        fa = subgroupInclusiveAdd(fa) * 0.5 + subgroupBroadcastFirst(fa);
        if (acc % 3u == 0u) {{ continue; }}
        acc += subgroupBallot(k % 2u == 0u).x;
    }}
    out_u[g * 2u] = acc;
    out_u[g * 2u + 1u] = subgroupMax(acc);
    out_f[g] = subgroupAdd(fa);
}}
"
    );
    let mut bad = Vec::new();
    for seed in [1u32, 2, 3] {
        let mut input = inputs(96, seed);
        input.insert((0, 4), vec![0; 96 * 2 * 4]);
        input.insert((0, 5), vec![0; 96 * 4]);
        let name = format!("divergent loops (seed {seed})");
        bad.extend(check_kernel(&name, (&src, "main"), &input, [2, 1, 1], &kinds, Some(true)));
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

/// web-rwkv's softmax (subgroup reductions of f32 vectors across 4 subgroups of a workgroup of
/// 128, then a workgroup reduction): C = 256, T = 4, B = 1, one workgroup per token.
#[test]
fn web_rwkv_subgroup_softmax() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/realworld/web_rwkv_subgroup_softmax.wgsl");
    let src = std::fs::read_to_string(path).expect("kernel");
    let mut r = Rng(0xfeed);
    let mut input = Buffers::new();
    input.insert((0, 0), words([256, 4, 1, 0]));
    input.insert(
        (0, 1),
        words((0..1024).map(|_| (((r.next() % 64) as f32 - 32.0) / 8.0).to_bits())),
    );
    let kinds = |key: (u32, u32), _| if key.1 == 1 { Kind::F32 } else { Kind::Int };
    let bad = check_kernel(
        "web_rwkv_subgroup_softmax",
        (&src, "softmax"),
        &input,
        [1, 4, 1],
        &kinds,
        Some(false),
    );
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
}

/// The IR calls the NVVM warp intrinsics (`activemask`, `redux.sync` for integer
/// reductions, `vote.sync`, `shfl.sync` in each mode) and the PTX has the instructions.
#[test]
fn subgroup_ir_uses_the_nvvm_intrinsics() {
    let src = kernel(
        32,
        "true",
        &["subgroupAdd(u)", "subgroupMul(u)", "subgroupBallot().x", "subgroupShuffleUp(w, 1u)"],
        &["subgroupMax(f)"],
        &[],
    );
    let m = compile("ir.wgsl", &src);
    let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    for needle in [
        "@llvm.nvvm.activemask()",
        "@llvm.nvvm.redux.sync.add(",
        "@llvm.nvvm.vote.ballot.sync(",
        "@llvm.nvvm.shfl.sync.up.i32(",
        "@llvm.nvvm.shfl.sync.bfly.i32(",
        "@llvm.nvvm.shfl.sync.idx.f32(",
        "@llvm.maxnum.f32(",
    ] {
        assert!(out.ir.contains(needle), "{needle} missing:\n{}", out.ir);
    }
    for needle in
        ["redux.sync.add.s32", "vote.sync.ballot.b32", "shfl.sync.bfly.b32", "activemask.b32"]
    {
        assert!(out.text.contains(needle), "{needle} missing:\n{}", out.text);
    }
}
