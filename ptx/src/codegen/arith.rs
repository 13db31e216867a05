//! Selection of pure value operations: arithmetic with WGSL semantics (docs/ptx.md), conversions,
//! composites, relational functions and the math library, one scalar component at a time.

use super::lower::Lower;
use super::regalloc::{RegKind, VRegId};
use crate::abi::layout::{self, arith_ty, kind_of};
use crate::lowering_common::{self, CoopShape, ScalarLowering};
use crate::model::{build, CmpOp, Flag, Opcode, Operand, Rounding, TestpOp, Type as PT};
use dianran_frontend::ir::{
    BinaryOperator as B, Op, RelationalFunction, Scalar, Type, TypeId, Types, UnaryOperator as U,
    ValueId,
};
use dianran_frontend::{DiagKind, Diagnostic};

type R<T> = Result<T, Diagnostic>;

/// The shared composite steps emit `setp.eq.u32` index tests and `selp` selects.
impl ScalarLowering for Lower<'_> {
    type Value = VRegId;
    type Pred = VRegId;
    type Addr = VRegId;
    type Space = super::lower::Space;

    fn types_mut(&mut self) -> &mut Types {
        &mut self.types
    }
    fn value_ty(&self, v: ValueId) -> TypeId {
        self.ty(v)
    }
    fn value_comps(&self, v: ValueId) -> R<Vec<VRegId>> {
        self.comps(v)
    }
    fn diagnostic(&self, kind: DiagKind, what: &str) -> Diagnostic {
        match kind {
            DiagKind::Internal => crate::abi::internal(what, &self.entry, self.span),
            _ => crate::abi::unsupported(what, &self.entry, self.span),
        }
    }
    fn coop_layout(&self, ty: TypeId) -> R<CoopShape> {
        let help = "pass --tf32 to use TF32 tensor cores (10-bit mantissa products)";
        lowering_common::coop_shape(self, &self.types, ty, self.tf32, help)
    }
    fn as_pred(&self, v: VRegId) -> VRegId {
        v
    }
    fn index_is(&mut self, i: VRegId, e: u32) -> R<VRegId> {
        Ok(self.def(RegKind::Pred, |p| {
            build::setp(CmpOp::Eq, PT::U32, p, i, Operand::Imm(i64::from(e)))
        }))
    }
    fn mul_comp(&mut self, s: Scalar, a: VRegId, b: VRegId) -> R<VRegId> {
        Ok(self.bin(Opcode::Mul, s, a, b))
    }
    fn dot_comps(&mut self, s: Scalar, a: &[VRegId], b: &[VRegId]) -> R<VRegId> {
        Ok(self.dot(s, a, b))
    }
    fn zero_comp(&mut self, s: Scalar) -> VRegId {
        self.imm_of(s, 0.0)
    }
    fn select_comp(&mut self, s: Scalar, p: VRegId, a: VRegId, b: VRegId) -> R<VRegId> {
        Ok(self.select(s, p, a, b))
    }
}

impl Lower<'_> {
    /// Lowers a pure operation producing a value of type `ty`.
    pub(crate) fn value_components(&mut self, op: &Op, ty: TypeId) -> R<Vec<VRegId>> {
        if let Some(r) = lowering_common::composite_op(self, op, ty) {
            return r;
        }
        match op {
            Op::Const(c) => self.const_comps(c, ty),
            Op::Unary(u, a) => {
                lowering_common::per_component(self, *a, |l, s, v| l.unary(*u, s, v))
            }
            Op::Binary(b, x, y) => self.binary(*b, *x, *y, ty),
            Op::Convert(a, to) => {
                lowering_common::per_component(self, *a, |l, s, v| l.convert(s, *to, v))
            }
            Op::Bitcast(a) => self.bitcast(*a, ty),
            Op::Relational(f, a) => {
                let s = self.scalar_ty(*a)?;
                let c = self.comps(*a)?;
                match f {
                    RelationalFunction::All | RelationalFunction::Any => {
                        let name =
                            if *f == RelationalFunction::All { Opcode::And } else { Opcode::Or };
                        let mut acc = *c.first().ok_or_else(|| self.internal("empty vector"))?;
                        for &x in &c[1..] {
                            acc = self.pred_op(name, acc, x);
                        }
                        Ok(vec![acc])
                    }
                    RelationalFunction::IsNan | RelationalFunction::IsInf => {
                        let t = if *f == RelationalFunction::IsNan {
                            TestpOp::NotANumber
                        } else {
                            TestpOp::Infinite
                        };
                        c.into_iter()
                            .map(|v| {
                                let v = self.widen_f16(s, v);
                                Ok(self.def(RegKind::Pred, |p| build::testp(t, PT::F32, p, v)))
                            })
                            .collect()
                    }
                }
            }
            Op::Math(f, args) => self.math(*f, args, ty),
            Op::SubgroupBallot(_) | Op::SubgroupCollective { .. } | Op::SubgroupGather { .. } => {
                self.subgroup(op)
            }
            _ => Err(self.unsupported("this operation")),
        }
    }

    /// `p ? a : b` for a scalar type.
    pub(crate) fn select(&mut self, s: Scalar, p: VRegId, a: VRegId, b: VRegId) -> VRegId {
        match s {
            Scalar::Bool => {
                let np = self.unop(Opcode::Not, &[], PT::Pred, p);
                let t1 = self.pred_op(Opcode::And, a, p);
                let t2 = self.pred_op(Opcode::And, b, np);
                self.pred_op(Opcode::Or, t1, t2)
            }
            Scalar::F16 => self.def(RegKind::B16, |d| build::selp(PT::B16, d, a, b, p)),
            s if s.is_64() => self.def(RegKind::B64, |d| build::selp(PT::B64, d, a, b, p)),
            _ => self.def(RegKind::B32, |d| build::selp(PT::B32, d, a, b, p)),
        }
    }

    /// Widens an f16 to f32 (other scalars unchanged).
    pub(crate) fn widen_f16(&mut self, s: Scalar, v: VRegId) -> VRegId {
        if s == Scalar::F16 {
            self.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, v))
        } else {
            v
        }
    }

    /// Narrows an f32 back to f16 when `s` is f16.
    pub(crate) fn narrow_f16(&mut self, s: Scalar, v: VRegId) -> VRegId {
        if s == Scalar::F16 {
            self.def(RegKind::B16, |d| {
                build::cvt(Some(Rounding::Rn), false, PT::F16, PT::F32, d, v)
            })
        } else {
            v
        }
    }

    /// A two-operand instruction `op.ty d, a, b` on scalar `s`.
    pub(crate) fn bin(&mut self, op: Opcode, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        self.def(kind_of(s), |d| build::binary(op, &[], arith_ty(s), d, a, b))
    }

    /// A one-operand instruction `op.ty d, a` on scalar `s`.
    pub(crate) fn un(&mut self, op: Opcode, s: Scalar, a: VRegId) -> VRegId {
        self.def(kind_of(s), |d| build::unary(op, &[], arith_ty(s), d, a))
    }

    pub(crate) fn unary(&mut self, u: U, s: Scalar, v: VRegId) -> R<VRegId> {
        if s.is_64() {
            return self.unary64(u, s, v);
        }
        Ok(match (u, s) {
            (U::LogicalNot, _) | (U::BitwiseNot, Scalar::Bool) => {
                self.unop(Opcode::Not, &[], PT::Pred, v)
            }
            (U::BitwiseNot, _) => {
                self.def(RegKind::B32, |d| build::unary(Opcode::Not, &[], PT::B32, d, v))
            }
            (U::Negate, Scalar::F32 | Scalar::F16) => self.un(Opcode::Neg, s, v),
            (U::Negate, _) => {
                self.def(RegKind::B32, |d| build::unary(Opcode::Neg, &[], PT::S32, d, v))
            }
        })
    }

    pub(crate) fn binary(
        &mut self,
        op: B,
        x: dianran_frontend::ir::ValueId,
        y: dianran_frontend::ir::ValueId,
        ty: TypeId,
    ) -> R<Vec<VRegId>> {
        let xt = self.types.get(self.ty(x)).clone();
        let yt = self.types.get(self.ty(y)).clone();
        if op == B::Multiply {
            let is_mat = |t: &Type| matches!(t, Type::Matrix { .. });
            if is_mat(&xt) || is_mat(&yt) {
                return lowering_common::linear_mul(self, x, y, &xt, &yt);
            }
            if matches!(
                (&xt, &yt),
                (Type::Vector { .. }, Type::Scalar(_)) | (Type::Scalar(_), Type::Vector { .. })
            ) {
                let s = self.scalar_ty(x)?;
                let a = self.comps(x)?;
                let b = self.comps(y)?;
                let (vec, k) = if a.len() > 1 { (a, b[0]) } else { (b, a[0]) };
                let mut out = Vec::new();
                for v in vec {
                    out.push(self.binary_scalar(B::Multiply, s, v, k)?);
                }
                return Ok(out);
            }
        }
        let s = self.scalar_ty(x)?;
        let a = self.comps(x)?;
        let mut b = self.comps(y)?;
        if b.len() == 1 && a.len() > 1 {
            b = vec![b[0]; a.len()];
        }
        if a.len() != b.len() {
            return Err(self.internal("binary operand shapes differ"));
        }
        let _ = ty;
        let mut out = Vec::new();
        for (p, q) in a.into_iter().zip(b) {
            out.push(self.binary_scalar(op, s, p, q)?);
        }
        Ok(out)
    }

    /// A source-level f32 division: `div.rn.f32` (correctly rounded), or under `--fast-math`
    /// `div.full.f32` (at most 2 ulp over the whole range, as nvcc's `--use_fast_math` makes
    /// `/`), which needs no slow-path subroutine.
    ///
    /// A numerator of 1 or -1 makes it `rcp.rn.f32` (of `-b` for -1): the same correctly
    /// rounded value for every divisor (zeros, infinities, NaN and subnormals included, and
    /// rounding to nearest is symmetric in sign), whose `ptxas` expansion is about twenty
    /// SASS instructions shorter than `div.rn`'s (`1.0 / sum` in every softmax).
    fn div_f32(&mut self, a: VRegId, b: VRegId) -> VRegId {
        if self.fast_math {
            self.used_fast_math = true;
            return self.binop(Opcode::Div, &[Flag::Full.into()], PT::F32, a, b);
        }
        match self.fconsts.get(&a).map(|c| c.to_bits()) {
            Some(0x3F80_0000) => self.unop(Opcode::Rcp, &[Rounding::Rn.into()], PT::F32, b),
            Some(0xBF80_0000) => {
                // The reciprocal of `-b` (exact) rather than the negated reciprocal: a NaN `b`
                // then gives `div.rn`'s canonical NaN, not its negation.
                let nb = self.unop(Opcode::Neg, &[], PT::F32, b);
                self.unop(Opcode::Rcp, &[Rounding::Rn.into()], PT::F32, nb)
            }
            _ => self.binop(Opcode::Div, &[Rounding::Rn.into()], PT::F32, a, b),
        }
    }

    pub(crate) fn binary_scalar(&mut self, op: B, s: Scalar, a: VRegId, b: VRegId) -> R<VRegId> {
        if s.is_64() {
            return self.binary64(op, s, a, b);
        }
        let float = s.is_float();
        let t = arith_ty(s);
        Ok(match op {
            B::Add => self.bin(Opcode::Add, s, a, b),
            B::Subtract if self.inject == Some(super::InjectedBug::SubSwapped) => {
                self.bin(Opcode::Sub, s, b, a)
            }
            B::Subtract => self.bin(Opcode::Sub, s, a, b),
            B::Multiply if float => self.bin(Opcode::Mul, s, a, b),
            B::Multiply => self.def(RegKind::B32, |d| build::mul_lo(t, d, a, b)),
            B::Divide if s == Scalar::F32 => {
                match self.fconsts.get(&b).copied().and_then(exact_recip) {
                    // `x / 2^k` is `x * 2^-k`: both round the same exact value once (zeros,
                    // infinities, NaN and subnormal results included), and `div.rn` would cost a
                    // slow-path subroutine per site.
                    Some(r) => {
                        let k = self.imm_f32(r);
                        self.binop(Opcode::Mul, &[Rounding::Rn.into()], PT::F32, a, k)
                    }
                    None => self.div_f32(a, b),
                }
            }
            B::Divide if float => {
                let (fa, fb) = (self.widen_f16(s, a), self.widen_f16(s, b));
                let q = self.div_f32(fa, fb);
                self.narrow_f16(s, q)
            }
            B::Divide | B::Modulo if !float => {
                if let Some(q) = self.div_by_constant(op, s, a, b) {
                    return Ok(q);
                }
                let d = self.safe_divisor(s, a, b);
                let name = if op == B::Divide { Opcode::Div } else { Opcode::Rem };
                self.def(RegKind::B32, |r| build::binary(name, &[], t, r, a, d))
            }
            B::Divide | B::Modulo => {
                // x - trunc(x / y) * y, in f32.
                let (fa, fb) = (self.widen_f16(s, a), self.widen_f16(s, b));
                let q = self.binop(Opcode::Div, &[Rounding::Rn.into()], PT::F32, fa, fb);
                let q = self.def(RegKind::B32, |d| {
                    build::cvt(Some(Rounding::Rzi), false, PT::F32, PT::F32, d, q)
                });
                let m =
                    self.def(RegKind::B32, |d| build::binary(Opcode::Mul, &[], PT::F32, d, q, fb));
                let r = self.def(RegKind::B32, |d| build::sub(PT::F32, d, fa, m));
                self.narrow_f16(s, r)
            }
            B::Equal | B::NotEqual if s == Scalar::Bool => {
                let x = self.pred_op(Opcode::Xor, a, b);
                if op == B::Equal {
                    self.unop(Opcode::Not, &[], PT::Pred, x)
                } else {
                    x
                }
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                self.wgsl_compare(op, float, t, a, b)
            }
            B::And | B::LogicalAnd if s == Scalar::Bool => self.pred_op(Opcode::And, a, b),
            B::InclusiveOr | B::LogicalOr if s == Scalar::Bool => self.pred_op(Opcode::Or, a, b),
            B::ExclusiveOr if s == Scalar::Bool => self.pred_op(Opcode::Xor, a, b),
            B::And => self.binop(Opcode::And, &[], PT::B32, a, b),
            B::InclusiveOr => self.binop(Opcode::Or, &[], PT::B32, a, b),
            B::ExclusiveOr => self.binop(Opcode::Xor, &[], PT::B32, a, b),
            B::ShiftLeft | B::ShiftRight => self.wgsl_shift(op, s, a, b),
            B::LogicalAnd | B::LogicalOr => {
                return Err(self.internal("logical operator on non-bool"))
            }
        })
    }

    /// `a / b` or `a % b` without `div` when `b` is a constant the `divconst` module plans.
    fn div_by_constant(&mut self, op: B, s: Scalar, a: VRegId, b: VRegId) -> Option<VRegId> {
        let c = *self.consts.get(&b)?;
        match (s, op) {
            (Scalar::U32, B::Divide) => self.udiv_const(a, c),
            (Scalar::U32, _) => self.urem_const(a, c),
            (Scalar::I32, B::Divide) => self.sdiv_const(a, c as i32),
            (Scalar::I32, _) => self.srem_const(a, c as i32),
            _ => None,
        }
    }

    /// The divisor WGSL division uses: 1 where the machine result would differ (division by
    /// zero: `a / 1 = a` and `a % 1 = 0`; `i32::MIN / -1`: `MIN / 1 = MIN`, `MIN % 1 = 0`).
    pub(crate) fn safe_divisor(&mut self, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        // A constant divisor other than 0 (and -1 for i32) needs no guard.
        if let Some(&c) = self.consts.get(&b) {
            if c != 0 && !(s == Scalar::I32 && c == u32::MAX) {
                return b;
            }
        }
        let one = self.imm_u32(1);
        let z = self.def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::U32, p, b, Operand::Imm(0)));
        let bad = if s == Scalar::I32 {
            let m1 = self
                .def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::S32, p, b, Operand::Imm(-1)));
            let mn = self.def(RegKind::Pred, |p| {
                build::setp(CmpOp::Eq, PT::U32, p, a, Operand::ImmHex(0x8000_0000))
            });
            let both = self.pred_op(Opcode::And, m1, mn);
            self.pred_op(Opcode::Or, z, both)
        } else {
            z
        };
        self.def(RegKind::B32, |d| build::selp(PT::B32, d, one, b, bad))
    }

    /// Dot product: for floats each product and sum rounded on its own (`dot` is contracted in
    /// the SSA, `docs/math.md`, "Contraction"), mad for integers.
    pub(crate) fn dot(&mut self, s: Scalar, a: &[VRegId], b: &[VRegId]) -> VRegId {
        if a.is_empty() || b.is_empty() {
            return self.imm_of(s, 0.0);
        }
        let mut acc = if s.is_float() {
            self.bin(Opcode::Mul, s, a[0], b[0])
        } else {
            let (x, y) = (a[0], b[0]);
            self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, x, y))
        };
        for i in 1..a.len().min(b.len()) {
            let (x, y, c) = (a[i], b[i], acc);
            acc = if s.is_float() {
                let p = self.bin(Opcode::Mul, s, x, y);
                self.bin(Opcode::Add, s, c, p)
            } else {
                self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, x, y, c))
            };
        }
        acc
    }

    /// Numeric conversion with WGSL semantics (float -> int saturates, NaN -> 0).
    pub(crate) fn convert(&mut self, from: Scalar, to: Scalar, v: VRegId) -> R<VRegId> {
        use Scalar::*;
        if from.is_64() || to.is_64() {
            return self.convert64(from, to, v);
        }
        Ok(match (from, to) {
            (a, b) if a == b => v,
            (I32, U32) | (U32, I32) => v,
            (Bool, F32) => {
                let one = self.imm_f32(1.0);
                let zero = self.imm_f32(0.0);
                self.select(F32, v, one, zero)
            }
            (Bool, F16) => {
                let one = self.imm_f16(0x3C00);
                let zero = self.imm_f16(0);
                self.select(F16, v, one, zero)
            }
            (Bool, _) => self.def(RegKind::B32, |d| {
                build::selp(PT::U32, d, Operand::Imm(1), Operand::Imm(0), v)
            }),
            (I32 | U32, Bool) => {
                self.def(RegKind::Pred, |p| build::setp(CmpOp::Ne, PT::U32, p, v, Operand::Imm(0)))
            }
            (F32 | F16, Bool) => {
                let z = self.imm_of(from, 0.0);
                self.bin_setp(CmpOp::Neu, from, v, z)
            }
            (I32 | U32, F32 | F16) => self.def(kind_of(to), |d| {
                build::cvt(Some(Rounding::Rn), false, arith_ty(to), arith_ty(from), d, v)
            }),
            (F32 | F16, I32 | U32) => self.def(RegKind::B32, |d| {
                build::cvt(Some(Rounding::Rzi), false, arith_ty(to), arith_ty(from), d, v)
            }),
            (F32, F16) => self.def(RegKind::B16, |d| {
                build::cvt(Some(Rounding::Rn), false, PT::F16, PT::F32, d, v)
            }),
            (F16, F32) => {
                self.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, v))
            }
            _ => return Err(self.internal("conversion")),
        })
    }

    /// `a << b` or `a >> b` on integer scalar `s` (32 or 64 bits) with WGSL's shift amount
    /// (a `u32`, masked to the bit width); `>>` is arithmetic on signed `s`.
    pub(crate) fn wgsl_shift(&mut self, op: B, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        let wide = s.is_64();
        let (mask, kind) = if wide { (63, RegKind::B64) } else { (31, RegKind::B32) };
        // A constant amount is masked here (the `and` of two immediates would reach the PTX).
        let m: Operand = match self.consts.get(&b) {
            Some(&c) => Operand::Imm(i64::from(c & mask)),
            None => self.binop(Opcode::And, &[], PT::B32, b, Operand::Imm(i64::from(mask))).into(),
        };
        let st = match (op, s) {
            (B::ShiftLeft, _) if wide => PT::B64,
            (B::ShiftLeft, _) => PT::B32,
            (_, Scalar::I64) => PT::S64,
            (_, Scalar::I32) => PT::S32,
            _ if wide => PT::U64,
            _ => PT::U32,
        };
        let name = if op == B::ShiftLeft { Opcode::Shl } else { Opcode::Shr };
        self.def(kind, |d| build::binary(name, &[], st, d, a, m))
    }

    /// A comparison operator as `setp` of type `t` (any width); float `!=` is the unordered
    /// `neu`, so NaN compares unequal as WGSL requires.
    pub(crate) fn wgsl_compare(
        &mut self,
        op: B,
        float: bool,
        t: PT,
        a: VRegId,
        b: VRegId,
    ) -> VRegId {
        let cmp = match op {
            B::Equal => CmpOp::Eq,
            B::NotEqual if float => CmpOp::Neu,
            B::NotEqual => CmpOp::Ne,
            B::Less => CmpOp::Lt,
            B::LessEqual => CmpOp::Le,
            B::Greater => CmpOp::Gt,
            _ => CmpOp::Ge,
        };
        self.def(RegKind::Pred, |p| build::setp(cmp, t, p, a, b))
    }

    /// `setp.cmp.ty p, a, b` on scalar `s`.
    pub(crate) fn bin_setp(&mut self, cmp: CmpOp, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        self.def(RegKind::Pred, |p| build::setp(cmp, arith_ty(s), p, a, b))
    }

    pub(crate) fn bitcast(
        &mut self,
        a: dianran_frontend::ir::ValueId,
        ty: TypeId,
    ) -> R<Vec<VRegId>> {
        let c = self.comps(a)?;
        let from = self.scalar_ty(a)?;
        let to = self.types.scalar_of(ty).ok_or_else(|| self.internal("bitcast type"))?;
        let n = layout::leaf_count(&self.types, ty);
        if from.is_64() || to.is_64() {
            return self.bitcast64(from, to, c, n);
        }
        match (from == Scalar::F16, to == Scalar::F16) {
            (false, false) if n == c.len() => Ok(c),
            (true, true) if n == c.len() => Ok(c),
            (true, false) if c.len() == 2 * n => Ok(self.pack_pairs(RegKind::B32, PT::B32, &c)),
            (false, true) if n == 2 * c.len() => Ok(self.unpack_halves(RegKind::B16, PT::B32, &c)),
            _ => Err(self.internal("bitcast shapes")),
        }
    }

    /// Bitcast's packing step: each pair of `c` (low half first) as one register of the
    /// doubled width (`kind`, moved as `ty`); `c` has an even length.
    pub(crate) fn pack_pairs(&mut self, kind: RegKind, ty: PT, c: &[VRegId]) -> Vec<VRegId> {
        c.chunks(2).map(|p| self.def(kind, |d| build::pack(ty, d, &[p[0], p[1]]))).collect()
    }

    /// Bitcast's splitting step, the inverse of [`Self::pack_pairs`]: each register of `c`
    /// (moved as `ty`) as its low and high halves, new `half` registers, low first.
    pub(crate) fn unpack_halves(&mut self, half: RegKind, ty: PT, c: &[VRegId]) -> Vec<VRegId> {
        let mut out = Vec::with_capacity(2 * c.len());
        for &v in c {
            let lo = self.mf.new_vreg(half);
            let hi = self.mf.new_vreg(half);
            self.push(build::unpack(ty, &[lo, hi], v));
            out.extend([lo, hi]);
        }
        out
    }

    /// Component-wise application of `f` over the arguments' components.
    pub(crate) fn per_comp(
        &mut self,
        args: &[dianran_frontend::ir::ValueId],
        mut f: impl FnMut(&mut Self, Scalar, &[VRegId]) -> R<VRegId>,
    ) -> R<Vec<VRegId>> {
        let first = *args.first().ok_or_else(|| self.internal("math without arguments"))?;
        let s = self.scalar_ty(first)?;
        let lists: Vec<Vec<VRegId>> = args.iter().map(|a| self.comps(*a)).collect::<R<_>>()?;
        let n = lists.iter().map(|l| l.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        for i in 0..n {
            let xs: Vec<VRegId> = lists
                .iter()
                .map(|l| if l.len() == 1 { l[0] } else { l[i.min(l.len() - 1)] })
                .collect();
            out.push(f(self, s, &xs)?);
        }
        Ok(out)
    }

    /// Applies an f32-only operation to f32 or f16 (through f32).
    pub(crate) fn via_f32(
        &mut self,
        s: Scalar,
        xs: &[VRegId],
        f: impl FnOnce(&mut Self, &[VRegId]) -> VRegId,
    ) -> VRegId {
        let ys: Vec<VRegId> = xs.iter().map(|&x| self.widen_f16(s, x)).collect();
        let r = f(self, &ys);
        self.narrow_f16(s, r)
    }
}

/// `1/c` when it is exact and normal, i.e. `c` is a power of two in [2^-126, 2^126] (of
/// either sign), so that `x / c` and `x * (1/c)` are the same operation.
pub(crate) fn exact_recip(c: f32) -> Option<f32> {
    let b = c.to_bits() & 0x7FFF_FFFF;
    let exp = b >> 23;
    (b & 0x7F_FFFF == 0 && (1..=253).contains(&exp)).then(|| 1.0 / c)
}
