//! Every MSL the printer emits for the samples passes `clang++ -fsyntax-only -std=c++20`
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
        // Precise math (the default) and fast math print different calls; both must compile,
        // and workgroup matrices also in their portable form (`--no-metal4`).
        let mut modes = vec![(false, false), (true, false)];
        if !module.tiles.is_empty() {
            modes.push((false, true));
        }
        for (fast_math, no_metal4) in modes {
            let opts = dianran_msl::Options { fast_math, no_metal4 };
            let out = dianran_msl::write_module_with(&module, &opts);
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
                let mode = match (fast_math, no_metal4) {
                    (true, _) => " (fast math)",
                    (_, true) => " (--no-metal4)",
                    _ => "",
                };
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

/// The Metal 4 stub is a check that can fail: a product whose operand is not a tensor, or
/// run on a temporary, is rejected, while the form the printer writes is accepted.
#[test]
fn metal4_stub_rejects_misused_tensor_operations() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = stub_dir().join("metal4");
    let _ = std::fs::create_dir_all(&dir);
    write_stub(&dir).expect("temp dir is writable");
    let program = |run: &str| {
        format!(
            "#include <metal_stdlib>\n#include <metal_tensor>\n#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\nusing namespace metal;\nusing Op = mpp::tensor_ops::matmul2d<mpp::tensor_ops::matmul2d_descriptor(64, 64, 32, false, true, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate), metal::execution_simdgroups<4>>;\nusing L = metal::tensor<device half, metal::dextents<int32_t, 2>, metal::tensor_inline>;\nusing R = metal::tensor<threadgroup half, metal::dextents<int32_t, 2>, metal::tensor_inline>;\nkernel void k(device half* a [[buffer(0)]], threadgroup half* b) {{\n    Op op;\n    auto acc = op.get_destination_cooperative_tensor<L, R, float>();\n    L ta(a, metal::dextents<int32_t, 2>(32, 64), metal::array<int32_t, 2>{{1, 32}});\n    R tb(b, metal::dextents<int32_t, 2>(32, 64));\n    {run}\n}}\n"
        )
    };
    syntax_check(&clang, &dir, &program("op.run(ta, tb, acc);"), "good")
        .expect("the printer's form is accepted");
    for bad in
        ["op.run(ta, a, acc);", "op.run(L(a, metal::dextents<int32_t, 2>(32, 64)), tb, acc);"]
    {
        assert!(
            syntax_check(&clang, &dir, &program(bad), "bad").is_err(),
            "the stub must reject `{bad}`"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
