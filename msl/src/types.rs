//! MSL spellings of types and constants.

use dianran_frontend::ir::{ConstValue, CoopRole, Scalar, Type, TypeId, Types};

/// MSL name of a scalar type.
pub fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I32 => "int",
        Scalar::U32 => "uint",
        Scalar::F32 => "float",
        Scalar::F16 => "half",
        Scalar::I64 => "long",
        Scalar::U64 => "ulong",
        // Metal has no double: functions using f64 are rejected (`crate::wide`); the name
        // only keeps struct declarations readable.
        Scalar::F64 => "double",
    }
}

/// MSL name of a value type (not for pointers; those are spelled by the parameter writer).
pub fn type_name(types: &Types, ty: TypeId, structs: &dyn Fn(TypeId) -> String) -> String {
    match types.get(ty) {
        Type::Scalar(s) => scalar_name(*s).into(),
        Type::Vector { size, scalar } => format!("{}{}", scalar_name(*scalar), size),
        Type::Matrix { columns, rows, scalar } => {
            format!("{}{}x{}", scalar_name(*scalar), columns, rows)
        }
        Type::Array { base, len: Some(n), .. } => {
            format!("array<{}, {}>", type_name(types, *base, structs), n)
        }
        Type::Array { base, len: None, .. } => type_name(types, *base, structs),
        Type::Struct { .. } => structs(ty),
        Type::Atomic(Scalar::I32) => "atomic_int".into(),
        // `atomic_float` (add, sub, exchange, load, store) needs Metal 3.0.
        Type::Atomic(Scalar::F32) => "atomic_float".into(),
        Type::Atomic(_) => "atomic_uint".into(),
        Type::Pointer { base, .. } => type_name(types, *base, structs),
        Type::Image { dim, arrayed, class } => {
            let d = match dim {
                naga::ImageDimension::D1 => "1d",
                naga::ImageDimension::D2 => "2d",
                naga::ImageDimension::D3 => "3d",
                naga::ImageDimension::Cube => "cube",
            };
            let arr = if *arrayed { "_array" } else { "" };
            match class {
                naga::ImageClass::Sampled { kind, multi } => {
                    let k = match kind {
                        naga::ScalarKind::Sint => "int",
                        naga::ScalarKind::Uint => "uint",
                        _ => "float",
                    };
                    let ms = if *multi { "_ms" } else { "" };
                    format!("texture{d}{ms}{arr}<{k}>")
                }
                naga::ImageClass::Depth { multi } => {
                    let ms = if *multi { "_ms" } else { "" };
                    format!("depth{d}{ms}{arr}<float>")
                }
                naga::ImageClass::Storage { access, format } => {
                    // Metal's storage texture element type follows the format's scalar
                    // kind: an `r32uint` texture is `texture2d<uint, …>`.
                    let k = match naga::Scalar::from(*format).kind {
                        naga::ScalarKind::Sint => "int",
                        naga::ScalarKind::Uint => "uint",
                        _ => "float",
                    };
                    let a = if access
                        .contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE)
                    {
                        "access::read_write"
                    } else if access.contains(naga::StorageAccess::STORE) {
                        "access::write"
                    } else {
                        "access::read"
                    };
                    format!("texture{d}{arr}<{k}, {a}>")
                }
                naga::ImageClass::External => "texture2d<float>".into(),
            }
        }
        Type::Sampler { .. } => "sampler".into(),
        Type::CoopMatrix { columns, rows, elem, role } => {
            coop_type(*columns, *rows, elem.scalar(), *role)
        }
    }
}

/// The MSL type of a cooperative matrix: one 8×8 `simdgroup_matrix`, the two-tile struct for
/// 8 rows by 16 columns, or the four-tile struct for 16×16.
pub fn coop_type(columns: u8, rows: u8, scalar: Scalar, _role: CoopRole) -> String {
    let s = scalar_name(scalar);
    match (columns, rows) {
        (8, 8) => format!("simdgroup_{s}8x8"),
        (16, 8) => format!("dr_coop8x16_{s}"),
        _ => format!("dr_coop16_{s}"),
    }
}

/// An MSL expression for a constant.
pub fn const_text(types: &Types, c: &ConstValue, structs: &dyn Fn(TypeId) -> String) -> String {
    match c {
        ConstValue::Bool(b) => b.to_string(),
        ConstValue::I32(i32::MIN) => "(-2147483647 - 1)".into(),
        ConstValue::I32(v) if *v < 0 => format!("({v})"),
        ConstValue::I32(v) => format!("{v}"),
        ConstValue::U32(v) => format!("{v}u"),
        ConstValue::I64(i64::MIN) => "(-9223372036854775807L - 1L)".into(),
        ConstValue::I64(v) if *v < 0 => format!("({v}L)"),
        ConstValue::I64(v) => format!("{v}L"),
        ConstValue::U64(v) => format!("{v}UL"),
        ConstValue::F64(bits) => format!("as_type<double>({bits}UL)"),
        ConstValue::F32(bits) => {
            let v = f32::from_bits(*bits);
            if v.is_finite() {
                let s = format!("{v:?}");
                let s = if s.contains('e') || s.contains('.') { s } else { format!("{s}.0") };
                if v.is_sign_negative() {
                    format!("({s}f)")
                } else {
                    format!("{s}f")
                }
            } else {
                format!("as_type<float>({bits}u)")
            }
        }
        ConstValue::F16(bits) => {
            let v = half::f16::from_bits(*bits).to_f32();
            if v.is_finite() {
                let s = format!("{v:?}");
                if v.is_sign_negative() {
                    format!("({s}h)")
                } else {
                    format!("{s}h")
                }
            } else {
                format!("as_type<half>(ushort({bits}u))")
            }
        }
        ConstValue::Composite(t, parts) => {
            let inner: Vec<String> = parts.iter().map(|p| const_text(types, p, structs)).collect();
            match types.get(*t) {
                Type::Struct { .. } | Type::Array { .. } => {
                    format!("{}{{{}}}", type_name(types, *t, structs), inner.join(", "))
                }
                _ => format!("{}({})", type_name(types, *t, structs), inner.join(", ")),
            }
        }
        ConstValue::Zero(t) => match types.get(*t) {
            // simdgroup matrices are not zero-initialized by `{}`.
            Type::CoopMatrix { columns, rows, elem, .. } => {
                let s = scalar_name(elem.scalar());
                let tile = format!("make_filled_simdgroup_matrix<{s}, 8, 8>({s}(0))");
                match (*columns, *rows) {
                    (8, 8) => tile,
                    (16, 8) => format!("dr_coop8x16_{s}{{{{{{{tile}, {tile}}}}}}}"),
                    _ => format!("dr_coop16_{s}{{{{{{{tile}, {tile}}}, {{{tile}, {tile}}}}}}}"),
                }
            }
            _ => format!("{}{{}}", type_name(types, *t, structs)),
        },
    }
}
