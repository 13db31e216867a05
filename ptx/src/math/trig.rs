//! `sin`, `cos` and `tan` over the whole f32 range.
//!
//! Argument reduction `x = q pi/2 + r`, `|r| <= pi/4`:
//! * `|x| < 105615`: Cody-Waite with pi/2 in three parts. The first product `j * PIO2_1` is
//!   exact and so is its difference with `x` (both are multiples of 2^-19 below 2 apart); the
//!   three parts carry pi/2 to about 2^-72, far below what the closest f32 multiples of pi/2 in
//!   this range need.
//! * otherwise (a branch, rare): Payne-Hanek. The 24-bit mantissa times 192 bits of 2/pi
//!   gives 224 exact bits of `x * 2/pi`; the 64 bits at the binary point hold the quadrant and
//!   62 bits of fraction, which become `r` through one f64 product and one rounding to f32.
//!
//! Then `sin(r)` and `cos(r)` polynomials on [-pi/4, pi/4], chosen and signed by the quadrant;
//! `tan` is their quotient (`-cos/sin` in odd quadrants).

use super::coeffs::{
    COS, PIO2_1, PIO2_2, PIO2_2POW_M64, PIO2_3, SIN, TWO_OVER_PI, TWO_OVER_PI_BITS,
};
use super::ops::{Cmp, Ops};
use super::{horner, ROUND_MAGIC};

/// Below this magnitude the Cody-Waite reduction is used (CUDA's threshold).
const CODY_WAITE_MAX: f32 = 105_615.0;

/// Which function to finish with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// Cody-Waite reduction; `(r, q)` with `q` as the bits of an integer (the quadrant modulo
/// 4 in its low bits). `j`, the integer nearest `x * TWO_OVER_PI` (below 2^17 in
/// magnitude), is rounded by the addition of [`ROUND_MAGIC`] inside the product's `fma`, so
/// `t`'s bits are `0x4B40_0000 + j` and serve as `q` without a conversion.
fn reduce_small<O: Ops>(o: &mut O, x: O::F) -> [O::F; 2] {
    let k = o.cf(TWO_OVER_PI);
    let m = o.cf(ROUND_MAGIC);
    let t = o.fma(x, k, m);
    let j = o.sub(t, m);
    let c1 = o.cf(-PIO2_1);
    let r = o.fma(j, c1, x);
    let c2 = o.cf(-PIO2_2);
    let r = o.fma(j, c2, r);
    let c3 = o.cf(-PIO2_3);
    let r = o.fma(j, c3, r);
    // Quadrant 0 needs no reduction: keeps -0 and tiny arguments exact.
    let zero = o.cf(0.0);
    let q0 = o.fcmp(Cmp::Eq, j, zero);
    let r = o.fsel(q0, x, r);
    [r, t]
}

/// Payne-Hanek reduction of a finite `|x| >= 2^16` (anything else gives a meaningless
/// result, which the caller replaces).
fn reduce_large<O: Ops>(o: &mut O, x: O::F) -> [O::F; 2] {
    let ix = o.bits(x);
    let absmask = o.ci(0x7FFF_FFFF);
    let ax = o.and(ix, absmask);
    // x = M 2^(e - 31) with the 24-bit mantissa M at the top of 32 bits.
    let be = o.shr_u(ax, 23);
    let bias = o.ci(127);
    let e = o.isub(be, bias);
    let cap = o.ci(127);
    let e = o.imin(e, cap);
    let mmask = o.ci(0x007F_FFFF);
    let mant = o.and(ax, mmask);
    let hidden = o.ci(0x0080_0000);
    let mant = o.or(mant, hidden);
    let mm = o.shl(mant, 8);
    // P = M * W, W = 2/pi * 2^192: seven 32-bit words, least significant first.
    let mut words = Vec::with_capacity(7);
    let mut carry = o.ci(0);
    for &w in TWO_OVER_PI_BITS.iter().rev() {
        let wk = o.ci(w);
        let t = o.mad_wide(mm, wk, carry);
        words.push(o.lo(t));
        carry = o.hi(t);
    }
    words.push(carry);
    // x * 2/pi = P 2^(e - 223): the binary point is at bit 223 - e. Take the 64 bits from
    // bit 161 - e up (2 integer bits, 62 fraction bits): words jw..jw+2 shifted by s.
    let k = o.ci(161);
    let sh = o.isub(k, e);
    let jw = o.shr_u(sh, 5);
    let m31 = o.ci(31);
    let s = o.and(sh, m31);
    let pick = |o: &mut O, base: usize| -> O::I {
        // jw is 1..=4 for e in 16..=127.
        let mut v = words[base + 4];
        for j in (1..4u32).rev() {
            let jj = o.ci(j);
            let p = o.icmp(Cmp::Eq, jw, jj);
            v = o.isel(p, words[base + j as usize], v);
        }
        v
    };
    let lo = pick(o, 0);
    let mid = pick(o, 1);
    let hi = pick(o, 2);
    let top64 = o.pack(mid, hi);
    let top64 = o.lshr(top64, s);
    let top = o.lo(top64);
    let bot64 = o.pack(lo, mid);
    let bot64 = o.lshr(bot64, s);
    let bot = o.lo(bot64);
    let window = o.pack(bot, top);
    // Quadrant = the two integer bits, rounded by the fraction's first bit; the fraction as a
    // signed 64-bit fixed-point number in [-1/2, 1/2) of a quadrant.
    let q = o.shr_u(top, 30);
    let frac = o.lshl(window, 2);
    let fhi = o.hi(frac);
    let up = o.shr_u(fhi, 31);
    let q = o.iadd(q, up);
    let d = o.l2d(frac);
    let d = o.dmul(d, PIO2_2POW_M64);
    let r = o.d2f(d);
    // Odd symmetry for negative x.
    let zero = o.cf(0.0);
    let neg = o.fcmp(Cmp::Lt, x, zero);
    let nr = o.neg(r);
    let r = o.fsel(neg, nr, r);
    let zi = o.ci(0);
    let nq = o.isub(zi, q);
    let q = o.isel(neg, nq, q);
    let qf = o.float(q);
    [r, qf]
}

/// `sin`, `cos` or `tan` of `x`.
pub(crate) fn trig<O: Ops>(o: &mut O, x: O::F, which: Trig) -> O::F {
    let ax = o.abs(x);
    let lim = o.cf(CODY_WAITE_MAX);
    let large = o.fcmp(Cmp::Ge, ax, lim);
    let [r, qf] = o.branch(large, |o| reduce_large(o, x), |o| reduce_small(o, x));
    let mut q = o.bits(qf);
    if which == Trig::Cos {
        let one = o.ci(1);
        q = o.iadd(q, one);
    }
    let s = o.mul(r, r);
    // sin(r) = r + r^3 S(r^2), with the sign of r (keeps -0).
    let ps = horner(o, s, &SIN);
    let rs = o.mul(r, s);
    let sn = o.fma(rs, ps, r);
    let sn = o.copysign(sn, r);
    // cos(r) = 1 - r^2/2 + r^4 C(r^2).
    let pc = horner(o, s, &COS);
    let mh = o.cf(-0.5);
    let t = o.fma(s, pc, mh);
    let one = o.cf(1.0);
    let cs = o.fma(s, t, one);
    let b1 = o.ci(1);
    let odd = o.and(q, b1);
    let zi = o.ci(0);
    let odd = o.icmp(Cmp::Ne, odd, zi);
    let v = match which {
        Trig::Sin | Trig::Cos => {
            let v = o.fsel(odd, cs, sn);
            let b2 = o.ci(2);
            let hi = o.and(q, b2);
            let flip = o.icmp(Cmp::Ne, hi, zi);
            let nv = o.neg(v);
            o.fsel(flip, nv, v)
        }
        Trig::Tan => {
            let num = o.fsel(odd, cs, sn);
            let nsn = o.neg(sn);
            let den = o.fsel(odd, nsn, cs);
            // |den| is at least about 2^-30 (the reduced argument's distance from zero
            // is bounded below for f32 inputs) and at most 1: the quotient's range.
            super::quotient(o, num, den)
        }
    };
    // Infinities give NaN (NaN propagates by itself).
    let inf = o.cf(f32::INFINITY);
    let is_inf = o.fcmp(Cmp::Eq, ax, inf);
    let nan = o.cf(f32::NAN);
    o.fsel(is_inf, nan, v)
}
