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
