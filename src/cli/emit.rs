//! `dianran wgsl`, `dianran msl` and `dianran ptx`: print a target's text.
//!
//! Each prints the text to stdout (or `-o OUT`). An entry point the target cannot express is a
//! diagnostic for that target and entry only: the other entries still print, the diagnostics
//! go to stderr, and the exit status is 1.

use super::input::{Source, SourceArgs};
use super::Failure;
use dianran_frontend::ir::{Module, Stage};
use dianran_frontend::{Diagnostic, Diagnostics};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `wgsl`.
#[derive(Clone, Debug, clap::Args)]
pub struct WgslArgs {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Leave out `enable subgroups;` (naga and wgpu reject it; Tint and Chrome want it).
    #[arg(long)]
    pub naga: bool,
    /// Print subgroup and cooperative matrices as plain WGSL (arrays and loops) that any
    /// WGSL implementation runs, and workgroup matrices as their portable form.
    #[arg(long)]
    pub portable: bool,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', value_name = "OUT")]
    pub out: Option<PathBuf>,
}

/// Arguments of `msl`.
#[derive(Clone, Debug, clap::Args)]
pub struct MslArgs {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Call `metal::fast::` f32 math and plain `/` instead of `metal::precise::`.
    #[arg(long)]
    pub fast_math: bool,
    /// Print workgroup matrices on `simdgroup_matrix` 8x8 pieces (GPUs without Metal 4)
    /// instead of Metal 4's `matmul2d` tensor operation (MSL 4.0, `MTLGPUFamilyMetal4`).
    #[arg(long)]
    pub no_metal4: bool,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', value_name = "OUT")]
    pub out: Option<PathBuf>,
}

/// Arguments of `ptx`.
#[derive(Clone, Debug, clap::Args)]
pub struct PtxArgs {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Target architecture: 80 (sm_80, the default), 90 (sm_90) or 90a (sm_90a: Hopper's
    /// `wgmma` for workgroup matrices).
    #[arg(long, default_value_t = 80, value_parser = crate::cli::generate::parse_sm)]
    pub sm: u32,
    /// Compile f32 x f32 cooperative-matrix products on TF32 tensor cores (inputs rounded to
    /// a 10-bit mantissa, f32 accumulation). Without it 16x16 ones are a diagnostic and 8x8
    /// ones are computed exactly on the FMA units.
    #[arg(long)]
    pub tf32: bool,
    /// Lower math builtins to PTX's approximate instructions (`ex2.approx`, `sin.approx`,
    /// ...) and f32 division to `div.full` (2 ulp): faster, with the hardware's bounds; `pow`
    /// of a negative base is NaN. Without it math is precise (CUDA-library accuracy, see
    /// docs/math.md).
    #[arg(long)]
    pub fast_math: bool,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// The code generator: `dianran` (ours, the default) or `llvm` (LLVM 19's NVPTX backend,
    /// math through CUDA's libdevice; needs the `llvm` cargo feature). Same entry names,
    /// parameters and `.reqntid`, so the same host code launches either.
    #[arg(long, value_enum, default_value_t = Backend::Dianran)]
    pub backend: Backend,
    /// Also assemble with ptxas and print, from the cubin (read with the `object` crate), each
    /// kernel's registers, shared memory, system-reserved shared memory, stack frame (local
    /// arrays and spills) and code size to stderr
    /// (`KERNEL<TAB>REGISTERS<TAB>SHARED_BYTES<TAB>RESERVED_SHARED_BYTES<TAB>STACK_BYTES<TAB>CODE_BYTES`).
    #[arg(long)]
    pub stats: bool,
    /// Also assemble with ptxas, disassemble the cubin with nvdisasm and print the SASS
    /// instruction mix to stderr: per kernel, then per innermost loop and for the main loop
    /// (the loop with tensor-core ops holding no other such loop), the counts of tensor-core
    /// ops, LDSM, LDS/STS/LDG/STG by width, local and atomic accesses, integer/address,
    /// float, conversion, branch, barrier and other instructions, and instructions per
    /// tensor-core op (tab-separated, columns in `dianran_verify::sass::HEADER`).
    #[arg(long)]
    pub sass: bool,
    /// With `--sass`: only this entry point (its WGSL name or its PTX name).
    #[arg(long, value_name = "E", requires = "sass")]
    pub entry: Option<String>,
}

/// `dianran ptx --backend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// dianran's own code generator.
    Dianran,
    /// LLVM's NVPTX backend (the `llvm` cargo feature).
    Llvm,
}

/// Writes `text` to `out` (returning nothing for stdout) or returns it for stdout.
fn deliver(text: String, out: &Option<PathBuf>) -> Result<String, Failure> {
    match out {
        Some(path) => {
            std::fs::write(path, text)
                .map_err(|e| Failure::Message(format!("cannot write '{}': {e}", path.display())))?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}

/// Prints per-entry target diagnostics to stderr; returns whether there were any.
fn report(src: &Source, diags: Vec<Diagnostic>) -> bool {
    if diags.is_empty() {
        return false;
    }
    let rendered = Diagnostics::new(&src.name, &src.text, diags).render();
    let _ = std::io::stderr().lock().write_all(rendered.as_bytes());
    true
}

/// Runs `dianran wgsl`.
pub fn wgsl(args: &WgslArgs) -> Result<String, Failure> {
    let (src, module) = args.source.compile()?;
    let opts = dianran_wgsl::Options {
        omit_subgroups_enable: args.naga,
        portable_matrices: args.portable,
    };
    match dianran_wgsl::write_module(&module, &opts) {
        Ok(text) => deliver(text, &args.out),
        Err(diags) => Err(Failure::Diagnostics(Diagnostics::new(&src.name, &src.text, diags))),
    }
}

/// Runs `dianran msl`.
pub fn msl(args: &MslArgs) -> Result<String, Failure> {
    let (src, module) = args.source.compile()?;
    let out = dianran_msl::write_module_with(
        &module,
        &dianran_msl::Options { fast_math: args.fast_math, no_metal4: args.no_metal4 },
    );
    let failed = report(&src, out.errors);
    let text = deliver(out.text, &args.out)?;
    if failed {
        // The text of the entries that printed is delivered; the status still says error.
        print!("{text}");
        return Err(Failure::Message("some entry points could not be printed as MSL".into()));
    }
    Ok(text)
}

/// One line per entry: `NAME<TAB>STAGE<TAB>WORKGROUP_SIZE<TAB>PTX_NAME<TAB>PARAMS`, with a
/// sixth column of comma-separated flags when an entry has any: `tf32` when its f32
/// cooperative products use TF32 (`--tf32`), `fast-math` when its math builtins use the
/// approximate instructions (`--fast-math`), and the module-wide `module_flags` (`no-fma`,
/// `no-bounds-checks`) on every entry.
pub fn ptx_entry_table(
    m: &Module,
    entries: &[dianran_ptx::abi::EntryInfo],
    module_flags: &[&str],
) -> String {
    let mut out = String::new();
    for ep in &m.entry_points {
        let info = entries.iter().find(|e| e.name == ep.name);
        let size = match ep.stage {
            Stage::Compute => {
                let [x, y, z] = ep.workgroup_size;
                format!("{x},{y},{z}")
            }
            _ => "-".into(),
        };
        let (name, params, flags) = match info {
            Some(i) => {
                let mut flags: Vec<&str> = [(i.tf32(), "tf32"), (i.fast_math(), "fast-math")]
                    .into_iter()
                    .filter_map(|(on, f)| on.then_some(f))
                    .collect();
                flags.extend_from_slice(module_flags);
                (i.ptx_name.clone(), i.params.join(","), flags.join(","))
            }
            None => ("-".into(), "-".into(), String::new()),
        };
        let tail = if flags.is_empty() { String::new() } else { format!("\t{flags}") };
        out.push_str(&format!(
            "{}\t{}\t{size}\t{name}\t{params}{tail}\n",
            ep.name,
            ep.stage.name()
        ));
    }
    out
}

/// Runs `dianran ptx`: PTX to stdout (or OUT), the entry table to stderr.
pub fn ptx(args: &PtxArgs) -> Result<String, Failure> {
    let (src, module) = args.source.compile()?;
    let (text, entries, diagnostics) = match args.backend {
        Backend::Dianran => {
            let c = dianran_ptx::codegen::compile_module(
                &module,
                &dianran_ptx::codegen::Options {
                    sm: args.sm,
                    tf32: args.tf32,
                    fast_math: args.fast_math,
                    ..Default::default()
                },
            );
            (c.text, c.entries, c.diagnostics)
        }
        Backend::Llvm => llvm_ptx(args, &module)?,
    };
    let module_flags: Vec<&str> = [
        (args.source.no_fma, "no-fma"),
        // The policy is the default (docs/bounds.md): the table marks the entries without it.
        (args.source.bounds_checks == dianran_frontend::BoundsChecks::Off, "no-bounds-checks"),
    ]
    .into_iter()
    .filter_map(|(on, f)| on.then_some(f))
    .collect();
    let table = ptx_entry_table(&module, &entries, &module_flags);
    let _ = std::io::stderr().lock().write_all(table.as_bytes());
    let failed = report(&src, diagnostics);
    if args.stats {
        let report = dianran_verify::ptxas::assemble(&text, args.sm)
            .map_err(|e| Failure::Message(format!("ptxas: {e}")))?;
        let facts = dianran_verify::cubin::read(&report.cubin)
            .map_err(|e| Failure::Message(format!("reading the cubin: {e}")))?;
        let mut table = dianran_verify::cubin::table(&facts);
        if args.source.bounds_checks == dianran_frontend::BoundsChecks::On {
            table.push_str(&bounds_table(&module));
        }
        let _ = std::io::stderr().lock().write_all(table.as_bytes());
    }
    if args.sass {
        let table = sass_table(&text, args.sm, args.entry.as_deref(), &entries)?;
        let _ = std::io::stderr().lock().write_all(table.as_bytes());
    }
    let text = deliver(text, &args.out)?;
    if failed {
        print!("{text}");
        return Err(Failure::Message("some entry points could not be compiled to PTX".into()));
    }
    Ok(text)
}

/// `--stats`' bounds-check lines: per compute entry, the checks the bounds policy emitted and
/// the ones it proved unnecessary (`docs/bounds.md`).
pub fn bounds_table(m: &Module) -> String {
    let mut out = String::from("entry\tbounds checks emitted\teliminated\n");
    for ep in m.entry_points.iter().filter(|e| e.stage == Stage::Compute) {
        let c = dianran_frontend::passes::entry_counts(m, ep.function);
        out.push_str(&format!("{}\t{}\t{}\n", ep.name, c.emitted, c.eliminated));
    }
    out
}

/// `--sass`: the SASS mix table of `ptx` at `sm_<sm>`, of every kernel or only of `entry`
/// (a WGSL entry name, mapped to its PTX name through `entries`, or a PTX name).
fn sass_table(
    ptx: &str,
    sm: u32,
    entry: Option<&str>,
    entries: &[dianran_ptx::abi::EntryInfo],
) -> Result<String, Failure> {
    let mut mixes = dianran_verify::sass::of_ptx(ptx, sm)
        .map_err(|e| Failure::Message(format!("--sass: {e}")))?;
    if let Some(want) = entry {
        let ptx_name =
            entries.iter().find(|e| e.name == want).map_or(want, |e| e.ptx_name.as_str());
        mixes.retain(|k| k.kernel == ptx_name);
        if mixes.is_empty() {
            let known: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
            return Err(Failure::Message(format!(
                "--entry {want}: no such compute entry point (entries: {})",
                known.join(", ")
            )));
        }
    }
    Ok(dianran_verify::sass::table(&mixes))
}

type PtxOut = (String, Vec<dianran_ptx::abi::EntryInfo>, Vec<Diagnostic>);

/// `--backend llvm`.
#[cfg(feature = "llvm")]
fn llvm_ptx(args: &PtxArgs, module: &Module) -> Result<PtxOut, Failure> {
    if args.tf32 || args.fast_math {
        return Err(Failure::Message(
            "--tf32 and --fast-math are options of dianran's backend; the LLVM backend always \
             compiles precise math (libdevice) and f16 tensor-core products only"
                .into(),
        ));
    }
    let c = dianran_llvm::compile_module(
        module,
        &dianran_llvm::Options { sm: args.sm, ..Default::default() },
    );
    Ok((c.text, c.entries, c.diagnostics))
}

#[cfg(not(feature = "llvm"))]
fn llvm_ptx(_: &PtxArgs, _: &Module) -> Result<PtxOut, Failure> {
    Err(Failure::Message(
        "this dianran was built without the LLVM backend: rebuild with `--features llvm` \
         (needs LLVM 19, which tools/setup.sh installs)"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::{ptx_entry_table, sass_table, Failure};

    /// The sixth column `tf32` appears only for an entry whose products use TF32.
    #[test]
    fn entry_table_marks_tf32_entries() {
        let src = "enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> c: array<f32, 1024>;
@compute @workgroup_size(32) fn mm() {
    let a = coopLoad<coop_mat16x16<f32, A>>(&c[0], 16u);
    let b = coopLoad<coop_mat16x16<f32, B>>(&c[256], 16u);
    let acc = coopLoad<coop_mat16x16<f32, C>>(&c[512], 16u);
    coopStore(coopMultiplyAdd(a, b, acc), &c[512], 16u);
}
@compute @workgroup_size(1) fn plain() { c[0] = 1.0; }
";
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let opts = dianran_ptx::codegen::Options { sm: 80, tf32: true, ..Default::default() };
        let table =
            ptx_entry_table(&m, &dianran_ptx::codegen::compile_module(&m, &opts).entries, &[]);
        assert_eq!(
            table,
            "mm\tcompute\t32,1,1\tmm\tp_g0_b0\ttf32\nplain\tcompute\t1,1,1\tplain\tp_g0_b0\n"
        );
    }

    /// `fast-math` marks the entries whose math builtins use approximate instructions, and
    /// only under `--fast-math`; flags are comma-separated.
    #[test]
    fn entry_table_marks_fast_math_entries() {
        let src = "enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> c: array<f32, 1024>;
@compute @workgroup_size(32) fn both() {
    let a = coopLoad<coop_mat16x16<f32, A>>(&c[0], 16u);
    let b = coopLoad<coop_mat16x16<f32, B>>(&c[256], 16u);
    let acc = coopLoad<coop_mat16x16<f32, C>>(&c[512], 16u);
    coopStore(coopMultiplyAdd(a, b, acc), &c[512], 16u);
    c[1] = sin(c[0]);
}
@compute @workgroup_size(1) fn waves() { c[0] = pow(c[1], c[2]); }
@compute @workgroup_size(1) fn plain() { c[0] = c[1] * 2.0; }
";
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let table = |fast_math| {
            let opts = dianran_ptx::codegen::Options {
                sm: 80,
                tf32: true,
                fast_math,
                ..Default::default()
            };
            ptx_entry_table(&m, &dianran_ptx::codegen::compile_module(&m, &opts).entries, &[])
        };
        assert_eq!(
            table(true),
            "both\tcompute\t32,1,1\tboth\tp_g0_b0\ttf32,fast-math\n\
             waves\tcompute\t1,1,1\twaves\tp_g0_b0\tfast-math\n\
             plain\tcompute\t1,1,1\tplain\tp_g0_b0\n"
        );
        assert!(!table(false).contains("fast-math"));
    }

    /// Module-wide flags (`no-fma`, `no-bounds-checks`) follow the entry's own on every entry.
    #[test]
    fn entry_table_appends_module_flags() {
        let src = "@group(0) @binding(0) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(1) fn plain() { c[0] = c[1] * 2.0; }
";
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let entries = dianran_ptx::codegen::compile_module(&m, &Default::default()).entries;
        assert_eq!(
            ptx_entry_table(&m, &entries, &["no-fma", "no-bounds-checks"]),
            "plain\tcompute\t1,1,1\tplain\tp_g0_b0,p_sizes\tno-fma,no-bounds-checks\n"
        );
        // `c[0]` into a runtime-sized array is checked against its length: `p_sizes`.
        assert_eq!(
            ptx_entry_table(&m, &entries, &[]),
            "plain\tcompute\t1,1,1\tplain\tp_g0_b0,p_sizes\n"
        );
    }

    /// `--sass` prints a kernel row per entry; `--entry` keeps one, by WGSL or PTX name,
    /// and an unknown name is an error that lists the entries. Each entry has one store of
    /// a u32 per invocation: one 32-bit STG (a hand count).
    #[test]
    fn sass_table_per_entry() {
        use dianran_verify::tools;
        if tools::require("ptxas", tools::ptxas()).is_none()
            || tools::require("nvdisasm", tools::nvdisasm()).is_none()
        {
            return;
        }
        let src = "@group(0) @binding(0) var<storage, read_write> c: array<u32>;
@compute @workgroup_size(32) fn first(@builtin(local_invocation_index) i: u32) { c[i] = i; }
@compute @workgroup_size(32) fn 第二(@builtin(local_invocation_index) i: u32) { c[i] = 2u; }
";
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let c = dianran_ptx::codegen::compile_module(&m, &Default::default());
        let rows = |entry: Option<&str>| -> Vec<Vec<String>> {
            let table = match sass_table(&c.text, 80, entry, &c.entries) {
                Ok(t) => t,
                Err(f) => panic!("{}", f.render()),
            };
            let mut lines = table.lines();
            assert_eq!(lines.next(), Some(dianran_verify::sass::HEADER));
            lines.map(|l| l.split('\t').map(str::to_string).collect()).collect()
        };
        let all = rows(None);
        assert_eq!(all.len(), 2, "{all:?}");
        let second = &c.entries.iter().find(|e| e.name == "第二").expect("entry").ptx_name;
        // The cubin's section order, not necessarily the source's.
        let mut names: Vec<&str> = all.iter().map(|r| r[0].as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["first", second.as_str()]);
        for r in &all {
            assert_eq!((r[1].as_str(), r[8].as_str()), ("kernel", "1 [32:1]"), "{r:?}");
        }
        let only_second: Vec<Vec<String>> =
            all.iter().filter(|r| r[0] == *second).cloned().collect();
        assert_eq!(rows(Some("第二")), only_second);
        assert_eq!(rows(Some(second)), only_second);
        match sass_table(&c.text, 80, Some("nope"), &c.entries) {
            Err(Failure::Message(m)) => assert!(m.contains("first, 第二"), "{m}"),
            other => panic!("expected an error, got {other:?}"),
        }
    }
}
