//! One table for every kernel pair, sm_80 then sm_90: compile time, source text -> PTX text,
//! of our backend (WGSL, frontend + codegen), of the LLVM backend (WGSL, frontend +
//! `dianran_llvm::compile_module`: LLVM IR, libdevice, O3, NVPTX) and of NVRTC (the CUDA C++
//! equivalent), the median of a few compiles each after one warm-up; the LLVM/ours and
//! NVRTC/ours time ratios; and `ptxas -v` registers / spill store bytes / spill load bytes of
//! the three PTX files, with registers ours against LLVM's.
//!
//! Kernels a compiler rejects show the first words of its diagnostic (the whole message is a
//! note under the table). Without ptxas the bench says `skipped: ptxas not found` and its
//! columns say `skipped`; without NVRTC, NVRTC's columns do; without the `llvm` feature the
//! bench prints `skipped: built without the llvm feature` and exits 0.
//!
//! `$DIANRAN_BENCH_RUNS` sets the number of timed compiles (default 7); arguments that do not
//! start with `-` keep only the kernels whose name contains one of them.

#[cfg(not(feature = "llvm"))]
fn main() {
    println!(
        "skipped: built without the llvm feature \
         (cargo bench -p dianran-benches --features llvm --bench backends)"
    );
}

#[cfg(feature = "llvm")]
fn main() {
    use dianran_benches::backends;
    use dianran_benches::kernels::PAIRS;
    use dianran_benches::nvrtc::{self, NvrtcError};

    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let runs = backends::runs();
    let with_ptxas = match backends::ptxas_available() {
        Ok(()) => true,
        Err(line) => {
            println!("{line}");
            false
        }
    };
    if let Err(NvrtcError::NotFound(why)) = nvrtc::load() {
        println!("skipped: nvrtc not found ({why}); its columns say skipped");
    }
    let libdevice = match dianran_llvm::libdevice_path() {
        Some(p) => p.display().to_string(),
        None => format!("not found (set {})", dianran_llvm::LIBDEVICE_ENV),
    };
    println!("LLVM {}; libdevice: {libdevice}", dianran_llvm::llvm_version());

    let pairs: Vec<_> = PAIRS
        .iter()
        .filter(|p| filters.is_empty() || filters.iter().any(|f| p.sample.contains(f.as_str())))
        .collect();
    let mut rows = Vec::new();
    for sm in [80, 90] {
        for pair in &pairs {
            eprintln!("measuring {} sm_{sm}", pair.sample);
            rows.push(backends::measure_pair(pair, sm, runs, with_ptxas));
        }
    }
    println!(
        "\nCompile time, source text -> PTX text (median of {runs} after one warm-up, ms): ours = \
         dianran WGSL -> PTX, LLVM = dianran's frontend + the LLVM backend (O3, libdevice), \
         NVRTC = the CUDA C++ equivalent; ptxas -v: registers / spill store bytes / spill load \
         bytes"
    );
    print!("{}", backends::render(&rows));
    for n in backends::notes(&rows) {
        println!("note: {n}");
    }
}
