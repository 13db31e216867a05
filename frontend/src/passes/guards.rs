//! Merges guards nested directly inside another guard into one condition.
//!
//! The bounds policy puts each buffer access of a checked module under its own `if`
//! (`docs/bounds.md`); inside a user's guard that gives two nested branches around one load:
//!
//! ```text
//! %v = if %inside {
//!   %ok = less %i, %len            // P: cheap, pure
//!   %x = if %ok { %l = load %p; yield %l } else { yield %zero }
//!   %y = compose %x, ..            // Q: cheap, pure
//!   yield %y
//! } else {
//!   yield %zero_v                  // F: what the skipped arm gives
//! }
//! ```
//!
//! ptxas predicates a load under one branch but keeps two nested branches as branches with a
//! convergence region each (`BSSY`/`BSYNC`), so this pass rewrites the shape above to
//!
//! ```text
//! %ok = less %i, %len
//! %c = logical_and %inside, %ok
//! %x = if %c { %l = load %p; yield %l } else { yield %zero }
//! %y = compose %x, ..
//! ```
//!
//! and uses of `%v` read `%y`. The same holds for several inner `if`s in one outer arm (each
//! gets `outer && inner`) and for outer `if`s without results (guarded stores).
//!
//! The rewrite is exact when:
//! * the outer arm holds nothing but the inner `if`s and instructions that may run
//!   unconditionally: no side effects, no memory reads (`arrayLength` is no read: a buffer's
//!   size is fixed), no dynamic indexing of values, no regions; pointer formation
//!   ([`Op::Access`]) only with [`Speculate::Addresses`], otherwise it must be used only inside
//!   one inner `if`'s true arm and moves there;
//! * every inner `if`'s false arm is such instructions too (it now also runs when the outer
//!   condition is false);
//! * the outer false arm is such instructions, and each value the outer `if` yields is the
//!   same on the new path where the outer condition is false: with every inner `if` taking its
//!   false arm, the yielded value is the outer false arm's (the same value, or both zero);
//! * at most [`MAX_HOISTED`] instructions newly run when the outer condition is false.
//!
//! Inner `if`s are merged first, so `if a { if b { if c { .. } } }` becomes one `a && b && c`.
//! A load from a uniform buffer through constant member indices counts as an instruction that
//! may run unconditionally (it is always inside the buffer, and nothing writes uniform memory).
//!
//! Two more rewrites prepare and finish the merge, on every block:
//! * a last `if` whose arms both `return` (the WGSL front end puts a function's final `return`
//!   into both arms of its last `if`) yields instead, and the block returns after it;
//! * two `if`s on the same condition with only such instructions between them become one
//!   (`join_same_conditions`): a checked load and a checked store of `y[i]` share one guard.

use super::licm::Speculate;
use super::util::Subst;
use crate::ir::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// At most this many instructions (constants not counted) may newly run when the outer
/// condition is false.
pub const MAX_HOISTED: usize = 12;

/// Merges nested guards in every function of `m` (module doc); returns whether it changed
/// anything.
pub fn merge_guards(m: &mut Module, spec: Speculate) -> bool {
    let mut changed = false;
    for f in &mut m.functions {
        changed |= merge_guards_function(&m.globals, f, spec);
    }
    changed
}

/// [`merge_guards`] for one function.
pub fn merge_guards_function(globals: &[Global], f: &mut Function, spec: Speculate) -> bool {
    let mut body = std::mem::take(&mut f.body);
    let mut changed = returns_to_yields(f, &mut body);
    let mut defs = HashMap::default();
    collect_defs(&body, &mut defs);
    let mut g = Guards { globals, f, spec, defs, subst: Subst::default(), changed: false };
    g.block(&mut body);
    let subst = std::mem::take(&mut g.subst);
    changed |= g.changed;
    if !subst.is_empty() {
        subst.apply_block(&mut body);
    }
    f.body = body;
    changed
}

/// Every instruction-defined value's operation (a snapshot; values the pass adds are never
/// asked about).
fn collect_defs(b: &Block, out: &mut HashMap<ValueId, Op>) {
    for inst in &b.insts {
        if let Some(r) = inst.result {
            if !is_region(&inst.op) {
                out.insert(r, inst.op.clone());
            }
        }
        for nb in inst.op.blocks() {
            collect_defs(nb, out);
        }
    }
}

struct Guards<'a> {
    globals: &'a [Global],
    f: &'a mut Function,
    spec: Speculate,
    defs: HashMap<ValueId, Op>,
    subst: Subst,
    changed: bool,
}

/// How an instruction of an outer arm may move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    /// It may run unconditionally.
    Hoist,
    /// Pointer formation: only into the true arm of the inner `if` that alone uses it.
    Sink,
    /// Neither: the arm is left alone.
    Stay,
}

impl Guards<'_> {
    fn block(&mut self, b: &mut Block) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            for nb in inst.op.blocks_mut() {
                self.block(nb);
            }
            match self.merge(inst) {
                Ok(new) => {
                    self.changed = true;
                    out.extend(new);
                }
                Err(inst) => out.push(inst),
            }
        }
        b.insts = self.join_same_conditions(out);
    }

    /// Joins `%r1 = if %c { A } else { E }; Q; %r2 = if %c { B } else { F }` (the same `%c`,
    /// `Q` instructions that may run anywhere) into one `if %c { A; Q'; B } else { E; F }`
    /// yielding `%r1` and `%r2`. `Q` stays before the joined `if`, except the instructions
    /// that read `%r1`: they stay after it, and copies of the ones `B` needs (`Q'`, reading
    /// what `A` yields) open `B`. `F` must not need them; it reads what `E` yields for `%r1`.
    fn join_same_conditions(&mut self, insts: Vec<Inst>) -> Vec<Inst> {
        let mut out: Vec<Inst> = Vec::with_capacity(insts.len());
        for inst in insts {
            let Op::If { cond, .. } = &inst.op else {
                out.push(inst);
                continue;
            };
            let earlier =
                out.iter().rposition(|i| matches!(&i.op, Op::If { cond: c, .. } if c == cond));
            let Some(k) = earlier.filter(|&k| {
                out[k + 1..].iter().all(|i| self.motion(&i.op) == Motion::Hoist)
                    && yields_both(&out[k])
                    && yields_both(&inst)
            }) else {
                out.push(inst);
                continue;
            };
            let between: Vec<Inst> = out.drain(k + 1..).collect();
            let (first, second) = match (out.pop().map(IfParts::of), IfParts::of(inst)) {
                (Some(Ok(a)), Ok(b)) => (a, b),
                (first, second) => {
                    // Not reached: both are `if`s; put back whatever was taken.
                    out.extend(first.map(|r| r.map_or_else(|i| i, IfParts::into_inst)));
                    out.extend(between);
                    out.push(second.map_or_else(|i| i, IfParts::into_inst));
                    continue;
                }
            };
            match self.join(first, between, second) {
                Ok(joined) => {
                    self.changed = true;
                    out.extend(joined);
                }
                Err((first, between, second)) => {
                    out.push(first.into_inst());
                    out.extend(between);
                    out.push(second.into_inst());
                }
            }
        }
        out
    }

    /// The instructions replacing `first`, `between` and `second` (see
    /// [`Self::join_same_conditions`]), or the three back when `F` needs a value of `Q` that
    /// reads the first `if`'s results.
    #[allow(clippy::type_complexity)]
    fn join(
        &mut self,
        mut first: IfParts,
        between: Vec<Inst>,
        mut second: IfParts,
    ) -> Result<Vec<Inst>, (IfParts, Vec<Inst>, IfParts)> {
        // Which instructions of Q read the first `if`'s results (directly or through Q).
        let mut tainted: HashSet<ValueId> = first.results.iter().copied().collect();
        let mut reads_r1 = vec![false; between.len()];
        for (k, i) in between.iter().enumerate() {
            let mut t = false;
            i.op.for_each_operand(|v| t |= tainted.contains(&v));
            if t {
                reads_r1[k] = true;
                tainted.extend(i.result);
            }
        }
        let mut f_uses = Vec::new();
        used_in(&second.else_, &mut f_uses);
        if f_uses.iter().any(|v| tainted.contains(v) && !first.results.contains(v)) {
            return Err((first, between, second));
        }
        let ay = first.then_.term.args().to_vec();
        let ey = first.else_.term.args().to_vec();
        // Inside the true arm the first results are what A yields; copies of Q's instructions
        // that read them get new values.
        let mut in_then = Subst::default();
        let mut in_else = Subst::default();
        for ((&r, &y), &z) in first.results.iter().zip(&ay).zip(&ey) {
            in_then.set(r, y);
            in_else.set(r, z);
        }
        let mut before = Vec::new();
        let mut after = Vec::new();
        for (i, t) in between.into_iter().zip(reads_r1) {
            if !t {
                before.push(i);
                continue;
            }
            let mut c = i.clone();
            in_then.apply_op(&mut c.op);
            if let Some(r) = i.result {
                let nr = self.f.new_value(self.f.ty(r), None);
                in_then.set(r, nr);
                c.result = Some(nr);
            }
            first.then_.insts.push(c);
            after.push(i);
        }
        in_then.apply_block(&mut second.then_);
        in_else.apply_block(&mut second.else_);
        let by = second.then_.term.args().to_vec();
        let fy = second.else_.term.args().to_vec();
        first.then_.insts.append(&mut second.then_.insts);
        first.then_.term = Terminator::Yield(ay.into_iter().chain(by).collect());
        first.else_.insts.append(&mut second.else_.insts);
        first.else_.term = Terminator::Yield(ey.into_iter().chain(fy).collect());
        first.results.append(&mut second.results);
        before.push(first.into_inst());
        before.extend(after);
        Ok(before)
    }

    fn motion(&self, op: &Op) -> Motion {
        match op {
            Op::AccessIndex(base, _) if self.uniform_member(*base, 0) => Motion::Hoist,
            Op::Access(..) | Op::AccessIndex(..) => {
                if self.spec == Speculate::Addresses {
                    Motion::Hoist
                } else {
                    Motion::Sink
                }
            }
            Op::Load(p) if self.uniform_member(*p, 0) => Motion::Hoist,
            Op::ExtractDyn(..) | Op::InsertDyn { .. } => Motion::Stay,
            op if is_region(op) || op.has_side_effects() || op.reads_memory() => Motion::Stay,
            _ => Motion::Hoist,
        }
    }

    /// Whether `p` is a uniform buffer or a member of one reached through constant member
    /// indices only: always inside the buffer, and nothing writes it during a dispatch.
    fn uniform_member(&self, p: ValueId, depth: u32) -> bool {
        match self.defs.get(&p) {
            Some(Op::AccessIndex(base, _)) if depth < 16 => self.uniform_member(*base, depth + 1),
            Some(Op::GlobalAddr(g)) => {
                self.globals.get(g.index()).is_some_and(|g| g.space == AddressSpace::Uniform)
            }
            _ => false,
        }
    }

    /// Whether `b` may run where it did not: only hoistable instructions, ending in `yield`.
    fn pure_arm(&self, b: &Block) -> bool {
        matches!(b.term, Terminator::Yield(_))
            && b.insts.iter().all(|i| self.motion(&i.op) == Motion::Hoist)
    }

    /// The rewritten instructions for `inst`, or `inst` back when the module doc's conditions
    /// do not hold.
    fn merge(&mut self, inst: Inst) -> Result<Vec<Inst>, Inst> {
        let Some(sink_to) = self.plan(&inst) else { return Err(inst) };
        let parts = IfParts::of(inst)?;
        Ok(self.rewrite(parts, &sink_to))
    }

    /// Checks the module doc's conditions on `inst`; when they hold, where each instruction
    /// that must sink goes (see [`Self::sink_targets`]).
    fn plan(&self, inst: &Inst) -> Option<HashMap<usize, usize>> {
        let Op::If { then_, else_, results, .. } = &inst.op else { return None };
        let (Terminator::Yield(ys), Terminator::Yield(fs)) = (&then_.term, &else_.term) else {
            return None;
        };
        if !self.pure_arm(else_) || ys.len() != results.len() || fs.len() != results.len() {
            return None;
        }
        let mut inner = Vec::new();
        let mut motion = Vec::with_capacity(then_.insts.len());
        let mut hoisted = 0;
        let counts = |i: &Inst| !matches!(i.op, Op::Const(_));
        for (k, i) in then_.insts.iter().enumerate() {
            match &i.op {
                Op::If { else_: e, .. } if self.pure_arm(e) => {
                    inner.push(k);
                    motion.push(Motion::Stay);
                    hoisted += e.insts.iter().filter(|i| counts(i)).count();
                }
                op => match self.motion(op) {
                    Motion::Stay => return None,
                    m => {
                        hoisted += usize::from(m == Motion::Hoist && counts(i));
                        motion.push(m);
                    }
                },
            }
        }
        if inner.is_empty() || hoisted > MAX_HOISTED {
            return None;
        }
        let sink_to = self.sink_targets(then_, &motion, &inner, ys)?;
        // Where the outer condition is false every inner `if` now takes its false arm: each
        // yielded value must then equal the outer false arm's.
        let mut assume: HashMap<ValueId, ValueId> = HashMap::default();
        for &k in &inner {
            if let Op::If { else_, results, .. } = &then_.insts[k].op {
                assume.extend(results.iter().copied().zip(else_.term.args().iter().copied()));
            }
        }
        for (&y, &fv) in ys.iter().zip(fs) {
            let (y, fv) = (self.subst.get(y), self.subst.get(fv));
            let y2 = assume.get(&y).map_or(y, |&w| self.subst.get(w));
            if y2 != fv && !(self.zero(y, &assume, 0) && self.zero(fv, &assume, 0)) {
                return None;
            }
        }
        Some(sink_to)
    }

    /// The outer true arm's instructions in the outer `if`'s place, each inner `if` under
    /// `outer && inner` with the instructions sunk into it first; uses of the outer results
    /// read what the true arm yielded.
    fn rewrite(&mut self, outer: IfParts, sink_to: &HashMap<usize, usize>) -> Vec<Inst> {
        let IfParts { cond: outer_cond, then_: arm, results, span, .. } = outer;
        let bool_ty = self.f.ty(outer_cond);
        let ys = arm.term.args().to_vec();
        let mut sunk: HashMap<usize, Vec<Inst>> = HashMap::default();
        let mut kept = Vec::with_capacity(arm.insts.len());
        for (k, i) in arm.insts.into_iter().enumerate() {
            match sink_to.get(&k) {
                Some(&to) => sunk.entry(to).or_default().push(i),
                None => kept.push((k, i)),
            }
        }
        let mut out = Vec::with_capacity(kept.len() * 2);
        for (k, mut i) in kept {
            if let Op::If { cond, then_, .. } = &mut i.op {
                let c = self.f.new_value(bool_ty, None);
                let op = Op::Binary(BinaryOperator::LogicalAnd, outer_cond, *cond);
                out.push(Inst { result: Some(c), op, span });
                *cond = c;
                if let Some(mut s) = sunk.remove(&k) {
                    s.append(&mut then_.insts);
                    then_.insts = s;
                }
            }
            out.push(i);
        }
        for (r, y) in results.into_iter().zip(ys) {
            self.subst.set(r, y);
        }
        out
    }

    /// For each instruction of `arm` marked [`Motion::Sink`]: the index of the one inner `if`
    /// whose true arm holds all its uses (directly or through other sunk instructions).
    /// `None` when some such instruction is used elsewhere.
    fn sink_targets(
        &self,
        arm: &Block,
        motion: &[Motion],
        inner: &[usize],
        yields: &[ValueId],
    ) -> Option<HashMap<usize, usize>> {
        let mut out = HashMap::default();
        if !motion.contains(&Motion::Sink) {
            return Some(out);
        }
        // Uses per value, by position in the arm (an inner `if` counts as using what its
        // true arm uses; its condition and false arm are uses outside any true arm).
        let mut users: HashMap<ValueId, HashSet<Option<usize>>> = HashMap::default();
        for (k, i) in arm.insts.iter().enumerate() {
            if let Op::If { cond, then_, else_, .. } = &i.op {
                users.entry(*cond).or_default().insert(None);
                let mut inside = Vec::new();
                used_in(then_, &mut inside);
                for v in inside {
                    users.entry(v).or_default().insert(Some(k));
                }
                let mut other = Vec::new();
                used_in(else_, &mut other);
                for v in other {
                    users.entry(v).or_default().insert(None);
                }
            } else {
                i.op.for_each_operand(|v| {
                    users.entry(v).or_default().insert(Some(k));
                });
                for nb in i.op.blocks() {
                    let mut vs = Vec::new();
                    used_in(nb, &mut vs);
                    for v in vs {
                        users.entry(v).or_default().insert(None);
                    }
                }
            }
        }
        for &y in yields {
            users.entry(y).or_default().insert(None);
        }
        // Backwards, so an instruction used only by later sunk ones follows them.
        for k in (0..arm.insts.len()).rev() {
            if motion[k] != Motion::Sink {
                continue;
            }
            let r = arm.insts[k].result?;
            let mut target = None;
            for u in users.get(&r).into_iter().flatten() {
                let to = match u {
                    Some(j) if inner.contains(j) => *j,
                    Some(j) => *out.get(j)?,
                    None => return None,
                };
                if target.is_some_and(|t| t != to) {
                    return None;
                }
                target = Some(to);
            }
            out.insert(k, target?);
        }
        Some(out)
    }

    /// Whether `v` is the zero value of its type, reading inner `if` results as the value of
    /// their false arm (`assume`).
    fn zero(&self, v: ValueId, assume: &HashMap<ValueId, ValueId>, depth: u32) -> bool {
        let v = self.subst.get(v);
        if depth > 16 {
            return false;
        }
        if let Some(&w) = assume.get(&v) {
            return self.zero(w, assume, depth + 1);
        }
        let Some(op) = self.defs.get(&v) else { return false };
        let z = |w: ValueId| self.zero(w, assume, depth + 1);
        match op {
            Op::Const(c) => const_zero(c),
            Op::Compose(parts) => parts.iter().all(|&p| z(p)),
            Op::Splat(x) | Op::Extract(x, _) | Op::Swizzle(x, _) => z(*x),
            _ => false,
        }
    }
}

/// An `if` instruction taken apart.
struct IfParts {
    result: Option<ValueId>,
    span: Span,
    cond: ValueId,
    then_: Block,
    else_: Block,
    results: Vec<ValueId>,
}

impl IfParts {
    /// `inst`'s parts, or `inst` back when it is no `if`.
    fn of(inst: Inst) -> Result<IfParts, Inst> {
        match inst.op {
            Op::If { cond, then_, else_, results } => {
                Ok(IfParts { result: inst.result, span: inst.span, cond, then_, else_, results })
            }
            op => Err(Inst { op, ..inst }),
        }
    }

    fn into_inst(self) -> Inst {
        let IfParts { result, span, cond, then_, else_, results } = self;
        Inst { result, op: Op::If { cond, then_, else_, results }, span }
    }
}

/// Whether `inst` is an `if` whose arms both end in `yield`.
fn yields_both(inst: &Inst) -> bool {
    matches!(&inst.op, Op::If { then_, else_, .. }
        if matches!(then_.term, Terminator::Yield(_)) && matches!(else_.term, Terminator::Yield(_)))
}

/// Rewrites `if %c { A; return %x } else { B; return %y }` as the last instruction of a block
/// that ends there (`unreachable`) to `%r = if %c { A; yield %x } else { B; yield %y };
/// return %r`, innermost first, so that such an `if` is a guard like any other (the WGSL front
/// end puts a function's final `return` into both arms of its last `if`). Returns whether it
/// changed anything.
fn returns_to_yields(f: &mut Function, b: &mut Block) -> bool {
    let mut changed = false;
    for inst in &mut b.insts {
        for nb in inst.op.blocks_mut() {
            changed |= returns_to_yields(f, nb);
        }
    }
    if !matches!(b.term, Terminator::Unreachable) {
        return changed;
    }
    let Some(Inst { op: Op::If { then_, else_, results, .. }, .. }) = b.insts.last_mut() else {
        return changed;
    };
    if !results.is_empty() {
        return changed;
    }
    match (&then_.term, &else_.term) {
        (Terminator::Return(None), Terminator::Return(None)) => {
            then_.term = Terminator::Yield(Vec::new());
            else_.term = Terminator::Yield(Vec::new());
            b.term = Terminator::Return(None);
        }
        (Terminator::Return(Some(x)), Terminator::Return(Some(y))) => {
            let r = f.new_value(f.ty(*x), None);
            then_.term = Terminator::Yield(vec![*x]);
            else_.term = Terminator::Yield(vec![*y]);
            results.push(r);
            b.term = Terminator::Return(Some(r));
        }
        _ => return changed,
    }
    true
}

/// Every value `b`'s tree reads (operands and terminator arguments).
fn used_in(b: &Block, out: &mut Vec<ValueId>) {
    for i in &b.insts {
        i.op.for_each_operand(|v| out.push(v));
        for nb in i.op.blocks() {
            used_in(nb, out);
        }
    }
    out.extend(b.term.args());
}

/// Whether a constant is all zero bits (`-0.0` is not).
fn const_zero(c: &ConstValue) -> bool {
    match c {
        ConstValue::Zero(_) => true,
        ConstValue::Bool(b) => !b,
        ConstValue::I32(v) => *v == 0,
        ConstValue::U32(v) | ConstValue::F32(v) => *v == 0,
        ConstValue::F16(v) => *v == 0,
        ConstValue::I64(v) => *v == 0,
        ConstValue::U64(v) | ConstValue::F64(v) => *v == 0,
        ConstValue::Composite(_, parts) => parts.iter().all(const_zero),
    }
}

fn is_region(op: &Op) -> bool {
    matches!(op, Op::If { .. } | Op::Loop { .. } | Op::Switch { .. } | Op::Inline { .. })
}

#[cfg(test)]
mod tests {
    use crate::ir::*;
    use crate::passes::testutil::count_insts;

    /// Function `name` of `src` compiled with the default options (bounds checks on).
    fn function(src: &str, name: &str) -> Function {
        let m = crate::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        m.functions.iter().find(|f| f.name == name).cloned().expect("function")
    }

    fn ifs(f: &Function) -> usize {
        count_insts(&f.body, &|op| matches!(op, Op::If { .. }))
    }

    fn ands(f: &Function) -> usize {
        count_insts(&f.body, &|op| matches!(op, Op::Binary(BinaryOperator::LogicalAnd, ..)))
    }

    const BUFFERS: &str = "@group(0) @binding(0) var<storage, read> vals: array<f32>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(2) var<storage, read_write> fixed: array<u32, 4>;
@group(0) @binding(3) var<uniform> n: u32;
";

    fn with_main(body: &str) -> String {
        format!(
            "{BUFFERS}{body}
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    o[0] = f(g.x < 4u, g.x);
}}"
        )
    }

    #[test]
    fn a_check_inside_a_guard_joins_its_condition() {
        let src = with_main(
            "fn f(inside: bool, i: u32) -> f32 { var v: f32; if inside { v = vals[i]; } return v; }",
        );
        let f = function(&src, "f");
        assert_eq!((ifs(&f), ands(&f)), (1, 1), "{f:#?}");
        // Without pointer speculation the address is formed under the merged guard.
        let top_access = f.body.insts.iter().any(|i| matches!(i.op, Op::Access(..)));
        assert!(!top_access, "{f:#?}");
    }

    #[test]
    fn three_guards_deep_become_one() {
        let src = with_main(
            "fn f(inside: bool, i: u32) -> f32 {
    var v: f32;
    if inside { if i != 7u { v = vals[i]; } }
    return v;
}",
        );
        let f = function(&src, "f");
        assert_eq!((ifs(&f), ands(&f)), (1, 2), "{f:#?}");
    }

    #[test]
    fn a_checked_store_inside_a_guard_joins_it() {
        let src =
            with_main("fn f(inside: bool, i: u32) -> f32 { if i < n { o[i] = 1.0; } return 0.0; }");
        let f = function(&src, "f");
        assert_eq!((ifs(&f), ands(&f)), (1, 1), "{f:#?}");
    }

    #[test]
    fn a_default_other_than_the_checks_zero_keeps_both_guards() {
        // With `inside` false `v` is 1.0, but the merged guard would give the check's zero.
        let src = with_main(
            "fn f(inside: bool, i: u32) -> f32 { var v = 1.0; if inside { v = vals[i]; } return v; }",
        );
        let f = function(&src, "f");
        assert_eq!((ifs(&f), ands(&f)), (2, 0), "{f:#?}");
    }

    #[test]
    fn side_effects_beside_the_check_keep_both_guards() {
        // The store to `fixed` (a constant index: no check) must not run when `inside` is false.
        let src = with_main(
            "fn f(inside: bool, i: u32) -> f32 {
    var v: f32;
    if inside { fixed[1] = 5u; v = vals[i]; }
    return v;
}",
        );
        let f = function(&src, "f");
        assert_eq!((ifs(&f), ands(&f)), (2, 0), "{f:#?}");
    }

    #[test]
    fn a_load_and_store_of_one_element_share_one_guard() {
        // saxpy: the guard `i < n` reads a uniform; y[i]'s load and store are checked against
        // the same length, x[i]'s against another. Two guards remain, each joined with `i < n`.
        let src = format!(
            "{BUFFERS}@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    if i < n {{ y[i] = 2.0 * vals[i] + y[i]; }}
}}"
        );
        let f = function(&src, "main");
        assert_eq!((ifs(&f), ands(&f)), (2, 2), "{f:#?}");
        let stores = |b: &Block| count_insts(b, &|op| matches!(op, Op::Store { .. }));
        let guarded_store = f.body.insts.iter().any(|i| match &i.op {
            Op::If { then_, .. } => {
                stores(then_) == 1 && count_insts(then_, &|op| matches!(op, Op::Load(_))) == 1
            }
            _ => false,
        });
        assert!(guarded_store, "{f:#?}");
    }

    #[test]
    fn a_final_if_that_returns_in_both_arms_yields() {
        let src = with_main(
            "fn f(inside: bool, i: u32) -> f32 { if inside { return vals[i]; } else { return 0.0; } }",
        );
        let f = function(&src, "f");
        assert!(matches!(f.body.term, Terminator::Return(Some(_))), "{f:#?}");
        assert_eq!((ifs(&f), ands(&f)), (1, 1), "{f:#?}");
    }
}
