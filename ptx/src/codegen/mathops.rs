//! The precise math library's [`Ops`] emitted as PTX: one instruction per operation, with
//! constants as immediate operands and operations on constants folded (by the same
//! [`Native`] arithmetic the library is specified with).

use super::lower::Lower;
use super::regalloc::{BlockId, RegKind, Target, Term, VRegId};
use crate::math::{Cmp, Native, Ops};
use crate::model::{
    build, CmpOp, Flag, Instruction, Modifier, Opcode, Operand, Rounding, Type as PT,
};

/// A 32-bit math operand: a virtual register or a constant (its bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opnd {
    /// A `%r` register.
    R(VRegId),
    /// A constant, printed as an immediate.
    K(u32),
}

/// How a constant operand is spelled.
#[derive(Clone, Copy)]
enum Imm {
    /// `0fXXXXXXXX`
    F32,
    /// Signed decimal.
    S32,
    /// `0xXXXXXXXX`
    Hex,
}

impl Imm {
    /// The operand for `a`: its register, or its constant spelled this way.
    fn operand(self, a: Opnd) -> Operand {
        match (a, self) {
            (Opnd::R(v), _) => v.into(),
            (Opnd::K(b), Imm::F32) => Operand::ImmF32(b),
            (Opnd::K(b), Imm::S32) => Operand::Imm(i64::from(b as i32)),
            (Opnd::K(b), Imm::Hex) => Operand::ImmHex(u64::from(b)),
        }
    }
}

/// `.rn.f32`.
const RN_F32: [Modifier; 2] = [Modifier::Round(Rounding::Rn), Modifier::Type(PT::F32)];
/// `.f32`.
const F32: [Modifier; 1] = [Modifier::Type(PT::F32)];
/// `.s32`.
const S32: [Modifier; 1] = [Modifier::Type(PT::S32)];
/// `.b32`.
const B32: [Modifier; 1] = [Modifier::Type(PT::B32)];

/// The `setp` comparison of a math-library comparison.
pub(crate) fn cmp_op(c: Cmp) -> CmpOp {
    match c {
        Cmp::Eq => CmpOp::Eq,
        Cmp::Ne => CmpOp::Ne,
        Cmp::Lt => CmpOp::Lt,
        Cmp::Le => CmpOp::Le,
        Cmp::Gt => CmpOp::Gt,
        Cmp::Ge => CmpOp::Ge,
        Cmp::Neu => CmpOp::Neu,
        Cmp::Nan => CmpOp::Nan,
    }
}

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

impl Lower<'_> {
    /// Emits `op.mods d, args...` with a fresh `kind` destination; constants become immediates.
    fn math_inst(
        &mut self,
        kind: RegKind,
        op: Opcode,
        mods: &[Modifier],
        args: &[(Opnd, Imm)],
    ) -> VRegId {
        let srcs: Vec<Operand> = args.iter().map(|&(a, how)| how.operand(a)).collect();
        self.op(kind, op, mods, &srcs)
    }

    /// A register holding the operand (constants are moved into one).
    pub(crate) fn reg(&mut self, a: Opnd) -> VRegId {
        match a {
            Opnd::R(v) => v,
            Opnd::K(b) => {
                self.def(RegKind::B32, |d| build::mov(PT::B32, d, Operand::ImmHex(u64::from(b))))
            }
        }
    }

    fn f1(
        &mut self,
        op: Opcode,
        mods: &[Modifier],
        a: Opnd,
        fold: impl FnOnce(f32) -> f32,
    ) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(fold(f(x)).to_bits()),
            Opnd::R(_) => Opnd::R(self.math_inst(RegKind::B32, op, mods, &[(a, Imm::F32)])),
        }
    }

    fn f2(&mut self, op: Opcode, a: Opnd, b: Opnd, fold: impl FnOnce(f32, f32) -> f32) -> Opnd {
        match (a, b) {
            (Opnd::K(x), Opnd::K(y)) => Opnd::K(fold(f(x), f(y)).to_bits()),
            _ => {
                Opnd::R(self.math_inst(RegKind::B32, op, &RN_F32, &[(a, Imm::F32), (b, Imm::F32)]))
            }
        }
    }

    fn i2(
        &mut self,
        op: Opcode,
        mods: &[Modifier],
        how: Imm,
        a: Opnd,
        b: Opnd,
        fold: fn(u32, u32) -> u32,
    ) -> Opnd {
        match (a, b) {
            (Opnd::K(x), Opnd::K(y)) => Opnd::K(fold(x, y)),
            _ => Opnd::R(self.math_inst(RegKind::B32, op, mods, &[(a, how), (b, how)])),
        }
    }

    fn shift(&mut self, op: Opcode, t: PT, a: Opnd, n: u32, fold: impl FnOnce(u32) -> u32) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(fold(x)),
            Opnd::R(_) => Opnd::R(self.math_inst(
                RegKind::B32,
                op,
                &[t.into()],
                &[(a, Imm::Hex), (Opnd::K(n), Imm::S32)],
            )),
        }
    }
}

impl Ops for Lower<'_> {
    type F = Opnd;
    type I = Opnd;
    type P = VRegId;
    type L = VRegId;
    type D = VRegId;

    fn cf(&mut self, v: f32) -> Opnd {
        Opnd::K(v.to_bits())
    }
    fn ci(&mut self, v: u32) -> Opnd {
        Opnd::K(v)
    }
    fn add(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2(Opcode::Add, a, b, |x, y| Native.add(x, y))
    }
    fn sub(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2(Opcode::Sub, a, b, |x, y| Native.sub(x, y))
    }
    fn mul(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2(Opcode::Mul, a, b, |x, y| Native.mul(x, y))
    }
    fn fma(&mut self, a: Opnd, b: Opnd, c: Opnd) -> Opnd {
        if let (Opnd::K(x), Opnd::K(y), Opnd::K(z)) = (a, b, c) {
            return Opnd::K(Native.fma(f(x), f(y), f(z)).to_bits());
        }
        Opnd::R(self.math_inst(
            RegKind::B32,
            Opcode::Fma,
            &RN_F32,
            &[(a, Imm::F32), (b, Imm::F32), (c, Imm::F32)],
        ))
    }
    fn div(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2(Opcode::Div, a, b, |x, y| Native.div(x, y))
    }
    fn sqrt(&mut self, a: Opnd) -> Opnd {
        self.f1(Opcode::Sqrt, &RN_F32, a, |x| Native.sqrt(x))
    }
    fn rsqrt_approx(&mut self, a: Opnd) -> Opnd {
        let mods = [Flag::Approx.into(), Flag::Ftz.into(), PT::F32.into()];
        self.f1(Opcode::Rsqrt, &mods, a, |x| Native.rsqrt_approx(x))
    }
    fn rcp_approx(&mut self, a: Opnd) -> Opnd {
        let mods = [Flag::Approx.into(), Flag::Ftz.into(), PT::F32.into()];
        self.f1(Opcode::Rcp, &mods, a, |x| Native.rcp_approx(x))
    }
    fn neg(&mut self, a: Opnd) -> Opnd {
        self.f1(Opcode::Neg, &F32, a, |x| -x)
    }
    fn abs(&mut self, a: Opnd) -> Opnd {
        self.f1(Opcode::Abs, &F32, a, f32::abs)
    }
    fn copysign(&mut self, mag: Opnd, sign: Opnd) -> Opnd {
        if let (Opnd::K(m), Opnd::K(s)) = (mag, sign) {
            return Opnd::K(f(m).copysign(f(s)).to_bits());
        }
        // PTX: `copysign d, a, b` gives b with a's sign.
        let (s, m) = (self.reg(sign), self.reg(mag));
        Opnd::R(self.def(RegKind::B32, |d| build::binary(Opcode::Copysign, &[], PT::F32, d, s, m)))
    }
    fn rint(&mut self, a: Opnd) -> Opnd {
        self.f1(Opcode::Cvt, &[Rounding::Rni.into(), PT::F32.into(), PT::F32.into()], a, |x| {
            Native.rint(x)
        })
    }
    fn trunc(&mut self, a: Opnd) -> Opnd {
        self.f1(Opcode::Cvt, &[Rounding::Rzi.into(), PT::F32.into(), PT::F32.into()], a, f32::trunc)
    }
    fn f2i(&mut self, a: Opnd) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(Native.f2i(f(x))),
            Opnd::R(v) => Opnd::R(self.def(RegKind::B32, |d| {
                build::cvt(Some(Rounding::Rni), false, PT::S32, PT::F32, d, v)
            })),
        }
    }
    fn i2f(&mut self, a: Opnd) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(Native.i2f(x).to_bits()),
            Opnd::R(v) => Opnd::R(self.def(RegKind::B32, |d| {
                build::cvt(Some(Rounding::Rn), false, PT::F32, PT::S32, d, v)
            })),
        }
    }
    fn bits(&mut self, a: Opnd) -> Opnd {
        a
    }
    fn float(&mut self, a: Opnd) -> Opnd {
        a
    }
    fn iadd(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Add, &S32, Imm::S32, a, b, u32::wrapping_add)
    }
    fn isub(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Sub, &S32, Imm::S32, a, b, u32::wrapping_sub)
    }
    fn and(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::And, &B32, Imm::Hex, a, b, |x, y| x & y)
    }
    fn or(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Or, &B32, Imm::Hex, a, b, |x, y| x | y)
    }
    fn xor(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Xor, &B32, Imm::Hex, a, b, |x, y| x ^ y)
    }
    fn shl(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift(Opcode::Shl, PT::B32, a, n, |x| Native.shl(x, n))
    }
    fn shr_u(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift(Opcode::Shr, PT::U32, a, n, |x| Native.shr_u(x, n))
    }
    fn shr_s(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift(Opcode::Shr, PT::S32, a, n, |x| Native.shr_s(x, n))
    }
    fn imin(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Min, &S32, Imm::S32, a, b, |x, y| Native.imin(x, y))
    }
    fn imax(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2(Opcode::Max, &S32, Imm::S32, a, b, |x, y| Native.imax(x, y))
    }
    fn fcmp(&mut self, c: Cmp, a: Opnd, b: Opnd) -> VRegId {
        if let (Opnd::K(x), Opnd::K(y)) = (a, b) {
            return self.imm_pred(c.f32(f(x), f(y)));
        }
        let mods = [cmp_op(c).into(), PT::F32.into()];
        self.math_inst(RegKind::Pred, Opcode::Setp, &mods, &[(a, Imm::F32), (b, Imm::F32)])
    }
    fn icmp(&mut self, c: Cmp, a: Opnd, b: Opnd) -> VRegId {
        if let (Opnd::K(x), Opnd::K(y)) = (a, b) {
            return self.imm_pred(c.i32(x as i32, y as i32));
        }
        let c = if c == Cmp::Neu { CmpOp::Ne } else { cmp_op(c) };
        let mods = [c.into(), PT::S32.into()];
        self.math_inst(RegKind::Pred, Opcode::Setp, &mods, &[(a, Imm::S32), (b, Imm::S32)])
    }
    fn fsel(&mut self, p: VRegId, a: Opnd, b: Opnd) -> Opnd {
        if a == b {
            return a;
        }
        self.sel(p, a, b, Imm::F32)
    }
    fn isel(&mut self, p: VRegId, a: Opnd, b: Opnd) -> Opnd {
        if a == b {
            return a;
        }
        self.sel(p, a, b, Imm::Hex)
    }
    fn pand(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op(Opcode::And, a, b)
    }
    fn por(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op(Opcode::Or, a, b)
    }
    fn pxor(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op(Opcode::Xor, a, b)
    }
    fn pnot(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::Pred, |d| build::unary(Opcode::Not, &[], PT::Pred, d, a))
    }
    fn mad_wide(&mut self, a: Opnd, b: Opnd, c: Opnd) -> VRegId {
        let a = self.reg(a);
        let args = [(Opnd::R(a), Imm::Hex), (b, Imm::Hex)];
        if c == Opnd::K(0) {
            let mods = [Flag::Wide.into(), PT::U32.into()];
            return self.math_inst(RegKind::B64, Opcode::Mul, &mods, &args);
        }
        let c = self.reg(c);
        let c64 = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, c));
        let b = Imm::Hex.operand(b);
        self.def(RegKind::B64, |d| {
            Instruction::new(
                Opcode::Mad,
                vec![Flag::Wide.into(), PT::U32.into()],
                vec![d.into(), a.into(), b, c64.into()],
            )
        })
    }
    fn lo(&mut self, a: VRegId) -> Opnd {
        Opnd::R(self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, a)))
    }
    fn hi(&mut self, a: VRegId) -> Opnd {
        let t = self.def(RegKind::B64, |d| {
            build::binary(Opcode::Shr, &[], PT::U64, d, a, Operand::Imm(32))
        });
        Opnd::R(self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, t)))
    }
    fn pack(&mut self, lo: Opnd, hi: Opnd) -> VRegId {
        let (l, h) = (self.reg(lo), self.reg(hi));
        self.def(RegKind::B64, |d| build::pack(PT::B64, d, &[l, h]))
    }
    fn lshr(&mut self, a: VRegId, n: Opnd) -> VRegId {
        match n {
            Opnd::K(k) => self.def(RegKind::B64, |d| {
                build::binary(Opcode::Shr, &[], PT::U64, d, a, Operand::Imm(i64::from(k)))
            }),
            Opnd::R(v) => {
                self.def(RegKind::B64, |d| build::binary(Opcode::Shr, &[], PT::U64, d, a, v))
            }
        }
    }
    fn lshl(&mut self, a: VRegId, n: u32) -> VRegId {
        self.def(RegKind::B64, |d| {
            build::binary(Opcode::Shl, &[], PT::B64, d, a, Operand::Imm(i64::from(n)))
        })
    }
    fn l2d(&mut self, a: VRegId) -> VRegId {
        self.def(RegKind::B64, |d| build::cvt(Some(Rounding::Rn), false, PT::F64, PT::S64, d, a))
    }
    fn dmul(&mut self, a: VRegId, k: f64) -> VRegId {
        self.def(RegKind::B64, |d| {
            build::binary(Opcode::Mul, &[Rounding::Rn.into()], PT::F64, d, a, Operand::f64(k))
        })
    }
    fn d2f(&mut self, a: VRegId) -> Opnd {
        Opnd::R(
            self.def(RegKind::B32, |d| {
                build::cvt(Some(Rounding::Rn), false, PT::F32, PT::F64, d, a)
            }),
        )
    }
    fn branch<const N: usize>(
        &mut self,
        p: VRegId,
        then_: impl FnOnce(&mut Self) -> [Opnd; N],
        else_: impl FnOnce(&mut Self) -> [Opnd; N],
    ) -> [Opnd; N] {
        let (tb, eb, merge) = (self.mf.new_block(), self.mf.new_block(), self.mf.new_block());
        let params: [VRegId; N] = std::array::from_fn(|_| self.mf.new_vreg(RegKind::B32));
        if let Some(b) = self.mf.blocks.get_mut(merge.0 as usize) {
            b.params = params.to_vec();
        }
        self.set_term(Term::Branch {
            cond: p,
            then_: Target { block: tb, args: vec![] },
            else_: Target { block: eb, args: vec![] },
        });
        self.branch_arm(tb, merge, then_);
        self.branch_arm(eb, merge, else_);
        self.cur = merge;
        params.map(Opnd::R)
    }
}

impl Lower<'_> {
    fn sel(&mut self, p: VRegId, a: Opnd, b: Opnd, how: Imm) -> Opnd {
        Opnd::R(self.math_inst_pred(p, a, b, how))
    }

    /// `selp.f32/b32 d, a, b, p` (the predicate is the last operand).
    fn math_inst_pred(&mut self, p: VRegId, a: Opnd, b: Opnd, how: Imm) -> VRegId {
        let ty = if matches!(how, Imm::F32) { PT::F32 } else { PT::B32 };
        let (a, b) = (how.operand(a), how.operand(b));
        self.def(RegKind::B32, |d| build::selp(ty, d, a, b, p))
    }

    /// One side of [`Ops::branch`]: emitted into `block`, ending in a jump to `merge` with its
    /// values (constants moved into registers) as the block arguments.
    fn branch_arm<const N: usize>(
        &mut self,
        block: BlockId,
        merge: BlockId,
        arm: impl FnOnce(&mut Self) -> [Opnd; N],
    ) {
        self.cur = block;
        let vals = arm(self);
        let args: Vec<VRegId> = vals.iter().map(|&v| self.reg(v)).collect();
        self.jump(merge, args);
    }
}
