//! Which optional wgpu features a kernel needs on lavapipe, and why the lavapipe executors
//! skip a kernel whose features the device was not made with.
//!
//! The device asks for every feature dianran can use (`crate::lavapipe`); which ones Mesa
//! grants depends on its version, so a kernel that needs a missing one is reported as
//! `skipped: ...` (naming the feature) instead of failing in wgpu's validation.

use dianran_frontend::ir::{Module, Scalar, Type};

/// The optional features `module` needs: `SHADER_FLOAT32_ATOMIC` for any `atomic<f32>`.
pub fn needed(module: &Module) -> wgpu::Features {
    let mut f = wgpu::Features::empty();
    if module.types.iter().any(|(_, t)| matches!(t, Type::Atomic(Scalar::F32))) {
        f |= wgpu::Features::SHADER_FLOAT32_ATOMIC;
    }
    f
}

/// Why lavapipe cannot run `module`: a needed feature the device lacks. `None` when it can
/// (or when there is no device; the caller reports that on its own).
pub fn missing(module: &Module) -> Option<String> {
    let have = crate::lavapipe::features()?;
    let lacking = needed(module) - have;
    (!lacking.is_empty()).then(|| format!("the lavapipe device lacks wgpu feature {lacking:?}"))
}
