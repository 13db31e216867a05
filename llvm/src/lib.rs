//! A second PTX backend: dianran's structured SSA through LLVM's NVPTX target (with
//! [`inkwell`], LLVM 19).
//!
//! The same module our own code generator ([`dianran_ptx::codegen`]) compiles is lowered to LLVM
//! IR (`lower`, `arith`, `math`, `subgroup`, `coop`), optimized with LLVM's `default<O3>`
//! pipeline and printed as PTX by the NVPTX target machine. It exists to check our generator
//! against an independent compiler (the `llvm-emu`/`llvm-cuda` executors of `dianran verify`)
//! and to measure it against the code the projects users would otherwise pick (Triton, Julia,
//! rust-cuda) get from LLVM.
//!
//! The launch convention is the same as our backend's, so the same host code launches either:
//! entries and parameters come from [`dianran_ptx::abi::plan_entry`] (`p_g<G>_b<B>`,
//! placeholders, `p_sizes`), entry names from [`dianran_ptx::names`], `.reqntid` from
//! `@workgroup_size` (`nvvm.annotations`), and the text is ASCII.
//!
//! Math builtins call CUDA's libdevice (`__nv_sinf`, `__nv_powf`, ...), linked from
//! `libdevice.10.bc` ([`libdevice_path`]), the library NVCC and NVRTC use: LLVM has no PTX
//! implementation of its own for them. Integer semantics (division by zero, shift masking,
//! saturating float-to-int conversion) are spelled out in IR, as WGSL defines them.
//!
//! Not supported (each is a [`Diagnostic`], never a panic): what our backend does not support
//! either (textures, non-compute entries), `--fast-math` and `--tf32` (there are no such
//! options here), and therefore 16x16 f32 cooperative-matrix products (8x8 f32 ones are computed
//! exactly on the FMA units, as in our backend). See `docs/llvm.md`.

// Every lowering step returns `Result<_, Diagnostic>`; the diagnostic is large but rare.
#![allow(clippy::result_large_err)]

mod arith;
mod coop;
mod lower;
mod math;
mod subgroup;

use dianran_frontend::ir::{self, AddressSpace, GlobalId, Stage};
use dianran_frontend::{DiagKind, Diagnostic};
use dianran_ptx::abi::EntryInfo;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple,
};
use inkwell::OptimizationLevel;
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options of the LLVM backend.
#[derive(Clone, Debug)]
pub struct Options {
    /// Target architecture: 80 (`sm_80`, the default) or 90.
    pub sm: u32,
    /// libdevice bitcode to link for math builtins; `None` looks for it ([`libdevice_path`]).
    pub libdevice: Option<PathBuf>,
    /// Run LLVM's `default<O3>` pipeline (the default). Off: `default<O0>`, for debugging.
    pub optimize: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { sm: 80, libdevice: None, optimize: true }
    }
}

/// The result of compiling a module through LLVM.
#[derive(Clone, Debug)]
pub struct CompiledLlvm {
    /// PTX text (ASCII) with every entry that compiled; empty when none did.
    pub text: String,
    /// The LLVM IR that was handed to the optimizer (before libdevice was linked), for
    /// `dianran llvm-ir` and tests.
    pub ir: String,
    /// Compiled compute entries, in source order, with the same names and parameters our
    /// backend gives them.
    pub entries: Vec<EntryInfo>,
    /// One error per entry that could not be compiled (the rest still are), or one for the
    /// whole module when LLVM failed.
    pub diagnostics: Vec<Diagnostic>,
    /// Where the time went.
    pub times: LlvmTimes,
}

/// Time spent in each step of [`compile_module`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LlvmTimes {
    /// Inlining, planning and building LLVM IR.
    pub lower: Duration,
    /// Linking libdevice and LLVM's optimization pipeline.
    pub optimize: Duration,
    /// The NVPTX target machine (instruction selection, register allocation, printing).
    pub codegen: Duration,
}

/// Environment variable naming the libdevice bitcode file.
pub const LIBDEVICE_ENV: &str = "DIANRAN_LIBDEVICE";

/// Where `libdevice.10.bc` is: `$DIANRAN_LIBDEVICE`, then the PyPI `nvidia-cuda-nvcc` wheel in
/// the repository's `.tools/venv` (what `tools/setup.sh` installs), then `$CUDA_HOME` and
/// `/usr/local/cuda` (`nvvm/libdevice/`).
pub fn libdevice_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(LIBDEVICE_ENV) {
        return Some(PathBuf::from(p));
    }
    let rel = Path::new("nvvm").join("libdevice").join("libdevice.10.bc");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(".tools").join("venv");
    if let Ok(lib) = std::fs::read_dir(repo.join("lib")) {
        for py in lib.flatten() {
            let p = py.path().join("site-packages").join("nvidia").join("cuda_nvcc").join(&rel);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let homes = std::env::var_os("CUDA_HOME").map(PathBuf::from).into_iter();
    homes.chain([PathBuf::from("/usr/local/cuda")]).map(|h| h.join(&rel)).find(|p| p.is_file())
}

/// The version of LLVM this backend is built with (`"19.1"`).
pub fn llvm_version() -> String {
    let (major, minor, _) = inkwell::support::get_llvm_version();
    format!("{major}.{minor}")
}

fn init_nvptx() {
    static INIT: std::sync::Once = std::sync::Once::new();
    INIT.call_once(|| Target::initialize_nvptx(&InitializationConfig::default()));
}

fn llvm_error(what: &str, e: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(DiagKind::Internal, format!("LLVM backend: {what}: {e}"))
        .help("this is a bug in dianran's LLVM backend; please report it with the input file")
}

/// Whether entry `ep` may touch a 64-bit scalar: a value of its function, or of a helper
/// function (any function that is not an entry point, since calls are inlined later), of a
/// type with `i64`/`u64`/`f64` components, or a global of such a type.
fn uses_64bit(m: &ir::Module, ep: &ir::EntryPoint) -> bool {
    fn wide(types: &ir::Types, t: ir::TypeId, depth: u32) -> bool {
        use ir::Type as T;
        depth < 64
            && match types.get(t) {
                T::Scalar(s) | T::Atomic(s) => s.is_64(),
                T::Vector { scalar, .. } | T::Matrix { scalar, .. } => scalar.is_64(),
                T::Array { base, .. } | T::Pointer { base, .. } => wide(types, *base, depth + 1),
                T::Struct { members, .. } => members.iter().any(|mb| wide(types, mb.ty, depth + 1)),
                _ => false,
            }
    }
    let entries: Vec<ir::FuncId> = m.entry_points.iter().map(|e| e.function).collect();
    let fns = m.functions.iter().enumerate().filter(|(i, _)| {
        let id = ir::FuncId(*i as u32);
        id == ep.function || !entries.contains(&id)
    });
    fns.flat_map(|(_, f)| f.values.iter().map(|v| v.ty))
        .chain(m.globals.iter().map(|g| g.ty))
        .any(|t| wide(&m.types, t, 0))
}

/// Compiles every compute entry point of `m` through LLVM to PTX.
pub fn compile_module(m: &ir::Module, opts: &Options) -> CompiledLlvm {
    let sm = if opts.sm >= 90 { 90 } else { 80 };
    let mut out = CompiledLlvm {
        text: String::new(),
        ir: String::new(),
        entries: Vec::new(),
        diagnostics: Vec::new(),
        times: LlvmTimes::default(),
    };
    let start = Instant::now();
    init_nvptx();
    let context = Context::create();
    let module = context.create_module("dianran");
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let tm = match Target::from_triple(&triple).map_err(|e| e.to_string()).and_then(|t| {
        t.create_target_machine(
            &triple,
            &format!("sm_{sm}"),
            "+ptx80",
            if opts.optimize { OptimizationLevel::Aggressive } else { OptimizationLevel::None },
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| "no NVPTX target machine".to_string())
    }) {
        Ok(tm) => tm,
        Err(e) => {
            out.diagnostics.push(llvm_error("creating the NVPTX target machine", e));
            return out;
        }
    };
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());

    // Names: entries and workgroup variables share the module scope (as in our backend).
    let mut taken: HashMap<String, String> = HashMap::default();
    let mut shared_names: HashMap<GlobalId, String> = HashMap::default();
    for (i, g) in m.globals.iter().enumerate() {
        if g.space == AddressSpace::Workgroup {
            let n = dianran_ptx::names::workgroup_var_name(&g.name);
            taken.insert(n.clone(), g.name.clone());
            shared_names.insert(GlobalId(i as u32), n);
        }
    }
    let mut shared_globals = lower::SharedGlobals::default();
    let mut renames = Vec::new();
    for ep in &m.entry_points {
        if ep.stage != Stage::Compute {
            continue;
        }
        let ptx_name = dianran_ptx::names::entry_name(&ep.name);
        if let Some(prev) = taken.get(&ptx_name) {
            out.diagnostics.push(
                Diagnostic::error(
                    DiagKind::NameCollision,
                    format!("'{}' and '{}' both map to the PTX name '{}'", prev, ep.name, ptx_name),
                )
                .in_fn(ep.name.clone())
                .help("rename one of them"),
            );
            continue;
        }
        taken.insert(ptx_name.clone(), ep.name.clone());
        let plan = match dianran_ptx::abi::plan_entry(m, ep) {
            Ok(p) => p,
            Err(d) => {
                out.diagnostics.push(d);
                continue;
            }
        };
        if uses_64bit(m, ep) {
            out.diagnostics.push(lower::unsupported(
                "64-bit types (i64, u64, f64)",
                &ep.name,
                m.functions.get(ep.function.index()).map_or_else(Default::default, |f| f.span),
            ));
            continue;
        }
        let params = plan.all_params();
        let env = lower::Env {
            context: &context,
            module: &module,
            shared_names: &shared_names,
            shared_globals: &mut shared_globals,
        };
        match lower::lower_entry(env, m, ep, &plan, &ptx_name) {
            Ok(()) => {
                renames.push((ptx_name.clone(), params.clone()));
                out.entries.push(EntryInfo {
                    name: ep.name.clone(),
                    stage: ep.stage,
                    workgroup_size: ep.workgroup_size,
                    ptx_name,
                    params,
                    flags: plan.flags,
                });
            }
            Err(d) => {
                // Drop the half-built function so the module still verifies.
                if let Some(f) = module.get_function(&ptx_name) {
                    // SAFETY: nothing else refers to a function that failed to lower.
                    unsafe { f.delete() };
                }
                out.diagnostics.push(d);
            }
        }
    }
    if out.entries.is_empty() {
        out.times.lower = start.elapsed();
        return out;
    }
    out.ir = module.print_to_string().to_string();
    if let Err(e) = module.verify() {
        out.diagnostics.push(llvm_error("the generated LLVM IR does not verify", e.to_string()));
        out.entries.clear();
        return out;
    }
    out.times.lower = start.elapsed();

    let start = Instant::now();
    if module_calls_libdevice(&module) {
        let path = opts.libdevice.clone().or_else(libdevice_path);
        let Some(path) = path else {
            out.diagnostics.push(
                Diagnostic::error(
                    DiagKind::Unsupported,
                    "the LLVM backend needs CUDA's libdevice.10.bc for math builtins, and it was \
                     not found",
                )
                .help(format!(
                    "run tools/setup.sh (it installs the nvidia-cuda-nvcc wheel), or set {} to \
                     the file",
                    LIBDEVICE_ENV
                )),
            );
            out.entries.clear();
            return out;
        };
        if let Err(d) = link_libdevice(&context, &module, &path, &tm) {
            out.diagnostics.push(d);
            out.entries.clear();
            return out;
        }
    }
    let pipeline = if opts.optimize { "default<O3>" } else { "default<O0>" };
    if let Err(e) = module.run_passes(pipeline, &tm, PassBuilderOptions::create()) {
        out.diagnostics.push(llvm_error("the optimization pipeline failed", e.to_string()));
        out.entries.clear();
        return out;
    }
    out.times.optimize = start.elapsed();

    let start = Instant::now();
    let buf = match tm.write_to_memory_buffer(&module, FileType::Assembly) {
        Ok(b) => b,
        Err(e) => {
            out.diagnostics.push(llvm_error("the NVPTX backend failed", e.to_string()));
            out.entries.clear();
            return out;
        }
    };
    let text = String::from_utf8_lossy(buf.as_slice()).into_owned();
    out.text = finish_text(&text, &renames);
    out.times.codegen = start.elapsed();
    if !out.text.is_ascii() {
        out.diagnostics.push(llvm_error("the PTX is not ASCII", "non-ASCII byte"));
        out.entries.clear();
        out.text.clear();
    }
    out
}

/// Whether the module declares a libdevice function (`__nv_*`).
fn module_calls_libdevice(module: &Module<'_>) -> bool {
    module
        .get_functions()
        .any(|f| f.count_basic_blocks() == 0 && f.get_name().to_bytes().starts_with(b"__nv_"))
}

/// Links libdevice into `module`. Its functions become internal so the optimizer inlines the
/// used ones and drops the rest; `nvvm-reflect-ftz = 0` selects its denormal-preserving paths
/// (WGSL does not flush f32 denormals on PTX, and neither does our backend).
fn link_libdevice<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    path: &Path,
    tm: &inkwell::targets::TargetMachine,
) -> Result<(), Diagnostic> {
    let bytes = libdevice_bytes(path)?;
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range(bytes, "libdevice");
    let lib = Module::parse_bitcode_from_buffer(&buf, context)
        .map_err(|e| llvm_error(&format!("reading {}", path.display()), e.to_string()))?;
    // libdevice carries its own (older) triple and data layout; ours win.
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    // Only what the kernel calls (and what that calls) is worth linking and optimizing: the
    // rest of libdevice's ~500 functions would cost the optimizer about 100 ms. Everything but
    // the called functions becomes internal, and `globaldce` drops what nothing reaches.
    let wanted: Vec<Vec<u8>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .map(|f| f.get_name().to_bytes().to_vec())
        .collect();
    for f in lib.get_functions() {
        if f.count_basic_blocks() > 0 && !wanted.iter().any(|w| w == f.get_name().to_bytes()) {
            f.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
    lib.run_passes("globaldce", tm, PassBuilderOptions::create())
        .map_err(|e| llvm_error("trimming libdevice", e.to_string()))?;
    let i32t = context.i32_type();
    module.add_basic_value_flag(
        "nvvm-reflect-ftz",
        inkwell::module::FlagBehavior::Override,
        i32t.const_zero(),
    );
    module.link_in_module(lib).map_err(|e| llvm_error("linking libdevice", e.to_string()))?;
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 && f.get_name().to_bytes().starts_with(b"__nv_") {
            f.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
    Ok(())
}

/// The bytes of the libdevice file at `path`, read once per process (it is about 470 KB and
/// every kernel with a math builtin links it).
fn libdevice_bytes(path: &Path) -> Result<&'static [u8], Diagnostic> {
    static CACHE: std::sync::Mutex<Vec<(PathBuf, &'static [u8])>> =
        std::sync::Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, b)) = cache.iter().find(|(p, _)| p == path) {
        return Ok(b);
    }
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::error(
            DiagKind::Unsupported,
            format!("cannot read libdevice at {}: {e}", path.display()),
        )
        .help(format!("set {LIBDEVICE_ENV} to CUDA's libdevice.10.bc, or run tools/setup.sh"))
    })?;
    // Leaked once per distinct path: the cache lives as long as the process anyway.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    cache.push((path.to_path_buf(), bytes));
    Ok(bytes)
}

/// LLVM's PTX with our conventions: the parameters LLVM calls `<entry>_param_<i>` get the
/// names our backend gives them, and a header line says where the file came from.
fn finish_text(text: &str, renames: &[(String, Vec<String>)]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str("//\n// Generated by dianran (LLVM ");
    out.push_str(&llvm_version());
    out.push_str(" NVPTX backend)\n//\n");
    let prefixes: Vec<(String, &[String])> =
        renames.iter().map(|(entry, params)| (format!("{entry}_param_"), &params[..])).collect();
    for line in text.lines() {
        if line.starts_with("// Generated by LLVM NVPTX Back-End") {
            continue;
        }
        let mut line = line.to_string();
        for (prefix, params) in &prefixes {
            if line.contains(prefix.as_str()) {
                line = rename_params(&line, prefix, params);
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Replaces every `<prefix><i>` token in `line` with `params[i]`.
fn rename_params(line: &str, prefix: &str, params: &[String]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(prefix) {
        // A longer identifier that merely ends in the prefix is not a parameter.
        let before = rest[..at].chars().next_back();
        let starts_token =
            before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'));
        let after = &rest[at + prefix.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let index = after[..digits].parse::<usize>().ok();
        out.push_str(&rest[..at]);
        match (starts_token, index.and_then(|i| params.get(i))) {
            (true, Some(name)) => out.push_str(name),
            _ => out.push_str(&rest[at..at + prefix.len() + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
