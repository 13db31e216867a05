//! `wgmma.wait_group 0` where an allocated function touches a `wgmma` accumulator in flight
//! (`docs/hopper.md`, "Waits").
//!
//! A `wgmma.mma_async` writes its accumulator registers asynchronously: until a
//! `wgmma.wait_group` completes its group, no other instruction may read or write them (PTX
//! leaves it undefined), except a later `wgmma.mma_async` of the same shape that accumulates
//! into the same registers. Instruction selection places no such wait; this pass, run on
//! the physical registers after allocation, puts one before the first instruction that
//! touches a register in flight, whatever put it there: the tile's reader, a move the
//! allocator made for a block parameter or a split, a register reused for another value.
//! So products overlap everything up to their first real reader, across loop back edges
//! too, and the allocator cannot break the rule.
//!
//! The analysis is forward over the control-flow graph: the accumulators in flight at a
//! block's start are the union of those at its predecessors' ends (iterated to a fixed
//! point). Within a block:
//!
//! * `wgmma.mma_async` adds its accumulator; one whose registers overlap an accumulator in
//!   flight without being exactly it waits first (before the `wgmma.fence` that opens its
//!   sequence);
//! * `wgmma.wait_group 0` empties the set (`wait_group N` with `N > 0` is kept: which groups
//!   it completes is not tracked, so nothing is assumed);
//! * any other instruction or allocator move naming a register in flight, a `call`, and the
//!   function's `ret` wait first.

use super::regalloc::{ABlock, AInst, ATerm, Allocated};
use crate::model::{build, Flag, Instruction, Opcode, Operand, Reg};

/// Accumulators (register lists) in flight.
type Flight = Vec<Vec<Reg>>;

/// Inserts the waits into `a` (see the module documentation).
pub fn insert_waits(a: &mut Allocated) {
    if !a.blocks.iter().any(|b| b.insts.iter().any(|i| mma_async(i).is_some())) {
        return;
    }
    let n = a.blocks.len();
    let mut preds = vec![Vec::new(); n];
    for (bi, b) in a.blocks.iter().enumerate() {
        for s in successors(&b.term) {
            if let Some(p) = preds.get_mut(s) {
                p.push(bi);
            }
        }
    }
    let mut entry: Vec<Flight> = vec![Vec::new(); n];
    let mut exit: Vec<Flight> = vec![Vec::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for bi in 0..n {
            let mut inn = entry[bi].clone();
            for &p in &preds[bi] {
                for acc in &exit[p] {
                    if !inn.contains(acc) {
                        inn.push(acc.clone());
                    }
                }
            }
            if inn.len() != entry[bi].len() {
                entry[bi] = inn.clone();
                changed = true;
            }
            let (out, _) = walk(&a.blocks[bi], inn);
            if out != exit[bi] {
                exit[bi] = out;
                changed = true;
            }
        }
    }
    for (bi, b) in a.blocks.iter_mut().enumerate() {
        let (_, waits) = walk(b, entry[bi].clone());
        for &at in waits.iter().rev() {
            b.insts.insert(at, AInst::Inst(build::wgmma_wait(0)));
        }
    }
}

/// The accumulators in flight at the end of `b` when `flight` are at its start, and the
/// instruction positions that need a wait before them (`b.insts.len()`: before the
/// terminator).
fn walk(b: &ABlock, mut flight: Flight) -> (Flight, Vec<usize>) {
    let mut waits = Vec::new();
    let touches = |flight: &Flight, r: Reg| flight.iter().any(|acc| acc.contains(&r));
    for (at, i) in b.insts.iter().enumerate() {
        let need = match i {
            AInst::Move { to, from } => touches(&flight, *to) || touches(&flight, *from),
            AInst::Inst(m) if m.op == Opcode::Wgmma => {
                if m.has_flag(Flag::WaitGroup) {
                    if matches!(m.operands.first(), Some(Operand::Imm(0))) {
                        flight.clear();
                    }
                    false
                } else if m.has_flag(Flag::WgFence) {
                    // The sequence's first product decides.
                    let acc = b.insts[at..].iter().find_map(mma_async);
                    acc.is_some_and(|acc| {
                        !flight.contains(&acc) && acc.iter().any(|r| touches(&flight, *r))
                    })
                } else if let Some(acc) = mma_async(i) {
                    if !flight.contains(&acc) {
                        flight.push(acc);
                    }
                    false
                } else {
                    false
                }
            }
            AInst::Inst(m) => {
                let mut hit = m.op == Opcode::Call;
                m.for_each_reg(|r| hit |= touches(&flight, r));
                hit
            }
        };
        if need && !flight.is_empty() {
            waits.push(at);
            flight.clear();
            // The instruction itself may start a product (a fence's sequence).
        }
    }
    let leaves = match &b.term {
        ATerm::Ret => true,
        ATerm::Branch { cond, .. } => touches(&flight, *cond),
        ATerm::Jump(_) => false,
    };
    if leaves && !flight.is_empty() {
        waits.push(b.insts.len());
        flight.clear();
    }
    (flight, waits)
}

/// The accumulator registers of a `wgmma.mma_async`.
fn mma_async(i: &AInst) -> Option<Vec<Reg>> {
    match i {
        AInst::Inst(m @ Instruction { op: Opcode::Wgmma, .. }) if m.has_flag(Flag::MmaAsync) => {
            let mut regs = Vec::new();
            m.operands.first()?.for_each_reg(&mut |r| regs.push(r));
            Some(regs)
        }
        _ => None,
    }
}

/// The blocks a terminator may branch to.
fn successors(t: &ATerm) -> Vec<usize> {
    match t {
        ATerm::Ret => Vec::new(),
        ATerm::Jump(b) => vec![*b],
        ATerm::Branch { then_, else_, .. } => vec![*then_, *else_],
    }
}

#[cfg(test)]
mod tests {
    use super::super::regalloc::{ABlock, AInst, ATerm, Allocated};
    use super::insert_waits;
    use crate::model::{build, Flag, Operand, Reg, RegKind};

    fn r(n: u32) -> Reg {
        Reg { kind: RegKind::B32, num: n }
    }

    /// `wgmma.fence`, one product into registers `acc`, `wgmma.commit_group`.
    fn product(acc: &[u32]) -> Vec<AInst> {
        let d: Vec<Operand> = acc.iter().map(|&n| Operand::Reg(r(n))).collect();
        let desc = || Operand::Reg(Reg { kind: RegKind::B64, num: 1 });
        vec![
            AInst::Inst(build::wgmma_sync(Flag::WgFence)),
            AInst::Inst(build::wgmma_f16(&d, [desc(), desc()], [false, false])),
            AInst::Inst(build::wgmma_sync(Flag::CommitGroup)),
        ]
    }

    fn mov(to: u32, from: u32) -> AInst {
        AInst::Move { to: r(to), from: r(from) }
    }

    fn is_wait(i: &AInst) -> bool {
        matches!(i, AInst::Inst(m) if m.has_flag(Flag::WaitGroup))
    }

    /// Positions of the waits in each block.
    fn waits(a: &Allocated) -> Vec<Vec<usize>> {
        a.blocks
            .iter()
            .map(|b| {
                b.insts.iter().enumerate().filter(|(_, i)| is_wait(i)).map(|(k, _)| k).collect()
            })
            .collect()
    }

    #[test]
    fn the_first_access_to_an_accumulator_in_flight_waits() {
        let mut insts = product(&[10, 11]);
        insts.push(mov(20, 21)); // unrelated
        insts.push(mov(30, 11)); // reads the accumulator
        insts.push(mov(31, 10)); // after the wait
        let mut a = Allocated { blocks: vec![ABlock { insts, term: ATerm::Ret }] };
        insert_waits(&mut a);
        assert_eq!(waits(&a), vec![vec![4]]);
    }

    #[test]
    fn a_product_into_the_same_registers_chains_and_the_kernel_end_waits() {
        let mut insts = product(&[10, 11]);
        insts.extend(product(&[10, 11]));
        let mut a = Allocated { blocks: vec![ABlock { insts, term: ATerm::Ret }] };
        insert_waits(&mut a);
        assert_eq!(waits(&a), vec![vec![6]], "one wait, before ret");
    }

    #[test]
    fn a_product_overlapping_another_in_flight_waits_before_its_fence() {
        let mut insts = product(&[10, 11]);
        insts.extend(product(&[11, 12]));
        insts.push(AInst::Inst(build::wgmma_wait(0)));
        let mut a = Allocated { blocks: vec![ABlock { insts, term: ATerm::Ret }] };
        insert_waits(&mut a);
        assert_eq!(waits(&a), vec![vec![3, 7]]);
    }

    /// A loop whose body multiplies into registers the exit block reads: no wait in the
    /// loop (the back edge carries the product in flight), one in the exit block; a move on
    /// the back edge would have waited.
    #[test]
    fn waits_follow_the_control_flow() {
        let body = |extra: Vec<AInst>| {
            let mut insts = product(&[10, 11]);
            insts.extend(extra);
            ABlock {
                insts,
                term: ATerm::Branch {
                    cond: Reg { kind: RegKind::Pred, num: 0 },
                    then_: 1,
                    else_: 2,
                    uniform: true,
                },
            }
        };
        let exit = ABlock {
            insts: vec![AInst::Inst(build::mov(crate::model::Type::B32, r(40), r(10)))],
            term: ATerm::Ret,
        };
        let entry = ABlock { insts: vec![], term: ATerm::Jump(1) };
        let mut a = Allocated { blocks: vec![entry.clone(), body(vec![]), exit.clone()] };
        insert_waits(&mut a);
        assert_eq!(waits(&a), vec![vec![], vec![], vec![0]]);
        let mut a = Allocated { blocks: vec![entry, body(vec![mov(10, 11)]), exit] };
        insert_waits(&mut a);
        assert_eq!(waits(&a), vec![vec![], vec![3], vec![]]);
    }
}
