#include <metal_stdlib>
using namespace metal;

struct alignas(16) FragmentIn {
    float4 frag_coord;
    float3 shadow_pos;
};


struct fs_shadow_Input {
    float3 input_shadow_pos [[user(loc0)]];
};

struct fs_shadow_Output {
    float4 value [[color(0)]];
};

fragment fs_shadow_Output fs_shadow(fs_shadow_Input _in [[stage_in]],
    depth2d<float> shadow_map [[texture(0)]],
    sampler shadow_sampler [[sampler(1)]],
    float4 input_frag_coord [[position]]) {
    const FragmentIn input = {input_frag_coord, _in.input_shadow_pos};
    const auto v25 = input.shadow_pos;
    const auto v26 = v25.xy;
    const auto v29 = v25.z;
    const auto v31 = (v29 - 0.005f);
    float lit = 0.0f;
    int k = 0;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto lit_1 = lit;
            const auto k_1 = k;
            const auto v38 = (k_1 + 1);
            k = v38;
        }
        loop_init_0 = false;
        const auto lit_2 = lit;
        const auto k_2 = k;
        const auto v7 = (k_2 < 4);
        if (!(v7)) {
            break;
        }
        const auto v10 = (k_2 & 1);
        const auto v11 = float(v10);
        const auto v14 = (k_2 >> (1u & 31u));
        const auto v15 = float(v14);
        const auto v16 = float2(v11, v15);
        const auto v56 = (-float2(0.00048828125f, 0.00048828125f));
        const auto offset = fma(v16, float2(0.0009765625f, 0.0009765625f), v56);
        const auto v27 = (v26 + offset);
        const auto v34 = shadow_map.sample_compare(shadow_sampler, v27, v31);
        const auto v35 = (lit_2 + v34);
        lit = v35;
    }
    const auto v41 = (0.75f * lit);
    const auto v = fma(v41, 0.25f, 0.25f);
    const auto v47 = float4(v, v, v, 1.0f);
    return fs_shadow_Output{v47};
}
