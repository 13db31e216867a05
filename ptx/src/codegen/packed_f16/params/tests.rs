//! Packed f16 pairs through block parameters, on hand-built machine code.

use super::super::super::regalloc::{BlockId, Target};
use super::super::pack_f16;
use super::*;
use crate::model::StateSpace;

fn text(mf: &MFunction) -> Vec<String> {
    mf.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.opcode_text())).collect()
}

fn target(b: BlockId, args: &[Reg]) -> Target {
    Target { block: b, args: args.to_vec() }
}

/// `v = c ? a[0] : zeros; st v` with the pair crossing a join as two f16 parameters; with
/// `swap` the store packs the parameters in the other order (hi, lo).
fn select_kernel(swap: bool) -> MFunction {
    let mut mf = MFunction::default();
    let (entry, load, join) = (mf.new_block(), mf.new_block(), mf.new_block());
    let p = mf.new_vreg(RegKind::B64);
    let c = mf.new_vreg(RegKind::Pred);
    let w = mf.new_vreg(RegKind::B32);
    let d = mf.new_vreg(RegKind::B32);
    let h: Vec<Reg> = (0..6).map(|_| mf.new_vreg(RegKind::B16)).collect();
    let g = StateSpace::Global;
    let zero = |r| build::mov(Type::B16, r, Operand::ImmHex(0));
    mf.blocks[0].insts = vec![zero(h[0]), zero(h[1])];
    mf.blocks[0].term =
        Term::Branch { cond: c, then_: target(load, &[]), else_: target(join, &[h[0], h[1]]) };
    mf.blocks[1].insts = vec![
        build::ld(g, Type::B32, w, Operand::addr(p, 0)),
        build::unpack(Type::B32, &[h[2], h[3]], w),
    ];
    mf.blocks[1].term = Term::Jump(target(join, &[h[2], h[3]]));
    mf.blocks[2].params = vec![h[4], h[5]];
    let parts = if swap { [h[5], h[4]] } else { [h[4], h[5]] };
    mf.blocks[2].insts =
        vec![build::pack(Type::B32, d, &parts), build::st(g, Type::B32, Operand::addr(p, 4), d)];
    let _ = entry;
    mf
}

#[test]
fn a_pair_selected_between_a_load_and_zeros_crosses_the_join_packed() {
    let mut mf = select_kernel(false);
    pack_f16(&mut mf);
    // No f16 moves are left: the load's word and a b32 zero reach one b32 parameter.
    assert_eq!(text(&mf), ["mov.b32", "ld.global.b32", "st.global.b32"]);
    let join = &mf.blocks[2];
    assert_eq!(join.params.len(), 1);
    assert_eq!(join.params[0].kind, RegKind::B32);
    assert_eq!(mf.blocks[0].insts[0].operands[1], Operand::ImmHex(0));
    // The load's register is the argument from the load block, and the store reads the
    // parameter.
    let w = mf.blocks[1].insts[0].operands[0].clone();
    let Term::Jump(t) = &mf.blocks[1].term else { panic!("jump") };
    assert_eq!(vec![Operand::Reg(t.args[0])], vec![w]);
    assert_eq!(join.insts[0].operands[1], Operand::Reg(join.params[0]));
}

#[test]
fn swapped_halves_are_left_unpacked() {
    // {hi, lo} is not the loaded word: the f16 parameters and their moves stay.
    let mut mf = select_kernel(true);
    pack_f16(&mut mf);
    assert_eq!(mf.blocks[2].params.len(), 2);
    assert!(text(&mf).contains(&"mov.b16".to_string()), "{:?}", text(&mf));
}

/// A loop carrying a pair: header params (x0, x1) from the entry's unpack and from the
/// latch's (either the old pair or a new load); the exit stores the pair packed. With
/// `scalar_use`, the latch also adds the low half to itself (a scalar read of one lane).
fn loop_kernel(scalar_use: bool) -> MFunction {
    let mut mf = MFunction::default();
    let (_entry, head, body, exit) =
        (mf.new_block(), mf.new_block(), mf.new_block(), mf.new_block());
    let p = mf.new_vreg(RegKind::B64);
    let c = mf.new_vreg(RegKind::Pred);
    let (w0, w1, d) =
        (mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32), mf.new_vreg(RegKind::B32));
    let h: Vec<Reg> = (0..7).map(|_| mf.new_vreg(RegKind::B16)).collect();
    let g = StateSpace::Global;
    mf.blocks[0].insts = vec![
        build::ld(g, Type::B32, w0, Operand::addr(p, 0)),
        build::unpack(Type::B32, &[h[0], h[1]], w0),
    ];
    mf.blocks[0].term = Term::Jump(target(head, &[h[0], h[1]]));
    mf.blocks[1].params = vec![h[2], h[3]];
    mf.blocks[1].term =
        Term::Branch { cond: c, then_: target(body, &[]), else_: target(exit, &[]) };
    mf.blocks[2].insts = vec![
        build::ld(g, Type::B32, w1, Operand::addr(p, 4)),
        build::unpack(Type::B32, &[h[4], h[5]], w1),
    ];
    if scalar_use {
        mf.blocks[2].insts.push(build::binary(Opcode::Add, &[], Type::F16, h[6], h[2], h[2]));
        mf.blocks[2].insts.push(build::st(g, Type::B16, Operand::addr(p, 8), h[6]));
    }
    mf.blocks[2].term = Term::Jump(target(head, &[h[4], h[5]]));
    mf.blocks[3].insts = vec![
        build::pack(Type::B32, d, &[h[2], h[3]]),
        build::st(g, Type::B32, Operand::addr(p, 12), d),
    ];
    mf
}

#[test]
fn a_loop_carried_pair_stays_packed_around_the_loop() {
    let mut mf = loop_kernel(false);
    pack_f16(&mut mf);
    assert_eq!(text(&mf), ["ld.global.b32", "ld.global.b32", "st.global.b32"]);
    assert_eq!(mf.blocks[1].params.len(), 1);
    assert_eq!(mf.blocks[1].params[0].kind, RegKind::B32);
}

#[test]
fn a_lane_read_as_a_scalar_keeps_its_f16_parameter_beside_the_packed_one() {
    let mut mf = loop_kernel(true);
    pack_f16(&mut mf);
    // The store reads the packed parameter; the low half stays a parameter for the add, the
    // high half (read by nothing else) goes.
    let kinds: Vec<RegKind> = mf.blocks[1].params.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [RegKind::B16, RegKind::B32]);
    assert_eq!(
        text(&mf),
        [
            "ld.global.b32",
            "mov.b32",
            "ld.global.b32",
            "mov.b32",
            "add.rn.f16",
            "st.global.b16",
            "st.global.b32"
        ]
    );
}
