//! The SSA verifier: checks that a [`Module`] keeps the invariants of [`crate::ir`].
//!
//! Every pass output is run through [`verify`] in debug builds and tests, so a pass that breaks
//! the form is caught where it happens rather than in a backend. The verifier never panics on
//! malformed IR: every handle is bounds-checked before it is followed.
//!
//! Invariants checked:
//! * Handles are in range: types referenced by values, types, globals, locals and constants;
//!   value ids; local, global and function ids; entry points name existing functions.
//! * Every [`ValueId`] is defined exactly once: as a function parameter, a block parameter, an
//!   instruction result or a region result.
//! * Every use is dominated by its definition under the structured rules: a value is visible
//!   later in its block and in regions nested there; a loop's continuing block also sees the
//!   values defined at the top level of the loop body before its first instruction that may
//!   `continue` ([`Block::insts_before_continue`]); region results are visible after the
//!   region instruction only. `break_if` must be a visible `bool` at the end of the continuing
//!   block.
//! * Operand and result types per operation: unary/binary operand shapes (component-wise ops
//!   on equal types, the linear-algebra forms of `*`, shifts by `u32` of the same shape),
//!   comparisons yield `bool` of the operand's shape, `select`, `compose` (count and types),
//!   `splat`, static extract/insert indices in range, swizzles, conversions and bitcasts
//!   (same bit size), math arity, pointer operands of loads, stores, accesses and atomics,
//!   a cooperative load's or store's `limit` is a `u32`,
//!   call arguments against the callee's parameters, and whether an instruction has a result.
//! * Region structure: only loop body and continuing blocks have params; `Yield` arity and
//!   types match the region (`If`/`Switch`/`Inline` results, loop state); `Break` only inside a
//!   `Loop` body or a `Switch`, `Continue` only inside a loop body (not its continuing block),
//!   neither crossing an `Inline` boundary; loop `init`, body params, continuing params and
//!   results all have the same types; the top-level function body never ends in `Yield`;
//!   `Return` values match the function result or the innermost `Inline` region's results;
//!   a `Switch` has exactly one `default` and no repeated selector value.

// `Diagnostic` is the project's error type everywhere; boxing it here alone would not help.
#![allow(clippy::result_large_err)]

use crate::ir::*;
use crate::{DiagKind, Diagnostic};
use std::collections::HashSet;

/// Checks every invariant listed in the module doc; the error names the function, the rule and
/// the offending value, with the span of the offending instruction when it has one.
pub fn verify(m: &Module) -> Result<(), Diagnostic> {
    check_types(m)?;
    for (i, e) in m.entry_points.iter().enumerate() {
        if e.function.index() >= m.functions.len() {
            return Err(internal(format!(
                "entry point {i} '{}' refers to missing function {}",
                e.name, e.function
            ))
            .in_fn(e.name.clone()));
        }
    }
    for (i, g) in m.globals.iter().enumerate() {
        if g.ty.index() >= m.types.len() {
            return Err(internal(format!("global g{i} '{}' has missing type {}", g.name, g.ty)));
        }
    }
    for (i, c) in m.constants.iter().enumerate() {
        if c.ty.index() >= m.types.len() {
            return Err(internal(format!("constant c{i} '{}' has missing type {}", c.name, c.ty)));
        }
    }
    // Signatures and value types first: calls look at other functions' types.
    for (i, f) in m.functions.iter().enumerate() {
        FnVerifier::new(m, FuncId(i as u32), f).check_handles()?;
    }
    for (i, f) in m.functions.iter().enumerate() {
        FnVerifier::new(m, FuncId(i as u32), f).run()?;
    }
    Ok(())
}

fn internal(msg: String) -> Diagnostic {
    Diagnostic::error(DiagKind::Internal, format!("invalid SSA: {msg}"))
        .help("this is a bug in dianran; please report it together with the input file")
}

/// Checks that every type handle inside the type table points into it, so later lookups of
/// nested types cannot go out of range.
fn check_types(m: &Module) -> Result<(), Diagnostic> {
    let n = m.types.len();
    for (id, ty) in m.types.iter() {
        let bad = match ty {
            Type::Array { base, .. } | Type::Pointer { base, .. } => base.index() >= n,
            Type::Struct { members, .. } => members.iter().any(|mem| mem.ty.index() >= n),
            _ => false,
        };
        if bad {
            return Err(internal(format!("type {id} refers to a missing type")));
        }
    }
    Ok(())
}

/// What a `Yield` at the end of a block passes its values to.
#[derive(Clone)]
enum YieldTo {
    /// The top-level function body: `Yield` is not allowed.
    Function,
    /// A region whose results (or loop state) have these types.
    Region(Vec<TypeId>),
}

/// An enclosing region that `Break`, `Continue` or `Return` may target.
enum Frame {
    Loop { state: Vec<TypeId>, in_continuing: bool },
    Switch { results: Vec<TypeId> },
    Inline { results: Vec<TypeId> },
}

type R = Result<(), Diagnostic>;

struct FnVerifier<'a> {
    m: &'a Module,
    f: &'a Function,
    fid: FuncId,
    defined: Vec<bool>,
    visible: Vec<bool>,
    /// Values made visible, in order, so a scope can be closed by truncating.
    log: Vec<ValueId>,
    frames: Vec<Frame>,
    /// Span of the instruction being checked (for errors).
    span: Span,
}

impl<'a> FnVerifier<'a> {
    fn new(m: &'a Module, fid: FuncId, f: &'a Function) -> Self {
        let n = f.values.len();
        FnVerifier {
            m,
            f,
            fid,
            defined: vec![false; n],
            visible: vec![false; n],
            log: Vec::new(),
            frames: Vec::new(),
            span: Span::default(),
        }
    }

    fn err(&self, msg: impl Into<String>) -> Diagnostic {
        internal(format!("function {} '{}': {}", self.fid, self.f.name, msg.into()))
            .at(self.span)
            .in_fn(self.f.name.clone())
    }

    /// Range-checks the type handles of the function's values, locals and result.
    fn check_handles(&self) -> R {
        for (i, v) in self.f.values.iter().enumerate() {
            if v.ty.index() >= self.m.types.len() {
                return Err(self.err(format!("value %{i} has missing type {}", v.ty)));
            }
        }
        for (i, l) in self.f.locals.iter().enumerate() {
            if l.ty.index() >= self.m.types.len() {
                return Err(self.err(format!("local l{i} '{}' has missing type {}", l.name, l.ty)));
            }
        }
        if let Some(r) = &self.f.result {
            if r.ty.index() >= self.m.types.len() {
                return Err(self.err(format!("function result has missing type {}", r.ty)));
            }
        }
        Ok(())
    }

    fn run(mut self) -> R {
        self.span = self.f.span;
        for p in &self.f.params {
            self.define(p.value)?;
        }
        if !self.f.body.params.is_empty() {
            return Err(self.err("the function body block has params"));
        }
        self.block(&self.f.body, &YieldTo::Function)
    }

    // ---- values ----

    fn define(&mut self, v: ValueId) -> R {
        let Some(d) = self.defined.get_mut(v.index()) else {
            return Err(self.err(format!("value {v} is out of range (definition)")));
        };
        if *d {
            return Err(self.err(format!("value {v} is defined more than once")));
        }
        *d = true;
        self.visible[v.index()] = true;
        self.log.push(v);
        Ok(())
    }

    fn close_scope(&mut self, mark: usize) {
        for v in self.log.drain(mark..) {
            self.visible[v.index()] = false;
        }
    }

    /// Checks a use and returns the value's type.
    fn use_(&self, v: ValueId, what: &str) -> Result<TypeId, Diagnostic> {
        match self.visible.get(v.index()) {
            None => Err(self.err(format!("{what} uses value {v}, which is out of range"))),
            Some(false) => Err(self.err(format!(
                "{what} uses value {v}, which is not defined before this use or does not \
                 dominate it"
            ))),
            Some(true) => Ok(self.f.values[v.index()].ty),
        }
    }

    fn tyof(&self, v: ValueId) -> TypeId {
        self.f.values[v.index()].ty
    }

    fn ty(&self, t: TypeId) -> &'a Type {
        self.m.types.get(t)
    }

    fn tname(&self, t: TypeId) -> String {
        crate::text::type_name(&self.m.types, t)
    }

    fn same(&self, a: TypeId, b: TypeId, what: &str) -> R {
        if a == b || self.ty(a) == self.ty(b) {
            Ok(())
        } else {
            Err(self.err(format!(
                "{what}: type {} does not match {}",
                self.tname(a),
                self.tname(b)
            )))
        }
    }

    fn want(&self, got: TypeId, want: &Type, what: &str) -> R {
        if self.ty(got) == want {
            Ok(())
        } else {
            Err(self.err(format!("{what}: has type {}, expected {:?}", self.tname(got), want)))
        }
    }

    fn types_match(&self, vals: &[ValueId], tys: &[TypeId], what: &str) -> R {
        if vals.len() != tys.len() {
            return Err(self.err(format!(
                "{what} passes {} values, the target expects {}",
                vals.len(),
                tys.len()
            )));
        }
        for (i, (&v, &t)) in vals.iter().zip(tys).enumerate() {
            let vt = self.use_(v, what)?;
            self.same(vt, t, &format!("{what}, value {i} ({v})"))?;
        }
        Ok(())
    }

    // ---- blocks ----

    /// Checks a block whose params the caller has already defined; closes nothing (the caller
    /// owns the scope so a loop body's values can stay visible in its continuing block).
    fn block_insts(&mut self, b: &Block, yield_to: &YieldTo) -> R {
        for inst in &b.insts {
            self.span = inst.span;
            self.inst(inst)?;
        }
        self.terminator(&b.term, yield_to)
    }

    fn block(&mut self, b: &Block, yield_to: &YieldTo) -> R {
        let mark = self.log.len();
        for &p in &b.params {
            self.define(p)?;
        }
        self.block_insts(b, yield_to)?;
        self.close_scope(mark);
        Ok(())
    }

    fn terminator(&mut self, t: &Terminator, yield_to: &YieldTo) -> R {
        match t {
            Terminator::Unreachable | Terminator::Discard => Ok(()),
            Terminator::Yield(args) => match yield_to {
                YieldTo::Function => {
                    Err(self.err("the top-level function body ends in `yield` (expected `return`)"))
                }
                YieldTo::Region(tys) => self.types_match(args, tys, "yield"),
            },
            Terminator::Break(args) => {
                let target = self.frames.last().map(|fr| match fr {
                    Frame::Loop { state, in_continuing } => Ok((state, *in_continuing)),
                    Frame::Switch { results } => Ok((results, false)),
                    Frame::Inline { .. } => Err(()),
                });
                match target {
                    Some(Ok((_, true))) => {
                        Err(self.err("`break` in a loop's continuing block (use `break_if`)"))
                    }
                    Some(Ok((tys, false))) => self.types_match(args, tys, "break"),
                    _ => Err(self.err("`break` outside a loop or switch")),
                }
            }
            Terminator::Continue(args) => {
                let target = self.frames.iter().rev().find_map(|fr| match fr {
                    Frame::Loop { state, in_continuing } => Some(Ok((state, *in_continuing))),
                    Frame::Switch { .. } => None,
                    Frame::Inline { .. } => Some(Err(())),
                });
                match target {
                    Some(Ok((_, true))) => Err(self.err("`continue` in a loop's continuing block")),
                    Some(Ok((tys, false))) => self.types_match(args, tys, "continue"),
                    _ => Err(self.err("`continue` outside a loop")),
                }
            }
            Terminator::Return(v) => {
                let inline = self.frames.iter().rev().find_map(|fr| match fr {
                    Frame::Inline { results } => Some(results.clone()),
                    _ => None,
                });
                let expected: Vec<TypeId> = match inline {
                    Some(r) => r,
                    None => self.f.result.iter().map(|r| r.ty).collect(),
                };
                let got: Vec<ValueId> = v.iter().copied().collect();
                self.types_match(&got, &expected, "return")
            }
        }
    }

    // ---- instructions ----

    fn inst(&mut self, inst: &Inst) -> R {
        let mut operands = Vec::new();
        inst.op.for_each_operand(|v| operands.push(v));
        // `break_if` belongs to the continuing block and is checked there.
        for &v in &operands {
            self.use_(v, "instruction")?;
        }
        let produces = self.op_types(inst)?;
        match (produces, inst.result) {
            (Produces::Nothing, Some(r)) => {
                return Err(self.err(format!("instruction has a result {r} but produces none")))
            }
            (Produces::Value, None) => {
                return Err(self.err("instruction produces a value but has no result"))
            }
            _ => {}
        }
        match &inst.op {
            Op::If { then_, else_, results, .. } => {
                let tys = self.result_types(results)?;
                for arm in [then_, else_] {
                    if !arm.params.is_empty() {
                        return Err(self.err("an `if` arm has block params"));
                    }
                    self.block(arm, &YieldTo::Region(tys.clone()))?;
                }
                for &r in results {
                    self.define(r)?;
                }
            }
            Op::Switch { cases, results, .. } => {
                let tys = self.result_types(results)?;
                self.frames.push(Frame::Switch { results: tys.clone() });
                for c in cases {
                    if !c.body.params.is_empty() {
                        self.frames.pop();
                        return Err(self.err("a `switch` arm has block params"));
                    }
                    let r = self.block(&c.body, &YieldTo::Region(tys.clone()));
                    if r.is_err() {
                        self.frames.pop();
                        return r;
                    }
                }
                self.frames.pop();
                for &r in results {
                    self.define(r)?;
                }
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let state = self.result_types(results)?;
                self.types_match(init, &state, "loop init")?;
                for (what, params) in [("body", &body.params), ("continuing", &continuing.params)] {
                    let ptys = self.result_types(params)?;
                    if ptys.len() != state.len()
                        || ptys.iter().zip(&state).any(|(&a, &b)| self.ty(a) != self.ty(b))
                    {
                        return Err(self.err(format!(
                            "loop {what} params do not match the loop's results (carried state)"
                        )));
                    }
                }
                let mark = self.log.len();
                self.frames.push(Frame::Loop { state: state.clone(), in_continuing: false });
                let mut r = (|| {
                    for &p in &body.params {
                        self.define(p)?;
                    }
                    self.block_insts(body, &YieldTo::Region(state.clone()))
                })();
                if r.is_ok() {
                    if let Some(Frame::Loop { in_continuing, .. }) = self.frames.last_mut() {
                        *in_continuing = true;
                    }
                    // The continuing block sees the body's top-level values defined on every
                    // path to it: those before the first instruction that may `continue`.
                    for i in &body.insts[body.insts_before_continue()..] {
                        for v in i.result.iter().chain(i.op.region_results()) {
                            if let Some(x) = self.visible.get_mut(v.index()) {
                                *x = false;
                            }
                        }
                    }
                    r = (|| {
                        let cmark = self.log.len();
                        for &p in &continuing.params {
                            self.define(p)?;
                        }
                        self.block_insts(continuing, &YieldTo::Region(state.clone()))?;
                        if let Some(b) = break_if {
                            self.span = inst.span;
                            let t = self.use_(*b, "break_if")?;
                            self.want(t, &Type::Scalar(Scalar::Bool), "break_if")?;
                        }
                        self.close_scope(cmark);
                        Ok(())
                    })();
                }
                self.frames.pop();
                r?;
                self.close_scope(mark);
                for &r in results {
                    self.define(r)?;
                }
            }
            Op::Inline { callee, body, args, results } => {
                let rtys = self.result_types(results)?;
                if results.len() > 1 {
                    return Err(self.err("an `inline` region has more than one result"));
                }
                if let Some(cf) = self.m.functions.get(callee.index()) {
                    let want = cf.result.as_ref().map(|r| r.ty);
                    let got = rtys.first().copied();
                    let ok = match (want, got) {
                        (None, None) => true,
                        (Some(a), Some(b)) => self.ty(a) == self.ty(b),
                        _ => false,
                    };
                    if !ok {
                        return Err(self.err(format!(
                            "`inline` of {callee}: results do not match the callee's result"
                        )));
                    }
                } else {
                    return Err(self.err(format!("`inline` of missing function {callee}")));
                }
                let ptys = self.result_types(&body.params)?;
                self.types_match(args, &ptys, "inline arguments")?;
                self.frames.push(Frame::Inline { results: rtys.clone() });
                let r = self.block(body, &YieldTo::Region(rtys));
                self.frames.pop();
                r?;
                for &r in results {
                    self.define(r)?;
                }
            }
            _ => {}
        }
        self.span = inst.span;
        if let Some(r) = inst.result {
            self.define(r)?;
        }
        Ok(())
    }

    /// Types of values that are about to be defined (range-checked).
    fn result_types(&self, vals: &[ValueId]) -> Result<Vec<TypeId>, Diagnostic> {
        vals.iter()
            .map(|&v| match self.f.values.get(v.index()) {
                Some(d) => Ok(d.ty),
                None => Err(self.err(format!("value {v} is out of range (definition)"))),
            })
            .collect()
    }

    fn result_ty(&self, inst: &Inst) -> Result<TypeId, Diagnostic> {
        match inst.result {
            Some(r) => match self.f.values.get(r.index()) {
                Some(d) => Ok(d.ty),
                None => Err(self.err(format!("result {r} is out of range"))),
            },
            None => Err(self.err("instruction produces a value but has no result")),
        }
    }

    fn pointee(&self, p: ValueId, what: &str) -> Result<(TypeId, AddressSpace), Diagnostic> {
        match *self.ty(self.tyof(p)) {
            Type::Pointer { base, space } => Ok((base, space)),
            _ => Err(self.err(format!(
                "{what}: operand {p} is not a pointer (type {})",
                self.tname(self.tyof(p))
            ))),
        }
    }

    /// The element type of a composite at static `index`, if in range.
    fn element(&self, t: TypeId, index: Option<u32>) -> Option<Type> {
        let ok = |n: u32| index.is_none_or(|i| i < n);
        match self.ty(t) {
            Type::Vector { size, scalar } if ok(*size as u32) => Some(Type::Scalar(*scalar)),
            Type::Matrix { columns, rows, scalar } if ok(*columns as u32) => {
                Some(Type::Vector { size: *rows, scalar: *scalar })
            }
            Type::Array { base, len, .. } if len.is_none_or(ok) => Some(self.ty(*base).clone()),
            Type::Struct { members, .. } => match index {
                Some(i) => members.get(i as usize).map(|mem| self.ty(mem.ty).clone()),
                None => None,
            },
            _ => None,
        }
    }

    fn is_index(&self, v: ValueId) -> bool {
        matches!(self.ty(self.tyof(v)), Type::Scalar(Scalar::I32 | Scalar::U32))
    }

    /// Checks operand types and the result type of one instruction; returns whether the
    /// operation produces a value.
    fn op_types(&self, inst: &Inst) -> Result<Produces, Diagnostic> {
        let res = || self.result_ty(inst);
        let t = |v: ValueId| self.ty(self.tyof(v));
        Ok(match &inst.op {
            Op::Const(c) => {
                let r = res()?;
                if !self.const_fits(c, r, 0) {
                    return Err(self
                        .err(format!("constant does not fit its result type {}", self.tname(r))));
                }
                Produces::Value
            }
            Op::Unary(op, a) => {
                let ok = match (op, shape(t(*a))) {
                    (UnaryOperator::Negate, Some((_, s))) => {
                        s.is_float() || s.is_signed() || matches!(t(*a), Type::Matrix { .. })
                    }
                    (UnaryOperator::LogicalNot, Some((_, Scalar::Bool))) => true,
                    (UnaryOperator::BitwiseNot, Some((_, s))) => s.is_int(),
                    _ => false,
                };
                if !ok {
                    return Err(self
                        .err(format!("{op:?} on operand of type {}", self.tname(self.tyof(*a)))));
                }
                self.same(res()?, self.tyof(*a), "unary result")?;
                Produces::Value
            }
            Op::Binary(op, a, b) => {
                self.binary(*op, *a, *b, res()?)?;
                Produces::Value
            }
            Op::Select { cond, accept, reject } => {
                self.same(self.tyof(*accept), self.tyof(*reject), "select operands")?;
                let ok = match (t(*cond), t(*accept)) {
                    (Type::Scalar(Scalar::Bool), _) => true,
                    (
                        Type::Vector { size: n, scalar: Scalar::Bool },
                        Type::Vector { size: m, .. },
                    ) => n == m,
                    _ => false,
                };
                if !ok {
                    return Err(self.err(format!(
                        "select condition {cond} is not bool or a bool vector of the operands' size"
                    )));
                }
                self.same(res()?, self.tyof(*accept), "select result")?;
                Produces::Value
            }
            Op::Compose(parts) => {
                self.compose(parts, res()?)?;
                Produces::Value
            }
            Op::Splat(a) => {
                let ok = match (t(*a), self.ty(res()?)) {
                    (Type::Scalar(s), Type::Vector { scalar, .. }) => s == scalar,
                    _ => false,
                };
                if !ok {
                    return Err(self.err("splat of a non-scalar or to a non-vector"));
                }
                Produces::Value
            }
            Op::Extract(a, i) => {
                match self.element(self.tyof(*a), Some(*i)) {
                    Some(e) => self.want(res()?, &e, "extract result")?,
                    None => {
                        return Err(self.err(format!(
                            "extract index {i} out of range for {}",
                            self.tname(self.tyof(*a))
                        )))
                    }
                }
                Produces::Value
            }
            Op::ExtractDyn(a, i) => {
                if matches!(t(*a), Type::Struct { .. }) || !self.is_index(*i) {
                    return Err(
                        self.err("dynamic extract from a struct or with a non-integer index")
                    );
                }
                match self.element(self.tyof(*a), None) {
                    Some(e) => self.want(res()?, &e, "extract_dyn result")?,
                    None => return Err(self.err("dynamic extract from a non-composite")),
                }
                Produces::Value
            }
            Op::Insert { base, index, value } => {
                match self.element(self.tyof(*base), Some(*index)) {
                    Some(e) => self.want(self.tyof(*value), &e, "inserted value")?,
                    None => {
                        return Err(self.err(format!(
                            "insert index {index} out of range for {}",
                            self.tname(self.tyof(*base))
                        )))
                    }
                }
                self.same(res()?, self.tyof(*base), "insert result")?;
                Produces::Value
            }
            Op::InsertDyn { base, index, value } => {
                if matches!(t(*base), Type::Struct { .. }) || !self.is_index(*index) {
                    return Err(
                        self.err("dynamic insert into a struct or with a non-integer index")
                    );
                }
                match self.element(self.tyof(*base), None) {
                    Some(e) => self.want(self.tyof(*value), &e, "inserted value")?,
                    None => return Err(self.err("dynamic insert into a non-composite")),
                }
                self.same(res()?, self.tyof(*base), "insert_dyn result")?;
                Produces::Value
            }
            Op::Swizzle(a, pattern) => {
                let Type::Vector { size, scalar } = *t(*a) else {
                    return Err(self.err("swizzle of a non-vector"));
                };
                if !(2..=4).contains(&pattern.len()) || pattern.iter().any(|&c| c >= size) {
                    return Err(self.err(format!("swizzle pattern {pattern:?} out of range")));
                }
                let want = Type::Vector { size: pattern.len() as u8, scalar };
                self.want(res()?, &want, "swizzle result")?;
                Produces::Value
            }
            Op::Convert(a, to) => {
                let want = match *t(*a) {
                    Type::Scalar(_) => Type::Scalar(*to),
                    Type::Vector { size, .. } => Type::Vector { size, scalar: *to },
                    Type::Matrix { columns, rows, .. } => {
                        Type::Matrix { columns, rows, scalar: *to }
                    }
                    _ => return Err(self.err("conversion of a non-numeric value")),
                };
                self.want(res()?, &want, "convert result")?;
                Produces::Value
            }
            Op::Bitcast(a) => {
                let r = res()?;
                match (bits(t(*a)), bits(self.ty(r))) {
                    (Some(x), Some(y)) if x == y => {}
                    _ => {
                        return Err(self.err(format!(
                            "bitcast from {} to {} (sizes differ or not numeric)",
                            self.tname(self.tyof(*a)),
                            self.tname(r)
                        )))
                    }
                }
                Produces::Value
            }
            Op::Math(fun, args) => {
                if args.len() != fun.argument_count() {
                    return Err(self.err(format!(
                        "math {fun:?} takes {} arguments, has {}",
                        fun.argument_count(),
                        args.len()
                    )));
                }
                use MathFunction as M;
                if matches!(
                    fun,
                    M::Abs
                        | M::Min
                        | M::Max
                        | M::Clamp
                        | M::Saturate
                        | M::Sign
                        | M::Fma
                        | M::Floor
                        | M::Ceil
                        | M::Round
                        | M::Trunc
                        | M::Fract
                        | M::Sqrt
                        | M::CountOneBits
                        | M::ReverseBits
                        | M::CountLeadingZeros
                        | M::CountTrailingZeros
                        | M::FirstLeadingBit
                        | M::FirstTrailingBit
                ) {
                    self.same(res()?, self.tyof(args[0]), "math result")?;
                    for &x in &args[1..] {
                        self.same(self.tyof(x), self.tyof(args[0]), "math argument")?;
                    }
                }
                Produces::Value
            }
            Op::Relational(fun, a) => {
                let want = match (fun, shape(t(*a))) {
                    (
                        RelationalFunction::All | RelationalFunction::Any,
                        Some((_, Scalar::Bool)),
                    ) => Type::Scalar(Scalar::Bool),
                    (RelationalFunction::IsNan | RelationalFunction::IsInf, Some((size, s)))
                        if s.is_float() =>
                    {
                        bool_shape(size)
                    }
                    _ => return Err(self.err(format!("{fun:?} on a wrong operand type"))),
                };
                self.want(res()?, &want, "relational result")?;
                Produces::Value
            }
            Op::Derivative(_, _, a) => {
                self.same(res()?, self.tyof(*a), "derivative result")?;
                Produces::Value
            }
            Op::GlobalAddr(g) => {
                let Some(gl) = self.m.globals.get(g.index()) else {
                    return Err(self.err(format!("global_addr of missing global {g}")));
                };
                let r = res()?;
                if gl.space == AddressSpace::Handle {
                    self.same(r, gl.ty, "global_addr of a handle")?;
                } else {
                    self.want(r, &Type::Pointer { base: gl.ty, space: gl.space }, "global_addr")?;
                }
                Produces::Value
            }
            Op::LocalAddr(l) => {
                let Some(lo) = self.f.locals.get(l.index()) else {
                    return Err(self.err(format!("local_addr of missing local {l}")));
                };
                let want = Type::Pointer { base: lo.ty, space: AddressSpace::Function };
                self.ptr_to(res()?, &want, "local_addr")?;
                Produces::Value
            }
            Op::AccessIndex(p, i) => {
                let (base, space) = self.pointee(*p, "access_index")?;
                let Some(e) = self.element(base, Some(*i)) else {
                    return Err(
                        self.err(format!("access_index {i} out of range for {}", self.tname(base)))
                    );
                };
                self.ptr_elem(res()?, &e, space, "access_index")?;
                Produces::Value
            }
            Op::Access(p, i) => {
                let (base, space) = self.pointee(*p, "access")?;
                if !self.is_index(*i) {
                    return Err(self.err(format!("access index {i} is not an integer")));
                }
                let Some(e) = self.element(base, None) else {
                    return Err(self.err(format!("access into {}", self.tname(base))));
                };
                self.ptr_elem(res()?, &e, space, "access")?;
                Produces::Value
            }
            Op::Load(p) => {
                let (base, _) = self.pointee(*p, "load")?;
                let want = match *self.ty(base) {
                    Type::Atomic(s) => Type::Scalar(s),
                    ref other => other.clone(),
                };
                self.want(res()?, &want, "load result")?;
                Produces::Value
            }
            Op::Store { ptr, value } => {
                let (base, _) = self.pointee(*ptr, "store")?;
                let want = match *self.ty(base) {
                    Type::Atomic(s) => Type::Scalar(s),
                    ref other => other.clone(),
                };
                self.want(self.tyof(*value), &want, "stored value")?;
                Produces::Nothing
            }
            Op::Atomic { ptr, value, .. } => {
                let s = self.atomic_scalar(*ptr)?;
                self.want(self.tyof(*value), &Type::Scalar(s), "atomic operand")?;
                if inst.result.is_some() {
                    self.want(res()?, &Type::Scalar(s), "atomic result")?;
                }
                Produces::Maybe
            }
            Op::AtomicCompareExchange { ptr, compare, value } => {
                let s = self.atomic_scalar(*ptr)?;
                self.want(self.tyof(*compare), &Type::Scalar(s), "compare-exchange operand")?;
                self.want(self.tyof(*value), &Type::Scalar(s), "compare-exchange operand")?;
                if inst.result.is_some() && !matches!(self.ty(res()?), Type::Struct { .. }) {
                    return Err(self.err("compare-exchange result is not a struct"));
                }
                Produces::Maybe
            }
            Op::ArrayLength(p) => {
                self.pointee(*p, "array_length")?;
                self.want(res()?, &Type::Scalar(Scalar::U32), "array_length result")?;
                Produces::Value
            }
            Op::Barrier(_) => Produces::Nothing,
            Op::WorkgroupUniformLoad(p) => {
                let (base, _) = self.pointee(*p, "workgroup_uniform_load")?;
                self.same(res()?, base, "workgroup_uniform_load result")?;
                Produces::Value
            }
            Op::WorkgroupAll(v) => {
                self.want(self.tyof(*v), &Type::Scalar(Scalar::Bool), "workgroup_all operand")?;
                self.want(res()?, &Type::Scalar(Scalar::Bool), "workgroup_all result")?;
                Produces::Value
            }
            Op::SubgroupBallot(p) => {
                if let Some(p) = p {
                    self.want(self.tyof(*p), &Type::Scalar(Scalar::Bool), "ballot predicate")?;
                }
                let want = Type::Vector { size: 4, scalar: Scalar::U32 };
                self.want(res()?, &want, "ballot result")?;
                Produces::Value
            }
            Op::SubgroupCollective { arg, .. } => {
                self.same(res()?, self.tyof(*arg), "subgroup result")?;
                Produces::Value
            }
            Op::SubgroupGather { arg, index, .. } => {
                if let Some(i) = index {
                    if !self.is_index(*i) {
                        return Err(self.err("subgroup lane index is not an integer"));
                    }
                }
                self.same(res()?, self.tyof(*arg), "subgroup result")?;
                Produces::Value
            }
            Op::ImageSample { image, sampler, .. } => {
                if !matches!(t(*image), Type::Image { .. }) {
                    return Err(self.err("image_sample of a non-texture"));
                }
                if !matches!(t(*sampler), Type::Sampler { .. }) {
                    return Err(self.err("image_sample with a non-sampler"));
                }
                Produces::Value
            }
            Op::ImageLoad { image, .. } | Op::ImageQuery(image, _) => {
                if !matches!(t(*image), Type::Image { .. }) {
                    return Err(self.err("texture operation on a non-texture"));
                }
                Produces::Value
            }
            Op::ImageStore { image, .. } => {
                if !matches!(t(*image), Type::Image { .. }) {
                    return Err(self.err("image_store to a non-texture"));
                }
                Produces::Nothing
            }
            Op::CoopLoad { ptr, stride, limit, .. } => {
                self.pointee(*ptr, "coop_load")?;
                if !self.is_index(*stride) {
                    return Err(self.err("coop_load stride is not an integer"));
                }
                if limit.is_some_and(|l| !matches!(t(l), Type::Scalar(Scalar::U32))) {
                    return Err(self.err("coop_load limit is not a u32"));
                }
                if !matches!(self.ty(res()?), Type::CoopMatrix { .. }) {
                    return Err(self.err("coop_load result is not a cooperative matrix"));
                }
                Produces::Value
            }
            Op::CoopStore { value, ptr, stride, limit, .. } => {
                self.pointee(*ptr, "coop_store")?;
                if !self.is_index(*stride) {
                    return Err(self.err("coop_store stride is not an integer"));
                }
                if limit.is_some_and(|l| !matches!(t(l), Type::Scalar(Scalar::U32))) {
                    return Err(self.err("coop_store limit is not a u32"));
                }
                if !matches!(t(*value), Type::CoopMatrix { .. }) {
                    return Err(self.err("coop_store of a non-matrix"));
                }
                Produces::Nothing
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                for x in [a, b, c] {
                    if !matches!(t(*x), Type::CoopMatrix { .. }) {
                        return Err(self.err("coop_multiply_add operand is not a matrix"));
                    }
                }
                self.same(res()?, self.tyof(*c), "coop_multiply_add result")?;
                Produces::Value
            }
            Op::CoopFill(x) => {
                let r = res()?;
                let Type::CoopMatrix { elem, .. } = *self.m.types.get(r) else {
                    return Err(self.err("coop_fill result is not a matrix"));
                };
                if !matches!(t(*x), Type::Scalar(s) if *s == elem.scalar()) {
                    return Err(self.err("coop_fill value is not the matrix's scalar type"));
                }
                Produces::Value
            }
            Op::CoopScalar { op, matrix, scalar } => {
                let Type::CoopMatrix { elem, .. } = *t(*matrix) else {
                    return Err(self.err("coop_scalar operand is not a matrix"));
                };
                if !matches!(t(*scalar), Type::Scalar(s) if *s == elem.scalar()) {
                    return Err(self.err("coop_scalar value is not the matrix's scalar type"));
                }
                if !matches!(
                    op,
                    BinaryOperator::Add | BinaryOperator::Subtract | BinaryOperator::Multiply
                ) {
                    return Err(self.err("coop_scalar operator is not +, - or *"));
                }
                self.same(res()?, self.tyof(*matrix), "coop_scalar result")?;
                Produces::Value
            }
            Op::Call(callee, args) => {
                let Some(cf) = self.m.functions.get(callee.index()) else {
                    return Err(self.err(format!("call of missing function {callee}")));
                };
                let mut ptys = Vec::new();
                for p in &cf.params {
                    match cf.values.get(p.value.index()) {
                        Some(d) => ptys.push(d.ty),
                        None => return Err(self.err(format!("callee {callee} has a bad param"))),
                    }
                }
                self.types_match(args, &ptys, &format!("call of {callee} '{}'", cf.name))?;
                match &cf.result {
                    Some(r) => {
                        self.same(res()?, r.ty, "call result")?;
                        Produces::Value
                    }
                    Option::None => Produces::Nothing,
                }
            }
            Op::If { cond, .. } => {
                self.want(self.tyof(*cond), &Type::Scalar(Scalar::Bool), "if condition")?;
                Produces::Nothing
            }
            Op::Switch { selector, cases, .. } => {
                if !self.is_index(*selector) {
                    return Err(self.err("switch selector is not i32 or u32"));
                }
                if cases.iter().filter(|c| c.default).count() != 1 {
                    return Err(self.err("switch does not have exactly one default arm"));
                }
                let mut seen = HashSet::new();
                for v in cases.iter().flat_map(|c| &c.values) {
                    if !seen.insert(*v) {
                        return Err(self.err(format!("switch selector value {v} repeated")));
                    }
                }
                Produces::Nothing
            }
            Op::Loop { .. } | Op::Inline { .. } => Produces::Nothing,
        })
    }

    fn ptr_to(&self, r: TypeId, want: &Type, what: &str) -> R {
        self.want(r, want, what)
    }

    fn ptr_elem(&self, r: TypeId, elem: &Type, space: AddressSpace, what: &str) -> R {
        match *self.ty(r) {
            Type::Pointer { base, space: s } if s == space && self.ty(base) == elem => Ok(()),
            _ => Err(self.err(format!(
                "{what}: result type {} is not a pointer to {:?} in the operand's space",
                self.tname(r),
                elem
            ))),
        }
    }

    fn atomic_scalar(&self, p: ValueId) -> Result<Scalar, Diagnostic> {
        let (base, _) = self.pointee(p, "atomic")?;
        match *self.ty(base) {
            Type::Atomic(s) => Ok(s),
            _ => Err(self.err(format!("atomic operation on a non-atomic pointer {p}"))),
        }
    }

    fn binary(&self, op: BinaryOperator, a: ValueId, b: ValueId, r: TypeId) -> R {
        use BinaryOperator as B;
        let (ta, tb) = (self.tyof(a), self.tyof(b));
        let (sa, sb) = (shape(self.ty(ta)), shape(self.ty(tb)));
        let bad = || {
            Err(self.err(format!(
                "{op:?} on operands of types {} and {}",
                self.tname(ta),
                self.tname(tb)
            )))
        };
        match op {
            B::Multiply => {
                // Linear-algebra forms first.
                let want = match (self.ty(ta), self.ty(tb)) {
                    (
                        &Type::Matrix { columns: c, rows: r1, scalar: s },
                        &Type::Matrix { columns: k, rows: r2, scalar: s2 },
                    ) if c == r2 && s == s2 => {
                        Some(Type::Matrix { columns: k, rows: r1, scalar: s })
                    }
                    (
                        &Type::Matrix { columns: c, rows: r1, scalar: s },
                        &Type::Vector { size, scalar: s2 },
                    ) if c == size && s == s2 => Some(Type::Vector { size: r1, scalar: s }),
                    (
                        &Type::Vector { size, scalar: s2 },
                        &Type::Matrix { columns: c, rows: r1, scalar: s },
                    ) if r1 == size && s == s2 => Some(Type::Vector { size: c, scalar: s }),
                    (m @ &Type::Matrix { scalar: s, .. }, &Type::Scalar(s2))
                    | (&Type::Scalar(s2), m @ &Type::Matrix { scalar: s, .. })
                        if s == s2 =>
                    {
                        Some(m.clone())
                    }
                    _ => Option::None,
                };
                if let Some(w) = want {
                    return self.want(r, &w, "multiply result");
                }
                match sa {
                    Some((_, s)) if s != Scalar::Bool && self.ty(ta) == self.ty(tb) => {
                        self.same(r, ta, "multiply result")
                    }
                    _ => bad(),
                }
            }
            B::Add | B::Subtract | B::Divide | B::Modulo => {
                let numeric = matches!(sa, Some((_, s)) if s != Scalar::Bool)
                    || (matches!(self.ty(ta), Type::Matrix { .. })
                        && matches!(op, B::Add | B::Subtract));
                if !numeric || self.ty(ta) != self.ty(tb) {
                    return bad();
                }
                self.same(r, ta, "arithmetic result")
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                let Some((size, s)) = sa else { return bad() };
                if self.ty(ta) != self.ty(tb)
                    || (s == Scalar::Bool && !matches!(op, B::Equal | B::NotEqual))
                {
                    return bad();
                }
                self.want(r, &bool_shape(size), "comparison result")
            }
            B::And | B::InclusiveOr | B::ExclusiveOr => {
                let Some((_, s)) = sa else { return bad() };
                if self.ty(ta) != self.ty(tb) || s.is_float() {
                    return bad();
                }
                self.same(r, ta, "bitwise result")
            }
            B::LogicalAnd | B::LogicalOr => {
                if !matches!(sa, Some((_, Scalar::Bool))) || self.ty(ta) != self.ty(tb) {
                    return bad();
                }
                self.same(r, ta, "logical result")
            }
            B::ShiftLeft | B::ShiftRight => match (sa, sb) {
                (Some((n, s)), Some((m, Scalar::U32))) if s.is_int() && n == m => {
                    self.same(r, ta, "shift result")
                }
                _ => bad(),
            },
        }
    }

    fn compose(&self, parts: &[ValueId], r: TypeId) -> R {
        let bad = |why: &str| {
            Err(self.err(format!(
                "compose of {} values into {}: {why}",
                parts.len(),
                self.tname(r)
            )))
        };
        match self.ty(r) {
            Type::Vector { size, scalar } => {
                let mut n = 0u32;
                for &p in parts {
                    match *self.ty(self.tyof(p)) {
                        Type::Scalar(s) if s == *scalar => n += 1,
                        Type::Vector { size: k, scalar: s } if s == *scalar => n += k as u32,
                        _ => return bad("a part has the wrong type"),
                    }
                }
                if n != *size as u32 {
                    return bad("component count differs");
                }
            }
            Type::Matrix { columns, rows, scalar } => {
                let col = Type::Vector { size: *rows, scalar: *scalar };
                if parts.len() != *columns as usize
                    || parts.iter().any(|&p| self.ty(self.tyof(p)) != &col)
                {
                    return bad("expected one column vector per column");
                }
            }
            Type::Array { base, len: Some(n), .. } => {
                if parts.len() != *n as usize
                    || parts.iter().any(|&p| self.ty(self.tyof(p)) != self.ty(*base))
                {
                    return bad("expected one element per array element");
                }
            }
            Type::Struct { members, .. } => {
                if parts.len() != members.len()
                    || parts
                        .iter()
                        .zip(members)
                        .any(|(&p, mem)| self.ty(self.tyof(p)) != self.ty(mem.ty))
                {
                    return bad("expected one value per member, of the member's type");
                }
            }
            _ => return bad("not a composite type"),
        }
        Ok(())
    }

    /// Whether constant `c` is a value of type `t` (depth-limited against cyclic garbage).
    fn const_fits(&self, c: &ConstValue, t: TypeId, depth: u32) -> bool {
        if t.index() >= self.m.types.len() {
            return false;
        }
        self.const_fits_type(c, self.ty(t), depth)
    }

    /// Like [`Self::const_fits`] for a type given by value: a vector's component type need
    /// not be interned (a module may use `vec4<f32>` constants and never a plain `f32`).
    fn const_fits_type(&self, c: &ConstValue, ty: &Type, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match c {
            ConstValue::Bool(_) => ty == &Type::Scalar(Scalar::Bool),
            ConstValue::I32(_) => ty == &Type::Scalar(Scalar::I32),
            ConstValue::U32(_) => ty == &Type::Scalar(Scalar::U32),
            ConstValue::F32(_) => ty == &Type::Scalar(Scalar::F32),
            ConstValue::F16(_) => ty == &Type::Scalar(Scalar::F16),
            ConstValue::I64(_) => ty == &Type::Scalar(Scalar::I64),
            ConstValue::U64(_) => ty == &Type::Scalar(Scalar::U64),
            ConstValue::F64(_) => ty == &Type::Scalar(Scalar::F64),
            ConstValue::Zero(z) => z.index() < self.m.types.len() && self.ty(*z) == ty,
            ConstValue::Composite(ct, parts) => {
                if ct.index() >= self.m.types.len() || self.ty(*ct) != ty {
                    return false;
                }
                let elem_ok = |n: usize, e: &Type| {
                    parts.len() == n && parts.iter().all(|p| self.const_fits_type(p, e, depth + 1))
                };
                match ty {
                    Type::Vector { size, scalar } => {
                        elem_ok(*size as usize, &Type::Scalar(*scalar))
                    }
                    Type::Matrix { columns, rows, scalar } => {
                        elem_ok(*columns as usize, &Type::Vector { size: *rows, scalar: *scalar })
                    }
                    Type::Array { base, len: Some(n), .. } => {
                        parts.len() == *n as usize
                            && parts.iter().all(|p| self.const_fits(p, *base, depth + 1))
                    }
                    Type::Struct { members, .. } => {
                        parts.len() == members.len()
                            && parts
                                .iter()
                                .zip(members)
                                .all(|(p, mem)| self.const_fits(p, mem.ty, depth + 1))
                    }
                    _ => false,
                }
            }
        }
    }
}

/// Whether an instruction has a result.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Produces {
    Nothing,
    Value,
    /// Atomics may drop their result.
    Maybe,
}

/// (vector size or None for scalars, component scalar) of a scalar or vector type.
fn shape(t: &Type) -> Option<(Option<u8>, Scalar)> {
    match *t {
        Type::Scalar(s) => Some((None, s)),
        Type::Vector { size, scalar } => Some((Some(size), scalar)),
        _ => None,
    }
}

fn bool_shape(size: Option<u8>) -> Type {
    match size {
        Some(n) => Type::Vector { size: n, scalar: Scalar::Bool },
        None => Type::Scalar(Scalar::Bool),
    }
}

/// Bit size of a scalar or vector of numbers (bitcast operands).
fn bits(t: &Type) -> Option<u32> {
    match *t {
        Type::Scalar(s) if s != Scalar::Bool => Some(s.size() * 8),
        Type::Vector { size, scalar } if scalar != Scalar::Bool => {
            Some(scalar.size() * 8 * size as u32)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::Builder;
    use BinaryOperator as B;

    /// fn f(p: i32) -> i32 { var x = p; loop { if x > 10 { break } x = x + 1; continuing {} }
    /// return x } in SSA form (loop carrying x), plus a switch.
    fn sample() -> Module {
        let mut b = Builder::new("f");
        let i32t = b.i32();
        b.result(i32t);
        let p = b.param(i32t);
        let ten = b.ci(10);
        let one = b.ci(1);
        let xb = b.val(i32t);
        let xc = b.val(i32t);
        let xr = b.val(i32t);
        b.open_with(vec![xb]);
        let c = b.bin(B::Greater, xb, ten);
        b.open();
        let then_ = b.close(Terminator::Break(vec![xb]));
        b.open();
        let else_ = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c, then_, else_, results: vec![] });
        let x1 = b.bin(B::Add, xb, one);
        let body = b.close(Terminator::Yield(vec![x1]));
        b.open_with(vec![xc]);
        let continuing = b.close(Terminator::Yield(vec![xc]));
        b.stmt(Op::Loop { init: vec![p], body, continuing, break_if: None, results: vec![xr] });
        let sr = b.val(i32t);
        b.open();
        let c0 = b.close(Terminator::Break(vec![one]));
        b.open();
        let c1 = b.close(Terminator::Yield(vec![xr]));
        b.stmt(Op::Switch {
            selector: xr,
            cases: vec![
                SwitchCase { values: vec![3], default: false, body: c0 },
                SwitchCase { values: vec![], default: true, body: c1 },
            ],
            results: vec![sr],
        });
        b.finish_entry(Terminator::Return(Some(sr)))
    }

    fn body(m: &mut Module) -> &mut Block {
        &mut m.functions[0].body
    }

    fn loop_op(m: &mut Module) -> &mut Op {
        body(m).insts.iter_mut().map(|i| &mut i.op).find(|o| matches!(o, Op::Loop { .. })).unwrap()
    }

    fn expect_err(m: &Module, needle: &str) {
        match verify(m) {
            Ok(()) => panic!("verifier accepted bad IR (wanted '{needle}')"),
            Err(d) => {
                assert_eq!(d.kind, DiagKind::Internal);
                assert!(d.message.contains(needle), "message '{}' lacks '{needle}'", d.message);
                assert!(d.message.contains("'f'"), "message '{}' lacks the function", d.message);
            }
        }
    }

    #[test]
    fn accepts_valid_ir() {
        verify(&sample()).unwrap();
    }

    #[test]
    fn rejects_double_definition() {
        let mut m = sample();
        let ten = body(&mut m).insts[0].result;
        body(&mut m).insts[1].result = ten;
        expect_err(&m, "defined more than once");
    }

    #[test]
    fn rejects_out_of_range_value() {
        let mut m = sample();
        body(&mut m).term = Terminator::Return(Some(ValueId(9999)));
        expect_err(&m, "out of range");
    }

    #[test]
    fn rejects_use_before_definition() {
        let mut m = sample();
        let one = body(&mut m).insts[1].result.unwrap();
        body(&mut m).insts[0].op = Op::Binary(B::Add, one, one);
        expect_err(&m, "not defined before");
    }

    #[test]
    fn rejects_use_of_region_value_outside() {
        let mut m = sample();
        let Op::Loop { body: lb, .. } = loop_op(&mut m) else { unreachable!() };
        let inner = lb.insts[0].result.unwrap();
        body(&mut m).term = Terminator::Return(Some(inner));
        expect_err(&m, "not defined before");
    }

    #[test]
    fn rejects_binary_type_mismatch() {
        let mut m = sample();
        let bt = m.types.scalar(Scalar::Bool);
        m.functions[0].values[1].ty = bt; // %1 = const 10 now claims bool
        expect_err(&m, "constant does not fit");
        let mut m = sample();
        let bt = m.types.scalar(Scalar::U32);
        let f = &mut m.functions[0];
        let v = f.new_value(bt, None);
        f.body.insts.push(Inst {
            result: Some(v),
            op: Op::Binary(B::Add, ValueId(0), ValueId(0)),
            span: Span { start: 5, end: 6 },
        });
        expect_err(&m, "arithmetic result");
        assert_eq!(verify(&m).unwrap_err().span, Some(Span { start: 5, end: 6 }));
    }

    #[test]
    fn rejects_bad_extract_index_and_compose() {
        let mut m = sample();
        let vt = m.types.intern(Type::Vector { size: 2, scalar: Scalar::I32 });
        let it = m.types.scalar(Scalar::I32);
        let f = &mut m.functions[0];
        let v = f.new_value(vt, None);
        let e = f.new_value(it, None);
        f.body.insts.push(Inst {
            result: Some(v),
            op: Op::Compose(vec![ValueId(0)]),
            span: Span::default(),
        });
        expect_err(&m, "component count");
        let f = &mut m.functions[0];
        f.body.insts.last_mut().unwrap().op = Op::Compose(vec![ValueId(0), ValueId(0)]);
        f.body.insts.push(Inst { result: Some(e), op: Op::Extract(v, 2), span: Span::default() });
        expect_err(&m, "extract index 2 out of range");
    }

    #[test]
    fn rejects_store_type_mismatch_and_non_pointer() {
        let mut b = Builder::new("f");
        let it = b.i32();
        let ut = b.u32();
        let p = b.var("x", it);
        let u = b.cu(1);
        b.store(p, u);
        let m = b.finish_entry(Terminator::Return(None));
        expect_err(&m, "stored value");
        let mut b = Builder::new("f");
        let it = b.i32();
        let _ = ut;
        let one = b.ci(1);
        b.op(Op::Load(one), it);
        let m = b.finish_entry(Terminator::Return(None));
        expect_err(&m, "not a pointer");
    }

    #[test]
    fn rejects_atomic_on_plain_pointer() {
        let mut b = Builder::new("f");
        let it = b.i32();
        let p = b.var("x", it);
        let one = b.ci(1);
        b.op(Op::Atomic { ptr: p, op: AtomicOp::Add, value: one }, it);
        let m = b.finish_entry(Terminator::Return(None));
        expect_err(&m, "non-atomic pointer");
    }

    #[test]
    fn rejects_call_argument_mismatch() {
        let mut b = Builder::new("g");
        let it = b.i32();
        b.param(it);
        let (m, g) = b.finish(Terminator::Return(None));
        let mut b = Builder::next_function(m, "f");
        let u = b.cu(3);
        b.stmt(Op::Call(g, vec![u]));
        let m = b.finish_entry(Terminator::Return(None));
        expect_err(&m, "call of f0");
        let mut m2 = m.clone();
        m2.functions[1].body.insts[1].op = Op::Call(g, vec![]);
        expect_err(&m2, "passes 0 values");
    }

    #[test]
    fn rejects_break_outside_loop_and_continue_in_continuing() {
        let mut m = sample();
        body(&mut m).term = Terminator::Break(vec![]);
        expect_err(&m, "`break` outside");
        let mut m = sample();
        let Op::Loop { continuing, .. } = loop_op(&mut m) else { unreachable!() };
        let p = continuing.params[0];
        continuing.term = Terminator::Continue(vec![p]);
        expect_err(&m, "`continue` in a loop's continuing");
        let mut m = sample();
        let Op::Loop { continuing, .. } = loop_op(&mut m) else { unreachable!() };
        let p = continuing.params[0];
        continuing.term = Terminator::Break(vec![p]);
        expect_err(&m, "`break` in a loop's continuing");
    }

    #[test]
    fn rejects_yield_arity_and_function_yield() {
        let mut m = sample();
        let Op::Loop { body: lb, .. } = loop_op(&mut m) else { unreachable!() };
        lb.term = Terminator::Yield(vec![]);
        expect_err(&m, "yield passes 0 values");
        let mut m = sample();
        body(&mut m).term = Terminator::Yield(vec![]);
        expect_err(&m, "ends in `yield`");
    }

    #[test]
    fn rejects_loop_state_mismatch_and_bad_break_if() {
        let mut m = sample();
        let Op::Loop { init, .. } = loop_op(&mut m) else { unreachable!() };
        init.clear();
        expect_err(&m, "loop init");
        let mut m = sample();
        let Op::Loop { continuing, .. } = loop_op(&mut m) else { unreachable!() };
        continuing.params.clear();
        expect_err(&m, "continuing params");
        let mut m = sample();
        let Op::Loop { break_if, continuing, .. } = loop_op(&mut m) else { unreachable!() };
        *break_if = Some(continuing.params[0]);
        expect_err(&m, "break_if");
    }

    #[test]
    fn rejects_return_type_mismatch() {
        let mut m = sample();
        body(&mut m).term = Terminator::Return(None);
        expect_err(&m, "return passes 0 values");
    }

    #[test]
    fn rejects_missing_entry_function_and_local() {
        let mut m = sample();
        m.entry_points[0].function = FuncId(7);
        let d = verify(&m).unwrap_err();
        assert!(d.message.contains("missing function"), "{}", d.message);
        let mut b = Builder::new("f");
        let it = b.i32();
        let pt = b.ptr(it);
        b.op(Op::LocalAddr(LocalId(3)), pt);
        let m = b.finish_entry(Terminator::Return(None));
        expect_err(&m, "missing local");
    }

    #[test]
    fn rejects_switch_without_default_and_bad_type_ids() {
        let mut m = sample();
        for inst in &mut body(&mut m).insts {
            if let Op::Switch { cases, .. } = &mut inst.op {
                cases[1].default = false;
            }
        }
        expect_err(&m, "exactly one default");
        let mut m = sample();
        m.functions[0].values[0].ty = TypeId(999);
        expect_err(&m, "missing type");
    }

    #[test]
    fn never_panics_on_garbage_ids() {
        // Every operand replaced by an out-of-range id, one instruction at a time.
        let m = sample();
        let n = m.functions[0].body.insts.len();
        for k in 0..n {
            let mut m2 = m.clone();
            m2.functions[0].body.insts[k].op.map_operands(|_| ValueId(u32::MAX));
            m2.functions[0].body.insts[k].result = Some(ValueId(u32::MAX - 1));
            assert!(verify(&m2).is_err());
        }
    }
    /// Deterministic pseudo-random numbers for the mutation test.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    /// Applies one random corruption to the `target`-th block (pre-order) of `b`.
    fn mutate_block(b: &mut Block, target: &mut usize, rng: &mut Lcg, nvals: usize) {
        if *target == 0 {
            *target = usize::MAX;
            let bad = |rng: &mut Lcg| ValueId(rng.next(nvals + 3) as u32);
            match rng.next(5) {
                0 if !b.insts.is_empty() => {
                    let k = rng.next(b.insts.len());
                    let mut first = true;
                    b.insts[k].op.map_operands(|v| {
                        if std::mem::take(&mut first) {
                            bad(rng)
                        } else {
                            v
                        }
                    });
                }
                1 if !b.insts.is_empty() => {
                    let k = rng.next(b.insts.len());
                    b.insts[k].result = Some(bad(rng));
                }
                2 => {
                    for a in b.term.args_mut() {
                        *a = bad(rng);
                    }
                    if rng.next(2) == 0 {
                        b.term = Terminator::Yield(vec![bad(rng)]);
                    }
                }
                3 => b.params.push(bad(rng)),
                _ if !b.insts.is_empty() => {
                    let k = rng.next(b.insts.len());
                    let inst = b.insts.remove(k);
                    let j = rng.next(b.insts.len() + 1);
                    b.insts.insert(j, inst);
                }
                _ => {}
            }
            return;
        }
        *target -= 1;
        for inst in &mut b.insts {
            for nb in inst.op.blocks_mut() {
                if *target == usize::MAX {
                    return;
                }
                mutate_block(nb, target, rng, nvals);
            }
        }
    }

    fn blocks(b: &Block) -> usize {
        1 + b.insts.iter().flat_map(|i| i.op.blocks()).map(blocks).sum::<usize>()
    }

    #[test]
    fn random_corruptions_never_panic() {
        let base = sample();
        let mut rng = Lcg(7);
        let mut rejected = 0;
        for _ in 0..3000 {
            let mut m = base.clone();
            for _ in 0..1 + rng.next(3) {
                let f = &mut m.functions[0];
                let n = f.values.len();
                match rng.next(4) {
                    0 => {
                        let k = rng.next(n);
                        f.values[k].ty = TypeId(rng.next(m.types.len() + 2) as u32);
                    }
                    _ => {
                        let mut target = rng.next(blocks(&f.body));
                        mutate_block(&mut f.body, &mut target, &mut rng, n);
                    }
                }
            }
            if verify(&m).is_err() {
                rejected += 1;
            }
        }
        assert!(rejected > 1500, "most corruptions are caught ({rejected})");
    }
}
