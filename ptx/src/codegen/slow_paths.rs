//! One correctly rounded slow path per kernel.
//!
//! `ptxas` expands `div.rn.f32` and `rcp.rn.f32` into a fast path and a call to a slow-path
//! subroutine for the operands the fast path cannot take (about 70 and 45 SASS instructions),
//! one subroutine per kind for the whole kernel. `1.0 / x` is selected as `rcp.rn.f32`, whose
//! expansion is the shorter one; but a kernel that also divides otherwise would then carry
//! both subroutines, so there it stays `div.rn.f32 d, 1.0, x`, which shares the division's.
//! Both forms give the same correctly rounded value for every `x`.

use super::regalloc::MFunction;
use crate::model::{Opcode, Operand, Rounding, Type};

/// Rewrites `rcp.rn.f32 d, x` as `div.rn.f32 d, 1.0, x` when the function also holds a
/// `div.rn.f32` (module doc); returns whether it did.
pub(crate) fn share_division_slow_path(mf: &mut MFunction) -> bool {
    let is = |i: &crate::model::Instruction, op: Opcode| {
        i.op == op
            && i.rounding() == Some(Rounding::Rn)
            && i.types().next() == Some(Type::F32)
            && !i.has_flag(crate::model::Flag::Ftz)
    };
    let divides = mf.blocks.iter().flat_map(|b| &b.insts).any(|i| is(i, Opcode::Div));
    if !divides {
        return false;
    }
    let mut changed = false;
    for i in mf.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        if is(i, Opcode::Rcp) && i.operands.len() == 2 {
            i.op = Opcode::Div;
            i.operands.insert(1, Operand::ImmF32(1.0f32.to_bits()));
            changed = true;
        }
    }
    changed
}
