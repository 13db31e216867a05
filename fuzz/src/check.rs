//! What every generated program goes through: naga's validation, the frontend, each target
//! (PTX with `ptxas`, MSL with the clang syntax check, WGSL re-validated by naga), and every
//! available executor on seeded random buffers, compared with the reference interpreter by
//! `verify`'s rules.

use dianran_frontend::ir;
use dianran_verify::agree::random_buffers;
use dianran_verify::engine::{self, Kind as V};
use dianran_verify::executors::{Executor, Job};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Duration;

/// How a program failed (the campaign's counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// naga rejected the generated WGSL: a generator bug.
    Rejected,
    /// dianran could not compile it (frontend, PTX codegen, MSL or WGSL printer, or the printed
    /// WGSL failed naga's validation, or the MSL failed the clang syntax check).
    CompileError,
    /// `ptxas` rejected the PTX.
    PtxasError,
    /// An executor's results differ from the reference, or it failed where the reference ran.
    Disagreement,
    /// A panic, or a run past its time limit.
    Crash,
}

impl Kind {
    /// The name used in file names and reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rejected => "rejected",
            Kind::CompileError => "compile-error",
            Kind::PtxasError => "ptxas-error",
            Kind::Disagreement => "disagreement",
            Kind::Crash => "crash",
        }
    }
}

/// A failed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The counter it goes to.
    pub kind: Kind,
    /// Where: `naga`, `frontend`, `ptx`, `ptxas`, `msl`, `msl-clang`, `wgsl`, or an executor.
    pub stage: String,
    /// What happened (the executors' outputs for disagreements).
    pub detail: String,
}

impl Failure {
    fn new(kind: Kind, stage: &str, detail: impl Into<String>) -> Failure {
        Failure { kind, stage: stage.into(), detail: detail.into() }
    }

    /// Whether `other` is the same failure for the reducer: same kind and stage and, for
    /// rejections and compile errors, the same message (with names and numbers left out).
    pub fn same(&self, other: &Failure) -> bool {
        self.kind == other.kind
            && self.stage == other.stage
            && (!matches!(self.kind, Kind::Rejected | Kind::CompileError | Kind::PtxasError)
                || signature(&self.detail) == signature(&other.detail))
    }
}

/// The gist of an error message: its first `error:` line without quoted names, paths and
/// numbers.
fn signature(detail: &str) -> String {
    let line = detail
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| detail.lines().next())
        .unwrap_or("");
    let line = line.rsplit("error:").next().unwrap_or(line);
    let mut out = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' | '`' | '"' => quoted = !quoted,
            _ if quoted || c.is_ascii_digit() => {}
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

/// A wrong instruction selection to inject into the PTX code generator, to show that the
/// campaign catches one (`dianran fuzz --inject-bug`).
pub use dianran_ptx::codegen::InjectedBug;

/// What to check.
#[derive(Clone, Debug)]
pub struct Options {
    /// Executors to compare with the reference interpreter.
    pub executors: Vec<Executor>,
    /// `ptxas` to assemble the PTX with (`None`: not checked).
    pub ptxas: Option<PathBuf>,
    /// `clang++` for the MSL syntax check (`None`: not checked).
    pub clang: Option<PathBuf>,
    /// Time limit of each executor.
    pub timeout: Duration,
    /// A deliberate code-generator bug.
    pub inject: Option<InjectedBug>,
    /// The PTX target: 80, 90 or `dianran_ptx::model::SM_90A` (workgroup-matrix products on
    /// `wgmma`).
    pub sm: u32,
}

impl Options {
    /// Every executor (the CUDA ones skip when there is no device; `llvm-emu` runs when the
    /// `llvm` feature is built), tools where found.
    pub fn available() -> Options {
        let mut executors = vec![Executor::Emu, Executor::Cuda];
        if cfg!(feature = "llvm") {
            executors.push(Executor::LlvmEmu);
        }
        executors.extend([Executor::Lavapipe, Executor::LavapipeOut]);
        Options {
            executors,
            ptxas: dianran_verify::tools::ptxas(),
            clang: dianran_verify::tools::clang(),
            timeout: Duration::from_secs(30),
            inject: None,
            sm: 80,
        }
    }
}

impl Options {
    /// The options that reproduce `f` quickly while reducing: only the failing executor, and
    /// `ptxas`/clang only when they are where it failed.
    pub fn narrowed(&self, f: &Failure) -> Options {
        let mut o = self.clone();
        o.executors.retain(|e| e.name() == f.stage);
        if f.stage != "ptxas" {
            o.ptxas = None;
        }
        if f.stage != "msl-clang" {
            o.clang = None;
        }
        o
    }
}

/// Runs every check on program text `wgsl` (file name `name`), dispatching `dispatch`
/// workgroups with `runtime_len` elements per runtime-sized array and buffers seeded by
/// `seed`. A panic anywhere is a [`Kind::Crash`].
pub fn check(
    name: &str,
    wgsl: &str,
    dispatch: [u32; 3],
    runtime_len: u32,
    seed: u64,
    opts: &Options,
) -> Result<(), Failure> {
    match catch_unwind(AssertUnwindSafe(|| {
        check_unguarded(name, wgsl, dispatch, runtime_len, seed, opts)
    })) {
        Ok(r) => r,
        Err(p) => Err(Failure::new(Kind::Crash, "panic", format!("panicked: {}", panic_text(&*p)))),
    }
}

/// The message of a caught panic (`"unknown panic"` when its payload is not text).
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

fn check_unguarded(
    name: &str,
    wgsl: &str,
    dispatch: [u32; 3],
    runtime_len: u32,
    seed: u64,
    opts: &Options,
) -> Result<(), Failure> {
    let parsed = dianran_frontend::parse(name, wgsl, &Default::default())
        .map_err(|d| Failure::new(Kind::Rejected, "naga", d.to_string()))?;
    let mut module = dianran_frontend::lower(&parsed)
        .map_err(|d| Failure::new(Kind::CompileError, "frontend", d.to_string()))?;
    // The passes users get: bounds policy and contraction included.
    dianran_frontend::run_passes(&mut module, &Default::default())
        .map_err(|d| Failure::new(Kind::CompileError, "frontend", d.message))?;
    let ptx = targets(name, &module, opts)?;
    executors_agree(name, wgsl, &module, &ptx, (dispatch, runtime_len, seed), opts)
}

/// PTX (and ptxas), MSL (and clang), WGSL (and naga); returns the PTX.
fn targets(name: &str, m: &ir::Module, opts: &Options) -> Result<String, Failure> {
    let popts =
        dianran_ptx::codegen::Options { inject: opts.inject, sm: opts.sm, ..Default::default() };
    let ptx = dianran_ptx::codegen::compile_module(m, &popts);
    if let Some(d) = ptx.diagnostics.first() {
        return Err(Failure::new(Kind::CompileError, "ptx", d.message.clone()));
    }
    if let Some(p) = &opts.ptxas {
        if let Err(e) = dianran_verify::ptxas::check_with(p, &ptx.text, opts.sm) {
            return Err(Failure::new(Kind::PtxasError, "ptxas", e.to_string()));
        }
    }
    // Workgroup matrices print on Metal 4 by default and on simdgroup matrices with `no_metal4`: both
    // forms are checked.
    let mut forms = vec![dianran_msl::Options::default()];
    if !m.tiles.is_empty() {
        forms.push(dianran_msl::Options { no_metal4: true, ..Default::default() });
    }
    for mopts in forms {
        let msl = dianran_msl::write_module_with(m, &mopts);
        // Metal's simdgroup matrices hold only floats: MSL refuses integer subgroup matrices
        // by design (docs/subgroup-matrix.md), so there is no MSL to check for them; Metal 4
        // takes one workgroup-matrix product configuration per module (the simdgroup form is
        // checked then).
        let by_design = |d: &dianran_frontend::Diagnostic| {
            d.kind == dianran_frontend::DiagKind::Unsupported
                && (integer_matrices(m) || d.message.contains("one product configuration"))
        };
        let refused = !msl.errors.is_empty() && msl.errors.iter().all(by_design);
        if let Some(d) = msl.errors.first().filter(|_| !refused) {
            return Err(Failure::new(Kind::CompileError, "msl", d.message.clone()));
        }
        if let Some(c) = opts.clang.as_ref().filter(|_| !refused) {
            let dir = dianran_verify::msl_check::stub_dir()
                .map_err(|e| Failure::new(Kind::CompileError, "msl-clang", e.to_string()))?;
            let file = format!("{}-{}", name.replace(['/', '.'], "_"), std::process::id());
            dianran_verify::msl_check::syntax_check(c, &dir, &msl.text, &file)
                .map_err(|e| Failure::new(Kind::CompileError, "msl-clang", e))?;
        }
    }
    let wopts = dianran_wgsl::Options { omit_subgroups_enable: true, ..Default::default() };
    let printed = dianran_wgsl::write_module(m, &wopts).map_err(|ds| {
        let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
        Failure::new(Kind::CompileError, "wgsl", msgs.join("; "))
    })?;
    dianran_frontend::parse(name, &printed, &Default::default()).map_err(|d| {
        Failure::new(
            Kind::CompileError,
            "wgsl",
            format!("the printed WGSL is invalid: {d}\n{printed}"),
        )
    })?;
    Ok(ptx.text)
}

/// Whether `m` has a cooperative matrix of integers.
fn integer_matrices(m: &ir::Module) -> bool {
    m.types.iter().any(|(_, t)| matches!(t, ir::Type::CoopMatrix { elem, .. } if !elem.is_float()))
}

/// Every executor against the reference interpreter.
fn executors_agree(
    name: &str,
    wgsl: &str,
    m: &ir::Module,
    ptx: &str,
    (dispatch, runtime_len, seed): ([u32; 3], u32, u64),
    opts: &Options,
) -> Result<(), Failure> {
    let entry = crate::ast::ENTRY;
    let input = random_buffers(m, entry, runtime_len, seed)
        .map_err(|d| Failure::new(Kind::CompileError, "buffers", d.message))?;
    let job = Job {
        // The PTX checked above (with an injected bug, when asked for).
        ptx: Some(ptx),
        sm: opts.sm,
        ..Job::new(name, wgsl, m, entry, dispatch)
    };
    let report =
        engine::check(&job, &input, &engine::Options::new(opts.executors.clone(), opts.timeout));
    for v in &report.verdicts {
        let stage = v.executor.name();
        match v.kind {
            V::Timeout => return Err(Failure::new(Kind::Crash, stage, v.detail.clone())),
            V::NoReference => {
                return Err(Failure::new(
                    Kind::Disagreement,
                    stage,
                    format!("the reference interpreter failed: {}", v.detail),
                ))
            }
            // A panic of our own executors (the emulator, our code generator) is a crash.
            V::Disagree if v.detail.contains("panicked") => {
                return Err(Failure::new(Kind::Crash, stage, v.detail.clone()))
            }
            V::Disagree => return Err(Failure::new(Kind::Disagreement, stage, v.detail.clone())),
            // A crash inside wgpu or the Vulkan driver is not a finding of ours; skips, notes
            // and kernels an executor cannot run are not either.
            V::Agree | V::Note | V::Skipped | V::NotApplicable | V::Racy | V::ThirdPartyCrash => {}
        }
    }
    Ok(())
}
