//! `dianran verify FILE`: run one compute entry on every available executor with seeded
//! random buffers and compare each with the reference interpreter.
//!
//! Output: one line per executor, `EXECUTOR<TAB>VERDICT<TAB>detail`, the verdicts of
//! `dianran_verify::engine` (which also says how executors are run and compared): `agree`,
//! `DISAGREE`, `skipped`, `not-applicable` (the kernel cannot run there as set up, such as a
//! subgroup kernel whose reference goes out of bounds at lavapipe's subgroup size), `racy`
//! (a difference the file's `// racy:` header line explains), `crashed` (wgpu panicked or the
//! Vulkan driver died: lavapipe runs in a child process, see [`super::isolated`]) and
//! `timeout`. The interpreter's own line says `agree` with detail `reference`, or `timeout`.
//! Each run and each comparison gets `--timeout` seconds (default 60), the reference
//! interpreter's included. Exit status 0 unless an executor disagrees or times out. Entries
//! that use textures run with the textures of the file's header, `--texture`/`--sampler` and
//! the defaults bound (seeded with `--seed`), every executor in this process.

use super::input::SourceArgs;
use super::isolated;
use super::run::{parse_buffer, parse_dispatch, BufferArg};
use super::Failure;
use dianran_frontend::ir::{self, Stage};
use dianran_verify::agree::random_buffers;
use dianran_verify::buffers::Buffers;
use dianran_verify::engine::{self, Kind};
use dianran_verify::executors::{self, Executor, Job};
use dianran_verify::samples;
use dianran_verify::texture::{SamplerSpec, TextureSpec};

/// Arguments of `verify`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The compute entry point (default: the only one).
    #[arg(long)]
    pub entry: Option<String>,
    /// Workgroups per dimension, `X[,Y[,Z]]` (default: the file's `// dispatch:` comment, else 1).
    #[arg(long, value_parser = parse_dispatch)]
    pub dispatch: Option<[u32; 3]>,
    /// Elements of each runtime-sized array (a buffer is rounded up to whole 4-byte words, as
    /// WebGPU requires: 551 `f16` elements become 552).
    #[arg(long, default_value_t = 1024)]
    pub len: u32,
    /// Seed of the random buffer contents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use these bytes for the buffer at @group(G) @binding(B) instead of random contents
    /// (repeatable): sizes and indices that must be consistent, such as a matmul's dimensions.
    #[arg(long = "buffer", value_name = "G:B=PATH", value_parser = parse_buffer)]
    pub buffers: Vec<BufferArg>,
    /// Describe the texture at @group(G) @binding(B) (repeatable; see `dianran run --help`):
    /// extent, WebGPU texel format, mip levels, optionally a file of raw texels; without a
    /// file the texels are random from --seed.
    #[arg(long = "texture", value_name = "G:B=[PATH:]WxH[xD]:FORMAT[:LEVELS]", value_parser = TextureSpec::parse)]
    pub textures: Vec<TextureSpec>,
    /// Describe the sampler at @group(G) @binding(B): ADDRESS,FILTER[,COMPARE] (repeatable).
    #[arg(long = "sampler", value_name = "G:B=ADDRESS,FILTER[,COMPARE]", value_parser = SamplerSpec::parse)]
    pub samplers: Vec<SamplerSpec>,
    /// PTX target for the PTX executors: 80, 90 or 90a (Hopper's `wgmma`).
    #[arg(long, default_value = "80", value_parser = crate::cli::generate::parse_sm)]
    pub sm: u32,
    /// Compile f32 x f32 cooperative-matrix products on TF32 tensor cores (inputs rounded to
    /// a 10-bit mantissa, f32 accumulation). Without it 16x16 ones are a diagnostic and 8x8
    /// ones are computed exactly on the FMA units.
    #[arg(long)]
    pub tf32: bool,
    /// Compile the PTX executors' math builtins to PTX's approximate instructions and
    /// compare them with the fast-math bounds.
    #[arg(long)]
    pub fast_math: bool,
    /// Seconds each executor may take (the reference interpreter included) before it is
    /// reported as `timeout` and the next one runs.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// The executors to compare with the interpreter, comma-separated (`emu`, `cuda`,
    /// `llvm-emu`, `llvm-cuda`, `lavapipe`, `lavapipe-out`; default: all of them).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_executor)]
    pub executors: Vec<Executor>,
    /// Run this PTX file on the PTX executors instead of the PTX dianran compiles (same entry
    /// name and parameters): checks edited or third-party PTX against the WGSL's meaning.
    #[arg(long, value_name = "PTX_FILE")]
    pub ptx: Option<std::path::PathBuf>,
}

/// An executor other than the reference interpreter.
pub fn parse_executor(n: &str) -> Result<Executor, String> {
    match Executor::from_name(n.trim()) {
        Some(Executor::Interp) => Err("`interp` is the reference and always runs".to_string()),
        Some(e) => Ok(e),
        None => {
            Err(format!("unknown executor '{n}' (expected emu, cuda, llvm-emu, llvm-cuda, lavapipe or lavapipe-out)"))
        }
    }
}

/// A positive number of seconds.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

fn choose_entry(m: &ir::Module, wanted: &Option<String>) -> Result<String, Failure> {
    let compute: Vec<&str> = m
        .entry_points
        .iter()
        .filter(|e| e.stage == Stage::Compute)
        .map(|e| e.name.as_str())
        .collect();
    match wanted {
        Some(w) if compute.contains(&w.as_str()) => Ok(w.clone()),
        Some(w) => Err(Failure::Message(format!(
            "no compute entry point named '{w}'; the file has: {}",
            compute.join(", ")
        ))),
        None if compute.len() == 1 => Ok(compute[0].to_string()),
        None if compute.is_empty() => {
            Err(Failure::Message("the file has no compute entry point to verify".into()))
        }
        None => Err(Failure::Message(format!(
            "the file has several compute entry points ({}); choose one with --entry",
            compute.join(", ")
        ))),
    }
}

/// Runs `dianran verify`.
pub fn execute(args: &Args) -> Result<String, Failure> {
    let (src, module) = args.source.compile()?;
    let entry = choose_entry(&module, &args.entry)?;
    // A malformed header is ignored here: `--dispatch` is how the command line says it.
    let dispatch = args
        .dispatch
        .or_else(|| samples::header(&src.text).ok().and_then(|h| h.dispatch))
        .unwrap_or([1, 1, 1]);
    let mut input = random_buffers(&module, &entry, args.len, args.seed)
        .map_err(|d| Failure::Message(d.message))?;
    for b in &args.buffers {
        let bytes = std::fs::read(&b.path)
            .map_err(|e| Failure::Message(format!("cannot read '{}': {e}", b.path.display())))?;
        if !input.contains_key(&(b.group, b.binding)) {
            return Err(Failure::Message(format!(
                "entry '{entry}' uses no buffer at @group({}) @binding({})",
                b.group, b.binding
            )));
        }
        input.insert((b.group, b.binding), bytes);
    }
    let ptx_text = match &args.ptx {
        Some(p) => Some(
            std::fs::read_to_string(p)
                .map_err(|e| Failure::Message(format!("cannot read '{}': {e}", p.display())))?,
        ),
        None => None,
    };
    let job = |subgroup_size| Job {
        overrides: &args.source.overrides,
        subgroup_size,
        sm: args.sm,
        tf32: args.tf32,
        fast_math: args.fast_math,
        ptx: ptx_text.as_deref(),
        ..Job::new(&src.name, &src.text, &module, &entry, dispatch)
    };
    let textures = super::run::described_textures(
        &src.text,
        &module,
        &entry,
        &args.textures,
        &args.samplers,
        args.seed,
    )
    .map_err(|d| Failure::Message(d.message))?;
    let all = [
        Executor::Emu,
        Executor::Cuda,
        Executor::LlvmEmu,
        Executor::LlvmCuda,
        Executor::Lavapipe,
        Executor::LavapipeOut,
    ];
    let chosen: Vec<Executor> = all
        .into_iter()
        .filter(|e| args.executors.is_empty() || args.executors.contains(e))
        .collect();
    // lavapipe runs in a child process: a driver that crashes ends only that line (entries
    // with textures run it in this process: the child carries only buffers).
    let child = isolated::Child {
        file: &args.source.file,
        overrides: &args.source.overrides,
        entry: &entry,
        dispatch,
    };
    let runner =
        |exec: Executor, job: &Job<'_>, input: &Buffers, limit: std::time::Duration| match exec {
            Executor::Lavapipe | Executor::LavapipeOut => isolated::run(exec, &child, input, limit),
            _ => executors::run_limited(exec, job, input, limit),
        };
    // A malformed header counts as no header, as for the dispatch.
    let header = samples::header(&src.text).unwrap_or_default();
    let opts = engine::Options {
        executors: chosen,
        timeout: std::time::Duration::from_secs_f64(args.timeout),
        textures,
        nondeterminism: header.nondeterminism(&entry),
        runner: Some(&runner),
    };
    let report = engine::check(&job(32), &input, &opts);
    if let Some(r) = report.reference().filter(|r| r.kind == Kind::NoReference) {
        return Err(Failure::Message(format!(
            "the reference interpreter failed on the random input: {}\n(random contents can drive data-dependent indexing out of range: try a larger --len or another --seed)",
            r.detail
        )));
    }
    let subgroups = module.uses_subgroups() && opts.textures.is_empty();
    let mut out = String::new();
    for v in &report.verdicts {
        let mut detail = Vec::new();
        if subgroups && v.executor != Executor::Interp && matches!(v.kind, Kind::Agree | Kind::Note)
        {
            detail.push(format!("subgroup size {}", v.subgroup_size));
        }
        if !v.detail.is_empty() {
            detail.push(v.detail.clone());
        }
        out.push_str(&format!(
            "{}\t{}\t{}\n",
            v.executor.name(),
            v.kind.label(),
            detail.join("; ")
        ));
    }
    // Only our disagreements and runs past the limit fail; racy, not-applicable, skipped and
    // third-party crashes are reported.
    let all_agree = report.of(&[Kind::Disagree, Kind::Timeout]).next().is_none();
    if all_agree {
        Ok(out)
    } else {
        print!("{out}");
        Err(Failure::Message("executors disagree".into()))
    }
}
