//! Exponentials and logarithms: `exp`, `exp2`, `log`, `log2`, `log1p` (for the inverse
//! hyperbolic functions) and `pow` with C99 semantics.

use super::coeffs::{ATANH, EXP, EXP2, LN2_HI, LN2_LO, LOG2E_HI, LOG2E_LO};
use super::ops::{Cmp, Ops};
use super::{horner, keep_nan_clamp, quotient, recip, ROUND_MAGIC};

/// `p * 2^j` for `t = j + ROUND_MAGIC` with an integral `j` in [-151, 130], rounded once:
/// the scale is applied in two exact halves, `2^floor(j/2)` then `2^ceil(j/2)`, so neither
/// power of two leaves the normal range and only the last multiplication can round (into the
/// subnormal range, or to infinity). The halves come from `t`'s bits: `0x4B40_0000` is even,
/// so an arithmetic shift halves it exactly beside `j`, and its half (bits 21 and up) leaves
/// the word when shifted into the exponent field. A NaN `p` stays NaN (whatever `t` is).
pub(crate) fn scale<O: Ops>(o: &mut O, p: O::F, t: O::F) -> O::F {
    let b = o.bits(t);
    let lo = o.shr_s(b, 1);
    let hi = o.isub(b, lo);
    let one = o.ci(0x3F80_0000);
    let s1 = o.shl(lo, 23);
    let s1 = o.iadd(s1, one);
    let s1 = o.float(s1);
    let s2 = o.shl(hi, 23);
    let s2 = o.iadd(s2, one);
    let s2 = o.float(s2);
    let t = o.mul(p, s1);
    o.mul(t, s2)
}

/// `2^x`: `x = j + f` with `j = rint(x)` and `f = x - j` exact in [-1/2, 1/2], a degree-6
/// polynomial for `2^f`, then the exact scale by `2^j`.
pub(crate) fn exp2<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let x = keep_nan_clamp(o, x, -151.0, 129.0);
    let m = o.cf(ROUND_MAGIC);
    let t = o.add(x, m);
    let j = o.sub(t, m);
    let f = o.sub(x, j);
    let p = horner(o, f, &EXP2);
    let one = o.cf(1.0);
    let p = o.fma(p, f, one);
    scale(o, p, t)
}

/// `e^x` as `p * 2^j` (`p` in [sqrt(1/2), sqrt(2)] up to rounding, `j` integral in
/// [-150, 130], returned as `t = j + ROUND_MAGIC` for [`scale`]): Cody-Waite reduction
/// `x = j ln2 + r` with `j` the integer nearest `x * LOG2E_HI` (`|r|` at most ln2/2 and an
/// ulp of the product; the first step is exact: `j * LN2_HI` and `x` are multiples of 2^-24
/// and their difference is below 1/2) and a degree-6 polynomial for `e^r`.
pub(crate) fn exp_parts<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let x = keep_nan_clamp(o, x, -104.0, 90.0);
    exp_parts_in_range(o, x)
}

/// [`exp_parts`] for `x` already in [-104, 90] (or NaN).
fn exp_parts_in_range<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let l2e = o.cf(LOG2E_HI);
    let m = o.cf(ROUND_MAGIC);
    let t = o.fma(x, l2e, m);
    let j = o.sub(t, m);
    let c1 = o.cf(-LN2_HI);
    let r = o.fma(j, c1, x);
    let c2 = o.cf(-LN2_LO);
    let r = o.fma(j, c2, r);
    // e^r = 1 + r (1 + r P(r)), P from the EXP table.
    let p = horner(o, r, &EXP);
    let one = o.cf(1.0);
    let q = o.fma(p, r, one);
    let p = o.fma(q, r, one);
    (p, t)
}

/// `e^x * 2^k` (`k` is -1 for the hyperbolic functions, 0 for `exp`), rounded once.
pub(crate) fn exp_scaled<O: Ops>(o: &mut O, x: O::F, k: i32) -> O::F {
    let (p, t) = exp_parts(o, x);
    let t = if k == 0 {
        t
    } else {
        let kk = o.cf(k as f32);
        o.add(t, kk)
    };
    scale(o, p, t)
}

/// `e^(2a) / 2` for finite `a` in [0, 40] (`tanh`'s quotient; not NaN-safe: a NaN `a`
/// gives an arbitrary number). [`exp_parts`]'s scheme at `2a` with every intermediate halved
/// by an exact power of two, so the doubling and the halving cost no instruction:
/// `fma(a, 2 LOG2E_HI, magic)` rounds the same product as `fma(2a, LOG2E_HI, magic)`,
/// `h = a - j LN2_HI / 2` is half the first reduction step (exact), `P(r)` is evaluated in
/// `h = r / 2` with its power-k coefficient scaled by 2^(k+1), and the last step adds 1/2.
/// The scale `2^j` is one integer addition to the exponent field (`p * 2^j` is normal here;
/// the magic number's bits leave the word in the shift). The second Cody-Waite step
/// (`j LN2_LO`) is left out: its term is below `j * 2^-29` in `h` (`j` is at most 46), and the
/// quotient scales the error of `e^(2a)` by `2e / (e + 1)^2`, at most 0.36 and falling as
/// `2 / e`, so it moves `tanh` by less than 0.03 ulp (the sweeps' maximum is unchanged).
pub(crate) fn half_exp_twice<O: Ops>(o: &mut O, a: O::F) -> O::F {
    let l2e = o.cf(2.0 * LOG2E_HI);
    let m = o.cf(ROUND_MAGIC);
    let t = o.fma(a, l2e, m);
    let j = o.sub(t, m);
    let c1 = o.cf(-0.5 * LN2_HI);
    let h = o.fma(j, c1, a);
    // With h = r/2: 2 P(r) by Horner in h, then q = 1 + r P(r) and (1 + r q) / 2.
    let scaled: [f32; EXP.len()] = std::array::from_fn(|k| EXP[k] * 2.0f32.powi(k as i32 + 1));
    let p2 = horner(o, h, &scaled);
    let one = o.cf(1.0);
    let q = o.fma(p2, h, one);
    let half = o.cf(0.5);
    let p = o.fma(q, h, half);
    let n = o.bits(t);
    let n = o.shl(n, 23);
    let pb = o.bits(p);
    let r = o.iadd(pb, n);
    o.float(r)
}

/// `e^x`.
pub(crate) fn exp<O: Ops>(o: &mut O, x: O::F) -> O::F {
    exp_scaled(o, x, 0)
}

/// Splits a positive finite `x` (subnormals included) into `x = 2^e m` with `m` in
/// [sqrt(1/2), sqrt(2)); returns `(f, e)` with `f = m - 1` (exact) and `e` as an f32.
pub(crate) fn log_parts<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let min_normal = o.cf(f32::MIN_POSITIVE);
    let sub = o.fcmp(Cmp::Lt, x, min_normal);
    let k = o.cf(8_388_608.0); // 2^23
    let xs = o.mul(x, k);
    let xs = o.fsel(sub, xs, x);
    let ix = o.bits(xs);
    // Subtracting the bits of sqrt(1/2) makes the exponent field floor(log2(x / sqrt(1/2))).
    let c = o.ci(0x3F35_04F3);
    let t = o.isub(ix, c);
    let e = o.shr_s(t, 23);
    let mask = o.ci(0xFF80_0000);
    let em = o.and(t, mask);
    let mb = o.isub(ix, em);
    let m = o.float(mb);
    let one = o.cf(1.0);
    let f = o.sub(m, one);
    let ef = o.i2f(e);
    let adj = o.cf(-23.0);
    let zero = o.cf(0.0);
    let adj = o.fsel(sub, adj, zero);
    let ef = o.add(ef, adj);
    (f, ef)
}

/// The pieces of `log(1 + f)` for `f` in [sqrt(1/2) - 1, sqrt(2) - 1] (fdlibm's scheme):
/// `log(1+f) = f - v` with `v = f^2/2 - s (f^2/2 + R)`, `s = f / (2 + f)` and
/// `2 atanh(s) = 2s + s R(s^2)`. The division's rounding only reaches the small `s (...)`
/// term (`2 + f` is in [1.7, 2.5], the quotient's range). Returns `v`.
fn log1p_v<O: Ops>(o: &mut O, f: O::F) -> O::F {
    let two = o.cf(2.0);
    let d = o.add(two, f);
    let s = quotient(o, f, d);
    let z = o.mul(s, s);
    // R = 2 (a3 z + a5 z^2 + ...) = z * 2 * ATANH(z).
    let twice: [f32; ATANH.len()] = ATANH.map(|c| 2.0 * c);
    let r = horner(o, z, &twice);
    let r = o.mul(r, z);
    let h = o.cf(0.5);
    let hf = o.mul(h, f);
    let hfsq = o.mul(hf, f);
    let t = o.add(hfsq, r);
    let ns = o.neg(s);
    o.fma(ns, t, hfsq)
}

/// `log(2^e (1 + f))` for the output of [`log_parts`].
pub(crate) fn log_core<O: Ops>(o: &mut O, f: O::F, e: O::F) -> O::F {
    // e ln2_hi + (f - (v - e ln2_lo)), with v = hfsq - s (hfsq + R).
    let v = log1p_v(o, f);
    let lo = o.cf(-LN2_LO);
    let v = o.fma(e, lo, v);
    let y = o.sub(f, v);
    let hi = o.cf(LN2_HI);
    o.fma(e, hi, y)
}

/// The special cases shared by `log` and `log2`: NaN below 0, -inf at 0, +inf at +inf.
fn log_specials<O: Ops>(o: &mut O, x: O::F, r: O::F) -> O::F {
    let zero = o.cf(0.0);
    let ok = o.fcmp(Cmp::Ge, x, zero);
    let nan = o.cf(f32::NAN);
    let r = o.fsel(ok, r, nan);
    let is_zero = o.fcmp(Cmp::Eq, x, zero);
    let ninf = o.cf(f32::NEG_INFINITY);
    let r = o.fsel(is_zero, ninf, r);
    let inf = o.cf(f32::INFINITY);
    let is_inf = o.fcmp(Cmp::Eq, x, inf);
    o.fsel(is_inf, inf, r)
}

/// Natural logarithm.
pub(crate) fn log<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (f, e) = log_parts(o, x);
    let r = log_core(o, f, e);
    log_specials(o, x, r)
}

/// Base-2 logarithm: `e + log(m) log2(e)`, with `log(m)` in double-f32 ([`half_log_m`]) and
/// the product and the sum carried with their rounding errors, so the only sizeable error
/// is the final rounding. (`e + (f - v) log2(e)` with `v` in plain f32, as `log` does, was
/// measured at 1.03 ulp: over CUDA's 1-ulp bound.)
pub(crate) fn log2<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let (mm, e) = log_parts(o, x);
    let (qhi, s2) = half_log_m(o, mm);
    // log2(m) = (a + b) (LHI + LLO) with a = 2 qhi, b = 2 s2 (exact doublings).
    let a = o.add(qhi, qhi);
    let b = o.add(s2, s2);
    let lhi = o.cf(LOG2E_HI);
    let llo = o.cf(LOG2E_LO);
    let p = o.mul(a, lhi);
    let np = o.neg(p);
    let pe = o.fma(a, lhi, np);
    let plo = o.fma(b, lhi, pe);
    let plo = o.fma(a, llo, plo);
    // e + p + plo: e is an integer and |p| < 1/2, so e + p loses at most what Fast2Sum
    // recovers (when e is 0 the sum is exact).
    let sum = o.add(e, p);
    let d = o.sub(e, sum);
    let err = o.add(d, p);
    let lo = o.add(err, plo);
    let r = o.add(sum, lo);
    log_specials(o, x, r)
}

/// `log(1 + u)` for `u >= -1` (NaN below, -inf at -1, +inf at +inf). When `1 + u` is in
/// [sqrt(1/2), sqrt(2)) the kernel takes `u` itself (no rounding of `1 + u`); otherwise
/// `log(m) + (u - (m - 1)) / m` with `m = 1 + u` rounded (the numerator is zero once
/// `m >= 2^24`, so the quotient is exact wherever `m` leaves its range; `m` zero or infinite
/// is overridden by the special cases).
pub(crate) fn log1p<O: Ops>(o: &mut O, u: O::F) -> O::F {
    let one = o.cf(1.0);
    let m = o.add(one, u);
    let (f, e) = log_parts(o, m);
    let zero = o.cf(0.0);
    let near = o.fcmp(Cmp::Eq, e, zero);
    let f = o.fsel(near, u, f);
    let r = log_core(o, f, e);
    let m1 = o.sub(m, one);
    let d = o.sub(u, m1);
    let c = quotient(o, d, m);
    let rc = o.add(r, c);
    let r = o.fsel(near, r, rc);
    log_specials(o, m, r)
}

/// `log(x)` for a positive finite `x` as a double-f32 `hi + lo` with about 2^-40 relative
/// error (for `pow`): `log(m) = 2 atanh(q)`, `q = (m - 1) / (m + 1)` carried as `qhi + qlo`.
fn log_ext<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    let (mm, e) = log_parts(o, x);
    let (qhi, s2) = half_log_m(o, mm);
    // log(x)/2 = e ln2/2 + qhi + s2, summed with the rounding errors carried.
    let hhi = o.cf(0.5 * LN2_HI);
    let tt = o.fma(e, hhi, qhi);
    let nhhi = o.cf(-0.5 * LN2_HI);
    let pp = o.fma(e, nhhi, tt);
    let d = o.sub(qhi, pp);
    let s3 = o.add(d, s2);
    let hlo = o.cf(0.5 * LN2_LO);
    let s3 = o.fma(e, hlo, s3);
    let hi = o.add(tt, s3);
    let dd = o.sub(tt, hi);
    let lo = o.add(dd, s3);
    let hi = o.add(hi, hi);
    let lo = o.add(lo, lo);
    (hi, lo)
}

/// `log(1 + mm) / 2 = qhi + s2` (`|s2|` far below `|qhi|`) for `1 + mm` in
/// [sqrt(1/2), sqrt(2)), to about 2^-40 relative: `log(m) = 2 atanh(q)`,
/// `q = (m - 1) / (m + 1)` carried as `qhi + qlo`.
fn half_log_m<O: Ops>(o: &mut O, mm: O::F) -> (O::F, O::F) {
    let one = o.cf(1.0);
    let two = o.cf(2.0);
    let m = o.add(mm, one);
    let p = o.add(m, one);
    let r = recip(o, p);
    let qhi = o.mul(r, mm);
    // mm - qhi (2 + mm), exactly: the inner fma is exact (its result is below mm and a
    // multiple of ulp(qhi)), the outer one rounds a tiny value.
    let nqhi = o.neg(qhi);
    let d = o.fma(nqhi, two, mm);
    let res = o.fma(nqhi, mm, d);
    let qlo = o.mul(r, res);
    // atanh(q) = q + q^3 A(q^2).
    let s = o.mul(qhi, qhi);
    let a = horner(o, s, &ATANH);
    // (qhi + qlo)^2 = s + t, (qhi + qlo)^3 = p3 + t3.
    let ns = o.neg(s);
    let sq = o.fma(qhi, qhi, ns);
    let q2 = o.add(qlo, qlo);
    let t = o.fma(qhi, q2, sq);
    let p3 = o.mul(s, qhi);
    let np3 = o.neg(p3);
    let e3 = o.fma(s, qhi, np3);
    let e3 = o.fma(t, qhi, e3);
    let t3 = o.fma(s, qlo, e3);
    let s2 = o.fma(a, t3, qlo);
    let s2 = o.fma(a, p3, s2);
    (qhi, s2)
}

/// `|x|^y` for finite nonzero `x` and finite `y`: `e^(y log|x|)` with the product carried in
/// double-f32 and its low part applied as `r (1 + lo)`.
fn pow_core<O: Ops>(o: &mut O, ax: O::F, y: O::F) -> O::F {
    let (lhi, llo) = log_ext(o, ax);
    let thi = o.mul(lhi, y);
    let nthi = o.neg(thi);
    let tlo = o.fma(lhi, y, nthi);
    let tlo = o.fma(llo, y, tlo);
    let phi = o.add(thi, tlo);
    let d = o.sub(thi, phi);
    let plo = o.add(d, tlo);
    // e^phi (1 + plo), scaled by 2^-+1 while the correction is applied so that neither an
    // intermediate overflow nor a second rounding in the subnormal range can happen.
    let (p, t) = exp_parts(o, phi);
    let zero = o.cf(0.0);
    let pos = o.fcmp(Cmp::Gt, phi, zero);
    let m1 = o.cf(-1.0);
    let p1 = o.cf(1.0);
    let k = o.fsel(pos, m1, p1);
    let tk = o.add(t, k);
    let h = scale(o, p, tk);
    let hc = o.fma(plo, h, h);
    let inf = o.cf(f32::INFINITY);
    let fin = o.fcmp(Cmp::Lt, h, inf);
    let h = o.fsel(fin, hc, h);
    let two = o.cf(2.0);
    let half = o.cf(0.5);
    let back = o.fsel(pos, two, half);
    let r = o.mul(h, back);
    // |y log x| beyond 105: certain overflow or underflow (and the double-f32 product may
    // not be finite).
    let athi = o.abs(thi);
    let lim = o.cf(105.0);
    let big = o.fcmp(Cmp::Gt, athi, lim);
    let neg = o.fcmp(Cmp::Lt, thi, zero);
    let ext = o.fsel(neg, zero, inf);
    o.fsel(big, ext, r)
}

/// `pow(x, y)` with C99 (F.10.4.4) semantics: a negative base with an integral exponent is
/// allowed (the sign follows the exponent's parity), `pow(x, ±0) = 1` and `pow(1, y) = 1`
/// even for NaN, zeros and infinities as the standard lists them, NaN for a finite negative
/// base with a non-integral exponent.
pub(crate) fn pow<O: Ops>(o: &mut O, x: O::F, y: O::F) -> O::F {
    let ax = o.abs(x);
    let core = pow_core(o, ax, y);
    let zero = o.cf(0.0);
    let one = o.cf(1.0);
    let inf = o.cf(f32::INFINITY);
    let nan = o.cf(f32::NAN);
    // Integral and odd exponents (infinities count as even integers).
    let ty = o.trunc(y);
    let y_int = o.fcmp(Cmp::Eq, ty, y);
    let h = o.cf(0.5);
    let hy = o.mul(y, h);
    let thy = o.trunc(hy);
    let half_frac = o.fcmp(Cmp::Neu, thy, hy);
    let y_odd = o.pand(y_int, half_frac);
    let y_neg = o.fcmp(Cmp::Lt, y, zero);
    // |x| = 0 or inf: 0 or inf by the signs of y and which one x is.
    let x_zero = o.fcmp(Cmp::Eq, ax, zero);
    let x_inf = o.fcmp(Cmp::Eq, ax, inf);
    let edge = o.por(x_zero, x_inf);
    let big = o.pxor(y_neg, x_inf);
    let ev = o.fsel(big, inf, zero);
    let r = o.fsel(edge, ev, core);
    // y = ±inf: 1 at |x| = 1, else 0 or inf by whether |x| < 1 and the sign of y.
    let ay = o.abs(y);
    let y_inf = o.fcmp(Cmp::Eq, ay, inf);
    let lt1 = o.fcmp(Cmp::Lt, ax, one);
    let ypos = o.fcmp(Cmp::Gt, y, zero);
    let up = o.pxor(lt1, ypos);
    let iv = o.fsel(up, inf, zero);
    let is1 = o.fcmp(Cmp::Eq, ax, one);
    let iv = o.fsel(is1, one, iv);
    let r = o.fsel(y_inf, iv, r);
    // Sign: negative x (sign bit, so -0 and -inf too) with an odd integral y.
    let nr = o.neg(r);
    let xs = o.bits(x);
    let sh = o.shr_s(xs, 31);
    let zi = o.ci(0);
    let x_neg = o.icmp(Cmp::Ne, sh, zi);
    let flip = o.pand(x_neg, y_odd);
    let r = o.fsel(flip, nr, r);
    // NaN: a finite negative x with a non-integral finite y, or any NaN operand.
    let x_lt0 = o.fcmp(Cmp::Lt, x, zero);
    let x_fin = o.fcmp(Cmp::Lt, ax, inf);
    let nonint = o.pnot(y_int);
    let bad = o.pand(x_lt0, x_fin);
    let bad = o.pand(bad, nonint);
    let any_nan = o.fcmp(Cmp::Nan, x, y);
    let bad = o.por(bad, any_nan);
    let r = o.fsel(bad, nan, r);
    // pow(1, y) = 1 and pow(x, ±0) = 1, whatever the other operand.
    let x1 = o.fcmp(Cmp::Eq, x, one);
    let y0 = o.fcmp(Cmp::Eq, y, zero);
    let unit = o.por(x1, y0);
    o.fsel(unit, one, r)
}
