//! Full unrolling of short counted loops: a loop that tests its bound at the top,
//!
//! ```text
//! r = loop(init) body(p) { H(p); if c { yield } else { break p }; B } continuing(q) { C; yield n }
//! ```
//!
//! whose test `c` has the same value on every invocation and is known for each iteration
//! (the state it reads starts from constants and advances by constant arithmetic, as in
//! `for (var s = 128u; s > 0u; s >>= 1u)`), becomes its iterations in sequence:
//!
//! ```text
//! H(p0); B(p0); C; H(p1); B(p1); C; ...    r = the state after the last iteration
//! ```
//!
//! where each copy's known state is a fresh constant, so that the copies' addresses and
//! comparisons fold (a workgroup reduction's `red[lid + s]` reads a constant offset, and its
//! bounds clamp meets a constant the range analysis can prove), and the loop's counter
//! updates, tests and back edges disappear. The test itself is dropped: its value is known.
//!
//! Only loops that leave through that test alone are unrolled: `B` and `C` may hold loops and
//! switches of their own, but no `break`, `continue` or `return` of this loop. A loop runs at
//! most [`MAX_TRIPS`] iterations and its copies hold at most [`MAX_COPIED`] instructions in all
//! (nested ones included), and a function grows by at most [`MAX_GROWTH`] instructions.

use super::rotate::header_test;
use super::util::{clone_inst, collect_consts, extend_known, known_value, Subst};
use crate::ir::*;
use rustc_hash::FxHashMap as HashMap;

/// Most iterations a loop may run to be unrolled.
pub const MAX_TRIPS: usize = 16;

/// Most instructions (nested ones included) all copies of a loop may hold together.
pub const MAX_COPIED: usize = 256;

/// Most instructions the copies of all of a function's unrolled loops may hold together.
pub const MAX_GROWTH: usize = 1024;

/// Unrolls every loop of `f` that has the shape in the module doc, innermost first (and then
/// the loops inside the copies, whose state the copies may have made constant); returns
/// whether any was.
pub fn unroll_loops(f: &mut Function) -> bool {
    let mut consts = HashMap::default();
    collect_consts(&f.body, &mut consts);
    let mut subst = Subst::default();
    let mut budget = MAX_GROWTH;
    let mut body = std::mem::take(&mut f.body);
    let changed = unroll_in(&mut body, f, &mut consts, &mut subst, &mut budget);
    if changed {
        subst.apply_block(&mut body);
    }
    f.body = body;
    changed
}

fn unroll_in(
    b: &mut Block,
    f: &mut Function,
    consts: &mut HashMap<ValueId, ConstValue>,
    subst: &mut Subst,
    budget: &mut usize,
) -> bool {
    let mut changed = false;
    let old = std::mem::take(&mut b.insts);
    for mut inst in old {
        let mut inner = false;
        for nb in inst.op.blocks_mut() {
            inner |= unroll_in(nb, f, consts, subst, budget);
        }
        // An inner loop's results are read through their replacements before this
        // instruction is copied.
        if inner {
            subst.apply_op(&mut inst.op);
            for nb in inst.op.blocks_mut() {
                subst.apply_block(nb);
            }
        }
        changed |= inner;
        match unrolled(&inst, f, consts, budget) {
            Some((insts, results)) => {
                if let Op::Loop { results: old_results, .. } = &inst.op {
                    for (&r, &v) in old_results.iter().zip(&results) {
                        subst.set(r, v);
                    }
                }
                // The copies' own loops, now perhaps from constants.
                let mut copies = Block { params: Vec::new(), insts, term: Terminator::Unreachable };
                if unroll_in(&mut copies, f, consts, subst, budget) {
                    subst.apply_block(&mut copies);
                }
                b.insts.extend(copies.insts);
                changed = true;
            }
            None => b.insts.push(inst),
        }
    }
    changed
}

/// The shape of a loop this pass unrolls.
struct Shape<'a> {
    init: &'a [ValueId],
    body: &'a Block,
    continuing: &'a Block,
    /// Index of the header test in `body.insts`.
    test: usize,
    cond: ValueId,
    /// Whether the loop is left when `cond` is true.
    exit_when_true: bool,
    /// What the body passes to the continuing block (its params).
    to_continuing: &'a [ValueId],
    /// The continuing block's yielded state.
    next: &'a [ValueId],
}

fn shape(op: &Op) -> Option<Shape<'_>> {
    let Op::Loop { init, body, continuing, break_if: None, .. } = op else { return None };
    let Terminator::Yield(next) = &continuing.term else { return None };
    let (Terminator::Yield(to_continuing) | Terminator::Continue(to_continuing)) = &body.term
    else {
        return None;
    };
    let test = body.insts.iter().position(|i| !i.op.blocks().is_empty())?;
    let (cond, exit_when_true) = header_test(body, test)?;
    Some(Shape { init, body, continuing, test, cond, exit_when_true, to_continuing, next })
}

/// The instructions that replace `inst` and the values of its results, when it is a loop of
/// the documented shape.
fn unrolled(
    inst: &Inst,
    f: &mut Function,
    consts: &mut HashMap<ValueId, ConstValue>,
    budget: &mut usize,
) -> Option<(Vec<Inst>, Vec<ValueId>)> {
    let s = shape(&inst.op)?;
    if s.init.len() != s.body.params.len() || s.next.len() != s.body.params.len() {
        return None;
    }
    let rest = &s.body.insts[s.test + 1..];
    let header = &s.body.insts[..s.test];
    // The header runs once more than the body; that last run is dropped.
    if header.iter().any(|i| i.op.has_side_effects()) {
        return None;
    }
    if !rest.iter().chain(&s.continuing.insts).all(|i| stays_in_loop(&i.op)) {
        return None;
    }
    let size = size_of(&s.body.insts) + size_of(&s.continuing.insts);

    // The known state of every iteration, until the test leaves.
    let mut trips: Vec<Vec<Option<ConstValue>>> = Vec::new();
    let mut state: Vec<Option<ConstValue>> =
        s.init.iter().map(|v| consts.get(v).cloned()).collect();
    loop {
        let known = evaluate(&s, &state, consts);
        let leave = match known.get(&s.cond) {
            Some(ConstValue::Bool(c)) => *c == s.exit_when_true,
            _ => return None,
        };
        if leave {
            break;
        }
        if trips.len() == MAX_TRIPS || (trips.len() + 1) * size > MAX_COPIED {
            return None;
        }
        let next: Vec<Option<ConstValue>> = s.next.iter().map(|v| known.get(v).cloned()).collect();
        trips.push(std::mem::replace(&mut state, next));
    }
    let grown = trips.len() * size;
    if grown > *budget {
        return None;
    }
    *budget -= grown;

    let mut out = Vec::new();
    let mut cur: Vec<ValueId> = s.init.to_vec();
    for state in &trips {
        let mut map: HashMap<ValueId, ValueId> = HashMap::default();
        for ((&p, &v), c) in s.body.params.iter().zip(&cur).zip(state) {
            let v = match c {
                Some(c) => {
                    let k = f.new_value(f.ty(p), None);
                    out.push(Inst { result: Some(k), op: Op::Const(c.clone()), span: inst.span });
                    consts.insert(k, c.clone());
                    k
                }
                None => v,
            };
            map.insert(p, v);
        }
        // Arithmetic on the copy's constants is folded as it is copied (the module's fold
        // has already run).
        for i in header.iter().chain(rest) {
            let mut c = clone_inst(i, &mut map, f);
            fold_copy(&mut c, consts);
            out.push(c);
        }
        for (&q, &a) in s.continuing.params.iter().zip(s.to_continuing) {
            let a = map.get(&a).copied().unwrap_or(a);
            map.insert(q, a);
        }
        for i in &s.continuing.insts {
            let mut c = clone_inst(i, &mut map, f);
            fold_copy(&mut c, consts);
            out.push(c);
        }
        cur = s.next.iter().map(|v| map.get(v).copied().unwrap_or(*v)).collect();
    }
    Some((out, cur))
}

/// The constants the header, the body's top level and the continuing block's top level
/// compute from `state` (the body's params, where known) and the function's constants.
fn evaluate(
    s: &Shape,
    state: &[Option<ConstValue>],
    consts: &HashMap<ValueId, ConstValue>,
) -> HashMap<ValueId, ConstValue> {
    let mut known = consts.clone();
    for (&p, c) in s.body.params.iter().zip(state) {
        match c {
            Some(c) => known.insert(p, c.clone()),
            None => known.remove(&p),
        };
    }
    extend_known(&s.body.insts, &mut known);
    for (&q, a) in s.continuing.params.iter().zip(s.to_continuing) {
        match known.get(a).cloned() {
            Some(c) => known.insert(q, c),
            None => known.remove(&q),
        };
    }
    extend_known(&s.continuing.insts, &mut known);
    known
}

/// Folds the copy `i` (regions included) where its operands are in `consts`: a binary
/// operation of two constants becomes a `Const`, and `consts` learns every constant it meets,
/// so chains fold.
fn fold_copy(i: &mut Inst, consts: &mut HashMap<ValueId, ConstValue>) {
    if let (Some(r), Some(k)) = (i.result, known_value(&i.op, consts)) {
        i.op = Op::Const(k.clone());
        consts.insert(r, k);
    }
    for b in i.op.blocks_mut() {
        for j in &mut b.insts {
            fold_copy(j, consts);
        }
    }
}

/// Whether `op` cannot leave the loop it sits in: its blocks (outside loops and switches of
/// their own, which take their `break`s and `continue`s) end in `yield` only.
fn stays_in_loop(op: &Op) -> bool {
    match op {
        Op::Loop { body, continuing, .. } => no_return(body) && no_return(continuing),
        Op::Switch { cases, .. } => cases.iter().all(|c| {
            !matches!(
                c.body.term,
                Terminator::Continue(_) | Terminator::Return(_) | Terminator::Discard
            ) && c.body.insts.iter().all(|i| stays_in_loop(&i.op))
        }),
        // A `return` there leaves the inlined callee, and the callee's own loops take its
        // `break`s and `continue`s.
        Op::Inline { .. } => true,
        op => op.blocks().iter().all(|b| {
            matches!(b.term, Terminator::Yield(_)) && b.insts.iter().all(|i| stays_in_loop(&i.op))
        }),
    }
}

/// Whether no block of `b`'s tree returns or discards.
fn no_return(b: &Block) -> bool {
    !matches!(b.term, Terminator::Return(_) | Terminator::Discard)
        && b.insts.iter().all(|i| i.op.blocks().iter().all(|nb| no_return(nb)))
}

/// Instructions in `insts`, nested ones included.
fn size_of(insts: &[Inst]) -> usize {
    insts.iter().map(|i| 1 + i.op.blocks().iter().map(|b| size_of(&b.insts)).sum::<usize>()).sum()
}
