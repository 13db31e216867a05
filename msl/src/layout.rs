//! Layout parity between WGSL and Metal (docs/msl.md).
//!
//! WGSL and Metal agree on most host-shareable layouts (a `vec3<f32>` and a `float3` are both
//! 16-byte aligned, `mat3x3` columns and `array<vec3>` elements have a 16-byte stride). They
//! differ where a `vec3` is followed by a member that WGSL packs into the vec3's last four bytes:
//! Metal's `float3` is 16 bytes long. The struct printer therefore:
//!
//! * prints such a vec3 member as `packed_float3` (12 bytes, 4-aligned),
//! * inserts `char _padN[k]` members wherever Metal's natural offset is below WGSL's,
//! * declares the struct `alignas(A)` with WGSL's alignment and pads its tail to WGSL's size.
//!
//! [`plan_struct`] makes those decisions; [`layout`] recomputes the resulting offsets from a
//! separate model of Metal's layout rules, so a test can compare them with WGSL's offsets.

use dianran_frontend::ir::{Member, Scalar, Type, TypeId, Types};

/// How one WGSL struct member is declared in Metal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MslMember {
    /// `char _padN[bytes];`
    Pad(u32),
    /// The WGSL member `index`, as a packed vector when `packed` is true.
    Field {
        /// Index of the WGSL member.
        index: usize,
        /// Printed as `packed_<scalar>3`.
        packed: bool,
    },
}

/// Metal (size, alignment) of a type as the printer declares it; `packed` for packed vec3.
pub fn msl_size_align(types: &Types, ty: TypeId, packed: bool) -> (u32, u32) {
    match types.get(ty) {
        Type::Vector { size: 3, scalar } if packed => (scalar.size() * 3, scalar.size()),
        Type::Vector { size, scalar } => {
            // Metal vectors of 3 occupy 4 elements.
            let n = if *size == 2 { 2 } else { 4 };
            (scalar.size() * n, scalar.size() * n)
        }
        Type::Matrix { columns, rows, scalar } => {
            let n = if *rows == 2 { 2 } else { 4 };
            let col = scalar.size() * n;
            (col * *columns as u32, col)
        }
        Type::Array { base, len, .. } => {
            let (s, a) = msl_size_align(types, *base, false);
            let stride = round_up(s, a);
            (stride * len.unwrap_or(1), a)
        }
        Type::Struct { size, align, .. } => (*size, *align),
        Type::Scalar(s) | Type::Atomic(s) => {
            let s = if *s == Scalar::Bool { 1 } else { s.size() };
            (s, s)
        }
        _ => types.size_align(ty),
    }
}

/// Rounds `x` up to a multiple of `a`.
pub fn round_up(x: u32, a: u32) -> u32 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

/// Decides packing and padding so Metal offsets equal WGSL's.
pub fn plan_struct(types: &Types, members: &[Member], size: u32) -> Vec<MslMember> {
    let mut plan = Vec::new();
    let mut cur = 0u32;
    for (i, m) in members.iter().enumerate() {
        let next_offset = members.get(i + 1).map_or(size, |n| n.offset);
        let is_vec3 = matches!(types.get(m.ty), Type::Vector { size: 3, .. });
        let (full, _) = msl_size_align(types, m.ty, false);
        let packed = is_vec3 && m.offset + full > next_offset;
        let (_, a) = msl_size_align(types, m.ty, packed);
        if round_up(cur, a) < m.offset {
            plan.push(MslMember::Pad(m.offset - cur));
            cur = m.offset;
        }
        plan.push(MslMember::Field { index: i, packed });
        let (s, a) = msl_size_align(types, m.ty, packed);
        cur = round_up(cur, a) + s;
    }
    let is_runtime =
        members.last().is_some_and(|m| matches!(types.get(m.ty), Type::Array { len: None, .. }));
    if !is_runtime && cur < size {
        plan.push(MslMember::Pad(size - cur));
    }
    plan
}

/// Field offsets (name, byte offset) of a struct type as Metal lays out the printed
/// declaration, computed from Metal's rules (not from the WGSL offsets).
pub fn layout(types: &Types, ty: TypeId) -> Vec<(String, u32)> {
    let Type::Struct { members, size, .. } = types.get(ty) else { return Vec::new() };
    let mut out = Vec::new();
    let mut cur = 0u32;
    for item in plan_struct(types, members, *size) {
        match item {
            MslMember::Pad(n) => cur += n,
            MslMember::Field { index, packed } => {
                let Some(m) = members.get(index) else { continue };
                let (s, a) = msl_size_align(types, m.ty, packed);
                let at = round_up(cur, a);
                out.push((m.name.clone(), at));
                cur = at + s;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec3_followed_by_scalar_is_packed() {
        let mut t = Types::default();
        let v3 = t.intern(Type::Vector { size: 3, scalar: Scalar::F32 });
        let f = t.scalar(Scalar::F32);
        let members = vec![
            Member { name: "pos".into(), ty: v3, offset: 0, binding: None },
            Member { name: "mass".into(), ty: f, offset: 12, binding: None },
            Member { name: "vel".into(), ty: v3, offset: 16, binding: None },
        ];
        let s = t.intern(Type::Struct { name: "P".into(), members, size: 32, align: 16 });
        // Hand-computed WGSL offsets: 0, 12, 16.
        assert_eq!(layout(&t, s), vec![("pos".into(), 0), ("mass".into(), 12), ("vel".into(), 16)]);
    }
}
