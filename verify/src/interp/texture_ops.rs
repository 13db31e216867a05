//! Texture operations of the interpreter: `textureLoad`, `textureStore`, `textureSample*`,
//! `textureGather*` and the queries, run on [`crate::texture`] with exact filter weights.
//!
//! A texture or sampler value is one word, the index of its module-scope variable, so
//! handles passed to functions find their binding. Coordinates follow WGSL: integer
//! coordinates of `textureLoad`/`textureStore` may be `i32` or `u32` (a `u32` beyond
//! `i32::MAX` is out of bounds like a negative one); an out-of-bounds load returns zero and
//! an out-of-bounds store is dropped (see [`crate::texture`]).

use super::exec::{Frame, Machine};
use super::value::{internal, unsupported};
use crate::texture::{
    self, lod_from_gradients, SampleKind, SamplerDesc, TexDim, Texel, TextureData, Weights,
};
use dianran_frontend::ir::{ImageQuery, Op, SampleLevel, Scalar, Type, TypeId, ValueId};
use dianran_frontend::Diagnostic;

/// The textures and samplers of a run, by module-scope variable index.
#[derive(Default)]
pub(crate) struct Handles {
    /// Texture of each global (`None` for other globals).
    pub textures: Vec<Option<TextureData>>,
    /// Sampler of each global.
    pub samplers: Vec<Option<SamplerDesc>>,
}

/// The value of one coordinate word as a signed number (`u32` stays non-negative).
fn int_word(s: Scalar, w: u32) -> i64 {
    match s {
        Scalar::I32 => i64::from(w as i32),
        _ => i64::from(w),
    }
}

/// An integer coordinate for the texture model: out-of-range values become -1 (out of
/// bounds on every axis).
fn coord_i32(x: i64) -> i32 {
    i32::try_from(x).unwrap_or(-1)
}

impl<'m> Machine<'m> {
    fn texture_of(&self, fr: &Frame<'m>, lane: usize, v: ValueId) -> Result<usize, Diagnostic> {
        let g = fr
            .get(lane, v)
            .first()
            .copied()
            .ok_or_else(|| internal("texture value without a handle"))? as usize;
        match self.handles.textures.get(g) {
            Some(Some(_)) => Ok(g),
            _ => Err(internal(format!("{v} is not a bound texture"))),
        }
    }

    fn scalar_of(&self, fr: &Frame<'m>, v: ValueId) -> Result<Scalar, Diagnostic> {
        let ty = fr.ty(v)?;
        self.m.types.scalar_of(ty).ok_or_else(|| internal(format!("{v} is not a number")))
    }

    /// Up to three integer coordinates.
    fn int_coords(&self, fr: &Frame<'m>, lane: usize, v: ValueId) -> Result<[i32; 3], Diagnostic> {
        let s = self.scalar_of(fr, v)?;
        let mut c = [0i32; 3];
        for (slot, &w) in c.iter_mut().zip(fr.get(lane, v)) {
            *slot = coord_i32(int_word(s, w));
        }
        Ok(c)
    }

    fn opt_int(&self, fr: &Frame<'m>, lane: usize, v: Option<ValueId>) -> Result<i32, Diagnostic> {
        match v {
            Some(v) => {
                let s = self.scalar_of(fr, v)?;
                Ok(coord_i32(int_word(s, fr.get(lane, v).first().copied().unwrap_or(0))))
            }
            None => Ok(0),
        }
    }

    fn float_coords(fr: &Frame<'m>, lane: usize, v: ValueId) -> [f32; 3] {
        let mut c = [0f32; 3];
        for (slot, &w) in c.iter_mut().zip(fr.get(lane, v)) {
            *slot = f32::from_bits(w);
        }
        c
    }

    fn float_or_int(&self, fr: &Frame<'m>, lane: usize, v: ValueId) -> Result<f32, Diagnostic> {
        let w = fr.get(lane, v).first().copied().unwrap_or(0);
        Ok(match self.scalar_of(fr, v)? {
            Scalar::F32 => f32::from_bits(w),
            Scalar::F16 => half::f16::from_bits(w as u16).to_f32(),
            s => int_word(s, w) as f32,
        })
    }

    /// Writes a texel as the result type wants it: one word for scalar results (depth
    /// loads and samples), four otherwise.
    fn put_texel(&self, rty: TypeId, t: &Texel, out: &mut Vec<u32>) {
        let bits = t.to_bits();
        let n = match self.m.types.get(rty) {
            Type::Vector { size, .. } => usize::from(*size),
            _ => 1,
        };
        out.extend_from_slice(&bits[..n.min(4)]);
    }

    /// Runs one texture operation for `lane`; `rty` is the result type (if any).
    pub(super) fn image_op(
        &mut self,
        fr: &Frame<'m>,
        lane: usize,
        op: &Op,
        rty: Option<TypeId>,
        out: &mut Vec<u32>,
    ) -> Result<(), Diagnostic> {
        let need_rty = || rty.ok_or_else(|| internal("texture operation without a result"));
        match op {
            Op::ImageLoad { image, coordinate, array_index, sample, level } => {
                if sample.is_some() {
                    return Err(unsupported(
                        "multisampled textures are not supported by the interpreter",
                    ));
                }
                let g = self.texture_of(fr, lane, *image)?;
                let c = self.int_coords(fr, lane, *coordinate)?;
                let layer = self.opt_int(fr, lane, *array_index)?;
                let lvl = self.opt_int(fr, lane, *level)?;
                let tex = self.handles.textures[g]
                    .as_ref()
                    .ok_or_else(|| internal("texture vanished"))?;
                // textureLoad has no cube forms; a z for 2D textures is ignored by the model.
                let t = tex.fetch(c, layer, lvl);
                self.put_texel(need_rty()?, &t, out);
            }
            Op::ImageStore { image, coordinate, array_index, value } => {
                let g = self.texture_of(fr, lane, *image)?;
                let c = self.int_coords(fr, lane, *coordinate)?;
                let layer = self.opt_int(fr, lane, *array_index)?;
                let mut bits = [0u32; 4];
                for (slot, &w) in bits.iter_mut().zip(fr.get(lane, *value)) {
                    *slot = w;
                }
                let tex = self.handles.textures[g]
                    .as_mut()
                    .ok_or_else(|| internal("texture vanished"))?;
                let t = Texel::from_bits(tex.format.kind(), bits);
                tex.store(c, layer, 0, &t);
            }
            Op::ImageQuery(image, q) => {
                let g = self.texture_of(fr, lane, *image)?;
                let tex = self.handles.textures[g]
                    .as_ref()
                    .ok_or_else(|| internal("texture vanished"))?;
                match q {
                    ImageQuery::Size { level } => {
                        // A level outside the texture gives max(1, extent >> level) (WGSL
                        // leaves the result indeterminate); a negative one counts as huge.
                        let l = match level {
                            Some(l) => fr.get(lane, *l).first().copied().unwrap_or(0),
                            None => 0,
                        };
                        let d = tex.dimensions(l);
                        let n = match tex.dim {
                            TexDim::D1 => 1,
                            TexDim::D3 => 3,
                            _ => 2,
                        };
                        out.extend_from_slice(&d[..n]);
                    }
                    ImageQuery::NumLevels => out.push(tex.num_levels()),
                    ImageQuery::NumLayers => out.push(tex.num_layers()),
                    ImageQuery::NumSamples => out.push(1),
                }
            }
            Op::ImageSample {
                image,
                sampler,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                gather,
            } => {
                let g = self.texture_of(fr, lane, *image)?;
                let sg = fr.get(lane, *sampler).first().copied().unwrap_or(u32::MAX) as usize;
                let s = self
                    .handles
                    .samplers
                    .get(sg)
                    .copied()
                    .flatten()
                    .ok_or_else(|| internal(format!("{sampler} is not a bound sampler")))?;
                let coords = Self::float_coords(fr, lane, *coordinate);
                let layer = self.opt_int(fr, lane, *array_index)?;
                let off = match offset {
                    Some(o) => self.int_coords(fr, lane, *o)?,
                    None => [0; 3],
                };
                let reference = match depth_ref {
                    Some(d) => Some(self.float_or_int(fr, lane, *d)?),
                    None => None,
                };
                let tex = self.handles.textures[g]
                    .as_ref()
                    .ok_or_else(|| internal("texture vanished"))?;
                let lod = match level {
                    SampleLevel::Zero => 0.0,
                    SampleLevel::Exact(l) => self.float_or_int(fr, lane, *l)?,
                    SampleLevel::Gradient { x, y } => {
                        lod_from_gradients(tex, coords, Self::float_coords(fr, lane, *x), Self::float_coords(fr, lane, *y))
                    }
                    SampleLevel::Auto | SampleLevel::Bias(_) => {
                        return Err(unsupported(
                            "implicit-derivative sampling (textureSample, textureSampleBias) exists only in fragment shaders; the interpreter runs compute entry points",
                        ))
                    }
                };
                let rty = need_rty()?;
                match (gather, reference) {
                    (Some(_), Some(r)) => {
                        let v = texture::gather_compare(tex, &s, coords, layer, r, off);
                        out.extend(v.map(f32::to_bits));
                    }
                    (Some(c), None) => {
                        let t = texture::gather(tex, &s, coords, layer, *c, off);
                        out.extend_from_slice(&t.to_bits());
                    }
                    (None, Some(r)) => {
                        let v = texture::sample_compare(
                            tex,
                            &s,
                            coords,
                            layer,
                            lod,
                            r,
                            off,
                            Weights::Exact,
                        );
                        out.push(v.to_bits());
                    }
                    (None, None) => {
                        let t = texture::sample_offset(
                            tex,
                            &s,
                            coords,
                            layer,
                            lod,
                            off,
                            Weights::Exact,
                        );
                        if tex.format.kind() != SampleKind::Float {
                            return Err(internal("sampling of an integer texture"));
                        }
                        self.put_texel(rty, &t, out);
                    }
                }
            }
            _ => return Err(internal("not a texture operation")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::interp::{run_with_textures, Buffers, InterpOptions};
    use crate::texture::{SamplerDesc, TexDim, TexelFormat, TextureBindings, TextureData};

    fn run(src: &str, t: &mut TextureBindings, out_words: usize) -> Result<Vec<u32>, String> {
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("compiles");
        let mut bufs: Buffers = [((0, 9), vec![0u8; out_words * 4])].into_iter().collect();
        run_with_textures(&m, "main", [1, 1, 1], &mut bufs, t, &InterpOptions::default())
            .map_err(|d| d.message)?;
        Ok(bufs[&(0, 9)].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    fn r32u(w: u32, h: u32, words: &[u32]) -> TextureData {
        let data = words.iter().flat_map(|x| x.to_le_bytes()).collect();
        TextureData::with_data(TexDim::D2, TexelFormat::R32Uint, [w, h, 1], 1, data).unwrap()
    }

    #[test]
    fn out_of_bounds_loads_are_zero_and_stores_dropped() {
        let src = "
@group(0) @binding(0) var t: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(9) var<storage, read_write> out: array<u32, 4>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(t, vec2<i32>(-1, 0)).x;
    out[1] = textureLoad(t, vec2<u32>(0xffffffffu, 0u)).x;
    out[2] = textureLoad(t, vec2<i32>(1, 1)).x;
    out[3] = textureLoad(t, vec2<i32>(2, 0)).x;
    textureStore(t, vec2<i32>(2, 0), vec4<u32>(5u));
    textureStore(t, vec2<i32>(0, 0), vec4<u32>(6u));
}
";
        let mut t = TextureBindings::default();
        t.textures.insert((0, 0), r32u(2, 2, &[1, 2, 3, 4]));
        // Texel (1, 1) is 4; the others are outside the 2x2 texture.
        assert_eq!(run(src, &mut t, 4), Ok(vec![0, 0, 4, 0]));
        // Only the in-bounds store landed.
        assert_eq!(t.textures[&(0, 0)].data[..4], 6u32.to_le_bytes());
        assert_eq!(t.textures[&(0, 0)].data[4..], [2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
    }

    #[test]
    fn handles_pass_through_functions_and_missing_ones_are_named() {
        let src = "
@group(0) @binding(0) var a: texture_2d<u32>;
@group(0) @binding(1) var b: texture_2d<u32>;
@group(0) @binding(9) var<storage, read_write> out: array<u32, 2>;
fn first(t: texture_2d<u32>, x: i32) -> u32 { return textureLoad(t, vec2<i32>(x, 0), 0).x; }
@compute @workgroup_size(1)
fn main() {
    out[0] = first(a, 1);
    out[1] = first(b, 0) + textureDimensions(b).x;
}
";
        let mut t = TextureBindings::default();
        t.textures.insert((0, 0), r32u(2, 1, &[10, 11]));
        t.textures.insert((0, 1), r32u(3, 1, &[20, 21, 22]));
        assert_eq!(run(src, &mut t, 2), Ok(vec![11, 23]));
        t.textures.remove(&(0, 1));
        let e = run(src, &mut t, 2).unwrap_err();
        assert!(e.contains("missing texture 'b' (@group(0) @binding(1))"), "{e}");
        // The textures given come back even when the run stops.
        assert!(t.textures.contains_key(&(0, 0)));
    }

    #[test]
    fn depth_loads_and_integer_levels() {
        let src = "
@group(0) @binding(0) var d: texture_depth_2d;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(9) var<storage, read_write> out: array<f32, 3>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(d, vec2<i32>(1, 0), 0);
    out[1] = textureSampleLevel(d, s, vec2<f32>(0.1, 0.5), 1);
    out[2] = f32(textureNumLevels(d));
}
";
        let vals = [0.25f32, 0.5, 0.75];
        let data = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
        let d = TextureData::with_data(TexDim::D2, TexelFormat::Depth32Float, [2, 1, 1], 2, data)
            .unwrap();
        let mut t = TextureBindings::default();
        t.textures.insert((0, 0), d);
        t.samplers.insert((0, 1), SamplerDesc::default());
        // Level 1 (1x1) holds 0.75; a depth sample is one f32.
        let got = run(src, &mut t, 3).unwrap();
        assert_eq!(got.iter().map(|w| f32::from_bits(*w)).collect::<Vec<_>>(), [0.5, 0.75, 2.0]);
    }
}
