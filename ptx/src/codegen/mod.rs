//! PTX code generation: structured SSA ([`dianran_frontend::ir`]) to the PTX model, printed
//! by [`crate::print_module`] (docs/ptx.md).
//!
//! * [`regalloc`]: the machine-level CFG and register assignment with regalloc2.
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
mod dead_local;
mod divconst;
mod immediates;
mod lower;
mod math64;
mod mathops;
mod mcheck;
mod packed_f16;
pub mod regalloc;
mod slow_paths;
mod subgroup;
pub mod texture;
mod triangles;
mod vectorize;
mod wgmma_waits;
mod wide;

use crate::abi::{
    immediates_param, plan_entry, shared_declared_bytes, shared_words, EntryFlags, EntryInfo,
    ParamKind, MAX_LOCAL_BYTES,
};
use crate::model::{Entry, Module, Param, VarDecl};
use crate::names;
use dianran_frontend::ir::{self, AddressSpace, GlobalId, Stage};
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
    /// `ex2(y * lg2(x))`, NaN for negative bases unless the exponent is a constant 1, 2, 3
    /// or -1) instead of the precise library ([`crate::math`], the default), and f32/f16
    /// division to `div.full.f32` (2 ulp) instead of `div.rn.f32`. Faster, with the
    /// hardware's documented bounds (`docs/math.md`).
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

/// Compiles every compute entry point of `m` to PTX (docs/ptx.md).
pub fn compile_module(m: &ir::Module, opts: &Options) -> CompiledPtx {
    // sm_80, sm_90 or sm_90a (the `a` only on 90).
    let target = crate::model::Target::from_sm(opts.sm);
    let sm = match (target.sm >= 90, target.arch_specific) {
        (true, true) => crate::model::SM_90A,
        (true, false) => 90,
        _ => 80,
    };
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
        let align = m.types.size_align(global.ty).1;
        // Whole 16-byte chunks, which the zero-initialization stores as `st.shared.v4`.
        let bytes = shared_declared_bytes(m, *g);
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

type EntryOut = (EntryInfo, Entry, Vec<GlobalId>);

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
    lw.native_tiles = coop::tile::native(m, f, opts.tf32);
    let mut ranges = dianran_frontend::passes::ValueRanges::new(m, ep.function, f);
    let index_defs = lower::IndexDefs::of(f);
    lw.offset_indices = lower::offset_indices(&index_defs, &mut ranges);
    lw.split_indices = lower::split_indices(&m.types, f, &index_defs);
    if lw.native_tiles {
        lw.tile_ranges = Some(ranges);
    }
    if lw.native_tiles && sm == crate::model::SM_90A {
        let used: u64 = shared.iter().map(|g| u64::from(shared_declared_bytes(m, *g))).sum();
        let room = u32::try_from(crate::abi::MAX_SHARED_BYTES.saturating_sub(used)).unwrap_or(0);
        lw.tile_stage = coop::tile::wgmma::Stage::plan(m, f, room).map_err(|need| {
            Diagnostic::error(
                DiagKind::Limit,
                format!(
                    "entry '{}' uses {used} bytes of workgroup memory; its wgmma products need {need} more, and PTX allows {} in all",
                    ep.name,
                    crate::abi::MAX_SHARED_BYTES
                ),
            )
            .at(f.span)
            .in_fn(ep.name.clone())
            .help("use smaller workgroup arrays, or compile for sm_90 (mma.sync needs no staging)")
        })?;
    }
    lw.tf32 = opts.tf32;
    lw.fast_math = opts.fast_math;
    lw.inject = opts.inject;
    lw.prologue()?;
    lw.body()?;
    let depot = lw.depot_size;
    let stage_bytes = lw.tile_stage.map_or(0, |s| s.bytes());
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
    // What selection computed and nothing reads (the middle address of a split index,
    // `lower::split_indices`): ptxas would delete it too, but registers and the text are ours.
    vectorize::delete_unread(&mut mf);
    check(&mf, "dead code")?;
    let depot = if dead_local::drop_unread_stores(&mut mf) { depot } else { 0 };
    check(&mf, "unread local stores")?;
    slow_paths::share_division_slow_path(&mut mf);
    check(&mf, "shared division slow path")?;
    vectorize::vectorize(&mut mf, &lw.facts);
    check(&mf, "vectorize")?;
    packed_f16::pack_f16(&mut mf);
    check(&mf, "packed f16")?;
    immediates::fold_immediates(&mut mf);
    check(&mf, "immediate folding")?;
    times.select += start.elapsed();
    let start = Instant::now();
    // Debug builds validate the SSA form and run regalloc2's checker on the allocation.
    let mut alloc = regalloc::allocate_owned(mf, cfg!(debug_assertions))
        .map_err(|e| crate::abi::internal(&e.0, &ep.name, f.span))?;
    wgmma_waits::insert_waits(&mut alloc);
    times.regalloc += start.elapsed();
    let start = Instant::now();
    let params = plan.all_params();
    let [x, y, z] = ep.workgroup_size;
    let mut entry = Entry::new(ptx_name);
    entry.params = params
        .iter()
        .map(|n| match ParamKind::of(n) {
            Some(ParamKind::CompareWord { .. }) => Param::scalar(crate::model::Type::U32, n),
            _ => Param::pointer(n),
        })
        .collect();
    if let (Some(g), Some(last)) = (plan.immediates, entry.params.last_mut()) {
        let ty = m.globals.get(g.index()).map_or(ir::TypeId(0), |g| g.ty);
        *last = immediates_param(m.types.size_align(ty).0);
    }
    entry.reqntid = Some([x.max(1), y.max(1), z.max(1)]);
    if depot > 0 {
        entry.vars.push(VarDecl::local_bytes(dead_local::DEPOT, 16, u64::from(depot)));
    }
    if stage_bytes > 0 {
        entry.vars.push(VarDecl::shared_bytes(
            coop::tile::wgmma::STAGE.to_string(),
            coop::tile::wgmma::STAGE_ALIGN,
            u64::from(stage_bytes),
        ));
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
        crate::abi::internal(&format!("the machine code is invalid after {pass}: {e}"), entry, span)
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
        crate::abi::internal(
            &format!("the PTX is invalid after {pass}: {}", err.message),
            entry,
            span,
        )
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
