//! WebGPU's bounds policy, made explicit in the SSA (`docs/bounds.md`).
//!
//! WGSL promises that no access leaves the variable or buffer it names. This pass keeps the
//! promise for every target at once, so the PTX and LLVM backends, the MSL and WGSL printers
//! and the interpreter all execute the same checks:
//!
//! * **Buffers** (storage and uniform, runtime-sized arrays included): every runtime index on
//!   the way to a load, store or atomic is compared, unsigned, with its array's length (the
//!   constant length, or `arrayLength` of the runtime-sized array), vector's or matrix's size.
//!   The access runs under the conjunction of those comparisons: when one fails, a load gives
//!   the zero value of its type, a store is dropped, an atomic is dropped and gives zero (a
//!   compare-exchange gives `{ 0, false }`). This is what Vulkan's robustness2 gives wgpu on
//!   lavapipe, for accesses that stay within one array.
//! * **Everything else** (function, private, workgroup and immediate memory, and vector,
//!   matrix and array values indexed at run time): the index becomes `min(u32(index), n - 1)`,
//!   the last element (naga's `Restrict` policy, which wgpu applies).
//!
//! A check is left out when the compiler can prove the index in range ("eliminated"):
//! constant indices, indices masked, reduced or shifted into range (`i & 15`, `i % 16u`,
//! `min(i, 15u)`, `i >> 28u`), and indices under a dominating guard that compares them,
//! unsigned, with the same bound or a smaller one: `if i < arrayLength(&a) { a[i] }`,
//! `if i >= n { return; }` with `n` at most the length, a `for` loop's `i < 16u`, and the
//! conjunctions and negations of such guards. A signed index counts only with a guard that
//! also shows it is not negative.
//!
//! Cooperative-matrix loads and stores get a `limit` instead of a guard ([`tiles`]): each
//! element of the tile past the end of its array reads zero or is not written.
//!
//! Not covered (stated in `docs/bounds.md`): a buffer pointer that a function receives as an
//! argument is checked inside the callee only for the indices the callee applies.
//!
//! Each function records how many checks it emitted and eliminated ([`BoundsCounts`]).

use crate::ir::*;
use naga::{BinaryOperator as B, MathFunction as M, UnaryOperator as U};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

mod steps;
mod tiles;

/// Applies the policy to every function of `m` (see the module docs); returns whether any
/// instruction was added.
pub fn bounds(m: &mut Module) -> bool {
    m.bounds_checked = true;
    let u32t = m.types.scalar(Scalar::U32);
    // 64-bit indices exist only where the module has 64-bit integers already; the type is not
    // added to other modules (it would make them look like they need 64-bit support).
    let wide = [Scalar::I64, Scalar::U64].iter().any(|s| m.types.find(&Type::Scalar(*s)).is_some());
    let u64t = if wide { m.types.scalar(Scalar::U64) } else { u32t };
    let boolt = m.types.scalar(Scalar::Bool);
    let mut changed = false;
    for (fi, f) in m.functions.iter_mut().enumerate() {
        let invocation = super::util::invocation_ranges(&m.entry_points, fi, f);
        let mut p = Pass {
            types: &m.types,
            u32t,
            u64t,
            boolt,
            defs: HashMap::default(),
            conds: HashMap::default(),
            proven_ptrs: HashSet::default(),
            invocation,
            counts: BoundsCounts::default(),
            coop_ptrs: HashSet::default(),
            other_uses: HashSet::default(),
            tile_ptrs: HashMap::default(),
            multiples: HashMap::default(),
        };
        p.collect_defs(&f.body);
        let mut facts = Vec::new();
        let mut body = std::mem::take(&mut f.body);
        p.block(&mut f.values, &mut body, &mut facts);
        f.body = body;
        changed |= p.counts.emitted > 0;
        f.bounds = p.counts;
    }
    changed
}

/// What the bounds pass did in one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundsCounts {
    /// Checks inserted: buffer loads, stores and atomics put under a guard, indices
    /// clamped, and cooperative loads and stores given a limit.
    pub emitted: u32,
    /// Checks left out: buffer accesses whose runtime indices were all proven in range,
    /// other runtime indices proven in range, and cooperative tiles proven inside.
    pub eliminated: u32,
}

impl std::ops::AddAssign for BoundsCounts {
    fn add_assign(&mut self, o: BoundsCounts) {
        self.emitted += o.emitted;
        self.eliminated += o.eliminated;
    }
}

/// The bounds checks of entry function `entry` and every function it calls.
pub fn entry_counts(m: &Module, entry: FuncId) -> BoundsCounts {
    fn calls(b: &Block, out: &mut Vec<FuncId>) {
        for inst in &b.insts {
            if let Op::Call(f, _) = inst.op {
                out.push(f);
            }
            for nb in inst.op.blocks() {
                calls(nb, out);
            }
        }
    }
    let mut seen = vec![false; m.functions.len()];
    let mut todo = vec![entry];
    let mut total = BoundsCounts::default();
    while let Some(f) = todo.pop() {
        match seen.get_mut(f.index()) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        let func = m.function(f);
        total += func.bounds;
        calls(&func.body, &mut todo);
    }
    total
}

/// The bound an index is checked against.
#[derive(Clone, Copy)]
enum Bound {
    /// A fixed element count.
    Const(u64),
    /// `arrayLength` of the runtime-sized array this pointer points to.
    Len(ValueId),
}

/// A condition known to hold (`holds`) or to fail where the walk is.
#[derive(Clone, Copy)]
struct Fact {
    cond: ValueId,
    holds: bool,
}

struct Pass<'t> {
    types: &'t Types,
    u32t: TypeId,
    u64t: TypeId,
    boolt: TypeId,
    /// Defining operations of the values the analysis looks through (pure scalar operations
    /// and pointer formation), including the ones this pass adds.
    defs: HashMap<ValueId, Op>,
    /// For a pointer into a buffer: the condition under which every index on its way is in
    /// range (absent when none needed checking).
    conds: HashMap<ValueId, ValueId>,
    /// Buffer pointers with a runtime index on their way, all proven in range: their accesses
    /// count as eliminated checks.
    proven_ptrs: HashSet<ValueId>,
    /// The largest value of each component of the entry's `local_invocation_id` and of its
    /// `local_invocation_index`, by argument value ([`invocation_ranges`]).
    invocation: HashMap<ValueId, [u64; 3]>,
    counts: BoundsCounts,
    /// Pointers a cooperative load or store starts its tile at.
    coop_ptrs: HashSet<ValueId>,
    /// Values used other than as a tile's pointer.
    other_uses: HashSet<ValueId>,
    /// For a tile pointer that is also used otherwise: the unchecked pointer the tile uses
    /// (the element rule would clamp or guard the tile's start; the tile's `limit` covers it).
    tile_ptrs: HashMap<ValueId, ValueId>,
    /// Loop counters known to stay multiples of `2^z`, by value ([`steps`]).
    multiples: HashMap<ValueId, u32>,
}

/// A comparison that, holding (`holds`) or failing, bounds one operand by the other:
/// `(a, b, extra)` for `a < b + extra`. `a < b`, `b > a`, `!(a >= b)`, `!(b <= a)` give
/// extra 0; `a <= b`, `b >= a`, `!(a > b)`, `!(b < a)` give 1.
fn upper_comparison(op: &Op, holds: bool) -> Option<(ValueId, ValueId, u64)> {
    match (op, holds) {
        (&Op::Binary(B::Less, a, b), true)
        | (&Op::Binary(B::Greater, b, a), true)
        | (&Op::Binary(B::GreaterEqual, a, b), false)
        | (&Op::Binary(B::LessEqual, b, a), false) => Some((a, b, 0)),
        (&Op::Binary(B::LessEqual, a, b), true)
        | (&Op::Binary(B::GreaterEqual, b, a), true)
        | (&Op::Binary(B::Greater, a, b), false)
        | (&Op::Binary(B::Less, b, a), false) => Some((a, b, 1)),
        _ => None,
    }
}

/// `if cond { then } else { else_ }` defining `results`; each branch is its instructions and
/// the values it yields.
fn guarded(
    cond: ValueId,
    (then_insts, then_vals): (Vec<Inst>, Vec<ValueId>),
    (else_insts, else_vals): (Vec<Inst>, Vec<ValueId>),
    results: Vec<ValueId>,
    span: Span,
) -> Inst {
    let block = |insts, vals| Block { params: vec![], insts, term: Terminator::Yield(vals) };
    Inst {
        result: None,
        op: Op::If {
            cond,
            then_: block(then_insts, then_vals),
            else_: block(else_insts, else_vals),
            results,
        },
        span,
    }
}

impl Pass<'_> {
    fn collect_defs(&mut self, b: &Block) {
        for inst in &b.insts {
            match &inst.op {
                Op::CoopLoad { ptr, stride, limit, .. } => {
                    self.coop_ptrs.insert(*ptr);
                    self.other_uses.insert(*stride);
                    self.other_uses.extend(*limit);
                }
                Op::CoopStore { value, ptr, stride, limit, .. } => {
                    self.coop_ptrs.insert(*ptr);
                    self.other_uses.extend([*value, *stride]);
                    self.other_uses.extend(*limit);
                }
                op => op.for_each_operand(|v| {
                    self.other_uses.insert(v);
                }),
            }
            if let Some(r) = inst.result {
                let keep = matches!(
                    inst.op,
                    Op::Const(_)
                        | Op::Unary(..)
                        | Op::Binary(..)
                        | Op::Bitcast(_)
                        | Op::ArrayLength(_)
                        | Op::GlobalAddr(_)
                        | Op::LocalAddr(_)
                        | Op::AccessIndex(..)
                        | Op::Access(..)
                        | Op::Extract(..)
                ) || matches!(&inst.op, Op::Math(M::Min, _));
                if keep {
                    self.defs.insert(r, inst.op.clone());
                }
            }
            for nb in inst.op.blocks() {
                self.collect_defs(nb);
            }
            self.multiples.extend(steps::counter_multiples(&inst.op, &self.defs));
            // WGSL's short-circuit `a && b` and `a || b` arrive as an `if` yielding `b` or a
            // constant; the guard analysis reads them as the operators.
            if let Op::If { cond, then_, else_, results } = &inst.op {
                let yielded = |b: &Block| match &b.term {
                    Terminator::Yield(v) if v.len() == 1 => Some(v[0]),
                    _ => None,
                };
                let is_bool = |v: ValueId, want: bool| matches!(self.defs.get(&v), Some(Op::Const(ConstValue::Bool(b))) if *b == want);
                if let ([r], Some(t), Some(e)) =
                    (results.as_slice(), yielded(then_), yielded(else_))
                {
                    if is_bool(e, false) {
                        self.defs.insert(*r, Op::Binary(B::LogicalAnd, *cond, t));
                    } else if is_bool(t, true) {
                        self.defs.insert(*r, Op::Binary(B::LogicalOr, *cond, e));
                    }
                }
            }
        }
    }

    fn block(&mut self, values: &mut Vec<ValueData>, b: &mut Block, facts: &mut Vec<Fact>) {
        let depth = facts.len();
        let mut out = Vec::with_capacity(b.insts.len());
        for mut inst in std::mem::take(&mut b.insts) {
            // Region arms see their condition; the rest of the block sees what an arm that
            // never falls through rules out.
            let mut after = None;
            if let Op::If { cond, then_, else_, .. } = &mut inst.op {
                let cond = *cond;
                facts.push(Fact { cond, holds: true });
                self.block(values, then_, facts);
                facts.pop();
                facts.push(Fact { cond, holds: false });
                self.block(values, else_, facts);
                facts.pop();
                match (falls_through(then_), falls_through(else_)) {
                    (false, true) => after = Some(Fact { cond, holds: false }),
                    (true, false) => after = Some(Fact { cond, holds: true }),
                    _ => {}
                }
            } else {
                for nb in inst.op.blocks_mut() {
                    self.block(values, nb, facts);
                }
            }
            self.inst(values, inst, facts, &mut out);
            if let Some(f) = after {
                facts.push(f);
            }
        }
        b.insts = out;
        facts.truncate(depth);
    }

    fn new_value(&mut self, values: &mut Vec<ValueData>, ty: TypeId) -> ValueId {
        let id = ValueId(values.len() as u32);
        values.push(ValueData { ty, name: None });
        id
    }

    /// Appends `op` (defining a new value of type `ty`) to `out`.
    fn emit(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        ty: TypeId,
        op: Op,
        span: Span,
    ) -> ValueId {
        let r = self.new_value(values, ty);
        self.defs.insert(r, op.clone());
        out.push(Inst { result: Some(r), op, span });
        r
    }

    fn inst(
        &mut self,
        values: &mut Vec<ValueData>,
        mut inst: Inst,
        facts: &[Fact],
        out: &mut Vec<Inst>,
    ) {
        let span = inst.span;
        let ty = |values: &Vec<ValueData>, v: ValueId| values[v.index()].ty;
        if let (Op::Access(base, _) | Op::AccessIndex(base, _), Some(r)) = (&inst.op, inst.result) {
            if self.coop_ptrs.contains(&r) {
                // A tile's start: its own index is covered by the tile's `limit`.
                let base = *base;
                let cond = self.conds.get(&base).copied();
                if !self.other_uses.contains(&r) {
                    self.record_pointer(&inst, base, cond);
                    out.push(inst);
                    return;
                }
                let raw = self.new_value(values, ty(values, r));
                let copy = Inst { result: Some(raw), op: inst.op.clone(), span };
                self.record_pointer(&copy, base, cond);
                self.tile_ptrs.insert(r, raw);
                out.push(copy);
            }
        }
        match inst.op {
            Op::Access(base, index) => {
                let Some((space, bound)) = self.pointee_bound(ty(values, base), base) else {
                    out.push(inst);
                    return;
                };
                let base_cond = self.conds.get(&base).copied();
                let proven = self.proven(values, index, bound, facts);
                let mut cond = base_cond;
                if is_buffer(space) {
                    // Counted where a load, store or atomic uses the pointer.
                    if !proven {
                        let c = self.in_range(values, out, index, bound, span);
                        cond = Some(self.and(values, out, base_cond, c, span));
                    } else if let Some(r) = inst.result {
                        self.proven_ptrs.insert(r);
                    }
                } else if proven {
                    self.counts.eliminated += 1;
                } else {
                    self.counts.emitted += 1;
                    let clamped = self.clamp(values, out, index, bound, span);
                    inst.op = Op::Access(base, clamped);
                }
                self.record_pointer(&inst, base, cond);
                out.push(inst);
            }
            Op::AccessIndex(base, k) => {
                // A constant index into a runtime-sized array is checked against the length
                // like any other; naga has already checked the fixed sizes.
                let mut cond = self.conds.get(&base).copied();
                let runtime_sized = matches!(
                    self.pointee_bound(ty(values, base), base),
                    Some((space, Bound::Len(_))) if is_buffer(space)
                );
                if runtime_sized {
                    let index = self.constant(values, out, u64::from(k), false, span);
                    let c = self.in_range(values, out, index, Bound::Len(base), span);
                    cond = Some(self.and(values, out, cond, c, span));
                }
                self.record_pointer(&inst, base, cond);
                out.push(inst);
            }
            Op::ExtractDyn(v, index) | Op::InsertDyn { base: v, index, .. } => {
                let Some(n) = value_len(self.types, ty(values, v)) else {
                    out.push(inst);
                    return;
                };
                if self.proven(values, index, Bound::Const(n), facts) {
                    self.counts.eliminated += 1;
                } else {
                    self.counts.emitted += 1;
                    let clamped = self.clamp(values, out, index, Bound::Const(n), span);
                    match &mut inst.op {
                        Op::ExtractDyn(_, i) | Op::InsertDyn { index: i, .. } => *i = clamped,
                        _ => {}
                    }
                }
                out.push(inst);
            }
            Op::Load(p) | Op::Atomic { ptr: p, .. } | Op::AtomicCompareExchange { ptr: p, .. } => {
                match (self.guard(p), inst.result) {
                    (Some(c), Some(r)) => {
                        let rt = ty(values, r);
                        // `atomicCompareExchangeWeak`'s result struct has no name in WGSL: the
                        // guard yields its fields, which are recomposed after it (the fold that
                        // follows the pass turns the member reads into the fields). Any other
                        // result is yielded whole.
                        let fields: Option<Vec<TypeId>> = match self.types.get(rt) {
                            Type::Struct { members, .. } => {
                                Some(members.iter().map(|m| m.ty).collect())
                            }
                            _ => None,
                        };
                        let loaded = self.new_value(values, rt);
                        inst.result = Some(loaded);
                        let mut then_insts = vec![inst];
                        let (mut from_then, mut else_insts, mut from_else, mut results) =
                            (vec![], vec![], vec![], vec![]);
                        let parts = fields.clone().unwrap_or_else(|| vec![rt]);
                        for (i, &t) in parts.iter().enumerate() {
                            let x = if fields.is_some() {
                                let x = self.new_value(values, t);
                                let op = Op::Extract(loaded, i as u32);
                                then_insts.push(Inst { result: Some(x), op, span });
                                x
                            } else {
                                loaded
                            };
                            from_then.push(x);
                            let z = self.new_value(values, t);
                            let op = Op::Const(ConstValue::Zero(t));
                            else_insts.push(Inst { result: Some(z), op, span });
                            from_else.push(z);
                            results.push(if fields.is_some() {
                                self.new_value(values, t)
                            } else {
                                r
                            });
                        }
                        let composed = fields.is_some().then(|| results.clone());
                        out.push(guarded(
                            c,
                            (then_insts, from_then),
                            (else_insts, from_else),
                            results,
                            span,
                        ));
                        if let Some(parts) = composed {
                            out.push(Inst { result: Some(r), op: Op::Compose(parts), span });
                        }
                    }
                    _ => out.push(inst),
                }
            }
            Op::CoopLoad { ptr, stride, row_major, .. } => {
                let Some(r) = inst.result else { return out.push(inst) };
                let shape = (ty(values, r), row_major);
                let (ptr, limit) = self.tile_limit(values, out, ptr, shape, stride, facts, span);
                inst.op = Op::CoopLoad { ptr, stride, row_major, limit };
                out.push(inst);
            }
            Op::CoopStore { value, ptr, stride, row_major, .. } => {
                let shape = (ty(values, value), row_major);
                let (ptr, limit) = self.tile_limit(values, out, ptr, shape, stride, facts, span);
                inst.op = Op::CoopStore { value, ptr, stride, row_major, limit };
                out.push(inst);
            }
            Op::Store { ptr, .. } => match self.guard(ptr) {
                Some(c) => {
                    out.push(guarded(c, (vec![inst], vec![]), (vec![], vec![]), vec![], span))
                }
                None => out.push(inst),
            },
            _ => out.push(inst),
        }
    }

    /// `base && c`, or `c` alone when there is no `base`.
    fn and(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        base: Option<ValueId>,
        c: ValueId,
        span: Span,
    ) -> ValueId {
        match base {
            Some(b) => self.emit(values, out, self.boolt, Op::Binary(B::LogicalAnd, b, c), span),
            None => c,
        }
    }

    /// Records the pointer `inst` forms from `base`: its definition, the condition its
    /// accesses run under, and whether `base`'s indices were all proven.
    fn record_pointer(&mut self, inst: &Inst, base: ValueId, cond: Option<ValueId>) {
        let Some(r) = inst.result else { return };
        self.defs.insert(r, inst.op.clone());
        if let Some(c) = cond {
            self.conds.insert(r, c);
        }
        if self.proven_ptrs.contains(&base) {
            self.proven_ptrs.insert(r);
        }
    }

    /// The condition an access through `p` runs under, counting the access as an emitted or
    /// eliminated check.
    fn guard(&mut self, p: ValueId) -> Option<ValueId> {
        let c = self.conds.get(&p).copied();
        if c.is_some() {
            self.counts.emitted += 1;
        } else if self.proven_ptrs.contains(&p) {
            self.counts.eliminated += 1;
        }
        c
    }

    /// The address space of pointer type `pty` and the bound of a runtime index into its
    /// pointee (`None` for a pointee that is not indexed by element).
    fn pointee_bound(&self, pty: TypeId, ptr: ValueId) -> Option<(AddressSpace, Bound)> {
        let Type::Pointer { base, space } = self.types.get(pty) else { return None };
        let bound = match self.types.get(*base) {
            Type::Array { len: None, .. } => Bound::Len(ptr),
            _ => Bound::Const(value_len(self.types, *base)?),
        };
        Some((*space, bound))
    }

    /// `index` as an unsigned integer of its width (a bitcast for signed indices).
    fn unsigned(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        index: ValueId,
        span: Span,
    ) -> (ValueId, bool) {
        let s = self.types.scalar_of(values[index.index()].ty);
        let wide = s.is_some_and(Scalar::is_64);
        if s.is_some_and(Scalar::is_signed) {
            let t = if wide { self.u64t } else { self.u32t };
            (self.emit(values, out, t, Op::Bitcast(index), span), wide)
        } else {
            (index, wide)
        }
    }

    fn constant(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        n: u64,
        wide: bool,
        span: Span,
    ) -> ValueId {
        if wide {
            self.emit(values, out, self.u64t, Op::Const(ConstValue::U64(n)), span)
        } else {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            self.emit(values, out, self.u32t, Op::Const(ConstValue::U32(n)), span)
        }
    }

    /// `u(index) < bound` as a new bool value.
    fn in_range(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        index: ValueId,
        bound: Bound,
        span: Span,
    ) -> ValueId {
        let (u, wide) = self.unsigned(values, out, index, span);
        let b = match bound {
            Bound::Const(n) => self.constant(values, out, n, wide, span),
            Bound::Len(p) => {
                let len = self.emit(values, out, self.u32t, Op::ArrayLength(p), span);
                if wide {
                    self.emit(values, out, self.u64t, Op::Convert(len, Scalar::U64), span)
                } else {
                    len
                }
            }
        };
        self.emit(values, out, self.boolt, Op::Binary(B::Less, u, b), span)
    }

    /// `min(u(index), n - 1)` as a new value (fixed bounds only; a runtime-sized array lives
    /// only in buffers, whose accesses are guarded instead).
    fn clamp(
        &mut self,
        values: &mut Vec<ValueData>,
        out: &mut Vec<Inst>,
        index: ValueId,
        bound: Bound,
        span: Span,
    ) -> ValueId {
        let Bound::Const(n) = bound else { return index };
        let (u, wide) = self.unsigned(values, out, index, span);
        let last = self.constant(values, out, n.saturating_sub(1), wide, span);
        let t = if wide { self.u64t } else { self.u32t };
        self.emit(values, out, t, Op::Math(M::Min, vec![u, last]), span)
    }

    /// Whether `index`, read unsigned, is below `bound` wherever the walk is.
    fn proven(&self, values: &[ValueData], index: ValueId, bound: Bound, facts: &[Fact]) -> bool {
        if let (Bound::Const(n), Some(max)) = (bound, self.max_of(values, index)) {
            if max < n {
                return true;
            }
        }
        // Arithmetic of bounded `u32` values (`cur * STAGE + kk` with `cur = t & 1u` and a loop
        // counter `kk < 32u`).
        if let (Bound::Const(n), Some(max)) = (bound, self.upper(values, index, facts, 0)) {
            if max < n {
                return true;
            }
        }
        let signed = self.types.scalar_of(values[index.index()].ty).is_some_and(Scalar::is_signed);
        if signed && !self.non_negative(values, index, facts) {
            return false;
        }
        facts.iter().any(|f| self.fact_bounds(values, *f, index, bound, facts))
    }

    /// Whether `fact` shows `index < bound` (the other `facts` bound the arithmetic).
    fn fact_bounds(
        &self,
        values: &[ValueData],
        fact: Fact,
        index: ValueId,
        bound: Bound,
        facts: &[Fact],
    ) -> bool {
        let leaf = |op: &Op, holds: bool| {
            upper_comparison(op, holds).is_some_and(|(a, b, extra)| {
                self.not_above(values, index, a, facts) && self.at_most(values, b, bound, extra)
            })
        };
        self.implied(fact.cond, fact.holds, 0, &leaf)
    }

    /// Whether `index <= a` as unsigned numbers: the same value, or `x + c1` (or `x`) against
    /// `a = x + c2` with constants `c1 <= c2` where `x + c2` cannot wrap (`x`'s upper bound
    /// from [`Pass::upper`]): `y[3u * i]` and `y[3u * i + 1u]` under `3u * i + 2u < n`.
    fn not_above(&self, values: &[ValueData], index: ValueId, a: ValueId, facts: &[Fact]) -> bool {
        if index == a {
            return true;
        }
        let u32t = |v: ValueId| self.types.scalar_of(values[v.index()].ty) == Some(Scalar::U32);
        if !u32t(index) || !u32t(a) {
            return false;
        }
        let plus_const = |v: ValueId| -> (ValueId, u64) {
            if let Some(&Op::Binary(B::Add, x, y)) = self.defs.get(&v) {
                for (x, y) in [(x, y), (y, x)] {
                    if let Some(Op::Const(ConstValue::U32(c))) = self.defs.get(&y) {
                        return (x, u64::from(*c));
                    }
                }
            }
            (v, 0)
        };
        let ((xi, ci), (xa, ca)) = (plus_const(index), plus_const(a));
        xi == xa
            && ci <= ca
            && self.upper(values, xa, facts, 0).is_some_and(|m| m + ca <= u64::from(u32::MAX))
    }

    /// Whether `v + extra <= bound` (comparisons are of one type, so mixing signedness is
    /// impossible; the caller has shown a signed index non-negative).
    fn at_most(&self, values: &[ValueData], v: ValueId, bound: Bound, extra: u64) -> bool {
        match bound {
            Bound::Const(n) => self.max_of(values, v).is_some_and(|m| m.saturating_add(extra) <= n),
            Bound::Len(p) => {
                extra == 0
                    && matches!(self.defs.get(&v), Some(Op::ArrayLength(q)) if self.same_pointer(*q, p, 0))
            }
        }
    }

    /// Whether two pointer values name the same place (the same value, or the same chain of
    /// constant steps from the same variable).
    fn same_pointer(&self, a: ValueId, b: ValueId, depth: u32) -> bool {
        if a == b {
            return true;
        }
        if depth > 16 {
            return false;
        }
        match (self.defs.get(&a), self.defs.get(&b)) {
            (Some(Op::GlobalAddr(x)), Some(Op::GlobalAddr(y))) => x == y,
            (Some(Op::LocalAddr(x)), Some(Op::LocalAddr(y))) => x == y,
            (Some(Op::AccessIndex(x, i)), Some(Op::AccessIndex(y, j))) => {
                i == j && self.same_pointer(*x, *y, depth + 1)
            }
            (Some(Op::Access(x, i)), Some(Op::Access(y, j))) => {
                i == j && self.same_pointer(*x, *y, depth + 1)
            }
            _ => false,
        }
    }

    /// Whether a signed `index` is known not to be negative.
    fn non_negative(&self, values: &[ValueData], index: ValueId, facts: &[Fact]) -> bool {
        if self.max_of(values, index).is_some_and(|m| m <= i32::MAX as u64) {
            return true;
        }
        let is_zero = |v: ValueId| {
            matches!(self.defs.get(&v), Some(Op::Const(ConstValue::I32(0) | ConstValue::I64(0))))
        };
        let leaf = |op: &Op, holds: bool| match (op, holds) {
            // 0 <= i, i >= 0, !(i < 0), !(0 > i)
            (&Op::Binary(B::LessEqual, z, i), true)
            | (&Op::Binary(B::GreaterEqual, i, z), true)
            | (&Op::Binary(B::Less, i, z), false)
            | (&Op::Binary(B::Greater, z, i), false) => i == index && is_zero(z),
            _ => false,
        };
        facts.iter().any(|f| self.implied(f.cond, f.holds, 0, &leaf))
    }

    /// Whether condition `c` with truth value `holds` implies a comparison `leaf` accepts,
    /// looking through `!`, `&&` (when it holds) and `||` (when it fails).
    fn implied(
        &self,
        c: ValueId,
        holds: bool,
        depth: u32,
        leaf: &dyn Fn(&Op, bool) -> bool,
    ) -> bool {
        if depth > 8 {
            return false;
        }
        match (self.defs.get(&c), holds) {
            (Some(&Op::Unary(U::LogicalNot, x)), h) => self.implied(x, !h, depth + 1, leaf),
            (Some(&Op::Binary(B::LogicalAnd, x, y)), true)
            | (Some(&Op::Binary(B::LogicalOr, x, y)), false) => {
                self.implied(x, holds, depth + 1, leaf) || self.implied(y, holds, depth + 1, leaf)
            }
            (Some(op), h) => leaf(op, h),
            (None, _) => false,
        }
    }

    /// An upper bound of the `u32` value `v` from its definition through `+`, `*`, `<<`,
    /// `/`, `>>`, `&`, `%`, `min` and `max` (where nothing can wrap), with leaves bounded by
    /// [`Pass::max_of`] or by a fact `v < c` / `v <= c` on a constant `c`.
    fn upper(&self, values: &[ValueData], v: ValueId, facts: &[Fact], depth: u32) -> Option<u64> {
        const MAX: u64 = u32::MAX as u64;
        if depth > 16 || self.types.scalar_of(values[v.index()].ty) != Some(Scalar::U32) {
            return None;
        }
        let own = self.max_of(values, v);
        let from_facts = self.fact_max(values, v, facts);
        let leaf = match (own, from_facts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let up = |x: ValueId| self.upper(values, x, facts, depth + 1);
        let arith = match self.defs.get(&v) {
            Some(&Op::Binary(op, x, y)) => match op {
                B::Add => up(x).zip(up(y)).map(|(a, b)| a + b).filter(|&s| s <= MAX),
                B::Multiply => {
                    up(x).zip(up(y)).and_then(|(a, b)| a.checked_mul(b)).filter(|&p| p <= MAX)
                }
                B::ShiftLeft => up(x)
                    .zip(self.max_of(values, y).filter(|&s| s < 32))
                    .map(|(a, s)| a << s)
                    .filter(|&p| p <= MAX),
                B::Divide => match (up(x), self.max_of(values, y)) {
                    // A constant divisor (its own largest value).
                    (Some(a), Some(c)) if c > 0 && self.is_const(y) => Some(a / c),
                    (a, _) => a,
                },
                B::ShiftRight => match (up(x), self.max_of(values, y)) {
                    (Some(a), Some(s)) if self.is_const(y) => Some(a >> (s % 32)),
                    (a, _) => a,
                },
                B::And => match (up(x), up(y)) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                },
                B::Modulo => up(x),
                _ => None,
            },
            Some(Op::Math(M::Min, args)) => args.iter().filter_map(|&a| up(a)).min(),
            _ => None,
        };
        match (leaf, arith) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn is_const(&self, v: ValueId) -> bool {
        matches!(self.defs.get(&v), Some(Op::Const(_)))
    }

    /// The smallest constant `c` for which a fact shows `v < c` (as `c - 1`) or `v <= c`,
    /// rounded down to a multiple of a loop counter's step.
    fn fact_max(&self, values: &[ValueData], v: ValueId, facts: &[Fact]) -> Option<u64> {
        let best = std::cell::Cell::new(None::<u64>);
        let leaf = |op: &Op, holds: bool| {
            // `v < c + extra`: at most `c + extra - 1`, for a constant `c` or one with an
            // upper bound of its own (`i < arrayLength(&a)`).
            if let Some((a, b, extra)) = upper_comparison(op, holds) {
                let c = match self.defs.get(&b) {
                    Some(Op::Const(ConstValue::U32(c))) => Some(u64::from(*c)),
                    Some(Op::ArrayLength(_)) => self.max_of(values, b),
                    _ => None,
                };
                if let (true, Some(c)) = (a == v, c) {
                    if let Some(m) = (c + extra).checked_sub(1) {
                        best.set(Some(best.get().map_or(m, |b: u64| b.min(m))));
                    }
                }
            }
            // Keep looking through every conjunct.
            false
        };
        for f in facts {
            self.implied(f.cond, f.holds, 0, &leaf);
        }
        // A counter that steps by 16 from 0 and is below 64 is at most 48.
        match self.multiples.get(&v) {
            Some(&z) => best.get().map(|m| m >> z << z),
            None => best.get(),
        }
    }

    /// An upper bound of `v` read unsigned, where its definition gives one.
    fn max_of(&self, values: &[ValueData], v: ValueId) -> Option<u64> {
        let unsigned_const = |v: ValueId| match self.defs.get(&v) {
            Some(Op::Const(ConstValue::U32(x))) => Some(u64::from(*x)),
            Some(Op::Const(ConstValue::I32(x))) => Some(u64::from(*x as u32)),
            Some(Op::Const(ConstValue::U64(x))) => Some(*x),
            Some(Op::Const(ConstValue::I64(x))) => Some(*x as u64),
            _ => None,
        };
        // `local_invocation_index` and the components of `local_invocation_id` are below the
        // workgroup size.
        if let Some(r) = self.invocation.get(&v) {
            return Some(r[0]);
        }
        let scalar = self.types.scalar_of(values[v.index()].ty)?;
        match self.defs.get(&v)? {
            Op::Extract(x, c) if self.invocation.contains_key(x) => {
                self.invocation.get(x).and_then(|r| r.get(*c as usize)).copied()
            }
            Op::Const(_) => unsigned_const(v),
            // A binding holds fewer than 2^32 bytes on every target (docs/bounds.md).
            Op::ArrayLength(p) => match self.types.get(values[p.index()].ty) {
                Type::Pointer { base, .. } => match self.types.get(*base) {
                    Type::Array { stride, .. } if *stride > 0 => {
                        Some(u64::from(u32::MAX) / u64::from(*stride))
                    }
                    _ => None,
                },
                _ => None,
            },
            Op::Binary(B::And, a, b) => match (unsigned_const(*a), unsigned_const(*b)) {
                (Some(m), _) | (_, Some(m)) => Some(m),
                _ => None,
            },
            // Unsigned remainder by a nonzero constant.
            Op::Binary(B::Modulo, _, b) if !scalar.is_signed() => {
                unsigned_const(*b).filter(|&c| c > 0).map(|c| c - 1)
            }
            Op::Binary(B::ShiftRight, _, s) if !scalar.is_signed() => {
                let bits = if scalar.is_64() { 64 } else { 32 };
                unsigned_const(*s).map(|s| {
                    if s % bits == 0 {
                        u64::MAX >> (64 - bits)
                    } else {
                        (u64::MAX >> (64 - bits)) >> (s % bits)
                    }
                })
            }
            Op::Math(M::Min, args) if !scalar.is_signed() => {
                args.iter().filter_map(|&a| unsigned_const(a)).min()
            }
            _ => None,
        }
    }
}

/// Whether a buffer's accesses are guarded (rather than clamped).
fn is_buffer(space: AddressSpace) -> bool {
    matches!(space, AddressSpace::Storage { .. } | AddressSpace::Uniform)
}

/// The element count of a vector, matrix (columns) or fixed-size array type.
fn value_len(types: &Types, t: TypeId) -> Option<u64> {
    match types.get(t) {
        Type::Vector { size, .. } => Some(u64::from(*size)),
        Type::Matrix { columns, .. } => Some(u64::from(*columns)),
        Type::Array { len: Some(n), .. } => Some(u64::from(*n)),
        _ => None,
    }
}

/// Whether control can leave `b` normally into the code after its region.
fn falls_through(b: &Block) -> bool {
    matches!(b.term, Terminator::Yield(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::module_text;

    /// WGSL through the standard passes and the bounds pass (checked by the verifier): the
    /// SSA text and the first function's counts.
    fn checked(src: &str) -> (String, BoundsCounts) {
        let parsed = super::super::testutil::parsed(src);
        let mut m = crate::lower::lower_module(&parsed).unwrap_or_else(|d| panic!("{d:#?}"));
        super::super::optimize(&mut m).unwrap_or_else(|d| panic!("{d:#?}"));
        super::super::bounds_checked(&mut m).unwrap_or_else(|d| panic!("{d:#?}"));
        let counts = m
            .entry_points
            .first()
            .map_or(BoundsCounts::default(), |e| entry_counts(&m, e.function));
        (module_text(&m), counts)
    }

    const BUFFERS: &str = "@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> f: array<f32, 8>;
@group(0) @binding(2) var<uniform> u: array<vec4<u32>, 4>;
";

    #[test]
    fn data_dependent_buffer_accesses_are_guarded() {
        let (t, c) = checked(&format!(
            "{BUFFERS}@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let j = u[g.x].x;
    a[j] = f[j];
    atomicAdd(&w[j], 1u);
}}
@group(0) @binding(3) var<storage, read_write> w: array<atomic<u32>>;"
        ));
        // u[g.x] (load), f[j] (load), a[j] (store), w[j] (atomic): four guarded accesses.
        assert_eq!(c, BoundsCounts { emitted: 4, eliminated: 0 }, "{t}");
        assert_eq!(t.matches("array_length").count(), 2, "{t}");
        assert!(t.contains("f32()"), "out-of-range loads give the zero value:\n{t}");
    }

    #[test]
    fn guarded_loops_masks_and_constants_need_no_check() {
        let (t, c) = checked(&format!(
            "{BUFFERS}@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    if i >= arrayLength(&a) {{ return; }}
    a[i] = a[i] + f[i & 7u] + f[i % 8u] + f[min(i, 7u)] + f[i >> 29u];
    for (var k = 0u; k < 8u; k++) {{ a[i] += f[k]; }}
    if i < 4u {{ a[i] = f[i] + f[i + 4u] + f[i + 5u]; }}
}}"
        ));
        // Under `i < 4u`, i + 4 <= 7 is in range and i + 5 may be 8.
        assert_eq!(c.emitted, 1, "only f[i + 5u] is unproven:\n{t}");
        assert!(c.eliminated >= 11, "{c:?}\n{t}");
    }

    #[test]
    fn loop_counters_and_bounded_arithmetic_need_no_clamp() {
        let (t, c) = checked(
            "var<workgroup> s: array<f32, 9216>;
@group(0) @binding(0) var<storage, read_write> o: array<f32, 128>;
@group(0) @binding(1) var<storage, read> r: array<u32>;
@compute @workgroup_size(128) fn main(@builtin(local_invocation_index) l: u32) {
    let wc = (l / 32u) * 16u;
    var acc = 0.0;
    for (var t = 0u; t < 8u; t++) {
        let cur = t & 1u;
        for (var kk = 0u; kk < 32u && t * 32u + kk < arrayLength(&r); kk += 16u) {
            acc += s[cur * 4608u + kk * 72u + wc];
        }
    }
    o[l] = acc;
}",
        );
        // cur * 4608 + kk * 72 + wc <= 4608 + 31 * 72 + 3 * 16 < 9216.
        assert_eq!(t.matches("math min").count(), 0, "{t}");
        assert_eq!(c.emitted, 0, "{t}");
    }

    #[test]
    fn local_invocation_ids_are_below_the_workgroup_size() {
        let (t, c) = checked(
            "var<workgroup> tile: array<array<f32, 16>, 8>;
@group(0) @binding(0) var<storage, read_write> o: array<f32, 128>;
@compute @workgroup_size(16, 8) fn main(@builtin(local_invocation_id) l: vec3<u32>,
                                        @builtin(local_invocation_index) i: u32) {
    tile[l.y][l.x] = o[i];
    workgroupBarrier();
    o[i] = tile[l.x][l.y];
}",
        );
        // l.x < 16 and l.y < 8 index tile's rows (8) and columns (16) as declared, i < 128
        // indexes o: only the transposed read, tile[l.x] (l.x up to 15 into 8 rows), clamps.
        assert_eq!(c.emitted, 1, "{t}");
        assert_eq!(t.matches("math min").count(), 1, "{t}");
    }

    #[test]
    fn a_signed_index_needs_a_non_negative_guard() {
        let (_, c) = checked(&format!(
            "{BUFFERS}@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = i32(g.x);
    if i < 8 {{ a[0] = f[i]; }}
    if i >= 0 && i < 8 {{ a[1] = f[i]; }}
}}"
        ));
        // The first f[i] may be negative; a[0] and a[1] are constant indices into a
        // runtime-sized array, which the length still bounds.
        assert_eq!(c, BoundsCounts { emitted: 3, eliminated: 1 });
    }

    #[test]
    fn function_workgroup_and_value_indices_are_clamped() {
        let (t, c) = checked(
            "var<workgroup> s: array<u32, 16>;
@group(0) @binding(0) var<storage, read_write> o: array<u32, 64>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) l: u32) {
    var t = array<u32, 4>(1u, 2u, 3u, 4u);
    let v = vec3<u32>(5u, 6u, 7u);
    s[o[l & 63u]] = t[o[l & 63u]] + v[o[l & 63u]];
    o[l & 63u] = s[l & 15u];
}",
        );
        // s[..] store, t[..], v[..] clamp (3); the o[l & 63u] and s[l & 15u] need nothing.
        assert_eq!(c.emitted, 3, "{t}");
        assert_eq!(t.matches("math min").count(), 3, "{t}");
        assert!(t.contains(" 15u") && t.contains(" 3u") && t.contains(" 2u"), "{t}");
    }

    #[test]
    fn cooperative_tiles_get_a_limit_unless_they_fit() {
        let (t, c) = checked(
            "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
var<workgroup> w: array<f32, 512>;
var<workgroup> n: array<array<f32, 16>, 32>;
@compute @workgroup_size(32) fn main(@builtin(workgroup_id) g: vec3<u32>) {
    let m = coopLoadT<coop_mat16x16<f32, C>>(&a[g.x * 16u], 32u);
    let h = g.x & 1u;
    coopStoreT(m, &w[h * 256u], 16u);
    coopStoreT(m, &w[h * 256u + 1u], 16u);
    coopStoreT(m, &n[h * 16u][0], 16u);
    coopStoreT(m, &n[g.x][0], 16u);
}",
        );
        // a: runtime-sized, so a limit from its length. w[h * 256u] (last element 256 + 255)
        // fits; one further does not. n flattens to 512 scalars: with h * 16u in rows the
        // tile fits (the row index and the tile: two eliminated); g.x clamps to row 31 as any
        // workgroup index does, and the tile from there needs a limit.
        assert_eq!(c, BoundsCounts { emitted: 4, eliminated: 3 }, "{t}");
        assert_eq!(t.matches(", limit %").count(), 3, "{t}");
        assert_eq!(t.matches("array_length").count(), 1, "{t}");
        assert_eq!(t.matches("math min").count(), 1, "{t}");
        // len(a) - g.x * 16 under g.x * 16 < len(a); 512 - (h * 256 + 1) and
        // 512 - min(g.x, 31) * 16 without a condition (both first elements are in range).
        assert_eq!(t.matches("= subtract ").count(), 3, "{t}");
        assert_eq!(t.matches("= select ").count(), 1, "{t}");
    }

    #[test]
    fn counters_stepping_by_a_constant_end_at_their_last_step() {
        let src = |skip: &str| {
            format!(
                "enable f16;
enable wgpu_cooperative_matrix;
var<workgroup> s: array<f16, 2304>;
@group(0) @binding(0) var<storage, read_write> o: array<f32, 256>;
@group(0) @binding(1) var<uniform> k: u32;
@compute @workgroup_size(32) fn main() {{
    var acc: coop_mat16x16<f32, C>;
    for (var t = 0u; t < 2u; t++) {{
        for (var kk = 0u; kk < 64u && t * 64u + kk < k; kk += 16u) {{
            if kk == 32u {{ {skip} continue; }}
            let a = coopLoadT<coop_mat16x16<f16, A>>(&s[(t & 1u) * 1152u + kk], 72u);
            let b = coopLoadT<coop_mat16x16<f16, B>>(&s[(t & 1u) * 1152u + kk + 1u], 72u);
            acc = coopMultiplyAdd(a, b, acc);
        }}
    }}
    coopStoreT(acc, &o[0], 16u);
}}"
            )
        };
        // kk is at most 48: 1152 + 48 + 15 * 72 + 15 = 2295 < 2304 fits, one further
        // (+ 1) ends at 2296 and fits too; o's 256 elements hold the 16x16 result.
        let (t, c) = checked(&src(""));
        assert_eq!(c, BoundsCounts { emitted: 0, eliminated: 3 }, "{t}");
        // A `continue` that moves the counter off its step: kk may be 63 (the tile from
        // 1152 + 63 ends at 2310).
        let (t, c) = checked(&src("kk += 1u;"));
        assert_eq!(c, BoundsCounts { emitted: 2, eliminated: 1 }, "{t}");
    }

    #[test]
    fn off_by_one_guards_do_not_count() {
        let (_, c) = checked(&format!(
            "{BUFFERS}@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    if i <= 8u {{ a[0] = f[i]; }}
    if i <= 7u {{ a[1] = f[i]; }}
}}"
        ));
        assert_eq!(c.emitted, 3, "f[i] under i <= 8u, a[0] and a[1]: {c:?}");
        assert_eq!(c.eliminated, 1, "f[i] under i <= 7u: {c:?}");
    }

    /// `y[3i]`, `y[3i + 1]` and `y[3i + 2]` after an early return on `3i + 2 >= len(y)`:
    /// proven when `i < arrayLength(&x)` bounds `3i + 2` below 2^32 (a binding holds fewer
    /// than 2^32 bytes), checked when nothing does (`3i + 2` may wrap to a small number).
    #[test]
    fn a_guard_on_the_last_of_several_offsets_covers_the_smaller_ones() {
        let src = |guard: &str| {
            format!(
                "@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    if ({guard}3u * i + 2u >= arrayLength(&y)) {{ return; }}
    y[3u * i] = 1.0;
    y[3u * i + 1u] = 2.0;
    y[3u * i + 2u] = 3.0;
}}"
            )
        };
        let (t, c) = checked(&src("i >= arrayLength(&x) || "));
        assert_eq!(c, BoundsCounts { emitted: 0, eliminated: 3 }, "{t}");
        let (t, c) = checked(&src(""));
        assert_eq!(c, BoundsCounts { emitted: 2, eliminated: 1 }, "{t}");
        // A bound whose own largest value leaves room to wrap proves only the exact index.
        let (t, c) = checked(&src("i >= 0x60000000u || "));
        assert_eq!(c, BoundsCounts { emitted: 2, eliminated: 1 }, "{t}");
    }
}
