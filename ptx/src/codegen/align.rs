//! Known alignment of integer SSA values: the largest power of two the compiler can prove
//! divides a value, from constants, products, sums and shifts. Cooperative-matrix loads and
//! stores use it to choose `ldmatrix` and vector accesses without a runtime check when the
//! alignment is proven (a row stride of 24 elements, a tile offset of `buf * 512`, ...).
//!
//! Loop-carried values (loop body and continuing params) and inlined-call params take the
//! smallest alignment of every value that can flow into them, found by an optimistic fixed
//! point, so `for (var k = 0u; k < K; k += 16u)` gives `k` alignment 16. Function parameters,
//! loads and anything else the analysis does not understand count as alignment 1, so a result
//! is always a sound lower bound. WGSL integer arithmetic wraps modulo 2^32, which keeps
//! any power of two up to 2^31 dividing the wrapped result, so the bound is capped there.

use dianran_frontend::ir::{
    BinaryOperator, Block, ConstValue, Function, Op, Scalar, Terminator, ValueId,
};
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// The largest alignment the analysis reports (2^31: see the module doc).
const CAP: u32 = 1 << 31;

/// How deep definitions are followed; deeper chains count as unknown.
const MAX_DEPTH: u32 = 24;

/// Definitions of a function's values, for [`KnownAlign::pow2`].
pub struct KnownAlign<'a> {
    defs: HashMap<ValueId, &'a Op>,
    /// The alignment of each block parameter (the fixed point over its incoming values).
    params: HashMap<ValueId, u32>,
}

/// Rounds of the fixed point before giving up (each round lowers some parameter by at least
/// one power of two, so 32 per parameter chain always suffices in practice).
const MAX_ROUNDS: usize = 64;

impl<'a> KnownAlign<'a> {
    /// Indexes the defining operation of every value in `f`.
    pub fn new(f: &'a Function) -> Self {
        let mut defs = HashMap::default();
        let mut incoming: HashMap<ValueId, Vec<ValueId>> = HashMap::default();
        index_block(&f.body, &mut defs, &mut incoming);
        let mut k = KnownAlign { defs, params: HashMap::default() };
        k.params = incoming.keys().map(|&p| (p, CAP)).collect();
        let mut settled = false;
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for (p, ins) in &incoming {
                let a = ins.iter().map(|&v| k.pow2(v)).min().unwrap_or(1);
                if k.params.get(p).is_some_and(|&old| a < old) {
                    k.params.insert(*p, a);
                    changed = true;
                }
            }
            if !changed {
                settled = true;
                break;
            }
        }
        if !settled {
            k.params.values_mut().for_each(|a| *a = 1);
        }
        k
    }

    /// The operation that defines `v`, if the function defines it with one (not a parameter).
    pub fn def(&self, v: ValueId) -> Option<&'a Op> {
        self.defs.get(&v).copied()
    }

    /// A power of two that divides the integer value `v` (1 when nothing is known).
    pub fn pow2(&self, v: ValueId) -> u32 {
        self.pow2_at(v, 0)
    }

    /// The value of `v` when it is an integer constant.
    pub fn constant(&self, v: ValueId) -> Option<u32> {
        match self.defs.get(&v) {
            Some(Op::Const(ConstValue::U32(x))) => Some(*x),
            Some(Op::Const(ConstValue::I32(x))) => Some(*x as u32),
            _ => None,
        }
    }

    fn pow2_at(&self, v: ValueId, depth: u32) -> u32 {
        if depth > MAX_DEPTH {
            return 1;
        }
        let d = depth + 1;
        let Some(op) = self.defs.get(&v) else {
            return self.params.get(&v).copied().unwrap_or(1);
        };
        match op {
            Op::Const(ConstValue::U32(x)) => lowbit(*x),
            Op::Const(ConstValue::I32(x)) => lowbit(*x as u32),
            Op::Binary(BinaryOperator::Multiply, a, b) => {
                self.pow2_at(*a, d).saturating_mul(self.pow2_at(*b, d)).min(CAP)
            }
            Op::Binary(BinaryOperator::Add | BinaryOperator::Subtract, a, b) => {
                self.pow2_at(*a, d).min(self.pow2_at(*b, d))
            }
            // `x & m` keeps every zero low bit of either operand.
            Op::Binary(BinaryOperator::And, a, b) => self.pow2_at(*a, d).max(self.pow2_at(*b, d)),
            Op::Binary(BinaryOperator::ShiftLeft, a, b) => match self.defs.get(b) {
                // WGSL masks the shift amount to the low 5 bits.
                Some(Op::Const(ConstValue::U32(s))) => {
                    (u64::from(self.pow2_at(*a, d)) << (s & 31)).min(u64::from(CAP)) as u32
                }
                _ => self.pow2_at(*a, d),
            },
            Op::Select { accept, reject, .. } => {
                self.pow2_at(*accept, d).min(self.pow2_at(*reject, d))
            }
            // Same bits between i32 and u32.
            Op::Convert(x, Scalar::U32 | Scalar::I32) | Op::Bitcast(x) => self.pow2_at(*x, d),
            _ => 1,
        }
    }
}

/// The lowest set bit of a constant, byte count or offset; zero is divisible by everything,
/// so it gives the cap.
pub fn lowbit(x: u32) -> u32 {
    if x == 0 {
        CAP
    } else {
        (1u32 << x.trailing_zeros()).min(CAP)
    }
}

/// Indexes definitions and, for loop and inline params, every value that flows into them.
fn index_block<'a>(
    b: &'a Block,
    defs: &mut HashMap<ValueId, &'a Op>,
    incoming: &mut HashMap<ValueId, Vec<ValueId>>,
) {
    for inst in &b.insts {
        if let Some(r) = inst.result {
            defs.insert(r, &inst.op);
        }
        match &inst.op {
            Op::Loop { init, body, continuing, .. } => {
                // Body params: the initial state and the continuing block's `Yield`.
                let mut back = Vec::new();
                if let Terminator::Yield(args) = &continuing.term {
                    back = args.clone();
                }
                flow(incoming, &body.params, &[init, &back]);
                // Continuing params: the body's `Yield` and every `continue` of this loop.
                let mut ends: Vec<Vec<ValueId>> = Vec::new();
                if let Terminator::Yield(args) = &body.term {
                    ends.push(args.clone());
                }
                continues(body, &mut ends);
                let refs: Vec<&Vec<ValueId>> = ends.iter().collect();
                flow(incoming, &continuing.params, &refs);
            }
            Op::Inline { body, args, .. } => flow(incoming, &body.params, &[args]),
            _ => {}
        }
        for nb in inst.op.blocks() {
            index_block(nb, defs, incoming);
        }
    }
}

/// Records `sources[j][i]` as flowing into `params[i]`. A source list of the wrong length (a
/// shape the analysis does not expect) is skipped, leaving the fixed point to the others;
/// a parameter with no recorded source stays unknown.
fn flow(
    incoming: &mut HashMap<ValueId, Vec<ValueId>>,
    params: &[ValueId],
    sources: &[&Vec<ValueId>],
) {
    for (i, &p) in params.iter().enumerate() {
        let e = incoming.entry(p).or_default();
        for s in sources {
            match s.get(i) {
                Some(&v) => e.push(v),
                // Unknown source: force alignment 1 through a value with no definition.
                None => e.push(ValueId(u32::MAX)),
            }
        }
    }
}

/// The arguments of every `Continue` in `b` that targets the loop `b` is the body of (nested
/// loops' own `continue`s excluded).
fn continues(b: &Block, out: &mut Vec<Vec<ValueId>>) {
    if let Terminator::Continue(args) = &b.term {
        out.push(args.clone());
    }
    for inst in &b.insts {
        if matches!(inst.op, Op::Loop { .. }) {
            continue;
        }
        for nb in inst.op.blocks() {
            continues(nb, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_frontend::ir::{Inst, Span, Types};

    fn func(ops: Vec<Op>) -> Function {
        let mut types = Types::default();
        let u = types.scalar(Scalar::U32);
        let mut f = Function {
            name: "f".into(),
            params: vec![],
            result: None,
            values: vec![],
            locals: vec![],
            body: Block::default(),
            bounds: Default::default(),
            span: Span::default(),
        };
        for op in ops {
            let v = f.new_value(u, None);
            f.body.insts.push(Inst { result: Some(v), op, span: Span::default() });
        }
        f
    }

    #[test]
    fn constants_products_sums_and_shifts() {
        let v = ValueId;
        let f = func(vec![
            Op::Const(ConstValue::U32(24)),                    // 0: 8
            Op::Const(ConstValue::U32(512)),                   // 1: 512
            Op::Binary(BinaryOperator::Multiply, v(0), v(1)),  // 2: 4096
            Op::Binary(BinaryOperator::Add, v(2), v(0)),       // 3: 8
            Op::Const(ConstValue::U32(4)),                     // 4: 4
            Op::Binary(BinaryOperator::ShiftLeft, v(0), v(4)), // 5: 128
            Op::Const(ConstValue::U32(17)),                    // 6: 1
            Op::Binary(BinaryOperator::Multiply, v(6), v(9)),  // 7: 1 (v9 unknown)
            Op::Binary(BinaryOperator::Multiply, v(9), v(1)),  // 8: 512 (v9 unknown)
            Op::Const(ConstValue::Bool(true)),                 // 9: not an integer
            Op::Const(ConstValue::U32(0)),                     // 10: cap
            Op::Binary(BinaryOperator::And, v(6), v(1)),       // 11: 512
            Op::Convert(v(3), Scalar::I32),                    // 12: 8
        ]);
        let k = KnownAlign::new(&f);
        let got: Vec<u32> = (0..13).map(|i| k.pow2(v(i))).collect();
        assert_eq!(got, [8, 512, 4096, 8, 4, 128, 1, 1, 512, 1, CAP, 512, 8]);
        // Values the analysis never saw are unknown.
        assert_eq!(k.pow2(v(99)), 1);
    }

    /// `loop` with state `k`: `init`, then `k + step` each iteration (body `Yield(k)`,
    /// continuing `k' = k + step; Yield(k')`); returns the alignment found for `k`.
    fn induction(init: u32, step: u32) -> u32 {
        let v = ValueId;
        // Values: 0 init, 1 step, 2 k (body param), 3 k (continuing param), 4 k + step, 5 mul.
        let mut f = func(vec![Op::Const(ConstValue::U32(init)), Op::Const(ConstValue::U32(step))]);
        let u = f.values[0].ty;
        for _ in 0..4 {
            f.new_value(u, None);
        }
        let body = Block { params: vec![v(2)], insts: vec![], term: Terminator::Yield(vec![v(2)]) };
        let continuing = Block {
            params: vec![v(3)],
            insts: vec![Inst {
                result: Some(v(4)),
                op: Op::Binary(BinaryOperator::Add, v(3), v(1)),
                span: Span::default(),
            }],
            term: Terminator::Yield(vec![v(4)]),
        };
        f.body.insts.push(Inst {
            result: None,
            op: Op::Loop { init: vec![v(0)], body, continuing, break_if: None, results: vec![] },
            span: Span::default(),
        });
        KnownAlign::new(&f).pow2(v(2))
    }

    #[test]
    fn loop_induction_variables() {
        assert_eq!(induction(0, 16), 16);
        assert_eq!(induction(8, 16), 8);
        assert_eq!(induction(32, 17), 1);
        assert_eq!(induction(64, 0), 64);
    }

    #[test]
    fn lowbit_of_byte_offsets() {
        assert_eq!(lowbit(48), 16);
        assert_eq!(lowbit(34), 2);
        assert_eq!(lowbit(0), CAP);
    }
}
