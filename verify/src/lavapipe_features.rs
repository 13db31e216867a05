//! Which optional wgpu features a kernel needs on lavapipe (f32 atomics, immediates), and why the lavapipe executors
//! skip a kernel whose features the device was not made with.
//!
//! The device asks for every feature dianran can use (`crate::lavapipe`); which ones Mesa
//! grants depends on its version, so a kernel that needs a missing one is reported as
//! `skipped: ...` (naming the feature) instead of failing in wgpu's validation.

use dianran_frontend::ir::{AddressSpace, Module, Scalar, Type};

/// The optional features `module` needs: `SHADER_FLOAT32_ATOMIC` for any `atomic<f32>`,
/// `IMMEDIATES` for a `var<immediate>`.
pub fn needed(module: &Module) -> wgpu::Features {
    let mut f = wgpu::Features::empty();
    if module.types.iter().any(|(_, t)| matches!(t, Type::Atomic(Scalar::F32))) {
        f |= wgpu::Features::SHADER_FLOAT32_ATOMIC;
    }
    if module.globals.iter().any(|g| g.space == AddressSpace::Immediate) {
        f |= wgpu::Features::IMMEDIATES;
    }
    f
}

/// Why lavapipe cannot run `entry` of `module`: a needed feature the device lacks, or more
/// immediate data than its `max_immediate_size`. `None` when it can (or when there is no
/// device; the caller reports that on its own).
pub fn missing(module: &Module, entry: &str) -> Option<String> {
    let have = crate::lavapipe::features()?;
    let lacking = needed(module) - have;
    if !lacking.is_empty() {
        return Some(format!("the lavapipe device lacks wgpu feature {lacking:?}"));
    }
    let bindings = crate::buffers::entry_bindings(module, entry).ok()?;
    let size = bindings.iter().find(|b| (b.group, b.binding) == crate::buffers::IMMEDIATES)?.size;
    let limit = crate::lavapipe::max_immediate_size()?;
    (size.next_multiple_of(4) > limit).then(|| {
        format!("{size} bytes of immediate data; the lavapipe device allows {limit} (max_immediate_size)")
    })
}
