//! Running a Vulkan executor in a child process (`dianran run --executor lavapipe ...`) for
//! `dianran verify`: lavapipe's LLVM has been seen to abort or segfault on valid kernels, and
//! a driver that dies must not take the whole report with it. The child gets the same input
//! buffers through `--buffer` files and writes its results with `--dump`; a child that dies
//! on a signal is reported as a driver crash, one past the time limit is killed.

use dianran_verify::buffers::Buffers;
use dianran_verify::executors::{ExecError, Executor};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the child needs besides the buffers.
pub struct Child<'a> {
    /// The WGSL file.
    pub file: &'a Path,
    /// `--override` values.
    pub overrides: &'a [(String, f64)],
    /// The entry point.
    pub entry: &'a str,
    /// Workgroups per dimension.
    pub dispatch: [u32; 3],
}

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn io(what: &str, e: std::io::Error) -> ExecError {
    ExecError::Failed(format!("{what}: {e}"))
}

/// Runs `exec` (a lavapipe executor) on `input` in a child process of this binary.
pub fn run(
    exec: Executor,
    c: &Child<'_>,
    input: &Buffers,
    limit: Duration,
) -> Result<Buffers, ExecError> {
    let exe = std::env::current_exe().map_err(|e| io("finding this program", e))?;
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dianran-verify-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| io("creating a scratch directory", e))?;
    let scratch = Scratch(dir);
    let out = scratch.0.join("out");
    let [x, y, z] = c.dispatch;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        .arg(c.file)
        .args(["--entry", c.entry, "--dispatch", &format!("{x},{y},{z}")])
        .args(["--executor", exec.name()])
        // lavapipe-out prints the module compiled without contraction, the module its
        // reference runs (`dianran_verify::contraction`).
        .args(if exec == Executor::LavapipeOut { &["--no-fma"][..] } else { &[] })
        .arg("--dump")
        .arg(&out);
    for (name, value) in c.overrides {
        cmd.arg("--override").arg(format!("{name}={value}"));
    }
    for (&(g, b), bytes) in input {
        let path = scratch.0.join(format!("g{g}_b{b}.in"));
        std::fs::write(&path, bytes).map_err(|e| io("writing an input buffer", e))?;
        cmd.arg("--buffer").arg(format!("{g}:{b}={}", path.display()));
    }
    let err_path = scratch.0.join("stderr");
    let err = std::fs::File::create(&err_path).map_err(|e| io("creating a log file", e))?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .map_err(|e| io("starting the executor's process", e))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ExecError::Timeout(limit));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(io("waiting for the executor's process", e)),
        }
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let stderr: Vec<&str> =
        stderr.lines().filter(|l| !l.contains("XDG_RUNTIME_DIR") && !l.trim().is_empty()).collect();
    match status.code() {
        Some(0) => {}
        Some(_) => {
            let msg = stderr.join(" ");
            let msg = msg.strip_prefix("error: ").unwrap_or(&msg);
            return Err(ExecError::Failed(msg.to_string()));
        }
        None => {
            return Err(ExecError::Failed(format!(
                "the Vulkan driver crashed ({}); not a dianran failure, but nothing to compare{}",
                signal_name(&status),
                stderr.last().map(|l| format!(" (last message: {l})")).unwrap_or_default()
            )))
        }
    }
    let mut result = Buffers::new();
    for &(g, b) in input.keys() {
        let bytes = std::fs::read(out.join(format!("g{g}_b{b}.bin")))
            .map_err(|e| io("reading a result buffer", e))?;
        result.insert((g, b), bytes);
    }
    Ok(result)
}

#[cfg(unix)]
fn signal_name(s: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match s.signal() {
        Some(6) => "SIGABRT".into(),
        Some(11) => "SIGSEGV".into(),
        Some(n) => format!("signal {n}"),
        None => "killed".into(),
    }
}

#[cfg(not(unix))]
fn signal_name(_: &std::process::ExitStatus) -> String {
    "killed".into()
}
