//! One table for every kernel pair at sm_80: the SASS instruction mix (`nvdisasm` on ptxas's
//! cubin) of our PTX against NVRTC's for the CUDA equivalent, and the LLVM backend's with the
//! `llvm` feature: total SASS instructions, HMMA, LDSM, global loads and stores by width,
//! branches, and the main loop's instructions, HMMAs and instructions per HMMA.
//!
//! Without ptxas or nvdisasm the bench prints `skipped: ... not found` and exits 0; without
//! NVRTC its rows say `skipped`. Arguments that do not start with `-` keep only the kernels
//! whose name contains one of them.

use dianran_benches::kernels::PAIRS;
use dianran_benches::nvrtc::{self, NvrtcError};
use dianran_benches::sass;

/// The architecture of the table: the one the GEMMs' `mma.sync` shapes target first.
const SM: u32 = 80;

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if let Err(line) = sass::tools_available() {
        println!("{line}");
        return;
    }
    if let Err(NvrtcError::NotFound(why)) = nvrtc::load() {
        println!("skipped: nvrtc not found ({why}); its rows say skipped");
    }
    if !cfg!(feature = "llvm") {
        println!("LLVM rows: skipped (built without the llvm feature)");
    }
    let rows: Vec<sass::Row> = PAIRS
        .iter()
        .filter(|p| filters.is_empty() || filters.iter().any(|f| p.sample.contains(f.as_str())))
        .map(|pair| {
            eprintln!("disassembling {} sm_{SM}", pair.sample);
            sass::measure_pair(pair, SM)
        })
        .collect();
    println!(
        "\nSASS instruction mix at sm_{SM} (static counts, nvdisasm on ptxas's cubin): HMMA = \
         tensor-core ops; LDG/STG cells are `total [bits:count ...]`; main loop = the loop \
         with HMMAs that holds no other such loop (the GEMM K loop)"
    );
    print!("{}", sass::render(&rows));
    for n in sass::notes(&rows) {
        println!("note: {n}");
    }
}
