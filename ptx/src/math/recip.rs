//! Reciprocals, quotients and square roots on the special-function unit, refined until the
//! result no longer depends on the approximation.
//!
//! `div.rn.f32` is correctly rounded, but `ptxas` expands it into a fast path and a slow-path
//! subroutine of about forty instructions per division site, which made every function that
//! divides several times longer than CUDA's. Here a division costs eight instructions:
//!
//! 1. `r0 = rcp.approx.ftz(b)`, within 1 ulp of `1/b` (the PTX ISA's bound);
//! 2. one Newton step, `e = 1 - b r0` and `y = r0 + r0 e` with `fma`, gives `y = RN(1/b)` for
//!    every `r0` the bound allows and every normal `b` whose reciprocal is normal, with one
//!    exception that a select repairs: when `b`'s significand is all ones and `r0` is the
//!    power of two just below `1/b`, `e` is exactly 2^-24 and `r0 + r0 e` is a tie that rounds
//!    back to `r0`; the true reciprocal lies above the tie by `r0 e^2`, so `e` is raised to
//!    `2^-24 + 2^-47` there. The unit test `recip_is_correctly_rounded_for_every_allowed_start`
//!    checks both claims over every significand and every start within the bound;
//! 3. `q0 = a y`, `r = a - b q0` (exact with `fma`), `q = q0 + r y`: Markstein's theorem gives
//!    `q = RN(a/b)` when `y = RN(1/b)` and nothing under- or overflows (tested on random pairs
//!    and on the exceptional significand with every `a`).
//!
//! So inside those ranges the result is `div.rn.f32`'s, bit for bit, whatever value the
//! hardware's `MUFU.RCP` returns within its bound: the CPU twin ([`super::Native`]) and the
//! emulator, which return the correctly rounded reciprocal, predict the GPU. Outside them the
//! sequence is still a fixed function of `y`, but `y` may depend on the approximation (a
//! subnormal or flushed reciprocal), and `b = 0` or infinite gives NaN: every caller keeps its
//! divisor in range or overrides those lanes, and says how.
//!
//! The square root follows the same idea (`ptxas` expands `sqrt.rn.f32` into a fast path and
//! a slow-path subroutine too): from `y0 = rsqrt.approx.ftz(x)` (within 2^-22.9 relative),
//! `s0 = x y0`, `h0 = y0 / 2`, the residual `r = 1/2 - s0 h0`, `s1 = s0 + s0 r`,
//! `h1 = h0 + h0 r`, and one correction `s = s1 + (x - s1^2) h1`. For every `x` in
//! [2^-100, 2^128) and every start the bound allows this is `RN(sqrt(x))`
//! (`sqrt_is_correctly_rounded_for_every_allowed_start` checks all significands of both
//! exponent parities at the ends and the middle of that range). A one-correction form from
//! `y0` alone (`ptxas`'s fast path) fails for two significands with some starts, two
//! corrections for one.

use super::ops::{Cmp, Ops};

/// `e` in the tie of step 2 (2^-24) and what it becomes (2^-24 + 2^-47).
const TIE: f32 = f32::from_bits(0x3380_0000);
const TIE_UP: f32 = f32::from_bits(0x3380_0001);

/// One Newton step from an approximate reciprocal `r0` of `b` to `RN(1/b)` (step 2 above).
pub(crate) fn recip_step<O: Ops>(o: &mut O, b: O::F, r0: O::F) -> O::F {
    let one = o.cf(1.0);
    let nb = o.neg(b);
    let e = o.fma(nb, r0, one);
    let t = o.cf(TIE);
    let tie = o.fcmp(Cmp::Eq, e, t);
    let up = o.cf(TIE_UP);
    let e = o.fsel(tie, up, e);
    o.fma(r0, e, r0)
}

/// `RN(1/b)` for normal `b` with `|b| < 2^126` (NaN for zeros and infinities).
pub(crate) fn recip<O: Ops>(o: &mut O, b: O::F) -> O::F {
    let r0 = o.rcp_approx(b);
    recip_step(o, b, r0)
}

/// `RN(sqrt(x))` for `x` in [2^-100, 2^128) (NaN for zero, infinity and negative `x`).
pub(crate) fn sqrt<O: Ops>(o: &mut O, x: O::F) -> O::F {
    let y0 = o.rsqrt_approx(x);
    sqrt_step(o, x, y0)
}

/// The refinement of `sqrt` from a start `y0` near `1/sqrt(x)`.
pub(crate) fn sqrt_step<O: Ops>(o: &mut O, x: O::F, y0: O::F) -> O::F {
    let s0 = o.mul(x, y0);
    let half = o.cf(0.5);
    let h0 = o.mul(y0, half);
    let ns0 = o.neg(s0);
    let r = o.fma(ns0, h0, half);
    let s1 = o.fma(s0, r, s0);
    let h1 = o.fma(h0, r, h0);
    let ns1 = o.neg(s1);
    let d = o.fma(ns1, s1, x);
    o.fma(d, h1, s1)
}

/// `a * (1/b)` corrected once: `RN(a/b)` when `b` is in [`recip`]'s range and `a/b` and
/// `a/b`'s residual are normal (step 3 above).
pub(crate) fn quotient<O: Ops>(o: &mut O, a: O::F, b: O::F) -> O::F {
    let y = recip(o, b);
    quotient_with(o, a, b, y)
}

/// Step 3 with the reciprocal `y = recip(b)` given (two quotients by one divisor).
pub(crate) fn quotient_with<O: Ops>(o: &mut O, a: O::F, b: O::F, y: O::F) -> O::F {
    let q0 = o.mul(a, y);
    let nb = o.neg(b);
    let r = o.fma(nb, q0, a);
    o.fma(r, y, q0)
}

#[cfg(test)]
mod tests {
    use super::super::Native;
    use super::*;

    fn next(x: f32) -> f32 {
        f32::from_bits(x.to_bits() + 1)
    }
    fn prev(x: f32) -> f32 {
        f32::from_bits(x.to_bits() - 1)
    }

    /// Every float within 1 ulp (of the exact value's binade) of `1/b`, for `b` in [1, 2).
    fn starts(b: f32) -> Vec<f32> {
        let exact = 1.0 / f64::from(b);
        let ulp = if exact < 1.0 { 2f64.powi(-24) } else { 2f64.powi(-23) };
        let rn = 1.0 / b;
        [prev(prev(rn)), prev(rn), rn, next(rn), next(next(rn))]
            .into_iter()
            .filter(|&c| (f64::from(c) - exact).abs() <= ulp)
            .collect()
    }

    #[test]
    fn recip_is_correctly_rounded_for_every_allowed_start() {
        // The reciprocal's significand only depends on b's, so b in [1, 2) covers every
        // normal b with a normal reciprocal (the exponent scales both sides exactly).
        for m in 0u32..(1 << 23) {
            let b = f32::from_bits(0x3F80_0000 | m);
            let want = 1.0 / b;
            for r0 in starts(b) {
                let y = recip_step(&mut Native, b, r0);
                assert_eq!(y.to_bits(), want.to_bits(), "b = {b:e}, start {r0:e}");
                let y = recip_step(&mut Native, -b, -r0);
                assert_eq!(y.to_bits(), (-want).to_bits(), "b = {:e}, start {:e}", -b, -r0);
            }
        }
    }

    #[test]
    fn quotient_is_correctly_rounded() {
        // The significand where step 2 needs its repair, against every a in [1, 2), and a
        // few million random pairs over a wide exponent range.
        let b = f32::from_bits(0x3FFF_FFFF);
        for m in 0u32..(1 << 23) {
            let a = f32::from_bits(0x3F80_0000 | m);
            assert_eq!(quotient(&mut Native, a, b).to_bits(), (a / b).to_bits(), "{a:e} / {b:e}");
        }
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..4_000_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let ea = (s >> 40) as u32 % 120 + 60;
            let eb = (s >> 48) as u32 % 120 + 64;
            let a = f32::from_bits(
                (ea << 23) | (s as u32 & 0x7F_FFFF) | (((s >> 56) as u32 & 1) << 31),
            );
            let b = f32::from_bits((eb << 23) | ((s >> 23) as u32 & 0x7F_FFFF));
            assert_eq!(quotient(&mut Native, a, b).to_bits(), (a / b).to_bits(), "{a:e} / {b:e}");
        }
    }

    #[test]
    fn sqrt_is_correctly_rounded_for_every_allowed_start() {
        // x = 4^k m for m in [1, 4): the refinement scales exactly with 2^k, so whole
        // binade pairs at the range's ends and middle stand for the rest.
        let bound = 2f64.powf(-22.9);
        for base in [-100i32, 0, 126] {
            for parity in 0..2 {
                let e = (base + parity + 127) as u32;
                for m in 0u32..(1 << 23) {
                    let x = f32::from_bits((e << 23) | m);
                    let want = f64::from(x).sqrt() as f32;
                    let exact = 1.0 / f64::from(x).sqrt();
                    let rn = exact as f32;
                    let mut c = f32::from_bits(rn.to_bits() - 3);
                    for _ in 0..7 {
                        if ((f64::from(c) - exact) / exact).abs() <= bound {
                            let s = sqrt_step(&mut Native, x, c);
                            assert_eq!(s.to_bits(), want.to_bits(), "sqrt({x:e}) from {c:e}");
                        }
                        c = next(c);
                    }
                }
            }
        }
    }

    #[test]
    fn sqrt_any_is_sqrt_rn_everywhere() {
        // Every 251st bit pattern (all signs, subnormals, zeros, infinities, NaN).
        let mut bits = 0u64;
        while bits < 1 << 32 {
            let x = f32::from_bits(bits as u32);
            let got = super::super::sqrt_any(&mut Native, x);
            let want = x.sqrt();
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "sqrt({x:e}) = {got:e}, want {want:e}"
            );
            bits += 251;
        }
        for x in [0.0f32, -0.0, f32::INFINITY, f32::from_bits(1), f32::MIN_POSITIVE, f32::MAX] {
            let got = super::super::sqrt_any(&mut Native, x);
            assert_eq!(got.to_bits(), x.sqrt().to_bits(), "{x:e}");
        }
    }

    #[test]
    fn recip_of_zero_and_infinity_is_nan() {
        // Callers rely on knowing what leaves the range: they override these lanes.
        for b in [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(recip(&mut Native, b).is_nan(), "{b}");
        }
    }
}
