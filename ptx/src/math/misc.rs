//! `inverseSqrt`, `ldexp`, `frexp` and `modf`: exact or one rounding away from exact.

use super::ops::{Cmp, Ops};

/// `1 / sqrt(x)` from the correctly rounded square root and reciprocal (two roundings; at
/// most one ulp). The square root of a finite nonzero `x` is in [2^-75, 2^64], the
/// reciprocal's range; `+0` gives `+inf`, `-0` gives `-inf` and `+inf` gives `+0` by
/// selection.
pub(crate) fn rsqrt<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let s = o.sqrt(x);
    let r = super::recip(o, s);
    let zero = o.cf(0.0);
    let inf = o.cf(f32::INFINITY);
    let is_zero = o.fcmp(Cmp::Eq, s, zero);
    let pole = o.copysign(inf, s);
    let r = o.fsel(is_zero, pole, r);
    let is_inf = o.fcmp(Cmp::Eq, s, inf);
    o.fsel(is_inf, zero, r)
}

/// `x * 2^n` rounded once (C99 `ldexpf`, musl's scheme): at most two steps of 2^127 up or of
/// 2^-102 down bring `n` into the normal range before the final multiplication. A down step
/// can only round when the final result underflows to zero or the smallest subnormals.
pub(crate) fn ldexp<O: Ops>(o: &mut O, x: O::F, n: O::I) -> O::F {
    let lo = o.ci((-400i32) as u32);
    let hi = o.ci(400);
    let n = o.imax(n, lo);
    let mut n = o.imin(n, hi);
    let mut y = x;
    let one = o.cf(1.0);
    for _ in 0..2 {
        let lim = o.ci(127);
        let p = o.icmp(Cmp::Gt, n, lim);
        let up = o.cf(f32::from_bits(0x7F00_0000)); // 2^127
        let k = o.fsel(p, up, one);
        y = o.mul(y, k);
        let zi = o.ci(0);
        let d = o.isel(p, lim, zi);
        n = o.isub(n, d);
    }
    for _ in 0..2 {
        let lim = o.ci((-126i32) as u32);
        let p = o.icmp(Cmp::Lt, n, lim);
        let down = o.cf(f32::from_bits(0x0C80_0000)); // 2^-102
        let k = o.fsel(p, down, one);
        y = o.mul(y, k);
        let step = o.ci(102);
        let zi = o.ci(0);
        let d = o.isel(p, step, zi);
        n = o.iadd(n, d);
    }
    let lo = o.ci((-126i32) as u32);
    let hi = o.ci(127);
    let n = o.imax(n, lo);
    let n = o.imin(n, hi);
    let b = o.ci(127);
    let n = o.iadd(n, b);
    let n = o.shl(n, 23);
    let s = o.float(n);
    o.mul(y, s)
}

/// `frexp(x) = (fract, exp)` with `x = fract 2^exp`, `|fract|` in [0.5, 1) (subnormals
/// included); zeros, infinities and NaN give `(x, 0)`.
pub(crate) fn frexp<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::I) {
    let ax = o.abs(x);
    let min_normal = o.cf(f32::MIN_POSITIVE);
    let sub = o.fcmp(Cmp::Lt, ax, min_normal);
    let k = o.cf(16_777_216.0); // 2^24
    let xs = o.mul(x, k);
    let xs = o.fsel(sub, xs, x);
    let ix = o.bits(xs);
    let be = o.shr_u(ix, 23);
    let m8 = o.ci(0xFF);
    let be = o.and(be, m8);
    let bias = o.ci(126);
    let e = o.isub(be, bias);
    let adj = o.ci(24);
    let zi = o.ci(0);
    let adj = o.isel(sub, adj, zi);
    let e = o.isub(e, adj);
    let keep = o.ci(0x807F_FFFF);
    let m = o.and(ix, keep);
    let half = o.ci(0x3F00_0000);
    let m = o.or(m, half);
    let fr = o.float(m);
    // 0, inf, NaN: not (0 < |x| < inf).
    let zero = o.cf(0.0);
    let inf = o.cf(f32::INFINITY);
    let pos = o.fcmp(Cmp::Gt, ax, zero);
    let fin = o.fcmp(Cmp::Lt, ax, inf);
    let normal = o.pand(pos, fin);
    let fr = o.fsel(normal, fr, x);
    let e = o.isel(normal, e, zi);
    (fr, e)
}

/// `modf(x) = (fract, whole)`: `whole = trunc(x)`, `fract = x - whole` with the sign of x
/// (C99: `-0` for negative integers, `±0` for infinities).
pub(crate) fn modf<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let whole = o.trunc(x);
    let d = o.sub(x, whole);
    let ax = o.abs(x);
    let inf = o.cf(f32::INFINITY);
    let is_inf = o.fcmp(Cmp::Eq, ax, inf);
    let zero = o.cf(0.0);
    let d = o.fsel(is_inf, zero, d);
    let fr = o.copysign(d, x);
    (fr, whole)
}
