//! Small helpers the passes share.

use crate::ir::*;
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// A value substitution built while a pass walks a function in dominance order: uses are
/// rewritten as they are reached, so every use sees the replacement of its definition.
#[derive(Default)]
pub(crate) struct Subst {
    map: HashMap<ValueId, ValueId>,
}

impl Subst {
    /// Records that uses of `from` must read `to` (resolved first, so chains stay short).
    pub(crate) fn set(&mut self, from: ValueId, to: ValueId) {
        let to = self.get(to);
        if to != from {
            self.map.insert(from, to);
        }
    }
    /// The replacement of `v` (itself when none).
    pub(crate) fn get(&self, mut v: ValueId) -> ValueId {
        // Bounded: `set` never records a cycle, the bound only guards against misuse.
        for _ in 0..64 {
            match self.map.get(&v) {
                Some(&w) => v = w,
                None => break,
            }
        }
        v
    }
    /// Whether nothing was substituted.
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// Rewrites the operands of an instruction (region ops: their own operands only).
    pub(crate) fn apply_op(&self, op: &mut Op) {
        if !self.is_empty() {
            op.map_operands(|v| self.get(v));
        }
    }
    /// Rewrites the arguments of a terminator.
    pub(crate) fn apply_term(&self, t: &mut Terminator) {
        for a in t.args_mut() {
            *a = self.get(*a);
        }
    }
    /// Rewrites every use in `b`'s tree (operands and terminator arguments).
    pub(crate) fn apply_block(&self, b: &mut Block) {
        for inst in &mut b.insts {
            self.apply_op(&mut inst.op);
            for nb in inst.op.blocks_mut() {
                self.apply_block(nb);
            }
        }
        self.apply_term(&mut b.term);
    }
}

/// The element type of composite `t` at `index` (`None`: a runtime index, structs excluded).
pub(crate) fn element_type(types: &mut Types, t: TypeId, index: Option<u32>) -> Option<TypeId> {
    match types.get(t).clone() {
        Type::Vector { scalar, .. } => Some(types.scalar(scalar)),
        Type::Matrix { rows, scalar, .. } => {
            Some(types.intern(Type::Vector { size: rows, scalar }))
        }
        Type::Array { base, .. } => Some(base),
        Type::Struct { members, .. } => members.get(index? as usize).map(|m| m.ty),
        _ => None,
    }
}

/// Calls `f` on every block of the tree rooted at `b`, parents before children.
pub(crate) fn for_each_block_mut(b: &mut Block, f: &mut impl FnMut(&mut Block)) {
    f(b);
    for inst in &mut b.insts {
        for nb in inst.op.blocks_mut() {
            for_each_block_mut(nb, f);
        }
    }
}

/// For function `fi` when it is a compute entry point with one `@workgroup_size`: its
/// `local_invocation_id` argument with the largest value of each component (the size minus
/// one) and its `local_invocation_index` argument with the largest index (in every slot).
/// The bounds pass and `fold_ranges` read the workgroup size from here.
pub(crate) fn invocation_ranges(
    entries: &[EntryPoint],
    fi: usize,
    f: &Function,
) -> HashMap<ValueId, [u64; 3]> {
    let mut out = HashMap::default();
    // A function that two entry points share could run with either size.
    let mut sizes = entries.iter().filter(|e| e.function.index() == fi).map(|e| e.workgroup_size);
    let (Some(size), None) = (sizes.next(), sizes.next()) else { return out };
    if size.contains(&0) {
        return out;
    }
    let [x, y, z] = size.map(|d| u64::from(d) - 1);
    let last = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]) - 1;
    for p in &f.params {
        match p.binding {
            Some(IoBinding::BuiltIn(BuiltIn::LocalInvocationId)) => {
                out.insert(p.value, [x, y, z]);
            }
            Some(IoBinding::BuiltIn(BuiltIn::LocalInvocationIndex)) => {
                out.insert(p.value, [last; 3]);
            }
            _ => {}
        }
    }
    out
}

/// A copy of `i` (regions included) in which every value it defines is fresh; `map` learns
/// the copies, and operands defined outside `i` stay as they are.
pub(crate) fn clone_inst(i: &Inst, map: &mut HashMap<ValueId, ValueId>, f: &mut Function) -> Inst {
    let mut op = i.op.clone();
    // Regions first: `break_if` names a value of the continuing block.
    for b in op.blocks_mut() {
        clone_block(b, map, f);
    }
    op.map_operands(|v| map.get(&v).copied().unwrap_or(v));
    if let Op::If { results, .. }
    | Op::Switch { results, .. }
    | Op::Loop { results, .. }
    | Op::Inline { results, .. } = &mut op
    {
        for r in results.iter_mut() {
            *r = fresh(*r, map, f);
        }
    }
    let result = i.result.map(|r| fresh(r, map, f));
    Inst { result, op, span: i.span }
}

fn clone_block(b: &mut Block, map: &mut HashMap<ValueId, ValueId>, f: &mut Function) {
    for p in b.params.iter_mut() {
        *p = fresh(*p, map, f);
    }
    let old = std::mem::take(&mut b.insts);
    b.insts = old.iter().map(|j| clone_inst(j, map, f)).collect();
    for a in b.term.args_mut() {
        *a = map.get(a).copied().unwrap_or(*a);
    }
}

fn fresh(v: ValueId, map: &mut HashMap<ValueId, ValueId>, f: &mut Function) -> ValueId {
    let name = f.values[v.index()].name.clone();
    let n = f.new_value(f.ty(v), name);
    map.insert(v, n);
    n
}

/// Every `Const` instruction's value in `b` and its nested blocks.
pub(crate) fn collect_consts(b: &Block, out: &mut HashMap<ValueId, ConstValue>) {
    for i in &b.insts {
        if let (Some(r), Op::Const(c)) = (i.result, &i.op) {
            out.insert(r, c.clone());
        }
        for nb in i.op.blocks() {
            collect_consts(nb, out);
        }
    }
}

/// The constant `op` computes from `known`: a `Const`'s value, or a binary operation of two
/// known values (WGSL's semantics, [`super::fold::binary`]).
pub(crate) fn known_value(op: &Op, known: &HashMap<ValueId, ConstValue>) -> Option<ConstValue> {
    match op {
        Op::Const(c) => Some(c.clone()),
        Op::Binary(o, a, b) => super::fold::binary(*o, known.get(a)?, known.get(b)?),
        _ => None,
    }
}

/// Adds to `known` what the instructions of `insts` (not their nested blocks) compute from it
/// ([`known_value`]).
pub(crate) fn extend_known(insts: &[Inst], known: &mut HashMap<ValueId, ConstValue>) {
    for i in insts {
        if let Some(r) = i.result {
            if let Some(c) = known_value(&i.op, known) {
                known.insert(r, c);
            }
        }
    }
}
