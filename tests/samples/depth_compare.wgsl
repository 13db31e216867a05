// Shadow mapping: a fragment shader compares against a depth texture with a comparison
// sampler (textureSampleCompare), 4-tap percentage-closer filtering.
@group(0) @binding(0) var shadow_map: texture_depth_2d;
@group(0) @binding(1) var shadow_sampler: sampler_comparison;

struct FragmentIn {
    @builtin(position) frag_coord: vec4<f32>,
    @location(0) shadow_pos: vec3<f32>,
}

@fragment
fn fs_shadow(input: FragmentIn) -> @location(0) vec4<f32> {
    let texel = 1.0 / 1024.0;
    var lit = 0.0;
    for (var k = 0; k < 4; k++) {
        let offset = vec2<f32>(f32(k & 1), f32(k >> 1u)) * texel - vec2<f32>(0.5 * texel);
        lit += textureSampleCompare(shadow_map, shadow_sampler, input.shadow_pos.xy + offset,
            input.shadow_pos.z - 0.005);
    }
    let v = 0.25 + 0.75 * lit * 0.25;
    return vec4<f32>(v, v, v, 1.0);
}
