//! Textures on PTX: CUDA texture objects for sampled and depth textures, surface objects for
//! storage textures (`docs/textures.md`).
//!
//! Parameters. A texture that an entry uses on its own (`textureLoad`, `textureDimensions`,
//! `textureNumLevels`, `textureNumLayers`) or a storage texture is one `.param .u64
//! p_g<G>_b<B>` holding a texture object (`cuTexObjectCreate`) or a surface object
//! (`cuSurfObjectCreate`); it takes its binding's slot like a buffer (docs/abi.md's group-0 rule
//! counts it). CUDA has no separate sampler objects: a texture object carries its sampler
//! state, so each (texture, sampler) pair the entry samples with is one more texture object,
//! `p_g<G>_b<B>_s<SG>_b<SB>`, after the slot parameters and before `p_sizes`, sorted by
//! (texture group, binding, sampler group, binding). Samplers have no parameter of their own.
//!
//! Instructions. `textureLoad` of a sampled or depth texture is `tex.level` with integer
//! (`.s32`) coordinates, a texel fetch, behind a bounds check against `txq` (WGSL lets an
//! out-of-bounds load return zero; the hardware's answer is not specified). Sampling is
//! `tex.level` / `tex.grad` with `.f32` coordinates, `textureGather` is `tld4`, queries are
//! `txq` / `suq`. Storage textures are `suld.b` / `sust.b` on 32-bit words (the x coordinate
//! in bytes), with the texel format converted in registers and an explicit bounds check
//! (`x * bytes` could wrap into range).
//!
//! Depth comparison: a texture object has no compare function, so a comparison pair's
//! object point filters and the kernel compares and filters in registers, steered by the
//! pair's `.u32` compare word ([`compare`], `docs/textures.md`). Texel offsets are the
//! trailing offset vector of `tex`/`tld4`.
//!
//! What CUDA cannot express is a diagnostic naming the entry and the call:
//! implicit-derivative sampling (`textureSample`, `textureSampleBias`: no derivatives in a
//! compute kernel), multisampled and external textures, and storage formats without a
//! conversion here.

use super::lower::{Lower, Val};
use crate::model::build;
use crate::model::{
    CmpOp, Flag, Opcode, Operand, Reg, RegKind, Rounding, TexComp, TexGeom, TexQuery, Type as PT,
};
use dianran_frontend::ir::{
    self, AddressSpace, GlobalId, ImageClass, ImageDimension, ImageQuery, Op, SampleLevel,
    StorageFormat, Type, ValueId,
};
use dianran_frontend::Diagnostic;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

mod compare;
use crate::lowering_common::ScalarLowering;
use compare::CompareOperands;

type VRegId = Reg;

/// The textures and texture-sampler pairs an entry uses ([`plan_textures`]).
#[derive(Clone, Debug, Default)]
pub struct TexturePlan {
    /// Textures (sampled, depth or storage) that get their own object parameter.
    pub own: BTreeSet<GlobalId>,
    /// (texture, sampler) pairs that `textureSample*` / `textureGather` use.
    pub pairs: BTreeSet<(GlobalId, GlobalId)>,
    /// The pairs used with depth comparison (a `sampler_comparison`): each also gets a
    /// `.u32` compare word ([`crate::abi::compare_param_name`]).
    pub compare: BTreeSet<(GlobalId, GlobalId)>,
}

/// Every `GlobalAddr` of a handle (texture or sampler) global in `block`, by result value,
/// and every parameter of an inlined call bound to one.
fn handle_values(m: &ir::Module, block: &ir::Block, out: &mut HashMap<ValueId, GlobalId>) {
    for inst in &block.insts {
        if let (Op::GlobalAddr(g), Some(r)) = (&inst.op, inst.result) {
            if m.globals.get(g.index()).is_some_and(|x| x.space == AddressSpace::Handle) {
                out.insert(r, *g);
            }
        }
        // A texture or sampler argument of an inlined call: the callee's parameter names the
        // same global (handles are immutable, so the binding holds on every path).
        if let Op::Inline { body, args, .. } = &inst.op {
            for (p, a) in body.params.iter().zip(args) {
                if let Some(&g) = out.get(a) {
                    out.insert(*p, g);
                }
            }
        }
        for b in inst.op.blocks() {
            handle_values(m, b, out);
        }
    }
}

/// Walks the texture operations of `block` with the handle globals they name.
fn for_each_image_op(
    block: &ir::Block,
    f: &mut impl FnMut(&ir::Inst) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostic> {
    for inst in &block.insts {
        if matches!(
            inst.op,
            Op::ImageSample { .. }
                | Op::ImageLoad { .. }
                | Op::ImageStore { .. }
                | Op::ImageQuery(..)
        ) {
            f(inst)?;
        }
        for b in inst.op.blocks() {
            for_each_image_op(b, f)?;
        }
    }
    Ok(())
}

/// The texture type of global `g`: (dimension, arrayed, class).
fn image_type(m: &ir::Module, g: GlobalId) -> Option<(ImageDimension, bool, ImageClass)> {
    let global = m.globals.get(g.index())?;
    match m.types.get(global.ty) {
        Type::Image { dim, arrayed, class } => Some((*dim, *arrayed, *class)),
        _ => None,
    }
}

/// What PTX cannot express about one texture operation, as the text of a diagnostic.
fn unsupported_use(m: &ir::Module, op: &Op, image: GlobalId) -> Option<&'static str> {
    let (_, _, class) = image_type(m, image)?;
    match class {
        ImageClass::Sampled { multi: true, .. } | ImageClass::Depth { multi: true } => {
            return Some("multisampled textures (CUDA texture objects have no samples)")
        }
        ImageClass::External => return Some("external textures"),
        ImageClass::Storage { format, .. } if storage_format(format).is_none() => {
            return Some(
                "this storage texture format (supported: r32float/uint/sint, rg32*, rgba32*, \
                 rgba8unorm/snorm/uint/sint, rgba16float/uint/sint)",
            )
        }
        _ => {}
    }
    let (dim, _, _) = image_type(m, image)?;
    match op {
        Op::ImageSample { offset: Some(_), .. }
            if !matches!(dim, ImageDimension::D2 | ImageDimension::D3) =>
        {
            Some("texel offsets on this texture dimension")
        }
        Op::ImageSample {
            level: SampleLevel::Auto | SampleLevel::Bias(_), gather: None, ..
        } => Some("implicit-derivative sampling (textureSample, textureSampleBias) in compute"),
        Op::ImageLoad { sample: Some(_), .. } => Some("multisampled textures"),
        Op::ImageQuery(_, ImageQuery::NumSamples) => Some("textureNumSamples"),
        _ => None,
    }
}

/// Finds the textures and pairs the (inlined) entry body uses, and reports the first texture
/// operation PTX cannot express.
pub fn plan_textures(
    m: &ir::Module,
    f: &ir::Function,
    entry: &str,
) -> Result<TexturePlan, Diagnostic> {
    let mut handles = HashMap::default();
    handle_values(m, &f.body, &mut handles);
    let mut plan = TexturePlan::default();
    let mut queried = BTreeSet::new();
    let missing = |span| crate::abi::internal("texture operand is not a global", entry, span);
    for_each_image_op(&f.body, &mut |inst| {
        let image = match &inst.op {
            Op::ImageSample { image, .. }
            | Op::ImageLoad { image, .. }
            | Op::ImageStore { image, .. }
            | Op::ImageQuery(image, _) => *image,
            _ => return Ok(()),
        };
        let g = *handles.get(&image).ok_or_else(|| missing(inst.span))?;
        if let Some(what) = unsupported_use(m, &inst.op, g) {
            return Err(crate::abi::unsupported(what, entry, inst.span));
        }
        match &inst.op {
            Op::ImageSample { sampler, depth_ref, .. } => {
                let s = *handles.get(sampler).ok_or_else(|| missing(inst.span))?;
                plan.pairs.insert((g, s));
                if depth_ref.is_some() {
                    plan.compare.insert((g, s));
                }
            }
            Op::ImageQuery(..) => {
                queried.insert(g);
            }
            _ => {
                plan.own.insert(g);
            }
        }
        Ok(())
    })?;
    // A query reads any object of its texture: a pair's when there is one.
    for g in queried {
        if !plan.pairs.iter().any(|(t, _)| *t == g) {
            plan.own.insert(g);
        }
    }
    Ok(plan)
}

/// A storage format as (32-bit words per texel, channel kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channels {
    /// `n` 32-bit channels (f32, u32 or i32 bits).
    Word(u8),
    /// Four 8-bit channels in one word: unorm, snorm, uint, sint.
    Byte4(Norm),
    /// Four 16-bit channels in two words: float, uint, sint.
    Half4(Norm),
}

/// How narrow channels convert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Norm {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
}

fn storage_format(f: StorageFormat) -> Option<Channels> {
    use StorageFormat as F;
    Some(match f {
        F::R32Float | F::R32Uint | F::R32Sint => Channels::Word(1),
        F::Rg32Float | F::Rg32Uint | F::Rg32Sint => Channels::Word(2),
        F::Rgba32Float | F::Rgba32Uint | F::Rgba32Sint => Channels::Word(4),
        F::Rgba8Unorm => Channels::Byte4(Norm::Unorm),
        F::Rgba8Snorm => Channels::Byte4(Norm::Snorm),
        F::Rgba8Uint => Channels::Byte4(Norm::Uint),
        F::Rgba8Sint => Channels::Byte4(Norm::Sint),
        F::Rgba16Float => Channels::Half4(Norm::Float),
        F::Rgba16Uint => Channels::Half4(Norm::Uint),
        F::Rgba16Sint => Channels::Half4(Norm::Sint),
        _ => return None,
    })
}

impl Channels {
    fn words(self) -> usize {
        match self {
            Channels::Word(n) => usize::from(n),
            Channels::Byte4(_) => 1,
            Channels::Half4(_) => 2,
        }
    }
}

/// The PTX geometry of a texture type.
fn geometry(dim: ImageDimension, arrayed: bool) -> TexGeom {
    match (dim, arrayed) {
        (ImageDimension::D1, false) => TexGeom::D1,
        (ImageDimension::D1, true) => TexGeom::A1d,
        (ImageDimension::D2, false) => TexGeom::D2,
        (ImageDimension::D2, true) => TexGeom::A2d,
        (ImageDimension::D3, _) => TexGeom::D3,
        (ImageDimension::Cube, false) => TexGeom::Cube,
        (ImageDimension::Cube, true) => TexGeom::Acube,
    }
}

/// The coordinate vector of `geom`: the layer first for layered forms, padded to four
/// elements where PTX wants four (the padding element is ignored).
fn coord_vector(geom: TexGeom, layer: Option<VRegId>, c: &[VRegId]) -> Vec<Operand> {
    let mut v: Vec<VRegId> = Vec::with_capacity(4);
    if matches!(geom, TexGeom::A1d | TexGeom::A2d | TexGeom::Acube) {
        v.extend(layer.or(c.first().copied()));
    }
    v.extend_from_slice(c);
    let want = match geom {
        TexGeom::D1 => 1,
        TexGeom::D2 | TexGeom::A1d => 2,
        _ => 4,
    };
    while v.len() < want {
        if let Some(&x) = c.first() {
            v.push(x);
        } else {
            break;
        }
    }
    v.truncate(want);
    v.into_iter().map(Operand::Reg).collect()
}

/// Where a sampling instruction reads: the pair's texture object, the array layer and the
/// texel-offset vector (WGSL's `offset` argument, [`Lower::offset_operand`]).
#[derive(Clone, Debug)]
struct SampleSite {
    obj: VRegId,
    layer: Option<VRegId>,
    offset: Option<Operand>,
}

/// The object parameter registers of the entry's textures, filled by the prologue.
#[derive(Clone, Debug, Default)]
pub(crate) struct TextureRegs {
    /// The handle global each `GlobalAddr` result names.
    pub handles: HashMap<ValueId, GlobalId>,
    /// The loaded object of each (texture, sampler) pair.
    pub pairs: HashMap<(GlobalId, GlobalId), VRegId>,
    /// The loaded compare word of each comparison pair.
    pub compare: HashMap<(GlobalId, GlobalId), VRegId>,
}

impl Lower<'_> {
    /// Loads the (texture, sampler) pair objects (the slot objects are loaded with the
    /// buffers).
    pub(crate) fn texture_prologue(&mut self) {
        for (t, s, name) in self.layout.pairs.clone() {
            let r = self.def(RegKind::B64, |d| build::ld_param(PT::U64, d, &name));
            self.tex.pairs.insert((t, s), r);
        }
        for (t, s, name) in self.layout.compare.clone() {
            let r = self.def(RegKind::B32, |d| build::ld_param(PT::U32, d, &name));
            self.tex.compare.insert((t, s), r);
        }
    }

    /// The result of `GlobalAddr` of a texture or sampler: remembered, no register.
    pub(crate) fn handle_value(&mut self, result: Option<ValueId>, g: GlobalId) -> Option<Val> {
        if let Some(r) = result {
            self.tex.handles.insert(r, g);
        }
        Some(Val::Comps(Vec::new()))
    }

    fn handle_of(&self, v: ValueId) -> Result<GlobalId, Diagnostic> {
        self.tex.handles.get(&v).copied().ok_or_else(|| self.internal("unknown texture"))
    }

    /// The object register of texture `g`'s own parameter, or else of the first pair that
    /// samples it (queries read any object of the texture).
    fn own_object(&self, g: GlobalId) -> Result<VRegId, Diagnostic> {
        let idx = self.layout.buffers.iter().position(|b| *b == Some(g));
        if let Some(r) = idx.and_then(|i| self.params.get(i).copied().flatten()) {
            return Ok(r);
        }
        let mut pairs: Vec<_> = self.tex.pairs.iter().filter(|((t, _), _)| *t == g).collect();
        pairs.sort();
        pairs.first().map(|(_, r)| **r).ok_or_else(|| self.internal("texture without object"))
    }

    fn image_type_of(&self, g: GlobalId) -> Result<(ImageDimension, bool, ImageClass), Diagnostic> {
        image_type(self.m, g).ok_or_else(|| self.internal("texture global of no texture type"))
    }

    /// Lowers one texture operation; `ty` is its result type.
    pub(crate) fn image_op(&mut self, op: &Op) -> Result<Option<Val>, Diagnostic> {
        match op {
            Op::ImageLoad { image, coordinate, array_index, level, .. } => {
                let g = self.handle_of(*image)?;
                let c = self.comps(*coordinate)?;
                let layer = array_index.map(|a| self.scalar(a)).transpose()?;
                let level = level.map(|l| self.scalar(l)).transpose()?;
                Ok(Some(Val::Comps(self.texel_load(g, &c, layer, level)?)))
            }
            Op::ImageStore { image, coordinate, array_index, value } => {
                let g = self.handle_of(*image)?;
                let c = self.comps(*coordinate)?;
                let layer = array_index.map(|a| self.scalar(a)).transpose()?;
                let v = self.comps(*value)?;
                self.texel_store(g, &c, layer, &v)?;
                Ok(None)
            }
            Op::ImageSample {
                image,
                sampler,
                coordinate,
                array_index,
                level,
                gather,
                depth_ref,
                offset,
            } => {
                let g = self.handle_of(*image)?;
                let s = self.handle_of(*sampler)?;
                let obj = *self
                    .tex
                    .pairs
                    .get(&(g, s))
                    .ok_or_else(|| self.internal("texture-sampler pair without object"))?;
                let c = self.comps(*coordinate)?;
                let layer = array_index.map(|a| self.scalar(a)).transpose()?;
                let offset = match offset {
                    Some(o) => Some(self.offset_operand(*o)?),
                    None => None,
                };
                if let Some(r) = depth_ref {
                    let word = *self
                        .tex
                        .compare
                        .get(&(g, s))
                        .ok_or_else(|| self.internal("comparison pair without compare word"))?;
                    let reference = self.scalar(*r)?;
                    let pair = CompareOperands { obj, word, reference, offset };
                    return Ok(Some(Val::Comps(self.sample_compare(
                        g,
                        pair,
                        &c,
                        layer,
                        gather.is_some(),
                    )?)));
                }
                let site = SampleSite { obj, layer, offset };
                Ok(Some(Val::Comps(self.sample(g, site, &c, level, *gather)?)))
            }
            Op::ImageQuery(image, q) => {
                let g = self.handle_of(*image)?;
                Ok(Some(Val::Comps(self.query(g, q)?)))
            }
            _ => Err(self.internal("not a texture operation")),
        }
    }

    fn texel_dtype(&self, class: ImageClass) -> PT {
        match class {
            ImageClass::Sampled { kind: ir::ScalarKind::Sint, .. } => PT::S32,
            ImageClass::Sampled { kind: ir::ScalarKind::Uint, .. } => PT::U32,
            _ => PT::F32,
        }
    }

    /// `txq`/`suq` of one property into a new register (`lod`: of that mip level).
    fn query_reg(
        &mut self,
        surface: bool,
        q: TexQuery,
        obj: VRegId,
        lod: Option<VRegId>,
    ) -> VRegId {
        self.def(RegKind::B32, |d| build::tex_query(surface, q, d, obj, lod))
    }

    /// The sizes a coordinate is checked against: width, height, depth as the dimension has
    /// them (of level `lod` for textures).
    fn extent_regs(
        &mut self,
        surface: bool,
        dim: ImageDimension,
        obj: VRegId,
        lod: Option<VRegId>,
    ) -> Vec<VRegId> {
        let qs: &[TexQuery] = match dim {
            ImageDimension::D1 => &[TexQuery::Width],
            ImageDimension::D2 | ImageDimension::Cube => &[TexQuery::Width, TexQuery::Height],
            ImageDimension::D3 => &[TexQuery::Width, TexQuery::Height, TexQuery::Depth],
        };
        qs.iter().map(|&q| self.query_reg(surface, q, obj, lod)).collect()
    }

    /// A predicate: every `vals[i] < bounds[i]` as unsigned (negative i32 is out of range).
    fn in_bounds(&mut self, vals: &[VRegId], bounds: &[VRegId]) -> VRegId {
        let mut acc: Option<VRegId> = None;
        for (&v, &b) in vals.iter().zip(bounds) {
            let p = self.def(RegKind::Pred, |p| build::setp(CmpOp::Lo, PT::U32, p, v, b));
            acc = Some(match acc {
                None => p,
                Some(a) => self.pred_op(Opcode::And, a, p),
            });
        }
        acc.unwrap_or_else(|| self.imm_pred(true))
    }

    /// `textureLoad`: a bounds-checked texel fetch (sampled, depth) or surface load (storage).
    fn texel_load(
        &mut self,
        g: GlobalId,
        c: &[VRegId],
        layer: Option<VRegId>,
        level: Option<VRegId>,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        let (dim, arrayed, class) = self.image_type_of(g)?;
        let obj = self.own_object(g)?;
        let geom = geometry(dim, arrayed);
        let surface = matches!(class, ImageClass::Storage { .. });
        let level = match level {
            Some(l) if !surface => l,
            _ => self.imm_u32(0),
        };
        let lod = (!surface).then_some(level);
        let mut vals = c.to_vec();
        let mut bounds = self.extent_regs(surface, dim, obj, lod);
        if let Some(l) = layer {
            vals.push(l);
            bounds.push(self.query_reg(surface, TexQuery::ArraySize, obj, None));
        }
        if !surface {
            vals.push(level);
            bounds.push(self.query_reg(false, TexQuery::NumMipmapLevels, obj, None));
        }
        let ok = self.in_bounds(&vals, &bounds);
        let raw: Vec<VRegId> = match class {
            ImageClass::Storage { format, .. } => {
                let ch = storage_format(format)
                    .ok_or_else(|| self.unsupported("this storage texture format"))?;
                let coords = self.surface_coords(geom, ch, c, layer);
                let words: Vec<VRegId> =
                    (0..ch.words()).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
                self.push(build::suld(geom, &words, obj, coords));
                self.decode(ch, format, &words)
            }
            _ => {
                let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
                let coords = coord_vector(geom, layer, c);
                let dt = self.texel_dtype(class);
                self.push(build::tex(
                    geom,
                    Some(Flag::Level),
                    (dt, PT::S32),
                    &d,
                    obj,
                    coords,
                    vec![Operand::Reg(level)],
                ));
                d
            }
        };
        let zero = self.imm_u32(0);
        let mut out: Vec<VRegId> = raw
            .iter()
            .map(|&r| self.def(RegKind::B32, |d| build::selp(PT::B32, d, r, zero, ok)))
            .collect();
        if matches!(class, ImageClass::Depth { .. }) {
            out.truncate(1);
        }
        Ok(out)
    }

    /// Surface coordinates: x in bytes (`x * bytes per texel`), then y, z; the layer first
    /// for layered forms.
    fn surface_coords(
        &mut self,
        geom: TexGeom,
        ch: Channels,
        c: &[VRegId],
        layer: Option<VRegId>,
    ) -> Vec<Operand> {
        let mut c = c.to_vec();
        if let Some(x) = c.first_mut() {
            let shift = (ch.words() * 4).trailing_zeros();
            let x0 = *x;
            *x = self.binop(Opcode::Shl, &[], PT::B32, x0, Operand::Imm(i64::from(shift)));
        }
        coord_vector(geom, layer, &c)
    }

    /// The texel as four 32-bit channels from the raw words of a storage format (missing
    /// channels: 0, 0, 0 and 1 as WGSL says; 1 is 1.0 for float formats).
    fn decode(&mut self, ch: Channels, format: StorageFormat, words: &[VRegId]) -> Vec<VRegId> {
        let float = matches!(
            format,
            StorageFormat::R32Float | StorageFormat::Rg32Float | StorageFormat::Rgba32Float
        );
        match ch {
            Channels::Word(n) => {
                let mut out = words.to_vec();
                while out.len() < 3 {
                    out.push(self.imm_u32(0));
                }
                if n < 4 {
                    out.push(if float { self.imm_f32(1.0) } else { self.imm_u32(1) });
                }
                out
            }
            Channels::Byte4(norm) => (0..4)
                .map(|i| {
                    let w = words[0];
                    self.narrow_channel(w, i * 8, 8, norm)
                })
                .collect(),
            Channels::Half4(norm) => (0..4)
                .map(|i| {
                    let w = words[i / 2];
                    self.narrow_channel(w, (i % 2) as u32 * 16, 16, norm)
                })
                .collect(),
        }
    }

    /// One `bits`-wide channel at bit `pos` of `w`, converted to a 32-bit value.
    fn narrow_channel(&mut self, w: VRegId, pos: u32, bits: u32, norm: Norm) -> VRegId {
        let (p, b) = (Operand::Imm(i64::from(pos)), Operand::Imm(i64::from(bits)));
        let signed = matches!(norm, Norm::Snorm | Norm::Sint);
        let t = if signed { PT::S32 } else { PT::U32 };
        let x = self.def(RegKind::B32, |d| build::ternary(Opcode::Bfe, &[], t, d, w, p, b));
        match norm {
            Norm::Uint | Norm::Sint => x,
            Norm::Unorm | Norm::Snorm => {
                let max = ((1u32 << (bits - 1 + u32::from(!signed))) - 1) as f32;
                let f = self
                    .def(RegKind::B32, |d| build::cvt(Some(Rounding::Rn), false, PT::F32, t, d, x));
                let q = self.def(RegKind::B32, |d| {
                    build::binary(
                        Opcode::Div,
                        &[Rounding::Rn.into()],
                        PT::F32,
                        d,
                        f,
                        Operand::f32(max),
                    )
                });
                // snorm: the most negative code is -1.0 as well.
                if signed {
                    self.binop(Opcode::Max, &[], PT::F32, q, Operand::f32(-1.0))
                } else {
                    q
                }
            }
            Norm::Float => {
                let h = self.def(RegKind::B16, |d| build::cvt(None, false, PT::U16, PT::U32, d, x));
                self.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, h))
            }
        }
    }

    /// One channel of `v` encoded into the low `bits` bits of a word.
    fn encode_channel(&mut self, v: VRegId, bits: u32, norm: Norm) -> VRegId {
        match norm {
            Norm::Uint | Norm::Sint => v,
            Norm::Unorm => {
                let max = ((1u32 << bits) - 1) as f32;
                let s = self.def(RegKind::B32, |d| build::cvt(None, true, PT::F32, PT::F32, d, v));
                let m =
                    self.binop(Opcode::Mul, &[Rounding::Rn.into()], PT::F32, s, Operand::f32(max));
                self.def(RegKind::B32, |d| {
                    build::cvt(Some(Rounding::Rni), false, PT::U32, PT::F32, d, m)
                })
            }
            Norm::Snorm => {
                let max = ((1u32 << (bits - 1)) - 1) as f32;
                let lo = self.binop(Opcode::Max, &[], PT::F32, v, Operand::f32(-1.0));
                let c = self.binop(Opcode::Min, &[], PT::F32, lo, Operand::f32(1.0));
                let m =
                    self.binop(Opcode::Mul, &[Rounding::Rn.into()], PT::F32, c, Operand::f32(max));
                self.def(RegKind::B32, |d| {
                    build::cvt(Some(Rounding::Rni), false, PT::S32, PT::F32, d, m)
                })
            }
            Norm::Float => {
                let h = self.def(RegKind::B16, |d| {
                    build::cvt(Some(Rounding::Rn), false, PT::F16, PT::F32, d, v)
                });
                self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U16, d, h))
            }
        }
    }

    /// Packs encoded channels `parts` of `bits` each into one word (low channel first).
    fn pack_word(&mut self, parts: &[VRegId], bits: u32) -> VRegId {
        let mut acc = parts[0];
        for (i, &p) in parts.iter().enumerate().skip(1) {
            let (pos, len) =
                (Operand::Imm(i64::from(i as u32 * bits)), Operand::Imm(i64::from(bits)));
            let a = acc;
            acc = self.def(RegKind::B32, |d| {
                crate::Instruction::new(
                    Opcode::Bfi,
                    vec![PT::B32.into()],
                    vec![d.into(), p.into(), a.into(), pos, len],
                )
            });
        }
        acc
    }

    /// `textureStore`: the value encoded in the storage format, stored when in bounds.
    fn texel_store(
        &mut self,
        g: GlobalId,
        c: &[VRegId],
        layer: Option<VRegId>,
        v: &[VRegId],
    ) -> Result<(), Diagnostic> {
        let (dim, arrayed, class) = self.image_type_of(g)?;
        let ImageClass::Storage { format, .. } = class else {
            return Err(self.internal("textureStore to a texture that is not storage"));
        };
        let ch = storage_format(format)
            .ok_or_else(|| self.unsupported("this storage texture format"))?;
        let obj = self.own_object(g)?;
        let geom = geometry(dim, arrayed);
        let mut vals = c.to_vec();
        let mut bounds = self.extent_regs(true, dim, obj, None);
        if let Some(l) = layer {
            vals.push(l);
            bounds.push(self.query_reg(true, TexQuery::ArraySize, obj, None));
        }
        let ok = self.in_bounds(&vals, &bounds);
        let get = |i: usize| v.get(i).copied().or(v.first().copied());
        let words: Vec<VRegId> = match ch {
            Channels::Word(n) => (0..usize::from(n)).filter_map(get).collect(),
            Channels::Byte4(norm) => {
                let parts: Vec<VRegId> =
                    (0..4).filter_map(get).map(|x| self.encode_channel(x, 8, norm)).collect();
                vec![self.pack_word(&parts, 8)]
            }
            Channels::Half4(norm) => {
                let parts: Vec<VRegId> =
                    (0..4).filter_map(get).map(|x| self.encode_channel(x, 16, norm)).collect();
                vec![self.pack_word(&parts[..2], 16), self.pack_word(&parts[2..], 16)]
            }
        };
        let coords = self.surface_coords(geom, ch, c, layer);
        self.push(build::sust(geom, obj, coords, &words).guarded(ok, false));
        Ok(())
    }

    /// `textureSampleLevel`, `textureSampleGrad`, `textureGather`.
    fn sample(
        &mut self,
        g: GlobalId,
        site: SampleSite,
        c: &[VRegId],
        level: &SampleLevel,
        gather: Option<u8>,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        let SampleSite { obj, layer, offset } = site;
        let (dim, arrayed, class) = self.image_type_of(g)?;
        let geom = geometry(dim, arrayed);
        let dt = self.texel_dtype(class);
        let coords = coord_vector(geom, layer, c);
        let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        if let Some(comp) = gather {
            let comp = match comp {
                0 => TexComp::R,
                1 => TexComp::G,
                2 => TexComp::B,
                _ => TexComp::A,
            };
            if !matches!(geom, TexGeom::D2 | TexGeom::A2d | TexGeom::Cube | TexGeom::Acube) {
                return Err(self.unsupported("textureGather on this texture dimension"));
            }
            let mut inst = build::tld4(comp, geom, dt, &d, obj, coords);
            inst.operands.extend(offset);
            self.push(inst);
            return Ok(d);
        }
        let (mip, extra) = match level {
            SampleLevel::Zero => (Flag::Level, vec![Operand::f32(0.0)]),
            SampleLevel::Exact(l) => {
                let r = self.scalar(*l)?;
                let lod = match self.scalar_ty(*l)? {
                    ir::Scalar::I32 => self.def(RegKind::B32, |d| {
                        build::cvt(Some(Rounding::Rn), false, PT::F32, PT::S32, d, r)
                    }),
                    ir::Scalar::U32 => self.def(RegKind::B32, |d| {
                        build::cvt(Some(Rounding::Rn), false, PT::F32, PT::U32, d, r)
                    }),
                    _ => r,
                };
                (Flag::Level, vec![Operand::Reg(lod)])
            }
            SampleLevel::Gradient { x, y } => {
                let (gx, gy) = (self.comps(*x)?, self.comps(*y)?);
                let n = match geom {
                    TexGeom::D1 | TexGeom::A1d => 1,
                    TexGeom::D2 | TexGeom::A2d => 2,
                    _ => 4,
                };
                let pad = |v: &[VRegId]| -> Vec<Operand> {
                    (0..n)
                        .filter_map(|i| v.get(i).or(v.first()))
                        .map(|r| Operand::Reg(*r))
                        .collect()
                };
                (Flag::Grad, vec![Operand::Vector(pad(&gx)), Operand::Vector(pad(&gy))])
            }
            SampleLevel::Auto | SampleLevel::Bias(_) => {
                return Err(self.unsupported("implicit-derivative sampling in compute"))
            }
        };
        let mut extra = extra;
        extra.extend(offset);
        self.push(build::tex(geom, Some(mip), (dt, PT::F32), &d, obj, coords, extra));
        let mut d = d;
        if matches!(class, ImageClass::Depth { .. }) {
            d.truncate(1);
        }
        Ok(d)
    }

    /// The `.s32` texel-offset vector of a WGSL `offset` argument: two elements for 2D
    /// geometries, four (the fourth zero) for 3D, as PTX's `tex`/`tld4` take it.
    fn offset_operand(&mut self, offset: ValueId) -> Result<Operand, Diagnostic> {
        let mut v = self.comps(offset)?;
        if v.len() == 3 {
            v.push(self.imm_u32(0));
        }
        Ok(Operand::Vector(v.into_iter().map(Operand::Reg).collect()))
    }

    /// `textureDimensions`, `textureNumLevels`, `textureNumLayers`.
    fn query(&mut self, g: GlobalId, q: &ImageQuery) -> Result<Vec<VRegId>, Diagnostic> {
        let (dim, _, class) = self.image_type_of(g)?;
        let surface = matches!(class, ImageClass::Storage { .. });
        let obj = self.own_object(g)?;
        Ok(match q {
            ImageQuery::Size { level } => {
                let lod = match level {
                    Some(l) if !surface => Some(self.scalar(*l)?),
                    _ if !surface => Some(self.imm_u32(0)),
                    _ => None,
                };
                self.extent_regs(surface, dim, obj, lod)
            }
            ImageQuery::NumLevels => {
                vec![self.query_reg(false, TexQuery::NumMipmapLevels, obj, None)]
            }
            ImageQuery::NumLayers => vec![self.query_reg(surface, TexQuery::ArraySize, obj, None)],
            ImageQuery::NumSamples => return Err(self.unsupported("textureNumSamples")),
        })
    }
}
