//! What math costs per math-heavy kernel (issue 30's table): for our backend, the LLVM
//! backend (libdevice) and NVRTC on the CUDA equivalent, in precise and fast math, the static
//! SASS instructions at sm_80 (`nvdisasm` on ptxas's cubin), the registers (`ptxas -v`) and
//! the PTX emulator's dynamic warp instructions for one launch on the same inputs.
//!
//! The kernels are the math samples with CUDA equivalents ([`kernels::MATH_PAIRS`]) and the
//! real-world activation, normalization and softmax kernels of `tests/realworld/` (no CUDA
//! equivalent: NVRTC's cells say `-`), launched with their headers' `// dispatch:`,
//! `// runtime-len:` and `// buffer` set-up. The LLVM backend has no fast-math mode (its
//! `--fast-math` cells say `-`).

use std::path::PathBuf;

use dianran_ptx::codegen::Options;
use dianran_verify::agree::random_buffers;
use dianran_verify::buffers::Buffers;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::samples;

use crate::backends::{self, Compiler, Ptx};
use crate::kernels::{self, Pair, MATH_PAIRS, PAIRS};
use crate::{nvrtc, pipeline, profile, sass};

/// The architecture of the table.
pub const SM: u32 = 80;

/// The real-world kernels of the table (`tests/realworld/NAME.wgsl`).
pub const REALWORLD: [&str; 8] = [
    "webgpt_gelu",
    "gpucpp_gelu",
    "webgpu_samples_vit_mlp",
    "webgpu_samples_light_update",
    "webgpu_samples_vit_attn_softmax",
    "web_rwkv_softmax",
    "webgpt_layernorm_stats",
    "webgpu_samples_vit_layer_norm",
];

/// Seed of the real-world kernels' random inputs (the real-world tests' own).
const SEED: u64 = 0x5EED;
/// Elements per runtime-sized array when a real-world header says nothing.
const RUNTIME_LEN: u32 = 16384;
/// Warp instructions the emulator may run per launch.
const MAX_STEPS: u64 = 1 << 28;

/// One kernel of the table.
#[derive(Clone, Debug)]
pub struct MathKernel {
    /// The name in the table (the file name without `.wgsl`).
    pub name: String,
    /// The WGSL file.
    pub path: PathBuf,
    /// The CUDA equivalent, for the samples that have one.
    pub pair: Option<Pair>,
}

/// The table's kernels: the math samples, then [`REALWORLD`].
pub fn math_kernels() -> Vec<MathKernel> {
    let samples = PAIRS.iter().filter(|p| MATH_PAIRS.contains(&p.sample)).map(|p| MathKernel {
        name: p.sample.trim_end_matches(".wgsl").to_string(),
        path: kernels::samples_dir().join(p.sample),
        pair: Some(*p),
    });
    let realworld = REALWORLD.iter().map(|n| MathKernel {
        name: n.to_string(),
        path: kernels::root().join("tests/realworld").join(format!("{n}.wgsl")),
        pair: None,
    });
    samples.chain(realworld).collect()
}

/// One compiler's numbers for one kernel in one mode, or why there are none.
#[derive(Clone, Debug)]
pub struct Cost {
    /// Static SASS instructions of the kernel.
    pub sass: Result<u32, String>,
    /// Registers per thread.
    pub registers: Result<u32, String>,
    /// Warp instructions of one launch on the emulator.
    pub dynamic: Result<u64, String>,
}

/// A cost whose every cell says `why`.
fn none(why: &str) -> Cost {
    Cost { sass: Err(why.into()), registers: Err(why.into()), dynamic: Err(why.into()) }
}

/// The inputs of a launch: the parameters of our ABI and those of the CUDA equivalent (one
/// pointer per binding, in (group, binding) order), the grid and the block.
struct Launch {
    ours: Vec<Vec<u8>>,
    cuda: Vec<Vec<u8>>,
    grid: [u32; 3],
    block: [u32; 3],
}

/// Builds `k`'s launch from our compiled entry: the samples' inputs as the `profile` bench
/// makes them (sized for the CUDA equivalents), the real-world kernels' from their headers.
fn launch(k: &MathKernel, src: &str) -> Result<Launch, String> {
    let module = dianran_frontend::compile(&k.name, src, &Default::default())
        .map_err(|d| d.to_string().lines().next().unwrap_or("").to_string())?;
    let header = samples::header(src).map_err(|e| e.to_string())?;
    let compiled = pipeline::wgsl_to_ptx(&k.name, src, SM).map_err(|e| e.to_string())?;
    let info = match &header.entry {
        Some(e) => compiled.entries.iter().find(|x| &x.name == e),
        None => compiled.entries.first(),
    }
    .ok_or("no PTX entry")?;
    let input: Buffers = match &k.pair {
        Some(p) => profile::inputs(p, &module, &info.name)?,
        None => {
            let len = header.runtime_len.unwrap_or(RUNTIME_LEN);
            let mut b = random_buffers(&module, &info.name, len, SEED).map_err(|d| d.message)?;
            header.apply_presets(&mut b)?;
            b
        }
    };
    let ours = dianran_verify::executors::ptx_params(info, &input).map_err(|e| e.to_string())?;
    Ok(Launch {
        ours: ours.buffers,
        cuda: input.values().cloned().collect(),
        grid: header.dispatch.ok_or("no // dispatch: header")?,
        block: info.workgroup_size,
    })
}

/// SASS, registers and the emulator's count of one PTX.
fn measure(ptx: &Ptx, params: Option<&[Vec<u8>]>, l: &Launch) -> Cost {
    let sass = sass::mix_of(ptx, SM).map(|m| m.mix.total);
    let registers = backends::ptxas_stats(ptx, SM).map(|s| s.registers);
    let dynamic = match params {
        Some(p) => {
            let mut p = p.to_vec();
            let opts = EmuOptions { max_steps: MAX_STEPS, ..Default::default() };
            emu::run_profiled(&ptx.text, &ptx.kernel, &mut p, l.grid, l.block, &opts)
                .map(|prof| prof.warp_instructions)
                .map_err(|e| e.to_string())
        }
        None => Err("-".into()),
    };
    Cost { sass, registers, dynamic }
}

/// One kernel in one mode: the cost per compiler ([`compilers`]' order).
pub type Row = Vec<Cost>;

/// The compilers of the table.
pub fn compilers() -> Vec<Compiler> {
    crate::sass::compilers()
}

/// Measures `k` in precise (`fast = false`) or fast math with every compiler.
pub fn measure_kernel(k: &MathKernel, fast: bool) -> Row {
    let src = match std::fs::read_to_string(&k.path) {
        Ok(s) => s,
        Err(e) => return compilers().iter().map(|_| none(&e.to_string())).collect(),
    };
    let l = match launch(k, &src) {
        Ok(l) => l,
        Err(e) => return compilers().iter().map(|_| none(&e)).collect(),
    };
    compilers()
        .into_iter()
        .map(|c| match c {
            Compiler::Ours => {
                let opts = Options { sm: SM, fast_math: fast, ..Options::default() };
                match pipeline::wgsl_to_ptx_with(&k.name, &src, &opts) {
                    Ok(out) => {
                        let kernel = out.entries[0].ptx_name.clone();
                        measure(&Ptx { text: out.text, kernel }, Some(&l.ours), &l)
                    }
                    Err(e) => none(&e.to_string()),
                }
            }
            Compiler::Llvm if fast => none("-"),
            Compiler::Llvm => match backends::compile_llvm(&k.name, &src, SM) {
                Ok(p) => measure(&p, Some(&l.ours), &l),
                Err(e) => none(&e),
            },
            Compiler::Nvrtc => {
                let Some(pair) = &k.pair else { return none("-") };
                let cuda = match kernels::cuda_source(pair) {
                    Ok(c) => c,
                    Err(e) => return none(&e),
                };
                match nvrtc::compile_with(&cuda, pair.cuda_file, SM, fast) {
                    Ok(text) => {
                        let p = Ptx { text, kernel: pair.cuda_entry.to_string() };
                        measure(&p, Some(&l.cuda), &l)
                    }
                    Err(e) => none(&e.to_string()),
                }
            }
        })
        .collect()
}

/// A cell: the number, or the first words of why there is none.
fn cell<T: ToString>(r: &Result<T, String>) -> String {
    match r {
        Ok(v) => v.to_string(),
        Err(e) => backends::short_reason(e),
    }
}

/// The table: per kernel, one line per mode with `SASS / registers / dynamic` per compiler,
/// and our SASS as a fraction of LLVM's.
pub fn render(rows: &[(MathKernel, Row, Row)]) -> String {
    let cs = compilers();
    let mut header: Vec<String> = vec!["kernel".into(), "math".into()];
    for c in &cs {
        header.push(format!("{} SASS/regs/dyn", c.name()));
    }
    header.push("ours/LLVM SASS".into());
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = crate::table::Table::new(&hdr);
    for (k, precise, fast) in rows {
        for (mode, row) in [("precise", precise), ("fast", fast)] {
            let mut line = vec![k.name.clone(), mode.to_string()];
            for c in row {
                line.push(format!(
                    "{} / {} / {}",
                    cell(&c.sass),
                    cell(&c.registers),
                    cell(&c.dynamic)
                ));
            }
            let ratio = match (cs.iter().position(|c| *c == Compiler::Llvm), row.first()) {
                (Some(i), Some(ours)) => match (&ours.sass, &row[i].sass) {
                    (Ok(a), Ok(b)) if *b > 0 => format!("{:.2}", f64::from(*a) / f64::from(*b)),
                    _ => "-".into(),
                },
                _ => "-".into(),
            };
            line.push(ratio);
            t.row(line);
        }
    }
    t.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_exist() {
        for k in math_kernels() {
            assert!(k.path.is_file(), "{}", k.path.display());
        }
    }
}
