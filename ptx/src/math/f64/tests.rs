//! The f64 library against Rust's f64 functions (glibc's libm, correctly rounded in nearly all
//! cases) over a sweep of the f64 range and the special values, counted in f64 steps.

use super::*;

/// Position of an f64 on the number line in steps (consecutive floats differ by 1, `±0` 0).
fn ordinal(x: f64) -> i128 {
    let b = x.to_bits();
    let mag = i128::from(b & !(1u64 << 63));
    if b >> 63 == 1 {
        -mag
    } else {
        mag
    }
}

/// Steps from `got` to `want`: 0 when equal or both NaN, `u64::MAX` when only one is NaN.
pub(crate) fn steps(got: f64, want: f64) -> u64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0 } else { u64::MAX };
    }
    u64::try_from((ordinal(got) - ordinal(want)).unsigned_abs()).unwrap_or(u64::MAX)
}

/// Rust's f64 function for `fun`.
pub(crate) fn reference(fun: M, x: f64) -> f64 {
    match fun {
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
        M::Asinh => libm::asinh(x),
        M::Acosh => libm::acosh(x),
        M::Atanh => libm::atanh(x),
        _ => f64::NAN,
    }
}

/// glibc's inverse hyperbolic functions: Rust's `asinh`, `acosh` and `atanh` are plain
/// formulas (infinite above 1e154, a quarter off near +-1 for `atanh`), not references.
pub(crate) mod libm {
    #[allow(unsafe_code)]
    mod c {
        extern "C" {
            pub(super) fn asinh(x: f64) -> f64;
            pub(super) fn acosh(x: f64) -> f64;
            pub(super) fn atanh(x: f64) -> f64;
        }
    }
    /// glibc's `asinh`.
    pub(crate) fn asinh(x: f64) -> f64 {
        // SAFETY: a pure libm function of one f64.
        unsafe { c::asinh(x) }
    }
    /// glibc's `acosh`.
    pub(crate) fn acosh(x: f64) -> f64 {
        // SAFETY: a pure libm function of one f64.
        unsafe { c::acosh(x) }
    }
    /// glibc's `atanh`.
    pub(crate) fn atanh(x: f64) -> f64 {
        // SAFETY: a pure libm function of one f64.
        unsafe { c::atanh(x) }
    }
}

/// The reference's own error in ulps beyond correct rounding: glibc's hyperbolic functions
/// and their inverses are not correctly rounded (up to 2 ulp per its manual), so a result
/// within the bound of the exact value can be one step further from glibc's. (At the worst
/// points of the sweep, arbitrary-precision values confirm the library's result is within
/// 1 ulp and glibc's is the one off.)
pub(crate) fn reference_error(fun: M) -> f32 {
    match fun {
        M::Sinh | M::Cosh | M::Tanh | M::Asinh | M::Acosh | M::Atanh => 1.0,
        _ => 0.0,
    }
}

/// Every `stride`-th bit pattern of the f64 range, the special values, and a dense sample of
/// the interesting range of each function (around 1 for the logarithms, [-750, 1030] for the
/// exponentials).
fn inputs(fun: M, stride: u64) -> Vec<f64> {
    let mut v = Vec::new();
    let mut b: u64 = 0;
    while let Some(n) = b.checked_add(stride) {
        v.push(f64::from_bits(b));
        b = n;
    }
    v.extend([
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
        -708.4,
        1024.0,
        1023.999,
        -1074.0,
        -1075.0,
        -1022.5,
    ]);
    let (lo, hi) = dense_range(fun);
    let n = 200_000;
    for i in 0..=n {
        v.push(lo + (hi - lo) * f64::from(i) / f64::from(n));
    }
    v.extend(edges(fun));
    // Neighbours of 1, where the logarithms are tiny.
    for i in 1..2000u64 {
        v.push(f64::from_bits(1.0f64.to_bits() + i));
        v.push(f64::from_bits(1.0f64.to_bits() - i));
    }
    v
}

/// The range where `fun` is finite and not trivially rounded to a constant.
pub(crate) fn dense_range(fun: M) -> (f64, f64) {
    match fun {
        M::Exp => (-750.0, 712.0),
        M::Exp2 => (-1080.0, 1030.0),
        M::Sin | M::Cos | M::Tan | M::Atan => (-20.0, 20.0),
        M::Sinh | M::Cosh => (-712.0, 712.0),
        M::Tanh => (-3.0, 3.0),
        M::Asin | M::Acos | M::Atanh => (-1.0, 1.0),
        M::Asinh => (-8.0, 8.0),
        M::Acosh => (1.0, 9.0),
        _ => (0.25, 4.0),
    }
}

/// The hard spots of `fun`: for `sin`, `cos` and `tan` the f64 values nearest to multiples
/// of pi/2 (where the reduced argument cancels most) and the Payne-Hanek range; for the others their
/// neighbourhoods of 0, of +-1 and of the points where the algorithms switch.
pub(crate) fn edges(fun: M) -> Vec<f64> {
    let mut v = Vec::new();
    let mut near = |c: f64, n: u64| {
        for i in 0..n {
            for s in [1.0, -1.0] {
                v.push(s * f64::from_bits(c.to_bits().wrapping_add(i)));
                v.push(s * f64::from_bits(c.to_bits().wrapping_sub(i)));
            }
        }
    };
    match fun {
        M::Sin | M::Cos | M::Tan => {
            let mut k = 1.0f64;
            while k < 7e11 {
                near(k * std::f64::consts::FRAC_PI_2, 3);
                k = (k * 1.37).ceil();
            }
            // Worst cases of the reduction below 2^40 (the closest f64 to a multiple of pi/2
            // among these mantissas, found by continued fractions of pi/2).
            for x in [6_381_956_970_095_103.0 * 2f64.powi(-16), 7.6e11, 1e9, 2e5, 1e6] {
                near(x, 20);
            }
            near(std::f64::consts::FRAC_PI_4, 20);
            near(1e-8, 20);
            // Payne-Hanek: around its threshold, its i0 steps and the largest exponents
            // (the f64 closest to a multiple of pi/2 is in `special_values`: glibc is off
            // there).
            for e in [40, 41, 52, 53, 77, 78, 101, 102, 500, 1000, 1023] {
                near(2f64.powi(e), 20);
                near(1.7 * 2f64.powi(e), 20);
            }
            near(f64::MAX, 20);
        }
        M::Sinh | M::Cosh | M::Tanh => {
            for c in [1.0, 0.3466, 0.1733, 1e-8, 709.78, 710.47, 19.0, 20.0, 40.0] {
                near(c, 200);
            }
        }
        M::Asin | M::Acos | M::Atanh => {
            for c in [1.0, 0.5, 1e-8, 0.0625, 0.9999] {
                near(c, 2000);
            }
        }
        M::Atan => {
            for c in [1.0, 0.0625, 0.1875, 8.0, 16.0, 1e-8, 1e8] {
                near(c, 200);
            }
        }
        M::Asinh | M::Acosh => {
            for c in [1.0, 2.0, 1e-8, 268_435_456.0, 1e154, 1e300] {
                near(c, 2000);
            }
        }
        _ => {}
    }
    v
}

#[test]
fn f64_functions_meet_their_bounds_on_a_sweep() {
    let mut report = String::new();
    let mut bad = Vec::new();
    for b in BOUNDS.iter().filter(|b| !matches!(b.fun, M::Pow | M::Atan2)) {
        let mut worst = (0u64, 0.0f64, 0.0f64, 0.0f64);
        for x in inputs(b.fun, 0x0000_4000_0000_0001) {
            let got = eval(b.fun, &[x]).unwrap_or(f64::NAN);
            let want = reference(b.fun, x);
            let s = steps(got, want);
            if s > worst.0 {
                worst = (s, x, got, want);
            }
        }
        report.push_str(&format!(
            "{:?}: max {} steps at {:e} ({:e}, reference {:e})\n",
            b.fun, worst.0, worst.1, worst.2, worst.3
        ));
        if worst.0 as f32 > b.ulp + reference_error(b.fun) {
            bad.push(b.fun);
        }
    }
    eprintln!("{report}");
    assert!(bad.is_empty(), "over their bounds: {bad:?}\n{report}");
}

#[test]
fn special_values() {
    let e = |f, x| eval(f, &[x]).unwrap_or(0.0);
    assert_eq!(e(M::Exp, f64::INFINITY), f64::INFINITY);
    assert_eq!(e(M::Exp, f64::NEG_INFINITY), 0.0);
    assert_eq!(e(M::Exp, 0.0), 1.0);
    assert!(e(M::Exp, f64::NAN).is_nan());
    assert_eq!(e(M::Exp2, 1023.0), 2f64.powi(1023));
    assert_eq!(e(M::Exp2, -1074.0), f64::from_bits(1));
    assert_eq!(e(M::Exp2, 1024.0), f64::INFINITY);
    assert_eq!(e(M::Log, 0.0), f64::NEG_INFINITY);
    assert_eq!(e(M::Log, -0.0), f64::NEG_INFINITY);
    assert!(e(M::Log, -1.0).is_nan());
    assert!(e(M::Log2, f64::NEG_INFINITY).is_nan());
    assert_eq!(e(M::Log2, f64::INFINITY), f64::INFINITY);
    assert_eq!(e(M::Log, 1.0).to_bits(), 0);
    assert_eq!(e(M::Log2, 8.0), 3.0);
    assert_eq!(e(M::Log2, f64::from_bits(1)), -1074.0);
    assert_eq!(e(M::InverseSqrt, 0.25), 2.0);
    assert_eq!(e(M::InverseSqrt, -0.0), f64::NEG_INFINITY);
    assert_eq!(e(M::InverseSqrt, f64::INFINITY), 0.0);
    assert!(e(M::InverseSqrt, -4.0).is_nan());
}

/// The error of `y ~ 1/sqrt(x)` (positive finite `x`) in ulps of `y` at the exact value, from
/// the residual `1 - x y^2` computed in double-f64 (`y = (1 - d)/sqrt(x)` gives a residual of
/// about `2d`), so the reference does not share the library's `1/sqrt` roundings.
fn rsqrt_ulps(x: f64, y: f64) -> f64 {
    let ph = x * y;
    let pl = x.mul_add(y, -ph);
    let qh = ph * y;
    let ql = ph.mul_add(y, -qh) + pl * y;
    let d = ((1.0 - qh) - ql) / 2.0;
    let ulp = 2f64.powi(y.abs().log2().floor() as i32 - 52);
    (d * y).abs() / ulp
}

#[test]
fn inverse_sqrt_is_within_its_bound_of_the_exact_value() {
    let bound = BOUNDS.iter().find(|b| b.fun == M::InverseSqrt).map_or(0.0, |b| b.ulp);
    let mut worst = (0.0f64, 0.0f64);
    let mut b = 1u64;
    while b < 0x7FF0_0000_0000_0000 {
        let x = f64::from_bits(b);
        let e = rsqrt_ulps(x, eval(M::InverseSqrt, &[x]).unwrap_or(f64::NAN));
        if e > worst.0 {
            worst = (e, x);
        }
        b += 0x0000_0100_0000_0001;
    }
    // The residual measure itself: the correctly rounded 1/sqrt(4) is exact.
    assert!(rsqrt_ulps(4.0, 0.5) < 1e-9);
    assert!((rsqrt_ulps(4.0, 0.5 + 2f64.powi(-53)) - 1.0).abs() < 1e-6);
    eprintln!("InverseSqrt: max {:.3} ulp at {:e}", worst.0, worst.1);
    assert!(worst.0 <= f64::from(bound), "{} ulp at {:e}", worst.0, worst.1);
}

/// Pairs for `pow`: a grid of bit patterns, the special values against each other and the
/// grid, negative bases with integral and half-integral exponents, bases near 1 with large
/// exponents, and results near the overflow and underflow edges.
pub(crate) fn pow_pairs() -> Vec<(f64, f64)> {
    let mut axis = Vec::new();
    let mut b = 0u64;
    while let Some(n) = b.checked_add(0x0040_0000_0000_0001) {
        axis.push(f64::from_bits(b));
        b = n;
    }
    let mut v = Vec::new();
    for &x in &axis {
        for &y in &axis {
            v.push((x, y));
        }
    }
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::MAX,
        -f64::MAX,
        1.5,
        1e300,
    ];
    for &x in &specials {
        for &y in specials.iter().chain(&axis) {
            v.push((x, y));
            v.push((y, x));
        }
    }
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in 0..200_000 {
        let r = next();
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let (x, y) = match i % 5 {
            0 => (-(u * 100.0), ((r >> 20) % 200) as f64 - 100.0),
            1 => (-(u * 10.0), (((r >> 20) % 200) as f64 - 100.0) * 0.5),
            2 => (1.0 + (u - 0.5) * 1e-6, ((r >> 7) % 2_000_000_000) as f64 - 1e9),
            3 => (u * 4.0, (u - 0.5) * 2000.0 / (u * 4.0).log2().max(1e-3)),
            _ => (f64::from_bits(r & !(1 << 63)), (u - 0.5) * 8.0),
        };
        v.push((x, y));
    }
    v
}

/// The binary function `fun` stays within its [`BOUNDS`] entry of glibc's (`reference`) on
/// the argument pairs `pairs`.
fn binary_sweep(fun: M, pairs: Vec<(f64, f64)>, reference: fn(f64, f64) -> f64) {
    let bound = BOUNDS.iter().find(|b| b.fun == fun).map_or(0.0, |b| b.ulp);
    let mut worst = (0u64, 0.0f64, 0.0f64);
    for (a, b) in pairs {
        let got = eval(fun, &[a, b]).unwrap_or(f64::NAN);
        let s = steps(got, reference(a, b));
        if s > worst.0 {
            worst = (s, a, b);
        }
    }
    eprintln!("{fun:?}: max {} steps at ({:e}, {:e})", worst.0, worst.1, worst.2);
    assert!(worst.0 as f32 <= bound, "{} steps at ({:e}, {:e})", worst.0, worst.1, worst.2);
}

#[test]
fn pow_meets_its_bound_on_a_sweep() {
    binary_sweep(M::Pow, pow_pairs(), f64::powf);
}

#[test]
fn pow_special_values() {
    let p = |x: f64, y: f64| eval(M::Pow, &[x, y]).unwrap_or(0.0);
    assert_eq!(p(f64::NAN, 0.0), 1.0);
    assert_eq!(p(1.0, f64::NAN), 1.0);
    assert!(p(f64::NAN, 1.0).is_nan());
    assert_eq!(p(-1.0, f64::INFINITY), 1.0);
    assert_eq!(p(-2.0, 3.0), -8.0);
    assert_eq!(p(-2.0, -2.0), 0.25);
    assert!(p(-2.0, 0.5).is_nan());
    assert_eq!(p(f64::NEG_INFINITY, 0.5), f64::INFINITY);
    assert_eq!(p(f64::NEG_INFINITY, 3.0), f64::NEG_INFINITY);
    assert_eq!(p(-0.0, 3.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(p(-0.0, -3.0), f64::NEG_INFINITY);
    assert_eq!(p(0.0, -0.5), f64::INFINITY);
    assert_eq!(p(0.5, f64::INFINITY), 0.0);
    assert_eq!(p(2.0, f64::NEG_INFINITY), 0.0);
    assert_eq!(p(2.0, 1024.0), f64::INFINITY);
    assert_eq!(p(2.0, -1074.0), f64::from_bits(1));
    assert_eq!(p(10.0, 2.0), 100.0);
}

/// Pairs for `atan2`: a grid of bit patterns of both signs against each other, the special
/// values (zeros and infinities of both signs, NaN) against each other and the grid, and
/// random points of all four quadrants with ratios near 1 and near the table's breakpoints.
pub(crate) fn atan2_pairs() -> Vec<(f64, f64)> {
    let mut axis = Vec::new();
    let mut b = 0u64;
    while let Some(n) = b.checked_add(0x0080_0000_0000_0001) {
        axis.push(f64::from_bits(b));
        axis.push(-f64::from_bits(b));
        b = n;
    }
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        -f64::from_bits(1),
        f64::MAX,
        3e-320,
    ];
    let mut v = Vec::new();
    for &y in &axis {
        for &x in &axis {
            v.push((y, x));
        }
    }
    for &a in &specials {
        for &b in specials.iter().chain(&axis) {
            v.push((a, b));
            v.push((b, a));
        }
    }
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in 0..200_000 {
        let r = next();
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let sy = if r & 1 == 0 { 1.0 } else { -1.0 };
        let sx = if r & 2 == 0 { 1.0 } else { -1.0 };
        let x = 1.0 + u * 100.0;
        let ratio = match i % 3 {
            0 => 1.0 + (u - 0.5) * 1e-3,
            1 => (((r >> 20) % 9) as f64 / 8.0) + (u - 0.5) / 16.0,
            _ => u * 20.0,
        };
        v.push((sy * x * ratio, sx * x));
    }
    v
}

#[test]
fn atan2_meets_its_bound_on_a_sweep() {
    binary_sweep(M::Atan2, atan2_pairs(), f64::atan2);
}

/// Bit-exact special values of the trigonometric, hyperbolic and inverse functions (C99
/// Annex F), zeros' signs included.
#[test]
fn trig_hyper_inverse_special_values() {
    let e = |f, x: f64| eval(f, &[x]).unwrap_or(0.0).to_bits();
    let a2 = |y: f64, x: f64| eval(M::Atan2, &[y, x]).unwrap_or(0.0).to_bits();
    let b = f64::to_bits;
    let inf = f64::INFINITY;
    let pi = std::f64::consts::PI;
    let pio2 = std::f64::consts::FRAC_PI_2;
    let pio4 = std::f64::consts::FRAC_PI_4;
    for f in [M::Sin, M::Tan, M::Sinh, M::Tanh, M::Asin, M::Atan, M::Asinh, M::Atanh] {
        assert_eq!(e(f, 0.0), b(0.0), "{f:?}(0)");
        assert_eq!(e(f, -0.0), b(-0.0), "{f:?}(-0)");
        assert_eq!(e(f, 1e-300), b(1e-300), "{f:?}(1e-300)");
        assert_eq!(e(f, -f64::from_bits(1)), b(-f64::from_bits(1)), "{f:?}(-min subnormal)");
    }
    for f in FUNCTIONS.iter().filter(|f| !matches!(f, M::Pow | M::Atan2)) {
        assert!(f64::from_bits(e(*f, f64::NAN)).is_nan(), "{f:?}(NaN)");
    }
    for x in [inf, -inf] {
        for f in [M::Sin, M::Cos, M::Tan] {
            assert!(f64::from_bits(e(f, x)).is_nan(), "{f:?}({x})");
        }
    }
    assert_eq!(e(M::Cos, 0.0), b(1.0));
    assert_eq!(e(M::Cos, -0.0), b(1.0));
    assert_eq!(e(M::Cosh, 0.0), b(1.0));
    assert_eq!(e(M::Cosh, -inf), b(inf));
    assert_eq!(e(M::Sinh, -inf), b(-inf));
    assert_eq!(e(M::Sinh, 711.0), b(inf));
    assert_eq!(e(M::Tanh, inf), b(1.0));
    assert_eq!(e(M::Tanh, -inf), b(-1.0));
    assert_eq!(e(M::Asin, 1.0), b(pio2));
    assert_eq!(e(M::Asin, -1.0), b(-pio2));
    assert!(f64::from_bits(e(M::Asin, 1.0000000000000002)).is_nan());
    assert_eq!(e(M::Acos, 1.0), b(0.0));
    assert_eq!(e(M::Acos, -1.0), b(pi));
    assert_eq!(e(M::Acos, 0.0), b(pio2));
    assert!(f64::from_bits(e(M::Acos, -inf)).is_nan());
    assert_eq!(e(M::Atan, inf), b(pio2));
    assert_eq!(e(M::Atan, -inf), b(-pio2));
    assert_eq!(e(M::Atan, 1.0), b(pio4));
    assert_eq!(e(M::Asinh, -inf), b(-inf));
    // asinh(MAX) = log(2 MAX) correctly rounded (mpmath).
    assert_eq!(e(M::Asinh, f64::MAX), b(710.475860073944));
    assert_eq!(e(M::Acosh, 1.0), b(0.0));
    assert_eq!(e(M::Acosh, inf), b(inf));
    assert!(f64::from_bits(e(M::Acosh, 0.5)).is_nan());
    assert_eq!(e(M::Atanh, 1.0), b(inf));
    assert_eq!(e(M::Atanh, -1.0), b(-inf));
    assert!(f64::from_bits(e(M::Atanh, 1.5)).is_nan());
    // atan2: zeros and infinities by sign.
    assert_eq!(a2(0.0, 0.0), b(0.0));
    assert_eq!(a2(-0.0, 0.0), b(-0.0));
    assert_eq!(a2(0.0, -0.0), b(pi));
    assert_eq!(a2(-0.0, -0.0), b(-pi));
    assert_eq!(a2(0.0, -1.0), b(pi));
    assert_eq!(a2(-0.0, -1.0), b(-pi));
    assert_eq!(a2(1.0, 0.0), b(pio2));
    assert_eq!(a2(-1.0, -0.0), b(-pio2));
    assert_eq!(a2(inf, inf), b(pio4));
    assert_eq!(a2(-inf, -inf), b(-3.0 * pio4));
    assert_eq!(a2(inf, 1.0), b(pio2));
    assert_eq!(a2(1.0, -inf), b(pi));
    assert_eq!(a2(-1.0, inf), b(-0.0));
    assert!(f64::from_bits(a2(f64::NAN, 1.0)).is_nan());
    assert!(f64::from_bits(a2(1.0, f64::NAN)).is_nan());
    assert_eq!(a2(3e-320, 3e-320), b(pio4));
    // Payne-Hanek (values from glibc's sin, cos, tan, which are correctly rounded here).
    assert_eq!(e(M::Sin, 1e300), b(1e300f64.sin()));
    assert_eq!(e(M::Cos, -f64::MAX), b(f64::MAX.cos()));
    assert_eq!(e(M::Tan, -1e22), b((-1e22f64).tan()));
    // The f64 closest to a multiple of pi/2, |r| ~ 2^-61: correctly rounded values from
    // mpmath at 3000 bits (glibc's cos is 8 steps off here).
    let worst = 6_381_956_970_095_103.0 * 2f64.powi(797);
    assert_eq!(e(M::Sin, worst), 0x3FF0_0000_0000_0000);
    assert_eq!(e(M::Cos, worst), 0xBC21_4AE7_2E6B_A22F);
    assert_eq!(e(M::Tan, worst), 0xC3BD_9BA9_A797_5636);
    assert_eq!(e(M::Cos, -worst), 0xBC21_4AE7_2E6B_A22F);
}
