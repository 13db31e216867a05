//! Constructors that put modifiers in the order PTX requires, one per instruction form a
//! WGSL compiler emits. Anything else can be built with [`Instruction::new`].
//!
//! Operands take `impl Into<Operand>`, so a [`Reg`] or [`SpecialReg`](super::types::SpecialReg) can be passed directly;
//! immediates are built with [`Operand::imm`], [`Operand::f32`] and friends.

use super::inst::{
    AtomOp, BoolOp, CacheOp, CmpOp, Flag, Instruction, Layout, MemSem, Modifier, Opcode, Operand,
    Rounding, Scope, ShflMode, TestpOp, VoteMode,
};
use super::types::{Reg, StateSpace, Type};

fn ty(t: Type) -> Modifier {
    Modifier::Type(t)
}

fn flag(f: Flag) -> Modifier {
    Modifier::Flag(f)
}

/// `mov.T d, a`.
pub fn mov(t: Type, d: impl Into<Operand>, a: impl Into<Operand>) -> Instruction {
    Instruction::new(Opcode::Mov, vec![ty(t)], vec![d.into(), a.into()])
}

/// `mov.b32 d, {lo, hi}`: packs two 16-bit registers (low half first).
pub fn pack(t: Type, d: Reg, parts: &[Reg]) -> Instruction {
    Instruction::new(Opcode::Mov, vec![ty(t)], vec![d.into(), Operand::vector(parts)])
}

/// `mov.b32 {lo, hi}, a`: unpacks into two 16-bit registers.
pub fn unpack(t: Type, parts: &[Reg], a: Reg) -> Instruction {
    Instruction::new(Opcode::Mov, vec![ty(t)], vec![Operand::vector(parts), a.into()])
}

/// `op{.mods}.T` over `operands`: the shape of most forms (one type, last).
///
/// A float `add`, `sub` or `mul` without a rounding modifier gets `.rn`: ptxas never contracts
/// an instruction with an explicit rounding modifier into an `fma`, so the fused multiply-adds
/// are exactly the `fma`s the SSA holds (`docs/math.md`, "Contraction").
fn typed(op: Opcode, mods: &[Modifier], t: Type, operands: Vec<Operand>) -> Instruction {
    let mut m = mods.to_vec();
    let float =
        matches!(t, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64);
    let rounded = m.iter().any(|x| matches!(x, Modifier::Round(_)));
    if float && !rounded && matches!(op, Opcode::Add | Opcode::Sub | Opcode::Mul) {
        m.insert(0, Modifier::Round(Rounding::Rn));
    }
    m.push(ty(t));
    Instruction::new(op, m, operands)
}

/// Declares the generic forms: `name(d, a, ..)` becomes
/// `pub fn name(op: Opcode, mods: &[Modifier], t: Type, d: impl Into<Operand>, ..)`.
macro_rules! generic_forms {
    ($($(#[$doc:meta])* $name:ident($($arg:ident),+);)*) => {$(
        $(#[$doc])*
        pub fn $name(
            op: Opcode,
            mods: &[Modifier],
            t: Type,
            $($arg: impl Into<Operand>),+
        ) -> Instruction {
            typed(op, mods, t, vec![$($arg.into()),+])
        }
    )*};
}

generic_forms! {
    /// A one-operand instruction: `op{.mods}.T d, a` (`neg`, `abs`, `not`, `sqrt.rn`,
    /// `ex2.approx`, `popc`, ...).
    unary(d, a);
    /// A two-operand instruction with modifiers then the type: `op{.mods}.T d, a, b`
    /// (`add.s32`, `div.rn.f32`, `shr.u32`, `and.pred`, `min.f32`, ...).
    binary(d, a, b);
    /// A three-operand instruction: `op{.mods}.T d, a, b, c` (`mad.lo`, `fma.rn`, `bfe`, `prmt`).
    ternary(d, a, b, c);
}

/// Declares forms with a fixed opcode and modifiers: `name: Op [mods] (d, a, ..)` becomes
/// `pub fn name(t: Type, d: impl Into<Operand>, ..)` building `op{.mods}.T d, a, ..`.
macro_rules! fixed_forms {
    ($($(#[$doc:meta])* $name:ident: $op:ident [$($m:expr),*] ($($arg:ident),+);)*) => {$(
        $(#[$doc])*
        pub fn $name(t: Type, $($arg: impl Into<Operand>),+) -> Instruction {
            typed(Opcode::$op, &[$($m),*], t, vec![$($arg.into()),+])
        }
    )*};
}

fixed_forms! {
    /// `add.T d, a, b` (`add.rn.T` for floats, see [`typed`]).
    add: Add [] (d, a, b);
    /// `sub.T d, a, b` (`sub.rn.T` for floats, see [`typed`]).
    sub: Sub [] (d, a, b);
    /// `mul.lo.T d, a, b` (integers).
    mul_lo: Mul [flag(Flag::Lo)] (d, a, b);
    /// `mul.wide.T d, a, b`: `d` is twice as wide as `T`.
    mul_wide: Mul [flag(Flag::Wide)] (d, a, b);
    /// `mad.lo.T d, a, b, c` (integers).
    mad_lo: Mad [flag(Flag::Lo)] (d, a, b, c);
    /// `fma.rn.T d, a, b, c` (floats).
    fma_rn: Fma [Modifier::Round(Rounding::Rn)] (d, a, b, c);
}

/// `setp.CMP.T p, a, b`.
pub fn setp(
    cmp: CmpOp,
    t: Type,
    p: Reg,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
) -> Instruction {
    typed(Opcode::Setp, &[Modifier::Cmp(cmp)], t, vec![p.into(), a.into(), b.into()])
}

/// `setp.CMP.BOOL.T p, a, b, c` (`c` may be [`Operand::Not`]).
pub fn setp_combine(
    cmp: CmpOp,
    op: BoolOp,
    t: Type,
    p: Reg,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    c: impl Into<Operand>,
) -> Instruction {
    let m = [Modifier::Cmp(cmp), Modifier::Bool(op)];
    typed(Opcode::Setp, &m, t, vec![p.into(), a.into(), b.into(), c.into()])
}

/// `selp.T d, a, b, p`: `d = p ? a : b`.
pub fn selp(t: Type, d: Reg, a: impl Into<Operand>, b: impl Into<Operand>, p: Reg) -> Instruction {
    typed(Opcode::Selp, &[], t, vec![d.into(), a.into(), b.into(), p.into()])
}

/// `cvt{.round}{.sat}.D.S d, a`.
pub fn cvt(
    round: Option<Rounding>,
    sat: bool,
    dst: Type,
    src: Type,
    d: impl Into<Operand>,
    a: impl Into<Operand>,
) -> Instruction {
    let mut m = Vec::new();
    if let Some(r) = round {
        m.push(Modifier::Round(r));
    }
    if sat {
        m.push(flag(Flag::Sat));
    }
    m.push(ty(dst));
    m.push(ty(src));
    Instruction::new(Opcode::Cvt, m, vec![d.into(), a.into()])
}

/// `cvta.to.SPACE.u64 d, a`: generic address to `space` address.
pub fn cvta_to(space: StateSpace, d: Reg, a: Reg) -> Instruction {
    Instruction::new(
        Opcode::Cvta,
        vec![flag(Flag::To), Modifier::Space(space), ty(Type::U64)],
        vec![d.into(), a.into()],
    )
}

/// `cvta.SPACE.u64 d, a`: `space` address (or symbol) to generic address.
pub fn cvta(space: StateSpace, d: Reg, a: impl Into<Operand>) -> Instruction {
    Instruction::new(
        Opcode::Cvta,
        vec![Modifier::Space(space), ty(Type::U64)],
        vec![d.into(), a.into()],
    )
}

/// `{.space}{.extra}.T`: the modifiers of a memory access after its semantics and scope
/// (the generic and register spaces are not written).
fn mem_mods(space: StateSpace, extra: Option<Modifier>, t: Type) -> Vec<Modifier> {
    let mut m = match space {
        StateSpace::Generic | StateSpace::Reg => Vec::new(),
        s => vec![Modifier::Space(s)],
    };
    m.extend(extra);
    m.push(ty(t));
    m
}

/// `.relaxed.gpu{.space}.T`: WGSL atomics are relaxed and device-wide.
fn relaxed_mods(space: StateSpace, t: Type) -> Vec<Modifier> {
    let mut m = vec![Modifier::Sem(MemSem::Relaxed), Modifier::Scope(Scope::Gpu)];
    m.extend(mem_mods(space, None, t));
    m
}

/// `ld{.space}.T d, [addr]`.
pub fn ld(space: StateSpace, t: Type, d: impl Into<Operand>, addr: Operand) -> Instruction {
    Instruction::new(Opcode::Ld, mem_mods(space, None, t), vec![d.into(), addr])
}

/// `ld.param.T d, [name]`.
pub fn ld_param(t: Type, d: Reg, name: &str) -> Instruction {
    ld(StateSpace::Param, t, d, Operand::sym_addr(name, 0))
}

/// `ld{.space}.vN.T {d..}, [addr]`.
pub fn ld_vec(space: StateSpace, t: Type, d: &[Reg], addr: Operand) -> Instruction {
    let m = mem_mods(space, Some(Modifier::Vec(d.len() as u8)), t);
    Instruction::new(Opcode::Ld, m, vec![Operand::vector(d), addr])
}

/// `st{.space}.T [addr], v`.
pub fn st(space: StateSpace, t: Type, addr: Operand, v: impl Into<Operand>) -> Instruction {
    Instruction::new(Opcode::St, mem_mods(space, None, t), vec![addr, v.into()])
}

/// `st{.space}.vN.T [addr], {v..}`.
pub fn st_vec(space: StateSpace, t: Type, addr: Operand, v: &[Reg]) -> Instruction {
    let m = mem_mods(space, Some(Modifier::Vec(v.len() as u8)), t);
    Instruction::new(Opcode::St, m, vec![addr, Operand::vector(v)])
}

/// `ld.relaxed.gpu{.space}.T d, [addr]` (WGSL `atomicLoad`).
pub fn ld_relaxed(space: StateSpace, t: Type, d: Reg, addr: Operand) -> Instruction {
    Instruction::new(Opcode::Ld, relaxed_mods(space, t), vec![d.into(), addr])
}

/// `st.relaxed.gpu{.space}.T [addr], v` (WGSL `atomicStore`).
pub fn st_relaxed(space: StateSpace, t: Type, addr: Operand, v: impl Into<Operand>) -> Instruction {
    Instruction::new(Opcode::St, relaxed_mods(space, t), vec![addr, v.into()])
}

/// `atom{.space}.OP.T d, [addr], b` (not `cas`; see [`atom_cas`]).
pub fn atom(
    space: StateSpace,
    op: AtomOp,
    t: Type,
    d: Reg,
    addr: Operand,
    b: impl Into<Operand>,
) -> Instruction {
    let m = mem_mods(space, Some(Modifier::Atom(op)), t);
    Instruction::new(Opcode::Atom, m, vec![d.into(), addr, b.into()])
}

/// `atom{.space}.cas.T d, [addr], cmp, new`.
pub fn atom_cas(
    space: StateSpace,
    t: Type,
    d: Reg,
    addr: Operand,
    cmp: impl Into<Operand>,
    new: impl Into<Operand>,
) -> Instruction {
    let m = mem_mods(space, Some(Modifier::Atom(AtomOp::Cas)), t);
    Instruction::new(Opcode::Atom, m, vec![d.into(), addr, cmp.into(), new.into()])
}

/// `red{.space}.OP.T [addr], b`.
pub fn red(
    space: StateSpace,
    op: AtomOp,
    t: Type,
    addr: Operand,
    b: impl Into<Operand>,
) -> Instruction {
    let m = mem_mods(space, Some(Modifier::Atom(op)), t);
    Instruction::new(Opcode::Red, m, vec![addr, b.into()])
}

/// `bar.sync id`.
pub fn bar_sync(id: u32) -> Instruction {
    Instruction::new(Opcode::Bar, vec![flag(Flag::Sync)], vec![Operand::Imm(i64::from(id))])
}

/// `bar.red.and.pred d, 0, p`: barrier 0, and `d` = whether `p` is true on every thread of
/// the CTA.
pub fn bar_red_and(d: Reg, p: impl Into<Operand>) -> Instruction {
    let m = [flag(Flag::Red), Modifier::Bool(BoolOp::And)];
    typed(Opcode::Bar, &m, Type::Pred, vec![d.into(), Operand::Imm(0), p.into()])
}

/// `membar.SCOPE` (`Cta`, `Gl` or `Sys`).
pub fn membar(scope: Scope) -> Instruction {
    Instruction::new(Opcode::Membar, vec![Modifier::Scope(scope)], vec![])
}

/// `fence.SEM.SCOPE` (`fence.acq_rel.gpu`, `fence.sc.cta`).
pub fn fence(sem: MemSem, scope: Scope) -> Instruction {
    Instruction::new(Opcode::Fence, vec![Modifier::Sem(sem), Modifier::Scope(scope)], vec![])
}

/// `bra label`.
pub fn bra(label: &str) -> Instruction {
    Instruction::new(Opcode::Bra, vec![], vec![Operand::sym(label)])
}

/// `bra.uni label` (every thread takes the same way).
pub fn bra_uni(label: &str) -> Instruction {
    Instruction::new(Opcode::Bra, vec![flag(Flag::Uni)], vec![Operand::sym(label)])
}

/// Declares forms without modifiers or operands: `name: Op` becomes `pub fn name()`.
macro_rules! bare_forms {
    ($($(#[$doc:meta])* $name:ident: $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name() -> Instruction {
            Instruction::new(Opcode::$op, vec![], vec![])
        }
    )*};
}

bare_forms! {
    /// `ret`.
    ret: Ret;
    /// `exit`.
    exit: Exit;
    /// `trap`.
    trap: Trap;
}

/// `activemask.b32 d`.
pub fn activemask(d: Reg) -> Instruction {
    Instruction::new(Opcode::Activemask, vec![ty(Type::B32)], vec![d.into()])
}

/// `shfl.sync.MODE.b32 d, a, b, c, mask` (`d` may be [`Operand::Pair`] with a predicate).
pub fn shfl_sync(
    mode: ShflMode,
    d: impl Into<Operand>,
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    c: impl Into<Operand>,
    mask: impl Into<Operand>,
) -> Instruction {
    let m = [flag(Flag::Sync), Modifier::Shfl(mode)];
    typed(Opcode::Shfl, &m, Type::B32, vec![d.into(), a.into(), b.into(), c.into(), mask.into()])
}

/// `vote.sync.MODE.{pred|b32} d, p, mask` (`.b32` for ballot).
pub fn vote_sync(
    mode: VoteMode,
    d: Reg,
    p: impl Into<Operand>,
    mask: impl Into<Operand>,
) -> Instruction {
    let t = if mode == VoteMode::Ballot { Type::B32 } else { Type::Pred };
    let m = [flag(Flag::Sync), Modifier::Vote(mode)];
    typed(Opcode::Vote, &m, t, vec![d.into(), p.into(), mask.into()])
}

/// `redux.sync.OP.T d, a, mask` (`.u32`/`.s32` for add/min/max, `.b32` for and/or/xor).
pub fn redux_sync(
    op: AtomOp,
    t: Type,
    d: Reg,
    a: impl Into<Operand>,
    mask: impl Into<Operand>,
) -> Instruction {
    let m = [flag(Flag::Sync), Modifier::Atom(op)];
    typed(Opcode::Redux, &m, t, vec![d.into(), a.into(), mask.into()])
}

/// `testp.OP.T p, a`.
pub fn testp(op: TestpOp, t: Type, p: Reg, a: impl Into<Operand>) -> Instruction {
    typed(Opcode::Testp, &[Modifier::Testp(op)], t, vec![p.into(), a.into()])
}

/// `mma.sync.aligned.mMnNkK.row.col.D.A.B.C {d..}, {a..}, {b..}, {c..}`.
#[allow(clippy::too_many_arguments)]
pub fn mma_sync(
    shape: (u8, u8, u8),
    types: [Type; 4],
    d: &[Reg],
    a: &[Reg],
    b: &[Reg],
    c: &[Reg],
) -> Instruction {
    let mut m = vec![
        flag(Flag::Sync),
        flag(Flag::Aligned),
        Modifier::Shape { m: shape.0, n: shape.1, k: shape.2 },
        Modifier::Layout(Layout::Row),
        Modifier::Layout(Layout::Col),
    ];
    m.extend(types.iter().map(|t| ty(*t)));
    Instruction::new(
        Opcode::Mma,
        m,
        vec![Operand::vector(d), Operand::vector(a), Operand::vector(b), Operand::vector(c)],
    )
}

/// The modifiers of `wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16` (N = `2 * regs`).
pub fn wgmma_f16_mods(regs: usize) -> Vec<Modifier> {
    vec![
        flag(Flag::MmaAsync),
        flag(Flag::Sync),
        flag(Flag::Aligned),
        Modifier::Shape { m: 64, n: (regs * 2) as u8, k: 16 },
        ty(Type::F32),
        ty(Type::F16),
        ty(Type::F16),
    ]
}

/// `wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {d..}, desc_a, desc_b, 1, 1, 1,
/// trans_a, trans_b` (N = `2 * d.len()`): `d += A · B` with both operands in shared memory,
/// read through the matrix descriptors, each K-major (`trans` 0) or MN-major (1).
pub fn wgmma_f16(d: &[Operand], [desc_a, desc_b]: [Operand; 2], trans: [bool; 2]) -> Instruction {
    let mut ops = vec![Operand::Vector(d.to_vec()), desc_a, desc_b];
    ops.extend([1, 1, 1].map(Operand::Imm));
    ops.extend(trans.map(|t| Operand::Imm(i64::from(t))));
    Instruction::new(Opcode::Wgmma, wgmma_f16_mods(d.len()), ops)
}

/// `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned`.
pub fn wgmma_sync(what: Flag) -> Instruction {
    Instruction::new(Opcode::Wgmma, vec![flag(what), flag(Flag::Sync), flag(Flag::Aligned)], vec![])
}

/// `wgmma.wait_group.sync.aligned n`.
pub fn wgmma_wait(n: u32) -> Instruction {
    let m = vec![flag(Flag::WaitGroup), flag(Flag::Sync), flag(Flag::Aligned)];
    Instruction::new(Opcode::Wgmma, m, vec![Operand::Imm(i64::from(n))])
}

/// `fence.proxy.async.shared::cta`: this thread's generic-proxy writes to the CTA's shared
/// memory (`st`) become visible to the async proxy (`wgmma` operand reads).
pub fn fence_proxy_async() -> Instruction {
    let m = vec![flag(Flag::Proxy), flag(Flag::Async), flag(Flag::SharedCta)];
    Instruction::new(Opcode::Fence, m, vec![])
}

/// `cp.async.cg.shared.global [dst], [src], 16`: a 16-byte copy from global to shared
/// memory that bypasses the registers (and L1), complete after a later
/// `cp.async.wait_group` ([`cp_async_wait`]) of the group [`cp_async_commit`] closes.
pub fn cp_async16(dst: Operand, src: Operand) -> Instruction {
    let m = vec![
        flag(Flag::Async),
        Modifier::Cache(CacheOp::Cg),
        Modifier::Space(StateSpace::Shared),
        Modifier::Space(StateSpace::Global),
    ];
    Instruction::new(Opcode::Cp, m, vec![dst, src, Operand::Imm(16)])
}

/// `cp.async.commit_group`: the thread's copies not yet in a group become one.
pub fn cp_async_commit() -> Instruction {
    Instruction::new(Opcode::Cp, vec![flag(Flag::Async), flag(Flag::CommitGroup)], vec![])
}

/// `cp.async.wait_group n`: every group of the thread but the `n` most recent is complete.
pub fn cp_async_wait(n: u32) -> Instruction {
    let m = vec![flag(Flag::Async), flag(Flag::WaitGroup)];
    Instruction::new(Opcode::Cp, m, vec![Operand::Imm(i64::from(n))])
}

/// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d..}, [addr]` (N = `d.len()`).
pub fn ldmatrix(trans: bool, d: &[Reg], addr: Operand) -> Instruction {
    let mut m = vec![
        flag(Flag::Sync),
        flag(Flag::Aligned),
        Modifier::Shape { m: 8, n: 8, k: 0 },
        Modifier::Num(d.len() as u8),
    ];
    if trans {
        m.push(flag(Flag::Trans));
    }
    m.push(Modifier::Space(StateSpace::Shared));
    m.push(ty(Type::B16));
    Instruction::new(Opcode::Ldmatrix, m, vec![Operand::vector(d), addr])
}

/// `tex{.level|.grad}.GEOM.v4.D.C {d0..d3}, [obj, {coords}]{, lod | , dPdx, dPdy}` with
/// `(D, C)` the destination and coordinate types: a
/// texture fetch through a texture object; `C` is `.s32` for integer texel coordinates
/// (fetches) and `.f32` for sampled coordinates. `extra` is the level of detail (one
/// operand) or the two gradient vectors.
pub fn tex(
    geom: super::inst::TexGeom,
    mip: Option<Flag>,
    (dst, coord): (Type, Type),
    d: &[Reg],
    obj: Reg,
    coords: Vec<Operand>,
    extra: Vec<Operand>,
) -> Instruction {
    let mut m = Vec::new();
    m.extend(mip.map(flag));
    m.extend([Modifier::Geom(geom), Modifier::Vec(4), ty(dst), ty(coord)]);
    let mut ops = vec![Operand::vector(d), Operand::Texel(obj, coords)];
    ops.extend(extra);
    Instruction::new(Opcode::Tex, m, ops)
}

/// `tld4.COMP.GEOM.v4.D.f32 {d0..d3}, [obj, {coords}]`: gathers one component of the four
/// texels bilinear filtering would read.
pub fn tld4(
    comp: super::inst::TexComp,
    geom: super::inst::TexGeom,
    dst: Type,
    d: &[Reg],
    obj: Reg,
    coords: Vec<Operand>,
) -> Instruction {
    let m =
        vec![Modifier::Comp(comp), Modifier::Geom(geom), Modifier::Vec(4), ty(dst), ty(Type::F32)];
    Instruction::new(Opcode::Tld4, m, vec![Operand::vector(d), Operand::Texel(obj, coords)])
}

/// `txq{.level}.QUERY.b32 d, [obj]{, lod}` (texture) or `suq.QUERY.b32 d, [obj]` (surface).
pub fn tex_query(
    surface: bool,
    q: super::inst::TexQuery,
    d: Reg,
    obj: Reg,
    lod: Option<Reg>,
) -> Instruction {
    let mut m = Vec::new();
    if lod.is_some() {
        m.push(flag(Flag::Level));
    }
    m.extend([Modifier::Query(q), ty(Type::B32)]);
    let mut ops = vec![d.into(), Operand::addr(obj, 0)];
    ops.extend(lod.map(Operand::Reg));
    Instruction::new(if surface { Opcode::Suq } else { Opcode::Txq }, m, ops)
}

/// The modifiers of `suld.b`/`sust.b`: `.b.GEOM{.vN}.b32.zero` (out-of-range loads read
/// zero and stores are dropped, as WGSL allows).
fn surface_mods(geom: super::inst::TexGeom, words: usize) -> Vec<Modifier> {
    let mut m = vec![flag(Flag::B), Modifier::Geom(geom)];
    if words > 1 {
        m.push(Modifier::Vec(words as u8));
    }
    m.extend([ty(Type::B32), flag(Flag::Zero)]);
    m
}

/// `suld.b.GEOM{.vN}.b32.zero {d..}, [obj, {coords}]`; the x coordinate is in bytes.
pub fn suld(geom: super::inst::TexGeom, d: &[Reg], obj: Reg, coords: Vec<Operand>) -> Instruction {
    Instruction::new(
        Opcode::Suld,
        surface_mods(geom, d.len()),
        vec![Operand::vector(d), Operand::Texel(obj, coords)],
    )
}

/// `sust.b.GEOM{.vN}.b32.zero [obj, {coords}], {v..}`; the x coordinate is in bytes.
pub fn sust(geom: super::inst::TexGeom, obj: Reg, coords: Vec<Operand>, v: &[Reg]) -> Instruction {
    Instruction::new(
        Opcode::Sust,
        surface_mods(geom, v.len()),
        vec![Operand::Texel(obj, coords), Operand::vector(v)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::{Dim, SpecialReg};

    /// Expected strings are written from the PTX ISA's syntax sections.
    #[test]
    fn forms_print_as_the_isa_writes_them() {
        let r = Reg::b32;
        let cases: Vec<(Instruction, &str)> = vec![
            (mov(Type::U32, r(1), SpecialReg::Tid(Dim::X)), "mov.u32 \t%r1, %tid.x;"),
            (pack(Type::B32, r(1), &[Reg::b16(1), Reg::b16(2)]), "mov.b32 \t%r1, {%h1, %h2};"),
            (
                mul_wide(Type::S32, Reg::b64(1), r(1), Operand::imm(4)),
                "mul.wide.s32 \t%rd1, %r1, 4;",
            ),
            (
                cvt(Some(Rounding::Rzi), false, Type::S32, Type::F32, r(1), r(2)),
                "cvt.rzi.s32.f32 \t%r1, %r2;",
            ),
            (cvt(None, true, Type::F32, Type::F32, r(1), r(2)), "cvt.sat.f32.f32 \t%r1, %r2;"),
            (
                cvta_to(StateSpace::Global, Reg::b64(2), Reg::b64(1)),
                "cvta.to.global.u64 \t%rd2, %rd1;",
            ),
            (ld_param(Type::U64, Reg::b64(1), "p_g0_b0"), "ld.param.u64 \t%rd1, [p_g0_b0];"),
            (
                ld_vec(StateSpace::Global, Type::F32, &[r(1), r(2)], Operand::addr(Reg::b64(1), 8)),
                "ld.global.v2.f32 \t{%r1, %r2}, [%rd1+8];",
            ),
            (
                ld_relaxed(StateSpace::Global, Type::U32, r(1), Operand::addr(Reg::b64(1), 0)),
                "ld.relaxed.gpu.global.u32 \t%r1, [%rd1];",
            ),
            (
                atom_cas(
                    StateSpace::Shared,
                    Type::B32,
                    r(1),
                    Operand::addr(Reg::b64(1), 0),
                    r(2),
                    r(3),
                ),
                "atom.shared.cas.b32 \t%r1, [%rd1], %r2, %r3;",
            ),
            (
                setp_combine(
                    CmpOp::Neu,
                    BoolOp::And,
                    Type::F32,
                    Reg::pred(1),
                    r(1),
                    r(2),
                    Operand::Not(Reg::pred(2)),
                ),
                "setp.neu.and.f32 \t%p1, %r1, %r2, !%p2;",
            ),
            (bar_sync(0), "bar.sync \t0;"),
            (bar_red_and(Reg::pred(1), Reg::pred(2)), "bar.red.and.pred \t%p1, 0, %p2;"),
            (fence(MemSem::AcqRel, Scope::Gpu), "fence.acq_rel.gpu;"),
            (
                shfl_sync(ShflMode::Bfly, r(1), r(2), Operand::imm(1), Operand::imm(31), r(3)),
                "shfl.sync.bfly.b32 \t%r1, %r2, 1, 31, %r3;",
            ),
            (
                vote_sync(VoteMode::Ballot, r(1), Reg::pred(1), r(2)),
                "vote.sync.ballot.b32 \t%r1, %p1, %r2;",
            ),
            (
                redux_sync(AtomOp::Add, Type::U32, r(1), r(2), r(3)),
                "redux.sync.add.u32 \t%r1, %r2, %r3;",
            ),
            (
                ldmatrix(true, &[r(1), r(2)], Operand::addr(Reg::b64(1), 0)),
                "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 \t{%r1, %r2}, [%rd1];",
            ),
            (
                mma_sync(
                    (16, 8, 16),
                    [Type::F32, Type::F16, Type::F16, Type::F32],
                    &[r(1), r(2), r(3), r(4)],
                    &[r(5), r(6), r(7), r(8)],
                    &[r(9), r(10)],
                    &[r(1), r(2), r(3), r(4)],
                ),
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \t{%r1, %r2, %r3, %r4}, \
                 {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r1, %r2, %r3, %r4};",
            ),
        ];
        for (inst, text) in cases {
            assert_eq!(inst.to_string(), text);
        }
    }

    /// The fixed forms and the generic ones they are made from, with the same source:
    /// the PTX ISA's syntax sections.
    #[test]
    fn fixed_and_generic_forms_print_as_the_isa_writes_them() {
        let r = Reg::b32;
        let a64 = || Operand::addr(Reg::b64(1), 4);
        let cases: Vec<(Instruction, &str)> = vec![
            (add(Type::S32, r(1), r(2), Operand::imm(1)), "add.s32 \t%r1, %r2, 1;"),
            (sub(Type::U32, r(1), r(2), r(3)), "sub.u32 \t%r1, %r2, %r3;"),
            (mul_lo(Type::S32, r(1), r(2), r(3)), "mul.lo.s32 \t%r1, %r2, %r3;"),
            (mad_lo(Type::U32, r(1), r(2), r(3), r(4)), "mad.lo.u32 \t%r1, %r2, %r3, %r4;"),
            (fma_rn(Type::F32, r(1), r(2), r(3), r(4)), "fma.rn.f32 \t%r1, %r2, %r3, %r4;"),
            (
                unary(Opcode::Sqrt, &[Modifier::Round(Rounding::Rn)], Type::F32, r(1), r(2)),
                "sqrt.rn.f32 \t%r1, %r2;",
            ),
            (
                binary(Opcode::Div, &[Modifier::Round(Rounding::Rn)], Type::F32, r(1), r(2), r(3)),
                "div.rn.f32 \t%r1, %r2, %r3;",
            ),
            (
                ternary(Opcode::Bfe, &[], Type::U32, r(1), r(2), r(3), r(4)),
                "bfe.u32 \t%r1, %r2, %r3, %r4;",
            ),
            (unpack(Type::B32, &[Reg::b16(1), Reg::b16(2)], r(1)), "mov.b32 \t{%h1, %h2}, %r1;"),
            (
                setp(CmpOp::Lt, Type::S32, Reg::pred(1), r(1), Operand::imm(0)),
                "setp.lt.s32 \t%p1, %r1, 0;",
            ),
            (selp(Type::U32, r(1), r(2), r(3), Reg::pred(1)), "selp.u32 \t%r1, %r2, %r3, %p1;"),
            (cvta(StateSpace::Shared, Reg::b64(1), Reg::b64(2)), "cvta.shared.u64 \t%rd1, %rd2;"),
            (ld(StateSpace::Generic, Type::U32, r(1), a64()), "ld.u32 \t%r1, [%rd1+4];"),
            (st(StateSpace::Global, Type::F32, a64(), r(1)), "st.global.f32 \t[%rd1+4], %r1;"),
            (
                st_vec(StateSpace::Shared, Type::B32, a64(), &[r(1), r(2), r(3), r(4)]),
                "st.shared.v4.b32 \t[%rd1+4], {%r1, %r2, %r3, %r4};",
            ),
            (
                st_relaxed(StateSpace::Global, Type::U32, a64(), r(1)),
                "st.relaxed.gpu.global.u32 \t[%rd1+4], %r1;",
            ),
            (
                atom(StateSpace::Global, AtomOp::Add, Type::U32, r(1), a64(), r(2)),
                "atom.global.add.u32 \t%r1, [%rd1+4], %r2;",
            ),
            (
                red(StateSpace::Shared, AtomOp::Max, Type::S32, a64(), r(1)),
                "red.shared.max.s32 \t[%rd1+4], %r1;",
            ),
            (membar(Scope::Gl), "membar.gl;"),
            (bra("L1"), "bra \tL1;"),
            (bra_uni("L1"), "bra.uni \tL1;"),
            (ret(), "ret;"),
            (exit(), "exit;"),
            (trap(), "trap;"),
            (activemask(r(1)), "activemask.b32 \t%r1;"),
            (testp(TestpOp::Finite, Type::F32, Reg::pred(1), r(1)), "testp.finite.f32 \t%p1, %r1;"),
        ];
        for (inst, text) in cases {
            assert_eq!(inst.to_string(), text);
        }
    }
}
