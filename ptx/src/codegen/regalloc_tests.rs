//! Tests of the regalloc2 integration: hand-built CFGs, checked with regalloc2's checker and by
//! running both the virtual-register program and the allocated program in a tiny evaluator.

use super::*;
use crate::model::{CmpOp, Opcode, Operand, StateSpace, Type};
use std::collections::HashMap;

/// Test instruction set: `mov.u32 d, IMM`, `add.u32 d, a, b`, `setp.lt.u32 p, a, b`,
/// `and.pred p, a, b`, `selp.u32 d, 1, 0, p`, and `st.global.u32 [out], u` (records a value).
/// Returns the destination and its value, or `None` for the store (whose value is pushed to
/// `log`).
fn eval(i: &Instruction, regs: &HashMap<Reg, u64>, log: &mut Vec<u64>) -> Option<(Reg, u64)> {
    let val = |o: &Operand| match o {
        Operand::Reg(r) => regs[r],
        Operand::Imm(v) => *v as u64,
        other => panic!("unexpected operand {other}"),
    };
    let dest = || match &i.operands[0] {
        Operand::Reg(r) => *r,
        other => panic!("unexpected destination {other}"),
    };
    let o = &i.operands;
    match (i.op, i.opcode_text().as_str()) {
        (Opcode::St, _) => {
            log.push(val(&o[1]));
            None
        }
        (_, "mov.u32") => Some((dest(), val(&o[1]))),
        (_, "add.u32") => Some((dest(), val(&o[1]).wrapping_add(val(&o[2])) & 0xffff_ffff)),
        (_, "setp.lt.u32") => Some((dest(), (val(&o[1]) < val(&o[2])) as u64)),
        (_, "and.pred") => Some((dest(), val(&o[1]) & val(&o[2]))),
        (_, "selp.u32") => Some((dest(), if val(&o[3]) != 0 { val(&o[1]) } else { val(&o[2]) })),
        (_, other) => panic!("unknown test op {other}"),
    }
}

/// Runs the virtual-register program; returns the `out` log.
fn run_virtual(f: &MFunction) -> Vec<u64> {
    let mut regs: HashMap<VRegId, u64> = HashMap::new();
    let mut log = Vec::new();
    let mut b = 0usize;
    for _ in 0..10_000 {
        let block = &f.blocks[b];
        for m in &block.insts {
            if let Some((d, v)) = eval(m, &regs, &mut log) {
                regs.insert(d, v);
            }
        }
        let target = match &block.term {
            Term::Ret => return log,
            Term::Jump(t) => t,
            Term::Branch { cond, then_, else_ } => {
                if regs[cond] != 0 {
                    then_
                } else {
                    else_
                }
            }
        };
        // Block arguments are bound simultaneously.
        let vals: Vec<u64> = target.args.iter().map(|a| regs[a]).collect();
        for (p, v) in f.blocks[target.block.0 as usize].params.iter().zip(vals) {
            regs.insert(*p, v);
        }
        b = target.block.0 as usize;
    }
    panic!("virtual program did not terminate");
}

/// Runs the allocated program; returns the `out` log.
fn run_allocated(a: &Allocated) -> Vec<u64> {
    let mut regs: HashMap<PhysReg, u64> = HashMap::new();
    let mut log = Vec::new();
    let mut b = 0usize;
    for _ in 0..10_000 {
        let block = &a.blocks[b];
        for i in &block.insts {
            match i {
                AInst::Inst(m) => {
                    if let Some((d, v)) = eval(m, &regs, &mut log) {
                        regs.insert(d, v);
                    }
                }
                AInst::Move { to, from } => {
                    let v = regs[from];
                    regs.insert(*to, v);
                }
            }
        }
        b = match &block.term {
            ATerm::Ret => return log,
            ATerm::Jump(t) => *t,
            ATerm::Branch { cond, then_, else_, .. } => {
                if regs[cond] != 0 {
                    *then_
                } else {
                    *else_
                }
            }
        };
    }
    panic!("allocated program did not terminate");
}

/// Allocates with SSA validation, runs regalloc2's checker on both runs and compares the
/// evaluator results with `expected`.
fn check(f: &MFunction, expected: &[u64]) -> Allocated {
    assert_eq!(run_virtual(f), expected, "virtual program");
    let prepared = prepare(f.clone()).expect("prepare");
    let env = machine_env();
    for pred_run in [false, true] {
        let view = View::new(&prepared, pred_run);
        let out = run_view(&view, &env, true).expect("allocation");
        let mut checker = ra::checker::Checker::new(&view, &env);
        checker.prepare(&out);
        checker.run().expect("regalloc2 checker");
    }
    let a = allocate(f, true).expect("allocate");
    assert_eq!(run_allocated(&a), expected, "allocated program");
    a
}

/// Registers declared per kind ([`RegKind::ALL`] order) for the allocated function's body.
fn reg_counts(a: &Allocated) -> [u32; 4] {
    let mut e = crate::model::Entry::new("t");
    e.body = to_statements(a.clone(), &|i| format!("$L{i}"));
    e.reg_counts()
}

fn mov_imm(f: &mut MFunction, b: BlockId, v: u32) -> VRegId {
    let d = f.new_vreg(RegKind::B32);
    f.blocks[b.0 as usize].insts.push(build::mov(Type::U32, d, Operand::Imm(i64::from(v))));
    d
}

fn add(f: &mut MFunction, b: BlockId, x: VRegId, y: VRegId) -> VRegId {
    let d = f.new_vreg(RegKind::B32);
    f.blocks[b.0 as usize].insts.push(build::add(Type::U32, d, x, y));
    d
}

fn lt(f: &mut MFunction, b: BlockId, x: VRegId, y: VRegId) -> VRegId {
    let d = f.new_vreg(RegKind::Pred);
    f.blocks[b.0 as usize].insts.push(build::setp(CmpOp::Lt, Type::U32, d, x, y));
    d
}

fn out(f: &mut MFunction, b: BlockId, x: VRegId) {
    let addr = Operand::sym_addr("out", 0);
    f.blocks[b.0 as usize].insts.push(build::st(StateSpace::Global, Type::U32, addr, x));
}

fn jump(block: BlockId, args: Vec<VRegId>) -> Term {
    Term::Jump(Target { block, args })
}

#[test]
fn straight_line() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let a = mov_imm(&mut f, e, 1);
    let b = mov_imm(&mut f, e, 2);
    let c = add(&mut f, e, a, b);
    let d = add(&mut f, e, c, c);
    out(&mut f, e, d);
    out(&mut f, e, a);
    let a = check(&f, &[6, 1]);
    assert_eq!(a.blocks.len(), 1);
    // Three values are live at most at once, so few registers are needed.
    let counts = reg_counts(&a);
    assert!(counts[2] <= 4, "counts {counts:?}");
}

#[test]
fn diamond_with_block_args() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let t = f.new_block();
    let el = f.new_block();
    let j = f.new_block();
    let x = mov_imm(&mut f, e, 5);
    let ten = mov_imm(&mut f, e, 10);
    let p = lt(&mut f, e, x, ten);
    let one = mov_imm(&mut f, t, 1);
    let y1 = add(&mut f, t, x, one);
    let two = mov_imm(&mut f, el, 2);
    let y2 = add(&mut f, el, x, two);
    let z = f.new_vreg(RegKind::B32);
    f.blocks[j.0 as usize].params.push(z);
    out(&mut f, j, z);
    f.blocks[0].term = Term::Branch {
        cond: p,
        then_: Target { block: t, args: vec![] },
        else_: Target { block: el, args: vec![] },
    };
    f.blocks[t.0 as usize].term = jump(j, vec![y1]);
    f.blocks[el.0 as usize].term = jump(j, vec![y2]);
    check(&f, &[6]);
    // Flip the condition's inputs: the else arm runs.
    let mut g = f.clone();
    g.blocks[0].insts[2].operands[1..].clone_from_slice(&[ten.into(), x.into()]);
    check(&g, &[7]);
}

#[test]
fn critical_edge_with_args_is_split() {
    // entry: branch straight to the join (critical edge carrying an argument) or to a side
    // block that also jumps to the join.
    let mut f = MFunction::default();
    let e = f.new_block();
    let side = f.new_block();
    let j = f.new_block();
    let x = mov_imm(&mut f, e, 3);
    let y = mov_imm(&mut f, e, 4);
    let p = lt(&mut f, e, x, y);
    let z = f.new_vreg(RegKind::B32);
    f.blocks[j.0 as usize].params.push(z);
    out(&mut f, j, z);
    let w = add(&mut f, side, x, y);
    f.blocks[side.0 as usize].term = jump(j, vec![w]);
    f.blocks[0].term = Term::Branch {
        cond: p,
        then_: Target { block: j, args: vec![x] },
        else_: Target { block: side, args: vec![] },
    };
    let prepared = prepare(f.clone()).expect("prepare");
    assert_eq!(prepared.blocks.len(), 4, "one edge block added");
    check(&f, &[3]);
}

/// `i = 0; s = 0; while i < 10 { s += i; i += 1 }; out s` -> 45.
#[test]
fn loop_with_counter() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let h = f.new_block();
    let body = f.new_block();
    let exit = f.new_block();
    let i0 = mov_imm(&mut f, e, 0);
    let s0 = mov_imm(&mut f, e, 0);
    f.blocks[0].term = jump(h, vec![i0, s0]);
    let i = f.new_vreg(RegKind::B32);
    let s = f.new_vreg(RegKind::B32);
    f.blocks[h.0 as usize].params = vec![i, s];
    let ten = mov_imm(&mut f, h, 10);
    let p = lt(&mut f, h, i, ten);
    f.blocks[h.0 as usize].term = Term::Branch {
        cond: p,
        then_: Target { block: body, args: vec![] },
        else_: Target { block: exit, args: vec![] },
    };
    let s2 = add(&mut f, body, s, i);
    let one = mov_imm(&mut f, body, 1);
    let i2 = add(&mut f, body, i, one);
    f.blocks[body.0 as usize].term = jump(h, vec![i2, s2]);
    out(&mut f, exit, s);
    check(&f, &[45]);
}

/// `(a, b) = (1, 2)`, three iterations of `(a, b) = (b, a)`: the back edge is a parallel
/// swap, which needs a cycle-breaking move.
#[test]
fn swap_across_back_edge() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let h = f.new_block();
    let body = f.new_block();
    let exit = f.new_block();
    let a = mov_imm(&mut f, e, 1);
    let b = mov_imm(&mut f, e, 2);
    let k0 = mov_imm(&mut f, e, 0);
    f.blocks[0].term = jump(h, vec![a, b, k0]);
    let x = f.new_vreg(RegKind::B32);
    let y = f.new_vreg(RegKind::B32);
    let k = f.new_vreg(RegKind::B32);
    f.blocks[h.0 as usize].params = vec![x, y, k];
    out(&mut f, h, x);
    out(&mut f, h, y);
    let three = mov_imm(&mut f, h, 3);
    let p = lt(&mut f, h, k, three);
    f.blocks[h.0 as usize].term = Term::Branch {
        cond: p,
        then_: Target { block: body, args: vec![] },
        else_: Target { block: exit, args: vec![] },
    };
    let one = mov_imm(&mut f, body, 1);
    let k2 = add(&mut f, body, k, one);
    f.blocks[body.0 as usize].term = jump(h, vec![y, x, k2]);
    out(&mut f, exit, x);
    let alloc = check(&f, &[1, 2, 2, 1, 1, 2, 2, 1, 2]);
    let moves: usize = alloc
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| matches!(i, AInst::Move { .. }))
        .count();
    assert!(moves >= 2, "a swap needs moves");
}

/// 100 values live at once: more than the 63 registers per class, so regalloc2 uses spill
/// slots, which become further register numbers (63 + slot).
#[test]
fn pressure_spills_become_registers() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let vals: Vec<VRegId> = (0..100).map(|i| mov_imm(&mut f, e, i)).collect();
    let mut acc = mov_imm(&mut f, e, 0);
    for &v in &vals {
        acc = add(&mut f, e, acc, v);
    }
    out(&mut f, e, acc);
    // Many predicates live at once too.
    let preds: Vec<VRegId> = (0..70).map(|i| lt(&mut f, e, vals[i], vals[i + 1])).collect();
    let mut pacc = preds[0];
    for &p in &preds[1..] {
        let d = f.new_vreg(RegKind::Pred);
        f.blocks[0].insts.push(build::binary(Opcode::And, &[], Type::Pred, d, pacc, p));
        pacc = d;
    }
    let o = f.new_vreg(RegKind::B32);
    f.blocks[0].insts.push(build::selp(Type::U32, o, Operand::Imm(1), Operand::Imm(0), pacc));
    out(&mut f, e, o);
    let a = check(&f, &[4950, 1]);
    let counts = reg_counts(&a);
    assert!(counts[2] > 63, "spilled values get numbers >= 63: {counts:?}");
    assert!(counts[0] > 63, "predicates too: {counts:?}");
}

#[test]
fn entry_with_params_is_rejected() {
    let mut f = MFunction::default();
    f.new_block();
    let p = f.new_vreg(RegKind::B32);
    f.blocks[0].params.push(p);
    assert!(allocate(&f, true).is_err());
}

#[test]
fn statements_name_physical_registers() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let x = mov_imm(&mut f, e, 2);
    let y = add(&mut f, e, x, x);
    out(&mut f, e, y);
    let a = allocate(&f, true).expect("allocate");
    let body = to_statements(a, &|i| format!("$L{i}"));
    let text: Vec<String> = body
        .iter()
        .map(|s| match s {
            Statement::Inst(i) => i.to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(text.len(), 4, "{text:?}");
    assert!(text[1].starts_with("add.u32 \t%r"), "{text:?}");
    assert_eq!(text[3], "ret;");
}

#[test]
fn deterministic() {
    let build = || {
        let mut f = MFunction::default();
        let e = f.new_block();
        let xs: Vec<VRegId> = (0..20).map(|i| mov_imm(&mut f, e, i)).collect();
        let mut acc = xs[0];
        for &x in &xs[1..] {
            acc = add(&mut f, e, acc, x);
        }
        out(&mut f, e, acc);
        f
    };
    assert_eq!(allocate(&build(), true).ok(), allocate(&build(), true).ok());
}

/// regalloc2's checker, as `allocate(.., true)` runs it, rejects an allocation in which an
/// instruction reads the wrong register: `add c, a, b` with the registers of `a` and `b`
/// exchanged (the same sum, but not the values the instruction names).
#[test]
fn checker_rejects_a_wrong_allocation() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let a = mov_imm(&mut f, e, 1);
    let b = mov_imm(&mut f, e, 2);
    let c = add(&mut f, e, a, b);
    out(&mut f, e, c);
    out(&mut f, e, a);
    out(&mut f, e, b);
    let prepared = prepare(f).expect("prepare");
    let env = machine_env();
    let view = View::new(&prepared, false);
    let mut out = run_view(&view, &env, true).expect("allocation");
    assert_eq!(check_output(&view, &env, &out), Ok(()));
    // Instruction 2 is the add: operands def c, use a, use b.
    let at = out.inst_alloc_offsets[2] as usize;
    assert_ne!(out.allocs[at + 1], out.allocs[at + 2], "a and b are live at once");
    out.allocs.swap(at + 1, at + 2);
    let e = check_output(&view, &env, &out).expect_err("the swapped uses are wrong");
    assert!(e.0.contains("checker"), "{e}");
}

/// A `wgmma` product of `n` accumulator registers as instruction selection builds it
/// (`coop::tile::wgmma`): `n` initial values, two descriptors, the tied instruction.
fn tied_product(n: usize) -> MFunction {
    let mut f = MFunction::default();
    let mut insts = Vec::new();
    let c: Vec<VRegId> = (0..n)
        .map(|i| {
            let r = f.new_vreg(RegKind::B32);
            insts.push(build::mov(Type::U32, r, Operand::Imm(i as i64)));
            r
        })
        .collect();
    let descs: Vec<Operand> = (0..2)
        .map(|i| {
            let r = f.new_vreg(RegKind::B64);
            insts.push(build::mov(Type::U64, r, Operand::Imm(i)));
            Operand::Reg(r)
        })
        .collect();
    let d: Vec<VRegId> = (0..n).map(|_| f.new_vreg(RegKind::B32)).collect();
    insts.push(Instruction::new(
        Opcode::Wgmma,
        build::wgmma_f16_mods(n),
        vec![
            Operand::vector(&d),
            Operand::List(descs),
            Operand::vector(&c),
            Operand::Imm(0),
            Operand::Imm(0),
        ],
    ));
    for &r in &d {
        insts.push(build::st(StateSpace::Global, Type::U32, Operand::addr(r, 0), r));
    }
    f.blocks.push(MBlock { params: Vec::new(), insts, term: Term::Ret });
    f
}

/// A tied accumulator is the fixed registers 31.. in order, in place; one longer than the
/// 32 fixed registers is an error, not a panic.
#[test]
fn tied_accumulators_take_the_fixed_registers() {
    let a = allocate(&tied_product(32), true).expect("32 registers");
    let wgmma: Vec<&Instruction> = a
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            AInst::Inst(m) if m.op == Opcode::Wgmma && m.has_flag(crate::model::Flag::MmaAsync) => {
                Some(m)
            }
            _ => None,
        })
        .collect();
    assert_eq!(wgmma.len(), 1, "one 16-deep step");
    let mut regs = Vec::new();
    wgmma[0].operands[0].for_each_reg(&mut |r| regs.push(r.num));
    assert_eq!(regs, (31..63).collect::<Vec<u32>>());
    let e = allocate(&tied_product(33), true).expect_err("33 registers");
    assert!(e.0.contains("tied accumulator"), "{}", e.0);
}

/// Removing an unreachable block renumbers the blocks after it; the uniform-branch marks
/// follow their blocks (a stale mark printed `bra.uni` on a divergent branch).
#[test]
fn uniform_branch_marks_follow_renumbered_blocks() {
    let mut f = MFunction::default();
    let e = f.new_block();
    let dead = f.new_block();
    let h = f.new_block();
    let exit = f.new_block();
    f.blocks[e.0 as usize].term = jump(h, vec![]);
    let x = mov_imm(&mut f, dead, 1);
    out(&mut f, dead, x);
    f.blocks[dead.0 as usize].term = jump(exit, vec![]);
    let a = mov_imm(&mut f, h, 1);
    let b = mov_imm(&mut f, h, 2);
    let p = lt(&mut f, h, a, b);
    out(&mut f, h, a);
    f.blocks[h.0 as usize].term = Term::Branch {
        cond: p,
        then_: Target { block: exit, args: vec![] },
        else_: Target { block: h, args: vec![] },
    };
    f.uniform_branches = vec![dead, h];
    let prepared = prepare(f).expect("prepare");
    let marked: Vec<&Term> =
        prepared.uniform_branches.iter().map(|b| &prepared.blocks[b.0 as usize].term).collect();
    assert_eq!(prepared.uniform_branches.len(), 1, "{:?}", prepared.uniform_branches);
    assert!(matches!(marked[0], Term::Branch { cond, .. } if *cond == p), "{marked:?}");
}
