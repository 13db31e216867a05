//! WGSL spellings of types and constants.

use dianran_frontend::ir::{self, ConstValue, Scalar, Type, TypeId, Types};
use naga::common::wgsl::ToWgsl;

/// How cooperative matrices are spelled: naga's `coop_matCxR<T, R>` or Dawn's
/// `subgroup_matrix_{left,right,result}<T, C, R>` (a module decides by its enable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixSpelling {
    /// `enable wgpu_cooperative_matrix;`
    Naga,
    /// `enable chromium_experimental_subgroup_matrix;`
    Dawn,
    /// No extension: `array<S, rows * columns>` of the element's shader scalar
    /// (`Options::portable_matrices`).
    Portable,
}

impl MatrixSpelling {
    /// The spelling module `m` was written in.
    pub fn of(m: &ir::Module) -> MatrixSpelling {
        MatrixSpelling::printing(m, false)
    }

    /// The spelling of `m` printed portably (`portable`) or in its own extension's syntax.
    pub fn printing(m: &ir::Module, portable: bool) -> MatrixSpelling {
        if portable {
            MatrixSpelling::Portable
        } else if m.enables.subgroup_matrix {
            MatrixSpelling::Dawn
        } else {
            MatrixSpelling::Naga
        }
    }
}

/// The WGSL spelling of a type; `struct_names` maps struct type ids to their escaped names.
pub fn type_name(
    types: &Types,
    ty: TypeId,
    struct_names: &dyn Fn(TypeId) -> String,
    matrices: MatrixSpelling,
) -> String {
    let type_name = |types: &Types, ty: TypeId, names: &dyn Fn(TypeId) -> String| {
        type_name(types, ty, names, matrices)
    };
    match types.get(ty) {
        Type::Scalar(s) => s.wgsl_name().to_string(),
        Type::Vector { size, scalar } => format!("vec{}<{}>", size, scalar.wgsl_name()),
        Type::Matrix { columns, rows, scalar } => {
            format!("mat{}x{}<{}>", columns, rows, scalar.wgsl_name())
        }
        Type::Array { base, len: Some(n), .. } => {
            format!("array<{}, {}>", type_name(types, *base, struct_names), n)
        }
        Type::Array { base, len: None, .. } => {
            format!("array<{}>", type_name(types, *base, struct_names))
        }
        Type::Struct { .. } => struct_names(ty),
        Type::Atomic(s) => format!("atomic<{}>", s.wgsl_name()),
        Type::Pointer { base, space } => {
            let inner = type_name(types, *base, struct_names);
            match space {
                ir::AddressSpace::Function => format!("ptr<function, {inner}>"),
                ir::AddressSpace::Private => format!("ptr<private, {inner}>"),
                ir::AddressSpace::Workgroup => format!("ptr<workgroup, {inner}>"),
                ir::AddressSpace::Uniform => format!("ptr<uniform, {inner}>"),
                ir::AddressSpace::Storage { writable: true } => {
                    format!("ptr<storage, {inner}, read_write>")
                }
                ir::AddressSpace::Storage { writable: false } => format!("ptr<storage, {inner}>"),
                ir::AddressSpace::Handle => inner,
                ir::AddressSpace::Immediate => format!("ptr<immediate, {inner}>"),
            }
        }
        Type::Image { dim, arrayed, class } => image_type(*dim, *arrayed, class),
        Type::Sampler { comparison: false } => "sampler".into(),
        Type::Sampler { comparison: true } => "sampler_comparison".into(),
        Type::CoopMatrix { columns, rows, elem, .. } if matrices == MatrixSpelling::Portable => {
            crate::portable::portable_array(*elem, u32::from(*columns) * u32::from(*rows))
        }
        Type::CoopMatrix { columns, rows, elem, role } if matrices == MatrixSpelling::Dawn => {
            let kind = match role {
                ir::CoopRole::A => "left",
                ir::CoopRole::B => "right",
                ir::CoopRole::C => "result",
            };
            format!("subgroup_matrix_{kind}<{}, {columns}, {rows}>", elem.name())
        }
        Type::CoopMatrix { columns, rows, elem, role } => {
            let role = match role {
                ir::CoopRole::A => "A",
                ir::CoopRole::B => "B",
                ir::CoopRole::C => "C",
            };
            format!("coop_mat{}x{}<{}, {}>", columns, rows, elem.name(), role)
        }
    }
}

fn image_type(dim: ir::ImageDimension, arrayed: bool, class: &ir::ImageClass) -> String {
    let arr = if arrayed { "_array" } else { "" };
    let d = dim.to_wgsl();
    match *class {
        ir::ImageClass::Sampled { kind, multi } => {
            let k = match kind {
                naga::ScalarKind::Sint => "i32",
                naga::ScalarKind::Uint => "u32",
                _ => "f32",
            };
            let ms = if multi { "multisampled_" } else { "" };
            format!("texture_{ms}{d}{arr}<{k}>")
        }
        ir::ImageClass::Depth { multi } => {
            let ms = if multi { "multisampled_" } else { "" };
            format!("texture_depth_{ms}{d}{arr}")
        }
        ir::ImageClass::Storage { format, access } => {
            let acc = if access.contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE) {
                "read_write"
            } else if access.contains(naga::StorageAccess::STORE) {
                "write"
            } else {
                "read"
            };
            format!("texture_storage_{d}{arr}<{}, {acc}>", format.to_wgsl())
        }
        ir::ImageClass::External => "texture_external".into(),
    }
}

/// A WGSL literal or constructor for a constant; negative numbers are parenthesized so the
/// text can be used as an operand.
pub fn const_text(
    types: &Types,
    c: &ConstValue,
    struct_names: &dyn Fn(TypeId) -> String,
    matrices: MatrixSpelling,
) -> String {
    match c {
        ConstValue::Bool(b) => b.to_string(),
        ConstValue::I32(i32::MIN) => "(-2147483647i - 1i)".into(),
        ConstValue::I32(v) if *v < 0 => format!("({v}i)"),
        ConstValue::I32(v) => format!("{v}i"),
        ConstValue::U32(v) => format!("{v}u"),
        ConstValue::F32(bits) => float_text(f32::from_bits(*bits), *bits as u64, "f", "f32", "u"),
        ConstValue::F16(bits) => {
            let v = half::f16::from_bits(*bits).to_f32();
            float_text(v, *bits as u64, "h", "f16", "u")
        }
        ConstValue::I64(i64::MIN) => "(-9223372036854775807li - 1li)".into(),
        ConstValue::I64(v) if *v < 0 => format!("({v}li)"),
        ConstValue::I64(v) => format!("{v}li"),
        ConstValue::U64(v) => format!("{v}lu"),
        ConstValue::F64(bits) => {
            let v = f64::from_bits(*bits);
            match (v.is_finite(), v.is_sign_negative()) {
                (true, true) => format!("({v:?}lf)"),
                (true, false) => format!("{v:?}lf"),
                // naga's WGSL has no non-finite f64 literal: the bits through a u64.
                (false, _) => format!("bitcast<f64>({bits}lu)"),
            }
        }
        ConstValue::Composite(t, parts) => {
            let inner: Vec<String> =
                parts.iter().map(|p| const_text(types, p, struct_names, matrices)).collect();
            format!("{}({})", type_name(types, *t, struct_names, matrices), inner.join(", "))
        }
        ConstValue::Zero(t) => format!("{}()", type_name(types, *t, struct_names, matrices)),
    }
}

fn float_text(v: f32, bits: u64, suffix: &str, ty: &str, _int_suffix: &str) -> String {
    if v.is_finite() {
        let s = format!("{v:?}");
        if v.is_sign_negative() {
            format!("({s}{suffix})")
        } else {
            format!("{s}{suffix}")
        }
    } else if ty == "f16" {
        // WGSL has no f16 bit-cast from a 16-bit integer; go through a u32 pair.
        format!("bitcast<vec2<f16>>({bits}u).x")
    } else {
        format!("bitcast<{ty}>({bits}u)")
    }
}

/// The WGSL name of a scalar or vector type with the given shape.
pub fn shaped(scalar: Scalar, size: Option<u8>) -> String {
    match size {
        Some(n) => format!("vec{}<{}>", n, scalar.wgsl_name()),
        None => scalar.wgsl_name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        let t = Types::default();
        let n = |_| String::new();
        let const_text = |t: &Types, c: &ConstValue, n: &dyn Fn(TypeId) -> String| {
            const_text(t, c, n, MatrixSpelling::Naga)
        };
        assert_eq!(const_text(&t, &ConstValue::I32(-3), &n), "(-3i)");
        assert_eq!(const_text(&t, &ConstValue::I32(i32::MIN), &n), "(-2147483647i - 1i)");
        assert_eq!(const_text(&t, &ConstValue::U32(7), &n), "7u");
        assert_eq!(const_text(&t, &ConstValue::f32(1.0), &n), "1.0f");
        assert_eq!(const_text(&t, &ConstValue::f32(-0.0), &n), "(-0.0f)");
        assert_eq!(const_text(&t, &ConstValue::F32(0x7fc0_0000), &n), "bitcast<f32>(2143289344u)");
        assert_eq!(const_text(&t, &ConstValue::F16(0x3c00), &n), "1.0h");
    }
}
