// A fragment shader that discards transparent texels (alpha test).
@group(0) @binding(0) var sprite: texture_2d<f32>;
@group(0) @binding(1) var sprite_sampler: sampler;

struct FragmentIn {
    @builtin(position) frag_coord: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@fragment
fn fs_alpha_test(input: FragmentIn) -> @location(0) vec4<f32> {
    let c = textureSample(sprite, sprite_sampler, input.uv);
    if (c.a < 0.5) {
        discard;
    }
    let checker = (u32(input.frag_coord.x) / 8u + u32(input.frag_coord.y) / 8u) % 2u;
    return vec4<f32>(c.rgb * (0.75 + 0.25 * f32(checker)), 1.0);
}
