//! Every compute sample in `tests/samples/` compiles through the LLVM backend with no
//! diagnostic, for sm_80 and sm_90, and ptxas accepts the PTX for that target (the real-world
//! kernels get the same check in `tests/realworld.rs`; `verify/tests/agreement.rs` runs the
//! samples' LLVM PTX on the emulator against the interpreter).

use dianran_llvm::{compile_module, Options};
use dianran_verify::tools;
use std::path::PathBuf;

#[test]
fn every_compute_sample_assembles_for_sm80_and_sm90() {
    let ptxas = tools::require("ptxas", tools::ptxas()).is_some();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/samples exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for p in paths {
        let src = std::fs::read_to_string(&p).expect("readable sample");
        let header = dianran_verify::samples::header(&src).expect("sample header");
        if header.dispatch.is_none() {
            continue; // vertex and fragment samples
        }
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let module = match dianran_frontend::compile(&name, &src, &Default::default()) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{name}: frontend: {d}"));
                continue;
            }
        };
        for sm in [80, 90] {
            let out = compile_module(&module, &Options { sm, ..Default::default() });
            for d in &out.diagnostics {
                // Constructs the LLVM backend reports as unsupported by design (README's
                // feature table): only these diagnostics are expected.
                let unsupported = [
                    "the LLVM backend does not support 64-bit types",
                    "the LLVM backend does not support immediate data",
                    "the LLVM backend does not support textures and samplers",
                    "the LLVM backend does not support integer subgroup matrices",
                ];
                if unsupported.iter().any(|u| d.message.starts_with(u)) {
                    println!("{name} sm_{sm}: unsupported by the LLVM backend: {}", d.message);
                    continue;
                }
                failures.push(format!("{name} sm_{sm}: {}", d.message));
            }
            if out.entries.is_empty() {
                continue;
            }
            compiled += 1;
            assert!(out.text.is_ascii(), "{name}: non-ASCII PTX");
            if ptxas {
                if let Err(e) = dianran_verify::ptxas::check(&out.text, sm) {
                    failures.push(format!("{name} sm_{sm}: ptxas: {e}"));
                }
            }
        }
    }
    assert!(compiled >= 120, "only {compiled} sample compilations");
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
