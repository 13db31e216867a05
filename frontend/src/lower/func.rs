//! Per-function lowering state: parameters, locals, the prologue, and value bookkeeping.

use super::ModCx;
use crate::ir::{self, Inst, Op, Span, TypeId, ValueId};
use crate::{DiagKind, Diagnostic};
use naga::valid::FunctionInfo;
use naga::{Expression, Handle, Statement};
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// Lowers one naga function (regular or entry point) named `name`, declared at `span`.
pub(super) fn lower_function<'m>(
    cx: &mut ModCx<'m>,
    fun: &'m naga::Function,
    info: &'m FunctionInfo,
    name: String,
    span: Span,
) -> Result<ir::Function, Diagnostic> {
    let mut l = FnLowerer::new(cx, fun, info, name, span);
    l.params()?;
    l.locals()?;
    let term = l.stmts(&fun.body)?;
    let term = term.unwrap_or(if fun.result.is_none() {
        ir::Terminator::Return(None)
    } else {
        // naga's validator only lets a value-returning function reach its end when that end
        // cannot execute (after an infinite loop, say).
        ir::Terminator::Unreachable
    });
    let mut insts = std::mem::take(&mut l.prologue);
    insts.append(&mut l.cur);
    l.out.body = ir::Block { params: Vec::new(), insts, term };
    l.out.result = match &fun.result {
        Some(r) => Some(ir::FnResult {
            ty: l.cx.tl.handle(r.ty).map_err(|d| l.fix(d, span))?,
            binding: r.binding.as_ref().map(super::types::io_binding),
        }),
        None => None,
    };
    Ok(l.out)
}

/// The span covering a function's top-level statements (entry points have no span of their
/// own in naga).
pub(super) fn body_span(fun: &naga::Function) -> Span {
    let mut out: Option<Span> = None;
    for (_, s) in fun.body.span_iter() {
        let s = Span::from(*s);
        if s.is_unknown() {
            continue;
        }
        out = Some(match out {
            Some(o) => Span { start: o.start.min(s.start), end: o.end.max(s.end) },
            None => s,
        });
    }
    out.unwrap_or_default()
}

/// The state of lowering one function.
pub(super) struct FnLowerer<'a, 'm> {
    /// Module-wide state.
    pub cx: &'a mut ModCx<'m>,
    /// The naga function.
    pub fun: &'m naga::Function,
    /// naga's analysis of it (expression types).
    pub info: &'m FunctionInfo,
    /// Its name, for diagnostics.
    pub name: String,
    /// The function being built (values, params, locals).
    pub out: ir::Function,
    /// The IR value of each naga expression, once lowered.
    pub values: Vec<Option<ValueId>>,
    /// Whether each naga expression is inside some `Emit` range.
    pub emitted: Vec<bool>,
    /// naga's classification of expressions as constant, override or runtime.
    pub kinds: naga::proc::ExpressionKindTracker,
    /// Instructions at the top of the body: local addresses and initializers, constants and
    /// other expressions naga evaluates before any statement.
    pub prologue: Vec<Inst>,
    /// Instructions of the block being lowered.
    pub cur: Vec<Inst>,
    /// `LocalAddr` of each local variable.
    pub local_addrs: Vec<ValueId>,
    /// `GlobalAddr` of each global variable used so far, by naga global index.
    pub global_addrs: HashMap<usize, ValueId>,
    /// For each enclosing loop/switch (innermost last): whether a `break` reached it.
    pub break_targets: Vec<bool>,
    /// Span of the statement being lowered (fallback for expressions without one).
    pub stmt_span: Span,
    /// The function's span (last fallback).
    pub fn_span: Span,
}

impl<'a, 'm> FnLowerer<'a, 'm> {
    fn new(
        cx: &'a mut ModCx<'m>,
        fun: &'m naga::Function,
        info: &'m FunctionInfo,
        name: String,
        span: Span,
    ) -> Self {
        let n = fun.expressions.len();
        let mut emitted = vec![false; n];
        mark_emitted(&fun.body, &mut emitted);
        FnLowerer {
            cx,
            fun,
            info,
            out: ir::Function {
                name: name.clone(),
                params: Vec::new(),
                result: None,
                values: Vec::new(),
                locals: Vec::new(),
                body: ir::Block::default(),
                bounds: Default::default(),
                span,
            },
            name,
            values: vec![None; n],
            emitted,
            kinds: naga::proc::ExpressionKindTracker::from_arena(&fun.expressions),
            prologue: Vec::new(),
            cur: Vec::new(),
            local_addrs: Vec::new(),
            global_addrs: HashMap::default(),
            break_targets: Vec::new(),
            stmt_span: Span::default(),
            fn_span: span,
        }
    }

    /// Adds the function's context and, when missing, `span` to a diagnostic.
    pub fn fix(&self, d: Diagnostic, span: Span) -> Diagnostic {
        let d = if d.span.is_none() { d.at(span) } else { d };
        if d.context.is_none() {
            d.in_fn(self.name.clone())
        } else {
            d
        }
    }

    /// An error of `kind` at `span` in this function.
    pub fn error(
        &self,
        kind: DiagKind,
        msg: impl Into<String>,
        span: Span,
        help: &str,
    ) -> Diagnostic {
        Diagnostic::error(kind, msg).at(span).in_fn(self.name.clone()).help(help)
    }

    /// An internal error: the naga module broke an invariant the lowering relies on.
    pub fn internal(&self, msg: impl Into<String>, span: Span) -> Diagnostic {
        self.error(
            DiagKind::Internal,
            msg,
            span,
            "report this as a dianran bug together with the shader",
        )
    }

    /// The source span of expression `h`, falling back to the statement and the function.
    pub fn expr_span(&self, h: Handle<Expression>) -> Span {
        let s = Span::from(self.fun.expressions.get_span(h));
        if !s.is_unknown() {
            s
        } else if !self.stmt_span.is_unknown() {
            self.stmt_span
        } else {
            self.fn_span
        }
    }

    /// The IR type of expression `h` (from naga's analysis).
    pub fn ty_of(&mut self, h: Handle<Expression>) -> Result<TypeId, Diagnostic> {
        let span = self.expr_span(h);
        let info = self.info;
        self.cx.tl.resolution(&info[h].ty).map_err(|d| self.fix(d, span))
    }

    /// naga's type of expression `h`.
    pub fn inner_of(&self, h: Handle<Expression>) -> &'m naga::TypeInner {
        let info: &'m FunctionInfo = self.info;
        let module: &'m naga::Module = self.cx.module;
        info[h].ty.inner_with(&module.types)
    }

    /// Appends an instruction to the current block (or the prologue); returns its result.
    pub fn push(
        &mut self,
        op: Op,
        ty: Option<TypeId>,
        name: Option<String>,
        span: Span,
        prologue: bool,
    ) -> Option<ValueId> {
        let result = ty.map(|t| self.out.new_value(t, name));
        let inst = Inst { result, op, span };
        if prologue {
            self.prologue.push(inst);
        } else {
            self.cur.push(inst);
        }
        result
    }

    /// Defines the value of expression `h` as the result of `op` and caches it.
    pub fn define(
        &mut self,
        h: Handle<Expression>,
        op: Op,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let ty = self.ty_of(h)?;
        self.define_typed(h, op, ty, prologue)
    }

    /// Like [`FnLowerer::define`] with an explicit type.
    pub fn define_typed(
        &mut self,
        h: Handle<Expression>,
        op: Op,
        ty: TypeId,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let name = self.fun.named_expressions.get(&h).cloned();
        let span = self.expr_span(h);
        let v = self
            .push(op, Some(ty), name, span, prologue)
            .ok_or_else(|| self.internal("instruction without a result", span))?;
        self.set_value(h, v);
        Ok(v)
    }

    /// Records `v` as the value of expression `h`.
    pub fn set_value(&mut self, h: Handle<Expression>, v: ValueId) {
        if let Some(slot) = self.values.get_mut(h.index()) {
            *slot = Some(v);
        }
    }

    /// Creates the parameters.
    fn params(&mut self) -> Result<(), Diagnostic> {
        let fun = self.fun;
        for (i, arg) in fun.arguments.iter().enumerate() {
            let ty = self.cx.tl.handle(arg.ty).map_err(|d| self.fix(d, self.fn_span))?;
            let name = arg.name.clone().unwrap_or_else(|| format!("arg{i}"));
            let value = self.out.new_value(ty, Some(name.clone()));
            self.out.params.push(ir::Param {
                name,
                value,
                binding: arg.binding.as_ref().map(super::types::io_binding),
            });
        }
        Ok(())
    }

    /// Creates the locals, their addresses and their initializing stores, in declaration
    /// order, at the top of the body.
    fn locals(&mut self) -> Result<(), Diagnostic> {
        let fun = self.fun;
        // naga's own temporaries (the result of `a && b` and `a || b`) have no name; one that
        // a `let` reads takes the `let`'s name, so that `let x = a && b;` keeps `x` once the
        // temporary becomes a value (and printed WGSL reads back to the same names).
        let mut let_names: HashMap<Handle<naga::LocalVariable>, String> = HashMap::default();
        for (e, name) in &fun.named_expressions {
            if let naga::Expression::Load { pointer } = fun.expressions[*e] {
                if let naga::Expression::LocalVariable(l) = fun.expressions[pointer] {
                    if fun.local_variables[l].name.is_none() {
                        let_names.entry(l).or_insert_with(|| name.clone());
                    }
                }
            }
        }
        for (h, local) in fun.local_variables.iter() {
            let span = Span::from(fun.local_variables.get_span(h));
            let span = if span.is_unknown() { self.fn_span } else { span };
            let ty = self.cx.tl.handle(local.ty).map_err(|d| self.fix(d, span))?;
            let name = local
                .name
                .clone()
                .or_else(|| let_names.get(&h).cloned())
                .unwrap_or_else(|| format!("local{}", h.index()));
            let id = ir::LocalId(self.out.locals.len() as u32);
            self.out.locals.push(ir::Local { name: name.clone(), ty, span });
            let ptr_ty = self
                .cx
                .tl
                .intern(ir::Type::Pointer { base: ty, space: ir::AddressSpace::Function });
            let addr = self
                .push(Op::LocalAddr(id), Some(ptr_ty), Some(name), span, true)
                .ok_or_else(|| self.internal("local address without a result", span))?;
            self.local_addrs.push(addr);
            let value = match local.init {
                Some(init) => self.value(init)?,
                None => {
                    let zero = ir::ConstValue::Zero(ty);
                    self.push(Op::Const(zero), Some(ty), None, span, true)
                        .ok_or_else(|| self.internal("constant without a result", span))?
                }
            };
            self.push(Op::Store { ptr: addr, value }, None, None, span, true);
        }
        Ok(())
    }
}

/// Marks every expression inside an `Emit` range of `block` (recursively).
fn mark_emitted(block: &naga::Block, emitted: &mut [bool]) {
    for stmt in block.iter() {
        match stmt {
            Statement::Emit(range) => {
                for h in range.clone() {
                    if let Some(e) = emitted.get_mut(h.index()) {
                        *e = true;
                    }
                }
            }
            Statement::Block(b) => mark_emitted(b, emitted),
            Statement::If { accept, reject, .. } => {
                mark_emitted(accept, emitted);
                mark_emitted(reject, emitted);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    mark_emitted(&c.body, emitted);
                }
            }
            Statement::Loop { body, continuing, .. } => {
                mark_emitted(body, emitted);
                mark_emitted(continuing, emitted);
            }
            _ => {}
        }
    }
}
