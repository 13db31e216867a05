//! The precise f64 math library's [`Ops64`] emitted as PTX: one instruction per operation
//! (constants moved into `%rd` registers, which ptxas folds into immediates), on `%rd`
//! registers for both the f64 values and their bits.

use super::lower::Lower;
use super::mathops::cmp_op;
use super::regalloc::{BlockId, RegKind, Target, Term, VRegId};
use crate::math::f64::Ops64;
use crate::math::Cmp;
use crate::model::{build, Modifier, Opcode, Operand, Rounding, Type as PT};

/// `.rn`.
const RN: [Modifier; 1] = [Modifier::Round(Rounding::Rn)];

impl Lower<'_> {
    /// `op.rn.f64 d, a, b`.
    pub(crate) fn f64_bin(&mut self, op: Opcode, a: VRegId, b: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::binary(op, &RN, PT::F64, d, a, b))
    }

    /// `op.T d, a, b` on 64-bit integers.
    pub(crate) fn i64_bin(
        &mut self,
        op: Opcode,
        t: PT,
        a: VRegId,
        b: impl Into<Operand>,
    ) -> VRegId {
        self.def(RegKind::B64, |d| build::binary(op, &[], t, d, a, b))
    }
}

impl Ops64 for Lower<'_> {
    type D = VRegId;
    type L = VRegId;
    type P = VRegId;

    fn k(&mut self, v: f64) -> VRegId {
        self.def(RegKind::B64, |d| build::mov(PT::F64, d, Operand::ImmF64(v.to_bits())))
    }
    fn kl(&mut self, v: u64) -> VRegId {
        self.def(RegKind::B64, |d| build::mov(PT::B64, d, Operand::ImmHex(v)))
    }
    fn add(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.f64_bin(Opcode::Add, a, b)
    }
    fn sub(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.f64_bin(Opcode::Sub, a, b)
    }
    fn mul(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.f64_bin(Opcode::Mul, a, b)
    }
    fn fma(&mut self, a: VRegId, b: VRegId, c: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::fma_rn(PT::F64, d, a, b, c))
    }
    fn div(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.f64_bin(Opcode::Div, a, b)
    }
    fn sqrt(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::unary(Opcode::Sqrt, &RN, PT::F64, d, a))
    }
    fn rint(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::cvt(Some(Rounding::Rni), false, PT::F64, PT::F64, d, a))
    }
    fn d2l(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::cvt(Some(Rounding::Rni), false, PT::S64, PT::F64, d, a))
    }
    fn l2d(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::cvt(Some(Rounding::Rn), false, PT::F64, PT::S64, d, a))
    }
    fn bits(&mut self, a: VRegId) -> VRegId {
        a
    }
    fn float(&mut self, a: VRegId) -> VRegId {
        a
    }
    fn ladd(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.i64_bin(Opcode::Add, PT::S64, a, b)
    }
    fn lsub(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.i64_bin(Opcode::Sub, PT::S64, a, b)
    }
    fn land(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.i64_bin(Opcode::And, PT::B64, a, b)
    }
    fn lshl(&mut self, a: VRegId, n: u32) -> VRegId {
        self.i64_bin(Opcode::Shl, PT::B64, a, Operand::Imm(i64::from(n)))
    }
    fn lshr_s(&mut self, a: VRegId, n: u32) -> VRegId {
        self.i64_bin(Opcode::Shr, PT::S64, a, Operand::Imm(i64::from(n)))
    }
    fn cmp(&mut self, c: Cmp, a: VRegId, b: VRegId) -> VRegId {
        self.def(RegKind::Pred, |p| build::setp(cmp_op(c), PT::F64, p, a, b))
    }
    fn por(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op(Opcode::Or, a, b)
    }
    fn sel(&mut self, p: VRegId, a: VRegId, b: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::selp(PT::F64, d, a, b, p))
    }
    fn branch<const N: usize>(
        &mut self,
        p: VRegId,
        then_: impl FnOnce(&mut Self) -> [VRegId; N],
        else_: impl FnOnce(&mut Self) -> [VRegId; N],
    ) -> [VRegId; N] {
        let (tb, eb, merge) = (self.mf.new_block(), self.mf.new_block(), self.mf.new_block());
        let params: [VRegId; N] = std::array::from_fn(|_| self.mf.new_vreg(RegKind::B64));
        if let Some(b) = self.mf.blocks.get_mut(merge.0 as usize) {
            b.params = params.to_vec();
        }
        self.set_term(Term::Branch {
            cond: p,
            then_: Target { block: tb, args: vec![] },
            else_: Target { block: eb, args: vec![] },
        });
        self.branch_arm64(tb, merge, then_);
        self.branch_arm64(eb, merge, else_);
        self.cur = merge;
        params
    }
}

impl Lower<'_> {
    /// One side of [`Ops64::branch`]: emitted into `block`, ending in a jump to `merge` with
    /// its values as the block arguments.
    fn branch_arm64<const N: usize>(
        &mut self,
        block: BlockId,
        merge: BlockId,
        arm: impl FnOnce(&mut Self) -> [VRegId; N],
    ) {
        self.cur = block;
        let vals = arm(self);
        self.jump(merge, vals.to_vec());
    }
}
