//! `dianran check FILE`: parse, validate and lower; print the entry table.

use super::input::SourceArgs;
use super::Failure;
use dianran_frontend::ir::{Module, Stage};

/// Arguments of `check`.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// FILE and overrides.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Compiles the file and returns its entry table.
pub fn execute(args: &Args) -> Result<String, Failure> {
    let (_, module) = args.source.compile()?;
    Ok(entry_table(&module))
}

/// One line per entry point: `NAME<TAB>STAGE<TAB>WORKGROUP_SIZE<TAB>PTX_NAME`, the size as
/// `x,y,z` for compute entries and `-` otherwise; PTX_NAME is the `.entry` name docs/abi.md gives
/// a compute entry (`-` for vertex and fragment entries, which are not PTX entries).
pub fn entry_table(m: &Module) -> String {
    let mut out = String::new();
    for ep in &m.entry_points {
        let size = match ep.stage {
            Stage::Compute => {
                let [x, y, z] = ep.workgroup_size;
                format!("{x},{y},{z}")
            }
            Stage::Vertex | Stage::Fragment => "-".to_string(),
        };
        let ptx_name = match ep.stage {
            Stage::Compute => dianran_ptx::names::entry_name(&ep.name),
            Stage::Vertex | Stage::Fragment => "-".to_string(),
        };
        out.push_str(&format!("{}\t{}\t{}\t{}\n", ep.name, ep.stage.name(), size, ptx_name));
    }
    out
}
