//! Workgroup matrices in MSL: Metal 4's `matmul2d` by default, `simdgroup_matrix` pieces
//! with `no_metal4` (docs/workgroup-matrix.md). What the translation must say is checked here; the
//! clang check against the Metal 4 stub (`clang_syntax.rs`) checks that it is well-formed.

fn compile(name: &str, src: &str) -> dianran_frontend::ir::Module {
    dianran_frontend::compile(name, src, &Default::default()).expect("the shader compiles")
}

fn sample(name: &str) -> dianran_frontend::ir::Module {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/samples")
        .join(format!("{name}.wgsl"));
    compile(name, &std::fs::read_to_string(path).expect("sample exists"))
}

fn print(
    m: &dianran_frontend::ir::Module,
    fast_math: bool,
    no_metal4: bool,
) -> dianran_msl::MslOutput {
    dianran_msl::write_module_with(m, &dianran_msl::Options { fast_math, no_metal4 })
}

#[test]
fn tile_gemm_prints_the_metal4_translation() {
    let out = print(&sample("tile_gemm"), false, false);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.metal4);
    let t = &out.text;
    for needle in [
        "#include <metal_tensor>\n",
        "#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n",
        "MTLGPUFamilyMetal4",
        // m = n = 64, K = 32, both operands row-major (no transpose), precise.
        "matmul2d_descriptor(64, 64, 32, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate), metal::execution_simdgroups<4>>",
        "using _dr_wgm_left = metal::tensor<threadgroup half, metal::dextents<int32_t, 2>, metal::tensor_inline>;",
        "using _dr_wgm_tile = _dr_wgm_op::cooperative_tensor_destination_t<_dr_wgm_left, _dr_wgm_right, float>;",
        // A is 64 x K with K contiguous: extents (K, 64), strides {1, stride}.
        "_dr_wgm_left _dr_wgm_a(&tile_a[_dr_wgm_ao], metal::dextents<int32_t, 2>(32, 64), metal::array<int32_t, 2>{1, int32_t(_dr_wgm_as)});",
        // B is K x 64 with the 64 columns contiguous: extents (64, K).
        "_dr_wgm_right _dr_wgm_b(&tile_b[_dr_wgm_bo], metal::dextents<int32_t, 2>(64, 32), metal::array<int32_t, 2>{1, int32_t(_dr_wgm_bs)});",
        "_dr_wgm_mm.run(_dr_wgm_a, _dr_wgm_b, _dr_wgm_acc);",
        // The partial-tile store is truncated element by element.
        "if (_dr_wgm_c < _dr_wgm_cols && _dr_wgm_r < _dr_wgm_rows) {",
        // The accumulator lives in a variable across the loop.
        "_dr_wgm_tile acc = _dr_wgm_splat(0.0f);",
    ] {
        assert!(t.contains(needle), "missing `{needle}` in\n{t}");
    }
    assert!(!t.contains("struct alignas(4) _dr_wgm_tile"), "the portable struct is gone");
}

#[test]
fn majorness_and_fast_math_reach_the_descriptor() {
    // tile_gemm_f32 reads B as its transpose (col_major): transpose_right.
    let out = print(&sample("tile_gemm_f32"), true, false);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(
        out.text.contains("matmul2d_descriptor(64, 64, 32, false, true, true,"),
        "{}",
        out.text
    );
    assert!(out.text.contains("metal::dextents<int32_t, 2>(32, 64)"));
}

#[test]
fn no_metal4_prints_simdgroup_matrix_pieces() {
    let out = print(&sample("tile_gemm"), false, true);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(!out.metal4);
    let t = &out.text;
    assert!(!t.contains("metal_tensor"));
    for needle in [
        "#include <metal_simdgroup_matrix>\n",
        "struct _dr_wgm_tile {\n    simdgroup_float8x8 m[16];\n};",
        // Simdgroup s holds rows 16s ..; A's two 8-row pieces, row-major, not transposed.
        "const uint _dr_wgm_row0 = 16u * (_dr_wgm_lid / 32u);",
        "simdgroup_load(_dr_wgm_x[_dr_wgm_i], &tile_a[_dr_wgm_ao + (_dr_wgm_row0 + 8u * _dr_wgm_i) * _dr_wgm_as + _dr_wgm_k], ulong(_dr_wgm_as), ulong2(0), false);",
        "simdgroup_multiply_accumulate(_dr_wgm_acc.m[8u * _dr_wgm_i + _dr_wgm_j], _dr_wgm_x[_dr_wgm_i], _dr_wgm_y, _dr_wgm_acc.m[8u * _dr_wgm_i + _dr_wgm_j]);",
        // Stores go through the staging slot, truncated element by element.
        "simdgroup_store(_dr_wgm_t.m[_dr_wgm_p], _coop_stage, 8);",
        "if (_dr_wgm_c < _dr_wgm_cols && _dr_wgm_r < _dr_wgm_rows) {",
        // The entry declares the slots (one of 64 floats per simdgroup).
        "threadgroup float _coop_stages[256];",
    ] {
        assert!(t.contains(needle), "missing `{needle}` in\n{t}");
    }
    // The transpose (tile_gemm_f32's B is read col_major) loads transposed.
    let out = print(&sample("tile_gemm_f32"), false, true);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.text.contains("ulong(_dr_wgm_bs), ulong2(0), true);"), "{}", out.text);
}

#[test]
fn modules_without_tiles_are_unchanged() {
    let out = print(&sample("gemm_tiled_f16"), false, false);
    assert!(!out.metal4);
    assert!(!out.text.contains("metal_tensor") && !out.text.contains("_dr_wgm"));
}

#[test]
fn a_second_product_configuration_is_a_diagnostic() {
    let src = "enable f16;\nenable dianran_workgroup_matrix;\n\
        var<workgroup> x: array<f16, 8192>;\nvar<workgroup> y: array<f32, 8192>;\n\
        @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
        @compute @workgroup_size(128)\nfn main() {\n\
        var acc = workgroup_matrix_result<f32, 64, 64>();\n\
        acc = workgroupMatrixMultiplyAccumulate<32, row_major, row_major>(&x, 0u, 32u, &x, 0u, 64u, acc);\n\
        acc = workgroupMatrixMultiplyAccumulate<16, row_major, row_major>(&y, 0u, 16u, &y, 0u, 64u, acc);\n\
        workgroupMatrixStore<row_major>(&out, 0u, acc, 64u);\n}\n";
    let m = compile("two.wgsl", src);
    let out = print(&m, false, false);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    let d = &out.errors[0];
    assert!(d.message.contains("one product configuration"), "{}", d.message);
    assert!(d.help.as_deref().is_some_and(|h| h.contains("--no-metal4")), "{:?}", d.help);
    // The simdgroup form takes any mix.
    let out = print(&m, false, true);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
}
