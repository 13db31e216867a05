//! `dianran verify FILE`: run one compute entry on every available executor with seeded
//! random buffers and compare each with the reference interpreter.
//!
//! Output: one line per executor,
//! `EXECUTOR<TAB>agree|DISAGREE|skipped|timeout|crashed<TAB>detail` (`crashed`: the Vulkan
//! driver died or lost its device; lavapipe runs in a child process, see
//! [`super::isolated`]).
//! The interpreter's own line says `agree` with detail `reference`. Each executor gets
//! `--timeout` seconds (default 60); one that takes longer is reported as `timeout` and left
//! behind. Exit status 0 when every executor that ran agrees, 1 otherwise (a timeout included). Comparison rules (exact integers, float bounds per
//! operation class and executor: precise or `--fast-math` PTX math, Vulkan's bounds for
//! lavapipe, the TF32 bound for PTX executors under `--tf32`) are documented in
//! `dianran_verify::agree`. Kernels that use subgroup
//! operations are compared with lavapipe at lavapipe's subgroup size (8) and with the PTX
//! executors at 32.

use super::input::SourceArgs;
use super::isolated;
use super::run::{parse_buffer, parse_dispatch, BufferArg};
use super::Failure;
use dianran_frontend::ir::{self, Stage};
use dianran_verify::agree::random_buffers;
use dianran_verify::executors::{self, ExecError, Executor, Job};
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
    /// Elements of each runtime-sized array.
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
    /// PTX target for the PTX executors (80 or 90).
    #[arg(long, default_value_t = 80)]
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
        file_name: &src.name,
        source: &src.text,
        overrides: &args.source.overrides,
        module: &module,
        entry: &entry,
        dispatch,
        subgroup_size,
        sm: args.sm,
        tf32: args.tf32,
        fast_math: args.fast_math,
        ptx: ptx_text.as_deref(),
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
    if !textures.is_empty() {
        // Textures: every executor in this process, compared with the textured reference.
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
        let (out, agree) = super::verify_textures::verify(&job(32), &input, &textures, &chosen)?;
        if agree {
            return Ok(out);
        }
        print!("{out}");
        return Err(Failure::Message("executors disagree".into()));
    }
    let limit = std::time::Duration::from_secs_f64(args.timeout);
    let reference32 = executors::run_limited(Executor::Interp, &job(32), &input, limit)
        .map_err(|e| {
            Failure::Message(format!(
                "the reference interpreter failed on the random input: {e}\n(random contents can drive data-dependent indexing out of range: try a larger --len or another --seed)"
            ))
        })?;
    let subgroups = module.uses_subgroups();
    let mut out = String::from("interp\tagree\treference\n");
    let mut all_agree = true;
    // Excused values by (subgroup size, undefined math excused): computed once for each.
    let mut excuses = std::collections::HashMap::new();
    let all = [
        Executor::Emu,
        Executor::Cuda,
        Executor::LlvmEmu,
        Executor::LlvmCuda,
        Executor::Lavapipe,
        Executor::LavapipeOut,
    ];
    for exec in all.into_iter().filter(|e| args.executors.is_empty() || args.executors.contains(e))
    {
        let lava = matches!(exec, Executor::Lavapipe | Executor::LavapipeOut);
        let size = if lava && subgroups { 8 } else { 32 };
        // lavapipe runs in a child process: a driver that crashes ends only that line.
        let skip = if lava { executors::lavapipe_skips(&job(size), exec) } else { None };
        let outcome = if let Some(why) = skip {
            Err(ExecError::Skipped(why))
        } else if lava {
            let child = isolated::Child {
                file: &args.source.file,
                overrides: &args.source.overrides,
                entry: &entry,
                dispatch,
            };
            isolated::run(exec, &child, &input, limit)
        } else {
            executors::run_limited(exec, &job(size), &input, limit)
        };
        let line = match outcome {
            Err(ExecError::Skipped(why)) => format!("skipped\t{why}"),
            Err(ExecError::Timeout(d)) => {
                all_agree = false;
                format!(
                    "timeout\tno result after {} s (raise --timeout to wait longer)",
                    d.as_secs_f64()
                )
            }
            // The driver died, or lost its device: lavapipe's failure, not the kernel's.
            Err(ExecError::Failed(why)) if why.contains("the Vulkan driver") => {
                all_agree = false;
                format!("crashed\t{why}")
            }
            Err(ExecError::Failed(why)) => {
                all_agree = false;
                format!("DISAGREE\t{why}")
            }
            Ok(result) => {
                // An executor that does not run our SSA is predicted by the module compiled
                // with its contraction decisions (docs/math.md, "Contraction").
                let own =
                    dianran_verify::contraction::reference_options(exec, &args.source.options());
                let unfused = own.no_fma && !args.source.no_fma;
                let own_module = match unfused {
                    true => Some(dianran_frontend::compile(&src.name, &src.text, &own)?),
                    false => None,
                };
                let own_job =
                    |size| Job { module: own_module.as_ref().unwrap_or(&module), ..job(size) };
                let reference = if size == 32 && !unfused {
                    Ok(reference32.clone())
                } else {
                    executors::run_limited(Executor::Interp, &own_job(size), &input, limit)
                };
                // Each executor has its own bounds (precise or fast PTX math, TF32, Vulkan's).
                let key = (size, executors::excuses_undefined_math(exec), unfused);
                let verdict = reference.map(|r| {
                    if let std::collections::hash_map::Entry::Vacant(e) = excuses.entry(key) {
                        e.insert(executors::excuses(exec, &own_job(size), &input, &r)?);
                    }
                    let e = excuses.get(&key).cloned().unwrap_or_default();
                    executors::compare_excused(exec, &own_job(size), &input, &r, &result, &e)
                });
                match verdict {
                    Ok(Ok(note)) => {
                        let mut detail = Vec::new();
                        if subgroups {
                            detail.push(format!("subgroup size {size}"));
                        }
                        detail.extend(note);
                        format!("agree\t{}", detail.join("; "))
                    }
                    Ok(Err(diff)) => {
                        all_agree = false;
                        format!("DISAGREE\t{diff}")
                    }
                    Err(e) => {
                        all_agree = false;
                        format!("DISAGREE\treference at subgroup size {size} failed: {e}")
                    }
                }
            }
        };
        out.push_str(&format!("{}\t{line}\n", exec.name()));
    }
    if all_agree {
        Ok(out)
    } else {
        print!("{out}");
        Err(Failure::Message("executors disagree".into()))
    }
}
