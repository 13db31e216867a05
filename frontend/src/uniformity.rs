//! Dawn's `chromium.subgroup_matrix_uniformity` rule: every subgroup-matrix builtin runs in
//! workgroup-uniform control flow, and the arguments that place or feed the tile are
//! workgroup-uniform values (`docs/subgroup-matrix.md`, "Uniformity").
//!
//! The analysis runs on each entry point with its calls inlined, after mem2reg and folding
//! (so a `var` assigned in uniform code is its SSA value, and branches on constants are
//! gone). It marks a value *non-uniform* when it may differ between the invocations of a
//! workgroup:
//!
//! * sources: the builtins `local_invocation_id`, `local_invocation_index`,
//!   `global_invocation_id`, `subgroup_invocation_id`, `subgroup_id` and every non-builtin
//!   input; loads from `read_write` storage, from workgroup memory (except
//!   `workgroupUniformLoad`) and from read-write storage textures; atomics and subgroup
//!   operations; function and private memory that some store filled with a non-uniform value
//!   or in non-uniform control flow;
//! * any value computed from a non-uniform operand or in non-uniform control flow, and the
//!   results of a region whose branch or exit may differ between invocations.
//!
//! Control flow is non-uniform inside an `if`/`switch` on a non-uniform value, after a
//! `break`, `continue` or `return` taken in non-uniform control flow (for the rest of that
//! region, and for every later iteration of the loop it leaves or continues), and in a loop
//! whose `break if` is non-uniform. Invocations reconverge after the region they left: after
//! the loop, the switch or the inlined call.
//!
//! Checked calls: `subgroupMatrixLoad` (control flow, pointer with its offset, stride),
//! `subgroupMatrixStore` (also the value), `subgroupMatrixMultiply[Accumulate]` (left and
//! right), `subgroupMatrixScalar*` (matrix and scalar) and filled constructors (the value).
//! The severity is the innermost `@diagnostic(SEVERITY, chromium.subgroup_matrix_uniformity)`
//! attribute around the call, else the directive's, else `error`.
//!
//! dianran's workgroup matrices (`docs/workgroup-matrix.md`) follow the same rule with
//! severity `error` always: their helpers ([`crate::ir::Module::tiles`]) run in
//! workgroup-uniform control flow with workgroup-uniform arguments (tiles excepted: a tile is
//! the workgroup's). An entry point that reaches one must have exactly
//! [`crate::ext::sgm::tile::INVOCATIONS`] invocations per workgroup.

use crate::ext::sgm::tile;
use crate::ir::{
    AddressSpace, Block, Function, ImageClass, Module, Op, Span, Terminator, Type, ValueId,
};
use crate::{DiagKind, Diagnostic};
use naga::BuiltIn;

/// The rule's name in WGSL.
pub const RULE: &str = "chromium.subgroup_matrix_uniformity";

/// How a violation is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Not reported.
    Off,
    /// Reported as a warning (Dawn's `info`).
    Info,
    /// Reported as a warning.
    Warning,
    /// The module is rejected.
    Error,
}

impl Severity {
    /// The severity a diagnostic directive or attribute names; `None` for other words.
    pub fn parse(word: &str) -> Option<Severity> {
        Some(match word {
            "off" => Severity::Off,
            "info" => Severity::Info,
            "warning" => Severity::Warning,
            "error" => Severity::Error,
            _ => return None,
        })
    }
}

/// Where the rule's severity was changed by an attribute: the span of the function or
/// statement carrying `@diagnostic(SEVERITY, chromium.subgroup_matrix_uniformity)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The attributed function or statement, in the user's text.
    pub span: Span,
    /// Its severity.
    pub severity: Severity,
}

/// The findings: errors reject the module; warnings are printed and compilation goes on.
#[derive(Debug, Default)]
pub struct Findings {
    /// Violations at severity `error`.
    pub errors: Vec<Diagnostic>,
    /// Violations at severity `warning` or `info`.
    pub warnings: Vec<Diagnostic>,
}

/// Checks every entry point of `m` (a module using Dawn's subgroup matrices, after
/// `passes::optimize`); `scopes` are the attributes, `m.enables` holds the directive.
pub fn check(m: &Module, scopes: &[Scope]) -> Findings {
    let global =
        m.enables.subgroup_matrix_uniformity.and_then(Severity::parse).unwrap_or(Severity::Error);
    let mut out = Findings::default();
    let subgroup = m.enables.subgroup_matrix && !(global == Severity::Off && scopes.is_empty());
    if !subgroup && !m.enables.workgroup_matrix {
        return out;
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut causes = rustc_hash::FxHashSet::default();
    for ep in &m.entry_points {
        // Inlining fails only on limits the backends report themselves.
        let Ok(f) = crate::passes::inline_calls(m, ep.function) else { continue };
        if let Some(at) = first_tile_call(m, &f.body) {
            let n: u32 = ep.workgroup_size.iter().product();
            if n != tile::INVOCATIONS {
                out.errors.push(
                    Diagnostic::error(
                        DiagKind::Check,
                        format!(
                            "workgroup matrices need exactly {} invocations per workgroup; entry point `{}` has {n}",
                            tile::INVOCATIONS,
                            ep.name
                        ),
                    )
                    .at(at)
                    .in_fn(&f.name)
                    .help("declare @workgroup_size(128) (or any sizes whose product is 128)"),
                );
            }
        }
        for v in analyse(m, &f) {
            if v.hard {
                if seen.insert((v.span, v.message.clone())) {
                    let mut d = Diagnostic::error(DiagKind::Check, v.message)
                        .at(v.span)
                        .in_fn(&f.name)
                        .help("every invocation of the workgroup must make this call, with the same arguments: move it out of the branch, or compute the values from uniform ones (workgroupUniformLoad reads workgroup memory uniformly)");
                    if let Some((at, why)) = v.cause {
                        d = d.label(at, why);
                    }
                    out.errors.push(d);
                }
                continue;
            }
            if !subgroup {
                continue;
            }
            let severity = scopes
                .iter()
                .filter(|s| s.span.start <= v.span.start && v.span.end <= s.span.end)
                .min_by_key(|s| s.span.end - s.span.start)
                .map_or(global, |s| s.severity);
            // One report per call, and per cause: the calls downstream of a reported one
            // (a product of a non-uniform load, the rest of a branch) add nothing.
            if severity == Severity::Off
                || !seen.insert((v.span, v.message.clone()))
                || v.cause.as_ref().is_some_and(|c| !causes.insert(c.clone()))
            {
                continue;
            }
            let mut d = Diagnostic::error(DiagKind::Check, v.message)
                .at(v.span)
                .in_fn(&f.name)
                .help(format!(
                    "if every invocation of the workgroup does reach this call with the same \
                     values, turn the check off with `diagnostic(off, {RULE});` (ONNX Runtime \
                     and llama.cpp do)"
                ));
            if let Some((at, why)) = v.cause {
                d = d.label(at, why);
            }
            if severity == Severity::Error {
                out.errors.push(d);
            } else {
                d.warning = true;
                out.warnings.push(d);
            }
        }
    }
    out
}

/// One violation before its severity is known.
struct Violation {
    span: Span,
    message: String,
    cause: Option<(Span, String)>,
    /// A workgroup-matrix rule: an error whatever the severities say.
    hard: bool,
}

/// The span of the first workgroup-matrix helper inlined in `b`, if any.
fn first_tile_call(m: &Module, b: &Block) -> Option<Span> {
    b.insts.iter().find_map(|inst| match &inst.op {
        Op::Inline { callee, .. } if m.tile_helper(*callee).is_some() => Some(inst.span),
        op => op.blocks().into_iter().find_map(|b| first_tile_call(m, b)),
    })
}

/// Why something is non-uniform: where it started and what it is.
type Cause = Option<(Span, &'static str)>;

/// The span of an entry point's inputs, which the IR does not locate: the first instruction
/// that uses one takes its place, so that a label points at that use.
const INPUT_SPAN: Span = Span { start: u32::MAX, end: u32::MAX };

/// `c`, located at `at` when it is an input's.
fn located(c: Cause, at: Span) -> Cause {
    c.map(|(s, why)| (if s == INPUT_SPAN { at } else { s }, why))
}

/// What leaving a block did, seen from the region around it.
#[derive(Clone, Debug, Default)]
struct Exits {
    /// Per argument of the block's own `Yield`: why it is non-uniform.
    yields: Vec<Cause>,
    /// `Break` arguments (any depth up to the loop or switch), and whether one was taken in
    /// non-uniform control flow.
    breaks: Vec<Cause>,
    break_nu: Cause,
    /// `Continue`, as `Break`.
    continues: Vec<Cause>,
    continue_nu: Cause,
    /// `Return`, as `Break`.
    returns: Vec<Cause>,
    return_nu: Cause,
}

fn or_into(dst: &mut Vec<Cause>, src: &[Cause]) {
    if dst.len() < src.len() {
        dst.resize(src.len(), None);
    }
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.or(*s);
    }
}

impl Exits {
    /// Takes the exits that pass through a nested region (all but its own yields).
    fn absorb(&mut self, inner: &Exits) {
        or_into(&mut self.breaks, &inner.breaks);
        or_into(&mut self.continues, &inner.continues);
        or_into(&mut self.returns, &inner.returns);
        self.break_nu = self.break_nu.or(inner.break_nu);
        self.continue_nu = self.continue_nu.or(inner.continue_nu);
        self.return_nu = self.return_nu.or(inner.return_nu);
    }
    /// The first exit that leaves the enclosing region in non-uniform control flow.
    fn leaves_non_uniformly(&self) -> Cause {
        self.break_nu.or(self.continue_nu).or(self.return_nu)
    }
}

struct Analysis<'a> {
    m: &'a Module,
    f: &'a Function,
    /// The defining operation of every value (region results excluded), for pointer roots.
    defs: Vec<Option<&'a Op>>,
    /// Per value: non-uniform, and why.
    nu: Vec<Cause>,
    /// Function-local and private variables some store made non-uniform.
    locals: Vec<Cause>,
    globals: Vec<Cause>,
    /// Loops (in walk order) whose later iterations run in non-uniform control flow.
    loops: Vec<Cause>,
    loop_counter: usize,
    changed: bool,
    report: Option<Vec<Violation>>,
    /// Violations found now are workgroup-matrix rules.
    hard: bool,
}

fn analyse(m: &Module, f: &Function) -> Vec<Violation> {
    let mut a = Analysis {
        m,
        f,
        defs: defs(f),
        nu: vec![None; f.values.len()],
        locals: vec![None; f.locals.len()],
        globals: vec![None; m.globals.len()],
        loops: Vec::new(),
        loop_counter: 0,
        changed: false,
        report: None,
        hard: false,
    };
    for p in &f.params {
        if let Some(why) = a.param_source(p.value, p.binding.as_ref()) {
            a.nu[p.value.index()] = Some((INPUT_SPAN, why));
        }
    }
    // Every fact only ever turns non-uniform, so the walks reach a fixed point.
    loop {
        a.changed = false;
        a.loop_counter = 0;
        a.block(&f.body, None);
        if !a.changed {
            break;
        }
    }
    a.report = Some(Vec::new());
    a.loop_counter = 0;
    a.block(&f.body, None);
    a.report.take().unwrap_or_default()
}

/// The defining operation of every value (region results excluded).
fn defs(f: &Function) -> Vec<Option<&Op>> {
    fn walk<'b>(b: &'b Block, out: &mut Vec<Option<&'b Op>>) {
        for inst in &b.insts {
            if let Some(r) = inst.result {
                out[r.index()] = Some(&inst.op);
            }
            for nb in inst.op.blocks() {
                walk(nb, out);
            }
        }
    }
    let mut out = vec![None; f.values.len()];
    walk(&f.body, &mut out);
    out
}

const INPUT: &str = "an input of this entry point differs between invocations";

/// Why a builtin differs between the invocations of a workgroup; `None` when it does not.
fn builtin_varies(b: &BuiltIn) -> Option<&'static str> {
    Some(match b {
        BuiltIn::WorkGroupId
        | BuiltIn::NumWorkGroups
        | BuiltIn::SubgroupSize
        | BuiltIn::NumSubgroups => return None,
        BuiltIn::LocalInvocationId => "`local_invocation_id` differs between invocations",
        BuiltIn::LocalInvocationIndex => "`local_invocation_index` differs between invocations",
        BuiltIn::GlobalInvocationId => "`global_invocation_id` differs between invocations",
        BuiltIn::SubgroupInvocationId => "`subgroup_invocation_id` differs between invocations",
        BuiltIn::SubgroupId => "`subgroup_id` differs between the subgroups of a workgroup",
        _ => "this builtin differs between invocations",
    })
}

impl Analysis<'_> {
    fn param_source(
        &self,
        v: ValueId,
        binding: Option<&crate::ir::IoBinding>,
    ) -> Option<&'static str> {
        use crate::ir::IoBinding;
        match binding {
            Some(IoBinding::BuiltIn(b)) => builtin_varies(b),
            Some(IoBinding::Location { .. }) => Some(INPUT),
            // A struct of inputs: its members are judged where they are extracted.
            None => match &self.m.types.get(self.f.ty(v)) {
                Type::Struct { .. } => None,
                _ => Some(INPUT),
            },
        }
    }

    fn set(&mut self, v: ValueId, cause: Cause) {
        if cause.is_some() && self.nu[v.index()].is_none() {
            self.nu[v.index()] = cause;
            self.changed = true;
        }
    }

    fn get(&self, v: ValueId) -> Cause {
        self.nu[v.index()]
    }

    fn args(&self, vs: &[ValueId]) -> Vec<Cause> {
        vs.iter().map(|v| self.get(*v)).collect()
    }

    /// The variable a pointer value is rooted at, following element and member accesses.
    fn root(&self, mut p: ValueId) -> Option<Root> {
        for _ in 0..1024 {
            match self.defs.get(p.index()).copied().flatten()? {
                Op::Access(base, _) | Op::AccessIndex(base, _) => p = *base,
                Op::GlobalAddr(g) => return Some(Root::Global(g.index())),
                Op::LocalAddr(l) => return Some(Root::Local(l.index())),
                _ => return None,
            }
        }
        None
    }

    fn taint(&mut self, root: Root, cause: Cause) {
        let slot = match root {
            Root::Global(g) => &mut self.globals[g],
            Root::Local(l) => &mut self.locals[l],
        };
        if cause.is_some() && slot.is_none() {
            *slot = cause;
            self.changed = true;
        }
    }

    fn violation(&mut self, span: Span, message: String, cause: Cause) {
        if let Some(r) = &mut self.report {
            let cause = located(cause, span).map(|(s, w)| (s, w.to_string()));
            r.push(Violation { span, message, cause, hard: self.hard });
        }
    }

    /// Walks `b` entered in control flow `cf` (`Some` when non-uniform).
    fn block(&mut self, b: &Block, mut cf: Cause) -> Exits {
        let mut exits = Exits::default();
        for inst in &b.insts {
            let inner = self.inst(inst, cf);
            if cf.is_none() {
                cf = inner.leaves_non_uniformly();
            }
            exits.absorb(&inner);
        }
        let mut flags = self.args(b.term.args());
        if cf.is_some() {
            flags.iter_mut().for_each(|f| *f = cf);
        }
        match &b.term {
            Terminator::Yield(_) => exits.yields = flags,
            Terminator::Break(_) => {
                or_into(&mut exits.breaks, &flags);
                exits.break_nu = exits.break_nu.or(cf);
            }
            Terminator::Continue(_) => {
                or_into(&mut exits.continues, &flags);
                exits.continue_nu = exits.continue_nu.or(cf);
            }
            Terminator::Return(_) => {
                or_into(&mut exits.returns, &flags);
                exits.return_nu = exits.return_nu.or(cf);
            }
            Terminator::Unreachable | Terminator::Discard => {}
        }
        exits
    }

    /// One instruction in control flow `cf`; returns the exits of a region instruction.
    fn inst(&mut self, inst: &crate::ir::Inst, cf: Cause) -> Exits {
        let here = |why: &'static str| Some((inst.span, why));
        let mut operands = None;
        inst.op.for_each_operand(|v| operands = operands.or(self.nu[v.index()]));
        let operands = located(operands, inst.span);
        let mut exits = Exits::default();
        let result: Cause = match &inst.op {
            Op::If { cond, then_, else_, results } => {
                let inner = cf.or(self.get(*cond).map(|_| {
                    (inst.span, "this branch depends on a value that differs between invocations")
                }));
                let t = self.block(then_, inner);
                let e = self.block(else_, inner);
                exits.absorb(&t);
                exits.absorb(&e);
                let mut flags = t.yields.clone();
                or_into(&mut flags, &e.yields);
                self.results(results, &flags, inner);
                return exits;
            }
            Op::Switch { selector, cases, results } => {
                let inner = cf.or(self.get(*selector).map(|_| {
                    (inst.span, "this switch depends on a value that differs between invocations")
                }));
                let mut flags = Vec::new();
                let mut left = None;
                for c in cases {
                    let x = self.block(&c.body, inner);
                    or_into(&mut flags, &x.yields);
                    or_into(&mut flags, &x.breaks);
                    left = left.or(x.break_nu);
                    or_into(&mut exits.continues, &x.continues);
                    or_into(&mut exits.returns, &x.returns);
                    exits.continue_nu = exits.continue_nu.or(x.continue_nu);
                    exits.return_nu = exits.return_nu.or(x.return_nu);
                }
                self.results(results, &flags, inner.or(left));
                return exits;
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let id = self.loop_counter;
                self.loop_counter += 1;
                if self.loops.len() <= id {
                    self.loops.resize(id + 1, None);
                }
                let inner = cf.or(self.loops[id]);
                let init_flags = self.args(init);
                self.results(&body.params, &init_flags, inner);
                let bx = self.block(body, inner);
                let mut cont = bx.yields.clone();
                or_into(&mut cont, &bx.continues);
                self.results(&continuing.params, &cont, inner.or(bx.continue_nu));
                let cx = self.block(continuing, inner.or(bx.continue_nu));
                self.results(&body.params, &cx.yields, inner);
                let exit_nu = break_if.and_then(|c| self.get(c)).map(|_| {
                    (inst.span, "this loop's `break if` depends on a value that differs between invocations")
                });
                let tainted =
                    bx.break_nu.or(bx.continue_nu).or(exit_nu).or(cx.return_nu).or(bx.return_nu);
                if cf.is_none() && self.loops[id].is_none() && tainted.is_some() {
                    self.loops[id] = tainted;
                    self.changed = true;
                }
                let mut flags = bx.breaks.clone();
                if break_if.is_some() {
                    or_into(&mut flags, &cx.yields);
                }
                self.results(results, &flags, inner.or(tainted));
                or_into(&mut exits.returns, &bx.returns);
                or_into(&mut exits.returns, &cx.returns);
                exits.return_nu = bx.return_nu.or(cx.return_nu);
                return exits;
            }
            Op::Inline { body, args, results, callee } => {
                let op = self.m.tile_helper(*callee).map(|t| t.op);
                if let Some(op) = op {
                    let names = op.arg_names();
                    let checked: Vec<(&str, ValueId)> = args
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !op.tile_args().contains(i))
                        .map(|(i, v)| (names.get(i).copied().unwrap_or("argument"), *v))
                        .collect();
                    self.hard = true;
                    self.require(inst.span, op.user_name(), cf, &checked);
                    self.hard = false;
                }
                let flags = self.args(args);
                self.results(&body.params, &flags, cf);
                let x = self.block(body, cf);
                let mut out = x.yields.clone();
                or_into(&mut out, &x.returns);
                // Invocations that returned early reconverge after the call.
                self.results(results, &out, cf);
                return exits;
            }
            Op::Load(p) => {
                let space = self.space(*p);
                let root = self.root(*p);
                operands.or(match (space, root) {
                    (Some(AddressSpace::Storage { writable: true }), _) => here("a read_write storage buffer may differ between invocations"),
                    (Some(AddressSpace::Workgroup), _) => here("workgroup memory may differ between invocations (workgroupUniformLoad reads it uniformly)"),
                    (_, Some(Root::Local(l))) => self.locals[l],
                    (_, Some(Root::Global(g))) => self.globals[g],
                    _ => None,
                })
            }
            Op::Store { ptr, value } => {
                if let Some(root) = self.root(*ptr) {
                    let c = cf.or(self.get(*value)).or(self.get(*ptr));
                    self.taint(root, c);
                }
                None
            }
            Op::Extract(base, index) => {
                operands.or_else(|| located(self.member_source(*base, *index), inst.span))
            }
            Op::Atomic { .. } | Op::AtomicCompareExchange { .. } => {
                here("an atomic's result differs between invocations")
            }
            Op::SubgroupBallot(_) | Op::SubgroupCollective { .. } | Op::SubgroupGather { .. } => {
                here("a subgroup operation's result may differ between subgroups")
            }
            Op::WorkgroupUniformLoad(_) | Op::ArrayLength(_) => None,
            Op::ImageLoad { image, .. } => operands.or(self.writable_image(*image).then_some((
                inst.span,
                "a read_write storage texture may differ between invocations",
            ))),
            Op::Call(..) => here("a call dianran could not inline"),
            Op::CoopLoad { ptr, stride, .. } => {
                self.require(
                    inst.span,
                    "`subgroupMatrixLoad`",
                    cf,
                    &[("pointer or offset", *ptr), ("stride", *stride)],
                );
                operands
            }
            Op::CoopStore { value, ptr, stride, .. } => {
                self.require(
                    inst.span,
                    "`subgroupMatrixStore`",
                    cf,
                    &[("pointer or offset", *ptr), ("value", *value), ("stride", *stride)],
                );
                None
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                // A plain multiply is lowered with a zero accumulator.
                let what = match self.defs.get(c.index()).copied().flatten() {
                    Some(Op::Const(_)) => "`subgroupMatrixMultiply`",
                    _ => "`subgroupMatrixMultiplyAccumulate`",
                };
                self.require(inst.span, what, cf, &[("left matrix", *a), ("right matrix", *b)]);
                operands
            }
            Op::CoopFill(v) => {
                self.require(inst.span, "a subgroup matrix constructor", cf, &[("value", *v)]);
                operands
            }
            Op::CoopScalar { op, matrix, scalar } => {
                let what = match op {
                    naga::BinaryOperator::Add => "`subgroupMatrixScalarAdd`",
                    naga::BinaryOperator::Subtract => "`subgroupMatrixScalarSubtract`",
                    _ => "`subgroupMatrixScalarMultiply`",
                };
                self.require(inst.span, what, cf, &[("matrix", *matrix), ("scalar", *scalar)]);
                operands
            }
            _ => operands,
        };
        if let Some(r) = inst.result {
            self.set(r, cf.or(result));
        }
        exits
    }

    /// Sets region results or block params from what flows in (`flags`, per position) and
    /// what makes all of them non-uniform (`all`).
    fn results(&mut self, vs: &[ValueId], flags: &[Cause], all: Cause) {
        for (i, v) in vs.iter().enumerate() {
            self.set(*v, all.or(flags.get(i).copied().flatten()));
        }
    }

    fn require(&mut self, span: Span, what: &str, cf: Cause, args: &[(&str, ValueId)]) {
        if self.report.is_none() {
            return;
        }
        if let Some(c) = cf {
            self.violation(
                span,
                format!("{what} must be called in workgroup-uniform control flow"),
                Some(c),
            );
            return;
        }
        for (name, v) in args {
            if let Some(c) = self.get(*v) {
                self.violation(span, format!("the {name} of {what} may differ between invocations; it must be workgroup-uniform"), Some(c));
                return;
            }
        }
    }

    fn space(&self, p: ValueId) -> Option<AddressSpace> {
        match self.m.types.get(self.f.ty(p)) {
            Type::Pointer { space, .. } => Some(*space),
            _ => None,
        }
    }

    fn writable_image(&self, image: ValueId) -> bool {
        match self.m.types.get(self.f.ty(image)) {
            Type::Image { class: ImageClass::Storage { access, .. }, .. } => {
                access.contains(naga::StorageAccess::STORE)
            }
            _ => false,
        }
    }

    /// A member of a struct of entry-point inputs.
    fn member_source(&self, base: ValueId, index: u32) -> Cause {
        self.f.params.iter().find(|p| p.value == base && p.binding.is_none())?;
        let Type::Struct { members, .. } = self.m.types.get(self.f.ty(base)) else { return None };
        let varies = match members.get(index as usize)?.binding.as_ref()? {
            crate::ir::IoBinding::BuiltIn(b) => builtin_varies(b),
            crate::ir::IoBinding::Location { .. } => Some(INPUT),
        };
        varies.map(|why| (INPUT_SPAN, why))
    }
}

#[derive(Clone, Copy)]
enum Root {
    Global(usize),
    Local(usize),
}

#[cfg(test)]
mod tests {
    use crate::{compile, Diagnostics};

    /// A kernel whose body is `body`, after `head` (directives); `li` varies, `wg` and `n`
    /// (a uniform) do not.
    fn kernel(head: &str, body: &str) -> String {
        format!(
            "enable chromium_experimental_subgroup_matrix;\n{head}\n\
             @group(0) @binding(0) var<storage, read> a: array<f32>;\n\
             @group(0) @binding(1) var<storage, read_write> o: array<f32>;\n\
             @group(0) @binding(2) var<uniform> n: vec4<u32>;\n\
             var<workgroup> w: array<f32, 64>;\n\
             fn copy(at: u32) {{\n\
             \x20 let m = subgroupMatrixLoad<subgroup_matrix_left<f32, 8, 8>, row_major>(&a, at, 8u);\n\
             \x20 subgroupMatrixStore<row_major>(&o, 0u, m, 8u);\n\
             }}\n\
             @compute @workgroup_size(32)\n\
             fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>,\n\
             \x20       @builtin(subgroup_id) sg: u32) {{\n{body}\n}}\n"
        )
    }

    fn errors(src: &str) -> Vec<String> {
        match compile("u.wgsl", src, &Default::default()) {
            Ok(_) => Vec::new(),
            Err(d) => d.list.iter().map(|x| x.message.clone()).collect(),
        }
    }

    fn rendered(src: &str) -> String {
        compile("u.wgsl", src, &Default::default()).err().map(|d| d.render()).unwrap_or_default()
    }

    #[test]
    fn uniform_calls_compile() {
        let loop_ = "  for (var i = 0u; i < n.x; i++) { copy(wg.x * 64u + i); }";
        for body in [
            "  copy(wg.x * 64u);",
            "  copy(n.y);",
            "  copy(u32(a[3]));",
            "  copy(u32(workgroupUniformLoad(&w)[0]));",
            loop_,
            "  if (li == 0u) { o[0] = 1.0; }\n  workgroupBarrier();\n  copy(0u);",
            "  var k = li;\n  k = 3u;\n  copy(k);",
        ] {
            assert_eq!(errors(&kernel("", body)), Vec::<String>::new(), "{body}");
        }
    }

    #[test]
    fn non_uniform_control_flow_is_an_error_at_the_call() {
        let src = kernel("", "  if (li < 16u) { copy(0u); }");
        let e = errors(&src);
        // The load is reported; the store in the same branch adds nothing.
        assert_eq!(e, ["`subgroupMatrixLoad` must be called in workgroup-uniform control flow"]);
        let r = rendered(&src);
        // The call in the helper, and the branch that made it non-uniform, are shown.
        assert!(r.contains("let m = subgroupMatrixLoad"), "{r}");
        assert!(r.contains("this branch depends on a value that differs"), "{r}");
        assert!(r.contains("diagnostic(off, chromium.subgroup_matrix_uniformity)"), "{r}");
        for body in [
            // After an early return in non-uniform control flow.
            "  if (li == 3u) { return; }\n  copy(0u);",
            // After a non-uniform break, in the loop's later iterations.
            "  for (var i = 0u; i < 4u; i++) { copy(i); if (o[i] > 0.0) { break; } }",
            "  switch (li) { case 1u: { copy(0u); } default: {} }",
            "  loop { copy(0u); if (li > 2u) { break; } }",
        ] {
            let e = errors(&kernel("", body));
            assert!(
                !e.is_empty() && e[0].contains("workgroup-uniform control flow"),
                "{body}: {e:?}"
            );
        }
    }

    #[test]
    fn non_uniform_arguments_are_errors() {
        for (body, what) in [
            ("  copy(li);", "the pointer or offset of `subgroupMatrixLoad`"),
            ("  copy(sg * 64u);", "the pointer or offset"),
            ("  copy(u32(o[0]));", "the pointer or offset"),
            ("  copy(u32(w[0]));", "the pointer or offset"),
            ("  var k = 0u;\n  if (li == 0u) { k = 1u; }\n  copy(k);", "the pointer or offset"),
            (
                "  let m = subgroupMatrixLoad<subgroup_matrix_left<f32, 8, 8>, row_major>(&a, 0u, 8u + li);\n  subgroupMatrixStore<row_major>(&o, 0u, m, 8u);",
                "the stride of `subgroupMatrixLoad`",
            ),
            (
                "  let m = subgroup_matrix_left<f32, 8, 8>(f32(li));\n  subgroupMatrixStore<row_major>(&o, 0u, m, 8u);",
                "the value of a subgroup matrix constructor",
            ),
            (
                "  let m = subgroupMatrixScalarMultiply(subgroup_matrix_left<f32, 8, 8>(), f32(li));\n  subgroupMatrixStore<row_major>(&o, 0u, m, 8u);",
                "the scalar of `subgroupMatrixScalarMultiply`",
            ),
        ] {
            let e = errors(&kernel("", body));
            assert!(!e.is_empty() && e[0].starts_with(what), "{body}: {e:?}");
        }
    }

    #[test]
    fn severities_follow_the_directive_and_attributes() {
        let body = "  copy(sg * 64u);";
        assert!(errors(&kernel("diagnostic(off, chromium.subgroup_matrix_uniformity);", body))
            .is_empty());
        let src = kernel("diagnostic(warning, chromium.subgroup_matrix_uniformity);", body);
        let m = compile("u.wgsl", &src, &Default::default()).expect("a warning only");
        assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
        assert!(m.warnings[0].warning);
        let r = Diagnostics::new("u.wgsl", &src, m.warnings.clone()).render();
        assert!(r.contains("warning"), "{r}");
        // The attribute on the helper covers the calls inside it, not other calls.
        let attr = "@diagnostic(off, chromium.subgroup_matrix_uniformity) fn copy(";
        let src = kernel("", body).replacen("fn copy(", attr, 1);
        assert!(errors(&src).is_empty(), "{:?}", errors(&src));
        let src = kernel("", "  copy(0u);\n  if (li == 0u) { let z = subgroup_matrix_left<f32, 8, 8>(1.0); subgroupMatrixStore<row_major>(&o, 0u, z, 8u); }")
            .replacen("fn copy(", attr, 1);
        let e = errors(&src);
        assert_eq!(
            e,
            ["a subgroup matrix constructor must be called in workgroup-uniform control flow"]
        );
        // An attribute can also turn the rule back on under an `off` directive.
        let src = kernel("diagnostic(off, chromium.subgroup_matrix_uniformity);", body).replacen(
            "fn copy(",
            "@diagnostic(error, chromium.subgroup_matrix_uniformity) fn copy(",
            1,
        );
        assert_eq!(errors(&src).len(), 1, "{:?}", errors(&src));
    }
}
