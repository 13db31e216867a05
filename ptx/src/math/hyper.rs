//! Hyperbolic functions and their inverses.

use super::coeffs::{LN2_HI, SINH, TANH};
use super::explog::{exp_scaled, half_exp_twice, log, log1p};
use super::ops::{Cmp, Ops};
use super::{keep_nan_cap, odd_poly, quotient, quotient_with, recip, sqrt};

/// `1/(4h)` for `h = e^|x| / 2` in [1/2, inf]: `h` is capped at 2^100 first (beyond it the
/// term is far below half an ulp of `h`, and `h` may be infinite), which keeps the
/// reciprocal in its range; the scaling by 1/4 is exact.
fn quarter_over<O: Ops>(o: &mut O, h: O::F) -> O::F {
    let hc = keep_nan_cap(o, h, f32::from_bits(0x7180_0000)); // 2^100
    let r = recip(o, hc);
    let q = o.cf(0.25);
    o.mul(r, q)
}

/// `sinh`: an odd polynomial below 1 (no cancellation near 0), `h - 1/(4h)` with
/// `h = e^|x| / 2` (scaled exactly, so it overflows exactly where sinh does) above.
pub(crate) fn sinh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let p = odd_poly(o, ax, &SINH);
    let h = exp_scaled(o, ax, -1);
    let inv = quarter_over(o, h);
    let big = o.sub(h, inv);
    let one = o.cf(1.0);
    let small = o.fcmp(Cmp::Lt, ax, one);
    let r = o.fsel(small, p, big);
    o.copysign(r, x)
}

/// `cosh = h + 1/(4h)` with `h = e^|x| / 2`.
pub(crate) fn cosh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let h = exp_scaled(o, ax, -1);
    let inv = quarter_over(o, h);
    o.add(h, inv)
}

/// Where `tanh` switches from its polynomial to `1 - 2 / (e^(2|x|) + 1)` (the polynomial's
/// interval in `tools/minimax.py`). From here on the quotient form loses at most one bit to
/// cancellation (`tanh(0.6) = 0.54`), and the error of `e^(2|x|)` reaches the result scaled
/// by `2e / (e^2 - 1)`, at most 0.66.
const TANH_POLY_END: f32 = 0.6;

/// `tanh`: an odd polynomial below [`TANH_POLY_END`], `1 - 2 / (e^(2|x|) + 1)` above, with
/// `|x|` capped at 16 (tanh is 1.0 in f32 from 9.1 on; the cap keeps `e^(2|x|) + 1` below
/// 2^47, in the reciprocal's range). A NaN takes the polynomial, which keeps it.
pub(crate) fn tanh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let p = odd_poly(o, ax, &TANH);
    let ac = keep_nan_cap(o, ax, 16.0);
    // Everything halved by exact powers of two: d = (e^(2|x|) + 1) / 2, r = 2 / (e^(2|x|) + 1),
    // the same roundings as computing e^(2|x|) + 1 and its reciprocal, without the doubling
    // or a constant 2 for 1 - 2r.
    let h = half_exp_twice(o, ac);
    let half = o.cf(0.5);
    let d = o.add(h, half);
    let r = recip(o, d);
    let one = o.cf(1.0);
    let big = o.sub(one, r);
    let lim = o.cf(TANH_POLY_END);
    let large = o.fcmp(Cmp::Ge, ax, lim);
    let r = o.fsel(large, big, p);
    o.copysign(r, x)
}

/// Above this magnitude `asinh(x) = log(2|x|)` and `acosh(x) = log(2x)` to f32 precision.
const LOG_ONLY: f32 = 4096.0;

/// `log(|x|) + ln 2` for the large-argument branches.
fn log_twice<O: Ops>(o: &mut O, ax: O::F) -> O::F {
    let l = log(o, ax);
    let k = o.cf(LN2_HI);
    o.add(l, k)
}

/// `asinh(x) = log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))` (no cancellation near 0), with the
/// sign of x; `log(2|x|)` for large |x| (where the quotient, out of its range, is not
/// used).
pub(crate) fn asinh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let one = o.cf(1.0);
    let sq = o.mul(ax, ax);
    let t = o.add(sq, one);
    // In [1, 2^24] where the result is used (infinite beyond, in lanes `big` replaces).
    let t = sqrt(o, t);
    let t = o.add(t, one);
    let t = quotient(o, sq, t);
    let u = o.add(ax, t);
    let r = log1p(o, u);
    let big = log_twice(o, ax);
    let lim = o.cf(LOG_ONLY);
    let large = o.fcmp(Cmp::Gt, ax, lim);
    let r = o.fsel(large, big, r);
    o.copysign(r, x)
}

/// `acosh(x) = log1p(t + sqrt(t (t + 2)))` with `t = x - 1` (exact for x in [1, 2^24]);
/// `log(2x)` for large x; NaN below 1.
pub(crate) fn acosh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let one = o.cf(1.0);
    let t = o.sub(x, one);
    let t2 = o.add(t, t);
    let w = o.fma(t, t, t2);
    // w is 0 at x = 1 (the refined root's one value out of range: selected) and at least
    // 2^-22 above.
    let root = sqrt(o, w);
    let zero = o.cf(0.0);
    let at_one = o.fcmp(Cmp::Eq, w, zero);
    let w = o.fsel(at_one, zero, root);
    let u = o.add(t, w);
    let r = log1p(o, u);
    let big = log_twice(o, x);
    let lim = o.cf(LOG_ONLY);
    let large = o.fcmp(Cmp::Gt, x, lim);
    let r = o.fsel(large, big, r);
    let ok = o.fcmp(Cmp::Ge, x, one);
    let nan = o.cf(f32::NAN);
    o.fsel(ok, r, nan)
}

/// `atanh(x) = log1p(2|x| / (1 - |x|)) / 2` with the sign of x; below 1/2 the argument is
/// formed as `2|x| + 2|x| |x| / (1 - |x|)` (fdlibm), whose rounding is smaller. `1 - |x|` is
/// at least 2^-24 below 1; `|x| = 1` gives infinity and `|x| > 1` NaN by selection.
pub(crate) fn atanh<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let one = o.cf(1.0);
    let d = o.sub(one, ax);
    let t = o.add(ax, ax);
    let y = recip(o, d);
    let big = quotient_with(o, t, d, y);
    let q = quotient_with(o, ax, d, y);
    let small = o.fma(t, q, t);
    let h = o.cf(0.5);
    let lim = o.fcmp(Cmp::Lt, ax, h);
    let u = o.fsel(lim, small, big);
    let r = log1p(o, u);
    let r = o.mul(r, h);
    let inf = o.cf(f32::INFINITY);
    let pole = o.fcmp(Cmp::Eq, ax, one);
    let r = o.fsel(pole, inf, r);
    let nan = o.cf(f32::NAN);
    let out = o.fcmp(Cmp::Gt, ax, one);
    let r = o.fsel(out, nan, r);
    o.copysign(r, x)
}
