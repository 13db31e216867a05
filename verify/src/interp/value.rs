//! How values are held: every value is a flat list of 32-bit words, one per scalar leaf.
//!
//! Scalars: `bool` is 0 or 1, `i32`/`u32`/`f32` are their bits, `f16` is its bit pattern in
//! the low 16 bits, `i64`/`u64`/`f64` are two words, the low half first. Composites are the concatenation of their parts in declaration order
//! (vector components, matrix columns, array elements, struct fields), so `Compose` is plain
//! concatenation. A cooperative matrix holds `rows * columns` elements in row-major order.
//! A pointer is two words: the memory region and the byte offset in it (the pointee type is
//! the static type of the value).

use dianran_frontend::ir::{ConstValue, Scalar, Type, TypeId, Types};
use dianran_frontend::{DiagKind, Diagnostic};
use half::f16;

/// Word counts of every type of a module, computed once per run.
pub(crate) struct Layout {
    words: Vec<u32>,
}

impl Layout {
    /// Computes the word count of every type.
    pub(crate) fn new(types: &Types) -> Self {
        let mut memo = vec![None; types.len()];
        for (id, _) in types.iter() {
            words_rec(types, id, &mut memo, 0);
        }
        Layout { words: memo.into_iter().map(|w| w.unwrap_or(0)).collect() }
    }

    /// Number of words a value of type `ty` occupies.
    pub(crate) fn words(&self, ty: TypeId) -> u32 {
        self.words.get(ty.index()).copied().unwrap_or(0)
    }
}

fn words_rec(types: &Types, id: TypeId, memo: &mut Vec<Option<u32>>, depth: u32) -> u32 {
    if let Some(Some(w)) = memo.get(id.index()) {
        return *w;
    }
    // Types are acyclic; the depth guard only protects against a malformed table.
    if depth > 64 || id.index() >= types.len() {
        return 0;
    }
    let w = match types.get(id) {
        Type::Scalar(s) | Type::Atomic(s) => super::wide::width(*s) as u32,
        Type::Vector { size, scalar } => u32::from(*size) * super::wide::width(*scalar) as u32,
        Type::Matrix { columns, rows, scalar } => {
            u32::from(*columns) * u32::from(*rows) * super::wide::width(*scalar) as u32
        }
        Type::CoopMatrix { columns, rows, .. } => u32::from(*columns) * u32::from(*rows),
        Type::Array { base, len, .. } => {
            let b = words_rec(types, *base, memo, depth + 1);
            len.map_or(0, |n| n.saturating_mul(b))
        }
        Type::Struct { members, .. } => {
            let mut sum = 0u32;
            for m in members {
                sum = sum.saturating_add(words_rec(types, m.ty, memo, depth + 1));
            }
            sum
        }
        Type::Pointer { .. } => 2,
        // A handle is the index of its module-scope variable.
        Type::Image { .. } | Type::Sampler { .. } => 1,
    };
    if let Some(slot) = memo.get_mut(id.index()) {
        *slot = Some(w);
    }
    w
}

/// Word offset and type of member `index` of a composite of type `ty`, for `Extract`,
/// `Insert` and their dynamic forms. `None` when the index is out of range.
pub(crate) fn member(types: &Types, lay: &Layout, ty: TypeId, index: u32) -> Option<(u32, u32)> {
    match types.get(ty) {
        Type::Vector { size, scalar } => {
            let w = super::wide::width(*scalar) as u32;
            (index < u32::from(*size)).then_some((index * w, w))
        }
        Type::Matrix { columns, rows, scalar } => {
            let col = u32::from(*rows) * super::wide::width(*scalar) as u32;
            (index < u32::from(*columns)).then_some((index * col, col))
        }
        Type::Array { base, len: Some(n), .. } => {
            let w = lay.words(*base);
            (index < *n).then(|| (index * w, w))
        }
        Type::Struct { members, .. } => {
            let mut off = 0;
            for (i, m) in members.iter().enumerate() {
                let w = lay.words(m.ty);
                if i as u32 == index {
                    return Some((off, w));
                }
                off += w;
            }
            None
        }
        _ => None,
    }
}

/// Element count of a vector, matrix (columns) or fixed array, for messages and bounds.
pub(crate) fn element_count(types: &Types, ty: TypeId) -> Option<u32> {
    match types.get(ty) {
        Type::Vector { size, .. } => Some(u32::from(*size)),
        Type::Matrix { columns, .. } => Some(u32::from(*columns)),
        Type::Array { len, .. } => *len,
        Type::Struct { members, .. } => Some(members.len() as u32),
        _ => None,
    }
}

/// Appends the words of a constant to `out`.
pub(crate) fn const_words(
    lay: &Layout,
    c: &ConstValue,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    match c {
        ConstValue::Bool(b) => out.push(u32::from(*b)),
        ConstValue::I32(v) => out.push(*v as u32),
        ConstValue::U32(v) | ConstValue::F32(v) => out.push(*v),
        ConstValue::F16(v) => out.push(u32::from(*v)),
        ConstValue::I64(v) => super::wide::put(out, *v as u64),
        ConstValue::U64(v) | ConstValue::F64(v) => super::wide::put(out, *v),
        ConstValue::Zero(t) => out.extend(std::iter::repeat_n(0, lay.words(*t) as usize)),
        ConstValue::Composite(t, parts) => {
            let start = out.len();
            for p in parts {
                const_words(lay, p, out)?;
            }
            let want = lay.words(*t) as usize;
            if out.len() - start != want {
                return Err(Diagnostic::error(
                    DiagKind::Internal,
                    format!("constant of {} words where its type needs {want}", out.len() - start),
                ));
            }
        }
    }
    Ok(())
}

/// An `f16` bit pattern (low 16 bits) as `f32`.
pub(crate) fn h2f(w: u32) -> f32 {
    f16::from_bits(w as u16).to_f32()
}

/// An `f32` rounded to `f16`, as a word.
pub(crate) fn f2h(v: f32) -> u32 {
    u32::from(f16::from_f32(v).to_bits())
}

/// A float word of scalar `s` as `f32`.
pub(crate) fn fget(s: Scalar, w: u32) -> f32 {
    match s {
        Scalar::F16 => h2f(w),
        _ => f32::from_bits(w),
    }
}

/// An `f32` result stored as scalar `s` (rounded for `f16`).
pub(crate) fn fput(s: Scalar, v: f32) -> u32 {
    match s {
        Scalar::F16 => f2h(v),
        _ => v.to_bits(),
    }
}

/// A runtime error (out of bounds, non-uniform barrier, step limit, ...).
pub(crate) fn runtime(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagKind::Runtime, msg)
}

/// An input the interpreter does not execute.
pub(crate) fn unsupported(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagKind::Unsupported, msg)
}

/// Malformed IR (a bug in the producer, not in the user's shader).
pub(crate) fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagKind::Internal, msg)
}

/// WGSL spelling of a type, for messages.
pub(crate) fn type_name(types: &Types, ty: TypeId) -> String {
    match types.get(ty) {
        Type::Scalar(s) => s.wgsl_name().to_string(),
        Type::Vector { size, scalar } => format!("vec{size}<{}>", scalar.wgsl_name()),
        Type::Matrix { columns, rows, scalar } => {
            format!("mat{columns}x{rows}<{}>", scalar.wgsl_name())
        }
        Type::Array { base, len: Some(n), .. } => {
            format!("array<{}, {n}>", type_name(types, *base))
        }
        Type::Array { base, len: None, .. } => format!("array<{}>", type_name(types, *base)),
        Type::Struct { name, .. } => name.clone(),
        Type::Atomic(s) => format!("atomic<{}>", s.wgsl_name()),
        Type::Pointer { base, .. } => format!("ptr<{}>", type_name(types, *base)),
        Type::Image { .. } => "texture".to_string(),
        Type::Sampler { .. } => "sampler".to_string(),
        Type::CoopMatrix { columns, rows, elem, role } => {
            format!("coop_mat{columns}x{rows}<{}, {role:?}>", elem.name())
        }
    }
}
