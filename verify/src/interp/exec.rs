//! The SIMT machine: all invocations of a workgroup run in lockstep over the structured IR.
//!
//! A block runs with a sorted list of active lanes (local invocation indices). `If` runs each
//! arm with the lanes that chose it; `Loop` iterates while any lane is still in it; `Break`,
//! `Continue` and `Return` take lanes out of the running set and park them in the construct
//! they target (a [`Ctx`]), which brings them back when it completes. Terminator arguments
//! are copied into the target's values per lane (through a scratch buffer, so swaps work).

use super::coop::{self, Shape};
use super::math;
use super::memory::{column_stride, pack_tight, unpack_tight, Memory, POISON, REGION_STACK};
use super::subgroup;
use super::value::{
    const_words, element_count, internal, member, runtime, type_name, unsupported, Layout,
};
use super::InterpOptions;
use dianran_frontend::ir::{
    Barrier, Block, BuiltIn, Function, Inst, IoBinding, Module, Op, Scalar, Terminator, Type,
    TypeId, ValueId,
};
use dianran_frontend::{DiagKind, Diagnostic};
use std::rc::Rc;

/// Per-function layout of the register file and of the local variables.
pub(crate) struct FnInfo {
    off: Vec<u32>,
    words: Vec<u32>,
    frame_words: usize,
    local_off: Vec<u32>,
    /// Bytes of function-local memory one call needs.
    pub local_bytes: u32,
    ret_words: usize,
}

impl FnInfo {
    fn new(m: &Module, lay: &Layout, f: &Function) -> Self {
        let mut off = Vec::with_capacity(f.values.len());
        let mut words = Vec::with_capacity(f.values.len());
        let mut total = 0u32;
        for v in &f.values {
            let w = lay.words(v.ty);
            off.push(total);
            words.push(w);
            total = total.saturating_add(w);
        }
        let mut local_off = Vec::with_capacity(f.locals.len());
        let mut bytes = 0u32;
        for l in &f.locals {
            let (size, align) = m.types.size_align(l.ty);
            bytes = bytes.next_multiple_of(align.max(1));
            local_off.push(bytes);
            bytes = bytes.saturating_add(size);
        }
        let ret_words = f.result.as_ref().map_or(0, |r| lay.words(r.ty) as usize);
        FnInfo { off, words, frame_words: total as usize, local_off, local_bytes: bytes, ret_words }
    }
}

/// One activation of a function for all lanes: the values of every lane.
pub(crate) struct Frame<'m> {
    f: &'m Function,
    info: Rc<FnInfo>,
    regs: Vec<u32>,
    ret: Vec<u32>,
    stack_base: u32,
    top: bool,
}

impl<'m> Frame<'m> {
    fn new(f: &'m Function, info: Rc<FnInfo>, nlanes: usize, stack_base: u32, top: bool) -> Self {
        Frame {
            f,
            regs: vec![0; info.frame_words * nlanes],
            ret: vec![0; info.ret_words * nlanes],
            info,
            stack_base,
            top,
        }
    }

    pub(super) fn get(&self, lane: usize, v: ValueId) -> &[u32] {
        let i = v.index();
        let (Some(&o), Some(&w)) = (self.info.off.get(i), self.info.words.get(i)) else {
            return &[];
        };
        let s = lane * self.info.frame_words + o as usize;
        self.regs.get(s..s + w as usize).unwrap_or(&[])
    }

    fn word(&self, lane: usize, v: ValueId) -> u32 {
        self.get(lane, v).first().copied().unwrap_or(0)
    }

    fn ptr(&self, lane: usize, v: ValueId) -> Result<[u32; 2], Diagnostic> {
        match self.get(lane, v) {
            [r, o] => Ok([*r, *o]),
            _ => Err(internal(format!("{v} is not a pointer"))),
        }
    }

    fn put(&mut self, lane: usize, v: ValueId, w: &[u32]) -> Result<(), Diagnostic> {
        let i = v.index();
        let (Some(&o), Some(&n)) = (self.info.off.get(i), self.info.words.get(i)) else {
            return Err(internal(format!("{v} is not a value of this function")));
        };
        if n as usize != w.len() {
            return Err(internal(format!(
                "{v} needs {n} words but the operation produced {}",
                w.len()
            )));
        }
        let s = lane * self.info.frame_words + o as usize;
        match self.regs.get_mut(s..s + w.len()) {
            Some(d) => {
                d.copy_from_slice(w);
                Ok(())
            }
            None => Err(internal("register file too small")),
        }
    }

    pub(super) fn ty(&self, v: ValueId) -> Result<TypeId, Diagnostic> {
        self.f
            .values
            .get(v.index())
            .map(|d| d.ty)
            .ok_or_else(|| internal(format!("{v} is not a value of this function")))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CtxKind {
    Loop,
    Switch,
    Inline,
    Func,
}

/// A construct that terminators can leave to: it collects the lanes that left to it.
struct Ctx<'m> {
    kind: CtxKind,
    results: &'m [ValueId],
    cont: &'m [ValueId],
    exited: Vec<u32>,
    continued: Vec<u32>,
}

impl<'m> Ctx<'m> {
    fn new(kind: CtxKind, results: &'m [ValueId], cont: &'m [ValueId]) -> Self {
        Ctx { kind, results, cont, exited: Vec::new(), continued: Vec::new() }
    }
}

/// The interpreter state for one dispatch.
pub(crate) struct Machine<'m> {
    pub m: &'m Module,
    pub lay: Layout,
    pub opts: InterpOptions,
    infos: Vec<Option<Rc<FnInfo>>>,
    pub mem: Memory,
    pub nlanes: usize,
    pub wg_size: [u32; 3],
    pub wg_id: [u32; 3],
    pub num_wg: [u32; 3],
    live: usize,
    steps: u64,
    /// Pointer of each global (`None` for handles).
    pub global_ptr: Vec<Option<[u32; 2]>>,
    buf: Vec<u32>,
    out: Vec<u32>,
    depth: u32,
    /// Lane reads of subgroup exchanges whose source was inactive or outside the subgroup.
    pub indeterminate_reads: u64,
    /// Math results moved so far by [`super::InterpOptions::math_nudge`].
    nudged: u64,
    /// Bound textures and samplers.
    pub handles: super::texture_ops::Handles,
}

fn union(mut a: Vec<u32>, b: &[u32]) -> Vec<u32> {
    if !b.is_empty() {
        a.extend_from_slice(b);
        a.sort_unstable();
        a.dedup();
    }
    a
}

fn locate(mut d: Diagnostic, inst: &Inst, fname: &str) -> Diagnostic {
    if d.span.is_none() {
        d = d.at(inst.span);
    }
    if d.context.is_none() {
        d = d.in_fn(fname);
    }
    d
}

impl<'m> Machine<'m> {
    /// A machine for `m` with the given memory; workgroup state is set per workgroup.
    pub(crate) fn new(m: &'m Module, opts: InterpOptions, mem: Memory) -> Self {
        Machine {
            m,
            lay: Layout::new(&m.types),
            opts,
            infos: vec![None; m.functions.len()],
            mem,
            nlanes: 0,
            wg_size: [1; 3],
            wg_id: [0; 3],
            num_wg: [1; 3],
            live: 0,
            steps: 0,
            global_ptr: vec![None; m.globals.len()],
            buf: Vec::new(),
            out: Vec::new(),
            depth: 0,
            indeterminate_reads: 0,
            nudged: 0,
            handles: Default::default(),
        }
    }

    pub(crate) fn info(&mut self, f: usize) -> Result<Rc<FnInfo>, Diagnostic> {
        if let Some(Some(i)) = self.infos.get(f) {
            return Ok(i.clone());
        }
        let func = self.m.functions.get(f).ok_or_else(|| internal("call to a missing function"))?;
        let i = Rc::new(FnInfo::new(self.m, &self.lay, func));
        if let Some(slot) = self.infos.get_mut(f) {
            *slot = Some(i.clone());
        }
        Ok(i)
    }

    fn step(&mut self) -> Result<(), Diagnostic> {
        self.steps += 1;
        if self.steps > self.opts.max_steps {
            return Err(runtime(format!(
                "step limit exceeded after {} instructions: probable infinite loop",
                self.opts.max_steps
            ))
            .help("raise InterpOptions::max_steps if the kernel really runs this long"));
        }
        Ok(())
    }

    fn lane_note(&self, lane: u32) -> String {
        format!(
            "in invocation with local_invocation_index {lane} of workgroup ({}, {}, {})",
            self.wg_id[0], self.wg_id[1], self.wg_id[2]
        )
    }

    /// The words of builtin `b` for `lane`.
    fn builtin(&self, b: &BuiltIn, lane: u32) -> Result<Vec<u32>, Diagnostic> {
        let [sx, sy, _] = self.wg_size;
        let local = [lane % sx, (lane / sx) % sy, lane / (sx * sy)];
        let sg = self.opts.subgroup_size.max(1);
        Ok(match b {
            BuiltIn::LocalInvocationId => local.to_vec(),
            BuiltIn::LocalInvocationIndex => vec![lane],
            BuiltIn::GlobalInvocationId => (0..3)
                .map(|i| self.wg_id[i].wrapping_mul(self.wg_size[i]).wrapping_add(local[i]))
                .collect(),
            BuiltIn::WorkGroupId => self.wg_id.to_vec(),
            BuiltIn::NumWorkGroups => self.num_wg.to_vec(),
            BuiltIn::WorkGroupSize => self.wg_size.to_vec(),
            BuiltIn::SubgroupInvocationId => vec![lane % sg],
            BuiltIn::SubgroupSize => vec![sg],
            BuiltIn::SubgroupId => vec![lane / sg],
            BuiltIn::NumSubgroups => vec![(self.nlanes as u32).div_ceil(sg)],
            other => {
                return Err(unsupported(format!(
                    "builtin {other:?} is not available in a compute entry point"
                )))
            }
        })
    }

    /// Runs one workgroup of the entry function `f` with every lane live.
    pub(crate) fn run_workgroup(&mut self, f: &'m Function, fidx: usize) -> Result<(), Diagnostic> {
        let info = self.info(fidx)?;
        let mut fr = Frame::new(f, info, self.nlanes, 0, true);
        for p in &f.params {
            let ty = fr.ty(p.value)?;
            for lane in 0..self.nlanes as u32 {
                let words = match &p.binding {
                    Some(IoBinding::BuiltIn(b)) => self.builtin(b, lane)?,
                    Some(IoBinding::Location { .. }) => {
                        return Err(unsupported(format!(
                        "entry parameter '{}' has a @location; compute entries take only builtins",
                        p.name
                    ))
                        .in_fn(&f.name))
                    }
                    None => {
                        let Type::Struct { members, .. } = self.m.types.get(ty) else {
                            return Err(unsupported(format!(
                                "entry parameter '{}' has no builtin binding",
                                p.name
                            ))
                            .in_fn(&f.name));
                        };
                        let mut w = Vec::new();
                        for mem in members {
                            match &mem.binding {
                                Some(IoBinding::BuiltIn(b)) => w.extend(self.builtin(b, lane)?),
                                _ => {
                                    return Err(unsupported(format!(
                                        "member '{}' of entry parameter '{}' is not a builtin",
                                        mem.name, p.name
                                    ))
                                    .in_fn(&f.name))
                                }
                            }
                        }
                        w
                    }
                };
                fr.put(lane as usize, p.value, &words).map_err(|d| d.in_fn(&f.name))?;
            }
        }
        self.live = self.nlanes;
        let mut ctxs = vec![Ctx::new(CtxKind::Func, &[], &[])];
        let all: Vec<u32> = (0..self.nlanes as u32).collect();
        self.exec_block(&mut fr, &mut ctxs, &f.body, all)?;
        Ok(())
    }

    /// Copies `src` values into `dst` values for `lanes` (parallel assignment).
    fn assign(
        &mut self,
        fr: &mut Frame<'m>,
        lanes: &[u32],
        src: &[ValueId],
        dst: &[ValueId],
    ) -> Result<(), Diagnostic> {
        if src.len() != dst.len() {
            return Err(internal(format!(
                "{} values passed to a target expecting {}",
                src.len(),
                dst.len()
            )));
        }
        if src.is_empty() {
            return Ok(());
        }
        let mut buf = std::mem::take(&mut self.buf);
        for &l in lanes {
            let l = l as usize;
            buf.clear();
            for &s in src {
                buf.extend_from_slice(fr.get(l, s));
            }
            let mut pos = 0;
            for &d in dst {
                let n = fr.info.words.get(d.index()).copied().unwrap_or(0) as usize;
                let part =
                    buf.get(pos..pos + n).ok_or_else(|| internal("argument type mismatch"))?;
                fr.put(l, d, part)?;
                pos += n;
            }
        }
        self.buf = buf;
        Ok(())
    }

    /// Runs `b` for `lanes`; returns the lanes that reached its `Yield`.
    fn exec_block(
        &mut self,
        fr: &mut Frame<'m>,
        ctxs: &mut Vec<Ctx<'m>>,
        b: &'m Block,
        mut lanes: Vec<u32>,
    ) -> Result<Vec<u32>, Diagnostic> {
        for inst in &b.insts {
            if lanes.is_empty() {
                return Ok(lanes);
            }
            self.step().map_err(|d| locate(d, inst, &fr.f.name))?;
            lanes =
                self.exec_inst(fr, ctxs, inst, lanes).map_err(|d| locate(d, inst, &fr.f.name))?;
        }
        if lanes.is_empty() {
            return Ok(lanes);
        }
        let func: &'m Function = fr.f;
        let fname = &func.name;
        match &b.term {
            Terminator::Yield(_) => Ok(lanes),
            Terminator::Break(args) => {
                let i = ctxs
                    .iter()
                    .rposition(|c| matches!(c.kind, CtxKind::Loop | CtxKind::Switch))
                    .ok_or_else(|| internal("break outside a loop or switch").in_fn(fname))?;
                let results = ctxs[i].results;
                self.assign(fr, &lanes, args, results)?;
                ctxs[i].exited.extend_from_slice(&lanes);
                Ok(Vec::new())
            }
            Terminator::Continue(args) => {
                let i = ctxs
                    .iter()
                    .rposition(|c| c.kind == CtxKind::Loop)
                    .ok_or_else(|| internal("continue outside a loop").in_fn(fname))?;
                let cont = ctxs[i].cont;
                self.assign(fr, &lanes, args, cont)?;
                ctxs[i].continued.extend_from_slice(&lanes);
                Ok(Vec::new())
            }
            Terminator::Return(v) => {
                let i = ctxs
                    .iter()
                    .rposition(|c| matches!(c.kind, CtxKind::Inline | CtxKind::Func))
                    .ok_or_else(|| internal("return outside a function").in_fn(fname))?;
                if ctxs[i].kind == CtxKind::Inline {
                    let results = ctxs[i].results;
                    let src: &[ValueId] = match v {
                        Some(v) => std::slice::from_ref(v),
                        None => &[],
                    };
                    if !results.is_empty() || !src.is_empty() {
                        self.assign(fr, &lanes, src, results)?;
                    }
                } else {
                    if let Some(v) = v {
                        let rw = fr.info.ret_words;
                        for &l in &lanes {
                            let w = fr.get(l as usize, *v);
                            if w.len() != rw {
                                return Err(
                                    internal("returned value has the wrong type").in_fn(fname)
                                );
                            }
                            let s = l as usize * rw;
                            let w = w.to_vec();
                            if let Some(d) = fr.ret.get_mut(s..s + rw) {
                                d.copy_from_slice(&w);
                            }
                        }
                    }
                    if fr.top {
                        self.live -= lanes.len().min(self.live);
                    }
                }
                ctxs[i].exited.extend_from_slice(&lanes);
                Ok(Vec::new())
            }
            Terminator::Discard => {
                self.live -= lanes.len().min(self.live);
                Ok(Vec::new())
            }
            Terminator::Unreachable => Err(internal(format!(
                "{} invocations reached the end of a block marked unreachable",
                lanes.len()
            ))
            .in_fn(fname)),
        }
    }

    fn exec_inst(
        &mut self,
        fr: &mut Frame<'m>,
        ctxs: &mut Vec<Ctx<'m>>,
        inst: &'m Inst,
        lanes: Vec<u32>,
    ) -> Result<Vec<u32>, Diagnostic> {
        match &inst.op {
            Op::If { cond, then_, else_, results } => {
                let (t, e): (Vec<u32>, Vec<u32>) =
                    lanes.iter().partition(|&&l| fr.word(l as usize, *cond) != 0);
                let mut done = Vec::new();
                for (blk, ls) in [(then_, t), (else_, e)] {
                    if ls.is_empty() {
                        continue;
                    }
                    let y = self.exec_block(fr, ctxs, blk, ls)?;
                    if let Terminator::Yield(args) = &blk.term {
                        self.assign(fr, &y, args, results)?;
                    }
                    done.extend(y);
                }
                done.sort_unstable();
                Ok(done)
            }
            Op::Switch { selector, cases, results } => {
                let signed = self.m.types.scalar_of(fr.ty(*selector)?) == Some(Scalar::I32);
                let default = cases.iter().position(|c| c.default);
                let mut choice: Vec<Vec<u32>> = vec![Vec::new(); cases.len()];
                for &l in &lanes {
                    let w = fr.word(l as usize, *selector);
                    let sel = if signed { i64::from(w as i32) } else { i64::from(w) };
                    let ci = cases.iter().position(|c| c.values.contains(&sel)).or(default);
                    match ci.and_then(|i| choice.get_mut(i)) {
                        Some(v) => v.push(l),
                        None => return Err(internal("switch without a default arm")),
                    }
                }
                ctxs.push(Ctx::new(CtxKind::Switch, results, &[]));
                let mut done = Vec::new();
                for (case, ls) in cases.iter().zip(choice) {
                    if ls.is_empty() {
                        continue;
                    }
                    let y = self.exec_block(fr, ctxs, &case.body, ls)?;
                    if let Terminator::Yield(args) = &case.body.term {
                        self.assign(fr, &y, args, results)?;
                    }
                    done.extend(y);
                }
                let ctx = ctxs.pop().ok_or_else(|| internal("construct stack underflow"))?;
                done.sort_unstable();
                Ok(union(done, &ctx.exited))
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                self.assign(fr, &lanes, init, &body.params)?;
                ctxs.push(Ctx::new(CtxKind::Loop, results, &continuing.params));
                let mut running = lanes;
                let mut left: Vec<u32> = Vec::new();
                while !running.is_empty() {
                    self.step()?;
                    let y = self.exec_block(fr, ctxs, body, running)?;
                    if let Terminator::Yield(args) = &body.term {
                        self.assign(fr, &y, args, &continuing.params)?;
                    }
                    let ctx =
                        ctxs.last_mut().ok_or_else(|| internal("construct stack underflow"))?;
                    let cont = union(y, &std::mem::take(&mut ctx.continued));
                    if cont.is_empty() {
                        break;
                    }
                    let yc = self.exec_block(fr, ctxs, continuing, cont)?;
                    let args: &[ValueId] = match &continuing.term {
                        Terminator::Yield(a) => a,
                        _ => &[],
                    };
                    let (brk, again): (Vec<u32>, Vec<u32>) = match break_if {
                        Some(c) => yc.iter().partition(|&&l| fr.word(l as usize, *c) != 0),
                        None => (Vec::new(), yc),
                    };
                    self.assign(fr, &brk, args, results)?;
                    self.assign(fr, &again, args, &body.params)?;
                    left.extend(brk);
                    running = again;
                }
                let ctx = ctxs.pop().ok_or_else(|| internal("construct stack underflow"))?;
                left.sort_unstable();
                Ok(union(left, &ctx.exited))
            }
            Op::Inline { body, args, results, .. } => {
                self.assign(fr, &lanes, args, &body.params)?;
                ctxs.push(Ctx::new(CtxKind::Inline, results, &[]));
                let y = self.exec_block(fr, ctxs, body, lanes)?;
                if let Terminator::Yield(a) = &body.term {
                    self.assign(fr, &y, a, results)?;
                }
                let ctx = ctxs.pop().ok_or_else(|| internal("construct stack underflow"))?;
                Ok(union(y, &ctx.exited))
            }
            Op::Call(fid, args) => self.call(fr, inst, fid.index(), args, lanes),
            Op::Barrier(b) => {
                if *b != Barrier::SUB_GROUP {
                    self.check_uniform(&lanes, "workgroupBarrier")?;
                }
                Ok(lanes)
            }
            Op::WorkgroupUniformLoad(p) => {
                self.check_uniform(&lanes, "workgroupUniformLoad")?;
                self.per_lane(fr, inst, &lanes, |mch, fr, lane, out| {
                    let ty =
                        fr.ty(inst.result.ok_or_else(|| internal("load without a result"))?)?;
                    let ptr = fr.ptr(lane, *p)?;
                    mch.mem.load(&mch.m.types, lane, ptr, ty, out)
                })?;
                Ok(lanes)
            }
            Op::WorkgroupAll(v) => {
                self.check_uniform(&lanes, "workgroup_all")?;
                let all = lanes.iter().all(|&l| fr.word(l as usize, *v) != 0);
                self.per_lane(fr, inst, &lanes, |_, _, _, out| {
                    out.push(u32::from(all));
                    Ok(())
                })?;
                Ok(lanes)
            }
            Op::SubgroupBallot(_) | Op::SubgroupCollective { .. } | Op::SubgroupGather { .. } => {
                self.subgroup_op(fr, inst, &lanes)?;
                Ok(lanes)
            }
            _ => {
                self.per_lane(fr, inst, &lanes, |mch, fr, lane, out| {
                    mch.lane_op(fr, inst, lane, out)
                })?;
                Ok(lanes)
            }
        }
    }

    fn check_uniform(&self, lanes: &[u32], what: &str) -> Result<(), Diagnostic> {
        if lanes.len() != self.live {
            return Err(runtime(format!(
                "{what} reached in non-uniform control flow: {} of {} live invocations of workgroup ({}, {}, {}) are here",
                lanes.len(),
                self.live,
                self.wg_id[0],
                self.wg_id[1],
                self.wg_id[2]
            ))
            .help("every invocation of the workgroup must reach the same barrier; move it out of the branch or loop that depends on per-invocation values"));
        }
        Ok(())
    }

    /// Runs `f` for every lane and stores its output as the instruction's result.
    fn per_lane(
        &mut self,
        fr: &mut Frame<'m>,
        inst: &Inst,
        lanes: &[u32],
        mut f: impl FnMut(&mut Self, &Frame<'m>, usize, &mut Vec<u32>) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let mut out = std::mem::take(&mut self.out);
        let mut res = Ok(());
        for &l in lanes {
            out.clear();
            res = f(self, fr, l as usize, &mut out);
            if res.is_ok() {
                if let Some(r) = inst.result {
                    res = fr.put(l as usize, r, &out);
                }
            }
            if let Err(d) = res {
                res = Err(d.note(self.lane_note(l)));
                break;
            }
        }
        self.out = out;
        res
    }

    fn call(
        &mut self,
        fr: &mut Frame<'m>,
        inst: &Inst,
        fidx: usize,
        args: &[ValueId],
        lanes: Vec<u32>,
    ) -> Result<Vec<u32>, Diagnostic> {
        let m = self.m;
        let callee = m.functions.get(fidx).ok_or_else(|| internal("call to a missing function"))?;
        if self.depth >= 64 {
            return Err(Diagnostic::error(DiagKind::Limit, "call depth exceeds 64"));
        }
        let info = self.info(fidx)?;
        let base = self.mem.stacks.first().map_or(0, |s| s.len()) as u32;
        for s in &mut self.mem.stacks {
            s.resize(base as usize + info.local_bytes as usize, 0);
        }
        let mut cf = Frame::new(callee, info, self.nlanes, base, false);
        if callee.params.len() != args.len() {
            return Err(internal("call with the wrong number of arguments"));
        }
        for &l in &lanes {
            for (p, a) in callee.params.iter().zip(args) {
                cf.put(l as usize, p.value, fr.get(l as usize, *a))?;
            }
        }
        let mut ctxs = vec![Ctx::new(CtxKind::Func, &[], &[])];
        self.depth += 1;
        let y = self.exec_block(&mut cf, &mut ctxs, &callee.body, lanes);
        self.depth -= 1;
        let y = y?;
        let done = union(y, &ctxs[0].exited);
        if let Some(r) = inst.result {
            let rw = cf.info.ret_words;
            for &l in &done {
                let s = l as usize * rw;
                let w = cf.ret.get(s..s + rw).ok_or_else(|| internal("missing return value"))?;
                fr.put(l as usize, r, w)?;
            }
        }
        for s in &mut self.mem.stacks {
            s.truncate(base as usize);
        }
        Ok(done)
    }

    fn subgroup_op(
        &mut self,
        fr: &mut Frame<'m>,
        inst: &Inst,
        lanes: &[u32],
    ) -> Result<(), Diagnostic> {
        let sg = self.opts.subgroup_size.max(1);
        let types = &self.m.types;
        let mut i = 0;
        let mut vals = Vec::new();
        let mut out = Vec::new();
        while i < lanes.len() {
            let g = lanes[i] / sg;
            let mut j = i;
            while j < lanes.len() && lanes[j] / sg == g {
                j += 1;
            }
            let run = &lanes[i..j];
            let ids: Vec<u32> = run.iter().map(|l| l % sg).collect();
            vals.clear();
            out.clear();
            let n = match &inst.op {
                Op::SubgroupBallot(p) => {
                    let preds: Vec<bool> = run
                        .iter()
                        .map(|&l| p.is_none_or(|p| fr.word(l as usize, p) != 0))
                        .collect();
                    let w = subgroup::ballot(&ids, &preds);
                    for _ in run {
                        out.extend_from_slice(&w);
                    }
                    4
                }
                Op::SubgroupCollective { op, kind, arg } => {
                    let ty = fr.ty(*arg)?;
                    let s = types.scalar_of(ty).unwrap_or(Scalar::Bool);
                    if s.is_64() {
                        return Err(super::value::unsupported(
                            "subgroup operations on 64-bit values",
                        ));
                    }
                    let n = self.lay.words(ty) as usize;
                    for &l in run {
                        vals.extend_from_slice(fr.get(l as usize, *arg));
                    }
                    if vals.len() != n * run.len() {
                        return Err(internal("subgroup operand of the wrong size"));
                    }
                    subgroup::collective(*op, *kind, s, n, &vals, &mut out)?;
                    n
                }
                Op::SubgroupGather { mode, arg, index } => {
                    let n = self.lay.words(fr.ty(*arg)?) as usize;
                    for &l in run {
                        vals.extend_from_slice(fr.get(l as usize, *arg));
                    }
                    let idx: Vec<u32> = match index {
                        Some(x) => run.iter().map(|&l| fr.word(l as usize, *x)).collect(),
                        None => Vec::new(),
                    };
                    if vals.len() != n * run.len() {
                        return Err(internal("subgroup operand of the wrong size"));
                    }
                    let fill = self.opts.inactive_read;
                    self.indeterminate_reads +=
                        subgroup::gather(*mode, &ids, n, &vals, &idx, (sg, fill), &mut out);
                    n
                }
                _ => return Err(internal("not a subgroup operation")),
            };
            if let Some(r) = inst.result {
                for (k, &l) in run.iter().enumerate() {
                    let w = out
                        .get(k * n..k * n + n)
                        .ok_or_else(|| internal("subgroup result size"))?;
                    fr.put(l as usize, r, w)?;
                }
            }
            i = j;
        }
        Ok(())
    }

    /// Pointer to element/member `idx` of what `p` (of pointer type `pty`) points to.
    fn access(
        &self,
        lane: usize,
        pty: TypeId,
        p: [u32; 2],
        idx: i64,
    ) -> Result<[u32; 2], Diagnostic> {
        let types = &self.m.types;
        let base = match types.get(pty) {
            Type::Pointer { base, .. } => *base,
            _ => return Err(internal("access through a non-pointer")),
        };
        // In a module the bounds pass has checked (docs/bounds.md), an index out of range
        // makes a pointer that no load or store accepts ([`POISON`]): the policy guards every
        // use of such a pointer, so forming it is no error. In any other module the index
        // itself is the error (the sanitizer of `--bounds-checks off`).
        let fixed = |n: u32| (idx >= 0 && idx < i64::from(n)).then_some(idx as u32);
        let off = match types.get(base) {
            Type::Vector { size, scalar } => fixed(u32::from(*size)).map(|i| i * scalar.size()),
            Type::Matrix { columns, rows, scalar } => {
                fixed(u32::from(*columns)).map(|i| i * column_stride(*rows, *scalar))
            }
            Type::Array { len: Some(n), stride, .. } => {
                fixed(*n).map(|i| i.saturating_mul(*stride))
            }
            Type::Array { len: None, stride, .. } => {
                let count = self.runtime_len(lane, p, *stride);
                (idx >= 0 && (idx as u64) < count).then(|| (idx as u32).saturating_mul(*stride))
            }
            Type::Struct { members, .. } => {
                fixed(members.len() as u32).map(|i| members.get(i as usize).map_or(0, |m| m.offset))
            }
            _ => return Err(internal(format!("indexing into a {}", type_name(types, base)))),
        };
        let Some(off) = off else {
            if self.m.bounds_checked {
                return Ok([p[0], POISON]);
            }
            let n = match types.get(base) {
                Type::Array { len: None, stride, .. } => self.runtime_len(lane, p, *stride),
                _ => element_count(types, base).map_or(0, u64::from),
            };
            return Err(runtime(format!(
                "index {idx} out of bounds for {} of {n} elements in {}",
                type_name(types, base),
                self.mem.region_name(p[0])
            )));
        };
        if p[1] == POISON {
            return Ok(p);
        }
        Ok([p[0], p[1].saturating_add(off)])
    }

    /// Element count of a runtime-sized array starting at `p` (WGSL's `arrayLength`).
    fn runtime_len(&self, lane: usize, p: [u32; 2], stride: u32) -> u64 {
        let len = self.mem.region_len(lane, p[0]) as u64;
        len.saturating_sub(u64::from(p[1])) / u64::from(stride.max(1))
    }

    /// A 64-bit scalar at `p` (atomics), as two 32-bit halves, low first.
    fn load64(&self, lane: usize, p: [u32; 2]) -> Result<u64, Diagnostic> {
        let lo = self.mem.load_scalar(lane, p, Scalar::U32)?;
        let hi = self.mem.load_scalar(lane, [p[0], p[1].saturating_add(4)], Scalar::U32)?;
        Ok(u64::from(lo) | (u64::from(hi) << 32))
    }

    fn store64(&mut self, lane: usize, p: [u32; 2], v: u64) -> Result<(), Diagnostic> {
        self.mem.store_scalar(lane, p, Scalar::U32, v as u32)?;
        self.mem.store_scalar(lane, [p[0], p[1].saturating_add(4)], Scalar::U32, (v >> 32) as u32)
    }

    fn index_value(&self, fr: &Frame<'m>, lane: usize, v: ValueId) -> Result<i64, Diagnostic> {
        let w = fr.word(lane, v);
        Ok(if self.m.types.scalar_of(fr.ty(v)?) == Some(Scalar::I32) {
            i64::from(w as i32)
        } else {
            i64::from(w)
        })
    }

    fn coop_shape(&self, ty: TypeId) -> Result<Shape, Diagnostic> {
        match self.m.types.get(ty) {
            Type::CoopMatrix { columns, rows, elem, .. } => {
                Ok(Shape { rows: u32::from(*rows), cols: u32::from(*columns), elem: *elem })
            }
            _ => Err(internal(format!(
                "{} is not a cooperative matrix",
                type_name(&self.m.types, ty)
            ))),
        }
    }

    /// A non-region instruction for one lane; the result's words go to `out`.
    fn lane_op(
        &mut self,
        fr: &Frame<'m>,
        inst: &Inst,
        lane: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), Diagnostic> {
        let m = self.m;
        let types = &m.types;
        let rty = || -> Result<TypeId, Diagnostic> {
            fr.ty(inst.result.ok_or_else(|| internal("operation without a result"))?)
        };
        match &inst.op {
            Op::Const(c) => const_words(&self.lay, c, out)?,
            Op::Unary(op, a) => math::unary(types, *op, fr.ty(*a)?, fr.get(lane, *a), out)?,
            Op::Binary(op, a, b) => math::binary(
                types,
                *op,
                fr.ty(*a)?,
                fr.get(lane, *a),
                fr.ty(*b)?,
                fr.get(lane, *b),
                out,
            )?,
            Op::Select { cond, accept, reject } => {
                math::select(fr.get(lane, *cond), fr.get(lane, *accept), fr.get(lane, *reject), out)
            }
            Op::Compose(vs) => {
                for v in vs {
                    out.extend_from_slice(fr.get(lane, *v));
                }
            }
            Op::Splat(a) => {
                let n = self.lay.words(rty()?) as usize;
                let w = fr.get(lane, *a);
                for _ in 0..n / w.len().max(1) {
                    out.extend_from_slice(w);
                }
            }
            Op::Extract(a, idx) => {
                let ty = fr.ty(*a)?;
                let (o, w) = member(types, &self.lay, ty, *idx).ok_or_else(|| {
                    internal(format!("member {idx} of {}", type_name(types, ty)))
                })?;
                let src = fr.get(lane, *a);
                out.extend_from_slice(src.get(o as usize..(o + w) as usize).unwrap_or(&[]));
            }
            Op::ExtractDyn(a, i) => {
                let ty = fr.ty(*a)?;
                let idx = self.index_value(fr, lane, *i)?;
                let (o, w) = u32::try_from(idx)
                    .ok()
                    .and_then(|i| member(types, &self.lay, ty, i))
                    .ok_or_else(|| self.value_oob(ty, idx))?;
                let src = fr.get(lane, *a);
                out.extend_from_slice(src.get(o as usize..(o + w) as usize).unwrap_or(&[]));
            }
            Op::Insert { base, index, value } => {
                let ty = fr.ty(*base)?;
                out.extend_from_slice(fr.get(lane, *base));
                let (o, w) = member(types, &self.lay, ty, *index).ok_or_else(|| {
                    internal(format!("member {index} of {}", type_name(types, ty)))
                })?;
                let v = fr.get(lane, *value);
                match out.get_mut(o as usize..(o + w) as usize) {
                    Some(d) if d.len() == v.len() => d.copy_from_slice(v),
                    _ => return Err(internal("inserted value has the wrong type")),
                }
            }
            Op::InsertDyn { base, index, value } => {
                let ty = fr.ty(*base)?;
                let idx = self.index_value(fr, lane, *index)?;
                out.extend_from_slice(fr.get(lane, *base));
                let (o, w) = u32::try_from(idx)
                    .ok()
                    .and_then(|i| member(types, &self.lay, ty, i))
                    .ok_or_else(|| self.value_oob(ty, idx))?;
                let v = fr.get(lane, *value);
                match out.get_mut(o as usize..(o + w) as usize) {
                    Some(d) if d.len() == v.len() => d.copy_from_slice(v),
                    _ => return Err(internal("inserted value has the wrong type")),
                }
            }
            Op::Swizzle(a, pat) => {
                let src = fr.get(lane, *a);
                let s = types.scalar_of(fr.ty(*a)?).unwrap_or(Scalar::U32);
                let w = super::wide::width(s);
                for &p in pat {
                    let at = p as usize * w;
                    let c = src.get(at..at + w).ok_or_else(|| internal("bad swizzle"))?;
                    out.extend_from_slice(c);
                }
            }
            Op::Convert(a, to) => {
                let from = types.scalar_of(fr.ty(*a)?).unwrap_or(Scalar::U32);
                math::convert(from, *to, fr.get(lane, *a), out);
            }
            Op::Bitcast(a) => {
                let mut bytes = Vec::with_capacity(16);
                pack_tight(types, fr.ty(*a)?, fr.get(lane, *a), &mut bytes);
                let rt = rty()?;
                unpack_tight(types, rt, self.lay.words(rt) as usize, &bytes, out);
            }
            Op::Math(fun, args) => {
                let mut tys = Vec::with_capacity(args.len());
                let mut vals: Vec<&[u32]> = Vec::with_capacity(args.len());
                for a in args {
                    tys.push(fr.ty(*a)?);
                    vals.push(fr.get(lane, *a));
                }
                let start = out.len();
                math::math(types, *fun, &tys, &vals, rty()?, out)?;
                if self.opts.undefined_math_nan {
                    let res = out.get_mut(start..).unwrap_or_default();
                    math::poison_undefined(types, *fun, &tys, &vals, res);
                }
                if let Some(n) = self.opts.math_nudge.filter(|_| crate::agree::approx_fn(*fun)) {
                    let s = types.scalar_of(rty()?).unwrap_or(Scalar::U32);
                    n.apply(s, out.get_mut(start..).unwrap_or_default(), &mut self.nudged);
                }
            }
            Op::Relational(fun, a) => math::relational(types, *fun, fr.ty(*a)?, fr.get(lane, *a), out),
            Op::Derivative(..) => {
                return Err(unsupported(
                    "derivatives exist only in fragment shaders; the interpreter runs compute entry points",
                ))
            }
            Op::GlobalAddr(g) => match self.global_ptr.get(g.index()).copied().flatten() {
                Some(p) => out.extend_from_slice(&p),
                // A texture or sampler is the index of its variable (see `texture_ops`).
                None => out.push(g.index() as u32),
            },
            Op::LocalAddr(l) => {
                let off = fr.info.local_off.get(l.index()).copied().ok_or_else(|| internal("missing local"))?;
                out.extend_from_slice(&[REGION_STACK, fr.stack_base + off]);
            }
            Op::AccessIndex(p, idx) => {
                let r = self.access(lane, fr.ty(*p)?, fr.ptr(lane, *p)?, i64::from(*idx))?;
                out.extend_from_slice(&r);
            }
            Op::Access(p, i) => {
                let idx = self.index_value(fr, lane, *i)?;
                let r = self.access(lane, fr.ty(*p)?, fr.ptr(lane, *p)?, idx)?;
                out.extend_from_slice(&r);
            }
            Op::Load(p) => {
                let ptr = fr.ptr(lane, *p)?;
                self.mem.load(types, lane, ptr, rty()?, out)?;
            }
            Op::Store { ptr, value } => {
                let p = fr.ptr(lane, *ptr)?;
                self.mem.store(types, lane, p, fr.ty(*value)?, fr.get(lane, *value))?;
            }
            Op::Atomic { ptr, op, value } => {
                let p = fr.ptr(lane, *ptr)?;
                let s = pointee_scalar(types, fr.ty(*ptr)?)?;
                if s.is_64() {
                    let old = self.load64(lane, p)?;
                    let v = super::wide::word_pair(fr.get(lane, *value), 0);
                    self.store64(lane, p, super::wide::atomic(*op, s, old, v))?;
                    super::wide::put(out, old);
                    return Ok(());
                }
                let old = self.mem.load_scalar(lane, p, s)?;
                let v = fr.word(lane, *value);
                use dianran_frontend::ir::AtomicOp as A;
                let new = match op {
                    A::Add | A::Sub if s == Scalar::F32 => math::atomic_add_f32(old, v, *op == A::Sub),
                    _ => super::scalar_ops::w32::atomic(*op, s == Scalar::I32, old, v),
                };
                self.mem.store_scalar(lane, p, s, new)?;
                out.push(old);
            }
            Op::AtomicCompareExchange { ptr, compare, value } => {
                let p = fr.ptr(lane, *ptr)?;
                let s = pointee_scalar(types, fr.ty(*ptr)?)?;
                if s.is_64() {
                    let old = self.load64(lane, p)?;
                    let exchanged = old == super::wide::word_pair(fr.get(lane, *compare), 0);
                    if exchanged {
                        self.store64(lane, p, super::wide::word_pair(fr.get(lane, *value), 0))?;
                    }
                    super::wide::put(out, old);
                    out.push(u32::from(exchanged));
                    return Ok(());
                }
                let old = self.mem.load_scalar(lane, p, s)?;
                let exchanged = old == fr.word(lane, *compare);
                if exchanged {
                    self.mem.store_scalar(lane, p, s, fr.word(lane, *value))?;
                }
                out.extend_from_slice(&[old, u32::from(exchanged)]);
            }
            Op::ArrayLength(p) => {
                let pty = fr.ty(*p)?;
                let stride = match types.get(pty) {
                    Type::Pointer { base, .. } => match types.get(*base) {
                        Type::Array { len: None, stride, .. } => *stride,
                        _ => return Err(internal("arrayLength of a sized type")),
                    },
                    _ => return Err(internal("arrayLength of a non-pointer")),
                };
                let n = self.runtime_len(lane, fr.ptr(lane, *p)?, stride);
                out.push(u32::try_from(n).unwrap_or(u32::MAX));
            }
            Op::ImageSample { .. } | Op::ImageLoad { .. } | Op::ImageStore { .. } | Op::ImageQuery(..) => {
                let r = inst.result.map(|r| fr.ty(r)).transpose()?;
                self.image_op(fr, lane, &inst.op, r, out)?;
            }
            Op::CoopLoad { ptr, stride, row_major, limit } => {
                let ty = rty()?;
                let sh = self.coop_shape(ty)?;
                let scale = types.coop_scale(fr.ty(*ptr)?, ty);
                let t = coop::Tile {
                    ptr: fr.ptr(lane, *ptr)?,
                    stride: coop::matrix_stride(fr.word(lane, *stride), scale),
                    row_major: *row_major,
                    limit: limit.map(|l| fr.word(lane, l)),
                };
                coop::load(&self.mem, lane, t, sh, out)?;
            }
            Op::CoopStore { value, ptr, stride, row_major, limit } => {
                let ty = fr.ty(*value)?;
                let sh = self.coop_shape(ty)?;
                let scale = types.coop_scale(fr.ty(*ptr)?, ty);
                let t = coop::Tile {
                    ptr: fr.ptr(lane, *ptr)?,
                    stride: coop::matrix_stride(fr.word(lane, *stride), scale),
                    row_major: *row_major,
                    limit: limit.map(|l| fr.word(lane, l)),
                };
                coop::store(&mut self.mem, lane, fr.get(lane, *value), t, sh)?;
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                let (sa, sb, sc) = (
                    self.coop_shape(fr.ty(*a)?)?,
                    self.coop_shape(fr.ty(*b)?)?,
                    self.coop_shape(fr.ty(*c)?)?,
                );
                coop::multiply_add(
                    fr.get(lane, *a),
                    sa,
                    fr.get(lane, *b),
                    sb,
                    fr.get(lane, *c),
                    sc,
                    out,
                )?;
            }
            Op::CoopFill(x) => {
                let sh = self.coop_shape(rty()?)?;
                let w = coop::clamp_scalar(sh.elem, fr.word(lane, *x));
                out.extend(std::iter::repeat_n(w, (sh.rows * sh.cols) as usize));
            }
            Op::CoopScalar { op, matrix, scalar } => {
                let sh = self.coop_shape(fr.ty(*matrix)?)?;
                coop::scalar_op(*op, fr.get(lane, *matrix), sh, fr.word(lane, *scalar), out)?;
            }
            Op::Barrier(_)
            | Op::WorkgroupUniformLoad(_)
            | Op::WorkgroupAll(_)
            | Op::SubgroupBallot(_)
            | Op::SubgroupCollective { .. }
            | Op::SubgroupGather { .. }
            | Op::Call(..)
            | Op::If { .. }
            | Op::Switch { .. }
            | Op::Loop { .. }
            | Op::Inline { .. } => return Err(internal("collective operation run per lane")),
        }
        Ok(())
    }

    fn value_oob(&self, ty: TypeId, idx: i64) -> Diagnostic {
        let types = &self.m.types;
        let n = element_count(types, ty).unwrap_or(0);
        runtime(format!(
            "index {idx} out of bounds for a value of type {} with {n} elements",
            type_name(types, ty)
        ))
    }
}

fn pointee_scalar(types: &dianran_frontend::ir::Types, pty: TypeId) -> Result<Scalar, Diagnostic> {
    match types.get(pty) {
        Type::Pointer { base, .. } => {
            types.scalar_of(*base).ok_or_else(|| internal("atomic operation on a non-scalar"))
        }
        _ => Err(internal("atomic operation through a non-pointer")),
    }
}
