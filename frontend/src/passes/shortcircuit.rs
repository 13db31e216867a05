//! WGSL's short-circuit operators as plain logic where the skipped operand is cheap and pure.
//!
//! `a || b` and `a && b` evaluate `b` only when `a` does not decide the result, so they reach
//! the SSA as an `if` that computes `b` in one arm and yields a constant in the other:
//!
//! ```text
//! %r = if %c { %b = greater_equal %j, %n; yield %b } else { yield %true }   // !c || b
//! ```
//!
//! When the arm that computes `b` is short and made of cheap pure operations (comparisons,
//! integer and float arithmetic other than division, conversions, selects, `min`/`max`,
//! `arrayLength`, which reads no memory: a buffer's size is fixed), running it unconditionally
//! changes nothing but a few instructions, and the `if` becomes
//!
//! ```text
//! %b = greater_equal %j, %n
//! %nc = logical_not %c
//! %r = logical_or %nc, %b
//! ```
//!
//! (`logical_and` for a `false` constant; no `logical_not` when the constant is in the `then`
//! arm). Why: an early `return` under `i >= arrayLength(&x) || j >= arrayLength(&y)` is then
//! one condition whose conjuncts the bounds pass reads as facts for the rest of the function,
//! and the backends emit one predicate operation instead of a branch, a join and a constant
//! (`ptxas` kept the branch with a convergence region, `BSSY`/`BSYNC`).

use crate::ir::*;
use naga::{BinaryOperator as B, MathFunction as M, UnaryOperator as U};
use rustc_hash::FxHashMap as HashMap;

/// The most instructions (constants not counted) an arm may hold to run unconditionally.
const MAX_ARM: usize = 8;

/// Rewrites the short-circuit `if`s of every function (module doc); returns whether any was.
pub fn flatten_short_circuits(m: &mut Module) -> bool {
    let mut changed = false;
    for f in &mut m.functions {
        changed |= flatten_function(&m.types, f);
    }
    changed
}

fn flatten_function(types: &Types, f: &mut Function) -> bool {
    let mut consts = HashMap::default();
    collect_bool_consts(&f.body, &mut consts);
    let mut body = std::mem::take(&mut f.body);
    let changed = flatten_block(types, f, &consts, &mut body);
    f.body = body;
    changed
}

fn collect_bool_consts(b: &Block, out: &mut HashMap<ValueId, bool>) {
    for inst in &b.insts {
        if let (Some(r), Op::Const(ConstValue::Bool(v))) = (inst.result, &inst.op) {
            out.insert(r, *v);
        }
        for nb in inst.op.blocks() {
            collect_bool_consts(nb, out);
        }
    }
}

fn flatten_block(
    types: &Types,
    f: &mut Function,
    consts: &HashMap<ValueId, bool>,
    b: &mut Block,
) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(b.insts.len());
    for mut inst in std::mem::take(&mut b.insts) {
        for nb in inst.op.blocks_mut() {
            changed |= flatten_block(types, f, consts, nb);
        }
        match flattened(types, f, consts, inst) {
            Ok(insts) => {
                out.extend(insts);
                changed = true;
            }
            Err(inst) => out.push(inst),
        }
    }
    b.insts = out;
    changed
}

/// The instructions replacing `inst` when it is a short-circuit `if` of the module doc's
/// shape, or `inst` back.
fn flattened(
    types: &Types,
    f: &mut Function,
    consts: &HashMap<ValueId, bool>,
    inst: Inst,
) -> Result<Vec<Inst>, Inst> {
    let Op::If { cond, then_, else_, results } = &inst.op else { return Err(inst) };
    let ([r], Terminator::Yield(t), Terminator::Yield(e)) =
        (results.as_slice(), &then_.term, &else_.term)
    else {
        return Err(inst);
    };
    let ([t], [e]) = (t.as_slice(), e.as_slice()) else { return Err(inst) };
    if types.scalar_of(f.values[r.index()].ty) != Some(Scalar::Bool) {
        return Err(inst);
    }
    let constant = |arm: &Block, v: &ValueId| {
        if arm.insts.is_empty() {
            consts.get(v).copied()
        } else {
            None
        }
    };
    // (whether the constant is in the `then` arm, the constant, the computing arm, its value)
    let (const_in_then, k, arm, b) = match (constant(then_, t), constant(else_, e)) {
        (Some(k), None) => (true, k, else_, *e),
        (None, Some(k)) => (false, k, then_, *t),
        _ => return Err(inst),
    };
    if !cheap_and_pure(arm) {
        return Err(inst);
    }
    let (cond, r, span) = (*cond, *r, inst.span);
    let mut insts = arm.insts.clone();
    // then-constant k: `c ? k : b`; else-constant k: `c ? b : k`.
    let c = if const_in_then == k {
        cond
    } else {
        let ty = f.values[cond.index()].ty;
        let n = f.new_value(ty, None);
        insts.push(Inst { result: Some(n), op: Op::Unary(U::LogicalNot, cond), span });
        n
    };
    let op = if k { B::LogicalOr } else { B::LogicalAnd };
    insts.push(Inst { result: Some(r), op: Op::Binary(op, c, b), span });
    Ok(insts)
}

/// Whether `arm` may run where it did not, at little cost: at most [`MAX_ARM`] instructions
/// besides constants, each a constant, a unary or binary operation other than division and
/// remainder (which expand into long sequences), a conversion, an extraction at a constant
/// index, a select, `arrayLength`, or `min`/`max`/`abs`/`clamp` (other math builtins are
/// long too).
fn cheap_and_pure(arm: &Block) -> bool {
    let mut count = 0;
    for i in &arm.insts {
        let cheap = match &i.op {
            Op::Const(_) => true,
            Op::Binary(B::Divide | B::Modulo, ..) => false,
            Op::Unary(..)
            | Op::Binary(..)
            | Op::Extract(..)
            | Op::Select { .. }
            | Op::ArrayLength(_)
            | Op::Convert(..)
            | Op::Bitcast(_) => {
                count += 1;
                true
            }
            Op::Math(M::Min | M::Max | M::Abs | M::Clamp, _) => {
                count += 1;
                true
            }
            _ => false,
        };
        if !cheap {
            return false;
        }
    }
    count <= MAX_ARM
}

#[cfg(test)]
mod tests {
    use super::super::testutil::parsed;
    use super::*;
    use crate::text::module_text;

    fn optimized(src: &str) -> Module {
        let mut m = crate::lower::lower_module(&parsed(src)).expect("lowers");
        crate::passes::optimize(&mut m).expect("optimizes");
        m
    }

    fn ifs(b: &Block) -> usize {
        let nested = |i: &Inst| i.op.blocks().into_iter().map(ifs).sum::<usize>();
        b.insts.iter().map(|i| usize::from(matches!(i.op, Op::If { .. })) + nested(i)).sum()
    }

    #[test]
    fn pure_short_circuits_become_logic() {
        let m = optimized(
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= arrayLength(&a) || 3u * g.x + 2u >= 7u) { return; }
    if (g.y < 4u && g.z > 1u) { a[g.x] = 1u; }
}",
        );
        let t = module_text(&m);
        assert!(t.contains("logical_or"), "{t}");
        assert!(t.contains("logical_and"), "{t}");
        // The early return and the store's guard stay; the two operators' `if`s are gone.
        assert_eq!(ifs(&m.functions[0].body), 2, "{t}");
    }

    #[test]
    fn operands_that_read_memory_keep_their_branch() {
        let m = optimized(
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&a) && a[g.x] > 3u) { a[0] = 1u; }
}",
        );
        let t = module_text(&m);
        assert!(!t.contains("logical_and"), "{t}");
    }
}
