#include <metal_stdlib>
using namespace metal;

struct alignas(16) Particle {
    packed_float3 pos;
    float mass;
    packed_float3 vel;
    uint id;
    float3x3 rot;
    array<float3, 2> tags;
    uint flag;
    char _pad0[12];
};


[[max_total_threads_per_threadgroup(32)]] kernel void main_(device Particle* particles [[buffer(0)]],
    device float3* points [[buffer(1)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v6 = particles[i];
    const auto v9 = float3(v6.pos);
    const auto v11 = float3(v6.vel);
    const auto v15 = fma(v11, float3(0.5f, 0.5f, 0.5f), v9);
    auto v68 = v6;
    v68.pos = v15;
    const auto v18 = v6.rot;
    const auto v21 = (v18 * v11);
    auto v69 = v68;
    v69.vel = v21;
    const auto v24 = v6.mass;
    const auto v26 = (v24 * 0.25f);
    auto v70 = v69;
    v70.mass = v26;
    const auto v29 = v6.id;
    const auto v31 = (v29 + 1000u);
    auto v71 = v70;
    v71.id = v31;
    const auto v72 = v6.tags;
    const auto v36 = v72[0];
    const auto v39 = (v36 + v15);
    auto v74 = v72;
    v74[1] = v39;
    auto v75 = v71;
    v75.tags = v74;
    const auto v44 = (v26 > 1.0f);
    const auto v47 = (v44 ? 1u : 0u);
    const auto v49 = (i << (8u & 31u));
    const auto v50 = (v47 | v49);
    auto v76 = v75;
    v76.flag = v50;
    particles[i] = v76;
    const auto v56 = points[i];
    const auto v61 = fma(v56, float3(2.0f, 2.0f, 2.0f), float3(1.0f, 2.0f, 3.0f));
    points[i] = v61;
    const auto v66 = float(i);
    particles[i].rot[2].y = v66;
}
