//! Sampler state: addressing, filters, level-of-detail clamps, border colour and depth
//! comparison, and the compare word a comparison pair's PTX parameter carries.

/// How a coordinate outside [0, 1) maps back into the texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Clamp to the first/last texel.
    ClampToEdge,
    /// Wrap around.
    Repeat,
    /// Wrap around, mirroring every other repetition.
    MirrorRepeat,
    /// Outside texels read as the sampler's border color.
    ClampToBorder,
}

/// Nearest or linear filtering (magnification, minification, or between mip levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// The nearest texel (level).
    Nearest,
    /// Weighted blend of the neighbouring texels (levels).
    Linear,
}

/// Depth comparison: a texel passes when `reference OP texel` holds (Vulkan's `Dref OP D`,
/// WebGPU's "the provided value is less than the sampled value" for `Less`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFn {
    /// Never passes.
    Never,
    /// `ref < texel`
    Less,
    /// `ref == texel`
    Equal,
    /// `ref <= texel`
    LessEqual,
    /// `ref > texel`
    Greater,
    /// `ref != texel`
    NotEqual,
    /// `ref >= texel`
    GreaterEqual,
    /// Always passes.
    Always,
}

impl CompareFn {
    /// Whether `reference` passes against `texel`.
    pub fn passes(self, reference: f32, texel: f32) -> bool {
        match self {
            CompareFn::Never => false,
            CompareFn::Less => reference < texel,
            CompareFn::Equal => reference == texel,
            CompareFn::LessEqual => reference <= texel,
            CompareFn::Greater => reference > texel,
            CompareFn::NotEqual => reference != texel,
            CompareFn::GreaterEqual => reference >= texel,
            CompareFn::Always => true,
        }
    }

    /// The WebGPU spelling (`less-equal`).
    pub fn name(self) -> &'static str {
        match self {
            CompareFn::Never => "never",
            CompareFn::Less => "less",
            CompareFn::Equal => "equal",
            CompareFn::LessEqual => "less-equal",
            CompareFn::Greater => "greater",
            CompareFn::NotEqual => "not-equal",
            CompareFn::GreaterEqual => "greater-equal",
            CompareFn::Always => "always",
        }
    }

    /// The function of a WebGPU spelling (`less-equal`; `_` works for `-`).
    pub fn parse(s: &str) -> Option<CompareFn> {
        let s = s.replace('_', "-").to_ascii_lowercase();
        [
            CompareFn::Never,
            CompareFn::Less,
            CompareFn::Equal,
            CompareFn::LessEqual,
            CompareFn::Greater,
            CompareFn::NotEqual,
            CompareFn::GreaterEqual,
            CompareFn::Always,
        ]
        .into_iter()
        .find(|c| c.name() == s)
    }
}

/// What texels outside the texture read as with [`AddressMode::ClampToBorder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BorderColor {
    /// (0, 0, 0, 0)
    TransparentBlack,
    /// (0, 0, 0, 1)
    OpaqueBlack,
    /// (1, 1, 1, 1)
    OpaqueWhite,
}

impl BorderColor {
    /// The color as four floats (integer textures read the same values as integers).
    pub fn rgba(self) -> [f32; 4] {
        match self {
            BorderColor::TransparentBlack => [0.0; 4],
            BorderColor::OpaqueBlack => [0.0, 0.0, 0.0, 1.0],
            BorderColor::OpaqueWhite => [1.0; 4],
        }
    }
}

/// A sampler (coordinates are always normalized, as in WGSL).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    /// Address modes for u, v, w.
    pub address: [AddressMode; 3],
    /// Filter when the level of detail is <= 0.
    pub mag: Filter,
    /// Filter when the level of detail is > 0.
    pub min: Filter,
    /// Between mip levels.
    pub mipmap: Filter,
    /// Depth comparison (`sampler_comparison`), if any.
    pub compare: Option<CompareFn>,
    /// Border color for [`AddressMode::ClampToBorder`].
    pub border: BorderColor,
    /// Smallest level of detail used.
    pub lod_min_clamp: f32,
    /// Largest level of detail used.
    pub lod_max_clamp: f32,
}

impl Default for SamplerDesc {
    /// WebGPU's default sampler: clamp to edge, nearest everywhere, no comparison, levels of
    /// detail clamped to [0, 32].
    fn default() -> Self {
        SamplerDesc {
            address: [AddressMode::ClampToEdge; 3],
            mag: Filter::Nearest,
            min: Filter::Nearest,
            mipmap: Filter::Nearest,
            compare: None,
            border: BorderColor::TransparentBlack,
            lod_min_clamp: 0.0,
            lod_max_clamp: 32.0,
        }
    }
}

impl SamplerDesc {
    /// A sampler with one address mode on all axes and one filter for mag, min and mipmap.
    pub fn uniform(address: AddressMode, filter: Filter) -> SamplerDesc {
        SamplerDesc {
            address: [address; 3],
            mag: filter,
            min: filter,
            mipmap: filter,
            ..SamplerDesc::default()
        }
    }
}

/// The sampler state of a comparison pair's texture object: `s` point filtered everywhere
/// and without compare function (`docs/textures.md`, "Depth comparison").
pub fn compare_object_sampler(s: &SamplerDesc) -> SamplerDesc {
    SamplerDesc {
        mag: Filter::Nearest,
        min: Filter::Nearest,
        mipmap: Filter::Nearest,
        compare: None,
        ..*s
    }
}

/// The compare word of a comparison pair with sampler `s` (`docs/textures.md`, "Depth
/// comparison"): the compare function in WebGPU order in bits 0..=2 (`never` without
/// one, as the reference model compares), the linear bit when the sampler magnifies linearly.
pub fn compare_word(s: &SamplerDesc) -> u32 {
    use dianran_ptx::abi::COMPARE_LINEAR_BIT;
    let f = match s.compare.unwrap_or(CompareFn::Never) {
        CompareFn::Never => 0,
        CompareFn::Less => 1,
        CompareFn::Equal => 2,
        CompareFn::LessEqual => 3,
        CompareFn::Greater => 4,
        CompareFn::NotEqual => 5,
        CompareFn::GreaterEqual => 6,
        CompareFn::Always => 7,
    };
    f | if s.mag == Filter::Linear { COMPARE_LINEAR_BIT } else { 0 }
}
