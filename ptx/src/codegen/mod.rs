//! PTX code generation: structured SSA ([`dianran_frontend::ir`]) to the PTX model, printed
//! by [`crate::print_module`] (docs/ptx.md).
//!
//! * [`regalloc`]: the machine-level CFG and register assignment with regalloc2.
//! * [`layout`]: per-component view of IR types (registers and memory offsets).
//! * `lower`, `arith`, `builtins`, `subgroup`, `coop`, `mathops`: instruction selection for
//!   one compute entry point, building model [`crate::Instruction`]s on virtual registers.
//! * `vectorize`, `packed_f16`, `immediates`: rewrites of the selected code before register
//!   allocation: adjacent accesses merged into `.v2`/`.v4` ones where alignment is proven,
//!   `vec2<f16>` arithmetic on packed `.f16x2` registers, constants as immediates.
//! * `mcheck`: the machine function's validator. Debug builds run it after selection and
//!   after each of those passes, run regalloc2's SSA validation and checker on the
//!   allocation, and check the entry's statements after allocation and after `triangles`;
//!   a failure is an internal-error [`Diagnostic`] naming the pass.
//!
//! [`compile_module`] compiles every compute entry point of a module into one PTX module
//! ([`CompiledPtx::module`]) and its text.
//! Vertex and fragment entries get a one-line comment; an entry that uses something PTX
//! cannot express gets a [`Diagnostic`] while the other entries still compile.

// Every selector step returns `Result<_, Diagnostic>`; the diagnostic is large but rare.
#![allow(clippy::result_large_err)]

pub mod align;
mod arith;
mod builtins;
mod coop;
mod immediates;
pub mod layout;
mod lower;
mod math64;
mod mathops;
mod mcheck;
mod packed_f16;
pub mod regalloc;
mod subgroup;
pub mod texture;
mod triangles;
mod vectorize;
mod wide;

use crate::model::{Entry, Module, Param, VarDecl};
use crate::names;
use dianran_frontend::ir::{self, AddressSpace, GlobalId, Op, Stage};
use dianran_frontend::{DiagKind, Diagnostic};
use lower::{EntryLayout, Lower};
use regalloc::MFunction;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::time::Instant;

/// Code generation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Target architecture number: 80 (`sm_80`, the default) or 90.
    pub sm: u32,
    /// Lower f32 x f32 cooperative-matrix products to TF32 tensor cores
    /// (`mma.m16n8k8...tf32`, 10-bit mantissa inputs). Without it, since PTX has no exact f32
    /// tensor-core product, 16x16 ones are a diagnostic and 8x8 ones run exactly on the FMA
    /// units.
    pub tf32: bool,
    /// Lower math builtins to PTX's approximate instructions (`ex2.approx`, `lg2.approx`,
    /// `sin.approx`, `cos.approx`, `tanh.approx`, `rsqrt.approx`; `pow` as
    /// `ex2(y * lg2(x))`, NaN for negative bases) instead of the precise library
    /// ([`crate::math`], the default). Faster, with the hardware's documented bounds
    /// (`docs/math.md`).
    pub fast_math: bool,
    /// A deliberate wrong instruction selection, for testing that the differential fuzzer
    /// catches one (`dianran fuzz --inject-bug`). Never set it otherwise.
    #[doc(hidden)]
    pub inject: Option<InjectedBug>,
}

impl Default for Options {
    fn default() -> Self {
        Options { sm: 80, tf32: false, fast_math: false, inject: None }
    }
}

/// A deliberate code-generator bug ([`Options::inject`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InjectedBug {
    /// `a - b` is emitted as `sub b, a`.
    SubSwapped,
    /// `workgroupBarrier()` emits no `bar.sync`.
    DroppedBarrier,
}

/// What the host needs to launch one compiled entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    /// WGSL name.
    pub name: String,
    /// Stage (always compute for compiled entries).
    pub stage: Stage,
    /// `@workgroup_size`; the host launches with exactly this block size.
    pub workgroup_size: [u32; 3],
    /// Name of the `.entry` in the PTX text.
    pub ptx_name: String,
    /// Parameter names in order (`p_g<G>_b<B>`, then `p_sizes` with
    /// [`EntryFlags::ARRAY_LENGTH`], then `p_immediates` with [`EntryFlags::IMMEDIATES`]).
    pub params: Vec<String>,
    /// What the entry uses that its host or its results depend on.
    pub flags: EntryFlags,
}

bitflags::bitflags! {
    /// Properties of a compiled entry ([`EntryInfo::flags`]).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct EntryFlags: u8 {
        /// `arrayLength`: the last parameter is `p_sizes`, a device pointer to one u32 per
        /// buffer parameter (in parameter order) holding the buffer's size in bytes.
        const ARRAY_LENGTH = 1 << 0;
        /// TF32 products (f32 cooperative matrices with [`Options::tf32`]): results are not
        /// f32-exact.
        const TF32 = 1 << 1;
        /// Approximate math (math builtins compiled with [`Options::fast_math`]).
        const FAST_MATH = 1 << 2;
        /// Subgroup operations or builtins (`shfl.sync`, `vote.sync`, `%laneid`): the entry
        /// assumes 32-lane warps.
        const SUBGROUPS = 1 << 3;
        /// Cooperative matrices (`mma.sync`, `ldmatrix`): whole warps must run it.
        const COOP_MATRIX = 1 << 4;
        /// Immediate data (`var<immediate>`): the last parameter is `p_immediates`, the
        /// variable's bytes by value (docs/immediates.md).
        const IMMEDIATES = 1 << 5;
        /// Textures: some parameters are CUDA texture or surface objects
        /// ([`texture`], `docs/textures.md`).
        const TEXTURES = 1 << 6;
    }
}

impl EntryInfo {
    /// Whether the last parameter is `p_sizes` ([`EntryFlags::ARRAY_LENGTH`]).
    pub fn uses_sizes(&self) -> bool {
        self.flags.contains(EntryFlags::ARRAY_LENGTH)
    }
    /// Whether the last parameter is `p_immediates` ([`EntryFlags::IMMEDIATES`]).
    pub fn uses_immediates(&self) -> bool {
        self.flags.contains(EntryFlags::IMMEDIATES)
    }
    /// Whether the entry uses TF32 products ([`EntryFlags::TF32`]).
    pub fn tf32(&self) -> bool {
        self.flags.contains(EntryFlags::TF32)
    }
    /// Whether the entry uses approximate math ([`EntryFlags::FAST_MATH`]).
    pub fn fast_math(&self) -> bool {
        self.flags.contains(EntryFlags::FAST_MATH)
    }
}

/// The result of compiling a module.
#[derive(Clone, Debug)]
pub struct CompiledPtx {
    /// The compiled module in the PTX model: what [`crate::print_module`] wrote as `text`, and
    /// what the emulator can run without parsing.
    pub module: Module,
    /// PTX text (ASCII), holding every entry that compiled.
    pub text: String,
    /// Compiled compute entries, in source order.
    pub entries: Vec<EntryInfo>,
    /// One error per entry that could not be compiled (the rest still are).
    pub diagnostics: Vec<Diagnostic>,
    /// Where the time went, summed over the entries (for the `stages` benchmark).
    pub times: StageTimes,
}

/// Time spent in each step of [`compile_module`], summed over its entry points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTimes {
    /// Inlining user functions into the entry and scanning what it uses.
    pub inline: std::time::Duration,
    /// Instruction selection (lowering the SSA to machine instructions on virtual registers).
    pub select: std::time::Duration,
    /// Register allocation with regalloc2 (both runs, edge splitting included).
    pub regalloc: std::time::Duration,
    /// Writing the PTX text.
    pub print: std::time::Duration,
}

/// The PTX parameter name of the buffer at `@group(group) @binding(binding)`: `p_g<G>_b<B>`.
pub fn param_name(group: u32, binding: u32) -> String {
    format!("p_g{group}_b{binding}")
}

/// The `(group, binding)` of a buffer parameter named by [`param_name`]; `None` for other
/// names (`p_sizes`).
pub fn param_binding(name: &str) -> Option<(u32, u32)> {
    let (g, b) = name.strip_prefix("p_g")?.split_once("_b")?;
    Some((g.parse().ok()?, b.parse().ok()?))
}

/// Compiles every compute entry point of `m` to PTX (docs/ptx.md).
pub fn compile_module(m: &ir::Module, opts: &Options) -> CompiledPtx {
    let sm = if opts.sm >= 90 { 90 } else { 80 };
    let mut diagnostics = Vec::new();
    let mut entries = Vec::new();
    let mut bodies = Vec::new();
    let mut comments = Vec::new();
    // Names: entries and workgroup variables share the module scope.
    let mut taken: HashMap<String, String> = HashMap::default();
    let mut shared_names: HashMap<GlobalId, String> = HashMap::default();
    for (i, g) in m.globals.iter().enumerate() {
        if g.space == AddressSpace::Workgroup {
            let n = names::workgroup_var_name(&g.name);
            taken.insert(n.clone(), g.name.clone());
            shared_names.insert(GlobalId(i as u32), n);
        }
    }
    let mut used_shared: BTreeSet<GlobalId> = BTreeSet::new();
    let mut times = StageTimes::default();
    for ep in &m.entry_points {
        let ptx_name = names::entry_name(&ep.name);
        if ep.stage != Stage::Compute {
            comments.push(format!(
                "{} entry point '{}' is not a PTX entry point (compute only)",
                ep.stage.name(),
                ptx_name
            ));
            continue;
        }
        if let Some(prev) = taken.get(&ptx_name) {
            diagnostics.push(
                Diagnostic::error(
                    DiagKind::NameCollision,
                    format!("'{}' and '{}' both map to the PTX name '{}'", prev, ep.name, ptx_name),
                )
                .in_fn(ep.name.clone())
                .help("rename one of them"),
            );
            continue;
        }
        taken.insert(ptx_name.clone(), ep.name.clone());
        match compile_entry(m, ep, &ptx_name, &shared_names, sm, opts, &mut times) {
            Ok((info, entry, shared)) => {
                used_shared.extend(shared);
                entries.push(info);
                bodies.push(entry);
            }
            Err(d) => diagnostics.push(d),
        }
    }
    let printing = Instant::now();
    let mut module = Module::new(sm);
    module.comments = vec![String::new(), "Generated by dianran".into(), String::new()];
    module.comments.extend(comments);
    for g in &used_shared {
        let (Some(global), Some(name)) = (m.globals.get(g.index()), shared_names.get(g)) else {
            continue;
        };
        let (size, align) = m.types.size_align(global.ty);
        // Whole words, so the zero-initialization loop can store u32s.
        let bytes = size.max(1).div_ceil(4) * 4;
        module.globals.push(VarDecl::shared_bytes(name.clone(), align.max(16), u64::from(bytes)));
    }
    module.entries = bodies;
    let text = match crate::print::print_module(&module) {
        Ok(t) => t,
        Err(e) => {
            // A printer error means selection built an invalid instruction: a compiler bug,
            // reported like one rather than as broken text.
            diagnostics.push(Diagnostic::error(
                DiagKind::Internal,
                format!("internal error: the generated PTX does not validate: {e}"),
            ));
            entries.clear();
            module.entries.clear();
            String::new()
        }
    };
    times.print += printing.elapsed();
    CompiledPtx { module, text, entries, diagnostics, times }
}

/// Every global the function addresses (nested regions included), and whether it uses
/// `arrayLength` and cooperative matrices.
fn scan(block: &ir::Block, globals: &mut BTreeSet<GlobalId>, flags: &mut EntryFlags) {
    for inst in &block.insts {
        match &inst.op {
            Op::GlobalAddr(g) => {
                globals.insert(*g);
            }
            Op::ArrayLength(_) => *flags |= EntryFlags::ARRAY_LENGTH,
            Op::CoopLoad { .. } | Op::CoopStore { .. } | Op::CoopMultiplyAdd(..) => {
                *flags |= EntryFlags::COOP_MATRIX
            }
            _ => {}
        }
        for b in inst.op.blocks() {
            scan(b, globals, flags);
        }
    }
}

/// The span of the first instruction in `block` (nested blocks included) that `pick` selects.
fn find_op(block: &ir::Block, pick: &impl Fn(&Op) -> bool) -> Option<ir::Span> {
    for inst in &block.insts {
        if pick(&inst.op) {
            return Some(inst.span);
        }
        for b in inst.op.blocks() {
            if let Some(s) = find_op(b, pick) {
                return Some(s);
            }
        }
    }
    None
}

/// Finds calls that were not inlined (reported as unsupported with their span).
fn find_call(block: &ir::Block) -> Option<ir::Span> {
    find_op(block, &|op| matches!(op, Op::Call(..)))
}

/// Finds a cooperative-matrix load, store or product (the ops that become warp-wide
/// `ldmatrix`/`mma.sync` or per-lane fragment accesses).
fn find_coop(block: &ir::Block) -> Option<ir::Span> {
    find_op(block, &|op| {
        matches!(op, Op::CoopLoad { .. } | Op::CoopStore { .. } | Op::CoopMultiplyAdd(..))
    })
}

/// Static shared memory per block (bytes).
const MAX_SHARED_BYTES: u64 = 48 * 1024;
/// Local memory per thread (bytes).
const MAX_LOCAL_BYTES: u64 = 512 * 1024;

type EntryOut = (EntryInfo, Entry, Vec<GlobalId>);

/// What an entry point needs before instruction selection, shared by every PTX backend (this
/// one and `dianran-llvm`) so that they agree on the launch convention: the inlined body, the
/// parameter list (docs/abi.md's group-0 rule, placeholders), the workgroup and private variables
/// it uses, and the checks against PTX's limits.
#[derive(Clone, Debug)]
pub struct EntryPlan {
    /// The entry function with every user function inlined.
    pub function: ir::Function,
    /// Parameter `i` is the buffer `buffers[i]` (`None`: a placeholder for an unused binding).
    pub buffers: Vec<Option<GlobalId>>,
    /// `.param` names, same order as `buffers` (`p_g<G>_b<B>`); `p_sizes` is not included.
    /// A texture's slot holds its texture or surface object.
    pub param_names: Vec<String>,
    /// (texture, sampler) pairs sampled with, each one texture-object parameter after the
    /// slots, with its name ([`texture::pair_param_name`]).
    pub pairs: Vec<(GlobalId, GlobalId, String)>,
    /// The pairs used with depth comparison, each with its `.u32` compare-word parameter
    /// ([`texture::compare_param_name`]), which follows the pair's texture object.
    pub compare: Vec<(GlobalId, GlobalId, String)>,
    /// Workgroup variables the entry uses, in global order.
    pub shared: Vec<GlobalId>,
    /// Private variables the entry uses, with their byte offsets in the per-invocation depot.
    pub private: HashMap<GlobalId, u32>,
    /// `ARRAY_LENGTH`, `SUBGROUPS` and `COOP_MATRIX` as the body uses them.
    pub flags: EntryFlags,
    /// Invocations per workgroup.
    pub threads: u32,
    /// The `var<immediate>` the entry uses (WGSL allows one per entry), passed by value in
    /// the last parameter, [`IMMEDIATES_PARAM`] (docs/immediates.md).
    pub immediates: Option<GlobalId>,
}

impl EntryPlan {
    /// Every `.param` name in order: [`EntryPlan::param_names`], then `p_sizes` when the entry
    /// uses `arrayLength`, then [`IMMEDIATES_PARAM`] when it uses immediate data.
    pub fn all_params(&self) -> Vec<String> {
        let mut p = self.param_names.clone();
        for (t, s, n) in &self.pairs {
            p.push(n.clone());
            let word = self.compare.iter().find(|(ct, cs, _)| (ct, cs) == (t, s));
            p.extend(word.map(|(_, _, w)| w.clone()));
        }
        if self.flags.contains(EntryFlags::ARRAY_LENGTH) {
            p.push("p_sizes".into());
        }
        if self.immediates.is_some() {
            p.push(IMMEDIATES_PARAM.into());
        }
        p
    }
}

/// The name of the parameter that holds an entry's immediate data by value:
/// `.param .align 16 .b8 p_immediates[N]`, N the `var<immediate>`'s size rounded up to 4.
pub const IMMEDIATES_PARAM: &str = "p_immediates";

/// The `.param` of an entry's immediate data of `size` bytes ([`IMMEDIATES_PARAM`]).
pub fn immediates_param(size: u32) -> Param {
    Param {
        ty: crate::model::Type::B8,
        name: IMMEDIATES_PARAM.into(),
        align: Some(16),
        len: Some(u64::from(size.max(4).next_multiple_of(4))),
    }
}

/// Plans compute entry `ep` of `m` ([`EntryPlan`]); a diagnostic when PTX cannot express it
/// (textures, calls that could not be inlined, a partial warp with cooperative matrices, too
/// much workgroup memory, huge bindings).
pub fn plan_entry(m: &ir::Module, ep: &ir::EntryPoint) -> Result<EntryPlan, Diagnostic> {
    // User functions are inlined: no `.func` is emitted (docs/ptx.md).
    let in_entry = |d: Diagnostic| if d.context.is_none() { d.in_fn(ep.name.clone()) } else { d };
    let mut inlined = dianran_frontend::passes::inline_calls(m, ep.function).map_err(in_entry)?;
    let f = &inlined;
    if let Some(span) = find_call(&f.body) {
        return Err(lower::unsupported(
            "calls to user functions that could not be inlined",
            &ep.name,
            span,
        ));
    }
    let mut used = BTreeSet::new();
    let mut flags = EntryFlags::empty();
    scan(&f.body, &mut used, &mut flags);
    let textures = texture::plan_textures(m, f, &ep.name)?;
    if !textures.own.is_empty() || !textures.pairs.is_empty() {
        flags |= EntryFlags::TEXTURES;
    }
    if m.function_uses_subgroups(f) {
        flags |= EntryFlags::SUBGROUPS;
    }
    // Buffers: group-0 rule (docs/abi.md).
    let mut bufs: Vec<(ir::ResourceBinding, GlobalId)> = Vec::new();
    let mut shared = Vec::new();
    let mut private = HashMap::default();
    let mut private_end = 0u32;
    let mut immediates = None;
    for &g in &used {
        let Some(global) = m.globals.get(g.index()) else { continue };
        match global.space {
            AddressSpace::Immediate => immediates = Some(g),
            AddressSpace::Storage { .. } | AddressSpace::Uniform => {
                let b = global.binding.ok_or_else(|| {
                    lower::internal("buffer without binding", &ep.name, global.span)
                })?;
                bufs.push((b, g));
            }
            AddressSpace::Workgroup => shared.push(g),
            AddressSpace::Private | AddressSpace::Function => {
                let (s, a) = m.types.size_align(global.ty);
                let a = a.max(4);
                private_end = private_end.div_ceil(a) * a;
                private.insert(g, private_end);
                private_end += s.max(4);
            }
            // A texture used on its own takes its binding's slot; samplers and textures
            // only sampled are parameters of their pairs.
            AddressSpace::Handle if textures.own.contains(&g) => {
                let b = global.binding.ok_or_else(|| {
                    lower::internal("texture without binding", &ep.name, global.span)
                })?;
                bufs.push((b, g));
            }
            AddressSpace::Handle => {}
        }
    }
    bufs.sort();
    if immediates.is_some() {
        flags |= EntryFlags::IMMEDIATES;
    }
    // WGSL zero-initializes workgroup memory; every entry clears what it uses.
    let threads = ep.workgroup_size.iter().map(|&d| d.max(1)).product::<u32>().max(1);
    // A cooperative matrix is spread over a whole warp and `mma.sync`/`ldmatrix` are
    // `.aligned`: a partial warp would be undefined behaviour on the device.
    if !threads.is_multiple_of(32) {
        if let Some(span) = find_coop(&f.body) {
            let [x, y, z] = ep.workgroup_size;
            return Err(Diagnostic::error(
                DiagKind::Unsupported,
                format!(
                    "cooperative matrices in PTX need whole 32-invocation subgroups, but the \
                     workgroup size {x}x{y}x{z} has {threads} invocations"
                ),
            )
            .at(span)
            .in_fn(ep.name.clone())
            .help("use a workgroup size whose product is a multiple of 32"));
        }
    }
    let mut buffers = Vec::new();
    let mut param_names = Vec::new();
    if !bufs.is_empty() && bufs.iter().all(|(b, _)| b.group == 0) {
        let max = bufs.iter().map(|(b, _)| b.binding).max().unwrap_or(0);
        if max > 4096 {
            return Err(Diagnostic::error(
                DiagKind::Limit,
                format!("binding {max} is too large for PTX parameters"),
            )
            .in_fn(ep.name.clone())
            .help("use bindings below 4096"));
        }
        for i in 0..=max {
            buffers.push(bufs.iter().find(|(b, _)| b.binding == i).map(|(_, g)| *g));
            param_names.push(param_name(0, i));
        }
    } else {
        for (b, g) in &bufs {
            buffers.push(Some(*g));
            param_names.push(param_name(b.group, b.binding));
        }
    }
    // Static `.shared` data is limited to 48 KiB per block; ptxas would reject more.
    let shared_bytes: u64 = shared.iter().map(|g| u64::from(shared_words(m, *g)) * 4).sum();
    if shared_bytes > MAX_SHARED_BYTES {
        return Err(Diagnostic::error(
            DiagKind::Limit,
            format!(
                "entry '{}' uses {shared_bytes} bytes of workgroup memory; PTX allows {MAX_SHARED_BYTES}",
                ep.name
            ),
        )
        .at(f.span)
        .in_fn(ep.name.clone())
        .help("use smaller workgroup arrays"));
    }
    let binding = |g: GlobalId| {
        m.globals
            .get(g.index())
            .and_then(|x| x.binding)
            .ok_or_else(|| lower::internal("texture or sampler without binding", &ep.name, f.span))
    };
    let mut pairs = Vec::new();
    let mut compare = Vec::new();
    for &(t, s) in &textures.compare {
        let (tb, sb) = (binding(t)?, binding(s)?);
        compare.push((t, s, texture::compare_param_name(tb, sb)));
    }
    for &(t, s) in &textures.pairs {
        let (tb, sb) = (binding(t)?, binding(s)?);
        pairs.push((
            (tb.group, tb.binding, sb.group, sb.binding),
            t,
            s,
            texture::pair_param_name(tb, sb),
        ));
    }
    pairs.sort_by_key(|p| p.0);
    let pairs = pairs.into_iter().map(|(_, t, s, n)| (t, s, n)).collect();
    // Loop invariants and induction variables across the inlined calls; after the plan, which
    // keeps describing the entry as written (the passes add only integer arithmetic).
    dianran_frontend::passes::optimize_inlined(m, ep.function, &mut inlined).map_err(in_entry)?;
    Ok(EntryPlan {
        function: inlined,
        buffers,
        param_names,
        pairs,
        compare,
        shared,
        private,
        flags,
        threads,
        immediates,
    })
}

/// Size of workgroup variable `g` in whole 32-bit words (at least one), as declared and
/// zeroed.
pub fn shared_words(m: &ir::Module, g: GlobalId) -> u32 {
    m.globals.get(g.index()).map_or(1, |global| m.types.size_align(global.ty).0.max(1).div_ceil(4))
}

fn compile_entry(
    m: &ir::Module,
    ep: &ir::EntryPoint,
    ptx_name: &str,
    shared_names: &HashMap<GlobalId, String>,
    sm: u32,
    opts: &Options,
    times: &mut StageTimes,
) -> Result<EntryOut, Diagnostic> {
    let start = Instant::now();
    let plan = plan_entry(m, ep)?;
    let f = &plan.function;
    let flags = plan.flags;
    let uses_sizes = flags.contains(EntryFlags::ARRAY_LENGTH);
    let shared = plan.shared.clone();
    times.inline += start.elapsed();
    let start = Instant::now();
    let mut layout = EntryLayout {
        shared: shared_names.clone(),
        private: plan.private.clone(),
        uses_sizes,
        buffers: plan.buffers.clone(),
        param_names: plan.param_names.clone(),
        pairs: plan.pairs.clone(),
        compare: plan.compare.clone(),
        threads: plan.threads,
        immediates: plan.immediates,
        ..Default::default()
    };
    for &g in &shared {
        if let Some(name) = shared_names.get(&g) {
            layout.zero_shared.push((name.clone(), shared_words(m, g)));
        }
    }
    let mut lw = Lower::new(m, f, &layout, &ep.name, sm);
    lw.tf32 = opts.tf32;
    lw.fast_math = opts.fast_math;
    lw.inject = opts.inject;
    lw.prologue()?;
    lw.body()?;
    let depot = lw.depot_size;
    let used_tf32 = lw.used_tf32;
    let used_fast_math = lw.used_fast_math;
    if u64::from(depot) > MAX_LOCAL_BYTES {
        return Err(Diagnostic::error(
            DiagKind::Limit,
            format!(
                "entry '{}' needs {depot} bytes of per-invocation memory; PTX allows {MAX_LOCAL_BYTES}",
                ep.name
            ),
        )
        .at(f.span)
        .in_fn(ep.name.clone())
        .help("use smaller function-local or private arrays, or move data to workgroup or storage memory"));
    }
    let mut mf = std::mem::take(&mut lw.mf);
    let check = |mf: &MFunction, pass: &str| check_pass(mf, pass, &ep.name, f.span);
    check(&mf, "instruction selection")?;
    vectorize::vectorize(&mut mf, &lw.facts);
    check(&mf, "vectorize")?;
    packed_f16::pack_f16(&mut mf);
    check(&mf, "packed f16")?;
    immediates::fold_immediates(&mut mf);
    check(&mf, "immediate folding")?;
    times.select += start.elapsed();
    let start = Instant::now();
    // Debug builds validate the SSA form and run regalloc2's checker on the allocation.
    let alloc = regalloc::allocate_owned(mf, cfg!(debug_assertions))
        .map_err(|e| lower::internal(&e.0, &ep.name, f.span))?;
    times.regalloc += start.elapsed();
    let start = Instant::now();
    let params = plan.all_params();
    let [x, y, z] = ep.workgroup_size;
    let mut entry = Entry::new(ptx_name);
    entry.params = params
        .iter()
        .map(|n| match texture::compare_param_binding(n) {
            Some(_) => Param::scalar(crate::model::Type::U32, n),
            None => Param::pointer(n),
        })
        .collect();
    if let (Some(g), Some(last)) = (plan.immediates, entry.params.last_mut()) {
        let ty = m.globals.get(g.index()).map_or(ir::TypeId(0), |g| g.ty);
        *last = immediates_param(m.types.size_align(ty).0);
    }
    entry.reqntid = Some([x.max(1), y.max(1), z.max(1)]);
    if depot > 0 {
        entry.vars.push(VarDecl::local_bytes("__local_depot", 16, u64::from(depot)));
    }
    entry.body = regalloc::to_statements(alloc, &|i| format!("$L__BB{i}"));
    check_entry_after(&entry, "register allocation", &ep.name, f.span)?;
    entry.body = triangles::fold_constant_else(std::mem::take(&mut entry.body));
    check_entry_after(&entry, "triangles", &ep.name, f.span)?;
    times.print += start.elapsed();
    let info = EntryInfo {
        name: ep.name.clone(),
        stage: ep.stage,
        workgroup_size: ep.workgroup_size,
        ptx_name: ptx_name.to_string(),
        params,
        flags: flags
            | if used_tf32 { EntryFlags::TF32 } else { EntryFlags::empty() }
            | if used_fast_math { EntryFlags::FAST_MATH } else { EntryFlags::empty() },
    };
    Ok((info, entry, shared))
}

/// Under debug assertions, validates the machine function after `pass` with
/// [`mcheck::check_function`] (its doc lists the checks); an internal error names the pass.
fn check_pass(mf: &MFunction, pass: &str, entry: &str, span: ir::Span) -> Result<(), Diagnostic> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    mcheck::check_function(mf).map_err(|e| {
        lower::internal(&format!("the machine code is invalid after {pass}: {e}"), entry, span)
    })
}

/// Under debug assertions, validates the entry's statements after `pass` with
/// [`check_entry`](crate::model::check::check_entry) (instruction forms, labels defined once,
/// branch targets defined).
fn check_entry_after(e: &Entry, pass: &str, entry: &str, span: ir::Span) -> Result<(), Diagnostic> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    crate::model::check::check_entry(e).map_err(|err| {
        lower::internal(&format!("the PTX is invalid after {pass}: {}", err.message), entry, span)
    })
}

#[cfg(test)]
mod emu_tests;
#[cfg(test)]
mod ldmatrix_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod texture_tests;
#[cfg(test)]
mod wgsl_text_tests;
#[cfg(test)]
mod wide_tests;
