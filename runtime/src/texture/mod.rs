//! Texture host data: what a launch binds as a texture or sampler, and what the reference
//! model in `dianran-verify` reads and writes. Texel formats ([`format`]), texture storage
//! with integer-coordinate loads and stores ([`TextureData`]), sampler state ([`SamplerDesc`])
//! and the compare word of a comparison pair ([`compare_word`], docs/textures.md).
//!
//! Decisions where WGSL leaves room:
//! * An out-of-bounds `textureLoad` (coordinate, array layer or mip level) returns the
//!   all-zero texel (WGSL allows zero, or any texel of the texture); an out-of-bounds
//!   `textureStore` is dropped.
//! * Integer stores into narrower channels keep the low bits (see [`format`]).

// `Diagnostic` is the project-wide error type of every public API; boxing it here would
// only make this module differ from the rest.
#![allow(clippy::result_large_err)]

pub mod format;
mod sampler;

pub use format::{Channel, SampleKind, Texel, TexelFormat};
pub use sampler::{
    compare_object_sampler, compare_word, AddressMode, BorderColor, CompareFn, Filter, SamplerDesc,
};

use dianran_frontend::ir::ImageDimension;
use dianran_frontend::{DiagKind, Diagnostic};

/// The shape of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexDim {
    /// `texture_1d`: width only.
    D1,
    /// `texture_2d`, `texture_storage_2d`, `texture_depth_2d`.
    D2,
    /// `texture_2d_array` (and depth/storage forms): `depth_or_layers` layers.
    D2Array,
    /// `texture_3d`: `depth_or_layers` slices, which shrink with the mip level.
    D3,
    /// `texture_cube`: six faces (`depth_or_layers` = 6), in the order +X, -X, +Y, -Y, +Z, -Z.
    Cube,
    /// `texture_cube_array`: `depth_or_layers` = 6 x cubes.
    CubeArray,
}

impl TexDim {
    /// The shape of an IR image type.
    pub fn from_ir(dim: ImageDimension, arrayed: bool) -> TexDim {
        match (dim, arrayed) {
            (ImageDimension::D1, _) => TexDim::D1,
            (ImageDimension::D2, false) => TexDim::D2,
            (ImageDimension::D2, true) => TexDim::D2Array,
            (ImageDimension::D3, _) => TexDim::D3,
            (ImageDimension::Cube, false) => TexDim::Cube,
            (ImageDimension::Cube, true) => TexDim::CubeArray,
        }
    }

    /// Coordinate components a shader passes (1, 2 or 3; cube maps take a 3D direction).
    pub fn coord_count(self) -> usize {
        match self {
            TexDim::D1 => 1,
            TexDim::D2 | TexDim::D2Array => 2,
            TexDim::D3 | TexDim::Cube | TexDim::CubeArray => 3,
        }
    }

    /// Whether shaders pass an array layer.
    pub fn is_array(self) -> bool {
        matches!(self, TexDim::D2Array | TexDim::CubeArray)
    }

    /// Whether this is a cube map (array or not).
    pub fn is_cube(self) -> bool {
        matches!(self, TexDim::Cube | TexDim::CubeArray)
    }
}

/// A texture's contents: all mip levels of all layers, tightly packed, level 0 first; within
/// a level, layer (or 3D slice, or cube face) by layer, row by row, texel `x` fastest.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureData {
    /// Shape.
    pub dim: TexDim,
    /// Texel format.
    pub format: TexelFormat,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0 (1 for 1D).
    pub height: u32,
    /// Depth of level 0 for 3D; layer count for arrays (x 6 for cube arrays); 6 for cube
    /// maps; 1 otherwise.
    pub depth_or_layers: u32,
    /// Mip levels (at least 1).
    pub mip_levels: u32,
    /// The texels.
    pub data: Vec<u8>,
}

/// Largest texture the model accepts, in bytes (all levels), so a typo in an extent is an
/// error instead of an allocation failure.
pub const MAX_TEXTURE_BYTES: u64 = 1 << 30;

fn shape_error(msg: String) -> Diagnostic {
    Diagnostic::error(DiagKind::Runtime, msg)
}

impl TextureData {
    /// A zero-filled texture. Errors: a zero extent, a shape the dimension does not allow
    /// (1D with height, cube maps that are not square or whose layers are not a multiple of
    /// 6), more mip levels than the extent has, or more than [`MAX_TEXTURE_BYTES`].
    pub fn new(
        dim: TexDim,
        format: TexelFormat,
        width: u32,
        height: u32,
        depth_or_layers: u32,
        mip_levels: u32,
    ) -> Result<TextureData, Diagnostic> {
        if width == 0 || height == 0 || depth_or_layers == 0 || mip_levels == 0 {
            return Err(shape_error(format!(
                "texture extent {width}x{height}x{depth_or_layers} with {mip_levels} mip levels has a zero"
            )));
        }
        match dim {
            TexDim::D1 if height != 1 || depth_or_layers != 1 => {
                return Err(shape_error(format!(
                    "a 1D texture is {width}x1x1, not {width}x{height}x{depth_or_layers}"
                )));
            }
            TexDim::D2 if depth_or_layers != 1 => {
                return Err(shape_error(format!(
                    "a 2D texture has one layer, not {depth_or_layers}"
                )));
            }
            TexDim::Cube | TexDim::CubeArray
                if width != height
                    || !depth_or_layers.is_multiple_of(6)
                    || (dim == TexDim::Cube && depth_or_layers != 6) =>
            {
                return Err(shape_error(format!(
                    "a cube texture has square faces and 6 layers per cube, not {width}x{height}x{depth_or_layers}"
                )));
            }
            _ => {}
        }
        let max_extent = match dim {
            TexDim::D3 => width.max(height).max(depth_or_layers),
            _ => width.max(height),
        };
        let possible = 32 - max_extent.leading_zeros();
        if mip_levels > possible {
            return Err(shape_error(format!(
                "a texture of extent {max_extent} has at most {possible} mip levels, not {mip_levels}"
            )));
        }
        let mut t = TextureData {
            dim,
            format,
            width,
            height,
            depth_or_layers,
            mip_levels,
            data: Vec::new(),
        };
        let total = t.level_offset(mip_levels);
        if total > MAX_TEXTURE_BYTES {
            return Err(shape_error(format!("texture would need {total} bytes"))
                .help(format!("the limit is {MAX_TEXTURE_BYTES} bytes")));
        }
        t.data = vec![0; total as usize];
        Ok(t)
    }

    /// [`TextureData::new`] with `data` as its contents, which must be exactly
    /// [`TextureData::byte_len`] bytes.
    pub fn with_data(
        dim: TexDim,
        format: TexelFormat,
        extent: [u32; 3],
        mip_levels: u32,
        data: Vec<u8>,
    ) -> Result<TextureData, Diagnostic> {
        let mut t = TextureData::new(dim, format, extent[0], extent[1], extent[2], mip_levels)?;
        if data.len() != t.data.len() {
            return Err(shape_error(format!(
                "texture data is {} bytes; a {}x{}x{} {} texture with {mip_levels} mip levels needs {}",
                data.len(),
                extent[0],
                extent[1],
                extent[2],
                format.name(),
                t.data.len()
            )));
        }
        t.data = data;
        Ok(t)
    }

    /// Total bytes of all levels.
    pub fn byte_len(&self) -> usize {
        self.data.len()
    }

    /// Mip levels.
    pub fn num_levels(&self) -> u32 {
        self.mip_levels
    }

    /// Array layers (cubes for cube arrays); 1 for textures that are not arrays.
    pub fn num_layers(&self) -> u32 {
        match self.dim {
            TexDim::D2Array => self.depth_or_layers,
            TexDim::CubeArray => self.depth_or_layers / 6,
            _ => 1,
        }
    }

    /// Width, height and depth of `level` (`max(1, extent >> level)`; depth is 1 except for
    /// 3D textures; arrays and cube faces do not shrink). What `textureDimensions` returns
    /// (its first 1, 2 or 3 components).
    pub fn dimensions(&self, level: u32) -> [u32; 3] {
        let shrink = |e: u32| (e.checked_shr(level).unwrap_or(0)).max(1);
        match self.dim {
            TexDim::D1 => [shrink(self.width), 1, 1],
            TexDim::D3 => [shrink(self.width), shrink(self.height), shrink(self.depth_or_layers)],
            _ => [shrink(self.width), shrink(self.height), 1],
        }
    }

    /// Stored slices of a level: 3D depth, or layers (x 6 faces for cubes).
    fn slices(&self, level: u32) -> u32 {
        match self.dim {
            TexDim::D3 => self.dimensions(level)[2],
            _ => self.depth_or_layers,
        }
    }

    /// Byte offset of the start of `level` (of the end of the data for `mip_levels`).
    pub fn level_offset(&self, level: u32) -> u64 {
        let bpt = self.format.bytes_per_texel() as u64;
        (0..level)
            .map(|l| {
                let [w, h, _] = self.dimensions(l);
                u64::from(w) * u64::from(h) * u64::from(self.slices(l)) * bpt
            })
            .sum()
    }

    /// Byte offset of texel (x, y, slice) of `level`, or `None` out of bounds. `slice` is the
    /// 3D z, the array layer, the cube face, or `6 * cube + face` for cube arrays.
    pub fn texel_offset(&self, x: i64, y: i64, slice: i64, level: i64) -> Option<usize> {
        if level < 0 || level >= i64::from(self.mip_levels) {
            return None;
        }
        let level = level as u32;
        let [w, h, _] = self.dimensions(level);
        let s = self.slices(level);
        if x < 0
            || y < 0
            || slice < 0
            || x >= i64::from(w)
            || y >= i64::from(h)
            || slice >= i64::from(s)
        {
            return None;
        }
        let idx = (slice as u64 * u64::from(h) + y as u64) * u64::from(w) + x as u64;
        let off = self.level_offset(level) + idx * self.format.bytes_per_texel() as u64;
        Some(off as usize)
    }

    /// The slice index of (`coords`, `layer`): z for 3D, the layer for 2D arrays, the face
    /// (`coords[2]`) plus 6 x layer for cube arrays.
    fn slice_of(&self, coords: [i32; 3], layer: i32) -> i64 {
        match self.dim {
            TexDim::D1 | TexDim::D2 => 0,
            TexDim::D2Array => i64::from(layer),
            TexDim::D3 => i64::from(coords[2]),
            TexDim::Cube => {
                if (0..6).contains(&coords[2]) {
                    i64::from(coords[2])
                } else {
                    -1
                }
            }
            TexDim::CubeArray => {
                if (0..6).contains(&coords[2]) && layer >= 0 {
                    i64::from(layer) * 6 + i64::from(coords[2])
                } else {
                    -1
                }
            }
        }
    }

    /// `textureLoad`: the texel at integer `coords` (unused components ignored; for cube
    /// maps `coords[2]` is the face), array `layer` and mip `level`. Out of bounds: the
    /// all-zero texel.
    pub fn fetch(&self, coords: [i32; 3], layer: i32, level: i32) -> Texel {
        let y = if self.dim == TexDim::D1 { 0 } else { coords[1] };
        let slice = self.slice_of(coords, layer);
        match self.texel_offset(i64::from(coords[0]), i64::from(y), slice, i64::from(level)) {
            Some(off) => self.format.decode(&self.data[off..]),
            None => Texel::zero(self.format.kind()),
        }
    }

    /// `textureStore`: writes `value` at `coords`/`layer`/`level` (coordinates as in
    /// [`TextureData::fetch`]). Returns false, writing nothing, out of bounds.
    pub fn store(&mut self, coords: [i32; 3], layer: i32, level: i32, value: &Texel) -> bool {
        let y = if self.dim == TexDim::D1 { 0 } else { coords[1] };
        let slice = self.slice_of(coords, layer);
        match self.texel_offset(i64::from(coords[0]), i64::from(y), slice, i64::from(level)) {
            Some(off) => {
                self.format.encode(value, &mut self.data[off..]);
                true
            }
            None => false,
        }
    }

    /// Fills every texel with values from the seeded generator that round-trip exactly
    /// through the format: floats are multiples of 1/256 in [-1, 1) (in [0, 1) for unorm
    /// and depth), normalized formats get random bytes, integers are in [-1000, 1000)
    /// (unsigned: [0, 1000)) or the full range of 8-bit channels.
    pub fn fill_seeded(&mut self, seed: u64) {
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            // splitmix64: small, good enough to spread test values.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let ch = self.format.channel();
        let size = ch.bytes();
        let depth = self.format.is_depth();
        for chunk in self.data.chunks_mut(size) {
            let r = next();
            let w: u32 = match ch {
                Channel::F32 | Channel::F16 => {
                    let k = (r % 512) as i32 - if depth { 0 } else { 256 };
                    let x = if depth { (k / 2) as f32 / 256.0 } else { k as f32 / 256.0 };
                    if ch == Channel::F32 {
                        x.to_bits()
                    } else {
                        u32::from(half::f16::from_f32(x).to_bits())
                    }
                }
                Channel::S16 | Channel::S32 => ((r % 2000) as i32 - 1000) as u32,
                Channel::U16 | Channel::U32 => (r % 1000) as u32,
                _ => r as u32,
            };
            chunk.copy_from_slice(&w.to_le_bytes()[..size]);
        }
    }
}
