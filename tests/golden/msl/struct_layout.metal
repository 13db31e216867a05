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
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v77 = ((_buffer_sizes[0] - 0u) / 128u);
    const auto v78 = (i < v77);
    float3 v82;
    float v85;
    float3 v88;
    uint v91;
    float3x3 v94;
    array<float3, 2> v97;
    uint v100;
    if (v78) {
        const auto v79 = particles[i];
        const auto v80 = float3(v79.pos);
        const auto v83 = v79.mass;
        const auto v86 = float3(v79.vel);
        const auto v89 = v79.id;
        const auto v92 = v79.rot;
        const auto v95 = v79.tags;
        const auto v98 = v79.flag;
        v82 = v80;
        v85 = v83;
        v88 = v86;
        v91 = v89;
        v94 = v92;
        v97 = v95;
        v100 = v98;
    } else {
        v82 = float3{};
        v85 = float{};
        v88 = float3{};
        v91 = uint{};
        v94 = float3x3{};
        v97 = array<float3, 2>{};
        v100 = uint{};
    }
    const auto v6 = Particle{v82, v85, v88, v91, v94, v97, v100, {}};
    const auto v15 = fma(v88, float3(0.5f, 0.5f, 0.5f), v82);
    auto v68 = v6;
    v68.pos = v15;
    const auto v21 = (v94 * v88);
    auto v69 = v68;
    v69.vel = v21;
    const auto v26 = (v85 * 0.25f);
    auto v70 = v69;
    v70.mass = v26;
    const auto v31 = (v91 + 1000u);
    auto v71 = v70;
    v71.id = v31;
    const auto v36 = v97[0];
    const auto v39 = (v36 + v15);
    auto v74 = v97;
    v74[1] = v39;
    auto v75 = v71;
    v75.tags = v74;
    const auto v44 = (v26 > 1.0f);
    const auto v47 = (v44 ? 1u : 0u);
    const auto v49 = (i << (8u & 31u));
    const auto v50 = (v47 | v49);
    auto v76 = v75;
    v76.flag = v50;
    if (v78) {
        particles[i] = v76;
    }
    const auto v101 = ((_buffer_sizes[1] - 0u) / 16u);
    const auto v102 = (i < v101);
    float3 v56;
    if (v102) {
        const auto v103 = points[i];
        v56 = v103;
    } else {
        v56 = float3{};
    }
    const auto v61 = fma(v56, float3(2.0f, 2.0f, 2.0f), float3(1.0f, 2.0f, 3.0f));
    if (v102) {
        points[i] = v61;
    }
    const auto v66 = float(i);
    if (v78) {
        particles[i].rot[2].y = v66;
    }
}
