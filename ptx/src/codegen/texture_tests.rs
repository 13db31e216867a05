//! Texture selection: the parameter convention, the instructions each WGSL texture builtin
//! becomes, the diagnostics for what CUDA cannot express, and ptxas acceptance.

use super::tests::{ptxas, skip_or_fail};
use super::*;

fn compile_wgsl(src: &str) -> CompiledPtx {
    let m = dianran_frontend::compile("t.wgsl", src, &unchecked())
        .unwrap_or_else(|e| panic!("frontend: {e:?}"));
    compile_module(&m, &Options::default())
}

/// Compiles `src`, requires no diagnostics, a parser round trip, and (when installed) ptxas
/// for sm_80 and sm_90.
fn compile_ok(src: &str, tag: &str) -> CompiledPtx {
    let out = compile_wgsl(src);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let parsed = crate::parse_module(&out.text).unwrap_or_else(|e| panic!("parse: {e:?}"));
    parsed.validate().unwrap_or_else(|e| panic!("validate: {e:?}"));
    assert_eq!(crate::print_module(&parsed).ok().as_deref(), Some(out.text.as_str()));
    for sm in [80, 90] {
        let mut text = out.text.clone();
        if sm == 90 {
            text = text.replace(".target sm_80", ".target sm_90");
        }
        match ptxas(&text, sm, tag) {
            None => skip_or_fail("ptxas"),
            Some(r) => r.unwrap_or_else(|e| panic!("ptxas sm_{sm}: {e}\n{}", out.text)),
        }
    }
    out
}

const LOAD_STORE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var src: texture_2d<f32>;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(3) var ints: texture_2d_array<i32>;
@group(0) @binding(4) var vol: texture_3d<u32>;
@group(0) @binding(5) var words: texture_storage_2d_array<r32float, read_write>;
@group(0) @binding(6) var halves: texture_storage_3d<rgba16float, write>;
@group(0) @binding(7) var depth: texture_depth_2d;
@group(0) @binding(8) var line: texture_1d<f32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = vec2<i32>(id.xy);
    let t = textureLoad(src, c, 0);
    textureStore(dst, c, t);
    let i = textureLoad(ints, c, 1, 0);
    let v = textureLoad(vol, vec3<i32>(c, 2), 1);
    let w = textureLoad(words, c, 3);
    textureStore(words, c, 3, w + vec4<f32>(1.0));
    textureStore(halves, vec3<u32>(id), vec4<f32>(f32(i.x), f32(v.y), 0.5, 1.0));
    let d = textureLoad(depth, c, 0);
    let l = textureLoad(line, c.x, 0);
    let dims = textureDimensions(src, 1u);
    let layers = textureNumLayers(ints);
    let levels = textureNumLevels(vol);
    let sdims = textureDimensions(dst);
    out[id.x] = vec4<f32>(d + l.x, f32(dims.x + layers + levels), f32(sdims.y), t.w);
}
"#;

#[test]
fn load_store_and_queries() {
    let out = compile_ok(LOAD_STORE, "tex_load_store");
    let e = &out.entries[0];
    let want: Vec<String> = (0..9).map(|b| format!("p_g0_b{b}")).collect();
    assert_eq!(e.params, want);
    assert!(e.flags.contains(EntryFlags::TEXTURES));
    let t = &out.text;
    for s in [
        "tex.level.2d.v4.f32.s32",
        "tex.level.a2d.v4.s32.s32",
        "tex.level.3d.v4.u32.s32",
        "tex.level.1d.v4.f32.s32",
        "sust.b.2d.b32.zero",
        "suld.b.a2d.b32.zero",
        "sust.b.a2d.b32.zero",
        "sust.b.3d.v2.b32.zero",
        "txq.level.width.b32",
        "txq.array_size.b32",
        "txq.num_mipmap_levels.b32",
        "suq.height.b32",
        "bfi.b32",
    ] {
        assert!(t.contains(s), "missing {s}:\n{t}");
    }
    // Texture objects are handles: no cvta of the texture parameters.
    assert_eq!(t.matches("cvta.to.global.u64").count(), 1, "{t}");
}

const SAMPLE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(1) @binding(0) var img: texture_2d<f32>;
@group(1) @binding(1) var arr: texture_2d_array<f32>;
@group(1) @binding(2) var cube: texture_cube<f32>;
@group(1) @binding(3) var vol: texture_3d<f32>;
@group(1) @binding(4) var shadow: texture_depth_2d;
@group(2) @binding(0) var lin: sampler;
@group(2) @binding(1) var near: sampler;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = vec2<f32>(f32(id.x) / 64.0, 0.25);
    let a = textureSampleLevel(img, lin, uv, 0.0);
    let b = textureSampleLevel(img, near, uv, 1.5);
    let c = textureSampleLevel(arr, lin, uv, 2, 0.0);
    let d = textureSampleLevel(cube, lin, vec3<f32>(uv, 1.0), 0.0);
    let e = textureSampleGrad(vol, near, vec3<f32>(uv, 0.5), vec3<f32>(0.1), vec3<f32>(0.2));
    let f = textureGather(1, img, lin, uv);
    let g = textureSampleLevel(shadow, near, uv, 1);
    let h = textureGather(shadow, near, uv);
    let dims = textureDimensions(img);
    out[id.x] = a + b + c + d + e + f + h + vec4<f32>(g, f32(dims.x), 0.0, 0.0);
}
"#;

#[test]
fn sampling_pairs_and_instructions() {
    let out = compile_ok(SAMPLE, "tex_sample");
    let e = &out.entries[0];
    assert_eq!(
        e.params,
        [
            "p_g0_b0",
            "p_g1_b0_s2_b0",
            "p_g1_b0_s2_b1",
            "p_g1_b1_s2_b0",
            "p_g1_b2_s2_b0",
            "p_g1_b3_s2_b1",
            "p_g1_b4_s2_b1",
        ]
    );
    assert_eq!(crate::abi::pair_param_binding("p_g1_b4_s2_b1"), Some(((1, 4), (2, 1))));
    assert_eq!(crate::abi::param_binding("p_g1_b4_s2_b1"), None);
    let t = &out.text;
    for s in [
        "tex.level.2d.v4.f32.f32",
        "tex.level.a2d.v4.f32.f32",
        "tex.level.cube.v4.f32.f32",
        "tex.grad.3d.v4.f32.f32",
        "tld4.g.2d.v4.f32.f32",
        "tld4.r.2d.v4.f32.f32",
        "cvt.rn.f32.s32",
        "txq.level.width.b32",
    ] {
        assert!(t.contains(s), "missing {s}:\n{t}");
    }
}

const COMPARE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var shadow: texture_depth_2d;
@group(0) @binding(2) var layers: texture_depth_2d_array;
@group(0) @binding(3) var cmp: sampler_comparison;
@group(0) @binding(4) var near: sampler;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = vec2<f32>(f32(id.x) / 64.0, 0.25);
    let a = textureGatherCompare(shadow, cmp, uv, 0.5);
    let b = textureSampleCompareLevel(shadow, cmp, uv, 0.25);
    let c = textureSampleCompareLevel(layers, cmp, uv, 1, 0.75);
    let d = textureGatherCompare(layers, cmp, uv, 2u, 0.125);
    let e = textureGather(shadow, near, uv);
    out[id.x] = a + d + e + vec4<f32>(b, c, 0.0, 0.0);
}
"#;

#[test]
fn depth_comparison_is_emulated_with_a_compare_word() {
    let out = compile_ok(COMPARE, "tex_compare");
    let e = &out.entries[0];
    assert_eq!(
        e.params,
        [
            "p_g0_b0",
            "p_g0_b1_s0_b3",
            "p_g0_b1_s0_b3_cmp",
            "p_g0_b1_s0_b4",
            "p_g0_b2_s0_b3",
            "p_g0_b2_s0_b3_cmp",
        ]
    );
    assert_eq!(crate::abi::compare_param_binding("p_g0_b2_s0_b3_cmp"), Some(((0, 2), (0, 3))));
    assert_eq!(crate::abi::compare_param_binding("p_g0_b2_s0_b3"), None);
    assert_eq!(crate::abi::pair_param_binding("p_g0_b2_s0_b3_cmp"), None);
    assert_eq!(crate::abi::param_binding("p_g0_b2_s0_b3_cmp"), None);
    let t = &out.text;
    for s in [
        ".param .u32 p_g0_b1_s0_b3_cmp",
        ".param .u64 p_g0_b1_s0_b3,",
        "ld.param.u32",
        "tld4.r.2d.v4.f32.f32",
        "tld4.r.a2d.v4.f32.f32",
        "tex.level.2d.v4.f32.f32",
        "tex.level.a2d.v4.f32.f32",
        "txq.level.width.b32",
        "txq.level.height.b32",
        "cvt.rmi.f32.f32",
    ] {
        assert!(t.contains(s), "missing {s}:\n{t}");
    }
    // No fused multiply-add: the blend rounds like the reference model.
    assert!(!t.contains("fma."), "{t}");
}

const CUBE_COMPARE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var cube: texture_depth_cube;
@group(0) @binding(2) var cubes: texture_depth_cube_array;
@group(0) @binding(3) var cmp: sampler_comparison;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let dir = vec3<f32>(f32(id.x) * 0.03125 - 1.0, 0.25, -0.5);
    let a = textureGatherCompare(cube, cmp, dir, 0.5);
    let b = textureSampleCompareLevel(cube, cmp, dir, 0.25);
    let c = textureSampleCompareLevel(cubes, cmp, dir, 1, 0.75);
    let d = textureGatherCompare(cubes, cmp, dir, 2u, 0.125);
    out[id.x] = a + d + vec4<f32>(b, c, 0.0, 0.0);
}
"#;

#[test]
fn cube_depth_comparison_selects_the_face_in_the_kernel() {
    let out = compile_ok(CUBE_COMPARE, "tex_cube_compare");
    let e = &out.entries[0];
    assert_eq!(
        e.params,
        ["p_g0_b0", "p_g0_b1_s0_b3", "p_g0_b1_s0_b3_cmp", "p_g0_b2_s0_b3", "p_g0_b2_s0_b3_cmp"]
    );
    let t = &out.text;
    for s in [
        ".param .u32 p_g0_b1_s0_b3_cmp",
        ".param .u32 p_g0_b2_s0_b3_cmp",
        "tld4.r.cube.v4.f32.f32",
        "tld4.r.acube.v4.f32.f32",
        "tex.level.cube.v4.f32.f32",
        "tex.level.acube.v4.f32.f32",
        "txq.level.width.b32",
        "txq.level.height.b32",
        // Face selection: major axis by |x|, |y|, |z|; s, t = 0.5 * (sc / ma + 1).
        "abs.f32",
        "setp.ge.f32",
        "div.rn.f32",
        "cvt.rmi.f32.f32",
    ] {
        assert!(t.contains(s), "missing {s}:\n{t}");
    }
    // The cube array's coordinate vector is (cube index, x, y, z), the cube's (x, y, z, pad).
    let line = |s: &str| t.lines().find(|l| l.contains(s)).unwrap_or_else(|| panic!("no {s}"));
    for s in ["tld4.r.cube", "tld4.r.acube"] {
        let coords = line(s).rsplit_once('{').map(|x| x.1).unwrap_or_default();
        assert_eq!(coords.matches('%').count(), 4, "{}", line(s));
    }
    // Two divisions (s and t) per linear comparison, none contracted into an fma: the one
    // `fma` is the source's own `f32(id.x) * 0.03125 - 1.0`, contracted in the SSA.
    assert_eq!(t.matches("div.rn.f32").count(), 4, "{t}");
    assert_eq!(t.matches("fma.").count(), 1, "{t}");
}

const OFFSETS: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var img: texture_2d<f32>;
@group(0) @binding(2) var arr: texture_2d_array<f32>;
@group(0) @binding(3) var vol: texture_3d<f32>;
@group(0) @binding(4) var shadow: texture_depth_2d;
@group(0) @binding(5) var s: sampler;
@group(0) @binding(6) var cmp: sampler_comparison;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = vec2<f32>(f32(id.x) / 64.0, 0.25);
    let a = textureSampleLevel(img, s, uv, 0.0, vec2<i32>(1, -2));
    let b = textureSampleLevel(arr, s, uv, 1, 0.0, vec2<i32>(-8, 7));
    let c = textureSampleLevel(vol, s, vec3<f32>(uv, 0.5), 0.0, vec3<i32>(1, 2, 3));
    let d = textureSampleGrad(img, s, uv, vec2<f32>(0.1), vec2<f32>(0.2), vec2<i32>(3, 0));
    let e = textureGather(2, img, s, uv, vec2<i32>(0, 1));
    let f = textureGatherCompare(shadow, cmp, uv, 0.5, vec2<i32>(-1, 1));
    let g = textureSampleCompareLevel(shadow, cmp, uv, 0.5, vec2<i32>(2, 2));
    out[id.x] = a + b + c + d + e + f + vec4<f32>(g);
}
"#;

#[test]
fn texel_offsets_are_the_last_operand() {
    let out = compile_ok(OFFSETS, "tex_offsets");
    let t = &out.text;
    // (instruction, brace lists after the object and coordinates: the offset vector, after
    // the two gradients for `tex.grad`).
    for (s, lists) in [
        ("tex.level.2d.v4.f32.f32", 1),
        ("tex.level.a2d.v4.f32.f32", 1),
        ("tex.level.3d.v4.f32.f32", 1),
        ("tex.grad.2d.v4.f32.f32", 3),
        ("tld4.b.2d.v4.f32.f32", 1),
        ("tld4.r.2d.v4.f32.f32", 1),
    ] {
        let line = t.lines().find(|l| l.contains(s)).unwrap_or_else(|| panic!("no {s}:\n{t}"));
        let tail = line.rsplit_once("],").map(|x| x.1).unwrap_or_default();
        assert_eq!(tail.matches('{').count(), lists, "{s}: no offset vector in {line}");
        assert!(tail.trim_end().ends_with("};"), "{line}");
    }
}

#[test]
fn what_cuda_cannot_express_is_a_diagnostic() {
    let cases = [
        (
            "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
             @group(0) @binding(2) var<storage, read_write> o: array<vec4<f32>>;
             @compute @workgroup_size(1) fn ms() { o[0] = textureLoad(t, vec2<i32>(0), 0); }",
            "multisampled",
        ),
        (
            "@group(0) @binding(0) var t: texture_storage_2d<rg11b10ufloat, write>;
             @compute @workgroup_size(1) fn fmt() { textureStore(t, vec2<i32>(0), vec4<f32>(1.0)); }",
            "storage texture format",
        ),
    ];
    for (src, what) in cases {
        let out = compile_wgsl(src);
        assert!(out.entries.is_empty(), "{src}");
        let d = out.diagnostics.first().unwrap_or_else(|| panic!("no diagnostic for {src}"));
        assert!(d.message.contains(what), "{}", d.message);
        assert!(d.message.contains("(entry '"), "{}", d.message);
        assert!(d.span.is_some(), "{}: no span", d.message);
    }
}

/// Frontend options without the bounds policy: texture parameters and instructions without the bounds policy's `p_sizes` and guards.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
