//! 64-bit indices. naga accepts an `i64`/`u64` index into an array, vector or matrix; the
//! backends index with 32 bits, so the lowering narrows such an index to `u32` first, keeping
//! an out-of-bounds index out of bounds: a value above `u32::MAX`, and a negative `i64` (a
//! huge `u64` once reinterpreted), becomes `u32::MAX`.

use super::func::FnLowerer;
use crate::ir::{self, BinaryOperator, ConstValue, Op, Scalar, Span, TypeId, ValueId};
use crate::Diagnostic;

impl FnLowerer<'_, '_> {
    /// `i` itself when it is a 32-bit index, else `select(u32(u), u32::MAX, u > u32::MAX)`
    /// with `u` the index as `u64`.
    pub(super) fn narrow_index(
        &mut self,
        i: ValueId,
        span: Span,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let s = self.cx.tl.types.scalar_of(self.out.ty(i));
        let Some(s @ (Scalar::I64 | Scalar::U64)) = s else { return Ok(i) };
        let u64t = self.cx.tl.intern(ir::Type::Scalar(Scalar::U64));
        let u32t = self.cx.tl.intern(ir::Type::Scalar(Scalar::U32));
        let bt = self.cx.tl.intern(ir::Type::Scalar(Scalar::Bool));
        // `push` gives a value for every typed instruction; should it not, that is this
        // lowering's bug, reported like `define_typed` does rather than computed on.
        let push = |l: &mut Self, op: Op, t: TypeId| {
            l.push(op, Some(t), None, span, prologue)
                .ok_or_else(|| l.internal("instruction without a result", span))
        };
        let u = if s == Scalar::I64 { push(self, Op::Bitcast(i), u64t)? } else { i };
        let max = push(self, Op::Const(ConstValue::U64(u64::from(u32::MAX))), u64t)?;
        let big = push(self, Op::Binary(BinaryOperator::Greater, u, max), bt)?;
        let low = push(self, Op::Convert(u, Scalar::U32), u32t)?;
        let max32 = push(self, Op::Const(ConstValue::U32(u32::MAX)), u32t)?;
        push(self, Op::Select { cond: big, accept: max32, reject: low }, u32t)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{BinaryOperator, Block, ConstValue, Inst, Op, Scalar, Type};

    /// Every instruction of `b`, nested ones included.
    fn all<'a>(b: &'a Block, out: &mut Vec<&'a Inst>) {
        for i in &b.insts {
            out.push(i);
            for nb in i.op.blocks() {
                all(nb, out);
            }
        }
    }

    /// An `i64` index is bitcast to `u64` and saturated to `u32::MAX` above `u32::MAX`
    /// (the form the module doc states); a `u32` index is used as it is.
    #[test]
    fn a_64_bit_index_narrows_to_a_saturated_u32() {
        let src = "@group(0) @binding(0) var<storage, read_write> a: array<f32>;
                   @group(0) @binding(1) var<storage, read_write> k: array<i64>;
                   @compute @workgroup_size(1) fn main() { a[k[0]] = a[7u]; }";
        let parsed = crate::parse("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let m = crate::lower(&parsed).unwrap_or_else(|d| panic!("{}", d.render()));
        let f = m.functions.iter().find(|f| f.name == "main").expect("main lowered");
        let mut insts = Vec::new();
        all(&f.body, &mut insts);
        let def = |v| insts.iter().find(|i| i.result == Some(v)).map(|i| &i.op);
        let ty = |v| m.types.get(f.ty(v)).clone();
        let (cond, accept, reject) = insts
            .iter()
            .find_map(|i| match i.op {
                Op::Select { cond, accept, reject } => Some((cond, accept, reject)),
                _ => None,
            })
            .expect("a select narrows the index");
        assert_eq!(def(accept), Some(&Op::Const(ConstValue::U32(u32::MAX))));
        let Some(&Op::Convert(u, Scalar::U32)) = def(reject) else {
            panic!("reject is {:?}", def(reject))
        };
        assert_eq!(ty(u), Type::Scalar(Scalar::U64));
        assert!(matches!(def(u), Some(Op::Bitcast(_))), "{:?}", def(u));
        let Some(&Op::Binary(BinaryOperator::Greater, x, max)) = def(cond) else {
            panic!("cond is {:?}", def(cond))
        };
        assert_eq!(x, u);
        assert_eq!(def(max), Some(&Op::Const(ConstValue::U64(u64::from(u32::MAX)))));
        // Only the one 64-bit index is narrowed.
        let selects = insts.iter().filter(|i| matches!(i.op, Op::Select { .. })).count();
        assert_eq!(selects, 1);
    }
}
