//! Verification level 1 (docs/verification.md): NVIDIA's offline assembler `ptxas` must accept every PTX
//! text the project emits. Runs `ptxas -arch=sm_XX -v` and reads its per-kernel resource report
//! (registers, spills, shared memory, stack).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::tools;

/// Resources one kernel uses, as `ptxas -v` reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtxasStats {
    /// The entry's PTX name.
    pub kernel: String,
    /// Hardware registers per thread.
    pub registers: u32,
    /// Bytes stored to local memory because registers ran out.
    pub spill_stores: u32,
    /// Bytes loaded back from local memory because registers ran out.
    pub spill_loads: u32,
    /// Static shared memory (`.shared`), in bytes.
    pub shared_bytes: u32,
    /// Stack frame (`.local` arrays and spills), in bytes.
    pub stack_bytes: u32,
}

/// Everything one successful `ptxas` run produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PtxasReport {
    /// One entry per kernel, in the order ptxas compiled them.
    pub kernels: Vec<PtxasStats>,
    /// `ptxas warning` lines (accepted, but worth a look).
    pub warnings: Vec<String>,
    /// The assembled cubin (an ELF file for the requested architecture).
    pub cubin: Vec<u8>,
}

/// Why a ptxas check did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PtxasError {
    /// No `ptxas` binary was found (see [`tools::ptxas`]; `tools/setup.sh` installs one).
    NotFound,
    /// The temporary files could not be written or read, or ptxas could not be started.
    Io {
        /// What was being done.
        context: String,
        /// The operating system's message.
        message: String,
    },
    /// ptxas rejected the PTX; `log` holds its messages (`ptxas kernel.ptx, line N; error : …`).
    Rejected {
        /// Exit status, when ptxas exited normally.
        status: Option<i32>,
        /// ptxas's full output.
        log: String,
    },
}

impl PtxasError {
    /// ptxas's messages, when it ran and rejected the input.
    pub fn log(&self) -> Option<&str> {
        match self {
            PtxasError::Rejected { log, .. } => Some(log),
            _ => None,
        }
    }
}

impl fmt::Display for PtxasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxasError::NotFound => write!(
                f,
                "ptxas not found: run tools/setup.sh or set {} to a ptxas binary",
                tools::PTXAS_ENV
            ),
            PtxasError::Io { context, message } => write!(f, "ptxas: {context}: {message}"),
            PtxasError::Rejected { status, log } => {
                match status {
                    Some(code) => write!(f, "ptxas rejected the PTX (exit status {code})")?,
                    None => write!(f, "ptxas was terminated by a signal")?,
                }
                if !log.trim().is_empty() {
                    write!(f, ":\n{}", log.trim_end())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for PtxasError {}

/// Assembles `ptx` for `sm_<sm>` (e.g. `80`, `90`) with the `ptxas` found by [`tools::ptxas`]
/// and returns each kernel's resource use.
pub fn check(ptx: &str, sm: u32) -> Result<Vec<PtxasStats>, PtxasError> {
    assemble(ptx, sm).map(|r| r.kernels)
}

/// Like [`check`], but also returns the warnings and the cubin.
pub fn assemble(ptx: &str, sm: u32) -> Result<PtxasReport, PtxasError> {
    let ptxas = tools::ptxas().ok_or(PtxasError::NotFound)?;
    assemble_with(&ptxas, ptx, sm)
}

/// Like [`assemble`] with an explicit `ptxas` binary.
pub fn assemble_with(ptxas: &Path, ptx: &str, sm: u32) -> Result<PtxasReport, PtxasError> {
    assemble_opt(ptxas, ptx, sm, None)
}

/// [`assemble_with`] at `-O0`: the same checks of the PTX (syntax, types, state spaces,
/// the target's instruction set) without the optimizer, about a quarter faster on large
/// kernels. For checking many programs (`dianran fuzz`), not for register counts.
pub fn check_with(ptxas: &Path, ptx: &str, sm: u32) -> Result<PtxasReport, PtxasError> {
    assemble_opt(ptxas, ptx, sm, Some("-O0"))
}

fn assemble_opt(
    ptxas: &Path,
    ptx: &str,
    sm: u32,
    opt: Option<&str>,
) -> Result<PtxasReport, PtxasError> {
    let dir = ScratchDir::new()?;
    let ptx_name = "kernel.ptx";
    let cubin_name = "kernel.cubin";
    std::fs::write(dir.path.join(ptx_name), ptx).map_err(|e| io("writing the PTX file", e))?;
    // Relative names, run inside the scratch directory: ptxas's messages then say
    // `kernel.ptx, line N` rather than a random temporary path.
    let out = Command::new(ptxas)
        .current_dir(&dir.path)
        .arg(format!("-arch={}", dianran_ptx::model::sm_name(sm)))
        .args(opt)
        .arg("-v")
        .arg(ptx_name)
        .arg("-o")
        .arg(cubin_name)
        .output()
        .map_err(|e| io(&format!("running {}", ptxas.display()), e))?;
    let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        return Err(PtxasError::Rejected { status: out.status.code(), log });
    }
    let cubin = std::fs::read(dir.path.join(cubin_name)).map_err(|e| io("reading the cubin", e))?;
    Ok(PtxasReport { kernels: parse_verbose(&log), warnings: warnings(&log), cubin })
}

fn io(context: &str, e: std::io::Error) -> PtxasError {
    PtxasError::Io { context: context.to_string(), message: e.to_string() }
}

/// The `ptxas warning` lines of a log.
fn warnings(log: &str) -> Vec<String> {
    log.lines().filter(|l| l.starts_with("ptxas warning")).map(str::to_string).collect()
}

/// Reads the per-kernel report of `ptxas -v`:
///
/// ```text
/// ptxas info    : Compiling entry function 'k' for 'sm_80'
/// ptxas info    : Function properties for k
///     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
/// ptxas info    : Used 8 registers, used 1 barriers, 256 bytes smem, 360 bytes cmem[0]
/// ```
///
/// Lines about non-entry functions (`Function properties for f` without a matching
/// `Compiling entry function`) are ignored.
pub fn parse_verbose(log: &str) -> Vec<PtxasStats> {
    let mut kernels: Vec<PtxasStats> = Vec::new();
    // Index into `kernels` of the entry the following lines describe, if any.
    let mut current: Option<usize> = None;
    for line in log.lines() {
        let body = line.split_once(':').map(|(_, rest)| rest.trim()).unwrap_or(line.trim());
        if let Some(name) = body.strip_prefix("Compiling entry function ").and_then(quoted) {
            kernels.push(PtxasStats { kernel: name.to_string(), ..PtxasStats::default() });
            current = Some(kernels.len() - 1);
        } else if body.starts_with("Compiling function ") {
            current = None;
        } else if let Some(name) = body.strip_prefix("Function properties for ") {
            let name = name.trim();
            current = kernels.iter().position(|k| k.kernel == name);
        } else if let Some(k) = current.and_then(|i| kernels.get_mut(i)) {
            if line.contains("stack frame") {
                for (n, what) in counts(line) {
                    match what {
                        "stack frame" => k.stack_bytes = n,
                        "spill stores" => k.spill_stores = n,
                        "spill loads" => k.spill_loads = n,
                        _ => {}
                    }
                }
            } else if let Some(used) = body.strip_prefix("Used ") {
                for part in used.split(',') {
                    let part = part.trim();
                    let mut words = part.split_whitespace();
                    let (Some(n), Some(unit)) = (words.next(), words.next()) else { continue };
                    let Ok(n) = n.parse::<u32>() else { continue };
                    match (unit, words.next()) {
                        ("registers" | "register", _) => k.registers = n,
                        ("bytes", Some("smem")) => k.shared_bytes = n,
                        _ => {}
                    }
                }
            }
        }
    }
    kernels
}

/// The text between the first pair of single quotes.
fn quoted(s: &str) -> Option<&str> {
    let start = s.find('\'')? + 1;
    let len = s.get(start..)?.find('\'')?;
    s.get(start..start + len)
}

/// `N bytes what` items of a comma-separated line.
fn counts(line: &str) -> Vec<(u32, &str)> {
    line.split(',')
        .filter_map(|part| {
            let part = part.trim();
            let (n, rest) = part.split_once(' ')?;
            let what = rest.trim().strip_prefix("bytes ")?;
            Some((n.parse().ok()?, what.trim()))
        })
        .collect()
}

/// A fresh directory under the system's temporary directory, removed on drop.
struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    fn new() -> Result<ScratchDir, PtxasError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        // pid + per-process counter make the name unique among concurrent tests and processes;
        // `create_dir` (not `create_dir_all`) fails rather than reusing a leftover directory.
        for _ in 0..16 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("dianran-ptxas-{}-{n}-{nanos}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(ScratchDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io("creating a temporary directory", e)),
            }
        }
        Err(PtxasError::Io {
            context: "creating a temporary directory".into(),
            message: format!("no free name under {}", base.display()),
        })
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Doubles 64 `u32`s through shared memory, then a kernel with a local array.
    const VALID: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry double_it(.param .u64 p_g0_b0)
.reqntid 64, 1, 1
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .shared .align 16 .b8 ystile[256];
    ld.param.u64 %rd1, [p_g0_b0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    add.s32 %r3, %r2, %r2;
    st.shared.u32 [ystile], %r3;
    bar.sync 0;
    ld.shared.u32 %r3, [ystile];
    st.global.u32 [%rd3], %r3;
    ret;
}

.visible .entry second(.param .u64 p_g0_b0)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p_g0_b0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
";

    #[test]
    fn parses_a_verbose_report() {
        // A report in the exact format of ptxas 12.9, with made-up numbers.
        let log = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_80'
ptxas info    : Function properties for a
    24 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]
ptxas info    : Compile time = 1.0 ms
ptxas info    : Function properties for helper
    99 bytes stack frame, 99 bytes spill stores, 99 bytes spill loads
ptxas info    : Compiling entry function 'b' for 'sm_80'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 1 register, 360 bytes cmem[0]
";
        let got = parse_verbose(log);
        let want = vec![
            PtxasStats {
                kernel: "a".into(),
                registers: 40,
                spill_stores: 8,
                spill_loads: 4,
                shared_bytes: 1024,
                stack_bytes: 24,
            },
            PtxasStats { kernel: "b".into(), registers: 1, ..PtxasStats::default() },
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn quoted_and_counts_helpers() {
        assert_eq!(quoted("x 'name' for 'sm_80'"), Some("name"));
        assert_eq!(quoted("no quotes"), None);
        assert_eq!(
            counts("    16 bytes stack frame, 0 bytes spill stores"),
            vec![(16, "stack frame"), (0, "spill stores")]
        );
    }

    #[test]
    fn accepts_valid_ptx_and_reports_resources() {
        let Some(ptxas) = tools::require("ptxas", tools::ptxas()) else { return };
        for sm in [80, 90] {
            let report = assemble_with(&ptxas, VALID, sm).unwrap_or_else(|e| panic!("{e}"));
            let mut names: Vec<&str> = report.kernels.iter().map(|k| k.kernel.as_str()).collect();
            names.sort_unstable();
            assert_eq!(names, ["double_it", "second"], "sm_{sm}");
            let double = report.kernels.iter().find(|k| k.kernel == "double_it").expect("kernel");
            // The kernel declares exactly 256 bytes of shared memory and no local memory.
            assert_eq!(double.shared_bytes, 256);
            assert_eq!(double.stack_bytes, 0);
            assert_eq!(double.spill_stores + double.spill_loads, 0);
            assert!(double.registers > 0 && double.registers <= 255);
            // A cubin is an ELF file.
            assert_eq!(report.cubin.get(..4), Some(&b"\x7fELF"[..]));
            assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        }
    }

    #[test]
    fn rejects_invalid_ptx_with_the_log() {
        let Some(ptxas) = tools::require("ptxas", tools::ptxas()) else { return };
        let bad = VALID.replace("add.s32 %r3, %r2, %r2;", "bogus.op %r3;");
        let err = assemble_with(&ptxas, &bad, 80).expect_err("must be rejected");
        let log = err.log().expect("a log");
        assert!(log.contains("kernel.ptx, line 17"), "{log}");
        assert!(log.contains("bogus"), "{log}");
        assert!(err.to_string().contains("ptxas rejected the PTX"), "{err}");
    }

    #[test]
    fn check_uses_the_located_ptxas() {
        if tools::require("ptxas", tools::ptxas()).is_none() {
            assert_eq!(check(VALID, 80), Err(PtxasError::NotFound));
            return;
        }
        let stats = check(VALID, 80).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stats.len(), 2);
    }

    #[test]
    fn missing_binary_is_an_io_error() {
        let err = assemble_with(Path::new("/nonexistent/ptxas"), VALID, 80).expect_err("no ptxas");
        assert!(matches!(err, PtxasError::Io { .. }), "{err:?}");
    }

    #[test]
    fn scratch_dirs_are_unique_and_removed() {
        let a = ScratchDir::new().expect("dir");
        let b = ScratchDir::new().expect("dir");
        assert_ne!(a.path, b.path);
        let p = a.path.clone();
        assert!(p.is_dir());
        drop(a);
        assert!(!p.exists());
    }
}
