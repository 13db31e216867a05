// Textures and samplers passed to helper functions: `fetch` loads a texel from whichever
// texture it is given, `blend` samples through a texture and sampler it receives, and
// `size_of` queries its texture argument. The helpers are called with different globals, so
// each call's operand is a different binding.
// dispatch: 1,1,1
// texture: 0:0=8x8:rgba32float
// texture: 0:1=8x8:rgba32float
// sampler: 0:2=clamp-to-edge,nearest
// sampler: 0:3=repeat,nearest
@group(0) @binding(0) var tex_a: texture_2d<f32>;
@group(0) @binding(1) var tex_b: texture_2d<f32>;
@group(0) @binding(2) var s_clamp: sampler;
@group(0) @binding(3) var s_repeat: sampler;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

fn fetch(t: texture_2d<f32>, c: vec2<i32>) -> vec4<f32> {
    return textureLoad(t, c, 0);
}

fn size_of(t: texture_2d<f32>) -> vec2<f32> {
    return vec2<f32>(textureDimensions(t));
}

fn blend(t: texture_2d<f32>, s: sampler, uv: vec2<f32>, w: f32) -> vec4<f32> {
    // Texel centers: nearest filtering does not depend on coordinate rounding.
    let texel = (floor(uv * size_of(t)) + vec2<f32>(0.5)) / size_of(t);
    return textureSampleLevel(t, s, texel, 0.0) * w;
}

fn twice(t: texture_2d<f32>, c: vec2<i32>) -> vec4<f32> {
    // A texture argument passed on to another helper.
    return fetch(t, c) + fetch(t, vec2<i32>(7) - c);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let c = vec2<i32>(i32(i % 8u), i32(i / 8u));
    let uv = vec2<f32>(c) * 0.25 - vec2<f32>(0.5);
    let base = i * 5u;
    out[base + 0u] = fetch(tex_a, c);
    out[base + 1u] = fetch(tex_b, c);
    out[base + 2u] = twice(tex_b, c);
    out[base + 3u] = blend(tex_a, s_clamp, uv, 0.5) + blend(tex_b, s_repeat, uv, 2.0);
    out[base + 4u] = vec4<f32>(size_of(tex_a), size_of(tex_b));
}
