//! Loop versioning for bounds checks: a check that a loop repeats on every iteration is made
//! once before the loop, and a copy of the loop without it runs when it passes.
//!
//! The shape handled is the counted loop after LICM, before strength reduction and rotation:
//!
//! ```text
//! loop(init) body(.., i, ..) { c = less i, n; if c { yield } else { break params }; B } ..
//! ```
//!
//! with `i` a `u32` body param and `n` defined outside the loop. Every execution of `B` has
//! `i < n`, whatever the step. A comparison `less x, len` in `B` (outside nested loops) with
//! `len` defined outside the loop and `x` either `i` or `add inv, i` (`inv` outside the loop) is
//! then true whenever `inv <= len && n <= len - inv` (`n <= len` for `x = i`): `inv + i <
//! inv + n <= len`, computed without wrapping. The pass takes such comparisons with `len` an
//! `arrayLength`: the bounds policy's buffer guard `u(x) < arrayLength(..)` (`docs/bounds.md`)
//! for an index that steps with the loop, or a user's guard of the same form, which are
//! expected to pass (a guard against another bound, such as `k + w < kw`, often fails, and
//! would make the whole test fail with it), and only those that decide an `if` (alone or
//! joined by `logical_and`), that is, guard an access. The pass rewrites
//!
//! ```text
//! r = loop(init) ..
//! ```
//!
//! into
//!
//! ```text
//! ok = (the conditions of every such comparison, joined with logical_and)
//! r = if ok { loop(init) .. with those comparisons true } else { loop(init) .. as before }
//! ```
//!
//! Both copies compute the same values, so the results are the same; the first just skips
//! comparisons it knows the outcome of. The decision must not split invocations that have to
//! execute the loop's collective operations together: a loop that holds a workgroup barrier
//! (so it runs in workgroup-uniform control flow) decides with [`Op::WorkgroupAll`] (PTX
//! `bar.red.and.pred`), one with subgroup or cooperative-matrix operations but no workgroup
//! barrier with `subgroupAll` over the invocations that reach it, any other loop per
//! invocation.
//!
//! Only innermost loops of at most [`MAX_LOOP`] instructions are versioned (each copy is
//! compiled, so the code grows by one loop), and only loops without calls or derivatives. It
//! runs on the PTX and LLVM backends' inlined functions (`optimize_inlined`).

use super::util::{clone_inst, Subst};
use crate::ir::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Most instructions (nested ones included) a loop may hold to be duplicated.
pub const MAX_LOOP: usize = 400;

/// Versions every innermost loop of `f` that has the shape in the module doc and holds at
/// least one comparison the hoisted test proves; returns how many loops it versioned.
pub fn version_loops(types: &Types, f: &mut Function) -> usize {
    let mut lengths = HashSet::default();
    array_lengths(&f.body, &mut lengths);
    if lengths.is_empty() {
        return 0;
    }
    let cx = Cx { types, lengths: &lengths };
    let mut body = std::mem::take(&mut f.body);
    let n = version_in(&mut body, &cx, f);
    f.body = body;
    n
}

/// What the walk needs besides the function.
struct Cx<'a> {
    types: &'a Types,
    /// The values `arrayLength` defines: the lengths the policy's checks compare with.
    lengths: &'a HashSet<ValueId>,
}

fn array_lengths(b: &Block, out: &mut HashSet<ValueId>) {
    for i in &b.insts {
        if let (Op::ArrayLength(_), Some(r)) = (&i.op, i.result) {
            out.insert(r);
        }
        for nb in i.op.blocks() {
            array_lengths(nb, out);
        }
    }
}

fn version_in(b: &mut Block, cx: &Cx, f: &mut Function) -> usize {
    let mut n = 0;
    let old = std::mem::take(&mut b.insts);
    for mut inst in old {
        let innermost =
            matches!(inst.op, Op::Loop { .. }) && !inst.op.blocks().into_iter().any(holds_loop);
        if innermost {
            if let Some((prefix, op)) = versioned(&inst, cx, f) {
                b.insts.extend(prefix);
                inst.op = op;
                n += 1;
            }
        } else {
            for nb in inst.op.blocks_mut() {
                n += version_in(nb, cx, f);
            }
        }
        b.insts.push(inst);
    }
    n
}

fn holds_loop(b: &Block) -> bool {
    b.insts
        .iter()
        .any(|i| matches!(i.op, Op::Loop { .. }) || i.op.blocks().into_iter().any(holds_loop))
}

/// How the invocations must agree on the decision.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Agree {
    /// Each invocation decides for itself.
    Invocation,
    /// Every invocation of a subgroup that reaches the loop decides the same.
    Subgroup,
    /// Every invocation of the workgroup decides the same.
    Workgroup,
}

/// What the loop holds that matters here: its size, how the decision must be agreed, and
/// whether something rules versioning out.
#[derive(Default)]
struct Scan {
    size: usize,
    agree: Option<Agree>,
    refuse: bool,
    defs: HashSet<ValueId>,
}

impl Scan {
    fn block(&mut self, b: &Block) {
        self.defs.extend(b.params.iter().copied());
        for i in &b.insts {
            self.size += 1;
            self.defs.extend(i.result);
            self.defs.extend(i.op.region_results().iter().copied());
            let need = match &i.op {
                Op::Barrier(b) if *b == Barrier::SUB_GROUP => Some(Agree::Subgroup),
                Op::Barrier(_) | Op::WorkgroupUniformLoad(_) | Op::WorkgroupAll(_) => {
                    Some(Agree::Workgroup)
                }
                Op::SubgroupBallot(_)
                | Op::SubgroupCollective { .. }
                | Op::SubgroupGather { .. }
                | Op::CoopLoad { .. }
                | Op::CoopStore { .. }
                | Op::CoopMultiplyAdd(..)
                | Op::CoopFill(_)
                | Op::CoopScalar { .. } => Some(Agree::Subgroup),
                Op::Call(..) | Op::Derivative(..) => {
                    self.refuse = true;
                    None
                }
                _ => None,
            };
            self.agree = self.agree.max(need);
            for nb in i.op.blocks() {
                self.block(nb);
            }
        }
    }
}

/// A comparison `less x, len` the hoisted test proves: its value, `inv` (none when `x` is the
/// counter itself) and `len`.
struct Proven {
    cmp: ValueId,
    inv: Option<ValueId>,
    len: ValueId,
}

fn is_u32(types: &Types, f: &Function, v: ValueId) -> bool {
    matches!(types.get(f.ty(v)), Type::Scalar(Scalar::U32))
}

/// The versioned form of the loop `inst`: the instructions of the test and the `if` that
/// replaces the loop.
fn versioned(inst: &Inst, cx: &Cx, f: &mut Function) -> Option<(Vec<Inst>, Op)> {
    let types = cx.types;
    let Op::Loop { body, results, .. } = &inst.op else { return None };
    // The header test: the first instruction that may leave the loop.
    let k = body.insts.iter().position(|i| !i.op.blocks().is_empty())?;
    let Op::If { cond, then_, else_, results: if_results } = &body.insts[k].op else {
        return None;
    };
    let continues = |b: &Block| b.insts.is_empty() && b.term == Terminator::Yield(Vec::new());
    let breaks = |b: &Block| b.insts.is_empty() && b.term == Terminator::Break(body.params.clone());
    if !if_results.is_empty() || !continues(then_) || !breaks(else_) {
        return None;
    }
    let (counter, bound) = body.insts[..k].iter().find_map(|i| match i.op {
        Op::Binary(BinaryOperator::Less, a, b) if i.result == Some(*cond) => Some((a, b)),
        _ => None,
    })?;
    let mut scan = Scan::default();
    scan.block(body);
    if let Op::Loop { continuing, .. } = &inst.op {
        scan.block(continuing);
    }
    if scan.refuse
        || scan.size > MAX_LOOP
        || !body.params.contains(&counter)
        || scan.defs.contains(&bound)
        || !is_u32(types, f, counter)
        || !is_u32(types, f, bound)
    {
        return None;
    }

    // The comparisons the test proves, in the body after the header test.
    let mut finder = Finder {
        counter,
        defs: &scan.defs,
        lengths: cx.lengths,
        types,
        f,
        adds: HashMap::default(),
        ands: HashMap::default(),
        conds: Vec::new(),
        found: Vec::new(),
    };
    finder.insts(&body.insts[k + 1..]);
    let proven = finder.guarding();
    if proven.is_empty() {
        return None;
    }

    // The test, before the loop.
    let span = inst.span;
    let bool_ty = f.ty(*cond);
    let u32_ty = f.ty(bound);
    let mut test = Vec::new();
    let mut emit = |op: Op, ty: TypeId, f: &mut Function| {
        let v = f.new_value(ty, None);
        test.push(Inst { result: Some(v), op, span });
        v
    };
    let mut seen = HashSet::default();
    let mut ok = None;
    for p in &proven {
        if !seen.insert((p.inv, p.len)) {
            continue;
        }
        let c = match p.inv {
            None => emit(Op::Binary(BinaryOperator::LessEqual, bound, p.len), bool_ty, f),
            Some(inv) => {
                let fits = emit(Op::Binary(BinaryOperator::LessEqual, inv, p.len), bool_ty, f);
                let room = emit(Op::Binary(BinaryOperator::Subtract, p.len, inv), u32_ty, f);
                let all = emit(Op::Binary(BinaryOperator::LessEqual, bound, room), bool_ty, f);
                emit(Op::Binary(BinaryOperator::LogicalAnd, fits, all), bool_ty, f)
            }
        };
        ok = Some(match ok {
            None => c,
            Some(o) => emit(Op::Binary(BinaryOperator::LogicalAnd, o, c), bool_ty, f),
        });
    }
    let ok = ok?;
    let ok = match scan.agree.unwrap_or(Agree::Invocation) {
        Agree::Invocation => ok,
        Agree::Subgroup => emit(
            Op::SubgroupCollective {
                op: SubgroupOperation::All,
                kind: CollectiveOperation::Reduce,
                arg: ok,
            },
            bool_ty,
            f,
        ),
        Agree::Workgroup => emit(Op::WorkgroupAll(ok), bool_ty, f),
    };

    // The fast copy: every value fresh, the proven comparisons true.
    let mut map = HashMap::default();
    let mut fast = clone_inst(inst, &mut map, f);
    let trues: HashSet<ValueId> = proven.iter().filter_map(|p| map.get(&p.cmp).copied()).collect();
    let mut subst = Subst::default();
    settle(&mut fast.op, &trues, &mut subst);
    let fast_results = fast.op.region_results().to_vec();

    // The checked copy: the loop as it was, with fresh results.
    let mut slow = inst.clone();
    let slow_results: Vec<ValueId> = results.iter().map(|&r| f.new_value(f.ty(r), None)).collect();
    if let Op::Loop { results, .. } = &mut slow.op {
        results.clone_from(&slow_results);
    }
    let arm = |i: Inst, r: Vec<ValueId>| Block {
        params: Vec::new(),
        insts: vec![i],
        term: Terminator::Yield(r),
    };
    let op = Op::If {
        cond: ok,
        then_: arm(fast, fast_results),
        else_: arm(slow, slow_results),
        results: results.clone(),
    };
    Some((test, op))
}

/// Finds, in a loop's body, the comparisons the hoisted test proves.
struct Finder<'a> {
    counter: ValueId,
    /// The values defined in the loop.
    defs: &'a HashSet<ValueId>,
    /// The values `arrayLength` defines.
    lengths: &'a HashSet<ValueId>,
    types: &'a Types,
    f: &'a Function,
    /// `add a, b` and `logical_and a, b` by result.
    adds: HashMap<ValueId, (ValueId, ValueId)>,
    ands: HashMap<ValueId, (ValueId, ValueId)>,
    /// The conditions of the `if`s.
    conds: Vec<ValueId>,
    found: Vec<Proven>,
}

impl Finder<'_> {
    /// Walks `insts` and their regions (nested loops have none: only innermost loops are
    /// versioned).
    fn insts(&mut self, insts: &[Inst]) {
        for i in insts {
            match (&i.op, i.result) {
                (Op::Binary(BinaryOperator::Add, a, b), Some(r)) => {
                    self.adds.insert(r, (*a, *b));
                }
                (Op::Binary(BinaryOperator::LogicalAnd, a, b), Some(r)) => {
                    self.ands.insert(r, (*a, *b));
                }
                (Op::Binary(BinaryOperator::Less, x, len), Some(r)) => self.compare(r, *x, *len),
                (Op::If { cond, .. }, _) => self.conds.push(*cond),
                _ => {}
            }
            for nb in i.op.blocks() {
                self.insts(&nb.insts);
            }
        }
    }

    /// `r = less x, len`: proven when `len` is an `arrayLength` from outside the loop and `x`
    /// the counter, or the counter plus a value from outside the loop. Only `arrayLength`:
    /// the policy's checks are expected to pass, while a user's guard against another bound
    /// (`k + w < kw`) often fails and would make the whole test fail with it.
    fn compare(&mut self, r: ValueId, x: ValueId, len: ValueId) {
        let outside = |v: ValueId| !self.defs.contains(&v);
        if !outside(len) || !self.lengths.contains(&len) || !is_u32(self.types, self.f, x) {
            return;
        }
        let inv = if x == self.counter {
            None
        } else {
            match self.adds.get(&x) {
                Some(&(a, b)) if a == self.counter && outside(b) => Some(b),
                Some(&(a, b)) if b == self.counter && outside(a) => Some(a),
                _ => return,
            }
        };
        self.found.push(Proven { cmp: r, inv, len });
    }

    /// The comparisons found that decide an `if` (alone or joined by `logical_and`): a
    /// guarded access. A comparison that only computes a value (a cooperative tile's limit)
    /// saves too little to be worth a second copy of the loop.
    fn guarding(self) -> Vec<Proven> {
        let mut guards = HashSet::default();
        let mut stack = self.conds;
        while let Some(v) = stack.pop() {
            if guards.insert(v) {
                if let Some(&(a, b)) = self.ands.get(&v) {
                    stack.extend([a, b]);
                }
            }
        }
        self.found.into_iter().filter(|p| guards.contains(&p.cmp)).collect()
    }
}

/// Makes the comparisons `trues` constant `true` in `op`'s regions, records in `subst` that
/// `logical_and t, x` (either order) is `x`, and replaces an `if t` whose true arm yields by
/// that arm's instructions.
fn settle(op: &mut Op, trues: &HashSet<ValueId>, subst: &mut Subst) {
    for b in op.blocks_mut() {
        settle_block(b, trues, subst);
    }
}

fn settle_block(b: &mut Block, trues: &HashSet<ValueId>, subst: &mut Subst) {
    let old = std::mem::take(&mut b.insts);
    for mut i in old {
        subst.apply_op(&mut i.op);
        match (&mut i.op, i.result) {
            (Op::Binary(BinaryOperator::Less, ..), Some(r)) if trues.contains(&r) => {
                i.op = Op::Const(ConstValue::Bool(true));
            }
            (Op::Binary(BinaryOperator::LogicalAnd, a, c), Some(r)) => {
                if trues.contains(a) {
                    subst.set(r, *c);
                } else if trues.contains(c) {
                    subst.set(r, *a);
                }
            }
            (Op::If { cond, then_, results, .. }, _) if trues.contains(cond) => {
                if let Terminator::Yield(args) = &then_.term {
                    let (args, results) = (args.clone(), results.clone());
                    let mut arm = std::mem::take(then_);
                    settle_block(&mut arm, trues, subst);
                    b.insts.append(&mut arm.insts);
                    for (r, a) in results.into_iter().zip(args) {
                        subst.set(r, a);
                    }
                    continue;
                }
            }
            _ => {}
        }
        settle(&mut i.op, trues, subst);
        b.insts.push(i);
    }
    subst.apply_term(&mut b.term);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (loops, `workgroup_all`s, `subgroupAll`s) in `main` of `src` as the PTX backend gets
    /// it (bounds policy on, calls inlined, the inlined passes run; the verifier checks it).
    fn shape(body: &str) -> (usize, usize, usize) {
        let src = format!(
            "@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> o: array<u32>;
var<workgroup> t: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32) {{
    let n = o[0];
    let b = o[1];
    var s = 0u;
{body}
    o[l + 2u] = s;
}}"
        );
        let m = crate::compile("t.wgsl", &src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}\n{src}"));
        let id = m.entry_points[0].function;
        let mut f = super::super::inline_calls(&m, id).expect("inlines");
        super::super::optimize_inlined(&m, id, &mut f).expect("optimizes");
        fn count(b: &Block, out: &mut (usize, usize, usize)) {
            for i in &b.insts {
                out.0 += usize::from(matches!(i.op, Op::Loop { .. }));
                out.1 += usize::from(matches!(i.op, Op::WorkgroupAll(_)));
                out.2 += usize::from(matches!(
                    i.op,
                    Op::SubgroupCollective { op: SubgroupOperation::All, .. }
                ));
                for nb in i.op.blocks() {
                    count(nb, out);
                }
            }
        }
        let mut n = (0, 0, 0);
        count(&f.body, &mut n);
        n
    }

    #[test]
    fn counted_loops_with_checked_loads_get_a_check_free_copy() {
        // Per invocation, an offset index and the counter itself.
        assert_eq!(shape("for (var i = 0u; i < n; i++) { s += a[b + i]; }"), (2, 0, 0));
        assert_eq!(shape("for (var i = l; i < n; i += 64u) { s += a[i]; }"), (2, 0, 0));
        // A workgroup barrier in the loop: one decision for the workgroup.
        let staged = "for (var i = 0u; i < n; i++) {
            t[l] = a[i + b]; workgroupBarrier(); s += t[63u - l]; workgroupBarrier(); }";
        assert_eq!(shape(staged), (2, 1, 0));
    }

    #[test]
    fn other_loops_and_indices_stay_as_they_are() {
        // The index is not the counter plus an invariant.
        assert_eq!(shape("for (var i = 0u; i < n; i++) { s += a[i * 2u]; }"), (1, 0, 0));
        assert_eq!(shape("for (var i = 0u; i < n; i++) { s += a[b + s]; }"), (1, 0, 0));
        // The bound is not below the counter's test (`<=`), or changes in the loop.
        assert_eq!(shape("for (var i = 0u; i <= n; i++) { s += a[b + i]; }"), (1, 0, 0));
        assert_eq!(
            shape("var m = n; for (var i = 0u; i < m; i++) { s += a[b + i]; m -= 1u; }"),
            (1, 0, 0)
        );
        // A nested loop: only the inner one, innermost, is versioned (the outer one runs too
        // often to be unrolled).
        let nested =
            "for (var j = 0u; j < 40u; j++) { for (var i = 0u; i < n; i++) { s += a[j + i]; } }";
        assert_eq!(shape(nested), (3, 0, 0));
    }
}
