//! Common-subexpression elimination over the region tree.
//!
//! A scoped hash table follows dominance: an instruction is available in the rest of its
//! block and in every region nested there (a loop's continuing block also sees the body's
//! top-level instructions before the first one that may `continue`). A pure instruction (no side effects, no memory read) identical to
//! an available one, with the same result type, is dropped and its uses read the first one.
//! So is a load from memory that nothing changes during a dispatch: a uniform or read-only
//! storage buffer, or immediate data. (WebGPU forbids binding one buffer both writable and
//! read-only in a dispatch, and a shader cannot write through a `read` binding; the PTX
//! launch ABI states the same for CUDA callers, `docs/abi.md`.)

use super::util::Subst;
use crate::ir::*;
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// Merges identical pure instructions in every function.
pub fn cse(m: &mut Module) {
    for f in &mut m.functions {
        cse_function(&m.types, f);
    }
}

/// Merges identical pure instructions in `f`.
pub(crate) fn cse_function(types: &Types, f: &mut Function) {
    let mut body = std::mem::take(&mut f.body);
    let mut c = Cse { types, values: &f.values, scopes: Vec::new(), subst: Subst::default() };
    c.scopes.push(HashMap::default());
    c.block(&mut body);
    f.body = body;
}

/// Identity of a pure instruction: its operation (operands already substituted) and type.
/// (A formatted `{op:?}` string served before: formatting every instruction was a tenth of
/// compile time.)
type Key = (OpKey, TypeId);

/// An [`Op`] compared with its `PartialEq` and hashed by its kind and operands only, which
/// equal operations share.
#[derive(Clone, PartialEq)]
struct OpKey(Op);

impl Eq for OpKey {}

impl std::hash::Hash for OpKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(&self.0).hash(state);
        self.0.for_each_operand(|v| v.hash(state));
    }
}

struct Cse<'a> {
    types: &'a Types,
    values: &'a [ValueData],
    scopes: Vec<HashMap<Key, ValueId>>,
    subst: Subst,
}

impl Cse<'_> {
    /// Whether `op` loads from memory a dispatch cannot change (module doc).
    fn invariant_load(&self, op: &Op) -> bool {
        let Op::Load(p) = op else { return false };
        self.values.get(p.index()).is_some_and(|d| {
            matches!(self.types.get(d.ty), Type::Pointer { space, .. } if space.is_launch_constant())
        })
    }

    fn lookup(&self, k: &Key) -> Option<ValueId> {
        self.scopes.iter().rev().find_map(|s| s.get(k).copied())
    }

    fn nested(&mut self, b: &mut Block) {
        self.scopes.push(HashMap::default());
        self.block(b);
        self.scopes.pop();
    }

    fn block(&mut self, b: &mut Block) {
        self.block_cut(b, None);
    }

    /// [`Self::block`]; with `cut`, the instructions from index `cut` on go into a scope of
    /// their own, which is left open (the caller pops it).
    fn block_cut(&mut self, b: &mut Block, cut: Option<usize>) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for (k, mut inst) in old.into_iter().enumerate() {
            if cut == Some(k) {
                self.scopes.push(HashMap::default());
            }
            self.subst.apply_op(&mut inst.op);
            match &mut inst.op {
                Op::If { then_, else_, .. } => {
                    self.nested(then_);
                    self.nested(else_);
                }
                Op::Switch { cases, .. } => {
                    for c in cases {
                        self.nested(&mut c.body);
                    }
                }
                Op::Loop { body, continuing, break_if, .. } => {
                    // Body instructions after a possible `continue` do not dominate the
                    // continuing block: they get a scope that ends with the body.
                    self.scopes.push(HashMap::default());
                    let (cut, n) = (body.insts_before_continue(), body.insts.len());
                    self.block_cut(body, Some(cut));
                    if cut < n {
                        self.scopes.pop();
                    }
                    self.nested(continuing);
                    self.scopes.pop();
                    if let Some(b) = break_if {
                        *b = self.subst.get(*b);
                    }
                }
                Op::Inline { body, .. } => self.nested(body),
                op if !op.has_side_effects() && (!op.reads_memory() || self.invariant_load(op)) => {
                    if let Some(r) = inst.result {
                        if let Some(d) = self.values.get(r.index()) {
                            let key = (OpKey(op.clone()), d.ty);
                            if let Some(prev) = self.lookup(&key) {
                                self.subst.set(r, prev);
                                continue;
                            }
                            if let Some(s) = self.scopes.last_mut() {
                                s.insert(key, r);
                            }
                        }
                    }
                }
                _ => {}
            }
            out.push(inst);
        }
        b.insts = out;
        self.subst.apply_term(&mut b.term);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::{count_insts, Builder};
    use crate::verifier::verify;
    use BinaryOperator as B;

    #[test]
    fn merges_dominated_duplicates_only() {
        // a = p + p; if c { b = p + p (merged) ; yield b } else { yield a }
        // d = p + p after the if (merged); loads are never merged.
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let x = b.var("x", it);
        let a = b.bin(B::Add, p, p);
        let c = b.cb(true);
        b.open();
        let inner = b.bin(B::Add, p, p);
        let q = b.bin(B::Multiply, inner, p);
        let t = b.close(Terminator::Yield(vec![q]));
        b.open();
        let q2 = b.bin(B::Multiply, a, p);
        let e = b.close(Terminator::Yield(vec![q2]));
        let r = b.val(it);
        b.stmt(Op::If { cond: c, then_: t, else_: e, results: vec![r] });
        let l1 = b.load(x);
        b.store(x, r);
        let l2 = b.load(x);
        let s = b.bin(B::Add, l1, l2);
        let mut m = b.finish_entry(Terminator::Return(Some(s)));
        cse(&mut m);
        verify(&m).unwrap();
        let body = &m.functions[0].body;
        let adds = count_insts(body, &|o| matches!(o, Op::Binary(B::Add, ..)));
        assert_eq!(adds, 2, "p + p once, plus l1 + l2");
        let muls = count_insts(body, &|o| matches!(o, Op::Binary(B::Multiply, ..)));
        assert_eq!(muls, 2, "the arms' multiplies do not dominate each other");
        assert_eq!(count_insts(body, &|o| matches!(o, Op::Load(_))), 2);
    }

    #[test]
    fn loads_of_memory_a_dispatch_cannot_change_merge() {
        let src = "struct P { a: u32, b: u32 }
@group(0) @binding(0) var<uniform> u: P;
@group(0) @binding(1) var<storage, read> r: array<u32>;
@group(0) @binding(2) var<storage, read_write> w: array<u32>;
@compute @workgroup_size(1) fn main() {
    w[0] = u.a + r[1] + w[2];
    w[3] = u.a + r[1] + w[2];
}";
        let parsed = crate::passes::testutil::parsed(src);
        let mut m = crate::lower::lower_module(&parsed).expect("lowers");
        crate::passes::optimize(&mut m).expect("optimizes");
        let body = &m.functions[0].body;
        // u.a and r[1] once each; w[2] twice (the store to w[0] comes between).
        let loads = count_insts(body, &|o| matches!(o, Op::Load(_)));
        assert_eq!(loads, 4, "{}", crate::text::module_text(&m));
    }
}
