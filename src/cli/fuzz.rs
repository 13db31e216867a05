//! `dianran fuzz`: differential fuzzing. Random valid WGSL programs go through naga, the
//! frontend, every target (PTX with `ptxas`, MSL with the clang syntax check, the printed
//! WGSL through naga again) and every available executor, compared with the reference
//! interpreter; failing programs are reduced and saved. Mutants of real kernels go through
//! every command of this binary. See `dianran_fuzz::campaign` for how work is split between
//! worker processes.
//!
//! Output: a progress line on stderr while it runs, then the failure files and one summary
//! line on stdout: `programs N, rejected-by-naga N, compile-errors N, ptxas-errors N,
//! disagreements N, crashes N, programs/s X`. Exit status 0 only when every count but
//! `programs` is 0.

use super::verify::parse_executor;
use super::Failure;
use dianran_fuzz::campaign::{self, Settings};
use dianran_verify::executors::Executor;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `fuzz`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Stop starting new programs after this many seconds (default 60 when --count is not
    /// given either).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Stop after this many generated programs.
    #[arg(long)]
    pub count: Option<u64>,
    /// The campaign's seed: the same seed generates the same programs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where failures (reduced program, original, executors' outputs) are written.
    #[arg(long, default_value = "fuzz-out")]
    pub out: PathBuf,
    /// Executors compared with the interpreter, comma-separated (default: emu, cuda, lavapipe,
    /// lavapipe-out; the ones not available here are skipped).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_executor)]
    pub executors: Vec<Executor>,
    /// Also write every generated program to --out (`program-SEED.wgsl`).
    #[arg(long)]
    pub keep: bool,
    /// Break the PTX code generator on purpose (`sub-swap`: `a - b` computes `b - a`;
    /// `drop-barrier`: no `bar.sync`), to see the campaign catch it.
    #[arg(long, value_name = "BUG", value_parser = parse_bug)]
    pub inject_bug: Option<dianran_fuzz::check::InjectedBug>,
    /// Worker processes (default: one more than the number of CPUs).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Seconds each executor may take on one program.
    #[arg(long, default_value_t = 20.0)]
    pub timeout: f64,
    /// Seconds spent reducing each failing program.
    #[arg(long, default_value_t = 60.0)]
    pub reduce_seconds: f64,
    /// Directories of real kernels to mutate (repeatable; default: tests/samples and
    /// tests/realworld when they exist).
    #[arg(long)]
    pub corpus: Vec<PathBuf>,
    /// One task in this many is a mutant of a corpus kernel run through every command (0: no
    /// mutants).
    #[arg(long, default_value_t = 5)]
    pub mutate_every: u64,
    /// Stop starting programs once this many failures were found.
    #[arg(long)]
    pub max_failures: Option<u64>,
    /// Serve tasks from stdin (the campaign's own worker processes).
    #[arg(long, hide = true)]
    pub worker: bool,
}

fn parse_bug(s: &str) -> Result<dianran_fuzz::check::InjectedBug, String> {
    campaign::parse_inject(s).ok_or_else(|| format!("unknown bug '{s}' (sub-swap or drop-barrier)"))
}

fn settings(a: &Args) -> Result<Settings, Failure> {
    let positive = |what: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(Failure::Message(format!("{what} must be a positive number of seconds")))
        }
    };
    let corpus = if a.corpus.is_empty() {
        ["tests/samples", "tests/realworld"]
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .collect()
    } else {
        a.corpus.clone()
    };
    Ok(Settings {
        seed: a.seed,
        seconds: match (a.seconds, a.count) {
            (None, None) => Some(60.0),
            (s, _) => s,
        },
        count: a.count,
        out: a.out.clone(),
        executors: if a.executors.is_empty() {
            dianran_fuzz::check::Options::available().executors
        } else {
            a.executors.clone()
        },
        keep: a.keep,
        inject: a.inject_bug,
        // One worker more than CPUs: a worker waiting for ptxas or clang leaves its CPU to
        // the others.
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()) + 1)
            .max(1),
        timeout: positive("--timeout", a.timeout)?,
        reduce: positive("--reduce-seconds", a.reduce_seconds)?,
        corpus,
        mutate_every: a.mutate_every,
        max_failures: a.max_failures,
    })
}

/// Runs `dianran fuzz`.
pub fn execute(a: &Args) -> Result<String, Failure> {
    let s = settings(a)?;
    if let Some(secs) = a.seconds {
        positive_or_zero(secs)?;
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Message(format!("cannot find this program's path: {e}")))?;
    if a.worker {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        campaign::worker(&s, &exe, stdin.lock(), stdout.lock())
            .map_err(|e| Failure::Message(format!("fuzz worker: {e}")))?;
        return Ok(String::new());
    }
    let tty = std::io::stderr().is_terminal();
    let mut last_line = std::time::Instant::now();
    let summary = campaign::run(&s, &exe, |sum, left| {
        // A terminal gets one line rewritten in place; a log gets a line every 10 s.
        if tty {
            eprint!("\r{}\x1b[K", sum.progress(left));
        } else if last_line.elapsed() >= Duration::from_secs(10) {
            eprintln!("{}", sum.progress(left));
            last_line = std::time::Instant::now();
        }
    })
    .map_err(|e| Failure::Message(format!("fuzz: {e}")))?;
    if tty {
        eprintln!();
    }
    let mut out = String::new();
    for f in &summary.saved {
        out.push_str(&format!("saved {}\n", s.out.join(f).display()));
    }
    if summary.driver_crashes > 0 {
        out.push_str(&format!(
            "the Vulkan driver (lavapipe) crashed on {} program(s): not dianran's failures, saved as driver-crash-*.wgsl\n",
            summary.driver_crashes
        ));
    }
    out.push_str(&format!(
        "mutants {} ({} command runs)\n{}\n",
        summary.mutants,
        summary.command_runs,
        summary.line()
    ));
    if summary.clean() {
        Ok(out)
    } else {
        print!("{out}");
        Err(Failure::Message(format!(
            "the campaign found failures; the reduced programs are in {}",
            s.out.display()
        )))
    }
}

fn positive_or_zero(v: f64) -> Result<(), Failure> {
    if v >= 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(Failure::Message("--seconds must be a non-negative number".into()))
    }
}
