//! Strength reduction of induction-variable arithmetic in loops.
//!
//! A *basic induction variable* is a slot of loop state whose body param `p` reaches the
//! continuing block unchanged on every path (the body's final `yield` and every `continue`
//! pass `p` itself) and which the continuing block advances as `p + s`, `s` invariant. An
//! integer value of the body that is an affine function of `p` built with at least one
//! multiply, e.g. `(p * c + b) + d` or `(p << 4) + b` with `c`, `b`, `d` invariant, becomes a
//! new slot of loop state: it starts at the expression evaluated on the loop's initial value
//! of `p` (computed before the loop) and the continuing block adds the expression's step
//! (`s * c`, computed before the loop). Per iteration that replaces the multiplies and adds of
//! the expression by one add.
//!
//! Only the largest such expressions become state (those used by something other than a
//! further affine step), at most [`MAX_NEW_STATE`] per loop, to bound register pressure.
//! `i32`/`u32` arithmetic wraps modulo 2³² in WGSL and on every target, and affine functions
//! commute with that wrap, so the new state is bit-identical to the expression it replaces on
//! every iteration, overflow included. The original instructions stay where uses outside the
//! body (the continuing block) need them; DCE removes the rest.
//!
//! Run after [`super::licm`]: invariant operands must already be outside the loop to be
//! recognised as invariant.

use crate::ir::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use BinaryOperator as B;

/// At most this many new loop-state slots per loop.
pub const MAX_NEW_STATE: usize = 8;

/// Strength-reduces induction-variable arithmetic in every loop of `f`.
pub fn strength_reduce(types: &Types, f: &mut Function) {
    let consts = constants(&f.body);
    let mut body = std::mem::take(&mut f.body);
    let mut sr = Sr { types, f, consts };
    sr.block(&mut body);
    f.body = body;
}

/// Integer constants of the function by value.
fn constants(b: &Block) -> HashMap<ValueId, ConstValue> {
    let mut out = HashMap::default();
    fn walk(b: &Block, out: &mut HashMap<ValueId, ConstValue>) {
        for inst in &b.insts {
            if let (Some(r), Op::Const(c @ (ConstValue::U32(_) | ConstValue::I32(_)))) =
                (inst.result, &inst.op)
            {
                out.insert(r, c.clone());
            }
            for nb in inst.op.blocks() {
                walk(nb, out);
            }
        }
    }
    walk(b, &mut out);
    out
}

/// Values defined anywhere inside `b` (params, results, region results).
fn defs(b: &Block, out: &mut HashSet<ValueId>) {
    out.extend(b.params.iter().copied());
    for inst in &b.insts {
        out.extend(inst.result);
        out.extend(inst.op.region_results().iter().copied());
        for nb in inst.op.blocks() {
            defs(nb, out);
        }
    }
}

/// An affine value of the body: its defining operation, the operand that is affine (the
/// other one is invariant), and whether the chain down to the induction variable multiplies.
#[derive(Clone)]
struct Aff {
    op: Op,
    from: ValueId,
    multiplies: bool,
}

struct Sr<'a> {
    types: &'a Types,
    f: &'a mut Function,
    consts: HashMap<ValueId, ConstValue>,
}

impl Sr<'_> {
    fn block(&mut self, b: &mut Block) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            for nb in inst.op.blocks_mut() {
                self.block(nb);
            }
            if matches!(inst.op, Op::Loop { .. }) {
                let pre = self.reduce(&mut inst.op, inst.span);
                out.extend(pre);
            }
            out.push(inst);
        }
        b.insts = out;
    }

    fn int_ty(&self, v: ValueId) -> Option<TypeId> {
        let ty = self.f.values.get(v.index())?.ty;
        matches!(self.types.get(ty), Type::Scalar(Scalar::U32 | Scalar::I32)).then_some(ty)
    }

    /// Strength-reduces one loop; returns the instructions to place before it.
    fn reduce(&mut self, op: &mut Op, span: Span) -> Vec<Inst> {
        let Op::Loop { init, body, continuing, results, .. } = op else { return Vec::new() };
        let mut inside = HashSet::default();
        defs(body, &mut inside);
        defs(continuing, &mut inside);
        let ivs = self.basic_ivs(body, continuing, &inside);
        if ivs.is_empty() {
            return Vec::new();
        }
        // Affine values of the body, in definition order.
        let mut aff: HashMap<ValueId, Aff> = HashMap::default();
        let mut order = Vec::new();
        let mut root_iv: HashMap<ValueId, usize> = HashMap::default();
        for (k, &(p, _)) in ivs.iter().enumerate() {
            root_iv.insert(p, k);
        }
        self.affine(body, &inside, &mut aff, &mut order, &mut root_iv);
        // Uses that are not absorbed by a further affine step.
        let mut escaping: HashSet<ValueId> = HashSet::default();
        let mut mark = |v: ValueId, user: Option<ValueId>| {
            if aff.contains_key(&v) && !user.is_some_and(|u| aff.contains_key(&u)) {
                escaping.insert(v);
            }
        };
        fn uses(b: &Block, mark: &mut impl FnMut(ValueId, Option<ValueId>)) {
            for inst in &b.insts {
                inst.op.for_each_operand(|v| mark(v, inst.result));
                if let Op::Loop { break_if: Some(c), .. } = &inst.op {
                    mark(*c, None);
                }
                for nb in inst.op.blocks() {
                    uses(nb, mark);
                }
            }
            for &a in b.term.args() {
                mark(a, None);
            }
        }
        uses(body, &mut mark);
        uses(continuing, &mut mark);
        let roots: Vec<ValueId> = order
            .iter()
            .copied()
            .filter(|v| escaping.contains(v) && aff.get(v).is_some_and(|a| a.multiplies))
            .take(MAX_NEW_STATE)
            .collect();
        if roots.is_empty() {
            return Vec::new();
        }
        let mut pre = Vec::new();
        let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
        let mut init_memo: HashMap<ValueId, ValueId> = HashMap::default();
        let mut step_memo: HashMap<ValueId, ValueId> = HashMap::default();
        for r in roots {
            let Some(&k) = root_iv.get(&r) else { continue };
            let (p, s) = ivs[k];
            let Some(&p0) = body.params.iter().position(|&x| x == p).and_then(|i| init.get(i))
            else {
                continue;
            };
            let ty = self.f.ty(r);
            let start = self.eval_init(r, p, p0, &aff, &mut init_memo, &mut pre, span);
            let step = self.eval_step(r, p, s, &aff, &mut step_memo, &mut pre, span);
            let j = self.f.new_value(ty, None);
            let j2 = self.f.new_value(ty, None);
            let next = self.f.new_value(ty, None);
            let res = self.f.new_value(ty, None);
            init.push(start);
            body.params.push(j);
            continuing.params.push(j2);
            results.push(res);
            pass_state(body, j, true);
            continuing.insts.push(Inst {
                result: Some(next),
                op: Op::Binary(B::Add, j2, step),
                span,
            });
            if let Terminator::Yield(a) = &mut continuing.term {
                a.push(next);
            }
            subst.insert(r, j);
        }
        substitute(body, &subst);
        pre
    }

    /// Basic induction variables: (body param, invariant step) pairs.
    fn basic_ivs(
        &self,
        body: &Block,
        continuing: &Block,
        inside: &HashSet<ValueId>,
    ) -> Vec<(ValueId, ValueId)> {
        let Terminator::Yield(next) = &continuing.term else { return Vec::new() };
        let mut out = Vec::new();
        for (k, &p) in body.params.iter().enumerate() {
            if self.int_ty(p).is_none() {
                continue;
            }
            let (Some(&q), Some(&n)) = (continuing.params.get(k), next.get(k)) else { continue };
            if !reaches_continuing_unchanged(body, k, p, true) {
                continue;
            }
            let step = continuing.insts.iter().find_map(|i| match i.op {
                Op::Binary(B::Add, a, b) if i.result == Some(n) && a == q => Some(b),
                Op::Binary(B::Add, a, b) if i.result == Some(n) && b == q => Some(a),
                _ => None,
            });
            if let Some(s) = step.filter(|s| !inside.contains(s)) {
                out.push((p, s));
            }
        }
        out
    }

    /// Finds the affine values of `b` (recursively); `iv_of` maps each to its induction
    /// variable's index.
    fn affine(
        &self,
        b: &Block,
        inside: &HashSet<ValueId>,
        aff: &mut HashMap<ValueId, Aff>,
        order: &mut Vec<ValueId>,
        iv_of: &mut HashMap<ValueId, usize>,
    ) {
        for inst in &b.insts {
            for nb in inst.op.blocks() {
                self.affine(nb, inside, aff, order, iv_of);
            }
            let Some(r) = inst.result else { continue };
            if self.int_ty(r).is_none() {
                continue;
            }
            let inv = |v: ValueId| !inside.contains(&v);
            let tracked = |v: ValueId| iv_of.contains_key(&v);
            let mult = |v: ValueId| aff.get(&v).is_some_and(|a| a.multiplies);
            let (from, multiplies) = match inst.op {
                Op::Binary(B::Multiply, a, c) if tracked(a) && inv(c) => (a, true),
                Op::Binary(B::Multiply, c, a) if tracked(a) && inv(c) => (a, true),
                Op::Binary(B::ShiftLeft, a, c) if tracked(a) && self.consts.contains_key(&c) => {
                    (a, true)
                }
                Op::Binary(B::Add, a, c) if tracked(a) && inv(c) => (a, mult(a)),
                Op::Binary(B::Add, c, a) if tracked(a) && inv(c) => (a, mult(a)),
                Op::Binary(B::Subtract, a, c) if tracked(a) && inv(c) => (a, mult(a)),
                _ => continue,
            };
            if self.int_ty(from) != self.int_ty(r) {
                continue;
            }
            let Some(&k) = iv_of.get(&from) else { continue };
            iv_of.insert(r, k);
            aff.insert(r, Aff { op: inst.op.clone(), from, multiplies });
            order.push(r);
        }
    }

    /// Emits (into `pre`) the value of affine `v` when induction variable `p` is `p0`.
    #[allow(clippy::too_many_arguments)]
    fn eval_init(
        &mut self,
        v: ValueId,
        p: ValueId,
        p0: ValueId,
        aff: &HashMap<ValueId, Aff>,
        memo: &mut HashMap<ValueId, ValueId>,
        pre: &mut Vec<Inst>,
        span: Span,
    ) -> ValueId {
        if v == p {
            return p0;
        }
        if let Some(&m) = memo.get(&v) {
            return m;
        }
        let Some(a) = aff.get(&v) else { return v };
        let from = self.eval_init(a.from, p, p0, aff, memo, pre, span);
        let r = match a.op {
            Op::Binary(o, x, y) => {
                let (x, y) = if x == a.from { (from, y) } else { (x, from) };
                self.emit(o, x, y, self.f.ty(v), pre, span)
            }
            _ => v,
        };
        memo.insert(v, r);
        r
    }

    /// Emits (into `pre`) how much affine `v` grows when induction variable `p` grows by `s`.
    #[allow(clippy::too_many_arguments)]
    fn eval_step(
        &mut self,
        v: ValueId,
        p: ValueId,
        s: ValueId,
        aff: &HashMap<ValueId, Aff>,
        memo: &mut HashMap<ValueId, ValueId>,
        pre: &mut Vec<Inst>,
        span: Span,
    ) -> ValueId {
        if v == p {
            return s;
        }
        if let Some(&m) = memo.get(&v) {
            return m;
        }
        let Some(a) = aff.get(&v) else { return s };
        let inner = self.eval_step(a.from, p, s, aff, memo, pre, span);
        let r = match a.op {
            Op::Binary(o @ (B::Multiply | B::ShiftLeft), x, y) => {
                let other = if x == a.from { y } else { x };
                self.emit(o, inner, other, self.f.ty(v), pre, span)
            }
            _ => inner,
        };
        memo.insert(v, r);
        r
    }

    /// `a o b` before the loop, folded when both are constants (the PTX lowering does not
    /// fold, and no fold pass runs after inlining).
    fn emit(
        &mut self,
        o: BinaryOperator,
        a: ValueId,
        b: ValueId,
        ty: TypeId,
        pre: &mut Vec<Inst>,
        span: Span,
    ) -> ValueId {
        let folded = match (self.consts.get(&a), self.consts.get(&b)) {
            (Some(ConstValue::U32(x)), Some(ConstValue::U32(y))) => {
                wrap(o, *x, *y).map(ConstValue::U32)
            }
            (Some(ConstValue::I32(x)), Some(ConstValue::I32(y))) => {
                wrap(o, *x as u32, *y as u32).map(|r| ConstValue::I32(r as i32))
            }
            (Some(ConstValue::I32(x)), Some(ConstValue::U32(y))) if o == B::ShiftLeft => {
                wrap(o, *x as u32, *y).map(|r| ConstValue::I32(r as i32))
            }
            _ => None,
        };
        // The start of an expression evaluated at `p = 0` and steps of 1 are common:
        // `x * 0`, `x * 1` and `x + 0` need no instruction.
        let is = |v: ValueId, k: u32| match self.consts.get(&v) {
            Some(ConstValue::U32(x)) => *x == k,
            Some(ConstValue::I32(x)) => *x as u32 == k,
            _ => false,
        };
        let zero = match self.types.get(ty) {
            Type::Scalar(Scalar::I32) => ConstValue::I32(0),
            _ => ConstValue::U32(0),
        };
        let folded = match o {
            _ if folded.is_some() => folded,
            B::Multiply if is(a, 0) || is(b, 0) => Some(zero),
            B::Multiply if is(a, 1) => return b,
            B::Multiply if is(b, 1) => return a,
            B::ShiftLeft if is(b, 0) => return a,
            B::Add if is(a, 0) => return b,
            B::Add | B::Subtract if is(b, 0) => return a,
            _ => None,
        };
        let r = self.f.new_value(ty, None);
        let op = match folded {
            Some(c) => {
                self.consts.insert(r, c.clone());
                Op::Const(c)
            }
            None => Op::Binary(o, a, b),
        };
        pre.push(Inst { result: Some(r), op, span });
        r
    }
}

/// `x o y` with WGSL's wrapping `u32` semantics (shift amounts masked to 5 bits).
fn wrap(o: BinaryOperator, x: u32, y: u32) -> Option<u32> {
    match o {
        B::Add => Some(x.wrapping_add(y)),
        B::Subtract => Some(x.wrapping_sub(y)),
        B::Multiply => Some(x.wrapping_mul(y)),
        B::ShiftLeft => Some(x << (y & 31)),
        _ => None,
    }
}

/// Whether slot `k` of the loop state reaches the continuing block as `p` on every path: the
/// body's final `yield` (when `top`) and every `continue` of this loop (not of nested loops).
fn reaches_continuing_unchanged(b: &Block, k: usize, p: ValueId, top: bool) -> bool {
    let term_ok = match &b.term {
        Terminator::Continue(a) => a.get(k) == Some(&p),
        Terminator::Yield(a) if top => a.get(k) == Some(&p),
        _ => true,
    };
    term_ok
        && b.insts.iter().all(|i| {
            matches!(i.op, Op::Loop { .. })
                || i.op.blocks().into_iter().all(|nb| reaches_continuing_unchanged(nb, k, p, false))
        })
}

/// Appends `v` to every terminator of the loop body `b` that passes loop state: its final
/// `yield` (when `top`), and every `continue` and `break` of this loop.
fn pass_state(b: &mut Block, v: ValueId, top: bool) {
    pass_state_in(b, v, top, true);
}

/// [`pass_state`]; `breaks`: whether a `break` here leaves this loop (not a nested switch).
fn pass_state_in(b: &mut Block, v: ValueId, top: bool, breaks: bool) {
    match &mut b.term {
        Terminator::Continue(a) => a.push(v),
        Terminator::Break(a) if breaks => a.push(v),
        Terminator::Yield(a) if top => a.push(v),
        _ => {}
    }
    for inst in &mut b.insts {
        match &mut inst.op {
            Op::Loop { .. } => {}
            Op::Switch { cases, .. } => {
                for c in cases {
                    pass_state_in(&mut c.body, v, false, false);
                }
            }
            op => {
                for nb in op.blocks_mut() {
                    pass_state_in(nb, v, false, breaks);
                }
            }
        }
    }
}

/// Replaces uses per `subst` throughout `b` (definitions stay).
fn substitute(b: &mut Block, subst: &HashMap<ValueId, ValueId>) {
    let get = |v: ValueId| subst.get(&v).copied().unwrap_or(v);
    for inst in &mut b.insts {
        inst.op.map_operands(get);
        for nb in inst.op.blocks_mut() {
            substitute(nb, subst);
        }
    }
    for a in b.term.args_mut() {
        *a = get(*a);
    }
}
