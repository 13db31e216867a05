//! `dianran verify` for entry points that use textures: the textures and samplers come from
//! the file's `// texture:`/`// sampler:` lines, `--texture`/`--sampler` and the defaults
//! (seeded with `--seed`); every executor runs in this process with them bound (lavapipe
//! too: the child-process runner carries only buffers), and its buffers and storage textures
//! are compared with the interpreter's (`dianran_verify::textured::compare_run_textured`):
//! floats under the executor's bounds plus `dianran_verify::textured::filter_slack` for
//! filtered sampling (and the kernel's sensitivity to math error where those fail), normalized
//! texels within one step, integers exactly.

use super::Failure;
use dianran_verify::buffers::Buffers;
use dianran_verify::executors::{ExecError, Executor, Job};
use dianran_verify::texture::TextureBindings;
use dianran_verify::textured::{compare_run_textured, run_textured};

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
    let mut out = String::from("interp\tagree\treference\n");
    let mut all_agree = true;
    for &exec in executors {
        let line = match run_textured(exec, job, input, textures) {
            Err(ExecError::Skipped(why)) => format!("skipped\t{why}"),
            Err(e) => {
                all_agree = false;
                format!("DISAGREE\t{e}")
            }
            // Each executor's float bounds, as `executors::compare_excused` chooses them.
            Ok((b, t)) => {
                match compare_run_textured(exec, job, input, textures, (&rb, &rt), (&b, &t)) {
                    Ok(note) => format!("agree\t{}", note.unwrap_or_default()),
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
