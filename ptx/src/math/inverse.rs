//! Inverse trigonometric functions: `asin`, `acos`, `atan`, `atan2`.

use super::coeffs::{ASIN, ATAN, PIO2_HI, PIO2_LO, PI_HI, PI_LO};
use super::ops::{Cmp, Ops};
use super::{keep_nan_cap, odd_poly, quotient, recip, sqrt};

/// `atan(t)` for `t` in [0, 1]: one odd minimax polynomial.
fn atan01<O: Ops>(o: &mut O, t: O::F) -> O::F {
    odd_poly(o, t, &ATAN)
}

/// `c_hi - (v - c_lo)`: a constant held in two parts minus `v`.
fn minus<O: Ops>(o: &mut O, hi: f32, lo: f32, v: O::F) -> O::F {
    let l = o.cf(lo);
    let d = o.sub(v, l);
    let h = o.cf(hi);
    o.sub(h, d)
}

/// `atan(x)`: `atan(1/|x|)` subtracted from pi/2 above 1, the sign of x. The reciprocal is
/// taken of `|x|` capped at 2^100 (beyond it `1/|x|` vanishes beside pi/2 anyway).
pub(crate) fn atan<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let one = o.cf(1.0);
    let big = o.fcmp(Cmp::Gt, ax, one);
    let ac = keep_nan_cap(o, ax, f32::from_bits(0x7180_0000)); // 2^100
    let inv = recip(o, ac);
    let t = o.fsel(big, inv, ax);
    let p = atan01(o, t);
    let c = minus(o, PIO2_HI, PIO2_LO, p);
    let r = o.fsel(big, c, p);
    o.copysign(r, x)
}

/// `atan2(y, x)` with C99's signed zeros and infinities: `atan(min/max)` of the magnitudes,
/// folded into the right octant.
pub(crate) fn atan2<O: Ops>(o: &mut O, y: O::F, x: O::F) -> O::F {
    let ax = o.abs(x);
    let ay = o.abs(y);
    let y_big = o.fcmp(Cmp::Gt, ay, ax);
    let mn = o.fsel(y_big, ax, ay);
    let mx = o.fsel(y_big, ay, ax);
    let t = ratio(o, mn, mx);
    // x/inf: zero; inf/inf: the diagonal; 0/0: zero.
    let zero = o.cf(0.0);
    let inf = o.cf(f32::INFINITY);
    let mx_inf = o.fcmp(Cmp::Eq, mx, inf);
    let t = o.fsel(mx_inf, zero, t);
    let one = o.cf(1.0);
    let same = o.fcmp(Cmp::Eq, ax, ay);
    let t = o.fsel(same, one, t);
    let both0 = o.fcmp(Cmp::Eq, mx, zero);
    let t = o.fsel(both0, zero, t);
    let p = atan01(o, t);
    let c = minus(o, PIO2_HI, PIO2_LO, p);
    let r = o.fsel(y_big, c, p);
    // Left half-plane (sign bit of x, so -0 counts): pi - r.
    let xb = o.bits(x);
    let xs = o.shr_s(xb, 31);
    let zi = o.ci(0);
    let x_neg = o.icmp(Cmp::Ne, xs, zi);
    let c = minus(o, PI_HI, PI_LO, r);
    let r = o.fsel(x_neg, c, r);
    let r = o.copysign(r, y);
    // NaN in, NaN out (the 0/0 fix-up above would hide a NaN y against a zero x).
    let nan = o.fcmp(Cmp::Nan, x, y);
    let xy = o.add(x, y);
    o.fsel(nan, xy, r)
}

/// `mn / mx` for `0 <= mn <= mx` (finite, nonzero `mx`), scaled by a common power of two
/// into the quotient's range, which does not change the ratio: by 2^-64 when `mx > 2^100`
/// (where the scaled `mn` rounds into the subnormals the ratio is below 2^-162 and rounds to
/// zero either way), by 2^64 when `mn < 2^-90` and `mx < 2^62` (a small numerator's
/// residual `mn - mx q` would not be representable; with `mx >= 2^62` the ratio is below
/// 2^-152 and the unscaled quotient is zero, as it should be).
fn ratio<O: Ops>(o: &mut O, mn: O::F, mx: O::F) -> O::F {
    let hi = o.cf(f32::from_bits(0x7180_0000)); // 2^100
    let big = o.fcmp(Cmp::Gt, mx, hi);
    let down = o.cf(f32::from_bits(0x1F80_0000)); // 2^-64
    let one = o.cf(1.0);
    let k = o.fsel(big, down, one);
    let lo = o.cf(f32::from_bits(0x1280_0000)); // 2^-90
    let tiny = o.fcmp(Cmp::Lt, mn, lo);
    let mid = o.cf(f32::from_bits(0x5E80_0000)); // 2^62
    let room = o.fcmp(Cmp::Lt, mx, mid);
    let small = o.pand(tiny, room);
    let up = o.cf(f32::from_bits(0x5F80_0000)); // 2^64
    let k = o.fsel(small, up, k);
    let mn = o.mul(mn, k);
    let mx = o.mul(mx, k);
    quotient(o, mn, mx)
}

/// `2 asin(sqrt(z))` for `z = (1 - |x|)/2` in [0, 1/4], carrying the rounding of the square
/// root: `s + c` with `c = (z - s^2) / (2s)`. Returns `(2s, 2c + 2 s z P(z))` so the caller
/// adds the large part last.
fn asin_half<O: Ops>(o: &mut O, ax: O::F) -> (O::F, O::F) {
    let one = o.cf(1.0);
    let h = o.cf(0.5);
    let d = o.sub(one, ax);
    let z = o.mul(d, h);
    // z is 0 at |x| = 1 (selected: s = 0, no correction) and at least 2^-25 below.
    let s = sqrt(o, z);
    let zero = o.cf(0.0);
    let sz = o.fcmp(Cmp::Eq, z, zero);
    let s = o.fsel(sz, zero, s);
    let ns = o.neg(s);
    let res = o.fma(ns, s, z);
    let s2 = o.add(s, s);
    let c2 = quotient(o, res, s);
    let c2 = o.fsel(sz, zero, c2);
    let p = super::horner(o, z, &ASIN);
    let pz = o.mul(p, z);
    let small = o.fma(s2, pz, c2);
    (s2, small)
}

/// `asin(x)`: odd polynomial up to 1/2, `pi/2 - 2 asin(sqrt((1 - |x|)/2))` above.
pub(crate) fn asin<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let p = odd_poly(o, ax, &ASIN);
    let (s2, small) = asin_half(o, ax);
    // pi/2 - 2s - small.
    let l = o.cf(PIO2_LO);
    let small = o.sub(small, l);
    let h = o.cf(PIO2_HI);
    let ns2 = o.neg(s2);
    let hi = o.add(h, ns2);
    let big = o.sub(hi, small);
    let half = o.cf(0.5);
    let lim = o.fcmp(Cmp::Le, ax, half);
    let r = o.fsel(lim, p, big);
    // |x| > 1 is NaN (sqrt of a negative z gives it; keep it explicit for clarity).
    o.copysign(r, x)
}

/// `acos(x)`: `pi/2 - asin(x)` up to |x| = 1/2; `2 asin(sqrt((1 - x)/2))` above 1/2;
/// `pi - 2 asin(sqrt((1 + x)/2))` below -1/2.
pub(crate) fn acos<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let ax = o.abs(x);
    let p = odd_poly(o, x, &ASIN);
    let mid = minus(o, PIO2_HI, PIO2_LO, p);
    let (s2, small) = asin_half(o, ax);
    let pos = o.add(s2, small);
    // pi - (2s + small).
    let l = o.cf(PI_LO);
    let small = o.sub(small, l);
    let h = o.cf(PI_HI);
    let ns2 = o.neg(s2);
    let hi = o.add(h, ns2);
    let neg = o.sub(hi, small);
    let zero = o.cf(0.0);
    let is_neg = o.fcmp(Cmp::Lt, x, zero);
    let outer = o.fsel(is_neg, neg, pos);
    let half = o.cf(0.5);
    let lim = o.fcmp(Cmp::Le, ax, half);
    o.fsel(lim, mid, outer)
}
