//! `dianran run FILE --entry NAME --dispatch X[,Y[,Z]] [--executor E]`: run a compute entry
//! point on the reference interpreter (the default) or another executor (`emu`, `cuda`,
//! `lavapipe`, `lavapipe-out`; see `dianran_verify::executors`).
//!
//! Buffers named with `--buffer G:B=PATH` are filled from the file's raw little-endian bytes
//! (the file's size is the buffer's size; `--buffer immediates=PATH` gives the entry's
//! immediate data, docs/immediates.md); every other buffer the entry uses is zero-filled,
//! with `--len` elements in a runtime-sized array. `--dump DIR` writes every buffer after a
//! successful run to `DIR/g<G>_b<B>.bin`. `--profile` (with `--executor emu` or `llvm-emu`)
//! prints the emulator's counters of the launch to stderr, one `COUNTER<TAB>VALUE` line each
//! (see `dianran_verify::emu::Profile`); stdout is unchanged.
//!
//! Textures and samplers the entry uses are described by the file's `// texture:` and
//! `// sampler:` header lines and by `--texture G:B=[PATH:]W[xH[xD]]:FORMAT[:LEVELS]` and
//! `--sampler G:B=ADDRESS,FILTER[,COMPARE]` (which win over the header); undescribed ones get
//! the defaults of `dianran_verify::texture::bindings` (16x16 for 2D, ...; seeded texels,
//! seed 1). `--dump` also writes every texture after the run, all levels, to
//! `DIR/g<G>_b<B>.tex`.
//!
//! Entries run under WebGPU's bounds policy like every compiled target (docs/bounds.md);
//! `--sanitize` runs the interpreter on the unchecked module instead, which stops at the first
//! index out of range.

use super::input::{Source, SourceArgs};
use super::Failure;
use dianran_frontend::ir::{Module, Stage};
use dianran_frontend::{Diagnostic, Diagnostics};
use dianran_verify::buffers::{default_buffers, entry_bindings, Buffers};
use dianran_verify::executors::{self, Executor, Job};
use dianran_verify::interp::{self, InterpOptions};
use dianran_verify::texture::{build_textures, SamplerSpec, TextureBindings, TextureSpec};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `run`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The compute entry point to run.
    #[arg(long)]
    pub entry: String,
    /// Number of workgroups: X, X,Y or X,Y,Z (missing ones are 1).
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dispatch)]
    pub dispatch: [u32; 3],
    /// Fill the buffer at @group(G) @binding(B) from a file of raw little-endian bytes
    /// (repeatable).
    #[arg(long = "buffer", value_name = "G:B=PATH", value_parser = parse_buffer)]
    pub buffers: Vec<BufferArg>,
    /// Describe the texture at @group(G) @binding(B): extent of level 0, WebGPU texel format,
    /// mip levels, and optionally a file of raw texels (all levels, level 0 first); without
    /// a file the texels are seeded random (repeatable).
    #[arg(long = "texture", value_name = "G:B=[PATH:]WxH[xD]:FORMAT[:LEVELS]", value_parser = TextureSpec::parse)]
    pub textures: Vec<TextureSpec>,
    /// Describe the sampler at @group(G) @binding(B): address mode (clamp-to-edge, repeat,
    /// mirror-repeat, clamp-to-border), filter (nearest, linear) and an optional compare
    /// function (less, ...) (repeatable).
    #[arg(long = "sampler", value_name = "G:B=ADDRESS,FILTER[,COMPARE]", value_parser = SamplerSpec::parse)]
    pub samplers: Vec<SamplerSpec>,
    /// Elements of a runtime-sized array in buffers not given with --buffer.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub len: u32,
    /// Write every buffer after the run to `DIR/g<G>_b<B>.bin`.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// Invocations per subgroup.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub subgroup_size: u32,
    /// Where to run: `interp` (the reference interpreter), `emu` (our PTX on the PTX
    /// emulator), `cuda` (our PTX on the CUDA driver), `lavapipe` (the input WGSL on Mesa's
    /// software Vulkan) or `lavapipe-out` (the WGSL dianran prints, on lavapipe).
    #[arg(long, value_name = "EXECUTOR", default_value = "interp", value_parser = parse_executor)]
    pub executor: Executor,
    /// Compile f32 x f32 cooperative-matrix products on TF32 tensor cores (inputs rounded to
    /// a 10-bit mantissa, f32 accumulation). Without it 16x16 ones are a diagnostic and 8x8
    /// ones are computed exactly on the FMA units.
    #[arg(long)]
    pub tf32: bool,
    /// PTX target for the PTX executors: 80, 90 or 90a (Hopper's `wgmma` for workgroup
    /// matrices; the emulator runs it).
    #[arg(long, default_value = "80", value_parser = crate::cli::generate::parse_sm)]
    pub sm: u32,
    /// Compile math builtins to PTX's approximate instructions (PTX executors only).
    #[arg(long)]
    pub fast_math: bool,
    /// Print the PTX emulator's counters of the launch to stderr as `COUNTER<TAB>VALUE`
    /// lines (warp instructions by class, global requests, sectors and sector efficiency,
    /// shared bank conflicts, mma, ldmatrix, barriers). Needs `--executor emu` or `llvm-emu`.
    #[arg(long)]
    pub profile: bool,
    /// Hunt for indexing bugs: run the reference interpreter on the module without bounds
    /// checks (`--bounds-checks off`), so the first index out of range stops the run with an
    /// error naming the index and the variable instead of reading zero or being clamped
    /// (docs/bounds.md). Needs `--executor interp`.
    #[arg(long)]
    pub sanitize: bool,
}

/// Parses an executor name.
pub fn parse_executor(s: &str) -> Result<Executor, String> {
    Executor::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Executor::ALL.iter().map(|e| e.name()).collect();
        format!("unknown executor '{s}'; use one of: {}", names.join(", "))
    })
}

/// One `--buffer G:B=PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferArg {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// File with the bytes.
    pub path: PathBuf,
}

/// Parses `X`, `X,Y` or `X,Y,Z` (one grammar for `--dispatch` and the `// dispatch:` header).
pub use dianran_verify::samples::parse_dispatch;

/// Parses `G:B=PATH`, or `immediates=PATH` for the entry's immediate data (`var<immediate>`,
/// kept under `dianran_verify::buffers::IMMEDIATES`; docs/immediates.md).
pub fn parse_buffer(s: &str) -> Result<BufferArg, String> {
    let (key, path) = s.split_once('=').ok_or_else(|| format!("expected G:B=PATH, got '{s}'"))?;
    if path.is_empty() {
        return Err(format!("missing PATH in '{s}'"));
    }
    if key.trim() == "immediates" {
        let (group, binding) = dianran_verify::buffers::IMMEDIATES;
        return Ok(BufferArg { group, binding, path: PathBuf::from(path) });
    }
    let (g, b) = key.split_once(':').ok_or_else(|| format!("expected G:B=PATH, got '{s}'"))?;
    let group = g.trim().parse().map_err(|_| format!("'{g}' is not a group number"))?;
    let binding = b.trim().parse().map_err(|_| format!("'{b}' is not a binding number"))?;
    Ok(BufferArg { group, binding, path: PathBuf::from(path) })
}

/// Runs the entry and returns a one-line summary (buffers go to `--dump`).
pub fn execute(args: &Args) -> Result<String, Failure> {
    if args.sanitize && args.executor != Executor::Interp {
        return Err(Failure::Message(format!(
            "--sanitize runs the reference interpreter: use --executor interp, not {}",
            args.executor.name()
        )));
    }
    let (src, module) = if args.sanitize {
        let unchecked = SourceArgs {
            bounds_checks: dianran_frontend::BoundsChecks::Off,
            ..args.source.clone()
        };
        unchecked.compile()?
    } else {
        args.source.compile()?
    };
    let fail =
        |d: Diagnostic| Failure::Diagnostics(Diagnostics::new(&src.name, &src.text, vec![d]));
    check_entry(&module, &args.entry, &src)?;
    let mut buffers = default_buffers(&module, &args.entry, args.len).map_err(fail)?;
    let bindings = entry_bindings(&module, &args.entry).map_err(fail)?;
    for b in &args.buffers {
        if !bindings.iter().any(|i| i.group == b.group && i.binding == b.binding) {
            let used: Vec<String> = bindings
                .iter()
                .map(|i| format!("{}:{} ({})", i.group, i.binding, i.name))
                .collect();
            return Err(Failure::Message(format!(
                "--buffer {}:{}: entry point '{}' uses no buffer at @group({}) @binding({}); it uses: {}",
                b.group,
                b.binding,
                args.entry,
                b.group,
                b.binding,
                if used.is_empty() { "none".to_string() } else { used.join(", ") }
            )));
        }
        let bytes = std::fs::read(&b.path)
            .map_err(|e| Failure::Message(format!("cannot read '{}': {e}", b.path.display())))?;
        buffers.insert((b.group, b.binding), bytes);
    }
    if args.profile && !matches!(args.executor, Executor::Emu | Executor::LlvmEmu) {
        return Err(Failure::Message(format!(
            "--profile counts what the PTX emulator executes: use --executor emu (or llvm-emu), not {}",
            args.executor.name()
        )));
    }
    let mut textures =
        described_textures(&src.text, &module, &args.entry, &args.textures, &args.samplers, 1)
            .map_err(fail)?;
    if args.executor == Executor::Interp {
        // The interpreter's own diagnostics carry source locations: keep them.
        let opts = InterpOptions { subgroup_size: args.subgroup_size, ..Default::default() };
        interp::run_with_textures(
            &module,
            &args.entry,
            args.dispatch,
            &mut buffers,
            &mut textures,
            &opts,
        )
        .map_err(fail)?;
    } else {
        let job = Job {
            overrides: &args.source.overrides,
            subgroup_size: args.subgroup_size,
            tf32: args.tf32,
            sm: args.sm,
            fast_math: args.fast_math,
            ..Job::new(&src.name, &src.text, &module, &args.entry, args.dispatch)
        };
        let exec_fail =
            |e: executors::ExecError| Failure::Message(format!("{}: {e}", args.executor.name()));
        if args.profile {
            let (out, profile) =
                executors::run_profiled(args.executor, &job, &buffers).map_err(exec_fail)?;
            buffers = out;
            // Counters go to stderr so that stdout stays what it is without --profile.
            let _ = std::io::stderr().lock().write_all(profile.to_string().as_bytes());
        } else {
            let (b, t) =
                dianran_verify::textured::run_textured(args.executor, &job, &buffers, &textures)
                    .map_err(exec_fail)?;
            buffers = b;
            if !textures.is_empty() {
                textures = t;
            }
        }
    }
    if let Some(dir) = &args.dump {
        dump(dir, &buffers)?;
        dump_textures(dir, &textures)?;
    }
    let [x, y, z] = args.dispatch;
    Ok(format!("ran '{}' over {x}x{y}x{z} workgroups on {}\n", args.entry, args.executor.name()))
}

/// The textures and samplers of `entry`: the source's `// texture:`/`// sampler:` lines,
/// then `textures`/`samplers` (later descriptions of a binding win), defaults for the rest.
pub fn described_textures(
    source: &str,
    m: &Module,
    entry: &str,
    textures: &[TextureSpec],
    samplers: &[SamplerSpec],
    seed: u64,
) -> Result<TextureBindings, Diagnostic> {
    // A malformed header is ignored here, as for `// dispatch:`: the flags say it.
    let header = dianran_verify::samples::header(source).unwrap_or_default();
    // Header lines may describe bindings of other entries of the file.
    let used: Vec<(u32, u32)> = dianran_verify::texture::entry_handles(m, entry)?
        .iter()
        .map(|h| (h.group, h.binding))
        .collect();
    let mut ts: Vec<TextureSpec> =
        header.textures.into_iter().filter(|t| used.contains(&(t.group, t.binding))).collect();
    ts.extend_from_slice(textures);
    let mut ss: Vec<SamplerSpec> =
        header.samplers.into_iter().filter(|s| used.contains(&(s.group, s.binding))).collect();
    ss.extend_from_slice(samplers);
    build_textures(m, entry, &ts, &ss, seed)
}

/// Writes each texture to `dir/g<G>_b<B>.tex` (raw texels, all levels, level 0 first).
fn dump_textures(dir: &std::path::Path, textures: &TextureBindings) -> Result<(), Failure> {
    for ((g, b), t) in &textures.textures {
        let path = dir.join(format!("g{g}_b{b}.tex"));
        std::fs::write(&path, &t.data)
            .map_err(|e| Failure::Message(format!("cannot write '{}': {e}", path.display())))?;
    }
    Ok(())
}

/// The entry must exist and be a compute entry point.
fn check_entry(m: &Module, entry: &str, src: &Source) -> Result<(), Failure> {
    let compute: Vec<&str> = m
        .entry_points
        .iter()
        .filter(|e| e.stage == Stage::Compute)
        .map(|e| e.name.as_str())
        .collect();
    let list = if compute.is_empty() { "none".to_string() } else { compute.join(", ") };
    match m.entry_point(entry) {
        Some(ep) if ep.stage == Stage::Compute => Ok(()),
        Some(ep) => Err(Failure::Message(format!(
            "entry point '{entry}' of '{}' is a {} shader; `run` runs compute entry points ({list})",
            src.name,
            ep.stage.name()
        ))),
        None => Err(Failure::Message(format!(
            "'{}' has no entry point named '{entry}'; its compute entry points: {list}",
            src.name
        ))),
    }
}

/// Writes each buffer to `dir/g<G>_b<B>.bin`.
fn dump(dir: &std::path::Path, buffers: &Buffers) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Message(format!("cannot create '{}': {e}", dir.display())))?;
    for ((g, b), bytes) in buffers {
        let path = dir.join(format!("g{g}_b{b}.bin"));
        std::fs::write(&path, bytes)
            .map_err(|e| Failure::Message(format!("cannot write '{}': {e}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_forms() {
        assert_eq!(parse_dispatch("4"), Ok([4, 1, 1]));
        assert_eq!(parse_dispatch("4,2"), Ok([4, 2, 1]));
        assert_eq!(parse_dispatch("4, 2, 3"), Ok([4, 2, 3]));
        assert!(parse_dispatch("1,2,3,4").is_err());
        assert!(parse_dispatch("-1").is_err());
        assert!(parse_dispatch("").is_err());
    }

    #[test]
    fn buffer_forms() {
        assert_eq!(
            parse_buffer("0:1=in.bin"),
            Ok(BufferArg { group: 0, binding: 1, path: PathBuf::from("in.bin") })
        );
        assert!(parse_buffer("0=in.bin").is_err());
        assert!(parse_buffer("0:x=in.bin").is_err());
        assert!(parse_buffer("0:1=").is_err());
        assert_eq!(
            parse_buffer("immediates=p.bin"),
            Ok(BufferArg { group: u32::MAX, binding: 0, path: PathBuf::from("p.bin") })
        );
        assert!(parse_buffer("immediates=").is_err());
    }
}
