//! Structural checks: operand counts, operand forms and register widths per opcode, guards,
//! and branch targets. The printer does not run them (it prints whatever the model holds, so
//! foreign PTX read by the parser still round-trips); code generators call
//! [`Module::validate`] in their tests and debug builds.

use super::inst::{CacheOp, Flag, Instruction, Modifier, Opcode, Operand};
use super::types::{RegKind, StateSpace, Type};
use super::{Entry, Module, Statement};
use crate::error::{PtxError, PtxErrorKind};
use std::collections::HashSet;

fn invalid(i: &Instruction, msg: impl Into<String>) -> PtxError {
    PtxError::new(
        PtxErrorKind::InvalidInstruction,
        format!("'{}': {}", i.opcode_text(), msg.into()),
    )
}

/// The register file an operand of type `t` lives in (`None`: any 16/32-bit file, for 8-bit).
fn file_of(t: Type) -> Option<RegKind> {
    match t.bits() {
        8 => None,
        _ => RegKind::for_type(t),
    }
}

/// The file twice as wide (`.wide` products).
fn wider(k: Option<RegKind>) -> Option<RegKind> {
    match k {
        Some(RegKind::B16) => Some(RegKind::B32),
        Some(RegKind::B32) => Some(RegKind::B64),
        other => other,
    }
}

/// Checks that a value operand fits register file `want` (immediates and symbols fit any).
fn fits(i: &Instruction, o: &Operand, want: Option<RegKind>, what: &str) -> Result<(), PtxError> {
    let got = match o {
        Operand::Reg(r) | Operand::Not(r) => r.kind,
        Operand::Special(s) => match s.ty() {
            Type::U64 => RegKind::B64,
            _ => RegKind::B32,
        },
        Operand::Address(_) => {
            return Err(invalid(i, format!("{what} cannot be a memory operand")))
        }
        Operand::Vector(_) | Operand::Pair(..) => {
            return Err(invalid(i, format!("{what} cannot be a brace list or pair")))
        }
        _ => return Ok(()),
    };
    match want {
        Some(k) if k != got => {
            Err(invalid(i, format!("{what} {o} is in the {:?} file, expected {:?}", got, k)))
        }
        None if matches!(got, RegKind::Pred | RegKind::B64) => {
            Err(invalid(i, format!("{what} {o} cannot hold an 8-bit value")))
        }
        _ => Ok(()),
    }
}

/// Checks a data operand of `ld`, `st` or `cvt`, which may be a register wider than the
/// instruction type (PTX ISA, "Operand Size Exceeding Instruction-Type Size": a load extends
/// into it, a store or conversion reads its low bits).
fn fits_wide(
    i: &Instruction,
    o: &Operand,
    want: Option<RegKind>,
    what: &str,
) -> Result<(), PtxError> {
    let width = |k: RegKind| match k {
        RegKind::Pred => 0,
        RegKind::B16 => 1,
        RegKind::B32 => 2,
        RegKind::B64 => 3,
    };
    match (o, want) {
        (Operand::Reg(r), Some(k)) if k != RegKind::Pred && width(r.kind) > width(k) => Ok(()),
        (Operand::Reg(r), None) if r.kind != RegKind::Pred => Ok(()),
        _ => fits(i, o, want, what),
    }
}

/// A destination of `ld` or `cvt`: a register of `want` or wider, or the sink.
fn dest_wide(i: &Instruction, o: &Operand, want: Option<RegKind>) -> Result<(), PtxError> {
    match o {
        Operand::Reg(_) => fits_wide(i, o, want, "destination"),
        Operand::Sink => Ok(()),
        _ => Err(invalid(i, format!("destination {o} must be a register"))),
    }
}

/// Checks a destination: a register of `want`, or the sink.
fn dest(i: &Instruction, o: &Operand, want: Option<RegKind>) -> Result<(), PtxError> {
    match o {
        Operand::Reg(_) => fits(i, o, want, "destination"),
        Operand::Sink => Ok(()),
        _ => Err(invalid(i, format!("destination {o} must be a register"))),
    }
}

fn is_addr(o: &Operand) -> bool {
    matches!(o, Operand::Address(_))
}

/// Checks that `i` has from `lo` to `hi` operands.
fn arity(i: &Instruction, lo: usize, hi: usize) -> Result<(), PtxError> {
    let n = i.operands.len();
    if (lo..=hi).contains(&n) {
        return Ok(());
    }
    let want = if lo == hi { format!("{lo}") } else { format!("{lo} or {hi}") };
    Err(invalid(i, format!("expected {want} operand(s), found {n}")))
}

/// Checks that every operand from the `from`-th on fits register file `want`.
fn rest_fit(i: &Instruction, from: usize, want: Option<RegKind>) -> Result<(), PtxError> {
    i.operands.iter().skip(from).try_for_each(|o| fits(i, o, want, "operand"))
}

/// A source operand's register file and its name in errors.
type Source<'a> = (Option<RegKind>, &'a str);

/// Checks the common layout `d, a, b, ..`: a destination in file `d`, then exactly one
/// operand per entry of `sources`.
fn dest_then_sources(
    i: &Instruction,
    d: Option<RegKind>,
    sources: &[Source<'_>],
) -> Result<(), PtxError> {
    arity(i, sources.len() + 1, sources.len() + 1)?;
    dest(i, i.operands.first().unwrap_or(&Operand::Sink), d)?;
    let rest = i.operands.iter().skip(1);
    sources.iter().zip(rest).try_for_each(|(&(want, what), o)| fits(i, o, want, what))
}

/// Checks one instruction against the rules of its opcode. Each opcode's operand count is
/// checked in the arm that checks its operands, so that one list of opcodes says both.
pub fn check_instruction(i: &Instruction) -> Result<(), PtxError> {
    use Opcode as O;
    if let Some(g) = i.guard {
        if g.reg.kind != RegKind::Pred {
            return Err(invalid(i, format!("guard {} is not a predicate", g.reg)));
        }
    }
    let types: Vec<Type> = i.types().collect();
    let want_types = match i.op {
        O::Mma => 4,
        // `wgmma.mma_async...dtype.atype.btype`; the fences and groups have none.
        O::Wgmma if i.has_flag(Flag::MmaAsync) => 3,
        O::Wgmma | O::Cp => 0,
        // `dp4a.atype.btype`: one type per packed operand.
        O::Cvt | O::Set | O::Tex | O::Tld4 | O::Dp4a => 2,
        O::Bar | O::Barrier if i.has_flag(Flag::Red) => 1,
        O::Bar
        | O::Barrier
        | O::Membar
        | O::Fence
        | O::Bra
        | O::Ret
        | O::Exit
        | O::Trap
        | O::Call => 0,
        _ => 1,
    };
    if types.len() != want_types {
        return Err(invalid(
            i,
            format!("expected {want_types} type modifier(s), found {}", types.len()),
        ));
    }
    // The opcodes without a type never look at `k`.
    let k = types.first().copied().and_then(file_of);
    let n = i.operands.len();
    let op = |n: usize| i.operands.get(n).unwrap_or(&Operand::Sink);
    // `.wide` products are twice as wide as their factors.
    let dk = if i.has(Modifier::Flag(Flag::Wide)) { wider(k) } else { k };
    let b32 = Some(RegKind::B32);
    let b64 = Some(RegKind::B64);
    let pred = Some(RegKind::Pred);
    match i.op {
        O::Ret | O::Exit | O::Trap | O::Membar | O::Fence => arity(i, 0, 0),
        O::Wgmma => wgmma(i),
        O::Cp => cp_async(i),
        // `bar.red.and.pred d, a{, b}, {!}c`.
        O::Bar | O::Barrier if i.has_flag(Flag::Red) => {
            arity(i, 3, 4)?;
            dest(i, op(0), pred)?;
            fits(i, op(n - 1), pred, "predicate")
        }
        O::Bar | O::Barrier => arity(i, 1, 2),
        O::Bra => {
            arity(i, 1, 1)?;
            match op(0) {
                Operand::Symbol(_) => Ok(()),
                _ => Err(invalid(i, "the target must be a label")),
            }
        }
        O::Mov => {
            arity(i, 2, 2)?;
            match (op(0), op(1)) {
                (Operand::Vector(parts), src) => {
                    parts.iter().try_for_each(|p| dest(i, p, None))?;
                    fits(i, src, k, "source")
                }
                (d, Operand::Vector(parts)) => {
                    dest(i, d, k)?;
                    parts.iter().try_for_each(|p| fits(i, p, None, "element"))
                }
                (d, s) => {
                    dest(i, d, k)?;
                    fits(i, s, k, "source")
                }
            }
        }
        O::Call => {
            // `call (rets), f, (args);`; either list may be missing.
            let lists = |o: &Operand| match o {
                Operand::List(v) => v.iter().all(|x| matches!(x, Operand::Symbol(_))),
                _ => false,
            };
            let target = match i.operands.iter().position(|o| matches!(o, Operand::Symbol(_))) {
                Some(t) if t <= 1 => t,
                _ => return Err(invalid(i, "needs a function name")),
            };
            let ok = (target == 0 || lists(op(0)))
                && n <= target + 2
                && (n == target + 1 || lists(op(target + 1)));
            if ok {
                Ok(())
            } else {
                Err(invalid(i, "expected (results), function, (arguments) with .param names"))
            }
        }
        O::Shf => {
            dest_then_sources(i, b32, &[(b32, "operand a"), (b32, "operand b"), (b32, "shift")])
        }
        O::Add
        | O::Addc
        | O::Sub
        | O::Subc
        | O::Mul
        | O::Div
        | O::Rem
        | O::Min
        | O::Max
        | O::And
        | O::Or
        | O::Xor
        | O::Copysign => dest_then_sources(i, dk, &[(k, "operand a"), (k, "operand b")]),
        O::Shl | O::Shr => dest_then_sources(i, k, &[(k, "operand a"), (b32, "shift amount")]),
        O::Mad | O::Madc | O::Fma => {
            dest_then_sources(i, dk, &[(k, "operand a"), (k, "operand b"), (dk, "operand c")])
        }
        O::Neg
        | O::Abs
        | O::Not
        | O::Cnot
        | O::Brev
        | O::Sqrt
        | O::Rsqrt
        | O::Ex2
        | O::Lg2
        | O::Sin
        | O::Cos
        | O::Tanh
        | O::Rcp => dest_then_sources(i, k, &[(k, "source")]),
        O::Popc | O::Clz | O::Bfind => dest_then_sources(i, b32, &[(k, "source")]),
        O::Bfe => dest_then_sources(i, k, &[(k, "source"), (b32, "position"), (b32, "length")]),
        O::Bfi => dest_then_sources(
            i,
            k,
            &[(k, "inserted value"), (k, "base"), (b32, "position"), (b32, "length")],
        ),
        O::Prmt | O::Dp4a => dest_then_sources(i, k, &[(k, "operand"); 3]),
        // `lop3` also takes its lookup table.
        O::Lop3 => dest_then_sources(i, k, &[(k, "operand"); 4]),
        O::Selp => {
            dest_then_sources(i, k, &[(k, "operand a"), (k, "operand b"), (pred, "selector")])
        }
        O::Setp | O::Set => {
            arity(i, 3, 4)?;
            let combine = i.mods.iter().any(|m| matches!(m, Modifier::Bool(_)));
            if combine != (n == 4) {
                return Err(invalid(
                    i,
                    "a boolean combine (.and/.or/.xor) takes a fourth operand, and only then",
                ));
            }
            let src = if i.op == O::Set { types.get(1).copied().and_then(file_of) } else { k };
            match (i.op, op(0)) {
                (O::Setp, Operand::Pair(a, b))
                    if a.kind == RegKind::Pred && b.kind == RegKind::Pred => {}
                (O::Setp, d) => dest(i, d, pred)?,
                (_, d) => dest(i, d, k)?,
            }
            fits(i, op(1), src, "operand a")?;
            fits(i, op(2), src, "operand b")?;
            if n == 4 {
                fits(i, op(3), pred, "predicate c")?;
            }
            Ok(())
        }
        O::Testp => dest_then_sources(i, pred, &[(k, "source")]),
        O::Cvt => {
            arity(i, 2, 3)?;
            // `cvt.rn.f16x2.f32 d, a, b` packs two converted values.
            let packs = matches!(types.first(), Some(Type::F16x2 | Type::Bf16x2));
            if n != if packs { 3 } else { 2 } {
                return Err(invalid(i, "cvt takes two operands (three when packing to f16x2)"));
            }
            dest_wide(i, op(0), k)?;
            let src = types.get(1).copied().and_then(file_of);
            i.operands.iter().skip(1).try_for_each(|o| fits_wide(i, o, src, "source"))
        }
        O::Cvta => dest_then_sources(i, b64, &[(b64, "source")]),
        O::Ld | O::St => {
            arity(i, 2, 2)?;
            let (addr, val) = if i.op == O::Ld { (op(1), op(0)) } else { (op(0), op(1)) };
            if !is_addr(addr) {
                return Err(invalid(i, "needs a memory operand [..]"));
            }
            let lanes = i.find_mod(|m| match m {
                Modifier::Vec(n) => Some(usize::from(*n)),
                _ => None,
            });
            match (lanes, val) {
                (Some(n), _) if n != 2 && n != 4 => {
                    Err(invalid(i, format!(".v{n}: use .v2 or .v4")))
                }
                (Some(n), Operand::Vector(v)) if v.len() == n => {
                    v.iter().try_for_each(|o| fits_wide(i, o, k, "element"))
                }
                (Some(n), _) => Err(invalid(i, format!(".v{n} needs a brace list of {n} values"))),
                (None, Operand::Vector(_)) => Err(invalid(i, "a brace list needs .v2 or .v4")),
                (None, v) if i.op == O::Ld => dest_wide(i, v, k),
                (None, v) => fits_wide(i, v, k, "stored value"),
            }
        }
        O::Atom => {
            arity(i, 3, 4)?;
            let cas = i.has(Modifier::Atom(super::inst::AtomOp::Cas));
            if cas != (n == 4) {
                return Err(invalid(i, "cas takes four operands, other operations three"));
            }
            dest(i, op(0), k)?;
            if !is_addr(op(1)) {
                return Err(invalid(i, "needs a memory operand [..]"));
            }
            rest_fit(i, 2, k)
        }
        O::Red => {
            arity(i, 2, 2)?;
            if !is_addr(op(0)) {
                return Err(invalid(i, "needs a memory operand [..]"));
            }
            fits(i, op(1), k, "operand")
        }
        O::Activemask => dest_then_sources(i, b32, &[]),
        O::Shfl => {
            arity(i, 5, 5)?;
            match op(0) {
                Operand::Pair(a, b) if a.kind == RegKind::B32 && b.kind == RegKind::Pred => {}
                d => dest(i, d, b32)?,
            }
            rest_fit(i, 1, b32)
        }
        O::Vote => dest_then_sources(i, k, &[(pred, "predicate"), (b32, "member mask")]),
        O::Redux => dest_then_sources(i, k, &[(k, "source"), (b32, "member mask")]),
        O::Mma => {
            arity(i, 4, 4)?;
            if i.operands.iter().all(|o| matches!(o, Operand::Vector(_))) {
                Ok(())
            } else {
                Err(invalid(i, "every operand must be a brace list of registers"))
            }
        }
        O::Tex | O::Tld4 | O::Suld | O::Sust => texture_access(i),
        O::Txq | O::Suq => {
            arity(i, 2, 3)?;
            dest(i, op(0), b32)?;
            match op(1) {
                Operand::Address(super::inst::Address {
                    base: super::inst::AddrBase::Reg(r),
                    offset: 0,
                }) if r.kind == RegKind::B64 => {}
                _ => return Err(invalid(i, "needs the object as [%rdN]")),
            }
            rest_fit(i, 2, b32)
        }
        O::Ldmatrix => {
            arity(i, 2, 2)?;
            let count = i.find_mod(|m| match m {
                Modifier::Num(n) => Some(usize::from(*n)),
                _ => None,
            });
            match (count, op(0)) {
                (Some(c @ (1 | 2 | 4)), Operand::Vector(v)) if v.len() == c && is_addr(op(1)) => {
                    v.iter().try_for_each(|o| dest(i, o, b32))
                }
                _ => Err(invalid(i, "needs .xN, a brace list of N registers and a memory operand")),
            }
        }
    }
}

/// `tex`, `tld4`, `suld` (`{d..}, [obj, {c..}]` and, for `tex`, a level of detail or two
/// gradient vectors, then for `tex`/`tld4` an optional offset vector) and `sust` (`[obj, {c..}], {v..}`): a geometry, a 64-bit object
/// register and brace lists of 32-bit registers or immediates.
fn texture_access(i: &Instruction) -> Result<(), PtxError> {
    let geom = i.find_mod(|m| if let Modifier::Geom(g) = m { Some(*g) } else { None });
    if geom.is_none() {
        return Err(invalid(i, "needs a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube)"));
    }
    let b32 = Some(RegKind::B32);
    let (texel, rest) = if i.op == Opcode::Sust { (0, 1) } else { (1, 0) };
    // `tex` and `tld4` take an optional texel-offset vector last.
    let (lo, hi) = match i.op {
        Opcode::Tex if i.has_flag(Flag::Grad) => (4, 5),
        Opcode::Tex if i.has_flag(Flag::Level) => (3, 4),
        Opcode::Tex | Opcode::Tld4 => (2, 3),
        _ => (2, 2),
    };
    arity(i, lo, hi)?;
    match i.operands.get(texel) {
        Some(Operand::Texel(h, c)) if h.kind == RegKind::B64 && !c.is_empty() => {
            c.iter().try_for_each(|o| fits(i, o, b32, "coordinate"))?
        }
        _ => return Err(invalid(i, "needs the object and coordinates as [%rdN, {..}]")),
    }
    match i.operands.get(rest) {
        Some(Operand::Vector(v)) if !v.is_empty() => {
            if i.op == Opcode::Sust {
                v.iter().try_for_each(|o| fits(i, o, b32, "value"))?
            } else {
                v.iter().try_for_each(|o| dest(i, o, b32))?
            }
        }
        _ => return Err(invalid(i, "needs a brace list of registers")),
    }
    for o in i.operands.iter().skip(2) {
        match o {
            Operand::Vector(v) => v.iter().try_for_each(|o| fits(i, o, b32, "gradient"))?,
            o => fits(i, o, b32, "level of detail")?,
        }
    }
    Ok(())
}

/// Checks every instruction of `e`, and that labels are unique and every branch target exists.
pub fn check_entry(e: &Entry) -> Result<(), PtxError> {
    let ctx = |err: PtxError| PtxError {
        message: format!("{} (entry '{}')", err.message, e.name),
        ..err
    };
    let mut labels = HashSet::new();
    for s in &e.body {
        if let Statement::Label(l) = s {
            if !labels.insert(l.as_str()) {
                return Err(ctx(PtxError::new(
                    PtxErrorKind::InvalidInstruction,
                    format!("label '{l}' is defined twice"),
                )));
            }
        }
    }
    for i in e.instructions() {
        check_instruction(i).map_err(ctx)?;
        if let (Opcode::Bra, Some(Operand::Symbol(target))) = (i.op, i.operands.first()) {
            if !labels.contains(target.as_str()) {
                return Err(ctx(PtxError::new(
                    PtxErrorKind::InvalidInstruction,
                    format!("branch to undefined label '{target}'"),
                )));
            }
        }
    }
    Ok(())
}

impl Module {
    /// Checks names and comments (as the printer does) and every entry with [`check_entry`].
    pub fn validate(&self) -> Result<(), PtxError> {
        crate::print::check_module(self)?;
        self.funcs.iter().filter(|f| f.defined).try_for_each(|f| check_entry(&f.def))?;
        self.entries.iter().try_for_each(check_entry)
    }
}

/// `wgmma`: `.mma_async` takes `{d..}, descA, descB, scale-d, imm-scale-a, imm-scale-b,
/// imm-trans-a, imm-trans-b` (before register allocation the code generator writes a whole
/// product as one `{d..}, (descriptors..), {c..}, imm-trans-a, imm-trans-b`,
/// `codegen::regalloc::tied`);
/// `.wait_group` an immediate; `.fence` and `.commit_group` nothing.
/// `cp.async.{ca,cg}.shared.global [dst], [src], size` (`.cg` copies 16 bytes, `.ca` 4, 8
/// or 16), `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
fn cp_async(i: &Instruction) -> Result<(), PtxError> {
    if !i.has_flag(Flag::Async) {
        return Err(invalid(i, "only cp.async is modelled"));
    }
    if i.has_flag(Flag::CommitGroup) || i.has_flag(Flag::WaitAll) {
        return arity(i, 0, 0);
    }
    if i.has_flag(Flag::WaitGroup) {
        arity(i, 1, 1)?;
        return match i.operands[0] {
            Operand::Imm(n) if n >= 0 => Ok(()),
            _ => Err(invalid(i, "the group count must be a non-negative immediate")),
        };
    }
    arity(i, 3, 3)?;
    let spaces: Vec<StateSpace> = i
        .mods
        .iter()
        .filter_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
        .collect();
    if spaces != [StateSpace::Shared, StateSpace::Global] {
        return Err(invalid(i, "copies from .global to .shared (cp.async.cg.shared.global)"));
    }
    let cg = i.has(Modifier::Cache(CacheOp::Cg));
    let ca = i.has(Modifier::Cache(CacheOp::Ca));
    match (&i.operands[2], cg, ca) {
        (Operand::Imm(16), true, false) | (Operand::Imm(4 | 8 | 16), false, true) => {}
        _ => return Err(invalid(i, "cp.async.cg copies 16 bytes, cp.async.ca 4, 8 or 16")),
    }
    if is_addr(&i.operands[0]) && is_addr(&i.operands[1]) {
        Ok(())
    } else {
        Err(invalid(i, "needs two memory operands [dst], [src]"))
    }
}

fn wgmma(i: &Instruction) -> Result<(), PtxError> {
    let b64 = Some(RegKind::B64);
    let is_imm = |o: &Operand| matches!(o, Operand::Imm(_));
    let regs = |o: &Operand| match o {
        Operand::Vector(v) => {
            v.iter().all(|r| matches!(r, Operand::Reg(x) if x.kind == RegKind::B32))
        }
        _ => false,
    };
    if i.has_flag(Flag::MmaAsync) {
        if let [d, Operand::List(descs), c, ta, tb] = i.operands.as_slice() {
            return if regs(d) && regs(c) && is_imm(ta) && is_imm(tb) {
                descs.iter().try_for_each(|o| fits(i, o, b64, "descriptor"))
            } else {
                Err(invalid(i, "the accumulator must be a brace list of .b32 registers"))
            };
        }
        arity(i, 8, 8)?;
        let ops = &i.operands;
        if !regs(&ops[0]) {
            return Err(invalid(i, "the accumulator must be a brace list of .b32 registers"));
        }
        fits(i, &ops[1], b64, "descriptor")?;
        fits(i, &ops[2], b64, "descriptor")?;
        match &ops[3] {
            Operand::Imm(0 | 1) => {}
            o => fits(i, o, Some(RegKind::Pred), "scale-d")?,
        }
        if ops[4..8].iter().all(is_imm) {
            Ok(())
        } else {
            Err(invalid(i, "imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b are immediates"))
        }
    } else if i.has_flag(Flag::WaitGroup) {
        match i.operands.as_slice() {
            [n] if is_imm(n) => Ok(()),
            _ => Err(invalid(i, "wgmma.wait_group takes an immediate")),
        }
    } else {
        arity(i, 0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::build;
    use crate::model::{CmpOp, Operand, Reg, StateSpace};

    fn kind(i: Instruction) -> Result<(), PtxErrorKind> {
        check_instruction(&i).map_err(|e| e.kind)
    }

    #[test]
    fn accepts_well_formed() {
        assert_eq!(kind(build::add(Type::S32, Reg::b32(1), Reg::b32(2), Operand::imm(1))), Ok(()));
        assert_eq!(
            kind(build::mul_wide(Type::S32, Reg::b64(1), Reg::b32(2), Operand::imm(4))),
            Ok(())
        );
        assert_eq!(
            kind(build::setp(CmpOp::Lt, Type::F32, Reg::pred(1), Reg::b32(1), Operand::f32(0.0))),
            Ok(())
        );
        assert_eq!(
            kind(build::ld(
                StateSpace::Global,
                Type::U8,
                Reg::b16(1),
                Operand::addr(Reg::b64(1), 0)
            )),
            Ok(())
        );
        // dp4a names the types of both packed operands (PTX ISA, "dp4a").
        let dp4a = |t: Type| {
            let (d, a, b, c) = (Reg::b32(1), Reg::b32(2), Reg::b32(3), Reg::b32(4));
            build::ternary(Opcode::Dp4a, &[t.into()], t, d, a, b, c)
        };
        assert_eq!(kind(dp4a(Type::U32)), Ok(()));
        assert_eq!(kind(dp4a(Type::S32)), Ok(()));
    }

    #[test]
    fn data_registers_of_ld_st_cvt_may_be_wider() {
        let a = || Operand::addr(Reg::b64(1), 0);
        assert_eq!(kind(build::st(StateSpace::Global, Type::U32, a(), Reg::b64(2))), Ok(()));
        assert_eq!(kind(build::ld(StateSpace::Global, Type::U8, Reg::b64(2), a())), Ok(()));
        assert_eq!(kind(build::ld(StateSpace::Global, Type::U16, Reg::b32(2), a())), Ok(()));
        assert_eq!(
            kind(build::cvt(None, false, Type::U32, Type::U16, Reg::b32(1), Reg::b32(2))),
            Ok(())
        );
        let bad = Err(PtxErrorKind::InvalidInstruction);
        // Narrower, or a predicate, is still wrong.
        assert_eq!(kind(build::ld(StateSpace::Global, Type::U64, Reg::b32(2), a())), bad);
        assert_eq!(kind(build::st(StateSpace::Global, Type::U32, a(), Reg::pred(1))), bad);
        assert_eq!(kind(build::add(Type::U32, Reg::b64(1), Reg::b64(2), Reg::b64(3))), bad);
    }

    #[test]
    fn rejects_malformed() {
        let bad = Err(PtxErrorKind::InvalidInstruction);
        // Wrong register width.
        assert_eq!(kind(build::add(Type::S32, Reg::b64(1), Reg::b32(2), Reg::b32(3))), bad);
        // Missing type.
        assert_eq!(kind(Instruction::new(Opcode::Add, vec![], vec![])), bad);
        // Wrong operand count.
        assert_eq!(kind(Instruction::new(Opcode::Ret, vec![], vec![Operand::imm(1)])), bad);
        // Guard that is not a predicate.
        assert_eq!(kind(build::ret().guarded(Reg::b32(1), false)), bad);
        // Load without an address.
        assert_eq!(
            kind(build::ld(StateSpace::Global, Type::F32, Reg::b32(1), Reg::b64(1).into())),
            bad
        );
        // .v2 with one value.
        assert_eq!(
            kind(build::ld_vec(
                StateSpace::Global,
                Type::F32,
                &[Reg::b32(1)],
                Operand::addr(Reg::b64(1), 0)
            )),
            bad
        );
        // setp destination not a predicate.
        assert_eq!(
            kind(build::setp(CmpOp::Lt, Type::S32, Reg::b32(1), Reg::b32(1), Reg::b32(2))),
            bad
        );
    }

    #[test]
    fn cvt_packing_takes_three_operands() {
        let mods = vec![
            Modifier::Round(crate::model::Rounding::Rn),
            Modifier::Type(Type::F16x2),
            Modifier::Type(Type::F32),
        ];
        let ops = vec![Reg::b32(1).into(), Reg::b32(2).into(), Reg::b32(3).into()];
        assert_eq!(kind(Instruction::new(Opcode::Cvt, mods.clone(), ops.clone())), Ok(()));
        let scalar = vec![
            Modifier::Round(crate::model::Rounding::Rn),
            Modifier::Type(Type::F32),
            Modifier::Type(Type::F32),
        ];
        assert_eq!(
            kind(Instruction::new(Opcode::Cvt, scalar, ops)),
            Err(PtxErrorKind::InvalidInstruction)
        );
    }

    #[test]
    fn calls_funnel_shifts_and_carries() {
        use crate::model::Flag;
        let call =
            |ops: Vec<Operand>| kind(Instruction::new(Opcode::Call, vec![Flag::Uni.into()], ops));
        let list = |names: &[&str]| Operand::List(names.iter().map(|n| Operand::sym(*n)).collect());
        assert_eq!(call(vec![list(&["retval0"]), Operand::sym("f"), list(&["param0"])]), Ok(()));
        assert_eq!(call(vec![Operand::sym("f"), list(&["param0", "param1"])]), Ok(()));
        assert_eq!(call(vec![list(&[]), Operand::sym("f")]), Ok(()));
        assert_eq!(call(vec![Operand::sym("f")]), Ok(()));
        let bad = Err(PtxErrorKind::InvalidInstruction);
        assert_eq!(call(vec![list(&["r"])]), bad, "no function");
        assert_eq!(call(vec![Operand::sym("f"), Reg::b32(1).into()]), bad, "a register argument");
        assert_eq!(call(vec![Operand::sym("f"), list(&["a"]), list(&["b"])]), bad, "three lists");
        let shf = |d: Reg| {
            kind(Instruction::new(
                Opcode::Shf,
                vec![Flag::L.into(), Flag::Wrap.into(), Type::B32.into()],
                vec![d.into(), Reg::b32(2).into(), Reg::b32(3).into(), Operand::imm(4)],
            ))
        };
        assert_eq!(shf(Reg::b32(1)), Ok(()));
        assert_eq!(shf(Reg::b64(1)), bad);
        let madc = Instruction::new(
            Opcode::Madc,
            vec![Flag::Hi.into(), Flag::Cc.into(), Type::U32.into()],
            vec![Reg::b32(1).into(), Reg::b32(2).into(), Reg::b32(3).into(), Operand::imm(0)],
        );
        assert_eq!(kind(madc), Ok(()));
    }

    #[test]
    fn branch_targets() {
        let mut e = Entry::new("k");
        e.push(build::bra("L"));
        assert!(check_entry(&e).is_err());
        e.label("L");
        assert!(check_entry(&e).is_ok());
        e.label("L");
        assert!(check_entry(&e).is_err());
    }
}
