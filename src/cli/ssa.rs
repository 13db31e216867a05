//! `dianran ssa FILE`: print the SSA form after the standard passes.

use super::input::SourceArgs;
use super::Failure;
use dianran_frontend::ir::Stage;
use dianran_frontend::Diagnostics;

/// Arguments of `ssa`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Print each compute entry as the PTX backend receives it: every call inlined and the
    /// passes that run on the inlined body applied (range folding, loop passes, CSE).
    #[arg(long)]
    pub inlined: bool,
}

/// Compiles the file and returns its SSA text.
pub fn execute(args: &Args) -> Result<String, Failure> {
    let (source, module) = args.source.compile()?;
    if !args.inlined {
        return Ok(dianran_frontend::text::module_text(&module));
    }
    let mut out = String::new();
    for ep in module.entry_points.iter().filter(|e| e.stage == Stage::Compute) {
        let plan = dianran_ptx::abi::plan_entry(&module, ep)
            .map_err(|d| Diagnostics::new(&source.name, &source.text, vec![d]))?;
        out.push_str(&format!("// entry {} (inlined)\n", ep.name));
        out.push_str(&dianran_frontend::text::function_text(&module, ep.function, &plan.function));
        out.push('\n');
    }
    Ok(out)
}
