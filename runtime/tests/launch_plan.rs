//! The launcher against entries that the compiler reports: object plans for textures and
//! samplers (no device needed) and a real launch where a CUDA device exists.
//!
//! An integration test because the entries come from `dianran::compile`, which depends on
//! this crate.

use cudarc::driver::sys;
use dianran_runtime::launch::textures::{
    array_descriptor, plan_objects, texture_descriptor, ObjectPlan,
};
use dianran_runtime::launch::{BufferArg, CudaModule, LaunchError, SamplerArg, TextureArg};
use dianran_runtime::texture::{
    AddressMode, Filter, SamplerDesc, TexDim, TexelFormat, TextureData,
};

const SRC: &str = "struct P { scale: f32, pad: u32 }
    @group(0) @binding(0) var<storage, read_write> data: array<f32>;
    @group(0) @binding(2) var<uniform> p: P;
    @compute @workgroup_size(64) fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
        if id.x < arrayLength(&data) { data[id.x] = data[id.x] * p.scale; }
    }";

/// Where each texture is bound, as the planner takes them.
fn keys(textures: &[TextureArg<'_>]) -> Vec<(u32, u32)> {
    textures.iter().map(|t| (t.group, t.binding)).collect()
}

fn tex(dim: TexDim, f: TexelFormat, w: u32, h: u32, d: u32, l: u32) -> TextureData {
    TextureData::new(dim, f, w, h, d, l).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn immediates_size_follows_the_host_shareable_layout() {
    let c = dianran::compile(
        "i.wgsl",
        "struct P { a: f32, b: vec2<f32>, c: u32 }
        var<immediate> p: P;
        @group(0) @binding(0) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn k() { o[0] = p.a + p.b.y + f32(p.c); }",
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let e = c.entry("k").unwrap_or_else(|| panic!("no entry"));
    // a at 0, b at 8 (vec2 aligns to 8), c at 16, the size rounded up to the struct's
    // alignment of 8: 24 bytes.
    assert_eq!(e.ptx_immediates, 24);
}

#[test]
fn runs_or_reports_no_device() {
    let c = dianran::compile("s.wgsl", SRC, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let ptx = c.ptx.as_ref().unwrap_or_else(|d| panic!("{d}"));
    let module = match CudaModule::load(ptx) {
        Err(LaunchError::NoDevice) => {
            println!("skipped: no CUDA device");
            return;
        }
        m => m.unwrap_or_else(|e| panic!("{e}")),
    };
    let input: Vec<f32> = (0..100).map(|i| i as f32 - 20.0).collect();
    let mut data: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut params: Vec<u8> = [2.5f32.to_le_bytes(), 0u32.to_le_bytes()].concat();
    let e = c.entry("scale").unwrap();
    let mut args = [BufferArg::new(0, 0, &mut data), BufferArg::new(0, 2, &mut params)];
    module.launch(e, [2, 1, 1], &mut args).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<f32> =
        data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let want: Vec<f32> = input.iter().map(|v| v * 2.5).collect();
    assert_eq!(got, want);
    // A bad PTX text carries the JIT log.
    match CudaModule::load(".version 8.0\n.target sm_80\n.address_size 64\nbogus;\n") {
        Err(LaunchError::Load { log, .. }) => assert!(!log.is_empty()),
        other => panic!("expected a load error, got {other:?}"),
    }
    assert_eq!(module.launch(e, [0, 1, 1], &mut []), Err(LaunchError::EmptyGrid([0, 1, 1])));
}

#[test]
fn objects_follow_the_parameter_list() {
    let src = "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var s: sampler;
        @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
        @group(0) @binding(3) var img: texture_storage_2d<r32float, write>;
        @group(0) @binding(4) var u: texture_2d<u32>;
        @compute @workgroup_size(1) fn k() {
            out[0] = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0) + vec4<f32>(textureLoad(u, vec2<i32>(0), 0));
            textureStore(img, vec2<i32>(0), vec4<f32>(1.0)); }";
    let c = dianran::compile("k.wgsl", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let e = c.entry("k").unwrap();
    let mut a = tex(TexDim::D2, TexelFormat::Rgba32Float, 4, 4, 1, 1);
    let mut b = tex(TexDim::D2, TexelFormat::R32Float, 4, 4, 1, 1);
    let mut u = tex(TexDim::D2, TexelFormat::Rgba32Uint, 4, 4, 1, 1);
    let samplers = [SamplerArg { group: 0, binding: 1, sampler: SamplerDesc::default() }];
    let textures = [
        TextureArg { group: 0, binding: 4, texture: &mut u },
        TextureArg { group: 0, binding: 3, texture: &mut b },
        TextureArg { group: 0, binding: 0, texture: &mut a },
    ];
    let plan = plan_objects(e, &keys(&textures), &samplers).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plan,
        [
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Surface { texture: 1 },
            ObjectPlan::Texture { texture: 0, sampler: None, compare: false },
            ObjectPlan::Texture { texture: 2, sampler: Some(0), compare: false },
        ]
    );
    let err = plan_objects(e, &keys(&textures[..2]), &samplers).unwrap_err();
    assert!(matches!(err, LaunchError::MissingBuffer { group: 0, binding: 0, .. }), "{err}");
}

#[test]
fn comparison_pairs_get_a_point_filtered_object_and_a_word() {
    let src = "@group(0) @binding(0) var t: texture_depth_2d;
        @group(0) @binding(1) var s: sampler_comparison;
        @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
        @compute @workgroup_size(1) fn k() {
            out[0] = vec4<f32>(textureSampleCompareLevel(t, s, vec2<f32>(0.5), 0.5)); }";
    let c = dianran::compile("k.wgsl", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let e = c.entry("k").unwrap();
    let mut d = tex(TexDim::D2, TexelFormat::Depth32Float, 4, 4, 1, 1);
    let shadow = SamplerDesc {
        compare: Some(dianran_runtime::texture::CompareFn::GreaterEqual),
        ..SamplerDesc::uniform(AddressMode::Repeat, Filter::Linear)
    };
    let samplers = [SamplerArg { group: 0, binding: 1, sampler: shadow }];
    let textures = [TextureArg { group: 0, binding: 0, texture: &mut d }];
    let plan = plan_objects(e, &keys(&textures), &samplers).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plan,
        [
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Texture { texture: 0, sampler: Some(0), compare: true },
            ObjectPlan::CompareWord { sampler: 0 },
        ]
    );
    // greater-equal is 6 in WebGPU order; bit 3: linear.
    assert_eq!(dianran_runtime::texture::compare_word(&shadow), 6 | 8);
    let obj = dianran_runtime::texture::compare_object_sampler(&shadow);
    let desc = texture_descriptor(TexelFormat::Depth32Float, Some(&obj));
    assert_eq!(desc.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT);
    assert_eq!(desc.addressMode, [sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP; 3]);
    let a = array_descriptor(&tex(TexDim::D2, TexelFormat::Depth32Float, 4, 4, 1, 1), false);
    assert_eq!(a.map(|a| a.Flags).ok(), Some(sys::CUDA_ARRAY3D_TEXTURE_GATHER));
}

#[test]
fn cube_comparison_pairs_get_a_point_filtered_cubemap_object_and_a_word() {
    let src = "@group(0) @binding(0) var c: texture_depth_cube;
        @group(0) @binding(1) var ca: texture_depth_cube_array;
        @group(0) @binding(2) var s: sampler_comparison;
        @group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
        @compute @workgroup_size(1) fn k() {
            let d = vec3<f32>(0.5, -1.0, 0.25);
            out[0] = textureGatherCompare(c, s, d, 0.5)
                + vec4<f32>(textureSampleCompareLevel(ca, s, d, 1, 0.5)); }";
    let c = dianran::compile("k.wgsl", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let e = c.entry("k").unwrap_or_else(|| panic!("no entry k"));
    assert!(e.ptx_name.is_some(), "cube comparison is in the PTX");
    let mut cube = tex(TexDim::Cube, TexelFormat::Depth32Float, 4, 4, 6, 1);
    let mut cubes = tex(TexDim::CubeArray, TexelFormat::Depth32Float, 4, 4, 12, 1);
    let shadow = SamplerDesc {
        compare: Some(dianran_runtime::texture::CompareFn::Less),
        ..SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Nearest)
    };
    let samplers = [SamplerArg { group: 0, binding: 2, sampler: shadow }];
    let textures = [
        TextureArg { group: 0, binding: 1, texture: &mut cubes },
        TextureArg { group: 0, binding: 0, texture: &mut cube },
    ];
    let plan = plan_objects(e, &keys(&textures), &samplers).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plan,
        [
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Buffer(None),
            ObjectPlan::Texture { texture: 1, sampler: Some(0), compare: true },
            ObjectPlan::CompareWord { sampler: 0 },
            ObjectPlan::Texture { texture: 0, sampler: Some(0), compare: true },
            ObjectPlan::CompareWord { sampler: 0 },
        ]
    );
    // less is 1 in WebGPU order; nearest: bit 3 clear.
    assert_eq!(dianran_runtime::texture::compare_word(&shadow), 1);
    let a = array_descriptor(&tex(TexDim::Cube, TexelFormat::Depth32Float, 4, 4, 6, 1), false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((a.Depth, a.NumChannels, a.Flags), (6, 1, sys::CUDA_ARRAY3D_CUBEMAP));
    let a =
        array_descriptor(&tex(TexDim::CubeArray, TexelFormat::Depth32Float, 4, 4, 12, 1), false)
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.Depth, 12);
    assert_eq!(a.Flags, sys::CUDA_ARRAY3D_CUBEMAP | sys::CUDA_ARRAY3D_LAYERED);
}
