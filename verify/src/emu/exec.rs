//! Per-lane execution of ordinary instructions (everything that is not a barrier or a
//! warp-collective instruction) and the register, operand and memory accessors.

use super::decode::{Base, DInst, Opd, Prog};
use super::memory::{Mem, LOCAL_WINDOW, SHARED_WINDOW, WINDOW};
use super::num::{cvt, ftz32, int_range, int_val, mask, sext, tf32_rna, two_sum, Fmt};
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{
    AtomOp, BoolOp, CmpOp, Flag, Opcode, Rounding, SpecialReg, StateSpace, TestpOp, Type,
};

/// What a lane does after an instruction.
pub(crate) enum Flow {
    Next,
    Jump(usize),
    Exit,
    /// `call`: the arguments are copied; go to the callee's first instruction.
    Call(usize),
    /// `ret`: return to the caller (or exit the thread in the entry).
    Ret,
}

/// The state of one CTA.
pub(crate) struct Cta<'a> {
    pub prog: &'a Prog,
    pub regs: Vec<u64>,
    pub def: Vec<bool>,
    pub mem: Mem<'a>,
    pub tid: Vec<[u32; 3]>,
    pub ctaid: [u32; 3],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub steps: u64,
    /// Each thread's carry flag (`add.cc`, `addc`, ...).
    pub cc: Vec<bool>,
    /// [`super::EmuOptions::undefined_registers`].
    pub undefined: Option<u64>,
    /// The counters, when the launch is profiled.
    pub prof: Option<Box<Profiler>>,
    /// `wgmma` products in flight (`super::wgmma`).
    pub wg: super::wgmma::Async,
    /// `cp.async` copies in flight (`super::cp_async`).
    pub cp: super::cp_async::Copies,
}

/// The counters of a profiled launch and a reusable list of one instruction's accesses.
pub(crate) struct Profiler {
    pub p: super::profile::Profile,
    pub accesses: Vec<super::profile::Access>,
}

/// The shared-memory offset an access to `space` at `a` reaches, directly or through the
/// generic window; `None` outside shared memory.
fn shared_offset(space: StateSpace, a: u64) -> Option<u64> {
    match space {
        StateSpace::Shared => Some(a),
        StateSpace::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&a) => {
            Some(a - SHARED_WINDOW)
        }
        _ => None,
    }
}

fn as_f32(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

fn f32b(x: f32) -> u64 {
    u64::from(x.to_bits())
}

impl Cta<'_> {
    /// Register `slot` of thread `t`; an error if never written, or if it is the accumulator
    /// of a `wgmma` product not yet waited for.
    pub fn rd(&self, t: usize, slot: u32, i: &DInst) -> Result<u64, EmuError> {
        if self.wg.is_pending(t * self.prog.nslots + slot as usize) {
            return Err(super::wgmma::pending_error(self, t, slot, i, false));
        }
        self.rd_raw(t, slot, i)
    }

    /// [`Cta::rd`] without the `wgmma` rule (the product itself accumulates).
    pub fn rd_raw(&self, t: usize, slot: u32, i: &DInst) -> Result<u64, EmuError> {
        let idx = t * self.prog.nslots + slot as usize;
        match (self.def.get(idx), self.regs.get(idx)) {
            (Some(true), Some(v)) => Ok(*v),
            (Some(false), Some(_)) if self.undefined.is_some() => {
                let bits = self.prog.slot_bits.get(slot as usize).copied().unwrap_or(64);
                Ok(self.undefined.unwrap_or(0) & mask(u32::from(bits)))
            }
            _ => Err(i.err(
                EmuErrorKind::UndefinedRegister,
                format!(
                    "register {} is read before it is written (thread {:?} of CTA {:?})",
                    self.prog.slot_name(slot),
                    self.tid.get(t).copied().unwrap_or_default(),
                    self.ctaid
                ),
            )),
        }
    }

    /// Writes register `slot` of thread `t`, truncated to the register's width.
    pub fn wr(&mut self, t: usize, slot: u32, v: u64) {
        let idx = t * self.prog.nslots + slot as usize;
        let bits = self.prog.slot_bits.get(slot as usize).copied().unwrap_or(64);
        if let (Some(r), Some(d)) = (self.regs.get_mut(idx), self.def.get_mut(idx)) {
            *r = v & mask(u32::from(bits));
            *d = true;
        }
    }

    fn special(&self, t: usize, s: SpecialReg) -> u64 {
        let tid = self.tid.get(t).copied().unwrap_or_default();
        let lane = (t % 32) as u64;
        let nthreads = self.block.iter().map(|&d| d as usize).product::<usize>();
        match s {
            SpecialReg::Tid(d) => u64::from(tid[d.index()]),
            SpecialReg::Ntid(d) => u64::from(self.block[d.index()]),
            SpecialReg::Ctaid(d) => u64::from(self.ctaid[d.index()]),
            SpecialReg::Nctaid(d) => u64::from(self.grid[d.index()]),
            SpecialReg::Laneid => lane,
            SpecialReg::Warpid => (t / 32) as u64,
            SpecialReg::Nwarpid => nthreads.div_ceil(32) as u64,
            SpecialReg::Smid => 0,
            SpecialReg::LanemaskEq => 1 << lane,
            SpecialReg::LanemaskLt => (1 << lane) - 1,
            SpecialReg::LanemaskLe => (2u64 << lane) - 1,
            SpecialReg::LanemaskGt => !((2u64 << lane) - 1) & 0xffff_ffff,
            SpecialReg::LanemaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            SpecialReg::Clock | SpecialReg::Clock64 => self.steps,
            SpecialReg::Globaltimer => 0,
        }
    }

    /// The value of source operand `o` read as `ty`, truncated to its width.
    pub fn val(&self, t: usize, o: &Opd, ty: Type, i: &DInst) -> Result<u64, EmuError> {
        let bits = ty.bits().max(1);
        let v = match o {
            Opd::Reg(s) => self.rd(t, *s, i)?,
            Opd::Not(s) => u64::from(self.rd(t, *s, i)? & 1 == 0),
            Opd::Imm(v) => match Fmt::of(ty) {
                Some(f) if !matches!(ty, Type::F16x2 | Type::Bf16x2) => {
                    f.round(*v as f64, Rounding::Rn)
                }
                _ => *v as u64,
            },
            Opd::F32(b) => match ty {
                Type::F64 => f64::from(f32::from_bits(*b)).to_bits(),
                Type::F16 => Fmt::F16.round(f64::from(f32::from_bits(*b)), Rounding::Rn),
                _ => u64::from(*b),
            },
            Opd::F64(b) => match ty {
                Type::F32 => f32b(f64::from_bits(*b) as f32),
                Type::F16 => Fmt::F16.round(f64::from_bits(*b), Rounding::Rn),
                _ => *b,
            },
            Opd::Special(s) => self.special(t, *s),
            Opd::Sym(_, a) => *a,
            _ => return Err(i.err(EmuErrorKind::Unsupported, "operand form not allowed here")),
        };
        Ok(v & mask(bits))
    }

    /// Source operand `k` read as `ty`.
    pub fn src(&self, t: usize, i: &DInst, k: usize, ty: Type) -> Result<u64, EmuError> {
        self.val(t, i.opd(k)?, ty, i)
    }

    /// A predicate operand (`%p` or `!%p`).
    pub fn pred(&self, t: usize, o: &Opd, i: &DInst) -> Result<bool, EmuError> {
        Ok(self.val(t, o, Type::Pred, i)? & 1 == 1)
    }

    /// Writes destination operand `k` (a register or `_`).
    pub fn dst(&mut self, t: usize, i: &DInst, k: usize, v: u64) -> Result<(), EmuError> {
        match i.opd(k)? {
            Opd::Reg(s) => {
                if self.wg.is_pending(t * self.prog.nslots + *s as usize) {
                    return Err(super::wgmma::pending_error(self, t, *s, i, true));
                }
                self.wr(t, *s, v);
                Ok(())
            }
            Opd::Sink => Ok(()),
            _ => Err(i.err(EmuErrorKind::Unsupported, "the destination must be a register")),
        }
    }

    /// The address of memory operand `o` and the state space it is in.
    pub fn addr(&self, t: usize, o: &Opd, i: &DInst) -> Result<(StateSpace, u64), EmuError> {
        let Opd::Addr(base, off) = o else {
            return Err(i.err(EmuErrorKind::Unsupported, "expected a memory operand [..]"));
        };
        let (space, b) = match *base {
            Base::Reg(s) => (i.space, self.rd(t, s, i)?),
            Base::Var(sp, a) => match i.space {
                StateSpace::Generic => match sp {
                    StateSpace::Shared => (StateSpace::Generic, SHARED_WINDOW + a),
                    StateSpace::Local => (StateSpace::Generic, LOCAL_WINDOW + a),
                    _ => (sp, a),
                },
                _ => (i.space, a),
            },
        };
        Ok((space, b.wrapping_add(*off as u64)))
    }

    /// Loads `size` bytes.
    pub fn load(
        &mut self,
        t: usize,
        space: StateSpace,
        a: u64,
        size: usize,
        i: &DInst,
    ) -> Result<u64, EmuError> {
        if let Some(b) = self.shared_in_flight(space, a, size) {
            return Err(super::cp_async::dst_error(self, t, b, i));
        }
        self.mem.load(space, a, size, t).map_err(|m| self.oob(t, i, m))
    }

    /// Copies call arguments or results in thread `t`'s parameter memory.
    pub fn copy_params(
        &mut self,
        t: usize,
        copies: &[(u64, u64, usize)],
        i: &DInst,
    ) -> Result<(), EmuError> {
        for &(src, dst, size) in copies {
            self.mem.copy_param(src, dst, size, t).map_err(|m| self.oob(t, i, m))?;
        }
        Ok(())
    }

    /// Stores `size` bytes.
    pub fn store(
        &mut self,
        t: usize,
        space: StateSpace,
        a: u64,
        size: usize,
        v: u64,
        i: &DInst,
    ) -> Result<(), EmuError> {
        if let Some(sa) = shared_offset(space, a) {
            if let Some(b) = self.wg.overwrites(sa, size) {
                return Err(super::wgmma::overwrite_error(self, t, b, i));
            }
        }
        if let Some(b) = self.shared_in_flight(space, a, size) {
            return Err(super::cp_async::dst_error(self, t, b, i));
        }
        if matches!(space, StateSpace::Global | StateSpace::Generic) {
            if let Some(b) = self.cp.in_flight_src(a, size) {
                return Err(super::cp_async::src_error(self, t, b, i));
            }
        }
        self.mem.store(space, a, size, v, t).map_err(|m| self.oob(t, i, m))
    }

    /// The first byte of an access to `space` at `a` that is the destination of a `cp.async`
    /// in flight (shared memory, directly or through the generic window).
    fn shared_in_flight(&self, space: StateSpace, a: u64, size: usize) -> Option<u64> {
        self.cp.in_flight_dst(shared_offset(space, a)?, size)
    }

    fn oob(&self, t: usize, i: &DInst, m: String) -> EmuError {
        i.err(
            EmuErrorKind::OutOfBounds,
            format!(
                "{m} (thread {:?} of CTA {:?})",
                self.tid.get(t).copied().unwrap_or_default(),
                self.ctaid
            ),
        )
    }

    /// Executes one lane-level instruction for thread `t` (the guard already held).
    pub fn exec(&mut self, t: usize, i: &DInst) -> Result<Flow, EmuError> {
        match i.op {
            Opcode::Bra => match i.opd(0)? {
                Opd::Label(l) => return Ok(Flow::Jump(*l)),
                _ => return Err(i.unsupported()),
            },
            Opcode::Ret => {
                return Ok(match i.ret_to {
                    Some(to) => Flow::Jump(to),
                    None => Flow::Ret,
                })
            }
            Opcode::Exit => return Ok(Flow::Exit),
            Opcode::Call => {
                let Some(c) = &i.call else { return Err(i.unsupported()) };
                if c.body.is_none() {
                    return Err(i.err(
                        EmuErrorKind::Unsupported,
                        format!("'{}' is declared without a body in this module", c.name),
                    ));
                }
                self.copy_params(t, &c.args, i)?;
                return Ok(Flow::Call(c.target));
            }
            Opcode::Addc | Opcode::Subc | Opcode::Madc => self.carry_arith(t, i)?,
            Opcode::Add | Opcode::Sub | Opcode::Mad if i.has(Flag::Cc) => self.carry_arith(t, i)?,
            Opcode::Shf => {
                let a = self.src(t, i, 1, Type::B32)?;
                let b = self.src(t, i, 2, Type::B32)?;
                let c = self.src(t, i, 3, Type::U32)?;
                let n = if i.has(Flag::Clamp) { c.min(32) } else { c & 31 };
                let both = (b << 32) | a;
                let r = if i.has(Flag::R) {
                    both >> n
                } else if i.has(Flag::L) {
                    (both << n) >> 32
                } else {
                    return Err(i.unsupported());
                };
                self.dst(t, i, 0, r & 0xffff_ffff)?;
            }
            Opcode::Trap => return Err(i.err(EmuErrorKind::Trap, "trap executed")),
            Opcode::Membar | Opcode::Fence => {}
            Opcode::Wgmma => super::wgmma::lane(self, t, i)?,
            Opcode::Cp => super::cp_async::lane(self, t, i)?,
            Opcode::Activemask => {
                // Filled in by the warp scheduler, which knows the active lanes.
                return Err(i.unsupported());
            }
            Opcode::Mov => self.mov(t, i)?,
            Opcode::Ld => self.ld(t, i)?,
            Opcode::Tex
            | Opcode::Tld4
            | Opcode::Txq
            | Opcode::Suld
            | Opcode::Sust
            | Opcode::Suq => self.texture_inst(t, i)?,
            Opcode::St => self.st(t, i)?,
            Opcode::Atom | Opcode::Red => self.atom(t, i)?,
            Opcode::Cvt => {
                let (d, s) = (i.ty(0)?, i.ty(1)?);
                if d == Type::Tf32 && s == Type::F32 && i.round == Some(Rounding::Rna) {
                    let v = self.src(t, i, 1, s)?;
                    self.dst(t, i, 0, u64::from(tf32_rna(v as u32)))?;
                } else if d == Type::F16x2 && s == Type::F32 {
                    let (a, b) = (self.src(t, i, 1, s)?, self.src(t, i, 2, s)?);
                    let r = i.round.unwrap_or(Rounding::Rn);
                    let hi = Fmt::F16.round(f64::from(as_f32(a)), r);
                    let lo = Fmt::F16.round(f64::from(as_f32(b)), r);
                    self.dst(t, i, 0, hi << 16 | lo)?;
                } else {
                    let mut v = self.src(t, i, 1, s)?;
                    if i.has(Flag::Ftz) && s == Type::F32 {
                        v = ftz32(v);
                    }
                    let mut r =
                        cvt(d, s, i.round, i.has(Flag::Sat), v).ok_or_else(|| i.unsupported())?;
                    if i.has(Flag::Ftz) && d == Type::F32 {
                        r = ftz32(r);
                    }
                    // A destination register wider than a signed type is sign-extended.
                    if d.is_signed() {
                        r = sext(r, d.bits()) as u64;
                    }
                    self.dst(t, i, 0, r)?;
                }
            }
            Opcode::Cvta => {
                let ty = i.ty(0)?;
                let v = self.src(t, i, 1, ty)?;
                let win = match i.space {
                    StateSpace::Shared => SHARED_WINDOW,
                    StateSpace::Local => LOCAL_WINDOW,
                    _ => 0,
                };
                let r = if i.has(Flag::To) { v.wrapping_sub(win) } else { v.wrapping_add(win) };
                self.dst(t, i, 0, r & mask(ty.bits()))?;
            }
            Opcode::Setp => self.setp(t, i)?,
            Opcode::Set => {
                let (dty, sty) = (i.ty(0)?, i.ty(1)?);
                let (a, b) = (self.src(t, i, 1, sty)?, self.src(t, i, 2, sty)?);
                let mut r = compare(i.cmp.ok_or_else(|| i.unsupported())?, sty, a, b);
                if let (Some(op), Some(c)) = (i.boolop, i.ops.get(3)) {
                    r = combine(op, r, self.pred(t, c, i)?);
                }
                let v = match dty {
                    Type::F32 => f32b(if r { 1.0 } else { 0.0 }),
                    _ => {
                        if r {
                            mask(dty.bits())
                        } else {
                            0
                        }
                    }
                };
                self.dst(t, i, 0, v)?;
            }
            Opcode::Selp => {
                let ty = i.ty(0)?;
                let p = self.pred(t, i.opd(3)?, i)?;
                let v = self.src(t, i, if p { 1 } else { 2 }, ty)?;
                self.dst(t, i, 0, v)?;
            }
            Opcode::Testp => {
                let ty = i.ty(0)?;
                let f = Fmt::of(ty).ok_or_else(|| i.unsupported())?;
                let x = f.get(self.src(t, i, 1, ty)?);
                let r = match i.testp.ok_or_else(|| i.unsupported())? {
                    TestpOp::Finite => x.is_finite(),
                    TestpOp::Infinite => x.is_infinite(),
                    TestpOp::Number => !x.is_nan(),
                    TestpOp::NotANumber => x.is_nan(),
                    TestpOp::Normal => {
                        if f == Fmt::F32 {
                            (x as f32).is_normal()
                        } else {
                            x.is_normal()
                        }
                    }
                    TestpOp::Subnormal => {
                        if f == Fmt::F32 {
                            (x as f32).is_subnormal()
                        } else {
                            x.is_subnormal()
                        }
                    }
                };
                self.dst(t, i, 0, u64::from(r))?;
            }
            Opcode::Popc | Opcode::Clz | Opcode::Brev => {
                let ty = i.ty(0)?;
                let bits = ty.bits();
                let a = self.src(t, i, 1, ty)?;
                let r = match i.op {
                    Opcode::Popc => u64::from(a.count_ones()),
                    Opcode::Clz => u64::from(a.leading_zeros() - (64 - bits)),
                    _ => a.reverse_bits() >> (64 - bits),
                };
                self.dst(t, i, 0, r)?;
            }
            Opcode::Bfe => {
                let ty = i.ty(0)?;
                let bits = ty.bits();
                let a = self.src(t, i, 1, ty)?;
                let pos = self.src(t, i, 2, Type::U32)? & 0xff;
                let len = self.src(t, i, 3, Type::U32)? & 0xff;
                let msb = u64::from(bits - 1);
                let sbit = if !ty.is_signed() || len == 0 {
                    0
                } else {
                    (a >> (pos + len - 1).min(msb)) & 1
                };
                let mut r = 0u64;
                for k in 0..u64::from(bits) {
                    let b = if k < len && pos + k <= msb { (a >> (pos + k)) & 1 } else { sbit };
                    r |= b << k;
                }
                self.dst(t, i, 0, r)?;
            }
            Opcode::Bfi => {
                let ty = i.ty(0)?;
                let bits = u64::from(ty.bits());
                let a = self.src(t, i, 1, ty)?;
                let mut r = self.src(t, i, 2, ty)?;
                let pos = self.src(t, i, 3, Type::U32)? & 0xff;
                let len = self.src(t, i, 4, Type::U32)? & 0xff;
                for k in 0..len {
                    if pos + k >= bits {
                        break;
                    }
                    r = (r & !(1 << (pos + k))) | (((a >> k) & 1) << (pos + k));
                }
                self.dst(t, i, 0, r)?;
            }
            Opcode::Prmt => {
                if i.prmt.is_some() {
                    return Err(i.unsupported());
                }
                let a = self.src(t, i, 1, Type::B32)?;
                let b = self.src(t, i, 2, Type::B32)?;
                let c = self.src(t, i, 3, Type::B32)?;
                let bytes = (b << 32) | a;
                let mut r = 0u64;
                for n in 0..4 {
                    let sel = (c >> (4 * n)) & 0xf;
                    let mut byte = (bytes >> (8 * (sel & 7))) & 0xff;
                    if sel & 8 != 0 {
                        byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                    }
                    r |= byte << (8 * n);
                }
                self.dst(t, i, 0, r)?;
            }
            Opcode::Lop3 => {
                let (a, b, c) = (
                    self.src(t, i, 1, Type::B32)?,
                    self.src(t, i, 2, Type::B32)?,
                    self.src(t, i, 3, Type::B32)?,
                );
                let lut = self.src(t, i, 4, Type::B32)?;
                let mut r = 0u64;
                for k in 0..32 {
                    let idx = (((a >> k) & 1) << 2) | (((b >> k) & 1) << 1) | ((c >> k) & 1);
                    r |= ((lut >> idx) & 1) << k;
                }
                self.dst(t, i, 0, r)?;
            }
            Opcode::Shl | Opcode::Shr => {
                let ty = i.ty(0)?;
                let bits = ty.bits();
                let a = self.src(t, i, 1, ty)?;
                let n = self.src(t, i, 2, Type::U32)?;
                let r = if i.op == Opcode::Shl {
                    if n >= u64::from(bits) {
                        0
                    } else {
                        a << n
                    }
                } else if ty.is_signed() {
                    (sext(a, bits) >> n.min(63)) as u64
                } else if n >= u64::from(bits) {
                    0
                } else {
                    a >> n
                };
                self.dst(t, i, 0, r & mask(bits))?;
            }
            Opcode::Not | Opcode::Cnot => {
                let ty = i.ty(0)?;
                let a = self.src(t, i, 1, ty)?;
                let r = if i.op == Opcode::Not { !a } else { u64::from(a == 0) };
                self.dst(t, i, 0, r & mask(ty.bits().max(1)))?;
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                let ty = i.ty(0)?;
                let (a, b) = (self.src(t, i, 1, ty)?, self.src(t, i, 2, ty)?);
                let r = match i.op {
                    Opcode::And => a & b,
                    Opcode::Or => a | b,
                    _ => a ^ b,
                };
                self.dst(t, i, 0, r)?;
            }
            Opcode::Copysign => {
                let ty = i.ty(0)?;
                let (a, b) = (self.src(t, i, 1, ty)?, self.src(t, i, 2, ty)?);
                let sign = 1u64 << (ty.bits() - 1);
                self.dst(t, i, 0, (b & !sign) | (a & sign))?;
            }
            Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Ex2
            | Opcode::Lg2
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Tanh
            | Opcode::Rcp => self.unary_float(t, i)?,
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Mad
            | Opcode::Fma
            | Opcode::Div
            | Opcode::Rem
            | Opcode::Neg
            | Opcode::Abs
            | Opcode::Min
            | Opcode::Max => self.arith(t, i)?,
            // The backend emits these; matched by name so that they run as soon as the ptx
            // crate's model has them.
            op if op.name() == "bfind" => {
                let ty = i.ty(0)?;
                let bits = ty.bits();
                let a = self.src(t, i, 1, ty)?;
                let a =
                    if ty.is_signed() && (a >> (bits - 1)) & 1 == 1 { !a & mask(bits) } else { a };
                let r = if a == 0 { 0xffff_ffff } else { u64::from(63 - a.leading_zeros()) };
                self.dst(t, i, 0, r)?;
            }
            op if op.name() == "dp4a" => {
                let (aty, bty) = (i.ty(0)?, i.ty(1)?);
                let (a, b) = (self.src(t, i, 1, Type::B32)?, self.src(t, i, 2, Type::B32)?);
                let c = self.src(t, i, 3, Type::B32)?;
                let byte = |v: u64, k: u32, signed: bool| {
                    let x = (v >> (8 * k)) & 0xff;
                    if signed {
                        sext(x, 8)
                    } else {
                        x as i64
                    }
                };
                let mut acc = c as u32 as i64;
                for k in 0..4 {
                    acc =
                        acc.wrapping_add(byte(a, k, aty.is_signed()) * byte(b, k, bty.is_signed()));
                }
                self.dst(t, i, 0, acc as u64 & 0xffff_ffff)?;
            }
            _ => return Err(i.unsupported()),
        }
        Ok(Flow::Next)
    }

    fn mov(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        match (i.opd(0)?, i.opd(1)?) {
            // Pack: `mov.b32 %r, {%h1, %h2}` (element 0 in the low bits).
            (_, Opd::Vector(parts)) => {
                let w = ty.bits() / parts.len().max(1) as u32;
                let ety = elem_type(w).ok_or_else(|| i.unsupported())?;
                let mut v = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    v |= self.val(t, p, ety, i)? << (w * k as u32);
                }
                self.dst(t, i, 0, v)
            }
            // Unpack: `mov.b32 {%h1, %h2}, %r`.
            (Opd::Vector(parts), _) => {
                let parts = parts.clone();
                let w = ty.bits() / parts.len().max(1) as u32;
                let v = self.src(t, i, 1, ty)?;
                for (k, p) in parts.iter().enumerate() {
                    match p {
                        Opd::Reg(s) => self.wr(t, *s, (v >> (w * k as u32)) & mask(w)),
                        Opd::Sink => {}
                        _ => return Err(i.unsupported()),
                    }
                }
                Ok(())
            }
            (_, Opd::Sym(sp, a)) => {
                let _ = sp;
                let a = *a;
                self.dst(t, i, 0, a)
            }
            _ => {
                let v = self.src(t, i, 1, ty)?;
                self.dst(t, i, 0, v)
            }
        }
    }

    /// A GPU faults on a global, shared, local or generic access whose address is not a
    /// multiple of the whole access (`.v4.b32`: 16 bytes); so does the emulator, which is how
    /// the tests catch a vectorized access the backend could not prove aligned.
    fn check_aligned(
        &self,
        t: usize,
        space: StateSpace,
        a: u64,
        bytes: usize,
        i: &DInst,
    ) -> Result<(), EmuError> {
        let checked = matches!(
            space,
            StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Generic
        );
        if checked && bytes.is_power_of_two() && !a.is_multiple_of(bytes as u64) {
            return Err(self.oob(
                t,
                i,
                format!("misaligned {bytes}-byte access at {} address {a:#x}", space.name()),
            ));
        }
        Ok(())
    }

    fn ld(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let size = ty.bytes() as usize;
        let (space, a) = self.addr(t, i.opd(1)?, i)?;
        self.check_aligned(t, space, a, size * usize::from(i.vec.max(1)), i)?;
        let extend = |v: u64| if ty.is_signed() { sext(v, ty.bits()) as u64 } else { v };
        match i.opd(0)?.clone() {
            Opd::Vector(parts) => {
                if parts.len() != usize::from(i.vec) {
                    return Err(i.err(
                        EmuErrorKind::Unsupported,
                        "the register list does not match the vector width",
                    ));
                }
                for (k, p) in parts.iter().enumerate() {
                    let v = self.load(t, space, a.wrapping_add((k * size) as u64), size, i)?;
                    match p {
                        Opd::Reg(s) => self.wr(t, *s, extend(v)),
                        Opd::Sink => {}
                        _ => return Err(i.unsupported()),
                    }
                }
                Ok(())
            }
            _ => {
                let v = self.load(t, space, a, size, i)?;
                self.dst(t, i, 0, extend(v))
            }
        }
    }

    fn st(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let size = ty.bytes() as usize;
        let (space, a) = self.addr(t, i.opd(0)?, i)?;
        self.check_aligned(t, space, a, size * usize::from(i.vec.max(1)), i)?;
        match i.opd(1)? {
            Opd::Vector(parts) => {
                if parts.len() != usize::from(i.vec) {
                    return Err(i.err(
                        EmuErrorKind::Unsupported,
                        "the register list does not match the vector width",
                    ));
                }
                let mut vals = Vec::with_capacity(parts.len());
                for p in parts {
                    vals.push(self.val(t, p, ty, i)?);
                }
                for (k, v) in vals.into_iter().enumerate() {
                    self.store(t, space, a.wrapping_add((k * size) as u64), size, v, i)?;
                }
                Ok(())
            }
            o => {
                let v = self.val(t, o, ty, i)?;
                self.store(t, space, a, size, v, i)
            }
        }
    }

    fn atom(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let op = i.atom.ok_or_else(|| i.unsupported())?;
        if matches!(ty, Type::F16x2 | Type::Bf16x2) {
            return Err(i.unsupported());
        }
        let first = usize::from(i.op == Opcode::Atom);
        let size = ty.bytes() as usize;
        let (space, a) = self.addr(t, i.opd(first)?, i)?;
        let b = self.src(t, i, first + 1, ty)?;
        let old = self.load(t, space, a, size, i)?;
        let m = mask(ty.bits());
        let new = match (op, Fmt::of(ty)) {
            (AtomOp::Add, Some(f)) => {
                // The global f32 add unit flushes subnormal inputs and results (PTX ISA, atom).
                if f == Fmt::F32 && space != StateSpace::Shared {
                    ftz32(f.round(f.get(ftz32(old)) + f.get(ftz32(b)), Rounding::Rn))
                } else {
                    f.round(f.get(old) + f.get(b), Rounding::Rn)
                }
            }
            (AtomOp::Min | AtomOp::Max, Some(f)) => {
                let (x, y) = (f.get(old), f.get(b));
                let take_b = if op == AtomOp::Min { y < x } else { y > x };
                if take_b || x.is_nan() {
                    b
                } else {
                    old
                }
            }
            (AtomOp::Add, None) => old.wrapping_add(b) & m,
            (AtomOp::Min, None) => {
                if int_val(b, ty) < int_val(old, ty) {
                    b
                } else {
                    old
                }
            }
            (AtomOp::Max, None) => {
                if int_val(b, ty) > int_val(old, ty) {
                    b
                } else {
                    old
                }
            }
            (AtomOp::And, _) => old & b,
            (AtomOp::Or, _) => old | b,
            (AtomOp::Xor, _) => old ^ b,
            (AtomOp::Exch, _) => b,
            (AtomOp::Cas, _) => {
                let c = self.src(t, i, first + 2, ty)?;
                if old == b {
                    c
                } else {
                    old
                }
            }
            (AtomOp::Inc, _) => {
                if old >= b {
                    0
                } else {
                    (old + 1) & m
                }
            }
            (AtomOp::Dec, _) => {
                if old == 0 || old > b {
                    b
                } else {
                    old - 1
                }
            }
        };
        self.store(t, space, a, size, new, i)?;
        if first == 1 {
            self.dst(t, i, 0, old)?;
        }
        Ok(())
    }

    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`
    /// on 32- and 64-bit integers: the carry flag is the carry out of the addition (the
    /// borrow out of a subtraction).
    fn carry_arith(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let bits = ty.bits();
        if !matches!(bits, 32 | 64) || Fmt::of(ty).is_some() {
            return Err(i.unsupported());
        }
        let m = u128::from(mask(bits));
        let cin = u128::from(self.cc.get(t).copied().unwrap_or(false));
        let cin = if matches!(i.op, Opcode::Addc | Opcode::Subc | Opcode::Madc) { cin } else { 0 };
        let a = u128::from(self.src(t, i, 1, ty)?);
        let b = u128::from(self.src(t, i, 2, ty)?);
        let (r, carry) = match i.op {
            Opcode::Add | Opcode::Addc => {
                let s = a + b + cin;
                (s & m, s >> bits != 0)
            }
            Opcode::Sub | Opcode::Subc => {
                let sub = b + cin;
                (a.wrapping_sub(sub) & m, a < sub)
            }
            _ => {
                let c = u128::from(self.src(t, i, 3, ty)?);
                // The product of the operands as the type reads them; `.hi` takes its high
                // half, `.lo` (the default) its low half.
                let p = if ty.is_signed() {
                    (int_val(a as u64, ty) * int_val(b as u64, ty)) as u128
                } else {
                    a * b
                };
                let half = if i.has(Flag::Hi) { (p >> bits) & m } else { p & m };
                let s = half + c + cin;
                (s & m, s >> bits != 0)
            }
        };
        if i.has(Flag::Cc) {
            if let Some(f) = self.cc.get_mut(t) {
                *f = carry;
            }
        }
        self.dst(t, i, 0, r as u64)
    }

    fn setp(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let cmp = i.cmp.ok_or_else(|| i.unsupported())?;
        let (mut a, mut b) = (self.src(t, i, 1, ty)?, self.src(t, i, 2, ty)?);
        if i.has(Flag::Ftz) && ty == Type::F32 {
            (a, b) = (ftz32(a), ftz32(b));
        }
        if matches!(ty, Type::F16x2 | Type::Bf16x2) {
            return Err(i.unsupported());
        }
        let r = compare(cmp, ty, a, b);
        let (p, q) = match i.boolop {
            Some(op) => {
                let c = self.pred(t, i.opd(3)?, i)?;
                (combine(op, r, c), combine(op, !r, c))
            }
            None => (r, !r),
        };
        match i.opd(0)? {
            Opd::Pair(ps, qs) => {
                let (ps, qs) = (*ps, *qs);
                self.wr(t, ps, u64::from(p));
                self.wr(t, qs, u64::from(q));
                Ok(())
            }
            _ => self.dst(t, i, 0, u64::from(p)),
        }
    }

    fn unary_float(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let mut v = self.src(t, i, 1, ty)?;
        let ftz = i.has(Flag::Ftz);
        let r = match ty {
            Type::F32 => {
                if ftz {
                    v = ftz32(v);
                }
                let x = as_f32(v);
                let y = match i.op {
                    Opcode::Sqrt => x.sqrt(),
                    Opcode::Rsqrt => 1.0 / x.sqrt(),
                    Opcode::Ex2 => x.exp2(),
                    Opcode::Lg2 => x.log2(),
                    Opcode::Sin => x.sin(),
                    Opcode::Cos => x.cos(),
                    Opcode::Tanh => x.tanh(),
                    _ => 1.0 / x,
                };
                let r = if i.op == Opcode::Rcp && !i.has(Flag::Approx) {
                    Fmt::F32.round(1.0 / f64::from(x), i.round.unwrap_or(Rounding::Rn))
                } else if i.op == Opcode::Sqrt && !i.has(Flag::Approx) {
                    Fmt::F32.round(f64::from(x).sqrt(), i.round.unwrap_or(Rounding::Rn))
                } else {
                    f32b(y)
                };
                if ftz {
                    ftz32(r)
                } else {
                    r
                }
            }
            Type::F64 => {
                let x = f64::from_bits(v);
                let y = match i.op {
                    Opcode::Sqrt => x.sqrt(),
                    Opcode::Rsqrt => 1.0 / x.sqrt(),
                    Opcode::Rcp => 1.0 / x,
                    _ => return Err(i.unsupported()),
                };
                y.to_bits()
            }
            Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 => {
                let f = Fmt::of(ty).ok_or_else(|| i.unsupported())?;
                let lanes = ty.bits() / 16;
                let mut r = 0u64;
                for k in 0..lanes {
                    let x = f.get((v >> (16 * k)) & 0xffff) as f32;
                    let y = match i.op {
                        Opcode::Ex2 => x.exp2(),
                        Opcode::Tanh => x.tanh(),
                        Opcode::Sqrt => x.sqrt(),
                        Opcode::Rsqrt => 1.0 / x.sqrt(),
                        Opcode::Rcp => 1.0 / x,
                        Opcode::Lg2 => x.log2(),
                        Opcode::Sin => x.sin(),
                        Opcode::Cos => x.cos(),
                        _ => return Err(i.unsupported()),
                    };
                    r |= f.round(f64::from(y), Rounding::Rn) << (16 * k);
                }
                r
            }
            _ => return Err(i.unsupported()),
        };
        self.dst(t, i, 0, r)
    }

    fn arith(&mut self, t: usize, i: &DInst) -> Result<(), EmuError> {
        let ty = i.ty(0)?;
        let nsrc = match i.op {
            Opcode::Neg | Opcode::Abs => 1,
            Opcode::Mad | Opcode::Fma => 3,
            _ => 2,
        };
        if let Some(f) = Fmt::of(ty) {
            let lanes = if matches!(ty, Type::F16x2 | Type::Bf16x2) { 2 } else { 1 };
            let w = ty.bits() / lanes;
            let mut srcs = [0u64; 3];
            for (k, s) in srcs.iter_mut().enumerate().take(nsrc) {
                *s = self.src(t, i, k + 1, ty)?;
            }
            let mut r = 0u64;
            for l in 0..lanes {
                let mut e = [0u64; 3];
                for k in 0..nsrc {
                    e[k] = (srcs[k] >> (w * l)) & mask(w);
                    if i.has(Flag::Ftz) && f == Fmt::F32 {
                        e[k] = ftz32(e[k]);
                    }
                }
                let mut v = float_op(i, f, e)?;
                if i.has(Flag::Sat) {
                    let x = f.get(v);
                    v = f.round(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }, Rounding::Rn);
                }
                if i.has(Flag::Ftz) && f == Fmt::F32 {
                    v = ftz32(v);
                }
                r |= v << (w * l);
            }
            return self.dst(t, i, 0, r);
        }
        // Integers.
        let bits = ty.bits();
        let a = self.src(t, i, 1, ty)?;
        let b = if nsrc >= 2 { self.src(t, i, 2, ty)? } else { 0 };
        let (x, y) = (int_val(a, ty), int_val(b, ty));
        let wide = i.has(Flag::Wide);
        let hi = i.has(Flag::Hi);
        let product = |x: i128, y: i128| -> i128 {
            if ty.is_signed() {
                x * y
            } else {
                ((x as u128).wrapping_mul(y as u128)) as i128
            }
        };
        let high = |p: i128| -> u64 {
            if ty.is_signed() {
                (p >> bits) as u64
            } else {
                ((p as u128) >> bits) as u64
            }
        };
        let out_bits = if wide { bits * 2 } else { bits };
        let r: u64 = match i.op {
            Opcode::Add | Opcode::Sub => {
                let s = if i.op == Opcode::Add { x + y } else { x - y };
                if i.has(Flag::Sat) {
                    let (lo, hi) = int_range(ty);
                    s.clamp(lo, hi) as u64
                } else {
                    s as u64
                }
            }
            Opcode::Mul => {
                let p = product(x, y);
                if hi {
                    high(p)
                } else {
                    p as u64
                }
            }
            Opcode::Mad => {
                let p = product(x, y);
                let cty = if wide { wide_type(ty) } else { ty };
                let c = int_val(self.src(t, i, 3, cty)?, cty);
                if hi {
                    (high(p) as i128 + c) as u64
                } else if i.has(Flag::Sat) {
                    let (lo, hi) = int_range(ty);
                    (p + c).clamp(lo, hi) as u64
                } else {
                    (p as u64).wrapping_add(c as u64)
                }
            }
            Opcode::Div => {
                if y == 0 {
                    mask(bits)
                } else {
                    (x / y) as u64
                }
            }
            Opcode::Rem => {
                if y == 0 {
                    a
                } else {
                    (x % y) as u64
                }
            }
            Opcode::Neg => (-x) as u64,
            Opcode::Abs => x.unsigned_abs() as u64,
            Opcode::Min => x.min(y) as u64,
            Opcode::Max => x.max(y) as u64,
            _ => return Err(i.unsupported()),
        };
        self.dst(t, i, 0, r & mask(out_bits))
    }
}

fn wide_type(ty: Type) -> Type {
    match ty {
        Type::S16 => Type::S32,
        Type::U16 => Type::U32,
        Type::S32 => Type::S64,
        _ => Type::U64,
    }
}

fn elem_type(bits: u32) -> Option<Type> {
    match bits {
        8 => Some(Type::B8),
        16 => Some(Type::B16),
        32 => Some(Type::B32),
        64 => Some(Type::B64),
        _ => None,
    }
}

/// One float lane of add/sub/mul/mad/fma/div/neg/abs/min/max. Values go through f64,
/// which rounds +, -, *, / of f32/f16 operands exactly once more to the target format
/// (53 >= 2 * 24 + 2 bits).
fn float_op(i: &DInst, f: Fmt, e: [u64; 3]) -> Result<u64, EmuError> {
    let (a, b, c) = (f.get(e[0]), f.get(e[1]), f.get(e[2]));
    let mode = match i.round {
        Some(r @ (Rounding::Rn | Rounding::Rz | Rounding::Rm | Rounding::Rp)) => r,
        _ => Rounding::Rn,
    };
    let sign = 1u64 << (f_bits(f) - 1);
    // The exact result as `x + lo`: x rounded to nearest in f64, lo the rest (products and
    // quotients of f16/f32 operands need none; see `Fmt::round_exact`).
    let (x, lo) = match i.op {
        Opcode::Add => two_sum(a, b),
        Opcode::Sub => two_sum(a, -b),
        Opcode::Mul => {
            let p = a * b;
            (p, if f == Fmt::F64 && p.is_finite() { a.mul_add(b, -p) } else { 0.0 })
        }
        Opcode::Div => {
            if f != Fmt::F64 && (i.has(Flag::Approx) || i.has(Flag::Full)) {
                return Ok(f.round(f64::from(a as f32 / b as f32), Rounding::Rn));
            }
            let q = a / b;
            let rem = if f == Fmt::F64 && q.is_finite() { (-q).mul_add(b, a) } else { 0.0 };
            // Only the sign of the rest matters: that of rem / b.
            (q, if rem == 0.0 { 0.0 } else { rem.signum() * b.signum() * f64::MIN_POSITIVE })
        }
        Opcode::Mad | Opcode::Fma => {
            if f == Fmt::F32 && mode == Rounding::Rn {
                // Fused: one rounding of the exact a*b+c.
                return Ok(u64::from((a as f32).mul_add(b as f32, c as f32).to_bits()));
            }
            if f == Fmt::F64 {
                let r = a.mul_add(b, c);
                if mode == Rounding::Rn || !r.is_finite() {
                    return Ok(r.to_bits());
                }
                // a*b = p + pe exactly; p + c = s + se exactly.
                let p = a * b;
                let pe = a.mul_add(b, -p);
                let (s, se) = two_sum(p, c);
                (r, (s - r) + (se + pe))
            } else {
                // a*b is exact in f64.
                two_sum(a * b, c)
            }
        }
        Opcode::Neg => return Ok(e[0] ^ sign),
        Opcode::Abs => return Ok(e[0] & !sign),
        Opcode::Min | Opcode::Max => {
            let min = i.op == Opcode::Min;
            if a.is_nan() || b.is_nan() {
                if i.has(Flag::NaN) || (a.is_nan() && b.is_nan()) {
                    return Ok(f.round(f64::NAN, Rounding::Rn));
                }
                return Ok(if a.is_nan() { e[1] } else { e[0] });
            }
            if a == b {
                // -0 < +0 for min/max.
                let neg_a = e[0] & sign != 0;
                let pick_a = if min { neg_a } else { !neg_a };
                return Ok(if pick_a { e[0] } else { e[1] });
            }
            let pick_a = if min { a < b } else { a > b };
            return Ok(if pick_a { e[0] } else { e[1] });
        }
        _ => return Err(i.unsupported()),
    };
    Ok(f.round_exact(x, lo, mode))
}

fn f_bits(f: Fmt) -> u32 {
    match f {
        Fmt::F16 | Fmt::Bf16 => 16,
        Fmt::F32 => 32,
        Fmt::F64 => 64,
    }
}

fn combine(op: BoolOp, a: bool, b: bool) -> bool {
    match op {
        BoolOp::And => a && b,
        BoolOp::Or => a || b,
        BoolOp::Xor => a ^ b,
    }
}

/// `setp`/`set` comparison of `a` and `b` read as `ty`.
pub(crate) fn compare(cmp: CmpOp, ty: Type, a: u64, b: u64) -> bool {
    if let Some(f) = Fmt::of(ty) {
        let (x, y) = (f.get(a), f.get(b));
        let nan = x.is_nan() || y.is_nan();
        return match cmp {
            CmpOp::Eq => !nan && x == y,
            CmpOp::Ne => !nan && x != y,
            CmpOp::Lt | CmpOp::Lo => !nan && x < y,
            CmpOp::Le | CmpOp::Ls => !nan && x <= y,
            CmpOp::Gt | CmpOp::Hi => !nan && x > y,
            CmpOp::Ge | CmpOp::Hs => !nan && x >= y,
            CmpOp::Equ => nan || x == y,
            CmpOp::Neu => nan || x != y,
            CmpOp::Ltu => nan || x < y,
            CmpOp::Leu => nan || x <= y,
            CmpOp::Gtu => nan || x > y,
            CmpOp::Geu => nan || x >= y,
            CmpOp::Num => !nan,
            CmpOp::Nan => nan,
        };
    }
    let (x, y) = (int_val(a, ty), int_val(b, ty));
    let m = mask(ty.bits().max(1));
    let (ux, uy) = (a & m, b & m);
    match cmp {
        CmpOp::Eq | CmpOp::Equ => x == y,
        CmpOp::Ne | CmpOp::Neu => x != y,
        CmpOp::Lt | CmpOp::Ltu => x < y,
        CmpOp::Le | CmpOp::Leu => x <= y,
        CmpOp::Gt | CmpOp::Gtu => x > y,
        CmpOp::Ge | CmpOp::Geu => x >= y,
        CmpOp::Lo => ux < uy,
        CmpOp::Ls => ux <= uy,
        CmpOp::Hi => ux > uy,
        CmpOp::Hs => ux >= uy,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}
