//! Layout parity (docs/msl.md): for every struct in every sample, the field offsets of the printed
//! Metal declaration (computed from Metal's layout rules by `msl::layout`) equal WGSL's.

use dianran_frontend::ir::Type;
use std::path::PathBuf;

#[test]
fn every_sample_struct_has_wgsl_offsets_in_metal() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("samples dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    paths.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in paths {
        let src = std::fs::read_to_string(&path).expect("readable");
        let Ok(m) =
            dianran_frontend::compile(&path.display().to_string(), &src, &Default::default())
        else {
            continue; // the frontend's own tests cover rejected samples
        };
        for (id, ty) in m.types.iter() {
            let Type::Struct { name, members, .. } = ty else { continue };
            // Shader-stage I/O structs are not host-shareable.
            if members.iter().any(|mem| mem.binding.is_some()) {
                continue;
            }
            let wgsl: Vec<(String, u32)> =
                members.iter().map(|mem| (mem.name.clone(), mem.offset)).collect();
            let metal = dianran_msl::layout::layout(&m.types, id);
            checked += 1;
            if wgsl != metal {
                failures.push(format!("{}: {name}: wgsl {wgsl:?} metal {metal:?}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 3, "expected several structs in the samples, found {checked}");
}
