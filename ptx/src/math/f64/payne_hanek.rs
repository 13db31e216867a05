//! Payne-Hanek reduction for f64 `sin`, `cos` and `tan` of `2^40 <= |x| < inf`, a rare path
//! behind a branch.
//!
//! `|x| = xh + xl` with 27 and 26 significant bits, 2/pi in 24-bit chunks `t_i 2^(-24(i+1))`
//! ([`TWO_OVER_PI_24`]), so every product `x_half * chunk` is exact. The chunks before `i0 =
//! floor((e - 54) / 24)` (`e` the exponent of `x`) only add multiples of 4 (a whole number of
//! turns) and are skipped; ten chunks from `i0` leave a tail below 2^-161. `x` is scaled by
//! `2^(-24 i0)` (exact) so the products stay in range. Each product is reduced modulo 4
//! (exact) and summed as a triple-f64, so the fraction of a quadrant comes out with an
//! absolute error near 2^-146, far below the 2^-61 f64 arguments come to a multiple of pi/2.

use super::dd::{dd_mul, fabs, neg};
use super::{fast_two_sum, pow2, two_sum, Ops64};
use crate::math::Cmp;

/// 2/pi in 24-bit chunks: `2/pi = sum t_i 2^(-24(i+1))`, enough for exponents up to 1023.
const TWO_OVER_PI_24: [u32; 50] = [
    10_680_707, 7_228_996, 1_387_004, 2_578_385, 16_069_853, 12_639_074, 9_804_092, 4_427_841,
    16_666_979, 11_263_675, 12_935_607, 2_387_514, 4_345_298, 14_681_673, 3_074_569, 13_734_428,
    16_653_803, 1_880_361, 10_960_616, 8_533_493, 3_062_596, 8_710_556, 7_349_940, 6_258_241,
    3_772_886, 3_769_171, 3_798_172, 8_675_211, 12_450_088, 3_874_808, 9_961_438, 366_607,
    15_675_153, 9_132_554, 7_151_469, 3_571_407, 2_607_881, 12_013_382, 4_155_038, 6_285_869,
    7_677_882, 13_102_053, 15_825_725, 473_591, 9_065_106, 15_363_067, 6_271_263, 9_264_392,
    5_636_912, 4_652_155,
];

/// Chunks used from `i0` on (nine suffice; they are selected in pairs).
const CHUNKS: usize = 10;
/// The largest `i0` (for `e = 1023`).
const MAX_I0: usize = TWO_OVER_PI_24.len() - CHUNKS;

/// pi/2 as a double-f64.
const PIO2: (f64, f64) =
    (f64::from_bits(0x3FF9_21FB_5444_2D18), f64::from_bits(0x3C91_A626_3314_5C07));

/// `p mod 4` in [-2, 2], exact for an exact `p`.
fn mod4<O: Ops64>(o: &mut O, p: O::D) -> O::D {
    let quarter = o.k(0.25);
    let q = o.mul(p, quarter);
    let n = o.rint(q);
    let m4 = o.k(-4.0);
    o.fma(n, m4, p)
}

/// `x = j pi/2 + (rh + rl)` for a finite `|x| >= 2^40` (anything else gives a meaningless
/// result): `[j, rh, rl]`, `j` integral modulo 4.
pub(super) fn reduce_large<O: Ops64>(o: &mut O, x: O::D) -> [O::D; 3] {
    let ax = fabs(o, x);
    let ix = o.bits(ax);
    let be = o.lshr_s(ix, 52);
    let bias = o.kl(1023);
    let e = o.lsub(be, bias);
    let ef = o.l2d(e);
    // The halves: the top 27 significant bits, and the rest (exact).
    let mask = o.kl(0xFFFF_FFFF_FC00_0000);
    let hb = o.land(ix, mask);
    let xh = o.float(hb);
    let xl = o.sub(ax, xh);
    // i0 = max(0, floor((e - 54) / 24)): (e - 54 - 11.5) / 24 is never within 0.02 of a tie.
    let c = o.k(-65.5);
    let t = o.add(ef, c);
    let k24 = o.k(1.0 / 24.0);
    let t = o.mul(t, k24);
    let i0 = o.rint(t);
    let zero = o.k(0.0);
    let below = o.cmp(Cmp::Lt, i0, zero);
    let i0 = o.sel(below, zero, i0);
    // Scale x by 2^(-24 i0).
    let m24 = o.k(-24.0);
    let sh = o.mul(i0, m24);
    let n = o.d2l(sh);
    let s = pow2(o, n);
    let xh = o.mul(xh, s);
    let xl = o.mul(xl, s);
    // The chunks t_(i0+k), selected in pairs `t_a 2^24 + t_b` (48 bits, exact) to halve the
    // selects, then split: `t_a = rint((pair - (2^24 - 1)/2) / 2^24)` is never near a tie.
    let mut pairs = [zero; CHUNKS / 2];
    for v in 0..=MAX_I0 {
        let vk = o.k(v as f64);
        let is = o.cmp(Cmp::Eq, i0, vk);
        for (m, pair) in pairs.iter_mut().enumerate() {
            let hi = f64::from(TWO_OVER_PI_24[v + 2 * m]);
            let lo = f64::from(TWO_OVER_PI_24[v + 2 * m + 1]);
            let pk = o.k(hi * 16_777_216.0 + lo);
            *pair = o.sel(is, pk, *pair);
        }
    }
    let mut chunks = [zero; CHUNKS];
    for (m, &pair) in pairs.iter().enumerate() {
        let half = o.k(-8_388_607.5);
        let t = o.add(pair, half);
        let inv = o.k(1.0 / 16_777_216.0);
        let t = o.mul(t, inv);
        let hi = o.rint(t);
        let m24 = o.k(-16_777_216.0);
        let lo = o.fma(hi, m24, pair);
        // Scaled by 2^(-24(k+1)) for chunks k = 2m and 2m + 1.
        let sh = o.k(2f64.powi(-48 * m as i32 - 24));
        let sl = o.k(2f64.powi(-48 * m as i32 - 48));
        chunks[2 * m] = o.mul(hi, sh);
        chunks[2 * m + 1] = o.mul(lo, sl);
    }
    // The sum of the products modulo 4 as a triple-f64 (s0, s1, s2).
    let (mut s0, mut s1, mut s2) = (zero, zero, zero);
    for ch in chunks {
        for half in [xh, xl] {
            let p = o.mul(half, ch);
            let p = mod4(o, p);
            let (a, e0) = two_sum(o, s0, p);
            let (b, e1) = two_sum(o, s1, e0);
            s0 = a;
            s1 = b;
            s2 = o.add(s2, e1);
        }
    }
    // The quadrant: the nearest integers to s0, then to the rest; the fraction in [-1/2, 1/2].
    // Every step exact until the last addition, which happens only once the fraction's
    // leading part is known (it may cancel to ~2^-61).
    let j0 = o.rint(s0);
    let f0 = o.sub(s0, j0);
    let (a, b) = two_sum(o, f0, s1);
    let j1 = o.rint(a);
    let a = o.sub(a, j1);
    let (a, b) = two_sum(o, a, b);
    let b = o.add(b, s2);
    let frac = fast_two_sum(o, a, b);
    let j = o.add(j0, j1);
    let p2h = o.k(PIO2.0);
    let p2l = o.k(PIO2.1);
    let (rh, rl) = dd_mul(o, frac, (p2h, p2l));
    // Odd symmetry for negative x.
    let negx = o.cmp(Cmp::Lt, x, zero);
    let nj = neg(o, j);
    let nrh = neg(o, rh);
    let nrl = neg(o, rl);
    let j = o.sel(negx, nj, j);
    let rh = o.sel(negx, nrh, rh);
    let rl = o.sel(negx, nrl, rl);
    [j, rh, rl]
}
