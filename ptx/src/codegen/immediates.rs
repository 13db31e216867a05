//! Constants as instruction immediates: a source operand whose register is defined by
//! `mov.f32 %r, 0f...` or `mov.{u32,s32,b32} %r, N` becomes the immediate itself
//! (`mul.f32 %r2, %r1, 0f40000000` instead of a `mov` per use), on the selected machine code
//! before register allocation. The constant `mov`s nothing reads (any more) are deleted.
//!
//! Only forms PTX documents with immediate sources are rewritten, and only operands after the
//! first source (a commutative instruction with a constant first source swaps its sources
//! first), so every instruction keeps a register source: `add/sub/mul/mad/fma/min/max/div/rem`
//! and the bitwise and shift forms on 32-bit types, `setp` on them, and `selp`'s two values.
//! An f32 constant is used only by `.f32` forms, an integer one only by integer forms, so
//! the value an instruction reads is bit for bit the register's.

use super::regalloc::MFunction;
use crate::model::{Instruction, Modifier, Opcode, Operand, Reg, Type};
use rustc_hash::FxHashMap as HashMap;

/// The immediate a register holds, from its only definition.
fn constants(mf: &MFunction) -> HashMap<Reg, Operand> {
    let mut defs: HashMap<Reg, u32> = HashMap::default();
    let mut out = HashMap::default();
    for i in mf.blocks.iter().flat_map(|b| &b.insts) {
        i.for_each_reg_access(|r, def| {
            if def {
                *defs.entry(r).or_default() += 1;
            }
        });
        if i.op != Opcode::Mov || i.guard.is_some() {
            continue;
        }
        match (i.mods.as_slice(), i.operands.as_slice()) {
            ([Modifier::Type(Type::F32)], [Operand::Reg(d), imm @ Operand::ImmF32(_)])
            | (
                [Modifier::Type(Type::U32 | Type::S32 | Type::B32)],
                [Operand::Reg(d), imm @ Operand::Imm(_)],
            ) => {
                out.insert(*d, imm.clone());
            }
            _ => {}
        }
    }
    // A register written more than once (or also by a block argument move) is no constant.
    out.retain(|r, _| defs.get(r) == Some(&1));
    out
}

/// Whether operand `k` of `i` may be the immediate `imm`.
fn accepts(i: &Instruction, k: usize, imm: &Operand) -> bool {
    if i.guard.is_some() {
        return false;
    }
    let ty = i.types().last();
    let float = matches!(imm, Operand::ImmF32(_));
    let fits = match ty {
        Some(Type::F32) => float,
        Some(Type::U32 | Type::S32 | Type::B32) => !float,
        _ => false,
    };
    match i.op {
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Mad
        | Opcode::Fma
        | Opcode::Min
        | Opcode::Max
        | Opcode::Div
        | Opcode::Rem
        | Opcode::And
        | Opcode::Or
        | Opcode::Xor
        | Opcode::Setp => {
            // `setp` with a combine has a predicate operand last.
            let n = i.operands.len();
            let last_src = if i.op == Opcode::Setp && i.bool_op().is_some() { n - 1 } else { n };
            fits && k >= 2 && k < last_src
        }
        // The shift amount is always `.u32`.
        Opcode::Shl | Opcode::Shr => k == 2 && matches!(imm, Operand::Imm(v) if *v >= 0),
        // `selp.T d, a, b, p`: `b` only (`a` stays a register).
        Opcode::Selp => fits && k == 2,
        _ => false,
    }
}

fn commutative(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Add
            | Opcode::Mul
            | Opcode::Min
            | Opcode::Max
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
    )
}

/// Replaces constant registers by immediates in `mf` (module doc).
pub(crate) fn fold_immediates(mf: &mut MFunction) {
    let consts = constants(mf);
    if consts.is_empty() {
        return;
    }
    // Every constant is a candidate: one that nothing reads any more (a divisor that
    // `divconst` replaced by a shift or a multiply) goes too.
    let mut freed: Vec<Reg> = consts.keys().copied().collect();
    let is_const = |o: &Operand| matches!(o, Operand::Reg(r) if consts.contains_key(r));
    for i in mf.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        // `mul.lo` and `mul.wide` are commutative too; `mul.hi` as well. Plain two-source
        // forms only (three sources: `mad`, `fma` keep their order).
        if commutative(i.op)
            && i.operands.len() == 3
            && i.operands.get(1).is_some_and(is_const)
            && !i.operands.get(2).is_some_and(is_const)
        {
            i.operands.swap(1, 2);
        }
        for k in 2..i.operands.len() {
            let Some(Operand::Reg(r)) = i.operands.get(k) else { continue };
            let Some(imm) = consts.get(r) else { continue };
            if accepts(i, k, imm) {
                freed.push(*r);
                if let Some(o) = i.operands.get_mut(k) {
                    *o = imm.clone();
                }
            }
        }
    }
    super::vectorize::delete_dead(mf, freed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::build;
    use crate::model::RegKind;

    #[test]
    fn constant_sources_become_immediates_and_their_movs_go() {
        let mut mf = MFunction::default();
        let b = mf.new_block();
        let k = mf.new_vreg(RegKind::B32);
        let n = mf.new_vreg(RegKind::B32);
        let x = mf.new_vreg(RegKind::B32);
        let (y, z, w) =
            (mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32));
        let insts = vec![
            build::mov(Type::F32, k, Operand::f32(2.0)),
            build::mov(Type::U32, n, Operand::Imm(64)),
            build::binary(Opcode::Mul, &[], Type::F32, y, x, k),
            // Constant first: swapped.
            build::binary(
                Opcode::Mul,
                &[Modifier::Flag(crate::model::Flag::Lo)],
                Type::U32,
                z,
                n,
                x,
            ),
            // An f32 constant in an integer form stays a register.
            build::binary(Opcode::Add, &[], Type::U32, w, z, k),
        ];
        if let Some(bl) = mf.blocks.get_mut(b.0 as usize) {
            bl.insts = insts;
        }
        fold_immediates(&mut mf);
        let text: Vec<String> = mf.blocks[0].insts.iter().map(|i| i.to_string()).collect();
        assert_eq!(text.len(), 4, "{text:?}");
        assert!(text[0].starts_with("mov.f32"), "{text:?}");
        assert!(text[1].ends_with(", 0f40000000;"), "{text:?}");
        assert!(text[2].ends_with(", 64;"), "{text:?}");
        assert!(!text[3].contains("0f"), "{text:?}");
    }
}
