//! Loop rotation (inversion): a loop that tests its bound at the top,
//!
//! ```text
//! r = loop(init) body(p) { H(p); if c { yield } else { break p }; B } continuing(q) { C; yield n }
//! ```
//!
//! becomes a guarded loop that tests at the bottom,
//!
//! ```text
//! r = if c[p := init] {
//!     loop(init) body(p) { H(p); B } continuing(q) { C; H(n); break_if !c[p := n]; yield n }
//! } else { init }
//! ```
//!
//! so the back edge is one conditional branch instead of an exit branch at the top plus an
//! unconditional jump at the bottom. `H` is duplicated (before the loop and in the continuing
//! block), so it must be cheap and pure: plain arithmetic, comparisons and `if` regions of
//! such, no memory reads, no barriers, subgroup or cooperative operations, no calls. The copy
//! of `H` left in the body serves the body's uses of its values; DCE removes it when unused.
//! The test's `break` must pass the body's params unchanged, so that leaving through
//! `break_if` (with the continuing block's yielded state, the next body params) or through the
//! guard's `else` (with `init`) gives the loop's results the same values as before.

use super::util::{clone_inst, collect_consts, extend_known};
use crate::ir::*;
use rustc_hash::FxHashMap as HashMap;

/// Most instructions (nested ones included) a loop header may hold to be duplicated.
const MAX_HEADER: usize = 12;

/// Rotates every loop of `f` that has the shape in the module doc, innermost first.
pub fn rotate_loops(f: &mut Function) {
    let mut consts = HashMap::default();
    collect_consts(&f.body, &mut consts);
    let mut body = std::mem::take(&mut f.body);
    rotate_in(&mut body, f, &consts);
    f.body = body;
}

fn rotate_in(b: &mut Block, f: &mut Function, consts: &HashMap<ValueId, ConstValue>) {
    let old = std::mem::take(&mut b.insts);
    for mut inst in old {
        for nb in inst.op.blocks_mut() {
            rotate_in(nb, f, consts);
        }
        // The guard's copy of the header goes right before the loop, in the same block.
        if let Some((prefix, op)) = rotated(&inst.op, inst.span, f, consts) {
            b.insts.extend(prefix);
            inst.op = op;
        }
        b.insts.push(inst);
    }
}

/// Whether `b` (an arm of a header `if`) is pure and leaves only by `Yield`; adds its size.
fn pure_block(b: &Block, size: &mut usize) -> bool {
    matches!(b.term, Terminator::Yield(_)) && b.insts.iter().all(|i| pure_inst(&i.op, size))
}

/// Whether `op` may be evaluated again with the same operands without changing anything.
fn pure_inst(op: &Op, size: &mut usize) -> bool {
    *size += 1;
    match op {
        Op::If { then_, else_, .. } => pure_block(then_, size) && pure_block(else_, size),
        op => !op.has_side_effects() && !op.reads_memory() && !matches!(op, Op::LocalAddr(_)),
    }
}

/// The loop body's instruction `k` as a header test: an `if` without results, one arm empty
/// and the other leaving with exactly the body's params; its condition and whether the loop
/// is left when it is true (also the test [`super::unroll`] reads).
pub(super) fn header_test(body: &Block, k: usize) -> Option<(ValueId, bool)> {
    let Op::If { cond, then_, else_, results } = &body.insts.get(k)?.op else { return None };
    if !results.is_empty() {
        return None;
    }
    if is_continue_arm(else_) && is_break_arm(then_, &body.params) {
        Some((*cond, true))
    } else if is_continue_arm(then_) && is_break_arm(else_, &body.params) {
        Some((*cond, false))
    } else {
        None
    }
}

/// Whether `b` is an empty arm that only yields nothing / breaks with exactly `params`.
fn is_continue_arm(b: &Block) -> bool {
    b.insts.is_empty() && b.term == Terminator::Yield(Vec::new())
}
fn is_break_arm(b: &Block, params: &[ValueId]) -> bool {
    b.insts.is_empty() && b.term == Terminator::Break(params.to_vec())
}

/// The rotated form of `op` when it is a loop of the documented shape: the guard's copy of
/// the header and the guarding `if` that replaces the loop (with the loop's results).
fn rotated(
    op: &Op,
    span: Span,
    f: &mut Function,
    consts: &HashMap<ValueId, ConstValue>,
) -> Option<(Vec<Inst>, Op)> {
    let Op::Loop { init, body, continuing, break_if: None, results } = op else { return None };
    let Terminator::Yield(next) = &continuing.term else { return None };
    // The first instruction that may leave the loop must be the header test.
    let k = body.insts.iter().position(|i| !i.op.blocks().is_empty() && !is_pure_if(&i.op))?;
    let (cond, exit_when_true) = header_test(body, k)?;
    let header = &body.insts[..k];
    let mut size = 0;
    if !header.iter().all(|i| pure_inst(&i.op, &mut size)) || size > MAX_HEADER {
        return None;
    }
    // The condition must be computed by the header (so that its copy in the continuing block
    // is defined there, as `break_if` requires).
    if !header.iter().any(|i| i.result == Some(cond) || i.op.region_results().contains(&cond)) {
        return None;
    }
    let bool_ty = f.ty(cond);

    // The guard: the header evaluated on `init`.
    let mut map: HashMap<ValueId, ValueId> =
        body.params.iter().copied().zip(init.clone()).collect();
    let guard_insts: Vec<Inst> = header.iter().map(|i| clone_inst(i, &mut map, f)).collect();
    let guard_cond = map[&cond];

    // The continuing block: the header evaluated on the next state, then the exit test.
    let mut map: HashMap<ValueId, ValueId> =
        body.params.iter().copied().zip(next.clone()).collect();
    let mut new_continuing = continuing.clone();
    new_continuing.insts.extend(header.iter().map(|i| clone_inst(i, &mut map, f)));
    let tail_cond = map[&cond];
    let exit = if exit_when_true {
        tail_cond
    } else {
        let not = f.new_value(bool_ty, None);
        new_continuing.insts.push(Inst {
            result: Some(not),
            op: Op::Unary(UnaryOperator::LogicalNot, tail_cond),
            span,
        });
        not
    };

    let mut new_body = body.clone();
    new_body.insts.remove(k);
    // A guard known to enter (a counted loop from a constant start below a constant bound)
    // is dropped: the loop itself produces the results.
    if known_bool(&guard_insts, guard_cond, consts) == Some(!exit_when_true) {
        let op = Op::Loop {
            init: init.clone(),
            body: new_body,
            continuing: new_continuing,
            break_if: Some(exit),
            results: results.clone(),
        };
        return Some((Vec::new(), op));
    }
    let loop_results: Vec<ValueId> = results.iter().map(|&r| f.new_value(f.ty(r), None)).collect();
    let inner = Op::Loop {
        init: init.clone(),
        body: new_body,
        continuing: new_continuing,
        break_if: Some(exit),
        results: loop_results.clone(),
    };
    let run = Block {
        params: Vec::new(),
        insts: vec![Inst { result: None, op: inner, span }],
        term: Terminator::Yield(loop_results),
    };
    let skip =
        Block { params: Vec::new(), insts: Vec::new(), term: Terminator::Yield(init.clone()) };
    let (then_, else_) = if exit_when_true { (skip, run) } else { (run, skip) };
    let guard = Op::If { cond: guard_cond, then_, else_, results: results.clone() };
    Some((guard_insts, guard))
}

/// The value of `cond` when the guard's copy of the header computes it from constants alone:
/// a chain of binary operations whose leaves are `Const` instructions of the function
/// (`consts`, gathered before rotation) or of `insts`.
fn known_bool(
    insts: &[Inst],
    cond: ValueId,
    consts: &HashMap<ValueId, ConstValue>,
) -> Option<bool> {
    let mut consts = consts.clone();
    extend_known(insts, &mut consts);
    match consts.get(&cond) {
        Some(ConstValue::Bool(b)) => Some(*b),
        _ => None,
    }
}

/// Whether `op` is an `if` region the header may hold (not one that may leave the loop).
fn is_pure_if(op: &Op) -> bool {
    let mut size = 0;
    matches!(op, Op::If { .. }) && pure_inst(op, &mut size)
}
