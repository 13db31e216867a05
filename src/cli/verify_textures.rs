//! `dianran verify` for entry points that use textures: the textures and samplers come from
//! the file's `// texture:`/`// sampler:` lines, `--texture`/`--sampler` and the defaults
//! (seeded with `--seed`); every executor runs in this process with them bound (lavapipe
//! too: the child-process runner carries only buffers), and its buffers and storage textures
//! are compared with the interpreter's: floats under the executor's bounds plus
//! `dianran_verify::textured::filter_slack` for filtered sampling, normalized texels within
//! one step, integers exactly.

use super::Failure;
use dianran_frontend::ir;
use dianran_verify::agree::{precision_for, PtxMode};
use dianran_verify::buffers::Buffers;
use dianran_verify::executors::{self, ExecError, Executor, Job};
use dianran_verify::texture::TextureBindings;
use dianran_verify::textured::{compare_buffers, compare_textures, filter_slack, run_textured};

/// Runs `executors` against the interpreter; returns the report lines and whether all agree.
pub fn verify(
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
    executors: &[Executor],
) -> Result<(String, bool), Failure> {
    let (rb, rt) = run_textured(Executor::Interp, job, input, textures).map_err(|e| {
        Failure::Message(format!("the reference interpreter failed on the random input: {e}"))
    })?;
    let m: &ir::Module = job.module;
    let slack = filter_slack(m, textures);
    let mut out = String::from("interp\tagree\treference\n");
    let mut all_agree = true;
    for &exec in executors {
        let line = match run_textured(exec, job, input, textures) {
            Err(ExecError::Skipped(why)) => format!("skipped\t{why}"),
            Err(e) => {
                all_agree = false;
                format!("DISAGREE\t{e}")
            }
            Ok((b, t)) => {
                // Each executor's float bounds, as `executors::compare_excused` chooses them.
                let ptx = if executors::runs_our_ptx(exec) {
                    Some(PtxMode { tf32: job.tf32, fast_math: job.fast_math })
                } else {
                    executors::runs_llvm_ptx(exec).then_some(PtxMode::default())
                };
                let p = precision_for(m, job.entry, ptx);
                let verdict = compare_buffers(m, job.entry, &rb, &b, p, slack)
                    .and_then(|()| compare_textures(m, job.entry, &rt, &t, p));
                match verdict {
                    Ok(()) if slack > 0.0 => format!("agree\tfiltered samples within {slack:e}"),
                    Ok(()) => "agree\t".to_string(),
                    Err(diff) => {
                        all_agree = false;
                        format!("DISAGREE\t{diff}")
                    }
                }
            }
        };
        out.push_str(&format!("{}\t{line}\n", exec.name()));
    }
    Ok((out, all_agree))
}
