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

/// Compiles `src` through LLVM and returns the PTX, failing on any diagnostic; ptxas checks it
/// for sm_80 and sm_90 (when available; under CI=true a missing ptxas fails).
fn ptx_of(src: &str) -> String {
    let m = module(src);
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}\n{}", out.diagnostics, out.ir);
    let found = dianran_verify::tools::ptxas();
    if dianran_verify::tools::require("ptxas", found).is_some() {
        for sm in [80, 90] {
            let text = compile_module(&m, &Options { sm, ..Default::default() }).text;
            if let Err(e) = dianran_verify::ptxas::check(&text, sm) {
                panic!("ptxas sm_{sm}: {e}\n{text}");
            }
        }
    }
    out.text
}

/// Blocks nothing branches to (a loop left only by `return`, an `if` whose arms both return)
/// lose their `phi`s instead of failing LLVM's verifier.
#[test]
fn dead_merge_blocks_verify() {
    let text = ptx_of(
        "@group(0) @binding(0) var<storage, read_write> d: array<u32>;
         fn f(x: u32) -> u32 {
             if x > 3u { return 1u; } else { return 2u; }
         }
         @compute @workgroup_size(32) fn k(@builtin(local_invocation_index) i: u32) {
             var n = i;
             loop {
                 if n > 100u { d[i] = f(n); return; }
                 n = n * 2u + 1u;
             }
         }",
    );
    assert!(text.contains(".entry k"), "{text}");
}

/// Loops with carried state, `continue`, `break if`, a `switch` with a default in the middle,
/// workgroup memory and a private variable.
#[test]
fn structured_control_flow() {
    let text = ptx_of(
        "@group(0) @binding(0) var<storage, read_write> d: array<i32>;
         var<workgroup> tile: array<i32, 64>;
         var<private> acc: i32 = 7;
         @compute @workgroup_size(64) fn k(@builtin(local_invocation_index) i: u32) {
             tile[i] = d[i];
             workgroupBarrier();
             var s = 0;
             for (var j = 0u; j < 64u; j++) {
                 if j == i { continue; }
                 switch tile[j] % 4 {
                     case 0: { s += 1; }
                     case 1, default: { s -= tile[j]; }
                     case 3: { s = s / tile[j]; }
                 }
             }
             var m = 0;
             loop { m += 1; continuing { break if m > s; } }
             acc += s + m;
             d[i] = acc >> u32(s);
         }",
    );
    assert!(text.contains(".shared"), "{text}");
    assert!(text.contains("bar.sync"), "{text}");
}

/// LLVM emits exactly the SSA's fused multiply-adds: `a * b + c` is one `fma.rn` by default
/// (the contraction pass), and under `no_fma` LLVM's NVPTX backend forms none of its own and
/// rounds the product and the sum explicitly (`.rn`, so ptxas does not contract them either).
#[test]
fn fmas_are_exactly_the_ssa_ones() {
    let src = "@group(0) @binding(0) var<storage, read_write> d: array<f32>;
         @compute @workgroup_size(32) fn k(@builtin(global_invocation_id) id: vec3<u32>) {
             d[id.x] = d[id.x] * d[id.x + 32u] + d[id.x + 64u];
         }";
    let text = |no_fma| {
        let opts = dianran_frontend::Options { no_fma, ..Default::default() };
        let m = dianran_frontend::compile("t.wgsl", src, &opts).unwrap_or_else(|d| panic!("{d}"));
        let out = compile_module(&m, &Options::default());
        assert!(out.diagnostics.is_empty(), "{:?}\n{}", out.diagnostics, out.ir);
        out.text
    };
    let fused = text(false);
    assert_eq!(fused.matches("fma.rn.f32").count(), 1, "{fused}");
    let unfused = text(true);
    assert!(!unfused.contains("fma"), "{unfused}");
    assert!(unfused.contains("mul.rn.f32") && unfused.contains("add.rn.f32"), "{unfused}");
}
