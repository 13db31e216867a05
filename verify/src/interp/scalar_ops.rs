//! WGSL scalar semantics shared by the 32-bit words of [`super::math`] and the 64-bit
//! components of [`super::wide`]: one definition of the integer operators (wrapping
//! arithmetic, division by zero gives the dividend and remainder 0, `MIN / -1` is `MIN`,
//! shift amounts masked to the bit width), of `min`/`max`/`abs`/`sign`, of the integer
//! atomics, and of the float operators, written once and instantiated per width so that
//! neither interpreter path pays for the sharing (everything is monomorphic and inlined).

use dianran_frontend::ir::{BinaryOperator, Scalar, TypeId, Types};
use std::ops::{Add, Div, Mul, Sub};

/// Scalar component type of a value type (`bool` for anything without one).
pub(super) fn scal(types: &Types, ty: TypeId) -> Scalar {
    types.scalar_of(ty).unwrap_or(Scalar::Bool)
}

/// Whether comparison `op` holds for `a` and `c`; `None` when `op` is not a comparison.
#[inline]
pub(super) fn holds<T: PartialOrd>(op: BinaryOperator, a: T, c: T) -> Option<bool> {
    use BinaryOperator as B;
    Some(match op {
        B::Equal => a == c,
        B::NotEqual => a != c,
        B::Less => a < c,
        B::LessEqual => a <= c,
        B::Greater => a > c,
        B::GreaterEqual => a >= c,
        _ => return None,
    })
}

/// `a op c` on floats: `Ok` with an arithmetic result (`%` is `a - c * trunc(a / c)`, each
/// step one IEEE operation), `Err` with a comparison's truth, `None` for an operator floats
/// lack. `trunc` is the width's own (`f32::trunc`, `f64::trunc`).
#[inline]
pub(super) fn float_binary<T>(
    op: BinaryOperator,
    a: T,
    c: T,
    trunc: fn(T) -> T,
) -> Option<Result<T, bool>>
where
    T: Copy + PartialOrd + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>,
{
    use BinaryOperator as B;
    Some(Ok(match op {
        B::Add => a + c,
        B::Subtract => a - c,
        B::Multiply => a * c,
        B::Divide => a / c,
        B::Modulo => a - c * trunc(a / c),
        _ => return holds(op, a, c).map(Err),
    }))
}

/// The integer semantics for one width: `$u` holds the bits, `$i` is their signed reading.
macro_rules! wgsl_int {
    ($(#[$doc:meta])* $name:ident: $u:ty, $i:ty) => {
        $(#[$doc])*
        pub(super) mod $name {
            use dianran_frontend::ir::{AtomicOp, BinaryOperator};

            /// WGSL masks a shift amount to the bit width.
            const SHIFT_MASK: $u = <$u>::BITS as $u - 1;

            /// `x op y` (read as two's complement when `signed`): `Ok` with the result
            /// bits, `Err` with a comparison's truth, `None` for an operator integers lack.
            #[inline]
            pub(crate) fn binary(
                op: BinaryOperator,
                signed: bool,
                x: $u,
                y: $u,
            ) -> Option<Result<$u, bool>> {
                use BinaryOperator as B;
                let (a, c) = (x as $i, y as $i);
                Some(Ok(match op {
                    // The same bits for both signednesses.
                    B::Add => x.wrapping_add(y),
                    B::Subtract => x.wrapping_sub(y),
                    B::Multiply => x.wrapping_mul(y),
                    B::And => x & y,
                    B::InclusiveOr => x | y,
                    B::ExclusiveOr => x ^ y,
                    B::ShiftLeft => x << (y & SHIFT_MASK),
                    B::Divide if signed => {
                        if c == 0 {
                            x
                        } else {
                            a.wrapping_div(c) as $u
                        }
                    }
                    B::Modulo if signed => {
                        if c == 0 {
                            0
                        } else {
                            a.wrapping_rem(c) as $u
                        }
                    }
                    B::ShiftRight if signed => (a >> (y & SHIFT_MASK)) as $u,
                    B::Divide => x.checked_div(y).unwrap_or(x),
                    B::Modulo => x.checked_rem(y).unwrap_or(0),
                    B::ShiftRight => x >> (y & SHIFT_MASK),
                    _ if signed => return super::holds(op, a, c).map(Err),
                    _ => return super::holds(op, x, y).map(Err),
                }))
            }

            /// WGSL `min` of two integers.
            #[inline]
            pub(crate) fn min(signed: bool, x: $u, y: $u) -> $u {
                if signed {
                    (x as $i).min(y as $i) as $u
                } else {
                    x.min(y)
                }
            }

            /// WGSL `max` of two integers.
            #[inline]
            pub(crate) fn max(signed: bool, x: $u, y: $u) -> $u {
                if signed {
                    (x as $i).max(y as $i) as $u
                } else {
                    x.max(y)
                }
            }

            /// WGSL `abs`: `MIN` stays `MIN`; unsigned values are their own.
            #[inline]
            pub(crate) fn abs(signed: bool, x: $u) -> $u {
                if signed {
                    (x as $i).wrapping_abs() as $u
                } else {
                    x
                }
            }

            /// WGSL `sign`: -1, 0 or 1 (unsigned: 0 or 1).
            #[inline]
            pub(crate) fn sign(signed: bool, x: $u) -> $u {
                if signed {
                    (x as $i).signum() as $u
                } else {
                    <$u>::from(x != 0)
                }
            }

            /// The new value of an integer atomic read-modify-write of `v` on `old`.
            #[inline]
            pub(crate) fn atomic(op: AtomicOp, signed: bool, old: $u, v: $u) -> $u {
                match op {
                    AtomicOp::Add => old.wrapping_add(v),
                    AtomicOp::Sub => old.wrapping_sub(v),
                    AtomicOp::And => old & v,
                    AtomicOp::Or => old | v,
                    AtomicOp::Xor => old ^ v,
                    AtomicOp::Min => min(signed, old, v),
                    AtomicOp::Max => max(signed, old, v),
                    AtomicOp::Exchange => v,
                }
            }
        }
    };
}

wgsl_int!(
    /// `i32`/`u32` words.
    w32: u32, i32
);
wgsl_int!(
    /// `i64`/`u64` components.
    w64: u64, i64
);

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_frontend::ir::AtomicOp;

    #[test]
    fn both_widths_follow_wgsl_integer_rules() {
        let b = BinaryOperator::Divide;
        assert_eq!(w32::binary(b, true, 7, 0), Some(Ok(7)));
        assert_eq!(w64::binary(b, false, 7, 0), Some(Ok(7)));
        let min32 = i32::MIN as u32;
        assert_eq!(w32::binary(b, true, min32, u32::MAX), Some(Ok(min32)));
        let r = BinaryOperator::Modulo;
        assert_eq!(w64::binary(r, true, i64::MIN as u64, u64::MAX), Some(Ok(0)));
        assert_eq!(w32::binary(r, false, 7, 0), Some(Ok(0)));
        assert_eq!(w32::binary(r, true, (-7i32) as u32, 3), Some(Ok((-1i32) as u32)));
        // Shift amounts wrap at the width: 33 is 1 for 32 bits, 65 is 1 for 64.
        assert_eq!(w32::binary(BinaryOperator::ShiftLeft, false, 1, 33), Some(Ok(2)));
        assert_eq!(w64::binary(BinaryOperator::ShiftLeft, false, 1, 65), Some(Ok(2)));
        let sr = BinaryOperator::ShiftRight;
        assert_eq!(w32::binary(sr, true, (-16i32) as u32, 2), Some(Ok((-4i32) as u32)));
        assert_eq!(w32::binary(sr, false, (-16i32) as u32, 2), Some(Ok(0x3fff_fffc)));
        // Comparisons read the bits by the signedness.
        assert_eq!(w32::binary(BinaryOperator::Less, true, u32::MAX, 0), Some(Err(true)));
        assert_eq!(w32::binary(BinaryOperator::Less, false, u32::MAX, 0), Some(Err(false)));
        assert_eq!(w64::binary(BinaryOperator::LogicalAnd, false, 1, 1), None);
    }

    #[test]
    fn min_max_abs_sign_and_atomics_by_signedness() {
        assert_eq!(w32::min(true, u32::MAX, 1), u32::MAX);
        assert_eq!(w32::min(false, u32::MAX, 1), 1);
        assert_eq!(w64::max(true, u64::MAX, 1), 1);
        assert_eq!(w64::abs(true, i64::MIN as u64), i64::MIN as u64);
        assert_eq!(w32::abs(true, (-5i32) as u32), 5);
        assert_eq!(w32::sign(true, (-5i32) as u32), u32::MAX);
        assert_eq!(w64::sign(false, 9), 1);
        assert_eq!(w32::atomic(AtomicOp::Sub, false, 0, 1), u32::MAX);
        assert_eq!(w64::atomic(AtomicOp::Min, true, 3, (-2i64) as u64), (-2i64) as u64);
        assert_eq!(w64::atomic(AtomicOp::Min, false, 3, (-2i64) as u64), 3);
        assert_eq!(w32::atomic(AtomicOp::Exchange, false, 3, 4), 4);
    }

    #[test]
    fn float_operators_round_each_step() {
        let m = BinaryOperator::Modulo;
        assert_eq!(float_binary(m, 7.5f32, 2.0, f32::trunc), Some(Ok(1.5)));
        assert_eq!(float_binary(m, -7.5f64, 2.0, f64::trunc), Some(Ok(-1.5)));
        let lt = BinaryOperator::Less;
        assert_eq!(float_binary(lt, f64::NAN, 1.0, f64::trunc), Some(Err(false)));
        assert_eq!(
            float_binary(BinaryOperator::NotEqual, f32::NAN, f32::NAN, f32::trunc),
            Some(Err(true))
        );
        assert_eq!(float_binary(BinaryOperator::And, 1.0f32, 1.0, f32::trunc), None);
    }
}
