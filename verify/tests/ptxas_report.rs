//! `ptxas -v` over the PTX of every sample (sm_80): writes the registers/spills report to
//! `target/ptxas-report.tsv` and expects zero spills (docs/targets.md: the register pool is large
//! enough that nothing spills).

use std::path::PathBuf;

#[test]
fn ptxas_report_for_every_sample_has_no_spills() {
    if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_none() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("tests/samples"))
        .expect("samples dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    let mut report =
        String::from("SAMPLE\tKERNEL\tREGISTERS\tSPILL_STORES\tSPILL_LOADS\tSHARED_BYTES\n");
    let mut failures = Vec::new();
    for p in paths {
        let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let src = std::fs::read_to_string(&p).expect("readable");
        let m = dianran_frontend::compile(&name, &src, &Default::default())
            .unwrap_or_else(|d| panic!("{name}: every sample compiles: {d}"));
        let ptx = dianran_ptx::codegen::compile_module(&m, &Default::default());
        if ptx.entries.is_empty() {
            continue; // vertex/fragment-only samples
        }
        match dianran_verify::ptxas::check(&ptx.text, 80) {
            Ok(stats) => {
                for k in stats {
                    report.push_str(&format!(
                        "{name}\t{}\t{}\t{}\t{}\t{}\n",
                        k.kernel, k.registers, k.spill_stores, k.spill_loads, k.shared_bytes
                    ));
                    if k.spill_stores + k.spill_loads > 0 {
                        failures.push(format!(
                            "{name}/{}: {} spill stores, {} spill loads",
                            k.kernel, k.spill_stores, k.spill_loads
                        ));
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: ptxas rejected the PTX: {e}")),
        }
    }
    let out = root.join("target/ptxas-report.tsv");
    let _ = std::fs::create_dir_all(root.join("target"));
    let _ = std::fs::write(&out, &report);
    println!("ptxas report written to {}", out.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
