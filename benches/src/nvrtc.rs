//! NVRTC (CUDA C++ -> PTX) through cudarc, loading `libnvrtc.so.12` from the tools venv.
//!
//! cudarc opens NVRTC by library name, which only searches the loader's default paths and
//! `LD_LIBRARY_PATH` as it was at process start. The copy `tools/setup.sh` installs
//! (`nvidia-cuda-nvrtc-cu12` from PyPI) lives in the venv, so we open it by full path first
//! and keep it loaded: the loader then hands cudarc that same library when it asks for
//! `libnvrtc.so.12` by name (matching on the SONAME).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming a `libnvrtc.so*` to use instead of the venv's.
pub const NVRTC_ENV: &str = "DIANRAN_NVRTC";

/// Why NVRTC produced no PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NvrtcError {
    /// No NVRTC library could be loaded.
    NotFound(String),
    /// NVRTC rejected the source; the compile log.
    Compile(String),
}

impl std::fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NvrtcError::NotFound(why) => write!(f, "nvrtc not found ({why})"),
            NvrtcError::Compile(log) => write!(f, "nvrtc rejected the source:\n{log}"),
        }
    }
}

/// Where to look for libnvrtc, in order: `$DIANRAN_NVRTC`, then the venv of
/// `tools/setup.sh` (any Python version).
pub fn library_candidates(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os(NVRTC_ENV) {
        out.push(PathBuf::from(p));
    }
    if let Ok(dirs) = std::fs::read_dir(root.join(".tools/venv/lib")) {
        let mut venv: Vec<PathBuf> = dirs
            .filter_map(Result::ok)
            .map(|e| e.path().join("site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"))
            .filter(|p| p.is_file())
            .collect();
        venv.sort();
        out.extend(venv);
    }
    out
}

/// The library opened by full path, kept for the life of the process.
static PRELOADED: OnceLock<Result<(), String>> = OnceLock::new();

/// Makes NVRTC loadable; `Err` says what was tried.
pub fn load() -> Result<(), NvrtcError> {
    PRELOADED
        .get_or_init(|| {
            let candidates = library_candidates(&crate::kernels::root());
            for path in &candidates {
                // SAFETY: loading libnvrtc runs only its initializers, which have no
                // preconditions; the handle is leaked so the library stays for cudarc.
                if let Ok(lib) = unsafe { libloading::Library::new(path) } {
                    std::mem::forget(lib);
                    return Ok(());
                }
            }
            // Not in the venv: cudarc may still find a system copy by name.
            // SAFETY: only tries to dlopen the library.
            let present =
                std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() });
            if matches!(present, Ok(true)) {
                return Ok(());
            }
            let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            Err(if tried.is_empty() {
                "run tools/setup.sh or set DIANRAN_NVRTC".to_string()
            } else {
                format!("could not load {}", tried.join(", "))
            })
        })
        .clone()
        .map_err(NvrtcError::NotFound)
}

/// Compiles CUDA C++ `source` to PTX for `sm_<sm>`, as `name` in messages; `#include "..."`
/// finds the files of `benches/cuda/`.
pub fn compile(source: &str, name: &str, sm: u32) -> Result<String, NvrtcError> {
    compile_with(source, name, sm, false)
}

/// [`compile`], with `--use_fast_math` when `fast_math` is set.
pub fn compile_with(
    source: &str,
    name: &str,
    sm: u32,
    fast_math: bool,
) -> Result<String, NvrtcError> {
    load()?;
    let arch: &'static str = match sm {
        80 => "sm_80",
        86 => "sm_86",
        89 => "sm_89",
        90 => "sm_90",
        other => return Err(NvrtcError::Compile(format!("unsupported target sm_{other}"))),
    };
    let opts = cudarc::nvrtc::CompileOptions {
        arch: Some(arch),
        name: Some(name.to_string()),
        // The shared `mma_sm80.cuh` of the GEMM equivalents.
        include_paths: vec![crate::kernels::cuda_dir().display().to_string()],
        // Not `use_fast_math: Some(true)`: cudarc 0.19 turns that into `--fmad=true` only.
        options: if fast_math { vec!["--use_fast_math".into()] } else { Vec::new() },
        ..Default::default()
    };
    // cudarc panics when a symbol is missing from the library it loaded.
    match std::panic::catch_unwind(|| cudarc::nvrtc::compile_ptx_with_opts(source, opts)) {
        Ok(Ok(ptx)) => Ok(ptx.to_src()),
        Ok(Err(e)) => Err(NvrtcError::Compile(describe(e))),
        Err(_) => Err(NvrtcError::NotFound("cudarc could not use the library".into())),
    }
}

/// The compile log when there is one, else the error itself.
fn describe(e: cudarc::nvrtc::CompileError) -> String {
    match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => {
            log.to_string_lossy().trim_end().to_string()
        }
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints `skipped: nvrtc not found (...)`, or fails under CI=true.
    fn skip(why: &str) {
        dianran_verify::tools::require_that(false, &format!("nvrtc not found ({why})"));
    }

    #[test]
    fn candidates_come_from_the_venv() {
        let dir = std::env::temp_dir().join(format!("dianran-nvrtc-{}", std::process::id()));
        let lib = dir.join(".tools/venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib");
        std::fs::create_dir_all(&lib).expect("mkdir");
        std::fs::write(lib.join("libnvrtc.so.12"), b"").expect("write");
        let found = library_candidates(&dir);
        assert!(found.iter().any(|p| p.ends_with("cuda_nvrtc/lib/libnvrtc.so.12")));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(library_candidates(&dir).iter().all(|p| !p.starts_with(&dir)));
    }

    #[test]
    fn compiles_cuda_when_present() {
        match compile("extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }", "k.cu", 80)
        {
            Ok(ptx) => {
                assert!(ptx.contains(".entry k"), "{ptx}");
                assert!(ptx.contains(".target sm_80"));
            }
            Err(NvrtcError::NotFound(why)) => skip(&why),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn compile_errors_carry_the_log() {
        match compile("this is not C++", "bad.cu", 80) {
            Err(NvrtcError::Compile(log)) => assert!(log.contains("bad.cu"), "{log}"),
            Err(NvrtcError::NotFound(why)) => skip(&why),
            Ok(_) => panic!("NVRTC accepted garbage"),
        }
    }

    #[test]
    fn every_cuda_equivalent_compiles_and_assembles() {
        for pair in crate::kernels::PAIRS {
            let src = crate::kernels::cuda_source(pair).expect("cuda source");
            for sm in [80, 90] {
                let ptx = match compile(&src, pair.cuda_file, sm) {
                    Ok(p) => p,
                    Err(NvrtcError::NotFound(why)) => return skip(&why),
                    Err(e) => panic!("{} sm_{sm}: {e}", pair.cuda_file),
                };
                assert!(
                    ptx.contains(&format!(".entry {}(", pair.cuda_entry)),
                    "{}",
                    pair.cuda_file
                );
                match dianran_verify::ptxas::check(&ptx, sm) {
                    Ok(stats) => assert!(stats.iter().any(|s| s.kernel == pair.cuda_entry)),
                    Err(dianran_verify::ptxas::PtxasError::NotFound) => {
                        dianran_verify::tools::require_that(false, "ptxas not found");
                    }
                    Err(e) => panic!("{} sm_{sm}: {e}", pair.cuda_file),
                }
            }
        }
    }
}
