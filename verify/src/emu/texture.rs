//! Texture and surface instructions on the emulator: `tex` (`.level`, `.grad`), `tld4`,
//! `txq`, `suld.b`, `sust.b`, `suq` over [`crate::texture`]'s model; `tex` and `tld4` take
//! an optional texel-offset vector as their last operand.
//!
//! A texture or surface object is a `.u64` kernel parameter: its value is the global base of
//! that parameter's buffer ([`super::global_base`]), and the launch's object table
//! ([`TexObject`], one per parameter, `None` for buffers) says what it names. CUDA
//! semantics: `.s32` coordinates fetch texels (no filtering, the level is an integer, out of
//! range reads zero as [`TextureData::fetch`] does); `.f32` coordinates are normalized and
//! filtered with the object's sampler and CUDA's 8-bit weights ([`Weights::Cuda8Bit`]); a
//! surface's x coordinate is in bytes and `.zero` reads zero / drops stores out of range.
//! On `.cube`/`.acube` (the cube index first) `tex` and `tld4` select the face of the
//! direction as the model does ([`crate::texture::cube_face`]) and clamp the footprint to
//! that face: the model, like a CUDA texture object without `CU_TRSF_SEAMLESS_CUBEMAP`, does
//! not filter across face edges (`docs/textures.md`, "Depth comparison").

use super::decode::{DInst, Opd};
use super::exec::Cta;
use super::{EmuError, EmuErrorKind};
use crate::texture::{
    gather, lod_from_gradients, sample_offset, SamplerDesc, TexDim, TextureData, Weights,
};
use dianran_ptx::{Flag, Opcode, TexComp, TexGeom, TexQuery, Type};

/// What one texture-object or surface-object parameter names.
#[derive(Clone, Debug, PartialEq)]
pub struct TexObject {
    /// The texels (a surface's are updated by `sust`).
    pub data: TextureData,
    /// The sampler state a texture object carries (`None` for surfaces and for textures
    /// only fetched or queried, which then sample with the default descriptor).
    pub sampler: Option<SamplerDesc>,
}

/// The coordinate layout of a geometry: (layered, coordinate count).
fn layout(g: TexGeom) -> (bool, usize) {
    match g {
        TexGeom::D1 => (false, 1),
        TexGeom::A1d => (true, 1),
        TexGeom::D2 => (false, 2),
        TexGeom::A2d => (true, 2),
        TexGeom::D3 | TexGeom::Cube => (false, 3),
        TexGeom::Acube => (true, 3),
    }
}

impl Cta<'_> {
    /// The object index named by the handle register of `[%rd, {..}]` or `[%rd]`.
    fn object(&self, t: usize, i: &DInst, k: usize) -> Result<usize, EmuError> {
        let slot = match i.opd(k)? {
            Opd::Texel(h, _) => *h,
            Opd::Addr(super::decode::Base::Reg(h), 0) => *h,
            _ => return Err(i.unsupported()),
        };
        let h = self.rd(t, slot, i)?;
        let idx = (h >> 32).checked_sub(1).map(|x| x as usize);
        match idx.and_then(|x| self.mem.textures.get(x).map(|o| (x, o.is_some()))) {
            Some((x, true)) if h & 0xffff_ffff == 0 => Ok(x),
            _ => Err(i.err(
                EmuErrorKind::OutOfBounds,
                format!("{h:#x} is not a texture or surface object of this launch"),
            )),
        }
    }

    /// The 32-bit coordinate words of operand `k` (`[%rd, {..}]`).
    fn coords(&self, t: usize, i: &DInst, k: usize) -> Result<Vec<u32>, EmuError> {
        let Opd::Texel(_, c) = i.opd(k)? else { return Err(i.unsupported()) };
        c.iter().map(|o| self.val(t, o, Type::B32, i).map(|v| v as u32)).collect()
    }

    /// Splits coordinate words into (layer, the geometry's coordinates).
    fn split(&self, i: &DInst, words: &[u32]) -> Result<(u32, Vec<u32>), EmuError> {
        let g = i.geom.ok_or_else(|| i.unsupported())?;
        let (layered, n) = layout(g);
        let (layer, rest) = if layered {
            (words.first().copied().unwrap_or(0), words.get(1..).unwrap_or(&[]))
        } else {
            (0, words)
        };
        if rest.len() < n {
            return Err(i.err(EmuErrorKind::Unsupported, "too few coordinates for the geometry"));
        }
        Ok((layer, rest[..n].to_vec()))
    }

    /// The texel-offset vector at operand `k` (`tex`/`tld4`'s optional last operand), or
    /// zero when the instruction has none.
    fn texel_offset(&self, t: usize, i: &DInst, k: usize) -> Result<[i32; 3], EmuError> {
        let mut off = [0i32; 3];
        if let Ok(Opd::Vector(v)) = i.opd(k) {
            for (j, o) in v.iter().take(3).enumerate() {
                off[j] = self.val(t, o, Type::S32, i)? as u32 as i32;
            }
        }
        Ok(off)
    }

    fn write_vec(&mut self, t: usize, i: &DInst, k: usize, vals: &[u32]) -> Result<(), EmuError> {
        let Opd::Vector(d) = i.opd(k)?.clone() else { return Err(i.unsupported()) };
        for (o, &v) in d.iter().zip(vals) {
            if let Opd::Reg(s) = o {
                self.wr(t, *s, u64::from(v));
            }
        }
        Ok(())
    }

    /// Executes `tex`, `tld4`, `txq`, `suld`, `sust` or `suq` for thread `t`.
    pub fn texture_inst(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        match i.op {
            Opcode::Tex => self.tex(t, i),
            Opcode::Tld4 => self.tld4(t, i),
            Opcode::Txq | Opcode::Suq => self.query(t, i),
            Opcode::Suld => self.suld(t, i),
            Opcode::Sust => self.sust(t, i),
            _ => Err(i.unsupported()),
        }
    }

    fn tex(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let obj = self.object(t, i, 1)?;
        let words = self.coords(t, i, 1)?;
        let (layer, c) = self.split(i, &words)?;
        let ctype = i.ty(1)?;
        let Some(o) = self.mem.textures.get(obj).and_then(|o| o.as_ref()) else {
            return Err(i.unsupported());
        };
        let texel = if ctype == Type::S32 {
            // A texel fetch: integer coordinates and level.
            let level = if i.has(Flag::Level) { self.src(t, i, 2, Type::S32)? as u32 } else { 0 };
            let at = |k: usize| c.get(k).map_or(0, |&v| v as i32);
            o.data.fetch([at(0), at(1), at(2)], layer as i32, level as i32)
        } else {
            let f = |k: usize| c.get(k).map_or(0.0, |&v| f32::from_bits(v));
            let coords = [f(0), f(1), f(2)];
            let lod = if i.has(Flag::Level) {
                f32::from_bits(self.src(t, i, 2, Type::F32)? as u32)
            } else if i.has(Flag::Grad) {
                let grad = |k: usize| -> Result<[f32; 3], EmuError> {
                    let Opd::Vector(v) = i.opd(k)? else { return Err(i.unsupported()) };
                    let mut g = [0.0f32; 3];
                    for (j, o) in v.iter().take(c.len()).enumerate() {
                        g[j] = f32::from_bits(self.val(t, o, Type::F32, i)? as u32);
                    }
                    Ok(g)
                };
                let (dx, dy) = (grad(2)?, grad(3)?);
                lod_from_gradients(&o.data, coords, dx, dy)
            } else {
                0.0
            };
            let s = o.sampler.unwrap_or_default();
            let k = if i.has(Flag::Grad) {
                4
            } else if i.has(Flag::Level) {
                3
            } else {
                2
            };
            let offset = self.texel_offset(t, i, k)?;
            sample_offset(&o.data, &s, coords, layer as i32, lod, offset, Weights::Cuda8Bit)
        };
        self.write_vec(t, i, 0, &texel.to_bits())
    }

    fn tld4(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let obj = self.object(t, i, 1)?;
        let words = self.coords(t, i, 1)?;
        let (layer, c) = self.split(i, &words)?;
        let Some(o) = self.mem.textures.get(obj).and_then(|o| o.as_ref()) else {
            return Err(i.unsupported());
        };
        let comp = match i.comp.ok_or_else(|| i.unsupported())? {
            TexComp::R => 0,
            TexComp::G => 1,
            TexComp::B => 2,
            TexComp::A => 3,
        };
        let f = |k: usize| c.get(k).map_or(0.0, |&v| f32::from_bits(v));
        let s = o.sampler.unwrap_or_default();
        let offset = self.texel_offset(t, i, 2)?;
        let texel = gather(&o.data, &s, [f(0), f(1), f(2)], layer as i32, comp, offset);
        self.write_vec(t, i, 0, &texel.to_bits())
    }

    fn query(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let obj = self.object(t, i, 1)?;
        let level = if i.has(Flag::Level) { self.src(t, i, 2, Type::S32)? as u32 } else { 0 };
        let Some(o) = self.mem.textures.get(obj).and_then(|o| o.as_ref()) else {
            return Err(i.unsupported());
        };
        let d = &o.data;
        let v = match i.query.ok_or_else(|| i.unsupported())? {
            TexQuery::Width => d.dimensions(level)[0],
            TexQuery::Height => d.dimensions(level)[1],
            TexQuery::Depth => d.dimensions(level)[2],
            TexQuery::ArraySize => d.num_layers(),
            TexQuery::NumMipmapLevels => d.num_levels(),
            TexQuery::NumSamples => 1,
        };
        self.dst(t, i, 0, u64::from(v))
    }

    /// The byte offset of the surface texel at coordinate words `c` (x in bytes), or `None`
    /// out of range or misaligned.
    fn surface_offset(
        &self,
        i: &DInst,
        obj: usize,
        words: &[u32],
    ) -> Result<Option<(usize, usize)>, EmuError> {
        let (layer, c) = self.split(i, words)?;
        let Some(o) = self.mem.textures.get(obj).and_then(|o| o.as_ref()) else {
            return Err(i.unsupported());
        };
        let bpt = o.data.format.bytes_per_texel();
        let xb = c[0] as i32;
        if xb < 0 || !(xb as usize).is_multiple_of(bpt) {
            return Ok(None);
        }
        let x = i64::from(xb) / bpt as i64;
        let y = c.get(1).map_or(0, |&v| i64::from(v as i32));
        let slice = match o.data.dim {
            TexDim::D3 => c.get(2).map_or(0, |&v| i64::from(v as i32)),
            TexDim::D2Array | TexDim::CubeArray | TexDim::Cube => i64::from(layer as i32),
            _ => 0,
        };
        Ok(o.data.texel_offset(x, y, slice, 0).map(|off| (off, bpt)))
    }

    fn suld(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let obj = self.object(t, i, 1)?;
        let words = self.coords(t, i, 1)?;
        let n = usize::from(i.vec.max(1));
        let mut out = vec![0u32; n];
        if let Some((off, bpt)) = self.surface_offset(i, obj, &words)? {
            if bpt != n * 4 {
                return Err(
                    i.err(EmuErrorKind::Unsupported, "access size differs from the texel size")
                );
            }
            if let Some(Some(o)) = self.mem.textures.get(obj) {
                for (k, w) in out.iter_mut().enumerate() {
                    let b = o.data.data.get(off + 4 * k..off + 4 * k + 4).unwrap_or(&[0; 4]);
                    *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
        }
        self.write_vec(t, i, 0, &out)
    }

    fn sust(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let obj = self.object(t, i, 0)?;
        let words = self.coords(t, i, 0)?;
        let Opd::Vector(v) = i.opd(1)? else { return Err(i.unsupported()) };
        let vals: Vec<u32> = v
            .iter()
            .map(|o| self.val(t, o, Type::B32, i).map(|x| x as u32))
            .collect::<Result<_, _>>()?;
        if let Some((off, bpt)) = self.surface_offset(i, obj, &words)? {
            if bpt != vals.len() * 4 {
                return Err(
                    i.err(EmuErrorKind::Unsupported, "access size differs from the texel size")
                );
            }
            if let Some(Some(o)) = self.mem.textures.get_mut(obj) {
                for (k, w) in vals.iter().enumerate() {
                    if let Some(b) = o.data.data.get_mut(off + 4 * k..off + 4 * k + 4) {
                        b.copy_from_slice(&w.to_le_bytes());
                    }
                }
            }
        }
        Ok(())
    }
}

/// The object each parameter of a compiled entry names (`params`: the entry's parameter
/// names in order, [`dianran_ptx::abi::EntryInfo::params`]): a slot parameter
/// `p_g<G>_b<B>` whose binding holds a texture in `bound` is that texture (fetches, queries,
/// surface accesses: no sampler), a pair parameter `p_g<G>_b<B>_s<SG>_b<SB>` is the texture
/// with the sampler's state (point filtered and without compare function for a comparison
/// pair, one with a `_cmp` word: the kernel compares and filters itself, as the host's
/// object does in `docs/textures.md`); buffers, placeholders, compare words and `p_sizes`
/// are `None`. An error names a pair whose texture or sampler is not bound.
pub fn texture_objects(
    params: &[String],
    bound: &crate::texture::TextureBindings,
) -> Result<Vec<Option<TexObject>>, String> {
    use dianran_ptx::abi::ParamKind;
    params
        .iter()
        .map(|name| match ParamKind::of(name) {
            Some(ParamKind::Pair { texture: t, sampler: s }) => {
                let data = bound.textures.get(&t).ok_or_else(|| {
                    format!("parameter {name}: no texture bound at group {} binding {}", t.0, t.1)
                })?;
                let mut sampler = *bound.samplers.get(&s).ok_or_else(|| {
                    format!("parameter {name}: no sampler bound at group {} binding {}", s.0, s.1)
                })?;
                let word = ParamKind::CompareWord { texture: t, sampler: s };
                if params.iter().any(|p| ParamKind::of(p) == Some(word)) {
                    sampler = compare_object_sampler(&sampler);
                }
                Ok(Some(TexObject { data: data.clone(), sampler: Some(sampler) }))
            }
            Some(ParamKind::Slot(k)) => Ok(bound
                .textures
                .get(&k)
                .map(|data| TexObject { data: data.clone(), sampler: None })),
            _ => Ok(None),
        })
        .collect()
}

pub use dianran_runtime::texture::{compare_object_sampler, compare_word};

/// Sets the value of every compare-word parameter (`p_..._cmp`) in `values` (one per
/// parameter, as [`super::run_module_textures`] takes them) to its little-endian
/// [`compare_word`]. An error names a word whose sampler is not bound.
pub fn fill_compare_words(
    params: &[String],
    bound: &crate::texture::TextureBindings,
    values: &mut [Vec<u8>],
) -> Result<(), String> {
    for (name, v) in params.iter().zip(values.iter_mut()) {
        let Some((_, s)) = dianran_ptx::abi::compare_param_binding(name) else {
            continue;
        };
        let sampler = bound.samplers.get(&s).ok_or_else(|| {
            format!("parameter {name}: no sampler bound at group {} binding {}", s.0, s.1)
        })?;
        *v = compare_word(sampler).to_le_bytes().to_vec();
    }
    Ok(())
}

/// Copies the texels of every slot object back into `bound` after a launch (what `sust`
/// wrote to storage textures), so they compare like buffers.
pub fn write_back_textures(
    params: &[String],
    objects: &[Option<TexObject>],
    bound: &mut crate::texture::TextureBindings,
) {
    for (name, obj) in params.iter().zip(objects) {
        let (Some(k), Some(o)) = (dianran_ptx::abi::param_binding(name), obj) else {
            continue;
        };
        if let Some(t) = bound.textures.get_mut(&k) {
            t.data.clone_from(&o.data.data);
        }
    }
}
