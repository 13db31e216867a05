//! The executors `dianran run --executor` and `dianran verify` drive, behind one interface.
//!
//! Each executor takes the same input buffers (by `(group, binding)`) and returns the buffers
//! after the run, or says why it did not run:
//!
//! | executor | runs | needs |
//! |---|---|---|
//! | `interp` | the SSA on the reference interpreter (the reference) | nothing |
//! | `emu` | our PTX on the PTX emulator | nothing |
//! | `cuda` | our PTX through the CUDA driver (cudarc) | an NVIDIA driver |
//! | `llvm-emu` | LLVM's PTX (`dianran-llvm`) on the PTX emulator | the `llvm` feature |
//! | `llvm-cuda` | LLVM's PTX through the CUDA driver | the `llvm` feature, a driver |
//! | `lavapipe` | the input WGSL through wgpu on Vulkan | lavapipe |
//! | `lavapipe-out` | the WGSL dianran prints, through wgpu on Vulkan | lavapipe |
//!
//! PTX executors apply docs/abi.md's parameter convention from the codegen's entry table: one
//! buffer per `p_g<G>_b<B>` parameter (an empty placeholder for unused bindings) and, for
//! entries that call `arrayLength`, a trailing `p_sizes` buffer of `u32` byte sizes.

mod cuda;

use crate::buffers::Buffers;
use dianran_frontend::{ir, DiagKind};
use std::fmt;

/// Which executor to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Executor {
    /// The reference interpreter.
    Interp,
    /// The PTX emulator.
    Emu,
    /// The CUDA driver.
    Cuda,
    /// The PTX LLVM's NVPTX backend makes of the same SSA, on the PTX emulator.
    LlvmEmu,
    /// The PTX LLVM's NVPTX backend makes, through the CUDA driver.
    LlvmCuda,
    /// lavapipe running the input WGSL.
    Lavapipe,
    /// lavapipe running the WGSL dianran prints.
    LavapipeOut,
}

impl Executor {
    /// Every executor, reference first.
    pub const ALL: [Executor; 7] = [
        Executor::Interp,
        Executor::Emu,
        Executor::Cuda,
        Executor::LlvmEmu,
        Executor::LlvmCuda,
        Executor::Lavapipe,
        Executor::LavapipeOut,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Executor::Interp => "interp",
            Executor::Emu => "emu",
            Executor::Cuda => "cuda",
            Executor::LlvmEmu => "llvm-emu",
            Executor::LlvmCuda => "llvm-cuda",
            Executor::Lavapipe => "lavapipe",
            Executor::LavapipeOut => "lavapipe-out",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Executor> {
        Executor::ALL.into_iter().find(|e| e.name() == s)
    }
}

/// The emulator's budget here: 2^24 warp instructions (about ten seconds of emulation on a
/// slow machine; every sample needs far fewer). A wrong PTX that never leaves a loop must end
/// as a disagreement rather than hang.
const EMU_OPTIONS: crate::emu::EmuOptions =
    crate::emu::EmuOptions { max_steps: 1 << 24, undefined_registers: None };

/// [`EMU_OPTIONS`] for LLVM's PTX, which may read registers it never wrote where their bits do
/// not matter (an `undef` half of a packed pair): they read as this pattern.
#[cfg(feature = "llvm")]
const LLVM_EMU_OPTIONS: crate::emu::EmuOptions =
    crate::emu::EmuOptions { max_steps: 1 << 24, undefined_registers: Some(0x9e37_79b9_7f4a_7c15) };

/// Why an executor produced no buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// The executor is not available here (no driver, no Vulkan, ...): not a failure.
    Skipped(String),
    /// The executor ran (or tried to) and failed.
    Failed(String),
    /// The executor produced nothing within its time limit ([`run_limited`]).
    Timeout(std::time::Duration),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::Skipped(s) | ExecError::Failed(s) => f.write_str(s),
            ExecError::Timeout(d) => write!(f, "no result after {} s", d.as_secs_f64()),
        }
    }
}

/// What an executor needs about the kernel.
pub struct Job<'a> {
    /// File name (for messages).
    pub file_name: &'a str,
    /// The input WGSL as the user wrote it.
    pub source: &'a str,
    /// `--override NAME=VALUE` pairs `module` was compiled with: lavapipe, which runs
    /// `source`, gets them as pipeline constants.
    pub overrides: &'a [(String, f64)],
    /// The compiled SSA module.
    pub module: &'a ir::Module,
    /// The entry point's WGSL name.
    pub entry: &'a str,
    /// Workgroups per dimension.
    pub dispatch: [u32; 3],
    /// Subgroup size for the interpreter.
    pub subgroup_size: u32,
    /// PTX target: 80, 90 or `dianran_ptx::model::SM_90A`.
    pub sm: u32,
    /// f32 cooperative products use TF32 tensor cores (`--tf32`) in the PTX the PTX executors
    /// compile; their results then compare with the TF32 bound
    /// ([`crate::agree::precision_for`]).
    pub tf32: bool,
    /// Math builtins use PTX's approximate instructions (`--fast-math`) in the PTX the PTX
    /// executors compile; their results then compare with the fast-math bound
    /// ([`crate::agree::precision_for`]).
    pub fast_math: bool,
    /// PTX text the `emu` and `cuda` executors run instead of compiling the module (it must
    /// follow the same entry name and parameter convention): checks hand-edited or third-party
    /// PTX against the WGSL's meaning. The LLVM executors ignore it.
    pub ptx: Option<&'a str>,
}

impl<'a> Job<'a> {
    /// A job with the defaults every caller starts from: no overrides, subgroups of 32,
    /// `sm_80`, exact f32 products (no TF32), precise math, and PTX compiled from `module`.
    /// Callers change a field with struct-update syntax
    /// (`Job { subgroup_size: 8, ..Job::new(..) }`).
    pub fn new(
        file_name: &'a str,
        source: &'a str,
        module: &'a ir::Module,
        entry: &'a str,
        dispatch: [u32; 3],
    ) -> Job<'a> {
        Job {
            file_name,
            source,
            overrides: &[],
            module,
            entry,
            dispatch,
            subgroup_size: 32,
            sm: 80,
            tf32: false,
            fast_math: false,
            ptx: None,
        }
    }
}

/// A [`Job`] that owns its parts, for work on another thread ([`run_limited`],
/// [`bounded`]).
#[derive(Clone, Debug)]
pub struct OwnedJob {
    file_name: String,
    source: String,
    overrides: Vec<(String, f64)>,
    module: ir::Module,
    entry: String,
    dispatch: [u32; 3],
    sm: u32,
    tf32: bool,
    fast_math: bool,
    ptx: Option<String>,
}

impl OwnedJob {
    /// Copies `job`.
    pub fn new(job: &Job<'_>) -> OwnedJob {
        OwnedJob {
            file_name: job.file_name.to_string(),
            source: job.source.to_string(),
            overrides: job.overrides.to_vec(),
            module: job.module.clone(),
            entry: job.entry.to_string(),
            dispatch: job.dispatch,
            sm: job.sm,
            tf32: job.tf32,
            fast_math: job.fast_math,
            ptx: job.ptx.map(str::to_string),
        }
    }

    /// The same job on another module (the same source compiled with other options).
    pub fn with_module(&self, module: ir::Module) -> OwnedJob {
        OwnedJob { module, ..self.clone() }
    }

    /// The job at `subgroup_size`.
    pub fn job(&self, subgroup_size: u32) -> Job<'_> {
        Job {
            file_name: &self.file_name,
            source: &self.source,
            overrides: &self.overrides,
            module: &self.module,
            entry: &self.entry,
            dispatch: self.dispatch,
            subgroup_size,
            sm: self.sm,
            tf32: self.tf32,
            fast_math: self.fast_math,
            ptx: self.ptx.as_deref(),
        }
    }
}

/// Runs `f` on its own thread (named after `what`) and waits at most `limit` for its result:
/// [`ExecError::Timeout`] after that, leaving the thread behind (the interpreter and the
/// emulator cannot be interrupted; a process that exits ends it). A panic in `f` is an
/// [`ExecError::Failed`] saying so.
pub fn bounded<T: Send + 'static>(
    what: &str,
    limit: std::time::Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ExecError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name(format!("dianran-{what}")).spawn(move || {
        let _ = tx.send(f());
    });
    if let Err(e) = spawned {
        return Err(ExecError::Failed(format!("cannot start a thread: {e}")));
    }
    match rx.recv_timeout(limit) {
        Ok(r) => Ok(r),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(ExecError::Timeout(limit)),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(ExecError::Failed(format!("{what} stopped without a result")))
        }
    }
}

/// [`bounded`] for a run on `exec`. A lavapipe run past its limit keeps running inside Mesa,
/// which cannot cancel it, and holds the device; later lavapipe runs of this process then say
/// so at once (`lavapipe::note_timed_out`) instead of each waiting out its own limit.
pub fn bounded_run<T: Send + 'static>(
    exec: Executor,
    limit: std::time::Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ExecError> {
    let r = bounded(exec.name(), limit, f);
    #[cfg(feature = "lavapipe")]
    if matches!(r, Err(ExecError::Timeout(_)))
        && matches!(exec, Executor::Lavapipe | Executor::LavapipeOut)
    {
        crate::lavapipe::note_timed_out();
    }
    r
}

/// [`run`] with a time limit ([`bounded_run`]). The job is copied for the thread.
pub fn run_limited(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    limit: std::time::Duration,
) -> Result<Buffers, ExecError> {
    let owned = OwnedJob::new(job);
    let size = job.subgroup_size;
    let input = input.clone();
    bounded_run(exec, limit, move || run(exec, &owned.job(size), &input))?
}

/// Whether `exec` runs the PTX dianran compiles (its bounds depend on the PTX options).
pub fn runs_our_ptx(exec: Executor) -> bool {
    matches!(exec, Executor::Emu | Executor::Cuda)
}

/// Whether `exec` runs PTX from either backend: ours or LLVM's. Both compute C99's results
/// for the math WGSL leaves undefined (libdevice for LLVM's), so those values are compared.
pub fn runs_ptx(exec: Executor) -> bool {
    runs_our_ptx(exec) || runs_llvm_ptx(exec)
}

/// Whether `exec` runs the PTX of the LLVM backend.
pub fn runs_llvm_ptx(exec: Executor) -> bool {
    matches!(exec, Executor::LlvmEmu | Executor::LlvmCuda)
}

/// Compares `result`, produced by `exec` from `input`, with the interpreter's `reference`
/// (run at the same subgroup size) under the executor's float bounds
/// ([`crate::agree::precision_for`]). `Ok(None)`: agree. `Ok(Some(note))`: agree, with a note
/// about values that were not compared because WGSL does not define them ([`excuses`]).
/// [`excuses`] then [`compare_excused`]; callers comparing several executors at one subgroup
/// size compute the excuses once.
pub fn compare_run(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    reference: &Buffers,
    result: &Buffers,
) -> Result<Option<String>, String> {
    let e = excuses(exec, job, input, reference)?;
    compare_excused(exec, job, input, reference, result, &e)
}

/// The values a comparison leaves out.
#[derive(Clone, Debug, Default)]
pub struct Excuses {
    /// Values that depend on a subgroup exchange reading an inactive or nonexistent
    /// invocation.
    pub indeterminate: crate::agree::Slots,
    /// Values that depend on math WGSL leaves undefined (non-PTX executors only).
    pub undefined: crate::agree::Slots,
}

/// Whether [`excuses`] for `exec` include the undefined-math values: the same for every
/// executor with the same answer (and subgroup size).
pub fn excuses_undefined_math(exec: Executor) -> bool {
    !runs_ptx(exec) && exec != Executor::Interp
}

/// The values [`compare_run`] leaves out for `exec`:
///
/// * values that depend on a subgroup exchange reading an inactive invocation or one past the
///   subgroup's ends (indeterminate in WGSL; our PTX and the emulator return the reader's own
///   value, a Vulkan driver may return anything) are left out for every executor. They are
///   found by running the interpreter again with such reads filled with six different words
///   ([`crate::interp::InterpOptions::inactive_read`]): a value that changes with the fill
///   depends on such a read. This is an estimate: a value that depends on the read only
///   weakly (`max(x, y)` where the filled `y` never wins) can still differ on another
///   executor and be reported;
/// * for executors other than our PTX (lavapipe), values that depend on `pow` of a negative
///   base or on `sin`/`cos`/`tan` beyond ±pi (a conforming Vulkan driver computes the first as
///   NaN and the others with no stated accuracy), found with
///   [`crate::interp::InterpOptions::undefined_math_nan`]. Our PTX computes C99's results and
///   is compared on them.
pub fn excuses(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    reference: &Buffers,
) -> Result<Excuses, String> {
    use crate::agree::{differing_slots, has_subgroup_exchanges, has_undefined_math, Slots};
    use crate::interp::InterpOptions;
    // The interpreter again with `opts`; the slots whose values change.
    let changed = |opts: InterpOptions| -> Result<Slots, String> {
        let mut bufs = input.clone();
        let opts = InterpOptions { subgroup_size: job.subgroup_size, ..opts };
        match crate::interp::run(job.module, job.entry, job.dispatch, &mut bufs, &opts) {
            Ok(()) => differing_slots(job.module, job.entry, reference, &bufs),
            Err(_) => Ok(Slots::new()),
        }
    };
    // Several fills, since one may make the run fail (an index out of range) and another
    // may happen to give the reference's value (a branch not taken, a buffer element that
    // equals the old contents): all ones, zero (what lavapipe returns), small, the sign bit,
    // 1.0f, and an arbitrary pattern.
    let mut indeterminate = Slots::new();
    // One counted run first: without any indeterminate read there is nothing to find.
    let reads = || {
        let mut bufs = input.clone();
        let opts = InterpOptions { subgroup_size: job.subgroup_size, ..Default::default() };
        crate::interp::run_counted(job.module, job.entry, job.dispatch, &mut bufs, &opts)
            .map_or(1, |s| s.indeterminate_reads)
    };
    if has_subgroup_exchanges(job.module) && reads() > 0 {
        for fill in [u32::MAX, 0, 1, 0x8000_0000, 0x3f80_0000, 0x9e37_79b9] {
            let opts = InterpOptions { inactive_read: Some(fill), ..Default::default() };
            indeterminate.extend(changed(opts)?);
        }
    }
    let undefined = if excuses_undefined_math(exec) && has_undefined_math(job.module) {
        changed(InterpOptions { undefined_math_nan: true, ..Default::default() })?
    } else {
        Slots::new()
    };
    Ok(Excuses { indeterminate, undefined })
}

/// The float bounds `exec`'s results get ([`crate::agree::precision_for`] with the options
/// its PTX was compiled with; LLVM's PTX is always precise, without TF32).
pub fn precision_of(exec: Executor, job: &Job<'_>) -> crate::agree::Precision {
    use crate::agree::{precision_for, PtxMode};
    let ptx = if runs_our_ptx(exec) {
        Some(PtxMode { tf32: job.tf32, fast_math: job.fast_math })
    } else {
        runs_llvm_ptx(exec).then_some(PtxMode::default())
    };
    precision_for(job.module, job.entry, ptx)
}

/// [`compare_run`] with the excuses computed already. Values beyond the executor's bound are
/// judged again by the kernel's sensitivity to math error ([`crate::sensitivity`]), which
/// reruns the interpreter on `input`.
pub fn compare_excused(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    reference: &Buffers,
    result: &Buffers,
    excuses: &Excuses,
) -> Result<Option<String>, String> {
    use crate::agree::{compare_except, compare_slots, Slots};
    use crate::texture::TextureBindings;
    let p = precision_of(exec, job);
    let Excuses { indeterminate, undefined } = excuses;
    let skip: Slots = indeterminate.union(undefined).copied().collect();
    let mut notes = Vec::new();
    let excused = match compare_except(job.module, job.entry, reference, result, p, &skip) {
        Ok(excused) => excused,
        Err(diff) => {
            let none = TextureBindings::default();
            let (excused, note) = crate::sensitivity::judge(
                exec,
                job,
                input,
                &none,
                (reference, &none),
                diff,
                |sens| {
                    let slack = sens.buffer_slack();
                    compare_slots(job.module, job.entry, reference, result, p, &skip, &slack)
                },
            )?;
            notes.push(note);
            excused
        }
    };
    let n = excused.iter().filter(|s| indeterminate.contains(s)).count();
    if n > 0 {
        notes.push(format!(
            "{n} values depend on subgroup reads of inactive or nonexistent invocations \
             (indeterminate in WGSL); not compared"
        ));
    }
    let n = excused.iter().filter(|s| !indeterminate.contains(s)).count();
    if n > 0 {
        notes.push(format!(
            "{n} values WGSL leaves undefined differ (pow of a negative base, sin/cos/tan \
             beyond +-pi); not compared"
        ));
    }
    Ok((!notes.is_empty()).then(|| notes.join("; ")))
}

/// Runs `exec` on `input` and returns the buffers afterwards. A panic inside a third-party
/// executor (wgpu's shader translation has been seen to panic on valid WGSL) is reported as a
/// failure of that executor instead of taking the caller down.
pub fn run(exec: Executor, job: &Job<'_>, input: &Buffers) -> Result<Buffers, ExecError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_unguarded(exec, job, input)))
        .unwrap_or_else(|p| {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(ExecError::Failed(format!("{} panicked: {why}", exec.name())))
        })
}

fn run_unguarded(exec: Executor, job: &Job<'_>, input: &Buffers) -> Result<Buffers, ExecError> {
    match exec {
        Executor::Interp => {
            let mut bufs = input.clone();
            let opts = crate::interp::InterpOptions {
                subgroup_size: job.subgroup_size,
                ..Default::default()
            };
            crate::interp::run(job.module, job.entry, job.dispatch, &mut bufs, &opts)
                .map_err(|d| ExecError::Failed(d.message))?;
            Ok(bufs)
        }
        // The emulator runs the compiled model directly; text only for `--ptx` overrides.
        Executor::Emu => run_ptx(job, input, Backend::Ours, emu_runner(&EMU_OPTIONS)),
        Executor::Cuda => run_cuda(job, input, Backend::Ours, None),
        #[cfg(feature = "llvm")]
        Executor::LlvmEmu => run_ptx(job, input, Backend::Llvm, emu_runner(&LLVM_EMU_OPTIONS)),
        #[cfg(not(feature = "llvm"))]
        Executor::LlvmEmu => run_ptx(job, input, Backend::Llvm, emu_runner(&EMU_OPTIONS)),
        Executor::LlvmCuda => run_cuda(job, input, Backend::Llvm, None),
        Executor::Lavapipe => run_lavapipe(job, exec, job.source, input),
        Executor::LavapipeOut => {
            let opts =
                dianran_wgsl::Options { omit_subgroups_enable: true, portable_matrices: true };
            let text = dianran_wgsl::write_module(job.module, &opts).map_err(|ds| {
                let msgs: Vec<String> = ds.into_iter().map(|d| d.message).collect();
                ExecError::Failed(format!("printing WGSL failed: {}", msgs.join("; ")))
            })?;
            run_lavapipe(job, exec, &text, input)
        }
    }
}

/// The emulator runs the compiled model directly; text only for `--ptx` overrides and LLVM's
/// PTX.
fn emu_runner(opts: &'static crate::emu::EmuOptions) -> Box<PtxRunner<'static>> {
    Box::new(move |ptx, info, params, grid| {
        let (name, block) = (info.ptx_name.as_str(), info.workgroup_size);
        match ptx {
            Ptx::Module(m, _) => crate::emu::run_module(m, name, params, grid, block, opts),
            Ptx::Text(t) => crate::emu::run(t, name, params, grid, block, opts),
        }
        .map_err(|e| ExecError::Failed(e.to_string()))
    })
}

/// Runs `exec`, which must be one of the emulator executors (`emu`, `llvm-emu`), with the
/// emulator's counters on, and returns the buffers afterwards and the counters of the launch
/// (`dianran run --profile`). Other executors are a [`ExecError::Failed`] saying so.
pub fn run_profiled(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
) -> Result<(Buffers, crate::emu::Profile), ExecError> {
    let (backend, opts) = match exec {
        Executor::Emu => (Backend::Ours, &EMU_OPTIONS),
        #[cfg(feature = "llvm")]
        Executor::LlvmEmu => (Backend::Llvm, &LLVM_EMU_OPTIONS),
        #[cfg(not(feature = "llvm"))]
        Executor::LlvmEmu => (Backend::Llvm, &EMU_OPTIONS),
        other => {
            return Err(ExecError::Failed(format!(
                "counters come from the PTX emulator: use the executor emu or llvm-emu, not {}",
                other.name()
            )))
        }
    };
    let mut profile = None;
    let out = run_ptx(job, input, backend, |ptx, info, params, grid| {
        let (name, block) = (info.ptx_name.as_str(), info.workgroup_size);
        let p = match ptx {
            Ptx::Module(m, _) => {
                crate::emu::run_module_profiled(m, name, params, grid, block, opts)
            }
            Ptx::Text(t) => crate::emu::run_profiled(t, name, params, grid, block, opts),
        }
        .map_err(|e| ExecError::Failed(e.to_string()))?;
        profile = Some(p);
        Ok(())
    })?;
    let profile =
        profile.ok_or_else(|| ExecError::Failed("the emulator did not run the entry".into()))?;
    Ok((out, profile))
}

/// Our PTX on the emulator with textures and samplers bound (`docs/textures.md`): texture
/// and surface objects are made from `textures` by parameter name, and storage textures the
/// kernel wrote are copied back into `textures`. Returns the buffers afterwards.
pub fn run_emu_textured(
    job: &Job<'_>,
    input: &Buffers,
    textures: &mut crate::texture::TextureBindings,
) -> Result<Buffers, ExecError> {
    let opts = dianran_ptx::codegen::Options {
        sm: job.sm,
        tf32: job.tf32,
        fast_math: job.fast_math,
        ..Default::default()
    };
    let out = dianran_ptx::codegen::compile_module(job.module, &opts);
    let Some(info) = out.entries.iter().find(|e| e.name == job.entry) else {
        let why: Vec<_> = out.diagnostics.iter().map(|d| d.message.clone()).collect();
        return Err(ExecError::Failed(format!(
            "no PTX for entry '{}': {}",
            job.entry,
            why.join("; ")
        )));
    };
    let PtxParams { buffers: mut params, bindings: keys } = ptx_params(info, input)?;
    let mut objects =
        crate::emu::texture_objects(&info.params, textures).map_err(ExecError::Failed)?;
    crate::emu::fill_compare_words(&info.params, textures, &mut params)
        .map_err(ExecError::Failed)?;
    crate::emu::run_module_textures(
        &out.module,
        &info.ptx_name,
        &mut params,
        &mut objects,
        job.dispatch,
        info.workgroup_size,
        &EMU_OPTIONS,
    )
    .map_err(|e| ExecError::Failed(e.to_string()))?;
    crate::emu::write_back_textures(&info.params, &objects, textures);
    let mut bufs = input.clone();
    for (p, key) in params.into_iter().zip(keys) {
        if let Some(k) = key {
            bufs.insert(k, p);
        }
    }
    Ok(bufs)
}

/// Which code generator makes the PTX a PTX executor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    /// dianran's own (`dianran_ptx::codegen`).
    Ours,
    /// LLVM's NVPTX backend (`dianran_llvm`, the `llvm` feature).
    Llvm,
}

/// The PTX an executor runs: the compiled module (with its printed text), or text given by
/// the caller (`--ptx`).
enum Ptx<'a> {
    Module(&'a dianran_ptx::Module, &'a str),
    Text(&'a str),
}

impl Ptx<'_> {
    /// The text (what the CUDA driver loads).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    fn text(&self) -> &str {
        match self {
            Ptx::Module(_, t) | Ptx::Text(t) => t,
        }
    }
}

/// Runs one compiled entry: its PTX, its ABI description (parameter names, `.entry` name,
/// block size), the parameters' bytes (updated in place) and the grid.
type PtxRunner<'r> = dyn FnMut(Ptx<'_>, &dianran_ptx::abi::EntryInfo, &mut [Vec<u8>], [u32; 3]) -> Result<(), ExecError>
    + 'r;

/// Compiles the entry to PTX, lays the buffers out as parameters, runs, and maps back.
fn run_ptx(
    job: &Job<'_>,
    input: &Buffers,
    backend: Backend,
    mut runner: impl FnMut(
        Ptx<'_>,
        &dianran_ptx::abi::EntryInfo,
        &mut [Vec<u8>],
        [u32; 3],
    ) -> Result<(), ExecError>,
) -> Result<Buffers, ExecError> {
    let ours;
    #[cfg(feature = "llvm")]
    let llvm;
    let (entries, diagnostics, compiled_ptx) = match backend {
        Backend::Ours => {
            ours = dianran_ptx::codegen::compile_module(
                job.module,
                &dianran_ptx::codegen::Options {
                    sm: job.sm,
                    tf32: job.tf32,
                    fast_math: job.fast_math,
                    ..Default::default()
                },
            );
            (&ours.entries, &ours.diagnostics, Ptx::Module(&ours.module, &ours.text))
        }
        #[cfg(feature = "llvm")]
        Backend::Llvm => {
            if job.tf32 || job.fast_math {
                return Err(ExecError::Skipped(
                    "the LLVM backend has no --tf32 or --fast-math mode".into(),
                ));
            }
            let opts = dianran_llvm::Options { sm: job.sm, ..Default::default() };
            llvm = dianran_llvm::compile_module(job.module, &opts);
            (&llvm.entries, &llvm.diagnostics, Ptx::Text(&llvm.text))
        }
        #[cfg(not(feature = "llvm"))]
        Backend::Llvm => {
            return Err(ExecError::Skipped(
                "the LLVM backend is not built (cargo feature `llvm`)".into(),
            ))
        }
    };
    let Some(info) = entries.iter().find(|e| e.name == job.entry) else {
        // This entry's diagnostics when they name it (a module's other entries have their own).
        let own: Vec<_> =
            diagnostics.iter().filter(|d| d.context.as_deref() == Some(job.entry)).collect();
        let diagnostics: Vec<_> = if own.is_empty() { diagnostics.iter().collect() } else { own };
        // The help says what to do about it (for example "pass --tf32").
        let why = diagnostics
            .iter()
            .map(|d| match &d.help {
                Some(h) => format!("{} ({h})", d.message),
                None => d.message.clone(),
            })
            .collect::<Vec<_>>()
            .join("; ");
        // The LLVM backend declines some features by design (docs/llvm.md: 64-bit types,
        // immediates, textures, subgroups): not applicable to this entry rather than a failure,
        // since dianran's own backend compiles it and its executors check it.
        let declined = diagnostics.iter().all(|d| d.warning || d.kind == DiagKind::Unsupported);
        if backend == Backend::Llvm && declined && !diagnostics.is_empty() {
            return Err(ExecError::Skipped(format!("not applicable: {why}")));
        }
        // A rule of the target the kernel breaks (cooperative matrices in a partial warp):
        // the kernel cannot run there, on either backend, and no executor result is wrong.
        let broken_rule = diagnostics.iter().all(|d| d.warning || d.kind == DiagKind::Check);
        if broken_rule && !diagnostics.is_empty() {
            return Err(ExecError::Skipped(format!("not applicable: {why}")));
        }
        return Err(ExecError::Failed(format!("no PTX for entry '{}': {why}", job.entry)));
    };
    let PtxParams { buffers: mut params, bindings: keys } = ptx_params(info, input)?;
    let runner: &mut PtxRunner<'_> = &mut runner;
    // `--ptx` replaces our backend's PTX; the LLVM executors always run LLVM's.
    let ptx = match job.ptx {
        Some(t) if backend == Backend::Ours => Ptx::Text(t),
        _ => compiled_ptx,
    };
    runner(ptx, info, &mut params, job.dispatch)?;
    let mut out = input.clone();
    for (p, key) in params.into_iter().zip(keys) {
        if let Some(k) = key {
            out.insert(k, p);
        }
    }
    Ok(out)
}

/// Buffers in PTX parameter order, and for each the binding it came from (`None` for
/// placeholders and the sizes buffer).
pub struct PtxParams {
    /// One buffer per `.param`, in order.
    pub buffers: Vec<Vec<u8>>,
    /// The (group, binding) each buffer holds.
    pub bindings: Vec<Option<(u32, u32)>>,
}

/// Lays `input` out as the PTX parameters of `info` (docs/abi.md).
pub fn ptx_params(
    info: &dianran_ptx::abi::EntryInfo,
    input: &Buffers,
) -> Result<PtxParams, ExecError> {
    let mut params = Vec::new();
    let mut keys = Vec::new();
    use dianran_ptx::abi::{immediates_len, ParamKind};
    for name in &info.params {
        let kind = ParamKind::of(name)
            .ok_or_else(|| ExecError::Failed(format!("unexpected PTX parameter '{name}'")))?;
        let key = match kind {
            ParamKind::Slot(key) => key,
            ParamKind::Sizes => {
                let sizes: Vec<u8> =
                    params.iter().flat_map(|p: &Vec<u8>| (p.len() as u32).to_le_bytes()).collect();
                params.push(sizes);
                keys.push(None);
                continue;
            }
            ParamKind::Immediates => {
                // By value, padded to the parameter's whole words (docs/immediates.md).
                let mut b = input.get(&crate::buffers::IMMEDIATES).cloned().unwrap_or_default();
                b.resize(immediates_len(b.len()), 0);
                params.push(b);
                keys.push(None);
                continue;
            }
            // A comparison pair's `.u32` compare word, by value (docs/textures.md): zero
            // here, set from the sampler where textures are bound.
            ParamKind::CompareWord { .. } => {
                params.push(vec![0; 4]);
                keys.push(None);
                continue;
            }
            // A (texture, sampler) pair's texture object (docs/textures.md): no buffer.
            ParamKind::Pair { .. } => {
                params.push(Vec::new());
                keys.push(None);
                continue;
            }
        };
        match input.get(&key) {
            Some(b) => {
                params.push(b.clone());
                keys.push(Some(key));
            }
            None => {
                params.push(Vec::new());
                keys.push(None);
            }
        }
    }
    Ok(PtxParams { buffers: params, bindings: keys })
}

/// Our PTX (or LLVM's) through the CUDA driver, launched by `dianran-runtime` as
/// `dianran::launch` launches it ([`cuda::launch`]); `textures` are bound when given.
fn run_cuda(
    job: &Job<'_>,
    input: &Buffers,
    backend: Backend,
    textures: Option<&mut crate::texture::TextureBindings>,
) -> Result<Buffers, ExecError> {
    if let Some(why) = cuda::unavailable() {
        return Err(ExecError::Skipped(why));
    }
    let mut textures = textures;
    run_ptx(job, input, backend, |ptx, info, params, grid| {
        cuda::launch(job.module, ptx, info, params, grid, textures.as_deref_mut())
    })
}

/// Our PTX through the CUDA driver with textures and samplers bound (`docs/textures.md`);
/// storage textures the kernel wrote are copied back into `textures`. Returns the buffers.
pub fn run_cuda_textured(
    job: &Job<'_>,
    input: &Buffers,
    textures: &mut crate::texture::TextureBindings,
) -> Result<Buffers, ExecError> {
    run_cuda(job, input, Backend::Ours, Some(textures))
}

/// Why lavapipe executor `exec` would skip `job` without running it (no adapter, or a kernel
/// lavapipe cannot run), if it would: a caller that runs it in a child process asks first.
/// `Executor::LavapipeOut` runs dianran's printed WGSL, which avoids some naga bugs the
/// source may hit ([`crate::wide_features::lavapipe_blocker`]).
pub fn lavapipe_skips(job: &Job<'_>, exec: Executor) -> Option<String> {
    if !cfg!(feature = "lavapipe") {
        return Some("no Vulkan adapter (built without the `lavapipe` feature)".into());
    }
    #[cfg(feature = "lavapipe")]
    if !crate::lavapipe::available() {
        return Some("no Vulkan adapter".into());
    }
    // The printed WGSL spells Dawn's subgroup matrices as plain arrays and loops
    // (`docs/subgroup-matrix.md`, "Portable WGSL"). naga's cooperative-matrix samples stay
    // skipped: `coop_matmul_16` updates a tile in place, which each of lavapipe's narrower
    // subgroups would repeat, and the tiled GEMMs outrun the time limit as scalar loops.
    let portable = exec == Executor::LavapipeOut && job.module.enables.subgroup_matrix;
    // Workgroup matrices are dianran's own extension: the source means nothing to wgpu, and
    // the printed WGSL is their portable form (`docs/workgroup-matrix.md`).
    if exec == Executor::Lavapipe && job.module.enables.workgroup_matrix {
        return Some("not applicable: `enable dianran_workgroup_matrix;` is dianran's own extension (lavapipe-out runs the portable form)".into());
    }
    if job.module.uses_cooperative_matrices() && !portable {
        return Some("lavapipe has no cooperative matrices".into());
    }
    if let Some(why) = portable.then(|| dianran_wgsl::portable_blocker(job.module)).flatten() {
        return Some(format!("not applicable: {why}"));
    }
    #[cfg(feature = "lavapipe")]
    if let Some(why) = crate::lavapipe_features::missing(job.module, job.entry) {
        return Some(why);
    }
    #[cfg(feature = "lavapipe")]
    if let Some(why) = crate::lavapipe::missing_features(job.module) {
        return Some(why);
    }
    let printed = exec == Executor::LavapipeOut;
    if let Some(why) = crate::wide_features::lavapipe_blocker(job.module, printed) {
        return Some(why.into());
    }
    None
}

#[cfg(feature = "lavapipe")]
fn run_lavapipe(
    job: &Job<'_>,
    exec: Executor,
    wgsl: &str,
    input: &Buffers,
) -> Result<Buffers, ExecError> {
    use crate::buffers::entry_bindings;
    use crate::lavapipe::{LavaBinding, LavaBindingKind};
    use dianran_frontend::ir::AddressSpace;
    if let Some(why) = lavapipe_skips(job, exec) {
        return Err(ExecError::Skipped(why));
    }
    let mut bufs = input.clone();
    let input_wgsl = std::ptr::eq(wgsl, job.source);
    // Printed WGSL has the override values folded in; the input needs them as constants.
    let constants = if input_wgsl { pipeline_constants(job)? } else { Vec::new() };
    let lava: Vec<LavaBinding> = if input_wgsl {
        // The input WGSL: its pipeline layout holds every buffer the entry point uses in the
        // *source*, which can be more than the SSA keeps after dead-code elimination
        // (`let x = buf;` with x unused); those get zeroed buffers of their size.
        source_bindings(job, &mut bufs)?
    } else {
        let bindings =
            entry_bindings(job.module, job.entry).map_err(|d| ExecError::Failed(d.message))?;
        bindings
            .iter()
            // Immediate data is no binding: `run_wgsl` sets it from `bufs`.
            .filter(|b| b.space != AddressSpace::Immediate)
            .map(|b| LavaBinding {
                group: b.group,
                binding: b.binding,
                kind: match b.space {
                    AddressSpace::Uniform => LavaBindingKind::Uniform,
                    AddressSpace::Storage { writable } => {
                        LavaBindingKind::Storage { read_only: !writable }
                    }
                    _ => LavaBindingKind::Storage { read_only: false },
                },
            })
            .collect()
    };
    // wgpu knows the entry by its name in the WGSL it gets: printed WGSL may escape it.
    let entry = if input_wgsl {
        job.entry.to_string()
    } else {
        let names = dianran_frontend::names::ModuleNames::new(job.module);
        job.module
            .entry_point(job.entry)
            .and_then(|e| names.functions.get(e.function.index()).cloned())
            .unwrap_or_else(|| job.entry.to_string())
    };
    crate::lavapipe::run_wgsl(wgsl, &entry, job.dispatch, &mut bufs, &lava, &constants)
        .map_err(|e| ExecError::Failed(e.to_string()))?;
    // Only the buffers the caller gave come back.
    bufs.retain(|k, _| input.contains_key(k));
    Ok(bufs)
}

/// `job.overrides` keyed as wgpu wants them: by `@id` where the declaration has one, by name
/// otherwise.
#[cfg(feature = "lavapipe")]
fn pipeline_constants(job: &Job<'_>) -> Result<Vec<(String, f64)>, ExecError> {
    if job.overrides.is_empty() {
        return Ok(Vec::new());
    }
    let text = dianran_frontend::source::preprocess(job.source).0;
    let m = naga::front::wgsl::parse_str(&text)
        .map_err(|e| ExecError::Failed(format!("the input does not parse: {e}")))?;
    Ok(job
        .overrides
        .iter()
        .map(|(name, value)| {
            let id = m.overrides.iter().find(|(_, o)| o.name.as_deref() == Some(name));
            let key = match id.and_then(|(_, o)| o.id) {
                Some(id) => id.to_string(),
                None => name.clone(),
            };
            (key, *value)
        })
        .collect())
}

/// The buffers entry `job.entry` uses according to naga's analysis of the input source (what
/// wgpu's automatic pipeline layout contains), adding a zeroed buffer to `bufs` for each one
/// the caller has none for.
#[cfg(feature = "lavapipe")]
pub(crate) fn source_bindings(
    job: &Job<'_>,
    bufs: &mut Buffers,
) -> Result<Vec<crate::lavapipe::LavaBinding>, ExecError> {
    use crate::lavapipe::{LavaBinding, LavaBindingKind};
    let opts =
        dianran_frontend::Options { overrides: job.overrides.to_vec(), ..Default::default() };
    let parsed = dianran_frontend::parse(job.file_name, job.source, &opts)
        .map_err(|d| ExecError::Failed(format!("the input does not parse: {d}")))?;
    let (m, info) = (&parsed.module, &parsed.info);
    let index = m
        .entry_points
        .iter()
        .position(|e| e.name == job.entry)
        .ok_or_else(|| ExecError::Failed(format!("no entry point '{}'", job.entry)))?;
    let uses = info.get_entry_point(index);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(m.to_ctx()).map_err(|e| ExecError::Failed(format!("type layout: {e}")))?;
    let mut out = Vec::new();
    for (h, g) in m.global_variables.iter() {
        let (Some(rb), false) = (&g.binding, uses[h].is_empty()) else { continue };
        let kind = match g.space {
            naga::AddressSpace::Uniform => LavaBindingKind::Uniform,
            naga::AddressSpace::Storage { access } => {
                LavaBindingKind::Storage { read_only: !access.contains(naga::StorageAccess::STORE) }
            }
            _ => continue,
        };
        let key = (rb.group, rb.binding);
        // A runtime-sized array's fixed part may be empty: give it a few elements.
        let size = (layouter[g.ty].size as usize).max(256);
        bufs.entry(key).or_insert_with(|| vec![0u8; size]);
        out.push(LavaBinding { group: rb.group, binding: rb.binding, kind });
    }
    Ok(out)
}

#[cfg(not(feature = "lavapipe"))]
fn run_lavapipe(_: &Job<'_>, _: Executor, _: &str, _: &Buffers) -> Result<Buffers, ExecError> {
    Err(ExecError::Skipped("no Vulkan adapter (built without the `lavapipe` feature)".into()))
}
