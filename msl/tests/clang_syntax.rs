//! Every MSL the printer emits for the samples passes `clang++ -fsyntax-only -std=c++17`
//! against the Metal stub header in `msl/stub/` (types, address-space keywords and functions
//! the printer uses; attributes ignored). This catches syntax and type errors; it is not a
//! Metal compiler. The check itself is `dianran_verify::msl_check`.

use dianran_verify::msl_check::{syntax_check, write_stub};
use std::path::PathBuf;

/// The samples and the third-party kernels in `tests/realworld/`.
fn samples() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v: Vec<PathBuf> = ["tests/samples", "tests/realworld"]
        .iter()
        .filter_map(|d| std::fs::read_dir(root.join(d)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
        .collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "wgsl"));
    v.sort();
    v
}

fn stub_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dianran-metal-stub-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[test]
fn stub_header_compiles_on_its_own() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = stub_dir();
    write_stub(&dir).expect("temp dir is writable");
    let probe = "#include <metal_stdlib>\nusing namespace metal;\nkernel void k(device float* a [[buffer(0)]], uint3 g [[thread_position_in_grid]]) {\n    float4 v = float4(float3(1.0f, 2.0f, 3.0f), 4.0f);\n    const auto s = v.zyx;\n    v.xy = float2(0.5f);\n    a[g.x] = dot(s, float3(1.0f)) + v.w + float(half(1.0h));\n}\n";
    syntax_check(&clang, &dir, probe, "probe").expect("the stub accepts a small kernel");
    let bad = "#include <metal_stdlib>\nusing namespace metal;\nkernel void k(device float* a) { a[0] = float3(1.0f).xq; }\n";
    assert!(syntax_check(&clang, &dir, bad, "bad").is_err(), "a bad swizzle must be rejected");
}

#[test]
fn printed_msl_of_every_sample_passes_clang_syntax_check() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = stub_dir();
    write_stub(&dir).expect("temp dir is writable");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in samples() {
        let src = std::fs::read_to_string(&path).expect("sample is readable");
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let module =
            match dianran_frontend::compile(&path.display().to_string(), &src, &Default::default())
            {
                Ok(m) => m,
                // The frontend's own tests cover inputs it rejects (one real-world kernel is
                // invalid WGSL as published).
                Err(_) if path.parent().is_some_and(|p| p.ends_with("realworld")) => continue,
                Err(d) => {
                    failures.push(format!("{name}: frontend error\n{d}"));
                    continue;
                }
            };
        // Precise math (the default) and fast math print different calls; both must compile.
        for fast_math in [false, true] {
            let out = dianran_msl::write_module_with(&module, &dianran_msl::Options { fast_math });
            for d in out.errors.iter().filter(|_| !fast_math) {
                // A construct MSL cannot express is a diagnostic, not a failure of this test;
                // the printed remainder must still be valid.
                println!("{name}: diagnostic: {}", d.message);
            }
            // Integer subgroup matrices are refused whole (docs/subgroup-matrix.md): the
            // remainder names their undeclared placeholder types, so it is not checked.
            if out.errors.iter().any(|d| d.message.contains("integer subgroup matrices")) {
                println!("{name}: not checked: integer subgroup matrices");
                continue;
            }
            checked += 1;
            if let Err(e) = syntax_check(&clang, &dir, &out.text, &name) {
                let mode = if fast_math { " (fast math)" } else { "" };
                failures.push(format!("{name}{mode}:\n{e}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
