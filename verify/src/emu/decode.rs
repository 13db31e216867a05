//! Pre-decoding: every instruction of the entry becomes a [`DInst`] with resolved register
//! slots, branch targets and symbol addresses, once per launch.

use super::memory::MODULE_BASE;
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{
    AddrBase, AtomOp, BoolOp, CmpOp, Entry, Flag, Flags, Layout, Modifier, Module, Opcode, Operand,
    PrmtMode, Reg, RegKind, Rounding, ShflMode, SpecialReg, StateSpace, Statement, TestpOp, Type,
    VoteMode,
};
use std::collections::HashMap;

/// A decoded operand.
#[derive(Clone, Debug)]
pub(crate) enum Opd {
    /// A register slot.
    Reg(u32),
    /// `!%p`.
    Not(u32),
    /// `%r|%p` (two destinations).
    Pair(u32, u32),
    /// A decimal or hexadecimal integer immediate.
    Imm(i64),
    /// An f32 immediate by its bits.
    F32(u32),
    /// An f64 immediate by its bits.
    F64(u64),
    /// A special register.
    Special(SpecialReg),
    /// The address of a variable in its own state space.
    Sym(StateSpace, u64),
    /// A branch target (instruction index).
    Label(usize),
    /// `[base+offset]`.
    Addr(Base, i64),
    /// `{a, b, ...}`.
    Vector(Vec<Opd>),
    /// `_`.
    Sink,
}

/// The base of a decoded memory operand.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Base {
    /// A register holding an address.
    Reg(u32),
    /// A variable: its state space and address there.
    Var(StateSpace, u64),
    /// Kernel parameter number `i`.
    Param(usize),
}

/// How the scheduler treats an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Runs lane by lane.
    Lane,
    /// `bar.sync` / `barrier.sync`: waits for the CTA.
    Barrier,
    /// Runs once all lanes of the member mask wait at it.
    Collective,
}

/// A decoded instruction.
#[derive(Clone, Debug)]
pub(crate) struct DInst {
    pub op: Opcode,
    pub line: Option<u32>,
    /// The opcode with modifiers, for messages.
    pub text: String,
    pub guard: Option<(u32, bool)>,
    pub tys: Vec<Type>,
    pub round: Option<Rounding>,
    flags: Flags,
    pub cmp: Option<CmpOp>,
    pub boolop: Option<BoolOp>,
    pub atom: Option<AtomOp>,
    pub shfl: Option<ShflMode>,
    pub vote: Option<VoteMode>,
    pub testp: Option<TestpOp>,
    pub prmt: Option<PrmtMode>,
    pub space: StateSpace,
    pub vec: u8,
    pub num: u8,
    pub shape: (u8, u8, u8),
    pub layouts: Vec<Layout>,
    pub ops: Vec<Opd>,
    pub class: Class,
}

impl DInst {
    /// Whether flag `f` is among the modifiers.
    pub fn has(&self, f: Flag) -> bool {
        self.flags.intersects(f.bit())
    }

    /// Type modifier `k` (0: the first).
    pub fn ty(&self, k: usize) -> Result<Type, EmuError> {
        self.tys
            .get(k)
            .copied()
            .ok_or_else(|| self.err(EmuErrorKind::Unsupported, "a type modifier is missing"))
    }

    /// Operand `k`.
    pub fn opd(&self, k: usize) -> Result<&Opd, EmuError> {
        self.ops.get(k).ok_or_else(|| {
            self.err(EmuErrorKind::Unsupported, format!("operand {} is missing", k + 1))
        })
    }

    /// An error at this instruction's line; the message names the instruction.
    pub fn err(&self, kind: EmuErrorKind, msg: impl AsRef<str>) -> EmuError {
        EmuError::new(kind, self.line, format!("{}: {}", self.text, msg.as_ref()))
    }

    /// An `Unsupported` error for this form.
    pub fn unsupported(&self) -> EmuError {
        self.err(EmuErrorKind::Unsupported, "this form is not supported by the emulator")
    }
}

/// A decoded entry and its memory layout.
#[derive(Debug)]
pub(crate) struct Prog {
    pub insts: Vec<DInst>,
    /// Register slots per thread.
    pub nslots: usize,
    /// First slot of each register kind ([`RegKind::index`]).
    pub bases: [u32; 4],
    /// Width in bits of each slot's register (1 for predicates).
    pub slot_bits: Vec<u8>,
    /// Shared bytes per CTA.
    pub shared_size: usize,
    /// Local bytes per thread.
    pub local_size: usize,
    /// Initial contents of the module's `.global`/`.const` variables (at `MODULE_BASE`).
    pub module_data: Vec<u8>,
    /// Immediate post-dominator of each instruction (`insts.len()` = the exit): where the
    /// lanes of a divergent branch reconverge.
    pub ipdom: Vec<usize>,
    /// Source register names by kind and number (see `lines::register_names`).
    pub names: Option<[Vec<String>; 4]>,
}

impl Prog {
    /// The source name of a slot (`%f3`), or the model's (`%r7`) when the text could not
    /// be scanned, for messages.
    pub fn slot_name(&self, slot: u32) -> String {
        let mut kind = RegKind::Pred;
        for k in RegKind::ALL {
            if slot >= self.bases[k.index()] {
                kind = k;
            }
        }
        let num = slot - self.bases[kind.index()];
        self.names
            .as_ref()
            .and_then(|n| n[kind.index()].get(num as usize).cloned())
            .unwrap_or_else(|| Reg { kind, num }.to_string())
    }
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

fn slot(bases: &[u32; 4], r: Reg) -> u32 {
    bases[r.kind.index()] + r.num
}

struct Syms<'a> {
    vars: HashMap<&'a str, (StateSpace, u64)>,
    params: HashMap<&'a str, usize>,
    labels: HashMap<&'a str, usize>,
}

fn operand(o: &Operand, bases: &[u32; 4], syms: &Syms, line: Option<u32>) -> Result<Opd, EmuError> {
    let unknown =
        |s: &str| EmuError::new(EmuErrorKind::Unsupported, line, format!("unknown symbol '{s}'"));
    Ok(match o {
        Operand::Reg(r) => Opd::Reg(slot(bases, *r)),
        Operand::Not(r) => Opd::Not(slot(bases, *r)),
        Operand::Pair(a, b) => Opd::Pair(slot(bases, *a), slot(bases, *b)),
        Operand::Imm(v) => Opd::Imm(*v),
        Operand::ImmHex(v) => Opd::Imm(*v as i64),
        Operand::ImmF32(b) => Opd::F32(*b),
        Operand::ImmF64(b) => Opd::F64(*b),
        Operand::Special(s) => Opd::Special(*s),
        Operand::Sink => Opd::Sink,
        Operand::Symbol(s) => {
            if let Some(&(sp, a)) = syms.vars.get(s.as_str()) {
                Opd::Sym(sp, a)
            } else if let Some(&t) = syms.labels.get(s.as_str()) {
                Opd::Label(t)
            } else {
                return Err(unknown(s));
            }
        }
        Operand::Address(a) => {
            let base = match &a.base {
                AddrBase::Reg(r) => Base::Reg(slot(bases, *r)),
                AddrBase::Symbol(s) => {
                    if let Some(&(sp, a)) = syms.vars.get(s.as_str()) {
                        Base::Var(sp, a)
                    } else if let Some(&p) = syms.params.get(s.as_str()) {
                        Base::Param(p)
                    } else {
                        return Err(unknown(s));
                    }
                }
            };
            Opd::Addr(base, a.offset)
        }
        Operand::Vector(v) => {
            Opd::Vector(v.iter().map(|o| operand(o, bases, syms, line)).collect::<Result<_, _>>()?)
        }
        Operand::List(_) => {
            return Err(EmuError::new(EmuErrorKind::Unsupported, line, "'call' is not supported"))
        }
    })
}

/// Decodes entry `e` of `m`; `lines` gives the PTX line of each body statement.
pub(crate) fn decode(
    m: &Module,
    e: &Entry,
    lines: Option<&[u32]>,
    names: Option<[Vec<String>; 4]>,
) -> Result<Prog, EmuError> {
    let counts = e.reg_counts();
    let mut bases = [0u32; 4];
    let mut total = 0u32;
    let mut slot_bits = Vec::new();
    for k in RegKind::ALL {
        bases[k.index()] = total;
        total += counts[k.index()];
        let bits = match k {
            RegKind::Pred => 1,
            RegKind::B16 => 16,
            RegKind::B32 => 32,
            RegKind::B64 => 64,
        };
        slot_bits.extend(std::iter::repeat_n(bits, counts[k.index()] as usize));
    }
    // Memory layout: shared variables of the module and the entry share one window per CTA;
    // local variables one window per thread. Offsets start at 0 in each space.
    let mut vars = HashMap::new();
    let (mut shared, mut local) = (0u64, 0u64);
    // Module-scope `.global` and `.const` variables (CUDA's math tables, for one) share a
    // region of global memory at MODULE_BASE holding their initial values.
    let mut module_data = Vec::new();
    for v in m.globals.iter().chain(&e.vars) {
        let align = u64::from(v.align.unwrap_or(v.ty.bytes().max(1)));
        let cursor = match v.space {
            StateSpace::Shared => &mut shared,
            StateSpace::Local => &mut local,
            StateSpace::Global | StateSpace::Const => {
                let at = align_up(module_data.len() as u64, align);
                if at + v.size_bytes() > 1 << 26 {
                    return Err(EmuError::new(
                        EmuErrorKind::Launch,
                        None,
                        format!("module variable '{}' does not fit the emulator", v.name),
                    ));
                }
                module_data.resize(at as usize, 0);
                module_data.extend(v.init_bytes());
                vars.insert(v.name.as_str(), (v.space, MODULE_BASE + at));
                continue;
            }
            _ => continue,
        };
        let at = align_up(*cursor, align);
        vars.insert(v.name.as_str(), (v.space, at));
        *cursor = at.saturating_add(v.size_bytes());
    }
    // Far above any GPU's limits (228 KiB shared, 512 KiB local), far below memory trouble.
    if shared > 1 << 24 || local > 1 << 20 {
        return Err(EmuError::new(
            EmuErrorKind::Launch,
            None,
            format!("entry '{}' declares {shared} shared and {local} local bytes", e.name),
        ));
    }
    let mut params = HashMap::new();
    for (i, p) in e.params.iter().enumerate() {
        if !matches!(p.ty, Type::U64 | Type::B64 | Type::S64) {
            return Err(EmuError::new(
                EmuErrorKind::Unsupported,
                None,
                format!(
                    "parameter '{}' is .{}; the emulator passes .u64 device pointers only",
                    p.name, p.ty
                ),
            ));
        }
        params.insert(p.name.as_str(), i);
    }
    // Labels name the next instruction.
    let mut labels = HashMap::new();
    let mut n = 0usize;
    for s in &e.body {
        match s {
            Statement::Label(l) => {
                labels.entry(l.as_str()).or_insert(n);
            }
            Statement::Inst(_) => n += 1,
            _ => {}
        }
    }
    let syms = Syms { vars, params, labels };
    let mut insts = Vec::with_capacity(n);
    for (idx, s) in e.body.iter().enumerate() {
        let Statement::Inst(i) = s else { continue };
        let line = lines.and_then(|l| l.get(idx).copied());
        let ops = i
            .operands
            .iter()
            .map(|o| operand(o, &bases, &syms, line))
            .collect::<Result<Vec<_>, _>>()?;
        let mut d = DInst {
            op: i.op,
            line,
            text: i.opcode_text(),
            guard: i.guard.map(|g| (slot(&bases, g.reg), g.negated)),
            tys: i.types().collect(),
            round: i.rounding(),
            flags: i.flags(),
            cmp: i.cmp_op(),
            boolop: i.bool_op(),
            atom: i.atom_op(),
            shfl: i.shfl_mode(),
            vote: i.vote_mode(),
            testp: i.testp_op(),
            prmt: i.find_mod(|m| if let Modifier::Prmt(p) = m { Some(*p) } else { None }),
            space: i.space(),
            vec: i.vec_width(),
            num: i
                .find_mod(|m| if let Modifier::Num(n) = m { Some(*n) } else { None })
                .unwrap_or(1),
            shape: i
                .find_mod(|m| {
                    if let Modifier::Shape { m, n, k } = m {
                        Some((*m, *n, *k))
                    } else {
                        None
                    }
                })
                .unwrap_or((0, 0, 0)),
            layouts: i
                .mods
                .iter()
                .filter_map(|m| if let Modifier::Layout(l) = m { Some(*l) } else { None })
                .collect(),
            ops,
            class: Class::Lane,
        };
        d.class = match i.op {
            Opcode::Bar | Opcode::Barrier if !d.has(Flag::Warp) => Class::Barrier,
            Opcode::Bar
            | Opcode::Barrier
            | Opcode::Shfl
            | Opcode::Vote
            | Opcode::Redux
            | Opcode::Mma
            | Opcode::Ldmatrix => Class::Collective,
            _ => Class::Lane,
        };
        insts.push(d);
    }
    let ipdom = post_dominators(&insts);
    Ok(Prog {
        names,
        ipdom,
        insts,
        nslots: total as usize,
        bases,
        slot_bits,
        shared_size: shared as usize,
        local_size: local as usize,
        module_data,
    })
}

/// Successors of instruction `i` in the instruction-level CFG (`n` = the exit node).
fn successors(insts: &[DInst], i: usize) -> Vec<usize> {
    let n = insts.len();
    let Some(inst) = insts.get(i) else { return Vec::new() };
    let next = i + 1;
    let guarded = inst.guard.is_some();
    match inst.op {
        Opcode::Bra => {
            let target = match inst.ops.first() {
                Some(Opd::Label(l)) => (*l).min(n),
                _ => n,
            };
            if guarded {
                vec![target, next]
            } else {
                vec![target]
            }
        }
        Opcode::Ret | Opcode::Exit | Opcode::Trap => {
            if guarded {
                vec![next, n]
            } else {
                vec![n]
            }
        }
        _ => vec![next],
    }
}

/// Immediate post-dominators (Cooper, Harvey and Kennedy's iterative algorithm on the
/// reversed CFG). Instructions that cannot reach the exit get the exit.
fn post_dominators(insts: &[DInst]) -> Vec<usize> {
    let n = insts.len();
    let succ: Vec<Vec<usize>> = (0..n).map(|i| successors(insts, i)).collect();
    let mut preds = vec![Vec::new(); n + 1];
    for (i, ss) in succ.iter().enumerate() {
        for &s in ss {
            if let Some(p) = preds.get_mut(s) {
                p.push(i);
            }
        }
    }
    // Postorder of a DFS from the exit along predecessor edges.
    const NONE: usize = usize::MAX;
    let mut po = vec![NONE; n + 1];
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(n, 0usize)];
    seen[n] = true;
    while let Some(&mut (node, ref mut k)) = stack.last_mut() {
        if let Some(&p) = preds[node].get(*k) {
            *k += 1;
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            po[node] = order.len();
            order.push(node);
            stack.pop();
        }
    }
    let mut idom = vec![NONE; n + 1];
    idom[n] = n;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while po[a] < po[b] {
                a = idom[a];
            }
            while po[b] < po[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().rev() {
            if b == n {
                continue;
            }
            let mut new = NONE;
            for &s in &succ[b] {
                if idom[s] == NONE {
                    continue;
                }
                new = if new == NONE { s } else { intersect(&idom, s, new) };
            }
            if new != NONE && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom.truncate(n);
    idom.iter().map(|&d| if d == NONE { n } else { d }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_reconverge_at_the_post_dominator() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
            .reg .pred %p<2>;\n.reg .b32 %r<4>;\n\
            mov.u32 %r1, %tid.x;\n\
            setp.lt.u32 %p1, %r1, 4;\n\
            @%p1 bra $L_then;\n\
            mov.u32 %r2, 1;\n\
            bra $L_join;\n\
            $L_then:\n\
            mov.u32 %r2, 2;\n\
            $L_loop:\n\
            add.u32 %r2, %r2, 1;\n\
            setp.lt.u32 %p1, %r2, 9;\n\
            @%p1 bra $L_loop;\n\
            $L_join:\n\
            @%p1 ret;\n\
            ret;\n}\n";
        let m = dianran_ptx::parse_module(text).expect("parses");
        let e = &m.entries[0];
        let p = decode(&m, e, None, None).expect("decodes");
        // Instructions: 0 mov, 1 setp, 2 @bra then, 3 mov, 4 bra join, 5 mov, 6 add,
        // 7 setp, 8 @bra loop, 9 @ret, 10 ret.
        assert_eq!(p.ipdom[2], 9, "if/else joins at $L_join");
        assert_eq!(p.ipdom[8], 9, "the loop exits to $L_join");
        assert_eq!(p.ipdom[9], 11, "a guarded ret: only the exit post-dominates");
        assert_eq!(p.ipdom[10], 11, "ret post-dominated by the exit");
        assert_eq!(p.slot_name(p.bases[2] + 2), "%r2");
    }
}
