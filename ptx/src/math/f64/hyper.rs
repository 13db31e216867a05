//! `sinh`, `cosh` and `tanh` on f64, from `e^x` as a double-f64.
//!
//! `e^x = 2^j (h + l)` comes from exp's Cody-Waite reduction and Taylor polynomial, with the
//! polynomial's sum kept as a double-f64 (about 2^-57 relative). Then, for `a = |x|`:
//! * `cosh a = H + 1/(4H)` with `H = e^a / 2`;
//! * `sinh a = H - 1/(4H)` for `a >= 1`, and its Taylor series below (no cancellation);
//! * `tanh a = -m / (m + 2)` with `m = e^(-2a) - 1` as a double-f64: for `|2a| < ln2 / 2`
//!   the polynomial's sum `e^r - 1` itself, so small arguments keep their precision
//!   (expm1-style).

use super::dd::{dd_add, dd_div, dd_neg, dd_sel, fabs, finite_lo, neg, Dd};
use super::{exp_reduce, fast_two_sum, horner, keep_nan_clamp, pow2, two_sum, Ops64, EXP_TAYLOR};
use crate::math::Cmp;

/// `1 / (2n+1)!` for n = 1..=10: `sinh a = a + a^3 P(a^2)`; the truncation error on `a < 1`
/// is below `1/23! < 2^-74`.
const SINH: [f64; 10] = [
    1.0 / 6.0,
    1.0 / 120.0,
    1.0 / 5040.0,
    1.0 / 362_880.0,
    1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
    1.0 / 121_645_100_408_832_000.0,
    1.0 / 51_090_942_171_709_440_000.0,
];

/// `(j, e^r - 1)` for `x = j ln2 + r + lo` (`|x| <= 746`): `e^r - 1 = r + (r^2 Q(r) + lo (1 + r))`
/// as a double-f64.
fn expm1_reduced<O: Ops64>(o: &mut O, x: O::D) -> (O::D, Dd<O::D>) {
    let (j, r, lo) = exp_reduce(o, x);
    let q = horner(o, r, &EXP_TAYLOR);
    let r2 = o.mul(r, r);
    let lr = o.fma(lo, r, lo);
    let p = o.fma(q, r2, lr);
    (j, two_sum(o, r, p))
}

/// `(h, l) 2^(j + adj)` for an integral `j + adj` in [-1022, 1025]; exact unless the result
/// leaves the normal range (the scale goes in two halves, as in exp).
fn scale_dd<O: Ops64>(o: &mut O, v: Dd<O::D>, j: O::D, adj: f64) -> Dd<O::D> {
    let a = o.k(adj);
    let j = o.add(j, a);
    let n = o.d2l(j);
    let n1 = o.lshr_s(n, 1);
    let n2 = o.lsub(n, n1);
    let s1 = pow2(o, n1);
    let s2 = pow2(o, n2);
    let h = o.mul(v.0, s1);
    let h = o.mul(h, s2);
    let l = o.mul(v.1, s1);
    let l = o.mul(l, s2);
    (h, l)
}

/// `H = e^a / 2` (`a` in [0, 711]) as a double-f64, and `G = 1/(4H) = e^-a / 2` likewise
/// (zero once `H` overflows).
fn half_exps<O: Ops64>(o: &mut O, a: O::D) -> (Dd<O::D>, Dd<O::D>) {
    let (j, t) = expm1_reduced(o, a);
    let one = o.k(1.0);
    let (h, e) = fast_two_sum(o, one, t.0);
    let l = o.add(e, t.1);
    let big = scale_dd(o, (h, l), j, -1.0);
    let quarter = o.k(0.25);
    let g = o.div(quarter, big.0);
    let ng = neg(o, g);
    let r = o.fma(ng, big.0, quarter);
    let r = o.fma(ng, big.1, r);
    let gl = o.div(r, big.0);
    let gl = finite_lo(o, gl);
    (big, (g, gl))
}

/// The sum of `H +- G` rounded, infinite when `H` is.
fn finish<O: Ops64>(o: &mut O, big: Dd<O::D>, g: Dd<O::D>) -> O::D {
    let s = dd_add(o, big, g);
    let inf = o.k(f64::INFINITY);
    let over = o.cmp(Cmp::Eq, big.0, inf);
    o.sel(over, inf, s.0)
}

/// `cosh x = H + G` (all finite `x`; infinities give +inf, NaN stays NaN).
pub(crate) fn cosh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let a = keep_nan_clamp(o, a, 0.0, 711.0);
    let (big, g) = half_exps(o, a);
    finish(o, big, g)
}

/// `sinh x`: `x + x^3 P(x^2)` for `|x| < 1`, else `sign(x) (H - G)`.
pub(crate) fn sinh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let ac = keep_nan_clamp(o, a, 0.0, 711.0);
    let (big, g) = half_exps(o, ac);
    let ng = dd_neg(o, g);
    let large = finish(o, big, ng);
    let nl = neg(o, large);
    let zero = o.k(0.0);
    let negx = o.cmp(Cmp::Lt, x, zero);
    let large = o.sel(negx, nl, large);
    // Small: odd, so the sign (and -0) come with x.
    let z = o.mul(x, x);
    let p = horner(o, z, &SINH);
    let xz = o.mul(x, z);
    let small = o.fma(xz, p, x);
    let one = o.k(1.0);
    let is_small = o.cmp(Cmp::Lt, a, one);
    o.sel(is_small, small, large)
}

/// `tanh x = sign(x) (-m / (m + 2))`, `m = e^(-2|x|) - 1` as a double-f64.
pub(crate) fn tanh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let m2 = o.k(-2.0);
    let y = o.mul(a, m2);
    // e^-40 is far below an ulp of 1: tanh is 1 from there on (and for -inf).
    let y = keep_nan_clamp(o, y, -40.0, 0.0);
    let (j, t) = expm1_reduced(o, y);
    // j != 0: m = 2^j (1 + t) - 1.
    let one = o.k(1.0);
    let (h, e) = fast_two_sum(o, one, t.0);
    let l = o.add(e, t.1);
    let big = scale_dd(o, (h, l), j, 0.0);
    let m1 = o.k(-1.0);
    let zero = o.k(0.0);
    let mm = dd_add(o, big, (m1, zero));
    let j0 = o.cmp(Cmp::Eq, j, zero);
    let m = dd_sel(o, j0, t, mm);
    let num = dd_neg(o, m);
    let two = o.k(2.0);
    let den = dd_add(o, m, (two, zero));
    let (q, ql) = dd_div(o, num, den);
    let r = o.add(q, ql);
    let nr = neg(o, r);
    let negx = o.cmp(Cmp::Lt, x, zero);
    let r = o.sel(negx, nr, r);
    // +-0 stays itself.
    let at_zero = o.cmp(Cmp::Eq, x, zero);
    o.sel(at_zero, x, r)
}
