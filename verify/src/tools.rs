//! Locating external tools (ptxas, nvdisasm, clang++, lavapipe) and the strict-mode rule under CI.
//!
//! A test that needs a tool asks for it through [`require`]: when the tool is missing the test
//! prints `skipped: <tool> not found` and passes, except under `CI=true` ([`strict`]), where a
//! missing tool is a failure, so CI can never go green by skipping everything.

use std::env;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Environment variable naming the `ptxas` binary to use (overrides every other place).
pub const PTXAS_ENV: &str = "DIANRAN_PTXAS";
/// Environment variable naming the `nvdisasm` binary to use (overrides every other place).
pub const NVDISASM_ENV: &str = "DIANRAN_NVDISASM";
/// Environment variable naming the `clang++` binary to use (overrides every other place).
pub const CLANG_ENV: &str = "DIANRAN_CLANG";

/// Where `tools/setup.sh` puts its Python virtual environment, relative to the workspace root.
const VENV_DIR: &str = ".tools/venv";

/// True when running under CI (`CI=true`, or `CI=1`): missing tools then fail tests.
pub fn strict() -> bool {
    strict_from(env::var_os("CI").as_deref())
}

/// The rule behind [`strict`], separated so it can be tested without touching the environment.
fn strict_from(ci: Option<&OsStr>) -> bool {
    match ci.and_then(OsStr::to_str) {
        Some(v) => {
            let v = v.trim();
            v.eq_ignore_ascii_case("true") || v == "1"
        }
        None => false,
    }
}

/// The outcome of [`require`] for a missing tool: what a test must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// Not strict: the test prints the message and passes.
    Skip(String),
    /// Strict (CI): the test fails with the message.
    Fail(String),
}

/// Decides what a missing `tool` means: skip normally, fail under [`strict`] mode.
pub fn missing(tool: &str) -> Missing {
    missing_with(tool, strict())
}

fn missing_with(tool: &str, strict: bool) -> Missing {
    if strict {
        Missing::Fail(format!(
            "{tool} not found, and CI=true forbids skipping: run tools/setup.sh \
             (or point the matching DIANRAN_* variable at the tool)"
        ))
    } else {
        Missing::Skip(format!("skipped: {tool} not found"))
    }
}

/// Test helper: passes `found` through; when it is `None`, prints `skipped: <tool> not found`
/// and returns `None` so the test can return early, or, under [`strict`] mode, panics with a
/// clear message so the test fails.
///
/// Meant for tests only (panicking is how a Rust test fails); library code should use
/// [`missing`] and report the outcome itself.
pub fn require<T>(tool: &str, found: Option<T>) -> Option<T> {
    require_with(tool, found, strict())
}

fn require_with<T>(tool: &str, found: Option<T>, strict: bool) -> Option<T> {
    if found.is_some() {
        return found;
    }
    match missing_with(tool, strict) {
        Missing::Skip(msg) => {
            println!("{msg}");
            None
        }
        Missing::Fail(msg) => panic!("{msg}"),
    }
}

/// Like [`require`] for a condition reported in words, such as `no CUDA device` or
/// `no Vulkan adapter`: prints `skipped: <what>` when `ok` is false (or panics under
/// [`strict`] mode) and returns `ok`.
pub fn require_that(ok: bool, what: &str) -> bool {
    if ok {
        return true;
    }
    if strict() {
        panic!("{what}, and CI=true forbids skipping");
    }
    println!("skipped: {what}");
    false
}

/// The workspace root: the parent of this crate's manifest directory at build time when it
/// still exists, else the first ancestor of the current directory holding `Cargo.toml` with a
/// `[workspace]` table.
pub fn workspace_root() -> Option<PathBuf> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf);
    if let Some(root) = built {
        if is_workspace_root(&root) {
            return Some(root);
        }
    }
    let cwd = env::current_dir().ok()?;
    cwd.ancestors().find(|dir| is_workspace_root(dir)).map(Path::to_path_buf)
}

fn is_workspace_root(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .map(|text| text.lines().any(|l| l.trim() == "[workspace]"))
        .unwrap_or(false)
}

/// Finds `ptxas`: `$DIANRAN_PTXAS`, then the one `tools/setup.sh` installs under
/// `.tools/venv`, then `PATH`.
pub fn ptxas() -> Option<PathBuf> {
    find_tool(PTXAS_ENV, &VENV_PTXAS, "ptxas")
}

/// Finds `nvdisasm` (NVIDIA's SASS disassembler): `$DIANRAN_NVDISASM`, then the one
/// `tools/setup.sh` installs under `.tools/venv`, then `PATH`.
pub fn nvdisasm() -> Option<PathBuf> {
    find_tool(NVDISASM_ENV, &VENV_NVDISASM, "nvdisasm")
}

/// `$env`, then the first of `venv_paths` in the `tools/setup.sh` venv, then `name` on `PATH`.
fn find_tool(env: &str, venv_paths: &[&str], name: &str) -> Option<PathBuf> {
    if let Some(p) = from_env(env) {
        return Some(p);
    }
    if let Some(p) = workspace_root().and_then(|root| venv_tool(&root.join(VENV_DIR), venv_paths)) {
        return Some(p);
    }
    find_in_path(name)
}

/// Where the nvcc wheel puts `ptxas` under `site-packages`.
const VENV_PTXAS: [&str; 1] = ["site-packages/nvidia/cuda_nvcc/bin/ptxas"];

/// Where the nvdisasm wheels put the binary under `site-packages`: the CUDA 13 wheel
/// (`nvidia-cuda-nvdisasm`, the one `tools/setup.sh` pins; PyPI has no CUDA 12 one) and the
/// older per-component layout.
const VENV_NVDISASM: [&str; 2] =
    ["site-packages/nvidia/cu13/bin/nvdisasm", "site-packages/nvidia/cuda_nvdisasm/bin/nvdisasm"];

/// Finds an executable at one of `rels` (relative to `lib/python3.X/`) inside a virtual
/// environment made by `tools/setup.sh`, whatever the Python version.
fn venv_tool(venv: &Path, rels: &[&str]) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    let mut candidates: Vec<PathBuf> = lib
        .filter_map(Result::ok)
        .flat_map(|e| rels.iter().map(move |rel| e.path().join(rel)))
        .filter(|p| is_executable(p))
        .collect();
    // Deterministic choice when several Python versions are present.
    candidates.sort();
    candidates.pop()
}

/// Finds `clang++` (for compiling Metal-flavoured C++ checks): `$DIANRAN_CLANG`, then `clang++`
/// on `PATH`.
pub fn clang() -> Option<PathBuf> {
    from_env(CLANG_ENV).or_else(|| find_in_path("clang++"))
}

/// A tool named by an environment variable, when that names an executable file.
fn from_env(var: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env::var_os(var)?);
    is_executable(&p).then_some(p)
}

/// Searches `PATH` for an executable called `name`.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_follows_ci_variable() {
        assert!(strict_from(Some(OsStr::new("true"))));
        assert!(strict_from(Some(OsStr::new("TRUE"))));
        assert!(strict_from(Some(OsStr::new("1"))));
        assert!(!strict_from(Some(OsStr::new("false"))));
        assert!(!strict_from(Some(OsStr::new(""))));
        assert!(!strict_from(None));
    }

    #[test]
    fn missing_tool_skips_or_fails() {
        assert_eq!(missing_with("ptxas", false), Missing::Skip("skipped: ptxas not found".into()));
        match missing_with("ptxas", true) {
            Missing::Fail(msg) => {
                assert!(msg.starts_with("ptxas not found"), "{msg}");
                assert!(msg.contains("tools/setup.sh"), "{msg}");
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn require_passes_found_tools_through() {
        assert_eq!(require("anything", Some(7)), Some(7));
        assert!(require_that(true, "no such thing"));
    }

    #[test]
    fn require_skips_when_not_strict() {
        // The strict (panicking) path is covered by `missing_tool_skips_or_fails`; exercising
        // it here would print a panic backtrace into every CI log.
        assert_eq!(require_with::<u32>("no-such-tool", None, false), None);
        assert_eq!(require_with("no-such-tool", Some(3u32), true), Some(3));
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        let root = workspace_root().expect("workspace root");
        assert!(root.join("verify").join("Cargo.toml").is_file());
        assert!(is_workspace_root(&root));
        assert!(!is_workspace_root(&root.join("verify")));
    }

    #[test]
    fn path_search_finds_a_shell_and_not_nonsense() {
        #[cfg(unix)]
        assert!(find_in_path("sh").is_some());
        assert!(find_in_path("dianran-no-such-tool-3f9a").is_none());
    }

    #[test]
    fn venv_lookup_finds_ptxas_in_any_python_version() {
        let dir = env::temp_dir().join(format!("dianran-tools-test-{}", std::process::id()));
        let bin = dir.join("lib/python3.99/site-packages/nvidia/cuda_nvcc/bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        assert_eq!(venv_tool(&dir, &VENV_PTXAS), None);
        let exe = bin.join("ptxas");
        std::fs::write(&exe, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        assert_eq!(venv_tool(&dir, &VENV_PTXAS), Some(exe));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn venv_lookup_finds_nvdisasm_in_the_cuda13_layout() {
        let dir = env::temp_dir().join(format!("dianran-nvdisasm-test-{}", std::process::id()));
        let bin = dir.join("lib/python3.99/site-packages/nvidia/cu13/bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        let exe = bin.join("nvdisasm");
        // Not executable yet (what a bare unzip of the wheel leaves): not found.
        std::fs::write(&exe, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            assert_eq!(venv_tool(&dir, &VENV_NVDISASM), None);
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        assert_eq!(venv_tool(&dir, &VENV_NVDISASM), Some(exe));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn nvdisasm_is_found_when_installed() {
        // Only meaningful after tools/setup.sh; otherwise skip (or fail under CI).
        if let Some(p) = require("nvdisasm", nvdisasm()) {
            assert!(is_executable(&p));
        }
    }

    #[test]
    fn ptxas_is_found_when_installed() {
        // Only meaningful after tools/setup.sh; otherwise skip (or fail under CI).
        if let Some(p) = require("ptxas", ptxas()) {
            assert!(is_executable(&p));
        }
    }
}
