//! What math costs per math-heavy kernel (`dianran_benches::mathcost`): static SASS at sm_80,
//! registers and the emulator's dynamic warp instructions of our backend, the LLVM backend
//! (libdevice) and NVRTC, in precise and fast math, in one table. Counts, not times: the same
//! on every machine.
//!
//! Without ptxas or nvdisasm the bench prints `skipped: ... not found` and exits 0; without
//! NVRTC or the `llvm` feature those cells say `skipped`. Arguments that do not start with `-`
//! keep only the kernels whose name contains one of them.

use dianran_benches::mathcost::{math_kernels, measure_kernel, render, SM};

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if let Err(line) = dianran_benches::sass::tools_available() {
        println!("{line}");
        return;
    }
    let rows: Vec<_> = math_kernels()
        .into_iter()
        .filter(|k| filters.is_empty() || filters.iter().any(|f| k.name.contains(f.as_str())))
        .map(|k| {
            eprintln!("measuring {}", k.name);
            let precise = measure_kernel(&k, false);
            let fast = measure_kernel(&k, true);
            (k, precise, fast)
        })
        .collect();
    println!(
        "\nMath cost per kernel at sm_{SM}: static SASS instructions (nvdisasm on ptxas's \
         cubin) / registers (ptxas -v) / warp instructions of one launch on the PTX emulator; \
         precise = each compiler's default, fast = dianran --fast-math, NVRTC --use_fast_math \
         (the LLVM backend has no fast mode); '-' = no such build\n"
    );
    print!("{}", render(&rows));
}
