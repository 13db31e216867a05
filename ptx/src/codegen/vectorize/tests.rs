//! The merging rules on hand-built machine code: alignment, adjacency, the events that end a
//! run, f16 packing, and deletion of the address arithmetic the merged accesses no longer use.

use super::*;
use crate::model::build;

/// One block: `insts`, on registers allocated from `mf`.
fn func(mf: &mut MFunction, insts: Vec<Instruction>) {
    let b = mf.new_block();
    if let Some(block) = mf.blocks.get_mut(b.0 as usize) {
        block.insts = insts;
    }
}

fn text(mf: &MFunction) -> Vec<String> {
    mf.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.opcode_text())).collect()
}

/// Four `ld.global.u32` at `[p+0..12]`, `p` aligned to `align`, then four stores of them to
/// `[q+0..12]`, `q` aligned to 16, with `between` after the second load.
fn four_loads(align: u32, between: Option<Instruction>) -> (MFunction, AddrFacts) {
    let mut mf = MFunction::default();
    let p = mf.new_vreg(RegKind::B64);
    let q = mf.new_vreg(RegKind::B64);
    let v: Vec<Reg> = (0..4).map(|_| mf.new_vreg(RegKind::B32)).collect();
    let mut insts = Vec::new();
    for (k, &r) in v.iter().enumerate() {
        insts.push(build::ld(StateSpace::Global, Type::U32, r, Operand::addr(p, 4 * k as i64)));
        if k == 1 {
            insts.extend(between.clone());
        }
    }
    for (k, &r) in v.iter().enumerate() {
        insts.push(build::st(StateSpace::Global, Type::U32, Operand::addr(q, 4 * k as i64), r));
    }
    func(&mut mf, insts);
    let mut facts = AddrFacts::default();
    facts.touch(p, align);
    facts.touch(q, 16);
    (mf, facts)
}

#[test]
fn sixteen_aligned_bytes_merge_into_v4() {
    let (mut mf, facts) = four_loads(16, None);
    vectorize(&mut mf, &facts);
    assert_eq!(text(&mf), ["ld.global.v4.u32", "st.global.v4.u32"]);
}

#[test]
fn eight_byte_alignment_gives_two_v2() {
    let (mut mf, facts) = four_loads(8, None);
    vectorize(&mut mf, &facts);
    assert_eq!(text(&mf), ["ld.global.v2.u32", "ld.global.v2.u32", "st.global.v4.u32"]);
}

#[test]
fn four_byte_alignment_merges_no_load() {
    let (mut mf, facts) = four_loads(4, None);
    vectorize(&mut mf, &facts);
    assert_eq!(text(&mf)[..4], ["ld.global.u32"; 4]);
}

#[test]
fn a_barrier_or_a_global_store_splits_the_loads() {
    for between in [build::bar_sync(0), {
        let r = Reg::b64(99);
        build::st(StateSpace::Global, Type::U32, Operand::addr(r, 0), Reg::b32(98))
    }] {
        let (mut mf, facts) = four_loads(16, Some(between));
        vectorize(&mut mf, &facts);
        let t = text(&mf);
        assert_eq!(t[0], "ld.global.v2.u32", "{t:?}");
        assert_eq!(t[2], "ld.global.v2.u32", "{t:?}");
    }
}

#[test]
fn a_shared_store_does_not_split_global_loads() {
    let r = Reg::b64(99);
    let st = build::st(StateSpace::Shared, Type::U32, Operand::addr(r, 0), Reg::b32(98));
    let (mut mf, facts) = four_loads(16, Some(st));
    vectorize(&mut mf, &facts);
    assert_eq!(text(&mf), ["ld.global.v4.u32", "st.shared.u32", "st.global.v4.u32"]);
}

#[test]
fn eight_f16_stores_pack_into_one_v4_b32() {
    let mut mf = MFunction::default();
    let base = mf.new_vreg(RegKind::B64);
    let h: Vec<Reg> = (0..8).map(|_| mf.new_vreg(RegKind::B16)).collect();
    // Element k at its own address register `base + 2k` (as `offset_ptr` builds them).
    let mut insts = Vec::new();
    let mut facts = AddrFacts::default();
    facts.global(base, GlobalId(0), 16);
    for (k, &r) in h.iter().enumerate() {
        let a = mf.new_vreg(RegKind::B64);
        insts.push(build::add(Type::S64, a, base, Operand::Imm(2 * k as i64)));
        facts.offset(a, base, 16, 2 * k as u32);
        insts.push(build::st(StateSpace::Shared, Type::B16, Operand::addr(a, 0), r));
    }
    func(&mut mf, insts);
    vectorize(&mut mf, &facts);
    let t = text(&mf);
    // Element 0's address (`base + 0`) stays; the others are deleted.
    assert_eq!(
        t,
        ["add.s64", "mov.b32", "mov.b32", "mov.b32", "mov.b32", "st.shared.v4.b32"],
        "{t:?}"
    );
    let st = mf.blocks.iter().flat_map(|b| &b.insts).last().map(|i| i.to_string());
    let first = mf.blocks.iter().flat_map(|b| &b.insts).next().map(|i| i.operands[0].to_string());
    assert_eq!(st.map(|s| s.contains(&format!("[{}]", first.unwrap_or_default()))), Some(true));
}
