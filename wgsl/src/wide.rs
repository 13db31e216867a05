//! 64-bit integer operations printed in forms naga compiles correctly.
//!
//! 64-bit integers are a naga extension (`SHADER_INT64`); WGSL proper has none, so naga is
//! the consumer of this part of our output. Its SPIR-V writer (naga 30, checked on Mesa's
//! lavapipe) mistranslates some 64-bit operations that dianran's other targets get right:
//!
//! * `countLeadingZeros`/`firstLeadingBit` on 64 bits panic in the writer (gfx-rs/wgpu#5276);
//! * `countTrailingZeros`/`firstTrailingBit` on 64 bits become GLSL.std.450 `FindILsb`, which
//!   is 32-bit only (llvmpipe answers 64 for every input);
//! * `reverseBits` on 64 bits makes llvmpipe's LLVM abort;
//! * widening between signed and unsigned (`u64(i32)`, `i64(u32)`) extends by the
//!   *destination's* signedness, where WGSL's value conversion, naga's own constant evaluator,
//!   C, Rust and dianran's PTX extend by the source's.
//!
//! So the printer spells each of them with 32-bit operations and same-signedness conversions,
//! which mean the same on every WGSL implementation that has 64-bit integers: the bit scans
//! on the two 32-bit halves, the widening as a same-signedness widening followed by a
//! same-width reinterpretation. Operands are names or constants (see
//! [`dianran_frontend::printer::operands`]), so repeating one repeats no work.

use crate::types::shaped;
use dianran_frontend::ir::{MathFunction, Scalar};

/// `x` (of scalar `from`, vector size `size`) converted to `to`, when the conversion is a
/// signedness-changing integer widening: widened first in its own signedness, then
/// reinterpreted at the new width (`u64(i64(x))`). `None` for every other conversion.
pub(crate) fn widening(x: &str, from: Scalar, to: Scalar, size: Option<u8>) -> Option<String> {
    let changes_sign = from.is_int() && to.is_int() && from.is_signed() != to.is_signed();
    if !(changes_sign && from.size() < to.size()) {
        return None;
    }
    let wide = if from.is_signed() { Scalar::I64 } else { Scalar::U64 };
    Some(format!("{}({}({x}))", shaped(to, size), shaped(wide, size)))
}

/// `fun(x)` for a 64-bit integer `x` (scalar `s`, vector size `size`) built from 32-bit bit
/// scans of its halves, for the functions naga mistranslates; `None` for the others.
pub(crate) fn bit_scan(fun: MathFunction, x: &str, s: Scalar, size: Option<u8>) -> Option<String> {
    use MathFunction as M;
    if !(s.is_int() && s.is_64()) {
        return None;
    }
    let u32t = shaped(Scalar::U32, size);
    let i32t = shaped(Scalar::I32, size);
    let u64t = shaped(Scalar::U64, size);
    let i64t = shaped(Scalar::I64, size);
    let out = shaped(s, size);
    // A u32/i32 constant, splatted for vectors (WGSL's comparisons and shifts want the shape).
    let u = |n: u32| match size {
        Some(_) => format!("{u32t}({n}u)"),
        None => format!("{n}u"),
    };
    let i = |n: i32| match size {
        Some(_) => format!("{i32t}({n}i)"),
        None => format!("{n}i"),
    };
    // The bits as u64; for `firstLeadingBit` of a signed value, of `x ^ (x >> 63)`: its first
    // leading bit is where the sign bit's copies end, which is what WGSL asks for negatives.
    let bits = match (fun, s.is_signed()) {
        (M::FirstLeadingBit, true) => format!("bitcast<{u64t}>({x} ^ ({x} >> {}))", u(63)),
        (_, true) => format!("bitcast<{u64t}>({x})"),
        (_, false) => x.to_string(),
    };
    let lo = format!("{u32t}({bits})");
    let hi = format!("{u32t}(({bits}) >> {})", u(32));
    // A count (0..=64) as the result type: widened unsigned, then reinterpreted if signed.
    let count = |c: String| match s.is_signed() {
        true => format!("{i64t}({u64t}({c}))"),
        false => format!("{u64t}({c})"),
    };
    // A bit index or -1 (an i32) as the result type: sign-extended, then reinterpreted.
    let index = |c: String| match s.is_signed() {
        true => format!("{i64t}({c})"),
        false => format!("bitcast<{u64t}>({i64t}({c}))"),
    };
    Some(match fun {
        M::CountLeadingZeros => count(format!(
            "select(countLeadingZeros({lo}) + {}, countLeadingZeros({hi}), {hi} != {})",
            u(32),
            u(0)
        )),
        M::CountTrailingZeros => count(format!(
            "select(countTrailingZeros({lo}), countTrailingZeros({hi}) + {}, {lo} == {})",
            u(32),
            u(0)
        )),
        // firstLeadingBit(0u) is 0xffffffff, which is -1 as an i32.
        M::FirstLeadingBit => index(format!(
            "select(bitcast<{i32t}>(firstLeadingBit({lo})), \
             bitcast<{i32t}>(firstLeadingBit({hi})) + {}, {hi} != {})",
            i(32),
            u(0)
        )),
        M::FirstTrailingBit => index(format!(
            "select(bitcast<{i32t}>(firstTrailingBit({lo})), \
             select({}, bitcast<{i32t}>(firstTrailingBit({hi})) + {}, {hi} != {}), {lo} == {})",
            i(-1),
            i(32),
            u(0),
            u(0)
        )),
        M::ReverseBits => {
            let r =
                format!("(({u64t}(reverseBits({lo})) << {}) | {u64t}(reverseBits({hi})))", u(32));
            match s.is_signed() {
                true => format!("bitcast<{out}>{r}"),
                false => r,
            }
        }
        _ => return None,
    })
}

/// `extractBits(x, o, c)` or `insertBits(x, y, o, c)` (`y` in `args` before `o`) for a
/// 64-bit integer `x` (scalar `s`, vector size `size`) from shifts: naga's SPIR-V for the
/// 64-bit bit-field instructions gives wrong fields on llvmpipe (sign extension, insertion).
/// WGSL clamps `o2 = min(o, 64)` and `c2 = min(c, 64 - o2)`; every shift amount printed is
/// kept in 0..=63 (a count of 0 selects a constant instead), as WGSL shifts want.
pub(crate) fn bit_field(
    fun: MathFunction,
    args: &[String],
    s: Scalar,
    size: Option<u8>,
) -> Option<String> {
    use MathFunction as M;
    if !(s.is_int() && s.is_64()) {
        return None;
    }
    let t = shaped(s, size);
    // A shift amount: WGSL wants a unary expression right of `<<`/`>>`, hence the parentheses.
    let splat = |e: String| match size {
        Some(_) => format!("{}({e})", shaped(Scalar::U32, size)),
        None => format!("({e})"),
    };
    let zero = format!("{t}(0)");
    let (x, rest) = args.split_first()?;
    match (fun, rest) {
        (M::ExtractBits, [o, c]) => {
            let o2 = format!("min({o}, 64u)");
            let c2 = format!("min({c}, 64u - {o2})");
            // Up to the field's top bit, then down to bit 0 (arithmetic for i64: sign
            // extension).
            let left = splat(format!("min(64u - {o2} - {c2}, 63u)"));
            let right = splat(format!("64u - max({c2}, 1u)"));
            Some(format!("select({zero}, ({x} << {left}) >> {right}, {c2} != 0u)"))
        }
        (M::InsertBits, [y, o, c]) => {
            let o2 = format!("min({o}, 64u)");
            let c2 = format!("min({c}, 64u - {o2})");
            let at = splat(format!("min({o2}, 63u)"));
            let ones = format!("~{zero}");
            let field = format!("({ones} >> {}) << {at}", splat(format!("64u - max({c2}, 1u)")));
            let mask = format!("select({zero}, {field}, {c2} != 0u)");
            Some(format!("(({x} & ~({mask})) | (({y} << {at}) & ({mask})))"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sign_changing_widenings_are_rewritten() {
        assert_eq!(widening("a", Scalar::I32, Scalar::U64, None).as_deref(), Some("u64(i64(a))"));
        assert_eq!(
            widening("a", Scalar::U32, Scalar::I64, Some(2)).as_deref(),
            Some("vec2<i64>(vec2<u64>(a))")
        );
        assert_eq!(widening("a", Scalar::I32, Scalar::I64, None), None);
        assert_eq!(widening("a", Scalar::I64, Scalar::U64, None), None);
        assert_eq!(widening("a", Scalar::U64, Scalar::I32, None), None);
        assert_eq!(widening("a", Scalar::F32, Scalar::U64, None), None);
    }

    #[test]
    fn thirty_two_bit_scans_are_left_alone() {
        assert_eq!(bit_scan(MathFunction::CountLeadingZeros, "a", Scalar::U32, None), None);
        assert_eq!(bit_scan(MathFunction::Abs, "a", Scalar::I64, None), None);
    }

    #[test]
    fn bit_field_shift_amounts_are_parenthesized() {
        let args = ["x".to_string(), "o".to_string(), "c".to_string()];
        let e = bit_field(MathFunction::ExtractBits, &args, Scalar::I64, None).unwrap_or_default();
        assert_eq!(
            e,
            "select(i64(0), (x << (min(64u - min(o, 64u) - min(c, 64u - min(o, 64u)), 63u))) \
             >> (64u - max(min(c, 64u - min(o, 64u)), 1u)), min(c, 64u - min(o, 64u)) != 0u)"
        );
        assert_eq!(bit_field(MathFunction::ExtractBits, &args, Scalar::U32, None), None);
    }

    #[test]
    fn u64_reverse_bits_swaps_reversed_halves() {
        assert_eq!(
            bit_scan(MathFunction::ReverseBits, "a", Scalar::U64, None).as_deref(),
            Some("((u64(reverseBits(u32(a))) << 32u) | u64(reverseBits(u32((a) >> 32u))))")
        );
    }
}
