//! Pairing rules on hand-built machine code.

use super::*;
use crate::model::StateSpace;

fn text(mf: &MFunction) -> Vec<String> {
    mf.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.opcode_text())).collect()
}

/// `c = a OP b` on two packed loads, stored packed; `op` builds the scalar instruction for
/// one lane from (dest, a, b).
fn kernel(op: impl Fn(Reg, Reg, Reg) -> Instruction, swap_lanes: bool) -> MFunction {
    let mut mf = MFunction::default();
    let b = mf.new_block();
    let (p, q) = (mf.new_vreg(RegKind::B64), mf.new_vreg(RegKind::B64));
    let (w, v, d) =
        (mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32));
    let h: Vec<Reg> = (0..6).map(|_| mf.new_vreg(RegKind::B16)).collect();
    let g = StateSpace::Global;
    let mut insts = vec![
        build::ld(g, Type::B32, w, Operand::addr(p, 0)),
        build::unpack(Type::B32, &[h[0], h[1]], w),
        build::ld(g, Type::B32, v, Operand::addr(p, 4)),
        build::unpack(Type::B32, &[h[2], h[3]], v),
    ];
    let (l0, l1) = (op(h[4], h[0], h[2]), op(h[5], h[1], h[3]));
    insts.extend(if swap_lanes { [l1, l0] } else { [l0, l1] });
    insts.push(build::pack(Type::B32, d, &[h[4], h[5]]));
    insts.push(build::st(g, Type::B32, Operand::addr(q, 0), d));
    if let Some(block) = mf.blocks.get_mut(b.0 as usize) {
        block.insts = insts;
    }
    mf
}

fn add(d: Reg, a: Reg, b: Reg) -> Instruction {
    build::binary(Opcode::Add, &[], Type::F16, d, a, b)
}

#[test]
fn lane_pairs_of_a_packed_load_become_one_f16x2_op_feeding_the_store() {
    for swap in [false, true] {
        let mut mf = kernel(add, swap);
        pack_f16(&mut mf);
        assert_eq!(text(&mf), ["ld.global.b32", "ld.global.b32", "add.rn.f16x2", "st.global.b32"]);
        // The store reads the packed sum.
        let insts: Vec<&Instruction> = mf.blocks.iter().flat_map(|b| &b.insts).collect();
        let sum = insts.get(2).and_then(|i| i.operands.first()).cloned();
        assert_eq!(insts.get(3).and_then(|i| i.operands.get(1)).cloned(), sum);
    }
}

#[test]
fn crossed_lanes_do_not_pair() {
    // Lane 0 of the result from lane 0 of `w` and lane 1 of `v`: no f16x2 form computes it.
    let mut mf = kernel(add, false);
    if let Some(b) = mf.blocks.get_mut(0) {
        // Operand b of lane 1 is the high half of `v`.
        let hi_v = b.insts[5].operands[2].clone();
        b.insts[4].operands[2] = hi_v;
    }
    pack_f16(&mut mf);
    assert!(!text(&mf).iter().any(|t| t.contains("f16x2")), "{:?}", text(&mf));
}

#[test]
fn other_forms_pair_too_but_rounded_modes_and_f32_do_not() {
    let min = |d, a, b| build::binary(Opcode::Min, &[], Type::F16, d, a, b);
    let mut mf = kernel(min, false);
    pack_f16(&mut mf);
    assert!(text(&mf).contains(&"min.f16x2".to_string()));
    let rz = |d, a, b| build::binary(Opcode::Add, &[Rounding::Rz.into()], Type::F16, d, a, b);
    let mut mf = kernel(rz, false);
    pack_f16(&mut mf);
    assert!(text(&mf).contains(&"add.rz.f16".to_string()));
}
