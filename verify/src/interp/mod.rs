//! The reference interpreter: runs a compute entry point of the SSA form with WGSL semantics.
//!
//! Every workgroup of the dispatch runs in turn (x fastest). Within a workgroup all
//! invocations run in lockstep over the structured IR with active masks (module `exec`), so
//! a barrier is a synchronization point by construction; one reached while some live
//! invocation of the workgroup is elsewhere is reported as a runtime error. Memory accesses
//! are bounds-checked and reported, never clamped. Atomics are sequential and exact, in
//! invocation order. The submodules hold values (`value`), memory (`memory`), arithmetic
//! (`math`), subgroups (`subgroup`) and cooperative matrices (`coop`).
//!
//! Decisions where WGSL leaves room:
//! * Subgroups are consecutive runs of `local_invocation_index` of
//!   [`InterpOptions::subgroup_size`]; collectives act over the active lanes of a subgroup.
//!   A shuffle whose source lane is out of range or inactive returns the reader's own value.
//! * Cooperative matrices are whole `rows x columns` matrices; `coop_matCxR` has `C` columns
//!   (naga's columns-first spelling) and `coopMultiplyAdd(a, b, c)` is the product `a·b + c`
//!   with `a` of `R x K` and `b` of `K x C`. `coopLoadT`/`coopStoreT` read/write row-major
//!   memory (element (r, c) at `r * stride + c`), the plain forms column-major
//!   (`c * stride + r`). Products accumulate in `f32` and round once to the result type.
//! * Float to integer conversion saturates, NaN gives 0. `f16` arithmetic is computed in
//!   `f32` and rounded to `f16` after every operation.
//! * Textures run on [`crate::texture`] with exact filter weights (module `texture_ops`):
//!   out-of-bounds loads return zero, out-of-bounds stores are dropped, stores happen in
//!   invocation order.

// `Diagnostic` is the project-wide error type of every public API; boxing it here would
// only make this module differ from the rest.
#![allow(clippy::result_large_err)]

mod coop;
mod exec;
mod math;
mod memory;
mod nudge;
mod scalar_ops;
mod subgroup;
mod texture_ops;
mod value;
mod wide;

#[cfg(test)]
mod tests;

use crate::buffers::entry_bindings;
pub use crate::buffers::Buffers;
use crate::texture::TextureBindings;
use dianran_frontend::ir::{self, AddressSpace, Stage};
use dianran_frontend::{DiagKind, Diagnostic};
use memory::{Memory, REGION_BUFFER0, REGION_PRIVATE, REGION_WORKGROUP};
pub use nudge::{MathNudge, MathUlps};

/// Interpreter settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterpOptions {
    /// Invocations per subgroup (32 like NVIDIA warps; lavapipe uses 8).
    pub subgroup_size: u32,
    /// Instructions executed over the whole dispatch (each counted once per workgroup,
    /// however many invocations are active, plus one per loop iteration) before the run is
    /// stopped as a probable infinite loop.
    pub max_steps: u64,
    /// Make the results WGSL leaves undefined NaN (`pow` of a negative base, `sin`/`cos`/`tan`
    /// beyond ±pi), so that what depends on them shows up as NaN: `dianran verify` runs the
    /// interpreter this way to know which values a Vulkan implementation may compute
    /// differently (see `agree::undefined_slots`). Off for the reference itself, which
    /// computes C99's exact results.
    pub undefined_math_nan: bool,
    /// What a subgroup exchange (`subgroupShuffle` and friends) returns when its source
    /// invocation is inactive or outside the subgroup, which WGSL leaves indeterminate: the
    /// reading invocation's own value (`None`, the default, as the PTX emulator does) or this
    /// word in every component. `dianran verify` runs with a fill to find the values that
    /// depend on such reads.
    pub inactive_read: Option<u32>,
    /// Move the results of the math builtins that are not correctly rounded by a few ulps
    /// ([`MathNudge`]): `dianran verify` reruns the interpreter this way to measure how much a
    /// kernel amplifies the error such builtins may have on another executor
    /// (`crate::sensitivity`). `None` (the default) for the reference.
    pub math_nudge: Option<MathNudge>,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            subgroup_size: 32,
            max_steps: 1 << 32,
            undefined_math_nan: false,
            inactive_read: None,
            math_nudge: None,
        }
    }
}

/// Largest workgroup the interpreter runs (invocations).
const MAX_WORKGROUP: u64 = 1 << 16;

/// Runs `entry` over a `dispatch` of workgroups with `buffers` bound by (group, binding).
/// Buffers are updated in place (also when the run stops with an error).
pub fn run(
    m: &ir::Module,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut Buffers,
    opts: &InterpOptions,
) -> Result<(), Diagnostic> {
    run_counted(m, entry, dispatch, buffers, opts).map(|_| ())
}

/// What a run saw besides its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Lane reads of subgroup exchanges whose source invocation was inactive or outside the
    /// subgroup (indeterminate in WGSL; see [`InterpOptions::inactive_read`]).
    pub indeterminate_reads: u64,
}

/// [`run`], also returning [`RunStats`].
pub fn run_counted(
    m: &ir::Module,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut Buffers,
    opts: &InterpOptions,
) -> Result<RunStats, Diagnostic> {
    run_with_textures(m, entry, dispatch, buffers, &mut TextureBindings::default(), opts)
}

/// [`run_counted`] with the textures and samplers the entry uses bound by (group, binding)
/// in `textures` (build them with [`crate::texture::build_textures`]). Storage textures are
/// updated in place (also when the run stops with an error).
pub fn run_with_textures(
    m: &ir::Module,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut Buffers,
    textures: &mut TextureBindings,
    opts: &InterpOptions,
) -> Result<RunStats, Diagnostic> {
    let ep = m.entry_point(entry).ok_or_else(|| {
        let names: Vec<&str> = m.entry_points.iter().map(|e| e.name.as_str()).collect();
        Diagnostic::error(DiagKind::Runtime, format!("no entry point named '{entry}'"))
            .help(format!("the module's entry points are: {}", names.join(", ")))
    })?;
    if ep.stage != Stage::Compute {
        return Err(Diagnostic::error(
            DiagKind::Unsupported,
            format!(
                "entry point '{entry}' is a {} shader; the interpreter runs compute entry points",
                ep.stage.name()
            ),
        )
        .in_fn(entry));
    }
    if opts.subgroup_size == 0 || opts.subgroup_size > 128 {
        return Err(Diagnostic::error(
            DiagKind::Runtime,
            format!("subgroup size {} is outside 1..=128", opts.subgroup_size),
        ));
    }
    let lanes: u64 = ep.workgroup_size.iter().map(|&x| u64::from(x)).product();
    if lanes == 0 || lanes > MAX_WORKGROUP {
        return Err(Diagnostic::error(
            DiagKind::Limit,
            format!("workgroup size {:?} is outside what the interpreter runs (1..={MAX_WORKGROUP} invocations)", ep.workgroup_size),
        )
        .in_fn(entry));
    }
    let bindings = entry_bindings(m, entry)?;

    // Take the buffers out of the map for the run; they go back whatever happens.
    let mut mem = Memory {
        stacks: Vec::new(),
        privates: Vec::new(),
        workgroup: Vec::new(),
        buffers: Vec::new(),
        buffer_names: Vec::new(),
        buffer_writable: Vec::new(),
    };
    let mut keys = Vec::new();
    let mut missing = None;
    for b in &bindings {
        match buffers.remove(&(b.group, b.binding)) {
            Some(v) => {
                keys.push((b.group, b.binding));
                mem.buffers.push(v);
                mem.buffer_names
                    .push(format!("'{}' (@group({}) @binding({}))", b.name, b.group, b.binding));
                mem.buffer_writable
                    .push(matches!(b.space, AddressSpace::Storage { writable: true }));
            }
            None => {
                missing = Some(b.clone());
                break;
            }
        }
    }
    if let Some(b) = missing {
        for (k, v) in keys.into_iter().zip(mem.buffers) {
            buffers.insert(k, v);
        }
        return Err(Diagnostic::error(
            DiagKind::Runtime,
            format!(
                "missing buffer '{}' (@group({}) @binding({})) used by entry point '{entry}'",
                b.name, b.group, b.binding
            ),
        )
        .help("pass a buffer for every binding the entry uses; verify::buffers::default_buffers builds zero-filled ones"));
    }
    let mut mach = exec::Machine::new(m, *opts, mem);
    let taken = take_handles(m, entry, textures, &mut mach.handles);
    let result = taken.and_then(|()| dispatch_inner(&mut mach, m, ep, &bindings, dispatch));
    for (k, v) in keys.into_iter().zip(std::mem::take(&mut mach.mem.buffers)) {
        buffers.insert(k, v);
    }
    give_back_handles(m, textures, &mut mach.handles);
    result.map(|()| RunStats { indeterminate_reads: mach.indeterminate_reads })
}

/// Moves the textures and samplers `entry` uses from `textures` into `h` (by global index).
fn take_handles(
    m: &ir::Module,
    entry: &str,
    textures: &mut TextureBindings,
    h: &mut texture_ops::Handles,
) -> Result<(), Diagnostic> {
    use crate::texture::HandleKind;
    h.textures = vec![None; m.globals.len()];
    h.samplers = vec![None; m.globals.len()];
    for b in crate::texture::entry_handles(m, entry)? {
        let key = (b.group, b.binding);
        // Entries of one module may bind different handles at the same (group, binding):
        // the global is the one with the entry's name for it (module-scope names are unique).
        let g = m.globals.iter().position(|g| {
            g.space == AddressSpace::Handle
                && g.name == b.name
                && g.binding.is_some_and(|rb| (rb.group, rb.binding) == key)
        });
        let found = match (b.kind, g) {
            (HandleKind::Texture { .. }, Some(g)) => {
                textures.textures.remove(&key).map(|t| h.textures[g] = Some(t))
            }
            (HandleKind::Sampler { .. }, Some(g)) => {
                textures.samplers.get(&key).map(|s| h.samplers[g] = Some(*s))
            }
            (_, None) => None,
        };
        if found.is_none() {
            let what =
                if matches!(b.kind, HandleKind::Sampler { .. }) { "sampler" } else { "texture" };
            return Err(Diagnostic::error(
                DiagKind::Runtime,
                format!("missing {what} '{}' (@group({}) @binding({})) used by entry point '{entry}'", b.name, b.group, b.binding),
            )
            .help("bind every texture and sampler the entry uses; verify::texture::build_textures builds them"));
        }
    }
    Ok(())
}

/// Puts the textures of `h` back into `textures`.
fn give_back_handles(m: &ir::Module, textures: &mut TextureBindings, h: &mut texture_ops::Handles) {
    for (g, t) in std::mem::take(&mut h.textures).into_iter().enumerate() {
        if let (Some(t), Some(rb)) = (t, m.globals.get(g).and_then(|g| g.binding)) {
            textures.textures.insert((rb.group, rb.binding), t);
        }
    }
}

fn dispatch_inner<'m>(
    mach: &mut exec::Machine<'m>,
    m: &'m ir::Module,
    ep: &ir::EntryPoint,
    bindings: &[crate::buffers::BindingInfo],
    dispatch: [u32; 3],
) -> Result<(), Diagnostic> {
    // Place globals: buffers by binding, workgroup and private variables packed by alignment.
    let mut wg_bytes = 0u32;
    let mut priv_bytes = 0u32;
    let mut inits = Vec::new();
    for (i, g) in m.globals.iter().enumerate() {
        let (size, align) = m.types.size_align(g.ty);
        let ptr = match g.space {
            // Immediate data is read from the bytes under `buffers::IMMEDIATES`.
            AddressSpace::Storage { .. } | AddressSpace::Uniform | AddressSpace::Immediate => {
                bindings
                    .iter()
                    .position(|b| b.global.index() == i)
                    .map(|k| [REGION_BUFFER0 + k as u32, 0])
            }
            AddressSpace::Workgroup => {
                wg_bytes = wg_bytes.next_multiple_of(align.max(1));
                let p = [REGION_WORKGROUP, wg_bytes];
                wg_bytes = wg_bytes.saturating_add(size);
                Some(p)
            }
            AddressSpace::Private | AddressSpace::Function => {
                priv_bytes = priv_bytes.next_multiple_of(align.max(1));
                let p = [REGION_PRIVATE, priv_bytes];
                priv_bytes = priv_bytes.saturating_add(size);
                if let Some(init) = &g.init {
                    inits.push((p, g.ty, init));
                }
                Some(p)
            }
            AddressSpace::Handle => None,
        };
        if let Some(slot) = mach.global_ptr.get_mut(i) {
            *slot = ptr;
        }
    }
    // Private initial values, written once into a template copied per invocation.
    mach.mem.privates = vec![vec![0u8; priv_bytes as usize]];
    let mut words = Vec::new();
    for (p, ty, init) in inits {
        words.clear();
        value::const_words(&mach.lay, init, &mut words)?;
        mach.mem.store(&m.types, 0, p, ty, &words).map_err(|d| d.in_fn(&ep.name))?;
    }
    let template = mach.mem.privates.pop().unwrap_or_default();

    let f = m.functions.get(ep.function.index()).ok_or_else(|| {
        Diagnostic::error(DiagKind::Internal, format!("entry '{}' has no function", ep.name))
    })?;
    let local_bytes = mach.info(ep.function.index())?.local_bytes as usize;
    let nlanes = ep.workgroup_size.iter().product::<u32>() as usize;
    mach.nlanes = nlanes;
    mach.wg_size = ep.workgroup_size;
    mach.num_wg = dispatch;
    for z in 0..dispatch[2] {
        for y in 0..dispatch[1] {
            for x in 0..dispatch[0] {
                mach.wg_id = [x, y, z];
                mach.mem.workgroup = vec![0u8; wg_bytes as usize];
                mach.mem.privates = vec![template.clone(); nlanes];
                mach.mem.stacks = vec![vec![0u8; local_bytes]; nlanes];
                mach.run_workgroup(f, ep.function.index()).map_err(|d| {
                    if d.context.is_none() {
                        d.in_fn(&ep.name)
                    } else {
                        d
                    }
                })?;
            }
        }
    }
    Ok(())
}
