//! The walk over a function's structured SSA, written once for every [`Syntax`].
//!
//! Control flow follows the IR: a block prints its instructions, then its terminator; an
//! `if`/`switch` declares its result variables before it and its arms assign them where they
//! yield; a loop declares one variable per carried value, binds the body's and continuing
//! block's params to copies of it at their tops, and `Yield`/`Continue`/`Break` assign it.
//! Operations whose printed shape is the same in every language (member and lane access,
//! loads and stores, atomics, barriers, in-place inserts) are printed here too; a [`Syntax`]
//! spells the pieces and prints the rest.

use super::operands::{lane, Operands};
use super::syntax::{AtomicAccess, BarrierKind, Syntax};
use super::{is_trivial, Ctx, Target};
use crate::ir::{Block, Inst, Op, Scalar, Span, SwitchCase, Terminator, ValueId};
use crate::Diagnostic;

type Res<T> = Result<T, Box<Diagnostic>>;

/// The structured walk, for every [`Syntax`].
pub trait Walk<'a>: Syntax<'a> {
    /// Prints the function's memory locals and body at depth 1 after its signature, and the
    /// closing brace.
    fn function_body(&mut self) -> Res<()> {
        let f = self.body().f;
        for l in &f.locals {
            let name = self.body_mut().namer.name(&l.name);
            let text = self.local_decl(&name, l.ty);
            self.body_mut().line(1, &text);
            self.body_mut().locals.push(name);
        }
        if self.inlines_negated_conditions() {
            self.body_mut().find_negated_conditions();
        }
        let skip = if self.omits_zero_initializers() { self.zero_prologue(&f.body) } else { 0 };
        self.block_from(&f.body, skip, 1, &Ctx::Body)?;
        self.body_mut().out.push_str("}\n");
        Ok(())
    }

    /// How many instructions open `body` that print nothing or store zero into a local: the
    /// locals' initializers, redundant where the declaration zeroes
    /// ([`Syntax::omits_zero_initializers`]). Nothing before them reads or writes memory.
    fn zero_prologue(&self, body: &Block) -> usize {
        let defs = &self.body().defs;
        let zero_store = |ptr: &ValueId, value: &ValueId| {
            matches!(defs.get(ptr), Some(Op::LocalAddr(_)))
                && matches!(defs.get(value), Some(Op::Const(crate::ir::ConstValue::Zero(_))))
        };
        body.insts
            .iter()
            .take_while(|i| match &i.op {
                Op::LocalAddr(_) | Op::GlobalAddr(_) | Op::Const(_) => true,
                Op::Store { ptr, value } => zero_store(ptr, value),
                _ => false,
            })
            .count()
    }

    /// Prints a block's instructions and terminator at `depth`; `ctx` says what its `Yield`
    /// assigns.
    fn block(&mut self, b: &Block, depth: usize, ctx: &Ctx) -> Res<()> {
        self.block_from(b, 0, depth, ctx)
    }

    /// [`Walk::block`] from instruction `first` on.
    fn block_from(&mut self, b: &Block, first: usize, depth: usize, ctx: &Ctx) -> Res<()> {
        for inst in b.insts.iter().skip(first) {
            self.inst(inst, depth)?;
            // A value the loop's continuing block (printed earlier) reads: copy it out.
            let results = inst.result.iter().chain(inst.op.region_results());
            let carried: Vec<(String, ValueId)> =
                results.filter_map(|r| self.body().carry.get(r).map(|c| (c.clone(), *r))).collect();
            for (c, r) in carried {
                let text = format!("{c} = {};", self.val(r));
                self.body_mut().line(depth, &text);
            }
        }
        self.terminator(&b.term, depth, ctx)
    }

    /// Prints a terminator: the assignments of the values it passes, then the jump.
    fn terminator(&mut self, t: &Terminator, depth: usize, ctx: &Ctx) -> Res<()> {
        match t {
            Terminator::Unreachable => {}
            Terminator::Yield(args) => match ctx {
                Ctx::Arm(r) | Ctx::Loop(r) => self.assign(depth, r, args),
                Ctx::Body => {
                    if !args.is_empty() {
                        return Err(self.unsupported("a yield at function level", Span::default()));
                    }
                }
            },
            Terminator::Break(args) => {
                let vars = self.body().break_vars();
                self.assign(depth, &vars, args);
                self.body_mut().line(depth, "break;");
            }
            Terminator::Continue(args) => {
                let vars = self.body().continue_vars();
                self.assign(depth, &vars, args);
                self.body_mut().line(depth, "continue;");
            }
            Terminator::Return(Some(v)) => {
                let text = self.return_value(*v);
                self.body_mut().line(depth, &text);
            }
            Terminator::Return(None) => {
                // A trailing `return;` at function level is implied.
                if depth != 1 {
                    self.body_mut().line(depth, "return;");
                }
            }
            Terminator::Discard => {
                let text = self.discard();
                self.body_mut().line(depth, text);
            }
        }
        Ok(())
    }

    /// Assigns the printed `args` to `targets` (see [`super::Body::assign`]).
    fn assign(&mut self, depth: usize, targets: &[String], args: &[ValueId]) {
        let values: Vec<String> = args.iter().map(|a| self.val(*a)).collect();
        self.body_mut().assign(depth, targets, &values);
    }

    /// Declares (uninitialized) the variables holding a region's `results`.
    fn declare_vars(&mut self, depth: usize, results: &[ValueId]) -> Vec<String> {
        let mut names = Vec::new();
        for r in results {
            let name = self.body_mut().new_name(*r);
            let text = self.var_decl(&name, self.body().ty(*r), None);
            self.body_mut().line(depth, &text);
            names.push(name);
        }
        names
    }

    /// Binds each param to a copy of its state variable, recording the copy so assigning the
    /// variable its own unchanged copy is skipped. Returns the copies' names.
    fn bind_params(&mut self, depth: usize, params: &[ValueId], state: &[String]) -> Vec<String> {
        let mut copies = Vec::new();
        for (p, s) in params.iter().zip(state) {
            let name = self.body_mut().new_name(*p);
            let text = self.let_decl(&name, s);
            self.body_mut().line(depth, &text);
            self.body_mut().copy_of.insert(name.clone(), s.clone());
            copies.push(name);
        }
        copies
    }

    /// Prints one instruction at `depth`.
    fn inst(&mut self, inst: &Inst, depth: usize) -> Res<()> {
        let span = inst.span;
        match &inst.op {
            // Pointers and constants are printed at their uses.
            Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::Access(..) | Op::AccessIndex(..)
                if inst.result.is_some_and(|r| self.is_pointer(r)) =>
            {
                return Ok(())
            }
            Op::GlobalAddr(_) | Op::Const(_) => return Ok(()),
            // Printed inside its `if` (`Body::negated`).
            Op::Unary(..) if inst.result.is_some_and(|r| self.body().negated.contains_key(&r)) => {
                return Ok(())
            }
            Op::If { cond, then_, else_, results } => {
                return self.if_region(*cond, then_, else_, results, depth)
            }
            Op::Switch { selector, cases, results } => {
                return self.switch_region(*selector, cases, results, depth)
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                return self.loop_region(init, body, continuing, *break_if, results, depth)
            }
            Op::Inline { .. } => return Err(self.unsupported("an inlined call region", span)),
            Op::Store { ptr, .. } if self.skip_store(*ptr) => return Ok(()),
            Op::Store { ptr, value } => {
                let (place, value) = (self.place(*ptr), self.val(*value));
                let text = if self.pointee_is_atomic(*ptr) {
                    format!("{};", self.atomic(AtomicAccess::Store, &place, &[value]))
                } else {
                    format!("{place} = {value};")
                };
                self.body_mut().line(depth, &text);
                return Ok(());
            }
            Op::Barrier(flags) => {
                for (flag, kind) in BarrierKind::ALL {
                    if flags.contains(flag) {
                        let text = self.barrier(kind);
                        self.body_mut().line(depth, text);
                    }
                }
                return Ok(());
            }
            Op::Insert { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let member = self.member_text(self.body().ty(*base), *index);
                self.insert(r, *base, &member, *value, depth);
                return Ok(());
            }
            Op::InsertDyn { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let member = format!("[{}]", self.val(*index));
                self.insert(r, *base, &member, *value, depth);
                return Ok(());
            }
            _ => {}
        }
        if self.statement(inst, depth)? {
            return Ok(());
        }
        let expr = self.expression(&inst.op, inst.result, span)?;
        let text = match inst.result {
            Some(r) => {
                let name = self.body_mut().new_name(r);
                self.let_decl(&name, &expr)
            }
            None => format!("{expr};"),
        };
        self.body_mut().line(depth, &text);
        Ok(())
    }

    /// `result` = `base` with `member` (printed selector) replaced by `value`: a copy changed
    /// in place.
    fn insert(
        &mut self,
        result: ValueId,
        base: ValueId,
        member: &str,
        value: ValueId,
        depth: usize,
    ) {
        let name = self.body_mut().new_name(result);
        let text = self.copy_decl(&name, &self.val(base));
        self.body_mut().line(depth, &text);
        let text = format!("{name}{member} = {};", self.val(value));
        self.body_mut().line(depth, &text);
    }

    /// An `if` whose arms assign its result variables; an empty `then` arm is printed as the
    /// negated condition's `else` arm.
    fn if_region(
        &mut self,
        cond: ValueId,
        then_: &Block,
        else_: &Block,
        results: &[ValueId],
        depth: usize,
    ) -> Res<()> {
        let vars = self.declare_vars(depth, results);
        let ctx = Ctx::Arm(vars);
        let negated = self.body().negated.get(&cond).copied();
        let cond = match negated {
            Some(x) => format!("!({})", self.val(x)),
            None => self.val(cond),
        };
        if is_trivial(then_) && !is_trivial(else_) {
            let text = format!("if {} {{", self.condition(&format!("!({cond})")));
            self.body_mut().line(depth, &text);
            self.block(else_, depth + 1, &ctx)?;
            self.body_mut().line(depth, "}");
            return Ok(());
        }
        let text = format!("if {} {{", self.condition(&cond));
        self.body_mut().line(depth, &text);
        self.block(then_, depth + 1, &ctx)?;
        if !is_trivial(else_) {
            self.body_mut().line(depth, "} else {");
            self.block(else_, depth + 1, &ctx)?;
        }
        self.body_mut().line(depth, "}");
        Ok(())
    }

    /// A `switch` whose arms assign its result variables (a `break` assigns them too).
    fn switch_region(
        &mut self,
        selector: ValueId,
        cases: &[SwitchCase],
        results: &[ValueId],
        depth: usize,
    ) -> Res<()> {
        let vars = self.declare_vars(depth, results);
        let unsigned = self.body().types.scalar_of(self.body().ty(selector)) == Some(Scalar::U32);
        let text = format!("switch {} {{", self.condition(&self.val(selector)));
        self.body_mut().line(depth, &text);
        self.body_mut().targets.push(Target::Switch(vars.clone()));
        let ctx = Ctx::Arm(vars);
        for case in cases {
            for label in self.case_labels(case, unsigned) {
                self.body_mut().line(depth + 1, &label);
            }
            self.block(&case.body, depth + 2, &ctx)?;
            if self.case_falls_through() {
                self.body_mut().line(depth + 2, "break;");
            }
            self.body_mut().line(depth + 1, "}");
        }
        self.body_mut().targets.pop();
        self.body_mut().line(depth, "}");
        Ok(())
    }

    /// A loop: one variable per carried value (the loop's results after it), the body, and
    /// the continuing block with its `break if` where the syntax puts it.
    fn loop_region(
        &mut self,
        init: &[ValueId],
        body: &Block,
        continuing: &Block,
        break_if: Option<ValueId>,
        results: &[ValueId],
        depth: usize,
    ) -> Res<()> {
        let mut state = Vec::new();
        for (i, v) in init.iter().enumerate() {
            // The variable is named after the body's param it feeds.
            let hint = body.params.get(i).copied().unwrap_or(*v);
            let name = self.body_mut().new_name(hint);
            let text = self.var_decl(&name, self.body().ty(*v), Some(&self.val(*v)));
            self.body_mut().line(depth, &text);
            state.push(name);
        }
        for (r, s) in results.iter().zip(&state) {
            self.body_mut().names.insert(*r, s.clone());
        }
        let has_continuing =
            !continuing.insts.is_empty() || break_if.is_some() || !continuing.params.is_empty();
        let continuing_first = self.continuing_first();
        if has_continuing && continuing_first {
            // The continuing block comes first in the text but runs after the body: body
            // values it reads are carried in variables declared before the loop.
            let mut used = std::collections::HashSet::new();
            uses(continuing, &mut used);
            if let Some(b) = break_if {
                used.insert(b);
            }
            // A pointer is printed as its place (`out[v30]`) at each use: what it is built
            // from is used too.
            for inst in body.insts.iter().rev() {
                let ptr = inst.result.filter(|r| used.contains(r) && self.is_pointer(*r));
                if ptr.is_some() {
                    inst.op.for_each_operand(|v| {
                        used.insert(v);
                    });
                }
            }
            for inst in &body.insts {
                // Constants and pointers are printed at their uses: nothing to carry.
                if matches!(inst.op, Op::Const(_) | Op::GlobalAddr(_) | Op::LocalAddr(_)) {
                    continue;
                }
                for r in inst.result.iter().chain(inst.op.region_results()) {
                    if used.contains(r) && !self.is_pointer(*r) {
                        let name = self.body_mut().new_name(*r);
                        let text = self.var_decl(&name, self.body().ty(*r), None);
                        self.body_mut().line(depth, &text);
                        self.body_mut().carry.insert(*r, name);
                    }
                }
            }
        }
        let label = self.loop_open(depth, has_continuing);
        self.body_mut().targets.push(Target::Loop(state.clone()));
        let ctx = Ctx::Loop(state.clone());
        if has_continuing && continuing_first {
            self.continuing(continuing, break_if, &state, &label, depth + 1, &ctx)?;
        }
        let copies = self.bind_params(depth + 1, &body.params, &state);
        self.block(body, depth + 1, &ctx)?;
        // The body's end assigned the state: its copies are stale in `continuing`.
        for name in copies {
            self.body_mut().copy_of.remove(&name);
        }
        if has_continuing && !continuing_first {
            self.continuing(continuing, break_if, &state, &label, depth + 1, &ctx)?;
        }
        self.body_mut().targets.pop();
        self.body_mut().line(depth, "}");
        Ok(())
    }

    /// A loop's continuing block, its head at `depth`.
    fn continuing(
        &mut self,
        continuing: &Block,
        break_if: Option<ValueId>,
        state: &[String],
        label: &str,
        depth: usize,
        ctx: &Ctx,
    ) -> Res<()> {
        let text = self.continuing_open(label);
        self.body_mut().line(depth, &text);
        self.bind_params(depth + 1, &continuing.params, state);
        self.block(continuing, depth + 1, ctx)?;
        if let Some(b) = break_if {
            let text = self.break_if(&self.val(b));
            self.body_mut().line(depth + 1, &text);
        }
        self.body_mut().line(depth, "}");
        if let Some(text) = self.continuing_close(label) {
            self.body_mut().line(depth, &text);
        }
        Ok(())
    }

    /// The expression computing `op`: the forms every language shares, else
    /// [`Syntax::expr`].
    fn expression(&self, op: &Op, result: Option<ValueId>, span: Span) -> Res<String> {
        let v = |x: &ValueId| self.val(*x);
        let result_ty = |what: &str| self.result_ty(result, what, span);
        Ok(match op {
            Op::Const(c) => self.constant(c),
            Op::Splat(a) => format!("{}({})", self.ty(result_ty("a splat")?), v(a)),
            Op::Extract(a, i) => {
                let t = self.body().ty(*a);
                let text = format!("{}{}", v(a), self.member_text(t, *i));
                if self.packed_member(t, *i) {
                    format!("{}({text})", self.ty(result_ty("an extract")?))
                } else {
                    text
                }
            }
            Op::ExtractDyn(a, i) => format!("{}[{}]", v(a), v(i)),
            Op::Swizzle(a, pattern) => {
                let lanes: String = pattern.iter().map(|&i| lane(i.into())).collect();
                format!("{}.{lanes}", v(a))
            }
            Op::Load(p) => {
                let place = self.place(*p);
                if self.pointee_is_atomic(*p) {
                    self.atomic(AtomicAccess::Load, &place, &[])
                } else if self.is_packed_place(*p) {
                    format!("{}({place})", self.ty(result_ty("a load")?))
                } else {
                    place
                }
            }
            Op::Atomic { ptr, op, value } => {
                self.atomic(AtomicAccess::Rmw(*op), &self.place(*ptr), &[v(value)])
            }
            Op::SubgroupCollective { op, kind, arg } => {
                let name = self
                    .subgroup_name(*op, *kind)
                    .ok_or_else(|| self.unsupported(&format!("subgroup {kind:?} {op:?}"), span))?;
                format!("{name}({})", v(arg))
            }
            _ => return self.expr(op, result, span),
        })
    }
}

impl<'a, S: Syntax<'a> + ?Sized> Walk<'a> for S {}

/// Every value used in `b` (nested blocks and terminators included).
fn uses(b: &Block, out: &mut std::collections::HashSet<ValueId>) {
    for inst in &b.insts {
        inst.op.for_each_operand(|v| {
            out.insert(v);
        });
        for nested in inst.op.blocks() {
            uses(nested, out);
        }
    }
    match &b.term {
        Terminator::Yield(v) | Terminator::Break(v) | Terminator::Continue(v) => {
            out.extend(v.iter().copied())
        }
        Terminator::Return(Some(v)) => {
            out.insert(*v);
        }
        _ => {}
    }
}
