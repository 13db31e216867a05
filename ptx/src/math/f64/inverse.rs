//! The inverse functions on f64: `atan`, `atan2`, `asin`, `acos` (one arctangent core) and
//! `asinh`, `acosh`, `atanh` (one logarithm of a double-f64).
//!
//! Arctangent: every function becomes `atan(n/d)` for non-negative double-f64 values `n`,
//! `d` (`asin x = atan(|x| / sqrt(1 - x^2))`, `acos x = atan(sqrt(1 - x^2) / x)` with the
//! square root's argument `(1 - x^2)` exact as a double-f64). The quotient `q <= 1` (`n` and
//! `d` swapped above 1, subtracting from pi/2) is a double-f64; `atan q = atan c + atan t`
//! with `c = k/8` nearest to `q` and `t = (q - c) / (1 + q c)`, |t| <= 1/16, where a Taylor
//! polynomial of eight terms is exact to below 2^-72. The table values, pi/2 and pi are
//! double-f64 constants and every large term adds with its rounding error kept.
//!
//! Logarithms: `asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2)))`, `acosh x = log(x + sqrt((x - 1)
//! (x + 1)))`, `atanh a = log1p(2a / (1 - a)) / 2`, each argument a double-f64 `1 + u` (or
//! `x + s`) whose low part joins the logarithm as `l / h`, so arguments near 0 (and `acosh`
//! near 1) keep their relative precision. Above 2^28 `asinh` and `acosh` are `log(2a)`.

use super::dd::{dd_add, dd_div, dd_mul, dd_sel, dd_sqrt, fabs, finite_lo, neg, Dd};
use super::{horner, ln_split, log_split, two_prod, two_sum, Ops64};
use crate::math::Cmp;

/// `atan(k/8)` for k = 0..=8 as double-f64 values (hi, lo).
const ATAN_K: [(u64, u64); 9] = [
    (0, 0),
    (0x3FBF_D5BA_9AAC_2F6E, 0xBC4C_D376_8676_0C17),
    (0x3FCF_5B75_F92C_80DD, 0x3C68_AB6E_3CF7_AFBD),
    (0x3FD6_F619_41E4_DEF1, 0xBC7C_63AA_E6F6_E918),
    (0x3FDD_AC67_0561_BB4F, 0x3C7A_2B7F_222F_65E2),
    (0x3FE1_E00B_ABDE_FEB4, 0xBC59_28DF_287A_668F),
    (0x3FE4_978F_A326_9EE1, 0x3C72_419A_87F2_A458),
    (0x3FE7_00A7_C578_4634, 0xBC78_C34D_25AA_DEF6),
    (0x3FE9_21FB_5444_2D18, 0x3C81_A626_3314_5C07),
];
/// pi/2 as a double-f64.
const PIO2: (f64, f64) =
    (f64::from_bits(0x3FF9_21FB_5444_2D18), f64::from_bits(0x3C91_A626_3314_5C07));
/// pi as a double-f64.
const PI: (f64, f64) =
    (f64::from_bits(0x4009_21FB_5444_2D18), f64::from_bits(0x3CA1_A626_3314_5C07));

/// `(-1)^n / (2n+1)` for n = 1..=8: `atan t = t + t^3 P(t^2)`.
const ATAN: [f64; 8] = [
    -1.0 / 3.0,
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
];

/// Above this `asinh` and `acosh` drop the `1/(4a^2)` term (below 2^-58 relative).
const LOG_2A_MIN: f64 = 268_435_456.0; // 2^28

/// `atan(n / d)` in [0, pi/2], or `pi - atan(n / d)` where `dneg` holds (the sign of the
/// value whose magnitude `d` is), for non-negative double-f64 `n`, `d` not both zero or both
/// infinite.
fn atan_ratio<O: Ops64>(o: &mut O, n: Dd<O::D>, d: Dd<O::D>, dneg: Option<O::P>) -> O::D {
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let flip = o.cmp(Cmp::Gt, n.0, d.0);
    let small = dd_sel(o, flip, d, n);
    let big = dd_sel(o, flip, n, d);
    let (qh, ql) = dd_div(o, small, big);
    let ql = finite_lo(o, ql);
    // c = k/8 nearest to q; q - c is exact.
    let eight = o.k(8.0);
    let q8 = o.mul(qh, eight);
    let k = o.rint(q8);
    let eighth = o.k(0.125);
    let c = o.mul(k, eighth);
    let nh = o.sub(qh, c);
    let num = two_sum(o, nh, ql);
    // 1 + q c as a double-f64.
    let (ph, pl) = two_prod(o, qh, c);
    let (dh, dl) = two_sum(o, one, ph);
    let qc = o.mul(ql, c);
    let dl = o.add(dl, pl);
    let dl = o.add(dl, qc);
    let (th, tl) = dd_div(o, num, (dh, dl));
    let z = o.mul(th, th);
    let p = horner(o, z, &ATAN);
    let tz = o.mul(th, z);
    let poly = o.mul(tz, p);
    // atan(k/8) from the table.
    let mut ah = zero;
    let mut al = zero;
    for (i, &(h, l)) in ATAN_K.iter().enumerate().skip(1) {
        let ik = o.k(i as f64);
        let is = o.cmp(Cmp::Eq, k, ik);
        let hk = o.k(f64::from_bits(h));
        let lk = o.k(f64::from_bits(l));
        ah = o.sel(is, hk, ah);
        al = o.sel(is, lk, al);
    }
    let rest = o.add(tl, al);
    let rest = o.add(rest, poly);
    // base + sign (atan c + t + rest): 0 +, pi/2 - (flip), pi - (dneg), pi/2 + (both).
    let m1 = o.k(-1.0);
    let mut sg = o.sel(flip, m1, one);
    let (mut bh, mut bl) = (zero, zero);
    if let Some(dneg) = dneg {
        let ds = o.sel(dneg, m1, one);
        sg = o.mul(sg, ds);
        let pih = o.k(PI.0);
        let pil = o.k(PI.1);
        bh = o.sel(dneg, pih, zero);
        bl = o.sel(dneg, pil, zero);
    }
    let p2h = o.k(PIO2.0);
    let p2l = o.k(PIO2.1);
    let bh = o.sel(flip, p2h, bh);
    let bl = o.sel(flip, p2l, bl);
    let sa = o.mul(sg, ah);
    let st = o.mul(sg, th);
    let sr = o.mul(sg, rest);
    let (s1, e1) = two_sum(o, bh, sa);
    let (s2, e2) = two_sum(o, s1, st);
    let low = o.add(e1, e2);
    let low = o.add(low, bl);
    let low = o.add(low, sr);
    o.add(s2, low)
}

/// `v` with the sign of `x` (`v >= 0`); `x` itself when it is `+-0`.
fn odd_sign<O: Ops64>(o: &mut O, x: O::D, v: O::D) -> O::D {
    let zero = o.k(0.0);
    let nv = neg(o, v);
    let negx = o.cmp(Cmp::Lt, x, zero);
    let v = o.sel(negx, nv, v);
    let at_zero = o.cmp(Cmp::Eq, x, zero);
    o.sel(at_zero, x, v)
}

/// Whether the sign bit of `x` is set (`-0` included, NaN not): `x < 0` or `1/x < 0`.
fn sign_bit<O: Ops64>(o: &mut O, x: O::D) -> O::P {
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let lt = o.cmp(Cmp::Lt, x, zero);
    let inv = o.div(one, x);
    let ilt = o.cmp(Cmp::Lt, inv, zero);
    o.por(lt, ilt)
}

/// `atan x = atan(|x| / 1)` with the sign of `x`.
pub(crate) fn atan<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let r = atan_ratio(o, (a, zero), (one, zero), None);
    odd_sign(o, x, r)
}

/// `atan2(y, x)` with C99 Annex F's special cases: the angle of `(|x|, |y|)`, from pi when
/// `x`'s sign bit is set, with `y`'s sign; `+-0`/`+-0` is 0 or pi, `+-inf`/`+-inf` is pi/4 or
/// 3pi/4 (signed by `y`).
pub(crate) fn atan2<O: Ops64>(o: &mut O, y: O::D, x: O::D) -> O::D {
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let ax = fabs(o, x);
    let ay = fabs(o, y);
    // Both tiny: scale up (exactly) so the quotient's residual stays representable.
    let ygt = o.cmp(Cmp::Gt, ay, ax);
    let mx = o.sel(ygt, ay, ax);
    let tiny_lim = o.k(f64::from_bits(0x20B0_0000_0000_0000)); // 2^-500
    let tiny = o.cmp(Cmp::Lt, mx, tiny_lim);
    let up = o.k(f64::from_bits(0x6570_0000_0000_0000)); // 2^600
    let s = o.sel(tiny, up, one);
    let ax = o.mul(ax, s);
    let ay = o.mul(ay, s);
    // 0/0 and inf/inf: the quotients 0 and 1.
    let sum = o.add(ax, ay);
    let both_zero = o.cmp(Cmp::Eq, sum, zero);
    let inf = o.k(f64::INFINITY);
    let xfin = o.cmp(Cmp::Neu, ax, inf);
    let yfin = o.cmp(Cmp::Neu, ay, inf);
    let not_both_inf = o.por(xfin, yfin);
    let n = o.sel(both_zero, zero, ay);
    let n = o.sel(not_both_inf, n, one);
    let d = o.sel(both_zero, one, ax);
    let d = o.sel(not_both_inf, d, one);
    let xneg = sign_bit(o, x);
    let r = atan_ratio(o, (n, zero), (d, zero), Some(xneg));
    let yneg = sign_bit(o, y);
    let nr = neg(o, r);
    o.sel(yneg, nr, r)
}

/// `sqrt(1 - x^2)` for `|x| = a <= 1` as a double-f64 (`1 - a^2` is exact as one).
fn cos_of_asin<O: Ops64>(o: &mut O, a: O::D) -> Dd<O::D> {
    let (p, pl) = two_prod(o, a, a);
    let one = o.k(1.0);
    let np = neg(o, p);
    let (wh, wl) = two_sum(o, one, np);
    let wl = o.sub(wl, pl);
    let w = super::fast_two_sum(o, wh, wl);
    dd_sqrt(o, w)
}

/// `asin x = atan(|x| / sqrt(1 - x^2))` with the sign of `x` (NaN beyond [-1, 1]).
pub(crate) fn asin<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let c = cos_of_asin(o, a);
    let zero = o.k(0.0);
    let r = atan_ratio(o, (a, zero), c, None);
    odd_sign(o, x, r)
}

/// `acos x = atan(sqrt(1 - x^2) / |x|)`, from pi for negative `x` (NaN beyond [-1, 1]).
pub(crate) fn acos<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let c = cos_of_asin(o, a);
    let zero = o.k(0.0);
    let xneg = o.cmp(Cmp::Lt, x, zero);
    atan_ratio(o, c, (a, zero), Some(xneg))
}

/// `log(h + l) + e ln2` for a positive finite double-f64 `h + l` (`l` small) and an integral
/// `e`: the f64 logarithm's reduction of `h` with `l / h` added to its low part; +inf for an
/// infinite `h`.
fn ln_dd<O: Ops64>(o: &mut O, m: Dd<O::D>, e: O::D) -> O::D {
    let (f, ef) = log_split(o, m.0);
    let ef = o.add(ef, e);
    let (s, low) = ln_split(o, f, ef);
    let tail = o.div(m.1, m.0);
    let low = o.add(low, tail);
    let r = o.add(s, low);
    let inf = o.k(f64::INFINITY);
    let at_inf = o.cmp(Cmp::Eq, m.0, inf);
    o.sel(at_inf, inf, r)
}

/// `v`, or NaN where `bad` holds or `x` is NaN (the logarithm's reduction would make a
/// number of a NaN's bits).
fn nan_if<O: Ops64>(o: &mut O, x: O::D, bad: Option<O::P>, v: O::D) -> O::D {
    let nan = o.cmp(Cmp::Nan, x, x);
    let bad = match bad {
        Some(b) => o.por(b, nan),
        None => nan,
    };
    let qnan = o.k(f64::NAN);
    o.sel(bad, qnan, v)
}

/// `log(m)` for the double-f64 `m`, or `log(2a)` when `a > 2^28`, where asinh's and acosh's
/// `m` (about `2a`) would lose `a^2` or overflow: `ln_dd` of `a` with one more in its exponent.
fn ln_or_ln_2a<O: Ops64>(o: &mut O, a: O::D, m: Dd<O::D>) -> O::D {
    let zero = o.k(0.0);
    let lim = o.k(LOG_2A_MIN);
    let big = o.cmp(Cmp::Gt, a, lim);
    let arg = dd_sel(o, big, (a, zero), m);
    let e1 = o.k(1.0);
    let e = o.sel(big, e1, zero);
    ln_dd(o, arg, e)
}

/// `asinh x = sign(x) log(1 + a + a^2 / (1 + sqrt(1 + a^2)))`, `a = |x|`; `log(2a)` above
/// 2^28.
pub(crate) fn asinh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let zero = o.k(0.0);
    let one = (o.k(1.0), zero);
    let sq = two_prod(o, a, a);
    let w = dd_add(o, one, sq);
    let s = dd_sqrt(o, w);
    let den = dd_add(o, one, s);
    let v = dd_div(o, sq, den);
    let u = dd_add(o, (a, zero), v);
    let m = dd_add(o, one, u);
    let r = ln_or_ln_2a(o, a, m);
    let r = nan_if(o, x, None, r);
    odd_sign(o, x, r)
}

/// `acosh x = log(x + sqrt((x - 1)(x + 1)))` for `x >= 1` (NaN below); `log(2x)` above
/// 2^28.
pub(crate) fn acosh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let zero = o.k(0.0);
    let m1 = o.k(-1.0);
    let xm1 = two_sum(o, x, m1);
    let two = o.k(2.0);
    let xp1 = dd_add(o, xm1, (two, zero));
    let w = dd_mul(o, xm1, xp1);
    let s = dd_sqrt(o, w);
    let m = dd_add(o, (x, zero), s);
    let r = ln_or_ln_2a(o, x, m);
    let one = o.k(1.0);
    let below = o.cmp(Cmp::Lt, x, one);
    nan_if(o, x, Some(below), r)
}

/// `atanh x = sign(x) log(1 + 2a / (1 - a)) / 2`, `a = |x|`: +-inf at +-1, NaN beyond.
pub(crate) fn atanh<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let a = fabs(o, x);
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let na = neg(o, a);
    let d = two_sum(o, one, na);
    let a2 = o.add(a, a);
    let u = dd_div(o, (a2, zero), d);
    let m = dd_add(o, (one, zero), u);
    let r = ln_dd(o, m, zero);
    let half = o.k(0.5);
    let r = o.mul(r, half);
    let inf = o.k(f64::INFINITY);
    let at_one = o.cmp(Cmp::Eq, a, one);
    let r = o.sel(at_one, inf, r);
    let beyond = o.cmp(Cmp::Gt, a, one);
    let r = nan_if(o, x, Some(beyond), r);
    odd_sign(o, x, r)
}
