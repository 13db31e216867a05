use super::*;

fn module(src: &str) -> ir::Module {
    dianran_frontend::compile("t.wgsl", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn renames_llvm_params_to_ours() {
    let params = vec!["p_g0_b0".to_string(), "p_g0_b1".into()];
    let line = "\tld.param.u64 \t%rd1, [k_param_1]; // k_param_0 xk_param_0";
    assert_eq!(
        rename_params(line, "k_param_", &params),
        "\tld.param.u64 \t%rd1, [p_g0_b1]; // p_g0_b0 xk_param_0"
    );
}

#[test]
fn doubles_a_buffer() {
    let m = module(
        "@group(0) @binding(0) var<storage, read_write> data: array<f32>;
         @compute @workgroup_size(64) fn 加倍(@builtin(global_invocation_id) id: vec3<u32>) {
             if id.x < arrayLength(&data) { data[id.x] = data[id.x] * 2.0; }
         }",
    );
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}\n{}", out.diagnostics, out.ir);
    let e = &out.entries[0];
    assert_eq!(e.ptx_name, "yy_e5_8a_a0_e5_80_8d");
    assert_eq!(e.params, ["p_g0_b0", "p_sizes"]);
    assert!(out.text.is_ascii());
    assert!(out.text.contains(".entry yy_e5_8a_a0_e5_80_8d"), "{}", out.text);
    assert!(
        out.text.contains(".param .u64 .ptr .global .align 1 p_g0_b0")
            || out.text.contains("p_g0_b0"),
        "{}",
        out.text
    );
    assert!(out.text.contains(".reqntid 64, 1, 1"), "{}", out.text);
    assert!(!out.text.contains("_param_"), "{}", out.text);
}
