//! What Metal lacks of WGSL's 64-bit types: `long`/`ulong` exist, `double` does not, and of
//! 64-bit atomics Metal has only `atomic_ulong` min/max (Metal 3.1, Apple9 GPUs), which this
//! printer does not target; a function that needs either is left out with a diagnostic.

use dianran_frontend::ir::{Function, Module, Scalar, Type, TypeId, Types};

/// Whether a value of type `ty` holds an `f64` somewhere (struct members, array elements and
/// pointees included); `atomic` asks for 64-bit atomics instead.
pub(crate) fn holds(types: &Types, ty: TypeId, atomic: bool, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    match types.get(ty) {
        Type::Scalar(s) | Type::Vector { scalar: s, .. } | Type::Matrix { scalar: s, .. } => {
            !atomic && *s == Scalar::F64
        }
        Type::Atomic(s) => atomic && s.is_64(),
        Type::Array { base, .. } | Type::Pointer { base, .. } => {
            holds(types, *base, atomic, depth + 1)
        }
        Type::Struct { members, .. } => {
            members.iter().any(|m| holds(types, m.ty, atomic, depth + 1))
        }
        _ => false,
    }
}

/// The 64-bit construct of `f` (its values, and the globals of `m` it may touch) that MSL
/// cannot express, as the text of a diagnostic; `None` when there is none.
pub(crate) fn missing_in_metal(
    m: &Module,
    f: &Function,
    globals: &[TypeId],
) -> Option<&'static str> {
    let tys = f.values.iter().map(|v| v.ty).chain(globals.iter().copied());
    let tys: Vec<TypeId> = tys.collect();
    if tys.iter().any(|&t| holds(&m.types, t, false, 0)) {
        Some("f64 (Metal has no double type)")
    } else if tys.iter().any(|&t| holds(&m.types, t, true, 0)) {
        Some("64-bit atomics (Metal has only atomic_ulong min/max, from Metal 3.1)")
    } else {
        None
    }
}
