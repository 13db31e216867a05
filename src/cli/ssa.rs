//! `dianran ssa FILE`: print the SSA form after the standard passes.

use super::input::SourceArgs;
use super::Failure;

/// Arguments of `ssa`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Compiles the file and returns its SSA text.
pub fn execute(args: &Args) -> Result<String, Failure> {
    let (_, module) = args.source.compile()?;
    Ok(dianran_frontend::text::module_text(&module))
}
