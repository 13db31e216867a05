//! Vectorized memory accesses: adjacent scalar `ld`/`st` of `.global` and `.shared` memory
//! merged into `.v2`/`.v4` accesses of up to 16 bytes, on the selected machine code
//! ([`MFunction`], virtual registers in SSA form) before register allocation.
//!
//! # Addresses
//!
//! Selection records an [`AddrFact`] for every pointer register it builds ([`AddrFacts`]): the
//! register's address is `K + offset`, where the key `K` is a root (a buffer parameter
//! register, a workgroup variable) plus a list of `index * stride` terms, and `K`'s alignment
//! is proven ([`super::align`], docs/abi.md: a workgroup variable is `.align ≥ 16`, a buffer only
//! its binding type's alignment). An index `x + k` with a constant `k` counts as the term
//! `x * stride` and the offset `k * stride` only when `k` is below the proven power of two
//! dividing `x`: then `x + k == x | k` never wraps in 32 bits, so `(x + k) * stride` (a
//! `mul.wide`) is exactly `x * stride + k * stride`. Accesses with the same key therefore
//! differ by known constants; accesses with different keys may alias.
//!
//! # When accesses merge
//!
//! Candidates are unguarded plain `ld/st.{global,shared}` of one 32-bit or 16-bit value in a
//! register (no `.relaxed`/`.volatile`, cache operator or vector width) whose address register
//! has a fact. Within one basic block, and per state space:
//!
//! * barriers, fences, atomics (`atom`, `red`), calls and `ret`/`exit`/`trap` end every run;
//! * a load run (loads move up to the first member) ends at any store that may touch the space
//!   (same space or generic); other loads do not end it;
//! * a store run (stores move down to the last member) ends at any load that may touch the space,
//!   any store that is not a candidate, any candidate store with another key or element size, and
//!   a second store to an offset already in the run; so no store moves past an access that may
//!   alias it, and the last write to each byte stays last.
//!
//! Different state spaces never alias (`.global` and `.shared` are distinct memories; a generic
//! access counts as both). Within a run, members with the same key and element size are sorted
//! by offset and split greedily from the lowest offset into the widest chunk of consecutive
//! elements whose first address is proven aligned to the chunk size: 16, 8 bytes (`.v4`,
//! `.v2` of b32) for 32-bit values; 16, 8, 4 bytes for f16 values, packed in pairs into b32
//! words (`mov.b32 %r, {%h0, %h1}` before a store, `mov.b32 {%h0, %h1}, %r` after a load, the
//! lower address in the low half as in little-endian memory). Only bits move; no value
//! changes. The address computations the merged members no longer use are deleted.

use super::align::{lowbit, KnownAlign};
use super::regalloc::{MFunction, RegKind, Term};
use crate::model::{build, AddrBase, Address, Instruction, Modifier, Opcode, Operand, Reg};
use crate::model::{StateSpace, Type};
use dianran_frontend::ir::{BinaryOperator, GlobalId, Op, ValueId};
use rustc_hash::FxHashMap as HashMap;

/// Where a chain of address arithmetic starts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Root {
    /// A register the facts know nothing more about (a buffer parameter).
    Reg(Reg),
    /// A workgroup variable (each use materializes its own `mov.u64 %rd, name`).
    Global(GlobalId),
}

/// The symbolic base of an address: a root plus `index * stride` terms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    root: Root,
    terms: Vec<(ValueId, u32)>,
}

/// A pointer register's address as `key + offset`, and a power of two dividing `key`.
#[derive(Clone, Debug)]
pub(crate) struct AddrFact {
    key: Key,
    offset: i64,
    align: u32,
}

/// Address facts of pointer registers, recorded during instruction selection.
#[derive(Clone, Debug, Default)]
pub(crate) struct AddrFacts {
    facts: HashMap<Reg, AddrFact>,
}

impl AddrFacts {
    /// `addr` holds the address of workgroup variable `g`, aligned to `align`.
    pub(crate) fn global(&mut self, addr: Reg, g: GlobalId, align: u32) {
        let key = Key { root: Root::Global(g), terms: Vec::new() };
        self.facts.insert(addr, AddrFact { key, offset: 0, align });
    }

    /// The fact for `addr`, a root of its own (aligned to `align`) when none was recorded.
    fn of(&self, addr: Reg, align: u32) -> AddrFact {
        self.facts.get(&addr).cloned().unwrap_or(AddrFact {
            key: Key { root: Root::Reg(addr), terms: Vec::new() },
            offset: 0,
            align,
        })
    }

    /// `addr` is dereferenced with proven alignment `align`: records it as a root unless a
    /// fact already describes it.
    pub(crate) fn touch(&mut self, addr: Reg, align: u32) {
        let f = self.of(addr, align);
        self.facts.entry(addr).or_insert(f);
    }

    /// `new = from + off`, where `from` is aligned to `align`.
    pub(crate) fn offset(&mut self, new: Reg, from: Reg, align: u32, off: u32) {
        let mut f = self.of(from, align);
        f.offset += i64::from(off);
        self.facts.insert(new, f);
    }

    /// `new = ptr + idx * stride` (a `mul.wide.u32` and an `add.s64`), `ptr` aligned to
    /// `align`. `idx = x + k` splits into the term `x` and the offset `k * stride` when that
    /// is exact (module doc).
    pub(crate) fn access(
        &mut self,
        new: Reg,
        ptr: Reg,
        align: u32,
        stride: u32,
        idx: ValueId,
        known: &KnownAlign,
    ) {
        let mut f = self.of(ptr, align);
        let (x, k) = split_index(idx, known);
        let term_align = lowbit(stride).saturating_mul(known.pow2(x));
        f.align = f.align.min(term_align);
        f.offset += i64::from(k) * i64::from(stride);
        f.key.terms.push((x, stride));
        self.facts.insert(new, f);
    }
}

/// `idx` as `x + k` with `k` below the power of two proven to divide `x` (so the sum cannot
/// wrap), or `(idx, 0)`.
fn split_index(idx: ValueId, known: &KnownAlign) -> (ValueId, u32) {
    let mut x = idx;
    let mut k: u64 = 0;
    // A few nested `+ const` steps (`base + 4u + 1u`); deeper chains stay whole.
    for _ in 0..4 {
        let Some(Op::Binary(BinaryOperator::Add, a, b)) = known.def(x) else { break };
        let (inner, c) = match (known.constant(*a), known.constant(*b)) {
            (_, Some(c)) => (*a, c),
            (Some(c), None) => (*b, c),
            (None, None) => break,
        };
        x = inner;
        k += u64::from(c);
    }
    if k == 0 || k >= u64::from(known.pow2(x)) {
        return (idx, 0);
    }
    (x, k as u32)
}

/// A candidate access.
#[derive(Clone, Debug)]
struct Mem {
    pos: usize,
    load: bool,
    ty: Type,
    /// Element size in bytes (2 or 4).
    size: i64,
    /// The loaded register or the stored value.
    val: Reg,
    addr: Reg,
    disp: i64,
    key: usize,
    /// Offset from the key.
    off: i64,
}

/// What an instruction means for the runs of one state space.
enum Class {
    /// Neither reads nor writes memory.
    Pure,
    /// Ends every run.
    Fence,
    /// A candidate access in this space.
    Cand(Mem),
    /// Another load that may read this space.
    OtherLoad,
    /// Another store that may write this space.
    OtherStore,
}

/// Interned keys and their alignments.
#[derive(Default)]
struct Keys {
    keys: Vec<Key>,
    align: Vec<u32>,
}

impl Keys {
    fn intern(&mut self, k: &Key, align: u32) -> usize {
        if let Some(i) = self.keys.iter().position(|x| x == k) {
            if let Some(a) = self.align.get_mut(i) {
                *a = (*a).min(align);
            }
            return i;
        }
        self.keys.push(k.clone());
        self.align.push(align);
        self.keys.len() - 1
    }
}

fn space_of(i: &Instruction) -> StateSpace {
    i.find_mod(|m| if let Modifier::Space(s) = m { Some(*s) } else { None })
        .unwrap_or(StateSpace::Generic)
}

fn classify(i: &Instruction, space: StateSpace, facts: &AddrFacts, keys: &mut Keys) -> Class {
    match i.op {
        Opcode::Atom
        | Opcode::Red
        | Opcode::Bar
        | Opcode::Barrier
        | Opcode::Membar
        | Opcode::Fence
        | Opcode::Call
        | Opcode::Ret
        | Opcode::Exit
        | Opcode::Trap
        // Asynchronous copies and products read and write memory on their own schedule: no
        // load or store moves across one (or across their waits).
        | Opcode::Cp
        | Opcode::Wgmma => return Class::Fence,
        Opcode::Ld | Opcode::St | Opcode::Ldmatrix => {}
        _ => return Class::Pure,
    }
    let s = space_of(i);
    if s != space && s != StateSpace::Generic {
        return Class::Pure;
    }
    let load = i.op != Opcode::St;
    let other = if load { Class::OtherLoad } else { Class::OtherStore };
    if i.op == Opcode::Ldmatrix || i.guard.is_some() || i.mods.len() != 2 || s != space {
        return other;
    }
    let Some(ty) = i.types().next() else { return other };
    let (size, kind) = match ty {
        Type::U32 | Type::S32 | Type::B32 | Type::F32 => (4, RegKind::B32),
        Type::U16 | Type::S16 | Type::B16 | Type::F16 => (2, RegKind::B16),
        _ => return other,
    };
    let (val, addr) = match (i.operands.first(), i.operands.get(1), load) {
        (Some(Operand::Reg(d)), Some(Operand::Address(a)), true) => (*d, a),
        (Some(Operand::Address(a)), Some(Operand::Reg(v)), false) => (*v, a),
        _ => return other,
    };
    let Address { base: AddrBase::Reg(base), offset: disp } = addr else { return other };
    let Some(f) = facts.facts.get(base) else { return other };
    if val.kind != kind {
        return other;
    }
    let key = keys.intern(&f.key, f.align);
    Class::Cand(Mem {
        pos: 0,
        load,
        ty,
        size,
        val,
        addr: *base,
        disp: *disp,
        key,
        off: f.offset + disp,
    })
}

/// A merged access replacing some members of a run.
struct Chunk {
    /// Positions of the replaced instructions.
    members: Vec<usize>,
    /// Where the new instructions go (one of `members`).
    at: usize,
    insts: Vec<Instruction>,
}

/// The alignment proven for `key + off`.
fn align_at(key_align: u32, off: i64) -> i64 {
    let low = if off == 0 { i64::MAX } else { 1i64 << off.trailing_zeros() };
    low.min(i64::from(key_align))
}

/// Splits one group (same key and element size) into chunks.
fn chunks(
    mut group: Vec<Mem>,
    key_align: u32,
    space: StateSpace,
    def_pos: &HashMap<Reg, usize>,
    mf: &mut MFunction,
    out: &mut Vec<Chunk>,
) {
    group.sort_by_key(|m| (m.off, m.pos));
    let size = group.first().map_or(4, |m| m.size);
    let widths: &[i64] = if size == 4 { &[16, 8] } else { &[16, 8, 4] };
    let mut i = 0;
    while i < group.len() {
        let o = group[i].off;
        let fits = |w: i64| {
            let n = (w / size) as usize;
            align_at(key_align, o) >= w
                && i + n <= group.len()
                && (0..n).all(|j| group[i + j].off == o + j as i64 * size)
        };
        let Some(&w) = widths.iter().find(|&&w| fits(w)) else {
            i += 1;
            continue;
        };
        let n = (w / size) as usize;
        let members = &group[i..i + n];
        out.push(emit(members, space, def_pos, mf));
        i += n;
    }
}

/// The merged access for `members` (sorted by offset, consecutive, aligned).
fn emit(
    members: &[Mem],
    space: StateSpace,
    def_pos: &HashMap<Reg, usize>,
    mf: &mut MFunction,
) -> Chunk {
    let load = members.first().is_some_and(|m| m.load);
    let positions: Vec<usize> = members.iter().map(|m| m.pos).collect();
    // Loads go where the first of them was, stores where the last was.
    let at = if load {
        members.iter().map(|m| m.pos).min()
    } else {
        members.iter().map(|m| m.pos).max()
    };
    let (Some(at), Some(first)) = (at, members.first()) else {
        return Chunk { members: Vec::new(), at: 0, insts: Vec::new() };
    };
    // The address: from the lowest member's register when it is defined before `at` (always
    // for stores: every member's address precedes its own store), else from the register of
    // the member at `at`.
    let early = |m: &Mem| def_pos.get(&m.addr).is_none_or(|&p| p < at);
    let anchor = members.iter().find(|m| early(m)).unwrap_or(first);
    let addr = Operand::addr(anchor.addr, anchor.disp + (first.off - anchor.off));
    let vals: Vec<Reg> = members.iter().map(|m| m.val).collect();
    let mut insts = Vec::new();
    if first.size == 4 {
        let same = members.iter().all(|m| m.ty == first.ty);
        let ty = if same { first.ty } else { Type::B32 };
        insts.push(if load {
            build::ld_vec(space, ty, &vals, addr)
        } else {
            build::st_vec(space, ty, addr, &vals)
        });
    } else {
        let words: Vec<Reg> = vals.chunks(2).map(|_| mf.new_vreg(RegKind::B32)).collect();
        let one = |words: &[Reg]| words.first().copied().unwrap_or(Reg::b32(0));
        if load {
            insts.push(if words.len() == 1 {
                build::ld(space, Type::B32, one(&words), addr)
            } else {
                build::ld_vec(space, Type::B32, &words, addr)
            });
            for (w, pair) in words.iter().zip(vals.chunks(2)) {
                insts.push(build::unpack(Type::B32, pair, *w));
            }
        } else {
            for (w, pair) in words.iter().zip(vals.chunks(2)) {
                insts.push(build::pack(Type::B32, *w, pair));
            }
            insts.push(if words.len() == 1 {
                build::st(space, Type::B32, addr, one(&words))
            } else {
                build::st_vec(space, Type::B32, addr, &words)
            });
        }
    }
    Chunk { members: positions, at, insts }
}

/// Merges the runs of one state space in one block.
fn block_space(
    insts: &[Instruction],
    space: StateSpace,
    facts: &AddrFacts,
    mf: &mut MFunction,
    out: &mut Vec<Chunk>,
) {
    let mut keys = Keys::default();
    // Where this block defines each register.
    let mut def_pos: HashMap<Reg, usize> = HashMap::default();
    for (p, i) in insts.iter().enumerate() {
        i.for_each_reg_access(|r, def| {
            if def {
                def_pos.insert(r, p);
            }
        });
    }
    let mut loads: Vec<Mem> = Vec::new();
    let mut stores: Vec<Mem> = Vec::new();
    let flush = |run: &mut Vec<Mem>, keys: &Keys, mf: &mut MFunction, out: &mut Vec<Chunk>| {
        let mut groups: Vec<Vec<Mem>> = Vec::new();
        for m in run.drain(..) {
            match groups
                .iter_mut()
                .find(|g| g.first().is_some_and(|f| f.key == m.key && f.size == m.size))
            {
                Some(g) => g.push(m),
                None => groups.push(vec![m]),
            }
        }
        for g in groups {
            if g.len() < 2 {
                continue;
            }
            let ka = g.first().and_then(|m| keys.align.get(m.key)).copied().unwrap_or(1);
            chunks(g, ka, space, &def_pos, mf, out);
        }
    };
    for (pos, i) in insts.iter().enumerate() {
        match classify(i, space, facts, &mut keys) {
            Class::Pure => {}
            Class::Fence => {
                flush(&mut loads, &keys, mf, out);
                flush(&mut stores, &keys, mf, out);
            }
            Class::OtherLoad => flush(&mut stores, &keys, mf, out),
            Class::OtherStore => {
                flush(&mut loads, &keys, mf, out);
                flush(&mut stores, &keys, mf, out);
            }
            Class::Cand(mut m) => {
                m.pos = pos;
                if m.load {
                    flush(&mut stores, &keys, mf, out);
                    loads.push(m);
                } else {
                    flush(&mut loads, &keys, mf, out);
                    let breaks = stores.first().is_some_and(|f| f.key != m.key || f.size != m.size)
                        || stores.iter().any(|s| s.off < m.off + m.size && m.off < s.off + s.size);
                    if breaks {
                        flush(&mut stores, &keys, mf, out);
                    }
                    stores.push(m);
                }
            }
        }
    }
    flush(&mut loads, &keys, mf, out);
    flush(&mut stores, &keys, mf, out);
}

/// Merges adjacent accesses in every block of `mf` (module doc), then deletes the address
/// arithmetic that only the merged accesses used.
pub(crate) fn vectorize(mf: &mut MFunction, facts: &AddrFacts) {
    let mut freed: Vec<Reg> = Vec::new();
    for b in 0..mf.blocks.len() {
        // Taken out of the block (not cloned) while `mf` makes registers; put back unchanged
        // when nothing merges.
        let insts = match mf.blocks.get_mut(b) {
            Some(block) => std::mem::take(&mut block.insts),
            None => continue,
        };
        let mut out = Vec::new();
        for space in [StateSpace::Global, StateSpace::Shared] {
            block_space(&insts, space, facts, mf, &mut out);
        }
        if out.is_empty() {
            if let Some(block) = mf.blocks.get_mut(b) {
                block.insts = insts;
            }
            continue;
        }
        let mut removed = vec![false; insts.len()];
        let mut placed: HashMap<usize, Vec<Instruction>> = HashMap::default();
        for c in out {
            for &p in &c.members {
                if let Some(r) = removed.get_mut(p) {
                    *r = true;
                }
            }
            placed.insert(c.at, c.insts);
        }
        let mut new = Vec::with_capacity(insts.len());
        for (p, i) in insts.into_iter().enumerate() {
            if let Some(v) = placed.remove(&p) {
                new.extend(v);
            }
            if removed.get(p).copied().unwrap_or(false) {
                if let Some(Operand::Address(Address { base: AddrBase::Reg(r), .. })) =
                    i.operands.iter().find(|o| matches!(o, Operand::Address(_)))
                {
                    freed.push(*r);
                }
            } else {
                new.push(i);
            }
        }
        if let Some(block) = mf.blocks.get_mut(b) {
            block.insts = new;
        }
    }
    delete_dead(mf, freed);
}

/// Whether `i` has no effect but its destination registers (which may then be deleted when
/// nothing reads them).
fn removable(i: &Instruction) -> bool {
    let pure = matches!(
        i.op,
        Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Mad
            | Opcode::Shl
            | Opcode::Shr
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Not
            | Opcode::Min
            | Opcode::Max
            | Opcode::Selp
            | Opcode::Setp
            | Opcode::Mov
            | Opcode::Cvt
            | Opcode::Cvta
    );
    let dest = match i.operands.first() {
        Some(Operand::Reg(_)) => true,
        // Unpacks: `mov.b32 {%h0, %h1}, %r`.
        Some(Operand::Vector(v)) => {
            i.op == Opcode::Mov && v.iter().all(|o| matches!(o, Operand::Reg(_)))
        }
        _ => false,
    };
    pure && dest && i.guard.is_none()
}

/// Deletes every [`removable`] instruction whose results nothing reads, transitively.
pub(crate) fn delete_unread(mf: &mut MFunction) {
    let mut defined = Vec::new();
    for i in mf.blocks.iter().flat_map(|b| &b.insts) {
        i.for_each_reg_access(|r, def| {
            if def {
                defined.push(r);
            }
        });
    }
    delete_dead(mf, defined);
}

/// Deletes the definitions of `regs` (and transitively of their operands) when nothing reads
/// any register they define.
pub(crate) fn delete_dead(mf: &mut MFunction, mut work: Vec<Reg>) {
    if work.is_empty() {
        return;
    }
    let mut uses: HashMap<Reg, u32> = HashMap::default();
    let mut defs: HashMap<Reg, (usize, usize)> = HashMap::default();
    for (b, block) in mf.blocks.iter().enumerate() {
        for (k, i) in block.insts.iter().enumerate() {
            i.for_each_reg_access(|r, def| {
                if def {
                    defs.insert(r, (b, k));
                } else {
                    *uses.entry(r).or_default() += 1;
                }
            });
        }
        let mut term_use = |r: Reg| *uses.entry(r).or_default() += 1;
        match &block.term {
            Term::Ret => {}
            Term::Jump(t) => t.args.iter().for_each(|&r| term_use(r)),
            Term::Branch { cond, then_, else_ } => {
                term_use(*cond);
                then_.args.iter().chain(&else_.args).for_each(|&r| term_use(r));
            }
        }
    }
    let mut dead: Vec<Vec<bool>> = mf.blocks.iter().map(|b| vec![false; b.insts.len()]).collect();
    while let Some(r) = work.pop() {
        if uses.get(&r).copied().unwrap_or(0) > 0 {
            continue;
        }
        let Some(&(b, k)) = defs.get(&r) else { continue };
        let Some(i) = mf.blocks.get(b).and_then(|bl| bl.insts.get(k)) else { continue };
        let mut read = false;
        i.for_each_reg_access(|d, def| read |= def && uses.get(&d).copied().unwrap_or(0) > 0);
        let flag = dead.get_mut(b).and_then(|d| d.get_mut(k));
        match flag {
            Some(f) if !*f && !read && removable(i) => *f = true,
            _ => continue,
        }
        i.for_each_reg_access(|s, def| {
            if !def {
                if let Some(u) = uses.get_mut(&s) {
                    *u = u.saturating_sub(1);
                }
                work.push(s);
            }
        });
    }
    for (block, d) in mf.blocks.iter_mut().zip(dead) {
        let mut it = d.into_iter();
        block.insts.retain(|_| !it.next().unwrap_or(false));
    }
}

#[cfg(test)]
mod tests;
