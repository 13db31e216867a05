//! The `sass` bench's table builds: our PTX and NVRTC's for the GEMM pair and the smallest
//! pair give a SASS mix (or `skipped` without NVRTC), and the GEMM's main loop holds HMMAs.

use dianran_benches::backends::Compiler;
use dianran_benches::kernels::{GEMM, PAIRS};
use dianran_benches::sass;

#[test]
fn the_table_builds_for_the_gemm_and_the_smallest_pair() {
    if !dianran_verify::tools::require_that(
        sass::tools_available().is_ok(),
        "ptxas or nvdisasm not found",
    ) {
        return;
    }
    let small = PAIRS.iter().find(|p| p.sample == "double_unicode.wgsl").expect("pair listed");
    let rows = [sass::measure_pair(small, 80), sass::measure_pair(&GEMM, 80)];
    let ours = rows[0].get(Compiler::Ours).as_ref().expect("our PTX's SASS");
    assert!(ours.mix.total > 0 && ours.mix.tensor == 0, "{ours:?}");
    assert!(ours.main_loop().is_none());
    let gemm = rows[1].get(Compiler::Ours).as_ref().expect("our GEMM's SASS");
    let main = gemm.main_loop().expect("the GEMM has a main loop with HMMAs");
    assert!(main.mix.tensor > 0 && main.mix.per_tensor().is_some());
    for row in &rows {
        match row.get(Compiler::Nvrtc) {
            Ok(k) => assert!(k.mix.total > 0, "{k:?}"),
            Err(e) => assert!(e.starts_with("skipped"), "{e}"),
        }
        if let Ok(k) = row.get(Compiler::Nvrtc) {
            if row.kernel.starts_with("gemm") {
                assert!(k.main_loop().is_some_and(|l| l.mix.tensor > 0), "NVRTC's GEMM: {k:?}");
            }
        }
    }
    let table = sass::render(&rows);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("kernel"), "{table}");
    // Header, rule, one line per compiler and kernel, one blank line between the kernels.
    let per_kernel = sass::compilers().len();
    assert_eq!(lines.len(), 2 + 2 * per_kernel + 1, "{table}");
    assert!(lines[2].starts_with("double_unicode  ours"), "{table}");
    assert!(sass::notes(&rows).is_empty(), "{:?}", sass::notes(&rows));
}
