// A vertex + fragment pair: vertex attributes in, clip position and varyings out (one of
// them a flat-interpolated integer), fragment samples a 2-D texture.
struct Uniforms {
    mvp: mat4x4<f32>,
    tint: vec4<f32>,
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) material: u32,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) material: u32,
    @location(2) shade: f32,
}

@group(0) @binding(0) var<uniform> uniforms: Uniforms;
@group(0) @binding(1) var albedo: texture_2d<f32>;
@group(0) @binding(2) var albedo_sampler: sampler;

@vertex
fn vs_main(input: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip = uniforms.mvp * vec4<f32>(input.position, 1.0);
    out.uv = input.uv;
    out.material = input.material;
    out.shade = clamp(input.position.y * 0.5 + 0.5, 0.0, 1.0);
    return out;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    let texel = textureSample(albedo, albedo_sampler, input.uv);
    var color = texel * uniforms.tint * input.shade;
    if (input.material == 1u) {
        color = vec4<f32>(1.0) - color;
    }
    return vec4<f32>(color.rgb, texel.a);
}
