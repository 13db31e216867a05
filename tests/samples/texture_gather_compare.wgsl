// Gathers and depth comparison in compute: textureGather of one channel of a float
// texture, textureGatherCompare and textureSampleCompareLevel on a depth texture with a
// `less` comparison sampler (linear, so the comparison results are blended).
// dispatch: 1,1,1
// texture: 0:0=8x8:rgba32float
// texture: 0:1=8x8:depth32float
// sampler: 0:2=clamp-to-edge,nearest
// sampler: 0:3=clamp-to-edge,linear,less
@group(0) @binding(0) var color: texture_2d<f32>;
@group(0) @binding(1) var depth: texture_depth_2d;
@group(0) @binding(2) var s_point: sampler;
@group(0) @binding(3) var s_shadow: sampler_comparison;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32) {
    let uv = vec2<f32>(f32(i % 8u) * 0.131 + 0.021, f32(i / 8u) * 0.227 + 0.043);
    let reference = f32(i) / 32.0;
    out[i * 4u + 0u] = textureGather(1, color, s_point, uv);
    out[i * 4u + 1u] = textureGather(depth, s_point, uv);
    out[i * 4u + 2u] = textureGatherCompare(depth, s_shadow, uv, reference);
    let c = textureSampleCompareLevel(depth, s_shadow, uv, reference);
    out[i * 4u + 3u] = vec4<f32>(c, 0.0, 0.0, 0.0);
}
