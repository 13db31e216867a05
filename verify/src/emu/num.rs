//! Numeric helpers: integer widths and signedness, float formats, rounding modes, `cvt`.

use dianran_ptx::{Rounding, Type};
use half::{bf16, f16};

/// The low `bits` bits set.
pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub(crate) fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// The integer value of `v` read as `ty` (signed types sign-extended).
pub(crate) fn int_val(v: u64, ty: Type) -> i128 {
    let bits = ty.bits();
    if ty.is_signed() {
        i128::from(sext(v, bits))
    } else {
        i128::from(v & mask(bits))
    }
}

/// Range of an integer type.
pub(crate) fn int_range(ty: Type) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// A floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
}

impl Fmt {
    /// The scalar format of a float type (packed types give their element format).
    pub fn of(ty: Type) -> Option<Fmt> {
        match ty {
            Type::F16 | Type::F16x2 => Some(Fmt::F16),
            Type::Bf16 | Type::Bf16x2 => Some(Fmt::Bf16),
            Type::F32 => Some(Fmt::F32),
            Type::F64 => Some(Fmt::F64),
            _ => None,
        }
    }

    /// The value of `bits` in this format.
    pub fn get(self, bits: u64) -> f64 {
        match self {
            Fmt::F16 => f16::from_bits(bits as u16).to_f64(),
            Fmt::Bf16 => bf16::from_bits(bits as u16).to_f64(),
            Fmt::F32 => f64::from(f32::from_bits(bits as u32)),
            Fmt::F64 => f64::from_bits(bits),
        }
    }

    /// `x` rounded to nearest even in this format.
    fn nearest(self, x: f64) -> u64 {
        match self {
            Fmt::F16 => u64::from(f16::from_f64(x).to_bits()),
            Fmt::Bf16 => u64::from(bf16::from_f64(x).to_bits()),
            Fmt::F32 => u64::from((x as f32).to_bits()),
            Fmt::F64 => x.to_bits(),
        }
    }

    fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::F32 => 32,
            Fmt::F64 => 64,
        }
    }

    /// The next representable value above `b` (toward +inf).
    fn next_up(self, b: u64) -> u64 {
        let v = self.get(b);
        let sign = 1u64 << (self.bits() - 1);
        if v.is_nan() || v == f64::INFINITY {
            b
        } else if v == 0.0 {
            1
        } else if v > 0.0 {
            b + 1
        } else if b & !sign == 0 {
            1
        } else {
            b - 1
        }
    }

    /// The next representable value below `b` (toward -inf).
    fn next_down(self, b: u64) -> u64 {
        let v = self.get(b);
        let sign = 1u64 << (self.bits() - 1);
        if v.is_nan() || v == f64::NEG_INFINITY {
            b
        } else if v == 0.0 {
            sign | 1
        } else if v > 0.0 {
            b - 1
        } else {
            b + 1
        }
    }

    /// `x` rounded to this format with `mode` (`.rn`, `.rz`, `.rm`, `.rp`). Directed modes
    /// are exact when `x` is the exact result (true for products and conversions; a sum of
    /// far-apart magnitudes already rounded to f64 may differ in the last place).
    pub fn round(self, x: f64, mode: Rounding) -> u64 {
        let r = self.nearest(x);
        if x.is_nan() {
            return r;
        }
        let rv = self.get(r);
        if rv == x {
            return r;
        }
        let up = match mode {
            Rounding::Rp | Rounding::Rpi => true,
            Rounding::Rm | Rounding::Rmi => false,
            Rounding::Rz | Rounding::Rzi => x < 0.0,
            _ => return r,
        };
        if up && rv < x {
            self.next_up(r)
        } else if !up && rv > x {
            self.next_down(r)
        } else {
            r
        }
    }
}

/// Knuth's TwoSum: `s = fl(a + b)` and the exact error `e`, so that `s + e == a + b`
/// (`e` is 0 when the sum is not finite).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

impl Fmt {
    /// The exact value `hi + lo` rounded to this format with `mode`, where `hi` is the
    /// value rounded to nearest in f64 and `lo` the exact rest (or any value of its sign).
    /// Directed modes and ties then see which side of `hi` the exact value lies.
    pub fn round_exact(self, hi: f64, lo: f64, mode: Rounding) -> u64 {
        if lo == 0.0 || lo.is_nan() || !hi.is_finite() {
            return self.round(hi, mode);
        }
        let r = self.nearest(hi);
        let rv = self.get(r);
        if !rv.is_finite() {
            return self.round(hi, mode);
        }
        // Whether the exact value lies above `rv` (it never equals it: lo != 0 and, when
        // rv != hi, the f64 rounding moved the exact value by less than rv's distance).
        let above = if rv != hi { hi > rv } else { lo > 0.0 };
        let up = match mode {
            Rounding::Rp | Rounding::Rpi => true,
            Rounding::Rm | Rounding::Rmi => false,
            Rounding::Rz | Rounding::Rzi => hi < 0.0,
            _ => {
                // Nearest: only a tie in f64 needs the rest.
                if rv == hi {
                    return r;
                }
                let other = if hi > rv { self.next_up(r) } else { self.next_down(r) };
                let ov = self.get(other);
                if (hi - rv).abs() != (ov - hi).abs() {
                    return r;
                }
                let toward_other = (lo > 0.0) == (ov > rv);
                return if toward_other { other } else { r };
            }
        };
        match (up, above) {
            (true, true) => self.next_up(r),
            (false, false) => self.next_down(r),
            _ => r,
        }
    }
}

/// Rounds to an integral value (`.rni`, `.rzi`, `.rmi`, `.rpi`).
pub(crate) fn round_int(x: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Rni | Rounding::Rn => x.round_ties_even(),
        Rounding::Rmi | Rounding::Rm => x.floor(),
        Rounding::Rpi | Rounding::Rp => x.ceil(),
        Rounding::Rna => x.round(),
        _ => x.trunc(),
    }
}

/// `cvt.rna.tf32.f32` on f32 bits: keeps 10 mantissa bits, rounding to nearest with ties
/// away from zero, and zeroes the 13 dropped bits.
pub(crate) fn tf32_rna(b: u32) -> u32 {
    // Inf and NaN keep their bits; anything else rounds half away from zero on the 13 low
    // mantissa bits (a carry into the exponent is the correct next binade, or infinity).
    if b & 0x7f80_0000 == 0x7f80_0000 {
        b
    } else {
        b.wrapping_add(0x1000) & !0x1fff
    }
}

/// Flushes an f32 subnormal to a zero of the same sign (`.ftz`).
pub(crate) fn ftz32(b: u64) -> u64 {
    let b = b as u32;
    if b & 0x7f80_0000 == 0 {
        u64::from(b & 0x8000_0000)
    } else {
        u64::from(b)
    }
}

/// `cvt.{round}{.sat}.dty.sty`; `None` for combinations PTX does not define.
pub(crate) fn cvt(dty: Type, sty: Type, round: Option<Rounding>, sat: bool, v: u64) -> Option<u64> {
    let dfmt = Fmt::of(dty);
    if let Some(sfmt) = Fmt::of(sty) {
        let mut x = sfmt.get(v);
        match dfmt {
            Some(df) => {
                if let Some(m @ (Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)) =
                    round
                {
                    x = round_int(x, m);
                }
                if sat {
                    x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
                }
                Some(df.round(x, round.unwrap_or(Rounding::Rn)))
            }
            None => {
                if x.is_nan() {
                    return Some(0);
                }
                let x = round_int(x, round.unwrap_or(Rounding::Rzi));
                let (lo, hi) = int_range(dty);
                let i = if x <= lo as f64 {
                    lo
                } else if x >= hi as f64 {
                    hi
                } else {
                    x as i128
                };
                Some(i as u64 & mask(dty.bits()))
            }
        }
    } else {
        let a = int_val(v, sty);
        match dfmt {
            Some(df) => {
                let mode = round.unwrap_or(Rounding::Rn);
                if a.unsigned_abs() <= 1u128 << 53 {
                    Some(df.round(a as f64, mode))
                } else {
                    // 64-bit magnitudes: round to nearest, then step by comparing exactly.
                    let r = df.nearest(a as f64);
                    let rv = df.get(r);
                    let ri = rv as i128;
                    let up = match mode {
                        Rounding::Rp => true,
                        Rounding::Rm => false,
                        Rounding::Rz => a < 0,
                        _ => return Some(r),
                    };
                    Some(if up && ri < a {
                        df.next_up(r)
                    } else if !up && ri > a {
                        df.next_down(r)
                    } else {
                        r
                    })
                }
            }
            None => {
                let a = if sat {
                    let (lo, hi) = int_range(dty);
                    a.clamp(lo, hi)
                } else {
                    a
                };
                Some(a as u64 & mask(dty.bits()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding() {
        // 1 + 2^-30 lies between 1.0 and the next f32 (1 + 2^-23).
        let x = 1.0 + 2f64.powi(-30);
        assert_eq!(Fmt::F32.round(x, Rounding::Rn), 0x3f80_0000);
        assert_eq!(Fmt::F32.round(x, Rounding::Rp), 0x3f80_0001);
        assert_eq!(Fmt::F32.round(-x, Rounding::Rz), 0xbf80_0000);
        assert_eq!(Fmt::F32.round(-x, Rounding::Rm), 0xbf80_0001);
        assert_eq!(Fmt::F32.round(1e300, Rounding::Rz), 0x7f7f_ffff);
    }

    #[test]
    fn exact_rounding_sees_the_rest() {
        let p = |e: i32| 2f64.powi(e);
        // 1 + 2^-60 is 1.0 in f64: the rest decides directed modes.
        let (hi, lo) = two_sum(1.0, p(-60));
        assert_eq!((hi, lo), (1.0, p(-60)));
        assert_eq!(Fmt::F32.round_exact(hi, lo, Rounding::Rp), 0x3f80_0001);
        assert_eq!(Fmt::F32.round_exact(hi, lo, Rounding::Rm), 0x3f80_0000);
        assert_eq!(Fmt::F32.round_exact(-hi, -lo, Rounding::Rz), 0xbf80_0000);
        assert_eq!(Fmt::F32.round_exact(-hi, -lo, Rounding::Rm), 0xbf80_0001);
        assert_eq!(Fmt::F64.round_exact(hi, lo, Rounding::Rp), (1.0 + p(-52)).to_bits());
        assert_eq!(Fmt::F64.round_exact(hi, -lo, Rounding::Rm), (1.0 - p(-53)).to_bits());
        assert_eq!(Fmt::F64.round_exact(hi, lo, Rounding::Rn), 1f64.to_bits());
        // A tie in f64 (1 + 2^-24 lies halfway between two f32) that the rest breaks.
        let tie = 1.0 + p(-24);
        assert_eq!(Fmt::F32.round_exact(tie, 0.0, Rounding::Rn), 0x3f80_0000);
        assert_eq!(Fmt::F32.round_exact(tie, p(-70), Rounding::Rn), 0x3f80_0001);
        assert_eq!(Fmt::F32.round_exact(tie, -p(-70), Rounding::Rn), 0x3f80_0000);
        // The f16 tie 1 + 2^-11 with a rest above it.
        assert_eq!(Fmt::F16.round_exact(1.0 + p(-11), p(-60), Rounding::Rn), 0x3c01);
        // Infinite sums keep no rest.
        assert_eq!(two_sum(f64::MAX, f64::MAX), (f64::INFINITY, 0.0));
    }

    #[test]
    fn conversions() {
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rounding::Rni), false, f(2.5)), Some(2));
        assert_eq!(
            cvt(Type::S32, Type::F32, Some(Rounding::Rmi), false, f(-2.5)),
            Some(0xffff_fffd)
        );
        assert_eq!(cvt(Type::U32, Type::F32, Some(Rounding::Rzi), false, f(-7.0)), Some(0));
        assert_eq!(cvt(Type::S32, Type::F32, Some(Rounding::Rzi), false, f(f32::NAN)), Some(0));
        assert_eq!(
            cvt(Type::S32, Type::F32, Some(Rounding::Rzi), false, f(3e9)),
            Some(0x7fff_ffff)
        );
        assert_eq!(cvt(Type::F32, Type::F32, Some(Rounding::Rpi), false, f(1.25)), Some(f(2.0)));
        assert_eq!(cvt(Type::F32, Type::F32, None, true, f(1.5)), Some(f(1.0)));
        assert_eq!(cvt(Type::F32, Type::F32, None, true, f(f32::NAN)), Some(0));
        assert_eq!(cvt(Type::F16, Type::F32, Some(Rounding::Rn), false, f(1.0)), Some(0x3c00));
        assert_eq!(cvt(Type::F32, Type::F16, None, false, 0xc000), Some(f(-2.0)));
        assert_eq!(cvt(Type::S64, Type::S32, None, false, 0xffff_fffe), Some(u64::MAX - 1));
        assert_eq!(cvt(Type::U8, Type::S32, None, true, 300), Some(255));
        assert_eq!(cvt(Type::U16, Type::U32, None, false, 0x1_2345), Some(0x2345));
        // 2^24 + 1 is not an f32: rn goes to even (2^24), rp up.
        assert_eq!(
            cvt(Type::F32, Type::U32, Some(Rounding::Rn), false, 16_777_217),
            Some(f(16_777_216.0))
        );
        assert_eq!(
            cvt(Type::F32, Type::U32, Some(Rounding::Rp), false, 16_777_217),
            Some(f(16_777_218.0))
        );
        assert_eq!(
            cvt(Type::F32, Type::U64, Some(Rounding::Rz), false, u64::MAX),
            Some(0x5f7f_ffff)
        );
    }
}
