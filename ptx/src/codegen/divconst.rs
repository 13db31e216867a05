//! Integer division and remainder by a constant without `div`.
//!
//! ptxas expands `div.u32`/`rem.u32` into a reciprocal-and-correct sequence of about fifteen
//! SASS instructions (I2F, MUFU.RCP, F2I, IMAD.HI and two correction steps) even when the
//! divisor is an immediate: `div.u32 %r9, %r8, 4` stayed that sequence at sm_80. NVCC's
//! front end replaces such divisions before ptxas sees them, so we do too: a shift or mask for
//! a power of two, otherwise a multiply by a fixed-point reciprocal, after Granlund and
//! Montgomery, "Division by invariant integers using multiplication" (PLDI 1994): Theorem 4.2
//! for the one-multiply form, Figure 4.1 for the form with an add when no 32-bit multiplier
//! is exact for every dividend. [`UDiv::apply`] is the same plan in plain Rust; the tests
//! compare it with Rust's `/` and the emulator runs the emitted PTX.
//!
//! Signed division (WGSL's `i32 /` truncates toward zero) is replaced for divisors `±2^k`
//! only; other signed divisors keep `div.s32`.

use super::lower::Lower;
use super::regalloc::{RegKind, VRegId};
use crate::model::{build, Flag, Modifier, Opcode, Operand, Type as PT};

/// How to compute `n / d` for a constant `d` ≠ 0 and any `u32` `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UDiv {
    /// `n >> k`: `d = 2^k`.
    Shift(u32),
    /// `mulhi(n >> pre, m) >> post`.
    MulHi { pre: u32, m: u32, post: u32 },
    /// `t = mulhi(n, m)`, then `(t + ((n - t) >> 1)) >> post`.
    MulHiAdd { m: u32, post: u32 },
}

impl UDiv {
    /// The plan for divisor `d`; `None` for 0 (WGSL's `n / 0` is `n`, handled by the caller).
    pub(crate) fn plan(d: u32) -> Option<UDiv> {
        if d == 0 {
            return None;
        }
        if d.is_power_of_two() {
            return Some(UDiv::Shift(d.trailing_zeros()));
        }
        if let Some((m, post)) = magic(d, 32) {
            return Some(UDiv::MulHi { pre: 0, m, post });
        }
        // An even divisor: divide the dividend by its power of two first, which leaves fewer
        // dividend bits and so a multiplier that fits more often (12 = 4 * 3, vec3 strides).
        let pre = d.trailing_zeros();
        if pre > 0 {
            if let Some((m, post)) = magic(d >> pre, 32 - pre) {
                return Some(UDiv::MulHi { pre, m, post });
            }
        }
        // Figure 4.1 with N = 32: l = ceil(log2 d) >= 2 here (d >= 3, not a power of two),
        // m = floor(2^32 (2^l - d) / d) + 1 < 2^32.
        let l = 32 - (d - 1).leading_zeros();
        let m = ((1u128 << 32) * ((1u128 << l) - u128::from(d)) / u128::from(d) + 1) as u32;
        Some(UDiv::MulHiAdd { m, post: l - 1 })
    }

    /// The plan evaluated in Rust (what the emitted instructions compute).
    #[cfg(test)]
    fn apply(self, n: u32) -> u32 {
        let mulhi = |a: u32, b: u32| ((u64::from(a) * u64::from(b)) >> 32) as u32;
        match self {
            UDiv::Shift(k) => n >> k,
            UDiv::MulHi { pre, m, post } => mulhi(n >> pre, m) >> post,
            UDiv::MulHiAdd { m, post } => {
                let t = mulhi(n, m);
                (t + ((n - t) >> 1)) >> post
            }
        }
    }
}

/// A multiplier `m < 2^32` and shift `s` such that `n / d = (n * m) >> (32 + s)` for every
/// `n < 2^bits` (Theorem 4.2: it suffices that `2^(bits+p) <= m d <= 2^(bits+p) + 2^p`).
fn magic(d: u32, bits: u32) -> Option<(u32, u32)> {
    let d = u128::from(d);
    for p in 32u32.saturating_sub(bits)..=32 {
        let two = 1u128 << (bits + p);
        let m = two.div_ceil(d);
        if m >> 32 != 0 {
            // The multiplier only grows with p.
            return None;
        }
        if m * d - two <= 1u128 << p {
            return Some((m as u32, bits + p - 32));
        }
    }
    None
}

impl Lower<'_> {
    /// `n / d` on `u32` for a constant `d` ≠ 0.
    pub(crate) fn udiv_const(&mut self, n: VRegId, d: u32) -> Option<VRegId> {
        let hi = |me: &mut Self, a: VRegId, m: u32| {
            me.def(RegKind::B32, |r| {
                build::binary(
                    Opcode::Mul,
                    &[Modifier::Flag(Flag::Hi)],
                    PT::U32,
                    r,
                    a,
                    Operand::Imm(i64::from(m)),
                )
            })
        };
        let shr = |me: &mut Self, a: VRegId, k: u32| {
            if k == 0 {
                a
            } else {
                me.binop(Opcode::Shr, &[], PT::U32, a, Operand::Imm(i64::from(k)))
            }
        };
        Some(match UDiv::plan(d)? {
            UDiv::Shift(k) => shr(self, n, k),
            UDiv::MulHi { pre, m, post } => {
                let a = shr(self, n, pre);
                let t = hi(self, a, m);
                shr(self, t, post)
            }
            UDiv::MulHiAdd { m, post } => {
                let t = hi(self, n, m);
                let diff = self.def(RegKind::B32, |r| build::sub(PT::U32, r, n, t));
                let half = shr(self, diff, 1);
                let sum = self.def(RegKind::B32, |r| build::add(PT::U32, r, t, half));
                shr(self, sum, post)
            }
        })
    }

    /// `n % d` on `u32` for a constant `d` ≠ 0.
    pub(crate) fn urem_const(&mut self, n: VRegId, d: u32) -> Option<VRegId> {
        if d.is_power_of_two() {
            return Some(self.binop(Opcode::And, &[], PT::B32, n, Operand::Imm(i64::from(d - 1))));
        }
        let q = self.udiv_const(n, d)?;
        Some(self.neg_mad(q, d, n))
    }

    /// `n / d` on `i32` (truncating) for a constant `d = ±2^k`, `1 <= k <= 30`.
    pub(crate) fn sdiv_const(&mut self, n: VRegId, d: i32) -> Option<VRegId> {
        let k = signed_shift(d)?;
        // Negative dividends round toward zero: add 2^k - 1 before the arithmetic shift.
        let sign = self.binop(Opcode::Shr, &[], PT::S32, n, Operand::Imm(31));
        let bias = self.binop(Opcode::Shr, &[], PT::U32, sign, Operand::Imm(i64::from(32 - k)));
        let biased = self.def(RegKind::B32, |r| build::add(PT::S32, r, n, bias));
        let q = self.binop(Opcode::Shr, &[], PT::S32, biased, Operand::Imm(i64::from(k)));
        Some(if d < 0 {
            self.def(RegKind::B32, |r| build::unary(Opcode::Neg, &[], PT::S32, r, q))
        } else {
            q
        })
    }

    /// `n % d` on `i32` (the sign of `n`) for a constant `d = ±2^k`, `1 <= k <= 30`.
    pub(crate) fn srem_const(&mut self, n: VRegId, d: i32) -> Option<VRegId> {
        let q = self.sdiv_const(n, d)?;
        Some(self.neg_mad(q, d as u32, n))
    }

    /// `n - q * d` modulo 2^32 as one `mad.lo`.
    fn neg_mad(&mut self, q: VRegId, d: u32, n: VRegId) -> VRegId {
        let minus_d = Operand::Imm(i64::from(d.wrapping_neg()));
        self.def(RegKind::B32, |r| build::mad_lo(PT::U32, r, q, minus_d, n))
    }
}

/// `k` for `d = ±2^k` with `1 <= k <= 30`.
fn signed_shift(d: i32) -> Option<u32> {
    let a = d.unsigned_abs();
    (a.is_power_of_two() && (2..=1 << 30).contains(&a)).then(|| a.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dividends that stress a plan: the ends of the range, multiples of `d` and their
    /// neighbours, and a spread of pseudo-random values.
    fn dividends(d: u32) -> Vec<u32> {
        let mut v = vec![0, 1, 2, u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1];
        let top = u32::MAX / d;
        for q in [1, 2, 3, top / 2, top - 1, top] {
            let base = q.wrapping_mul(d);
            v.extend([base.wrapping_sub(1), base, base.wrapping_add(1)]);
        }
        let mut x = 0x9E37_79B9u32 ^ d;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(x);
        }
        v
    }

    #[test]
    fn unsigned_plans_divide_exactly() {
        let mut divisors: Vec<u32> = (1..=1100).collect();
        divisors.extend([
            12,
            24,
            641,
            6700417,
            0x7FFF_FFFF,
            0x8000_0001,
            0xFFFF_FFFE,
            u32::MAX,
            1 << 31,
            3 << 30,
        ]);
        let mut x = 12345u32;
        for _ in 0..300 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            divisors.push(x | 1);
        }
        for d in divisors {
            let plan = UDiv::plan(d).unwrap();
            for n in dividends(d) {
                assert_eq!(plan.apply(n), n / d, "{n} / {d} with {plan:?}");
            }
        }
        assert_eq!(UDiv::plan(0), None);
    }

    #[test]
    fn common_strides_take_the_short_forms() {
        // Hand-derived: 2^33 / 3 rounded up is 0xAAAAAAAB, shift 1.
        assert_eq!(UDiv::plan(3), Some(UDiv::MulHi { pre: 0, m: 0xAAAA_AAAB, post: 1 }));
        assert_eq!(UDiv::plan(12), Some(UDiv::MulHi { pre: 0, m: 0xAAAA_AAAB, post: 3 }));
        assert_eq!(UDiv::plan(16), Some(UDiv::Shift(4)));
        // 7 has no exact 32-bit multiplier: the add form.
        assert!(matches!(UDiv::plan(7), Some(UDiv::MulHiAdd { .. })));
    }

    #[test]
    fn signed_powers_of_two_only() {
        assert_eq!(signed_shift(4), Some(2));
        assert_eq!(signed_shift(-8), Some(3));
        assert_eq!(signed_shift(1), None);
        assert_eq!(signed_shift(-1), None);
        assert_eq!(signed_shift(6), None);
        assert_eq!(signed_shift(i32::MIN), None);
        assert_eq!(signed_shift(1 << 30), Some(30));
    }
}
