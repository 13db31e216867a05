//! 64-bit indices. naga accepts an `i64`/`u64` index into an array, vector or matrix; the
//! backends index with 32 bits, so the lowering narrows such an index to `u32` first, keeping
//! an out-of-bounds index out of bounds: a value above `u32::MAX`, and a negative `i64` (a
//! huge `u64` once reinterpreted), becomes `u32::MAX`.

use super::func::FnLowerer;
use crate::ir::{self, BinaryOperator, ConstValue, Op, Scalar, Span, ValueId};

impl FnLowerer<'_, '_> {
    /// `i` itself when it is a 32-bit index, else `select(u32(u), u32::MAX, u > u32::MAX)`
    /// with `u` the index as `u64`.
    pub(super) fn narrow_index(&mut self, i: ValueId, span: Span, prologue: bool) -> ValueId {
        let s = self.cx.tl.types.scalar_of(self.out.ty(i));
        let Some(s @ (Scalar::I64 | Scalar::U64)) = s else { return i };
        let u64t = self.cx.tl.intern(ir::Type::Scalar(Scalar::U64));
        let u32t = self.cx.tl.intern(ir::Type::Scalar(Scalar::U32));
        let bt = self.cx.tl.intern(ir::Type::Scalar(Scalar::Bool));
        let mut push = |op: Op, t| self.push(op, Some(t), None, span, prologue).unwrap_or(i);
        let u = if s == Scalar::I64 { push(Op::Bitcast(i), u64t) } else { i };
        let max = push(Op::Const(ConstValue::U64(u64::from(u32::MAX))), u64t);
        let big = push(Op::Binary(BinaryOperator::Greater, u, max), bt);
        let low = push(Op::Convert(u, Scalar::U32), u32t);
        let max32 = push(Op::Const(ConstValue::U32(u32::MAX)), u32t);
        push(Op::Select { cond: big, accept: max32, reject: low }, u32t)
    }
}
