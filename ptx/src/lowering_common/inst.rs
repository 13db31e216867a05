//! The per-instruction dispatch both PTX backends share: which IR operation becomes which
//! backend primitive, and everything between (pointer arithmetic from the layout, barriers
//! around a uniform load, what neither backend supports). A backend implements
//! [`InstLowering`] (how to emit each primitive) and calls [`lower_inst`] for every
//! instruction that is not control flow.

use super::{
    coop_fragment, cut_short, mma_operands, pad_short, CoopShape, MmaOperands, Ptr, ScalarLowering,
};
use crate::abi::layout;
use dianran_frontend::ir::{self, GlobalId, Inst, LocalId, Op, TypeId, ValueId};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// The lowered form of an SSA value: scalar components in [`layout::leaves`] order, or a
/// pointer.
#[derive(Clone, Debug)]
pub enum Val<V, P> {
    /// Scalar components.
    Comps(Vec<V>),
    /// A pointer.
    Ptr(P),
}

/// A backend's pointer type.
pub type PtrOf<L> = Ptr<<L as ScalarLowering>::Addr, <L as ScalarLowering>::Space>;
/// A backend's lowered value.
pub type ValOf<L> = Val<<L as ScalarLowering>::Value, PtrOf<L>>;

/// How a lane reads or writes its part of a cooperative-matrix fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragForm {
    /// `ldmatrix` (f16 fragments in workgroup memory): one instruction for the warp.
    Ldmatrix,
    /// Each lane's two adjacent elements as one access of twice the element size (a
    /// `packed` fragment's four adjacent bytes as one word).
    Pairs,
    /// Element by element.
    Elements,
}

/// A `coopLoad` or `coopStore`: the matrix, where it is and how it is laid out.
#[derive(Clone, Copy, Debug)]
pub struct CoopAccess<P> {
    /// The fragment's shape.
    pub shape: CoopShape,
    /// The pointer to the first element.
    pub ptr: P,
    /// The SSA value of the pointer (what alignment analysis knows about it).
    pub ptr_value: ValueId,
    /// The stride between rows (row-major) or columns, in elements of the pointee.
    pub stride: ValueId,
    /// Matrix elements per stride unit (`ir::Types::coop_scale`: 1 unless a Dawn load
    /// reads the matrix from an array of another element type).
    pub scale: u32,
    /// `coopLoadT` / `coopStoreT` read the matrix transposed: row-major.
    pub row_major: bool,
    /// The bounds policy's limit (a `u32`: elements from the first one to the end of its
    /// array); an element at a larger or equal offset reads zero or is not written.
    pub limit: Option<ValueId>,
}

impl<P> CoopAccess<P> {
    /// The form a load takes, with the alignment in bytes that form needs of the address
    /// and of `stride * element size` (a backend proves it or checks it at run time, falling
    /// back to [`FragForm::Elements`], which needs none): `ldmatrix` for f16 in workgroup
    /// memory (`in_shared`, not for 8-row tiles), pairs where a lane's two elements are
    /// adjacent.
    pub fn load_form(&self, in_shared: bool) -> (FragForm, u32) {
        let packed_ldmatrix = self.shape.words_contiguous(self.row_major);
        // An 8-row (short) tile is read by pairs or elements: `ldmatrix` forms its 16 rows.
        if in_shared
            && !self.shape.short
            && (self.shape.elem == ir::CoopElem::F16 || packed_ldmatrix)
        {
            (FragForm::Ldmatrix, 16)
        } else {
            self.store_form()
        }
    }

    /// The form a store takes (pairs or elements; there is no `stmatrix` before sm_90), with
    /// the alignment it needs as in [`CoopAccess::load_form`].
    pub fn store_form(&self) -> (FragForm, u32) {
        let size = self.shape.elem.size();
        if self.shape.packed {
            return if self.shape.words_contiguous(self.row_major) {
                (FragForm::Pairs, 4)
            } else {
                (FragForm::Elements, size)
            };
        }
        if self.shape.pairs_contiguous(self.row_major) && !self.shape.elem.is_byte() {
            (FragForm::Pairs, 2 * size)
        } else {
            (FragForm::Elements, size)
        }
    }
}

/// How a backend emits cooperative-matrix operations, given operands [`lower_inst`] has
/// resolved and checked.
pub trait CoopLowering: ScalarLowering + Sized {
    /// `coopLoad` / `coopLoadT`.
    fn coop_load(&mut self, a: CoopAccess<PtrOf<Self>>) -> R<Vec<Self::Value>>;
    /// `coopStore` / `coopStoreT` of fragment components `v`.
    fn coop_store(&mut self, a: CoopAccess<PtrOf<Self>>, v: &[Self::Value]) -> R<()>;
    /// `coopMultiplyAdd(a, b, c)` = a·b + c, with 16-row A and C ([`coop_product`] pads the
    /// 8-row ones before calling this).
    fn coop_mma(&mut self, ops: MmaOperands<Self::Value>) -> R<Vec<Self::Value>>;
    /// A fragment with every element `v` (clamped to a byte element's range).
    fn coop_fill(&mut self, shape: CoopShape, v: Self::Value) -> R<Vec<Self::Value>>;
    /// `op` (`+`, `-`, `*`) of every element of `frag` and the (clamped) scalar `s`, in the
    /// element's type.
    fn coop_scalar(
        &mut self,
        shape: CoopShape,
        op: ir::BinaryOperator,
        frag: &[Self::Value],
        s: Self::Value,
    ) -> R<Vec<Self::Value>>;
}

/// `a·b + c` through [`CoopLowering::coop_mma`]. Dawn's 8-row (short) A and C are padded to
/// the 16-row fragments with zeros and rows 0..8 of the 16-row product kept: no NVIDIA
/// instruction has M = 8 with these N and K, and both backends then see full shapes only.
pub fn coop_product<L: CoopLowering>(l: &mut L, ops: MmaOperands<L::Value>) -> R<Vec<L::Value>> {
    let (sa, sc) = (ops.a, ops.c);
    if !sa.short {
        return l.coop_mma(ops);
    }
    let [av, bv, cv] = ops.frags;
    let (za, zc) = (l.zero_comp(sa.scalar()), l.zero_comp(sc.scalar()));
    let frags = [pad_short(sa, &av, za), bv, pad_short(sc, &cv, zc)];
    let d = l.coop_mma(MmaOperands { a: sa.full(), c: sc.full(), frags })?;
    Ok(cut_short(sc, &d))
}

/// How a backend emits the primitives [`lower_inst`] selects.
pub trait InstLowering: CoopLowering {
    /// Records the lowered form of SSA value `r`.
    fn define(&mut self, r: ValueId, v: ValOf<Self>);
    /// The pointer that SSA value `v` holds.
    fn pointer(&self, v: ValueId) -> R<PtrOf<Self>>;
    /// Lowers a structured control-flow operation (`if`, `loop`, `switch`, an inlined call).
    fn region(&mut self, op: &Op) -> R<()>;

    /// The address of module-scope variable `g` (`result`: the SSA value it defines; a
    /// backend may bind a texture or sampler handle to it instead of a pointer).
    fn global(&mut self, g: GlobalId, result: Option<ValueId>) -> R<Option<ValOf<Self>>>;
    /// The address of function-local variable `l`.
    fn local(&mut self, l: LocalId) -> R<PtrOf<Self>>;
    /// `p + off` bytes, pointing at a value of type `ty`.
    fn offset(&mut self, p: PtrOf<Self>, off: u32, ty: TypeId) -> R<PtrOf<Self>>;
    /// Element `index` of the array `p` points to (`stride` bytes apart, of type `ety`).
    fn element(
        &mut self,
        p: PtrOf<Self>,
        index: ValueId,
        stride: u32,
        ety: TypeId,
    ) -> R<PtrOf<Self>>;
    /// The components of the value `p` points to.
    fn load(&mut self, p: &PtrOf<Self>) -> R<Vec<Self::Value>>;
    /// Stores components `c` where `p` points.
    fn store(&mut self, p: &PtrOf<Self>, c: &[Self::Value]) -> R<()>;
    /// A workgroup execution and memory barrier.
    fn workgroup_barrier(&mut self) -> R<()>;
    /// The barrier statement `b` (`workgroupBarrier`, `storageBarrier`, `subgroupBarrier`...).
    fn barrier(&mut self, b: ir::Barrier) -> R<()>;
    /// A workgroup barrier that also tells whether the bool `p` is true on every invocation of
    /// the workgroup ([`ir::Op::WorkgroupAll`]).
    fn workgroup_all(&mut self, p: Self::Value) -> R<Self::Value>;
    /// An atomic read-modify-write; the old value.
    fn atomic(&mut self, p: &PtrOf<Self>, op: ir::AtomicOp, v: Self::Value) -> R<Self::Value>;
    /// `atomicCompareExchangeWeak`: the old value and whether it equalled `compare`.
    fn compare_exchange(
        &mut self,
        p: &PtrOf<Self>,
        compare: Self::Value,
        v: Self::Value,
    ) -> R<[Self::Value; 2]>;
    /// The components of constant `c` of type `ty`.
    fn constant(&mut self, c: &ir::ConstValue, ty: TypeId) -> R<Vec<Self::Value>>;
    /// Zeroes the workgroup variables the entry uses (WGSL zero-initializes them), then
    /// synchronizes the workgroup.
    fn zero_workgroup_memory(&mut self) -> R<()>;
    /// The components of builtin input `b` of type `ty`; bit `i` of `used` is set when the
    /// entry reads component `i` (a backend may leave the others unset).
    fn builtin_input(&mut self, b: ir::BuiltIn, ty: TypeId, used: u32) -> R<Vec<Self::Value>>;
    /// The buffer behind each parameter slot, in the entry plan's order.
    fn buffers(&self) -> &[Option<GlobalId>];
    /// `arrayLength`: `(max(sizes[slot], offset) - offset) / stride`, reading the byte size
    /// from the `p_sizes` array.
    fn array_length(&mut self, a: ArrayLength) -> R<Self::Value>;
    /// A texture operation (sample, load, store, query).
    fn image(&mut self, op: &Op) -> R<Option<ValOf<Self>>>;
    /// Every other operation that produces a value of type `ty` (arithmetic, conversions,
    /// composites, builtins, subgroup operations).
    fn value_op(&mut self, op: &Op, ty: TypeId) -> R<Vec<Self::Value>>;
}

/// Lowers one instruction of a block.
pub fn lower_inst<L: InstLowering>(l: &mut L, inst: &Inst) -> R<()> {
    let op = &inst.op;
    if matches!(op, Op::If { .. } | Op::Loop { .. } | Op::Switch { .. } | Op::Inline { .. }) {
        return l.region(op);
    }
    let val = match op {
        Op::GlobalAddr(g) => l.global(*g, inst.result)?,
        Op::LocalAddr(x) => Some(Val::Ptr(l.local(*x)?)),
        Op::AccessIndex(base, i) => {
            let p = l.pointer(*base)?;
            let (off, mty) = layout::member_offset(l.types_mut(), p.pointee, *i)
                .ok_or_else(|| l.internal("bad member index"))?;
            Some(Val::Ptr(l.offset(p, off, mty)?))
        }
        Op::Access(base, idx) => {
            let p = l.pointer(*base)?;
            let (stride, ety, _) = layout::element_stride(l.types_mut(), p.pointee)
                .ok_or_else(|| l.internal("Access on a non-indexable pointee"))?;
            Some(Val::Ptr(l.element(p, *idx, stride, ety)?))
        }
        Op::Load(p) => {
            let p = l.pointer(*p)?;
            Some(Val::Comps(l.load(&p)?))
        }
        Op::Store { ptr, value } => {
            let p = l.pointer(*ptr)?;
            let c = l.value_comps(*value)?;
            l.store(&p, &c)?;
            None
        }
        // Every invocation reads the same value: barriers on both sides order it after the
        // writes before it and before the writes after it.
        Op::WorkgroupUniformLoad(p) => {
            let p = l.pointer(*p)?;
            l.workgroup_barrier()?;
            let c = l.load(&p)?;
            l.workgroup_barrier()?;
            Some(Val::Comps(c))
        }
        Op::Barrier(b) => {
            l.barrier(*b)?;
            None
        }
        Op::WorkgroupAll(p) => {
            let p = super::scalar(l, *p)?;
            Some(Val::Comps(vec![l.workgroup_all(p)?]))
        }
        Op::Atomic { ptr, op, value } => {
            let p = l.pointer(*ptr)?;
            let v = super::scalar(l, *value)?;
            Some(Val::Comps(vec![l.atomic(&p, *op, v)?]))
        }
        Op::AtomicCompareExchange { ptr, compare, value } => {
            let p = l.pointer(*ptr)?;
            let c = super::scalar(l, *compare)?;
            let v = super::scalar(l, *value)?;
            Some(Val::Comps(l.compare_exchange(&p, c, v)?.to_vec()))
        }
        Op::ArrayLength(p) => {
            let a = array_length_of(l, *p)?;
            Some(Val::Comps(vec![l.array_length(a)?]))
        }
        Op::Call(..) => {
            return Err(l.unsupported("calls to user functions that were not inlined"));
        }
        Op::ImageSample { .. }
        | Op::ImageLoad { .. }
        | Op::ImageStore { .. }
        | Op::ImageQuery(..) => l.image(op)?,
        Op::Derivative(..) => return Err(l.unsupported("derivatives")),
        Op::CoopLoad { ptr, stride, row_major, limit } => {
            let ty = result_ty(l, inst, "coopLoad")?;
            let shape = l.coop_layout(ty)?;
            let access = coop_access(l, (shape, ty), *ptr, *stride, *row_major, *limit)?;
            Some(Val::Comps(l.coop_load(access)?))
        }
        Op::CoopStore { value, ptr, stride, row_major, limit } => {
            let (shape, v) = coop_fragment(l, *value)?;
            let ty = l.value_ty(*value);
            let access = coop_access(l, (shape, ty), *ptr, *stride, *row_major, *limit)?;
            l.coop_store(access, &v)?;
            None
        }
        Op::CoopMultiplyAdd(a, b, c) => {
            let ops = mma_operands(l, *a, *b, *c)?;
            Some(Val::Comps(coop_product(l, ops)?))
        }
        Op::CoopFill(x) => {
            let shape = l.coop_layout(result_ty(l, inst, "coop_fill")?)?;
            let v = super::scalar(l, *x)?;
            Some(Val::Comps(l.coop_fill(shape, v)?))
        }
        Op::CoopScalar { op, matrix, scalar } => {
            let (shape, frag) = coop_fragment(l, *matrix)?;
            let s = super::scalar(l, *scalar)?;
            Some(Val::Comps(l.coop_scalar(shape, *op, &frag, s)?))
        }
        _ => {
            let ty = result_ty(l, inst, "value operation")?;
            Some(Val::Comps(l.value_op(op, ty)?))
        }
    };
    if let (Some(r), Some(v)) = (inst.result, val) {
        l.define(r, v);
    }
    Ok(())
}

/// The type of the value `inst` defines; an internal error names `what` when it defines none.
fn result_ty<L: InstLowering>(l: &L, inst: &Inst, what: &str) -> R<TypeId> {
    let r = inst.result.ok_or_else(|| l.internal(&format!("{what} without result")))?;
    Ok(l.value_ty(r))
}

/// The operands of a `coopLoad` / `coopStore` of a `shape` matrix at `ptr`.
fn coop_access<L: InstLowering>(
    l: &mut L,
    (shape, matrix): (CoopShape, TypeId),
    ptr: ValueId,
    stride: ValueId,
    row_major: bool,
    limit: Option<ValueId>,
) -> R<CoopAccess<PtrOf<L>>> {
    let pty = l.value_ty(ptr);
    let scale = l.types_mut().coop_scale(pty, matrix);
    Ok(CoopAccess { shape, ptr: l.pointer(ptr)?, ptr_value: ptr, stride, scale, row_major, limit })
}

/// Where a module-scope variable lives, as both backends address it (docs/abi.md).
#[derive(Clone, Copy, Debug)]
pub enum GlobalHome<A> {
    /// A storage or uniform buffer: its parameter's address, and the alignment the binding
    /// promises (only its type's own: a host may pass an offset slice).
    Buffer {
        /// The buffer parameter's address.
        addr: A,
        /// A power of two dividing it.
        align: u32,
    },
    /// A workgroup variable, declared at least 16-byte aligned.
    Workgroup {
        /// A power of two dividing its address.
        align: u32,
    },
    /// A private (per-invocation) variable.
    Private,
    /// The entry's `var<immediate>`.
    Immediate,
    /// A texture or sampler.
    Handle,
}

/// Where global `g` lives and its type; `params[i]` is the address of the buffer in slot `i`
/// ([`InstLowering::buffers`]).
pub fn global_home<L: InstLowering>(
    l: &L,
    m: &ir::Module,
    params: &[Option<L::Addr>],
    g: GlobalId,
) -> R<(GlobalHome<L::Addr>, TypeId)> {
    let global = m.globals.get(g.index()).ok_or_else(|| l.internal("unknown global"))?;
    let ty = global.ty;
    let home = match global.space {
        ir::AddressSpace::Storage { .. } | ir::AddressSpace::Uniform => {
            let addr = super::buffer_param(l.buffers(), params, g)
                .ok_or_else(|| l.internal("buffer without parameter"))?;
            GlobalHome::Buffer { addr, align: super::buffer_align(&m.types, ty) }
        }
        ir::AddressSpace::Workgroup => {
            GlobalHome::Workgroup { align: super::shared_align(&m.types, ty) }
        }
        ir::AddressSpace::Private | ir::AddressSpace::Function => GlobalHome::Private,
        ir::AddressSpace::Immediate => GlobalHome::Immediate,
        ir::AddressSpace::Handle => GlobalHome::Handle,
    };
    Ok((home, ty))
}

/// An `arrayLength` resolved against the entry's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayLength {
    /// The buffer's slot (its index in `p_sizes`).
    pub slot: usize,
    /// The byte offset of the runtime-sized array in its buffer.
    pub offset: u32,
    /// The array's stride in bytes (at least 1).
    pub stride: u32,
}

/// Resolves `arrayLength(p)`: `p` must point into a buffer parameter at a static offset.
fn array_length_of<L: InstLowering>(l: &mut L, pv: ValueId) -> R<ArrayLength> {
    let p = l.pointer(pv)?;
    let (Some(root), Some(offset)) = (p.root, p.static_off) else {
        return Err(l.internal("arrayLength of a pointer with unknown origin"));
    };
    let slot = l.buffers().iter().position(|b| *b == Some(root));
    let slot = slot.ok_or_else(|| l.internal("arrayLength of a buffer without parameter"))?;
    let stride = match l.types_mut().get(p.pointee) {
        ir::Type::Array { stride, .. } => (*stride).max(1),
        _ => return Err(l.internal("arrayLength of a non-array")),
    };
    Ok(ArrayLength { slot, offset, stride })
}

/// The components of compute-entry parameter `p` of entry function `f`: a builtin, or a struct
/// whose members are builtins (compute entries have no other inputs).
pub fn entry_input<L: InstLowering>(
    l: &mut L,
    f: &ir::Function,
    p: &ir::Param,
) -> R<Vec<L::Value>> {
    let ty = l.value_ty(p.value);
    match &p.binding {
        Some(ir::IoBinding::BuiltIn(b)) => {
            // Components the body never reads are not computed (`global_invocation_id.y` of
            // a 1-D kernel).
            let mut used = 0u32;
            components_used(&f.body, p.value, &mut used);
            l.builtin_input(*b, ty, used)
        }
        Some(ir::IoBinding::Location { .. }) => {
            Err(l.unsupported("location inputs in compute entries"))
        }
        None => {
            let ir::Type::Struct { members, .. } = l.types_mut().get(ty).clone() else {
                return Err(l.internal("entry parameter without binding"));
            };
            let mut all = Vec::new();
            for m in members {
                match m.binding {
                    Some(ir::IoBinding::BuiltIn(b)) => all.extend(l.builtin_input(b, m.ty, !0)?),
                    _ => return Err(l.unsupported("non-builtin compute inputs")),
                }
            }
            Ok(all)
        }
    }
}

/// Sets bit `i` of `used` for every component `i` of `v` that `block` (nested blocks
/// included) reads: `Extract(v, i)` reads one, any other use all of them.
fn components_used(block: &ir::Block, v: ValueId, used: &mut u32) {
    for inst in &block.insts {
        match &inst.op {
            Op::Extract(a, i) if *a == v => *used |= 1u32.checked_shl(*i).unwrap_or(0),
            op => op.for_each_operand(|a| {
                if a == v {
                    *used = u32::MAX;
                }
            }),
        }
        for b in inst.op.blocks() {
            components_used(b, v, used);
        }
    }
    if block.term.args().contains(&v) {
        *used = u32::MAX;
    }
}

/// The end of every entry's prologue, after the backend has placed its variables: each
/// private variable in `privates` holds its initializer (zero without one), workgroup memory
/// is zero, and the entry's inputs are bound to its parameters.
pub fn entry_prologue<L: InstLowering>(
    l: &mut L,
    m: &ir::Module,
    f: &ir::Function,
    privates: &[GlobalId],
) -> R<()> {
    for &g in privates {
        let Some(global) = m.globals.get(g.index()) else { continue };
        let init = global.init.clone().unwrap_or(ir::ConstValue::Zero(global.ty));
        let comps = l.constant(&init, global.ty)?;
        let Some(Val::Ptr(p)) = l.global(g, None)? else {
            return Err(l.internal("private variable without an address"));
        };
        l.store(&p, &comps)?;
    }
    l.zero_workgroup_memory()?;
    for p in &f.params {
        let comps = entry_input(l, f, p)?;
        l.define(p.value, Val::Comps(comps));
    }
    Ok(())
}
