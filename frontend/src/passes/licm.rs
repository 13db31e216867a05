//! Loop-invariant code motion: instructions of a loop whose operands are all defined outside
//! it move to just before the loop, so they run once instead of once per iteration.
//!
//! Loops are handled innermost first, so an instruction invariant in several nested loops
//! climbs out of all of them. Nested loops are not searched by an outer loop (what could leave
//! them already has); `if`/`switch` arms and inlined calls inside the loop are.
//!
//! # What moves
//!
//! * **Pure instructions** (no side effects, no memory read): arithmetic, conversions,
//!   composites, constants, pointer arithmetic. They cannot fault (WGSL defines integer
//!   division by zero and shift overflow; every target lowers them that way), so they move
//!   even from arms that might not run. The exceptions are the ones the reference
//!   interpreter checks for bounds: [`Op::Access`] with a runtime index and
//!   [`Op::ExtractDyn`]/[`Op::InsertDyn`]. They move only from the loop body's *prefix* (the
//!   top-level instructions before the first region that may leave the body), which runs
//!   whenever the loop is entered, or, for `Access`, when the index is a constant inside a
//!   fixed-size pointee. [`Speculate::Addresses`] (used after inlining for the PTX and LLVM
//!   backends, which compute addresses without checking them) lets every `Access` move.
//! * **`arrayLength`**: a binding's size is fixed for the whole dispatch.
//! * **Loads from memory nothing changes during a dispatch** (uniform, read-only storage and
//!   immediate data, [`AddressSpace::is_launch_constant`], the predicate CSE merges loads by)
//!   whose pointer is invariant. WebGPU forbids a writable binding to alias a read-only one
//!   within a dispatch, and docs/abi.md asks the same of CUDA hosts, so stores, atomics and
//!   barriers in the loop do not matter. The load must not fault where the original would
//!   not have run: it moves when the pointer reaches the buffer only through struct members
//!   and constant in-range indices of fixed-size arrays, vectors and matrices (WebGPU
//!   validates that a uniform binding holds its whole type, and a CUDA host passes a pointer
//!   to the whole struct per docs/ptx.md), or when the load is in the prefix.
//!
//! Workgroup, private and function memory are never hoisted from: other invocations write
//! workgroup memory between barriers, and mem2reg already promoted what it could of the rest.

use crate::ir::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// How far instructions that the reference interpreter bounds-checks may be speculated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speculate {
    /// Only where the original would have run too (or the address is statically in bounds).
    Checked,
    /// Pointer arithmetic ([`Op::Access`]) moves freely: for backends whose address
    /// computation never faults (PTX, LLVM), after inlining.
    Addresses,
}

/// Hoists loop-invariant instructions in every function ([`Speculate::Checked`]).
pub fn licm(m: &mut Module) {
    let (types, globals) = (&m.types, &m.globals);
    for f in &mut m.functions {
        licm_function(types, globals, f, Speculate::Checked);
    }
}

/// Hoists loop-invariant instructions in `f`, whose types and globals are `types`/`globals`.
pub fn licm_function(types: &Types, globals: &[Global], f: &mut Function, spec: Speculate) {
    let ptrs = pointer_facts(types, globals, f);
    let mut body = std::mem::take(&mut f.body);
    let cx = Licm { types, values: &f.values, ptrs, spec };
    cx.block(&mut body);
    f.body = body;
}

/// What is known about a pointer value: the address space of the buffer it points into
/// (`None`: not a module-scope variable) and whether it was derived only by in-bounds static
/// indexing of fixed-size types.
#[derive(Clone, Copy)]
struct PtrFact {
    space: Option<AddressSpace>,
    static_in_bounds: bool,
}

/// Pointer facts for every pointer value of `f`, walking definitions before uses.
fn pointer_facts(types: &Types, globals: &[Global], f: &Function) -> HashMap<ValueId, PtrFact> {
    let mut consts: HashMap<ValueId, i64> = HashMap::default();
    let mut facts: HashMap<ValueId, PtrFact> = HashMap::default();
    fn walk(
        b: &Block,
        types: &Types,
        globals: &[Global],
        f: &Function,
        consts: &mut HashMap<ValueId, i64>,
        facts: &mut HashMap<ValueId, PtrFact>,
    ) {
        for inst in &b.insts {
            if let Some(r) = inst.result {
                match &inst.op {
                    Op::Const(ConstValue::U32(x)) => {
                        consts.insert(r, i64::from(*x));
                    }
                    Op::Const(ConstValue::I32(x)) => {
                        consts.insert(r, i64::from(*x));
                    }
                    Op::GlobalAddr(g) => {
                        let space = globals.get(g.index()).map(|g| g.space);
                        facts.insert(r, PtrFact { space, static_in_bounds: true });
                    }
                    Op::AccessIndex(p, i) => {
                        if let Some(&pf) = facts.get(p) {
                            let ok = fixed_len(types, f, *p).is_some_and(|n| *i < n);
                            let static_in_bounds = pf.static_in_bounds && ok;
                            facts.insert(r, PtrFact { static_in_bounds, ..pf });
                        }
                    }
                    Op::Access(p, i) => {
                        if let Some(&pf) = facts.get(p) {
                            let ok = match (consts.get(i), fixed_len(types, f, *p)) {
                                (Some(&i), Some(n)) => i >= 0 && i < i64::from(n),
                                _ => false,
                            };
                            let static_in_bounds = pf.static_in_bounds && ok;
                            facts.insert(r, PtrFact { static_in_bounds, ..pf });
                        }
                    }
                    _ => {}
                }
            }
            for nb in inst.op.blocks() {
                walk(nb, types, globals, f, consts, facts);
            }
        }
    }
    walk(&f.body, types, globals, f, &mut consts, &mut facts);
    facts
}

/// Element or member count of what pointer `p` points to, when fixed (runtime-sized arrays
/// and non-composites: `None`).
fn fixed_len(types: &Types, f: &Function, p: ValueId) -> Option<u32> {
    let Type::Pointer { base, .. } = types.get(f.values.get(p.index())?.ty) else { return None };
    match types.get(*base) {
        Type::Vector { size, .. } => Some(u32::from(*size)),
        Type::Matrix { columns, .. } => Some(u32::from(*columns)),
        Type::Array { len, .. } => *len,
        Type::Struct { members, .. } => Some(members.len() as u32),
        _ => None,
    }
}

/// Whether `b` (recursively) holds a terminator that leaves anything but its own region.
fn may_leave(b: &Block) -> bool {
    !matches!(b.term, Terminator::Yield(_))
        || b.insts.iter().any(|i| i.op.blocks().into_iter().any(may_leave))
}

/// Facts about one loop: the values defined inside it.
#[derive(Default)]
struct LoopFacts {
    defs: HashSet<ValueId>,
}

impl LoopFacts {
    fn scan(&mut self, b: &Block) {
        self.defs.extend(b.params.iter().copied());
        for inst in &b.insts {
            self.defs.extend(inst.result);
            self.defs.extend(inst.op.region_results().iter().copied());
            for nb in inst.op.blocks() {
                self.scan(nb);
            }
        }
    }
}

struct Licm<'a> {
    types: &'a Types,
    values: &'a [ValueData],
    ptrs: HashMap<ValueId, PtrFact>,
    spec: Speculate,
}

impl Licm<'_> {
    /// Processes the regions of `b` innermost first, placing what leaves each loop right
    /// before it.
    fn block(&self, b: &mut Block) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            for nb in inst.op.blocks_mut() {
                self.block(nb);
            }
            if let Op::Loop { body, continuing, .. } = &mut inst.op {
                out.extend(self.hoist(body, continuing));
            }
            out.push(inst);
        }
        b.insts = out;
    }

    /// Removes the invariant instructions of the loop with `body` and `continuing`, returned in
    /// an order where definitions precede uses.
    fn hoist(&self, body: &mut Block, continuing: &mut Block) -> Vec<Inst> {
        let mut facts = LoopFacts::default();
        facts.scan(body);
        facts.scan(continuing);
        let prefix = body.insts.iter().position(|i| i.op.blocks().into_iter().any(may_leave));
        let prefix = prefix.unwrap_or(body.insts.len());
        let mut out = Vec::new();
        self.collect(body, Some(prefix), &mut facts, &mut out);
        self.collect(continuing, None, &mut facts, &mut out);
        out
    }

    /// Moves the invariant instructions of `b` (and of its non-loop regions) to `out`.
    /// `prefix`: for the loop body itself, how many leading instructions always run.
    fn collect(
        &self,
        b: &mut Block,
        prefix: Option<usize>,
        facts: &mut LoopFacts,
        out: &mut Vec<Inst>,
    ) {
        let old = std::mem::take(&mut b.insts);
        let mut kept = Vec::with_capacity(old.len());
        for (k, mut inst) in old.into_iter().enumerate() {
            let always_runs = prefix.is_some_and(|p| k < p);
            if self.movable(&inst, always_runs, facts) {
                if let Some(r) = inst.result {
                    facts.defs.remove(&r);
                }
                out.push(inst);
                continue;
            }
            if !matches!(inst.op, Op::Loop { .. }) {
                for nb in inst.op.blocks_mut() {
                    self.collect(nb, None, facts, out);
                }
            }
            kept.push(inst);
        }
        b.insts = kept;
    }

    fn movable(&self, inst: &Inst, always_runs: bool, facts: &LoopFacts) -> bool {
        let Some(r) = inst.result else { return false };
        if !facts.defs.contains(&r) {
            return false;
        }
        let mut invariant = true;
        inst.op.for_each_operand(|v| invariant &= !facts.defs.contains(&v));
        if !invariant {
            return false;
        }
        match &inst.op {
            Op::Access(..) => {
                always_runs
                    || self.spec == Speculate::Addresses
                    || self.ptrs.get(&r).is_some_and(|f| f.static_in_bounds)
            }
            Op::ExtractDyn(..) | Op::InsertDyn { .. } => always_runs,
            Op::ArrayLength(_) => true,
            Op::Load(p) => self.load_movable(*p, always_runs),
            op => !op.has_side_effects() && !op.reads_memory(),
        }
    }

    fn load_movable(&self, p: ValueId, always_runs: bool) -> bool {
        let Some(pf) = self.ptrs.get(&p) else { return false };
        let atomic = self.values.get(p.index()).is_some_and(|d| {
            matches!(self.types.get(d.ty), Type::Pointer { base, .. }
                if matches!(self.types.get(*base), Type::Atomic(_)))
        });
        if atomic || !(pf.static_in_bounds || always_runs) {
            return false;
        }
        pf.space.is_some_and(AddressSpace::is_launch_constant)
    }
}
