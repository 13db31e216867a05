//! Selects between a computed value and constants as a branch around the computation, on the
//! allocated statements (after register allocation, before printing).
//!
//! `var v = zero; if (c) { v = load(); }` reaches register allocation as a diamond: the block
//! that branches, a block computing the value (`T`) and a block that only writes constants to
//! the same registers (`Z`, the moves of the edge from the branch to the join `J`), both going
//! on to `J`:
//!
//! ```text
//!     @%p bra T;  bra Z;   ...   T: ld.global.v4.b32 {%r1, ..}, [..]; bra J;
//!                                Z: mov.b32 %r1, 0x0; ..; bra J;
//! ```
//!
//! ptxas keeps such a diamond as two branches with a convergence region (`BSSY`/`BSYNC`). As a
//! triangle, constants first and a branch around the computation, it predicates the whole
//! thing (`@P LDG`), which is how NVVM writes the same source:
//!
//! ```text
//!     mov.b32 %r1, 0x0; ..;  @!%p bra J;  ld.global.v4.b32 {%r1, ..}, [..];  bra J;
//! ```
//!
//! The rewrite is exact when `Z` writes only registers that `T` writes (unguarded) and does
//! not read (so on `T`'s path the constants are overwritten before anything sees them, and
//! `T` computes what it did before), `Z` does not write the branch's predicate, `Z` holds
//! nothing but moves of immediates, and each of `T` and `Z` is reached only by that branch.
//! Both then go on to the same `J` (through empty blocks).

use crate::model::{Instruction, Opcode, Operand, Reg, Statement};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Instructions `T` may hold for the rewrite (beyond that ptxas would not predicate anyway).
const MAX_T: usize = 8;

/// A labelled run of statements (the first one has no label).
struct Blk {
    label: Option<String>,
    body: Vec<Statement>,
}

fn bra_target(i: &Instruction) -> Option<&str> {
    if i.op != Opcode::Bra {
        return None;
    }
    match i.operands.first() {
        Some(Operand::Symbol(s)) => Some(s.as_str()),
        _ => None,
    }
}

/// Whether control never goes on past `s` to the next statement.
fn ends(s: Option<&Statement>) -> bool {
    match s {
        Some(Statement::Inst(i)) => {
            i.guard.is_none() && matches!(i.op, Opcode::Bra | Opcode::Ret | Opcode::Exit)
        }
        _ => false,
    }
}

fn split(body: Vec<Statement>) -> Vec<Blk> {
    let mut out = vec![Blk { label: None, body: Vec::new() }];
    for s in body {
        match s {
            Statement::Label(l) => out.push(Blk { label: Some(l), body: Vec::new() }),
            s => {
                if let Some(b) = out.last_mut() {
                    b.body.push(s);
                }
            }
        }
    }
    out
}

/// How many ways lead into each label: branches naming it and a fall-through from the block
/// before it.
fn refs(blks: &[Blk]) -> HashMap<String, usize> {
    let mut n: HashMap<String, usize> = HashMap::default();
    for (k, b) in blks.iter().enumerate() {
        for s in &b.body {
            if let Statement::Inst(i) = s {
                if let Some(t) = bra_target(i) {
                    *n.entry(t.to_string()).or_default() += 1;
                }
            }
        }
        if !ends(b.body.last()) {
            if let Some(l) = blks.get(k + 1).and_then(|x| x.label.clone()) {
                *n.entry(l).or_default() += 1;
            }
        }
    }
    n
}

/// Where control goes after block `k` (whose last `skip` statements, 0 or 1, are its exit
/// `bra`), following blocks that hold nothing or nothing but a jump.
fn exit_of(blks: &[Blk], index: &HashMap<String, usize>, k: usize, skip: usize) -> Option<String> {
    let b = blks.get(k)?;
    let mut label = if skip == 1 {
        match b.body.last() {
            Some(Statement::Inst(i)) => bra_target(i)?.to_string(),
            _ => return None,
        }
    } else {
        blks.get(k + 1)?.label.clone()?
    };
    for _ in 0..8 {
        let &n = index.get(&label)?;
        let blk = blks.get(n)?;
        if blk.body.is_empty() {
            label = blks.get(n + 1)?.label.clone()?;
        } else if is_jump_only(blk) {
            match blk.body.first() {
                Some(Statement::Inst(i)) => label = bra_target(i)?.to_string(),
                _ => return None,
            }
        } else {
            return Some(label);
        }
    }
    None
}

fn is_jump_only(b: &Blk) -> bool {
    matches!(b.body.as_slice(), [Statement::Inst(i)] if i.guard.is_none() && bra_target(i).is_some())
}

/// The instructions of `b` before its exit (a final unguarded `bra`, or nothing), when all
/// are plain instructions.
fn straight(b: &Blk) -> Option<(Vec<&Instruction>, usize)> {
    let mut insts = Vec::new();
    for s in &b.body {
        match s {
            Statement::Inst(i) => insts.push(i),
            _ => return None,
        }
    }
    let skip =
        usize::from(insts.last().is_some_and(|i| i.guard.is_none() && bra_target(i).is_some()));
    insts.truncate(insts.len() - skip);
    if insts
        .iter()
        .any(|i| i.guard.is_some() || matches!(i.op, Opcode::Bra | Opcode::Ret | Opcode::Exit))
    {
        return None;
    }
    Some((insts, skip))
}

fn writes(i: &Instruction, out: &mut HashSet<Reg>) {
    i.for_each_reg_access(|r, def| {
        if def {
            out.insert(r);
        }
    });
}

/// Rewrites every qualifying diamond of `body` as a triangle (module doc).
pub(crate) fn fold_constant_else(body: Vec<Statement>) -> Vec<Statement> {
    let mut blks = split(body);
    loop {
        let index: HashMap<String, usize> =
            blks.iter().enumerate().filter_map(|(k, b)| b.label.clone().map(|l| (l, k))).collect();
        let n = refs(&blks);
        let Some((b, t, z, join, neg, pops)) =
            (0..blks.len()).find_map(|b| candidate(&blks, &index, &n, b))
        else {
            break;
        };
        let (Some(tb), Some(zb)) = (blks.get(t), blks.get(z)) else { break };
        let (Some((t_insts, _)), Some((z_insts, _))) = (straight(tb), straight(zb)) else {
            break;
        };
        let (t_insts, z_insts): (Vec<Instruction>, Vec<Instruction>) =
            (t_insts.into_iter().cloned().collect(), z_insts.into_iter().cloned().collect());
        let Some(blk) = blks.get_mut(b) else { break };
        let Some(Statement::Inst(cond_bra)) = blk.body.iter().rev().find(
            |s| matches!(s, Statement::Inst(i) if i.guard.is_some() && bra_target(i).is_some()),
        ) else {
            break;
        };
        let Some(g) = cond_bra.guard else { break };
        // Drop the branch pair (or the conditional branch before a fall-through).
        blk.body.truncate(blk.body.len().saturating_sub(pops));
        blk.body.extend(z_insts.into_iter().map(Statement::Inst));
        // Skip `T` exactly when it would not have run.
        let around = crate::model::build::bra(&join).guarded(g.reg, g.negated == neg);
        blk.body.push(Statement::Inst(around));
        blk.body.extend(t_insts.into_iter().map(Statement::Inst));
        blk.body.push(Statement::Inst(crate::model::build::bra(&join)));
        // `T` and `Z` were reached only from here: remove them (higher index first).
        let (hi, lo) = if t > z { (t, z) } else { (z, t) };
        blks.remove(hi);
        blks.remove(lo);
    }
    let mut out = Vec::new();
    for b in blks {
        if let Some(l) = b.label {
            out.push(Statement::Label(l));
        }
        out.extend(b.body);
    }
    out
}

/// Block `b` ends in a diamond that qualifies: (b, T, Z, J, whether T is on the predicate's
/// false side).
fn candidate(
    blks: &[Blk],
    index: &HashMap<String, usize>,
    n: &HashMap<String, usize>,
    b: usize,
) -> Option<(usize, usize, usize, String, bool, usize)> {
    let blk = blks.get(b)?;
    let len = blk.body.len();
    // `@p bra X; bra Y;` or `@p bra X;` falling through to the next block.
    let (cond, other, pops) = match blk.body.get(len.checked_sub(2)?..)? {
        [Statement::Inst(c), Statement::Inst(u)]
            if c.guard.is_some() && bra_target(c).is_some() && u.guard.is_none() =>
        {
            (c, bra_target(u)?.to_string(), 2)
        }
        [_, Statement::Inst(c)] if c.guard.is_some() && bra_target(c).is_some() => {
            (c, blks.get(b + 1)?.label.clone()?, 1)
        }
        _ => return None,
    };
    let g = cond.guard?;
    let taken = bra_target(cond)?.to_string();
    let (&x, &y) = (index.get(&taken)?, index.get(&other)?);
    if x == y || x == b || y == b || n.get(&taken) != Some(&1) || n.get(&other) != Some(&1) {
        return None;
    }
    // Which side computes and which writes constants.
    for (t, z, neg) in [(x, y, false), (y, x, true)] {
        let (Some((ti, ts)), Some((zi, zs))) = (straight(blks.get(t)?), straight(blks.get(z)?))
        else {
            continue;
        };
        if ti.is_empty() || ti.len() > MAX_T || zi.is_empty() {
            continue;
        }
        let consts = zi.iter().all(|i| {
            i.op == Opcode::Mov
                && matches!(i.operands.get(1), Some(Operand::Imm(_) | Operand::ImmHex(_)))
                && matches!(i.operands.first(), Some(Operand::Reg(_)))
        });
        if !consts {
            continue;
        }
        let (mut tw, mut zw) = (HashSet::default(), HashSet::default());
        ti.iter().for_each(|i| writes(i, &mut tw));
        zi.iter().for_each(|i| writes(i, &mut zw));
        let mut t_reads = HashSet::default();
        for i in &ti {
            i.for_each_reg_access(|r, def| {
                if !def {
                    t_reads.insert(r);
                }
            });
        }
        if !zw.is_subset(&tw) || zw.iter().any(|r| t_reads.contains(r)) || zw.contains(&g.reg) {
            continue;
        }
        let (Some(jt), Some(jz)) = (exit_of(blks, index, t, ts), exit_of(blks, index, z, zs))
        else {
            continue;
        };
        if jt == jz {
            return Some((b, t, z, jt, neg, pops));
        }
    }
    None
}

#[cfg(test)]
#[path = "triangles_tests.rs"]
mod tests;
