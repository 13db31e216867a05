//! Machine-level control-flow graph and register assignment with regalloc2 (docs/targets.md, docs/ptx.md).
//!
//! Instruction selection produces an [`MFunction`]: basic blocks with block parameters,
//! straight-line [`MInst`]s on typed virtual registers and one [`Term`] per block. [`allocate`]
//! splits critical edges, drops unreachable blocks and runs regalloc2 twice over the same CFG:
//! run A allocates `%r` (class Int), `%rd` (Float) and `%h` (Vector); run B allocates `%p`
//! (Int). PTX registers are virtual, so a regalloc2 spill slot is only another register name of
//! the same kind: slot `k` becomes register number `63 + k` (`PReg` numbers 0..=62 are the
//! allocatable ones; 63 in class Int is regalloc2's invalid marker). Nothing goes to `.local`.
//!
//! The result, [`Allocated`], holds the same blocks with physical register numbers and the
//! moves regalloc2 inserted (block-argument copies, cycle breaking, live-range splits).

use crate::model::{build, Instruction, Reg, Statement};
use regalloc2 as ra;

/// The register kinds are the PTX model's: one definition of `%p/%h/%r/%rd`.
pub use crate::model::RegKind;

/// The regalloc2 class in the run a kind is allocated in (A for all but `Pred`).
fn class(k: RegKind) -> ra::RegClass {
    match k {
        RegKind::Pred | RegKind::B32 => ra::RegClass::Int,
        RegKind::B64 => ra::RegClass::Float,
        RegKind::B16 => ra::RegClass::Vector,
    }
}

/// The kind of a register of `class` in the run that allocates predicates (`pred_run`) or not.
fn from_class(class: ra::RegClass, pred_run: bool) -> RegKind {
    match (class, pred_run) {
        (_, true) => RegKind::Pred,
        (ra::RegClass::Int, false) => RegKind::B32,
        (ra::RegClass::Float, false) => RegKind::B64,
        (ra::RegClass::Vector, false) => RegKind::B16,
    }
}

/// A virtual register of an [`MFunction`]: a model register whose number indexes
/// [`MFunction::kinds`] (numbers are unique across kinds until allocation renumbers them).
pub type VRegId = crate::model::Reg;

/// A basic block of an [`MFunction`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// One selected instruction on virtual registers. Its regalloc2 operands are derived from it:
/// the registers of a destination operand are defs, every other register (guard, sources,
/// address bases) a use ([`Instruction::for_each_reg_access`]).
pub type MInst = Instruction;

/// A branch target with the arguments bound to the target's block parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Destination block.
    pub block: BlockId,
    /// One argument per parameter of `block`.
    pub args: Vec<VRegId>,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// `ret;`
    Ret,
    /// `bra target;`
    Jump(Target),
    /// `@cond bra then_; bra else_;` (`@!cond` when `negate`).
    Branch {
        /// A predicate register.
        cond: VRegId,
        /// Taken when `cond` is true.
        then_: Target,
        /// Taken otherwise.
        else_: Target,
    },
}

impl Term {
    pub(crate) fn targets(&self) -> Vec<&Target> {
        match self {
            Term::Ret => Vec::new(),
            Term::Jump(t) => vec![t],
            Term::Branch { then_, else_, .. } => vec![then_, else_],
        }
    }
    pub(crate) fn targets_mut(&mut self) -> Vec<&mut Target> {
        match self {
            Term::Ret => Vec::new(),
            Term::Jump(t) => vec![t],
            Term::Branch { then_, else_, .. } => vec![then_, else_],
        }
    }
}

/// A basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MBlock {
    /// Block parameters (SSA phis); the entry block has none.
    pub params: Vec<VRegId>,
    /// Straight-line instructions.
    pub insts: Vec<MInst>,
    /// The terminator.
    pub term: Term,
}

/// A function on virtual registers in SSA form; block 0 is the entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MFunction {
    /// Blocks; `BlockId(i)` is `blocks[i]`.
    pub blocks: Vec<MBlock>,
    /// Kind of every virtual register, indexed by [`VRegId`].
    pub kinds: Vec<RegKind>,
    /// Blocks whose `Branch` has the same outcome on every thread (`bra.uni`).
    pub uniform_branches: Vec<BlockId>,
}

impl MFunction {
    /// A new virtual register of `kind`.
    pub fn new_vreg(&mut self, kind: RegKind) -> VRegId {
        self.kinds.push(kind);
        Reg { kind, num: self.kinds.len() as u32 - 1 }
    }
    /// A new empty block ending in `ret` (the caller sets the real terminator).
    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(MBlock { params: Vec::new(), insts: Vec::new(), term: Term::Ret });
        BlockId(self.blocks.len() as u32 - 1)
    }
    /// Kind of a register.
    pub fn kind(&self, v: VRegId) -> RegKind {
        v.kind
    }
}

/// A physical register: kind and number (the model's register).
pub type PhysReg = Reg;

/// An instruction after allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AInst {
    /// A selected instruction on physical registers.
    Inst(Instruction),
    /// A register copy inserted by the allocator (`mov` of the kind).
    Move {
        /// Destination.
        to: PhysReg,
        /// Source.
        from: PhysReg,
    },
}

/// A terminator after allocation (arguments became moves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ATerm {
    /// `ret;`
    Ret,
    /// `bra`.
    Jump(usize),
    /// Conditional branch.
    Branch {
        /// Predicate register.
        cond: PhysReg,
        /// Block index when true.
        then_: usize,
        /// Block index when false.
        else_: usize,
        /// Whether every thread takes the same side (`bra.uni`).
        uniform: bool,
    },
}

/// A block after allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ABlock {
    /// Instructions and moves in order.
    pub insts: Vec<AInst>,
    /// Moves placed after the instructions, before the branch.
    pub term: ATerm,
}

/// An allocated function: blocks (index = label number).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocated {
    /// Blocks in layout order; block 0 is the entry.
    pub blocks: Vec<ABlock>,
}

/// Why allocation failed (a bug in instruction selection, never a user error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocError(pub String);

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Number of allocatable registers per class (hw_enc 0..=62).
const NUM_PREGS: usize = 63;

/// The first of the fixed registers of a tied accumulator ([`tied`]): 31..=62, the top 32.
const TIED_BASE: usize = NUM_PREGS - 32;

/// The machine environment both runs use: 63 registers per class, no scratch register
/// (regalloc2 then picks a free register, or a spill slot, i.e. another name, for cycles).
pub fn machine_env() -> ra::MachineEnv {
    let mut sets = [ra::PRegSet::empty(); 3];
    for (c, class) in
        [ra::RegClass::Int, ra::RegClass::Float, ra::RegClass::Vector].into_iter().enumerate()
    {
        for i in 0..NUM_PREGS {
            sets[c].add(ra::PReg::new(i, class));
        }
    }
    ra::MachineEnv {
        preferred_regs_by_class: sets,
        non_preferred_regs_by_class: [ra::PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    }
}

/// Splits critical edges, removes unreachable blocks and checks the basic shape (entry
/// without parameters, argument counts and kinds matching the targets' parameters).
pub fn prepare(mut f: MFunction) -> Result<MFunction, AllocError> {
    if f.blocks.is_empty() {
        return Err(AllocError("function has no blocks".into()));
    }
    // A tied accumulator takes fixed registers from `TIED_BASE` up, and in place.
    let tied_fits = |m: &MInst| {
        tied_occurrences(m).is_some_and(|t| t.outputs.len() <= NUM_PREGS - TIED_BASE)
            || tied(m).is_none()
    };
    if !f.blocks.iter().all(|b| b.insts.iter().all(tied_fits)) {
        return Err(AllocError(
            "a tied accumulator that is no list of at most 32 registers".into(),
        ));
    }
    let n = f.blocks.len();
    // Jump threading: a block that holds nothing but `bra T` (no params, no args) is skipped
    // by its predecessors. Chains are followed a bounded number of steps (cycles of empty
    // blocks are left alone).
    let forward = |f: &MFunction, mut b: usize| -> usize {
        for _ in 0..n {
            match f.blocks.get(b) {
                Some(MBlock { params, insts, term: Term::Jump(t) })
                    if b != 0 && params.is_empty() && insts.is_empty() && t.args.is_empty() =>
                {
                    b = t.block.0 as usize
                }
                _ => break,
            }
        }
        b
    };
    for i in 0..n {
        let fwd: Vec<usize> =
            f.blocks[i].term.targets().iter().map(|t| forward(&f, t.block.0 as usize)).collect();
        let ok: Vec<bool> = fwd.iter().map(|&b| b < n && f.blocks[b].params.is_empty()).collect();
        for ((t, nb), ok) in f.blocks[i].term.targets_mut().into_iter().zip(fwd).zip(ok) {
            if ok && t.args.is_empty() {
                t.block = BlockId(nb as u32);
            }
        }
    }
    // Reachability from the entry.
    let mut reach = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if reach[b] {
            continue;
        }
        reach[b] = true;
        for t in f.blocks[b].term.targets() {
            let i = t.block.0 as usize;
            if i >= n {
                return Err(AllocError(format!("branch to missing block {i}")));
            }
            stack.push(i);
        }
    }
    let mut remap = vec![u32::MAX; n];
    let mut kept = Vec::new();
    for (i, b) in std::mem::take(&mut f.blocks).into_iter().enumerate() {
        if reach[i] {
            remap[i] = kept.len() as u32;
            kept.push(b);
        }
    }
    for b in &mut kept {
        for t in b.term.targets_mut() {
            t.block = BlockId(remap[t.block.0 as usize]);
        }
    }
    f.blocks = kept;
    // The side table names blocks too: renumber it, dropping the removed ones.
    f.uniform_branches = f
        .uniform_branches
        .iter()
        .filter_map(|b| remap.get(b.0 as usize).copied().filter(|&r| r != u32::MAX))
        .map(BlockId)
        .collect();
    if !f.blocks[0].params.is_empty() {
        return Err(AllocError("entry block has parameters".into()));
    }
    // Shape checks.
    for (i, b) in f.blocks.iter().enumerate() {
        for t in b.term.targets() {
            let params = &f.blocks[t.block.0 as usize].params;
            if params.len() != t.args.len() {
                return Err(AllocError(format!("block {i}: argument count mismatch")));
            }
            for (a, p) in t.args.iter().zip(params) {
                if f.kind(*a) != f.kind(*p) {
                    return Err(AllocError(format!("block {i}: argument kind mismatch")));
                }
            }
        }
        if let Term::Branch { cond, .. } = &b.term {
            if f.kind(*cond) != RegKind::Pred {
                return Err(AllocError(format!("block {i}: branch condition is not a predicate")));
            }
        }
        let known = |v: &VRegId| f.kinds.get(v.num as usize) == Some(&v.kind);
        let mut bad = b.params.iter().find(|v| !known(v)).copied();
        for m in &b.insts {
            m.for_each_reg(|r| {
                if !known(&r) {
                    bad = bad.or(Some(r));
                }
            });
        }
        if let Some(v) = bad {
            return Err(AllocError(format!("block {i}: unknown register {v}")));
        }
    }
    // Critical edges: from a block with several successors to one with several predecessors.
    let mut npreds = vec![0usize; f.blocks.len()];
    for b in &f.blocks {
        for t in b.term.targets() {
            npreds[t.block.0 as usize] += 1;
        }
    }
    let nb = f.blocks.len();
    for i in 0..nb {
        if f.blocks[i].term.targets().len() < 2 {
            continue;
        }
        let mut new_blocks = Vec::new();
        let base = f.blocks.len();
        for t in f.blocks[i].term.targets_mut() {
            if npreds[t.block.0 as usize] > 1 {
                let edge = BlockId((base + new_blocks.len()) as u32);
                let jump = Target { block: t.block, args: std::mem::take(&mut t.args) };
                t.block = edge;
                new_blocks.push(MBlock {
                    params: Vec::new(),
                    insts: Vec::new(),
                    term: Term::Jump(jump),
                });
            }
        }
        f.blocks.extend(new_blocks);
    }
    Ok(f)
}

/// What an instruction index of a [`View`] stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// An ordinary instruction.
    Inst,
    /// The block's terminator: `ret`.
    Ret,
    /// The block's terminator: a branch.
    Branch,
}

/// The regalloc2 view of an [`MFunction`] for one run (predicates or the rest). Operands live
/// in one flat vector (`op_start[i]..op_start[i + 1]` for instruction `i`): building the view
/// is a large part of allocation time, and one allocation per instruction was most of it.
///
/// The predicate run's view leaves out the instructions without predicate operands (most of
/// them): nothing between two kept instructions touches a predicate, so a move regalloc2
/// places before or after a kept instruction means the same before or after it in the whole
/// function, and the run does a fraction of the work. `orig` maps a view instruction to its
/// index in the full numbering (every instruction and terminator, block by block), which
/// the other run's view uses unchanged.
struct View {
    num_vregs: usize,
    /// Per block: first and one-past-last instruction index (terminator included).
    ranges: Vec<(usize, usize)>,
    succs: Vec<Vec<ra::Block>>,
    preds: Vec<Vec<ra::Block>>,
    params: Vec<Vec<ra::VReg>>,
    /// Per block, per successor: the arguments of this run's kinds.
    branch_args: Vec<Vec<Vec<ra::VReg>>>,
    /// regalloc2 operands of every instruction, and for each the register occurrence of the
    /// instruction it stands for ([`Instruction::for_each_reg`] order).
    operands: Vec<ra::Operand>,
    slots: Vec<u32>,
    /// Per instruction: where its operands start (one more entry at the end).
    op_start: Vec<u32>,
    kinds: Vec<Slot>,
    /// Per view instruction: its index in the full numbering.
    orig: Vec<u32>,
    /// Per instruction of the full numbering: its view index, `u32::MAX` when left out.
    to_view: Vec<u32>,
}

/// The register occurrences (numbered as [`Instruction::for_each_reg`] numbers them) of an
/// instruction with a tied brace list: `outputs` must be allocated element by element like
/// `inputs`.
struct Tied {
    outputs: std::ops::Range<u32>,
    inputs: std::ops::Range<u32>,
}

/// The tied lists of `m` ([`tied`]) as register occurrences.
fn tied_occurrences(m: &MInst) -> Option<Tied> {
    let (d, c) = tied(m)?;
    let mut at = u32::from(m.guard.is_some());
    let (mut outputs, mut inputs) = (0..0, 0..0);
    for (i, o) in m.operands.iter().enumerate() {
        let mut n = 0u32;
        o.for_each_reg(&mut |_| n += 1);
        if i == d {
            outputs = at..at + n;
        }
        if i == c {
            inputs = at..at + n;
        }
        at += n;
    }
    (outputs.len() == inputs.len()).then_some(Tied { outputs, inputs })
}

/// `(d, c)`: the operands of an instruction whose brace list `d` (written) must take the
/// registers of brace list `c` (read), element by element: an in-place accumulator. The
/// only one is the code generator's whole `wgmma` product,
/// `wgmma.mma_async {d..}, (descA0, descB0, descA1, ..), {c..}, trans-a, trans-b` (one
/// instruction from `wgmma.fence` to `wgmma.commit_group`, so the allocator puts nothing
/// between its steps); [`expand`] writes it out after allocation. Element `j` of both lists
/// is the fixed register `TIED_BASE + j` (the same for every product: a tile carried
/// around a loop needs no move, which would touch the accumulator in flight).
pub(crate) fn tied(m: &MInst) -> Option<(usize, usize)> {
    use crate::model::{Flag, Opcode, Operand};
    if m.op != Opcode::Wgmma {
        return None;
    }
    match m.operands.as_slice() {
        [_, Operand::List(_), _, _, _] if m.has_flag(Flag::MmaAsync) => Some((0, 2)),
        _ => None,
    }
}

/// `m` as PTX instructions: a tied `wgmma` product ([`tied`]), its lists holding the same
/// registers, becomes `wgmma.fence`, one `wgmma.mma_async` per descriptor pair and
/// `wgmma.commit_group` (waits are separate: `coop::tile::wgmma` for the staging buffers,
/// `codegen::wgmma_waits` for the accumulators); anything else stays as it is.
fn expand(m: MInst, out: &mut Vec<AInst>) -> Result<(), AllocError> {
    use crate::model::{Flag, Operand};
    let Some((d, c)) = tied(&m) else {
        out.push(AInst::Inst(m));
        return Ok(());
    };
    if m.operands.get(d) != m.operands.get(c) {
        return Err(AllocError(format!("tied operands got different registers in `{m}`")));
    }
    let (Some(Operand::Vector(acc)), Some(Operand::List(descs)), Some(ta), Some(tb)) =
        (m.operands.get(d), m.operands.get(1), m.operands.get(3), m.operands.get(4))
    else {
        return Err(AllocError("malformed wgmma product".into()));
    };
    let trans = [ta, tb].map(|t| matches!(t, Operand::Imm(1)));
    out.push(AInst::Inst(build::wgmma_sync(Flag::WgFence)));
    for pair in descs.chunks(2) {
        let [a, b] = pair else {
            return Err(AllocError("wgmma descriptors come in pairs".into()));
        };
        out.push(AInst::Inst(build::wgmma_f16(acc, [a.clone(), b.clone()], trans)));
    }
    out.push(AInst::Inst(build::wgmma_sync(Flag::CommitGroup)));
    Ok(())
}

impl View {
    fn new(f: &MFunction, pred_run: bool) -> Self {
        let ours = |v: VRegId| (f.kind(v) == RegKind::Pred) == pred_run;
        // The run numbers only its own registers, densely and in the same order: regalloc2's
        // per-register work then scales with this run's registers, not with all of them.
        let mut local = Vec::with_capacity(f.kinds.len());
        let mut num_vregs = 0usize;
        for &k in &f.kinds {
            if (k == RegKind::Pred) == pred_run {
                local.push(num_vregs as u32);
                num_vregs += 1;
            } else {
                local.push(u32::MAX);
            }
        }
        let vr = |v: VRegId| ra::VReg::new(local[v.num as usize] as usize, class(v.kind));
        let ninsts: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
        let mut view = View {
            num_vregs,
            ranges: Vec::with_capacity(f.blocks.len()),
            succs: vec![Vec::new(); f.blocks.len()],
            preds: vec![Vec::new(); f.blocks.len()],
            params: Vec::with_capacity(f.blocks.len()),
            branch_args: Vec::with_capacity(f.blocks.len()),
            operands: Vec::with_capacity(ninsts * 2),
            slots: Vec::with_capacity(ninsts * 2),
            op_start: Vec::with_capacity(ninsts + 1),
            kinds: Vec::with_capacity(ninsts),
            orig: Vec::with_capacity(ninsts),
            to_view: Vec::with_capacity(ninsts),
        };
        for (bi, b) in f.blocks.iter().enumerate() {
            let start = view.kinds.len();
            for m in &b.insts {
                if pred_run {
                    let mut any = false;
                    m.for_each_reg(|r| any |= ours(r));
                    if !any {
                        view.to_view.push(u32::MAX);
                        continue;
                    }
                }
                view.to_view.push(view.kinds.len() as u32);
                view.orig.push(view.to_view.len() as u32 - 1);
                view.op_start.push(view.operands.len() as u32);
                view.kinds.push(Slot::Inst);
                // Operand k of this run stands for the k-th register occurrence of the
                // instruction (guard, then operands in order), which `assemble` rewrites.
                if let Some(t) = tied_occurrences(m) {
                    // Element j of the inputs and of the outputs is the fixed register
                    // `TIED_BASE + j`: in place, and the same registers for every product,
                    // so a tile carried around a loop stays where its product left it (no
                    // moves that would touch an accumulator in flight).
                    let mut k = 0u32;
                    m.for_each_reg_access(|r, def| {
                        if ours(r) {
                            let at = |range: &std::ops::Range<u32>| {
                                range
                                    .clone()
                                    .position(|o| o == k)
                                    .map(|j| ra::PReg::new(TIED_BASE + j, class(r.kind)))
                            };
                            view.operands.push(match (at(&t.inputs), at(&t.outputs), def) {
                                (Some(p), _, _) => ra::Operand::reg_fixed_use(vr(r), p),
                                (_, Some(p), _) => ra::Operand::reg_fixed_def(vr(r), p),
                                (None, None, true) => ra::Operand::any_def(vr(r)),
                                (None, None, false) => ra::Operand::any_use(vr(r)),
                            });
                            view.slots.push(k);
                        }
                        k += 1;
                    });
                    continue;
                }
                let mut k = 0u32;
                m.for_each_reg_access(|r, def| {
                    if ours(r) {
                        view.operands.push(if def {
                            ra::Operand::any_def(vr(r))
                        } else {
                            ra::Operand::any_use(vr(r))
                        });
                        view.slots.push(k);
                    }
                    k += 1;
                });
            }
            view.to_view.push(view.kinds.len() as u32);
            view.orig.push(view.to_view.len() as u32 - 1);
            view.op_start.push(view.operands.len() as u32);
            if let Term::Branch { cond, .. } = &b.term {
                if ours(*cond) {
                    view.operands.push(ra::Operand::any_use(vr(*cond)));
                    view.slots.push(0);
                }
            }
            view.kinds.push(if matches!(b.term, Term::Ret) { Slot::Ret } else { Slot::Branch });
            view.ranges.push((start, view.kinds.len()));
            view.params.push(b.params.iter().copied().filter(|&v| ours(v)).map(vr).collect());
            let mut per_succ = Vec::new();
            for t in b.term.targets() {
                view.succs[bi].push(ra::Block::new(t.block.0 as usize));
                view.preds[t.block.0 as usize].push(ra::Block::new(bi));
                per_succ.push(t.args.iter().copied().filter(|&v| ours(v)).map(vr).collect());
            }
            view.branch_args.push(per_succ);
        }
        view.op_start.push(view.operands.len() as u32);
        view
    }

    /// The operand slots of instruction `i`.
    fn slots_of(&self, i: usize) -> &[u32] {
        &self.slots[self.op_start[i] as usize..self.op_start[i + 1] as usize]
    }

    /// The view index of instruction `i` of the full numbering, if the view has it.
    fn view_index(&self, i: usize) -> Option<usize> {
        self.to_view.get(i).filter(|&&v| v != u32::MAX).map(|&v| v as usize)
    }
}

impl ra::Function for View {
    fn num_insts(&self) -> usize {
        self.kinds.len()
    }
    fn num_blocks(&self) -> usize {
        self.ranges.len()
    }
    fn entry_block(&self) -> ra::Block {
        ra::Block::new(0)
    }
    fn block_insns(&self, block: ra::Block) -> ra::InstRange {
        let (s, e) = self.ranges[block.index()];
        ra::InstRange::new(ra::Inst::new(s), ra::Inst::new(e))
    }
    fn block_succs(&self, block: ra::Block) -> &[ra::Block] {
        &self.succs[block.index()]
    }
    fn block_preds(&self, block: ra::Block) -> &[ra::Block] {
        &self.preds[block.index()]
    }
    fn block_params(&self, block: ra::Block) -> &[ra::VReg] {
        &self.params[block.index()]
    }
    fn is_ret(&self, insn: ra::Inst) -> bool {
        self.kinds[insn.index()] == Slot::Ret
    }
    fn is_branch(&self, insn: ra::Inst) -> bool {
        self.kinds[insn.index()] == Slot::Branch
    }
    fn branch_blockparams(
        &self,
        block: ra::Block,
        _insn: ra::Inst,
        succ_idx: usize,
    ) -> &[ra::VReg] {
        &self.branch_args[block.index()][succ_idx]
    }
    fn inst_operands(&self, insn: ra::Inst) -> &[ra::Operand] {
        let i = insn.index();
        &self.operands[self.op_start[i] as usize..self.op_start[i + 1] as usize]
    }
    fn inst_clobbers(&self, _insn: ra::Inst) -> ra::PRegSet {
        ra::PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, _regclass: ra::RegClass) -> usize {
        1
    }
}

/// Maps an allocation of a vreg/preg of `kind` to its register number.
fn phys(alloc: ra::Allocation, kind: RegKind) -> Result<PhysReg, AllocError> {
    if let Some(r) = alloc.as_reg() {
        Ok(PhysReg { kind, num: r.hw_enc() as u32 })
    } else if let Some(s) = alloc.as_stack() {
        Ok(PhysReg { kind, num: NUM_PREGS as u32 + s.index() as u32 })
    } else {
        Err(AllocError("operand without allocation".into()))
    }
}

thread_local! {
    /// regalloc2's working memory, kept between runs on this thread: allocating it afresh
    /// for every run was a visible share of compile time.
    static CTX: std::cell::RefCell<ra::Ctx> = std::cell::RefCell::new(ra::Ctx::default());
}

fn run_view(view: &View, env: &ra::MachineEnv, validate: bool) -> Result<ra::Output, AllocError> {
    let opts = ra::RegallocOptions { validate_ssa: validate, ..Default::default() };
    CTX.with(|ctx| {
        let mut ctx = ctx.borrow_mut();
        ra::run_with_ctx(view, env, &opts, &mut ctx)
            .map_err(|e| AllocError(format!("register allocation failed: {e}")))?;
        Ok(std::mem::take(&mut ctx.output))
    })
}

/// Runs regalloc2's checker on both runs' outputs for `f` (prepared).
///
/// The checker's dataflow makes its first pass in block order and treats a block it reaches
/// before any of its predecessors as holding no values; on a CFG whose blocks are not in
/// reverse postorder (a loop's exit block before its body, split edges appended at the end)
/// that empty state then spreads around the loop and the checker reports values as lost
/// that the allocation keeps. So it checks a copy of the function with the blocks in reverse
/// postorder, and each run's output renumbered to match (the same allocations and moves).
fn check_allocation(
    f: &MFunction,
    views: &[View; 2],
    outs: &[ra::Output; 2],
    env: &ra::MachineEnv,
) -> Result<(), AllocError> {
    let n = f.blocks.len();
    // Reverse postorder from the entry (prepare removed unreachable blocks; any left over
    // keep their relative order at the end).
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let succs = |b: usize| -> Vec<usize> {
        f.blocks[b].term.targets().iter().map(|t| t.block.0 as usize).rev().collect()
    };
    let mut stack = vec![(0usize, succs(0))];
    seen[0] = true;
    while let Some((b, rest)) = stack.last_mut() {
        match rest.pop() {
            Some(s) if s < n && !seen[s] => {
                seen[s] = true;
                stack.push((s, succs(s)));
            }
            Some(_) => {}
            None => {
                post.push(*b);
                stack.pop();
            }
        }
    }
    let mut order: Vec<usize> = post.into_iter().rev().collect();
    order.extend((0..n).filter(|&b| !seen[b]));
    let mut new_index = vec![0u32; n];
    for (i, &b) in order.iter().enumerate() {
        new_index[b] = i as u32;
    }
    let mut sorted = MFunction {
        blocks: Vec::with_capacity(n),
        kinds: f.kinds.clone(),
        uniform_branches: f
            .uniform_branches
            .iter()
            .map(|b| BlockId(new_index[b.0 as usize]))
            .collect(),
    };
    for &b in &order {
        let mut block = f.blocks[b].clone();
        for t in block.term.targets_mut() {
            t.block = BlockId(new_index[t.block.0 as usize]);
        }
        sorted.blocks.push(block);
    }
    for (run, (view, out)) in views.iter().zip(outs).enumerate() {
        let sorted_view = View::new(&sorted, run == 1);
        // The sorted view's instruction for each of the original view's.
        let mut to_sorted = vec![0u32; view.kinds.len()];
        for (b, &(start, end)) in view.ranges.iter().enumerate() {
            let (sorted_start, _) = sorted_view.ranges[new_index[b] as usize];
            for (k, i) in (start..end).enumerate() {
                to_sorted[i] = (sorted_start + k) as u32;
            }
        }
        let mut from_sorted = vec![0usize; to_sorted.len()];
        for (i, &j) in to_sorted.iter().enumerate() {
            from_sorted[j as usize] = i;
        }
        let mut sorted_out =
            ra::Output { num_spillslots: out.num_spillslots, ..Default::default() };
        for &i in &from_sorted {
            sorted_out.inst_alloc_offsets.push(sorted_out.allocs.len() as u32);
            sorted_out.allocs.extend_from_slice(out.inst_allocs(ra::Inst::new(i)));
        }
        sorted_out.edits = out
            .edits
            .iter()
            .map(|(point, edit)| {
                let inst = ra::Inst::new(to_sorted[point.inst().index()] as usize);
                (ra::ProgPoint::new(inst, point.pos()), edit.clone())
            })
            .collect();
        // Stable: moves at one program point keep their order.
        sorted_out.edits.sort_by_key(|(point, _)| *point);
        check_output(&sorted_view, env, &sorted_out)?;
    }
    Ok(())
}

/// Runs regalloc2's checker on one run's output: it follows every value through the
/// allocator's moves and reports a use whose register does not hold the virtual register
/// the instruction reads.
fn check_output(view: &View, env: &ra::MachineEnv, out: &ra::Output) -> Result<(), AllocError> {
    let mut checker = ra::checker::Checker::new(view, env);
    checker.prepare(out);
    checker.run().map_err(|e| {
        // The error list can be long; its start names the first wrong operands.
        let mut text = format!("{e:?}");
        if let Some((cut, _)) = text.char_indices().nth(600) {
            text.truncate(cut);
            text.push_str("...");
        }
        AllocError(format!("regalloc2's checker rejects the allocation: {text}"))
    })
}

/// Allocates registers for `f` (after [`prepare`]) and returns the function on physical
/// registers. `validate` turns on regalloc2's SSA validation and runs regalloc2's checker on
/// both runs' allocations (tests, and debug builds for every kernel).
pub fn allocate(f: &MFunction, validate: bool) -> Result<Allocated, AllocError> {
    allocate_owned(f.clone(), validate)
}

/// [`allocate`], consuming `f` (its instructions move into the result, registers rewritten).
pub fn allocate_owned(f: MFunction, validate: bool) -> Result<Allocated, AllocError> {
    let f = prepare(f)?;
    let env = machine_env();
    let views = [View::new(&f, false), View::new(&f, true)];
    let outs = [run_view(&views[0], &env, validate)?, run_view(&views[1], &env, validate)?];
    if validate {
        check_allocation(&f, &views, &outs, &env)?;
    }
    assemble(f, &views, &outs)
}

/// Builds the allocated blocks from both runs' outputs.
fn assemble(
    f: MFunction,
    views: &[View; 2],
    outs: &[ra::Output; 2],
) -> Result<Allocated, AllocError> {
    // Edits by program point: run A's first, then run B's (different kinds never interact).
    // Each run's edits are sorted by program point; a stable sort keeps A before B.
    let mut edits: Vec<(u32, AInst)> = Vec::new();
    for (run, out) in outs.iter().enumerate() {
        for (point, ra::Edit::Move { from, to }) in &out.edits {
            let class = to.as_reg().or(from.as_reg()).map(|r| r.class());
            let Some(class) = class else {
                return Err(AllocError("memory-to-memory move".into()));
            };
            let kind = from_class(class, run == 1);
            let (from, to) = (phys(*from, kind)?, phys(*to, kind)?);
            if from != to {
                // The same program point in the full numbering.
                let Some(&inst) = views[run].orig.get(point.inst().index()) else {
                    return Err(AllocError("move at a missing instruction".into()));
                };
                let after = u32::from(point.pos() == ra::InstPosition::After);
                edits.push(((inst << 1) | after, AInst::Move { to, from }));
            }
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut next_edit = edits.into_iter().peekable();
    let mut phys_regs: Vec<PhysReg> = Vec::new();
    let mut blocks = Vec::with_capacity(f.blocks.len());
    for (bi, b) in f.blocks.into_iter().enumerate() {
        let mut insts = Vec::with_capacity(b.insts.len());
        let (start, end) = views[0].ranges[bi];
        let mut cond = None;
        let ninsts = b.insts.len();
        let mut selected = b.insts.into_iter();
        for idx in start..end {
            let inst = ra::Inst::new(idx);
            let before = ra::ProgPoint::before(inst).to_index();
            let after = ra::ProgPoint::after(inst).to_index();
            while let Some((_, e)) = next_edit.next_if(|e| e.0 <= before) {
                insts.push(e);
            }
            let pos = idx - start;
            if pos == ninsts {
                for (run, out) in outs.iter().enumerate() {
                    let Some(vi) = views[run].view_index(idx) else { continue };
                    if let Some(alloc) = out.inst_allocs(ra::Inst::new(vi)).first() {
                        if !views[run].slots_of(vi).is_empty() {
                            cond = Some(phys(*alloc, RegKind::Pred)?);
                        }
                    }
                }
            } else if let Some(mut m) = selected.next() {
                // The kinds of the register occurrences, then their allocations in place.
                phys_regs.clear();
                m.for_each_reg(|r| phys_regs.push(Reg { kind: r.kind, num: u32::MAX }));
                let mut filled = 0;
                for (run, out) in outs.iter().enumerate() {
                    let Some(vi) = views[run].view_index(idx) else { continue };
                    let allocs = out.inst_allocs(ra::Inst::new(vi));
                    for (&k, alloc) in views[run].slots_of(vi).iter().zip(allocs) {
                        let Some(slot) = phys_regs.get_mut(k as usize) else {
                            return Err(AllocError("operand slot out of range".into()));
                        };
                        *slot = phys(*alloc, slot.kind)?;
                        filled += 1;
                    }
                }
                if filled != phys_regs.len() {
                    return Err(AllocError("operand without allocation".into()));
                }
                let mut k = 0;
                m.for_each_reg_mut(|r| {
                    *r = phys_regs[k];
                    k += 1;
                });
                expand(m, &mut insts)?;
            }
            while let Some((_, e)) = next_edit.next_if(|e| e.0 <= after) {
                insts.push(e);
            }
        }
        let term = match &b.term {
            Term::Ret => ATerm::Ret,
            Term::Jump(t) => ATerm::Jump(t.block.0 as usize),
            Term::Branch { then_, else_, .. } => {
                let Some(cond) = cond else {
                    return Err(AllocError("branch without condition".into()));
                };
                ATerm::Branch {
                    cond,
                    then_: then_.block.0 as usize,
                    else_: else_.block.0 as usize,
                    uniform: f.uniform_branches.contains(&BlockId(bi as u32)),
                }
            }
        };
        blocks.push(ABlock { insts, term });
    }
    Ok(Allocated { blocks })
}

/// The body of an allocated function as model statements: labelled blocks (`label(i)` names
/// block `i`), the allocator's moves as `mov` of the register's width, terminators as `bra`
/// and `ret`. Branches to the next block are omitted, and a branch to a block that holds only
/// `bra T` goes to T directly.
pub fn to_statements(a: Allocated, label: &dyn Fn(usize) -> String) -> Vec<Statement> {
    // Where a branch to each block really goes.
    let resolved: Vec<usize> = (0..a.blocks.len())
        .map(|mut b| {
            for _ in 0..a.blocks.len() {
                match a.blocks.get(b) {
                    Some(ABlock { insts, term: ATerm::Jump(t) }) if insts.is_empty() && *t != b => {
                        b = *t
                    }
                    _ => break,
                }
            }
            b
        })
        .collect();
    let bra = |t: usize| Statement::Inst(build::bra(&label(resolved[t])));
    let n: usize = a.blocks.iter().map(|b| b.insts.len() + 3).sum();
    let mut out = Vec::with_capacity(n);
    for (bi, b) in a.blocks.into_iter().enumerate() {
        if bi > 0 {
            out.push(Statement::Label(label(bi)));
        }
        for i in b.insts {
            out.push(Statement::Inst(match i {
                AInst::Inst(m) => m,
                AInst::Move { to, from } => build::mov(to.kind.decl_type(), to, from),
            }));
        }
        match b.term {
            ATerm::Ret => out.push(Statement::Inst(build::ret())),
            ATerm::Jump(t) => {
                if t != bi + 1 {
                    out.push(bra(t));
                }
            }
            ATerm::Branch { cond, then_, else_, uniform } => {
                let to = label(resolved[then_]);
                let b = if uniform { build::bra_uni(&to) } else { build::bra(&to) };
                out.push(Statement::Inst(b.guarded(cond, false)));
                if else_ != bi + 1 {
                    out.push(bra(else_));
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "regalloc_tests.rs"]
mod tests;
