//! Value ranges of `u32` values, and the bounds-policy clamps and guards they prove
//! unnecessary once calls are inlined.
//!
//! The bounds pass (`passes::bounds`) runs on each function on its own, so an index that a
//! helper receives as a parameter (`fn put(at: u32, ..) { tile[at + 1u] = .. }`) is clamped
//! there even when every caller passes one in range. After inlining, the index is an
//! expression of the caller's values; this pass computes an interval `[lo, hi]` for each `u32`
//! value it can (constants; `local_invocation_id` and `local_invocation_index`, below the
//! workgroup size; `&`, `%`, `/`, `>>`, `<<`, `+`, `-`, `*`, `min`, `max` and `select` of
//! values with intervals, where the arithmetic cannot wrap) and then
//!
//! * replaces `min(x, c)` by `x` when `x <= c` always (the clamp `min(i, n - 1)` of an index
//!   in range; equally valid for a user's `min`);
//! * replaces `x < y` by `true` when `x`'s largest value is below `y`'s smallest (the guard
//!   `i < n` of an index in range), and an `if` whose condition is that constant by its
//!   `then` block;
//! * drops a cooperative load's or store's `limit` when its smallest value exceeds the
//!   tile's last element's offset, `(major - 1) * stride + minor - 1` with the stride's
//!   largest value (a tile a helper stores at a parameter's offset, proven inside its array
//!   by the caller's values). `select(c, x, _)` has `x`'s interval when `c` is such a proven
//!   comparison.
//!
//! Values defined by block parameters (loop-carried values) have no interval: the analysis is
//! one pass over definitions, not a fixed point. A value defined in the `then` block of
//! `if x < y` (or `if y > x`) sees its operand `x` below `y`'s largest value (`red[lid + 64u]`
//! under `if lid < 64u`, as in an unrolled workgroup reduction, needs no clamp).

use crate::ir::*;
use naga::{BinaryOperator as B, MathFunction as M};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// An inclusive interval of a `u32` value.
type Range = (u64, u64);

/// The largest `u32`.
const MAX: u64 = u32::MAX as u64;

/// Applies the folds of the module docs to function `f` (entry function `id` of `m` with its
/// calls inlined); returns whether anything changed.
pub fn fold_ranges(m: &Module, id: FuncId, f: &mut Function) -> bool {
    let ValueRanges(mut r) = ValueRanges::new(m, id, f);
    let mut subst: HashMap<ValueId, ValueId> = HashMap::default();
    let mut consts: HashMap<ValueId, bool> = HashMap::default();
    // The clamps and guards this pass may fold.
    let candidates: Vec<(ValueId, Def)> = r
        .defs
        .iter()
        .filter(|(_, d)| matches!(d, Def::Min(..) | Def::Binary(B::Less, ..)))
        .map(|(v, d)| (*v, *d))
        .collect();
    for (v, def) in candidates {
        match def {
            Def::Min(x, c) if r.is_u32(v) => match (r.operand(v, x, 0), r.operand(v, c, 0)) {
                (Some((_, hi)), Some((clo, _))) if hi <= clo => {
                    subst.insert(v, x);
                }
                _ => {}
            },
            Def::Binary(B::Less, x, y) if r.is_u32(x) => {
                if let (Some((_, xhi)), Some((ylo, _))) = (r.operand(v, x, 0), r.operand(v, y, 0)) {
                    if xhi < ylo {
                        consts.insert(v, true);
                    }
                }
            }
            _ => {}
        }
    }
    // Cooperative tiles proven inside, by (limit, stride).
    let mut tiles = Vec::new();
    coop_limits(&f.body, &f.values, &mut tiles);
    let mut inside: HashSet<(ValueId, ValueId)> = HashSet::default();
    for (limit, stride, matrix, ptr, row_major) in tiles {
        let (Some((lo, _)), Some((_, s))) = (r.range(limit, 0), r.range(stride, 0)) else {
            continue;
        };
        if m.types.coop_last_offset(matrix, ptr, row_major, s).is_some_and(|last| last < lo) {
            inside.insert((limit, stride));
        }
    }
    if subst.is_empty() && consts.is_empty() && inside.is_empty() {
        return false;
    }
    let resolve = |mut v: ValueId| {
        // Chains (`min(min(x, c), d)`) resolve to their end.
        for _ in 0..16 {
            match subst.get(&v) {
                Some(&w) => v = w,
                None => break,
            }
        }
        v
    };
    let mut body = std::mem::take(&mut f.body);
    rewrite(&mut body, &resolve, &consts, &inside);
    f.body = body;
    true
}

/// Rewrites operands through `resolve`, turns proven comparisons into constants and replaces
/// an `if` on such a constant by its `then` block.
fn rewrite(
    b: &mut Block,
    resolve: &dyn Fn(ValueId) -> ValueId,
    consts: &HashMap<ValueId, bool>,
    inside: &HashSet<(ValueId, ValueId)>,
) {
    let mut out = Vec::with_capacity(b.insts.len());
    let mut yielded: HashMap<ValueId, ValueId> = HashMap::default();
    let map = |v: ValueId, y: &HashMap<ValueId, ValueId>| {
        let v = resolve(v);
        y.get(&v).copied().unwrap_or(v)
    };
    for mut inst in std::mem::take(&mut b.insts) {
        if let Op::CoopLoad { stride, limit, .. } | Op::CoopStore { stride, limit, .. } =
            &mut inst.op
        {
            if limit.is_some_and(|l| inside.contains(&(l, *stride))) {
                *limit = None;
            }
        }
        inst.op.map_operands(|v| map(v, &yielded));
        for nb in inst.op.blocks_mut() {
            rewrite(nb, &|v| map(v, &yielded), consts, inside);
        }
        if let Some(r) = inst.result {
            if let Some(&c) = consts.get(&r) {
                inst.op = Op::Const(ConstValue::Bool(c));
            }
        }
        let flatten = match &inst.op {
            Op::If { cond, then_, .. } => {
                consts.get(cond) == Some(&true) && matches!(then_.term, Terminator::Yield(_))
            }
            _ => false,
        };
        if flatten {
            if let Op::If { then_, results, .. } = inst.op {
                if let Terminator::Yield(vals) = &then_.term {
                    for (r, v) in results.iter().zip(vals) {
                        yielded.insert(*r, *v);
                    }
                }
                out.extend(then_.insts);
            }
            continue;
        }
        out.push(inst);
    }
    for v in b.term.args_mut() {
        *v = map(*v, &yielded);
    }
    b.insts = out;
}

/// A cooperative load or store with a limit: (limit, stride, matrix type, pointer type,
/// row-major).
type CoopLimit = (ValueId, ValueId, TypeId, TypeId, bool);

/// The cooperative loads and stores in `b` that carry a limit.
fn coop_limits(b: &Block, values: &[ValueData], out: &mut Vec<CoopLimit>) {
    for inst in &b.insts {
        match &inst.op {
            Op::CoopLoad { ptr, stride, row_major, limit: Some(l) } => {
                if let Some(r) = inst.result {
                    let (m, p) = (values[r.index()].ty, values[ptr.index()].ty);
                    out.push((*l, *stride, m, p, *row_major));
                }
            }
            Op::CoopStore { value, ptr, stride, row_major, limit: Some(l) } => {
                let (m, p) = (values[value.index()].ty, values[ptr.index()].ty);
                out.push((*l, *stride, m, p, *row_major));
            }
            _ => {}
        }
        for nb in inst.op.blocks() {
            coop_limits(nb, values, out);
        }
    }
}

/// The definitions the analysis reads, without their operand lists' allocations.
#[derive(Clone, Copy)]
enum Def {
    /// A `u32` constant.
    Const(u64),
    Binary(B, ValueId, ValueId),
    Extract(ValueId, u32),
    /// `select(reject, accept, cond)`: (cond, accept, reject).
    Select(ValueId, ValueId, ValueId),
    Min(ValueId, ValueId),
    Max(ValueId, ValueId),
}

/// The `u32` intervals of the analysis for an entry function with its calls inlined, for a
/// backend that checks bounds of operations it lowers itself (the PTX backend's
/// workgroup-matrix products, `docs/workgroup-matrix.md`).
pub struct ValueRanges<'a>(Ranges<'a>);

impl<'a> ValueRanges<'a> {
    /// The intervals of `f`, entry function `id` of `m` with its calls inlined.
    pub fn new(m: &'a Module, id: FuncId, f: &'a Function) -> Self {
        let mut r = Ranges {
            types: &m.types,
            values: &f.values,
            defs: HashMap::default(),
            known: HashMap::default(),
            aliases: HashMap::default(),
            invocation: super::util::invocation_ranges(&m.entry_points, id.index(), f),
            guards: Vec::new(),
            guarded: HashMap::default(),
        };
        r.collect(&f.body, None);
        ValueRanges(r)
    }

    /// The inclusive interval of `u32` value `v`, when one is known.
    pub fn range(&mut self, v: ValueId) -> Option<(u64, u64)> {
        self.0.range(v, 0)
    }
}

struct Ranges<'a> {
    types: &'a Types,
    values: &'a [ValueData],
    /// Pure scalar definitions the analysis reads.
    defs: HashMap<ValueId, Def>,
    /// Computed intervals (`None`: none known), memoized.
    known: HashMap<ValueId, Option<Range>>,
    /// Inlined bodies' params, by the argument each is bound to.
    aliases: HashMap<ValueId, ValueId>,
    /// The largest value of each `local_invocation_id` component and of
    /// `local_invocation_index`, by argument value (`util::invocation_ranges`).
    invocation: HashMap<ValueId, [u64; 3]>,
    /// Guards `x < y` enclosing definitions: (enclosing guard, x, y), by index.
    guards: Vec<(Option<usize>, ValueId, ValueId)>,
    /// The innermost guard enclosing each definition that has one.
    guarded: HashMap<ValueId, usize>,
}

impl Ranges<'_> {
    fn collect(&mut self, b: &Block, guard: Option<usize>) {
        for inst in &b.insts {
            if let (Some(r), Some(g)) = (inst.result, guard) {
                self.guarded.insert(r, g);
            }
            if let Some(r) = inst.result {
                let def = match &inst.op {
                    Op::Const(ConstValue::U32(c)) => Some(Def::Const(u64::from(*c))),
                    &Op::Binary(op, x, y) => Some(Def::Binary(op, x, y)),
                    &Op::Extract(x, c) => Some(Def::Extract(x, c)),
                    &Op::Select { cond, accept, reject } => Some(Def::Select(cond, accept, reject)),
                    Op::Math(M::Min, a) if a.len() == 2 => Some(Def::Min(a[0], a[1])),
                    Op::Math(M::Max, a) if a.len() == 2 => Some(Def::Max(a[0], a[1])),
                    _ => None,
                };
                if let Some(def) = def {
                    self.defs.insert(r, def);
                }
            }
            // An inlined body's params are its call's arguments.
            if let Op::Inline { body, args, .. } = &inst.op {
                for (p, a) in body.params.iter().zip(args) {
                    self.aliases.insert(*p, *a);
                }
            }
            if let Op::If { cond, then_, else_, .. } = &inst.op {
                let less = match self.defs.get(cond) {
                    Some(&Def::Binary(B::Less, x, y)) => Some((x, y)),
                    Some(&Def::Binary(B::Greater, y, x)) => Some((x, y)),
                    _ => None,
                };
                let inner = match less {
                    Some((x, y)) if self.is_u32(x) => {
                        self.guards.push((guard, x, y));
                        Some(self.guards.len() - 1)
                    }
                    _ => guard,
                };
                self.collect(then_, inner);
                self.collect(else_, guard);
                continue;
            }
            for nb in inst.op.blocks() {
                self.collect(nb, guard);
            }
        }
    }

    /// The argument an inlined body's param `v` is bound to, through nested inlining.
    fn unaliased(&self, mut v: ValueId) -> ValueId {
        for _ in 0..64 {
            match self.aliases.get(&v) {
                Some(&a) => v = a,
                None => break,
            }
        }
        v
    }

    /// The interval of operand `x` of `v`'s definition: [`Self::range`] narrowed by the
    /// guards `x < y` around the definition.
    fn operand(&mut self, v: ValueId, x: ValueId, depth: u32) -> Option<Range> {
        let mut r = self.range(x, depth);
        let x = self.unaliased(x);
        let mut g = self.guarded.get(&v).copied();
        while let Some(i) = g {
            let Some(&(outer, gx, gy)) = self.guards.get(i) else { break };
            if self.unaliased(gx) == x {
                if let Some((_, yhi)) = self.range(gy, depth) {
                    let hi = yhi.checked_sub(1)?;
                    r = match r {
                        Some((lo, xhi)) if lo <= hi.min(xhi) => Some((lo, xhi.min(hi))),
                        Some(_) => return None,
                        None => Some((0, hi)),
                    };
                }
            }
            g = outer;
        }
        r
    }

    fn is_u32(&self, v: ValueId) -> bool {
        self.values
            .get(v.index())
            .is_some_and(|d| matches!(self.types.get(d.ty), Type::Scalar(Scalar::U32)))
    }

    /// The interval of `v`, if one is known.
    fn range(&mut self, v: ValueId, depth: u32) -> Option<Range> {
        if let Some(k) = self.known.get(&v) {
            return *k;
        }
        if depth > 64 || !self.is_u32(v) {
            return None;
        }
        if let Some(r) = self.invocation.get(&v) {
            return Some((0, r[0]));
        }
        if let Some(&a) = self.aliases.get(&v) {
            let r = self.range(a, depth + 1);
            self.known.insert(v, r);
            return r;
        }
        let r = self.compute(v, depth);
        self.known.insert(v, r);
        r
    }

    /// Whether `c` is `x < y` with `x`'s largest value below `y`'s smallest.
    fn proven_less(&mut self, c: ValueId, depth: u32) -> bool {
        match self.defs.get(&c) {
            Some(&Def::Binary(B::Less, x, y)) if self.is_u32(x) => {
                matches!((self.range(x, depth), self.range(y, depth)),
                    (Some((_, xhi)), Some((ylo, _))) if xhi < ylo)
            }
            _ => false,
        }
    }

    fn compute(&mut self, v: ValueId, depth: u32) -> Option<Range> {
        let def = *self.defs.get(&v)?;
        let d = depth + 1;
        let konst = |r: Option<Range>| r.filter(|(lo, hi)| lo == hi).map(|(lo, _)| lo);
        match def {
            Def::Const(c) => Some((c, c)),
            Def::Extract(x, c) if self.invocation.contains_key(&x) => {
                self.invocation.get(&x).and_then(|r| r.get(c as usize)).map(|&m| (0, m))
            }
            Def::Binary(op, x, y) => {
                let (rx, ry) = (self.operand(v, x, d), self.operand(v, y, d));
                match op {
                    B::And => match (rx, ry) {
                        (Some((_, a)), Some((_, b))) => Some((0, a.min(b))),
                        (Some((_, a)), None) | (None, Some((_, a))) => Some((0, a)),
                        _ => None,
                    },
                    B::Modulo => match (rx, konst(ry)) {
                        (Some(r), Some(c)) if c > 0 && r.1 < c => Some(r),
                        (_, Some(c)) if c > 0 => Some((0, c - 1)),
                        _ => None,
                    },
                    B::Divide => match (rx, konst(ry)) {
                        (Some((lo, hi)), Some(c)) if c > 0 => Some((lo / c, hi / c)),
                        _ => None,
                    },
                    B::ShiftRight => match (rx, konst(ry)) {
                        (Some((lo, hi)), Some(s)) => Some((lo >> (s % 32), hi >> (s % 32))),
                        _ => None,
                    },
                    B::ShiftLeft => match (rx, konst(ry)) {
                        (Some((lo, hi)), Some(s)) if (hi << (s % 32)) <= MAX => {
                            Some((lo << (s % 32), hi << (s % 32)))
                        }
                        _ => None,
                    },
                    B::Add => match (rx, ry) {
                        (Some((a, b)), Some((c, e))) if b + e <= MAX => Some((a + c, b + e)),
                        _ => None,
                    },
                    B::Subtract => match (rx, ry) {
                        (Some((a, b)), Some((c, e))) if a >= e => Some((a - e, b - c)),
                        _ => None,
                    },
                    B::Multiply => match (rx, ry) {
                        (Some((a, b)), Some((c, e))) if b.checked_mul(e)? <= MAX => {
                            Some((a * c, b * e))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            Def::Min(x, y) => match (self.operand(v, x, d), self.operand(v, y, d)) {
                (Some((a, b)), Some((c, e))) => Some((a.min(c), b.min(e))),
                (Some((_, b)), None) | (None, Some((_, b))) => Some((0, b)),
                _ => None,
            },
            Def::Max(x, y) => match (self.operand(v, x, d), self.operand(v, y, d)) {
                (Some((a, b)), Some((c, e))) => Some((a.max(c), b.max(e))),
                _ => None,
            },
            Def::Select(cond, accept, _) if self.proven_less(cond, d) => self.range(accept, d),
            Def::Select(_, accept, reject) => {
                match (self.range(accept, d), self.range(reject, d)) {
                    (Some((a, b)), Some((c, e))) => Some((a.min(c), b.max(e))),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles `src`, inlines entry `main` and folds ranges; returns the text of the inlined
    /// function and whether anything changed.
    fn folded(src: &str) -> (String, bool) {
        let m = crate::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let ep = m.entry_point("main").expect("entry");
        let mut f = super::super::inline_calls(&m, ep.function).expect("inlines");
        let changed = fold_ranges(&m, ep.function, &mut f);
        super::super::dce::dce_function(&mut f);
        let mut copy = m.clone();
        copy.functions[ep.function.index()] = f;
        crate::verifier::verify(&copy).unwrap_or_else(|d| panic!("{d:?}"));
        (crate::text::module_text(&copy), changed)
    }

    #[test]
    fn a_helper_index_from_the_caller_loses_its_clamp() {
        // In `put`, `at + 7u` may be anything: the bounds pass clamps it. Inlined, `at` is
        // `(l >> 1u) * 8u` with l < 64: at most 31 * 8 + 7 = 255 < 256.
        let src = "var<workgroup> tile: array<u32, 256>;
fn put(at: u32, v: u32) { tile[at] = v; tile[at + 7u] = v; }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) l: u32) {
    put((l >> 1u) * 8u, l);
}";
        let (t, changed) = folded(src);
        assert!(changed, "{t}");
        let main = &t[t.find(" main(").expect("main")..];
        assert_eq!(main.matches("math min").count(), 0, "{main}");
    }

    #[test]
    fn an_index_under_a_guard_sees_the_guard() {
        // Under `if l < 32u` (l < 256 in general), `l + 32u` is at most 63: no clamp into
        // array<u32, 64>. Outside the guard, and under `l < 33u`, the clamp stays.
        // The clamps come from a helper, which the bounds pass checks on its own.
        let src = "var<workgroup> tile: array<u32, 64>;
fn put(at: u32, v: u32) { tile[at] = v; }
@compute @workgroup_size(256) fn main(@builtin(local_invocation_index) l: u32) {
    if (l < 32u) { put(l + 32u, l); }
    if (64u > l) { put(l, l); }
    if (l < 33u) { put(l + 32u, 1u); }
    put(l, 2u);
}";
        let (t, changed) = folded(src);
        assert!(changed, "{t}");
        let main = &t[t.find(" main(").expect("main")..];
        assert_eq!(main.matches("math min").count(), 2, "{main}");
    }

    #[test]
    fn an_index_that_may_reach_the_end_keeps_its_clamp() {
        // (l >> 1u) * 8u + 8u reaches 256 for l = 63: the clamp stays.
        let src = "var<workgroup> tile: array<u32, 256>;
fn put(at: u32, v: u32) { tile[at + 8u] = v; }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) l: u32) {
    put((l >> 1u) * 8u, l);
}";
        let (t, _) = folded(src);
        let main = &t[t.find(" main(").expect("main")..];
        assert_eq!(main.matches("math min").count(), 1, "{main}");
    }

    #[test]
    fn a_guard_on_a_fixed_buffer_array_goes_when_the_index_is_in_range() {
        // `o[i]` into array<u32, 64> from a helper is guarded with `i < 64u`; the caller's
        // `l & 31u` is in range, so the `if` is replaced by its body.
        let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32, 64>;
fn put(i: u32) { o[i] = i; }
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) l: u32) {
    put(l & 31u);
}";
        let (t, changed) = folded(src);
        assert!(changed, "{t}");
        let main = &t[t.find(" main(").expect("main")..];
        assert!(!main.contains(" if "), "{main}");
    }

    #[test]
    fn a_helper_tile_inside_its_array_loses_its_limit() {
        // In `put`, the tile at `at` needs a limit; inlined, `at` is (l / 32) * 16 with
        // l < 128: at most 48 + 15 * 64 + 15 = 1023 < 1024 at one caller, 1039 at the other.
        let src = "enable f16;
enable wgpu_cooperative_matrix;
var<workgroup> s: array<f32, 1024>;
fn put(m: coop_mat16x16<f32, C>, at: u32) { coopStoreT(m, &s[at], 64u); }
@compute @workgroup_size(128) fn main(@builtin(local_invocation_index) l: u32) {
    var m: coop_mat16x16<f32, C>;
    put(m, (l / 32u) * 16u);
    put(m, (l / 32u) * 16u + 16u);
}";
        let (t, changed) = folded(src);
        assert!(changed, "{t}");
        let main = &t[t.find(" main(").expect("main")..];
        assert_eq!(main.matches("coop_store_t").count(), 2, "{main}");
        assert_eq!(main.matches(", limit %").count(), 1, "{main}");
    }
}
