//! f16 pairs carried packed through block parameters.
//!
//! Selection holds an f16 value in a `%h` register, so a `vec2`/`vec4<f16>` that crosses a
//! join (a region result or loop-carried value: `var v: Half8; if (c) { v = a[i]; }`) becomes
//! one block parameter per half: the packed load is unpacked (`mov.b32 {%h0, %h1}, %r`) before
//! the branch, the zeros are `mov.b16 %h, 0x0000`, and a packed store after the join packs
//! the halves again (`mov.b32 %d, {%p0, %p1}`). Every one of those moves is a SASS `PRMT`.
//!
//! Here a pair `(lo, hi)` of f16 registers that a pack reads has a packed value when it is
//!
//! * the low and high half of one unpack `mov.b32 {lo, hi}, %w` (the value is `%w`),
//! * two constants `mov.b16` (the value is one `mov.b32` of both, placed where it is needed),
//! * parameters `i`, `j` of one block where, on every edge into that block, the argument
//!   pair `(args[i], args[j])` has a packed value (the value is a new b32 parameter).
//!
//! Loops make the last rule recursive; the largest set of pairs consistent with the rules is
//! found optimistically (assume every candidate pair, drop the ones whose edges reach a pair
//! that is none of the three, repeat until nothing changes). Then each such parameter pair
//! gets its b32 parameter (with arguments on every edge), the pack reads the packed value,
//! and the per-half parameters nothing reads any more are removed with their arguments, so
//! the unpacks and `mov.b16` constants feeding them die. Only bits move: the packed value
//! holds exactly the two halves the pack would have put together.

use super::super::regalloc::{MFunction, RegKind, Term};
use crate::model::{build, Modifier, Opcode, Operand, Reg, Type};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// How a pair of f16 registers gets its packed value.
#[derive(Clone, Debug)]
enum Source {
    /// The register both halves were unpacked from.
    Unpack(Reg),
    /// Two constants: the b32 bits (low half in the low 16 bits).
    Const(u32),
    /// Parameters `i` (low) and `j` (high) of `block`; `deps` are the argument pairs of its
    /// incoming edges.
    Params { block: usize, i: usize, j: usize, deps: Vec<(Reg, Reg)> },
}

/// Where each f16 register is defined, as far as the rules care: the pairing's
/// definitions (unpacked halves, constants) and the f16 block parameters.
struct Origins {
    defs: super::Defs,
    param: HashMap<Reg, (usize, usize)>,
}

fn origins(mf: &MFunction) -> Origins {
    let mut param = HashMap::default();
    for (b, block) in mf.blocks.iter().enumerate() {
        for (k, &p) in block.params.iter().enumerate() {
            if p.kind == RegKind::B16 {
                param.insert(p, (b, k));
            }
        }
    }
    Origins { defs: super::defs(mf), param }
}

/// The argument pairs `(args[i], args[j])` of every edge into `block`.
fn incoming(mf: &MFunction, block: usize, i: usize, j: usize) -> Option<Vec<(Reg, Reg)>> {
    let mut out = Vec::new();
    for b in &mf.blocks {
        for t in b.term.targets() {
            if t.block.0 as usize == block {
                out.push((*t.args.get(i)?, *t.args.get(j)?));
            }
        }
    }
    Some(out)
}

/// Every pack `mov.b32 %d, {%lo, %hi}` of two f16 registers: `%d` and its halves.
fn packs(mf: &MFunction) -> Vec<(Reg, Reg, Reg)> {
    let mut out = Vec::new();
    for i in mf.blocks.iter().flat_map(|b| &b.insts) {
        if i.op != Opcode::Mov || i.guard.is_some() || i.mods != [Modifier::Type(Type::B32)] {
            continue;
        }
        if let [Operand::Reg(d), Operand::Vector(parts)] = i.operands.as_slice() {
            if let [Operand::Reg(lo), Operand::Reg(hi)] = parts.as_slice() {
                if lo.kind == RegKind::B16 && hi.kind == RegKind::B16 && d.kind == RegKind::B32 {
                    out.push((*d, *lo, *hi));
                }
            }
        }
    }
    out
}

/// The pairs reachable from the packs that have a packed value (module doc).
fn solve(mf: &MFunction, roots: &[(Reg, Reg)]) -> HashMap<(Reg, Reg), Source> {
    let o = origins(mf);
    let (half, konst) = (&o.defs.half, &o.defs.konst);
    let mut found: HashMap<(Reg, Reg), Option<Source>> = HashMap::default();
    let mut work: Vec<(Reg, Reg)> = roots.to_vec();
    while let Some(pair @ (lo, hi)) = work.pop() {
        if found.contains_key(&pair) {
            continue;
        }
        let src = match (half.get(&lo), half.get(&hi)) {
            (Some(&(w, 0)), Some(&(w2, 1))) if w == w2 && w.kind == RegKind::B32 => {
                Some(Source::Unpack(w))
            }
            _ => match (konst.get(&lo), konst.get(&hi), o.param.get(&lo), o.param.get(&hi)) {
                (Some(&a), Some(&b), _, _) => {
                    Some(Source::Const(u32::from(a) | u32::from(b) << 16))
                }
                (_, _, Some(&(b, i)), Some(&(b2, j))) if b == b2 => {
                    incoming(mf, b, i, j).map(|deps| {
                        work.extend(deps.iter().copied());
                        Source::Params { block: b, i, j, deps }
                    })
                }
                _ => None,
            },
        };
        found.insert(pair, src);
    }
    // Drop parameter pairs that reach a pair without a packed value, until none does.
    loop {
        let bad: Vec<(Reg, Reg)> = found
            .iter()
            .filter(|(_, s)| match s {
                Some(Source::Params { deps, .. }) => {
                    deps.iter().any(|d| !matches!(found.get(d), Some(Some(_))))
                }
                _ => false,
            })
            .map(|(p, _)| *p)
            .collect();
        if bad.is_empty() {
            break;
        }
        for p in bad {
            found.insert(p, None);
        }
    }
    found.into_iter().filter_map(|(p, s)| s.map(|s| (p, s))).collect()
}

/// Carries f16 pairs packed through block parameters and points packs at the packed values
/// (module doc). Registers whose definitions may now be dead go to `seeds`.
pub(crate) fn carry_packed(mf: &mut MFunction, seeds: &mut Vec<Reg>) {
    let packs = packs(mf);
    let roots: Vec<(Reg, Reg)> = packs.iter().map(|&(_, lo, hi)| (lo, hi)).collect();
    let solved = solve(mf, &roots);
    if !packs
        .iter()
        .any(|(_, lo, hi)| matches!(solved.get(&(*lo, *hi)), Some(Source::Params { .. })))
    {
        // Nothing crosses a join; direct unpack/pack pairs are `forward_packs`'s.
        return;
    }
    // A b32 parameter per parameter pair, in a fixed order (sorted) so output is stable.
    let mut new_params: Vec<((Reg, Reg), usize, usize, usize)> = solved
        .iter()
        .filter_map(|(&p, s)| match s {
            Source::Params { block, i, j, .. } => Some((p, *block, *i, *j)),
            _ => None,
        })
        .collect();
    new_params.sort_by_key(|&(p, b, i, j)| (b, i, j, p.0.num, p.1.num));
    let mut value: HashMap<(Reg, Reg), Reg> = HashMap::default();
    for (p, s) in &solved {
        if let Source::Unpack(w) = s {
            value.insert(*p, *w);
        }
    }
    let mut per_block: HashMap<usize, Vec<(usize, usize)>> = HashMap::default();
    for &(p, b, i, j) in &new_params {
        let r = mf.new_vreg(RegKind::B32);
        value.insert(p, r);
        if let Some(block) = mf.blocks.get_mut(b) {
            block.params.push(r);
        }
        per_block.entry(b).or_default().push((i, j));
    }
    // Arguments on every edge: the packed value of the edge's argument pair; constants are
    // materialized at the end of the predecessor.
    for b in 0..mf.blocks.len() {
        let Some(block) = mf.blocks.get(b) else { continue };
        let pairs: Vec<Vec<(Reg, Reg)>> = block
            .term
            .targets()
            .iter()
            .map(|t| {
                let list = per_block.get(&(t.block.0 as usize)).map(Vec::as_slice).unwrap_or(&[]);
                list.iter().filter_map(|&(i, j)| Some((*t.args.get(i)?, *t.args.get(j)?))).collect()
            })
            .collect();
        let mut defs = Vec::new();
        let mut extra: Vec<Vec<Reg>> = Vec::new();
        for list in pairs {
            let mut args = Vec::new();
            for pair in list {
                match (value.get(&pair), solved.get(&pair)) {
                    (Some(&v), _) => args.push(v),
                    (None, Some(Source::Const(bits))) => {
                        let k = mf.new_vreg(RegKind::B32);
                        defs.push(build::mov(Type::B32, k, Operand::ImmHex(u64::from(*bits))));
                        args.push(k);
                    }
                    // `solve` keeps a parameter pair only when every edge's pair has a value.
                    _ => {}
                }
            }
            extra.push(args);
        }
        let Some(block) = mf.blocks.get_mut(b) else { continue };
        block.insts.extend(defs);
        for (t, args) in block.term.targets_mut().into_iter().zip(extra) {
            t.args.extend(args);
        }
    }
    // Packs read the packed values: renamed where a register holds it, a constant otherwise.
    let mut rename: HashMap<Reg, Reg> = HashMap::default();
    let mut konst: HashMap<Reg, u32> = HashMap::default();
    for &(d, lo, hi) in &packs {
        match (value.get(&(lo, hi)), solved.get(&(lo, hi))) {
            (Some(&v), _) => {
                rename.insert(d, v);
            }
            (None, Some(Source::Const(bits))) => {
                konst.insert(d, *bits);
            }
            _ => continue,
        }
        seeds.extend([d, lo, hi]);
    }
    for block in &mut mf.blocks {
        for i in &mut block.insts {
            if let Some(Operand::Reg(d)) = i.operands.first() {
                if let (Some(&bits), true) = (konst.get(d), i.op == Opcode::Mov) {
                    *i = build::mov(Type::B32, *d, Operand::ImmHex(u64::from(bits)));
                    continue;
                }
            }
            super::rename_uses(i, &rename);
        }
        super::rename_term(&mut block.term, &rename);
    }
    // The packs nothing reads go first (they read the per-half parameters), then the per-half
    // parameters nothing reads, then what fed them.
    super::super::vectorize::delete_dead(mf, std::mem::take(seeds));
    remove_dead_params(mf, seeds);
}

/// Removes the f16 block parameters nothing reads (an instruction, a branch condition, or an
/// argument of a parameter that is read), with their arguments on every edge; the removed
/// arguments go to `seeds`.
fn remove_dead_params(mf: &mut MFunction, seeds: &mut Vec<Reg>) {
    let mut live: HashSet<Reg> = HashSet::default();
    let mut work = Vec::new();
    for block in &mf.blocks {
        for i in &block.insts {
            i.for_each_reg_access(|r, def| {
                if !def {
                    work.push(r);
                }
            });
        }
        if let Term::Branch { cond, .. } = &block.term {
            work.push(*cond);
        }
        // Only f16 parameters are candidates: every other parameter counts as read.
        for t in block.term.targets() {
            let params = mf.blocks.get(t.block.0 as usize).map(|b| b.params.as_slice());
            for (a, p) in t.args.iter().zip(params.unwrap_or(&[])) {
                if p.kind != RegKind::B16 {
                    work.push(*a);
                }
            }
        }
    }
    // A read parameter makes its arguments read.
    let mut param_at: HashMap<Reg, (usize, usize)> = HashMap::default();
    for (b, block) in mf.blocks.iter().enumerate() {
        for (k, &p) in block.params.iter().enumerate() {
            param_at.insert(p, (b, k));
        }
    }
    let mut edges: HashMap<usize, Vec<Vec<Reg>>> = HashMap::default();
    for block in &mf.blocks {
        for t in block.term.targets() {
            edges.entry(t.block.0 as usize).or_default().push(t.args.clone());
        }
    }
    while let Some(r) = work.pop() {
        if !live.insert(r) {
            continue;
        }
        if let Some(&(b, k)) = param_at.get(&r) {
            for args in edges.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(&a) = args.get(k) {
                    work.push(a);
                }
            }
        }
    }
    let dead: Vec<Vec<bool>> = mf
        .blocks
        .iter()
        .map(|b| b.params.iter().map(|p| p.kind == RegKind::B16 && !live.contains(p)).collect())
        .collect();
    for block in &mut mf.blocks {
        for t in block.term.targets_mut() {
            let Some(d) = dead.get(t.block.0 as usize) else { continue };
            let mut k = 0;
            t.args.retain(|a| {
                let keep = !d.get(k).copied().unwrap_or(false);
                if !keep {
                    seeds.push(*a);
                }
                k += 1;
                keep
            });
        }
    }
    for (block, d) in mf.blocks.iter_mut().zip(&dead) {
        let mut k = 0;
        block.params.retain(|_| {
            let keep = !d.get(k).copied().unwrap_or(false);
            k += 1;
            keep
        });
    }
}

#[cfg(test)]
mod tests;
