//! Every WGSL math builtin through the LLVM backend: small kernels apply one builtin to buffers
//! of chosen inputs (NaN, infinities, signed zeros, subnormals, `i32::MIN`, bit offsets and
//! counts at and past 32, ...) plus pseudo-random ones; the LLVM PTX runs on the PTX emulator
//! and is compared with our own backend's PTX on the emulator (bit for bit, NaN payloads aside,
//! except where libdevice and our math library may round differently) and with the reference
//! interpreter (within the builtin's accuracy).
//!
//! Kernels that call libdevice need `libdevice.10.bc` (`DIANRAN_LIBDEVICE`, or the
//! repository's `.tools/venv`) and the ptxas check needs `ptxas`; without them those parts
//! print `skipped: ...`, and fail under `CI=true` (`dianran_verify::tools`). Every kernel's
//! LLVM PTX must run on the emulator: a rejection fails the case.

use dianran_frontend::ir::{self, MathFunction, Op, Type};
use dianran_verify::buffers::Buffers;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::executors::ptx_params;
use dianran_verify::interp::{self, InterpOptions};
use half::f16;

/// How one output scalar is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    F32,
    F16,
    Int,
}

/// A tolerance: equal within `ulp` steps, or within `abs` (floats; integers are exact).
#[derive(Clone, Copy, Debug)]
struct Tol {
    ulp: u32,
    abs: f64,
}

const EXACT: Tol = Tol { ulp: 0, abs: 0.0 };

const fn ulp(n: u32) -> Tol {
    Tol { ulp: n, abs: 0.0 }
}

/// One kernel: `out[i] = expr` over input arrays `a`, `b`, `c`, `d` (bindings 0..).
struct Case {
    name: String,
    /// Element type and contents of each input array.
    inputs: Vec<(&'static str, Vec<u8>)>,
    out_ty: &'static str,
    expr: String,
    /// Invocations (one output element each).
    n: usize,
    /// The comparison with our backend (`None`: our backend lacks the builtin).
    vs_ours: Option<Tol>,
    /// The comparison with the interpreter (`None`: our backend's choice differs on purpose,
    /// or the interpreter's reference is off for these inputs).
    vs_interp: Option<Tol>,
    /// Rewrites the compiled IR (for builtins WGSL cannot spell).
    rewrite: Option<fn(&mut ir::Module) -> usize>,
}

impl Case {
    fn new(name: impl Into<String>, out_ty: &'static str, expr: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            inputs: Vec::new(),
            out_ty,
            expr: expr.into(),
            n: 0,
            vs_ours: Some(EXACT),
            vs_interp: Some(EXACT),
            rewrite: None,
        }
    }
    fn input(mut self, ty: &'static str, bytes: Vec<u8>) -> Case {
        let n = bytes.len() / elem_size(ty);
        self.n = if self.inputs.is_empty() { n } else { self.n.min(n) };
        self.inputs.push((ty, bytes));
        self
    }
    fn ours(mut self, t: Option<Tol>) -> Case {
        self.vs_ours = t;
        self
    }
    fn interp(mut self, t: Option<Tol>) -> Case {
        self.vs_interp = t;
        self
    }
    fn tol(self, t: Tol) -> Case {
        self.ours(Some(t)).interp(Some(t))
    }
}

/// (scalar kind, scalars per element, bytes per scalar) of a WGSL element type.
fn shape(ty: &str) -> (Kind, usize, usize) {
    let n = if ty.starts_with("vec4") {
        4
    } else if ty.starts_with("vec2") {
        2
    } else {
        1
    };
    if ty.contains("f16") {
        (Kind::F16, n, 2)
    } else if ty.contains("f32") {
        (Kind::F32, n, 4)
    } else {
        (Kind::Int, n, 4)
    }
}

fn elem_size(ty: &str) -> usize {
    let (_, n, b) = shape(ty);
    n * b
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A tiny deterministic generator (xorshift).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// A float of any exponent (a quarter of them), in [-12, 12), a small multiple of 1/8,
    /// or near an integer.
    fn float(&mut self) -> f32 {
        let r = self.next();
        match r % 4 {
            0 => {
                let f = f32::from_bits(self.next());
                if f.is_nan() {
                    1.0
                } else {
                    f
                }
            }
            1 => (self.next() % 24_000) as f32 / 1000.0 - 12.0,
            2 => ((self.next() % 128) as f32 - 64.0) / 8.0,
            _ => {
                let k = (self.next() % 64) as f32 - 32.0;
                k + [0.5, -0.5, 1e-6, -1e-6, 0.499_999_97, 0.25][(r >> 8) as usize % 6]
            }
        }
    }
    /// A small multiple of 1/8 (products and short sums are exact).
    fn eighth(&mut self) -> f32 {
        ((self.next() % 65) as f32 - 32.0) / 8.0
    }
}

/// Special f32 inputs.
fn specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        3.5,
        0.499_999_97,
        -0.499_999_97,
        0.1,
        2.0,
        3.0,
        10.0,
        -7.25,
        std::f32::consts::PI,
        -std::f32::consts::FRAC_PI_2,
        1e-40,
        -1e-40,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-10,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        88.0,
        -88.0,
        89.0,
        -104.0,
        128.0,
        -150.0,
        16_777_217.0,
        8_388_608.5,
        1e5,
        -123_456.7,
        4.1e36,
        0.999_999_9,
        1.000_000_1,
    ]
}

/// Special inputs and pseudo-random ones.
fn floats(n: usize, seed: u32) -> Vec<f32> {
    let mut v = specials();
    let mut r = Rng(seed);
    while v.len() < n {
        v.push(r.float());
    }
    v
}

/// Every pair of special inputs, then pseudo-random pairs.
fn float_pairs(n: usize, seed: u32) -> (Vec<f32>, Vec<f32>) {
    let s = specials();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &s {
        for &y in &s {
            a.push(x);
            b.push(y);
        }
    }
    let mut r = Rng(seed);
    while a.len() < n {
        a.push(r.float());
        b.push(r.float());
    }
    (a, b)
}

fn int_specials() -> Vec<u32> {
    vec![
        0,
        1,
        2,
        3,
        7,
        8,
        u32::MAX,
        u32::MAX - 1,
        0x8000_0000,
        0x8000_0001,
        0x7FFF_FFFF,
        0xFFFF,
        0x1_0000,
        0x00FF_00FF,
        0xF0F0_F0F0,
        0x1234_5678,
        0x8765_4321,
        31,
        32,
        33,
        127,
        128,
        255,
        256,
        0xFFFF_FF80,
        0xFFFF_FF7F,
        (-129i32) as u32,
        1 << 31,
        1 << 16,
        1 << 4,
    ]
}

fn ints(n: usize, seed: u32) -> Vec<u32> {
    let mut v = int_specials();
    let mut r = Rng(seed);
    while v.len() < n {
        let x = r.next();
        v.push(match x % 3 {
            0 => x,
            1 => r.next() % 64,
            _ => (r.next() % 512).wrapping_sub(256),
        });
    }
    v
}

/// Every pair of integer specials, then pseudo-random pairs.
fn int_pairs(n: usize, seed: u32) -> (Vec<u32>, Vec<u32>) {
    let s = int_specials();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &s {
        for &y in &s {
            a.push(x);
            b.push(y);
        }
    }
    let more = ints(n, seed);
    let more2 = ints(n, seed ^ 0x5555);
    let mut i = 0;
    while a.len() < n {
        a.push(more[i % more.len()]);
        b.push(more2[(i * 7 + 3) % more2.len()]);
        i += 1;
    }
    (a, b)
}

/// Every `step`-th f16 bit pattern.
fn all_f16(step: usize) -> Vec<u16> {
    (0..=u16::MAX).step_by(step).collect()
}

// ---- running ----

fn wgsl(case: &Case) -> String {
    let mut s = String::new();
    let uses_f16 =
        case.out_ty.contains("f16") || case.inputs.iter().any(|(t, _)| t.contains("f16"));
    if uses_f16 {
        s.push_str("enable f16;\n");
    }
    let names = ["a", "b", "c", "d"];
    for (k, (ty, _)) in case.inputs.iter().enumerate() {
        s.push_str(&format!(
            "@group(0) @binding({k}) var<storage, read> in_{}: array<{ty}>;\n",
            names[k]
        ));
    }
    let ob = case.inputs.len();
    s.push_str(&format!(
        "@group(0) @binding({ob}) var<storage, read_write> out: array<{}>;\n",
        case.out_ty
    ));
    s.push_str(
        "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n",
    );
    s.push_str(&format!("    let i = gid.x;\n    if i < {}u {{\n", case.n));
    for name in names.iter().take(case.inputs.len()) {
        s.push_str(&format!("        let {name} = in_{name}[i];\n"));
    }
    s.push_str(&format!("        out[i] = {};\n    }}\n}}\n", case.expr));
    s
}

fn buffers(case: &Case) -> Buffers {
    let mut b = Buffers::new();
    for (k, (_, bytes)) in case.inputs.iter().enumerate() {
        b.insert((0, k as u32), bytes.clone());
    }
    b.insert((0, case.inputs.len() as u32), vec![0; case.n * elem_size(case.out_ty)]);
    b
}

fn groups(case: &Case) -> u32 {
    case.n.div_ceil(64) as u32
}

/// Runs `text`'s entry on the emulator; the output buffer's bytes.
fn emulate(case: &Case, text: &str, info: &dianran_ptx::abi::EntryInfo) -> Result<Vec<u8>, String> {
    let input = buffers(case);
    let p = ptx_params(info, &input).map_err(|e| format!("{e:?}"))?;
    let mut params = p.buffers;
    emu::run(
        text,
        &info.ptx_name,
        &mut params,
        [groups(case), 1, 1],
        info.workgroup_size,
        &EmuOptions { max_steps: 1 << 26, undefined_registers: Some(0x9e37_79b9_7f4a_7c15) },
    )
    .map_err(|e| format!("{e}"))?;
    let key = (0, case.inputs.len() as u32);
    let at = p.bindings.iter().position(|b| *b == Some(key)).ok_or("no output parameter")?;
    Ok(params.swap_remove(at))
}

/// The scalars of an output buffer, as bits.
fn scalars(case: &Case, bytes: &[u8]) -> Vec<u32> {
    let (_, _, b) = shape(case.out_ty);
    bytes
        .chunks(b)
        .map(|c| {
            if b == 2 {
                u32::from(u16::from_le_bytes([c[0], c[1]]))
            } else {
                u32::from_le_bytes([c[0], c[1], c[2], c[3]])
            }
        })
        .collect()
}

fn as_f64(kind: Kind, bits: u32) -> f64 {
    match kind {
        Kind::F32 => f64::from(f32::from_bits(bits)),
        Kind::F16 => f64::from(f16::from_bits(bits as u16).to_f32()),
        Kind::Int => f64::from(bits),
    }
}

/// Whether `got` is within `tol` of `want`.
fn close(kind: Kind, got: u32, want: u32, tol: Tol) -> bool {
    if got == want {
        return true;
    }
    if kind == Kind::Int {
        return false;
    }
    let (g, w) = (as_f64(kind, got), as_f64(kind, want));
    if g.is_nan() || w.is_nan() {
        return g.is_nan() && w.is_nan();
    }
    if (g - w).abs() <= tol.abs {
        return true;
    }
    // Distance in representable steps (signed zeros are 0 apart).
    let ord = |b: u32| -> i64 {
        let (sign, mag) = match kind {
            Kind::F32 => (b >> 31, i64::from(b & 0x7FFF_FFFF)),
            _ => (b >> 15 & 1, i64::from(b & 0x7FFF)),
        };
        if sign == 1 {
            -mag
        } else {
            mag
        }
    };
    (ord(got) - ord(want)).unsigned_abs() <= u64::from(tol.ulp)
}

/// The inputs of invocation `i`, for messages.
fn describe_inputs(case: &Case, i: usize) -> String {
    let mut parts = Vec::new();
    for (ty, bytes) in &case.inputs {
        let (kind, n, b) = shape(ty);
        let at = i * n * b;
        let words: Vec<String> = (0..n)
            .map(|k| {
                let c = &bytes[at + k * b..at + (k + 1) * b];
                let bits = if b == 2 {
                    u32::from(u16::from_le_bytes([c[0], c[1]]))
                } else {
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                };
                match kind {
                    Kind::Int => format!("{bits:#x}"),
                    _ => format!("{:e}", as_f64(kind, bits)),
                }
            })
            .collect();
        parts.push(words.join(","));
    }
    parts.join(" | ")
}

/// Differences between `got` and `want` beyond `tol`, described.
fn compare(case: &Case, got: &[u8], want: &[u8], tol: Tol, against: &str) -> Vec<String> {
    let (kind, per, _) = shape(case.out_ty);
    let (g, w) = (scalars(case, got), scalars(case, want));
    let mut bad = Vec::new();
    for (j, (&x, &y)) in g.iter().zip(&w).enumerate() {
        if !close(kind, x, y, tol) {
            bad.push(format!(
                "{}: {against}: element {} (inputs {}): llvm {:#x} ({:e}), {against} {:#x} ({:e})",
                case.name,
                j / per,
                describe_inputs(case, j / per),
                x,
                as_f64(kind, x),
                y,
                as_f64(kind, y),
            ));
        }
    }
    bad
}

/// Rewrites every instruction of every function of `m`.
/// Rewrites every instruction of every function of `m` (`f` says whether it changed one); how
/// many changed.
fn rewrite_insts(
    m: &mut ir::Module,
    f: &dyn Fn(&ir::Function, &ir::Types, &mut ir::Inst) -> bool,
) -> usize {
    fn walk(
        b: &mut ir::Block,
        func: &ir::Function,
        types: &ir::Types,
        f: &dyn Fn(&ir::Function, &ir::Types, &mut ir::Inst) -> bool,
    ) -> usize {
        let mut n = 0;
        for inst in &mut b.insts {
            n += usize::from(f(func, types, inst));
            for blk in inst.op.blocks_mut() {
                n += walk(blk, func, types, f);
            }
        }
        n
    }
    let types = m.types.clone();
    let mut n = 0;
    for func in &mut m.functions {
        let snapshot = func.clone();
        n += walk(&mut func.body, &snapshot, &types, f);
    }
    n
}

/// Runs one case; the problems found (empty: it passed, or was skipped).
fn run(case: &Case) -> Vec<String> {
    let src = wgsl(case);
    let mut m = match dianran_frontend::compile("case.wgsl", &src, &unchecked()) {
        Ok(m) => m,
        Err(d) => {
            return vec![format!("{}: the frontend rejects the kernel: {d}\n{src}", case.name)]
        }
    };
    if let Some(rw) = case.rewrite {
        if rw(&mut m) == 0 {
            return vec![format!("{}: nothing to rewrite in the IR", case.name)];
        }
    }
    let out = dianran_llvm::compile_module(&m, &dianran_llvm::Options::default());
    // A missing libdevice is a skip (a failure under CI=true, verify::tools); a libdevice that
    // is found but fails to link is a failure below.
    if out.diagnostics.iter().any(|d| d.message.contains("libdevice.10.bc"))
        && dianran_verify::tools::require("libdevice.10.bc", dianran_llvm::libdevice_path())
            .is_none()
    {
        return Vec::new();
    }
    if !out.diagnostics.is_empty() || out.entries.is_empty() {
        return vec![format!("{}: LLVM backend: {:?}\n{src}", case.name, out.diagnostics)];
    }
    // ptxas accepts it for both targets (`DIANRAN_PTXAS`, the repository's `.tools/venv`, or
    // `PATH`; missing: skipped, a failure under CI=true).
    if let Some(ptxas) = dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()) {
        for sm in [80, 90] {
            if let Err(e) = dianran_verify::ptxas::check_with(&ptxas, &out.text, sm) {
                return vec![format!("{}: ptxas sm_{sm}: {e}", case.name)];
            }
        }
    }
    let got = match emulate(case, &out.text, &out.entries[0]) {
        Ok(g) => g,
        Err(e) => return vec![format!("{}: the emulator rejects the LLVM PTX: {e}", case.name)],
    };
    let mut bad = Vec::new();
    if let Some(tol) = case.vs_ours {
        let ours = dianran_ptx::codegen::compile_module(&m, &Default::default());
        match ours.entries.first() {
            Some(info) if ours.diagnostics.is_empty() => match emulate(case, &ours.text, info) {
                Ok(want) => bad.extend(compare(case, &got, &want, tol, "ours")),
                Err(e) => bad.push(format!("{}: our PTX on the emulator: {e}", case.name)),
            },
            _ => bad.push(format!("{}: our backend: {:?}", case.name, ours.diagnostics)),
        }
    }
    if let Some(tol) = case.vs_interp {
        let mut b = buffers(case);
        match interp::run(&m, "main", [groups(case), 1, 1], &mut b, &InterpOptions::default()) {
            Ok(()) => {
                let want = &b[&(0, case.inputs.len() as u32)];
                bad.extend(compare(case, &got, want, tol, "interp"));
            }
            Err(d) => bad.push(format!("{}: interpreter: {}", case.name, d.message)),
        }
    }
    bad
}

/// Runs every case; fails listing the first differences of each.
fn run_all(cases: Vec<Case>) {
    let mut failures = Vec::new();
    for case in &cases {
        let bad = run(case);
        if !bad.is_empty() {
            failures.push(format!(
                "{} ({} differences):\n  {}",
                case.name,
                bad.len(),
                bad.iter().take(6).cloned().collect::<Vec<_>>().join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

// ---- the cases ----

/// f32 builtins whose results are exactly specified (or fixed by our backend's choice).
#[test]
fn f32_exact_builtins() {
    let x = f32s(&floats(700, 1));
    let mut cases = Vec::new();
    for f in [
        "abs",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fract",
        "sqrt",
        "inverseSqrt",
        "saturate",
        "sign",
        "degrees",
        "radians",
        "quantizeToF16",
    ] {
        cases.push(Case::new(f, "f32", format!("{f}(a)")).input("f32", x.clone()));
    }
    cases.push(Case::new("modf.fract", "f32", "modf(a).fract").input("f32", x.clone()));
    cases.push(Case::new("modf.whole", "f32", "modf(a).whole").input("f32", x.clone()));
    cases.push(Case::new("frexp.fract", "f32", "frexp(a).fract").input("f32", x.clone()));
    cases.push(Case::new("frexp.exp", "i32", "frexp(a).exp").input("f32", x.clone()));
    // Vectors: the struct results keep components in order.
    let v = f32s(&floats(800, 2));
    cases.push(
        Case::new("modf.fract.vec4", "vec4<f32>", "modf(a).fract").input("vec4<f32>", v.clone()),
    );
    cases.push(
        Case::new("modf.whole.vec4", "vec4<f32>", "modf(a).whole").input("vec4<f32>", v.clone()),
    );
    cases.push(
        Case::new("frexp.fract.vec4", "vec4<f32>", "frexp(a).fract").input("vec4<f32>", v.clone()),
    );
    cases.push(Case::new("frexp.vec4", "vec4<i32>", "frexp(a).exp").input("vec4<f32>", v));
    run_all(cases);
}

/// Two- and three-operand f32 builtins with exact results.
#[test]
fn f32_exact_binary_builtins() {
    let (a, b) = float_pairs(2600, 3);
    let (a, b) = (f32s(&a), f32s(&b));
    let mut cases = Vec::new();
    for (name, expr) in [("min", "min(a, b)"), ("max", "max(a, b)"), ("step", "step(a, b)")] {
        cases.push(Case::new(name, "f32", expr).input("f32", a.clone()).input("f32", b.clone()));
    }
    // ldexp with exponents of every size.
    let xs = floats(2000, 4);
    let mut r = Rng(5);
    let es: Vec<i32> = (0..xs.len())
        .map(|i| match i % 5 {
            0 => [
                0,
                1,
                -1,
                127,
                128,
                -126,
                -127,
                -149,
                -150,
                254,
                -252,
                300,
                -300,
                i32::MAX,
                i32::MIN,
            ][r.next() as usize % 15],
            1 => (r.next() % 600) as i32 - 300,
            _ => (r.next() % 60) as i32 - 30,
        })
        .collect();
    cases.push(
        Case::new("ldexp", "f32", "ldexp(a, b)").input("f32", f32s(&xs)).input("i32", i32s(&es)),
    );
    let mut r = Rng(6);
    let (p, q, s): (Vec<f32>, Vec<f32>, Vec<f32>) = (0..1500)
        .map(|i| {
            if i < specials().len() * 3 {
                let sp = specials();
                (sp[i % sp.len()], sp[(i / 3) % sp.len()], sp[(i * 7) % sp.len()])
            } else {
                (r.float(), r.float(), r.float())
            }
        })
        .fold((vec![], vec![], vec![]), |mut acc, (x, y, z)| {
            acc.0.push(x);
            acc.1.push(y);
            acc.2.push(z);
            acc
        });
    let (p, q, s) = (f32s(&p), f32s(&q), f32s(&s));
    let three = |name: &str, expr: &str| {
        Case::new(name, "f32", expr)
            .input("f32", p.clone())
            .input("f32", q.clone())
            .input("f32", s.clone())
    };
    cases.push(three("clamp", "clamp(a, b, c)"));
    cases.push(three("fma", "fma(a, b, c)"));
    // The interpreter computes x (1 - t) + y t, our backend fma(y - x, t, x): they part at
    // infinities and in cancellation (`mix.ordinary` compares them where both are accurate).
    cases.push(three("mix", "mix(a, b, c)").interp(None));
    // smoothstep: the interpreter's t t (3 - 2 t) against fma forms; within 4 ulp where the
    // operands are ordinary.
    cases.push(three("smoothstep", "smoothstep(a, b, c)").interp(None));
    let mut r = Rng(7);
    let (lo, hi, x): (Vec<f32>, Vec<f32>, Vec<f32>) = (0..1000)
        .map(|_| {
            let lo = r.float().clamp(-100.0, 100.0);
            let w = (r.next() % 1000) as f32 / 37.0 + 0.01;
            (lo, lo + w, lo - w + 3.0 * w * (r.next() % 1000) as f32 / 1000.0)
        })
        .fold((vec![], vec![], vec![]), |mut acc, (x, y, z)| {
            acc.0.push(x);
            acc.1.push(y);
            acc.2.push(z);
            acc
        });
    cases.push(
        Case::new("smoothstep.ordinary", "f32", "smoothstep(a, b, c)")
            .input("f32", f32s(&lo))
            .input("f32", f32s(&hi))
            .input("f32", f32s(&x))
            .interp(Some(Tol { ulp: 8, abs: 1e-6 })),
    );
    let t: Vec<f32> = (0..1000).map(|i| (i % 41) as f32 / 40.0).collect();
    cases.push(
        Case::new("mix.ordinary", "f32", "mix(a, b, c)")
            .input("f32", f32s(&lo))
            .input("f32", f32s(&x))
            .input("f32", f32s(&t))
            .interp(Some(Tol { ulp: 4, abs: 1e-5 })),
    );
    // Scalar broadcast in vector forms.
    let v = f32s(&floats(1200, 8));
    let t = f32s(&floats(300, 9));
    cases.push(
        Case::new("mix.vec4.scalar", "vec4<f32>", "mix(a, a.wzyx, b)")
            .input("vec4<f32>", v.clone())
            .input("f32", t)
            .interp(None),
    );
    let e: Vec<i32> = (0..1200i32).map(|i| (i * 37) % 301 - 150).collect();
    cases.push(
        Case::new("ldexp.vec4", "vec4<f32>", "ldexp(a, b)")
            .input("vec4<f32>", v.clone())
            .input("vec4<i32>", i32s(&e)),
    );
    cases.push(
        Case::new("clamp.vec4", "vec4<f32>", "clamp(a, a.yzwx, a.zwxy)").input("vec4<f32>", v),
    );
    run_all(cases);
}

/// libdevice functions against our math library and the interpreter (CUDA's bounds).
#[test]
fn f32_transcendentals() {
    let xs = floats(1500, 10);
    let moderate =
        f32s(&xs.iter().map(|&v| if v.abs() > 1e38 { v / 8.0 } else { v }).collect::<Vec<_>>());
    let x = f32s(&xs);
    let mut cases = Vec::new();
    // (function, CUDA's bound in ulp)
    for (f, b) in [
        ("exp", 2),
        ("exp2", 2),
        ("log", 1),
        ("log2", 1),
        ("sin", 2),
        ("cos", 2),
        ("tan", 4),
        ("asin", 2),
        ("acos", 2),
        ("atan", 2),
        ("sinh", 3),
        ("cosh", 2),
        ("tanh", 2),
        ("asinh", 3),
        ("acosh", 4),
        ("atanh", 3),
    ] {
        if f == "asinh" || f == "acosh" {
            // The interpreter's f32::asinh and f32::acosh overflow to infinity above about
            // 1e38; libdevice and our library do not: all inputs against ours, the others
            // against the interpreter.
            cases.push(
                Case::new(format!("{f}.huge"), "f32", format!("{f}(a)"))
                    .input("f32", x.clone())
                    .ours(Some(ulp(2 * b + 1)))
                    .interp(None),
            );
        }
        let x = if f == "asinh" || f == "acosh" { moderate.clone() } else { x.clone() };
        // libdevice and our library are each within the bound of the correct result.
        cases.push(
            Case::new(f, "f32", format!("{f}(a)"))
                .input("f32", x.clone())
                .ours(Some(ulp(2 * b + 1)))
                .interp(Some(ulp(b + 1))),
        );
    }
    let (a, b) = float_pairs(3000, 11);
    let (a, b) = (f32s(&a), f32s(&b));
    cases.push(
        Case::new("atan2", "f32", "atan2(a, b)")
            .input("f32", a.clone())
            .input("f32", b.clone())
            .tol(ulp(4)),
    );
    cases.push(
        Case::new("pow", "f32", "pow(a, b)")
            .input("f32", a.clone())
            .input("f32", b.clone())
            .ours(Some(ulp(9)))
            .interp(Some(ulp(5))),
    );
    // pow with the constant exponents our backend multiplies out: the same forms.
    for (name, k) in [("pow.1", "1.0"), ("pow.2", "2.0"), ("pow.3", "3.0"), ("pow.m1", "-1.0")] {
        cases.push(
            Case::new(name, "f32", format!("pow(a, {k})"))
                .input("f32", a.clone())
                .interp(Some(ulp(2))),
        );
    }
    // Small vectors: each component separately.
    let v = f32s(&floats(1200, 12));
    cases.push(
        Case::new("sin.vec4", "vec4<f32>", "sin(a)")
            .input("vec4<f32>", v.clone())
            .ours(Some(ulp(5)))
            .interp(Some(ulp(3))),
    );
    cases.push(
        Case::new("pow.vec4", "vec4<f32>", "pow(abs(a), a.yxwz)")
            .input("vec4<f32>", v)
            .ours(Some(ulp(9)))
            .interp(Some(ulp(5))),
    );
    run_all(cases);
}

/// f16 operands: computed in f16 or through f32 and rounded once, as our backend does.
#[test]
fn f16_builtins() {
    let h = all_f16(7);
    let x = f16s(&h);
    let mut cases = Vec::new();
    for f in [
        "abs",
        "floor",
        "ceil",
        "round",
        "trunc",
        "fract",
        "sqrt",
        "inverseSqrt",
        "saturate",
        "sign",
        "degrees",
        "radians",
    ] {
        cases.push(Case::new(format!("{f}.f16"), "f16", format!("{f}(a)")).input("f16", x.clone()));
    }
    cases.push(Case::new("modf.fract.f16", "f16", "modf(a).fract").input("f16", x.clone()));
    cases.push(Case::new("modf.whole.f16", "f16", "modf(a).whole").input("f16", x.clone()));
    // (`frexp` of f16 has an i16 exponent in naga, which the frontend does not support.)
    for f in [
        "exp", "exp2", "log", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "tanh", "asinh", "acosh", "atanh",
    ] {
        cases.push(
            Case::new(format!("{f}.f16"), "f16", format!("{f}(a)"))
                .input("f16", x.clone())
                .tol(ulp(1)),
        );
    }
    let mut r = Rng(13);
    let n = 3000;
    let rnd = |r: &mut Rng| -> Vec<u16> {
        (0..n)
            .map(|i| {
                if i < 200 {
                    [
                        0u16, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001,
                        0x7BFF, 0x3800, 0x4000, 0xC000, 0x0400,
                    ][i % 14]
                } else {
                    r.next() as u16
                }
            })
            .collect()
    };
    let (a, b, c) = (f16s(&rnd(&mut r)), f16s(&rnd(&mut r)), f16s(&rnd(&mut r)));
    for (name, expr) in [("min", "min(a, b)"), ("max", "max(a, b)"), ("step", "step(a, b)")] {
        cases.push(
            Case::new(format!("{name}.f16"), "f16", expr)
                .input("f16", a.clone())
                .input("f16", b.clone()),
        );
    }
    cases.push(
        Case::new("atan2.f16", "f16", "atan2(a, b)")
            .input("f16", a.clone())
            .input("f16", b.clone())
            .tol(ulp(1)),
    );
    cases.push(
        Case::new("pow.f16", "f16", "pow(a, b)")
            .input("f16", a.clone())
            .input("f16", b.clone())
            .tol(ulp(1)),
    );
    let es: Vec<i32> = (0..n).map(|i| (i as i32 * 13) % 61 - 30).collect();
    cases.push(
        Case::new("ldexp.f16", "f16", "ldexp(a, b)")
            .input("f16", a.clone())
            .input("i32", i32s(&es)),
    );
    let three = |name: &str, expr: &str| {
        Case::new(format!("{name}.f16"), "f16", expr)
            .input("f16", a.clone())
            .input("f16", b.clone())
            .input("f16", c.clone())
    };
    cases.push(three("clamp", "clamp(a, b, c)"));
    cases.push(three("fma", "fma(a, b, c)"));
    // The interpreter rounds each f16 operation through f32 with its own formula.
    cases.push(three("mix", "mix(a, b, c)").interp(None));
    cases.push(three("smoothstep", "smoothstep(a, b, c)").interp(None));
    let mut r = Rng(14);
    let small: Vec<u16> = (0..4000).map(|_| f16::from_f32(r.eighth() / 4.0).to_bits()).collect();
    let v = f16s(&small);
    cases.push(
        Case::new("length.f16", "f16", "length(a)").input("vec4<f16>", v.clone()).tol(ulp(1)),
    );
    cases.push(
        Case::new("normalize.f16", "vec4<f16>", "normalize(a)")
            .input("vec4<f16>", v.clone())
            .interp(Some(ulp(1))),
    );
    cases.push(
        Case::new("distance.f16", "f16", "distance(a, a.wzyx)")
            .input("vec4<f16>", v.clone())
            .interp(Some(ulp(1))),
    );
    cases.push(
        Case::new("dot.f16", "f16", "dot(a, a.yzwx)")
            .input("vec4<f16>", v.clone())
            .interp(Some(ulp(1))),
    );
    cases.push(
        Case::new("reflect.f16", "vec4<f16>", "reflect(a, a.yzwx)")
            .input("vec4<f16>", v.clone())
            .interp(Some(Tol { ulp: 2, abs: 1e-3 })),
    );
    cases.push(
        Case::new("determinant.f16", "f16", "determinant(mat2x2<f16>(a.xy, a.zw))")
            .input("vec4<f16>", v.clone())
            .interp(Some(ulp(1))),
    );
    cases.push(
        Case::new("quantize.unpack", "f32", "quantizeToF16(f32(a.x) * 1.001)")
            .input("vec4<f16>", v),
    );
    run_all(cases);
}

/// Integer builtins: exact.
#[test]
fn integer_builtins() {
    let x = ints(800, 20);
    let (a, b) = int_pairs(1800, 21);
    let mut cases = Vec::new();
    for t in ["i32", "u32"] {
        for f in [
            "abs",
            "countOneBits",
            "reverseBits",
            "countLeadingZeros",
            "countTrailingZeros",
            "firstLeadingBit",
            "firstTrailingBit",
        ] {
            cases.push(Case::new(format!("{f}.{t}"), t, format!("{f}(a)")).input(t, u32s(&x)));
        }
        if t == "i32" {
            cases.push(Case::new("sign.i32", t, "sign(a)").input(t, u32s(&x)));
        }
        for (name, expr) in [
            ("min", "min(a, b)"),
            ("max", "max(a, b)"),
            ("clamp", "clamp(a, min(a, b), max(a, b))"),
            ("clamp.crossed", "clamp(a, b, a ^ b)"),
        ] {
            cases.push(
                Case::new(format!("{name}.{t}"), t, expr).input(t, u32s(&a)).input(t, u32s(&b)),
            );
        }
        // Every offset/count pair around the edges, on several values.
        let edges = [0u32, 1, 4, 8, 15, 16, 24, 31, 32, 33, 100, u32::MAX];
        let vals = [0x8765_4321u32, 0xFFFF_FFFF, 0x0000_0001, 0x8000_0000, 0x1234_5678];
        let (mut v, mut o, mut c, mut w) = (vec![], vec![], vec![], vec![]);
        for (k, &val) in vals.iter().enumerate() {
            for &off in &edges {
                for &cnt in &edges {
                    v.push(val);
                    o.push(off);
                    c.push(cnt);
                    w.push(vals[(k + 2) % vals.len()].rotate_left(off));
                }
            }
        }
        cases.push(
            Case::new(format!("extractBits.{t}"), t, "extractBits(a, b, c)")
                .input(t, u32s(&v))
                .input("u32", u32s(&o))
                .input("u32", u32s(&c)),
        );
        cases.push(
            Case::new(format!("insertBits.{t}"), t, "insertBits(a, d, b, c)")
                .input(t, u32s(&v))
                .input("u32", u32s(&o))
                .input("u32", u32s(&c))
                .input(t, u32s(&w)),
        );
        let vv: Vec<u32> = (0..1600).map(|i| x[i % x.len()].wrapping_mul(i as u32 | 1)).collect();
        let vt = if t == "i32" { "vec4<i32>" } else { "vec4<u32>" };
        cases.push(Case::new(format!("dot.{t}"), t, "dot(a, a.yzwx)").input(vt, u32s(&vv)));
        cases.push(
            Case::new(format!("extractBits.vec4.{t}"), vt, "extractBits(a, 3u, 9u)")
                .input(vt, u32s(&vv)),
        );
        cases.push(
            Case::new(format!("firstLeadingBit.vec4.{t}"), vt, "firstLeadingBit(a)")
                .input(vt, u32s(&vv)),
        );
    }
    cases.push(
        Case::new("dot4I8Packed", "i32", "dot4I8Packed(a, b)")
            .input("u32", u32s(&a))
            .input("u32", u32s(&b)),
    );
    cases.push(
        Case::new("dot4U8Packed", "u32", "dot4U8Packed(a, b)")
            .input("u32", u32s(&a))
            .input("u32", u32s(&b)),
    );
    let v4: Vec<u32> = (0..2000).map(|i| a[i % a.len()]).collect();
    for f in ["pack4xI8", "pack4xI8Clamp"] {
        cases.push(Case::new(f, "u32", format!("{f}(a)")).input("vec4<i32>", u32s(&v4)));
    }
    for f in ["pack4xU8", "pack4xU8Clamp"] {
        cases.push(Case::new(f, "u32", format!("{f}(a)")).input("vec4<u32>", u32s(&v4)));
    }
    cases.push(Case::new("unpack4xI8", "vec4<i32>", "unpack4xI8(a)").input("u32", u32s(&x)));
    cases.push(Case::new("unpack4xU8", "vec4<u32>", "unpack4xU8(a)").input("u32", u32s(&x)));
    run_all(cases);
}

/// Float packing and unpacking.
#[test]
fn packing_builtins() {
    let mut cases = Vec::new();
    let mut r = Rng(30);
    let nonan: Vec<f32> = floats(3000, 31).into_iter().filter(|v| !v.is_nan()).collect();
    let ordinary: Vec<f32> = (0..2000)
        .map(|i| if i % 2 == 0 { r.float() } else { (r.next() % 4001) as f32 / 1000.0 - 2.0 })
        .collect();
    for f in ["pack4x8snorm", "pack4x8unorm"] {
        cases.push(Case::new(f, "u32", format!("{f}(a)")).input("vec4<f32>", f32s(&nonan)));
        cases.push(
            Case::new(format!("{f}.ordinary"), "u32", format!("{f}(a)"))
                .input("vec4<f32>", f32s(&ordinary)),
        );
        // NaN: our backend's max-then-min clamp gives the low end; the interpreter 0.
        cases.push(
            Case::new(format!("{f}.nan"), "u32", format!("{f}(a)"))
                .input("vec4<f32>", f32s(&floats(3000, 32)))
                .interp(None),
        );
    }
    for f in ["pack2x16snorm", "pack2x16unorm", "pack2x16float"] {
        cases.push(Case::new(f, "u32", format!("{f}(a)")).input("vec2<f32>", f32s(&nonan)));
        cases.push(
            Case::new(format!("{f}.ordinary"), "u32", format!("{f}(a)"))
                .input("vec2<f32>", f32s(&ordinary)),
        );
        cases.push(
            Case::new(format!("{f}.nan"), "u32", format!("{f}(a)"))
                .input("vec2<f32>", f32s(&floats(3000, 33)))
                .interp(None),
        );
    }
    let w = ints(1500, 34);
    for (f, t) in [
        ("unpack4x8snorm", "vec4<f32>"),
        ("unpack4x8unorm", "vec4<f32>"),
        ("unpack2x16snorm", "vec2<f32>"),
        ("unpack2x16unorm", "vec2<f32>"),
    ] {
        cases.push(Case::new(f, t, format!("{f}(a)")).input("u32", u32s(&w)));
    }
    cases.push(
        Case::new("unpack2x16float", "vec2<f32>", "unpack2x16float(a)").input("u32", u32s(&w)),
    );
    let all: Vec<u32> =
        (0..=u16::MAX as u32).step_by(3).map(|h| h | ((h ^ 0x5A5A) << 16)).collect();
    cases.push(
        Case::new("unpack2x16float.all", "vec2<f32>", "unpack2x16float(a)")
            .input("u32", u32s(&all)),
    );
    // Without NaN halves: LLVM folds the f16 -> f32 -> f16 pair away, keeping signaling NaN
    // payloads that the conversions (our backend) quiet.
    let no_nan: Vec<u32> = all
        .iter()
        .copied()
        .filter(|w| [w & 0xFFFF, w >> 16].iter().all(|h| h & 0x7C00 != 0x7C00 || h & 0x3FF == 0))
        .collect();
    cases.push(
        Case::new("roundtrip.2x16float", "u32", "pack2x16float(unpack2x16float(a))")
            .input("u32", u32s(&no_nan)),
    );
    run_all(cases);
}

/// Vector geometry on small multiples of 1/8 (products and short sums exact).
#[test]
fn geometric_builtins() {
    let mut r = Rng(40);
    let v: Vec<f32> = (0..4000).map(|_| r.eighth()).collect();
    let w: Vec<f32> = (0..4000).map(|_| r.eighth()).collect();
    let eta: Vec<f32> = (0..1000).map(|i| [0.5, 0.9, 1.0, 1.33, 1.5, 2.0, 0.0][i % 7]).collect();
    let (v, w) = (f32s(&v), f32s(&w));
    let mut cases = Vec::new();
    let two = |name: &str, ty: &'static str, expr: &str| {
        Case::new(name, ty, expr).input("vec4<f32>", v.clone()).input("vec4<f32>", w.clone())
    };
    cases.push(two("dot", "f32", "dot(a, b)"));
    cases.push(two("cross", "vec4<f32>", "vec4<f32>(cross(a.xyz, b.xyz), 0.0)"));
    cases.push(two("length", "f32", "length(a)"));
    cases.push(two("length.scalar", "f32", "length(a.x)"));
    cases.push(two("distance", "f32", "distance(a, b)"));
    cases.push(two("distance.vec2", "f32", "distance(a.xy, b.zw)"));
    cases.push(two("normalize", "vec4<f32>", "normalize(a)"));
    cases.push(two("faceForward", "vec4<f32>", "faceForward(a, b, b.wzyx)"));
    cases.push(two("reflect", "vec4<f32>", "reflect(a, b)"));
    cases.push(
        Case::new("refract", "vec4<f32>", "vec4<f32>(refract(a.xyz, normalize(b.xyz), c), 1.0)")
            .input("vec4<f32>", v.clone())
            .input("vec4<f32>", w.clone())
            .input("f32", f32s(&eta))
            .ours(None)
            .interp(Some(Tol { ulp: 4, abs: 1e-5 })),
    );
    cases.push(two("determinant.2", "f32", "determinant(mat2x2<f32>(a.xy, a.zw))"));
    cases.push(two("determinant.3", "f32", "determinant(mat3x3<f32>(a.xyz, b.xyz, a.wzy))"));
    cases.push(
        two("determinant.4", "f32", "determinant(mat4x4<f32>(a, b, a.wzyx + b, b.yxwz))")
            .interp(Some(Tol { ulp: 0, abs: 1e-3 })),
    );
    cases.push(two(
        "transpose.2x2",
        "vec4<f32>",
        "vec4<f32>(transpose(mat2x2<f32>(a.xy, a.zw))[0], transpose(mat2x2<f32>(a.xy, a.zw))[1])",
    ));
    cases.push(two(
        "transpose.4x2",
        "vec4<f32>",
        "transpose(mat4x2<f32>(a.xy, a.zw, b.xy, b.zw))[1]",
    ));
    cases.push(two("transpose.2x4", "vec2<f32>", "transpose(mat2x4<f32>(a, b))[2]"));
    run_all(cases);
}

/// Rewrites `transpose(m)` (square m) into `inverse(m)`, which WGSL cannot spell.
fn transpose_to_inverse(m: &mut ir::Module) -> usize {
    rewrite_insts(m, &|_, _, inst| {
        if let Op::Math(f @ MathFunction::Transpose, _) = &mut inst.op {
            *f = MathFunction::Inverse;
            return true;
        }
        false
    })
}

/// Rewrites a `mat2x2(x, y)` construction into `outer(x, y)`, which WGSL cannot spell.
fn compose_to_outer(m: &mut ir::Module) -> usize {
    rewrite_insts(m, &|func, types, inst| {
        let Some(r) = inst.result else { return false };
        if !matches!(types.get(func.ty(r)), Type::Matrix { columns: 2, rows: 2, .. }) {
            return false;
        }
        if let Op::Compose(parts) = &inst.op {
            if parts.len() == 2 {
                inst.op = Op::Math(MathFunction::Outer, parts.clone());
                return true;
            }
        }
        false
    })
}

/// `inverse` and `outer` (GLSL's, reachable through naga's IR only), against the interpreter.
#[test]
fn inverse_and_outer() {
    let mut r = Rng(50);
    // Diagonally dominant matrices: well conditioned.
    let mut mats = |n: usize| -> Vec<f32> {
        let mut v = Vec::new();
        for _ in 0..500 {
            for c in 0..4 {
                for k in 0..4 {
                    let base = r.eighth();
                    v.push(if c == k && c < n { base.abs() + 2.0 * n as f32 } else { base });
                }
            }
        }
        v
    };
    let m2 = f32s(&mats(2));
    let m3 = f32s(&mats(3));
    let m4 = f32s(&mats(4));
    let tol = Some(Tol { ulp: 16, abs: 1e-6 });
    let mut cases = Vec::new();
    // One access per kernel keeps one `inverse` instruction; columns by index.
    for (n, m) in [(2usize, &m2), (3, &m3), (4, &m4)] {
        for col in 0..n {
            let expr = match n {
                2 => format!("vec4<f32>(transpose(mat2x2<f32>(a.xy, b.xy))[{col}], 0.0, 0.0)"),
                3 => format!("vec4<f32>(transpose(mat3x3<f32>(a.xyz, b.xyz, c.xyz))[{col}], 0.0)"),
                _ => format!("transpose(mat4x4<f32>(a, b, c, d))[{col}]"),
            };
            // Column k of the input matrix is element k of the four arrays (a stride of 4).
            let cols: Vec<Vec<u8>> = (0..4)
                .map(|k| m.chunks(64).flat_map(|mm| mm[16 * k..16 * k + 16].to_vec()).collect())
                .collect();
            let mut c = Case::new(format!("inverse.{n}.col{col}"), "vec4<f32>", expr)
                .ours(None)
                .interp(tol);
            for colk in cols.iter().take(4) {
                c = c.input("vec4<f32>", colk.clone());
            }
            c.rewrite = Some(transpose_to_inverse);
            cases.push(c);
        }
    }
    let mut r = Rng(51);
    let v: Vec<f32> = (0..2000).map(|_| r.float()).collect();
    let w: Vec<f32> = (0..2000).map(|_| r.float()).collect();
    for col in 0..2 {
        let mut c = Case::new(
            format!("outer.col{col}"),
            "vec2<f32>",
            format!("transpose(mat2x2<f32>(a.xy, b.zw))[{col}]"),
        )
        .input("vec4<f32>", f32s(&v))
        .input("vec4<f32>", f32s(&w))
        .ours(None);
        c.rewrite = Some(compose_to_outer);
        cases.push(c);
    }
    run_all(cases);
}

/// Frontend options without the bounds policy: the hand-laid parameter lists hold the buffers only (no `p_sizes`); the bounds policy has its own tests.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
