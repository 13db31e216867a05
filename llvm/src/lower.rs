//! One compute entry's SSA function to an LLVM IR kernel.
//!
//! Values are held per scalar component in [`layout::leaves`] order, as in our own backend
//! (`bool` as `i1`, `i32`/`u32` as `i32`, `f32` as `float`, `f16` as `half`); LLVM's SLP
//! vectorizer may combine them again. Structured regions become basic blocks; region
//! parameters and results become `phi`s. Memory follows docs/abi.md's layout: buffers are
//! `ptr addrspace(1)` kernel parameters, workgroup variables `addrspace(3)` globals (zeroed by
//! the entry, like ours), function-local and private variables `alloca`s, and every scalar is
//! loaded or stored at its WGSL byte offset with the alignment the layout proves.

use dianran_frontend::ir::{
    self, Block, ConstValue, GlobalId, Op, Scalar, Terminator, Type, TypeId, Types, ValueId,
};
use dianran_frontend::{DiagKind, Diagnostic};
use dianran_ptx::abi::layout::{self, leaves, Leaf};
use dianran_ptx::abi::EntryPlan;
use dianran_ptx::lowering_common::ScalarLowering;
use dianran_ptx::lowering_common::{
    self, entry_prologue, global_home, ArrayLength, Exit, GlobalHome, InstLowering,
};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FloatValue, FunctionValue, GlobalValue,
    IntValue, PhiValue, PointerValue,
};
use inkwell::{AddressSpace as As, AtomicOrdering, IntPredicate};
use rustc_hash::FxHashMap as HashMap;

pub(crate) type R<T> = Result<T, Diagnostic>;
/// One scalar component.
pub(crate) type V<'ctx> = BasicValueEnum<'ctx>;

/// LLVM address spaces of the NVPTX target.
pub(crate) const GLOBAL: u16 = 1;
pub(crate) const SHARED: u16 = 3;

/// What [`lower_entry`] needs from the module being built.
pub(crate) struct Env<'a, 'ctx> {
    pub context: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub shared_names: &'a HashMap<GlobalId, String>,
    pub shared_globals: &'a mut SharedGlobals<'ctx>,
}

/// The `addrspace(3)` global of each workgroup variable, shared by the entries that use it.
#[derive(Default)]
pub(crate) struct SharedGlobals<'ctx>(HashMap<GlobalId, GlobalValue<'ctx>>);

/// Where a pointer points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// A buffer (`addrspace(1)`).
    Global,
    /// A workgroup variable (`addrspace(3)`).
    Shared,
    /// An `alloca` (generic; LLVM's NVPTX passes move it to `.local`).
    Local,
}

/// A pointer value.
pub(crate) type Ptr<'ctx> = lowering_common::Ptr<PointerValue<'ctx>, Space>;

/// The IR form of an SSA value: components, or a pointer.
pub(crate) type Val<'ctx> = lowering_common::Val<V<'ctx>, Ptr<'ctx>>;

/// A block with parameters: the block and one `phi` per parameter component.
#[derive(Clone, Debug)]
pub(crate) struct Target<'ctx> {
    pub bb: BasicBlock<'ctx>,
    pub phis: Vec<PhiValue<'ctx>>,
}

/// Where `Yield` goes in the block being lowered.
#[derive(Clone, Debug)]
enum YieldTo<'ctx> {
    Jump(Target<'ctx>),
    LoopEnd { break_if: Option<ValueId>, body: Target<'ctx>, exit: Target<'ctx> },
}

/// The lowering of one entry point.
pub(crate) struct Lower<'a, 'ctx> {
    pub cx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: Builder<'ctx>,
    pub func: FunctionValue<'ctx>,
    pub m: &'a ir::Module,
    pub f: &'a ir::Function,
    pub plan: &'a EntryPlan,
    pub types: Types,
    pub vals: HashMap<ValueId, Val<'ctx>>,
    frames: lowering_common::Frames<Target<'ctx>>,
    /// Entry name for diagnostics.
    pub entry: String,
    /// Span of the instruction being lowered.
    pub span: ir::Span,
    params: Vec<Option<PointerValue<'ctx>>>,
    sizes: Option<PointerValue<'ctx>>,
    locals: Vec<PointerValue<'ctx>>,
    privates: HashMap<GlobalId, PointerValue<'ctx>>,
    shared: HashMap<GlobalId, GlobalValue<'ctx>>,
}

/// Diagnostic for something the LLVM backend does not support.
pub(crate) fn unsupported(what: &str, entry: &str, span: ir::Span) -> Diagnostic {
    Diagnostic::error(
        DiagKind::Unsupported,
        format!("the LLVM backend does not support {what} (entry '{entry}')"),
    )
    .at(span)
    .in_fn(entry)
    .help("compile this entry with dianran's own PTX backend (the default)")
}

/// Lowers entry `ep` (planned as `plan`) into a new kernel `ptx_name` of `env.module`.
pub(crate) fn lower_entry<'ctx>(
    env: Env<'_, 'ctx>,
    m: &ir::Module,
    ep: &ir::EntryPoint,
    plan: &EntryPlan,
    ptx_name: &str,
) -> R<()> {
    let cx = env.context;
    // Generic pointers, cast to `addrspace(1)` in the prologue (`cvta.to.global`), as clang
    // compiles CUDA kernels: the PTX ISA gives kernel parameters generic addresses.
    let ptr = cx.ptr_type(As::default());
    let params = plan.all_params();
    let args: Vec<BasicMetadataTypeEnum> = vec![ptr.into(); params.len()];
    let fty = cx.void_type().fn_type(&args, false);
    let func = env.module.add_function(ptx_name, fty, None);
    // The `ptx_kernel` calling convention makes it an `.entry`.
    func.set_call_conventions(71);
    // `.reqntid`, as our backend declares it.
    let [x, y, z] = ep.workgroup_size;
    let i32t = cx.i32_type();
    let fptr = func.as_global_value().as_pointer_value();
    for (key, n) in [("reqntidx", x), ("reqntidy", y), ("reqntidz", z)] {
        let node = cx.metadata_node(&[
            fptr.into(),
            cx.metadata_string(key).into(),
            i32t.const_int(u64::from(n.max(1)), false).into(),
        ]);
        env.module
            .add_global_metadata("nvvm.annotations", &node)
            .map_err(|e| unsupported(&format!("metadata ({e})"), &ep.name, ir::Span::default()))?;
    }
    for (p, n) in func.get_param_iter().zip(&params) {
        p.set_name(n);
    }
    let mut shared = HashMap::default();
    for &g in &plan.shared {
        let gv = match env.shared_globals.0.get(&g) {
            Some(gv) => *gv,
            None => {
                let name =
                    env.shared_names.get(&g).cloned().unwrap_or_else(|| format!("wg{}", g.0));
                let words = dianran_ptx::abi::shared_words(m, g);
                let ty = i32t.array_type(words);
                let gv = env.module.add_global(ty, Some(As::from(SHARED)), &name);
                gv.set_initializer(&ty.get_undef());
                gv.set_linkage(Linkage::Internal);
                let align = m.globals.get(g.index()).map_or(16, |gl| m.types.size_align(gl.ty).1);
                gv.set_alignment(align.max(16));
                env.shared_globals.0.insert(g, gv);
                gv
            }
        };
        shared.insert(g, gv);
    }
    let entry_bb = cx.append_basic_block(func, "entry");
    let b = cx.create_builder();
    b.position_at_end(entry_bb);
    let mut lw = Lower {
        cx,
        module: env.module,
        b,
        func,
        m,
        f: &plan.function,
        plan,
        types: m.types.clone(),
        vals: HashMap::default(),
        frames: lowering_common::Frames::default(),
        entry: ep.name.clone(),
        span: plan.function.span,
        params: Vec::new(),
        sizes: None,
        locals: Vec::new(),
        privates: HashMap::default(),
        shared,
    };
    lw.prologue()?;
    let body = &plan.function.body;
    lw.block(body, None)?;
    remove_dead_phis(func);
    Ok(())
}

/// Removes the `phi`s of blocks nothing branches to (the exit of a loop without `break`, the
/// merge of an `if` whose arms both return): LLVM's verifier rejects a `phi` without incoming
/// values. Their uses are in dead code too and get `poison`.
fn remove_dead_phis(func: FunctionValue<'_>) {
    use inkwell::values::InstructionOpcode;
    for bb in func.get_basic_blocks() {
        let mut next = bb.get_first_instruction();
        while let Some(inst) = next {
            next = inst.get_next_instruction();
            if inst.get_opcode() != InstructionOpcode::Phi {
                break;
            }
            let Ok(phi) = PhiValue::try_from(inst) else { continue };
            if phi.count_incoming() > 0 {
                continue;
            }
            match phi.as_basic_value() {
                BasicValueEnum::IntValue(v) => v.replace_all_uses_with(v.get_type().get_poison()),
                BasicValueEnum::FloatValue(v) => v.replace_all_uses_with(v.get_type().get_poison()),
                _ => continue,
            }
            inst.erase_from_basic_block();
        }
    }
}

pub(crate) use dianran_ptx::codegen::align::lowbit;

impl<'a, 'ctx> Lower<'a, 'ctx> {
    // ---- helpers ----

    /// A builder result as a diagnostic.
    pub(crate) fn ok<T>(&self, r: Result<T, BuilderError>) -> R<T> {
        r.map_err(|e| self.internal(&format!("LLVM builder: {e}")))
    }

    pub(crate) fn val(&self, v: ValueId) -> R<&Val<'ctx>> {
        self.vals
            .get(&v)
            .ok_or_else(|| self.internal(&format!("value {v:?} used before it is defined")))
    }

    pub(crate) fn comps(&self, v: ValueId) -> R<Vec<V<'ctx>>> {
        match self.val(v)? {
            Val::Comps(c) => Ok(c.clone()),
            Val::Ptr(_) => Err(self.internal("a pointer where a value was expected")),
        }
    }

    pub(crate) fn scalar(&self, v: ValueId) -> R<V<'ctx>> {
        self.comps(v)?.first().copied().ok_or_else(|| self.internal("empty value"))
    }

    pub(crate) fn ptr(&self, v: ValueId) -> R<Ptr<'ctx>> {
        match self.val(v)? {
            Val::Ptr(p) => Ok(*p),
            Val::Comps(_) => Err(self.internal("a value where a pointer was expected")),
        }
    }

    pub(crate) fn ty(&self, v: ValueId) -> TypeId {
        self.f.ty(v)
    }

    pub(crate) fn scalar_ty(&self, v: ValueId) -> R<Scalar> {
        self.types.scalar_of(self.ty(v)).ok_or_else(|| self.internal("not a scalar type"))
    }

    pub(crate) fn leaves_of(&self, ty: TypeId) -> R<Vec<Leaf>> {
        leaves(&self.types, ty).ok_or_else(|| self.unsupported("values of this type in registers"))
    }

    /// The LLVM type of a scalar.
    pub(crate) fn llty(&self, s: Scalar) -> BasicTypeEnum<'ctx> {
        match s {
            Scalar::Bool => self.cx.bool_type().into(),
            Scalar::I32 | Scalar::U32 => self.cx.i32_type().into(),
            Scalar::F32 => self.cx.f32_type().into(),
            Scalar::F16 => self.cx.f16_type().into(),
            Scalar::I64 | Scalar::U64 => self.cx.i64_type().into(),
            Scalar::F64 => self.cx.f64_type().into(),
        }
    }

    /// An `i32` constant.
    pub(crate) fn u32c(&self, v: u32) -> IntValue<'ctx> {
        self.cx.i32_type().const_int(u64::from(v), false)
    }

    /// A constant of scalar type `s` with numeric value `v`.
    pub(crate) fn const_of(&self, s: Scalar, v: f64) -> V<'ctx> {
        match s {
            Scalar::Bool => self.cx.bool_type().const_int(u64::from(v != 0.0), false).into(),
            Scalar::I32 => self.cx.i32_type().const_int(v as i32 as u32 as u64, false).into(),
            Scalar::U32 => self.cx.i32_type().const_int(u64::from(v as u32), false).into(),
            Scalar::F32 => self.cx.f32_type().const_float(v).into(),
            Scalar::F16 => self.cx.f16_type().const_float(v).into(),
            Scalar::I64 => self.cx.i64_type().const_int(v as i64 as u64, false).into(),
            Scalar::U64 => self.cx.i64_type().const_int(v as u64, false).into(),
            Scalar::F64 => self.cx.f64_type().const_float(v).into(),
        }
    }

    /// Declares (once) and calls `name` with `args`, returning its result.
    pub(crate) fn call(
        &self,
        name: &str,
        ret: Option<BasicTypeEnum<'ctx>>,
        args: &[V<'ctx>],
    ) -> R<Option<V<'ctx>>> {
        let f = match self.module.get_function(name) {
            Some(f) => f,
            None => {
                let ps: Vec<BasicMetadataTypeEnum> =
                    args.iter().map(|a| a.get_type().into()).collect();
                let fty = match ret {
                    Some(t) => t.fn_type(&ps, false),
                    None => self.cx.void_type().fn_type(&ps, false),
                };
                self.module.add_function(name, fty, None)
            }
        };
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|&v| v.into()).collect();
        let c = self.ok(self.b.build_call(f, &a, ""))?;
        Ok(c.try_as_basic_value().basic())
    }

    /// [`Lower::call`] for a function that returns a value.
    pub(crate) fn call_v(
        &self,
        name: &str,
        ret: BasicTypeEnum<'ctx>,
        args: &[V<'ctx>],
    ) -> R<V<'ctx>> {
        self.call(name, Some(ret), args)?.ok_or_else(|| self.internal("call without result"))
    }

    /// `llvm.nvvm.read.ptx.sreg.<name>`.
    pub(crate) fn sreg(&self, name: &str) -> R<IntValue<'ctx>> {
        let i32t = self.cx.i32_type().into();
        Ok(self.call_v(&format!("llvm.nvvm.read.ptx.sreg.{name}"), i32t, &[])?.into_int_value())
    }

    /// `bar.sync 0`.
    pub(crate) fn bar_sync(&self) -> R<()> {
        self.call("llvm.nvvm.barrier0", None, &[])?;
        Ok(())
    }

    /// A new block with one `phi` per component of `ty`s, placed at the end of the function.
    fn target(&self, tys: &[TypeId]) -> R<Target<'ctx>> {
        let bb = self.cx.append_basic_block(self.func, "");
        let here = self.b.get_insert_block();
        self.b.position_at_end(bb);
        let mut phis = Vec::new();
        for &t in tys {
            for l in self.leaves_of(t)? {
                phis.push(self.ok(self.b.build_phi(self.llty(l.scalar), ""))?);
            }
        }
        if let Some(h) = here {
            self.b.position_at_end(h);
        }
        Ok(Target { bb, phis })
    }

    /// Binds the phis of `t` to the values `vs` (their component lists, in order).
    fn bind_target(&mut self, t: &Target<'ctx>, vs: &[ValueId]) -> R<()> {
        let mut i = 0;
        for &v in vs {
            let n = layout::leaf_count(&self.types, self.ty(v));
            let comps: Vec<V<'ctx>> = t
                .phis
                .get(i..i + n)
                .ok_or_else(|| self.internal("phi count"))?
                .iter()
                .map(|p| p.as_basic_value())
                .collect();
            i += n;
            self.vals.insert(v, Val::Comps(comps));
        }
        Ok(())
    }

    /// Branches to `t` passing `args` to its phis.
    fn jump(&self, t: &Target<'ctx>, args: &[V<'ctx>]) -> R<()> {
        if args.len() != t.phis.len() {
            return Err(self.internal("branch arguments do not match the block's parameters"));
        }
        let here = self.b.get_insert_block().ok_or_else(|| self.internal("no insert block"))?;
        for (p, a) in t.phis.iter().zip(args) {
            p.add_incoming(&[(a as &dyn BasicValue, here)]);
        }
        self.ok(self.b.build_unconditional_branch(t.bb))?;
        Ok(())
    }

    /// Conditional branch to `then_`/`else_`, both getting `args`.
    fn branch(
        &self,
        cond: IntValue<'ctx>,
        then_: &Target<'ctx>,
        else_: &Target<'ctx>,
        args: &[V<'ctx>],
    ) -> R<()> {
        let here = self.b.get_insert_block().ok_or_else(|| self.internal("no insert block"))?;
        for t in [then_, else_] {
            if args.len() != t.phis.len() {
                return Err(self.internal("branch arguments do not match the block's parameters"));
            }
            for (p, a) in t.phis.iter().zip(args) {
                p.add_incoming(&[(a as &dyn BasicValue, here)]);
            }
        }
        self.ok(self.b.build_conditional_branch(cond, then_.bb, else_.bb))?;
        Ok(())
    }

    // ---- prologue ----

    fn prologue(&mut self) -> R<()> {
        let nbuf = self.plan.buffers.len();
        let gptr = self.cx.ptr_type(As::from(GLOBAL));
        let global = |l: &Self, i: usize| -> R<Option<PointerValue<'ctx>>> {
            let Some(p) = l.func.get_nth_param(i as u32) else { return Ok(None) };
            let g = l.b.build_address_space_cast(p.into_pointer_value(), gptr, "");
            Ok(Some(l.ok(g)?))
        };
        for (i, g) in self.plan.buffers.iter().enumerate() {
            let p = if g.is_some() { global(self, i)? } else { None };
            self.params.push(p);
        }
        if self.plan.flags.contains(dianran_ptx::abi::EntryFlags::ARRAY_LENGTH) {
            self.sizes = global(self, nbuf)?;
        }
        // Per-invocation memory: one byte array per variable, 16-byte aligned.
        let i8t = self.cx.i8_type();
        for l in &self.f.locals {
            let size = self.types.size_align(l.ty).0.max(4);
            let a = self.ok(self.b.build_alloca(i8t.array_type(size), ""))?;
            set_align(a.as_instruction_value(), 16);
            self.locals.push(a);
        }
        let mut privs: Vec<GlobalId> = self.plan.private.keys().copied().collect();
        privs.sort();
        for &g in &privs {
            let Some(global) = self.m.globals.get(g.index()) else { continue };
            let size = self.types.size_align(global.ty).0.max(4);
            let a = self.ok(self.b.build_alloca(i8t.array_type(size), ""))?;
            set_align(a.as_instruction_value(), 16);
            self.privates.insert(g, a);
        }
        let (m, f) = (self.m, self.f);
        entry_prologue(self, m, f, &privs)?;
        Ok(())
    }

    /// Zeroes the workgroup variables the entry uses (WGSL semantics): invocation `i` clears
    /// words `i, i + N, ...`, then `bar.sync 0`.
    fn zero_shared(&mut self) -> R<()> {
        if self.plan.shared.is_empty() {
            return Ok(());
        }
        let u32t = self.types.scalar(Scalar::U32);
        let lid = self.builtin(ir::BuiltIn::LocalInvocationIndex, u32t)?;
        let lid = lid.first().ok_or_else(|| self.internal("local index"))?.into_int_value();
        let i32t = self.cx.i32_type();
        for g in self.plan.shared.clone() {
            let gv = *self.shared.get(&g).ok_or_else(|| self.internal("shared variable"))?;
            let words = dianran_ptx::abi::shared_words(self.m, g);
            let pre = self.b.get_insert_block().ok_or_else(|| self.internal("no block"))?;
            let head = self.cx.append_basic_block(self.func, "zero");
            let body = self.cx.append_basic_block(self.func, "");
            let done = self.cx.append_basic_block(self.func, "");
            self.ok(self.b.build_unconditional_branch(head))?;
            self.b.position_at_end(head);
            let i = self.ok(self.b.build_phi(i32t, ""))?;
            i.add_incoming(&[(&lid, pre)]);
            let iv = i.as_basic_value().into_int_value();
            let more =
                self.ok(self.b.build_int_compare(IntPredicate::ULT, iv, self.u32c(words), ""))?;
            self.ok(self.b.build_conditional_branch(more, body, done))?;
            self.b.position_at_end(body);
            // SAFETY: `iv < words`, inside the array.
            let p = self.ok(unsafe {
                self.b.build_in_bounds_gep(i32t, gv.as_pointer_value(), &[iv], "")
            })?;
            let st = self.ok(self.b.build_store(p, i32t.const_zero()))?;
            set_align(Some(st), 4);
            let next = self.ok(self.b.build_int_add(iv, self.u32c(self.plan.threads), ""))?;
            i.add_incoming(&[(&next, body)]);
            self.ok(self.b.build_unconditional_branch(head))?;
            self.b.position_at_end(done);
        }
        self.bar_sync()
    }

    /// The components of builtin `bi` of type `ty`.
    fn builtin(&mut self, bi: ir::BuiltIn, ty: TypeId) -> R<Vec<V<'ctx>>> {
        use ir::BuiltIn as B;
        let dims = ["x", "y", "z"];
        let per_dim = |l: &Self, f: &dyn Fn(&Self, &str) -> R<IntValue<'ctx>>| -> R<Vec<V<'ctx>>> {
            dims.iter().map(|d| Ok(f(l, d)?.into())).collect()
        };
        let out = match bi {
            B::GlobalInvocationId => per_dim(self, &|l, d| {
                let c = l.sreg(&format!("ctaid.{d}"))?;
                let n = l.sreg(&format!("ntid.{d}"))?;
                let t = l.sreg(&format!("tid.{d}"))?;
                let cn = l.ok(l.b.build_int_mul(c, n, ""))?;
                l.ok(l.b.build_int_add(cn, t, ""))
            })?,
            B::LocalInvocationId => per_dim(self, &|l, d| l.sreg(&format!("tid.{d}")))?,
            B::WorkGroupId => per_dim(self, &|l, d| l.sreg(&format!("ctaid.{d}")))?,
            B::NumWorkGroups => per_dim(self, &|l, d| l.sreg(&format!("nctaid.{d}")))?,
            B::LocalInvocationIndex => vec![self.local_index()?.into()],
            B::SubgroupInvocationId => vec![self.sreg("laneid")?.into()],
            B::SubgroupSize => vec![self.u32c(32).into()],
            B::NumSubgroups => {
                let [x, y, z] = [self.sreg("ntid.x")?, self.sreg("ntid.y")?, self.sreg("ntid.z")?];
                let a = self.ok(self.b.build_int_mul(x, y, ""))?;
                let t = self.ok(self.b.build_int_mul(a, z, ""))?;
                let t = self.ok(self.b.build_int_add(t, self.u32c(31), ""))?;
                vec![self.ok(self.b.build_right_shift(t, self.u32c(5), false, ""))?.into()]
            }
            B::SubgroupId => {
                let idx = self.local_index()?;
                vec![self.ok(self.b.build_right_shift(idx, self.u32c(5), false, ""))?.into()]
            }
            _ => return Err(self.unsupported(&format!("the builtin {bi:?} in compute entries"))),
        };
        if layout::leaf_count(&self.types, ty) != out.len() {
            return Err(self.internal("builtin type does not match"));
        }
        Ok(out)
    }

    /// `local_invocation_index`: `(tid.z * ntid.y + tid.y) * ntid.x + tid.x`.
    pub(crate) fn local_index(&self) -> R<IntValue<'ctx>> {
        let (tx, ty, tz) = (self.sreg("tid.x")?, self.sreg("tid.y")?, self.sreg("tid.z")?);
        let (nx, ny) = (self.sreg("ntid.x")?, self.sreg("ntid.y")?);
        let a = self.ok(self.b.build_int_mul(tz, ny, ""))?;
        let a = self.ok(self.b.build_int_add(a, ty, ""))?;
        let a = self.ok(self.b.build_int_mul(a, nx, ""))?;
        self.ok(self.b.build_int_add(a, tx, ""))
    }

    // ---- control flow ----

    fn block(&mut self, blk: &Block, on_yield: Option<YieldTo<'ctx>>) -> R<()> {
        for inst in &blk.insts {
            self.span = inst.span;
            lowering_common::lower_inst(self, inst)?;
        }
        self.term(&blk.term, on_yield)
    }

    fn term(&mut self, t: &Terminator, on_yield: Option<YieldTo<'ctx>>) -> R<()> {
        match t {
            Terminator::Yield(args) => {
                let a = self.flatten(args)?;
                match on_yield {
                    Some(YieldTo::Jump(t)) => self.jump(&t, &a)?,
                    Some(YieldTo::LoopEnd { break_if, body, exit }) => match break_if {
                        Some(c) => {
                            let cond = self.scalar(c)?.into_int_value();
                            self.branch(cond, &exit, &body, &a)?;
                        }
                        None => self.jump(&body, &a)?,
                    },
                    None => {
                        self.ok(self.b.build_return(None))?;
                    }
                }
            }
            Terminator::Break(_) | Terminator::Continue(_) | Terminator::Return(_) => {
                let exit = self.frames.exit(t).unwrap_or(Err("not a jump"));
                match exit.map_err(|e| self.internal(e))? {
                    Exit::To(target) => {
                        let a = self.flatten(t.args())?;
                        self.jump(&target, &a)?;
                    }
                    Exit::Entry => {
                        self.ok(self.b.build_return(None))?;
                    }
                }
            }
            Terminator::Unreachable => {
                self.ok(self.b.build_return(None))?;
            }
            Terminator::Discard => return Err(self.unsupported("discard")),
        }
        Ok(())
    }

    fn tys(&self, vs: &[ValueId]) -> Vec<TypeId> {
        vs.iter().map(|&v| self.ty(v)).collect()
    }

    // ---- memory ----

    fn global_addr(&mut self, g: GlobalId) -> R<Ptr<'ctx>> {
        let (home, ty) = global_home(self, self.m, &self.params, g)?;
        let (addr, space, align) = match home {
            GlobalHome::Buffer { addr, align } => (addr, Space::Global, align),
            GlobalHome::Workgroup { align } => {
                let gv =
                    *self.shared.get(&g).ok_or_else(|| self.internal("unknown shared variable"))?;
                (gv.as_pointer_value(), Space::Shared, align)
            }
            GlobalHome::Private => {
                let addr = *self
                    .privates
                    .get(&g)
                    .ok_or_else(|| self.internal("unknown private variable"))?;
                return Ok(Ptr::start(addr, Space::Local, ty, None, 16));
            }
            GlobalHome::Handle => return Err(self.unsupported("textures and samplers")),
            // The by-value `p_immediates` parameter is not built by this backend.
            GlobalHome::Immediate => {
                return Err(self.unsupported("immediate data (var<immediate>)"))
            }
        };
        Ok(Ptr::start(addr, space, ty, Some(g), align))
    }

    /// `p + off` pointing at a value of type `ty`.
    pub(crate) fn offset_ptr(&self, p: Ptr<'ctx>, off: u32, ty: TypeId) -> R<Ptr<'ctx>> {
        Ok(p.offset(self.byte_offset(p.addr, off)?, off, ty))
    }

    /// `addr + off` bytes.
    pub(crate) fn byte_offset(&self, addr: PointerValue<'ctx>, off: u32) -> R<PointerValue<'ctx>> {
        if off == 0 {
            return Ok(addr);
        }
        let o = self.cx.i64_type().const_int(u64::from(off), false);
        // SAFETY: offsets come from the pointee's layout, inside the variable.
        self.ok(unsafe { self.b.build_in_bounds_gep(self.cx.i8_type(), addr, &[o], "") })
    }

    fn is_atomic(&self, ty: TypeId) -> bool {
        matches!(self.types.get(ty), Type::Atomic(_))
    }

    fn atomic_int(&mut self, p: &Ptr<'ctx>, op: ir::AtomicOp, v: IntValue<'ctx>) -> R<V<'ctx>> {
        use inkwell::AtomicRMWBinOp as O;
        use ir::AtomicOp as A;
        let s = match self.types.get(p.pointee) {
            Type::Atomic(s) => *s,
            _ => return Err(self.internal("atomic on a non-atomic pointer")),
        };
        let signed = s == Scalar::I32;
        let o = match op {
            A::Add => O::Add,
            A::Sub => O::Sub,
            A::And => O::And,
            A::Or => O::Or,
            A::Xor => O::Xor,
            A::Min if signed => O::Min,
            A::Min => O::UMin,
            A::Max if signed => O::Max,
            A::Max => O::UMax,
            A::Exchange => O::Xchg,
        };
        Ok(self.ok(self.b.build_atomicrmw(o, p.addr, v, AtomicOrdering::Monotonic))?.into())
    }

    /// `atomicAdd`/`atomicSub`/`atomicExchange` on an `atomic<f32>`: `atomicrmw fadd` (of
    /// the negation for `atomicSub`, so NVPTX selects `atom.global.add.f32` for both instead
    /// of a compare-exchange loop) or `atomicrmw xchg`. inkwell 0.11's `build_atomicrmw` takes
    /// integers only, so this calls LLVM's C API itself.
    fn atomic_f32(&mut self, p: &Ptr<'ctx>, op: ir::AtomicOp, v: FloatValue<'ctx>) -> R<V<'ctx>> {
        use inkwell::llvm_sys::core::LLVMBuildAtomicRMW;
        use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp as O};
        use inkwell::values::AsValueRef;
        let (o, v) = match op {
            ir::AtomicOp::Add => (O::LLVMAtomicRMWBinOpFAdd, v),
            ir::AtomicOp::Sub => {
                (O::LLVMAtomicRMWBinOpFAdd, self.ok(self.b.build_float_neg(v, ""))?)
            }
            ir::AtomicOp::Exchange => (O::LLVMAtomicRMWBinOpXchg, v),
            _ => return Err(self.internal("a float atomic other than add, sub, exchange")),
        };
        // SAFETY: the builder is positioned inside the function being lowered (as for every
        // other instruction), `p.addr` points to an f32 and `v` is an f32 of the same context.
        let raw = unsafe {
            LLVMBuildAtomicRMW(
                self.b.as_mut_ptr(),
                o,
                p.addr.as_value_ref(),
                v.as_value_ref(),
                LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            )
        };
        // SAFETY: `atomicrmw` returns a value of its operand's type, here f32.
        Ok(unsafe { FloatValue::new(raw) }.into())
    }

    // ---- constants ----

    pub(crate) fn const_comps(&mut self, c: &ConstValue) -> R<Vec<V<'ctx>>> {
        Ok(match c {
            ConstValue::Bool(b) => vec![self.cx.bool_type().const_int(u64::from(*b), false).into()],
            ConstValue::I32(v) => vec![self.u32c(*v as u32).into()],
            ConstValue::U32(v) => vec![self.u32c(*v).into()],
            ConstValue::F32(bits) => {
                // A bitcast of the integer keeps every bit (NaN payloads included); LLVM folds it.
                let i = self.u32c(*bits);
                vec![self.ok(self.b.build_bit_cast(i, self.cx.f32_type(), ""))?]
            }
            ConstValue::I64(v) => vec![self.cx.i64_type().const_int(*v as u64, false).into()],
            ConstValue::U64(v) => vec![self.cx.i64_type().const_int(*v, false).into()],
            ConstValue::F64(bits) => {
                let i = self.cx.i64_type().const_int(*bits, false);
                vec![self.ok(self.b.build_bit_cast(i, self.cx.f64_type(), ""))?]
            }
            ConstValue::F16(bits) => {
                let i = self.cx.i16_type().const_int(u64::from(*bits), false);
                vec![self.ok(self.b.build_bit_cast(i, self.cx.f16_type(), ""))?]
            }
            ConstValue::Composite(cty, parts) => {
                let mut out = Vec::new();
                for (i, p) in parts.iter().enumerate() {
                    // Each part is a member of the composite (a vector's may be scalars).
                    let fits = layout::member_range(&mut self.types, *cty, i as u32).is_some()
                        || matches!(self.types.get(*cty), Type::Vector { .. });
                    if !fits {
                        return Err(self.internal("bad composite constant"));
                    }
                    out.extend(self.const_comps(p)?);
                }
                out
            }
            ConstValue::Zero(zty) => {
                let l = self.leaves_of(*zty)?;
                l.iter().map(|l| self.const_of(l.scalar, 0.0)).collect()
            }
        })
    }
}

/// Sets the alignment of a load, store or alloca (ignoring values that are not one).
pub(crate) fn set_align(inst: Option<inkwell::values::InstructionValue<'_>>, align: u32) {
    if let Some(i) = inst {
        let _ = i.set_alignment(align);
    }
}

impl<'ctx> InstLowering for Lower<'_, 'ctx> {
    fn define(&mut self, r: ValueId, v: Val<'ctx>) {
        self.vals.insert(r, v);
    }

    fn region(&mut self, op: &Op) -> R<()> {
        match op {
            Op::If { cond, then_, else_, results } => {
                let c = self.scalar(*cond)?.into_int_value();
                let tb = self.target(&[])?;
                let eb = self.target(&[])?;
                let merge = self.target(&self.tys(results))?;
                self.branch(c, &tb, &eb, &[])?;
                self.b.position_at_end(tb.bb);
                self.block(then_, Some(YieldTo::Jump(merge.clone())))?;
                self.b.position_at_end(eb.bb);
                self.block(else_, Some(YieldTo::Jump(merge.clone())))?;
                self.b.position_at_end(merge.bb);
                self.bind_target(&merge, results)?;
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let init = self.flatten(init)?;
                let bb = self.target(&self.tys(&body.params))?;
                let cb = self.target(&self.tys(&continuing.params))?;
                let exit = self.target(&self.tys(results))?;
                self.bind_target(&bb, &body.params)?;
                self.bind_target(&cb, &continuing.params)?;
                self.jump(&bb, &init)?;
                self.frames
                    .push(lowering_common::Frame::Loop { cont: cb.clone(), exit: exit.clone() });
                self.b.position_at_end(bb.bb);
                self.block(body, Some(YieldTo::Jump(cb.clone())))?;
                self.b.position_at_end(cb.bb);
                self.block(
                    continuing,
                    Some(YieldTo::LoopEnd { break_if: *break_if, body: bb, exit: exit.clone() }),
                )?;
                self.frames.pop();
                self.b.position_at_end(exit.bb);
                self.bind_target(&exit, results)?;
            }
            Op::Switch { selector, cases, results } => {
                let sel = self.scalar(*selector)?.into_int_value();
                let signed = self.scalar_ty(*selector)? == Scalar::I32;
                let merge = self.target(&self.tys(results))?;
                let blocks: Vec<Target<'ctx>> =
                    cases.iter().map(|_| self.target(&[])).collect::<R<_>>()?;
                let mut default = None;
                let mut arms = Vec::new();
                let mut seen = std::collections::BTreeSet::new();
                for (case, t) in cases.iter().zip(&blocks) {
                    if case.default {
                        default = Some(t.bb);
                    }
                    for &v in &case.values {
                        let bits = if signed { v as i32 as u32 } else { v as u32 };
                        // The first arm with a value wins (WGSL forbids duplicates anyway).
                        if seen.insert(bits) {
                            arms.push((self.u32c(bits), t.bb));
                        }
                    }
                }
                let default = match default {
                    Some(d) => d,
                    None if results.is_empty() => merge.bb,
                    None => return Err(self.internal("switch without default yields values")),
                };
                self.ok(self.b.build_switch(sel, default, &arms))?;
                self.frames.push(lowering_common::Frame::Switch { exit: merge.clone() });
                for (case, t) in cases.iter().zip(&blocks) {
                    self.b.position_at_end(t.bb);
                    self.block(&case.body, Some(YieldTo::Jump(merge.clone())))?;
                }
                self.frames.pop();
                self.b.position_at_end(merge.bb);
                self.bind_target(&merge, results)?;
            }
            Op::Inline { body, args, results, .. } => {
                for (p, a) in body.params.iter().zip(args) {
                    let v = self.val(*a)?.clone();
                    self.vals.insert(*p, v);
                }
                let merge = self.target(&self.tys(results))?;
                self.frames.push(lowering_common::Frame::Inline { exit: merge.clone() });
                self.block(body, Some(YieldTo::Jump(merge.clone())))?;
                self.frames.pop();
                self.b.position_at_end(merge.bb);
                self.bind_target(&merge, results)?;
            }
            _ => return Err(self.internal("not a region")),
        }
        Ok(())
    }

    fn pointer(&self, v: ValueId) -> R<Ptr<'ctx>> {
        self.ptr(v)
    }

    /// Textures and samplers have no LLVM form here; anything else is its address.
    fn global(&mut self, g: GlobalId, _result: Option<ValueId>) -> R<Option<Val<'ctx>>> {
        Ok(Some(Val::Ptr(self.global_addr(g)?)))
    }

    /// A function-local variable is its own `alloca`.
    fn local(&mut self, l: ir::LocalId) -> R<Ptr<'ctx>> {
        let addr = *self.locals.get(l.index()).ok_or_else(|| self.internal("unknown local"))?;
        let pointee = self.f.locals.get(l.index()).map_or(TypeId(0), |l| l.ty);
        Ok(Ptr::start(addr, Space::Local, pointee, None, 16))
    }

    fn element(&mut self, p: Ptr<'ctx>, idx: ValueId, stride: u32, ety: TypeId) -> R<Ptr<'ctx>> {
        let i = self.scalar(idx)?.into_int_value();
        let i64t = self.cx.i64_type();
        let wide = self.ok(self.b.build_int_z_extend(i, i64t, ""))?;
        let off =
            self.ok(self.b.build_int_mul(wide, i64t.const_int(u64::from(stride), false), ""))?;
        // SAFETY: WGSL accesses stay inside the variable (bounds are the program's
        // responsibility, as in our backend); `inbounds` lets LLVM fold offsets.
        let addr =
            self.ok(unsafe { self.b.build_in_bounds_gep(self.cx.i8_type(), p.addr, &[off], "") })?;
        Ok(p.element(addr, ety, p.align.min(lowbit(stride))))
    }

    fn load(&mut self, p: &Ptr<'ctx>) -> R<Vec<V<'ctx>>> {
        let leaves = self.leaves_of(p.pointee)?;
        let atomic = self.is_atomic(p.pointee);
        let mut out = Vec::new();
        for l in leaves {
            let a = self.byte_offset(p.addr, l.offset)?;
            let align = p.align.min(lowbit(l.offset)).max(l.scalar.size());
            let lt = if l.scalar == Scalar::Bool {
                self.cx.i32_type().into()
            } else {
                self.llty(l.scalar)
            };
            let v = self.ok(self.b.build_load(lt, a, ""))?;
            let inst = v.as_instruction_value();
            set_align(inst, align);
            if atomic {
                // WGSL atomics are relaxed and device-wide.
                if let Some(i) = inst {
                    let _ = i.set_atomic_ordering(AtomicOrdering::Monotonic);
                }
            }
            let v = if l.scalar == Scalar::Bool {
                self.ok(self.b.build_int_compare(
                    IntPredicate::NE,
                    v.into_int_value(),
                    self.u32c(0),
                    "",
                ))?
                .into()
            } else {
                v
            };
            out.push(v);
        }
        Ok(out)
    }

    fn workgroup_barrier(&mut self) -> R<()> {
        self.bar_sync()
    }

    fn store(&mut self, p: &Ptr<'ctx>, comps: &[V<'ctx>]) -> R<()> {
        let leaves = self.leaves_of(p.pointee)?;
        if leaves.len() != comps.len() {
            return Err(self.internal("stored value does not match the pointee"));
        }
        let atomic = self.is_atomic(p.pointee);
        for (l, &c) in leaves.iter().zip(comps) {
            let a = self.byte_offset(p.addr, l.offset)?;
            let align = p.align.min(lowbit(l.offset)).max(l.scalar.size());
            let c: V<'ctx> = if l.scalar == Scalar::Bool {
                self.ok(self.b.build_int_z_extend(c.into_int_value(), self.cx.i32_type(), ""))?
                    .into()
            } else {
                c
            };
            let st = self.ok(self.b.build_store(a, c))?;
            set_align(Some(st), align);
            if atomic {
                let _ = st.set_atomic_ordering(AtomicOrdering::Monotonic);
            }
        }
        Ok(())
    }

    fn barrier(&mut self, bar: ir::Barrier) -> R<()> {
        if bar == ir::Barrier::SUB_GROUP {
            self.call("llvm.nvvm.bar.warp.sync", None, &[self.u32c(u32::MAX).into()])?;
            Ok(())
        } else {
            self.bar_sync()
        }
    }

    /// `llvm.nvvm.barrier0.and`: `bar.red.and.pred` on a 0/1 word.
    fn workgroup_all(&mut self, p: V<'ctx>) -> R<V<'ctx>> {
        let i32t = self.cx.i32_type();
        let w = self.ok(self.b.build_int_z_extend(p.into_int_value(), i32t, ""))?;
        let r = self.call("llvm.nvvm.barrier0.and", Some(i32t.into()), &[w.into()])?;
        let r = r.ok_or_else(|| self.internal("llvm.nvvm.barrier0.and returned nothing"))?;
        Ok(self
            .ok(self.b.build_int_compare(IntPredicate::NE, r.into_int_value(), self.u32c(0), ""))?
            .into())
    }

    fn offset(&mut self, p: Ptr<'ctx>, off: u32, ty: TypeId) -> R<Ptr<'ctx>> {
        self.offset_ptr(p, off, ty)
    }

    /// `atomicrmw`: float atomics have their own form ([`Lower::atomic_f32`]).
    fn atomic(&mut self, p: &Ptr<'ctx>, op: ir::AtomicOp, v: V<'ctx>) -> R<V<'ctx>> {
        match v {
            V::FloatValue(f) => self.atomic_f32(p, op, f),
            _ => self.atomic_int(p, op, v.into_int_value()),
        }
    }

    /// `cmpxchg` (monotonic on both sides, as WGSL's atomics are relaxed).
    fn compare_exchange(&mut self, p: &Ptr<'ctx>, c: V<'ctx>, v: V<'ctx>) -> R<[V<'ctx>; 2]> {
        let (c, v) = (c.into_int_value(), v.into_int_value());
        let r = self.ok(self.b.build_cmpxchg(
            p.addr,
            c,
            v,
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        ))?;
        let old = self.ok(self.b.build_extract_value(r, 0, ""))?;
        let ok = self.ok(self.b.build_extract_value(r, 1, ""))?;
        Ok([old, ok])
    }

    fn image(&mut self, _op: &Op) -> R<Option<Val<'ctx>>> {
        Err(self.unsupported("textures"))
    }

    fn buffers(&self) -> &[Option<GlobalId>] {
        &self.plan.buffers
    }

    fn constant(&mut self, c: &ConstValue, _ty: TypeId) -> R<Vec<V<'ctx>>> {
        self.const_comps(c)
    }

    fn zero_workgroup_memory(&mut self) -> R<()> {
        self.zero_shared()
    }

    /// Every component: LLVM drops the ones the entry never reads.
    fn builtin_input(&mut self, b: ir::BuiltIn, ty: TypeId, _used: u32) -> R<Vec<V<'ctx>>> {
        self.builtin(b, ty)
    }

    fn array_length(&mut self, a: ArrayLength) -> R<V<'ctx>> {
        let sizes = self.sizes.ok_or_else(|| self.internal("arrayLength without p_sizes"))?;
        let slot = self.byte_offset(sizes, (a.slot * 4) as u32)?;
        let bytes = self.ok(self.b.build_load(self.cx.i32_type(), slot, ""))?;
        set_align(bytes.as_instruction_value(), 4);
        let bytes = bytes.into_int_value();
        let offc = self.u32c(a.offset);
        let rest = self
            .call_v("llvm.umax.i32", self.cx.i32_type().into(), &[bytes.into(), offc.into()])?
            .into_int_value();
        let rest = self.ok(self.b.build_int_sub(rest, offc, ""))?;
        Ok(self.ok(self.b.build_int_unsigned_div(rest, self.u32c(a.stride), ""))?.into())
    }

    fn value_op(&mut self, op: &Op, ty: TypeId) -> R<Vec<V<'ctx>>> {
        self.value_components(op, ty)
    }
}
