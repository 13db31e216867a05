//! Contraction: floating-point multiply-adds become explicit `fma` instructions.
//!
//! The rule (see `docs/math.md`, "Contraction"): in one block, `a * b + c`, `c + a * b`,
//! `a * b - c` and `c - a * b` on float scalars or vectors (f16, f32, f64) become
//! `fma(a, b, c)`, `fma(a, b, -c)` and `fma(-a, b, c)` when the product is defined earlier in
//! the same block, has the same type as the sum, and has no other use. When both operands of
//! an addition qualify, the left one is fused. A float `dot` becomes its explicit chain
//! `a0 * b0`, then `fma(ai, bi, acc)` for each further component. Matrix products are not
//! contracted. Backends and the interpreter then round every remaining `*`, `+` and `-` on
//! its own, so each executor computes exactly the operations the SSA holds.

use crate::ir::*;
use naga::{BinaryOperator as B, MathFunction as M, UnaryOperator as U};
use rustc_hash::FxHashMap as HashMap;

/// Forms fused multiply-adds in every function of `m` (see the module docs for the rule).
pub fn contract(m: &mut Module) {
    for f in &mut m.functions {
        contract_function(&m.types, f);
    }
}

/// Whether `t` is a float scalar or vector type.
fn is_float_value(types: &Types, t: TypeId) -> bool {
    match types.get(t) {
        Type::Scalar(s) | Type::Vector { scalar: s, .. } => s.is_float(),
        _ => false,
    }
}

fn contract_function(types: &Types, f: &mut Function) {
    let uses = f.use_counts();
    if contract_block(types, &mut f.values, &uses, &mut f.body) {
        super::dce::dce_function(f);
    }
}

/// Products defined earlier in the block with one use, by result: their two factors.
type Products = HashMap<ValueId, (ValueId, ValueId)>;

/// Contracts `b` and the blocks nested in it; whether anything changed.
fn contract_block(types: &Types, values: &mut Vec<ValueData>, uses: &[u32], b: &mut Block) -> bool {
    let ty = |values: &Vec<ValueData>, v: ValueId| values[v.index()].ty;
    let mut products = Products::default();
    let mut out = Vec::with_capacity(b.insts.len());
    let mut changed = false;
    let new_value = |values: &mut Vec<ValueData>, t: TypeId| {
        let id = ValueId(values.len() as u32);
        values.push(ValueData { ty: t, name: None });
        id
    };
    // Most blocks hold nothing to contract: recurse into nested blocks in place and keep the
    // instruction list as it is.
    let candidate = |i: &Inst| match &i.op {
        Op::Binary(B::Multiply, ..) => i.result.is_some_and(|r| uses[r.index()] == 1),
        Op::Math(M::Dot, _) => true,
        _ => false,
    };
    if !b.insts.iter().any(candidate) {
        for inst in &mut b.insts {
            for nb in inst.op.blocks_mut() {
                changed |= contract_block(types, values, uses, nb);
            }
        }
        return changed;
    }
    for mut inst in std::mem::take(&mut b.insts) {
        for nb in inst.op.blocks_mut() {
            changed |= contract_block(types, values, uses, nb);
        }
        let Some(r) = inst.result else {
            out.push(inst);
            continue;
        };
        let rt = ty(values, r);
        let span = inst.span;
        match &inst.op {
            Op::Binary(B::Multiply, x, y)
                if is_float_value(types, rt)
                    && ty(values, *x) == rt
                    && ty(values, *y) == rt
                    && uses[r.index()] == 1 =>
            {
                products.insert(r, (*x, *y));
                out.push(inst);
            }
            &Op::Binary(op @ (B::Add | B::Subtract), x, y) if is_float_value(types, rt) => {
                let px = products.get(&x).copied().filter(|_| ty(values, x) == rt);
                let py = products.get(&y).copied().filter(|_| ty(values, y) == rt);
                let args = match (op, px, py) {
                    (B::Add, Some((a, b)), _) => {
                        products.remove(&x);
                        Some((a, b, y))
                    }
                    (B::Add, None, Some((a, b))) => {
                        products.remove(&y);
                        Some((a, b, x))
                    }
                    (_, Some((a, b)), _) => {
                        // a * b - y = fma(a, b, -y); negation is exact.
                        products.remove(&x);
                        let n = new_value(values, rt);
                        out.push(Inst { result: Some(n), op: Op::Unary(U::Negate, y), span });
                        Some((a, b, n))
                    }
                    (_, None, Some((a, b))) => {
                        // x - a * b = fma(-a, b, x).
                        products.remove(&y);
                        let n = new_value(values, rt);
                        out.push(Inst { result: Some(n), op: Op::Unary(U::Negate, a), span });
                        Some((n, b, x))
                    }
                    _ => None,
                };
                match args {
                    Some((a, b, c)) => {
                        changed = true;
                        out.push(Inst {
                            result: Some(r),
                            op: Op::Math(M::Fma, vec![a, b, c]),
                            span,
                        });
                    }
                    None => out.push(inst),
                }
            }
            &Op::Math(M::Dot, ref args) if args.len() == 2 && is_float_value(types, rt) => {
                let (x, y) = (args[0], args[1]);
                let n = match types.get(ty(values, x)) {
                    Type::Vector { size, .. } => u32::from(*size),
                    _ => 0,
                };
                if n < 2 {
                    out.push(inst);
                    continue;
                }
                changed = true;
                let mut acc = None;
                for i in 0..n {
                    let xi = new_value(values, rt);
                    out.push(Inst { result: Some(xi), op: Op::Extract(x, i), span });
                    let yi = new_value(values, rt);
                    out.push(Inst { result: Some(yi), op: Op::Extract(y, i), span });
                    let (res, op) = match acc {
                        None => (new_value(values, rt), Op::Binary(B::Multiply, xi, yi)),
                        Some(c) if i + 1 == n => (r, Op::Math(M::Fma, vec![xi, yi, c])),
                        Some(c) => (new_value(values, rt), Op::Math(M::Fma, vec![xi, yi, c])),
                    };
                    out.push(Inst { result: Some(res), op, span });
                    acc = Some(res);
                }
            }
            _ => out.push(inst),
        }
    }
    b.insts = out;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::module_text;

    /// WGSL through lowering and the standard passes, then contraction (checked by the
    /// verifier); returns the SSA text.
    fn contracted(src: &str) -> String {
        let parsed = super::super::testutil::parsed(src);
        let mut m = crate::lower::lower_module(&parsed).unwrap_or_else(|d| panic!("{d:#?}"));
        super::super::optimize(&mut m).unwrap_or_else(|d| panic!("{d:#?}"));
        contract(&mut m);
        if let Err(d) = crate::verifier::verify(&m) {
            panic!("{d:#?}\n{}", module_text(&m));
        }
        module_text(&m)
    }

    fn count(text: &str, what: &str) -> usize {
        text.matches(what).count()
    }

    #[test]
    fn product_plus_addend_fuses() {
        let t = contracted("fn f(a: f32, b: f32, c: f32) -> f32 { return a * b + c; }");
        assert_eq!(count(&t, "math fma"), 1, "{t}");
        assert_eq!(count(&t, " multiply "), 0, "{t}");
    }

    #[test]
    fn addend_plus_product_fuses_vectors_and_f16() {
        let t = contracted(
            "enable f16;\nfn f(a: vec3<f16>, b: vec3<f16>, c: vec3<f16>) -> vec3<f16> { return c + a * b; }",
        );
        assert_eq!(count(&t, "math fma"), 1, "{t}");
    }

    #[test]
    fn subtractions_negate_the_addend_or_a_factor() {
        let t = contracted(
            "fn f(a: f32, b: f32, c: f32) -> f32 { return a * b - c; }\n\
             fn g(a: f32, b: f32, c: f32) -> f32 { return c - a * b; }",
        );
        assert_eq!(count(&t, "math fma"), 2, "{t}");
        assert_eq!(count(&t, " negate "), 2, "{t}");
    }

    #[test]
    fn product_with_another_use_stays_rounded() {
        let t = contracted(
            "fn f(a: f32, b: f32, c: f32) -> f32 { let p = a * b; return (p + c) * p; }",
        );
        assert_eq!(count(&t, "math fma"), 0, "{t}");
    }

    #[test]
    fn integers_and_products_of_other_blocks_stay() {
        let t = contracted(
            "fn f(a: i32, b: i32, c: i32) -> i32 { return a * b + c; }\n\
             fn g(a: f32, b: f32, c: f32) -> f32 { let p = a * b; var r = c; if c > 0.0 { r = p + c; } return r; }",
        );
        assert_eq!(count(&t, "math fma"), 0, "{t}");
    }

    #[test]
    fn float_dot_becomes_a_mul_fma_chain() {
        let t = contracted(
            "fn f(a: vec4<f32>, b: vec4<f32>) -> f32 { return dot(a, b); }\n\
             fn g(a: vec2<i32>, b: vec2<i32>) -> i32 { return dot(a, b); }",
        );
        assert_eq!(count(&t, "math dot"), 1, "{t}");
        assert_eq!(count(&t, "math fma"), 3, "{t}");
    }

    #[test]
    fn only_one_product_of_a_sum_of_products_fuses() {
        let t = contracted("fn f(a: f32, b: f32, c: f32, d: f32) -> f32 { return a * b + c * d; }");
        assert_eq!(count(&t, "math fma"), 1, "{t}");
        assert_eq!(count(&t, " multiply "), 1, "{t}");
    }
}
