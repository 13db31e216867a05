//! Every sample the frontend accepts prints as WGSL that naga parses and validates, and
//! printing is deterministic. Modules that use Dawn's subgroup matrices or dianran's
//! workgroup matrices print the extension's syntax, which naga cannot read, so their text
//! is checked by the frontend that reads it (naga plus dianran's extension layer); the
//! portable form of workgroup matrices (`Options::portable_matrices`) goes to naga too.

use std::path::PathBuf;

fn samples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "wgsl"));
    v.sort();
    v
}

fn validate(text: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(text).map_err(|e| e.emit_to_string(text))?;
    let caps = dianran_frontend::parse::CAPABILITIES;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(text))?;
    Ok(())
}

#[test]
fn printed_wgsl_of_every_sample_validates() {
    let opts = dianran_wgsl::Options { omit_subgroups_enable: true, ..Default::default() };
    let mut failures = Vec::new();
    let mut printed = 0;
    for path in samples() {
        let src = std::fs::read_to_string(&path).expect("sample is readable");
        let name = path.display().to_string();
        let module = match dianran_frontend::compile(&name, &src, &Default::default()) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{name}: the frontend rejects a sample:\n{d}"));
                continue;
            }
        };
        match dianran_wgsl::write_module(&module, &opts) {
            Ok(text) => {
                printed += 1;
                let extension = module.enables.subgroup_matrix || module.enables.workgroup_matrix;
                let checked = if extension {
                    let portable = dianran_wgsl::Options { portable_matrices: true, ..opts };
                    dianran_frontend::compile(&name, &text, &Default::default())
                        .map(drop)
                        .map_err(|d| d.to_string())
                        .and_then(|()| {
                            if !module.enables.workgroup_matrix {
                                return Ok(());
                            }
                            dianran_wgsl::write_module(&module, &portable)
                                .map_err(|ds| format!("{ds:?}"))
                                .and_then(|t| validate(&t))
                        })
                } else {
                    validate(&text)
                };
                if let Err(e) = checked {
                    failures.push(format!("{name}: printed WGSL is invalid:\n{e}\n---\n{text}"));
                }
                let again = dianran_wgsl::write_module(&module, &opts).ok();
                if again.as_deref() != Some(text.as_str()) {
                    failures.push(format!("{name}: output is not deterministic"));
                }
            }
            Err(ds) => failures.push(format!("{name}: {:?}", ds)),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    eprintln!("validated printed WGSL of {printed} samples");
}
