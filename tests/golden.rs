//! Golden outputs: the WGSL, MSL and PTX printed for a fixed set of samples, compared byte for byte with `tests/golden/`. Re-bless with
//! `DIANRAN_BLESS=1 cargo test --test golden` and read every diff before committing it.

use std::path::{Path, PathBuf};

/// Samples covering compute, vertex, fragment, textures, atomics, subgroups, f16,
/// cooperative matrices, workgroup matrices (Metal 4 in MSL), and the kernels the benches time (the GEMM and the memory-bound
/// pair).
const GOLDEN: &[&str] = &[
    "double_unicode",
    "struct_layout",
    "loop_continuing",
    "switch_cases",
    "histogram_atomic",
    "subgroup_ops",
    "f16_arith",
    "render_textured",
    "fragment_discard",
    "depth_compare",
    "coop_matmul_16",
    "matmul_tiled",
    "gemm_tiled_f16",
    "saxpy_vec4",
    "softmax_rows",
    "tile_gemm_bias_relu",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var("DIANRAN_BLESS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with the golden file, or rewrites it when blessing. Returns a failure
/// message on mismatch.
fn check(path: &Path, actual: &str) -> Option<String> {
    if bless() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(path, actual).expect("golden file is writable");
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
            Some(format!(
                "{} differs from the output at line {} (re-bless with DIANRAN_BLESS=1 and review the diff)",
                path.display(),
                line + 1
            ))
        }
        Err(_) => Some(format!("{} is missing (bless with DIANRAN_BLESS=1)", path.display())),
    }
}

#[test]
fn printed_outputs_match_golden_files() {
    let mut failures = Vec::new();
    for name in GOLDEN {
        let path = root().join("tests/samples").join(format!("{name}.wgsl"));
        let src = std::fs::read_to_string(&path).expect("golden sample exists");
        let module =
            match dianran_frontend::compile(&format!("{name}.wgsl"), &src, &Default::default()) {
                Ok(m) => m,
                Err(d) => {
                    failures.push(format!("{name}: frontend error\n{d}"));
                    continue;
                }
            };
        let wgsl = match dianran_wgsl::write_module(&module, &Default::default()) {
            Ok(t) => t,
            Err(ds) => ds.iter().map(|d| format!("// error: {}\n", d.message)).collect(),
        };
        failures.extend(check(&root().join(format!("tests/golden/wgsl/{name}.wgsl")), &wgsl));
        let msl = dianran_msl::write_module(&module);
        let mut text = msl.text;
        for d in &msl.errors {
            text.push_str(&format!("// error: {}\n", d.message));
        }
        failures.extend(check(&root().join(format!("tests/golden/msl/{name}.metal")), &text));
        let ptx = dianran_ptx::codegen::compile_module(&module, &Default::default());
        let mut text = ptx.text;
        for d in &ptx.diagnostics {
            text.push_str(&format!("// error: {}\n", d.message));
        }
        assert!(text.is_ascii(), "{name}: PTX must be ASCII");
        failures.extend(check(&root().join(format!("tests/golden/ptx/{name}.ptx")), &text));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `float_math` in both math modes: the precise PTX library and `metal::precise::` (the
/// default), and `--fast-math`'s `.approx` instructions and `metal::fast::`. The fast PTX is the
/// lowering dianran used before precise math became the default.
#[test]
fn math_modes_match_golden_files() {
    let name = "float_math";
    let path = root().join("tests/samples").join(format!("{name}.wgsl"));
    let src = std::fs::read_to_string(&path).expect("golden sample exists");
    let module = dianran_frontend::compile(&format!("{name}.wgsl"), &src, &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let mut failures = Vec::new();
    for (fast_math, suffix) in [(false, ""), (true, ".fast")] {
        let opts = dianran_ptx::codegen::Options { fast_math, ..Default::default() };
        let ptx = dianran_ptx::codegen::compile_module(&module, &opts);
        assert!(ptx.diagnostics.is_empty() && ptx.text.is_ascii());
        failures
            .extend(check(&root().join(format!("tests/golden/ptx/{name}{suffix}.ptx")), &ptx.text));
        let msl = dianran_msl::write_module_with(
            &module,
            &dianran_msl::Options { fast_math, ..Default::default() },
        );
        assert!(msl.errors.is_empty());
        failures.extend(check(
            &root().join(format!("tests/golden/msl/{name}{suffix}.metal")),
            &msl.text,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
