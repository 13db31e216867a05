//! Textures as the executors see them: texel formats ([`format`]), texture storage with
//! integer-coordinate loads and stores ([`TextureData`]), and samplers with filtering,
//! gathers and depth comparison ([`sample`]).
//!
//! This is the reference model of WGSL/Vulkan texture semantics that the interpreter runs
//! and that the PTX emulator runs with CUDA's reduced-precision filter weights
//! ([`Weights::Cuda8Bit`]); [`cuda_filter_tolerance`] bounds the difference between the two.
//!
//! Decisions where WGSL leaves room:
//! * An out-of-bounds `textureLoad` (coordinate, array layer or mip level) returns the
//!   all-zero texel (WGSL allows zero, or any texel of the texture); an out-of-bounds
//!   `textureStore` is dropped.
//! * Integer stores into narrower channels keep the low bits (see [`format`]).

// `Diagnostic` is the project-wide error type of every public API; boxing it here would
// only make this module differ from the rest.
#![allow(clippy::result_large_err)]

pub mod bindings;
/// Texel formats (`dianran-runtime`'s, which launches use too).
pub use dianran_runtime::texture::format;
pub mod sample;

pub use bindings::{
    build_textures, entry_handles, HandleBinding, HandleKind, SamplerSpec, TextureBindings,
    TextureSpec,
};
pub use dianran_runtime::texture::{TexDim, TextureData, MAX_TEXTURE_BYTES};
pub use format::{Channel, SampleKind, Texel, TexelFormat};
pub use sample::{
    cube_face, gather, gather_compare, lod_from_gradients, sample, sample_compare, sample_offset,
    AddressMode, BorderColor, CompareFn, Filter, SamplerDesc, Weights,
};

/// How far a result filtered with CUDA's 8-bit weights ([`Weights::Cuda8Bit`]) may be from
/// the exact ([`Weights::Exact`]) one: each of the `filtered_dims` interpolation weights
/// (1 for 1D linear, 2 for bilinear, 3 for trilinear or 2D plus a linear mip blend) is off
/// by at most 1/256 (the CUDA guide stores them with 8 fractional bits and does not say how
/// it rounds), and each moves the result by at most that times the spread of the texels it
/// blends, `texel_range` (max - min over the texture is a safe bound). A relative `f32`
/// rounding allowance for `max_abs` (the largest texel magnitude) covers the arithmetic.
pub fn cuda_filter_tolerance(texel_range: f32, max_abs: f32, filtered_dims: u32) -> f32 {
    filtered_dims as f32 * texel_range.abs() / 256.0 + 8.0 * f32::EPSILON * max_abs.abs()
}

#[cfg(test)]
mod tests;
