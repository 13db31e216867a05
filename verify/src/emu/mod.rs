//! The PTX emulator: executes PTX text on the CPU (docs/verification.md, level 3).
//!
//! A launch runs a grid of CTAs one after another (x fastest). A CTA is split into warps of
//! 32 lanes; every lane has its own registers and program counter. A warp issues the
//! instruction with the lowest program counter among its runnable lanes for every lane at
//! that counter; a branch that splits the lanes pushes a reconvergence frame, and the lanes
//! of a frame wait at the branch's immediate post-dominator until all of them arrive (the
//! SIMT stack of the hardware, so `activemask` after an `if` sees the whole warp again).
//! Warp-collective instructions (`shfl.sync`, `vote.sync`, `redux.sync`, `bar.warp.sync`,
//! `mma.sync`, `ldmatrix`) run once every lane of the member mask waits at them; a warp
//! runs until all its lanes have exited or wait at `bar.sync` or `wgmma.mma_async`, the
//! barrier opens when every live thread of the CTA waits at the same one, and a
//! `wgmma.mma_async` runs when its whole warpgroup of 128 threads waits at it (`wgmma.rs`,
//! with the asynchronous-group rules). Scheduling is deterministic.
//!
//! Memory: `.u64` kernel parameters are device pointers to the host buffers (buffer `i`
//! lives at global address `(i + 1) << 32`), other kernel parameters hold their buffer's
//! bytes (see [`run`]); shared memory is per CTA and local memory per thread, each with a
//! window in the generic address space ([`SHARED_WINDOW`], [`LOCAL_WINDOW`]); the module's
//! `.global` and `.const` variables start with their initializers. Every access is
//! bounds-checked. Atomics are sequential and exact. `cp.async` copies from global to shared
//! memory complete at their group's wait; an access to their bytes before it is an error
//! (`cp_async.rs`).
//!
//! Device functions (`.func`, as LLVM emits them) run with `call`: every function the entry
//! reaches has its own registers, local variables and `.param` bytes per thread, at fixed
//! places (a function is never re-entered: recursion is an `Unsupported` error, as is a call
//! to a function declared without a body). `call` copies the argument variables of the
//! caller's call sequence into the callee's parameters and `ret` copies the results back.
//! Each function's `ret`s branch to one final `ret`, so that the lanes of a warp reconverge
//! inside the function before they return.
//!
//! Errors name the PTX line: accesses outside any buffer, barriers that can never open,
//! reads of registers never written, member-mask violations, a `bra.uni` that the active
//! threads of a warp take differently, unsupported instructions and runaway loops
//! ([`EmuOptions::max_steps`]).
//!
//! Floating-point results are rounded once from the exact value in every rounding mode
//! (`add.rz`, `fma.rm`, ..., f16 to f64; an f64 `fma` in a directed mode reads the side of
//! the exact value from an error-free sum, which a cancellation within about 2^-100 of the
//! result could misjudge), and the carry flag of `add.cc`/`addc`/`sub.cc`/`subc`/`mad.cc`/
//! `madc` is kept per thread.
//!
//! Semantics chosen where PTX leaves results undefined: integer division by zero gives all
//! ones (unsigned) or -1 (signed) and remainder by zero gives the dividend, as the hardware
//! does; `div.approx`/`div.full`, `rcp.approx`, `sqrt.approx`, `rsqrt`, `ex2`, `lg2`, `sin`,
//! `cos` and `tanh` use the correctly rounded or `std` f32 functions.

mod cp_async;
mod decode;
mod exec;
mod inflight;
mod lines;
mod memory;
mod num;
mod profile;
mod texture;
mod warp;
mod wgmma;

use std::fmt;

pub use memory::{global_base, LOCAL_WINDOW, SHARED_WINDOW};
pub use profile::{InstClass, Profile};
pub use texture::{
    compare_object_sampler, compare_word, fill_compare_words, texture_objects, write_back_textures,
    TexObject,
};

/// Emulator settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuOptions {
    /// Warp instructions issued (over the whole launch) before the run is stopped as a
    /// probable infinite loop.
    pub max_steps: u64,
    /// What reading a register that was never written gives. `None` (the default): an
    /// [`EmuErrorKind::UndefinedRegister`] error, which catches code-generator bugs in our
    /// PTX. `Some(bits)`: those bits (truncated to the register), for PTX from compilers that
    /// legitimately read undefined values whose bits do not matter, as LLVM does when it packs
    /// an `undef` half into `mov.b32 %r, {%rs1, %rs2}` and masks it off later; a result that
    /// depends on them shows up as a disagreement.
    pub undefined_registers: Option<u64>,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions { max_steps: 1 << 32, undefined_registers: None }
    }
}

/// What went wrong in an emulated launch; tests match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EmuErrorKind {
    /// The PTX text does not parse, or the entry does not exist.
    Parse,
    /// The launch does not fit the kernel (`.reqntid`, parameter count, sizes).
    Launch,
    /// A memory access outside every buffer, shared or local window.
    OutOfBounds,
    /// Threads wait at a barrier or collective that can never complete.
    Deadlock,
    /// A register is read before any instruction wrote it.
    UndefinedRegister,
    /// A warp-collective instruction's member mask is violated.
    MemberMask,
    /// A branch marked `.uni` (`bra.uni`: every active thread of the warp branches alike)
    /// that the active threads take differently; undefined behaviour on the device.
    DivergentUniform,
    /// An instruction or form the emulator does not execute.
    Unsupported,
    /// The run took more than [`EmuOptions::max_steps`] warp instructions.
    StepLimit,
    /// `trap` was executed.
    Trap,
    /// Memory an asynchronous operation still reads is overwritten (`wgmma` operands, the
    /// source of a `cp.async`), or a `cp.async` destination is accessed before its wait.
    Race,
}

/// An emulation error with the 1-based PTX line of the instruction, when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmuError {
    /// Line of the instruction in the PTX text.
    pub line: Option<u32>,
    /// One-line message, lower case.
    pub message: String,
    /// The category.
    pub kind: EmuErrorKind,
}

impl EmuError {
    pub(crate) fn new(kind: EmuErrorKind, line: Option<u32>, message: impl Into<String>) -> Self {
        EmuError { line, message: message.into(), kind }
    }
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "ptx line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for EmuError {}

/// Text that does not parse, or a module the printer rejects, is a `Parse` error at its line.
impl From<dianran_ptx::PtxError> for EmuError {
    fn from(e: dianran_ptx::PtxError) -> Self {
        EmuError::new(EmuErrorKind::Parse, e.line, e.message)
    }
}

impl EmuError {
    /// Converts to the project-wide diagnostic type (kind `Runtime`, `Unsupported` or
    /// `Parse`).
    pub fn to_diagnostic(&self) -> dianran_frontend::Diagnostic {
        use dianran_frontend::{DiagKind, Diagnostic};
        let kind = match self.kind {
            EmuErrorKind::Parse => DiagKind::Parse,
            EmuErrorKind::Unsupported => DiagKind::Unsupported,
            _ => DiagKind::Runtime,
        };
        Diagnostic::error(kind, format!("ptx emulator: {self}"))
    }
}

/// Largest CTA the emulator runs (threads), as on the hardware.
const MAX_CTA: u64 = 1024;

/// Runs kernel `entry` of `ptx` over `grid` CTAs of `block` threads. `params` holds one host
/// buffer per parameter of the entry, in order: a `.u64` (`.b64`, `.s64`) parameter is a
/// device pointer to its buffer (an empty buffer for a placeholder); any other parameter
/// (`.u32 n`, a byte array `.param .align 8 .b8 s[16]`) takes its value from its buffer,
/// which must hold exactly its size in bytes, little-endian. The buffers are updated in
/// place, also when the run stops with an error.
pub fn run(
    ptx: &str,
    entry: &str,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
) -> Result<(), EmuError> {
    run_text(ptx, entry, params, grid, block, opts, None)
}

/// [`run`] that also counts what a profiler would ([`Profile`]: warp instructions by class,
/// global sectors, shared bank conflicts, `mma`, `ldmatrix`, barriers). Any PTX text runs,
/// NVRTC's included: give one buffer per parameter in order (a CUDA kernel's pointer
/// parameters are `.u64` device pointers to their buffers).
pub fn run_profiled(
    ptx: &str,
    entry: &str,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
) -> Result<Profile, EmuError> {
    let mut prof = Profile::default();
    run_text(ptx, entry, params, grid, block, opts, Some(&mut prof))?;
    Ok(prof)
}

/// [`run`] and [`run_profiled`]: parses `ptx`, maps its statements to text lines, launches.
fn run_text(
    ptx: &str,
    entry: &str,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
    prof: Option<&mut Profile>,
) -> Result<(), EmuError> {
    let module = dianran_ptx::parse_module(ptx).map_err(EmuError::from)?;
    let e = find_entry(&module, entry)?;
    let lines = lines::statement_lines(ptx, entry).filter(|l| l.len() == e.body.len());
    let names = lines::register_names(ptx, entry);
    launch(&module, e, lines.as_deref(), Some(ptx), names, params, &mut [], grid, block, opts, prof)
}

/// [`run`] on a module of the PTX model, such as [`dianran_ptx::codegen::CompiledPtx::module`]:
/// no text is parsed. Messages name the lines of the module as
/// [`dianran_ptx::print_module`] prints it.
pub fn run_module(
    module: &dianran_ptx::Module,
    entry: &str,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
) -> Result<(), EmuError> {
    launch_module(module, entry, params, &mut [], grid, block, opts, None)
}

/// [`run_module`] with texture and surface objects: `textures[k]` is what parameter `k`
/// names when it is a texture or surface object (its `params[k]` buffer is then unused);
/// surfaces are updated in place (`docs/textures.md`).
pub fn run_module_textures(
    module: &dianran_ptx::Module,
    entry: &str,
    params: &mut [Vec<u8>],
    textures: &mut [Option<TexObject>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
) -> Result<(), EmuError> {
    launch_module(module, entry, params, textures, grid, block, opts, None)
}

/// [`run_module`] with the counters of [`run_profiled`].
pub fn run_module_profiled(
    module: &dianran_ptx::Module,
    entry: &str,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
) -> Result<Profile, EmuError> {
    let mut prof = Profile::default();
    launch_module(module, entry, params, &mut [], grid, block, opts, Some(&mut prof))?;
    Ok(prof)
}

/// [`run_module`] and [`run_module_profiled`]: maps the module's statements to the lines
/// the printer gives them, launches.
#[allow(clippy::too_many_arguments)]
fn launch_module(
    module: &dianran_ptx::Module,
    entry: &str,
    params: &mut [Vec<u8>],
    textures: &mut [Option<TexObject>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
    prof: Option<&mut Profile>,
) -> Result<(), EmuError> {
    let e = find_entry(module, entry)?;
    // The printer checks names and instructions; a module it rejects is not run.
    let (_, lines) = dianran_ptx::print_module_lines(module).map_err(EmuError::from)?;
    let index = module.entries.iter().position(|x| x.name == entry);
    let lines = index.and_then(|i| lines.into_iter().nth(i));
    launch(module, e, lines.as_deref(), None, None, params, textures, grid, block, opts, prof)
}

fn find_entry<'m>(
    module: &'m dianran_ptx::Module,
    entry: &str,
) -> Result<&'m dianran_ptx::Entry, EmuError> {
    module.entry(entry).ok_or_else(|| {
        let names: Vec<&str> = module.entries.iter().map(|e| e.name.as_str()).collect();
        EmuError::new(
            EmuErrorKind::Parse,
            None,
            format!("no entry named '{entry}'; the module has: {}", names.join(", ")),
        )
    })
}

/// Checks the launch against entry `e` of `module`, decodes it and runs it.
#[allow(clippy::too_many_arguments)]
fn launch(
    module: &dianran_ptx::Module,
    e: &dianran_ptx::Entry,
    lines: Option<&[u32]>,
    text: Option<&str>,
    names: Option<[Vec<String>; 4]>,
    params: &mut [Vec<u8>],
    textures: &mut [Option<TexObject>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
    prof: Option<&mut Profile>,
) -> Result<(), EmuError> {
    let entry = e.name.as_str();
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || threads > MAX_CTA {
        return Err(EmuError::new(
            EmuErrorKind::Launch,
            None,
            format!("block {block:?} has {threads} threads; a CTA has 1..={MAX_CTA}"),
        ));
    }
    if grid.contains(&0) {
        return Err(EmuError::new(EmuErrorKind::Launch, None, format!("grid {grid:?} is empty")));
    }
    if let Some(req) = e.reqntid {
        if req != block {
            return Err(EmuError::new(
                EmuErrorKind::Launch,
                None,
                format!("entry '{entry}' requires .reqntid {req:?} but the block is {block:?}"),
            ));
        }
    }
    if let Some(max) = e.maxntid {
        let limit: u64 = max.iter().map(|&d| u64::from(d)).product();
        if threads > limit {
            return Err(EmuError::new(
                EmuErrorKind::Launch,
                None,
                format!("block {block:?} exceeds .maxntid {max:?} of entry '{entry}'"),
            ));
        }
    }
    if params.len() != e.params.len() {
        return Err(EmuError::new(
            EmuErrorKind::Launch,
            None,
            format!(
                "entry '{entry}' has {} parameters but {} buffers were given",
                e.params.len(),
                params.len()
            ),
        ));
    }
    let prog = decode::decode(module, e, lines, text, names)?;
    for (k, (p, buf)) in prog.kparams.iter().zip(params.iter()).enumerate() {
        if !p.pointer && buf.len() != p.size {
            return Err(EmuError::new(
                EmuErrorKind::Launch,
                None,
                format!(
                    "parameter {k} ('{}') is a {}-byte value but its buffer holds {} bytes",
                    p.name,
                    p.size,
                    buf.len()
                ),
            ));
        }
    }
    warp::launch(&prog, params, textures, grid, block, opts, prof)
}
