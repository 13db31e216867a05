//! Instruction selection: one compute entry's SSA function to an [`MFunction`] on virtual
//! registers. Values are held per scalar component (docs/ptx.md); structured regions become
//! labelled blocks with block arguments.

use super::align::{self, KnownAlign};
use super::regalloc::{BlockId, MFunction, RegKind, Target, Term, VRegId};
use crate::abi::layout::{self, kind_of, leaves, Leaf};
use crate::abi::ZeroPlan;
use crate::lowering_common::{
    self, entry_prologue, global_home, ArrayLength, Exit, GlobalHome, InstLowering, ScalarLowering,
};
use crate::model::{
    build, AtomOp, CmpOp, Dim, Flag, Instruction, Modifier, Opcode, Operand, SpecialReg,
    StateSpace, Type as PT,
};
use dianran_frontend::ir::{
    self, AddressSpace, Block, ConstValue, GlobalId, Op, Scalar, Terminator, Type, TypeId, Types,
    ValueId,
};
use dianran_frontend::Diagnostic;
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// A PTX state space a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// `.global` (storage and uniform buffers).
    Global,
    /// `.shared` (workgroup variables).
    Shared,
    /// `.local` (unpromoted function variables, private variables).
    Local,
    /// `.param` (the entry's immediate data, read in place).
    Param,
}

impl Space {
    /// The model's state space.
    pub(crate) fn state_space(self) -> StateSpace {
        match self {
            Space::Global => StateSpace::Global,
            Space::Shared => StateSpace::Shared,
            Space::Local => StateSpace::Local,
            Space::Param => StateSpace::Param,
        }
    }
}

/// A pointer value: a 64-bit address in a state space, the pointee type and where it came from.
pub(crate) type Ptr = lowering_common::Ptr<VRegId, Space>;

/// The machine form of an SSA value: components in virtual registers, or a pointer.
pub(crate) type Val = lowering_common::Val<VRegId, Ptr>;

/// What the entry knows about resources: parameter slots, shared symbol names, local depot.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntryLayout {
    /// Parameter `i` is buffer `buffers[i]` (`None`: placeholder).
    pub buffers: Vec<Option<GlobalId>>,
    /// PTX parameter names, same order as `buffers`.
    pub param_names: Vec<String>,
    /// Shared-memory symbol of each workgroup variable.
    pub shared: HashMap<GlobalId, String>,
    /// Offsets of private variables in the local depot.
    pub private: HashMap<GlobalId, u32>,
    /// Whether the `p_sizes` parameter exists.
    pub uses_sizes: bool,
    /// (texture, sampler, parameter name) of each texture object parameter after the slots.
    pub pairs: Vec<(GlobalId, GlobalId, String)>,
    /// (texture, sampler, parameter name) of each comparison pair's `.u32` compare word.
    pub compare: Vec<(GlobalId, GlobalId, String)>,
    /// Workgroup variables to zero at entry: (symbol, size in 32-bit words).
    pub zero_shared: Vec<(String, u32)>,
    /// Invocations per workgroup.
    pub threads: u32,
    /// The entry's `var<immediate>`, read from the `p_immediates` parameter.
    pub immediates: Option<GlobalId>,
}

/// Where `Yield` goes in the block being lowered.
#[derive(Clone, Copy, Debug)]
enum YieldTo {
    Jump(BlockId),
    LoopEnd { break_if: Option<ValueId>, body: BlockId, exit: BlockId },
}

/// The instruction selector for one entry point.
pub(crate) struct Lower<'a> {
    pub m: &'a ir::Module,
    pub f: &'a ir::Function,
    pub types: Types,
    pub mf: MFunction,
    pub cur: BlockId,
    pub vals: HashMap<ValueId, Val>,
    frames: lowering_common::Frames<BlockId>,
    pub layout: &'a EntryLayout,
    /// Entry name for diagnostics.
    pub entry: String,
    /// Base address register of each parameter (placeholders: `None`); the object of a
    /// texture slot.
    pub(crate) params: Vec<Option<VRegId>>,
    /// Texture objects and the handle globals of values (`super::texture`).
    pub(crate) tex: super::texture::TextureRegs,
    sizes: Option<VRegId>,
    /// Byte offsets of unpromoted locals in the local depot, and the depot size.
    local_offsets: Vec<u32>,
    pub depot_size: u32,
    /// Span of the instruction being lowered.
    pub span: ir::Span,
    /// Target architecture (80 or 90); selects instruction forms where they differ.
    #[allow(dead_code)]
    pub sm: u32,
    /// Registers known to hold a 32-bit integer constant (lets division skip its guards).
    pub consts: HashMap<VRegId, u32>,
    /// Registers known to hold an f32 constant (lets `pow` with a small integral constant
    /// exponent multiply instead).
    pub fconsts: HashMap<VRegId, f32>,
    /// Whether f32 cooperative-matrix products may use TF32 tensor cores (`--tf32`).
    pub tf32: bool,
    /// Set when this entry issued a TF32 product (reported in [`super::EntryInfo::tf32`]).
    pub used_tf32: bool,
    /// Whether math builtins use the approximate lowering (`--fast-math`).
    pub fast_math: bool,
    /// Set when this entry emitted approximate math (reported in
    /// [`super::EntryInfo::fast_math`]).
    pub used_fast_math: bool,
    /// A deliberate wrong selection (fuzzer self-test, [`super::Options::inject`]).
    pub inject: Option<super::InjectedBug>,
    /// Known alignment of the function's integer values (address and stride proofs).
    pub known: KnownAlign<'a>,
    /// Symbolic addresses of pointer registers, for [`super::vectorize`].
    pub facts: super::vectorize::AddrFacts,
    /// Per-lane `ldmatrix` byte offsets computed once in the entry block, by
    /// (row-major, registers, constant stride, element size) ([`Lower::coop_ldmatrix`]).
    pub ldmatrix_offsets: HashMap<(bool, u32, u32, u32), VRegId>,
    /// Per-lane `ldmatrix` row addresses of a workgroup array's element 0 (the array's
    /// address plus a lane offset of `ldmatrix_offsets`), computed once in the entry block,
    /// by (array, lane offset register) ([`Lower::coop_ldmatrix`]).
    pub ldmatrix_bases: HashMap<(GlobalId, VRegId), VRegId>,
    /// Predicates with the same value on every thread of the CTA (`bar.red` results): a
    /// branch on one is `bra.uni`.
    pub uniform_preds: Vec<VRegId>,
    /// Workgroup matrices take the tensor-core form in this entry (`super::coop::tile`).
    pub native_tiles: bool,
    /// The lane's first tile row and column, and the warp's first row, computed once.
    pub tile_lane: Option<(VRegId, VRegId)>,
    pub tile_warp_row: Option<VRegId>,
    /// Value intervals of the entry, for proving workgroup-matrix operands inside their
    /// arrays (only kept for entries with native tiles).
    pub tile_ranges: Option<dianran_frontend::passes::ValueRanges<'a>>,
    /// How the entry stages its `wgmma` products' operands (sm_90a; `None`: it has none).
    pub tile_stage: Option<super::coop::tile::wgmma::Stage>,
    /// Indices `x + c` (`c` a `u32` constant) that cannot wrap ([`offset_indices`]).
    pub offset_indices: HashMap<ValueId, (ValueId, u32)>,
    /// Inner indices of `a[x >> k][x & (2^k - 1)]` ([`split_indices`]).
    pub split_indices: HashMap<ValueId, Vec<SplitIndex>>,
}

/// `Access(Access(outer, x >> k), x & (2^k - 1))` (or `x / 2^k` and `x % 2^k`, `x` a `u32`):
/// where the outer stride is the inner one times 2^k, the element's address is
/// `outer + x * inner_stride`, one multiplication instead of two shifts, a mask and two
/// (`arr[i / 4u][i % 4u]`, WebGPU's way to index an array of `vec4<u32>` as scalars).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitIndex {
    /// The inner access's base (the outer access's result).
    pub middle: ValueId,
    /// The outer access's base.
    pub outer: ValueId,
    /// The index both halves come from.
    pub x: ValueId,
    /// The split: `x >> k` and `x & (2^k - 1)`.
    pub k: u32,
}

/// What the index analyses read of a function, gathered in one walk: its `u32` constants,
/// binary operations and element accesses.
#[derive(Default)]
pub(crate) struct IndexDefs {
    consts: HashMap<ValueId, u32>,
    /// (result, operator, left, right)
    binary: Vec<(ValueId, ir::BinaryOperator, ValueId, ValueId)>,
    /// result -> (base, index)
    access: HashMap<ValueId, (ValueId, ValueId)>,
}

impl IndexDefs {
    /// Walks `f` once, nested regions included.
    pub(crate) fn of(f: &ir::Function) -> IndexDefs {
        fn walk(b: &ir::Block, d: &mut IndexDefs) {
            for i in &b.insts {
                match (&i.op, i.result) {
                    (Op::Const(ConstValue::U32(c)), Some(r)) => {
                        d.consts.insert(r, *c);
                    }
                    (&Op::Binary(o, x, y), Some(r)) => d.binary.push((r, o, x, y)),
                    (&Op::Access(base, idx), Some(r)) => {
                        d.access.insert(r, (base, idx));
                    }
                    _ => {}
                }
                for nb in i.op.blocks() {
                    walk(nb, d);
                }
            }
        }
        let mut d = IndexDefs::default();
        walk(&f.body, &mut d);
        d
    }
}

/// The accesses [`SplitIndex`] describes in `f` (walked into `d`), by inner index.
pub(crate) fn split_indices(
    types: &Types,
    f: &ir::Function,
    d: &IndexDefs,
) -> HashMap<ValueId, Vec<SplitIndex>> {
    use ir::BinaryOperator as B;
    let is_u32 = |v: ValueId| {
        f.values
            .get(v.index())
            .is_some_and(|vd| matches!(types.get(vd.ty), Type::Scalar(Scalar::U32)))
    };
    // (x, k) of each `x >> k` / `x / 2^k` (high) and `x & (2^k - 1)` / `x % 2^k` (low).
    let mut high = HashMap::default();
    let mut low = HashMap::default();
    for &(r, o, x, y) in &d.binary {
        let Some(&c) = d.consts.get(&y) else { continue };
        if !is_u32(r) || !is_u32(x) {
            continue;
        }
        match o {
            B::ShiftRight if (1..32).contains(&c) => {
                high.insert(r, (x, c));
            }
            B::Divide if c.is_power_of_two() && c > 1 => {
                high.insert(r, (x, c.trailing_zeros()));
            }
            B::And if c != 0 && c != u32::MAX && (c + 1).is_power_of_two() => {
                low.insert(r, (x, c.trailing_ones()));
            }
            B::Modulo if c.is_power_of_two() && c > 1 => {
                low.insert(r, (x, c.trailing_zeros()));
            }
            _ => {}
        }
    }
    let mut out: HashMap<ValueId, Vec<SplitIndex>> = HashMap::default();
    for (&_inner, &(middle, lo)) in &d.access {
        let Some(&(x, k)) = low.get(&lo) else { continue };
        let Some(&(outer, hi)) = d.access.get(&middle) else { continue };
        if high.get(&hi) == Some(&(x, k)) {
            out.entry(lo).or_default().push(SplitIndex { middle, outer, x, k });
        }
    }
    out
}

/// The `u32` indices of `f` (walked into `d`) of the form `x + c` with a constant `c` whose interval `ranges`
/// (of `f`) knows, so the addition cannot wrap: an element address
/// `base + (x + c) * stride` is then `base + x * stride` plus the constant `c * stride`, which
/// ptxas folds into the access's immediate offset (`red[lid + 32u]` is `[r + 128]`), where
/// the 32-bit addition before the widening would keep it from doing so.
pub(crate) fn offset_indices(
    d: &IndexDefs,
    ranges: &mut dianran_frontend::passes::ValueRanges,
) -> HashMap<ValueId, (ValueId, u32)> {
    let (consts, adds) = (&d.consts, d.binary.iter().filter(|b| b.1 == ir::BinaryOperator::Add));
    let mut out = HashMap::default();
    for &(r, _, x, y) in adds {
        let split = match (consts.get(&x), consts.get(&y)) {
            (None, Some(&c)) => (x, c),
            (Some(&c), None) => (y, c),
            _ => continue,
        };
        // An interval is only known for a sum that cannot wrap.
        if ranges.range(r).is_some() {
            out.insert(r, split);
        }
    }
    out
}

/// IEEE binary16 bits of an f32, rounded to nearest even (overflow to infinity).
pub(crate) fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rest = m & ((1 << shift) - 1);
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

impl<'a> Lower<'a> {
    /// The outer pointer and the index `x` when `p[idx]` is the inner half of a
    /// [`SplitIndex`] (`p` the middle access's pointer) whose strides line up.
    fn split_element(
        &mut self,
        p: &Ptr,
        idx: ValueId,
        stride: u32,
    ) -> Result<Option<(Ptr, ValueId)>, Diagnostic> {
        let Some(cands) = self.split_indices.get(&idx).cloned() else { return Ok(None) };
        for s in cands {
            if self.ptr(s.middle).map_or(true, |mid| mid.addr != p.addr) {
                continue;
            }
            let outer = self.ptr(s.outer)?;
            let outer_stride = layout::element_stride(&mut self.types, outer.pointee).map(|e| e.0);
            if outer_stride.map(u64::from) == Some(u64::from(stride) << s.k) {
                return Ok(Some((outer, s.x)));
            }
        }
        Ok(None)
    }

    pub(crate) fn new(
        m: &'a ir::Module,
        f: &'a ir::Function,
        layout: &'a EntryLayout,
        entry: &str,
        sm: u32,
    ) -> Self {
        let mut mf = MFunction::default();
        let cur = mf.new_block();
        Lower {
            m,
            f,
            types: m.types.clone(),
            mf,
            cur,
            vals: HashMap::default(),
            frames: lowering_common::Frames::default(),
            layout,
            entry: entry.to_string(),
            params: Vec::new(),
            tex: Default::default(),
            sizes: None,
            local_offsets: Vec::new(),
            depot_size: 0,
            span: f.span,
            sm,
            consts: HashMap::default(),
            fconsts: HashMap::default(),
            tf32: false,
            used_tf32: false,
            fast_math: false,
            used_fast_math: false,
            inject: None,
            known: KnownAlign::new(f),
            facts: Default::default(),
            ldmatrix_offsets: HashMap::default(),
            ldmatrix_bases: HashMap::default(),
            uniform_preds: Vec::new(),
            native_tiles: false,
            tile_lane: None,
            tile_warp_row: None,
            tile_ranges: None,
            offset_indices: HashMap::default(),
            split_indices: HashMap::default(),
            tile_stage: None,
        }
    }

    // ---- emission helpers ----

    /// Appends an instruction to the current block.
    pub(crate) fn push(&mut self, inst: Instruction) {
        let b = self.cur.0 as usize;
        if let Some(block) = self.mf.blocks.get_mut(b) {
            block.insts.push(inst);
        }
    }

    /// Pushes the instruction `make(d)` for a new register `d` of `kind` (its destination) and
    /// returns `d`: `self.def(RegKind::B32, |d| build::add(Type::S32, d, a, b))`.
    pub(crate) fn def(
        &mut self,
        kind: RegKind,
        make: impl FnOnce(VRegId) -> Instruction,
    ) -> VRegId {
        let d = self.mf.new_vreg(kind);
        self.push(make(d));
        d
    }

    /// `op{.mods} d, srcs..` for a new register `d` of `kind`: the generic form.
    pub(crate) fn op(
        &mut self,
        kind: RegKind,
        op: Opcode,
        mods: &[Modifier],
        srcs: &[Operand],
    ) -> VRegId {
        self.def(kind, |d| {
            let mut operands = Vec::with_capacity(srcs.len() + 1);
            operands.push(Operand::Reg(d));
            operands.extend_from_slice(srcs);
            Instruction::new(op, mods.to_vec(), operands)
        })
    }

    /// `op{.mods}.T d, a` into a new register of `T`'s width.
    pub(crate) fn unop(
        &mut self,
        op: Opcode,
        mods: &[Modifier],
        t: PT,
        a: impl Into<Operand>,
    ) -> VRegId {
        let kind = RegKind::for_type(t).unwrap_or(RegKind::B32);
        self.def(kind, |d| build::unary(op, mods, t, d, a))
    }

    /// `op{.mods}.T d, a, b` into a new register of `T`'s width.
    pub(crate) fn binop(
        &mut self,
        op: Opcode,
        mods: &[Modifier],
        t: PT,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> VRegId {
        let kind = RegKind::for_type(t).unwrap_or(RegKind::B32);
        self.def(kind, |d| build::binary(op, mods, t, d, a, b))
    }

    /// `op.pred p, a, b` (`and`, `or`, `xor`) into a new predicate.
    pub(crate) fn pred_op(&mut self, op: Opcode, a: VRegId, b: VRegId) -> VRegId {
        self.binop(op, &[], PT::Pred, a, b)
    }

    /// A register holding a 32-bit constant.
    pub(crate) fn imm_u32(&mut self, v: u32) -> VRegId {
        let r = self.def(RegKind::B32, |d| build::mov(PT::U32, d, Operand::Imm(i64::from(v))));
        self.consts.insert(r, v);
        r
    }

    /// A register holding an f32 constant.
    pub(crate) fn imm_f32(&mut self, v: f32) -> VRegId {
        let r = self.def(RegKind::B32, |d| build::mov(PT::F32, d, Operand::f32(v)));
        self.fconsts.insert(r, v);
        r
    }

    /// A register holding an f16 constant (by bit pattern).
    pub(crate) fn imm_f16(&mut self, bits: u16) -> VRegId {
        self.def(RegKind::B16, |d| build::mov(PT::B16, d, Operand::f16_bits(bits)))
    }

    /// A predicate holding a constant.
    pub(crate) fn imm_pred(&mut self, v: bool) -> VRegId {
        let r = self.imm_u32(v as u32);
        self.def(RegKind::Pred, |p| build::setp(CmpOp::Ne, PT::U32, p, r, Operand::Imm(0)))
    }

    /// A constant of scalar type `s` from an f64 value (used by the math library).
    pub(crate) fn imm_of(&mut self, s: Scalar, v: f64) -> VRegId {
        match s {
            Scalar::F32 => self.imm_f32(v as f32),
            Scalar::F16 => self.imm_f16(f32_to_f16_bits(v as f32)),
            Scalar::I32 => self.imm_u32(v as i32 as u32),
            Scalar::U32 => self.imm_u32(v as u32),
            Scalar::Bool => self.imm_pred(v != 0.0),
            Scalar::I64 => self.imm_b64(s, v as i64 as u64),
            Scalar::U64 => self.imm_b64(s, v as u64),
            Scalar::F64 => self.imm_b64(s, v.to_bits()),
        }
    }

    // ---- value access ----

    pub(crate) fn val(&self, v: ValueId) -> Result<&Val, Diagnostic> {
        self.vals
            .get(&v)
            .ok_or_else(|| self.internal(&format!("value {v} used before its definition")))
    }

    /// The components of a register value.
    pub(crate) fn comps(&self, v: ValueId) -> Result<Vec<VRegId>, Diagnostic> {
        match self.val(v)? {
            // Every WGSL value has at least one component; callers rely on it.
            Val::Comps(c) if c.is_empty() => Err(self.internal("value without components")),
            Val::Comps(c) => Ok(c.clone()),
            Val::Ptr(_) => Err(self.unsupported("pointer values in this position")),
        }
    }

    /// The single component of a scalar value.
    pub(crate) fn scalar(&self, v: ValueId) -> Result<VRegId, Diagnostic> {
        self.comps(v)?.first().copied().ok_or_else(|| self.internal("empty scalar value"))
    }

    pub(crate) fn ptr(&self, v: ValueId) -> Result<Ptr, Diagnostic> {
        match self.val(v)? {
            Val::Ptr(p) => Ok(*p),
            Val::Comps(_) => Err(self.internal("pointer operand is not a pointer")),
        }
    }

    pub(crate) fn ty(&self, v: ValueId) -> TypeId {
        self.f.values.get(v.index()).map_or(TypeId(0), |d| d.ty)
    }

    /// Component scalar type of a value's type.
    pub(crate) fn scalar_ty(&self, v: ValueId) -> Result<Scalar, Diagnostic> {
        self.types.scalar_of(self.ty(v)).ok_or_else(|| self.internal("operand has no scalar type"))
    }

    pub(crate) fn leaves_of(&self, ty: TypeId) -> Result<Vec<Leaf>, Diagnostic> {
        leaves(&self.types, ty).ok_or_else(|| self.unsupported("values of this type in registers"))
    }

    /// Fresh registers for a value of type `ty` (block parameters, region results).
    fn fresh(&mut self, ty: TypeId) -> Result<Vec<VRegId>, Diagnostic> {
        let l = self.leaves_of(ty)?;
        Ok(l.iter().map(|l| self.mf.new_vreg(kind_of(l.scalar))).collect())
    }

    fn bind_params(&mut self, params: &[ValueId]) -> Result<Vec<VRegId>, Diagnostic> {
        let mut all = Vec::new();
        for &p in params {
            let r = self.fresh(self.ty(p))?;
            all.extend(r.iter().copied());
            self.vals.insert(p, Val::Comps(r));
        }
        Ok(all)
    }

    pub(crate) fn set_term(&mut self, t: Term) {
        if let Some(b) = self.mf.blocks.get_mut(self.cur.0 as usize) {
            b.term = t;
        }
    }

    pub(crate) fn jump(&mut self, block: BlockId, args: Vec<VRegId>) {
        self.set_term(Term::Jump(Target { block, args }));
    }

    // ---- entry prologue ----

    /// Emits the prologue: parameter loads, builtins, local depot, private initializers.
    pub(crate) fn prologue(&mut self) -> Result<(), Diagnostic> {
        let names = self.layout.param_names.clone();
        for (i, g) in self.layout.buffers.clone().iter().enumerate() {
            if g.is_none() {
                self.params.push(None);
                continue;
            }
            let name = names.get(i).cloned().unwrap_or_default();
            let a = self.def(RegKind::B64, |d| build::ld_param(PT::U64, d, &name));
            // Texture and surface objects are handles, not addresses.
            let handle = g
                .and_then(|g| self.m.globals.get(g.index()))
                .is_some_and(|g| g.space == AddressSpace::Handle);
            if handle {
                self.params.push(Some(a));
                continue;
            }
            let g = self.def(RegKind::B64, |d| build::cvta_to(StateSpace::Global, d, a));
            self.params.push(Some(g));
        }
        self.texture_prologue();
        if self.layout.uses_sizes {
            let a =
                self.def(RegKind::B64, |d| build::ld_param(PT::U64, d, crate::abi::SIZES_PARAM));
            let g = self.def(RegKind::B64, |d| build::cvta_to(StateSpace::Global, d, a));
            self.sizes = Some(g);
        }
        // Local depot: private globals first (offsets given), then unpromoted locals.
        let mut size = self.layout.private.iter().map(|(g, o)| {
            let ty = self.m.globals.get(g.index()).map_or(TypeId(0), |g| g.ty);
            o + self.types.size_align(ty).0
        });
        let mut end = size.by_ref().max().unwrap_or(0);
        for l in &self.f.locals {
            let (s, a) = self.types.size_align(l.ty);
            let a = a.max(4);
            end = end.div_ceil(a) * a;
            self.local_offsets.push(end);
            end += s.max(4);
        }
        self.depot_size = end;
        // Private initializers, zeroed workgroup memory, inputs.
        let mut privs: Vec<GlobalId> = self.layout.private.keys().copied().collect();
        privs.sort();
        let (m, f) = (self.m, self.f);
        entry_prologue(self, m, f, &privs)?;
        Ok(())
    }

    /// Zeroes the workgroup variables the entry uses (WGSL semantics): invocation `i` clears
    /// words `i, i + N, ...`, then `bar.sync 0`.
    fn zero_shared(&mut self) -> Result<(), Diagnostic> {
        if self.layout.zero_shared.is_empty() {
            return Ok(());
        }
        let ty = self.types.scalar(Scalar::U32);
        let lid = self.builtin(ir::BuiltIn::LocalInvocationIndex, ty, u32::MAX)?;
        let lid = *lid.first().ok_or_else(|| self.internal("local index"))?;
        let zero = self.imm_u32(0);
        let zeros = [zero; 4];
        // Invocation `lid` clears the 16-byte chunks `lid + i * threads`.
        let off0 = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shl, &[], PT::B32, d, lid, Operand::Imm(4))
        });
        let wide = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, off0));
        for (name, words) in self.layout.zero_shared.clone() {
            let plan = ZeroPlan::new(words, self.layout.threads);
            let base = self.symbol_addr(&name);
            let addr = self.def(RegKind::B64, |d| build::add(PT::S64, d, base, wide));
            if plan.rounds <= ZeroPlan::MAX_UNROLLED {
                // Straight-line: the trip count is known, so no loop and no induction variable.
                for i in 0..plan.rounds {
                    let start = i * plan.step;
                    let a = Operand::addr(addr, i64::from(start));
                    let st = build::st_vec(StateSpace::Shared, PT::U32, a, &zeros);
                    if plan.full_round(i) {
                        self.push(st);
                    } else {
                        let left = Operand::Imm(i64::from(plan.bytes - start));
                        let p = self
                            .def(RegKind::Pred, |p| build::setp(CmpOp::Lt, PT::U32, p, off0, left));
                        self.push(st.guarded(p, false));
                    }
                }
                continue;
            }
            let head = self.mf.new_block();
            let body = self.mf.new_block();
            let done = self.mf.new_block();
            let off = self.mf.new_vreg(RegKind::B32);
            let at = self.mf.new_vreg(RegKind::B64);
            if let Some(b) = self.mf.blocks.get_mut(head.0 as usize) {
                b.params = vec![off, at];
            }
            self.jump(head, vec![off0, addr]);
            self.cur = head;
            let bytes = Operand::Imm(i64::from(plan.bytes));
            let more = self.def(RegKind::Pred, |p| build::setp(CmpOp::Lt, PT::U32, p, off, bytes));
            self.set_term(Term::Branch {
                cond: more,
                then_: Target { block: body, args: vec![] },
                else_: Target { block: done, args: vec![] },
            });
            self.cur = body;
            self.push(build::st_vec(StateSpace::Shared, PT::U32, Operand::addr(at, 0), &zeros));
            let step = Operand::Imm(i64::from(plan.step));
            let next = self.def(RegKind::B32, |d| build::add(PT::S32, d, off, step.clone()));
            let next_at = self.def(RegKind::B64, |d| build::add(PT::S64, d, at, step));
            self.jump(head, vec![next, next_at]);
            self.cur = done;
        }
        self.push(build::bar_sync(0));
        Ok(())
    }

    /// `mov.u64 d, __local_depot`: the base of the local depot.
    fn local_depot(&mut self) -> VRegId {
        self.symbol_addr(super::dead_local::DEPOT)
    }

    /// `mov.u64 d, name`: the address of a variable.
    fn symbol_addr(&mut self, name: &str) -> VRegId {
        self.def(RegKind::B64, |d| build::mov(PT::U64, d, Operand::sym(name)))
    }

    /// `mov.u32 d, %special`.
    pub(crate) fn sreg(&mut self, s: SpecialReg) -> VRegId {
        self.def(RegKind::B32, |d| build::mov(PT::U32, d, s))
    }

    /// The components of builtin `b` of type `ty`; component `i` is computed only when bit
    /// `i` of `used` is set (a fresh, never-written register stands for the others).
    fn builtin(
        &mut self,
        b: ir::BuiltIn,
        ty: TypeId,
        used: u32,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        use ir::BuiltIn as B;
        use SpecialReg as S;
        let dims = [Dim::X, Dim::Y, Dim::Z];
        let wanted = |i: usize| used & (1 << i) != 0;
        let per_dim = |l: &mut Self, f: &dyn Fn(&mut Self, Dim) -> VRegId| -> Vec<VRegId> {
            (0..3)
                .map(|i| if wanted(i) { f(l, dims[i]) } else { l.mf.new_vreg(RegKind::B32) })
                .collect()
        };
        let out = match b {
            B::GlobalInvocationId => per_dim(self, &|l, d| {
                let c = l.sreg(S::Ctaid(d));
                let n = l.sreg(S::Ntid(d));
                let t = l.sreg(S::Tid(d));
                l.def(RegKind::B32, |r| build::mad_lo(PT::S32, r, c, n, t))
            }),
            B::LocalInvocationId => per_dim(self, &|l, d| l.sreg(S::Tid(d))),
            B::WorkGroupId => per_dim(self, &|l, d| l.sreg(S::Ctaid(d))),
            B::NumWorkGroups => per_dim(self, &|l, d| l.sreg(S::Nctaid(d))),
            B::LocalInvocationIndex => {
                let tx = self.sreg(S::Tid(Dim::X));
                let ty_ = self.sreg(S::Tid(Dim::Y));
                let tz = self.sreg(S::Tid(Dim::Z));
                let nx = self.sreg(S::Ntid(Dim::X));
                let ny = self.sreg(S::Ntid(Dim::Y));
                let a = self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, ny, tz, ty_));
                vec![self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, nx, a, tx))]
            }
            B::SubgroupInvocationId => vec![self.sreg(S::Laneid)],
            B::SubgroupSize => vec![self.imm_u32(32)],
            B::NumSubgroups => {
                // ceil(threads per block / 32)
                let nx = self.sreg(S::Ntid(Dim::X));
                let ny = self.sreg(S::Ntid(Dim::Y));
                let nz = self.sreg(S::Ntid(Dim::Z));
                let a = self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, nx, ny));
                let t = self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, a, nz));
                let t = self.def(RegKind::B32, |d| build::add(PT::S32, d, t, Operand::Imm(31)));
                vec![self.def(RegKind::B32, |d| {
                    build::binary(Opcode::Shr, &[], PT::U32, d, t, Operand::Imm(5))
                })]
            }
            B::SubgroupId => {
                let idx = self.builtin(B::LocalInvocationIndex, ty, u32::MAX)?;
                let idx = *idx.first().ok_or_else(|| self.internal("local index"))?;
                vec![self.def(RegKind::B32, |d| {
                    build::binary(Opcode::Shr, &[], PT::U32, d, idx, Operand::Imm(5))
                })]
            }
            _ => return Err(self.unsupported(&format!("the builtin {b:?} in compute entries"))),
        };
        let n = layout::leaf_count(&self.types, ty);
        if n != out.len() {
            return Err(self.internal("builtin type does not match"));
        }
        Ok(out)
    }

    // ---- blocks and control flow ----

    /// Lowers a whole function body (the entry's top level).
    pub(crate) fn body(&mut self) -> Result<(), Diagnostic> {
        let f = self.f;
        self.block(&f.body, None)
    }

    fn block(&mut self, b: &Block, on_yield: Option<YieldTo>) -> Result<(), Diagnostic> {
        for inst in &b.insts {
            self.span = inst.span;
            lowering_common::lower_inst(self, inst)?;
        }
        self.term(&b.term, on_yield)
    }

    fn term(&mut self, t: &Terminator, on_yield: Option<YieldTo>) -> Result<(), Diagnostic> {
        match t {
            Terminator::Yield(args) => {
                let a = self.flatten(args)?;
                match on_yield {
                    Some(YieldTo::Jump(b)) => self.jump(b, a),
                    Some(YieldTo::LoopEnd { break_if, body, exit }) => match break_if {
                        Some(c) => {
                            let cond = self.scalar(c)?;
                            self.set_term(Term::Branch {
                                cond,
                                then_: Target { block: exit, args: a.clone() },
                                else_: Target { block: body, args: a },
                            });
                        }
                        None => self.jump(body, a),
                    },
                    None => self.set_term(Term::Ret),
                }
            }
            Terminator::Break(_) | Terminator::Continue(_) | Terminator::Return(_) => {
                let exit = self.frames.exit(t).unwrap_or(Err("not a jump"));
                match exit.map_err(|e| self.internal(e))? {
                    Exit::To(target) => {
                        let a = self.flatten(t.args())?;
                        self.jump(target, a);
                    }
                    Exit::Entry => self.set_term(Term::Ret),
                }
            }
            Terminator::Unreachable => self.set_term(Term::Ret),
            Terminator::Discard => return Err(self.unsupported("discard")),
        }
        Ok(())
    }

    /// The values each arm of an `if` yields, paired per result, when neither arm has an
    /// instruction and every result is a scalar or a vector (so a component-wise select
    /// computes it); `None` otherwise.
    fn selects(
        &self,
        then_: &Block,
        else_: &Block,
        results: &[ValueId],
    ) -> Option<Vec<(ValueId, ValueId)>> {
        fn yielded(b: &Block, n: usize) -> Option<&[ValueId]> {
            match &b.term {
                Terminator::Yield(v) if b.insts.is_empty() && v.len() == n => Some(v),
                _ => None,
            }
        }
        let (t, e) = (yielded(then_, results.len())?, yielded(else_, results.len())?);
        let plain = |v: &ValueId| {
            matches!(self.types.get(self.ty(*v)), Type::Scalar(_) | Type::Vector { .. })
        };
        if results.is_empty() || !results.iter().chain(t).chain(e).all(plain) {
            return None;
        }
        Some(t.iter().copied().zip(e.iter().copied()).collect())
    }

    fn merge_block(&mut self, results: &[ValueId]) -> Result<BlockId, Diagnostic> {
        let b = self.mf.new_block();
        let params = self.bind_params(results)?;
        if let Some(bb) = self.mf.blocks.get_mut(b.0 as usize) {
            bb.params = params;
        }
        Ok(b)
    }

    // ---- memory ----

    fn global_addr(&mut self, g: GlobalId) -> Result<Ptr, Diagnostic> {
        let (home, ty) = global_home(self, self.m, &self.params, g)?;
        match home {
            // Wider accesses than the binding's alignment check at run time.
            GlobalHome::Buffer { addr, align } => {
                Ok(Ptr::start(addr, Space::Global, ty, Some(g), align))
            }
            // Declared `.align max(16, A)` (see `super::compile_module`).
            GlobalHome::Workgroup { align } => {
                let name = self.layout.shared.get(&g).cloned();
                let name = name.ok_or_else(|| self.internal("unknown shared variable"))?;
                let addr = self.symbol_addr(&name);
                self.facts.global(addr, g, align);
                Ok(Ptr::start(addr, Space::Shared, ty, Some(g), align))
            }
            GlobalHome::Private => {
                let off = self.layout.private.get(&g).copied();
                let off = off.ok_or_else(|| self.internal("unknown private variable"))?;
                let base = self.local_depot();
                let p = Ptr::start(base, Space::Local, ty, None, 16);
                Ok(self.offset_ptr(p, off, ty))
            }
            GlobalHome::Handle => Err(self.unsupported("textures and samplers")),
            // `mov.u64 %rd, p_immediates` is the parameter's address in `.param` space, which
            // `ld.param` reads (docs/immediates.md).
            GlobalHome::Immediate => {
                if self.layout.immediates != Some(g) {
                    return Err(self.internal("immediate data without its parameter"));
                }
                let addr = self.symbol_addr(crate::abi::IMMEDIATES_PARAM);
                Ok(Ptr::start(addr, Space::Param, ty, Some(g), 16))
            }
        }
    }

    /// `p + off` pointing at a value of type `ty`.
    pub(crate) fn offset_ptr(&mut self, p: Ptr, off: u32, ty: TypeId) -> Ptr {
        let addr = if off == 0 {
            p.addr
        } else {
            let (a, o) = (p.addr, Operand::Imm(i64::from(off)));
            let d = self.def(RegKind::B64, |d| build::add(PT::S64, d, a, o));
            self.facts.offset(d, a, p.align, off);
            d
        };
        p.offset(addr, off, ty)
    }

    fn is_atomic(&self, ty: TypeId) -> bool {
        matches!(self.types.get(ty), Type::Atomic(_))
    }

    // ---- constants ----

    pub(crate) fn const_comps(
        &mut self,
        c: &ConstValue,
        ty: TypeId,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        Ok(match c {
            ConstValue::Bool(b) => vec![self.imm_pred(*b)],
            ConstValue::I32(v) => vec![self.imm_u32(*v as u32)],
            ConstValue::U32(v) => vec![self.imm_u32(*v)],
            ConstValue::F32(bits) => vec![self.imm_f32(f32::from_bits(*bits))],
            ConstValue::F16(bits) => vec![self.imm_f16(*bits)],
            ConstValue::I64(v) => vec![self.imm_b64(Scalar::I64, *v as u64)],
            ConstValue::U64(v) => vec![self.imm_b64(Scalar::U64, *v)],
            ConstValue::F64(bits) => vec![self.imm_b64(Scalar::F64, *bits)],
            ConstValue::Composite(cty, parts) => {
                let mut out = Vec::new();
                let n = parts.len() as u32;
                for (i, p) in parts.iter().enumerate() {
                    let pty = match layout::member_range(&mut self.types, *cty, i as u32) {
                        Some((_, t)) => t,
                        None if n > 0 => match self.types.get(*cty).clone() {
                            Type::Vector { scalar, .. } => self.types.scalar(scalar),
                            _ => return Err(self.internal("bad composite constant")),
                        },
                        None => return Err(self.internal("bad composite constant")),
                    };
                    out.extend(self.const_comps(p, pty)?);
                }
                let _ = ty;
                out
            }
            ConstValue::Zero(zty) => {
                let l = self.leaves_of(*zty)?;
                l.iter().map(|l| self.imm_of(l.scalar, 0.0)).collect()
            }
        })
    }
}

impl InstLowering for Lower<'_> {
    fn define(&mut self, r: ValueId, v: Val) {
        self.vals.insert(r, v);
    }

    fn region(&mut self, op: &Op) -> Result<(), Diagnostic> {
        match op {
            Op::If { cond, then_, else_, results } => {
                if let Some(pairs) = self.selects(then_, else_, results) {
                    // Both arms only pick values: `selp` (a predicate's logic for `bool`)
                    // instead of a branch diamond. naga spells `a && b` with a precomputed
                    // `b` this way; the diamond became predicated moves in SASS.
                    for (r, (t, e)) in results.iter().zip(pairs) {
                        let v = lowering_common::select(self, *cond, t, e)?;
                        self.define(*r, lowering_common::Val::Comps(v));
                    }
                    return Ok(());
                }
                let c = self.scalar(*cond)?;
                let tb = self.mf.new_block();
                let eb = self.mf.new_block();
                let merge = self.merge_block(results)?;
                // Without `.uni`, ptxas cannot tell that no warp diverges here and adds a
                // `WARPSYNC` before the barriers of a versioned loop (`passes::version_loops`).
                if self.uniform_preds.contains(&c) {
                    self.mf.uniform_branches.push(self.cur);
                }
                self.set_term(Term::Branch {
                    cond: c,
                    then_: Target { block: tb, args: vec![] },
                    else_: Target { block: eb, args: vec![] },
                });
                self.cur = tb;
                self.block(then_, Some(YieldTo::Jump(merge)))?;
                self.cur = eb;
                self.block(else_, Some(YieldTo::Jump(merge)))?;
                self.cur = merge;
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let init = self.flatten(init)?;
                let bb = self.mf.new_block();
                let bp = self.bind_params(&body.params)?;
                let cb = self.mf.new_block();
                let cp = self.bind_params(&continuing.params)?;
                if let Some(b) = self.mf.blocks.get_mut(bb.0 as usize) {
                    b.params = bp;
                }
                if let Some(b) = self.mf.blocks.get_mut(cb.0 as usize) {
                    b.params = cp;
                }
                let exit = self.merge_block(results)?;
                self.jump(bb, init);
                self.frames.push(lowering_common::Frame::Loop { cont: cb, exit });
                self.cur = bb;
                self.block(body, Some(YieldTo::Jump(cb)))?;
                self.cur = cb;
                self.block(
                    continuing,
                    Some(YieldTo::LoopEnd { break_if: *break_if, body: bb, exit }),
                )?;
                self.frames.pop();
                self.cur = exit;
            }
            Op::Switch { selector, cases, results } => {
                let sel = self.scalar(*selector)?;
                let signed = self.scalar_ty(*selector)? == Scalar::I32;
                let merge = self.merge_block(results)?;
                let blocks: Vec<BlockId> = cases.iter().map(|_| self.mf.new_block()).collect();
                let mut default = None;
                for (case, &b) in cases.iter().zip(&blocks) {
                    if case.default {
                        default = Some(b);
                    }
                    for &v in &case.values {
                        let imm = if signed {
                            Operand::Imm(i64::from(v as i32))
                        } else {
                            Operand::Imm(i64::from(v as u32))
                        };
                        let ty = if signed { PT::S32 } else { PT::U32 };
                        let p =
                            self.def(RegKind::Pred, |p| build::setp(CmpOp::Eq, ty, p, sel, imm));
                        let next = self.mf.new_block();
                        self.set_term(Term::Branch {
                            cond: p,
                            then_: Target { block: b, args: vec![] },
                            else_: Target { block: next, args: vec![] },
                        });
                        self.cur = next;
                    }
                }
                let default = default.unwrap_or(merge);
                if default == merge && !results.is_empty() {
                    return Err(self.internal("switch without default yields values"));
                }
                self.jump(default, vec![]);
                self.frames.push(lowering_common::Frame::Switch { exit: merge });
                for (case, &b) in cases.iter().zip(&blocks) {
                    self.cur = b;
                    self.block(&case.body, Some(YieldTo::Jump(merge)))?;
                }
                self.frames.pop();
                self.cur = merge;
            }
            Op::Inline { body, args, results, callee } => {
                if self.tile_inline(*callee, args, results)? {
                    return Ok(());
                }
                for (p, a) in body.params.iter().zip(args) {
                    let v = self.val(*a)?.clone();
                    self.vals.insert(*p, v);
                    // A texture or sampler argument: the parameter names the same global.
                    if let Some(&g) = self.tex.handles.get(a) {
                        self.tex.handles.insert(*p, g);
                    }
                }
                let merge = self.merge_block(results)?;
                self.frames.push(lowering_common::Frame::Inline { exit: merge });
                self.block(body, Some(YieldTo::Jump(merge)))?;
                self.frames.pop();
                self.cur = merge;
            }
            _ => return Err(self.internal("not a region")),
        }
        Ok(())
    }

    fn pointer(&self, v: ValueId) -> Result<Ptr, Diagnostic> {
        self.ptr(v)
    }

    /// A texture or sampler binds its handle to `result`; anything else is its address.
    fn global(&mut self, g: GlobalId, result: Option<ValueId>) -> Result<Option<Val>, Diagnostic> {
        if self.m.globals.get(g.index()).is_some_and(|x| x.space == AddressSpace::Handle) {
            return Ok(self.handle_value(result, g));
        }
        Ok(Some(Val::Ptr(self.global_addr(g)?)))
    }

    /// A function-local variable lives in the entry's local depot at a fixed offset.
    fn local(&mut self, l: ir::LocalId) -> Result<Ptr, Diagnostic> {
        let off =
            *self.local_offsets.get(l.index()).ok_or_else(|| self.internal("unknown local"))?;
        let pointee = self.f.locals.get(l.index()).map_or(TypeId(0), |l| l.ty);
        let base = self.local_depot();
        let p = Ptr::start(base, Space::Local, pointee, None, 16);
        Ok(self.offset_ptr(p, off, pointee))
    }

    fn element(
        &mut self,
        p: Ptr,
        idx: ValueId,
        stride: u32,
        ety: TypeId,
    ) -> Result<Ptr, Diagnostic> {
        // `a[x >> k][x & (2^k - 1)]` indexes the outer array with `x` (the base and index
        // below are then the outer access's and `x`).
        let (base, idx) = self.split_element(&p, idx, stride)?.unwrap_or((p, idx));
        let split = self.offset_indices.get(&idx).copied();
        let i = self.scalar(split.map_or(idx, |(x, _)| x))?;
        let st = Operand::Imm(i64::from(stride));
        let off = self.def(RegKind::B64, |d| build::mul_wide(PT::U32, d, i, st));
        let pa = base.addr;
        let mut addr = self.def(RegKind::B64, |d| build::add(PT::S64, d, pa, off));
        if let Some((_, c)) = split {
            let bytes = Operand::Imm(i64::from(c) * i64::from(stride));
            addr = self.def(RegKind::B64, |d| build::add(PT::S64, d, addr, bytes));
        }
        self.facts.access(addr, pa, base.align, stride, idx, &self.known);
        let align = base.align.min(align::lowbit(stride).saturating_mul(self.known.pow2(idx)));
        Ok(p.element(addr, ety, align))
    }

    fn load(&mut self, p: &Ptr) -> Result<Vec<VRegId>, Diagnostic> {
        let leaves = self.leaves_of(p.pointee)?;
        let atomic = self.is_atomic(p.pointee);
        let sp = p.space.state_space();
        self.facts.touch(p.addr, p.align);
        let mut out = Vec::new();
        for l in leaves {
            let a = Operand::addr(p.addr, i64::from(l.offset));
            let r = match l.scalar {
                Scalar::F16 => self.def(RegKind::B16, |d| build::ld(sp, PT::B16, d, a)),
                Scalar::Bool => {
                    let w = self.def(RegKind::B32, |d| build::ld(sp, PT::U32, d, a));
                    self.def(RegKind::Pred, |q| {
                        build::setp(CmpOp::Ne, PT::U32, q, w, Operand::Imm(0))
                    })
                }
                s if s.is_64() && atomic => {
                    self.def(RegKind::B64, |d| build::ld_relaxed(sp, PT::U64, d, a))
                }
                s if s.is_64() => self.def(RegKind::B64, |d| build::ld(sp, PT::U64, d, a)),
                // `ld.relaxed.gpu`: WGSL atomics are relaxed and device-wide.
                _ if atomic => self.def(RegKind::B32, |d| build::ld_relaxed(sp, PT::U32, d, a)),
                _ => self.def(RegKind::B32, |d| build::ld(sp, PT::U32, d, a)),
            };
            out.push(r);
        }
        Ok(out)
    }

    fn workgroup_barrier(&mut self) -> Result<(), Diagnostic> {
        self.push(build::bar_sync(0));
        Ok(())
    }

    fn store(&mut self, p: &Ptr, comps: &[VRegId]) -> Result<(), Diagnostic> {
        let leaves = self.leaves_of(p.pointee)?;
        if leaves.len() != comps.len() {
            return Err(self.internal("stored value does not match the pointee"));
        }
        let atomic = self.is_atomic(p.pointee);
        let sp = p.space.state_space();
        self.facts.touch(p.addr, p.align);
        for (l, &c) in leaves.iter().zip(comps) {
            let a = Operand::addr(p.addr, i64::from(l.offset));
            match l.scalar {
                Scalar::F16 => self.push(build::st(sp, PT::B16, a, c)),
                Scalar::Bool => {
                    let w = self.def(RegKind::B32, |d| {
                        build::selp(PT::U32, d, Operand::Imm(1), Operand::Imm(0), c)
                    });
                    self.push(build::st(sp, PT::U32, a, w));
                }
                s if s.is_64() && atomic => self.push(build::st_relaxed(sp, PT::U64, a, c)),
                s if s.is_64() => self.push(build::st(sp, PT::U64, a, c)),
                // `st.relaxed.gpu`: WGSL atomics are relaxed and device-wide.
                _ if atomic => self.push(build::st_relaxed(sp, PT::U32, a, c)),
                _ => self.push(build::st(sp, PT::U32, a, c)),
            }
        }
        Ok(())
    }

    fn barrier(&mut self, b: ir::Barrier) -> Result<(), Diagnostic> {
        if b == ir::Barrier::SUB_GROUP {
            self.push(Instruction::new(
                Opcode::Bar,
                vec![Flag::Warp.into(), Flag::Sync.into()],
                vec![Operand::ImmHex(0xffffffff)],
            ));
        } else if self.inject != Some(super::InjectedBug::DroppedBarrier) {
            self.push(build::bar_sync(0));
        }
        Ok(())
    }

    fn workgroup_all(&mut self, p: VRegId) -> Result<VRegId, Diagnostic> {
        let all = self.def(RegKind::Pred, |d| build::bar_red_and(d, p));
        self.uniform_preds.push(all);
        Ok(all)
    }

    fn offset(&mut self, p: Ptr, off: u32, ty: TypeId) -> Result<Ptr, Diagnostic> {
        Ok(self.offset_ptr(p, off, ty))
    }

    fn atomic(&mut self, p: &Ptr, op: ir::AtomicOp, v: VRegId) -> Result<VRegId, Diagnostic> {
        use ir::AtomicOp as A;
        let s = match self.types.get(p.pointee) {
            Type::Atomic(s) => *s,
            _ => return Err(self.internal("atomic on a non-atomic pointer")),
        };
        if s.is_64() {
            let addr = Operand::addr(p.addr, 0);
            return Ok(self.atomic64(p.space.state_space(), addr, op, s, v));
        }
        let t = match s {
            Scalar::I32 => PT::S32,
            Scalar::F32 => PT::F32,
            _ => PT::U32,
        };
        let (aop, t, v) = match op {
            A::Add => (AtomOp::Add, t, v),
            // `atom.add.f32` of the negation: PTX has no `atom.sub` (flushing as the add does).
            A::Sub if s == Scalar::F32 => {
                let n = self.def(RegKind::B32, |d| build::unary(Opcode::Neg, &[], PT::F32, d, v));
                (AtomOp::Add, t, n)
            }
            A::Sub => {
                let n = self.def(RegKind::B32, |d| build::unary(Opcode::Neg, &[], PT::S32, d, v));
                (AtomOp::Add, t, n)
            }
            A::And => (AtomOp::And, PT::B32, v),
            A::Or => (AtomOp::Or, PT::B32, v),
            A::Xor => (AtomOp::Xor, PT::B32, v),
            A::Min => (AtomOp::Min, t, v),
            A::Max => (AtomOp::Max, t, v),
            A::Exchange => (AtomOp::Exch, PT::B32, v),
        };
        let sp = p.space.state_space();
        let addr = Operand::addr(p.addr, 0);
        Ok(self.def(RegKind::B32, |d| build::atom(sp, aop, t, d, addr, v)))
    }

    fn compare_exchange(
        &mut self,
        p: &Ptr,
        c: VRegId,
        v: VRegId,
    ) -> Result<[VRegId; 2], Diagnostic> {
        let sp = p.space.state_space();
        let addr = Operand::addr(p.addr, 0);
        let wide = matches!(self.types.get(p.pointee), Type::Atomic(s) if s.is_64());
        let (k, bt, ut) =
            if wide { (RegKind::B64, PT::B64, PT::U64) } else { (RegKind::B32, PT::B32, PT::U32) };
        let old = self.def(k, |d| build::atom_cas(sp, bt, d, addr, c, v));
        let eq = self.def(RegKind::Pred, |q| build::setp(CmpOp::Eq, ut, q, old, c));
        Ok([old, eq])
    }

    fn image(&mut self, op: &Op) -> Result<Option<Val>, Diagnostic> {
        self.image_op(op)
    }

    fn buffers(&self) -> &[Option<GlobalId>] {
        &self.layout.buffers
    }

    fn constant(&mut self, c: &ConstValue, ty: TypeId) -> Result<Vec<VRegId>, Diagnostic> {
        self.const_comps(c, ty)
    }

    fn zero_workgroup_memory(&mut self) -> Result<(), Diagnostic> {
        self.zero_shared()
    }

    fn builtin_input(
        &mut self,
        b: ir::BuiltIn,
        ty: TypeId,
        used: u32,
    ) -> Result<Vec<VRegId>, Diagnostic> {
        self.builtin(b, ty, used)
    }

    fn array_length(&mut self, a: ArrayLength) -> Result<VRegId, Diagnostic> {
        let sizes = self.sizes.ok_or_else(|| self.internal("arrayLength without p_sizes"))?;
        let slot = Operand::addr(sizes, (a.slot * 4) as i64);
        let bytes = self.def(RegKind::B32, |d| build::ld(StateSpace::Global, PT::U32, d, slot));
        // A runtime-sized array at offset 0 (a bare `array<T>`) needs no subtraction.
        let rest = if a.offset == 0 {
            bytes
        } else {
            let off_r = self.imm_u32(a.offset);
            let rest = self
                .def(RegKind::B32, |d| build::binary(Opcode::Max, &[], PT::U32, d, bytes, off_r));
            self.def(RegKind::B32, |d| build::sub(PT::S32, d, rest, off_r))
        };
        match self.udiv_const(rest, a.stride) {
            Some(n) => Ok(n),
            None => Err(self.internal("array stride 0")),
        }
    }

    fn value_op(&mut self, op: &Op, ty: TypeId) -> Result<Vec<VRegId>, Diagnostic> {
        self.value_components(op, ty)
    }
}

#[cfg(test)]
mod tests {
    use super::f32_to_f16_bits;

    #[test]
    fn f16_bits_round_to_nearest_even() {
        // Expected patterns from the IEEE 754 binary16 definition.
        let cases: [(f32, u16); 9] = [
            (1.0, 0x3C00),
            (-2.0, 0xC000),
            (0.5, 0x3800),
            (65504.0, 0x7BFF),
            (1e5, 0x7C00),
            (2f32.powi(-24), 0x0001),
            (2f32.powi(-14), 0x0400),
            (1.0 + 2f32.powi(-11), 0x3C00),       // tie -> even
            (1.0 + 3.0 * 2f32.powi(-11), 0x3C02), // tie -> even (up)
        ];
        for (x, bits) in cases {
            assert_eq!(f32_to_f16_bits(x), bits, "{x}");
        }
        assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7C00, 0x7C00);
    }
}
