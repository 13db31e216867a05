//! Real-world WGSL compute kernels the team did not write (`tests/realworld/`, each file's
//! header names its repository, path, commit and license) through every stage: the frontend,
//! the WGSL printer (re-validated by naga), the MSL printer, PTX code generation (assembled by
//! `ptxas` for sm_80 and sm_90 when available), and executor agreement on seeded inputs: the PTX
//! emulator, lavapipe running the input WGSL and lavapipe running the printed WGSL are each
//! compared with the reference interpreter, as in `verify/tests/agreement.rs`.
//!
//! Besides the provenance, a file's header holds its test set-up:
//! - `// dispatch: X,Y,Z` workgroups per dimension (read by [`samples::header`]);
//! - `// runtime-len: N` elements per runtime-sized array (default [`RUNTIME_LEN`]);
//! - `// buffer G,B: u:16 f:0.5 ...` words written at the start of binding (G, B) after the
//!   random fill, for kernels whose sizes come from a uniform or storage buffer;
//! - `// texture: G:B=WxH[xD]:FORMAT[:LEVELS]` and `// sampler: G:B=ADDRESS,FILTER[,COMPARE]`
//!   for entries that use textures, as `dianran verify` reads them (random texels from
//!   [`SEED`]);
//! - `// racy:`/`// racy(ENTRY):` and `// unordered: G:B` for results that depend on
//!   scheduling ([`samples`]): a racy entry's difference is reported, not failed.
//!
//! Entries that use textures run with those textures bound on the interpreter, the PTX
//! emulator and lavapipe (input and printed WGSL), as `dianran verify` runs them
//! ([`dianran::verify::textured`]); their buffers and storage textures are compared with the
//! interpreter's.
//!
//! Executors are run and compared by the agreement engine (`dianran::verify::engine`).
//! Failures that are understood are listed in [`KNOWN`] with their cause, so they stay
//! visible while the test passes; a listed failure that no longer happens is reported.

use dianran::frontend::ir::{self, Stage};
use dianran::verify::agree::random_buffers;
use dianran::verify::buffers::Buffers;
use dianran::verify::engine::{self, Kind};
use dianran::verify::executors::{Executor, Job};
use dianran::verify::samples;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// Elements per runtime-sized array unless a file says otherwise (as in `agreement.rs`).
const RUNTIME_LEN: u32 = 16384;
/// Seed of the random buffer contents.
const SEED: u64 = 0x5EED;
/// Time limit of each run and comparison: far more than any kernel here needs.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Why the `llvm` stage fails for kernels with textures.
const TEXTURES_LLVM: &str =
    "the LLVM backend reports textures as unsupported (docs/textures.md): a diagnostic per entry";
/// Why the `llvm-emu` stage fails for kernels with textures.
const TEXTURES_LLVM_EMU: &str =
    "no LLVM PTX for entries with textures (see the llvm stage), and the llvm-emu executor \
     binds no textures";

/// Understood failures: (`file` or `file/entry`, stage, cause). Stages: `frontend`, `wgsl`,
/// `wgsl-validate`, `msl`, `ptx`, `ptxas`, `interp`, `emu`, `lavapipe`, `lavapipe-out`, and with
/// the `llvm` feature `llvm`, `llvm-ptxas`, `llvm-emu`.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "brush_sort_count",
        "frontend",
        "the kernel as published is invalid WGSL (direct load and store of a workgroup \
         atomic<u32>; older naga accepted it): the diagnostic is correct, and \
         brush_sort_count_atomics.wgsl runs the fixed kernel",
    ),
    (
        "naga_immediates_layout",
        "llvm",
        "the LLVM backend does not build the by-value p_immediates parameter \
         (docs/immediates.md): a diagnostic for each entry",
    ),
    ("naga_f64", "msl", "Metal has no double: the diagnostic names the function"),
    (
        "naga_atomic_ops_int64",
        "msl",
        "Metal's 64-bit atomics are only atomic_ulong min/max (Metal 3.1); the printer \
         reports a diagnostic",
    ),
    ("naga_f64", "llvm", "the LLVM backend reports 64-bit types as unsupported"),
    ("naga_int64_div", "llvm", "the LLVM backend reports 64-bit types as unsupported"),
    ("naga_atomic_ops_int64", "llvm", "the LLVM backend reports 64-bit types as unsupported"),
    // Textures: the LLVM backend reports them as unsupported (docs/textures.md), and the
    // llvm-emu executor binds no textures.
    ("kmeans_gpu_find_centroid", "llvm", TEXTURES_LLVM),
    ("kmeans_gpu_find_centroid", "llvm-emu", TEXTURES_LLVM_EMU),
    ("kmeans_gpu_rgb_to_lab", "llvm", TEXTURES_LLVM),
    ("kmeans_gpu_rgb_to_lab", "llvm-emu", TEXTURES_LLVM_EMU),
    ("mcu_wu_build_histogram", "llvm", TEXTURES_LLVM),
    ("mcu_wu_build_histogram", "llvm-emu", TEXTURES_LLVM_EMU),
    ("webgpu_samples_cornell_tonemapper", "llvm", TEXTURES_LLVM),
    ("webgpu_samples_cornell_tonemapper", "llvm-emu", TEXTURES_LLVM_EMU),
    ("webgpu_samples_image_blur", "llvm", TEXTURES_LLVM),
    ("webgpu_samples_image_blur", "llvm-emu", TEXTURES_LLVM_EMU),
    ("webgpu_samples_probability_map", "llvm", TEXTURES_LLVM),
    ("webgpu_samples_probability_map", "llvm-emu", TEXTURES_LLVM_EMU),
    ("wgpu_storage_texture", "llvm", TEXTURES_LLVM),
    ("wgpu_storage_texture", "llvm-emu", TEXTURES_LLVM_EMU),
];

/// One kernel file and its set-up.
struct Kernel {
    name: String,
    source: String,
    dispatch: [u32; 3],
    /// The header: `runtime_len` and the buffer presets are read from it.
    header: samples::SampleHeader,
}

fn kernels() -> Vec<Kernel> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/realworld");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/realworld exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 8, "expected the real-world kernels in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let source = std::fs::read_to_string(&p).expect("readable kernel");
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let header = samples::header(&source).unwrap_or_else(|e| panic!("{name}: {e}"));
            Kernel { name, source, dispatch: header.dispatch.unwrap_or([1, 1, 1]), header }
        })
        .collect()
}

/// Runs `f`, turning a panic into an error that says so.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        format!("PANIC: {why}")
    })
}

/// Collects problems, separating the ones [`KNOWN`] explains.
#[derive(Default)]
struct Outcome {
    failures: Vec<String>,
    known_seen: Vec<(String, String)>,
    report: Vec<String>,
}

impl Outcome {
    fn fail(&mut self, key: &str, stage: &str, text: impl AsRef<str>) {
        let file = key.split('/').next().unwrap_or(key);
        let known = KNOWN.iter().find(|(k, s, _)| (*k == key || *k == file) && *s == stage);
        match known {
            Some((k, s, why)) => {
                self.report.push(format!("KNOWN {key} [{stage}]: {why}\n    {}", text.as_ref()));
                self.known_seen.push((k.to_string(), s.to_string()));
            }
            None => self.failures.push(format!("{key} [{stage}]: {}", text.as_ref())),
        }
    }
}

fn buffers_for(k: &Kernel, m: &ir::Module, entry: &str) -> Result<Buffers, String> {
    let len = k.header.runtime_len.unwrap_or(RUNTIME_LEN);
    let mut bufs = random_buffers(m, entry, len, SEED).map_err(|d| d.message)?;
    k.header.apply_presets(&mut bufs)?;
    Ok(bufs)
}

/// Static stages: WGSL (and its re-validation), MSL, PTX and ptxas.
fn check_outputs(k: &Kernel, m: &ir::Module, out: &mut Outcome, ptxas: bool) {
    let opts = dianran::wgsl::Options { omit_subgroups_enable: true, ..Default::default() };
    match guarded(|| dianran::wgsl::write_module(m, &opts)) {
        Err(p) => out.fail(&k.name, "wgsl", p),
        Ok(Err(list)) => {
            let text: Vec<String> = list.iter().map(|d| d.message.clone()).collect();
            out.fail(&k.name, "wgsl", text.join("; "))
        }
        Ok(Ok(text)) => {
            // `frontend::parse` is naga's `parse_str` plus a `Validator` with exactly the
            // capabilities SHADER_FLOAT16 | SHADER_FLOAT16_IN_FLOAT32 | FLOAT64 |
            // SHADER_INT64 | SHADER_INT64_ATOMIC_MIN_MAX | SHADER_INT64_ATOMIC_ALL_OPS |
            // SUBGROUP | SUBGROUP_BARRIER | COOPERATIVE_MATRIX | SHADER_FLOAT32_ATOMIC |
            // IMMEDIATES (the root package has no direct naga dependency).
            match guarded(|| dianran::frontend::parse(&k.name, &text, &Default::default())) {
                Err(p) => out.fail(&k.name, "wgsl-validate", p),
                Ok(Err(d)) => out.fail(&k.name, "wgsl-validate", format!("{}\n{text}", d.render())),
                Ok(Ok(_)) => {}
            }
        }
    }
    match guarded(|| dianran::msl::write_module(m)) {
        Err(p) => out.fail(&k.name, "msl", p),
        Ok(msl) => {
            for d in &msl.errors {
                let key = match &d.context {
                    Some(c) => format!("{}/{c}", k.name),
                    None => k.name.clone(),
                };
                out.fail(&key, "msl", &d.message);
            }
        }
    }
    match guarded(|| dianran::ptx::codegen::compile_module(m, &Default::default())) {
        Err(p) => out.fail(&k.name, "ptx", p),
        Ok(ptx) => {
            for d in &ptx.diagnostics {
                let key = match &d.context {
                    Some(c) => format!("{}/{c}", k.name),
                    None => k.name.clone(),
                };
                out.fail(&key, "ptx", &d.message);
            }
            if ptxas && !ptx.entries.is_empty() {
                for sm in [80, 90] {
                    let text = if sm == 80 {
                        ptx.text.clone()
                    } else {
                        let opts = dianran::ptx::codegen::Options { sm, ..Default::default() };
                        dianran::ptx::codegen::compile_module(m, &opts).text
                    };
                    match dianran::verify::ptxas::check(&text, sm) {
                        Ok(_) => {
                            out.report.push(format!("{}: ptxas sm_{sm} accepts the PTX", k.name))
                        }
                        Err(e) => out.fail(&k.name, "ptxas", format!("sm_{sm}: {e}")),
                    }
                }
            }
        }
    }
}

/// The LLVM backend (with the `llvm` feature): every entry compiles, and ptxas accepts the PTX
/// for sm_80 and sm_90.
#[cfg(feature = "llvm")]
fn check_llvm(k: &Kernel, m: &ir::Module, out: &mut Outcome, ptxas: bool) {
    for sm in [80, 90] {
        let opts = dianran::llvm::Options { sm, ..Default::default() };
        match guarded(|| dianran::llvm::compile_module(m, &opts)) {
            Err(p) => out.fail(&k.name, "llvm", p),
            Ok(c) => {
                for d in &c.diagnostics {
                    let key = match &d.context {
                        Some(c) => format!("{}/{c}", k.name),
                        None => k.name.clone(),
                    };
                    out.fail(&key, "llvm", &d.message);
                }
                if ptxas && !c.entries.is_empty() {
                    match dianran::verify::ptxas::check(&c.text, sm) {
                        Ok(_) => {
                            out.report.push(format!("{}: ptxas sm_{sm} accepts LLVM's PTX", k.name))
                        }
                        Err(e) => out.fail(&k.name, "llvm-ptxas", format!("sm_{sm}: {e}")),
                    }
                }
            }
        }
    }
}

#[cfg(not(feature = "llvm"))]
fn check_llvm(_: &Kernel, _: &ir::Module, _: &mut Outcome, _: bool) {}

/// Executor agreement for one entry, by the agreement engine (as `dianran verify` runs it):
/// entries that use textures run with the header's textures and samplers bound (random texels
/// from [`SEED`]). Racy entries (a `// racy:` header line), skips and third-party crashes are
/// reported; the rest goes through [`Outcome::fail`] and its [`KNOWN`] list.
fn check_entry(k: &Kernel, m: &ir::Module, entry: &str, lavapipe: bool, out: &mut Outcome) {
    let key = format!("{}/{entry}", k.name);
    let input = match buffers_for(k, m, entry) {
        Ok(b) => b,
        Err(e) => return out.fail(&key, "interp", e),
    };
    let job = Job::new(&k.name, &k.source, m, entry, k.dispatch);
    let textured = dianran::verify::textured::uses_textures(m, entry);
    let textures = if textured {
        match dianran::cli::run::described_textures(&k.source, m, entry, &[], &[], SEED) {
            Ok(t) => t,
            Err(d) => return out.fail(&key, "interp", format!("texture set-up: {}", d.message)),
        }
    } else {
        Default::default()
    };
    let mut executors = vec![Executor::Emu];
    if cfg!(feature = "llvm") {
        executors.push(Executor::LlvmEmu);
    }
    if lavapipe {
        executors.extend([Executor::Lavapipe, Executor::LavapipeOut]);
    }
    let header = samples::header(&k.source).unwrap_or_default();
    let opts = engine::Options {
        textures,
        nondeterminism: header.nondeterminism(entry),
        ..engine::Options::new(executors, TIMEOUT)
    };
    for v in engine::check(&job, &input, &opts).verdicts {
        let (name, detail) = (v.executor.name(), &v.detail);
        match v.kind {
            Kind::Agree => out.report.push(format!("{key}: {name} agrees")),
            Kind::Note => out.report.push(format!("{key}: {name} agrees ({detail})")),
            Kind::Racy => out
                .report
                .push(format!("{key}: {name} differs from interp, as this kernel may: {detail}")),
            // An out-of-bounds access driven by the inputs is a property of the kernel.
            Kind::NoReference if !detail.contains("panicked") => {
                out.report.push(format!("{key}: interp on these inputs: {detail}"))
            }
            // Textured entries list their skips in KNOWN (the LLVM executor binds no textures).
            Kind::Skipped | Kind::NotApplicable | Kind::ThirdPartyCrash if !textured => {
                out.report.push(format!("{key}: {name} {}: {detail}", v.kind.label()))
            }
            Kind::Disagree => out.fail(&key, name, format!("DISAGREES with interp: {detail}")),
            _ => out.fail(&key, name, format!("{}: {detail}", v.kind.label())),
        }
    }
}

#[test]
fn realworld_kernels_pass_every_stage() {
    dianran::verify::lavapipe::quiet_mesa_warnings();
    let ptxas = dianran::verify::tools::require("ptxas", dianran::verify::tools::ptxas()).is_some();
    let lavapipe = dianran::verify::tools::require_that(
        dianran::verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    let mut out = Outcome::default();
    for k in kernels() {
        let compiled =
            guarded(|| dianran::frontend::compile(&k.name, &k.source, &Default::default()));
        let module = match compiled {
            Err(p) => {
                out.fail(&k.name, "frontend", p);
                continue;
            }
            Ok(Err(d)) => {
                out.fail(&k.name, "frontend", d.render());
                continue;
            }
            Ok(Ok(m)) => m,
        };
        check_outputs(&k, &module, &mut out, ptxas);
        check_llvm(&k, &module, &mut out, ptxas);
        let entries: Vec<String> = module
            .entry_points
            .iter()
            .filter(|e| e.stage == Stage::Compute)
            .map(|e| e.name.clone())
            .collect();
        assert!(!entries.is_empty(), "{}: no compute entry", k.name);
        for entry in &entries {
            check_entry(&k, &module, entry, lavapipe, &mut out);
        }
    }
    for r in &out.report {
        println!("{r}");
    }
    for (key, stage, why) in KNOWN {
        if !out.known_seen.iter().any(|(k, s)| k == key && s == stage) {
            println!("KNOWN entry no longer fails, remove it: {key} [{stage}] ({why})");
        }
    }
    assert!(
        out.failures.is_empty(),
        "{} problems:\n{}",
        out.failures.len(),
        out.failures.join("\n")
    );
}
