//! PTX text of small WGSL kernels for the features docs/ptx.md maps to particular instructions:
//! f32 atomics and `refract`.

use super::*;

/// The PTX of `src`, which must compile without diagnostics.
fn ptx(src: &str) -> String {
    let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
        .unwrap_or_else(|d| panic!("frontend: {d}"));
    let out = compile_module(&m, &Options::default());
    let msgs: Vec<&str> = out.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(msgs.is_empty(), "diagnostics: {msgs:?}");
    out.text
}

#[test]
fn float_atomics_are_global_f32_atoms() {
    let text = ptx("@group(0) @binding(0) var<storage, read_write> a: array<atomic<f32>>;
        @group(0) @binding(1) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
            let x = f32(g.x);
            o[g.x] = atomicAdd(&a[0], x) + atomicSub(&a[1], x) + atomicExchange(&a[2], x);
            atomicStore(&a[3], atomicLoad(&a[4]));
        }");
    let atoms: Vec<&str> = text.lines().map(str::trim).filter(|l| l.starts_with("atom.")).collect();
    // add, sub (an add of the negation) and exchange; no compare-exchange loop.
    assert_eq!(atoms.len(), 3, "{text}");
    assert_eq!(atoms.iter().filter(|l| l.starts_with("atom.global.add.f32")).count(), 2, "{text}");
    assert!(atoms.iter().any(|l| l.starts_with("atom.global.exch.b32")), "{text}");
    assert!(text.contains("neg.f32"), "atomicSub adds the negation:\n{text}");
    assert!(!text.contains("atom.global.cas"), "{text}");
    assert!(text.contains("ld.relaxed.gpu.global"), "atomicLoad:\n{text}");
    assert!(text.contains("st.relaxed.gpu.global"), "atomicStore:\n{text}");
}

#[test]
fn refract_compiles_in_both_math_modes() {
    let src = "@group(0) @binding(0) var<storage, read_write> o: array<vec4<f32>>;
        @compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
            let v = o[g.x];
            o[g.x] = vec4<f32>(refract(v.xyz, vec3<f32>(0.0, 0.0, 1.0), v.w), 0.0);
        }";
    let text = ptx(src);
    // One correctly rounded square root of k (the refined `rsqrt.approx`, docs/math.md), a
    // predicate for k < 0 choosing zero.
    assert_eq!(text.matches("rsqrt.approx.ftz.f32").count(), 1, "{text}");
    assert!(!text.contains("sqrt.rn.f32"), "{text}");
    assert!(text.contains("setp.lt.f32"), "{text}");
    let m = dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("frontend");
    let fast = compile_module(&m, &Options { fast_math: true, ..Options::default() });
    assert!(fast.diagnostics.is_empty());
    assert_eq!(fast.text.matches("sqrt.rn.f32").count(), 1);
}

#[test]
fn immediates_are_one_by_value_parameter_after_the_others() {
    let text = ptx("struct P { scale: f32, n: u32, t: array<vec4<f32>, 2> }
        var<immediate> p: P;
        @group(0) @binding(0) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
            if g.x < arrayLength(&o) && g.x < p.n {
                o[g.x] = o[g.x] * p.scale + p.t[g.x % 2u][g.x % 4u];
            }
        }");
    // The buffer, the sizes (arrayLength), then the 48 bytes of `P` by value, 16-aligned.
    let params: Vec<&str> =
        text.lines().map(str::trim).filter(|l| l.starts_with(".param")).collect();
    assert_eq!(
        params,
        [".param .u64 p_g0_b0,", ".param .u64 p_sizes,", ".param .align 16 .b8 p_immediates[48]"],
        "{text}"
    );
    // Read in place: the parameter's address, then `ld.param` (the runtime index included).
    assert!(text.contains(", p_immediates;"), "{text}");
    assert!(
        text.lines().any(|l| l.trim().starts_with("ld.param.") && l.contains("[%rd")),
        "{text}"
    );
}

#[test]
fn unit_numerators_are_reciprocals_unless_the_kernel_divides() {
    let src = |extra: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(32) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
            let x = o[g.x];
            o[g.x] = 1.0 / x - (-1.0 / (x + 1.0)){extra};
        }}"
        )
    };
    // Alone, `1.0 / x` and `-1.0 / x` are `rcp.rn` (of `-x`): ptxas's shorter expansion.
    let text = ptx(&src(""));
    assert_eq!(text.matches("rcp.rn.f32").count(), 2, "{text}");
    assert!(!text.contains("div.rn"), "{text}");
    // Beside another division they share its slow path as `div.rn.f32 d, 1.0, x`.
    let text = ptx(&src(" + x / o[0]"));
    assert!(!text.contains("rcp.rn"), "{text}");
    assert_eq!(text.matches("div.rn.f32").count(), 3, "{text}");
    assert!(text.contains("0f3F800000, "), "{text}");
}
