//! The campaign `dianran fuzz` runs.
//!
//! The parent process hands tasks to `jobs` worker processes (`dianran fuzz --worker`, the
//! same binary) over their standard input, one line each, and reads one answer line per
//! task from their standard output:
//!
//! | task | answer |
//! |---|---|
//! | `gen I` | `done I ok`, or `done I KIND STAGE` (the failure files are written) |
//! | `gen-nolava I` | the same, with the lavapipe executors left out |
//! | `mutate J` | `done J ok RUNS`, `done J crash RUNS` or `done J driver-crash RUNS` |
//!
//! `gen I` is generated program `I` (seed [`program_seed`]`(seed, I)`) through
//! [`check::check`], reduced on failure; `mutate J` is a mutant of a corpus kernel through
//! every command of the binary ([`mutate::command_lines`]).
//!
//! Workers are processes so that nothing a program does can take the campaign down: a
//! driver that dies on a signal (lavapipe's LLVM has been seen to) or an executor that never
//! returns ends one worker, which the parent replaces. A worker that dies during `gen I` is
//! retried once with lavapipe left out: if the program then passes, the crash was in the
//! Vulkan driver (counted and saved as a driver crash, which is not dianran's bug and does not
//! fail the campaign); otherwise it is a crash. A worker that stays silent past the task's
//! deadline is killed and its task counted as a crash (a hang).

use crate::check::{self, Failure, InjectedBug, Kind};
use crate::rng::{program_seed, Rng};
use crate::{gen, mutate, reduce};
use dianran_verify::executors::Executor;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a campaign does.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The campaign's seed; program `i` has seed `program_seed(seed, i)`.
    pub seed: u64,
    /// Stop handing out programs after this long.
    pub seconds: Option<f64>,
    /// Stop after this many generated programs.
    pub count: Option<u64>,
    /// Where failures (and with `keep`, every program) are written.
    pub out: PathBuf,
    /// Executors compared with the reference interpreter.
    pub executors: Vec<Executor>,
    /// Write every generated program to `out`.
    pub keep: bool,
    /// A deliberate code-generator bug (to show the campaign catches it).
    pub inject: Option<InjectedBug>,
    /// Worker processes.
    pub jobs: usize,
    /// Time limit of each executor on each program.
    pub timeout: Duration,
    /// Time budget of the reduction of each failing program.
    pub reduce: Duration,
    /// Kernels to mutate (`.wgsl` files in these directories); none: no mutation.
    pub corpus: Vec<PathBuf>,
    /// One task in this many is a mutant (0: none).
    pub mutate_every: u64,
    /// Stop handing out tasks once this many failures were found.
    pub max_failures: Option<u64>,
}

impl Settings {
    /// The arguments after `dianran fuzz --worker` that give a worker these settings (the
    /// command line's own flags).
    pub fn worker_args(&self) -> Vec<String> {
        let mut a = vec![
            "--seed".to_string(),
            self.seed.to_string(),
            "--out".into(),
            self.out.display().to_string(),
            "--executors".into(),
            self.executors.iter().map(|e| e.name()).collect::<Vec<_>>().join(","),
            "--timeout".into(),
            self.timeout.as_secs_f64().to_string(),
            "--reduce-seconds".into(),
            self.reduce.as_secs_f64().to_string(),
        ];
        if self.keep {
            a.push("--keep".into());
        }
        if let Some(b) = self.inject {
            a.extend(["--inject-bug".into(), inject_name(b).into()]);
        }
        for c in &self.corpus {
            a.extend(["--corpus".into(), c.display().to_string()]);
        }
        a
    }

    fn check_options(&self, lavapipe: bool) -> check::Options {
        let mut o = check::Options::available();
        o.executors = self
            .executors
            .iter()
            .copied()
            .filter(|e| lavapipe || !matches!(e, Executor::Lavapipe | Executor::LavapipeOut))
            .collect();
        o.timeout = self.timeout;
        o.inject = self.inject;
        o
    }

    /// The longest a worker may stay silent on one task before it is counted as hung.
    fn deadline(&self) -> Duration {
        let runs = self.executors.len() as u32 + 3;
        self.timeout * runs * 2 + self.reduce + Duration::from_secs(60)
    }
}

/// The command-line name of an injected bug.
pub fn inject_name(b: InjectedBug) -> &'static str {
    match b {
        InjectedBug::SubSwapped => "sub-swap",
        InjectedBug::DroppedBarrier => "drop-barrier",
    }
}

/// Parses [`inject_name`]'s names.
pub fn parse_inject(s: &str) -> Option<InjectedBug> {
    match s {
        "sub-swap" => Some(InjectedBug::SubSwapped),
        "drop-barrier" => Some(InjectedBug::DroppedBarrier),
        _ => None,
    }
}

/// The campaign's counts.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Generated programs checked.
    pub programs: u64,
    /// Failures by kind.
    pub failures: BTreeMap<Kind, u64>,
    /// Mutants run through the commands.
    pub mutants: u64,
    /// Command runs on mutants.
    pub command_runs: u64,
    /// Programs on which the Vulkan driver crashed (not dianran's failures).
    pub driver_crashes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The files written for failures, in order.
    pub saved: Vec<String>,
}

impl Summary {
    fn count(&self, k: Kind) -> u64 {
        self.failures.get(&k).copied().unwrap_or(0)
    }

    /// Programs per second.
    pub fn rate(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The summary line: `programs N, rejected-by-naga N, compile-errors N, ptxas-errors N,
    /// disagreements N, crashes N, programs/s X`.
    pub fn line(&self) -> String {
        format!(
            "programs {}, rejected-by-naga {}, compile-errors {}, ptxas-errors {}, disagreements {}, crashes {}, programs/s {:.1}",
            self.programs,
            self.count(Kind::Rejected),
            self.count(Kind::CompileError),
            self.count(Kind::PtxasError),
            self.count(Kind::Disagreement),
            self.count(Kind::Crash),
            self.rate()
        )
    }

    /// No failure of any kind.
    pub fn clean(&self) -> bool {
        self.failures.values().all(|&n| n == 0)
    }

    /// The progress line.
    pub fn progress(&self, left: Option<Duration>) -> String {
        let failures: u64 = self.failures.values().sum();
        let mut s = format!(
            "fuzz: {} programs, {} mutants ({} command runs), {failures} failures, {:.1} programs/s",
            self.programs,
            self.mutants,
            self.command_runs,
            self.rate()
        );
        if let Some(l) = left {
            let _ = write!(s, ", {} s left", l.as_secs());
        }
        s
    }
}

/// A task for a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    Gen(u64),
    GenNoLava(u64),
    Mutate(u64),
}

impl Task {
    fn line(self) -> String {
        match self {
            Task::Gen(i) => format!("gen {i}"),
            Task::GenNoLava(i) => format!("gen-nolava {i}"),
            Task::Mutate(j) => format!("mutate {j}"),
        }
    }

    fn parse(line: &str) -> Option<Task> {
        let (what, n) = line.trim().split_once(' ')?;
        let n = n.parse().ok()?;
        match what {
            "gen" => Some(Task::Gen(n)),
            "gen-nolava" => Some(Task::GenNoLava(n)),
            "mutate" => Some(Task::Mutate(n)),
            _ => None,
        }
    }
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    task: Option<(Task, Instant)>,
    log: PathBuf,
}

enum Event {
    Line(usize, String),
    Closed(usize),
}

/// Runs a campaign with worker processes `exe fuzz --worker ...`; `progress` is called about
/// once a second with the counts so far.
pub fn run(
    settings: &Settings,
    exe: &Path,
    mut progress: impl FnMut(&Summary, Option<Duration>),
) -> std::io::Result<Summary> {
    std::fs::create_dir_all(&settings.out)?;
    let start = Instant::now();
    let corpus = !mutate::corpus(&settings.corpus).is_empty() && settings.mutate_every > 0;
    let (tx, rx) = mpsc::channel();
    let mut workers: Vec<Option<Worker>> = Vec::new();
    let mut sum = Summary::default();
    let (mut next_gen, mut next_mut, mut handed) = (0u64, 0u64, 0u64);
    let mut retry: Vec<Task> = Vec::new();
    let mut last_progress = Instant::now();
    // Workers that died in a row without answering: a broken setup, not a program.
    let mut deaths_in_a_row = 0;
    let time_left = |now: Instant| {
        settings.seconds.map(|s| Duration::from_secs_f64(s).saturating_sub(now - start))
    };
    let spawn = |id: usize, tx: &mpsc::Sender<Event>| -> std::io::Result<Worker> {
        let log = settings.out.join(format!("worker-{id}.log"));
        let err = std::fs::OpenOptions::new().create(true).append(true).open(&log)?;
        let mut child = Command::new(exe)
            .args(["fuzz", "--worker"])
            .args(settings.worker_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()?;
        let stdin = child.stdin.take().ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Event::Line(id, l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(Event::Closed(id));
        });
        Ok(Worker { child, stdin, task: None, log })
    };
    for id in 0..settings.jobs.max(1) {
        workers.push(Some(spawn(id, &tx)?));
    }
    loop {
        let now = Instant::now();
        let out_of_time = time_left(now).is_some_and(|l| l.is_zero());
        let out_of_count = settings.count.is_some_and(|c| next_gen >= c)
            || settings.max_failures.is_some_and(|m| sum.failures.values().sum::<u64>() >= m);
        // Hand out tasks to idle workers.
        for (id, slot) in workers.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = Some(spawn(id, &tx)?);
            }
            let Some(w) = slot.as_mut() else { continue };
            if w.task.is_some() {
                continue;
            }
            let task = if let Some(t) = retry.pop() {
                t
            } else if out_of_time || out_of_count {
                continue;
            } else if corpus && handed % settings.mutate_every == settings.mutate_every - 1 {
                next_mut += 1;
                Task::Mutate(next_mut - 1)
            } else {
                next_gen += 1;
                Task::Gen(next_gen - 1)
            };
            handed += 1;
            if writeln!(w.stdin, "{}", task.line()).and_then(|_| w.stdin.flush()).is_err() {
                // A worker that cannot take work has died: its reader reports it.
                retry.push(task);
                continue;
            }
            w.task = Some((task, Instant::now()));
        }
        let busy = workers.iter().flatten().any(|w| w.task.is_some());
        if !busy && retry.is_empty() && (out_of_time || out_of_count) {
            break;
        }
        if last_progress.elapsed() >= Duration::from_secs(1) {
            sum.elapsed = start.elapsed();
            progress(&sum, time_left(Instant::now()));
            last_progress = Instant::now();
        }
        let event = match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(e) => Some(e),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Some(Event::Line(id, line)) => {
                let Some(w) = workers.get_mut(id).and_then(Option::as_mut) else { continue };
                let Some((task, _)) = w.task.take() else { continue };
                deaths_in_a_row = 0;
                record(settings, &mut sum, task, &line);
            }
            Some(Event::Closed(id)) => {
                let Some(mut w) = workers.get_mut(id).and_then(Option::take) else { continue };
                let _ = w.child.wait();
                if let Some((task, _)) = w.task {
                    deaths_in_a_row += 1;
                    if deaths_in_a_row > 2 * settings.jobs + 4 {
                        return Err(std::io::Error::other(format!(
                            "the worker processes keep dying; the last lines they wrote:\n{}",
                            log_tail(&w.log)
                        )));
                    }
                    died(settings, &mut sum, &mut retry, task, &w.log);
                }
            }
            None => {}
        }
        // Kill workers silent past their deadline.
        for slot in workers.iter_mut() {
            let hung = slot
                .as_ref()
                .and_then(|w| w.task)
                .is_some_and(|(_, since)| since.elapsed() > settings.deadline());
            if hung {
                if let Some(mut w) = slot.take() {
                    let _ = w.child.kill();
                    let _ = w.child.wait();
                    if let Some((task, _)) = w.task {
                        let f = Failure {
                            kind: Kind::Crash,
                            stage: "worker".into(),
                            detail: format!(
                                "no answer after {} s (a hang)",
                                settings.deadline().as_secs()
                            ),
                        };
                        save_unreduced(settings, &mut sum, task, &f);
                    }
                }
            }
        }
    }
    for w in workers.into_iter().flatten() {
        let Worker { mut child, stdin, .. } = w;
        drop(stdin);
        let _ = child.wait();
    }
    sum.elapsed = start.elapsed();
    Ok(sum)
}

/// Counts one worker answer.
fn record(settings: &Settings, sum: &mut Summary, task: Task, line: &str) {
    let parts: Vec<&str> = line.split_whitespace().collect();
    match (task, parts.as_slice()) {
        (Task::Mutate(_), ["done", _, verdict, runs, rest @ ..]) => {
            sum.mutants += 1;
            sum.command_runs += runs.parse::<u64>().unwrap_or(0);
            match *verdict {
                "crash" => {
                    *sum.failures.entry(Kind::Crash).or_default() += 1;
                    sum.saved.extend(rest.iter().map(|s| s.to_string()));
                }
                "driver-crash" => sum.driver_crashes += 1,
                _ => {}
            }
        }
        (Task::Gen(_) | Task::GenNoLava(_), ["done", _, "ok"]) => {
            sum.programs += 1;
            if matches!(task, Task::GenNoLava(_)) {
                // It passed without lavapipe: the crash was the driver's.
                sum.driver_crashes += 1;
                if let Task::GenNoLava(i) = task {
                    let seed = program_seed(settings.seed, i);
                    sum.saved.push(format!("driver-crash-{seed}.wgsl"));
                }
            }
        }
        (Task::Gen(_) | Task::GenNoLava(_), ["done", _, kind, _stage, files @ ..]) => {
            sum.programs += 1;
            let k = match *kind {
                "rejected" => Kind::Rejected,
                "compile-error" => Kind::CompileError,
                "ptxas-error" => Kind::PtxasError,
                "disagreement" => Kind::Disagreement,
                _ => Kind::Crash,
            };
            *sum.failures.entry(k).or_default() += 1;
            sum.saved.extend(files.iter().map(|s| s.to_string()));
        }
        _ => {
            *sum.failures.entry(Kind::Crash).or_default() += 1;
            sum.saved.push(format!("(unreadable worker answer: {line})"));
        }
    }
}

/// A worker died during `task`.
fn died(settings: &Settings, sum: &mut Summary, retry: &mut Vec<Task>, task: Task, log: &Path) {
    let tail = log_tail(log);
    match task {
        Task::Gen(i) => {
            // Save what we know now; the retry without lavapipe decides what it was.
            let seed = program_seed(settings.seed, i);
            let p = gen::generate(seed);
            let path = settings.out.join(format!("driver-crash-{seed}.wgsl"));
            let _ = std::fs::write(
                &path,
                format!(
                    "// dianran fuzz: the worker died on this program; the last lines it wrote:\n{}\n{}",
                    comment(&tail),
                    p.wgsl()
                ),
            );
            retry.push(Task::GenNoLava(i));
        }
        Task::GenNoLava(_) | Task::Mutate(_) => {
            let f = Failure {
                kind: Kind::Crash,
                stage: "worker".into(),
                detail: format!("the worker process died; the last lines it wrote:\n{tail}"),
            };
            save_unreduced(settings, sum, task, &f);
        }
    }
}

/// Records a crash the parent saw (a dead or hung worker), saving the program.
fn save_unreduced(settings: &Settings, sum: &mut Summary, task: Task, f: &Failure) {
    *sum.failures.entry(Kind::Crash).or_default() += 1;
    let (name, text) = match task {
        Task::Gen(i) | Task::GenNoLava(i) => {
            sum.programs += 1;
            let seed = program_seed(settings.seed, i);
            (format!("crash-{seed}.wgsl"), gen::generate(seed).wgsl())
        }
        Task::Mutate(j) => {
            sum.mutants += 1;
            let (_, text, _) = mutant_of(settings, j).unwrap_or_default();
            (format!("crash-mutant-{j}.wgsl"), text)
        }
    };
    let header = format!("// dianran fuzz: crash at {}\n{}\n", f.stage, comment(&f.detail));
    let _ = std::fs::write(settings.out.join(&name), header + &text);
    sum.saved.push(name);
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR")).collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// `text` as `//` comment lines.
fn comment(text: &str) -> String {
    text.lines().map(|l| format!("//   {l}")).collect::<Vec<_>>().join("\n")
}

// ---- the worker side ----

/// Mutant `j`: (corpus file name, mutant text, the original's first compute entry).
fn mutant_of(settings: &Settings, j: u64) -> Option<(String, String, String)> {
    let files = mutate::corpus(&settings.corpus);
    let mut rng = Rng::new(program_seed(settings.seed ^ 0x6d75_7461_6e74, j));
    let file = files.get(rng.below(files.len() as u32) as usize)?;
    let src = std::fs::read_to_string(file).ok()?;
    let entry = dianran_frontend::compile("corpus.wgsl", &src, &Default::default())
        .ok()
        .and_then(|m| {
            m.entry_points
                .iter()
                .find(|e| e.stage == dianran_frontend::ir::Stage::Compute)
                .map(|e| e.name.clone())
        })
        .unwrap_or_else(|| "main".into());
    // One to three edits.
    let mut text = src;
    for _ in 0..1 + rng.below(3) {
        text = mutate::mutant(&text, &mut rng);
    }
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Some((name, text, entry))
}

/// Serves tasks from `input` until it closes, answering on `output`. Returns early (so the
/// process can exit and leave nothing running) after a task in which an executor timed out.
pub fn worker(
    settings: &Settings,
    exe: &Path,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    std::fs::create_dir_all(&settings.out)?;
    for line in input.lines() {
        let line = line?;
        let Some(task) = Task::parse(&line) else { continue };
        let (answer, stop) = match task {
            Task::Gen(i) => program_task(settings, i, true),
            Task::GenNoLava(i) => program_task(settings, i, false),
            Task::Mutate(j) => (mutant_task(settings, exe, j), false),
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
        if stop {
            return Ok(());
        }
    }
    Ok(())
}

/// What the lavapipe executors report when the driver lost its device
/// (`dianran_verify::lavapipe::LavapipeError::DeviceLost`).
const DEVICE_LOST: &str = "the Vulkan driver lost the device";

/// Checks program `i`; on failure reduces it and writes the files. Returns the answer line
/// and whether the worker should exit (an executor timed out and may still be running).
fn program_task(settings: &Settings, i: u64, lavapipe: bool) -> (String, bool) {
    let seed = program_seed(settings.seed, i);
    let p = gen::generate(seed);
    let text = p.wgsl();
    if settings.keep {
        let _ = std::fs::write(settings.out.join(format!("program-{seed}.wgsl")), &text);
    }
    let opts = settings.check_options(lavapipe);
    let name = format!("fuzz-{seed}.wgsl");
    let Err(f) = check::check(&name, &text, p.dispatch, p.runtime_len, seed, &opts) else {
        return (format!("done {i} ok"), false);
    };
    if f.detail.contains(DEVICE_LOST) {
        // lavapipe lost its device on this program: the driver's failure, like a crash. The
        // worker ends as if it had crashed, so the campaign checks the program again without
        // lavapipe and counts a driver crash if it passes.
        eprintln!("fuzz worker: program {i}: {}", f.detail);
        std::process::exit(3);
    }
    let timed_out = f.detail.starts_with("no result after");
    let narrow = opts.narrowed(&f);
    let test = |c: &crate::ast::Program| {
        check::check(&name, &c.wgsl(), c.dispatch, c.runtime_len, seed, &narrow).err()
    };
    // A hang is not reduced: every candidate would wait out the time limit.
    let (small, kept) =
        if timed_out { (p.clone(), 0) } else { reduce::reduce(&p, &f, settings.reduce, test) };
    let after = if kept > 0 { test(&small).unwrap_or_else(|| f.clone()) } else { f.clone() };
    let base = format!("{}-{seed}", f.kind.name());
    let mut header = format!(
        "// dianran fuzz: {} at {} (campaign seed {}, program {i}, seed {seed})\n",
        f.kind.name(),
        f.stage,
        settings.seed
    );
    let _ = writeln!(
        header,
        "// Reduced from {} to {} statements; the original is {base}.orig.wgsl.",
        reduce::size(&p),
        reduce::size(&small)
    );
    if let Some(b) = settings.inject {
        let _ = writeln!(header, "// (with the injected code-generator bug {})", inject_name(b));
    }
    let _ = writeln!(header, "// What the reduced program does:\n{}", comment(&after.detail));
    let _ = std::fs::write(settings.out.join(format!("{base}.wgsl")), header + &small.wgsl());
    let orig = format!(
        "// dianran fuzz: {} at {}\n{}\n{text}",
        f.kind.name(),
        f.stage,
        comment(&f.detail)
    );
    let _ = std::fs::write(settings.out.join(format!("{base}.orig.wgsl")), orig);
    (format!("done {i} {} {} {base}.wgsl", f.kind.name(), f.stage), timed_out)
}

/// Runs mutant `j` through every command.
fn mutant_task(settings: &Settings, exe: &Path, j: u64) -> String {
    let Some((from, text, entry)) = mutant_of(settings, j) else {
        return format!("done {j} ok 0");
    };
    let scratch = settings.out.join(format!("mutant-{}.wgsl", std::process::id()));
    if std::fs::write(&scratch, &text).is_err() {
        return format!("done {j} ok 0");
    }
    let file = scratch.display().to_string();
    let verify_timeout = settings.timeout.as_secs().max(1);
    let mut runs = 0;
    let mut verdict = "ok";
    let mut saved = String::new();
    for (k, args) in mutate::command_lines(&file, &entry, verify_timeout).into_iter().enumerate() {
        let limit = if args[0] == "verify" {
            settings.timeout * 6 + Duration::from_secs(30)
        } else {
            Duration::from_secs(60)
        };
        let Ok(ended) = mutate::run_command(exe, &args, limit, &scratch) else { continue };
        runs += 1;
        // `check` rejected it: every other command stops at the same parse and validation.
        if k == 0 && ended.code == Some(1) && !ended.crashed() {
            break;
        }
        if !ended.crashed() {
            continue;
        }
        // `verify` killed by a signal: again without lavapipe, to tell a driver crash apart.
        if args[0] == "verify" && ended.code.is_none() && !ended.timed_out {
            let mut again = args.clone();
            again.extend(["--executors".into(), "emu".into()]);
            if let Ok(e2) = mutate::run_command(exe, &again, limit, &scratch) {
                runs += 1;
                if !e2.crashed() {
                    verdict = "driver-crash";
                    continue;
                }
            }
        }
        verdict = "crash";
        let name = format!("crash-mutant-{j}.wgsl");
        let header = format!(
            "// dianran fuzz: crash on a mutant of {from} (campaign seed {}, mutant {j})\n// {}\n{}\n",
            settings.seed,
            ended.describe(),
            comment(&ended.stderr)
        );
        let _ = std::fs::write(settings.out.join(&name), header + &text);
        saved = name;
        break;
    }
    let _ = std::fs::remove_file(&scratch);
    format!("done {j} {verdict} {runs} {saved}").trim_end().to_string()
}
