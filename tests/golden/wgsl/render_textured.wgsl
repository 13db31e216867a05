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
    let v6 = uniforms.mvp;
    let v7 = input.position;
    let v9 = vec4<f32>(v7, 1.0f);
    let v10 = (v6 * v9);
    var v27 = VertexOut();
    v27.clip = v10;
    let v12 = input.uv;
    var v28 = v27;
    v28.uv = v12;
    let v14 = input.material;
    var v29 = v28;
    v29.material = v14;
    let v17 = v7.y;
    let v21 = fma(v17, 0.5f, 0.5f);
    let v24 = clamp(v21, 0.0f, 1.0f);
    var v30 = v29;
    v30.shade = v24;
    return v30;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    let v3 = input.uv;
    let texel = textureSample(albedo, albedo_sampler, v3);
    let v9 = uniforms.tint;
    let v10 = (texel * v9);
    let v11 = input.shade;
    let v12 = vec4<f32>(v11);
    let v13 = (v10 * v12);
    let v14 = input.material;
    let v16 = (v14 == 1u);
    var color: vec4<f32>;
    if v16 {
        let v19 = (vec4<f32>(1.0f, 1.0f, 1.0f, 1.0f) - v13);
        color = v19;
    } else {
        color = v13;
    }
    let v21 = color.xyz;
    let v22 = texel.w;
    let v23 = vec4<f32>(v21, v22);
    return v23;
}
