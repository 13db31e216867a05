//! WGSL operators and built-in functions in MSL, with WGSL's semantics where Metal's differ
//! (integer division and remainder, shift amounts, bit-field ranges, rounding, packing).

use crate::body::{FnWriter, Res};
use crate::types::scalar_name;
use dianran_frontend::ir::{
    self, CollectiveOperation, Op, Scalar, SubgroupOperation, Type, TypeId, ValueId,
};
use dianran_frontend::printer::operands::Operands;
use dianran_frontend::printer::syntax::{binary_symbol, Syntax};

impl FnWriter<'_> {
    /// A texel coordinate as Metal's unsigned vector (or scalar) type.
    pub(crate) fn coord(&self, c: ValueId) -> String {
        match self.w.m.types.get(self.b.ty(c)) {
            Type::Vector { size, .. } => format!("uint{size}({})", self.val(c)),
            _ => format!("uint({})", self.val(c)),
        }
    }

    /// The scalar and vector size of a value (`None` for other types).
    pub(crate) fn shape(&self, v: ValueId) -> (Option<Scalar>, Option<u8>) {
        match self.w.m.types.get(self.b.ty(v)) {
            Type::Scalar(s) => (Some(*s), None),
            Type::Vector { size, scalar } => (Some(*scalar), Some(*size)),
            _ => (None, None),
        }
    }

    /// The MSL type of a scalar, or of a vector of `size` of it.
    pub(crate) fn shaped(s: Scalar, size: Option<u8>) -> String {
        match size {
            Some(n) => format!("{}{}", scalar_name(s), n),
            None => scalar_name(s).to_string(),
        }
    }

    /// A binary operator; `rty` is the result type.
    pub(crate) fn binary(
        &self,
        o: naga::BinaryOperator,
        a: ValueId,
        b: ValueId,
        rty: TypeId,
    ) -> Res<String> {
        use naga::BinaryOperator as B;
        let (sa, size) = self.shape(a);
        let (x, y) = (self.val(a), self.val(b));
        let int = sa.is_some_and(|s| s.is_int());
        Ok(match o {
            // Metal's `/` on floats is not correctly rounded even with fast math off.
            B::Divide if sa == Some(Scalar::F32) && !self.w.fast_math => {
                format!("precise::divide({x}, {y})")
            }
            B::Divide if int => {
                let f = if sa == Some(Scalar::I32) { "dr_sdiv" } else { "dr_udiv" };
                self.helper(f);
                format!("{f}({x}, {y})")
            }
            B::Modulo if int => {
                let f = if sa == Some(Scalar::I32) { "dr_srem" } else { "dr_urem" };
                self.helper(f);
                format!("{f}({x}, {y})")
            }
            B::Modulo => format!("fmod({x}, {y})"),
            B::ShiftLeft | B::ShiftRight => {
                let mask = match size {
                    Some(n) => format!("uint{n}(31u)"),
                    None => "31u".into(),
                };
                format!("({x} {} ({y} & {mask}))", binary_symbol(o))
            }
            // `bool & bool` is an `int` in C++.
            B::And | B::InclusiveOr | B::ExclusiveOr if sa == Some(Scalar::Bool) => {
                format!("{}({x} {} {y})", self.w.ty(rty), binary_symbol(o))
            }
            _ => format!("({x} {} {y})", binary_symbol(o)),
        })
    }

    /// A call to a WGSL math function.
    pub(crate) fn math(
        &self,
        fun: naga::MathFunction,
        args: &[ValueId],
        span: ir::Span,
    ) -> Res<String> {
        use naga::MathFunction as M;
        let a = self.vals(args);
        let first = args.first().map(|x| self.val(*x)).unwrap_or_default();
        let plain = |name: &str| format!("{name}({a})");
        // f32 math with an explicit precision: Metal compiles with fast math by default.
        let (s0, _) = args.first().map(|x| self.shape(*x)).unwrap_or((None, None));
        let ns = match (s0, self.w.fast_math) {
            (Some(Scalar::F32), false) => "precise::",
            (Some(Scalar::F32), true) => "fast::",
            _ => "",
        };
        let float = |name: &str| format!("{ns}{name}({a})");
        Ok(match fun {
            M::Abs => plain("abs"),
            M::Min => plain("min"),
            M::Max => plain("max"),
            M::Clamp => plain("clamp"),
            M::Saturate => plain("saturate"),
            M::Cos => float("cos"),
            M::Cosh => float("cosh"),
            M::Sin => float("sin"),
            M::Sinh => float("sinh"),
            M::Tan => float("tan"),
            M::Tanh => float("tanh"),
            M::Acos => float("acos"),
            M::Asin => float("asin"),
            M::Atan => float("atan"),
            M::Atan2 => float("atan2"),
            M::Asinh => float("asinh"),
            M::Acosh => float("acosh"),
            M::Atanh => float("atanh"),
            // A typed constant: a bare double literal would make the product a double.
            M::Radians => {
                let t = Self::shaped(s0.unwrap_or(Scalar::F32), None);
                format!("({first} * {t}(0.017453292519943295))")
            }
            M::Degrees => {
                let t = Self::shaped(s0.unwrap_or(Scalar::F32), None);
                format!("({first} * {t}(57.29577951308232))")
            }
            M::Ceil => plain("ceil"),
            M::Floor => plain("floor"),
            // WGSL rounds half to even, like `rint`; Metal's `round` rounds half away from zero.
            M::Round => plain("rint"),
            M::Fract => format!("({first} - floor({first}))"),
            M::Trunc => plain("trunc"),
            M::Ldexp => plain("ldexp"),
            M::Exp => float("exp"),
            M::Exp2 => float("exp2"),
            M::Log => float("log"),
            M::Log2 => float("log2"),
            M::Pow => float("pow"),
            M::Dot => plain("dot"),
            M::Cross => plain("cross"),
            M::Distance => plain("distance"),
            M::Length => plain("length"),
            M::Normalize => plain("normalize"),
            M::FaceForward => plain("faceforward"),
            M::Reflect => plain("reflect"),
            M::Refract => plain("refract"),
            M::Sign => plain("sign"),
            M::Fma => plain("fma"),
            M::Mix => plain("mix"),
            M::Step => plain("step"),
            M::SmoothStep => plain("smoothstep"),
            M::Sqrt => float("sqrt"),
            M::InverseSqrt => float("rsqrt"),
            M::Transpose => plain("transpose"),
            M::Determinant => plain("determinant"),
            M::QuantizeToF16 => {
                let (_, size) = args.first().map(|x| self.shape(*x)).unwrap_or((None, None));
                let h = Self::shaped(Scalar::F16, size);
                let f = Self::shaped(Scalar::F32, size);
                format!("{f}({h}({first}))")
            }
            M::CountTrailingZeros => plain("ctz"),
            M::CountLeadingZeros => plain("clz"),
            M::CountOneBits => plain("popcount"),
            M::ReverseBits => plain("reverse_bits"),
            M::ExtractBits => {
                self.helper("dr_extract_bits");
                plain("dr_extract_bits")
            }
            M::InsertBits => {
                self.helper("dr_insert_bits");
                plain("dr_insert_bits")
            }
            M::FirstTrailingBit => {
                self.helper("dr_first_trailing_bit");
                plain("dr_first_trailing_bit")
            }
            M::FirstLeadingBit => {
                self.helper("dr_first_leading_bit");
                plain("dr_first_leading_bit")
            }
            M::Pack4x8snorm => plain("pack_float_to_snorm4x8"),
            M::Pack4x8unorm => plain("pack_float_to_unorm4x8"),
            M::Pack2x16snorm => plain("pack_float_to_snorm2x16"),
            M::Pack2x16unorm => plain("pack_float_to_unorm2x16"),
            M::Pack2x16float => format!("as_type<uint>(half2({first}))"),
            M::Unpack4x8snorm => plain("unpack_snorm4x8_to_float"),
            M::Unpack4x8unorm => plain("unpack_unorm4x8_to_float"),
            M::Unpack2x16snorm => plain("unpack_snorm2x16_to_float"),
            M::Unpack2x16unorm => plain("unpack_unorm2x16_to_float"),
            M::Unpack2x16float => format!("float2(as_type<half2>({first}))"),
            M::Pack4xI8 => format!("as_type<uint>(char4({first}))"),
            M::Pack4xU8 => format!("as_type<uint>(uchar4({first}))"),
            M::Pack4xI8Clamp => format!("as_type<uint>(char4(clamp({first}, -128, 127)))"),
            M::Pack4xU8Clamp => format!("as_type<uint>(uchar4(min({first}, 255u)))"),
            M::Unpack4xI8 => format!("int4(as_type<char4>({first}))"),
            M::Unpack4xU8 => format!("uint4(as_type<uchar4>({first}))"),
            M::Dot4I8Packed => {
                let b = args.get(1).map(|x| self.val(*x)).unwrap_or_default();
                format!("dot(int4(as_type<char4>({first})), int4(as_type<char4>({b})))")
            }
            M::Dot4U8Packed => {
                let b = args.get(1).map(|x| self.val(*x)).unwrap_or_default();
                format!("dot(uint4(as_type<uchar4>({first})), uint4(as_type<uchar4>({b})))")
            }
            other => return Err(self.unsupported(&format!("the math function {other:?}"), span)),
        })
    }

    /// `arrayLength(&buf.data)`: (byte size of the buffer - offset of the array) / stride.
    pub(crate) fn array_length(&self, p: ValueId, span: ir::Span) -> Res<String> {
        let (g, offset) = match self.b.defs.get(&p) {
            Some(Op::GlobalAddr(g)) => (*g, 0),
            Some(Op::AccessIndex(base, i)) => match self.b.defs.get(base) {
                Some(Op::GlobalAddr(g)) => {
                    let off = match self.pointee(*base).map(|t| self.w.m.types.get(t)) {
                        Some(Type::Struct { members, .. }) => {
                            members.get(*i as usize).map_or(0, |m| m.offset)
                        }
                        _ => 0,
                    };
                    (*g, off)
                }
                _ => {
                    return Err(
                        self.unsupported("arrayLength of a pointer that is not a buffer", span)
                    )
                }
            },
            _ => return Err(self.unsupported("arrayLength of a pointer parameter", span)),
        };
        let stride = match self.pointee(p).map(|t| self.w.m.types.get(t)) {
            Some(Type::Array { stride, .. }) => *stride,
            _ => return Err(self.unsupported("arrayLength of a non-array", span)),
        };
        let (idx, _) = self
            .w
            .metal_index(g)?
            .ok_or_else(|| self.unsupported("arrayLength of an unbound variable", span))?;
        Ok(crate::module::buffer_elements(idx, offset, stride))
    }
}

/// The Metal function computing a subgroup collective, if there is one.
pub(crate) fn subgroup_name(
    op: SubgroupOperation,
    kind: CollectiveOperation,
) -> Option<&'static str> {
    use CollectiveOperation as K;
    use SubgroupOperation as S;
    Some(match (kind, op) {
        (K::Reduce, S::All) => "simd_all",
        (K::Reduce, S::Any) => "simd_any",
        (K::Reduce, S::Add) => "simd_sum",
        (K::Reduce, S::Mul) => "simd_product",
        (K::Reduce, S::Min) => "simd_min",
        (K::Reduce, S::Max) => "simd_max",
        (K::Reduce, S::And) => "simd_and",
        (K::Reduce, S::Or) => "simd_or",
        (K::Reduce, S::Xor) => "simd_xor",
        (K::InclusiveScan, S::Add) => "simd_prefix_inclusive_sum",
        (K::InclusiveScan, S::Mul) => "simd_prefix_inclusive_product",
        (K::ExclusiveScan, S::Add) => "simd_prefix_exclusive_sum",
        (K::ExclusiveScan, S::Mul) => "simd_prefix_exclusive_product",
        _ => return None,
    })
}
