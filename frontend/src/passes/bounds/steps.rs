//! Loop counters that step by a constant: `for (var k = 0u; k < 64u; k += 16u)` only takes
//! multiples of 16, so a guard `k < 64u` bounds it by 48, not 63. A cooperative tile at
//! `&s[k * 72u]` that ends 15 rows further needs the exact largest value to fit its array.

use super::*;

/// For loop `op`: each carried `u32` counter known to stay a multiple of `2^z`, as
/// `(value, z)` for both its body and its continuing parameter. A counter qualifies when its
/// initial value is a constant, the body passes it unchanged to the continuing block (at the
/// end and at every `continue`) and the continuing block yields it plus a constant; `z` is
/// the smaller of the two constants' trailing zero counts.
pub(super) fn counter_multiples(op: &Op, defs: &HashMap<ValueId, Op>) -> Vec<(ValueId, u32)> {
    let Op::Loop { init, body, continuing, .. } = op else { return Vec::new() };
    let Terminator::Yield(next) = &continuing.term else { return Vec::new() };
    let zeros = |v: ValueId| match defs.get(&v) {
        Some(Op::Const(ConstValue::U32(c))) => Some(c.trailing_zeros()),
        _ => None,
    };
    let mut out = Vec::new();
    for (i, (&p, &q)) in body.params.iter().zip(&continuing.params).enumerate() {
        let (Some(&start), Some(&n)) = (init.get(i), next.get(i)) else { continue };
        let step = match defs.get(&n) {
            Some(&Op::Binary(B::Add, a, c)) | Some(&Op::Binary(B::Add, c, a)) if a == q => zeros(c),
            _ => None,
        };
        let (Some(z0), Some(z1)) = (zeros(start), step) else { continue };
        if passes_unchanged(body, i, p, true) {
            let z = z0.min(z1);
            if z > 0 {
                out.extend([(p, z), (q, z)]);
            }
        }
    }
    out
}

/// Whether every way from `b` (a loop body, `top`, or a region inside it) to the loop's
/// continuing block passes `p` as carried value `i`.
fn passes_unchanged(b: &Block, i: usize, p: ValueId, top: bool) -> bool {
    let ok = match &b.term {
        Terminator::Continue(v) => v.get(i) == Some(&p),
        Terminator::Yield(v) if top => v.get(i) == Some(&p),
        _ => true,
    };
    ok && b.insts.iter().all(|inst| match &inst.op {
        // A nested loop's `continue`s are its own.
        Op::Loop { .. } => true,
        op => op.blocks().into_iter().all(|nb| passes_unchanged(nb, i, p, false)),
    })
}
