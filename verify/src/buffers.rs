//! Host buffers by (group, binding), laid out by WGSL's host-shareable rules, and the list of
//! buffers an entry point uses.

// `Diagnostic` is the project-wide error type of every public API; boxing it here would
// only make this module differ from the rest.
#![allow(clippy::result_large_err)]

use dianran_frontend::ir::{self, AddressSpace, FuncId, GlobalId, Type, TypeId};
use dianran_frontend::{DiagKind, Diagnostic};

/// Buffer contents by (group, binding).
pub type Buffers = std::collections::BTreeMap<(u32, u32), Vec<u8>>;

/// A storage or uniform buffer an entry point uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingInfo {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The module-scope variable.
    pub global: GlobalId,
    /// Its source name.
    pub name: String,
    /// Storage (read or read-write) or uniform.
    pub space: AddressSpace,
    /// The variable's type.
    pub ty: TypeId,
    /// Size in bytes of the fixed part (everything before a runtime-sized array).
    pub size: u32,
    /// Element stride of the trailing runtime-sized array, if there is one.
    pub runtime_stride: Option<u32>,
}

/// The globals an entry point's code reaches, directly or through calls (the reflection's
/// walk, so that the buffers verify lays out are the ones a launch binds).
pub(crate) use dianran_runtime::reflect::from_module::used_globals;

fn entry_func(m: &ir::Module, entry: &str) -> Result<FuncId, Diagnostic> {
    m.entry_point(entry).map(|e| e.function).ok_or_else(|| {
        let names: Vec<&str> = m.entry_points.iter().map(|e| e.name.as_str()).collect();
        Diagnostic::error(DiagKind::Runtime, format!("no entry point named '{entry}'"))
            .help(format!("the module's entry points are: {}", names.join(", ")))
    })
}

/// Fixed size and runtime-array stride of a buffer type.
fn buffer_shape(m: &ir::Module, ty: TypeId) -> (u32, Option<u32>) {
    match m.types.get(ty) {
        Type::Array { len: None, stride, .. } => (0, Some(*stride)),
        Type::Struct { members, size, .. } => match members.last() {
            Some(last) => match m.types.get(last.ty) {
                Type::Array { len: None, stride, .. } => (last.offset, Some(*stride)),
                _ => (*size, None),
            },
            None => (*size, None),
        },
        _ => (m.types.size_align(ty).0, None),
    }
}

/// The key under which [`Buffers`] hold an entry's immediate data (`var<immediate>`, which
/// has no binding): group `u32::MAX`, binding 0, after every real binding. The executors pass
/// those bytes as immediates (docs/immediates.md), not as a buffer.
pub const IMMEDIATES: (u32, u32) = (u32::MAX, 0);

/// The storage and uniform buffers `entry` uses (directly or through calls), sorted by
/// (group, binding), then its immediate data under the key [`IMMEDIATES`].
pub fn entry_bindings(m: &ir::Module, entry: &str) -> Result<Vec<BindingInfo>, Diagnostic> {
    let f = entry_func(m, entry)?;
    let mut out = Vec::new();
    for g in used_globals(m, f) {
        let Some(global) = m.globals.get(g.index()) else { continue };
        if global.space == AddressSpace::Immediate {
            let (size, runtime_stride) = buffer_shape(m, global.ty);
            out.push(BindingInfo {
                group: IMMEDIATES.0,
                binding: IMMEDIATES.1,
                global: g,
                name: global.name.clone(),
                space: global.space,
                ty: global.ty,
                size,
                runtime_stride,
            });
            continue;
        }
        if !matches!(global.space, AddressSpace::Storage { .. } | AddressSpace::Uniform) {
            continue;
        }
        let Some(rb) = global.binding else {
            return Err(Diagnostic::error(
                DiagKind::Internal,
                format!("buffer '{}' has no @group/@binding", global.name),
            )
            .at(global.span));
        };
        let (size, runtime_stride) = buffer_shape(m, global.ty);
        out.push(BindingInfo {
            group: rb.group,
            binding: rb.binding,
            global: g,
            name: global.name.clone(),
            space: global.space,
            ty: global.ty,
            size,
            runtime_stride,
        });
    }
    out.sort_by_key(|b| (b.group, b.binding));
    Ok(out)
}

/// Zero-filled buffers for every binding `entry` uses; a runtime-sized array gets
/// `runtime_len` elements. Sizes are rounded up to a multiple of 4 bytes, as WebGPU requires
/// of a storage binding: an `array<f16>` of odd length gets one more element, on every
/// executor alike (wgpu would otherwise pad the buffer for lavapipe alone, and `arrayLength`
/// would differ).
pub fn default_buffers(
    m: &ir::Module,
    entry: &str,
    runtime_len: u32,
) -> Result<Buffers, Diagnostic> {
    let mut out = Buffers::new();
    for b in entry_bindings(m, entry)? {
        let extra = b.runtime_stride.map_or(0u64, |s| u64::from(s) * u64::from(runtime_len));
        let total = (u64::from(b.size) + extra).next_multiple_of(4);
        if total > (1u64 << 31) {
            return Err(Diagnostic::error(
                DiagKind::Limit,
                format!("buffer '{}' would need {total} bytes", b.name),
            )
            .help("use a smaller runtime array length"));
        }
        out.insert((b.group, b.binding), vec![0u8; total as usize]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_f16_runtime_arrays_fill_whole_words() {
        let src = "enable f16;\n\
                   @group(0) @binding(0) var<storage, read_write> h: array<f16>;\n\
                   @compute @workgroup_size(1) fn main() { h[0] = f16(arrayLength(&h)); }";
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("valid");
        let b = default_buffers(&m, "main", 551).expect("buffers");
        // 551 halves are 1102 bytes; the binding gets 1104, so arrayLength is 552 everywhere.
        assert_eq!(b[&(0, 0)].len(), 1104);
        let b = default_buffers(&m, "main", 550).expect("buffers");
        assert_eq!(b[&(0, 0)].len(), 1100);
    }
}
