#include <metal_stdlib>
using namespace metal;

template <typename T> T dr_udiv(T a, T b) {
    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));
}

template <typename T> T dr_urem(T a, T b) {
    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));
}

struct alignas(16) FragmentIn {
    float4 frag_coord;
    float2 uv;
    char _pad0[8];
};


struct fs_alpha_test_Input {
    float2 input_uv [[user(loc0)]];
};

struct fs_alpha_test_Output {
    float4 value [[color(0)]];
};

fragment fs_alpha_test_Output fs_alpha_test(fs_alpha_test_Input _in [[stage_in]],
    texture2d<float> sprite [[texture(0)]],
    sampler sprite_sampler [[sampler(1)]],
    float4 input_frag_coord [[position]]) {
    const FragmentIn input = {input_frag_coord, _in.input_uv};
    const auto v1 = input.uv;
    const auto c = sprite.sample(sprite_sampler, v1);
    const auto v5 = c.w;
    const auto v7 = (v5 < 0.5f);
    if (v7) {
        discard_fragment();
    }
    const auto v8 = input.frag_coord;
    const auto v9 = v8.x;
    const auto v10 = uint(clamp(v9, float(0.0), float(4294967040.0)));
    const auto v12 = dr_udiv(v10, 8u);
    const auto v14 = v8.y;
    const auto v15 = uint(clamp(v14, float(0.0), float(4294967040.0)));
    const auto v17 = dr_udiv(v15, 8u);
    const auto v18 = (v12 + v17);
    const auto checker = dr_urem(v18, 2u);
    const auto v21 = c.xyz;
    const auto v22 = float(checker);
    const auto v26 = fma(0.25f, v22, 0.75f);
    const auto v27 = float3(v26);
    const auto v28 = (v21 * v27);
    const auto v30 = float4(v28, 1.0f);
    return fs_alpha_test_Output{v30};
}
