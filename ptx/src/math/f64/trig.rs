//! `sin`, `cos` and `tan` on f64.
//!
//! Argument reduction `x = j pi/2 + r`, `|r| <= pi/4`, by Cody-Waite with pi/2 in three f64
//! parts (159 bits): `x - j P1` is exact (both are multiples of 2^-52 less than 2 apart),
//! `j P2` is kept exactly with an fma, and `r` comes out as a double-f64 `rh + rl`. The
//! error is about `|j| 2^-161`, so up to [`CODY_WAITE_MAX`] (`|j| < 2^40`) it is below 2^-60
//! of the smallest `|r|` any f64 reaches (about 2^-61, at the f64 closest to a multiple of
//! pi/2). Beyond that, Payne-Hanek ([`super::payne_hanek`], behind a branch).
//!
//! Then Taylor polynomials for `sin` and `cos` on [-pi/4, pi/4] evaluated on the double-f64
//! `r`, chosen and signed by the quadrant `j mod 4`; `tan` is their double-f64 quotient.

use super::dd::{dd_div, dd_neg, dd_sel, fabs, neg, Dd};
use super::{fast_two_sum, horner, two_prod, two_sum, Ops64};
use crate::math::Cmp;

/// pi/2 rounded.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5444_2D18);
/// `pi/2 - PIO2_1` rounded.
const PIO2_2: f64 = f64::from_bits(0x3C91_A626_3314_5C07);
/// `pi/2 - PIO2_1 - PIO2_2` rounded.
const PIO2_3: f64 = f64::from_bits(0xB91F_1976_B7ED_8FBC);
/// 2/pi rounded.
const TWO_OVER_PI: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883);
/// 2^40: the magnitude up to which Cody-Waite is accurate (module docs).
pub(super) const CODY_WAITE_MAX: f64 = 1_099_511_627_776.0;

/// `(-1)^n / (2n+1)!` for n = 1..=10: `sin r = r + r^3 S(r^2)`; the truncation error on
/// |r| <= pi/4 is below `(pi/4)^23 / 23! < 2^-79`.
const SIN: [f64; 10] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
    -1.0 / 121_645_100_408_832_000.0,
    1.0 / 51_090_942_171_709_440_000.0,
];

/// `(-1)^n / (2n)!` for n = 2..=10: `cos r = 1 - r^2/2 + r^4 C(r^2)`; the truncation error on
/// |r| <= pi/4 is below `(pi/4)^22 / 22! < 2^-75`.
const COS: [f64; 9] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 6_402_373_705_728_000.0,
    1.0 / 2_432_902_008_176_640_000.0,
];

/// Which function [`trig`] builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// `x = j pi/2 + (rh + rl)`: returns `(j, rh, rl)`. Quadrant 0 returns `x` itself, which
/// keeps `-0` and tiny arguments exact.
fn reduce<O: Ops64>(o: &mut O, x: O::D) -> (O::D, O::D, O::D) {
    let k = o.k(TWO_OVER_PI);
    let t = o.mul(x, k);
    let j = o.rint(t);
    let nj = neg(o, j);
    let c1 = o.k(PIO2_1);
    let r1 = o.fma(nj, c1, x);
    let c2 = o.k(PIO2_2);
    let (p2, e2) = two_prod(o, nj, c2);
    let (s, se) = two_sum(o, r1, p2);
    let c3 = o.k(PIO2_3);
    let p3 = o.mul(nj, c3);
    let lo = o.add(e2, p3);
    let lo = o.add(se, lo);
    let (rh, rl) = fast_two_sum(o, s, lo);
    let zero = o.k(0.0);
    let q0 = o.cmp(Cmp::Eq, j, zero);
    let rh = o.sel(q0, x, rh);
    let rl = o.sel(q0, zero, rl);
    (j, rh, rl)
}

/// `(sin r, cos r)` as double-f64 values for `r = rh + rl`, |r| <= pi/4 (about):
/// `sin = rh + (rh^3 S + rl (1 - rh^2/2))` and `cos = w + ((1 - w) - rh^2/2 + rh^4 C - rh rl)`
/// with `w = 1 - rh^2/2` and `rh^2` as a double-f64, so the large parts add last.
fn kernel<O: Ops64>(o: &mut O, rh: O::D, rl: O::D) -> (Dd<O::D>, Dd<O::D>) {
    let zero = o.k(0.0);
    let z = o.mul(rh, rh);
    let nz = neg(o, z);
    let zl = o.fma(rh, rh, nz);
    let half = o.k(0.5);
    let hz = o.mul(z, half);
    // sin
    let ps = horner(o, z, &SIN);
    let t = o.mul(rh, z);
    let nhz = neg(o, hz);
    let a = o.fma(nhz, rl, rl);
    let stail = o.fma(t, ps, a);
    let s = fast_two_sum(o, rh, stail);
    // cos
    let one = o.k(1.0);
    let w = o.sub(one, hz);
    let ow = o.sub(one, w);
    let corr = o.sub(ow, hz);
    let pc = horner(o, z, &COS);
    let z2 = o.mul(z, z);
    let hzl = o.mul(zl, half);
    let prl = o.fma(rh, rl, hzl);
    let nprl = o.sub(zero, prl);
    let ctail = o.fma(z2, pc, nprl);
    let ctail = o.add(corr, ctail);
    let c = fast_two_sum(o, w, ctail);
    (s, c)
}

/// `sin`, `cos` or `tan` of `x`.
pub(crate) fn trig<O: Ops64>(o: &mut O, x: O::D, which: Trig) -> O::D {
    let ax = fabs(o, x);
    // Finite and beyond Cody-Waite's range: Payne-Hanek (rare, behind a branch). Infinities
    // take Cody-Waite, whose reduced argument is then NaN.
    let zero = o.k(0.0);
    let inf = o.k(f64::INFINITY);
    let finite = o.cmp(Cmp::Lt, ax, inf);
    let fx = o.sel(finite, ax, zero);
    let lim = o.k(CODY_WAITE_MAX);
    let huge = o.cmp(Cmp::Ge, fx, lim);
    let [j, rh, rl] = o.branch(
        huge,
        |o| super::payne_hanek::reduce_large(o, x),
        |o| {
            let (j, rh, rl) = reduce(o, x);
            [j, rh, rl]
        },
    );

    let mut q = o.d2l(j);
    if which == Trig::Cos {
        let one = o.kl(1);
        q = o.ladd(q, one);
    }
    let b1 = o.kl(1);
    let odd = o.land(q, b1);
    let odd = o.l2d(odd);
    let odd = o.cmp(Cmp::Ne, odd, zero);
    let (s, c) = kernel(o, rh, rl);
    let v = match which {
        Trig::Sin | Trig::Cos => {
            let v = o.sel(odd, c.0, s.0);
            let b2 = o.kl(2);
            let hi = o.land(q, b2);
            let hi = o.l2d(hi);
            let flip = o.cmp(Cmp::Ne, hi, zero);
            let nv = neg(o, v);
            o.sel(flip, nv, v)
        }
        Trig::Tan => {
            // tan = sin/cos, or -cos/sin in odd quadrants.
            let num = dd_sel(o, odd, c, s);
            let ns = dd_neg(o, s);
            let den = dd_sel(o, odd, ns, c);
            let (qh, ql) = dd_div(o, num, den);
            o.add(qh, ql)
        }
    };
    // sin and tan of +-0 are +-0 (the sums above can turn -0 into +0).
    if which == Trig::Cos {
        v
    } else {
        let at_zero = o.cmp(Cmp::Eq, x, zero);
        o.sel(at_zero, x, v)
    }
}
