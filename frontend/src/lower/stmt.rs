//! naga statements to IR instructions, regions and terminators.

use super::expr::is_statement_result;
use super::func::FnLowerer;
use super::types::scalar;
use crate::ext::sgm::{ScalarOp, Stub};
use crate::ir::{self, AtomicOp, BinaryOperator, Op, Span, Terminator, TypeId, ValueId};
use crate::{DiagKind, Diagnostic};
use naga::{Expression, Handle, Statement};

impl<'m> FnLowerer<'_, 'm> {
    /// Lowers the statements of `block` into the current block. Returns the terminator when
    /// control cannot fall off the end (statements after it are dropped), `None` when it can.
    pub fn stmts(&mut self, block: &'m naga::Block) -> Result<Option<Terminator>, Diagnostic> {
        let stmts: Vec<(&'m Statement, &'m naga::Span)> = block.span_iter().collect();
        for (i, &(stmt, span)) in stmts.iter().enumerate() {
            let span = Span::from(*span);
            self.stmt_span = span;
            let span = if span.is_unknown() { self.fn_span } else { span };
            // naga 30 pushes `coopStore(...)` before flushing the `Emit` of its operands (its
            // WGSL frontend does not flush the emitter for that call), so an operand computed
            // in the call (`&c[r * s]`, a loaded stride) is emitted right after the store.
            // Operands are evaluated before the call in WGSL: lower those `Emit`s first.
            // Only expressions created while parsing the call (handles up to the last operand)
            // move: the same `Emit` may also hold the next statement's expressions, such as a
            // load that must see the store.
            if let Statement::CooperativeStore { target, data } = stmt {
                let last = target.index().max(data.pointer.index()).max(data.stride.index());
                for &(next, _) in &stmts[i + 1..] {
                    let Statement::Emit(ref range) = *next else { break };
                    for h in range.clone().filter(|h| h.index() <= last) {
                        let done = self.values.get(h.index()).is_some_and(|v| v.is_some());
                        if !done && !is_statement_result(&self.fun.expressions[h]) {
                            let constant = self.kinds.is_const_or_override(h);
                            self.lower_expr(h, constant)?;
                        }
                    }
                }
            }
            if let Some(t) = self.stmt(stmt, span)? {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// Lowers `block` into a fresh IR block that ends in `Yield([])` when control falls off
    /// its end. Also returns whether it can.
    fn region(&mut self, block: &'m naga::Block) -> Result<(ir::Block, bool), Diagnostic> {
        let saved = std::mem::take(&mut self.cur);
        let term = self.stmts(block);
        let insts = std::mem::replace(&mut self.cur, saved);
        let term = term?;
        let falls = term.is_none();
        let term = term.unwrap_or(Terminator::Yield(Vec::new()));
        Ok((ir::Block { params: Vec::new(), insts, term }, falls))
    }

    /// Lowers one statement; `Some(term)` when it ends the block.
    fn stmt(&mut self, stmt: &'m Statement, span: Span) -> Result<Option<Terminator>, Diagnostic> {
        match *stmt {
            Statement::Emit(ref range) => {
                let fun = self.fun;
                for h in range.clone() {
                    let done = self.values.get(h.index()).is_some_and(|v| v.is_some());
                    if done || is_statement_result(&fun.expressions[h]) {
                        continue;
                    }
                    // Constant expressions naga happens to emit go to the prologue like the
                    // ones it does not: then every constant dominates every use, whichever
                    // block first needs it.
                    let constant = self.kinds.is_const_or_override(h);
                    self.lower_expr(h, constant)?;
                }
            }
            Statement::Block(ref b) => return self.stmts(b),
            Statement::If { condition, ref accept, ref reject } => {
                let cond = self.value(condition)?;
                let (then_, f1) = self.region(accept)?;
                let (else_, f2) = self.region(reject)?;
                let op = Op::If { cond, then_, else_, results: Vec::new() };
                self.push(op, None, None, span, false);
                if !f1 && !f2 {
                    return Ok(Some(Terminator::Unreachable));
                }
            }
            Statement::Switch { selector, ref cases } => {
                return self.switch(selector, cases, span);
            }
            Statement::Loop { ref body, ref continuing, break_if } => {
                self.break_targets.push(false);
                let body = self.region(body);
                let cont = body.and_then(|(body, _)| {
                    let saved = std::mem::take(&mut self.cur);
                    let term = self.stmts(continuing);
                    // `break if` is evaluated at the end of the continuing block.
                    let bi = term.and_then(|t| Ok((t, self.opt_value(break_if)?)));
                    let insts = std::mem::replace(&mut self.cur, saved);
                    let (term, bi) = bi?;
                    let term = term.unwrap_or(Terminator::Yield(Vec::new()));
                    Ok((body, ir::Block { params: Vec::new(), insts, term }, bi))
                });
                let broke = self.break_targets.pop().unwrap_or(false);
                let (body, continuing, break_if) = cont?;
                let exits = broke || break_if.is_some();
                let op =
                    Op::Loop { init: Vec::new(), body, continuing, break_if, results: Vec::new() };
                self.push(op, None, None, span, false);
                if !exits {
                    return Ok(Some(Terminator::Unreachable));
                }
            }
            Statement::Break => {
                if let Some(b) = self.break_targets.last_mut() {
                    *b = true;
                }
                return Ok(Some(Terminator::Break(Vec::new())));
            }
            Statement::Continue => return Ok(Some(Terminator::Continue(Vec::new()))),
            Statement::Return { value } => {
                return Ok(Some(Terminator::Return(self.opt_value(value)?)));
            }
            Statement::Kill => return Ok(Some(Terminator::Discard)),
            // naga's WGSL front end only makes control barriers; a memory barrier alone is
            // implemented by the stronger control barrier of the same scope.
            Statement::ControlBarrier(b) | Statement::MemoryBarrier(b) => {
                self.push(Op::Barrier(b), None, None, span, false);
            }
            Statement::Store { pointer, value } => {
                let op = Op::Store { ptr: self.value(pointer)?, value: self.value(value)? };
                self.push(op, None, None, span, false);
            }
            Statement::ImageStore { image, coordinate, array_index, value } => {
                let op = Op::ImageStore {
                    image: self.value(image)?,
                    coordinate: self.value(coordinate)?,
                    array_index: self.opt_value(array_index)?,
                    value: self.value(value)?,
                };
                self.push(op, None, None, span, false);
            }
            Statement::Atomic { pointer, ref fun, value, result } => {
                self.atomic(pointer, fun, value, result, span)?;
            }
            Statement::ImageAtomic { .. } => {
                return Err(self.error(
                    DiagKind::Unsupported,
                    "texture atomics are not supported",
                    span,
                    "use atomics on a storage buffer instead",
                ))
            }
            Statement::WorkGroupUniformLoad { pointer, result } => {
                let op = Op::WorkgroupUniformLoad(self.value(pointer)?);
                self.define_result(result, op, span)?;
            }
            Statement::Call { function, ref arguments, result }
                if self.sgm_stub(function).is_some() =>
            {
                let stub =
                    self.sgm_stub(function).ok_or_else(|| self.internal("stub vanished", span))?;
                self.sgm_call(stub, arguments, result, span)?;
            }
            Statement::Call { function, ref arguments, result } => {
                let mut args = Vec::with_capacity(arguments.len());
                for &a in arguments {
                    args.push(self.value(a)?);
                }
                let op = Op::Call(super::ModCx::func_id(function), args);
                match result {
                    Some(r) => {
                        self.define_result(r, op, span)?;
                    }
                    None => {
                        // A discarded result still defines a value, so a call's shape depends
                        // only on its callee.
                        let module = self.cx.module;
                        let ty = match &module.functions[function].result {
                            Some(r) => {
                                Some(self.cx.tl.handle(r.ty).map_err(|d| self.fix(d, span))?)
                            }
                            None => None,
                        };
                        self.push(op, ty, None, span, false);
                    }
                }
            }
            Statement::RayQuery { .. } | Statement::RayPipelineFunction(_) => {
                return Err(self.error(
                    DiagKind::Unsupported,
                    "ray tracing is not supported",
                    span,
                    "dianran supports compute, vertex and fragment shaders without ray queries",
                ))
            }
            Statement::SubgroupBallot { result, predicate } => {
                let op = Op::SubgroupBallot(self.opt_value(predicate)?);
                self.define_result(result, op, span)?;
            }
            Statement::SubgroupGather { mode, argument, result } => {
                let (mode, index) = self.gather_mode(mode)?;
                let op = Op::SubgroupGather { mode, arg: self.value(argument)?, index };
                self.define_result(result, op, span)?;
            }
            Statement::SubgroupCollectiveOperation { op, collective_op, argument, result } => {
                let op =
                    Op::SubgroupCollective { op, kind: collective_op, arg: self.value(argument)? };
                self.define_result(result, op, span)?;
            }
            Statement::CooperativeStore { target, data } => {
                let op = Op::CoopStore {
                    value: self.value(target)?,
                    ptr: self.value(data.pointer)?,
                    stride: self.value(data.stride)?,
                    row_major: data.row_major,
                    limit: None,
                };
                self.push(op, None, None, span, false);
            }
        }
        Ok(None)
    }

    /// Defines the result expression of a statement (call, atomic, subgroup operation).
    /// What a helper of Dawn's subgroup matrices stands for ([`crate::ext::sgm`]).
    fn sgm_stub(&self, f: Handle<naga::Function>) -> Option<Stub> {
        let name = self.cx.module.functions[f].name.as_deref()?;
        self.cx.sgm?.stubs.get(name).copied()
    }

    /// A call of a subgroup-matrix helper, as the cooperative-matrix operation it stands for.
    fn sgm_call(
        &mut self,
        stub: Stub,
        args: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let arg = |i: usize| args.get(i).copied();
        let need = |me: &Self, h: Option<Handle<Expression>>| {
            h.ok_or_else(|| {
                me.internal("subgroup matrix helper called with too few arguments", span)
            })
        };
        // A tile's first element arrives as a load of it: the operation takes its address.
        let element_ptr = |me: &mut Self| -> Result<ValueId, Diagnostic> {
            let h = need(me, arg(0))?;
            match me.fun.expressions[h] {
                Expression::Load { pointer } => me.value(pointer),
                _ => Err(me.internal("subgroup matrix helper without an element argument", span)),
            }
        };
        let value = |me: &mut Self, i: usize| -> Result<ValueId, Diagnostic> {
            let h = need(me, arg(i))?;
            me.value(h)
        };
        let op = match stub {
            Stub::Load { row_major, .. } => {
                let ptr = element_ptr(self)?;
                Op::CoopLoad { ptr, stride: value(self, 1)?, row_major, limit: None }
            }
            Stub::Store { row_major, .. } => {
                let ptr = element_ptr(self)?;
                let op = Op::CoopStore {
                    value: value(self, 1)?,
                    ptr,
                    stride: value(self, 2)?,
                    row_major,
                    limit: None,
                };
                self.push(op, None, None, span, false);
                return Ok(());
            }
            Stub::Fill(_) => Op::CoopFill(value(self, 0)?),
            Stub::Multiply(_) => {
                let (a, b) = (value(self, 0)?, value(self, 1)?);
                let r = need(self, result)?;
                let ty = self.ty_of(r)?;
                let zero = self
                    .push(Op::Const(ir::ConstValue::Zero(ty)), Some(ty), None, span, false)
                    .ok_or_else(|| self.internal("constant without a result", span))?;
                Op::CoopMultiplyAdd(a, b, zero)
            }
            Stub::MultiplyAccumulate => {
                Op::CoopMultiplyAdd(value(self, 0)?, value(self, 1)?, value(self, 2)?)
            }
            Stub::Scalar(op) => Op::CoopScalar {
                op: match op {
                    ScalarOp::Add => BinaryOperator::Add,
                    ScalarOp::Subtract => BinaryOperator::Subtract,
                    ScalarOp::Multiply => BinaryOperator::Multiply,
                },
                matrix: value(self, 0)?,
                scalar: value(self, 1)?,
            },
        };
        let r = need(self, result)?;
        self.define_result(r, op, span)?;
        Ok(())
    }

    fn define_result(
        &mut self,
        h: Handle<Expression>,
        op: Op,
        span: Span,
    ) -> Result<ValueId, Diagnostic> {
        let ty = self.ty_of(h)?;
        self.define_result_typed(h, op, ty, span)
    }

    fn define_result_typed(
        &mut self,
        h: Handle<Expression>,
        op: Op,
        ty: TypeId,
        span: Span,
    ) -> Result<ValueId, Diagnostic> {
        let name = self.fun.named_expressions.get(&h).cloned();
        let v = self
            .push(op, Some(ty), name, span, false)
            .ok_or_else(|| self.internal("instruction without a result", span))?;
        self.set_value(h, v);
        Ok(v)
    }

    /// A `switch`. naga spells `case 1, 2:` as an empty case for 1 that falls through to the
    /// case for 2; such runs become one [`ir::SwitchCase`] with every value.
    fn switch(
        &mut self,
        selector: Handle<Expression>,
        cases: &'m [naga::SwitchCase],
        span: Span,
    ) -> Result<Option<Terminator>, Diagnostic> {
        let sel = self.value(selector)?;
        self.break_targets.push(false);
        let res = self.switch_cases(cases, span);
        let broke = self.break_targets.pop().unwrap_or(false);
        let (out, any_falls) = res?;
        self.push(
            Op::Switch { selector: sel, cases: out, results: Vec::new() },
            None,
            None,
            span,
            false,
        );
        if any_falls || broke {
            Ok(None)
        } else {
            Ok(Some(Terminator::Unreachable))
        }
    }

    fn switch_cases(
        &mut self,
        cases: &'m [naga::SwitchCase],
        span: Span,
    ) -> Result<(Vec<ir::SwitchCase>, bool), Diagnostic> {
        let mut out = Vec::new();
        let mut values = Vec::new();
        let mut default = false;
        let mut any_falls = false;
        for c in cases {
            match c.value {
                naga::SwitchValue::I32(v) => values.push(i64::from(v)),
                naga::SwitchValue::U32(v) => values.push(i64::from(v)),
                naga::SwitchValue::Default => default = true,
            }
            if c.fall_through {
                if !c.body.is_empty() {
                    return Err(self.error(
                        DiagKind::Unsupported,
                        "a switch case that falls through after running code is not supported",
                        span,
                        "WGSL has no fall-through; end the case or merge the selectors into one case",
                    ));
                }
                continue;
            }
            let (body, falls) = self.region(&c.body)?;
            any_falls |= falls;
            out.push(ir::SwitchCase {
                values: std::mem::take(&mut values),
                default: std::mem::take(&mut default),
                body,
            });
        }
        if !values.is_empty() || default {
            // Trailing empty fall-through cases leave the switch.
            out.push(ir::SwitchCase {
                values,
                default,
                body: ir::Block {
                    params: Vec::new(),
                    insts: Vec::new(),
                    term: Terminator::Yield(Vec::new()),
                },
            });
            any_falls = true;
        }
        Ok((out, any_falls))
    }

    /// An atomic read-modify-write. The old value is always defined, even when naga's result
    /// is unused, so every target sees the same instruction shape.
    fn atomic(
        &mut self,
        pointer: Handle<Expression>,
        fun: &naga::AtomicFunction,
        value: Handle<Expression>,
        result: Option<Handle<Expression>>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let ptr = self.value(pointer)?;
        let val = self.value(value)?;
        let (op, cmpxchg) = match *fun {
            naga::AtomicFunction::Exchange { compare: Some(c) } => {
                (Op::AtomicCompareExchange { ptr, compare: self.value(c)?, value: val }, true)
            }
            ref f => {
                let op = match f {
                    naga::AtomicFunction::Add => AtomicOp::Add,
                    naga::AtomicFunction::Subtract => AtomicOp::Sub,
                    naga::AtomicFunction::And => AtomicOp::And,
                    naga::AtomicFunction::ExclusiveOr => AtomicOp::Xor,
                    naga::AtomicFunction::InclusiveOr => AtomicOp::Or,
                    naga::AtomicFunction::Min => AtomicOp::Min,
                    naga::AtomicFunction::Max => AtomicOp::Max,
                    naga::AtomicFunction::Exchange { .. } => AtomicOp::Exchange,
                };
                (Op::Atomic { ptr, op, value: val }, false)
            }
        };
        let ty = match result {
            Some(r) => self.ty_of(r)?,
            None if cmpxchg => self.cmpxchg_result_type(value, span)?,
            None => self.ty_of(value)?,
        };
        match result {
            Some(r) => {
                self.define_result_typed(r, op, ty, span)?;
            }
            None => {
                self.push(op, Some(ty), None, span, false);
            }
        }
        Ok(())
    }

    /// naga's `__atomic_compare_exchange_result` struct for the scalar of `value`.
    fn cmpxchg_result_type(
        &mut self,
        value: Handle<Expression>,
        span: Span,
    ) -> Result<TypeId, Diagnostic> {
        let naga::TypeInner::Scalar(s) = *self.inner_of(value) else {
            return Err(self.internal("atomic operand is not a scalar", span));
        };
        let key = naga::PredeclaredType::AtomicCompareExchangeWeakResult(s);
        let module = self.cx.module;
        if let Some(&h) = module.special_types.predeclared_types.get(&key) {
            return self.cx.tl.handle(h).map_err(|d| self.fix(d, span));
        }
        let old = self.cx.tl.intern(ir::Type::Scalar(scalar(s).map_err(|d| self.fix(d, span))?));
        let exchanged = self.cx.tl.intern(ir::Type::Scalar(ir::Scalar::Bool));
        let member =
            |name: &str, ty, offset| ir::Member { name: name.into(), ty, offset, binding: None };
        Ok(self.cx.tl.intern(ir::Type::Struct {
            name: key.struct_name(),
            members: vec![member("old_value", old, 0), member("exchanged", exchanged, 4)],
            size: 8,
            align: 4,
        }))
    }

    /// The IR gather mode and its lane operand.
    fn gather_mode(
        &mut self,
        mode: naga::GatherMode,
    ) -> Result<(ir::GatherMode, Option<ValueId>), Diagnostic> {
        use naga::GatherMode as G;
        Ok(match mode {
            G::BroadcastFirst => (ir::GatherMode::BroadcastFirst, None),
            G::Broadcast(i) => (ir::GatherMode::Broadcast, Some(self.value(i)?)),
            G::Shuffle(i) => (ir::GatherMode::Shuffle, Some(self.value(i)?)),
            G::ShuffleDown(i) => (ir::GatherMode::ShuffleDown, Some(self.value(i)?)),
            G::ShuffleUp(i) => (ir::GatherMode::ShuffleUp, Some(self.value(i)?)),
            G::ShuffleXor(i) => (ir::GatherMode::ShuffleXor, Some(self.value(i)?)),
            G::QuadBroadcast(i) => (ir::GatherMode::QuadBroadcast, Some(self.value(i)?)),
            G::QuadSwap(d) => (ir::GatherMode::QuadSwap(d), None),
        })
    }
}
