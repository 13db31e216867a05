//! The PTX launch ABI, in one place: what every PTX producer (this crate's code generator,
//! `dianran-llvm`) emits and every consumer (the emulator and executors in `dianran-verify`,
//! `dianran-runtime`'s launcher, the `dianran` entry table) reads. docs/abi.md is its prose.
//!
//! * [`plan_entry`]: the entry plan both backends start from: the inlined body, the
//!   parameter list in order (the group-0 rule, placeholders, texture pairs and compare words,
//!   `p_sizes`, `p_immediates`), the workgroup and private variables, PTX's limits.
//! * [`params`]: the parameter names, the one parser of them ([`ParamKind::of`]), the compare
//!   word's bits and the immediates' padding.
//! * [`layout`]: the host-shareable memory layout of IR types per scalar component.
//! * [`EntryInfo`] / [`EntryFlags`]: what a host needs to launch a compiled entry.

// Plan steps return `Result<_, Diagnostic>`; the diagnostic is large but rare.
#![allow(clippy::result_large_err)]

pub mod layout;
pub mod params;

pub use params::{
    compare_param_binding, compare_param_name, immediates_len, pair_param_binding, pair_param_name,
    param_binding, param_name, BindingKey, ParamKind, COMPARE_FN_MASK, COMPARE_LINEAR_BIT,
    COMPARE_SUFFIX, IMMEDIATES_PARAM, SIZES_PARAM,
};

use crate::model::Param;
use dianran_frontend::ir::{self, AddressSpace, GlobalId, Op, Stage};
use dianran_frontend::{DiagKind, Diagnostic};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

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
        /// TF32 products (f32 cooperative matrices with [`Options::tf32`](crate::codegen::Options::tf32)): results are not
        /// f32-exact.
        const TF32 = 1 << 1;
        /// Approximate math (math builtins compiled with [`Options::fast_math`](crate::codegen::Options::fast_math)).
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
        /// (`docs/textures.md`).
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
    /// slots, with its name ([`pair_param_name`]).
    pub pairs: Vec<(GlobalId, GlobalId, String)>,
    /// The pairs used with depth comparison, each with its `.u32` compare-word parameter
    /// ([`compare_param_name`]), which follows the pair's texture object.
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
            p.push(SIZES_PARAM.into());
        }
        if self.immediates.is_some() {
            p.push(IMMEDIATES_PARAM.into());
        }
        p
    }
}

/// The `.param` of an entry's immediate data of `size` bytes ([`IMMEDIATES_PARAM`]).
pub fn immediates_param(size: u32) -> Param {
    Param {
        ty: crate::model::Type::B8,
        name: IMMEDIATES_PARAM.into(),
        align: Some(16),
        len: Some(immediates_len(size as usize) as u64),
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
        return Err(unsupported(
            "calls to user functions that could not be inlined",
            &ep.name,
            span,
        ));
    }
    let mut used = BTreeSet::new();
    let mut flags = EntryFlags::empty();
    scan(&f.body, &mut used, &mut flags);
    let textures = crate::codegen::texture::plan_textures(m, f, &ep.name)?;
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
                let b = global
                    .binding
                    .ok_or_else(|| internal("buffer without binding", &ep.name, global.span))?;
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
                let b = global
                    .binding
                    .ok_or_else(|| internal("texture without binding", &ep.name, global.span))?;
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
    // `.aligned`: a partial warp would be undefined behaviour on the device. A rule of the
    // target the kernel breaks (`Check`), as Dawn's pipeline creation rejects such a
    // workgroup size too, not a gap in dianran.
    if !threads.is_multiple_of(32) {
        if let Some(span) = find_coop(&f.body) {
            let [x, y, z] = ep.workgroup_size;
            return Err(Diagnostic::error(
                DiagKind::Check,
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
    let shared_bytes: u64 = shared.iter().map(|g| u64::from(shared_declared_bytes(m, *g))).sum();
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
            .ok_or_else(|| internal("texture or sampler without binding", &ep.name, f.span))
    };
    let mut pairs = Vec::new();
    let mut compare = Vec::new();
    for &(t, s) in &textures.compare {
        let (tb, sb) = (binding(t)?, binding(s)?);
        compare.push((t, s, compare_param_name(tb, sb)));
    }
    for &(t, s) in &textures.pairs {
        let (tb, sb) = (binding(t)?, binding(s)?);
        pairs.push(((tb.group, tb.binding, sb.group, sb.binding), t, s, pair_param_name(tb, sb)));
    }
    pairs.sort_by_key(|p| p.0);
    let pairs = pairs.into_iter().map(|(_, t, s, n)| (t, s, n)).collect();
    // Loop invariants and induction variables across the inlined calls; after the plan, which
    // keeps describing the entry as written (the passes add integer arithmetic, and loop
    // versioning a decision that needs no binding: `bar.red`, or `subgroupAll` in a loop that
    // already holds subgroup or cooperative operations).
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

/// Bytes workgroup variable `g` is declared with in PTX (whole 16-byte chunks, [`ZeroPlan`]).
pub fn shared_declared_bytes(m: &ir::Module, g: GlobalId) -> u32 {
    ZeroPlan::new(shared_words(m, g), 1).bytes
}

/// Size of workgroup variable `g` in whole 32-bit words (at least one), as declared and
/// zeroed.
pub fn shared_words(m: &ir::Module, g: GlobalId) -> u32 {
    m.globals.get(g.index()).map_or(1, |global| m.types.size_align(global.ty).0.max(1).div_ceil(4))
}

/// How an entry zeroes workgroup variable of `words` 32-bit words with `threads` invocations
/// (WGSL zero-initializes workgroup memory): the variable is declared in whole 16-byte chunks
/// and invocation `lid` clears chunks `lid + i * threads` with `st.shared.v4` for `i` in
/// `0..rounds`; only a round that does not cover every invocation needs a bound check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroPlan {
    /// Declared size in bytes: `words * 4` rounded up to 16.
    pub bytes: u32,
    /// Bytes between one invocation's consecutive chunks (`threads * 16`).
    pub step: u32,
    /// Stores per invocation.
    pub rounds: u32,
    chunks: u32,
    threads: u32,
}

impl ZeroPlan {
    /// Up to this many rounds are emitted straight-line; more become a loop.
    pub const MAX_UNROLLED: u32 = 4;

    /// The plan for a variable of `words` words (see [`shared_words`]).
    pub fn new(words: u32, threads: u32) -> Self {
        let chunks = words.max(1).div_ceil(4);
        let threads = threads.max(1);
        ZeroPlan {
            bytes: chunks.saturating_mul(16),
            step: threads.saturating_mul(16),
            rounds: chunks.div_ceil(threads),
            chunks,
            threads,
        }
    }

    /// Whether every invocation's chunk of round `i` lies inside the variable.
    pub fn full_round(&self, i: u32) -> bool {
        i.saturating_add(1).saturating_mul(self.threads) <= self.chunks
    }
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

/// Static shared memory per block (bytes): ptxas rejects more.
pub const MAX_SHARED_BYTES: u64 = 48 * 1024;
/// Local (per-invocation) memory per thread (bytes).
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;

/// Diagnostic for something PTX code generation does not support.
pub(crate) fn unsupported(what: &str, entry: &str, span: ir::Span) -> Diagnostic {
    Diagnostic::error(
        DiagKind::Unsupported,
        format!("PTX does not support {what} (entry '{entry}')"),
    )
    .at(span)
    .in_fn(entry)
    .help("remove it from this entry point, or compile this entry for another target")
}

/// Diagnostic for IR the PTX code generator cannot make sense of (a bug upstream).
pub(crate) fn internal(what: &str, entry: &str, span: ir::Span) -> Diagnostic {
    Diagnostic::error(DiagKind::Internal, format!("PTX code generation: {what}"))
        .at(span)
        .in_fn(entry)
        .help("this is a bug in dianran; please report it with the input file")
}
