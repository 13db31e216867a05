//! Texel formats: how a texel is laid out in memory and how it converts to and from the
//! four-component values shaders see (WGSL/WebGPU conversion rules).
//!
//! Every supported format is `N` channels (1, 2 or 4) of one [`Channel`] type, stored
//! little-endian, channel `r` first. Loads fill missing channels with `g = b = 0`, `a = 1`
//! (WebGPU "texel format" rules). Stores convert as WebGPU does for storage textures:
//! unorm/snorm values are clamped and rounded to nearest, floats round to nearest even
//! (`f16`), and integers keep their low bits (WGSL leaves out-of-range integer stores
//! undefined; wrapping is what a `cvt` without `.sat` into the narrower type gives).

/// The type of one channel of a texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// 32-bit float.
    F32,
    /// 16-bit float (IEEE binary16).
    F16,
    /// 8-bit unsigned normalized: `v / 255`.
    Unorm8,
    /// 8-bit signed normalized: `max(v / 127, -1)`.
    Snorm8,
    /// 16-bit unsigned normalized: `v / 65535`.
    Unorm16,
    /// 16-bit signed normalized: `max(v / 32767, -1)`.
    Snorm16,
    /// 8-bit unsigned integer.
    U8,
    /// 8-bit signed integer.
    S8,
    /// 16-bit unsigned integer.
    U16,
    /// 16-bit signed integer.
    S16,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    S32,
}

impl Channel {
    /// Bytes of one channel.
    pub fn bytes(self) -> usize {
        match self {
            Channel::Unorm8 | Channel::Snorm8 | Channel::U8 | Channel::S8 => 1,
            Channel::F16 | Channel::Unorm16 | Channel::Snorm16 | Channel::U16 | Channel::S16 => 2,
            Channel::F32 | Channel::U32 | Channel::S32 => 4,
        }
    }

    /// The float scalar type a channel stores as it is (`f32`, `f16`), if it is one.
    pub fn float_scalar(self) -> Option<dianran_frontend::ir::Scalar> {
        match self {
            Channel::F32 => Some(dianran_frontend::ir::Scalar::F32),
            Channel::F16 => Some(dianran_frontend::ir::Scalar::F16),
            _ => None,
        }
    }

    /// What shaders read from a channel of this type.
    pub fn kind(self) -> SampleKind {
        match self {
            Channel::U8 | Channel::U16 | Channel::U32 => SampleKind::Uint,
            Channel::S8 | Channel::S16 | Channel::S32 => SampleKind::Sint,
            _ => SampleKind::Float,
        }
    }
}

/// The component type shaders see: `texture_2d<f32>`, `<i32>`, `<u32>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// `f32` (float, unorm, snorm and depth formats).
    Float,
    /// `i32`.
    Sint,
    /// `u32`.
    Uint,
}

/// A texel as shaders see it: four components of the format's [`SampleKind`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Texel {
    /// Float, unorm, snorm and depth formats.
    Float([f32; 4]),
    /// Signed integer formats.
    Sint([i32; 4]),
    /// Unsigned integer formats.
    Uint([u32; 4]),
}

impl Texel {
    /// The all-zero texel of `kind` (what an out-of-bounds load returns here).
    pub fn zero(kind: SampleKind) -> Texel {
        match kind {
            SampleKind::Float => Texel::Float([0.0; 4]),
            SampleKind::Sint => Texel::Sint([0; 4]),
            SampleKind::Uint => Texel::Uint([0; 4]),
        }
    }

    /// The component type.
    pub fn kind(&self) -> SampleKind {
        match self {
            Texel::Float(_) => SampleKind::Float,
            Texel::Sint(_) => SampleKind::Sint,
            Texel::Uint(_) => SampleKind::Uint,
        }
    }

    /// The four components as 32-bit words (`f32` bits for floats).
    pub fn to_bits(&self) -> [u32; 4] {
        match self {
            Texel::Float(v) => v.map(f32::to_bits),
            Texel::Sint(v) => v.map(|x| x as u32),
            Texel::Uint(v) => *v,
        }
    }

    /// A texel of `kind` from four 32-bit words (the inverse of [`Texel::to_bits`]).
    pub fn from_bits(kind: SampleKind, bits: [u32; 4]) -> Texel {
        match kind {
            SampleKind::Float => Texel::Float(bits.map(f32::from_bits)),
            SampleKind::Sint => Texel::Sint(bits.map(|x| x as i32)),
            SampleKind::Uint => Texel::Uint(bits),
        }
    }

    /// The components as `f32` (integers converted by value); used where an integer texture
    /// is read through a float path, such as a nearest "sample".
    pub fn to_f32(&self) -> [f32; 4] {
        match self {
            Texel::Float(v) => *v,
            Texel::Sint(v) => v.map(|x| x as f32),
            Texel::Uint(v) => v.map(|x| x as f32),
        }
    }
}

/// A texel format: WGSL's storage texel formats (those CUDA surfaces can hold: 1, 2 or 4
/// channels of 8, 16 or 32 bits) and `depth32float` for depth textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// `r8unorm`
    R8Unorm,
    /// `r8snorm`
    R8Snorm,
    /// `r8uint`
    R8Uint,
    /// `r8sint`
    R8Sint,
    /// `r16uint`
    R16Uint,
    /// `r16sint`
    R16Sint,
    /// `r16float`
    R16Float,
    /// `rg8unorm`
    Rg8Unorm,
    /// `rg8snorm`
    Rg8Snorm,
    /// `rg8uint`
    Rg8Uint,
    /// `rg8sint`
    Rg8Sint,
    /// `r32uint`
    R32Uint,
    /// `r32sint`
    R32Sint,
    /// `r32float`
    R32Float,
    /// `rg16uint`
    Rg16Uint,
    /// `rg16sint`
    Rg16Sint,
    /// `rg16float`
    Rg16Float,
    /// `rgba8unorm`
    Rgba8Unorm,
    /// `rgba8snorm`
    Rgba8Snorm,
    /// `rgba8uint`
    Rgba8Uint,
    /// `rgba8sint`
    Rgba8Sint,
    /// `rg32uint`
    Rg32Uint,
    /// `rg32sint`
    Rg32Sint,
    /// `rg32float`
    Rg32Float,
    /// `rgba16uint`
    Rgba16Uint,
    /// `rgba16sint`
    Rgba16Sint,
    /// `rgba16float`
    Rgba16Float,
    /// `rgba32uint`
    Rgba32Uint,
    /// `rgba32sint`
    Rgba32Sint,
    /// `rgba32float`
    Rgba32Float,
    /// `r16unorm`
    R16Unorm,
    /// `r16snorm`
    R16Snorm,
    /// `rg16unorm`
    Rg16Unorm,
    /// `rg16snorm`
    Rg16Snorm,
    /// `rgba16unorm`
    Rgba16Unorm,
    /// `rgba16snorm`
    Rgba16Snorm,
    /// `depth32float` (one `f32` channel; read as depth).
    Depth32Float,
}

/// Every format with its WGSL/WebGPU name, channel count and channel type.
const TABLE: &[(TexelFormat, &str, usize, Channel)] = &[
    (TexelFormat::R8Unorm, "r8unorm", 1, Channel::Unorm8),
    (TexelFormat::R8Snorm, "r8snorm", 1, Channel::Snorm8),
    (TexelFormat::R8Uint, "r8uint", 1, Channel::U8),
    (TexelFormat::R8Sint, "r8sint", 1, Channel::S8),
    (TexelFormat::R16Uint, "r16uint", 1, Channel::U16),
    (TexelFormat::R16Sint, "r16sint", 1, Channel::S16),
    (TexelFormat::R16Float, "r16float", 1, Channel::F16),
    (TexelFormat::Rg8Unorm, "rg8unorm", 2, Channel::Unorm8),
    (TexelFormat::Rg8Snorm, "rg8snorm", 2, Channel::Snorm8),
    (TexelFormat::Rg8Uint, "rg8uint", 2, Channel::U8),
    (TexelFormat::Rg8Sint, "rg8sint", 2, Channel::S8),
    (TexelFormat::R32Uint, "r32uint", 1, Channel::U32),
    (TexelFormat::R32Sint, "r32sint", 1, Channel::S32),
    (TexelFormat::R32Float, "r32float", 1, Channel::F32),
    (TexelFormat::Rg16Uint, "rg16uint", 2, Channel::U16),
    (TexelFormat::Rg16Sint, "rg16sint", 2, Channel::S16),
    (TexelFormat::Rg16Float, "rg16float", 2, Channel::F16),
    (TexelFormat::Rgba8Unorm, "rgba8unorm", 4, Channel::Unorm8),
    (TexelFormat::Rgba8Snorm, "rgba8snorm", 4, Channel::Snorm8),
    (TexelFormat::Rgba8Uint, "rgba8uint", 4, Channel::U8),
    (TexelFormat::Rgba8Sint, "rgba8sint", 4, Channel::S8),
    (TexelFormat::Rg32Uint, "rg32uint", 2, Channel::U32),
    (TexelFormat::Rg32Sint, "rg32sint", 2, Channel::S32),
    (TexelFormat::Rg32Float, "rg32float", 2, Channel::F32),
    (TexelFormat::Rgba16Uint, "rgba16uint", 4, Channel::U16),
    (TexelFormat::Rgba16Sint, "rgba16sint", 4, Channel::S16),
    (TexelFormat::Rgba16Float, "rgba16float", 4, Channel::F16),
    (TexelFormat::Rgba32Uint, "rgba32uint", 4, Channel::U32),
    (TexelFormat::Rgba32Sint, "rgba32sint", 4, Channel::S32),
    (TexelFormat::Rgba32Float, "rgba32float", 4, Channel::F32),
    (TexelFormat::R16Unorm, "r16unorm", 1, Channel::Unorm16),
    (TexelFormat::R16Snorm, "r16snorm", 1, Channel::Snorm16),
    (TexelFormat::Rg16Unorm, "rg16unorm", 2, Channel::Unorm16),
    (TexelFormat::Rg16Snorm, "rg16snorm", 2, Channel::Snorm16),
    (TexelFormat::Rgba16Unorm, "rgba16unorm", 4, Channel::Unorm16),
    (TexelFormat::Rgba16Snorm, "rgba16snorm", 4, Channel::Snorm16),
    (TexelFormat::Depth32Float, "depth32float", 1, Channel::F32),
];

impl TexelFormat {
    /// All formats.
    pub fn all() -> impl Iterator<Item = TexelFormat> {
        TABLE.iter().map(|e| e.0)
    }

    fn entry(self) -> &'static (TexelFormat, &'static str, usize, Channel) {
        // TABLE lists every variant; `all_formats_are_in_the_table` checks it.
        TABLE.iter().find(|e| e.0 == self).unwrap_or(&TABLE[0])
    }

    /// The WGSL/WebGPU spelling (`rgba8unorm`).
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// The format of a WGSL/WebGPU name, case-insensitively.
    pub fn parse(name: &str) -> Option<TexelFormat> {
        TABLE.iter().find(|e| e.1.eq_ignore_ascii_case(name)).map(|e| e.0)
    }

    /// Channels stored (1, 2 or 4).
    pub fn channels(self) -> usize {
        self.entry().2
    }

    /// The type of each channel.
    pub fn channel(self) -> Channel {
        self.entry().3
    }

    /// Bytes of one texel.
    pub fn bytes_per_texel(self) -> usize {
        self.channels() * self.channel().bytes()
    }

    /// What shaders read from it.
    pub fn kind(self) -> SampleKind {
        self.channel().kind()
    }

    /// Whether this is a depth format.
    pub fn is_depth(self) -> bool {
        self == TexelFormat::Depth32Float
    }

    /// The format of a naga storage format, `None` for the packed ones (`bgra8unorm`,
    /// `rgb10a2*`, `rg11b10ufloat`, `r64uint`) that CUDA surfaces cannot hold as plain
    /// channels.
    pub fn from_storage(f: naga::StorageFormat) -> Option<TexelFormat> {
        use naga::StorageFormat as S;
        Some(match f {
            S::R8Unorm => TexelFormat::R8Unorm,
            S::R8Snorm => TexelFormat::R8Snorm,
            S::R8Uint => TexelFormat::R8Uint,
            S::R8Sint => TexelFormat::R8Sint,
            S::R16Uint => TexelFormat::R16Uint,
            S::R16Sint => TexelFormat::R16Sint,
            S::R16Float => TexelFormat::R16Float,
            S::Rg8Unorm => TexelFormat::Rg8Unorm,
            S::Rg8Snorm => TexelFormat::Rg8Snorm,
            S::Rg8Uint => TexelFormat::Rg8Uint,
            S::Rg8Sint => TexelFormat::Rg8Sint,
            S::R32Uint => TexelFormat::R32Uint,
            S::R32Sint => TexelFormat::R32Sint,
            S::R32Float => TexelFormat::R32Float,
            S::Rg16Uint => TexelFormat::Rg16Uint,
            S::Rg16Sint => TexelFormat::Rg16Sint,
            S::Rg16Float => TexelFormat::Rg16Float,
            S::Rgba8Unorm => TexelFormat::Rgba8Unorm,
            S::Rgba8Snorm => TexelFormat::Rgba8Snorm,
            S::Rgba8Uint => TexelFormat::Rgba8Uint,
            S::Rgba8Sint => TexelFormat::Rgba8Sint,
            S::Rg32Uint => TexelFormat::Rg32Uint,
            S::Rg32Sint => TexelFormat::Rg32Sint,
            S::Rg32Float => TexelFormat::Rg32Float,
            S::Rgba16Uint => TexelFormat::Rgba16Uint,
            S::Rgba16Sint => TexelFormat::Rgba16Sint,
            S::Rgba16Float => TexelFormat::Rgba16Float,
            S::Rgba32Uint => TexelFormat::Rgba32Uint,
            S::Rgba32Sint => TexelFormat::Rgba32Sint,
            S::Rgba32Float => TexelFormat::Rgba32Float,
            S::R16Unorm => TexelFormat::R16Unorm,
            S::R16Snorm => TexelFormat::R16Snorm,
            S::Rg16Unorm => TexelFormat::Rg16Unorm,
            S::Rg16Snorm => TexelFormat::Rg16Snorm,
            S::Rgba16Unorm => TexelFormat::Rgba16Unorm,
            S::Rgba16Snorm => TexelFormat::Rgba16Snorm,
            S::Bgra8Unorm | S::Rgb10a2Uint | S::Rgb10a2Unorm | S::Rg11b10Ufloat | S::R64Uint => {
                return None
            }
        })
    }

    /// Decodes one texel from its bytes (`bytes.len() >= bytes_per_texel`). Missing channels
    /// read as `g = b = 0`, `a = 1`.
    pub fn decode(self, bytes: &[u8]) -> Texel {
        let ch = self.channel();
        let n = self.channels();
        let size = ch.bytes();
        let word = |i: usize| -> u32 {
            let b = &bytes[i * size..(i + 1) * size];
            match size {
                1 => u32::from(b[0]),
                2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            }
        };
        match ch.kind() {
            SampleKind::Float => {
                let mut v = [0.0, 0.0, 0.0, 1.0];
                for (i, slot) in v.iter_mut().enumerate().take(n) {
                    *slot = decode_float(ch, word(i));
                }
                Texel::Float(v)
            }
            SampleKind::Sint => {
                let mut v = [0, 0, 0, 1];
                for (i, slot) in v.iter_mut().enumerate().take(n) {
                    let w = word(i);
                    *slot = match ch {
                        Channel::S8 => i32::from(w as u8 as i8),
                        Channel::S16 => i32::from(w as u16 as i16),
                        _ => w as i32,
                    };
                }
                Texel::Sint(v)
            }
            SampleKind::Uint => {
                let mut v = [0, 0, 0, 1];
                for (i, slot) in v.iter_mut().enumerate().take(n) {
                    *slot = word(i);
                }
                Texel::Uint(v)
            }
        }
    }

    /// Encodes the first `channels()` components of `t` into `out`
    /// (`out.len() >= bytes_per_texel`). A texel of another kind is converted by value
    /// first (WGSL's `textureStore` always passes the format's own kind).
    pub fn encode(self, t: &Texel, out: &mut [u8]) {
        let ch = self.channel();
        let size = ch.bytes();
        for i in 0..self.channels() {
            let w: u32 = match (ch.kind(), t) {
                (SampleKind::Float, _) => encode_float(ch, t.to_f32()[i]),
                (_, Texel::Sint(v)) => v[i] as u32,
                (_, Texel::Uint(v)) => v[i],
                (SampleKind::Sint, Texel::Float(v)) => v[i] as i32 as u32,
                (SampleKind::Uint, Texel::Float(v)) => v[i] as u32,
            };
            out[i * size..(i + 1) * size].copy_from_slice(&w.to_le_bytes()[..size]);
        }
    }
}

/// The value of one float-kind channel word.
fn decode_float(ch: Channel, w: u32) -> f32 {
    match ch {
        Channel::F32 => f32::from_bits(w),
        Channel::F16 => half::f16::from_bits(w as u16).to_f32(),
        Channel::Unorm8 => w as f32 / 255.0,
        Channel::Snorm8 => (f32::from(w as u8 as i8) / 127.0).max(-1.0),
        Channel::Unorm16 => w as f32 / 65535.0,
        Channel::Snorm16 => (f32::from(w as u16 as i16) / 32767.0).max(-1.0),
        _ => w as f32,
    }
}

/// The word stored for `x` in a float-kind channel: clamp and round to nearest for
/// normalized channels (NaN stores 0), round to nearest even for `f16`.
fn encode_float(ch: Channel, x: f32) -> u32 {
    let norm = |x: f32, lo: f32, scale: f32| -> i32 {
        if x.is_nan() {
            0
        } else {
            (x.clamp(lo, 1.0) * scale).round() as i32
        }
    };
    match ch {
        Channel::F32 => x.to_bits(),
        Channel::F16 => u32::from(half::f16::from_f32(x).to_bits()),
        Channel::Unorm8 => norm(x, 0.0, 255.0) as u32,
        Channel::Snorm8 => norm(x, -1.0, 127.0) as u8 as u32,
        Channel::Unorm16 => norm(x, 0.0, 65535.0) as u32,
        Channel::Snorm16 => norm(x, -1.0, 32767.0) as u16 as u32,
        _ => x as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_formats_are_in_the_table() {
        // Every format round-trips through its name, so `entry` never falls back.
        for f in TexelFormat::all() {
            assert_eq!(TexelFormat::parse(f.name()), Some(f));
        }
        assert_eq!(TexelFormat::all().count(), 37);
        assert_eq!(TexelFormat::parse("RGBA8Unorm"), Some(TexelFormat::Rgba8Unorm));
        assert_eq!(TexelFormat::parse("bgra8unorm"), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(TexelFormat::R8Unorm.bytes_per_texel(), 1);
        assert_eq!(TexelFormat::Rg8Uint.bytes_per_texel(), 2);
        assert_eq!(TexelFormat::Rgba8Unorm.bytes_per_texel(), 4);
        assert_eq!(TexelFormat::Rgba16Float.bytes_per_texel(), 8);
        assert_eq!(TexelFormat::Rg32Float.bytes_per_texel(), 8);
        assert_eq!(TexelFormat::Rgba32Uint.bytes_per_texel(), 16);
        assert_eq!(TexelFormat::Depth32Float.bytes_per_texel(), 4);
        assert_eq!(
            TexelFormat::from_storage(naga::StorageFormat::Rgba8Snorm),
            Some(TexelFormat::Rgba8Snorm)
        );
        assert_eq!(TexelFormat::from_storage(naga::StorageFormat::Bgra8Unorm), None);
    }

    #[test]
    fn unorm8_decode_and_encode() {
        let t = TexelFormat::Rgba8Unorm.decode(&[0, 255, 51, 128]);
        assert_eq!(t, Texel::Float([0.0, 1.0, 0.2, 128.0 / 255.0]));
        let mut out = [0u8; 4];
        // 0.5 * 255 = 127.5 rounds to 128; -3 clamps to 0; 2 clamps to 255; NaN stores 0.
        TexelFormat::Rgba8Unorm.encode(&Texel::Float([0.5, -3.0, 2.0, f32::NAN]), &mut out);
        assert_eq!(out, [128, 0, 255, 0]);
        // 0.1 * 255 = 25.5 -> 26 (round half away from zero); 0.098 * 255 = 24.99 -> 25.
        TexelFormat::Rgba8Unorm.encode(&Texel::Float([0.1, 0.098, 1.0, 0.0]), &mut out);
        assert_eq!(out, [26, 25, 255, 0]);
    }

    #[test]
    fn snorm8_decode_and_encode() {
        // -128 and -127 both read as -1.0 (WebGPU's max(v / 127, -1)).
        let t = TexelFormat::Rgba8Snorm.decode(&[0x80, 0x81, 127, 0]);
        assert_eq!(t, Texel::Float([-1.0, -1.0, 1.0, 0.0]));
        let mut out = [0u8; 4];
        // -0.5 * 127 = -63.5 -> -64 = 0xc0.
        TexelFormat::Rgba8Snorm.encode(&Texel::Float([-0.5, -7.0, 0.5, 1.0]), &mut out);
        assert_eq!(out, [0xc0, 0x81, 64, 127]);
    }

    #[test]
    fn float16_decode_and_encode() {
        // 0x3c00 = 1.0, 0xc000 = -2.0, 0x3555 = 0.333251953125, 0x7c00 = +inf.
        let bytes = [0x00, 0x3c, 0x00, 0xc0, 0x55, 0x35, 0x00, 0x7c];
        let t = TexelFormat::Rgba16Float.decode(&bytes);
        assert_eq!(t, Texel::Float([1.0, -2.0, 0.333_251_95, f32::INFINITY]));
        let mut out = [0u8; 8];
        // 1/3 rounds to 0x3555; 65520 overflows to +inf (round to nearest even at the top).
        TexelFormat::Rgba16Float.encode(&Texel::Float([1.0, -2.0, 1.0 / 3.0, 65520.0]), &mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn missing_channels_read_as_0_0_1() {
        assert_eq!(
            TexelFormat::R32Float.decode(&2.5f32.to_le_bytes()),
            Texel::Float([2.5, 0.0, 0.0, 1.0])
        );
        assert_eq!(TexelFormat::Rg8Sint.decode(&[0xff, 5]), Texel::Sint([-1, 5, 0, 1]));
        assert_eq!(TexelFormat::R16Uint.decode(&[0x34, 0x12]), Texel::Uint([0x1234, 0, 0, 1]));
    }

    #[test]
    fn integer_store_keeps_low_bits() {
        let mut out = [0u8; 4];
        TexelFormat::Rgba8Uint.encode(&Texel::Uint([1, 256 + 7, 255, 0x1234]), &mut out);
        assert_eq!(out, [1, 7, 255, 0x34]);
        TexelFormat::Rgba8Sint.encode(&Texel::Sint([-1, -128, 127, 200]), &mut out);
        assert_eq!(out, [0xff, 0x80, 0x7f, 200]);
        let mut out16 = [0u8; 8];
        TexelFormat::Rgba16Sint.encode(&Texel::Sint([-2, 0x12345, 3, 4]), &mut out16);
        assert_eq!(out16, [0xfe, 0xff, 0x45, 0x23, 3, 0, 4, 0]);
        assert_eq!(TexelFormat::Rgba16Sint.decode(&out16), Texel::Sint([-2, 0x2345, 3, 4]));
    }

    #[test]
    fn norm16() {
        assert_eq!(TexelFormat::R16Unorm.decode(&[0xff, 0xff]), Texel::Float([1.0, 0.0, 0.0, 1.0]));
        assert_eq!(
            TexelFormat::R16Snorm.decode(&[0x00, 0x80]),
            Texel::Float([-1.0, 0.0, 0.0, 1.0])
        );
        let mut out = [0u8; 2];
        TexelFormat::R16Unorm.encode(&Texel::Float([0.5, 0.0, 0.0, 0.0]), &mut out);
        // 0.5 * 65535 = 32767.5 -> 32768.
        assert_eq!(out, [0x00, 0x80]);
    }

    #[test]
    fn bits_round_trip() {
        let t = Texel::Sint([-1, 2, -3, 4]);
        assert_eq!(Texel::from_bits(SampleKind::Sint, t.to_bits()), t);
        assert_eq!(Texel::Float([1.0, 0.0, 0.0, 0.0]).to_bits()[0], 0x3f80_0000);
    }
}
