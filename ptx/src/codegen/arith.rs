//! Selection of pure value operations: arithmetic with WGSL semantics (SPEC §3), conversions,
//! composites, relational functions and the math library, one scalar component at a time.

use super::layout::{self, arith_ty, kind_of};
use super::lower::Lower;
use super::mathops::Opnd;
use super::regalloc::{RegKind, Target, Term, VRegId};
use crate::math;
use dianran_frontend::ir::{
    BinaryOperator as B, MathFunction as M, Op, RelationalFunction, Scalar, Type, TypeId,
    UnaryOperator as U,
};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// Whether `fun` is lowered to an approximation under `--fast-math` (everything the precise
/// library covers, plus `normalize` through `rsqrt.approx`).
fn approximate_under_fast_math(fun: M) -> bool {
    math::FUNCTIONS.contains(&fun) || fun == M::Normalize
}

/// atan(t) ~ t * P(t^2) on [0, 1], highest power first (the odd minimax polynomial of the Cg
/// reference implementation; max error about 1e-6 rad, checked by a test against `f64::atan`).
const ATAN_COEFFS: [f32; 6] =
    [-0.013_480_47, 0.057_477_314, -0.121_239_07, 0.195_635_93, -0.332_994_6, 0.999_995_6];

impl Lower<'_> {
    /// Lowers a pure operation producing a value of type `ty`.
    pub(crate) fn value_op(&mut self, op: &Op, ty: TypeId) -> R<Vec<VRegId>> {
        match op {
            Op::Const(c) => self.const_comps(c, ty),
            Op::Unary(u, a) => {
                let s = self.scalar_ty(*a)?;
                let c = self.comps(*a)?;
                c.into_iter().map(|v| self.unary(*u, s, v)).collect()
            }
            Op::Binary(b, x, y) => self.binary(*b, *x, *y, ty),
            Op::Select { cond, accept, reject } => {
                let c = self.comps(*cond)?;
                let a = self.comps(*accept)?;
                let r = self.comps(*reject)?;
                let s = self.scalar_ty(*accept).unwrap_or(Scalar::U32);
                let mut out = Vec::new();
                for (i, &ai) in a.iter().enumerate() {
                    let p = if c.len() == 1 {
                        c[0]
                    } else {
                        *c.get(i).ok_or_else(|| self.err_internal("select shape"))?
                    };
                    let rr = *r.get(i).ok_or_else(|| self.err_internal("select shape"))?;
                    out.push(self.select(s, p, ai, rr));
                }
                Ok(out)
            }
            Op::Compose(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend(self.comps(*p)?);
                }
                if out.len() != layout::leaf_count(&self.types, ty) {
                    return Err(self.err_internal("compose shape"));
                }
                Ok(out)
            }
            Op::Splat(a) => {
                let v = self.scalar(*a)?;
                Ok(vec![v; layout::leaf_count(&self.types, ty)])
            }
            Op::Extract(a, i) => {
                let c = self.comps(*a)?;
                let aty = self.ty(*a);
                let (r, _) = layout::member_range(&mut self.types, aty, *i)
                    .ok_or_else(|| self.err_internal("extract index"))?;
                c.get(r).map(|s| s.to_vec()).ok_or_else(|| self.err_internal("extract range"))
            }
            Op::Swizzle(a, pat) => {
                let c = self.comps(*a)?;
                pat.iter()
                    .map(|&i| {
                        c.get(i as usize).copied().ok_or_else(|| self.err_internal("swizzle index"))
                    })
                    .collect()
            }
            Op::Insert { base, index, value } => {
                let mut c = self.comps(*base)?;
                let v = self.comps(*value)?;
                let bty = self.ty(*base);
                let (r, _) = layout::member_range(&mut self.types, bty, *index)
                    .ok_or_else(|| self.err_internal("insert index"))?;
                if r.len() != v.len() || r.end > c.len() {
                    return Err(self.err_internal("insert shape"));
                }
                c.splice(r, v);
                Ok(c)
            }
            Op::ExtractDyn(a, idx) => {
                let (elems, ety) = self.elements(*a)?;
                let i = self.scalar(*idx)?;
                let s = self.types.scalar_of(ety).unwrap_or(Scalar::U32);
                let el = layout::leaves(&self.types, ety).unwrap_or_default();
                let n = elems.len();
                let Some(last) = elems.last().cloned() else {
                    return Err(self.err_internal("empty composite"));
                };
                let mut out = last;
                for e in (0..n.saturating_sub(1)).rev() {
                    let p = self.op1(
                        RegKind::Pred,
                        format!("setp.eq.u32 {{d0}}, {{u0}}, {e}"),
                        vec![i],
                    );
                    for j in 0..out.len() {
                        let sj = el.get(j).map_or(s, |l| l.scalar);
                        out[j] = self.select(sj, p, elems[e][j], out[j]);
                    }
                }
                Ok(out)
            }
            Op::InsertDyn { base, index, value } => {
                let (elems, ety) = self.elements(*base)?;
                let i = self.scalar(*index)?;
                let v = self.comps(*value)?;
                let el = layout::leaves(&self.types, ety).unwrap_or_default();
                let mut out = Vec::new();
                for (e, comps) in elems.iter().enumerate() {
                    let p = self.op1(
                        RegKind::Pred,
                        format!("setp.eq.u32 {{d0}}, {{u0}}, {e}"),
                        vec![i],
                    );
                    for (j, &c) in comps.iter().enumerate() {
                        let sj = el.get(j).map_or(Scalar::U32, |l| l.scalar);
                        let nv = *v.get(j).ok_or_else(|| self.err_internal("insert shape"))?;
                        out.push(self.select(sj, p, nv, c));
                    }
                }
                Ok(out)
            }
            Op::Convert(a, to) => {
                let s = self.scalar_ty(*a)?;
                let c = self.comps(*a)?;
                c.into_iter().map(|v| self.convert(s, *to, v)).collect()
            }
            Op::Bitcast(a) => self.bitcast(*a, ty),
            Op::Relational(f, a) => {
                let s = self.scalar_ty(*a)?;
                let c = self.comps(*a)?;
                match f {
                    RelationalFunction::All | RelationalFunction::Any => {
                        let name = if *f == RelationalFunction::All { "and" } else { "or" };
                        let mut acc =
                            *c.first().ok_or_else(|| self.err_internal("empty vector"))?;
                        for &x in &c[1..] {
                            acc = self.op1(
                                RegKind::Pred,
                                format!("{name}.pred {{d0}}, {{u0}}, {{u1}}"),
                                vec![acc, x],
                            );
                        }
                        Ok(vec![acc])
                    }
                    RelationalFunction::IsNan | RelationalFunction::IsInf => {
                        let t = if *f == RelationalFunction::IsNan { "nan" } else { "infinite" };
                        c.into_iter()
                            .map(|v| {
                                let v = self.widen_f16(s, v);
                                Ok(self.op1(
                                    RegKind::Pred,
                                    format!("testp.{t}.f32 {{d0}}, {{u0}}"),
                                    vec![v],
                                ))
                            })
                            .collect()
                    }
                }
            }
            Op::Math(f, args) => self.math(*f, args, ty),
            Op::SubgroupBallot(_) | Op::SubgroupCollective { .. } | Op::SubgroupGather { .. } => {
                self.subgroup(op, ty)
            }
            _ => Err(self.err_unsupported("this operation")),
        }
    }

    /// Splits a vector/matrix/array value into its elements' components.
    fn elements(&mut self, v: dianran_frontend::ir::ValueId) -> R<(Vec<Vec<VRegId>>, TypeId)> {
        let c = self.comps(v)?;
        let vty = self.ty(v);
        let (_, ety, len) = layout::element_stride(&mut self.types, vty)
            .ok_or_else(|| self.err_internal("dynamic index into a non-indexable value"))?;
        let n = len.ok_or_else(|| self.err_internal("runtime-sized value"))? as usize;
        let per = layout::leaf_count(&self.types, ety);
        if per * n != c.len() || n == 0 {
            return Err(self.err_internal("composite shape"));
        }
        Ok((c.chunks(per).map(|x| x.to_vec()).collect(), ety))
    }

    /// `p ? a : b` for a scalar type.
    pub(crate) fn select(&mut self, s: Scalar, p: VRegId, a: VRegId, b: VRegId) -> VRegId {
        match s {
            Scalar::Bool => {
                let np = self.op1(RegKind::Pred, "not.pred {d0}, {u0}", vec![p]);
                let t1 = self.op1(RegKind::Pred, "and.pred {d0}, {u0}, {u1}", vec![a, p]);
                let t2 = self.op1(RegKind::Pred, "and.pred {d0}, {u0}, {u1}", vec![b, np]);
                self.op1(RegKind::Pred, "or.pred {d0}, {u0}, {u1}", vec![t1, t2])
            }
            Scalar::F16 => self.op1(RegKind::B16, "selp.b16 {d0}, {u0}, {u1}, {u2}", vec![a, b, p]),
            _ => self.op1(RegKind::B32, "selp.b32 {d0}, {u0}, {u1}, {u2}", vec![a, b, p]),
        }
    }

    /// Widens an f16 to f32 (other scalars unchanged).
    pub(crate) fn widen_f16(&mut self, s: Scalar, v: VRegId) -> VRegId {
        if s == Scalar::F16 {
            self.op1(RegKind::B32, "cvt.f32.f16 {d0}, {u0}", vec![v])
        } else {
            v
        }
    }

    /// Narrows an f32 back to f16 when `s` is f16.
    pub(crate) fn narrow_f16(&mut self, s: Scalar, v: VRegId) -> VRegId {
        if s == Scalar::F16 {
            self.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![v])
        } else {
            v
        }
    }

    /// A two-operand instruction `name.ty d, a, b` on scalar `s`.
    pub(crate) fn bin(&mut self, name: &str, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        self.op1(kind_of(s), format!("{name}.{} {{d0}}, {{u0}}, {{u1}}", arith_ty(s)), vec![a, b])
    }

    /// A one-operand instruction `name.ty d, a` on scalar `s`.
    pub(crate) fn un(&mut self, name: &str, s: Scalar, a: VRegId) -> VRegId {
        self.op1(kind_of(s), format!("{name}.{} {{d0}}, {{u0}}", arith_ty(s)), vec![a])
    }

    fn unary(&mut self, u: U, s: Scalar, v: VRegId) -> R<VRegId> {
        Ok(match (u, s) {
            (U::LogicalNot, _) | (U::BitwiseNot, Scalar::Bool) => {
                self.op1(RegKind::Pred, "not.pred {d0}, {u0}", vec![v])
            }
            (U::BitwiseNot, _) => self.op1(RegKind::B32, "not.b32 {d0}, {u0}", vec![v]),
            (U::Negate, Scalar::F32 | Scalar::F16) => self.un("neg", s, v),
            (U::Negate, _) => self.op1(RegKind::B32, "neg.s32 {d0}, {u0}", vec![v]),
        })
    }

    fn binary(
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
                return self.linear_mul(x, y, &xt, &yt);
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
            return Err(self.err_internal("binary operand shapes differ"));
        }
        let _ = ty;
        let mut out = Vec::new();
        for (p, q) in a.into_iter().zip(b) {
            out.push(self.binary_scalar(op, s, p, q)?);
        }
        Ok(out)
    }

    pub(crate) fn binary_scalar(&mut self, op: B, s: Scalar, a: VRegId, b: VRegId) -> R<VRegId> {
        let float = s.is_float();
        let t = arith_ty(s);
        Ok(match op {
            B::Add => self.bin("add", s, a, b),
            B::Subtract if self.inject == Some(super::InjectedBug::SubSwapped) => {
                self.bin("sub", s, b, a)
            }
            B::Subtract => self.bin("sub", s, a, b),
            B::Multiply if float => self.bin("mul", s, a, b),
            B::Multiply => {
                self.op1(RegKind::B32, format!("mul.lo.{t} {{d0}}, {{u0}}, {{u1}}"), vec![a, b])
            }
            B::Divide if s == Scalar::F32 => {
                self.op1(RegKind::B32, "div.rn.f32 {d0}, {u0}, {u1}", vec![a, b])
            }
            B::Divide if float => {
                let (fa, fb) = (self.widen_f16(s, a), self.widen_f16(s, b));
                let q = self.op1(RegKind::B32, "div.rn.f32 {d0}, {u0}, {u1}", vec![fa, fb]);
                self.narrow_f16(s, q)
            }
            B::Divide | B::Modulo if !float => {
                let d = self.safe_divisor(s, a, b);
                let name = if op == B::Divide { "div" } else { "rem" };
                self.op1(RegKind::B32, format!("{name}.{t} {{d0}}, {{u0}}, {{u1}}"), vec![a, d])
            }
            B::Divide | B::Modulo => {
                // x - trunc(x / y) * y, in f32.
                let (fa, fb) = (self.widen_f16(s, a), self.widen_f16(s, b));
                let q = self.op1(RegKind::B32, "div.rn.f32 {d0}, {u0}, {u1}", vec![fa, fb]);
                let q = self.op1(RegKind::B32, "cvt.rzi.f32.f32 {d0}, {u0}", vec![q]);
                let m = self.op1(RegKind::B32, "mul.f32 {d0}, {u0}, {u1}", vec![q, fb]);
                let r = self.op1(RegKind::B32, "sub.f32 {d0}, {u0}, {u1}", vec![fa, m]);
                self.narrow_f16(s, r)
            }
            B::Equal | B::NotEqual if s == Scalar::Bool => {
                let x = self.op1(RegKind::Pred, "xor.pred {d0}, {u0}, {u1}", vec![a, b]);
                if op == B::Equal {
                    self.op1(RegKind::Pred, "not.pred {d0}, {u0}", vec![x])
                } else {
                    x
                }
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                let cmp = match op {
                    B::Equal => "eq",
                    B::NotEqual if float => "neu",
                    B::NotEqual => "ne",
                    B::Less => "lt",
                    B::LessEqual => "le",
                    B::Greater => "gt",
                    _ => "ge",
                };
                self.op1(
                    RegKind::Pred,
                    format!("setp.{cmp}.{t} {{d0}}, {{u0}}, {{u1}}"),
                    vec![a, b],
                )
            }
            B::And | B::LogicalAnd if s == Scalar::Bool => {
                self.op1(RegKind::Pred, "and.pred {d0}, {u0}, {u1}", vec![a, b])
            }
            B::InclusiveOr | B::LogicalOr if s == Scalar::Bool => {
                self.op1(RegKind::Pred, "or.pred {d0}, {u0}, {u1}", vec![a, b])
            }
            B::ExclusiveOr if s == Scalar::Bool => {
                self.op1(RegKind::Pred, "xor.pred {d0}, {u0}, {u1}", vec![a, b])
            }
            B::And => self.op1(RegKind::B32, "and.b32 {d0}, {u0}, {u1}", vec![a, b]),
            B::InclusiveOr => self.op1(RegKind::B32, "or.b32 {d0}, {u0}, {u1}", vec![a, b]),
            B::ExclusiveOr => self.op1(RegKind::B32, "xor.b32 {d0}, {u0}, {u1}", vec![a, b]),
            B::ShiftLeft | B::ShiftRight => {
                let m = self.op1(RegKind::B32, "and.b32 {d0}, {u0}, 31", vec![b]);
                let name = match (op, s) {
                    (B::ShiftLeft, _) => "shl.b32",
                    (_, Scalar::I32) => "shr.s32",
                    _ => "shr.u32",
                };
                self.op1(RegKind::B32, format!("{name} {{d0}}, {{u0}}, {{u1}}"), vec![a, m])
            }
            B::LogicalAnd | B::LogicalOr => {
                return Err(self.err_internal("logical operator on non-bool"))
            }
        })
    }

    /// The divisor WGSL division uses: 1 where the machine result would differ (division by
    /// zero: `a / 1 = a` and `a % 1 = 0`; `i32::MIN / -1`: `MIN / 1 = MIN`, `MIN % 1 = 0`).
    fn safe_divisor(&mut self, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        // A constant divisor other than 0 (and -1 for i32) needs no guard.
        if let Some(&c) = self.consts.get(&b) {
            if c != 0 && !(s == Scalar::I32 && c == u32::MAX) {
                return b;
            }
        }
        let one = self.imm_u32(1);
        let z = self.op1(RegKind::Pred, "setp.eq.u32 {d0}, {u0}, 0", vec![b]);
        let bad = if s == Scalar::I32 {
            let m1 = self.op1(RegKind::Pred, "setp.eq.s32 {d0}, {u0}, -1", vec![b]);
            let mn = self.op1(RegKind::Pred, "setp.eq.u32 {d0}, {u0}, 0x80000000", vec![a]);
            let both = self.op1(RegKind::Pred, "and.pred {d0}, {u0}, {u1}", vec![m1, mn]);
            self.op1(RegKind::Pred, "or.pred {d0}, {u0}, {u1}", vec![z, both])
        } else {
            z
        };
        self.op1(RegKind::B32, "selp.b32 {d0}, {u0}, {u1}, {u2}", vec![one, b, bad])
    }

    /// Matrix products (column-major components).
    fn linear_mul(
        &mut self,
        x: dianran_frontend::ir::ValueId,
        y: dianran_frontend::ir::ValueId,
        xt: &Type,
        yt: &Type,
    ) -> R<Vec<VRegId>> {
        let a = self.comps(x)?;
        let b = self.comps(y)?;
        let s = self.scalar_ty(x)?;
        let shape_err = || self.err_internal("matrix product shapes");
        match (xt, yt) {
            (Type::Matrix { .. }, Type::Scalar(_)) => {
                Ok(a.into_iter().map(|v| self.bin("mul", s, v, b[0])).collect())
            }
            (Type::Scalar(_), Type::Matrix { .. }) => {
                Ok(b.into_iter().map(|v| self.bin("mul", s, a[0], v)).collect())
            }
            (Type::Matrix { columns, rows, .. }, Type::Vector { size, .. }) => {
                let (c, r) = (*columns as usize, *rows as usize);
                if *size as usize != c || a.len() != c * r {
                    return Err(shape_err());
                }
                (0..r)
                    .map(|i| {
                        let col: Vec<VRegId> = (0..c).map(|k| a[k * r + i]).collect();
                        Ok(self.dot(s, &col, &b))
                    })
                    .collect()
            }
            (Type::Vector { size, .. }, Type::Matrix { columns, rows, .. }) => {
                let (c, r) = (*columns as usize, *rows as usize);
                if *size as usize != r || b.len() != c * r {
                    return Err(shape_err());
                }
                (0..c).map(|k| Ok(self.dot(s, &a, &b[k * r..k * r + r]))).collect()
            }
            (
                Type::Matrix { columns: k1, rows: r1, .. },
                Type::Matrix { columns: c2, rows: k2, .. },
            ) => {
                let (k, r, c) = (*k1 as usize, *r1 as usize, *c2 as usize);
                if *k2 as usize != k || a.len() != k * r || b.len() != c * k {
                    return Err(shape_err());
                }
                let mut out = Vec::new();
                for j in 0..c {
                    for i in 0..r {
                        let row: Vec<VRegId> = (0..k).map(|q| a[q * r + i]).collect();
                        out.push(self.dot(s, &row, &b[j * k..j * k + k]));
                    }
                }
                Ok(out)
            }
            _ => Err(shape_err()),
        }
    }

    /// Dot product (mul then fma chain for floats, mad for integers).
    pub(crate) fn dot(&mut self, s: Scalar, a: &[VRegId], b: &[VRegId]) -> VRegId {
        if a.is_empty() || b.is_empty() {
            return self.imm_of(s, 0.0);
        }
        let mut acc = if s.is_float() {
            self.bin("mul", s, a[0], b[0])
        } else {
            self.op1(RegKind::B32, "mul.lo.s32 {d0}, {u0}, {u1}", vec![a[0], b[0]])
        };
        for i in 1..a.len().min(b.len()) {
            acc = if s.is_float() {
                self.op1(
                    kind_of(s),
                    format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                    vec![a[i], b[i], acc],
                )
            } else {
                self.op1(RegKind::B32, "mad.lo.s32 {d0}, {u0}, {u1}, {u2}", vec![a[i], b[i], acc])
            };
        }
        acc
    }

    /// Numeric conversion with WGSL semantics (float -> int saturates, NaN -> 0).
    pub(crate) fn convert(&mut self, from: Scalar, to: Scalar, v: VRegId) -> R<VRegId> {
        use Scalar::*;
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
            (Bool, _) => self.op1(RegKind::B32, "selp.u32 {d0}, 1, 0, {u0}", vec![v]),
            (I32 | U32, Bool) => self.op1(RegKind::Pred, "setp.ne.u32 {d0}, {u0}, 0", vec![v]),
            (F32 | F16, Bool) => {
                let z = self.imm_of(from, 0.0);
                self.bin_setp("neu", from, v, z)
            }
            (I32 | U32, F32 | F16) => self.op1(
                kind_of(to),
                format!("cvt.rn.{}.{} {{d0}}, {{u0}}", arith_ty(to), arith_ty(from)),
                vec![v],
            ),
            (F32 | F16, I32 | U32) => self.op1(
                RegKind::B32,
                format!("cvt.rzi.{}.{} {{d0}}, {{u0}}", arith_ty(to), arith_ty(from)),
                vec![v],
            ),
            (F32, F16) => self.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![v]),
            (F16, F32) => self.op1(RegKind::B32, "cvt.f32.f16 {d0}, {u0}", vec![v]),
            _ => return Err(self.err_internal("conversion")),
        })
    }

    fn bin_setp(&mut self, cmp: &str, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        self.op1(
            RegKind::Pred,
            format!("setp.{cmp}.{} {{d0}}, {{u0}}, {{u1}}", arith_ty(s)),
            vec![a, b],
        )
    }

    fn bitcast(&mut self, a: dianran_frontend::ir::ValueId, ty: TypeId) -> R<Vec<VRegId>> {
        let c = self.comps(a)?;
        let from = self.scalar_ty(a)?;
        let to = self.types.scalar_of(ty).ok_or_else(|| self.err_internal("bitcast type"))?;
        let n = layout::leaf_count(&self.types, ty);
        match (from == Scalar::F16, to == Scalar::F16) {
            (false, false) if n == c.len() => Ok(c),
            (true, true) if n == c.len() => Ok(c),
            (true, false) if c.len() == 2 * n => Ok(c
                .chunks(2)
                .map(|p| self.op1(RegKind::B32, "mov.b32 {d0}, {{u0}, {u1}}", vec![p[0], p[1]]))
                .collect()),
            (false, true) if n == 2 * c.len() => {
                let mut out = Vec::new();
                for v in c {
                    let lo = self.mf.new_vreg(RegKind::B16);
                    let hi = self.mf.new_vreg(RegKind::B16);
                    self.emit("mov.b32 {{d0}, {d1}}, {u0}", vec![lo, hi], vec![v]);
                    out.extend([lo, hi]);
                }
                Ok(out)
            }
            _ => Err(self.err_internal("bitcast shapes")),
        }
    }

    /// Component-wise application of `f` over the arguments' components.
    fn per_comp(
        &mut self,
        args: &[dianran_frontend::ir::ValueId],
        mut f: impl FnMut(&mut Self, Scalar, &[VRegId]) -> R<VRegId>,
    ) -> R<Vec<VRegId>> {
        let first = *args.first().ok_or_else(|| self.err_internal("math without arguments"))?;
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
    fn via_f32(
        &mut self,
        s: Scalar,
        xs: &[VRegId],
        f: impl FnOnce(&mut Self, &[VRegId]) -> VRegId,
    ) -> VRegId {
        let ys: Vec<VRegId> = xs.iter().map(|&x| self.widen_f16(s, x)).collect();
        let r = f(self, &ys);
        self.narrow_f16(s, r)
    }

    fn f(&mut self, text: &str, uses: Vec<VRegId>) -> VRegId {
        self.op1(RegKind::B32, text, uses)
    }

    fn math(
        &mut self,
        fun: M,
        args: &[dianran_frontend::ir::ValueId],
        ty: TypeId,
    ) -> R<Vec<VRegId>> {
        let out_n = layout::leaf_count(&self.types, ty);
        // Validated IR has the right arity; checking it here makes every `args[i]` /
        // `x[i]` below (i < arity) in bounds.
        if args.len() < fun.argument_count() || args.is_empty() {
            return Err(self.err_internal("math function arity"));
        }
        for &a in args {
            if self.comps(a)?.is_empty() {
                return Err(self.err_internal("empty math operand"));
            }
        }
        if self.fast_math {
            if approximate_under_fast_math(fun) {
                self.used_fast_math = true;
            }
        } else if let Some(out) = self.precise_math(fun, args)? {
            return Ok(out);
        }
        match fun {
            M::Abs => self.per_comp(args, |l, s, x| {
                Ok(match s {
                    Scalar::F32 | Scalar::F16 => l.un("abs", s, x[0]),
                    Scalar::I32 => l.un("abs", s, x[0]),
                    _ => x[0],
                })
            }),
            M::Min | M::Max => {
                let name = if fun == M::Min { "min" } else { "max" };
                self.per_comp(args, |l, s, x| Ok(l.bin(name, s, x[0], x[1])))
            }
            M::Clamp => self.per_comp(args, |l, s, x| {
                let t = l.bin("max", s, x[0], x[1]);
                Ok(l.bin("min", s, t, x[2]))
            }),
            M::Saturate => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("cvt.sat.f32.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Sqrt => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("sqrt.rn.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::InverseSqrt => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("rsqrt.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Exp2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("ex2.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Log2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Exp => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.exp_f32(y[0])))),
            M::Log => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let k = l.imm_f32(std::f32::consts::LN_2);
                    l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, k])
                }))
            }),
            M::Pow => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let t = l.f("mul.f32 {d0}, {u0}, {u1}", vec![y[1], t]);
                    l.f("ex2.approx.f32 {d0}, {u0}", vec![t])
                }))
            }),
            M::Sin | M::Cos => {
                let name = if fun == M::Sin { "sin" } else { "cos" };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        l.f(&format!("{name}.approx.f32 {{d0}}, {{u0}}"), vec![y[0]])
                    }))
                })
            }
            M::Tan => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let sn = l.f("sin.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let cs = l.f("cos.approx.f32 {d0}, {u0}", vec![y[0]]);
                    l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![sn, cs])
                }))
            }),
            M::Tanh => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("tanh.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Sinh | M::Cosh => {
                let sign = if fun == M::Sinh { "sub" } else { "add" };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        let e = l.exp_f32(y[0]);
                        let n = l.f("neg.f32 {d0}, {u0}", vec![y[0]]);
                        let en = l.exp_f32(n);
                        let t = l.f(&format!("{sign}.f32 {{d0}}, {{u0}}, {{u1}}"), vec![e, en]);
                        let h = l.imm_f32(0.5);
                        l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, h])
                    }))
                })
            }
            M::Atan => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.atan_f32(y[0])))),
            M::Atan2 => {
                self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.atan2_f32(y[0], y[1]))))
            }
            M::Asin | M::Acos => {
                let is_asin = fun == M::Asin;
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        // asin(x) = atan2(x, sqrt(1 - x^2)); acos(x) = atan2(sqrt(1 - x^2), x).
                        let one = l.imm_f32(1.0);
                        let nx = l.f("neg.f32 {d0}, {u0}", vec![y[0]]);
                        let t = l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![nx, y[0], one]);
                        let r = l.f("sqrt.rn.f32 {d0}, {u0}", vec![t]);
                        if is_asin {
                            l.atan2_f32(y[0], r)
                        } else {
                            l.atan2_f32(r, y[0])
                        }
                    }))
                })
            }
            M::Asinh | M::Acosh | M::Atanh => {
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        let one = l.imm_f32(1.0);
                        let arg = match fun {
                            // ln(x + sqrt(x^2 ± 1))
                            M::Asinh | M::Acosh => {
                                let sq = if fun == M::Asinh {
                                    l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![y[0], y[0], one])
                                } else {
                                    let m1 = l.imm_f32(-1.0);
                                    l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![y[0], y[0], m1])
                                };
                                let r = l.f("sqrt.rn.f32 {d0}, {u0}", vec![sq]);
                                l.f("add.f32 {d0}, {u0}, {u1}", vec![y[0], r])
                            }
                            // 0.5 ln((1 + x) / (1 - x))
                            _ => {
                                let a = l.f("add.f32 {d0}, {u0}, {u1}", vec![one, y[0]]);
                                let b = l.f("sub.f32 {d0}, {u0}, {u1}", vec![one, y[0]]);
                                l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![a, b])
                            }
                        };
                        let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![arg]);
                        let k = if fun == M::Atanh {
                            0.5 * std::f32::consts::LN_2
                        } else {
                            std::f32::consts::LN_2
                        };
                        let k = l.imm_f32(k);
                        l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, k])
                    }))
                })
            }
            M::Radians | M::Degrees => {
                let k = if fun == M::Radians {
                    std::f64::consts::PI / 180.0
                } else {
                    180.0 / std::f64::consts::PI
                };
                self.per_comp(args, |l, s, x| {
                    let kk = l.imm_of(s, k);
                    Ok(l.bin("mul", s, x[0], kk))
                })
            }
            M::Floor | M::Ceil | M::Round | M::Trunc => {
                let r = match fun {
                    M::Floor => "rmi",
                    M::Ceil => "rpi",
                    M::Round => "rni",
                    _ => "rzi",
                };
                self.per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    Ok(l.op1(kind_of(s), format!("cvt.{r}.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]))
                })
            }
            M::Fract => self.per_comp(args, |l, s, x| {
                let t = arith_ty(s);
                let fl = l.op1(kind_of(s), format!("cvt.rmi.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]);
                Ok(l.bin("sub", s, x[0], fl))
            }),
            M::Fma => self.per_comp(args, |l, s, x| {
                Ok(l.op1(
                    kind_of(s),
                    format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                    x.to_vec(),
                ))
            }),
            M::Mix => self.per_comp(args, |l, s, x| {
                let d = l.bin("sub", s, x[1], x[0]);
                Ok(l.op1(
                    kind_of(s),
                    format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                    vec![d, x[2], x[0]],
                ))
            }),
            M::Step => self.per_comp(args, |l, s, x| {
                let p = l.bin_setp("ge", s, x[1], x[0]);
                let one = l.imm_of(s, 1.0);
                let zero = l.imm_of(s, 0.0);
                Ok(l.select(s, p, one, zero))
            }),
            M::SmoothStep => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let num = l.f("sub.f32 {d0}, {u0}, {u1}", vec![y[2], y[0]]);
                    let den = l.f("sub.f32 {d0}, {u0}, {u1}", vec![y[1], y[0]]);
                    let t = l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![num, den]);
                    let t = l.f("cvt.sat.f32.f32 {d0}, {u0}", vec![t]);
                    let m2 = l.imm_f32(-2.0);
                    let three = l.imm_f32(3.0);
                    let k = l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![m2, t, three]);
                    let tt = l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, t]);
                    l.f("mul.f32 {d0}, {u0}, {u1}", vec![tt, k])
                }))
            }),
            M::Sign => self.per_comp(args, |l, s, x| {
                let zero = l.imm_of(s, 0.0);
                let one = l.imm_of(s, 1.0);
                let m1 = l.imm_of(s, -1.0);
                let gt = l.bin_setp("gt", s, x[0], zero);
                let lt = l.bin_setp("lt", s, x[0], zero);
                let a = l.select(s, lt, m1, x[0]);
                let a = if s.is_float() { a } else { l.select(s, lt, m1, zero) };
                Ok(l.select(s, gt, one, a))
            }),
            M::Dot => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let b = self.comps(*args.get(1).ok_or_else(|| self.err_internal("dot arity"))?)?;
                Ok(vec![self.dot(s, &a, &b)])
            }
            M::Cross => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let b =
                    self.comps(*args.get(1).ok_or_else(|| self.err_internal("cross arity"))?)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(self.err_internal("cross shape"));
                }
                let mut out = Vec::new();
                for i in 0..3 {
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    let p = self.bin("mul", s, a[k], b[j]);
                    let np = self.un("neg", s, p);
                    out.push(self.op1(
                        kind_of(s),
                        format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                        vec![a[j], b[k], np],
                    ));
                }
                Ok(out)
            }
            M::Length | M::Distance | M::Normalize => {
                let s = self.scalar_ty(args[0])?;
                let mut a = self.comps(args[0])?;
                if fun == M::Distance {
                    let b = self
                        .comps(*args.get(1).ok_or_else(|| self.err_internal("distance arity"))?)?;
                    a = a.iter().zip(&b).map(|(&p, &q)| self.bin("sub", s, p, q)).collect();
                }
                let a32: Vec<VRegId> = a.iter().map(|&v| self.widen_f16(s, v)).collect();
                let d = self.dot(Scalar::F32, &a32, &a32);
                if fun == M::Normalize {
                    let r = self.f("rsqrt.approx.f32 {d0}, {u0}", vec![d]);
                    let mut out = Vec::new();
                    for &v in &a32 {
                        let t = self.f("mul.f32 {d0}, {u0}, {u1}", vec![v, r]);
                        out.push(self.narrow_f16(s, t));
                    }
                    Ok(out)
                } else {
                    let r = self.f("sqrt.rn.f32 {d0}, {u0}", vec![d]);
                    Ok(vec![self.narrow_f16(s, r)])
                }
            }
            M::FaceForward => {
                // select(-n, n, dot(nref, i) < 0)
                let s = self.scalar_ty(args[0])?;
                let n = self.comps(args[0])?;
                let i = self.comps(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let nr = self.comps(*args.get(2).ok_or_else(|| self.err_internal("arity"))?)?;
                let d = self.dot(s, &nr, &i);
                let z = self.imm_of(s, 0.0);
                let p = self.bin_setp("lt", s, d, z);
                Ok(n.iter()
                    .map(|&v| {
                        let nv = self.un("neg", s, v);
                        self.select(s, p, v, nv)
                    })
                    .collect())
            }
            M::Reflect => {
                // i - 2 * dot(n, i) * n
                let s = self.scalar_ty(args[0])?;
                let i = self.comps(args[0])?;
                let n = self.comps(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let d = self.dot(s, &n, &i);
                let m2 = self.imm_of(s, -2.0);
                let k = self.bin("mul", s, d, m2);
                Ok(i.iter()
                    .zip(&n)
                    .map(|(&iv, &nv)| {
                        self.op1(
                            kind_of(s),
                            format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                            vec![k, nv, iv],
                        )
                    })
                    .collect())
            }
            M::CountOneBits => {
                self.per_comp(args, |l, _, x| Ok(l.f("popc.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::ReverseBits => {
                self.per_comp(args, |l, _, x| Ok(l.f("brev.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::CountLeadingZeros => {
                self.per_comp(args, |l, _, x| Ok(l.f("clz.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::CountTrailingZeros => self.per_comp(args, |l, _, x| {
                let r = l.f("brev.b32 {d0}, {u0}", vec![x[0]]);
                Ok(l.f("clz.b32 {d0}, {u0}", vec![r]))
            }),
            M::FirstLeadingBit => self.per_comp(args, |l, s, x| {
                let t = if s == Scalar::I32 { "s32" } else { "u32" };
                Ok(l.f(&format!("bfind.{t} {{d0}}, {{u0}}"), vec![x[0]]))
            }),
            M::FirstTrailingBit => self.per_comp(args, |l, _, x| {
                let n = l.f("neg.s32 {d0}, {u0}", vec![x[0]]);
                let low = l.f("and.b32 {d0}, {u0}, {u1}", vec![x[0], n]);
                Ok(l.f("bfind.u32 {d0}, {u0}", vec![low]))
            }),
            M::ExtractBits => self.per_comp(args, |l, s, x| {
                let (o, c) = l.clamp_bits(x[1], x[2]);
                let t = if s == Scalar::I32 { "s32" } else { "u32" };
                Ok(l.f(&format!("bfe.{t} {{d0}}, {{u0}}, {{u1}}, {{u2}}"), vec![x[0], o, c]))
            }),
            M::InsertBits => self.per_comp(args, |l, _, x| {
                let (o, c) = l.clamp_bits(x[2], x[3]);
                Ok(l.f("bfi.b32 {d0}, {u0}, {u1}, {u2}, {u3}", vec![x[1], x[0], o, c]))
            }),
            M::QuantizeToF16 => self.per_comp(args, |l, _, x| {
                let h = l.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![x[0]]);
                Ok(l.f("cvt.f32.f16 {d0}, {u0}", vec![h]))
            }),
            M::Pack2x16float => {
                let c = self.comps(args[0])?;
                let h: Vec<VRegId> = c
                    .iter()
                    .map(|&v| self.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![v]))
                    .collect();
                if h.len() != 2 {
                    return Err(self.err_internal("pack2x16float shape"));
                }
                Ok(vec![self.f("mov.b32 {d0}, {{u0}, {u1}}", h)])
            }
            M::Unpack2x16float => {
                let v = self.scalar(args[0])?;
                let lo = self.mf.new_vreg(RegKind::B16);
                let hi = self.mf.new_vreg(RegKind::B16);
                self.emit("mov.b32 {{d0}, {d1}}, {u0}", vec![lo, hi], vec![v]);
                Ok(vec![
                    self.f("cvt.f32.f16 {d0}, {u0}", vec![lo]),
                    self.f("cvt.f32.f16 {d0}, {u0}", vec![hi]),
                ])
            }
            M::Pack4x8snorm | M::Pack4x8unorm | M::Pack2x16snorm | M::Pack2x16unorm => {
                let c = self.comps(args[0])?;
                let (lo, scale, bits) = match fun {
                    M::Pack4x8snorm => (-1.0, 127.0, 8),
                    M::Pack4x8unorm => (0.0, 255.0, 8),
                    M::Pack2x16snorm => (-1.0, 32767.0, 16),
                    _ => (0.0, 65535.0, 16),
                };
                let (lo, hi, k) = (self.imm_f32(lo), self.imm_f32(1.0), self.imm_f32(scale));
                let half = self.imm_f32(0.5);
                let mut acc = self.imm_u32(0);
                for (i, &v) in c.iter().enumerate() {
                    // WGSL: floor(0.5 + scale * clamp(v)), not round-to-even. Explicit `.rn`
                    // keeps ptxas from contracting the multiply-add into an fma.
                    let t = self.f("max.f32 {d0}, {u0}, {u1}", vec![v, lo]);
                    let t = self.f("min.f32 {d0}, {u0}, {u1}", vec![t, hi]);
                    let t = self.f("mul.rn.f32 {d0}, {u0}, {u1}", vec![t, k]);
                    let t = self.f("add.rn.f32 {d0}, {u0}, {u1}", vec![t, half]);
                    let t = self.f("cvt.rmi.s32.f32 {d0}, {u0}", vec![t]);
                    acc = self.f(
                        &format!("bfi.b32 {{d0}}, {{u0}}, {{u1}}, {}, {bits}", i * bits),
                        vec![t, acc],
                    );
                }
                Ok(vec![acc])
            }
            M::Pack4xI8 | M::Pack4xU8 | M::Pack4xI8Clamp | M::Pack4xU8Clamp => {
                let c = self.comps(args[0])?;
                let mut acc = self.imm_u32(0);
                for (i, &v) in c.iter().enumerate() {
                    let v = match fun {
                        M::Pack4xI8Clamp => {
                            let t = self.f("max.s32 {d0}, {u0}, -128", vec![v]);
                            self.f("min.s32 {d0}, {u0}, 127", vec![t])
                        }
                        M::Pack4xU8Clamp => self.f("min.u32 {d0}, {u0}, 255", vec![v]),
                        _ => v,
                    };
                    acc = self
                        .f(&format!("bfi.b32 {{d0}}, {{u0}}, {{u1}}, {}, 8", i * 8), vec![v, acc]);
                }
                Ok(vec![acc])
            }
            M::Unpack4x8snorm | M::Unpack4x8unorm | M::Unpack2x16snorm | M::Unpack2x16unorm => {
                let x = self.scalar(args[0])?;
                let (n, bits, signed, scale) = match fun {
                    M::Unpack4x8snorm => (4, 8, true, 127.0),
                    M::Unpack4x8unorm => (4, 8, false, 255.0),
                    M::Unpack2x16snorm => (2, 16, true, 32767.0),
                    _ => (2, 16, false, 65535.0),
                };
                let t = if signed { "s32" } else { "u32" };
                let k = self.imm_f32(scale);
                let m1 = self.imm_f32(-1.0);
                let mut out = Vec::new();
                for i in 0..n {
                    let b =
                        self.f(&format!("bfe.{t} {{d0}}, {{u0}}, {}, {bits}", i * bits), vec![x]);
                    let f = self.f(&format!("cvt.rn.f32.{t} {{d0}}, {{u0}}"), vec![b]);
                    let f = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![f, k]);
                    out.push(if signed {
                        self.f("max.f32 {d0}, {u0}, {u1}", vec![f, m1])
                    } else {
                        f
                    });
                }
                Ok(out)
            }
            M::Unpack4xI8 | M::Unpack4xU8 => {
                let x = self.scalar(args[0])?;
                let t = if fun == M::Unpack4xI8 { "s32" } else { "u32" };
                Ok((0..4)
                    .map(|i| self.f(&format!("bfe.{t} {{d0}}, {{u0}}, {}, 8", i * 8), vec![x]))
                    .collect())
            }
            M::Dot4I8Packed | M::Dot4U8Packed => {
                let a = self.scalar(args[0])?;
                let b = self.scalar(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let t = if fun == M::Dot4I8Packed { "s32" } else { "u32" };
                let z = self.imm_u32(0);
                Ok(vec![
                    self.f(&format!("dp4a.{t}.{t} {{d0}}, {{u0}}, {{u1}}, {{u2}}"), vec![a, b, z])
                ])
            }
            M::Determinant => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let n = (a.len() as f64).sqrt() as usize;
                if n * n != a.len() || n < 2 {
                    return Err(self.err_internal("determinant of a non-square matrix"));
                }
                let cols: Vec<Vec<VRegId>> = a.chunks(n).map(|c| c.to_vec()).collect();
                Ok(vec![self.det(s, &cols)])
            }
            M::Modf => self
                .per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    Ok(l.op1(kind_of(s), format!("cvt.rzi.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]))
                })
                .and_then(|whole| {
                    let x = self.comps(args[0])?;
                    let s = self.scalar_ty(args[0])?;
                    let mut out: Vec<VRegId> =
                        x.iter().zip(&whole).map(|(&v, &w)| self.bin("sub", s, v, w)).collect();
                    out.extend(whole);
                    Ok(out)
                }),
            M::Frexp => {
                // fract in [0.5, 1) and exponent from the bits (normal numbers; 0 gives (0, 0)).
                let s = self.scalar_ty(args[0])?;
                let x = self.comps(args[0])?;
                let mut fr = Vec::new();
                let mut ex = Vec::new();
                for &v in &x {
                    let v32 = self.widen_f16(s, v);
                    let e = self.f("bfe.u32 {d0}, {u0}, 23, 8", vec![v32]);
                    let e = self.f("sub.s32 {d0}, {u0}, 126", vec![e]);
                    let m = self.f("and.b32 {d0}, {u0}, 0x807FFFFF", vec![v32]);
                    let m = self.f("or.b32 {d0}, {u0}, 0x3F000000", vec![m]);
                    let zero = self.imm_f32(0.0);
                    let z =
                        self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![v32, zero]);
                    let m = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![v32, m, z]);
                    let zi = self.imm_u32(0);
                    ex.push(self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![zi, e, z]));
                    fr.push(self.narrow_f16(s, m));
                }
                fr.extend(ex);
                Ok(fr)
            }
            M::Transpose => {
                let a = self.comps(args[0])?;
                let Type::Matrix { columns, rows, .. } = self.types.get(self.ty(args[0])).clone()
                else {
                    return Err(self.err_internal("transpose of a non-matrix"));
                };
                let (c, r) = (columns as usize, rows as usize);
                let mut out = Vec::new();
                for i in 0..r {
                    for k in 0..c {
                        out.push(a[k * r + i]);
                    }
                }
                Ok(out)
            }
            M::Ldexp => self.per_comp(args, |l, s, x| {
                // x * 2^e, with 2^e built exactly from its exponent bits (e clamped to [-126, 127]).
                let lo = l.imm_u32((-126i32) as u32);
                let e = l.f("max.s32 {d0}, {u0}, {u1}", vec![x[1], lo]);
                let e = l.f("min.s32 {d0}, {u0}, 127", vec![e]);
                let b = l.f("add.s32 {d0}, {u0}, 127", vec![e]);
                let p = l.f("shl.b32 {d0}, {u0}, 23", vec![b]);
                let xf = l.widen_f16(s, x[0]);
                let r = l.f("mul.f32 {d0}, {u0}, {u1}", vec![xf, p]);
                Ok(l.narrow_f16(s, r))
            }),
            _ => {
                let _ = out_n;
                Err(self.err_unsupported(&format!("the math function {fun:?}")))
            }
        }
    }

    /// The precise lowering (the default, [`crate::math`]) of the functions that have one;
    /// `None` for the others, which have one lowering for both modes.
    fn precise_math(
        &mut self,
        fun: M,
        args: &[dianran_frontend::ir::ValueId],
    ) -> R<Option<Vec<VRegId>>> {
        let out = match fun {
            // pow(x, n) for n = 1, 2, 3, -1 as products and a quotient, like CUDA: exactly
            // C99's special cases, within 1.5 ulp (docs/math.md).
            M::Pow if self.scalar_ty(args[0])? == Scalar::F32 => {
                self.per_comp(args, |l, _, x| {
                    let mul = |l: &mut Self, a, b| l.f("mul.rn.f32 {d0}, {u0}, {u1}", vec![a, b]);
                    Ok(match l.fconsts.get(&x[1]).copied() {
                        Some(1.0) => x[0],
                        Some(2.0) => mul(l, x[0], x[0]),
                        Some(3.0) => {
                            let sq = mul(l, x[0], x[0]);
                            mul(l, sq, x[0])
                        }
                        Some(-1.0) => l.f("div.rn.f32 {d0}, 0f3F800000, {u0}", vec![x[0]]),
                        _ => {
                            let r = math::binary(l, fun, Opnd::R(x[0]), Opnd::R(x[1]));
                            let r = r.unwrap_or(Opnd::R(x[0]));
                            l.reg(r)
                        }
                    })
                })?
            }
            _ if math::FUNCTIONS.contains(&fun) => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let a = Opnd::R(y[0]);
                    let r = match y.get(1) {
                        Some(&b) => math::binary(l, fun, a, Opnd::R(b)),
                        None => math::unary(l, fun, a),
                    };
                    let r = r.unwrap_or(a);
                    l.reg(r)
                }))
            })?,
            M::Ldexp => self.per_comp(args, |l, s, x| {
                let xf = l.widen_f16(s, x[0]);
                let r = math::ldexp(l, Opnd::R(xf), Opnd::R(x[1]));
                let r = l.reg(r);
                Ok(l.narrow_f16(s, r))
            })?,
            M::Frexp | M::Modf => {
                let s = self.scalar_ty(args[0])?;
                let mut first = Vec::new();
                let mut second = Vec::new();
                for v in self.comps(args[0])? {
                    let v32 = Opnd::R(self.widen_f16(s, v));
                    let (a, b) = if fun == M::Frexp {
                        let (fr, e) = math::frexp(self, v32);
                        let fr = self.reg(fr);
                        (self.narrow_f16(s, fr), self.reg(e))
                    } else {
                        let (fr, w) = math::modf(self, v32);
                        let (fr, w) = (self.reg(fr), self.reg(w));
                        (self.narrow_f16(s, fr), self.narrow_f16(s, w))
                    };
                    first.push(a);
                    second.push(b);
                }
                first.extend(second);
                first
            }
            M::Normalize => {
                // v / sqrt(dot(v, v)), correctly rounded square root and quotients.
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let a32: Vec<VRegId> = a.iter().map(|&v| self.widen_f16(s, v)).collect();
                let d = self.dot(Scalar::F32, &a32, &a32);
                let r = self.f("sqrt.rn.f32 {d0}, {u0}", vec![d]);
                let mut out = Vec::new();
                for &v in &a32 {
                    let t = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![v, r]);
                    out.push(self.narrow_f16(s, t));
                }
                out
            }
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    /// Determinant by cofactor expansion along the first column.
    fn det(&mut self, s: Scalar, cols: &[Vec<VRegId>]) -> VRegId {
        let n = cols.len();
        if n == 2 {
            let ad = self.bin("mul", s, cols[0][0], cols[1][1]);
            let bc = self.bin("mul", s, cols[1][0], cols[0][1]);
            return self.bin("sub", s, ad, bc);
        }
        let mut acc: Option<VRegId> = None;
        for r in 0..n {
            let minor: Vec<Vec<VRegId>> = cols[1..]
                .iter()
                .map(|c| c.iter().enumerate().filter(|(i, _)| *i != r).map(|(_, &v)| v).collect())
                .collect();
            let d = self.det(s, &minor);
            let term = self.bin("mul", s, cols[0][r], d);
            acc = Some(match acc {
                None => term,
                Some(a) if r % 2 == 1 => self.bin("sub", s, a, term),
                Some(a) => self.bin("add", s, a, term),
            });
        }
        acc.unwrap_or(cols[0][0])
    }

    /// WGSL's bit-field clamping: `o = min(offset, 32)`, `c = min(count, 32 - o)`.
    fn clamp_bits(&mut self, offset: VRegId, count: VRegId) -> (VRegId, VRegId) {
        let o = self.f("min.u32 {d0}, {u0}, 32", vec![offset]);
        let k = self.imm_u32(32);
        let rest = self.f("sub.s32 {d0}, {u0}, {u1}", vec![k, o]);
        let c = self.f("min.u32 {d0}, {u0}, {u1}", vec![count, rest]);
        (o, c)
    }

    /// e^x as 2^(x log2 e).
    fn exp_f32(&mut self, x: VRegId) -> VRegId {
        let k = self.imm_f32(std::f32::consts::LOG2_E);
        let t = self.f("mul.f32 {d0}, {u0}, {u1}", vec![x, k]);
        self.f("ex2.approx.f32 {d0}, {u0}", vec![t])
    }

    /// atan on all of f32: reduce |x| > 1 with atan(x) = pi/2 - atan(1/x), then a minimax
    /// polynomial on [0, 1] (max error about 1e-5 rad), sign restored at the end.
    fn atan_f32(&mut self, x: VRegId) -> VRegId {
        let ax = self.f("abs.f32 {d0}, {u0}", vec![x]);
        let one = self.imm_f32(1.0);
        let big = self.op1(RegKind::Pred, "setp.gt.f32 {d0}, {u0}, {u1}", vec![ax, one]);
        let inv = self.f("rcp.rn.f32 {d0}, {u0}", vec![ax]);
        let t = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![inv, ax, big]);
        let t2 = self.f("mul.f32 {d0}, {u0}, {u1}", vec![t, t]);
        let mut p = self.imm_f32(ATAN_COEFFS[0]);
        for &c in &ATAN_COEFFS[1..] {
            let k = self.imm_f32(c);
            p = self.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![p, t2, k]);
        }
        let r = self.f("mul.f32 {d0}, {u0}, {u1}", vec![p, t]);
        let half_pi = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let rr = self.f("sub.f32 {d0}, {u0}, {u1}", vec![half_pi, r]);
        let r = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![rr, r, big]);
        // copysign(r, x)
        self.f("copysign.f32 {d0}, {u0}, {u1}", vec![x, r])
    }

    /// atan2(y, x) from atan(y / x) with quadrant fix-ups.
    fn atan2_f32(&mut self, y: VRegId, x: VRegId) -> VRegId {
        let q = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![y, x]);
        let a = self.atan_f32(q);
        let zero = self.imm_f32(0.0);
        let pi = self.imm_f32(std::f32::consts::PI);
        let xneg = self.op1(RegKind::Pred, "setp.lt.f32 {d0}, {u0}, {u1}", vec![x, zero]);
        let spi = self.f("copysign.f32 {d0}, {u0}, {u1}", vec![y, pi]);
        let adj = self.f("add.f32 {d0}, {u0}, {u1}", vec![a, spi]);
        let r = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![adj, a, xneg]);
        // x == 0: +-pi/2 by the sign of y (0 when y is 0 too).
        let xz = self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![x, zero]);
        let hp = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let shp = self.f("copysign.f32 {d0}, {u0}, {u1}", vec![y, hp]);
        let yz = self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![y, zero]);
        let shp = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![zero, shp, yz]);
        self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![shp, r, xz])
    }

    /// Subgroup operations (SPEC §3): member mask from `activemask`.
    fn subgroup(&mut self, op: &Op, ty: TypeId) -> R<Vec<VRegId>> {
        use dianran_frontend::ir::GatherMode as G;
        let mask = self.f("activemask.b32 {d0}", vec![]);
        match op {
            Op::SubgroupBallot(p) => {
                let p = match p {
                    Some(p) => self.scalar(*p)?,
                    None => self.imm_pred(true),
                };
                let b = self.f("vote.sync.ballot.b32 {d0}, {u0}, {u1}", vec![p, mask]);
                let z = self.imm_u32(0);
                Ok(vec![b, z, z, z])
            }
            Op::SubgroupGather { mode, arg, index } => {
                let s = self.scalar_ty(*arg)?;
                let lane = self.f("mov.u32 {d0}, %laneid", vec![]);
                let idx = match index {
                    Some(i) => Some(self.scalar(*i)?),
                    None => None,
                };
                let (kind, src, clamp) = match (mode, idx) {
                    (G::BroadcastFirst, _) => {
                        // lowest active lane: bfind(mask & -mask)
                        let n = self.f("neg.s32 {d0}, {u0}", vec![mask]);
                        let low = self.f("and.b32 {d0}, {u0}, {u1}", vec![mask, n]);
                        ("idx", self.f("bfind.u32 {d0}, {u0}", vec![low]), 31)
                    }
                    (G::Broadcast | G::Shuffle, Some(i)) => ("idx", i, 31),
                    (G::ShuffleDown, Some(i)) => ("down", i, 31),
                    (G::ShuffleUp, Some(i)) => ("up", i, 0),
                    (G::ShuffleXor, Some(i)) => ("bfly", i, 31),
                    (G::QuadBroadcast, Some(i)) => {
                        let base = self.f("and.b32 {d0}, {u0}, 0xFFFFFFFC", vec![lane]);
                        ("idx", self.f("add.s32 {d0}, {u0}, {u1}", vec![base, i]), 31)
                    }
                    (G::QuadSwap(d), _) => {
                        let k = match d {
                            dianran_frontend::ir::Direction::X => 1,
                            dianran_frontend::ir::Direction::Y => 2,
                            _ => 3,
                        };
                        ("bfly", self.imm_u32(k), 31)
                    }
                    _ => return Err(self.err_internal("subgroup gather without index")),
                };
                let v = self.comps(*arg)?;
                v.into_iter().map(|x| self.shfl(s, kind, x, src, clamp, mask)).collect()
            }
            Op::SubgroupCollective { op: sop, kind, arg } => {
                let s = self.scalar_ty(*arg)?;
                // Vectors reduce component by component (`subgroupAdd(vec4<f32>)`).
                let mut out = Vec::new();
                for x in self.comps(*arg)? {
                    out.push(self.collective_component(*sop, *kind, s, x, mask)?);
                }
                let _ = ty;
                Ok(out)
            }
            _ => Err(self.err_internal("not a subgroup op")),
        }
    }

    /// One component of a subgroup reduction or scan.
    fn collective_component(
        &mut self,
        sop: dianran_frontend::ir::SubgroupOperation,
        kind: dianran_frontend::ir::CollectiveOperation,
        s: Scalar,
        x: VRegId,
        mask: VRegId,
    ) -> R<VRegId> {
        use dianran_frontend::ir::{CollectiveOperation as C, SubgroupOperation as S};
        if matches!(sop, S::All | S::Any) {
            if kind != C::Reduce {
                return Err(self.err_unsupported("subgroup scans of booleans"));
            }
            let n = if sop == S::All { "all" } else { "any" };
            return Ok(self.op1(
                RegKind::Pred,
                format!("vote.sync.{n}.pred {{d0}}, {{u0}}, {{u1}}"),
                vec![x, mask],
            ));
        }
        if kind == C::Reduce && s.is_int() && !matches!(sop, S::Mul) {
            let (n, t) = match sop {
                S::Add => ("add", if s == Scalar::I32 { "s32" } else { "u32" }),
                S::Min => ("min", if s == Scalar::I32 { "s32" } else { "u32" }),
                S::Max => ("max", if s == Scalar::I32 { "s32" } else { "u32" }),
                S::And => ("and", "b32"),
                S::Or => ("or", "b32"),
                _ => ("xor", "b32"),
            };
            return Ok(self.f(&format!("redux.sync.{n}.{t} {{d0}}, {{u0}}, {{u1}}"), vec![x, mask]));
        }
        if s == Scalar::F16 || s == Scalar::Bool {
            return Err(self.err_unsupported("subgroup reductions on this type"));
        }
        self.collective_shfl(sop, kind, s, x, mask)
    }

    fn shfl(
        &mut self,
        s: Scalar,
        kind: &str,
        x: VRegId,
        src: VRegId,
        clamp: u32,
        mask: VRegId,
    ) -> R<VRegId> {
        let text = format!("shfl.sync.{kind}.b32 {{d0}}, {{u0}}, {{u1}}, {clamp}, {{u2}}");
        Ok(match s {
            Scalar::F16 => {
                let w = self.f("cvt.u32.u16 {d0}, {u0}", vec![x]);
                let r = self.f(&text, vec![w, src, mask]);
                self.op1(RegKind::B16, "cvt.u16.u32 {d0}, {u0}", vec![r])
            }
            Scalar::Bool => {
                let w = self.f("selp.u32 {d0}, 1, 0, {u0}", vec![x]);
                let r = self.f(&text, vec![w, src, mask]);
                self.op1(RegKind::Pred, "setp.ne.u32 {d0}, {u0}, 0", vec![r])
            }
            _ => self.f(&text, vec![x, src, mask]),
        })
    }

    /// Reductions and scans with shuffles; a lane whose source is inactive or out of range
    /// contributes the identity (SPEC §3).
    fn collective_shfl(
        &mut self,
        op: dianran_frontend::ir::SubgroupOperation,
        kind: dianran_frontend::ir::CollectiveOperation,
        s: Scalar,
        x: VRegId,
        mask: VRegId,
    ) -> R<VRegId> {
        use dianran_frontend::ir::{CollectiveOperation as C, SubgroupOperation as S};
        let (id, name): (f64, &str) = match (op, s) {
            (S::Add, _) => (0.0, "add"),
            (S::Mul, _) => (1.0, "mul"),
            (S::Min, Scalar::F32) => (f64::INFINITY, "min"),
            (S::Max, Scalar::F32) => (f64::NEG_INFINITY, "max"),
            (S::Min, Scalar::I32) => (i32::MAX as f64, "min"),
            (S::Max, Scalar::I32) => (i32::MIN as f64, "max"),
            (S::Min, _) => (u32::MAX as f64, "min"),
            (S::Max, _) => (0.0, "max"),
            (S::And, _) => (-1.0, "and"),
            (S::Or, _) => (0.0, "or"),
            (S::Xor, _) => (0.0, "xor"),
            _ => return Err(self.err_unsupported("this subgroup operation")),
        };
        let ident = match (s, op) {
            (Scalar::U32, S::Min | S::And) => self.imm_u32(u32::MAX),
            _ => self.imm_of(s, id),
        };
        let apply = |l: &mut Self, a: VRegId, b: VRegId| -> VRegId {
            match name {
                "and" | "or" | "xor" => {
                    l.f(&format!("{name}.b32 {{d0}}, {{u0}}, {{u1}}"), vec![a, b])
                }
                "mul" if !s.is_float() => l.f("mul.lo.s32 {d0}, {u0}, {u1}", vec![a, b]),
                _ => l.bin(name, s, a, b),
            }
        };
        let lane = self.f("mov.u32 {d0}, %laneid", vec![]);
        // Full warp: logarithmic butterfly / Hillis-Steele. Partial warps: inactive lanes hold
        // no partial results, so walk all 32 source lanes and combine the active ones in lane
        // order (exact for any mask).
        let full = self.op1(RegKind::Pred, "setp.eq.u32 {d0}, {u0}, -1", vec![mask]);
        let fast = self.mf.new_block();
        let slow = self.mf.new_block();
        let merge = self.mf.new_block();
        let res = self.mf.new_vreg(kind_of(s));
        if let Some(b) = self.mf.blocks.get_mut(merge.0 as usize) {
            b.params = vec![res];
        }
        self.end_block(Term::Branch {
            cond: full,
            then_: Target { block: fast, args: vec![] },
            else_: Target { block: slow, args: vec![] },
        });
        self.cur = fast;
        let mut acc = x;
        match kind {
            C::Reduce => {
                for k in [16u32, 8, 4, 2, 1] {
                    let kk = self.imm_u32(k);
                    let t = self
                        .f("shfl.sync.bfly.b32 {d0}, {u0}, {u1}, 31, {u2}", vec![acc, kk, mask]);
                    acc = apply(self, acc, t);
                }
            }
            C::InclusiveScan | C::ExclusiveScan => {
                for k in [1u32, 2, 4, 8, 16] {
                    let kk = self.imm_u32(k);
                    let t =
                        self.f("shfl.sync.up.b32 {d0}, {u0}, {u1}, 0, {u2}", vec![acc, kk, mask]);
                    let ok = self.op1(
                        RegKind::Pred,
                        format!("setp.ge.u32 {{d0}}, {{u0}}, {k}"),
                        vec![lane],
                    );
                    let t = self.select(s, ok, t, ident);
                    acc = apply(self, acc, t);
                }
                if kind == C::ExclusiveScan {
                    let one = self.imm_u32(1);
                    let t =
                        self.f("shfl.sync.up.b32 {d0}, {u0}, {u1}, 0, {u2}", vec![acc, one, mask]);
                    let ok = self.op1(RegKind::Pred, "setp.ge.u32 {d0}, {u0}, 1", vec![lane]);
                    acc = self.select(s, ok, t, ident);
                }
            }
        }
        self.end_block(Term::Jump(Target { block: merge, args: vec![acc] }));
        self.cur = slow;
        let mut acc = ident;
        for src in 0..32u32 {
            let sr = self.imm_u32(src);
            let v = self.f("shfl.sync.idx.b32 {d0}, {u0}, {u1}, 31, {u2}", vec![x, sr, mask]);
            let on = self.lane_active(mask, sr);
            let cmp = match kind {
                C::Reduce => None,
                C::InclusiveScan => Some("le"),
                C::ExclusiveScan => Some("lt"),
            };
            let take = match cmp {
                None => on,
                Some(c) => {
                    let before = self.op1(
                        RegKind::Pred,
                        format!("setp.{c}.u32 {{d0}}, {{u0}}, {{u1}}"),
                        vec![sr, lane],
                    );
                    self.op1(RegKind::Pred, "and.pred {d0}, {u0}, {u1}", vec![on, before])
                }
            };
            let v = self.select(s, take, v, ident);
            acc = apply(self, acc, v);
        }
        self.end_block(Term::Jump(Target { block: merge, args: vec![acc] }));
        self.cur = merge;
        Ok(res)
    }

    /// Ends the current block with `t` (the caller moves `cur` on).
    fn end_block(&mut self, t: Term) {
        if let Some(b) = self.mf.blocks.get_mut(self.cur.0 as usize) {
            b.term = t;
        }
    }

    /// Whether lane `src` (0..32) is set in `mask`.
    fn lane_active(&mut self, mask: VRegId, src: VRegId) -> VRegId {
        let m = self.f("and.b32 {d0}, {u0}, 31", vec![src]);
        let b = self.f("shr.u32 {d0}, {u0}, {u1}", vec![mask, m]);
        let b = self.f("and.b32 {d0}, {u0}, 1", vec![b]);
        self.op1(RegKind::Pred, "setp.ne.u32 {d0}, {u0}, 0", vec![b])
    }
}

#[cfg(test)]
mod tests {
    use super::ATAN_COEFFS;

    #[test]
    fn atan_polynomial_is_accurate() {
        for i in 0..=1000 {
            let t = i as f64 / 1000.0;
            let t2 = t * t;
            let p = ATAN_COEFFS.iter().fold(0.0f64, |acc, &c| acc * t2 + c as f64);
            assert!((p * t - t.atan()).abs() < 2e-5, "t = {t}");
        }
    }
}
