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
