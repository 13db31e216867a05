//! Selection of subgroup operations (SPEC §3): ballots, votes, reductions, scans and shuffles
//! with the member mask of `activemask`.

#![allow(unused_imports)]
use super::layout::{self, arith_ty, kind_of};
use super::lower::Lower;
use super::mathops::Opnd;
use super::regalloc::{RegKind, Target, Term, VRegId};
use crate::math;
use crate::model::{build, CmpOp, Opcode, Type as PT};
use dianran_frontend::ir::{
    BinaryOperator as B, MathFunction as M, Op, RelationalFunction, Scalar, Type, TypeId,
    UnaryOperator as U,
};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

impl Lower<'_> {
    /// Subgroup operations (SPEC §3): member mask from `activemask`.
    pub(crate) fn subgroup(&mut self, op: &Op, ty: TypeId) -> R<Vec<VRegId>> {
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
    pub(crate) fn collective_component(
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

    pub(crate) fn shfl(
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
    pub(crate) fn collective_shfl(
        &mut self,
        op: dianran_frontend::ir::SubgroupOperation,
        kind: dianran_frontend::ir::CollectiveOperation,
        s: Scalar,
        x: VRegId,
        mask: VRegId,
    ) -> R<VRegId> {
        use dianran_frontend::ir::{CollectiveOperation as C, SubgroupOperation as S};
        let (id, name): (f64, Opcode) = match (op, s) {
            (S::Add, _) => (0.0, Opcode::Add),
            (S::Mul, _) => (1.0, Opcode::Mul),
            (S::Min, Scalar::F32) => (f64::INFINITY, Opcode::Min),
            (S::Max, Scalar::F32) => (f64::NEG_INFINITY, Opcode::Max),
            (S::Min, Scalar::I32) => (i32::MAX as f64, Opcode::Min),
            (S::Max, Scalar::I32) => (i32::MIN as f64, Opcode::Max),
            (S::Min, _) => (u32::MAX as f64, Opcode::Min),
            (S::Max, _) => (0.0, Opcode::Max),
            (S::And, _) => (-1.0, Opcode::And),
            (S::Or, _) => (0.0, Opcode::Or),
            (S::Xor, _) => (0.0, Opcode::Xor),
            _ => return Err(self.err_unsupported("this subgroup operation")),
        };
        let ident = match (s, op) {
            (Scalar::U32, S::Min | S::And) => self.imm_u32(u32::MAX),
            _ => self.imm_of(s, id),
        };
        let apply = |l: &mut Self, a: VRegId, b: VRegId| -> VRegId {
            match name {
                Opcode::And | Opcode::Or | Opcode::Xor => {
                    l.def(RegKind::B32, |d| build::binary(name, &[], PT::B32, d, a, b))
                }
                Opcode::Mul if !s.is_float() => {
                    l.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, a, b))
                }
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
    pub(crate) fn end_block(&mut self, t: Term) {
        if let Some(b) = self.mf.blocks.get_mut(self.cur.0 as usize) {
            b.term = t;
        }
    }

    /// Whether lane `src` (0..32) is set in `mask`.
    pub(crate) fn lane_active(&mut self, mask: VRegId, src: VRegId) -> VRegId {
        let m = self.f("and.b32 {d0}, {u0}, 31", vec![src]);
        let b = self.f("shr.u32 {d0}, {u0}, {u1}", vec![mask, m]);
        let b = self.f("and.b32 {d0}, {u0}, 1", vec![b]);
        self.op1(RegKind::Pred, "setp.ne.u32 {d0}, {u0}, 0", vec![b])
    }
}
