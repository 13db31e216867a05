//! What WebGPU's bounds policy costs (`docs/bounds.md`): for every kernel pair's WGSL at sm_80,
//! the checks emitted and eliminated, `ptxas -v` registers and static SASS instructions (the
//! whole kernel and its hottest loop) with the default policy against `--bounds-checks off`.
//!
//! Without ptxas or nvdisasm the bench prints `skipped: ... not found` and exits 0. Arguments
//! that do not start with `-` keep only the kernels whose name contains one of them.

use dianran_benches::bounds;
use dianran_benches::kernels::PAIRS;

/// The architecture of the table (the GEMMs' `mma.sync` shapes target sm_80 first).
const SM: u32 = 80;

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if let Err(line) = dianran_benches::sass::tools_available() {
        println!("{line}");
        return;
    }
    let rows: Vec<bounds::Row> = PAIRS
        .iter()
        .filter(|p| filters.is_empty() || filters.iter().any(|f| p.sample.contains(f.as_str())))
        .map(|pair| {
            eprintln!("measuring {} sm_{SM}", pair.sample);
            bounds::measure(pair, SM)
        })
        .collect();
    println!(
        "\nBounds policy cost at sm_{SM}: default (checks on) against --bounds-checks off; \
         SASS = static instructions (nvdisasm on ptxas's cubin); hot loop = the GEMM K loop, \
         else the largest innermost loop"
    );
    print!("{}", bounds::render(&rows));
}
