#include <metal_stdlib>
using namespace metal;

template <typename T> T dr_udiv(T a, T b) {
    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));
}

struct alignas(4) Params {
    uint cols;
};

constant uint WG = 256u;
constant float LOWEST = (-3.4028235e38f);


[[max_total_threads_per_threadgroup(256)]] kernel void main_(constant Params& params [[buffer(0)]],
    const device float4* x [[buffer(1)]],
    device float4* y [[buffer(2)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 wid [[threadgroup_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint sid [[thread_index_in_simdgroup]],
    uint ssz [[threads_per_simdgroup]]) {
    threadgroup array<float, 256> part_max;
    threadgroup array<float, 256> part_sum;
    if (lid == 0u) {
        part_max = array<float, 256>{};
        part_sum = array<float, 256>{};
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v22 = params.cols;
    const auto n4 = dr_udiv(v22, 4u);
    const auto v25 = wid.x;
    const auto base = (v25 * n4);
    float m = (-3.4028235e38f);
    float s = 0.0f;
    uint i = lid;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto m_1 = m;
            const auto s_1 = s;
            const auto i_1 = i;
            const auto v61 = (i_1 + 256u);
            i = v61;
        }
        loop_init_0 = false;
        const auto m_2 = m;
        const auto s_2 = s;
        const auto i_2 = i;
        const auto v28 = (i_2 < n4);
        if (!(v28)) {
            break;
        }
        const auto v30 = (base + i_2);
        const auto v163 = ((_buffer_sizes[1] - 0u) / 16u);
        const auto v164 = (v30 < v163);
        float4 v;
        if (v164) {
            const auto v165 = x[v30];
            v = v165;
        } else {
            v = float4{};
        }
        const auto v34 = v.x;
        const auto v35 = v.y;
        const auto v36 = max(v34, v35);
        const auto v37 = v.z;
        const auto v38 = v.w;
        const auto v39 = max(v37, v38);
        const auto mv = max(v36, v39);
        const auto mn = max(m_2, mv);
        const auto v43 = float4(mn);
        const auto v44 = (v - v43);
        const auto e = precise::exp(v44);
        const auto v48 = (m_2 - mn);
        const auto v49 = precise::exp(v48);
        const auto v51 = e.x;
        const auto v52 = e.y;
        const auto v53 = (v51 + v52);
        const auto v54 = fma(s_2, v49, v53);
        const auto v55 = e.z;
        const auto v56 = e.w;
        const auto v57 = (v55 + v56);
        const auto v58 = (v54 + v57);
        m = mn;
        s = v58;
    }
    const auto sm = simd_max(m);
    const auto v66 = (m - sm);
    const auto v67 = precise::exp(v66);
    const auto v68 = (s * v67);
    const auto ss = simd_sum(v68);
    const auto sg = dr_udiv(lid, ssz);
    const auto v72 = (sid == 0u);
    if (v72) {
        part_max[sg] = sm;
        part_sum[sg] = ss;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v78 = (256u + ssz);
    const auto v80 = (v78 - 1u);
    const auto groups = dr_udiv(v80, ssz);
    float row_max = (-3.4028235e38f);
    uint g = 0u;
    bool loop_init_1 = true;
    while (true) {
        if (!loop_init_1) {
            const auto row_max_1 = row_max;
            const auto g_1 = g;
            const auto v91 = (g_1 + 1u);
            g = v91;
        }
        loop_init_1 = false;
        const auto row_max_2 = row_max;
        const auto g_2 = g;
        const auto v83 = (g_2 < groups);
        if (!(v83)) {
            break;
        }
        const auto v168 = min(g_2, 255u);
        const auto v87 = part_max[v168];
        const auto v88 = max(row_max_2, v87);
        row_max = v88;
    }
    float total = 0.0f;
    uint g_3 = 0u;
    bool loop_init_2 = true;
    while (true) {
        if (!loop_init_2) {
            const auto total_1 = total;
            const auto g_4 = g_3;
            const auto v108 = (g_4 + 1u);
            g_3 = v108;
        }
        loop_init_2 = false;
        const auto total_2 = total;
        const auto g_5 = g_3;
        const auto v93 = (g_5 < groups);
        if (!(v93)) {
            break;
        }
        const auto v170 = min(g_5, 255u);
        const auto v97 = part_sum[v170];
        const auto v100 = part_max[v170];
        const auto v102 = (v100 - row_max);
        const auto v103 = precise::exp(v102);
        const auto v105 = fma(v97, v103, total_2);
        total = v105;
    }
    const auto inv = precise::divide(1.0f, total);
    const auto v123 = float4(row_max);
    const auto v126 = float4(inv);
    uint i_3 = lid;
    bool loop_init_3 = true;
    while (true) {
        if (!loop_init_3) {
            const auto i_4 = i_3;
            const auto v130 = (i_4 + 256u);
            i_3 = v130;
        }
        loop_init_3 = false;
        const auto i_5 = i_3;
        const auto v113 = (i_5 < n4);
        if (!(v113)) {
            break;
        }
        const auto v115 = (base + i_5);
        const auto v173 = ((_buffer_sizes[2] - 0u) / 16u);
        const auto v174 = (v115 < v173);
        const auto v175 = ((_buffer_sizes[1] - 0u) / 16u);
        const auto v176 = (v115 < v175);
        float4 v121;
        if (v176) {
            const auto v177 = x[v115];
            v121 = v177;
        } else {
            v121 = float4{};
        }
        const auto v124 = (v121 - v123);
        const auto v125 = precise::exp(v124);
        const auto v127 = (v125 * v126);
        if (v174) {
            y[v115] = v127;
        }
    }
}
