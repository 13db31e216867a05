//! The precise f64 math library (`dianran_ptx::math::f64`) on the PTX emulator.
//!
//! For each f64 function a one-line kernel `out[i] = f(a[i])` is compiled to PTX, checked by
//! `ptxas`, and run on the emulator over tens of thousands of inputs (a sweep of bit patterns
//! of both signs, the special values, and dense samples of the range where each function is
//! finite and non-trivial). Every result must
//! * be bit-identical to the CPU evaluation of the same library
//!   ([`dianran_ptx::math::f64::eval`]), so the native sweep in `dianran-ptx` speaks for the
//!   PTX, and
//! * be within the bound of `dianran_ptx::math::f64::BOUNDS` in f64 steps from Rust's f64
//!   function (glibc's libm) — the expected values never come from the PTX path — plus
//!   glibc's own error where it is not correctly rounded, and
//! * agree with the interpreter (`verify`'s f64 agreement: 4 ulp or 1e-12).

mod common;

use dianran_frontend::ir::MathFunction as M;
use dianran_ptx::math::f64 as m64;
use dianran_verify::agree::f64s_agree;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::interp;
use dianran_verify::{ptxas, tools};

fn wgsl_name(f: M) -> &'static str {
    match f {
        M::Exp => "exp",
        M::Exp2 => "exp2",
        M::Log => "log",
        M::Log2 => "log2",
        M::InverseSqrt => "inverseSqrt",
        M::Pow => "pow",
        M::Sin => "sin",
        M::Cos => "cos",
        M::Tan => "tan",
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
        _ => "?",
    }
}

/// glibc's inverse hyperbolic functions (Rust's are plain formulas, not references).
#[allow(unsafe_code)]
mod libm {
    extern "C" {
        pub fn asinh(x: f64) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
    }
}

/// Rust's f64 function, or glibc's (the independent reference); `y` only for `pow` and
/// `atan2` (`atan2(x, y)` in WGSL's argument order: `x` is the ordinate).
fn reference(f: M, x: f64, y: f64) -> f64 {
    match f {
        M::Pow => x.powf(y),
        M::Exp => x.exp(),
        M::Exp2 => x.exp2(),
        M::Log => x.ln(),
        M::Log2 => x.log2(),
        M::InverseSqrt => 1.0 / x.sqrt(),
        M::Sin => x.sin(),
        M::Cos => x.cos(),
        M::Tan => x.tan(),
        M::Sinh => x.sinh(),
        M::Cosh => x.cosh(),
        M::Tanh => x.tanh(),
        M::Asin => x.asin(),
        M::Acos => x.acos(),
        M::Atan => x.atan(),
        M::Atan2 => x.atan2(y),
        // SAFETY: pure libm functions of one f64.
        M::Asinh => unsafe { libm::asinh(x) },
        M::Acosh => unsafe { libm::acosh(x) },
        M::Atanh => unsafe { libm::atanh(x) },
        _ => f64::NAN,
    }
}

/// glibc's own error beyond correct rounding for the hyperbolic functions and their inverses
/// (up to 2 ulp per its manual): the library within its bound of the exact value can be one
/// step further from glibc.
fn reference_error(f: M) -> f32 {
    match f {
        M::Sinh | M::Cosh | M::Tanh | M::Asinh | M::Acosh | M::Atanh => 1.0,
        _ => 0.0,
    }
}

/// Steps between two f64 values (0 when equal or both NaN; `u64::MAX` when one is NaN).
fn steps(got: f64, want: f64) -> u64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0 } else { u64::MAX };
    }
    let ord = |x: f64| {
        let b = x.to_bits();
        let m = i128::from(b & !(1 << 63));
        if b >> 63 == 1 {
            -m
        } else {
            m
        }
    };
    u64::try_from((ord(got) - ord(want)).unsigned_abs()).unwrap_or(u64::MAX)
}

fn inputs(f: M, rng: &mut common::Rng) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::MAX,
        -f64::MAX,
        709.782712893384,
        709.79,
        -745.1332191019411,
        -745.14,
        1024.0,
        -1074.0,
        -1075.0,
    ];
    // A sweep of bit patterns of both signs.
    for i in 0..8192u64 {
        v.push(f64::from_bits(i.wrapping_mul(0x0002_0000_0000_0001) ^ (i << 63)));
    }
    let (lo, hi) = match f {
        M::Exp => (-750.0, 712.0),
        M::Exp2 => (-1080.0, 1030.0),
        M::Sin | M::Cos | M::Tan | M::Atan | M::Atan2 => (-20.0, 20.0),
        M::Sinh | M::Cosh => (-712.0, 712.0),
        M::Tanh => (-3.0, 3.0),
        M::Asin | M::Acos | M::Atanh => (-1.0, 1.0),
        M::Asinh => (-8.0, 8.0),
        M::Acosh => (1.0, 9.0),
        _ => (0.0, 4.0),
    };
    for _ in 0..16384 {
        let u = f64::from(rng.next_u32()) / f64::from(u32::MAX);
        v.push(lo + (hi - lo) * u);
    }
    for i in 1..1000u64 {
        v.push(f64::from_bits(1.0f64.to_bits() + i));
        v.push(f64::from_bits(1.0f64.to_bits() - i));
    }
    while !v.len().is_multiple_of(256) {
        v.push(1.5);
    }
    v
}

fn bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The exponents paired with `xs` for `pow`: the specials against each other, integral and
/// half-integral exponents (negative bases among `xs`), large exponents for bases near 1, and
/// exponents that land near the overflow and underflow edges.
fn exponents(xs: &mut [f64], rng: &mut common::Rng) -> Vec<f64> {
    let specials =
        [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let mut ys = Vec::with_capacity(xs.len());
    for (i, x) in xs.iter_mut().enumerate() {
        let u = f64::from(rng.next_u32()) / f64::from(u32::MAX);
        let y = match i % 5 {
            0 if i / 5 < 100 => {
                *x = specials[(i / 5) % 10];
                specials[(i / 5) / 10]
            }
            0 => (f64::from(rng.below(200)) - 100.0) * 0.5,
            1 => {
                *x = -u * 10.0;
                f64::from(rng.below(200)) - 100.0
            }
            2 => {
                *x = 1.0 + (u - 0.5) * 1e-6;
                f64::from(rng.next_u32()) - 2e9
            }
            3 => {
                *x = u * 4.0 + 0.001;
                (u - 0.5) * 2000.0 / x.log2().abs().max(1e-3)
            }
            _ => (u - 0.5) * 8.0,
        };
        ys.push(y);
    }
    ys
}

/// The abscissas paired with the ordinates `ys` for `atan2`: the specials (zeros and
/// infinities of both signs, NaN) against each other, then random values of both signs and
/// magnitudes near the ordinate's.
fn abscissas(ys: &mut [f64], rng: &mut common::Rng) -> Vec<f64> {
    let specials = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    ys.iter_mut()
        .enumerate()
        .map(|(i, y)| {
            if i < 49 {
                *y = specials[i / 7];
                return specials[i % 7];
            }
            let y = *y;
            let u = f64::from(rng.next_u32()) / f64::from(u32::MAX);
            let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            match i % 3 {
                0 => s * y * (1.0 + (u - 0.5) * 1e-3),
                1 => s * (u * 40.0 - 20.0),
                _ => s * u * 1e-3,
            }
        })
        .collect()
}

/// Compiles `out[i] = f(a[i])` (`pow(a[i], b[i])`), checks it with ptxas when present, runs
/// it on the emulator and on the interpreter; returns both outputs.
fn run(f: M, xs: &[f64], ys: &[f64], ptxas: bool) -> (Vec<f64>, Vec<f64>) {
    let call = if matches!(f, M::Pow | M::Atan2) {
        format!("{}(a[g.x], b[g.x])", wgsl_name(f))
    } else {
        format!("{}(a[g.x])", wgsl_name(f))
    };
    let src = format!(
        "@group(0) @binding(0) var<storage, read> a: array<f64>;
@group(0) @binding(1) var<storage, read> b: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<f64>;
@compute @workgroup_size(256) fn k(@builtin(global_invocation_id) g: vec3<u32>) {{
    out[g.x] = {call};
}}
"
    );
    let m = dianran_frontend::compile("math64.wgsl", &src, &unchecked())
        .unwrap_or_else(|d| panic!("{d}\n{src}"));
    let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    if ptxas {
        if let Err(e) = ptxas::check(&c.text, 80) {
            panic!("ptxas rejects the PTX of\n{src}\n{e}");
        }
    }
    let info = &c.entries[0];
    let mut params: Vec<Vec<u8>> = info
        .params
        .iter()
        .map(|p| match p.as_str() {
            "p_g0_b0" => bytes(xs),
            "p_g0_b1" => bytes(ys),
            _ => vec![0u8; xs.len() * 8],
        })
        .collect();
    let grid = [(xs.len() / 256) as u32, 1, 1];
    emu::run(&c.text, &info.ptx_name, &mut params, grid, [256, 1, 1], &EmuOptions::default())
        .unwrap_or_else(|e| panic!("emulator: {e}\n{src}"));
    let out = params.pop().unwrap_or_default();
    let mut bufs = interp::Buffers::new();
    bufs.insert((0, 0), bytes(xs));
    bufs.insert((0, 1), bytes(ys));
    bufs.insert((0, 2), vec![0u8; xs.len() * 8]);
    let grid = [(xs.len() / 256) as u32, 1, 1];
    interp::run(&m, "k", grid, &mut bufs, &interp::InterpOptions::default())
        .unwrap_or_else(|e| panic!("interpreter: {e:?}\n{src}"));
    let words = |b: &[u8]| -> Vec<f64> {
        b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect()
    };
    (words(&out), words(bufs.get(&(0, 2)).map_or(&[][..], |v| v)))
}

#[test]
fn precise_f64_math_on_the_emulator() {
    let ptxas = tools::require("ptxas", tools::ptxas()).is_some();
    let mut rng = common::Rng::new(0x6d61_7436);
    let mut fails = Vec::new();
    for b in m64::BOUNDS {
        let f = b.fun;
        let mut xs = inputs(f, &mut rng);
        let ys = match f {
            M::Pow => exponents(&mut xs, &mut rng),
            M::Atan2 => abscissas(&mut xs, &mut rng),
            _ => xs.clone(),
        };
        let (got, interpreted) = run(f, &xs, &ys, ptxas);
        let mut worst = (0u64, 0.0f64);
        for (((&x, &y), &g), &i) in xs.iter().zip(&ys).zip(&got).zip(&interpreted) {
            let args: &[f64] = if matches!(f, M::Pow | M::Atan2) { &[x, y] } else { &[x] };
            let native = m64::eval(f, args).unwrap_or(0.0);
            if g.to_bits() != native.to_bits() && !(g.is_nan() && native.is_nan()) {
                fails.push(format!("{f:?}({x:e}): PTX {g:e} but the library gives {native:e}"));
            }
            // `verify`'s agreement between the interpreter and the PTX.
            if !f64s_agree(i, g) {
                fails.push(format!("{f:?}({x:e}, {y:e}): PTX {g:e} but the interpreter {i:e}"));
            }
            let s = steps(g, reference(f, x, y));
            if s > worst.0 {
                worst = (s, x);
            }
        }
        println!("{f:?}: {} inputs, max {} steps at {:e}", xs.len(), worst.0, worst.1);
        if worst.0 as f32 > b.ulp + reference_error(f) {
            fails.push(format!("{f:?}: {} steps at {:e}, bound {}", worst.0, worst.1, b.ulp));
        }
    }
    fails.truncate(20);
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// Frontend options without the bounds policy: the hand-laid parameter lists hold the buffers only (no `p_sizes`); the bounds policy has its own tests.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
