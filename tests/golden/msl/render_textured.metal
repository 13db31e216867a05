#include <metal_stdlib>
using namespace metal;

struct alignas(16) Uniforms {
    float4x4 mvp;
    float4 tint;
};

struct alignas(16) VertexIn {
    float3 position;
    float2 uv;
    uint material;
    char _pad0[4];
};

struct alignas(16) VertexOut {
    float4 clip;
    float2 uv;
    uint material;
    float shade;
};


struct vs_main_Input {
    float3 input_position [[attribute(0)]];
    float2 input_uv [[attribute(1)]];
    uint input_material [[attribute(2)]];
};

struct vs_main_Output {
    float4 clip [[position]];
    float2 uv [[user(loc0)]];
    uint material [[user(loc1)]] [[flat]];
    float shade [[user(loc2)]];
};

vertex vs_main_Output vs_main(vs_main_Input _in [[stage_in]],
    constant Uniforms& uniforms [[buffer(0)]]) {
    const VertexIn input = {_in.input_position, _in.input_uv, _in.input_material};
    const auto v6 = uniforms.mvp;
    const auto v7 = input.position;
    const auto v9 = float4(v7, 1.0f);
    const auto v10 = (v6 * v9);
    auto v27 = VertexOut{};
    v27.clip = v10;
    const auto v12 = input.uv;
    auto v28 = v27;
    v28.uv = v12;
    const auto v14 = input.material;
    auto v29 = v28;
    v29.material = v14;
    const auto v17 = v7.y;
    const auto v21 = fma(v17, 0.5f, 0.5f);
    const auto v24 = clamp(v21, 0.0f, 1.0f);
    auto v30 = v29;
    v30.shade = v24;
    return vs_main_Output{v30.clip, v30.uv, v30.material, v30.shade};
}

struct fs_main_Input {
    float2 input_uv [[user(loc0)]];
    uint input_material [[user(loc1)]] [[flat]];
    float input_shade [[user(loc2)]];
};

struct fs_main_Output {
    float4 value [[color(0)]];
};

fragment fs_main_Output fs_main(fs_main_Input _in [[stage_in]],
    constant Uniforms& uniforms [[buffer(0)]],
    texture2d<float> albedo [[texture(1)]],
    sampler albedo_sampler [[sampler(2)]],
    float4 input_clip [[position]]) {
    const VertexOut input = {input_clip, _in.input_uv, _in.input_material, _in.input_shade};
    const auto v3 = input.uv;
    const auto texel = albedo.sample(albedo_sampler, v3);
    const auto v9 = uniforms.tint;
    const auto v10 = (texel * v9);
    const auto v11 = input.shade;
    const auto v12 = float4(v11);
    const auto v13 = (v10 * v12);
    const auto v14 = input.material;
    const auto v16 = (v14 == 1u);
    float4 color;
    if (v16) {
        const auto v19 = (float4(1.0f, 1.0f, 1.0f, 1.0f) - v13);
        color = v19;
    } else {
        color = v13;
    }
    const auto v21 = color.xyz;
    const auto v22 = texel.w;
    const auto v23 = float4(v21, v22);
    return fs_main_Output{v23};
}
