//! Pre-decoding: every instruction of the entry becomes a [`DInst`] with resolved register
//! slots, branch targets and symbol addresses, once per launch.

use super::memory::{MODULE_BASE, THREAD_PARAM};
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{
    AddrBase, AtomOp, BoolOp, CmpOp, Entry, Flag, Flags, Instruction, Layout, Modifier, Module,
    Opcode, Operand, Param, PrmtMode, Reg, RegKind, Rounding, ShflMode, SpecialReg, StateSpace,
    Statement, TestpOp, TexComp, TexGeom, TexQuery, Type, VarDecl, VoteMode,
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
    /// `[%rd, {coords}]`: a texture or surface object register and the coordinates.
    Texel(u32, Vec<Opd>),
}

/// The base of a decoded memory operand.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Base {
    /// A register holding an address.
    Reg(u32),
    /// A variable: its state space and address there (kernel and function parameters are
    /// variables of the `.param` space).
    Var(StateSpace, u64),
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
    /// `wgmma.mma_async`: runs once the four warps of the warpgroup wait at it.
    Warpgroup,
}

/// The static parameter traffic of a `call`: all `.param` variables have fixed addresses in
/// a thread's parameter memory (functions are not re-entered; recursion is an error).
#[derive(Clone, Debug)]
pub(crate) struct CallInfo {
    /// The callee's name.
    pub name: String,
    /// Index of the callee in [`Prog::bodies`]; `None` for a function without a body.
    pub body: Option<usize>,
    /// The callee's first instruction.
    pub target: usize,
    /// Arguments: (caller's variable, callee's parameter, bytes).
    pub args: Vec<(u64, u64, usize)>,
    /// Results: (callee's return parameter, caller's variable, bytes).
    pub rets: Vec<(u64, u64, usize)>,
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
    /// Texture instructions: geometry, `tld4` component, `txq`/`suq` query.
    pub geom: Option<TexGeom>,
    pub comp: Option<TexComp>,
    pub query: Option<TexQuery>,
    pub ops: Vec<Opd>,
    pub class: Class,
    /// `call`: what it copies and where it goes.
    pub call: Option<Box<CallInfo>>,
    /// `ret` inside a device function: the function's single final `ret`, which the decoder
    /// appends, so that the lanes of a function reconverge before they return.
    pub ret_to: Option<usize>,
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

/// A kernel parameter: where the entry reads it and how the launch fills it.
#[derive(Clone, Debug)]
pub(crate) struct KParam {
    pub name: String,
    /// Byte offset in the kernel parameter memory.
    pub offset: usize,
    pub size: usize,
    /// A device pointer to its buffer (`.u64`); otherwise the buffer holds its bytes.
    pub pointer: bool,
}

/// One decoded body: the entry (index 0) or a device function.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub name: String,
    /// First slot of each register kind ([`RegKind::index`]).
    pub bases: [u32; 4],
    /// One past the last slot.
    pub end_slot: u32,
}

/// A decoded entry, the device functions it calls, and their memory layout.
#[derive(Debug)]
pub(crate) struct Prog {
    /// The entry's instructions, then each function's (with its final `ret`).
    pub insts: Vec<DInst>,
    /// Register slots per thread (every body's registers; functions are not re-entered).
    pub nslots: usize,
    /// The entry and the functions, in the order of their instructions.
    pub bodies: Vec<Body>,
    /// Width in bits of each slot's register (1 for predicates).
    pub slot_bits: Vec<u8>,
    /// Shared bytes per CTA.
    pub shared_size: usize,
    /// Local bytes per thread.
    pub local_size: usize,
    /// Initial contents of the module's `.global`/`.const` variables (at `MODULE_BASE`).
    pub module_data: Vec<u8>,
    /// The kernel's parameters, in order.
    pub kparams: Vec<KParam>,
    /// Kernel parameter bytes.
    pub kparam_size: usize,
    /// Function parameter bytes per thread.
    pub tparam_size: usize,
    /// Immediate post-dominator of each instruction (`insts.len()` = the exit): where the
    /// lanes of a divergent branch reconverge.
    pub ipdom: Vec<usize>,
    /// Source register names of the entry by kind and number (see `lines::register_names`).
    pub names: Option<[Vec<String>; 4]>,
}

impl Prog {
    /// The source name of a slot (`%f3`), or the model's (`%r7`) when the text could not
    /// be scanned, for messages; a function's registers also name the function.
    pub fn slot_name(&self, slot: u32) -> String {
        let b = self.bodies.iter().position(|b| slot < b.end_slot).unwrap_or(0);
        let Some(body) = self.bodies.get(b) else { return format!("slot {slot}") };
        let mut kind = RegKind::Pred;
        for k in RegKind::ALL {
            if slot >= body.bases[k.index()] {
                kind = k;
            }
        }
        let num = slot - body.bases[kind.index()];
        if b > 0 {
            return format!("{} (in function '{}')", Reg { kind, num }, body.name);
        }
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

/// A variable's state space, address there, and size in bytes.
type Var = (StateSpace, u64, u64);

/// The names an instruction of one body can use.
struct Names<'a> {
    /// The module's variables.
    globals: &'a HashMap<&'a str, Var>,
    /// The body's variables and parameters.
    own: HashMap<&'a str, Var>,
    /// `.param` declarations of the open blocks, innermost last.
    blocks: Vec<HashMap<&'a str, Var>>,
    /// Labels: instruction index.
    labels: HashMap<&'a str, usize>,
}

impl Names<'_> {
    fn var(&self, name: &str) -> Option<Var> {
        self.blocks
            .iter()
            .rev()
            .find_map(|b| b.get(name))
            .or_else(|| self.own.get(name))
            .or_else(|| self.globals.get(name))
            .copied()
    }
}

fn operand(
    o: &Operand,
    bases: &[u32; 4],
    names: &Names,
    line: Option<u32>,
) -> Result<Opd, EmuError> {
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
            if let Some((sp, a, _)) = names.var(s) {
                Opd::Sym(sp, a)
            } else if let Some(&t) = names.labels.get(s.as_str()) {
                Opd::Label(t)
            } else {
                return Err(unknown(s));
            }
        }
        Operand::Address(a) => {
            let base = match &a.base {
                AddrBase::Reg(r) => Base::Reg(slot(bases, *r)),
                AddrBase::Symbol(s) => match names.var(s) {
                    Some((sp, a, _)) => Base::Var(sp, a),
                    None => return Err(unknown(s)),
                },
            };
            Opd::Addr(base, a.offset)
        }
        Operand::Vector(v) => {
            Opd::Vector(v.iter().map(|o| operand(o, bases, names, line)).collect::<Result<_, _>>()?)
        }
        Operand::Texel(h, c) => Opd::Texel(
            slot(bases, *h),
            c.iter().map(|o| operand(o, bases, names, line)).collect::<Result<_, _>>()?,
        ),
        Operand::List(_) => {
            return Err(EmuError::new(
                EmuErrorKind::Unsupported,
                line,
                "a parenthesized list outside 'call'",
            ))
        }
    })
}

/// The callee's name of a `call` (`call (rets), f, (args)`).
fn call_target(i: &Instruction) -> Option<&str> {
    i.operands.iter().take(2).find_map(|o| match o {
        Operand::Symbol(s) => Some(s.as_str()),
        _ => None,
    })
}

/// The entry and every function it calls, directly or not, in order of discovery.
fn reachable<'m>(m: &'m Module, e: &'m Entry) -> Vec<&'m Entry> {
    let mut bodies = vec![e];
    let mut k = 0;
    while let Some(b) = bodies.get(k).copied() {
        k += 1;
        for i in b.instructions().filter(|i| i.op == Opcode::Call) {
            if let Some(f) = call_target(i).and_then(|n| m.func(n)) {
                if !bodies.iter().any(|x| std::ptr::eq(*x, &f.def)) {
                    bodies.push(&f.def);
                }
            }
        }
    }
    bodies
}

/// Decodes entry `e` of `m` with the functions it calls; `lines` gives the PTX line of each
/// statement of the entry's body, `text` (when the module was parsed from text) those of
/// the functions.
pub(crate) fn decode<'m>(
    m: &'m Module,
    e: &'m Entry,
    lines: Option<&[u32]>,
    text: Option<&str>,
    names: Option<[Vec<String>; 4]>,
) -> Result<Prog, EmuError> {
    let defs = reachable(m, e);
    let launch_err = |msg: String| EmuError::new(EmuErrorKind::Launch, None, msg);
    // Module-scope `.global` and `.const` variables (CUDA's math tables, for one) share a
    // region of global memory at MODULE_BASE holding their initial values; shared variables
    // of the module and of every body share one window per CTA, local variables one window
    // per thread. Offsets start at 0 in each space.
    let (mut shared, mut local) = (0u64, 0u64);
    let mut module_data = Vec::new();
    let mut place = |v: &VarDecl| -> Result<Option<Var>, EmuError> {
        let align = u64::from(v.align.unwrap_or(v.ty.bytes().max(1)));
        let cursor = match v.space {
            StateSpace::Shared => &mut shared,
            StateSpace::Local => &mut local,
            StateSpace::Global | StateSpace::Const => {
                let at = align_up(module_data.len() as u64, align);
                if at + v.size_bytes() > 1 << 26 {
                    return Err(launch_err(format!(
                        "module variable '{}' does not fit the emulator",
                        v.name
                    )));
                }
                module_data.resize(at as usize, 0);
                module_data.extend(v.init_bytes());
                return Ok(Some((v.space, MODULE_BASE + at, v.size_bytes())));
            }
            _ => return Ok(None),
        };
        let at = align_up(*cursor, align);
        *cursor = at.saturating_add(v.size_bytes());
        Ok(Some((v.space, at, v.size_bytes())))
    };
    let mut globals = HashMap::new();
    for v in &m.globals {
        if let Some(x) = place(v)? {
            globals.insert(v.name.as_str(), x);
        }
    }
    // Kernel parameters: device pointers are 8 bytes; others take their declared size.
    let mut kparams = Vec::new();
    let mut kparam_size = 0u64;
    let mut own_vars: Vec<HashMap<&str, Var>> = Vec::new();
    let mut entry_own = HashMap::new();
    for p in &e.params {
        if p.size_bytes() == 0 || p.size_bytes() > 1 << 16 {
            return Err(EmuError::new(
                EmuErrorKind::Unsupported,
                None,
                format!("parameter '{}' of {} bytes", p.name, p.size_bytes()),
            ));
        }
        let align = u64::from(p.align.unwrap_or(p.ty.bytes().max(1)));
        let at = align_up(kparam_size, align);
        kparam_size = at + p.size_bytes();
        kparams.push(KParam {
            name: p.name.clone(),
            offset: at as usize,
            size: p.size_bytes() as usize,
            pointer: p.is_pointer(),
        });
        entry_own.insert(p.name.as_str(), (StateSpace::Param, at, p.size_bytes()));
    }
    // Each function's parameters and results, and each `.param` declaration inside a
    // body, get their own bytes of a thread's parameter memory.
    let mut tparam = 0u64;
    let mut tplace = |size: u64, align: u64| {
        let at = align_up(tparam, align.max(1));
        tparam = at + size;
        THREAD_PARAM + at
    };
    let mut sigs: HashMap<&str, (Vec<Var>, Vec<Var>)> = HashMap::new();
    for (k, d) in defs.iter().enumerate() {
        let mut own = if k == 0 { std::mem::take(&mut entry_own) } else { HashMap::new() };
        for v in &d.vars {
            if let Some(x) = place(v)? {
                own.insert(v.name.as_str(), x);
            }
        }
        if k > 0 {
            let f =
                m.func(&d.name).ok_or_else(|| launch_err(format!("no function '{}'", d.name)))?;
            let mut one = |p: &'m Param| {
                let align = u64::from(p.align.unwrap_or(p.ty.bytes().max(1)));
                let var = (StateSpace::Param, tplace(p.size_bytes(), align), p.size_bytes());
                own.insert(p.name.as_str(), var);
                var
            };
            let params: Vec<Var> = f.def.params.iter().map(&mut one).collect();
            let rets: Vec<Var> = f.rets.iter().map(&mut one).collect();
            sigs.insert(d.name.as_str(), (params, rets));
        }
        own_vars.push(own);
    }
    // Far above any GPU's limits (228 KiB shared, 512 KiB local), far below memory trouble.
    if shared > 1 << 24 || local > 1 << 20 {
        return Err(launch_err(format!(
            "entry '{}' declares {shared} shared and {local} local bytes",
            e.name
        )));
    }
    // Instruction indices: each function ends with the `ret` the decoder appends; so does
    // the entry when there are functions after it (falling off its end exits).
    let with_funcs = defs.len() > 1;
    let mut starts = Vec::with_capacity(defs.len());
    let mut n = 0usize;
    for (k, d) in defs.iter().enumerate() {
        starts.push(n);
        n += d.instructions().count() + usize::from(k > 0 || with_funcs);
    }
    let mut insts = Vec::with_capacity(n);
    let mut bodies = Vec::with_capacity(defs.len());
    let mut slot_bits = Vec::new();
    let mut total = 0u32;
    for (k, (d, own)) in defs.iter().zip(own_vars).enumerate() {
        let counts = d.reg_counts();
        let mut bases = [0u32; 4];
        for kind in RegKind::ALL {
            bases[kind.index()] = total;
            total += counts[kind.index()];
            let bits = match kind {
                RegKind::Pred => 1,
                RegKind::B16 => 16,
                RegKind::B32 => 32,
                RegKind::B64 => 64,
            };
            slot_bits.extend(std::iter::repeat_n(bits, counts[kind.index()] as usize));
        }
        bodies.push(Body { name: d.name.clone(), bases, end_slot: total });
        // Labels name the next instruction.
        let mut labels = HashMap::new();
        let mut at = starts[k];
        for s in &d.body {
            match s {
                Statement::Label(l) => {
                    labels.entry(l.as_str()).or_insert(at);
                }
                Statement::Inst(_) => at += 1,
                _ => {}
            }
        }
        let end = starts[k] + d.instructions().count();
        let body_lines = if k == 0 {
            lines.map(<[u32]>::to_vec)
        } else {
            text.and_then(|t| super::lines::func_statement_lines(t, &d.name))
        };
        let body_lines = body_lines.filter(|l| l.len() == d.body.len());
        let mut names = Names { globals: &globals, own, blocks: Vec::new(), labels };
        for (idx, s) in d.body.iter().enumerate() {
            let line = body_lines.as_ref().and_then(|l| l.get(idx).copied());
            let i = match s {
                Statement::BlockStart => {
                    names.blocks.push(HashMap::new());
                    continue;
                }
                Statement::BlockEnd => {
                    names.blocks.pop();
                    continue;
                }
                Statement::Decl(v) => {
                    let align = u64::from(v.align.unwrap_or(v.ty.bytes().max(1)));
                    let var = (StateSpace::Param, tplace(v.size_bytes(), align), v.size_bytes());
                    match names.blocks.last_mut() {
                        Some(b) => b.insert(v.name.as_str(), var),
                        None => names.own.insert(v.name.as_str(), var),
                    };
                    continue;
                }
                Statement::Inst(i) => i,
                _ => continue,
            };
            let mut d = decode_inst(i, &bases, &names, line)?;
            if i.op == Opcode::Call {
                d.call = Some(Box::new(call_info(i, &names, &sigs, &defs, &starts, line)?));
                d.ops.clear();
            }
            if i.op == Opcode::Ret && k > 0 {
                d.ret_to = Some(end);
            }
            insts.push(d);
        }
        if k > 0 || with_funcs {
            let mut r = decode_inst(&dianran_ptx::build::ret(), &bases, &names, None)?;
            if k == 0 {
                r.op = Opcode::Exit;
                r.text = "exit".into();
            }
            insts.push(r);
        }
    }
    if tparam > 1 << 20 {
        return Err(launch_err(format!("{tparam} bytes of function parameters")));
    }
    let ipdom = post_dominators(&insts);
    Ok(Prog {
        names,
        ipdom,
        insts,
        nslots: total as usize,
        bodies,
        slot_bits,
        shared_size: shared as usize,
        local_size: local as usize,
        module_data,
        kparams,
        kparam_size: kparam_size as usize,
        tparam_size: tparam as usize,
    })
}

/// The copies of a `call (rets), f, (args)`.
fn call_info(
    i: &Instruction,
    names: &Names,
    sigs: &HashMap<&str, (Vec<Var>, Vec<Var>)>,
    defs: &[&Entry],
    starts: &[usize],
    line: Option<u32>,
) -> Result<CallInfo, EmuError> {
    let err = |msg: String| EmuError::new(EmuErrorKind::Unsupported, line, msg);
    let name = call_target(i).ok_or_else(|| err("'call' without a function name".into()))?;
    let pos = i.operands.iter().position(|o| matches!(o, Operand::Symbol(_))).unwrap_or(0);
    let list = |o: Option<&Operand>| -> Result<Vec<Var>, EmuError> {
        match o {
            None => Ok(Vec::new()),
            Some(Operand::List(v)) => v
                .iter()
                .map(|x| match x {
                    Operand::Symbol(s) => names
                        .var(s)
                        .filter(|v| v.0 == StateSpace::Param)
                        .ok_or_else(|| err(format!("'{s}' is not a .param variable"))),
                    other => Err(err(format!("call operand {other} is not a .param variable"))),
                })
                .collect(),
            Some(other) => Err(err(format!("call operand {other} is not a list"))),
        }
    };
    let rets = if pos == 1 { list(i.operands.first())? } else { Vec::new() };
    let args = list(i.operands.get(pos + 1))?;
    let body = defs.iter().position(|d| d.name == name && !std::ptr::eq(*d, defs[0]));
    let Some(b) = body else {
        return Ok(CallInfo {
            name: name.into(),
            body: None,
            target: 0,
            args: Vec::new(),
            rets: Vec::new(),
        });
    };
    let (params, results) = sigs.get(name).cloned().unwrap_or_default();
    if params.len() != args.len() || results.len() != rets.len() {
        return Err(err(format!(
            "'{name}' takes {} arguments and {} results; the call passes {} and {}",
            params.len(),
            results.len(),
            args.len(),
            rets.len()
        )));
    }
    let copy = |a: &Var, b: &Var| (a.1, b.1, a.2.min(b.2) as usize);
    Ok(CallInfo {
        name: name.into(),
        body: Some(b),
        target: starts[b],
        args: args.iter().zip(&params).map(|(a, p)| copy(a, p)).collect(),
        rets: results.iter().zip(&rets).map(|(r, c)| copy(r, c)).collect(),
    })
}

/// Decodes one instruction (its `call` and `ret_to` are filled in by the caller).
fn decode_inst(
    i: &Instruction,
    bases: &[u32; 4],
    names: &Names,
    line: Option<u32>,
) -> Result<DInst, EmuError> {
    let ops = if i.op == Opcode::Call {
        Vec::new()
    } else {
        i.operands.iter().map(|o| operand(o, bases, names, line)).collect::<Result<Vec<_>, _>>()?
    };
    let mut d = DInst {
        op: i.op,
        line,
        text: i.opcode_text(),
        guard: i.guard.map(|g| (slot(bases, g.reg), g.negated)),
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
        num: i.find_mod(|m| if let Modifier::Num(n) = m { Some(*n) } else { None }).unwrap_or(1),
        shape: i
            .find_mod(
                |m| if let Modifier::Shape { m, n, k } = m { Some((*m, *n, *k)) } else { None },
            )
            .unwrap_or((0, 0, 0)),
        layouts: i
            .mods
            .iter()
            .filter_map(|m| if let Modifier::Layout(l) = m { Some(*l) } else { None })
            .collect(),
        geom: i.find_mod(|m| if let Modifier::Geom(g) = m { Some(*g) } else { None }),
        comp: i.find_mod(|m| if let Modifier::Comp(c) = m { Some(*c) } else { None }),
        query: i.find_mod(|m| if let Modifier::Query(q) = m { Some(*q) } else { None }),
        ops,
        class: Class::Lane,
        call: None,
        ret_to: None,
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
        Opcode::Wgmma if d.has(Flag::MmaAsync) => Class::Warpgroup,
        _ => Class::Lane,
    };
    Ok(d)
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
        Opcode::Ret if inst.ret_to.is_some() => {
            let target = inst.ret_to.unwrap_or(n).min(n);
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
        let p = decode(&m, e, None, None, None).expect("decodes");
        // Instructions: 0 mov, 1 setp, 2 @bra then, 3 mov, 4 bra join, 5 mov, 6 add,
        // 7 setp, 8 @bra loop, 9 @ret, 10 ret.
        assert_eq!(p.ipdom[2], 9, "if/else joins at $L_join");
        assert_eq!(p.ipdom[8], 9, "the loop exits to $L_join");
        assert_eq!(p.ipdom[9], 11, "a guarded ret: only the exit post-dominates");
        assert_eq!(p.ipdom[10], 11, "ret post-dominated by the exit");
        assert_eq!(p.slot_name(p.bodies[0].bases[2] + 2), "%r2");
    }
}
