//! Pure value operations: operators with WGSL's semantics spelled out in IR (integer division
//! by zero and `i32::MIN / -1`, shift-amount masking, saturating float-to-int conversion),
//! composites, conversions and bitcasts.

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{
    BinaryOperator as B, Op, RelationalFunction, Scalar, Type, TypeId, Types, UnaryOperator as U,
    ValueId,
};
use dianran_frontend::{DiagKind, Diagnostic};
use dianran_ptx::abi::layout;
use dianran_ptx::lowering_common::{self, CoopShape, ScalarLowering};
use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

/// The shared composite steps emit `icmp eq` index tests and `select`s.
impl<'ctx> ScalarLowering for Lower<'_, 'ctx> {
    type Value = V<'ctx>;
    type Pred = IntValue<'ctx>;
    type Addr = inkwell::values::PointerValue<'ctx>;
    type Space = crate::lower::Space;

    fn types_mut(&mut self) -> &mut Types {
        &mut self.types
    }
    fn value_ty(&self, v: ValueId) -> TypeId {
        self.ty(v)
    }
    fn value_comps(&self, v: ValueId) -> R<Vec<V<'ctx>>> {
        self.comps(v)
    }
    fn diagnostic(&self, kind: DiagKind, what: &str) -> Diagnostic {
        if kind != DiagKind::Internal {
            return crate::lower::unsupported(what, &self.entry, self.span);
        }
        Diagnostic::error(DiagKind::Internal, format!("LLVM backend: {what}"))
            .at(self.span)
            .in_fn(self.entry.clone())
            .help("this is a bug in dianran's LLVM backend; please report it with the input file")
    }
    fn coop_layout(&self, ty: TypeId) -> R<CoopShape> {
        let help =
            "PTX has no exact f32 tensor-core product; dianran's own PTX backend computes them \
             on TF32 tensor cores with --tf32";
        lowering_common::coop_shape(self, &self.types, ty, false, help)
    }
    fn as_pred(&self, v: V<'ctx>) -> IntValue<'ctx> {
        v.into_int_value()
    }
    fn index_is(&mut self, i: V<'ctx>, e: u32) -> R<IntValue<'ctx>> {
        let i = i.into_int_value();
        self.ok(self.b.build_int_compare(IntPredicate::EQ, i, self.u32c(e), ""))
    }
    fn mul_comp(&mut self, s: Scalar, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        self.binary_scalar(B::Multiply, s, a, b)
    }
    fn dot_comps(&mut self, s: Scalar, a: &[V<'ctx>], b: &[V<'ctx>]) -> R<V<'ctx>> {
        self.dot(s, a, b)
    }
    fn zero_comp(&mut self, s: Scalar) -> V<'ctx> {
        self.const_of(s, 0.0)
    }
    fn select_comp(&mut self, _: Scalar, p: IntValue<'ctx>, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        self.select(p, a, b)
    }
}

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// A value operation (no memory, no control flow) producing a value of type `ty`.
    pub(crate) fn value_components(&mut self, op: &Op, ty: TypeId) -> R<Vec<V<'ctx>>> {
        if let Some(r) = lowering_common::composite_op(self, op, ty) {
            return r;
        }
        match op {
            Op::Const(c) => self.const_comps(c),
            Op::Unary(u, a) => {
                lowering_common::per_component(self, *a, |l, s, v| l.unary(*u, s, v))
            }
            Op::Binary(b, x, y) => self.binary(*b, *x, *y),
            Op::Convert(a, to) => {
                lowering_common::per_component(self, *a, |l, s, v| l.convert(s, *to, v))
            }
            Op::Bitcast(a) => self.bitcast(*a, ty),
            Op::Relational(f, a) => {
                let c = self.comps(*a)?;
                match f {
                    RelationalFunction::All | RelationalFunction::Any => {
                        let mut acc = c
                            .first()
                            .ok_or_else(|| self.internal("empty vector"))?
                            .into_int_value();
                        for x in &c[1..] {
                            let x = x.into_int_value();
                            acc = if *f == RelationalFunction::All {
                                self.ok(self.b.build_and(acc, x, ""))?
                            } else {
                                self.ok(self.b.build_or(acc, x, ""))?
                            };
                        }
                        Ok(vec![acc.into()])
                    }
                    RelationalFunction::IsNan => c
                        .into_iter()
                        .map(|v| {
                            let v = v.into_float_value();
                            Ok(self
                                .ok(self.b.build_float_compare(FloatPredicate::UNO, v, v, ""))?
                                .into())
                        })
                        .collect(),
                    RelationalFunction::IsInf => c
                        .into_iter()
                        .map(|v| {
                            let v = v.into_float_value();
                            let a = self.fabs(v)?;
                            let inf = a.get_type().const_float(f64::INFINITY);
                            Ok(self
                                .ok(self.b.build_float_compare(FloatPredicate::OEQ, a, inf, ""))?
                                .into())
                        })
                        .collect(),
                }
            }
            Op::Math(f, args) => self.math(*f, args, ty),
            Op::SubgroupBallot(_) | Op::SubgroupCollective { .. } | Op::SubgroupGather { .. } => {
                dianran_ptx::lowering_common::subgroup_op(self, op)
            }
            _ => Err(self.unsupported("this operation")),
        }
    }

    /// `p ? a : b`.
    pub(crate) fn select(&self, p: IntValue<'ctx>, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        self.ok(self.b.build_select(p, a, b, ""))
    }

    /// `llvm.fabs`.
    pub(crate) fn fabs(&self, v: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let name =
            if v.get_type() == self.cx.f16_type() { "llvm.fabs.f16" } else { "llvm.fabs.f32" };
        Ok(self.call_v(name, v.get_type().into(), &[v.into()])?.into_float_value())
    }

    fn unary(&mut self, u: U, s: Scalar, v: V<'ctx>) -> R<V<'ctx>> {
        Ok(match (u, s) {
            (U::LogicalNot | U::BitwiseNot, _) if !s.is_float() => {
                self.ok(self.b.build_not(v.into_int_value(), ""))?.into()
            }
            (U::Negate, Scalar::F32 | Scalar::F16) => {
                self.ok(self.b.build_float_neg(v.into_float_value(), ""))?.into()
            }
            (U::Negate, _) => self.ok(self.b.build_int_neg(v.into_int_value(), ""))?.into(),
            _ => return Err(self.internal("unary operator on this type")),
        })
    }

    fn binary(&mut self, op: B, x: ValueId, y: ValueId) -> R<Vec<V<'ctx>>> {
        let xt = self.types.get(self.ty(x)).clone();
        let yt = self.types.get(self.ty(y)).clone();
        let s = self.scalar_ty(x)?;
        if op == B::Multiply {
            let is_mat = |t: &Type| matches!(t, Type::Matrix { .. });
            if is_mat(&xt) || is_mat(&yt) {
                return lowering_common::linear_mul(self, x, y, &xt, &yt);
            }
        }
        let mut a = self.comps(x)?;
        let mut b = self.comps(y)?;
        // vector * scalar and scalar * vector.
        if b.len() == 1 && a.len() > 1 {
            b = vec![b[0]; a.len()];
        }
        if a.len() == 1 && b.len() > 1 {
            a = vec![a[0]; b.len()];
        }
        if a.len() != b.len() {
            return Err(self.internal("binary operand shapes differ"));
        }
        a.into_iter().zip(b).map(|(p, q)| self.binary_scalar(op, s, p, q)).collect()
    }

    pub(crate) fn binary_scalar(&mut self, op: B, s: Scalar, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        let bd = &self.b;
        if s.is_float() {
            let (x, y) = (a.into_float_value(), b.into_float_value());
            let cmp =
                |p| -> R<V<'ctx>> { Ok(self.ok(bd.build_float_compare(p, x, y, ""))?.into()) };
            return Ok(match op {
                B::Add => self.ok(bd.build_float_add(x, y, ""))?.into(),
                B::Subtract => self.ok(bd.build_float_sub(x, y, ""))?.into(),
                B::Multiply => self.ok(bd.build_float_mul(x, y, ""))?.into(),
                B::Divide => self.ok(bd.build_float_div(x, y, ""))?.into(),
                B::Modulo => {
                    // WGSL: x - trunc(x / y) * y (as our backend computes it, in f32 for f16).
                    let f32t = self.cx.f32_type();
                    let wide = s == Scalar::F16;
                    let (fx, fy) = if wide {
                        (
                            self.ok(bd.build_float_ext(x, f32t, ""))?,
                            self.ok(bd.build_float_ext(y, f32t, ""))?,
                        )
                    } else {
                        (x, y)
                    };
                    let q = self.ok(bd.build_float_div(fx, fy, ""))?;
                    let q =
                        self.call_v("llvm.trunc.f32", f32t.into(), &[q.into()])?.into_float_value();
                    let m = self.ok(bd.build_float_mul(q, fy, ""))?;
                    let r = self.ok(bd.build_float_sub(fx, m, ""))?;
                    if wide {
                        self.ok(bd.build_float_trunc(r, self.cx.f16_type(), ""))?.into()
                    } else {
                        r.into()
                    }
                }
                B::Equal => cmp(FloatPredicate::OEQ)?,
                B::NotEqual => cmp(FloatPredicate::UNE)?,
                B::Less => cmp(FloatPredicate::OLT)?,
                B::LessEqual => cmp(FloatPredicate::OLE)?,
                B::Greater => cmp(FloatPredicate::OGT)?,
                B::GreaterEqual => cmp(FloatPredicate::OGE)?,
                _ => return Err(self.internal("bit operator on floats")),
            });
        }
        let (x, y) = (a.into_int_value(), b.into_int_value());
        let signed = s == Scalar::I32;
        let cmp = |p| -> R<V<'ctx>> { Ok(self.ok(bd.build_int_compare(p, x, y, ""))?.into()) };
        Ok(match op {
            B::Add => self.ok(bd.build_int_add(x, y, ""))?.into(),
            B::Subtract => self.ok(bd.build_int_sub(x, y, ""))?.into(),
            B::Multiply => self.ok(bd.build_int_mul(x, y, ""))?.into(),
            B::Divide | B::Modulo => {
                let d = self.safe_divisor(signed, x, y)?;
                match (op, signed) {
                    (B::Divide, true) => self.ok(bd.build_int_signed_div(x, d, ""))?.into(),
                    (B::Divide, false) => self.ok(bd.build_int_unsigned_div(x, d, ""))?.into(),
                    (_, true) => self.ok(bd.build_int_signed_rem(x, d, ""))?.into(),
                    (_, false) => self.ok(bd.build_int_unsigned_rem(x, d, ""))?.into(),
                }
            }
            B::Equal => cmp(IntPredicate::EQ)?,
            B::NotEqual => cmp(IntPredicate::NE)?,
            B::Less => cmp(if signed { IntPredicate::SLT } else { IntPredicate::ULT })?,
            B::LessEqual => cmp(if signed { IntPredicate::SLE } else { IntPredicate::ULE })?,
            B::Greater => cmp(if signed { IntPredicate::SGT } else { IntPredicate::UGT })?,
            B::GreaterEqual => cmp(if signed { IntPredicate::SGE } else { IntPredicate::UGE })?,
            B::And | B::LogicalAnd => self.ok(bd.build_and(x, y, ""))?.into(),
            B::InclusiveOr | B::LogicalOr => self.ok(bd.build_or(x, y, ""))?.into(),
            B::ExclusiveOr => self.ok(bd.build_xor(x, y, ""))?.into(),
            B::ShiftLeft | B::ShiftRight => {
                // WGSL masks the shift amount to the bit width; LLVM's shifts are poison past it.
                let m = self.ok(bd.build_and(y, self.u32c(31), ""))?;
                if op == B::ShiftLeft {
                    self.ok(bd.build_left_shift(x, m, ""))?.into()
                } else {
                    self.ok(bd.build_right_shift(x, m, signed, ""))?.into()
                }
            }
        })
    }

    /// The divisor WGSL division uses: 1 where the machine result would differ or LLVM's would
    /// be undefined (division by zero: `a / 1 = a`, `a % 1 = 0`; `i32::MIN / -1`).
    fn safe_divisor(
        &self,
        signed: bool,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
    ) -> R<IntValue<'ctx>> {
        let bd = &self.b;
        let zero = self.ok(bd.build_int_compare(IntPredicate::EQ, b, self.u32c(0), ""))?;
        let bad = if signed {
            let m1 = self.ok(bd.build_int_compare(IntPredicate::EQ, b, self.u32c(u32::MAX), ""))?;
            let mn =
                self.ok(bd.build_int_compare(IntPredicate::EQ, a, self.u32c(0x8000_0000), ""))?;
            let both = self.ok(bd.build_and(m1, mn, ""))?;
            self.ok(bd.build_or(zero, both, ""))?
        } else {
            zero
        };
        Ok(self.ok(bd.build_select(bad, self.u32c(1), b, ""))?.into_int_value())
    }

    /// Dot product: each product and sum rounded on its own, as our backend computes it (a
    /// fused `dot` is an explicit `fma` chain in the SSA, `docs/math.md`, "Contraction").
    pub(crate) fn dot(&mut self, s: Scalar, a: &[V<'ctx>], b: &[V<'ctx>]) -> R<V<'ctx>> {
        if a.is_empty() || b.is_empty() {
            return Ok(self.const_of(s, 0.0));
        }
        let mut acc = self.binary_scalar(B::Multiply, s, a[0], b[0])?;
        for i in 1..a.len().min(b.len()) {
            let p = self.binary_scalar(B::Multiply, s, a[i], b[i])?;
            acc = self.binary_scalar(B::Add, s, acc, p)?;
        }
        Ok(acc)
    }

    /// `llvm.fma` (one rounding).
    pub(crate) fn fma(
        &self,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
        c: FloatValue<'ctx>,
    ) -> R<FloatValue<'ctx>> {
        let name = if a.get_type() == self.cx.f16_type() { "llvm.fma.f16" } else { "llvm.fma.f32" };
        Ok(self
            .call_v(name, a.get_type().into(), &[a.into(), b.into(), c.into()])?
            .into_float_value())
    }

    /// Numeric conversion with WGSL semantics (float to int saturates, NaN to 0).
    pub(crate) fn convert(&mut self, from: Scalar, to: Scalar, v: V<'ctx>) -> R<V<'ctx>> {
        use Scalar::*;
        let bd = &self.b;
        Ok(match (from, to) {
            (a, b) if a == b => v,
            (I32, U32) | (U32, I32) => v,
            (Bool, F32 | F16) => {
                let one = self.const_of(to, 1.0);
                let zero = self.const_of(to, 0.0);
                self.select(v.into_int_value(), one, zero)?
            }
            (Bool, _) => {
                self.ok(bd.build_int_z_extend(v.into_int_value(), self.cx.i32_type(), ""))?.into()
            }
            (I32 | U32, Bool) => self
                .ok(bd.build_int_compare(IntPredicate::NE, v.into_int_value(), self.u32c(0), ""))?
                .into(),
            (F32 | F16, Bool) => {
                let x = v.into_float_value();
                let z = x.get_type().const_zero();
                self.ok(bd.build_float_compare(FloatPredicate::UNE, x, z, ""))?.into()
            }
            (I32, F32 | F16) => {
                let t = self.llty(to).into_float_type();
                self.ok(bd.build_signed_int_to_float(v.into_int_value(), t, ""))?.into()
            }
            (U32, F32 | F16) => {
                let t = self.llty(to).into_float_type();
                self.ok(bd.build_unsigned_int_to_float(v.into_int_value(), t, ""))?.into()
            }
            (F32 | F16, I32 | U32) => {
                let x = v.into_float_value();
                let src = if from == F16 { "f16" } else { "f32" };
                let name = if to == I32 {
                    format!("llvm.fptosi.sat.i32.{src}")
                } else {
                    format!("llvm.fptoui.sat.i32.{src}")
                };
                self.call_v(&name, self.cx.i32_type().into(), &[x.into()])?
            }
            (F32, F16) => {
                self.ok(bd.build_float_trunc(v.into_float_value(), self.cx.f16_type(), ""))?.into()
            }
            (F16, F32) => {
                self.ok(bd.build_float_ext(v.into_float_value(), self.cx.f32_type(), ""))?.into()
            }
            _ => return Err(self.internal("conversion")),
        })
    }

    fn bitcast(&mut self, a: ValueId, ty: TypeId) -> R<Vec<V<'ctx>>> {
        let c = self.comps(a)?;
        let from = self.scalar_ty(a)?;
        let to = self.types.scalar_of(ty).ok_or_else(|| self.internal("bitcast type"))?;
        let n = layout::leaf_count(&self.types, ty);
        let bd = &self.b;
        let (i16t, i32t) = (self.cx.i16_type(), self.cx.i32_type());
        match (from == Scalar::F16, to == Scalar::F16) {
            (false, false) | (true, true) if n == c.len() => {
                let t = self.llty(to);
                c.into_iter()
                    .map(|v| {
                        if v.get_type() == t {
                            Ok(v)
                        } else {
                            self.ok(bd.build_bit_cast(v, t, ""))
                        }
                    })
                    .collect()
            }
            (true, false) if c.len() == 2 * n => {
                let t = self.llty(to);
                c.chunks(2)
                    .map(|p| {
                        let lo = self.ok(bd.build_bit_cast(p[0], i16t, ""))?.into_int_value();
                        let hi = self.ok(bd.build_bit_cast(p[1], i16t, ""))?.into_int_value();
                        let lo = self.ok(bd.build_int_z_extend(lo, i32t, ""))?;
                        let hi = self.ok(bd.build_int_z_extend(hi, i32t, ""))?;
                        let hi = self.ok(bd.build_left_shift(hi, self.u32c(16), ""))?;
                        let w = self.ok(bd.build_or(lo, hi, ""))?;
                        self.ok(bd.build_bit_cast(w, t, ""))
                    })
                    .collect()
            }
            (false, true) if n == 2 * c.len() => {
                let h = self.cx.f16_type();
                let mut out = Vec::new();
                for v in c {
                    let w = self.ok(bd.build_bit_cast(v, i32t, ""))?.into_int_value();
                    let lo = self.ok(bd.build_int_truncate(w, i16t, ""))?;
                    let hi = self.ok(bd.build_right_shift(w, self.u32c(16), false, ""))?;
                    let hi = self.ok(bd.build_int_truncate(hi, i16t, ""))?;
                    out.push(self.ok(bd.build_bit_cast(lo, h, ""))?);
                    out.push(self.ok(bd.build_bit_cast(hi, h, ""))?);
                }
                Ok(out)
            }
            _ => Err(self.internal("bitcast shapes")),
        }
    }
}
