//! Selection of subgroup operations (docs/ptx.md): ballots, votes, reductions, scans and shuffles
//! with the member mask of `activemask`.

use super::lower::Lower;
use super::regalloc::{RegKind, Target, Term, VRegId};
use crate::abi::layout::kind_of;
use crate::lowering_common::ScalarLowering;
use crate::lowering_common::{self, GatherLane, SubgroupLowering};
use crate::model::{
    build, AtomOp, CmpOp, Opcode, Operand, ShflMode, SpecialReg, Type as PT, VoteMode,
};
use dianran_frontend::ir::{Op, Scalar};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

impl SubgroupLowering for Lower<'_> {
    fn active_mask(&mut self) -> R<VRegId> {
        Ok(self.def(RegKind::B32, build::activemask))
    }

    fn const_u32(&mut self, v: u32) -> VRegId {
        self.imm_u32(v)
    }

    fn ballot(&mut self, p: Option<VRegId>, mask: VRegId) -> R<VRegId> {
        let p = p.unwrap_or_else(|| self.imm_pred(true));
        Ok(self.def(RegKind::B32, |d| build::vote_sync(VoteMode::Ballot, d, p, mask)))
    }

    fn gather_lane(&mut self, from: GatherLane<VRegId>, mask: VRegId) -> R<VRegId> {
        Ok(match from {
            // The lowest active lane: bfind(mask & -mask).
            GatherLane::FirstActive => {
                let n =
                    self.def(RegKind::B32, |d| build::unary(Opcode::Neg, &[], PT::S32, d, mask));
                let low = self.binop(Opcode::And, &[], PT::B32, mask, n);
                self.def(RegKind::B32, |d| build::unary(Opcode::Bfind, &[], PT::U32, d, low))
            }
            GatherLane::Index(i) => i,
            GatherLane::InQuad(i) => {
                let lane = self.sreg(SpecialReg::Laneid);
                let quad = Operand::ImmHex(0xFFFF_FFFC);
                let base = self.binop(Opcode::And, &[], PT::B32, lane, quad);
                self.def(RegKind::B32, |d| build::add(PT::S32, d, base, i))
            }
            GatherLane::Const(k) => self.imm_u32(k),
        })
    }

    fn shuffle(
        &mut self,
        s: Scalar,
        mode: ShflMode,
        x: VRegId,
        src: VRegId,
        clamp: u32,
        mask: VRegId,
    ) -> R<VRegId> {
        self.shfl(s, mode, x, src, clamp, mask)
    }

    fn collective(
        &mut self,
        op: dianran_frontend::ir::SubgroupOperation,
        kind: dianran_frontend::ir::CollectiveOperation,
        s: Scalar,
        x: VRegId,
        mask: VRegId,
    ) -> R<VRegId> {
        self.collective_component(op, kind, s, x, mask)
    }
}

impl Lower<'_> {
    /// Subgroup operations (docs/ptx.md): member mask from `activemask`.
    pub(crate) fn subgroup(&mut self, op: &Op) -> R<Vec<VRegId>> {
        let wide =
            |l: &Self, v: &dianran_frontend::ir::ValueId| l.scalar_ty(*v).is_ok_and(|s| s.is_64());
        let has_wide = match op {
            Op::SubgroupCollective { arg, .. } | Op::SubgroupGather { arg, .. } => wide(self, arg),
            _ => false,
        };
        if has_wide {
            return Err(self.unsupported("subgroup operations on 64-bit values"));
        }
        lowering_common::subgroup_op(self, op)
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
                return Err(self.unsupported("subgroup scans of booleans"));
            }
            let n = if sop == S::All { VoteMode::All } else { VoteMode::Any };
            return Ok(self.def(RegKind::Pred, |p| build::vote_sync(n, p, x, mask)));
        }
        if kind == C::Reduce && s.is_int() && !matches!(sop, S::Mul) {
            let it = if s == Scalar::I32 { PT::S32 } else { PT::U32 };
            let (n, t) = match sop {
                S::Add => (AtomOp::Add, it),
                S::Min => (AtomOp::Min, it),
                S::Max => (AtomOp::Max, it),
                S::And => (AtomOp::And, PT::B32),
                S::Or => (AtomOp::Or, PT::B32),
                _ => (AtomOp::Xor, PT::B32),
            };
            return Ok(self.def(RegKind::B32, |d| build::redux_sync(n, t, d, x, mask)));
        }
        if s == Scalar::F16 || s == Scalar::Bool {
            return Err(self.unsupported("subgroup reductions on this type"));
        }
        self.collective_shfl(sop, kind, s, x, mask)
    }

    pub(crate) fn shfl(
        &mut self,
        s: Scalar,
        kind: ShflMode,
        x: VRegId,
        src: VRegId,
        clamp: u32,
        mask: VRegId,
    ) -> R<VRegId> {
        let clamp = Operand::Imm(i64::from(clamp));
        Ok(match s {
            Scalar::F16 => {
                let w = self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U16, d, x));
                let r = shfl_b32(self, kind, w, src, clamp, mask);
                self.def(RegKind::B16, |d| build::cvt(None, false, PT::U16, PT::U32, d, r))
            }
            Scalar::Bool => {
                let w = self.def(RegKind::B32, |d| {
                    build::selp(PT::U32, d, Operand::Imm(1), Operand::Imm(0), x)
                });
                let r = shfl_b32(self, kind, w, src, clamp, mask);
                ne_zero(self, r)
            }
            _ => shfl_b32(self, kind, x, src, clamp, mask),
        })
    }

    /// Reductions and scans with shuffles; a lane whose source is inactive or out of range
    /// contributes the identity (docs/ptx.md).
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
            _ => return Err(self.unsupported("this subgroup operation")),
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
        let lane = self.sreg(SpecialReg::Laneid);
        // Full warp: logarithmic butterfly / Hillis-Steele. Partial warps: inactive lanes hold
        // no partial results, so walk all 32 source lanes and combine the active ones in lane
        // order (exact for any mask).
        let full =
            self.def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::U32, p, mask, Operand::Imm(-1)));
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
                    let t = shfl_b32(self, ShflMode::Bfly, acc, kk, Operand::Imm(31), mask);
                    acc = apply(self, acc, t);
                }
            }
            C::InclusiveScan | C::ExclusiveScan => {
                for k in [1u32, 2, 4, 8, 16] {
                    let kk = self.imm_u32(k);
                    let t = shfl_b32(self, ShflMode::Up, acc, kk, Operand::Imm(0), mask);
                    let ok = self.def(RegKind::Pred, |p| {
                        build::setp(CmpOp::Ge, PT::U32, p, lane, Operand::Imm(i64::from(k)))
                    });
                    let t = self.select(s, ok, t, ident);
                    acc = apply(self, acc, t);
                }
                if kind == C::ExclusiveScan {
                    let one = self.imm_u32(1);
                    let t = shfl_b32(self, ShflMode::Up, acc, one, Operand::Imm(0), mask);
                    let ok = self.def(RegKind::Pred, |p| {
                        build::setp(CmpOp::Ge, PT::U32, p, lane, Operand::Imm(1))
                    });
                    acc = self.select(s, ok, t, ident);
                }
            }
        }
        self.end_block(Term::Jump(Target { block: merge, args: vec![acc] }));
        // The partial warp's walk is a loop (partial warps are rare; unrolled, its 32 copies
        // cost about five SASS instructions each per component).
        self.cur = slow;
        let head = self.mf.new_block();
        let src = self.mf.new_vreg(RegKind::B32);
        let acc_in = self.mf.new_vreg(kind_of(s));
        if let Some(b) = self.mf.blocks.get_mut(head.0 as usize) {
            b.params = vec![src, acc_in];
        }
        let zero = self.imm_u32(0);
        self.end_block(Term::Jump(Target { block: head, args: vec![zero, ident] }));
        self.cur = head;
        let v = shfl_b32(self, ShflMode::Idx, x, src, Operand::Imm(31), mask);
        let on = self.lane_active(mask, src);
        let cmp = match kind {
            C::Reduce => None,
            C::InclusiveScan => Some(CmpOp::Le),
            C::ExclusiveScan => Some(CmpOp::Lt),
        };
        let take = match cmp {
            None => on,
            Some(c) => {
                let before = self.def(RegKind::Pred, |p| build::setp(c, PT::U32, p, src, lane));
                self.def(RegKind::Pred, |p| {
                    build::binary(Opcode::And, &[], PT::Pred, p, on, before)
                })
            }
        };
        let v = self.select(s, take, v, ident);
        let acc = apply(self, acc_in, v);
        let next = self.binop(Opcode::Add, &[], PT::U32, src, Operand::Imm(1));
        let more =
            self.def(RegKind::Pred, |p| build::setp(CmpOp::Lt, PT::U32, p, next, Operand::Imm(32)));
        // Every active lane runs the same iterations.
        self.mf.uniform_branches.push(self.cur);
        self.end_block(Term::Branch {
            cond: more,
            then_: Target { block: head, args: vec![next, acc] },
            else_: Target { block: merge, args: vec![acc] },
        });
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
        let m = self.binop(Opcode::And, &[], PT::B32, src, Operand::Imm(31));
        let b = self.def(RegKind::B32, |d| build::binary(Opcode::Shr, &[], PT::U32, d, mask, m));
        let b = self.binop(Opcode::And, &[], PT::B32, b, Operand::Imm(1));
        ne_zero(self, b)
    }
}

/// `setp.ne.u32 p, a, 0`.
fn ne_zero(l: &mut Lower<'_>, a: VRegId) -> VRegId {
    l.def(RegKind::Pred, |p| build::setp(CmpOp::Ne, PT::U32, p, a, Operand::Imm(0)))
}

/// `shfl.sync.MODE.b32 d, a, b, c, mask`.
fn shfl_b32(
    l: &mut Lower<'_>,
    mode: ShflMode,
    a: VRegId,
    b: VRegId,
    c: Operand,
    mask: VRegId,
) -> VRegId {
    l.def(RegKind::B32, |d| build::shfl_sync(mode, d, a, b, c, mask))
}
