//! `inverseSqrt`, `ldexp`, `frexp` and `modf`: exact or one rounding away from exact.

use super::ops::{Cmp, Ops};

/// `x` times 2^64 when it is below 2^-100 (exact: into the refined square root's range), and
/// whether it was.
fn lift_tiny<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::P) {
    let lo = o.cf(f32::from_bits(0x0D80_0000)); // 2^-100
    let tiny = o.fcmp(Cmp::Lt, x, lo);
    let r = scale_if(o, x, tiny, f32::from_bits(0x5F80_0000)); // 2^64
    (r, tiny)
}

/// `v * k` where `p` holds, else `v` (`k` a power of two).
fn scale_if<O: Ops>(o: &mut O, v: O::F, p: O::P, k: f32) -> O::F {
    let k = o.cf(k);
    let one = o.cf(1.0);
    let k = o.fsel(p, k, one);
    o.mul(v, k)
}

/// `1 / sqrt(x)` from the correctly rounded square root and reciprocal (two roundings; at
/// most one ulp). Below 2^-100 `x` is scaled by 2^64 first and the result by 2^32 (both
/// exact), which keeps the refined square root in its range and its root in the
/// reciprocal's; `+0` gives `+inf`, `-0` gives `-inf` and `+inf` gives `+0` by selection.
pub(crate) fn rsqrt<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (xs, tiny) = lift_tiny(o, x);
    let s = super::sqrt(o, xs);
    let r = super::recip(o, s);
    let r = scale_if(o, r, tiny, f32::from_bits(0x4F80_0000)); // 2^32
    let zero = o.cf(0.0);
    let inf = o.cf(f32::INFINITY);
    let is_zero = o.fcmp(Cmp::Eq, x, zero);
    let pole = o.copysign(inf, x);
    let r = o.fsel(is_zero, pole, r);
    let is_inf = o.fcmp(Cmp::Eq, x, inf);
    o.fsel(is_inf, zero, r)
}

/// `sqrt(x)` over the whole f32 range, correctly rounded (`sqrt.rn.f32`'s bits without its
/// slow-path subroutine): below 2^-100 (subnormals included) `x` is scaled by 2^64 and the
/// root by 2^-32, both exact; zeros (with their sign), `+inf` and NaN pass through by
/// selection; negative `x` gives NaN.
pub fn sqrt_any<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (xs, tiny) = lift_tiny(o, x);
    let s = super::sqrt(o, xs);
    let s = scale_if(o, s, tiny, f32::from_bits(0x2F80_0000)); // 2^-32
    let zero = o.cf(0.0);
    let inf = o.cf(f32::INFINITY);
    let is_zero = o.fcmp(Cmp::Eq, x, zero);
    let is_inf = o.fcmp(Cmp::Eq, x, inf);
    let pass = o.por(is_zero, is_inf);
    o.fsel(pass, x, s)
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
