//! Launch plans carried out by dianran's PTX emulator: the marshalling of every binding kind
//! (buffers, uniforms, runtime-sized arrays and `arrayLength`, immediates, textures and
//! samplers, surfaces) checked on the CPU, with expected values worked out by hand here.
//!
//! The plan is the one both CUDA launch paths carry out ([`LaunchPlan`]); the emulator gets
//! exactly what the driver would: a buffer's bytes behind each pointer parameter, the sizes
//! block, objects for textures, words and immediates by value.

use dianran::verify::emu::{self, EmuOptions, TexObject};
use dianran_runtime::launch::{BoundBuffer, LaunchError, LaunchPlan, ParamValue, SamplerArg};
use dianran_runtime::reflect::Entry;
use dianran_runtime::texture::{
    AddressMode, Filter, SamplerDesc, TexDim, TexelFormat, TextureData,
};

fn compile(src: &str) -> dianran::Compiled {
    dianran::compile("k.wgsl", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"))
}

fn entry<'c>(c: &'c dianran::Compiled, name: &str) -> &'c Entry {
    c.entry(name).unwrap_or_else(|| panic!("no entry {name}"))
}

/// A buffer bound at (0, `binding`).
fn at(binding: u32, bytes: &[u8]) -> BoundBuffer {
    BoundBuffer { group: 0, binding, len: bytes.len() }
}

/// Runs `plan` on the emulator: the host side of a launch, done as the driver paths do it.
/// Buffers and storage textures are updated in place.
fn run(
    c: &dianran::Compiled,
    plan: &LaunchPlan,
    buffers: &mut [Vec<u8>],
    textures: &mut [&mut TextureData],
) {
    let ptx = c.ptx.as_ref().unwrap_or_else(|d| panic!("{d:?}"));
    let module = dianran::ptx::parse_module(ptx).unwrap_or_else(|e| panic!("{e:?}"));
    let mut params: Vec<Vec<u8>> = Vec::new();
    let mut objects: Vec<Option<TexObject>> = Vec::new();
    for p in &plan.params {
        let (bytes, object) = match p {
            ParamValue::Buffer(i) => (buffers[*i].clone(), None),
            ParamValue::Placeholder => (vec![0; 16], None),
            ParamValue::Sizes(b) | ParamValue::Immediates(b) => (b.clone(), None),
            ParamValue::CompareWord(w) => (w.to_le_bytes().to_vec(), None),
            ParamValue::Texture { texture, sampler } => {
                let data = (*textures[*texture]).clone();
                (Vec::new(), Some(TexObject { data, sampler: *sampler }))
            }
            ParamValue::Surface { texture } => {
                let data = (*textures[*texture]).clone();
                (Vec::new(), Some(TexObject { data, sampler: None }))
            }
        };
        params.push(bytes);
        objects.push(object);
    }
    emu::run_module_textures(
        &module,
        &plan.ptx_name,
        &mut params,
        &mut objects,
        plan.grid,
        plan.block,
        &EmuOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for ((p, bytes), object) in plan.params.iter().zip(params).zip(objects) {
        match (p, object) {
            (ParamValue::Buffer(i), _) => buffers[*i] = bytes,
            (ParamValue::Surface { texture }, Some(o)) => *textures[*texture] = o.data,
            _ => {}
        }
    }
}

fn f32s(v: &[u8]) -> Vec<f32> {
    v.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn u32s(v: &[u8]) -> Vec<u32> {
    v.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A uniform struct, a read-only array, a read-write array sized by `arrayLength`, a struct
/// ending in a runtime-sized array, and a binding the entry never touches (a placeholder).
const BUFFERS: &str = "
struct Params { scale: f32, offset: u32 }
struct Tail { count: atomic<u32>, items: array<u32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<storage, read_write> tail: Tail;
@group(0) @binding(4) var<storage, read_write> unused: array<f32>;
@compute @workgroup_size(4) fn k(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < arrayLength(&dst) {
        dst[i] = src[(i + params.offset) % arrayLength(&src)] * params.scale;
    }
    if i < arrayLength(&tail.items) {
        tail.items[i] = arrayLength(&tail.items) * 100u + i;
        atomicAdd(&tail.count, 1u);
    }
}
@compute @workgroup_size(1) fn other() { unused[0] = 1.0; }
";

#[test]
fn buffers_uniforms_and_runtime_arrays() {
    let c = compile(BUFFERS);
    let e = entry(&c, "k");
    let params = [bytes_f32(&[2.0]), bytes_u32(&[3])].concat();
    let src = bytes_f32(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let dst = vec![0u8; 6 * 4];
    let tail = vec![0u8; 4 + 3 * 4];
    let mut buffers = [params, src, dst, tail];
    // Bound in an order unlike the parameters', to check the plan follows the bindings.
    let bound = [at(2, &buffers[2]), at(0, &buffers[0]), at(3, &buffers[3]), at(1, &buffers[1])];
    let mut by_order =
        vec![buffers[2].clone(), buffers[0].clone(), buffers[3].clone(), buffers[1].clone()];
    let plan =
        LaunchPlan::new(e, [2, 1, 1], &bound, &[], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    // Parameters: bindings 0..=3 point at their buffers, 4 (not used by `k`) is not a
    // parameter or a placeholder, then the sizes block: the byte lengths per parameter.
    let buffer_params: Vec<&ParamValue> = plan.params.iter().filter(|p| p.is_pointer()).collect();
    assert!(buffer_params.contains(&&ParamValue::Buffer(1)), "{plan:?}");
    let sizes = plan.params.iter().find_map(|p| match p {
        ParamValue::Sizes(b) => Some(u32s(b)),
        _ => None,
    });
    let sizes = sizes.unwrap_or_else(|| panic!("no sizes block: {plan:?}"));
    assert!(sizes.starts_with(&[8, 20, 24, 16]), "{sizes:?}");
    assert_eq!(plan.block, [4, 1, 1]);
    run(&c, &plan, &mut by_order, &mut []);
    buffers[2] = by_order[0].clone();
    buffers[3] = by_order[2].clone();
    // dst[i] = src[(i + 3) % 5] * 2 for the 6 elements.
    assert_eq!(f32s(&buffers[2]), [8.0, 10.0, 2.0, 4.0, 6.0, 8.0]);
    // tail: 3 items, each counted once.
    assert_eq!(u32s(&buffers[3]), [3, 300, 301, 302]);
}

#[test]
fn sizes_are_checked_before_launching() {
    let c = compile(BUFFERS);
    let e = entry(&c, "k");
    let ok = [at(0, &[0; 8]), at(1, &[0; 20]), at(2, &[0; 24]), at(3, &[0; 4])];
    assert!(LaunchPlan::new(e, [1, 1, 1], &ok, &[], &[], &[]).is_ok());
    // A uniform smaller than its struct, an array that is not whole elements, a missing
    // binding, a binding bound twice.
    let short = [at(0, &[0; 4]), at(1, &[0; 20]), at(2, &[0; 24]), at(3, &[0; 4])];
    let ragged = [at(0, &[0; 8]), at(1, &[0; 18]), at(2, &[0; 24]), at(3, &[0; 4])];
    let missing = [at(0, &[0; 8]), at(1, &[0; 20]), at(3, &[0; 4])];
    let twice = [at(0, &[0; 8]), at(1, &[0; 20]), at(2, &[0; 24]), at(2, &[0; 24]), at(3, &[0; 4])];
    for (args, want) in [(&short[..], "params"), (&ragged[..], "src")] {
        match LaunchPlan::new(e, [1, 1, 1], args, &[], &[], &[]) {
            Err(LaunchError::BufferSize { name, .. }) => assert_eq!(name, want),
            other => panic!("expected a size error for {want}, got {other:?}"),
        }
    }
    assert!(matches!(
        LaunchPlan::new(e, [1, 1, 1], &missing, &[], &[], &[]),
        Err(LaunchError::MissingBuffer { binding: 2, .. })
    ));
    assert!(matches!(
        LaunchPlan::new(e, [1, 1, 1], &twice, &[], &[], &[]),
        Err(LaunchError::DuplicateBuffer { binding: 2, .. })
    ));
    assert!(matches!(
        LaunchPlan::new(e, [1, 0, 1], &ok, &[], &[], &[]),
        Err(LaunchError::EmptyGrid(_))
    ));
}

#[test]
fn an_empty_or_unbound_buffer_gets_a_placeholder() {
    let c = compile(
        "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
        @group(0) @binding(1) var<storage, read_write> b: array<u32>;
        @compute @workgroup_size(1) fn k() {
            if arrayLength(&a) > 0u { a[0] = 7u; }
            b[0] = arrayLength(&a) + 10u;
        }",
    );
    let e = entry(&c, "k");
    let mut buffers = vec![Vec::new(), vec![0u8; 4]];
    let bound = [at(0, &buffers[0]), at(1, &buffers[1])];
    let plan =
        LaunchPlan::new(e, [1, 1, 1], &bound, &[], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.params.first(), Some(&ParamValue::Placeholder));
    run(&c, &plan, &mut buffers, &mut []);
    assert_eq!(u32s(&buffers[1]), [10]);
}

#[test]
fn immediates_go_by_value_padded() {
    let c = compile(
        "struct P { a: f32, b: vec2<f32>, c: u32 }
        var<immediate> p: P;
        @group(0) @binding(0) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn k() { o[0] = p.a + p.b.y + f32(p.c); o[1] = p.b.x; }",
    );
    let e = entry(&c, "k");
    // a = 1.5 at 0, 4 bytes of padding, b = (10, 20) at 8, c = 3 at 16, padded to 24.
    let imm = [
        bytes_f32(&[1.5]),
        vec![0xAA; 4],
        bytes_f32(&[10.0, 20.0]),
        bytes_u32(&[3]),
        vec![0xAA; 4],
    ]
    .concat();
    let mut buffers = vec![vec![0u8; 8]];
    let bound = [at(0, &buffers[0])];
    let plan =
        LaunchPlan::new(e, [1, 1, 1], &bound, &[], &[], &imm).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(plan.params.last(), Some(ParamValue::Immediates(b)) if b.len() % 4 == 0));
    run(&c, &plan, &mut buffers, &mut []);
    assert_eq!(f32s(&buffers[0]), [24.5, 10.0]);
    assert!(matches!(
        LaunchPlan::new(e, [1, 1, 1], &bound, &[], &[], &imm[..20]),
        Err(LaunchError::ImmediatesSize { expected: 24, given: 20 })
    ));
}

#[test]
fn textures_samplers_and_surfaces() {
    let c = compile(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var s: sampler;
        @group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
        @group(0) @binding(3) var img: texture_storage_2d<r32float, write>;
        @group(0) @binding(4) var u: texture_2d<u32>;
        @compute @workgroup_size(1) fn k() {
            out[0] = textureLoad(t, vec2<i32>(1, 0), 0);
            out[1] = textureSampleLevel(t, s, vec2<f32>(0.75, 0.25), 0.0);
            out[2] = vec4<f32>(textureLoad(u, vec2<i32>(0, 1), 0));
            textureStore(img, vec2<i32>(1, 1), vec4<f32>(out[0].x + 0.5));
        }",
    );
    let e = entry(&c, "k");
    // A 2x2 rgba32float texture whose texel (x, y) channel c is 10x + 100y + c.
    let texel = |x: u32, y: u32| [0, 1, 2, 3].map(|ch| (10 * x + 100 * y + ch) as f32);
    let rgba: Vec<f32> = (0..2).flat_map(|y| (0..2).flat_map(move |x| texel(x, y))).collect();
    let mut t = TextureData::with_data(
        TexDim::D2,
        TexelFormat::Rgba32Float,
        [2, 2, 1],
        1,
        bytes_f32(&rgba),
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    let words: Vec<u32> = (0..16).collect();
    let mut u = TextureData::with_data(
        TexDim::D2,
        TexelFormat::Rgba32Uint,
        [2, 2, 1],
        1,
        bytes_u32(&words),
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    let mut img = TextureData::new(TexDim::D2, TexelFormat::R32Float, 2, 2, 1, 1)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let nearest = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Nearest);
    let samplers = [SamplerArg { group: 0, binding: 1, sampler: nearest }];
    let mut buffers = vec![vec![0u8; 3 * 16]];
    let bound = [at(2, &buffers[0])];
    // Textures by (group, binding): the order the plan's texture indices count in.
    let keys = [(0, 0), (0, 3), (0, 4)];
    let plan = LaunchPlan::new(e, [1, 1, 1], &bound, &keys, &samplers, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(plan.params.contains(&ParamValue::Surface { texture: 1 }), "{plan:?}");
    assert!(plan.params.contains(&ParamValue::Texture { texture: 0, sampler: Some(nearest) }));
    run(&c, &plan, &mut buffers, &mut [&mut t, &mut img, &mut u]);
    let out = f32s(&buffers[0]);
    assert_eq!(out[0..4], texel(1, 0));
    // (0.75, 0.25) of a 2x2 texture is texel (1, 0) under nearest filtering.
    assert_eq!(out[4..8], texel(1, 0));
    // Texel (0, 1) of the uint texture: words 8..12.
    assert_eq!(out[8..12], [8.0, 9.0, 10.0, 11.0]);
    // The surface's texel (1, 1): 10.5; the rest stay zero.
    assert_eq!(f32s(&img.data), [0.0, 0.0, 0.0, 10.5]);
    // Without the textures the plan names what is missing.
    assert!(matches!(
        LaunchPlan::new(e, [1, 1, 1], &bound, &[], &samplers, &[]),
        Err(LaunchError::MissingBuffer { .. })
    ));
}

/// The pipeline example's three kernels (`examples/cuda-pipeline`), chained through launch
/// plans as the typed launchers chain them on a stream: layer norm -> GEMM -> GELU, with
/// device-resident buffers standing in as host vectors. One step against plain Rust in f64.
#[test]
fn the_pipeline_example_step_on_the_emulator() {
    let c = compile(include_str!("../../examples/cuda-pipeline/shaders/mlp.wgsl"));
    let (rows, cols) = (4usize, 64usize);
    let vals = |n: usize, seed: u32| -> Vec<f32> {
        (0..n)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    };
    let (x, gamma, beta) = (vals(rows * cols, 1), vals(cols, 2), vals(cols, 3));
    let (w, bias) =
        (vals(cols * cols, 4).iter().map(|v| v / 8.0).collect::<Vec<_>>(), vals(cols, 5));
    let dims = [bytes_u32(&[rows as u32, cols as u32]), bytes_f32(&[1e-5]), vec![0; 4]].concat();
    // The device's buffers, by binding: dims, x, gamma, beta, h, w, bias, y.
    let mut dev: Vec<Vec<u8>> = vec![
        dims,
        bytes_f32(&x),
        bytes_f32(&gamma),
        bytes_f32(&beta),
        vec![0; 4 * rows * cols],
        bytes_f32(&w),
        bytes_f32(&bias),
        vec![0; 4 * rows * cols],
    ];
    let launches: [(&str, [u32; 3]); 3] = [
        ("layer_norm", [rows as u32, 1, 1]),
        ("gemm", [(cols as u32).div_ceil(16), (rows as u32).div_ceil(16), 1]),
        ("gelu", [((rows * cols) as u32).div_ceil(256), 1, 1]),
    ];
    for (name, grid) in launches {
        let e = entry(&c, name);
        let used: Vec<u32> = e.bindings.iter().map(|b| b.binding).collect();
        let bound: Vec<BoundBuffer> = used.iter().map(|b| at(*b, &dev[*b as usize])).collect();
        let mut bufs: Vec<Vec<u8>> = used.iter().map(|b| dev[*b as usize].clone()).collect();
        let plan =
            LaunchPlan::new(e, grid, &bound, &[], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        run(&c, &plan, &mut bufs, &mut []);
        for (b, bytes) in used.iter().zip(bufs) {
            dev[*b as usize] = bytes;
        }
    }
    let got = f32s(&dev[7]);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|v| f64::from(*v)).collect();
        let mean = row.iter().sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + 1e-5).sqrt();
        let h: Vec<f64> = (0..cols)
            .map(|k| (row[k] - mean) * rstd * f64::from(gamma[k]) + f64::from(beta[k]))
            .collect();
        for j in 0..cols {
            let a = f64::from(bias[j])
                + (0..cols).map(|k| h[k] * f64::from(w[k * cols + j])).sum::<f64>();
            let want = 0.5 * a * (1.0 + (0.7978845608028654 * (a + 0.044715 * a.powi(3))).tanh());
            let g = f64::from(got[r * cols + j]);
            assert!((g - want).abs() < 1e-4 * (1.0 + want.abs()), "y[{r}][{j}] = {g}, want {want}");
        }
    }
}
