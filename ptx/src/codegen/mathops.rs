//! The precise math library's [`Ops`] emitted as PTX: one instruction per operation, with
//! constants as immediate operands and operations on constants folded (by the same
//! [`Native`] arithmetic the library is specified with).

use super::lower::{f32_imm, Lower};
use super::regalloc::{BlockId, RegKind, Target, Term, VRegId};
use crate::math::{Cmp, Native, Ops};

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

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

impl Lower<'_> {
    /// Emits `op d, args...` with a fresh `kind` destination; constants become immediates.
    fn math_inst(&mut self, kind: RegKind, op: &str, args: &[(Opnd, Imm)]) -> VRegId {
        let mut text = String::with_capacity(48);
        text.push_str(op);
        text.push_str(" {d0}");
        let mut uses = Vec::with_capacity(args.len());
        for &(a, how) in args {
            text.push_str(", ");
            match a {
                Opnd::R(v) => {
                    text.push_str(&format!("{{u{}}}", uses.len()));
                    uses.push(v);
                }
                Opnd::K(b) => match how {
                    Imm::F32 => text.push_str(&f32_imm(b)),
                    Imm::S32 => text.push_str(&(b as i32).to_string()),
                    Imm::Hex => text.push_str(&format!("0x{b:08X}")),
                },
            }
        }
        self.op1(kind, text, uses)
    }

    /// A register holding the operand (constants are moved into one).
    pub(crate) fn reg(&mut self, a: Opnd) -> VRegId {
        match a {
            Opnd::R(v) => v,
            Opnd::K(b) => self.op1(RegKind::B32, format!("mov.b32 {{d0}}, 0x{b:08X}"), vec![]),
        }
    }

    fn f1(&mut self, op: &str, a: Opnd, fold: impl FnOnce(f32) -> f32) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(fold(f(x)).to_bits()),
            Opnd::R(_) => Opnd::R(self.math_inst(RegKind::B32, op, &[(a, Imm::F32)])),
        }
    }

    fn f2(&mut self, op: &str, a: Opnd, b: Opnd, fold: impl FnOnce(f32, f32) -> f32) -> Opnd {
        match (a, b) {
            (Opnd::K(x), Opnd::K(y)) => Opnd::K(fold(f(x), f(y)).to_bits()),
            _ => Opnd::R(self.math_inst(RegKind::B32, op, &[(a, Imm::F32), (b, Imm::F32)])),
        }
    }

    fn i2(&mut self, op: &str, how: Imm, a: Opnd, b: Opnd, fold: fn(u32, u32) -> u32) -> Opnd {
        match (a, b) {
            (Opnd::K(x), Opnd::K(y)) => Opnd::K(fold(x, y)),
            _ => Opnd::R(self.math_inst(RegKind::B32, op, &[(a, how), (b, how)])),
        }
    }

    fn shift(&mut self, op: &str, a: Opnd, n: u32, fold: impl FnOnce(u32) -> u32) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(fold(x)),
            Opnd::R(_) => {
                Opnd::R(self.math_inst(RegKind::B32, op, &[(a, Imm::Hex), (Opnd::K(n), Imm::S32)]))
            }
        }
    }

    fn pred_op(&mut self, op: &str, a: VRegId, b: VRegId) -> VRegId {
        self.op1(RegKind::Pred, format!("{op}.pred {{d0}}, {{u0}}, {{u1}}"), vec![a, b])
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
        self.f2("add.rn.f32", a, b, |x, y| Native.add(x, y))
    }
    fn sub(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2("sub.rn.f32", a, b, |x, y| Native.sub(x, y))
    }
    fn mul(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2("mul.rn.f32", a, b, |x, y| Native.mul(x, y))
    }
    fn fma(&mut self, a: Opnd, b: Opnd, c: Opnd) -> Opnd {
        if let (Opnd::K(x), Opnd::K(y), Opnd::K(z)) = (a, b, c) {
            return Opnd::K(Native.fma(f(x), f(y), f(z)).to_bits());
        }
        Opnd::R(self.math_inst(
            RegKind::B32,
            "fma.rn.f32",
            &[(a, Imm::F32), (b, Imm::F32), (c, Imm::F32)],
        ))
    }
    fn div(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.f2("div.rn.f32", a, b, |x, y| Native.div(x, y))
    }
    fn sqrt(&mut self, a: Opnd) -> Opnd {
        self.f1("sqrt.rn.f32", a, |x| Native.sqrt(x))
    }
    fn neg(&mut self, a: Opnd) -> Opnd {
        self.f1("neg.f32", a, |x| -x)
    }
    fn abs(&mut self, a: Opnd) -> Opnd {
        self.f1("abs.f32", a, f32::abs)
    }
    fn copysign(&mut self, mag: Opnd, sign: Opnd) -> Opnd {
        if let (Opnd::K(m), Opnd::K(s)) = (mag, sign) {
            return Opnd::K(f(m).copysign(f(s)).to_bits());
        }
        // PTX: `copysign d, a, b` gives b with a's sign.
        let (s, m) = (self.reg(sign), self.reg(mag));
        Opnd::R(self.op1(RegKind::B32, "copysign.f32 {d0}, {u0}, {u1}", vec![s, m]))
    }
    fn rint(&mut self, a: Opnd) -> Opnd {
        self.f1("cvt.rni.f32.f32", a, |x| Native.rint(x))
    }
    fn trunc(&mut self, a: Opnd) -> Opnd {
        self.f1("cvt.rzi.f32.f32", a, f32::trunc)
    }
    fn f2i(&mut self, a: Opnd) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(Native.f2i(f(x))),
            Opnd::R(v) => Opnd::R(self.op1(RegKind::B32, "cvt.rni.s32.f32 {d0}, {u0}", vec![v])),
        }
    }
    fn i2f(&mut self, a: Opnd) -> Opnd {
        match a {
            Opnd::K(x) => Opnd::K(Native.i2f(x).to_bits()),
            Opnd::R(v) => Opnd::R(self.op1(RegKind::B32, "cvt.rn.f32.s32 {d0}, {u0}", vec![v])),
        }
    }
    fn bits(&mut self, a: Opnd) -> Opnd {
        a
    }
    fn float(&mut self, a: Opnd) -> Opnd {
        a
    }
    fn iadd(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("add.s32", Imm::S32, a, b, u32::wrapping_add)
    }
    fn isub(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("sub.s32", Imm::S32, a, b, u32::wrapping_sub)
    }
    fn and(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("and.b32", Imm::Hex, a, b, |x, y| x & y)
    }
    fn or(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("or.b32", Imm::Hex, a, b, |x, y| x | y)
    }
    fn xor(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("xor.b32", Imm::Hex, a, b, |x, y| x ^ y)
    }
    fn shl(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift("shl.b32", a, n, |x| Native.shl(x, n))
    }
    fn shr_u(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift("shr.u32", a, n, |x| Native.shr_u(x, n))
    }
    fn shr_s(&mut self, a: Opnd, n: u32) -> Opnd {
        self.shift("shr.s32", a, n, |x| Native.shr_s(x, n))
    }
    fn imin(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("min.s32", Imm::S32, a, b, |x, y| Native.imin(x, y))
    }
    fn imax(&mut self, a: Opnd, b: Opnd) -> Opnd {
        self.i2("max.s32", Imm::S32, a, b, |x, y| Native.imax(x, y))
    }
    fn fcmp(&mut self, c: Cmp, a: Opnd, b: Opnd) -> VRegId {
        if let (Opnd::K(x), Opnd::K(y)) = (a, b) {
            return self.imm_pred(c.f32(f(x), f(y)));
        }
        let op = format!("setp.{}.f32", c.ptx());
        self.math_inst(RegKind::Pred, &op, &[(a, Imm::F32), (b, Imm::F32)])
    }
    fn icmp(&mut self, c: Cmp, a: Opnd, b: Opnd) -> VRegId {
        if let (Opnd::K(x), Opnd::K(y)) = (a, b) {
            return self.imm_pred(c.i32(x as i32, y as i32));
        }
        let c = if c == Cmp::Neu { "ne" } else { c.ptx() };
        let op = format!("setp.{c}.s32");
        self.math_inst(RegKind::Pred, &op, &[(a, Imm::S32), (b, Imm::S32)])
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
        self.pred_op("and", a, b)
    }
    fn por(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op("or", a, b)
    }
    fn pxor(&mut self, a: VRegId, b: VRegId) -> VRegId {
        self.pred_op("xor", a, b)
    }
    fn pnot(&mut self, a: VRegId) -> VRegId {
        self.op1(RegKind::Pred, "not.pred {d0}, {u0}", vec![a])
    }
    fn mad_wide(&mut self, a: Opnd, b: Opnd, c: Opnd) -> VRegId {
        let a = self.reg(a);
        let args = [(Opnd::R(a), Imm::Hex), (b, Imm::Hex)];
        if c == Opnd::K(0) {
            return self.math_inst(RegKind::B64, "mul.wide.u32", &args);
        }
        let c = self.reg(c);
        let c64 = self.op1(RegKind::B64, "cvt.u64.u32 {d0}, {u0}", vec![c]);
        let d = self.mf.new_vreg(RegKind::B64);
        let (bt, mut uses) = match b {
            Opnd::R(v) => ("{u1}".to_string(), vec![a, v]),
            Opnd::K(k) => (format!("0x{k:08X}"), vec![a]),
        };
        let ci = uses.len();
        uses.push(c64);
        self.emit(format!("mad.wide.u32 {{d0}}, {{u0}}, {bt}, {{u{ci}}}"), vec![d], uses);
        d
    }
    fn lo(&mut self, a: VRegId) -> Opnd {
        Opnd::R(self.op1(RegKind::B32, "cvt.u32.u64 {d0}, {u0}", vec![a]))
    }
    fn hi(&mut self, a: VRegId) -> Opnd {
        let t = self.op1(RegKind::B64, "shr.u64 {d0}, {u0}, 32", vec![a]);
        Opnd::R(self.op1(RegKind::B32, "cvt.u32.u64 {d0}, {u0}", vec![t]))
    }
    fn pack(&mut self, lo: Opnd, hi: Opnd) -> VRegId {
        let (l, h) = (self.reg(lo), self.reg(hi));
        self.op1(RegKind::B64, "mov.b64 {d0}, {{u0}, {u1}}", vec![l, h])
    }
    fn lshr(&mut self, a: VRegId, n: Opnd) -> VRegId {
        match n {
            Opnd::K(k) => self.op1(RegKind::B64, format!("shr.u64 {{d0}}, {{u0}}, {k}"), vec![a]),
            Opnd::R(v) => self.op1(RegKind::B64, "shr.u64 {d0}, {u0}, {u1}", vec![a, v]),
        }
    }
    fn lshl(&mut self, a: VRegId, n: u32) -> VRegId {
        self.op1(RegKind::B64, format!("shl.b64 {{d0}}, {{u0}}, {n}"), vec![a])
    }
    fn l2d(&mut self, a: VRegId) -> VRegId {
        self.op1(RegKind::B64, "cvt.rn.f64.s64 {d0}, {u0}", vec![a])
    }
    fn dmul(&mut self, a: VRegId, k: f64) -> VRegId {
        self.op1(
            RegKind::B64,
            format!("mul.rn.f64 {{d0}}, {{u0}}, 0d{:016X}", k.to_bits()),
            vec![a],
        )
    }
    fn d2f(&mut self, a: VRegId) -> Opnd {
        Opnd::R(self.op1(RegKind::B32, "cvt.rn.f32.f64 {d0}, {u0}", vec![a]))
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
        let ty = if matches!(how, Imm::F32) { "f32" } else { "b32" };
        let mut text = format!("selp.{ty} {{d0}}");
        let mut uses = Vec::with_capacity(3);
        for x in [a, b] {
            text.push_str(", ");
            match x {
                Opnd::R(v) => {
                    text.push_str(&format!("{{u{}}}", uses.len()));
                    uses.push(v);
                }
                Opnd::K(k) => text.push_str(&match how {
                    Imm::F32 => f32_imm(k),
                    Imm::S32 => (k as i32).to_string(),
                    Imm::Hex => format!("0x{k:08X}"),
                }),
            }
        }
        text.push_str(&format!(", {{u{}}}", uses.len()));
        uses.push(p);
        self.op1(RegKind::B32, text, uses)
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
