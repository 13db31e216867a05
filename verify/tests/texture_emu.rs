//! Textures on the PTX emulator: our PTX for textureLoad/Store, queries, textureSampleLevel
//! and textureGather, run with texture and surface objects
//! (`dianran_verify::emu::run_module_textures`), against expected values computed here in
//! plain Rust from the texel bytes (index arithmetic written out, not the texture model).

use dianran_ptx::codegen::{compile_module, Options};
use dianran_verify::emu::{self, texture_objects, write_back_textures, EmuOptions};
use dianran_verify::texture::{
    AddressMode, Filter, SamplerDesc, TexDim, TexelFormat, TextureBindings, TextureData,
};

/// Compiles `src`, runs entry `main` on one CTA of `block` with `bound` textures and the
/// storage buffers `buffers` (binding -> bytes, group 0), and returns the buffers after.
fn run(
    src: &str,
    block: [u32; 3],
    bound: &mut TextureBindings,
    buffers: &mut std::collections::BTreeMap<u32, Vec<u8>>,
) -> Vec<String> {
    let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let info = &out.entries[0];
    // Laid out as the executors lay them out (`p_sizes` included: docs/abi.md).
    let grouped: dianran_verify::buffers::Buffers =
        buffers.iter().map(|(&b, bytes)| ((0, b), bytes.clone())).collect();
    let mut params = dianran_verify::executors::ptx_params(info, &grouped)
        .unwrap_or_else(|e| panic!("{e}"))
        .buffers;
    let mut objects = texture_objects(&info.params, bound).unwrap_or_else(|e| panic!("{e}"));
    emu::run_module_textures(
        &out.module,
        &info.ptx_name,
        &mut params,
        &mut objects,
        [1, 1, 1],
        block,
        &EmuOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", out.text));
    write_back_textures(&info.params, &objects, bound);
    for (p, bytes) in info.params.iter().zip(params) {
        if let Some((_, b)) = dianran_ptx::abi::param_binding(p) {
            if let Some(buf) = buffers.get_mut(&b) {
                *buf = bytes;
            }
        }
    }
    info.params.clone()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    words(b).into_iter().map(f32::from_bits).collect()
}

const LOAD_STORE: &str = r#"
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var acc: texture_storage_2d<r32float, read_write>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(4) var arr: texture_2d_array<u32>;
@group(0) @binding(5) var<storage, read_write> q: array<u32>;
@compute @workgroup_size(4, 4)
fn main(@builtin(local_invocation_id) id: vec3<u32>) {
    let c = vec2<i32>(id.xy);
    let i = id.y * 4u + id.x;
    out[i] = textureLoad(src, c, 0);
    out[16u + i] = textureLoad(src, c - vec2<i32>(2), 1);
    textureStore(dst, c, vec4<f32>(f32(id.x) / 3.0, 0.5, -1.0, 2.0));
    let a = textureLoad(acc, c);
    textureStore(acc, c, a + vec4<f32>(1.0));
    let u = textureLoad(arr, c, i32(id.x) - 1, 0);
    q[i] = u.x + u.w;
    if i == 0u {
        q[16] = textureDimensions(src, 1).x;
        q[17] = textureNumLevels(src);
        q[18] = textureNumLayers(arr);
        q[19] = textureDimensions(dst).y;
    }
}
"#;

#[test]
fn load_store_and_queries_on_the_emulator() {
    let tex = |dim, f, w, h, d, l, seed| {
        let mut t = TextureData::new(dim, f, w, h, d, l).unwrap_or_else(|e| panic!("{e:?}"));
        t.fill_seeded(seed);
        t
    };
    let mut bound = TextureBindings::default();
    bound.textures.insert((0, 0), tex(TexDim::D2, TexelFormat::Rgba32Float, 4, 4, 1, 2, 1));
    bound.textures.insert((0, 1), tex(TexDim::D2, TexelFormat::Rgba8Unorm, 4, 4, 1, 1, 2));
    bound.textures.insert((0, 2), tex(TexDim::D2, TexelFormat::R32Float, 4, 4, 1, 1, 3));
    bound.textures.insert((0, 4), tex(TexDim::D2Array, TexelFormat::Rgba32Uint, 4, 4, 3, 1, 4));
    let before = bound.clone();
    let mut buffers = std::collections::BTreeMap::new();
    buffers.insert(3, vec![0u8; 32 * 16]);
    buffers.insert(5, vec![0u8; 20 * 4]);
    let params = run(LOAD_STORE, [4, 4, 1], &mut bound, &mut buffers);
    // Six slots, then `p_sizes` (the bounds policy checks the runtime-sized outputs).
    let mut want: Vec<String> = (0..6).map(|b| format!("p_g0_b{b}")).collect();
    want.push("p_sizes".into());
    assert_eq!(params, want);

    let src = floats(&before.textures[&(0, 0)].data);
    let out = floats(&buffers[&3]);
    let q = words(&buffers[&5]);
    let arr = words(&before.textures[&(0, 4)].data);
    let acc0 = floats(&before.textures[&(0, 2)].data);
    let acc1 = floats(&bound.textures[&(0, 2)].data);
    let dst = &bound.textures[&(0, 1)].data;
    for y in 0..4usize {
        for x in 0..4usize {
            let i = y * 4 + x;
            // Level 0: 4x4 texels of 4 floats.
            assert_eq!(&out[i * 4..i * 4 + 4], &src[i * 4..i * 4 + 4], "texel {x},{y}");
            // Level 1 (2x2, after the 16 texels of level 0) at (x - 2, y - 2); zero outside.
            let want: Vec<f32> = if x >= 2 && y >= 2 {
                let j = 16 + (y - 2) * 2 + (x - 2);
                src[j * 4..j * 4 + 4].to_vec()
            } else {
                vec![0.0; 4]
            };
            assert_eq!(&out[64 + i * 4..64 + i * 4 + 4], &want[..], "level 1 at {x},{y}");
            // rgba8unorm: round(clamp(v, 0, 1) * 255).
            let px = [((x as f32 / 3.0) * 255.0).round() as u8, 128, 0, 255];
            assert_eq!(&dst[i * 4..i * 4 + 4], &px, "stored texel {x},{y}");
            assert_eq!(acc1[i], acc0[i] + 1.0, "read_write texel {x},{y}");
            // Layer x - 1 of the array; layer -1 is out of bounds (zero).
            let want = if x == 0 {
                0
            } else {
                let t = ((x - 1) * 16 + i) * 4;
                arr[t].wrapping_add(arr[t + 3])
            };
            assert_eq!(q[i], want, "array texel {x},{y}");
        }
    }
    assert_eq!(&q[16..20], &[2, 2, 3, 4]);
}

const SAMPLE: &str = r#"
@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var s_near: sampler;
@group(0) @binding(2) var s_lin: sampler;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = i % 4u;
    let y = i / 4u;
    let center = (vec2<f32>(f32(x), f32(y)) + 0.5) / 4.0;
    out[i] = textureSampleLevel(img, s_near, center, 0.0);
    out[16u + i] = textureSampleLevel(img, s_lin, center + vec2<f32>(0.125, 0.0), 0.0);
    out[32u + i] = textureGather(2, img, s_near, center + vec2<f32>(0.125, 0.125));
}
"#;

#[test]
fn sampling_and_gathers_on_the_emulator() {
    let mut t = TextureData::new(TexDim::D2, TexelFormat::Rgba32Float, 4, 4, 1, 1)
        .unwrap_or_else(|e| panic!("{e:?}"));
    t.fill_seeded(7);
    let texels = floats(&t.data);
    let mut bound = TextureBindings::default();
    bound.textures.insert((0, 0), t);
    bound.samplers.insert((0, 1), SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Nearest));
    bound.samplers.insert((0, 2), SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear));
    let mut buffers = std::collections::BTreeMap::new();
    buffers.insert(3, vec![0u8; 48 * 16]);
    let params = run(SAMPLE, [16, 1, 1], &mut bound, &mut buffers);
    // Slots 0..=3 (only the buffer is used: bindings 0-2 are placeholders), then the pairs,
    // then `p_sizes` (the bounds policy checks the runtime-sized output against its length).
    assert_eq!(
        params,
        ["p_g0_b0", "p_g0_b1", "p_g0_b2", "p_g0_b3", "p_g0_b0_s0_b1", "p_g0_b0_s0_b2", "p_sizes"]
    );
    let out = floats(&buffers[&3]);
    let at = |x: usize, y: usize, c: usize| texels[(y.min(3) * 4 + x.min(3)) * 4 + c];
    for y in 0..4usize {
        for x in 0..4usize {
            let i = y * 4 + x;
            for c in 0..4 {
                // Nearest at a texel center is that texel.
                assert_eq!(out[i * 4 + c], at(x, y, c), "nearest {x},{y}.{c}");
                // Linear halfway to the right neighbour (clamped at the edge): the mean, which
                // 8-bit weights represent exactly.
                let mean = (at(x, y, c) + at(x + 1, y, c)) / 2.0;
                assert_eq!(out[64 + i * 4 + c], mean, "linear {x},{y}.{c}");
            }
            // Gather of channel b over the footprint at the corner between four texels, in
            // the order (x, y+1), (x+1, y+1), (x+1, y), (x, y).
            let g = [at(x, y + 1, 2), at(x + 1, y + 1, 2), at(x + 1, y, 2), at(x, y, 2)];
            assert_eq!(&out[128 + i * 4..128 + i * 4 + 4], &g, "gather {x},{y}");
        }
    }
}
