//! Double-f64 arithmetic for the f64 library's reductions: a value `h + l` with `|l|` at most
//! half an ulp of `h`, carried through so a function's only large rounding is its last one.

use super::{fast_two_sum, two_prod, two_sum, Ops64};
use crate::math::Cmp;

/// A double-f64 value `h + l`.
pub(super) type Dd<D> = (D, D);

/// `|x|`: the sign bit cleared (keeps NaN a NaN, `-0` becomes `+0`).
pub(super) fn fabs<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let b = o.bits(x);
    let m = o.kl(0x7FFF_FFFF_FFFF_FFFF);
    let a = o.land(b, m);
    o.float(a)
}

/// `-x` as a product by -1, which (unlike `0 - x`) turns `+0` into `-0`.
pub(super) fn neg<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let m1 = o.k(-1.0);
    o.mul(x, m1)
}

/// `-(h + l)`.
pub(super) fn dd_neg<O: Ops64>(o: &mut O, a: Dd<O::D>) -> Dd<O::D> {
    (neg(o, a.0), neg(o, a.1))
}

/// `p ? a : b` on double-f64 values.
pub(super) fn dd_sel<O: Ops64>(o: &mut O, p: O::P, a: Dd<O::D>, b: Dd<O::D>) -> Dd<O::D> {
    (o.sel(p, a.0, b.0), o.sel(p, a.1, b.1))
}

/// `a + b`, renormalized.
pub(super) fn dd_add<O: Ops64>(o: &mut O, a: Dd<O::D>, b: Dd<O::D>) -> Dd<O::D> {
    let (s, e) = two_sum(o, a.0, b.0);
    let t = o.add(a.1, b.1);
    let e = o.add(e, t);
    fast_two_sum(o, s, e)
}

/// `a * b`, renormalized (`a.1 * b.1` is below the result's precision).
pub(super) fn dd_mul<O: Ops64>(o: &mut O, a: Dd<O::D>, b: Dd<O::D>) -> Dd<O::D> {
    let (h, e) = two_prod(o, a.0, b.0);
    let t = o.mul(a.0, b.1);
    let t = o.fma(a.1, b.0, t);
    let e = o.add(e, t);
    fast_two_sum(o, h, e)
}

/// `a / b`: the quotient of the high parts and its correction from the exact residual
/// `a - q b` (fma), so the result is `a / b` to about 2^-104 relative.
pub(super) fn dd_div<O: Ops64>(o: &mut O, a: Dd<O::D>, b: Dd<O::D>) -> Dd<O::D> {
    let q = o.div(a.0, b.0);
    let nq = neg(o, q);
    let r = o.fma(nq, b.0, a.0);
    let r = o.add(r, a.1);
    let r = o.fma(nq, b.1, r);
    let ql = o.div(r, b.0);
    (q, ql)
}

/// `sqrt(a)` for `a >= 0`: `s = sqrt.rn(a.0)` corrected by the residual `a - s^2` (fma).
/// Zero gives zero (the correction would be 0/0).
pub(super) fn dd_sqrt<O: Ops64>(o: &mut O, a: Dd<O::D>) -> Dd<O::D> {
    let s = o.sqrt(a.0);
    let ns = neg(o, s);
    let r = o.fma(ns, s, a.0);
    let r = o.add(r, a.1);
    let two = o.k(2.0);
    let d = o.mul(s, two);
    let l = o.div(r, d);
    let zero = o.k(0.0);
    let at_zero = o.cmp(Cmp::Eq, s, zero);
    let l = o.sel(at_zero, zero, l);
    (s, l)
}

/// `l` unless it is NaN (a correction term computed from an infinite or zero high part),
/// then 0.
pub(super) fn finite_lo<O: Ops64>(o: &mut O, l: O::D) -> O::D {
    let nan = o.cmp(Cmp::Nan, l, l);
    let zero = o.k(0.0);
    o.sel(nan, zero, l)
}
