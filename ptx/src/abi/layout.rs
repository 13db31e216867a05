//! Per-component view of IR types: how a value is split into scalar registers and where each
//! component lives in memory (WGSL host-shareable layout, docs/abi.md).

use crate::model::RegKind;
use dianran_frontend::ir::{Scalar, Type, TypeId, Types};

/// One scalar component of a value: its type and its byte offset inside the value's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Scalar type.
    pub scalar: Scalar,
    /// Byte offset from the start of the value.
    pub offset: u32,
}

/// Register kind holding a scalar (`bool` in `%p`, `f16` in `%h`, 64-bit scalars in `%rd`,
/// the rest in `%r`).
pub fn kind_of(s: Scalar) -> RegKind {
    match s {
        Scalar::Bool => RegKind::Pred,
        Scalar::F16 => RegKind::B16,
        Scalar::I64 | Scalar::U64 | Scalar::F64 => RegKind::B64,
        Scalar::I32 | Scalar::U32 | Scalar::F32 => RegKind::B32,
    }
}

/// The PTX type of arithmetic on a scalar.
pub fn arith_ty(s: Scalar) -> crate::model::Type {
    use crate::model::Type as T;
    match s {
        Scalar::Bool => T::Pred,
        Scalar::I32 => T::S32,
        Scalar::U32 => T::U32,
        Scalar::F32 => T::F32,
        Scalar::F16 => T::F16,
        Scalar::I64 => T::S64,
        Scalar::U64 => T::U64,
        Scalar::F64 => T::F64,
    }
}

/// The scalar components of a type in register order, with memory offsets. `None` for types
/// that cannot be held in registers (runtime-sized arrays, handles, cooperative matrices).
pub fn leaves(types: &Types, ty: TypeId) -> Option<Vec<Leaf>> {
    let mut out = Vec::new();
    push_leaves(types, ty, 0, &mut out, 0)?;
    Some(out)
}

fn push_leaves(
    types: &Types,
    ty: TypeId,
    base: u32,
    out: &mut Vec<Leaf>,
    depth: u32,
) -> Option<()> {
    if depth > 64 || out.len() > 1 << 16 {
        return None;
    }
    match types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => out.push(Leaf { scalar: *s, offset: base }),
        Type::Vector { size, scalar } => {
            for i in 0..*size as u32 {
                out.push(Leaf { scalar: *scalar, offset: base + i * scalar.size() });
            }
        }
        Type::Matrix { columns, rows, scalar } => {
            let col_align = scalar.size() * if *rows == 2 { 2 } else { 4 };
            for c in 0..*columns as u32 {
                for r in 0..*rows as u32 {
                    out.push(Leaf {
                        scalar: *scalar,
                        offset: base + c * col_align + r * scalar.size(),
                    });
                }
            }
        }
        Type::Array { base: elem, len: Some(n), stride } => {
            for i in 0..*n {
                push_leaves(types, *elem, base + i * stride, out, depth + 1)?;
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                push_leaves(types, m.ty, base + m.offset, out, depth + 1)?;
            }
        }
        // A cooperative matrix holds its lane's fragment components (mma.sync fragments,
        // `CoopShape`; packed byte operands as words); the offsets only matter for spills to
        // function memory. TF32 on: every type either layout supports has a shape.
        Type::CoopMatrix { elem, .. } => {
            let shape = crate::lowering_common::CoopShape::of(types, ty, true).ok()?;
            let scalar = if shape.packed { Scalar::U32 } else { elem.scalar() };
            for i in 0..shape.count() {
                out.push(Leaf { scalar, offset: base + i * scalar.size() });
            }
        }
        _ => return None,
    }
    Some(())
}

/// Number of scalar components of a type (0 for types without a register form).
pub fn leaf_count(types: &Types, ty: TypeId) -> usize {
    leaves(types, ty).map_or(0, |l| l.len())
}

/// The component range of member `index` of a composite type, and the member's type.
pub fn member_range(
    types: &mut Types,
    ty: TypeId,
    index: u32,
) -> Option<(std::ops::Range<usize>, TypeId)> {
    match types.get(ty).clone() {
        Type::Vector { size, scalar } if index < size as u32 => {
            Some((index as usize..index as usize + 1, types.scalar(scalar)))
        }
        Type::Matrix { columns, rows, scalar } if index < columns as u32 => {
            let r = rows as usize;
            let s = index as usize * r;
            Some((s..s + r, types.intern(Type::Vector { size: rows, scalar })))
        }
        Type::Array { base, len: Some(n), .. } if index < n => {
            let c = leaf_count(types, base);
            let s = index as usize * c;
            Some((s..s + c, base))
        }
        Type::Struct { members, .. } => {
            let mut s = 0;
            for (i, m) in members.iter().enumerate() {
                let c = leaf_count(types, m.ty);
                if i as u32 == index {
                    return Some((s..s + c, m.ty));
                }
                s += c;
            }
            None
        }
        _ => None,
    }
}

/// Byte offset of member `index` inside a pointee type and the member's type, for
/// `AccessIndex` on pointers.
pub fn member_offset(types: &mut Types, ty: TypeId, index: u32) -> Option<(u32, TypeId)> {
    match types.get(ty).clone() {
        Type::Vector { size, scalar } if index < size as u32 => {
            Some((index * scalar.size(), types.scalar(scalar)))
        }
        Type::Matrix { columns, rows, scalar } if index < columns as u32 => {
            let col_align = scalar.size() * if rows == 2 { 2 } else { 4 };
            Some((index * col_align, types.intern(Type::Vector { size: rows, scalar })))
        }
        Type::Array { base, len, stride } => {
            if let Some(n) = len {
                if index >= n {
                    return None;
                }
            }
            Some((index * stride, base))
        }
        Type::Struct { members, .. } => members.get(index as usize).map(|m| (m.offset, m.ty)),
        _ => None,
    }
}

/// Element stride, element type and element count (None: runtime-sized) for a runtime
/// `Access` on a pointee type.
pub fn element_stride(types: &mut Types, ty: TypeId) -> Option<(u32, TypeId, Option<u32>)> {
    match types.get(ty).clone() {
        Type::Vector { size, scalar } => {
            Some((scalar.size(), types.scalar(scalar), Some(size as u32)))
        }
        Type::Matrix { columns, rows, scalar } => {
            let col_align = scalar.size() * if rows == 2 { 2 } else { 4 };
            Some((
                col_align,
                types.intern(Type::Vector { size: rows, scalar }),
                Some(columns as u32),
            ))
        }
        Type::Array { base, len, stride } => Some((stride, base, len)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_frontend::ir::Member;

    #[test]
    fn struct_leaves_follow_wgsl_offsets() {
        let mut t = Types::default();
        let f = t.scalar(Scalar::F32);
        let v3 = t.intern(Type::Vector { size: 3, scalar: Scalar::F32 });
        let m = |name: &str, ty, offset| Member { name: name.into(), ty, offset, binding: None };
        // struct { a: vec3<f32>, b: f32 }: b sits at 12 (vec3 has size 12, align 16).
        let s = t.intern(Type::Struct {
            name: "S".into(),
            members: vec![m("a", v3, 0), m("b", f, 12)],
            size: 16,
            align: 16,
        });
        let l = leaves(&t, s).expect("leaves");
        let offs: Vec<u32> = l.iter().map(|l| l.offset).collect();
        assert_eq!(offs, vec![0, 4, 8, 12]);
        let mat = t.intern(Type::Matrix { columns: 2, rows: 3, scalar: Scalar::F32 });
        let offs: Vec<u32> = leaves(&t, mat).expect("leaves").iter().map(|l| l.offset).collect();
        assert_eq!(offs, vec![0, 4, 8, 16, 20, 24]);
        assert_eq!(member_range(&mut t, s, 1).map(|r| r.0), Some(3..4));
    }
}
