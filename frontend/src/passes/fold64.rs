//! Constant folding of the 64-bit scalars (`i64`, `u64`, `f64`) for [`super::fold`].
//!
//! Integer results wrap (two's complement) as on every target; `f64` `+ - * /` and `sqrt`
//! are correctly rounded in Rust exactly as PTX's `.rn` forms and IEEE 754 require, so the
//! folded bits equal what the targets compute. NaN results are never folded (payloads differ).

use crate::ir::ConstValue;
use naga::{BinaryOperator, MathFunction, UnaryOperator};

/// An `f64` result as a constant, unless it is NaN.
fn f64c(x: f64) -> Option<ConstValue> {
    (!x.is_nan()).then_some(ConstValue::F64(x.to_bits()))
}

/// `-x` and `!x` on a 64-bit constant.
pub(super) fn unary(o: UnaryOperator, c: &ConstValue) -> Option<ConstValue> {
    use ConstValue as C;
    use UnaryOperator as U;
    Some(match (o, c) {
        (U::Negate, C::I64(x)) => C::I64(x.wrapping_neg()),
        (U::Negate, C::F64(x)) => C::F64(x ^ (1 << 63)),
        (U::BitwiseNot, C::I64(x)) => C::I64(!x),
        (U::BitwiseNot, C::U64(x)) => C::U64(!x),
        _ => return None,
    })
}

/// A binary operator on 64-bit constants (shift amounts are `u32`, masked to 0..=63).
pub(super) fn binary(o: BinaryOperator, a: &ConstValue, b: &ConstValue) -> Option<ConstValue> {
    use BinaryOperator as B;
    use ConstValue as C;
    Some(match (a, b) {
        (C::I64(x), C::I64(y)) => {
            let (x, y) = (*x, *y);
            match o {
                B::Add => C::I64(x.wrapping_add(y)),
                B::Subtract => C::I64(x.wrapping_sub(y)),
                B::Multiply => C::I64(x.wrapping_mul(y)),
                // WGSL: division by zero yields e1, remainder by zero 0; MIN / -1 wraps.
                B::Divide => C::I64(if y == 0 { x } else { x.wrapping_div(y) }),
                B::Modulo => C::I64(if y == 0 { 0 } else { x.wrapping_rem(y) }),
                B::And => C::I64(x & y),
                B::InclusiveOr => C::I64(x | y),
                B::ExclusiveOr => C::I64(x ^ y),
                _ => return super::fold::compare(o, x.cmp(&y)),
            }
        }
        (C::U64(x), C::U64(y)) => {
            let (x, y) = (*x, *y);
            match o {
                B::Add => C::U64(x.wrapping_add(y)),
                B::Subtract => C::U64(x.wrapping_sub(y)),
                B::Multiply => C::U64(x.wrapping_mul(y)),
                B::Divide => C::U64(x.checked_div(y).unwrap_or(x)),
                B::Modulo => C::U64(if y == 0 { 0 } else { x % y }),
                B::And => C::U64(x & y),
                B::InclusiveOr => C::U64(x | y),
                B::ExclusiveOr => C::U64(x ^ y),
                _ => return super::fold::compare(o, x.cmp(&y)),
            }
        }
        (C::I64(x), C::U32(y)) => match o {
            B::ShiftLeft => C::I64(x << (y & 63)),
            B::ShiftRight => C::I64(x >> (y & 63)),
            _ => return None,
        },
        (C::U64(x), C::U32(y)) => match o {
            B::ShiftLeft => C::U64(x << (y & 63)),
            B::ShiftRight => C::U64(x >> (y & 63)),
            _ => return None,
        },
        (C::F64(x), C::F64(y)) => {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            match o {
                B::Add => return f64c(x + y),
                B::Subtract => return f64c(x - y),
                B::Multiply => return f64c(x * y),
                B::Divide => return f64c(x / y),
                B::Equal => C::Bool(x == y),
                B::NotEqual => C::Bool(x != y),
                B::Less => C::Bool(x < y),
                B::LessEqual => C::Bool(x <= y),
                B::Greater => C::Bool(x > y),
                B::GreaterEqual => C::Bool(x >= y),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Exact integer builtins and the `f64` builtins whose result cannot differ between targets.
pub(super) fn math(fun: MathFunction, xs: &[&ConstValue]) -> Option<ConstValue> {
    use ConstValue as C;
    use MathFunction as M;
    let ordered = |a: f64, b: f64| !(a.is_nan() || b.is_nan() || (a == 0.0 && b == 0.0));
    Some(match (fun, xs) {
        (M::Abs, [C::I64(x)]) => C::I64(x.wrapping_abs()),
        (M::Abs, [C::U64(x)]) => C::U64(*x),
        (M::Abs, [C::F64(x)]) => C::F64(x & !(1 << 63)),
        (M::Min, [C::I64(x), C::I64(y)]) => C::I64(*x.min(y)),
        (M::Min, [C::U64(x), C::U64(y)]) => C::U64(*x.min(y)),
        (M::Max, [C::I64(x), C::I64(y)]) => C::I64(*x.max(y)),
        (M::Max, [C::U64(x), C::U64(y)]) => C::U64(*x.max(y)),
        (M::Min | M::Max, [C::F64(x), C::F64(y)]) => {
            let (a, b) = (f64::from_bits(*x), f64::from_bits(*y));
            if !ordered(a, b) {
                return None;
            }
            C::F64(if (fun == M::Min) == (a < b) { *x } else { *y })
        }
        (M::Clamp, [C::I64(e), C::I64(lo), C::I64(hi)]) => C::I64((*e).max(*lo).min(*hi)),
        (M::Clamp, [C::U64(e), C::U64(lo), C::U64(hi)]) => C::U64((*e).max(*lo).min(*hi)),
        (M::Sqrt, [C::F64(x)]) => return f64c(f64::from_bits(*x).sqrt()),
        (M::Floor, [C::F64(x)]) => return f64c(f64::from_bits(*x).floor()),
        (M::Ceil, [C::F64(x)]) => return f64c(f64::from_bits(*x).ceil()),
        (M::Trunc, [C::F64(x)]) => return f64c(f64::from_bits(*x).trunc()),
        (M::Round, [C::F64(x)]) => return f64c(f64::from_bits(*x).round_ties_even()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConstValue as C;

    #[test]
    fn integer_ops_wrap_and_follow_wgsl_division() {
        let b = |o, x, y| binary(o, &x, &y);
        assert_eq!(b(BinaryOperator::Add, C::I64(i64::MAX), C::I64(1)), Some(C::I64(i64::MIN)));
        assert_eq!(b(BinaryOperator::Divide, C::I64(7), C::I64(0)), Some(C::I64(7)));
        assert_eq!(b(BinaryOperator::Modulo, C::I64(7), C::I64(0)), Some(C::I64(0)));
        assert_eq!(b(BinaryOperator::Divide, C::I64(i64::MIN), C::I64(-1)), Some(C::I64(i64::MIN)));
        assert_eq!(b(BinaryOperator::Divide, C::U64(9), C::U64(0)), Some(C::U64(9)));
        // 65 & 63 == 1
        assert_eq!(b(BinaryOperator::ShiftLeft, C::U64(3), C::U32(65)), Some(C::U64(6)));
        assert_eq!(b(BinaryOperator::ShiftRight, C::I64(-8), C::U32(2)), Some(C::I64(-2)));
        assert_eq!(b(BinaryOperator::Less, C::U64(1 << 40), C::U64(1)), Some(C::Bool(false)));
    }

    #[test]
    fn f64_arithmetic_is_bit_exact_and_skips_nan() {
        let b = |o, x: f64, y: f64| binary(o, &C::f64(x), &C::f64(y));
        // 0.1 + 0.2 = 0x3FD3333333333334 (IEEE double, round to nearest even).
        assert_eq!(b(BinaryOperator::Add, 0.1, 0.2), Some(C::F64(0x3FD3_3333_3333_3334)));
        assert_eq!(b(BinaryOperator::Divide, 0.0, 0.0), None);
        assert_eq!(unary(UnaryOperator::Negate, &C::f64(2.0)), Some(C::f64(-2.0)));
        assert_eq!(math(MathFunction::Sqrt, &[&C::f64(2.0)]), Some(C::F64(0x3FF6_A09E_667F_3BCD)));
        assert_eq!(math(MathFunction::Round, &[&C::f64(2.5)]), Some(C::f64(2.0)));
    }
}
