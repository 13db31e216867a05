//! Packed `f16x2` arithmetic: pairs of scalar f16 instructions on the two halves of packed
//! 32-bit registers become one `.f16x2` instruction, on the selected machine code
//! ([`MFunction`], SSA) before register allocation.
//!
//! Selection holds a `vec2<f16>` as two `%h` registers; a packed load (a `vec2<f16>` load
//! merged by [`super::vectorize`], a `bitcast` of a `u32`) unpacks a `%r` with
//! `mov.b32 {%h_lo, %h_hi}, %r`. Two instructions of the same form
//! (`add/sub/mul/neg/abs/min/max.f16`, `fma.rn.f16`), unguarded, where the first computes
//! lane 0 and the second lane 1, merge when every operand pair is
//!
//! * the low and high half of one unpacked register (at least one operand must be), or
//! * two constants (`mov.b16 %h, 0x....`), packed into one `mov.b32 %r, 0x....`, or
//! * one register used by both (packed with itself, `mov.b32 %r, {%h, %h}`).
//!
//! The result is computed where the earlier of the two was (every operand is defined
//! there: both halves come from one unpack that precedes both uses) and unpacked into the
//! old result registers, so nothing else changes. Rounds repeat, so a chain of operations
//! stays packed, and a `mov.b32 %d, {%c_lo, %c_hi}` of a packed result's halves (a packed
//! store's operand) reads the packed register itself. Unpacks and packs nothing reads any
//! more are deleted.
//!
//! Each `.f16x2` form computes each lane exactly as the scalar `.f16` form with the same
//! modifiers does (PTX ISA: `add`, `sub`, `mul`, `fma`, `neg`, `abs`, `min`, `max` on
//! `.f16x2`, `min`/`max` from sm_80), so results are bit-identical to the scalar path, with
//! or without `--fast-math` (which does not change these forms).

use super::regalloc::{MFunction, RegKind, Term};
use crate::model::{build, Instruction, Modifier, Opcode, Operand, Reg, Rounding, Type};
use rustc_hash::FxHashMap as HashMap;

/// Rounds of pairing (each one extends packed chains by one operation).
const MAX_ROUNDS: usize = 16;

/// An operand of a candidate, as the pairing sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Src {
    /// A half of an unpacked register (the lane is the candidate's).
    Half(Reg),
    /// A constant f16 (the bits differ per lane).
    Const,
    /// Any other register (must be the same in both lanes).
    Reg(Reg),
}

/// A scalar f16 instruction that may pair.
#[derive(Clone, Debug)]
struct Cand {
    pos: usize,
    lane: u8,
    dest: Reg,
    /// Per operand: the source class and, for constants, the bits.
    srcs: Vec<(Src, u16)>,
}

/// Whether `i` is a pairable scalar f16 form; its opcode and modifiers with `.f16x2`.
fn form(i: &Instruction) -> Option<Vec<Modifier>> {
    let ok_op = matches!(
        i.op,
        Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Fma
            | Opcode::Neg
            | Opcode::Abs
            | Opcode::Min
            | Opcode::Max
    );
    if !ok_op || i.guard.is_some() {
        return None;
    }
    let ty = Modifier::Type(Type::F16);
    let rn = Modifier::Round(Rounding::Rn);
    // Float add/sub/mul carry `.rn` (so that ptxas does not contract them); `.f16x2` keeps it.
    let rounded = matches!(i.op, Opcode::Add | Opcode::Sub | Opcode::Mul) && i.mods == [rn, ty];
    let plain = i.mods == [ty] || rounded;
    let fma = i.op == Opcode::Fma && i.mods == [rn, ty];
    if !(plain && i.op != Opcode::Fma || fma) {
        return None;
    }
    let arity = match i.op {
        Opcode::Neg | Opcode::Abs => 2,
        Opcode::Fma => 4,
        _ => 3,
    };
    let all_h = i.operands.iter().all(|o| matches!(o, Operand::Reg(r) if r.kind == RegKind::B16));
    if i.operands.len() != arity || !all_h {
        return None;
    }
    let mut m = i.mods.clone();
    if let Some(last) = m.last_mut() {
        *last = Modifier::Type(Type::F16x2);
    }
    Some(m)
}

/// What every register's definition says: halves of unpacks, f16 constants, packs.
#[derive(Default)]
struct Defs {
    half: HashMap<Reg, (Reg, u8)>,
    konst: HashMap<Reg, u16>,
    /// `mov.b32 %d, {%lo, %hi}`: `%d` to its halves.
    pack: HashMap<Reg, (Reg, Reg)>,
}

fn defs(mf: &MFunction) -> Defs {
    let mut d = Defs::default();
    for i in mf.blocks.iter().flat_map(|b| &b.insts) {
        d.note(i);
    }
    d
}

impl Defs {
    /// Records what `i` defines, when it is an unguarded unpack, pack or f16 constant.
    fn note(&mut self, i: &Instruction) {
        if i.op != Opcode::Mov || i.guard.is_some() {
            return;
        }
        match (i.mods.as_slice(), i.operands.as_slice()) {
            ([Modifier::Type(Type::B32)], [Operand::Vector(parts), Operand::Reg(w)]) => {
                if let [Operand::Reg(lo), Operand::Reg(hi)] = parts.as_slice() {
                    self.half.insert(*lo, (*w, 0));
                    self.half.insert(*hi, (*w, 1));
                }
            }
            ([Modifier::Type(Type::B32)], [Operand::Reg(dst), Operand::Vector(parts)]) => {
                if let [Operand::Reg(lo), Operand::Reg(hi)] = parts.as_slice() {
                    self.pack.insert(*dst, (*lo, *hi));
                }
            }
            ([Modifier::Type(Type::B16)], [Operand::Reg(h), Operand::ImmHex(v)]) => {
                if let Ok(bits) = u16::try_from(*v) {
                    self.konst.insert(*h, bits);
                }
            }
            _ => {}
        }
    }
}

/// The candidate view of `i` at `pos`, when it computes one lane.
fn cand(i: &Instruction, pos: usize, d: &Defs) -> Option<Cand> {
    form(i)?;
    let Some(Operand::Reg(dest)) = i.operands.first() else { return None };
    let mut lane = None;
    let mut srcs = Vec::new();
    for o in i.operands.iter().skip(1) {
        let Operand::Reg(r) = o else { return None };
        if let Some(&(w, l)) = d.half.get(r) {
            if lane.is_some_and(|x| x != l) {
                return None;
            }
            lane = Some(l);
            srcs.push((Src::Half(w), 0));
        } else if let Some(&bits) = d.konst.get(r) {
            srcs.push((Src::Const, bits));
        } else {
            srcs.push((Src::Reg(*r), 0));
        }
    }
    Some(Cand { pos, lane: lane?, dest: *dest, srcs })
}

/// Pairs candidates in every block; whether anything changed.
fn round(mf: &mut MFunction, seeds: &mut Vec<Reg>) -> bool {
    let d = defs(mf);
    let mut changed = false;
    for b in 0..mf.blocks.len() {
        // Taken out of the block (not cloned) while `mf` makes registers; put back unchanged
        // when nothing pairs.
        let Some(block) = mf.blocks.get_mut(b) else { continue };
        let insts = std::mem::take(&mut block.insts);
        // Lane-0 candidates waiting for a partner, by form and operand classes.
        type Key = (Opcode, Vec<Modifier>, Vec<Src>);
        let mut waiting: HashMap<Key, Vec<Cand>> = HashMap::default();
        let mut lane1: Vec<(Key, Cand)> = Vec::new();
        for (pos, i) in insts.iter().enumerate() {
            let Some(c) = cand(i, pos, &d) else { continue };
            let key = (i.op, i.mods.clone(), c.srcs.iter().map(|s| s.0).collect());
            if c.lane == 0 {
                waiting.entry(key).or_default().push(c);
            } else {
                lane1.push((key, c));
            }
        }
        let mut placed: HashMap<usize, Vec<Instruction>> = HashMap::default();
        let mut removed = vec![false; insts.len()];
        for (key, hi) in lane1 {
            let Some(list) = waiting.get_mut(&key) else { continue };
            if list.is_empty() {
                continue;
            }
            let lo = list.remove(0);
            let Some(mods) = insts.get(lo.pos).and_then(form) else { continue };
            let at = lo.pos.min(hi.pos);
            let mut new = Vec::new();
            let mut ops = Vec::new();
            for ((s, lo_bits), (_, hi_bits)) in lo.srcs.iter().zip(&hi.srcs) {
                match s {
                    Src::Half(w) => ops.push(Operand::Reg(*w)),
                    Src::Const => {
                        let k = mf.new_vreg(RegKind::B32);
                        let bits = u64::from(*lo_bits) | u64::from(*hi_bits) << 16;
                        new.push(build::mov(Type::B32, k, Operand::ImmHex(bits)));
                        ops.push(Operand::Reg(k));
                    }
                    Src::Reg(r) => {
                        let k = mf.new_vreg(RegKind::B32);
                        new.push(build::pack(Type::B32, k, &[*r, *r]));
                        ops.push(Operand::Reg(k));
                    }
                }
            }
            let c = mf.new_vreg(RegKind::B32);
            let mut operands = vec![Operand::Reg(c)];
            operands.extend(ops);
            new.push(Instruction::new(key.0, mods, operands));
            new.push(build::unpack(Type::B32, &[lo.dest, hi.dest], c));
            seeds.extend([lo.dest, hi.dest]);
            for p in [lo.pos, hi.pos] {
                if let Some(r) = removed.get_mut(p) {
                    *r = true;
                }
                if let Some(i) = insts.get(p) {
                    i.operands.iter().skip(1).for_each(|o| o.for_each_reg(&mut |r| seeds.push(r)));
                }
            }
            placed.insert(at, new);
            changed = true;
        }
        if placed.is_empty() {
            if let Some(block) = mf.blocks.get_mut(b) {
                block.insts = insts;
            }
            continue;
        }
        let mut out = Vec::with_capacity(insts.len());
        for (p, i) in insts.into_iter().enumerate() {
            if let Some(v) = placed.remove(&p) {
                out.extend(v);
            }
            if !removed.get(p).copied().unwrap_or(false) {
                out.push(i);
            }
        }
        if let Some(block) = mf.blocks.get_mut(b) {
            block.insts = out;
        }
    }
    changed
}

/// Reads packed registers directly where a pack rebuilds one from its own halves: every use
/// of `%d` in `mov.b32 %d, {%lo, %hi}`, where `%lo`/`%hi` are lanes 0/1 of unpacked `%w`,
/// becomes `%w`.
fn forward_packs(mf: &mut MFunction, seeds: &mut Vec<Reg>) {
    let d = defs(mf);
    let mut rename: HashMap<Reg, Reg> = HashMap::default();
    for (&dst, &(lo, hi)) in &d.pack {
        if let (Some(&(w, 0)), Some(&(w2, 1))) = (d.half.get(&lo), d.half.get(&hi)) {
            if w == w2 && w.kind == dst.kind {
                rename.insert(dst, w);
                seeds.extend([dst, lo, hi]);
            }
        }
    }
    if rename.is_empty() {
        return;
    }
    for block in &mut mf.blocks {
        for i in &mut block.insts {
            rename_uses(i, &rename);
        }
        rename_term(&mut block.term, &rename);
    }
}

/// Renames the registers `i` reads (not the one it writes) through `rename`.
fn rename_uses(i: &mut Instruction, rename: &HashMap<Reg, Reg>) {
    let map = |r: &mut Reg| rename_reg(r, rename);
    let writes = i.writes_first_operand();
    if let Some(g) = &mut i.guard {
        map(&mut g.reg);
    }
    for (k, o) in i.operands.iter_mut().enumerate() {
        if !(writes && k == 0) {
            o.for_each_reg_mut(&mut |r| map(r));
        }
    }
}

/// Renames the registers terminator `t` reads (branch condition, edge arguments).
fn rename_term(t: &mut Term, rename: &HashMap<Reg, Reg>) {
    let map = |r: &mut Reg| rename_reg(r, rename);
    match t {
        Term::Ret => {}
        Term::Jump(t) => t.args.iter_mut().for_each(map),
        Term::Branch { cond, then_, else_ } => {
            map(cond);
            then_.args.iter_mut().chain(else_.args.iter_mut()).for_each(map);
        }
    }
}

fn rename_reg(r: &mut Reg, rename: &HashMap<Reg, Reg>) {
    if let Some(n) = rename.get(r) {
        *r = *n;
    }
}

/// Packs f16 pairs in `mf` (module doc).
pub(crate) fn pack_f16(mf: &mut MFunction) {
    let mut seeds = Vec::new();
    for _ in 0..MAX_ROUNDS {
        if !round(mf, &mut seeds) {
            break;
        }
    }
    // Also without any pairing: a packed load stored packed (`vec2<f16>` copies, staging).
    forward_packs(mf, &mut seeds);
    // Pairs that cross joins (block parameters) stay packed.
    params::carry_packed(mf, &mut seeds);
    super::vectorize::delete_dead(mf, seeds);
}

mod params;
#[cfg(test)]
mod tests;
