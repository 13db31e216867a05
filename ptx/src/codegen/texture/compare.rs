//! Depth comparison on PTX (`docs/textures.md`, "Depth comparison"): a CUDA texture object
//! has no compare function, so the comparison runs in registers on texels the texture unit
//! returns unfiltered. The pair's texture object is point filtered; its `.u32` compare word
//! carries the sampler's compare function and filter.
//!
//! * `textureGatherCompare`: `tld4.r` of the 2x2 footprint, each texel compared (1.0 / 0.0).
//! * `textureSampleCompareLevel`, nearest: the point-sampled texel (`tex.level`, level 0)
//!   compared.
//! * linear: the `tld4.r` footprint compared, then blended with the bilinear weights of the
//!   texel-space coordinate, `a = frac(u * W - 0.5)`, `b = frac(v * H - 0.5)` (`W`, `H` from
//!   `txq`), summed in the order of the reference model (`verify::texture::sample_compare`).
//!   On cube textures `u`, `v` are the face coordinates (s, t) of the direction: the kernel
//!   selects the face itself (`cube_face_coords`, the reference model's
//!   `cube_face`), since `tld4.cube` returns the footprint but not where in it the direction
//!   falls.
//!
//! The word selects the result at run time (both forms are computed), so one kernel serves
//! any comparison sampler.

use super::super::lower::Lower;
use super::{coord_vector, geometry, VRegId};
use crate::abi::{COMPARE_FN_MASK, COMPARE_LINEAR_BIT};
use crate::lowering_common::ScalarLowering;
use crate::model::build;
use crate::model::Type as PT;
use crate::model::{CmpOp, Flag, Opcode, Operand, RegKind, Rounding, TexComp, TexGeom, TexQuery};
use dianran_frontend::ir::GlobalId;
use dianran_frontend::Diagnostic;

/// The registers a comparison reads: the pair's texture object, its compare word and the
/// depth reference.
#[derive(Clone, Debug)]
pub(in crate::codegen) struct CompareOperands {
    /// The pair's (point-filtered) texture object.
    pub obj: VRegId,
    /// The compare word (`p_..._cmp`).
    pub word: VRegId,
    /// The depth reference (f32).
    pub reference: VRegId,
    /// The texel-offset vector, if any: it moves the footprint, not the weights.
    pub offset: Option<Operand>,
}

impl Lower<'_> {
    /// `textureGatherCompare` (`gather`) or `textureSampleCompareLevel` on texture `g`.
    pub(in crate::codegen) fn sample_compare(
        &mut self,
        g: GlobalId,
        ops: CompareOperands,
        c: &[VRegId],
        layer: Option<VRegId>,
        gather: bool,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        let (dim, arrayed, _) = self.image_type_of(g)?;
        let geom = geometry(dim, arrayed);
        let cube = match geom {
            TexGeom::D2 | TexGeom::A2d => false,
            TexGeom::Cube | TexGeom::Acube => true,
            _ => return Err(self.unsupported("depth comparison on this texture dimension")),
        };
        let coords = coord_vector(geom, layer, c);
        let func = self.binop(
            Opcode::And,
            &[],
            PT::B32,
            ops.word,
            Operand::Imm(i64::from(COMPARE_FN_MASK)),
        );
        let texels: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        let mut gather4 = build::tld4(TexComp::R, geom, PT::F32, &texels, ops.obj, coords.clone());
        gather4.operands.extend(ops.offset.clone());
        self.push(gather4);
        let passed: Vec<VRegId> =
            texels.iter().map(|&d| self.compare_texel(func, ops.reference, d)).collect();
        if gather {
            return Ok(passed);
        }
        // Nearest: the texel point sampling reads, on level 0.
        let point: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        self.push(build::tex(
            geom,
            Some(Flag::Level),
            (PT::F32, PT::F32),
            &point,
            ops.obj,
            coords,
            std::iter::once(Operand::f32(0.0)).chain(ops.offset.clone()).collect(),
        ));
        let nearest = self.compare_texel(func, ops.reference, point[0]);
        // Linear: bilinear weights of the footprint `tld4` returned.
        let zero = self.imm_u32(0);
        let w = self.query_reg(false, TexQuery::Width, ops.obj, Some(zero));
        let h = self.query_reg(false, TexQuery::Height, ops.obj, Some(zero));
        let (u, v) = match c {
            [x, y, z, ..] if cube => self.cube_face_coords(*x, *y, *z),
            [u, v, ..] => (*u, *v),
            _ => return Err(self.internal("depth comparison with too few coordinates")),
        };
        let a = self.texel_fraction(u, w);
        let b = self.texel_fraction(v, h);
        let linear = self.blend_footprint(&passed, a, b);
        let bit = self.binop(
            Opcode::And,
            &[],
            PT::B32,
            ops.word,
            Operand::Imm(i64::from(COMPARE_LINEAR_BIT)),
        );
        let is_linear =
            self.def(RegKind::Pred, |p| build::setp(CmpOp::Ne, PT::U32, p, bit, Operand::imm(0)));
        let out = self.def(RegKind::B32, |d| build::selp(PT::F32, d, linear, nearest, is_linear));
        Ok(vec![out])
    }

    /// 1.0 when `reference OP texel` passes for compare function `func` (bits 0..=2 of the
    /// word), else 0.0. The outcome is a bit, 1 (less), 2 (equal) or 4 (greater), that passes
    /// when set in `func`; unordered (NaN) is 5 and passes only for not-equal (5) and always
    /// (7), as `!=` and `true` do on NaN.
    fn compare_texel(&mut self, func: VRegId, reference: VRegId, texel: VRegId) -> VRegId {
        let setp = |me: &mut Self, op: CmpOp| {
            me.def(RegKind::Pred, |p| build::setp(op, PT::F32, p, reference, texel))
        };
        let (lt, eq, gt) = (setp(self, CmpOp::Lt), setp(self, CmpOp::Eq), setp(self, CmpOp::Gt));
        let o = self
            .def(RegKind::B32, |d| build::selp(PT::U32, d, Operand::imm(4), Operand::imm(5), gt));
        let o = self.def(RegKind::B32, |d| build::selp(PT::U32, d, Operand::imm(2), o, eq));
        let o = self.def(RegKind::B32, |d| build::selp(PT::U32, d, Operand::imm(1), o, lt));
        let m = self.binop(Opcode::And, &[], PT::B32, func, o);
        let pass = self.def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::U32, p, m, o));
        self.def(RegKind::B32, |d| {
            build::selp(PT::F32, d, Operand::f32(1.0), Operand::f32(0.0), pass)
        })
    }

    /// The face coordinates (s, t) in [0, 1] of cube direction (x, y, z), as the reference
    /// model's `verify::texture::cube_face` computes them (Vulkan's "Cube Map Face Selection"
    /// table): the major axis is X when `|x| >= |y|` and `|x| >= |z|`, else Y when
    /// `|y| >= |z|`, else Z (ordered compares: a NaN falls through to Z); its sign picks the
    /// face (`>= 0` is the positive one, -0 included). Then `s = 0.5 * (sc / ma + 1)` and
    /// `t = 0.5 * (tc / ma + 1)`, each operation rounded to nearest. The model forms sc, tc and
    /// ma as dot products with 0/±1 vectors, so a non-finite component (0 x inf) makes s and
    /// t NaN: `ma` gets `0*x + 0*y + 0*z` added (+-0 for finite directions) to do the same.
    fn cube_face_coords(&mut self, x: VRegId, y: VRegId, z: VRegId) -> (VRegId, VRegId) {
        let rn = [Rounding::Rn.into()];
        let abs = |me: &mut Self, v: VRegId| me.unop(Opcode::Abs, &[], PT::F32, v);
        let neg = |me: &mut Self, v: VRegId| me.unop(Opcode::Neg, &[], PT::F32, v);
        let ge = |me: &mut Self, a: VRegId, b: Operand| {
            me.def(RegKind::Pred, |p| build::setp(CmpOp::Ge, PT::F32, p, a, b))
        };
        // `p ? a : b`
        let sel = |me: &mut Self, a: VRegId, b: VRegId, p: VRegId| {
            me.def(RegKind::B32, |d| build::selp(PT::F32, d, a, b, p))
        };
        let (ax, ay, az) = (abs(self, x), abs(self, y), abs(self, z));
        let x_ge_y = ge(self, ax, Operand::Reg(ay));
        let x_ge_z = ge(self, ax, Operand::Reg(az));
        let on_x = self.pred_op(Opcode::And, x_ge_y, x_ge_z);
        // Y when not X and |y| >= |z|.
        let on_y = ge(self, ay, Operand::Reg(az));
        let (x_pos, y_pos, z_pos) = (
            ge(self, x, Operand::f32(0.0)),
            ge(self, y, Operand::f32(0.0)),
            ge(self, z, Operand::f32(0.0)),
        );
        let (nx, ny, nz) = (neg(self, x), neg(self, y), neg(self, z));
        // sc: +X -z, -X z; ±Y x; +Z x, -Z -x.
        let sc_x = sel(self, nz, z, x_pos);
        let sc_z = sel(self, x, nx, z_pos);
        let sc_yz = sel(self, x, sc_z, on_y);
        let sc = sel(self, sc_x, sc_yz, on_x);
        // tc: ±X -y; +Y z, -Y -z; ±Z -y.
        let tc_y = sel(self, z, nz, y_pos);
        let tc_yz = sel(self, tc_y, ny, on_y);
        let tc = sel(self, ny, tc_yz, on_x);
        let ma_yz = sel(self, ay, az, on_y);
        let ma = sel(self, ax, ma_yz, on_x);
        let zero = Operand::f32(0.0);
        let (zx, zy, zz) = (
            self.binop(Opcode::Mul, &rn, PT::F32, x, zero.clone()),
            self.binop(Opcode::Mul, &rn, PT::F32, y, zero.clone()),
            self.binop(Opcode::Mul, &rn, PT::F32, z, zero),
        );
        let nan = self.binop(Opcode::Add, &rn, PT::F32, zx, zy);
        let nan = self.binop(Opcode::Add, &rn, PT::F32, nan, zz);
        let ma = self.binop(Opcode::Add, &rn, PT::F32, ma, nan);
        let face = |me: &mut Self, c: VRegId| {
            let q = me.binop(Opcode::Div, &rn, PT::F32, c, ma);
            let q1 = me.binop(Opcode::Add, &rn, PT::F32, q, Operand::f32(1.0));
            me.binop(Opcode::Mul, &rn, PT::F32, Operand::f32(0.5), q1)
        };
        (face(self, sc), face(self, tc))
    }

    /// `frac(x * size - 0.5)` with the model's operation order: `x * size`, minus 0.5,
    /// minus its floor (all rounded to nearest, never contracted).
    fn texel_fraction(&mut self, x: VRegId, size: VRegId) -> VRegId {
        let rn = [Rounding::Rn.into()];
        let s = self.def(RegKind::B32, |d| {
            build::cvt(Some(Rounding::Rn), false, PT::F32, PT::U32, d, size)
        });
        let u = self.binop(Opcode::Mul, &rn, PT::F32, x, s);
        let ub = self.binop(Opcode::Sub, &rn, PT::F32, u, Operand::f32(0.5));
        let fl = self
            .def(RegKind::B32, |d| build::cvt(Some(Rounding::Rmi), false, PT::F32, PT::F32, d, ub));
        self.binop(Opcode::Sub, &rn, PT::F32, ub, fl)
    }

    /// The bilinear blend of footprint values `v` in gather order ((i0, j1), (i1, j1),
    /// (i1, j0), (i0, j0)) with weights `a` (x) and `b` (y): row j0 before j1, i0 before i1,
    /// each weight `wx * wy`, as the reference model sums them.
    fn blend_footprint(&mut self, v: &[VRegId], a: VRegId, b: VRegId) -> VRegId {
        let rn = [Rounding::Rn.into()];
        let one = Operand::f32(1.0);
        let na = self.binop(Opcode::Sub, &rn, PT::F32, one.clone(), a);
        let nb = self.binop(Opcode::Sub, &rn, PT::F32, one, b);
        // (texel, wx, wy) in the model's summation order.
        let terms = [(v[3], na, nb), (v[2], a, nb), (v[0], na, b), (v[1], a, b)];
        let mut acc: Option<VRegId> = None;
        for (t, wx, wy) in terms {
            let w = self.binop(Opcode::Mul, &rn, PT::F32, wx, wy);
            let x = self.binop(Opcode::Mul, &rn, PT::F32, w, t);
            acc = Some(match acc {
                None => x,
                Some(s) => self.binop(Opcode::Add, &rn, PT::F32, s, x),
            });
        }
        acc.unwrap_or(v[0])
    }
}
