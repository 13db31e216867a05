//! The cubin reader (`dianran_verify::cubin`, the `object` crate) agrees with `ptxas -v`'s own
//! report on registers, shared memory and stack frame for every compute sample and real-world
//! kernel, on sm_80 and sm_90.

use dianran_verify::{cubin, ptxas, tools};

#[test]
fn cubin_facts_match_ptxas_verbose() {
    if tools::require("ptxas", tools::ptxas()).is_none() {
        return;
    }
    let root = tools::workspace_root().expect("workspace root");
    let mut files = Vec::new();
    for dir in ["tests/samples", "tests/realworld"] {
        for e in std::fs::read_dir(root.join(dir)).expect("kernels").flatten() {
            if e.path().extension().is_some_and(|x| x == "wgsl") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for file in &files {
        let src = std::fs::read_to_string(file).expect("reads");
        let Ok(m) = dianran_frontend::compile("k.wgsl", &src, &Default::default()) else {
            continue;
        };
        for sm in [80, 90] {
            let opts = dianran_ptx::codegen::Options { sm, ..Default::default() };
            let out = dianran_ptx::codegen::compile_module(&m, &opts);
            if out.entries.is_empty() {
                continue;
            }
            let report = ptxas::assemble(&out.text, sm).expect("ptxas accepts our PTX");
            let facts = cubin::read(&report.cubin).expect("the cubin reads");
            let name = file.display();
            assert_eq!(facts.len(), report.kernels.len(), "{name} sm_{sm}: kernel count");
            for v in &report.kernels {
                let f = facts.iter().find(|f| f.kernel == v.kernel).expect("kernel in the cubin");
                assert_eq!(f.registers, v.registers, "{name} sm_{sm} {}: registers", v.kernel);
                assert_eq!(f.shared_bytes, u64::from(v.shared_bytes), "{name} sm_{sm}: shared");
                assert_eq!(f.stack_bytes, v.stack_bytes, "{name} sm_{sm}: stack frame");
                assert!(f.code_bytes > 0 && f.code_bytes.is_multiple_of(16), "{name}: code size");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} kernels checked");
}
