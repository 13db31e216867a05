//! Accuracy of PTX's precise math (the default) on the PTX emulator, and the table in
//! `docs/math.md` (`DIANRAN_BLESS=1` rewrites it; read the diff).
//!
//! For each function a one-line kernel `out[i] = f(a[i])` (or `f(a[i], b[i])`) is compiled to
//! PTX, checked by `ptxas`, and run on the emulator over tens of thousands of inputs: every
//! exponent of both signs, the special values, and dense samples near each function's hard
//! cases (arguments near multiples of pi/2 up to 2^127 for the trigonometric functions, the
//! overflow and underflow edges of the exponentials, bases near 1 with huge exponents and
//! negative bases with integral exponents for `pow`, ...). Every result must
//! * be bit-identical to the CPU evaluation of the same library
//!   ([`dianran_ptx::math::eval`]): the emitted PTX computes what the library specifies, so
//!   the native sweeps in `dianran-ptx` (every 4093rd f32, or all 2^32 with the ignored
//!   `exhaustive` test) speak for the PTX;
//! * be within the stated bound of the correctly rounded result (the f64 reference rounded to
//!   f32), counted in f32 steps as CUDA counts its documented errors.
//!
//! f16: every one of the 65536 inputs of each one-argument function (random pairs for `pow` and
//! `atan2`) runs through the f16 kernel, which computes in f32 and rounds once; the result must
//! be within one f16 step of the correctly rounded f16.
//!
//! Where a CUDA device is present, every kernel also runs through the driver and its results
//! must be bit-identical to the emulator's (the library uses no approximate instruction, so the
//! GPU computes the same bits); elsewhere that part is skipped silently (the CUDA executor's
//! own tests say `skipped: no CUDA device`).

mod common;

use dianran_frontend::ir::MathFunction as M;
use dianran_ptx::math::{self, accuracy};
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::{ptxas, tools};
use std::fmt::Write as _;

/// WGSL spelling of a builtin.
fn wgsl_name(f: M) -> &'static str {
    match f {
        M::Sin => "sin",
        M::Cos => "cos",
        M::Tan => "tan",
        M::Exp => "exp",
        M::Exp2 => "exp2",
        M::Log => "log",
        M::Log2 => "log2",
        M::Pow => "pow",
        M::Sinh => "sinh",
        M::Cosh => "cosh",
        M::Tanh => "tanh",
        M::Asin => "asin",
        M::Acos => "acos",
        M::Atan => "atan",
        M::Atan2 => "atan2",
        M::Asinh => "asinh",
        M::Acosh => "acosh",
        M::Atanh => "atanh",
        M::InverseSqrt => "inverseSqrt",
        M::Sqrt => "sqrt",
        _ => "?",
    }
}

fn arity(f: M) -> usize {
    if matches!(f, M::Pow | M::Atan2) {
        2
    } else {
        1
    }
}

/// `out[i] = f(a[i] [, b[i]])` over `T` (`f32` or `f16`).
fn kernel(f: M, ty: &str) -> String {
    let enable = if ty == "f16" { "enable f16;\n" } else { "" };
    let call = if arity(f) == 2 {
        format!("{}(a[i], b[i])", wgsl_name(f))
    } else {
        format!("{}(a[i])", wgsl_name(f))
    };
    format!(
        "{enable}@group(0) @binding(0) var<storage, read> a: array<{ty}>;
@group(0) @binding(1) var<storage, read> b: array<{ty}>;
@group(0) @binding(2) var<storage, read_write> out: array<{ty}>;
@compute @workgroup_size(256) fn k(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    out[i] = {call};
}}
"
    )
}

/// Compiles `src` (precise math), checks it with ptxas when present, runs entry `k` on the
/// emulator with buffers `a`, `b` and returns `out`'s bytes. `n` is a multiple of 256.
fn run_kernel(src: &str, a: &[u8], b: &[u8], out_len: usize, n: usize, ptxas: bool) -> Vec<u8> {
    let m = dianran_frontend::compile("math.wgsl", src, &unchecked())
        .unwrap_or_else(|d| panic!("{d}\n{src}"));
    let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert!(c.entries.iter().all(|e| !e.fast_math()), "precise math is the default");
    if ptxas {
        if let Err(e) = ptxas::check(&c.text, 80) {
            panic!("ptxas rejects the PTX of\n{src}\n{e}");
        }
    }
    // `a`, `b` unused by one-argument kernels still have a (placeholder) parameter slot.
    let info = &c.entries[0];
    let mut params: Vec<Vec<u8>> = info
        .params
        .iter()
        .map(|p| match p.as_str() {
            "p_g0_b0" => a.to_vec(),
            "p_g0_b1" => b.to_vec(),
            _ => vec![0u8; out_len],
        })
        .collect();
    let grid = [(n / 256) as u32, 1, 1];
    let inputs = params.clone();
    emu::run(&c.text, &info.ptx_name, &mut params, grid, [256, 1, 1], &EmuOptions::default())
        .unwrap_or_else(|e| panic!("emulator: {e}\n{src}"));
    let out = params.pop().unwrap_or_default();
    on_device(&c.text, &info.ptx_name, &inputs, grid, &out, src);
    out
}

/// Runs the PTX through the CUDA driver when a device is present and requires the output (the
/// last parameter) to be bit-identical to the emulator's `emu_out` (NaN payloads aside).
#[cfg(feature = "cuda")]
fn on_device(
    ptx: &str,
    entry: &str,
    inputs: &[Vec<u8>],
    grid: [u32; 3],
    emu_out: &[u8],
    src: &str,
) {
    if !dianran_verify::cuda::available() {
        return;
    }
    let out = dianran_verify::cuda::run_ptx(ptx, entry, inputs, [256, 1, 1], grid)
        .unwrap_or_else(|e| panic!("CUDA: {e}\n{src}"));
    let dev = out.last().cloned().unwrap_or_default();
    // The output's element type, from its declaration in the kernel.
    let out_ty = src
        .lines()
        .find(|l| l.contains("var<storage, read_write> out"))
        .and_then(|l| l.split("array<").nth(1))
        .map_or("f32", |t| t.trim_end_matches(">;"));
    let width = if out_ty == "f16" { 2 } else { 4 };
    let nan = |w: &[u8]| match (out_ty, w) {
        ("f16", [a, b]) => half::f16::from_le_bytes([*a, *b]).is_nan(),
        ("f32", [a, b, c, d]) => f32::from_le_bytes([*a, *b, *c, *d]).is_nan(),
        _ => false,
    };
    let bad: Vec<usize> = dev
        .chunks(width)
        .zip(emu_out.chunks(width))
        .enumerate()
        .filter(|(_, (d, e))| d != e && !(nan(d) && nan(e)))
        .map(|(i, _)| i)
        .take(5)
        .collect();
    assert!(bad.is_empty(), "the GPU differs from the emulator at elements {bad:?}\n{src}");
}

#[cfg(not(feature = "cuda"))]
fn on_device(_: &str, _: &str, _: &[Vec<u8>], _: [u32; 3], _: &[u8], _: &str) {}

/// Pads to a multiple of 256 by repeating the first element.
fn pad<T: Copy>(mut v: Vec<T>) -> Vec<T> {
    let first = v[0];
    while !v.len().is_multiple_of(256) {
        v.push(first);
    }
    v
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Specials every function sees.
const SPECIALS: [f32; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    f32::MAX,
    -f32::MAX,
    1e-45,
];

/// Neighbours of `x`: `x` and up to `k` floats on each side.
fn around(x: f32, k: u32, out: &mut Vec<f32>) {
    out.push(x);
    for d in 1..=k {
        out.push(f32::from_bits(x.to_bits().wrapping_add(d)));
        out.push(f32::from_bits(x.to_bits().wrapping_sub(d)));
    }
}

/// Inputs of a one-argument function.
fn unary_inputs(f: M, rng: &mut common::Rng) -> Vec<f32> {
    let mut v: Vec<f32> = SPECIALS.to_vec();
    // Every exponent of both signs: the edges of the mantissa and random ones.
    for sign in [0u32, 1 << 31] {
        for e in 0..256u32 {
            for k in 0..40u32 {
                let m = match k {
                    0 => 0,
                    1 => 1,
                    2 => 0x7F_FFFF,
                    3 => 0x40_0000,
                    _ => rng.next_u32() & 0x7F_FFFF,
                };
                v.push(f32::from_bits(sign | e << 23 | m));
            }
        }
    }
    // The range kernels usually see.
    for _ in 0..8192 {
        v.push(rng.f32_in(-10.0, 10.0));
    }
    let pio2 = std::f64::consts::FRAC_PI_2;
    match f {
        M::Sin | M::Cos | M::Tan => {
            // Nearest floats to k pi/2 and their neighbours, small and huge k.
            for k in 1..2000u32 {
                around((f64::from(k) * pio2) as f32, 2, &mut v);
                around((-f64::from(k) * pio2) as f32, 1, &mut v);
            }
            for _ in 0..3000 {
                let e = rng.below(120) as i32;
                let k = (f64::from(rng.next_u32()) + 1.0) * 2f64.powi(e);
                around((k * pio2) as f32, 1, &mut v);
            }
            // The switch between the two reductions.
            around(105_615.0, 40, &mut v);
            around(-105_615.0, 40, &mut v);
        }
        M::Exp | M::Sinh | M::Cosh => {
            for _ in 0..4000 {
                v.push(rng.f32_in(80.0, 90.0));
                v.push(rng.f32_in(-104.0, -80.0));
            }
            for x in [88.722_84, 89.415_985, -87.336_55, -103.972_08] {
                around(x, 30, &mut v);
                around(-x, 30, &mut v);
            }
        }
        M::Exp2 => {
            for _ in 0..4000 {
                v.push(rng.f32_in(120.0, 129.0));
                v.push(rng.f32_in(-151.0, -120.0));
            }
            for x in [128.0, -126.0, -149.0, -150.0] {
                around(x, 30, &mut v);
            }
        }
        M::Log | M::Log2 => {
            for x in [1.0, std::f32::consts::SQRT_2, std::f32::consts::FRAC_1_SQRT_2] {
                around(x, 2000, &mut v);
            }
            for _ in 0..4000 {
                v.push(f32::from_bits(rng.below(0x80_0000)));
            }
        }
        M::Tanh => {
            for x in [0.55, 9.0, 9.01] {
                around(x, 200, &mut v);
                around(-x, 200, &mut v);
            }
        }
        M::Asin | M::Acos | M::Atanh => {
            for x in [1.0, 0.5, -0.5, -1.0] {
                around(x, 1000, &mut v);
            }
            for _ in 0..8000 {
                v.push(rng.f32_in(-1.0, 1.0));
            }
        }
        M::Atan => {
            around(1.0, 1000, &mut v);
            around(-1.0, 1000, &mut v);
        }
        M::Asinh | M::Acosh => {
            for x in [1.0, 4096.0, -4096.0] {
                around(x, 1000, &mut v);
            }
        }
        M::InverseSqrt => {
            for _ in 0..4000 {
                v.push(f32::from_bits(rng.below(0x80_0000)));
            }
        }
        _ => {}
    }
    v
}

/// Inputs of `pow(x, y)` or `atan2(y, x)`.
fn binary_inputs(f: M, rng: &mut common::Rng) -> Vec<(f32, f32)> {
    let mut v = Vec::new();
    for &x in &SPECIALS {
        for &y in &SPECIALS {
            v.push((x, y));
        }
    }
    for _ in 0..16384 {
        let x = f32::from_bits(rng.next_u32());
        let y = f32::from_bits(rng.next_u32());
        v.push((x, y));
        v.push((rng.f32_in(-10.0, 10.0), rng.f32_in(-10.0, 10.0)));
    }
    if f == M::Pow {
        // GELU and LayerNorm: negative bases with small integral exponents.
        for _ in 0..8192 {
            let x = rng.f32_in(-8.0, 8.0);
            let y = rng.i32_in(-8, 8) as f32;
            v.push((x, y));
            v.push((x, 3.0));
            v.push((x, 2.0));
        }
        // Negative bases with large integral exponents, and half-integral ones (NaN).
        for _ in 0..4096 {
            let x = -rng.f32_in(0.5, 2.0);
            v.push((x, rng.i32_in(-200, 200) as f32));
            v.push((x, rng.i32_in(-200, 200) as f32 + 0.5));
        }
        // Bases near 1 with huge exponents; results near overflow and underflow.
        for _ in 0..8192 {
            let x = f32::from_bits(1.0f32.to_bits().wrapping_add(rng.next_u32() % 2000) - 1000);
            let y = f32::from_bits(0x4B00_0000 + (rng.next_u32() % 0x0180_0000));
            v.push((x, y));
            v.push((x, -y));
            let base = rng.f32_in(1.5, 1e4);
            let target = rng.f32_in(80.0, 89.0) * if rng.below(2) == 0 { 1.0 } else { -1.2 };
            v.push((base, (f64::from(target) / f64::from(base).ln()) as f32));
        }
    } else {
        for _ in 0..4096 {
            let y = rng.f32_in(-1e-3, 1e-3);
            v.push((y, rng.f32_in(-10.0, 10.0)));
            v.push((rng.f32_in(-10.0, 10.0), y));
        }
    }
    v
}

/// One row of the accuracy table.
struct Row {
    name: String,
    inputs: usize,
    bound: f32,
    steps: u64,
    exact_ulp: f64,
    cuda: f32,
}

/// Runs one f32 function on the emulator; returns its row and the failures.
fn f32_row(f: M, rng: &mut common::Rng, ptxas: bool) -> (Row, Vec<String>) {
    let mut fails = Vec::new();
    let (xs, ys): (Vec<f32>, Vec<f32>) = if arity(f) == 2 {
        pad(binary_inputs(f, rng)).into_iter().unzip()
    } else {
        let x = pad(unary_inputs(f, rng));
        let y = vec![0.0; x.len()];
        (x, y)
    };
    let n = xs.len();
    let out = run_kernel(&kernel(f, "f32"), &f32_bytes(&xs), &f32_bytes(&ys), n * 4, n, ptxas);
    let got = f32s(&out);
    let mut steps = 0u64;
    let mut exact_ulp = 0.0f64;
    let mut worst = String::new();
    for i in 0..n {
        let args: Vec<f32> = if arity(f) == 2 { vec![xs[i], ys[i]] } else { vec![xs[i]] };
        let native = math::eval(f, &args).unwrap_or(f32::NAN);
        let same = native.to_bits() == got[i].to_bits() || (native.is_nan() && got[i].is_nan());
        if !same && fails.len() < 5 {
            fails.push(format!(
                "{f:?}{args:?}: emulator {:e} ({:#010x}) but the library computes {:e} ({:#010x})",
                got[i],
                got[i].to_bits(),
                native,
                native.to_bits()
            ));
        }
        let exact = if arity(f) == 2 {
            accuracy::reference2(f, f64::from(xs[i]), f64::from(ys[i]))
        } else {
            accuracy::reference(f, f64::from(xs[i]))
        };
        let s = accuracy::steps_from_rounded(got[i], exact);
        if s > steps {
            steps = s;
            worst = format!("{args:?} -> {:e}, exact {exact:e}", got[i]);
        }
        exact_ulp = exact_ulp.max(accuracy::ulp_error(got[i], exact));
    }
    let b = math::bound(f).unwrap_or_else(|| panic!("no bound for {f:?}"));
    if steps as f32 > b.ulp {
        fails.push(format!("{f:?}: {steps} ulp from the correctly rounded result at {worst}"));
    }
    let name = format!("`{}`", wgsl_name(f));
    (Row { name, inputs: n, bound: b.ulp, steps, exact_ulp, cuda: b.cuda }, fails)
}

/// The markdown table the docs hold.
fn table(rows: &[Row]) -> String {
    let mut t = String::from(
        "| function | inputs | bound (ulp) | measured (ulp) | measured vs exact (ulp) | CUDA (ulp) |\n\
         |---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {:.3} | {} |",
            r.name, r.inputs, r.bound, r.steps, r.exact_ulp, r.cuda
        );
    }
    t
}

const BEGIN: &str = "<!-- accuracy-table:begin (verify/tests/math_accuracy.rs) -->\n";
const END: &str = "<!-- accuracy-table:end -->";

/// Compares the table with `docs/math.md`, or rewrites it under `DIANRAN_BLESS=1`.
fn check_doc(table: &str) {
    check_doc_section(table, BEGIN, END);
}

/// Compares the text between `begin` and `end` in `docs/math.md` with `table`, or rewrites it
/// under `DIANRAN_BLESS=1`.
fn check_doc_section(table: &str, begin: &str, end: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/math.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (Some(a), Some(b)) = (doc.find(begin), doc.find(end)) else {
        panic!("docs/math.md lacks the markers {begin:?}");
    };
    let current = &doc[a + begin.len()..b];
    if current == table {
        return;
    }
    if std::env::var_os("DIANRAN_BLESS").is_some() {
        let new = format!("{}{begin}{table}{}", &doc[..a], &doc[b..]);
        std::fs::write(&path, new).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    panic!(
        "docs/math.md's table after {begin:?} is out of date (DIANRAN_BLESS=1 rewrites it):\n{table}"
    );
}

#[test]
fn precise_f32_math_on_the_emulator() {
    let ptxas = tools::require("ptxas", tools::ptxas()).is_some();
    let mut rng = common::Rng::new(0x4d41_5448);
    let mut rows = Vec::new();
    let mut fails = Vec::new();
    for f in math::FUNCTIONS {
        let (row, f) = f32_row(f, &mut rng, ptxas);
        rows.push(row);
        fails.extend(f);
    }
    // pow with a constant exponent of 1, 2, 3 or -1 is lowered to products or a quotient.
    let xs = pad(unary_inputs(M::Pow, &mut rng));
    for (k, ks) in [(2.0f32, "2.0"), (3.0, "3.0"), (-1.0, "-1.0")] {
        let src = kernel(M::Pow, "f32").replace("pow(a[i], b[i])", &format!("pow(a[i], {ks})"));
        let n = xs.len();
        let got = f32s(&run_kernel(&src, &f32_bytes(&xs), &f32_bytes(&xs), n * 4, n, ptxas));
        let (mut steps, mut exact_ulp) = (0u64, 0.0f64);
        for (x, g) in xs.iter().zip(&got) {
            let exact = f64::from(*x).powf(f64::from(k));
            steps = steps.max(accuracy::steps_from_rounded(*g, exact));
            exact_ulp = exact_ulp.max(accuracy::ulp_error(*g, exact));
        }
        if steps > 4 {
            fails.push(format!("pow(x, {ks}): {steps} ulp"));
        }
        let name = format!("`pow(x, {ks})`");
        rows.push(Row { name, inputs: n, bound: 4.0, steps, exact_ulp, cuda: 4.0 });
    }
    let t = table(&rows);
    println!("{t}");
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    check_doc(&t);
}

fn f16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn precise_f16_math_on_the_emulator() {
    let ptxas = tools::require("ptxas", tools::ptxas()).is_some();
    let mut rng = common::Rng::new(0x6631_3621);
    let mut fails = Vec::new();
    let mut report = String::new();
    for f in math::FUNCTIONS {
        let (xs, ys): (Vec<u16>, Vec<u16>) = if arity(f) == 2 {
            (0..65536).map(|_| (rng.next_u32() as u16, rng.next_u32() as u16)).unzip()
        } else {
            ((0..=u16::MAX).collect(), vec![0; 65536])
        };
        let n = xs.len();
        let out = run_kernel(&kernel(f, "f16"), &f16_bytes(&xs), &f16_bytes(&ys), n * 2, n, ptxas);
        let mut worst = (0u64, 0u16, 0u16);
        for i in 0..n {
            let got = u16::from_le_bytes([out[2 * i], out[2 * i + 1]]);
            let (x, y) =
                (half::f16::from_bits(xs[i]).to_f64(), half::f16::from_bits(ys[i]).to_f64());
            let exact = if arity(f) == 2 {
                accuracy::reference2(f, x, y)
            } else {
                accuracy::reference(f, x)
            };
            let cr = half::f16::from_f64(exact).to_bits();
            let s = accuracy::steps_f16(got, cr);
            if s > worst.0 {
                worst = (s, xs[i], ys[i]);
            }
        }
        let _ = writeln!(
            report,
            "{f:?}: {} f16 ulp (inputs {:#06x}, {:#06x})",
            worst.0, worst.1, worst.2
        );
        if worst.0 > 1 {
            fails.push(format!("{f:?}: {} f16 ulp at {:#06x}, {:#06x}", worst.0, worst.1, worst.2));
        }
    }
    println!("{report}");
    assert!(fails.is_empty(), "{}\n{report}", fails.join("\n"));
}

/// One exactly specified builtin: the WGSL expression over `a`, `b`, `c` (f32) and `n` (i32),
/// and its result computed independently.
struct Exact {
    name: &'static str,
    expr: &'static str,
    /// Whether the result is an `i32` (frexp's exponent) rather than an f32.
    int: bool,
    reference: fn(f32, f32, f32, i32) -> f64,
    /// Stated bound in f32 steps from the correctly rounded result.
    bound: u64,
}

/// frexp in f64 arithmetic: (fraction, exponent) with |fraction| in [0.5, 1).
fn frexp_ref(x: f32) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (f64::from(x), 0);
    }
    let mut e = 0;
    let mut f = f64::from(x);
    while f.abs() >= 1.0 {
        f /= 2.0;
        e += 1;
    }
    while f.abs() < 0.5 {
        f *= 2.0;
        e -= 1;
    }
    (f, e)
}

/// smoothstep by WGSL's formula with its two f32 subtractions (their rounding and overflow are
/// part of the definition), the rest exact.
fn smoothstep_ref(lo: f32, hi: f32, x: f32) -> f64 {
    // WGSL's clamp is min(max(t, 0), 1) with IEEE maxNum/minNum: a NaN t becomes 0.
    let q = f64::from(x - lo) / f64::from(hi - lo);
    let t = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
    t * t * (3.0 - 2.0 * t)
}

const EXACT: [Exact; 10] = [
    Exact {
        name: "sqrt",
        expr: "sqrt(a[i])",
        int: false,
        reference: |a, _, _, _| f64::from(a).sqrt(),
        bound: 0,
    },
    Exact {
        name: "a / b",
        expr: "a[i] / b[i]",
        int: false,
        reference: |a, b, _, _| f64::from(a) / f64::from(b),
        bound: 0,
    },
    Exact {
        name: "fma",
        expr: "fma(a[i], b[i], c[i])",
        int: false,
        reference: |a, b, c, _| f64::from(a.mul_add(b, c)),
        bound: 0,
    },
    Exact {
        name: "ldexp",
        expr: "ldexp(a[i], n[i])",
        int: false,
        reference: |a, _, _, n| f64::from(a) * 2f64.powi(n.clamp(-400, 400)),
        bound: 0,
    },
    Exact {
        name: "frexp (fract)",
        expr: "frexp(a[i]).fract",
        int: false,
        reference: |a, _, _, _| frexp_ref(a).0,
        bound: 0,
    },
    Exact {
        name: "frexp (exp)",
        expr: "frexp(a[i]).exp",
        int: true,
        reference: |a, _, _, _| f64::from(frexp_ref(a).1),
        bound: 0,
    },
    Exact {
        name: "modf (fract)",
        expr: "modf(a[i]).fract",
        int: false,
        reference: |a, _, _, _| {
            let f = if a.is_infinite() { 0.0 } else { f64::from(a) - f64::from(a).trunc() };
            f.copysign(f64::from(a))
        },
        bound: 0,
    },
    Exact {
        name: "modf (whole)",
        expr: "modf(a[i]).whole",
        int: false,
        reference: |a, _, _, _| f64::from(a).trunc(),
        bound: 0,
    },
    Exact {
        name: "step",
        expr: "step(a[i], b[i])",
        int: false,
        reference: |a, b, _, _| if b >= a { 1.0 } else { 0.0 },
        bound: 0,
    },
    Exact {
        name: "smoothstep",
        expr: "smoothstep(a[i], b[i], c[i])",
        int: false,
        reference: |a, b, c, _| smoothstep_ref(a, b, c),
        bound: 4,
    },
];

/// `out[i] = expr` with f32 inputs `a`, `b`, `c` and i32 input `n`.
fn exact_kernel(e: &Exact) -> String {
    let ty = if e.int { "i32" } else { "f32" };
    format!(
        "@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
@group(0) @binding(3) var<storage, read> n: array<i32>;
@group(0) @binding(4) var<storage, read_write> out: array<{ty}>;
@compute @workgroup_size(256) fn k(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    out[i] = {};
}}
",
        e.expr
    )
}

/// Compiles and runs a kernel whose parameters are `bufs` in binding order (the last one is
/// the output), returning the output.
fn run_bufs(src: &str, mut bufs: Vec<Vec<u8>>, n: usize, ptxas: bool) -> Vec<u8> {
    let m = dianran_frontend::compile("exact.wgsl", src, &unchecked())
        .unwrap_or_else(|d| panic!("{d}\n{src}"));
    let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    if ptxas {
        if let Err(e) = ptxas::check(&c.text, 80) {
            panic!("ptxas rejects the PTX of\n{src}\n{e}");
        }
    }
    let info = &c.entries[0];
    // Unused bindings are placeholders: keep the parameter list's shape.
    let mut params: Vec<Vec<u8>> = info
        .params
        .iter()
        .map(|p| {
            let b = dianran_ptx::abi::param_binding(p).map_or(usize::MAX, |(_, b)| b as usize);
            bufs.get_mut(b).map(std::mem::take).unwrap_or_default()
        })
        .collect();
    let grid = [(n / 256) as u32, 1, 1];
    let inputs = params.clone();
    emu::run(&c.text, &info.ptx_name, &mut params, grid, [256, 1, 1], &EmuOptions::default())
        .unwrap_or_else(|e| panic!("emulator: {e}\n{src}"));
    let out = params.pop().unwrap_or_default();
    on_device(&c.text, &info.ptx_name, &inputs, grid, &out, src);
    out
}

#[test]
fn exact_f32_builtins_on_the_emulator() {
    let ptxas = tools::require("ptxas", tools::ptxas()).is_some();
    let mut rng = common::Rng::new(0x4558_4143);
    // Random bit patterns (every exponent), specials, and ordinary magnitudes.
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    let mut nn = Vec::new();
    for i in 0..32768usize {
        let pick = |rng: &mut common::Rng| match i % 4 {
            0 | 1 => f32::from_bits(rng.next_u32()),
            2 => rng.f32_in(-8.0, 8.0),
            _ => SPECIALS[rng.below(SPECIALS.len() as u32) as usize],
        };
        a.push(pick(&mut rng));
        b.push(pick(&mut rng));
        c.push(pick(&mut rng));
        nn.push(match i % 3 {
            0 => rng.i32_in(-300, 300),
            1 => rng.i32_in(-30, 30),
            _ => rng.next_u32() as i32,
        });
    }
    let n = a.len();
    let mut t =
        String::from("| builtin | inputs | bound (ulp) | measured (ulp) |\n|---|---|---|---|\n");
    let mut fails = Vec::new();
    for e in &EXACT {
        let bufs = vec![
            f32_bytes(&a),
            f32_bytes(&b),
            f32_bytes(&c),
            nn.iter().flat_map(|v| v.to_le_bytes()).collect(),
            vec![0u8; 4 * n],
        ];
        let out = run_bufs(&exact_kernel(e), bufs, n, ptxas);
        let mut worst = (0u64, 0usize);
        for i in 0..n {
            let w =
                u32::from_le_bytes([out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]]);
            let want = (e.reference)(a[i], b[i], c[i], nn[i]);
            let s = if e.int {
                u64::from(w as i32 != want as i32)
            } else {
                // smoothstep of a degenerate edge pair (lo == hi, infinite edges) is NaN in
                // f64 and in f32 alike; other NaNs must match too.
                accuracy::steps_from_rounded(f32::from_bits(w), want)
            };
            if s > worst.0 {
                worst = (s, i);
            }
        }
        let _ = writeln!(t, "| `{}` | {n} | {} | {} |", e.expr, e.bound, worst.0);
        if worst.0 > e.bound {
            let i = worst.1;
            fails.push(format!(
                "{}: {} ulp at a={:e} b={:e} c={:e} n={}",
                e.name, worst.0, a[i], b[i], c[i], nn[i]
            ));
        }
    }
    println!("{t}");
    assert!(fails.is_empty(), "{}", fails.join("\n"));
    check_doc_section(&t, EXACT_BEGIN, EXACT_END);
}

const EXACT_BEGIN: &str = "<!-- exact-table:begin (verify/tests/math_accuracy.rs) -->\n";
const EXACT_END: &str = "<!-- exact-table:end -->";

/// Frontend options without the bounds policy: the hand-laid parameter lists hold the buffers only (no `p_sizes`); the bounds policy has its own tests.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
