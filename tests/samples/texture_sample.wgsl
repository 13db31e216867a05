// Sampling in compute (textureSampleLevel): one 8x8 float texture with two mip levels read
// through four samplers (nearest/clamp-to-edge, linear/clamp-to-edge, linear/repeat,
// linear/mirror-repeat) at 64 points inside and outside [0, 1], and at levels 0, 0.5 and 1.
// None of the points lies within 0.02 texels of a texel edge, so nearest filtering does not
// depend on how an implementation rounds coordinates.
// dispatch: 1,1,1
// texture: 0:0=8x8:rgba16float:2
// sampler: 0:1=clamp-to-edge,nearest
// sampler: 0:2=clamp-to-edge,linear
// sampler: 0:3=repeat,linear
// sampler: 0:4=mirror-repeat,linear
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var s_nearest: sampler;
@group(0) @binding(2) var s_clamp: sampler;
@group(0) @binding(3) var s_repeat: sampler;
@group(0) @binding(4) var s_mirror: sampler;
@group(0) @binding(5) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let uv = vec2<f32>(
        f32(i % 8u) * 0.15 - 0.27 + 0.013 * f32(i / 8u),
        f32(i / 8u) * 0.16 - 0.31,
    );
    let base = i * 6u;
    out[base + 0u] = textureSampleLevel(tex, s_nearest, uv, 0.0);
    out[base + 1u] = textureSampleLevel(tex, s_clamp, uv, 0.0);
    out[base + 2u] = textureSampleLevel(tex, s_repeat, uv, 0.0);
    out[base + 3u] = textureSampleLevel(tex, s_mirror, uv, 0.0);
    out[base + 4u] = textureSampleLevel(tex, s_clamp, uv, 1.0);
    out[base + 5u] = textureSampleLevel(tex, s_repeat, uv, 0.5);
}
