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
        _ => f64::NAN,
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
    let (lo, hi) = match fun {
        M::Exp => (-750.0, 712.0),
        M::Exp2 => (-1080.0, 1030.0),
        _ => (0.25, 4.0),
    };
    let n = 200_000;
    for i in 0..=n {
        v.push(lo + (hi - lo) * f64::from(i) / f64::from(n));
    }
    // Neighbours of 1, where the logarithms are tiny.
    for i in 1..2000u64 {
        v.push(f64::from_bits(1.0f64.to_bits() + i));
        v.push(f64::from_bits(1.0f64.to_bits() - i));
    }
    v
}

#[test]
fn f64_functions_meet_their_bounds_on_a_sweep() {
    let mut report = String::new();
    let mut bad = Vec::new();
    for b in BOUNDS.iter().filter(|b| b.fun != M::Pow) {
        let mut worst = (0u64, 0.0f64);
        for x in inputs(b.fun, 0x0000_4000_0000_0001) {
            let got = eval(b.fun, &[x]).unwrap_or(f64::NAN);
            let s = steps(got, reference(b.fun, x));
            if s > worst.0 {
                worst = (s, x);
            }
        }
        report.push_str(&format!("{:?}: max {} steps at {:e}\n", b.fun, worst.0, worst.1));
        if worst.0 as f32 > b.ulp {
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

#[test]
fn pow_meets_its_bound_on_a_sweep() {
    let bound = BOUNDS.iter().find(|b| b.fun == M::Pow).map_or(0.0, |b| b.ulp);
    let mut worst = (0u64, 0.0f64, 0.0f64);
    for (x, y) in pow_pairs() {
        let got = eval(M::Pow, &[x, y]).unwrap_or(f64::NAN);
        let s = steps(got, x.powf(y));
        if s > worst.0 {
            worst = (s, x, y);
        }
    }
    eprintln!("Pow: max {} steps at ({:e}, {:e})", worst.0, worst.1, worst.2);
    assert!(worst.0 as f32 <= bound, "{} steps at ({:e}, {:e})", worst.0, worst.1, worst.2);
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
