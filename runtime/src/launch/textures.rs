//! Textures and samplers for [`super::CudaModule::launch_with_textures`]
//! (`docs/textures.md`): CUDA arrays, texture objects and surface objects matching the
//! entry's parameter list.
//!
//! The mapping from WGSL to the driver's descriptors is plain functions
//! ([`array_format`], [`array_descriptor`], [`texture_descriptor`], [`plan_objects`]) so it
//! is tested without a device; the driver calls use them.

use super::LaunchError;
use crate::reflect::{BindingKind, Entry};
use crate::texture::{AddressMode, Channel, Filter, SamplerDesc, TexDim, TexelFormat, TextureData};
use cudarc::driver::sys;

/// A texture bound to `@group(group) @binding(binding)` for one launch: its texels (all mip
/// levels, `TextureData`'s layout). After a successful launch a storage texture the entry
/// may write holds the results.
#[derive(Debug)]
pub struct TextureArg<'a> {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Shape, format and texels.
    pub texture: &'a mut TextureData,
}

/// A sampler bound to `@group(group) @binding(binding)`.
#[derive(Clone, Copy, Debug)]
pub struct SamplerArg {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Addressing, filters and level-of-detail clamps.
    pub sampler: SamplerDesc,
}

/// The CUDA array format and channel count of a texel format; `None` for three-channel or
/// other formats CUDA arrays cannot hold.
pub fn array_format(f: TexelFormat) -> Option<(sys::CUarray_format, u32)> {
    use sys::CUarray_format as F;
    let fmt = match f.channel() {
        Channel::F32 => F::CU_AD_FORMAT_FLOAT,
        Channel::F16 => F::CU_AD_FORMAT_HALF,
        Channel::Unorm8 | Channel::U8 => F::CU_AD_FORMAT_UNSIGNED_INT8,
        Channel::Snorm8 | Channel::S8 => F::CU_AD_FORMAT_SIGNED_INT8,
        Channel::Unorm16 | Channel::U16 => F::CU_AD_FORMAT_UNSIGNED_INT16,
        Channel::Snorm16 | Channel::S16 => F::CU_AD_FORMAT_SIGNED_INT16,
        Channel::U32 => F::CU_AD_FORMAT_UNSIGNED_INT32,
        Channel::S32 => F::CU_AD_FORMAT_SIGNED_INT32,
    };
    let n = f.channels() as u32;
    matches!(n, 1 | 2 | 4).then_some((fmt, n))
}

/// Whether texture reads return the stored integers (`CU_TRSF_READ_AS_INTEGER`) rather than
/// normalized floats.
fn reads_as_integer(f: TexelFormat) -> bool {
    matches!(
        f.channel(),
        Channel::U8 | Channel::S8 | Channel::U16 | Channel::S16 | Channel::U32 | Channel::S32
    )
}

/// The `cuMipmappedArrayCreate` descriptor of a texture: extent of level 0, format,
/// `LAYERED` for arrays, `CUBEMAP` for cubes (depth = 6 x cubes), `SURFACE_LDST` for storage
/// textures, `TEXTURE_GATHER` for other 2D textures.
pub fn array_descriptor(
    t: &TextureData,
    surface: bool,
) -> Result<sys::CUDA_ARRAY3D_DESCRIPTOR, String> {
    let (fmt, n) = array_format(t.format)
        .ok_or_else(|| format!("{} has no CUDA array format", t.format.name()))?;
    let mut flags = 0;
    let (h, d) = match t.dim {
        TexDim::D1 => (0, 0),
        // `tld4` (textureGather, depth comparison) needs the gather flag, which the driver
        // allows on 2D arrays only (`cuMipmappedArrayCreate`).
        TexDim::D2 if !surface => {
            flags |= sys::CUDA_ARRAY3D_TEXTURE_GATHER;
            (t.height, 0)
        }
        TexDim::D2 => (t.height, 0),
        TexDim::D3 => (t.height, t.depth_or_layers),
        TexDim::D2Array => {
            flags |= sys::CUDA_ARRAY3D_LAYERED;
            (t.height, t.depth_or_layers)
        }
        TexDim::Cube => {
            flags |= sys::CUDA_ARRAY3D_CUBEMAP;
            (t.height, 6)
        }
        TexDim::CubeArray => {
            flags |= sys::CUDA_ARRAY3D_CUBEMAP | sys::CUDA_ARRAY3D_LAYERED;
            (t.height, t.depth_or_layers)
        }
    };
    if surface {
        flags |= sys::CUDA_ARRAY3D_SURFACE_LDST;
    }
    Ok(sys::CUDA_ARRAY3D_DESCRIPTOR {
        Width: t.width as usize,
        Height: h as usize,
        Depth: d as usize,
        Format: fmt,
        NumChannels: n,
        Flags: flags,
    })
}

fn address(a: AddressMode) -> sys::CUaddress_mode {
    match a {
        AddressMode::ClampToEdge => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Repeat => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::MirrorRepeat => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR,
        AddressMode::ClampToBorder => sys::CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
    }
}

fn filter(f: Filter) -> sys::CUfilter_mode {
    match f {
        Filter::Nearest => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        Filter::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
    }
}

/// The `cuTexObjectCreate` descriptor: a pair's texture object takes the sampler's state
/// with normalized coordinates (CUDA has one filter for magnification and minification:
/// linear when either is); a slot object (`sampler: None`, fetched and queried only) point
/// filters. Integer formats read as integers.
pub fn texture_descriptor(
    format: TexelFormat,
    sampler: Option<&SamplerDesc>,
) -> sys::CUDA_TEXTURE_DESC {
    let s = sampler.copied().unwrap_or_default();
    let mut flags = 0;
    if sampler.is_some() {
        flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
    }
    if reads_as_integer(format) {
        flags |= sys::CU_TRSF_READ_AS_INTEGER;
    }
    let linear = s.mag == Filter::Linear || s.min == Filter::Linear;
    sys::CUDA_TEXTURE_DESC {
        addressMode: s.address.map(address),
        filterMode: filter(if linear { Filter::Linear } else { Filter::Nearest }),
        flags,
        maxAnisotropy: 1,
        mipmapFilterMode: filter(s.mipmap),
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: s.lod_min_clamp,
        maxMipmapLevelClamp: s.lod_max_clamp,
        borderColor: s.border.rgba(),
        reserved: [0; 12],
    }
}

/// What the host passes for one PTX parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectPlan {
    /// A buffer (index into the buffers; `None`: a placeholder).
    Buffer(Option<usize>),
    /// A texture object of texture `texture` (index into the textures) with sampler
    /// `sampler`'s state (index into the samplers; `None`: a slot object, point filtered).
    Texture {
        /// Index into the textures.
        texture: usize,
        /// Index into the samplers.
        sampler: Option<usize>,
        /// A comparison pair's object: point filtered, the kernel compares and filters
        /// (`crate::texture::compare_object_sampler`).
        compare: bool,
    },
    /// The by-value `.u32` compare word of a comparison pair with sampler `sampler` (index
    /// into the samplers; `crate::texture::compare_word`).
    CompareWord {
        /// Index into the samplers.
        sampler: usize,
    },
    /// A surface object of storage texture `texture`.
    Surface {
        /// Index into the textures.
        texture: usize,
    },
}

/// Matches the entry's parameters with the textures bound at `textures` (group, binding)
/// and the samplers (buffers are matched by [`super::LaunchPlan`]'s own plan; here their
/// slots are `Buffer(None)`). Errors: a texture or sampler the kernel reads that was not
/// given.
pub fn plan_objects(
    entry: &Entry,
    textures: &[(u32, u32)],
    samplers: &[SamplerArg],
) -> Result<Vec<ObjectPlan>, LaunchError> {
    let tex_at = |g: u32, b: u32| textures.iter().position(|t| *t == (g, b));
    let missing = |g: u32, b: u32| LaunchError::MissingBuffer {
        group: g,
        binding: b,
        name: entry.binding(g, b).map_or_else(String::new, |i| i.name.to_string()),
    };
    let mut out = Vec::with_capacity(entry.ptx_params.len());
    let sampler_at = |(sg, sb): (u32, u32)| {
        samplers
            .iter()
            .position(|s| (s.group, s.binding) == (sg, sb))
            .ok_or_else(|| missing(sg, sb))
    };
    // The pairs that have a compare word.
    let compared = |p: &crate::reflect::PtxParam| {
        entry.ptx_params.iter().any(|q| {
            q.compare && (q.group, q.binding, q.sampler) == (p.group, p.binding, p.sampler)
        })
    };
    for p in entry.ptx_params.iter() {
        let kind = entry.binding(p.group, p.binding).map(|b| b.kind);
        let plan = match (p.sampler, kind) {
            (Some(s), _) if p.compare => ObjectPlan::CompareWord { sampler: sampler_at(s)? },
            (Some(s), _) => {
                let texture =
                    tex_at(p.group, p.binding).ok_or_else(|| missing(p.group, p.binding))?;
                let sampler = sampler_at(s)?;
                ObjectPlan::Texture { texture, sampler: Some(sampler), compare: compared(p) }
            }
            (None, Some(BindingKind::StorageTexture)) if p.used => ObjectPlan::Surface {
                texture: tex_at(p.group, p.binding).ok_or_else(|| missing(p.group, p.binding))?,
            },
            (None, Some(BindingKind::Texture)) if p.used => ObjectPlan::Texture {
                texture: tex_at(p.group, p.binding).ok_or_else(|| missing(p.group, p.binding))?,
                sampler: None,
                compare: false,
            },
            _ => ObjectPlan::Buffer(None),
        };
        out.push(plan);
    }
    Ok(out)
}

/// The extent of `level` as `cuMemcpy3D` counts it: width in bytes, rows, and slices
/// (depth, layers, or 6 x cubes).
pub fn level_copy_extent(t: &TextureData, level: u32) -> (usize, usize, usize) {
    let [w, h, d] = t.dimensions(level);
    let slices = match t.dim {
        TexDim::D3 => d,
        TexDim::D2Array | TexDim::Cube | TexDim::CubeArray => t.depth_or_layers,
        _ => 1,
    };
    (w as usize * t.format.bytes_per_texel(), h as usize, slices as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(dim: TexDim, f: TexelFormat, w: u32, h: u32, d: u32, l: u32) -> TextureData {
        TextureData::new(dim, f, w, h, d, l).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn array_descriptors_follow_the_texture_shape() {
        let d = array_descriptor(&tex(TexDim::D2, TexelFormat::Rgba8Unorm, 16, 8, 1, 2), false)
            .unwrap();
        let gather = sys::CUDA_ARRAY3D_TEXTURE_GATHER;
        assert_eq!((d.Width, d.Height, d.Depth, d.NumChannels, d.Flags), (16, 8, 0, 4, gather));
        assert_eq!(d.Format, sys::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8);
        let d = array_descriptor(&tex(TexDim::D2Array, TexelFormat::R32Float, 4, 4, 3, 1), true)
            .unwrap();
        assert_eq!((d.Depth, d.NumChannels), (3, 1));
        assert_eq!(d.Flags, sys::CUDA_ARRAY3D_LAYERED | sys::CUDA_ARRAY3D_SURFACE_LDST);
        let d =
            array_descriptor(&tex(TexDim::CubeArray, TexelFormat::Rgba16Float, 4, 4, 12, 1), false)
                .unwrap();
        assert_eq!(d.Depth, 12);
        assert_eq!(d.Flags, sys::CUDA_ARRAY3D_CUBEMAP | sys::CUDA_ARRAY3D_LAYERED);
        assert_eq!(d.Format, sys::CUarray_format::CU_AD_FORMAT_HALF);
        let d =
            array_descriptor(&tex(TexDim::D1, TexelFormat::Rg32Sint, 13, 1, 1, 1), false).unwrap();
        assert_eq!((d.Width, d.Height, d.Depth, d.NumChannels), (13, 0, 0, 2));
        assert_eq!(d.Format, sys::CUarray_format::CU_AD_FORMAT_SIGNED_INT32);
        assert_eq!(
            level_copy_extent(&tex(TexDim::D3, TexelFormat::R32Uint, 8, 4, 4, 2), 1),
            (16, 2, 2)
        );
    }

    #[test]
    fn texture_descriptors_take_the_sampler_state() {
        let s = SamplerDesc {
            address: [AddressMode::Repeat, AddressMode::MirrorRepeat, AddressMode::ClampToBorder],
            mag: Filter::Linear,
            min: Filter::Nearest,
            mipmap: Filter::Linear,
            lod_max_clamp: 3.0,
            ..SamplerDesc::default()
        };
        let d = texture_descriptor(TexelFormat::Rgba8Unorm, Some(&s));
        assert_eq!(
            d.addressMode,
            [
                sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP,
                sys::CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR,
                sys::CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
            ]
        );
        assert_eq!(d.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR);
        assert_eq!(d.mipmapFilterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR);
        assert_eq!(d.flags, sys::CU_TRSF_NORMALIZED_COORDINATES);
        assert_eq!(d.maxMipmapLevelClamp, 3.0);
        // A slot object of an integer texture: point filtered, unnormalized, integers.
        let d = texture_descriptor(TexelFormat::R32Sint, None);
        assert_eq!(d.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT);
        assert_eq!(d.flags, sys::CU_TRSF_READ_AS_INTEGER);
        assert_eq!(d.addressMode, [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP; 3]);
    }
}
