//! The agreement engine: runs one job on a set of executors, compares each with the reference
//! interpreter and returns one [`Verdict`] per executor. `dianran verify`, the agreement test
//! (`verify/tests/agreement.rs`), the real-world kernel test (`tests/realworld.rs`) and the
//! fuzzer all call [`check`]; they differ only in which verdicts they count as failures.
//!
//! The policy, in one place:
//!
//! * every run, the reference's included, and every comparison (which reruns the interpreter
//!   for excuses and sensitivity) gets [`Options::timeout`]; past it the verdict is
//!   [`Kind::Timeout`];
//! * kernels that use subgroup operations run on lavapipe at lavapipe's subgroup size and on
//!   the PTX executors at 32, each compared with the reference at the same size; where the
//!   reference itself fails at lavapipe's size but runs at 32 (a kernel that assumes subgroups
//!   of at least 32 indexes out of bounds), the lavapipe verdicts are [`Kind::NotApplicable`];
//! * values WGSL leaves indeterminate or undefined are not compared
//!   ([`crate::executors::excuses`]); values beyond the executor's float bounds are judged
//!   again by the kernel's sensitivity ([`crate::sensitivity`]);
//! * what the kernel's header says is nondeterministic ([`crate::samples::Nondeterminism`]):
//!   `// unordered:` bindings are compared as multisets of words, and under `// racy:` a
//!   difference is [`Kind::Racy`];
//! * a panic inside wgpu/naga or a Vulkan driver that dies is [`Kind::ThirdPartyCrash`], and a
//!   cooperative-matrix form a PTX backend declines is [`Kind::NotApplicable`];
//! * entries that use textures run with them bound, every executor in this process at
//!   subgroup size 32, compared with [`crate::textured::compare_run_textured`].

use crate::buffers::Buffers;
use crate::executors::{self, bounded, ExecError, Executor, Job, OwnedJob};
use crate::samples::Nondeterminism;
use crate::texture::TextureBindings;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// What an executor's run came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Its results agree with the reference.
    Agree,
    /// They agree, with a note on values not compared or compared with slack.
    Note,
    /// They differ, or the executor failed where the reference ran.
    Disagree,
    /// The executor is not available here (no driver, no Vulkan, a feature not built).
    Skipped,
    /// The kernel cannot run on this executor as set up: a subgroup size it does not support,
    /// a form its backend declines.
    NotApplicable,
    /// They differ, and the kernel's header says its results depend on scheduling.
    Racy,
    /// A third-party component crashed (wgpu/naga panicked, the Vulkan driver died).
    ThirdPartyCrash,
    /// No result within the time limit (the executor, the reference or the comparison).
    Timeout,
    /// The reference interpreter failed on this input (random data can drive a
    /// data-dependent kernel out of bounds): nothing was compared. Only the reference's
    /// verdict has this kind.
    NoReference,
}

impl Kind {
    /// The word `dianran verify` prints.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Agree | Kind::Note => "agree",
            Kind::Disagree => "DISAGREE",
            Kind::Skipped => "skipped",
            Kind::NotApplicable => "not-applicable",
            Kind::Racy => "racy",
            Kind::ThirdPartyCrash => "crashed",
            Kind::Timeout => "timeout",
            Kind::NoReference => "failed",
        }
    }
}

/// One executor's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The executor (`Interp` for the reference's own verdict).
    pub executor: Executor,
    /// The subgroup size it ran at.
    pub subgroup_size: u32,
    /// What it came to.
    pub kind: Kind,
    /// Why: the difference, the note, the reason for skipping.
    pub detail: String,
}

/// Runs an executor other than through [`executors::run_limited`] (`dianran verify` runs
/// lavapipe in a child process): the job, the input, the time limit.
pub type Runner<'r> =
    dyn Fn(Executor, &Job<'_>, &Buffers, Duration) -> Result<Buffers, ExecError> + 'r;

/// How to check.
pub struct Options<'a> {
    /// The executors to compare with the reference, in order.
    pub executors: Vec<Executor>,
    /// Time limit of each run and each comparison.
    pub timeout: Duration,
    /// Textures and samplers to bind (empty: none).
    pub textures: TextureBindings,
    /// What of the results depends on scheduling (from the file's header).
    pub nondeterminism: Nondeterminism,
    /// Runs executors where [`executors::run_limited`] should not (buffers only; `None`: it
    /// runs them all).
    pub runner: Option<&'a Runner<'a>>,
}

impl Options<'_> {
    /// `executors` with a limit of `timeout`, no textures, nothing nondeterministic.
    pub fn new(executors: Vec<Executor>, timeout: Duration) -> Options<'static> {
        Options {
            executors,
            timeout,
            textures: TextureBindings::default(),
            nondeterminism: Nondeterminism::default(),
            runner: None,
        }
    }
}

/// The verdicts of one [`check`]: the reference's first, then one per executor in order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The verdicts.
    pub verdicts: Vec<Verdict>,
}

impl Report {
    /// The reference's verdict.
    pub fn reference(&self) -> Option<&Verdict> {
        self.verdicts.first().filter(|v| v.executor == Executor::Interp)
    }

    /// The verdicts of `kinds`.
    pub fn of<'r>(&'r self, kinds: &'r [Kind]) -> impl Iterator<Item = &'r Verdict> + 'r {
        self.verdicts.iter().filter(move |v| kinds.contains(&v.kind))
    }
}

/// The subgroup size `exec` runs kernels with subgroup operations at: lavapipe's own (8 with
/// Mesa's defaults) for the Vulkan executors, 32 (a warp) for the rest.
pub fn subgroup_size_of(exec: Executor) -> u32 {
    if !is_lavapipe(exec) {
        return 32;
    }
    #[cfg(feature = "lavapipe")]
    return crate::lavapipe::subgroup_size().unwrap_or(8);
    #[cfg(not(feature = "lavapipe"))]
    8
}

fn is_lavapipe(exec: Executor) -> bool {
    matches!(exec, Executor::Lavapipe | Executor::LavapipeOut)
}

/// The run whose results `exec`'s are compared with, as (executor, subgroup size, unfused):
/// the interpreter running the same job at the same subgroup size, on the module compiled
/// without contraction when `exec` does not follow the SSA's fused multiply-adds
/// ([`crate::contraction`]). The one place that chooses an executor's reference; [`check`]
/// runs each distinct one once.
fn reference_for(exec: Executor, size: u32) -> (Executor, u32, bool) {
    (Executor::Interp, size, !crate::contraction::follows_ssa_contraction(exec))
}

/// `owned` with its module compiled again from its source without contraction (the reference
/// of the executors [`crate::contraction`] says do not fuse), or `owned` itself where that
/// compile fails (a job whose module did not come from its source).
fn unfused_job(owned: &Arc<OwnedJob>) -> Arc<OwnedJob> {
    let job = owned.job(32);
    let opts = dianran_frontend::Options {
        overrides: job.overrides.to_vec(),
        no_fma: true,
        ..Default::default()
    };
    match dianran_frontend::compile(job.file_name, job.source, &opts) {
        Ok(m) => Arc::new(owned.with_module(m)),
        Err(_) => owned.clone(),
    }
}

/// Whether some executor of `opts` needs the unfused module and `job`'s module may differ from
/// it (it holds an fma).
fn needs_unfused_module(job: &Job<'_>, opts: &Options<'_>) -> bool {
    opts.executors.iter().any(|&e| reference_for(e, 32).2) && crate::agree::has_fma(job.module)
}

/// Buffers and textures after a run.
type Outputs = (Buffers, TextureBindings);

/// Runs `job` (its subgroup size is chosen per executor) on `input` with every executor of
/// `opts`, and compares each with the reference.
pub fn check(job: &Job<'_>, input: &Buffers, opts: &Options<'_>) -> Report {
    let owned = Arc::new(OwnedJob::new(job));
    let input = Arc::new(input.clone());
    let textures = Arc::new(opts.textures.clone());
    let textured = !opts.textures.is_empty();
    let subgroups = job.module.uses_subgroups();
    let coop = job.module.uses_cooperative_matrices();
    let limit = opts.timeout;
    // A module without any fma is its own unfused form: no second compile.
    let unfused = if needs_unfused_module(job, opts) { unfused_job(&owned) } else { owned.clone() };
    let job_of = |unfused_ref: bool| if unfused_ref { unfused.clone() } else { owned.clone() };
    let run_on = |o: Arc<OwnedJob>, exec: Executor, size: u32| -> Result<Outputs, ExecError> {
        let (i, t) = (input.clone(), textures.clone());
        crate::executors::bounded_run(exec, limit, move || {
            crate::textured::run_textured(exec, &o.job(size), &i, &t)
        })?
    };
    let mut references: HashMap<(Executor, u32, bool), Result<Arc<Outputs>, ExecError>> =
        HashMap::new();
    let mut reference = |key: (Executor, u32, bool)| {
        references
            .entry(key)
            .or_insert_with(|| run_on(job_of(key.2), key.0, key.1).map(Arc::new))
            .clone()
    };
    let mut report = Report::default();
    let verdict = |executor, subgroup_size, kind, detail: String| Verdict {
        executor,
        subgroup_size,
        kind,
        detail,
    };
    match reference(reference_for(Executor::Interp, 32)) {
        Ok(_) => {
            report.verdicts.push(verdict(Executor::Interp, 32, Kind::Agree, "reference".into()))
        }
        Err(e) => {
            let kind =
                if matches!(e, ExecError::Timeout(_)) { Kind::Timeout } else { Kind::NoReference };
            report.verdicts.push(verdict(Executor::Interp, 32, kind, e.to_string()));
            return report;
        }
    }
    // Excused values by (subgroup size, undefined math excused, unfused reference): computed
    // once for each.
    let mut excuses: HashMap<(u32, bool, bool), executors::Excuses> = HashMap::new();
    for &exec in &opts.executors {
        let size = if subgroups && !textured { subgroup_size_of(exec) } else { 32 };
        let lava = is_lavapipe(exec);
        // An executor that does not follow the SSA's contraction also runs the unfused module
        // (lavapipe-out prints it: WGSL lets `fma` round once or twice, llvmpipe does either).
        let own = job_of(reference_for(exec, size).2);
        let skip = if lava { executors::lavapipe_skips(&own.job(size), exec) } else { None };
        let outcome = match (skip, opts.runner) {
            (Some(why), _) => Err(ExecError::Skipped(why)),
            (None, Some(runner)) if !textured => {
                runner(exec, &own.job(size), &input, limit).map(|b| (b, TextureBindings::default()))
            }
            (None, _) => run_on(own.clone(), exec, size),
        };
        let (kind, detail) = match outcome {
            Err(e) => classify_failure(exec, coop, e),
            Ok(result) => match reference(reference_for(exec, size)) {
                // The comparison reruns the interpreter (excuses, sensitivity) on the
                // reference's own module.
                Err(ExecError::Timeout(d)) => (
                    Kind::Timeout,
                    format!(
                        "the reference at subgroup size {size}: no result after {} s",
                        d.as_secs_f64()
                    ),
                ),
                Err(e) => (
                    Kind::NotApplicable,
                    format!(
                        "the kernel cannot run at subgroup size {size}: the reference fails there \
                         ({e}) and runs at 32"
                    ),
                ),
                Ok(r) => {
                    let unfused_ref = reference_for(exec, size).2;
                    let key = (size, executors::excuses_undefined_math(exec), unfused_ref);
                    let known = if textured { None } else { excuses.get(&key).cloned() };
                    let (o, i, t) = (job_of(unfused_ref), input.clone(), textures.clone());
                    let nd = opts.nondeterminism.clone();
                    let compared = bounded("compare", limit, move || {
                        compare(exec, &o.job(size), &i, &t, &r, result, known, &nd)
                    });
                    match compared {
                        Err(ExecError::Timeout(d)) => (
                            Kind::Timeout,
                            format!("the comparison took more than {} s", d.as_secs_f64()),
                        ),
                        Err(e) => (Kind::Disagree, format!("the comparison failed: {e}")),
                        Ok((e, verdict)) => {
                            if let Some(e) = e {
                                excuses.insert(key, e);
                            }
                            match verdict {
                                Ok(None) => (Kind::Agree, String::new()),
                                Ok(Some(note)) => (Kind::Note, note),
                                Err(diff) => match &opts.nondeterminism.racy {
                                    Some(why) => (Kind::Racy, format!("{diff} ({why})")),
                                    None => (Kind::Disagree, diff),
                                },
                            }
                        }
                    }
                }
            },
        };
        report.verdicts.push(verdict(exec, size, kind, detail));
    }
    report
}

/// The verdict for an executor that produced no results.
fn classify_failure(exec: Executor, coop: bool, e: ExecError) -> (Kind, String) {
    match e {
        ExecError::Skipped(why) if why.starts_with("not applicable") => {
            let why = why.trim_start_matches("not applicable").trim_start_matches(": ");
            (Kind::NotApplicable, why.to_string())
        }
        ExecError::Skipped(why) => (Kind::Skipped, why),
        ExecError::Timeout(d) => (
            Kind::Timeout,
            format!("no result after {} s (raise --timeout to wait longer)", d.as_secs_f64()),
        ),
        // naga's SPIR-V backend inside wgpu panics on some valid WGSL, and lavapipe's LLVM has
        // been seen to abort: third-party bugs, not ours.
        ExecError::Failed(why)
            if is_lavapipe(exec)
                && (why.contains("panicked") || why.contains("the Vulkan driver")) =>
        {
            (Kind::ThirdPartyCrash, why)
        }
        // A cooperative-matrix form a PTX backend declines (f32 16x16 products without
        // --tf32) is a diagnostic of the backend, by design.
        ExecError::Failed(why)
            if executors::runs_ptx(exec) && coop && why.contains("does not support") =>
        {
            (Kind::NotApplicable, why)
        }
        ExecError::Failed(why) => (Kind::Disagree, why),
    }
}

/// Compares `result` with the reference `r` for `exec`: the excuses (computed when `known` is
/// `None` and the entry binds no textures; returned for the caller to keep) and the verdict.
#[allow(clippy::too_many_arguments)]
fn compare(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
    r: &Outputs,
    mut result: Outputs,
    known: Option<executors::Excuses>,
    nd: &Nondeterminism,
) -> (Option<executors::Excuses>, Result<Option<String>, String>) {
    let mut reference = r.0.clone();
    for key in &nd.unordered {
        for bufs in [&mut reference, &mut result.0] {
            if let Some(b) = bufs.get_mut(key) {
                sort_words(b);
            }
        }
    }
    if !textures.is_empty() {
        let v = crate::textured::compare_run_textured(
            exec,
            job,
            input,
            textures,
            (&reference, &r.1),
            (&result.0, &result.1),
        );
        return (None, v);
    }
    let e = match known {
        Some(e) => e,
        // The excuses rerun the interpreter with the original (unsorted) reference.
        None => match executors::excuses(exec, job, input, &r.0) {
            Ok(e) => e,
            Err(d) => return (None, Err(d)),
        },
    };
    let v = executors::compare_excused(exec, job, input, &reference, &result.0, &e);
    (Some(e), v)
}

/// Sorts the 32-bit words of `b` (a trailing partial word stays where it is).
fn sort_words(b: &mut [u8]) {
    let n = b.len() / 4;
    let mut words: Vec<[u8; 4]> =
        b[..n * 4].chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    words.sort_by_key(|w| u32::from_le_bytes(*w));
    for (dst, w) in b.chunks_exact_mut(4).zip(words) {
        dst.copy_from_slice(&w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_frontend::ir;

    fn module(src: &str) -> ir::Module {
        dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("valid WGSL")
    }

    fn job<'a>(m: &'a ir::Module, src: &'a str) -> Job<'a> {
        Job::new("t.wgsl", src, m, "main", [1, 1, 1])
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The reference is bounded by the time limit too: a loop that never ends (o[0] holds a
    /// value below 64, never 99999) is a timeout of the reference within the limit.
    #[test]
    fn an_endless_reference_is_a_timeout() {
        let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32, 4>;\n\
                   @compute @workgroup_size(1) fn main() {\n\
                   loop { o[1] = o[1] + 1u; if o[0] == 99999u { break; } }\n}\n";
        let m = module(src);
        let input = Buffers::from([((0, 0), words(&[3, 0, 0, 0]))]);
        let start = std::time::Instant::now();
        let opts = Options::new(vec![Executor::Emu], Duration::from_millis(500));
        let report = check(&job(&m, src), &input, &opts);
        assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
        let kinds: Vec<_> = report.verdicts.iter().map(|v| (v.executor, v.kind)).collect();
        assert_eq!(kinds, vec![(Executor::Interp, Kind::Timeout)]);
    }

    /// `// unordered:` bindings compare as multisets: the same words in another order agree,
    /// other words do not; without the line the order counts.
    #[test]
    fn unordered_bindings_compare_as_multisets() {
        let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32, 4>;\n\
                   @compute @workgroup_size(1) fn main() { o[0] = o[0] + 1u; }\n";
        let m = module(src);
        let input = Buffers::from([((0, 0), words(&[0, 0, 0, 0]))]);
        let none = TextureBindings::default();
        let reference = (Buffers::from([((0, 0), words(&[1, 2, 3, 4]))]), none.clone());
        let verdict = |result: &[u32], unordered: Vec<(u32, u32)>| {
            let nd = Nondeterminism { unordered, racy: None };
            let result = (Buffers::from([((0, 0), words(result))]), none.clone());
            let j = job(&m, src);
            compare(Executor::Emu, &j, &input, &none, &reference, result, None, &nd).1
        };
        assert_eq!(verdict(&[4, 2, 1, 3], vec![(0, 0)]), Ok(None));
        assert!(verdict(&[4, 2, 1, 5], vec![(0, 0)]).is_err());
        assert!(verdict(&[4, 2, 1, 3], vec![]).is_err());
        assert_eq!(verdict(&[1, 2, 3, 4], vec![]), Ok(None));
    }

    /// A kernel that assumes subgroups of 32 indexes out of bounds at lavapipe's 8
    /// (`(32 / 8) * 31 = 124` in an array of 32): compiled without bounds checks (where the
    /// reference stops there), not applicable there, not a disagreement.
    #[test]
    fn a_reference_that_fails_at_a_smaller_subgroup_size_is_not_applicable() {
        let src = "enable subgroups;\n\
                   @group(0) @binding(0) var<storage, read_write> o: array<u32, 32>;\n\
                   @compute @workgroup_size(32) fn main(@builtin(subgroup_size) n: u32,\n\
                   @builtin(subgroup_invocation_id) i: u32) {\n\
                   if i == 0u { o[(32u / n) * 31u] = n; }\n}\n";
        let unchecked = dianran_frontend::Options {
            bounds_checks: dianran_frontend::BoundsChecks::Off,
            ..Default::default()
        };
        let m = dianran_frontend::compile("t.wgsl", src, &unchecked).expect("valid WGSL");
        let input = Buffers::from([((0, 0), vec![0u8; 128])]);
        let opts = Options::new(vec![Executor::Lavapipe], Duration::from_secs(120));
        let report = check(&job(&m, src), &input, &opts);
        let v = &report.verdicts[1];
        if v.kind == Kind::Skipped || subgroup_size_of(Executor::Lavapipe) == 32 {
            return; // no Vulkan adapter here, or one with warp-sized subgroups
        }
        assert_eq!(v.kind, Kind::NotApplicable, "{report:?}");
        let size = format!("subgroup size {}", subgroup_size_of(Executor::Lavapipe));
        assert!(v.detail.contains(&size), "{}", v.detail);
    }

    #[test]
    fn sorted_words_are_a_multiset() {
        let mut a: Vec<u8> = [3u32, 1, 2].iter().flat_map(|w| w.to_le_bytes()).collect();
        sort_words(&mut a);
        let want: Vec<u8> = [1u32, 2, 3].iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(a, want);
    }
}
