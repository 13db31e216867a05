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
    const auto v49 = (i << (8u & 31u));
    if (v78) {
        const auto v79 = particles[i];
        const auto v80 = float3(v79.pos);
        const auto v83 = v79.mass;
        const auto v86 = float3(v79.vel);
        const auto v89 = v79.id;
        const auto v92 = v79.rot;
        const auto v95 = v79.tags;
        const auto v98 = v79.flag;
        const auto v105 = Particle{v80, v83, v86, v89, v92, v95, v98, {}};
        const auto v109 = fma(v86, float3(0.5f, 0.5f, 0.5f), v80);
        auto v110 = v105;
        v110.pos = v109;
        const auto v112 = (v92 * v86);
        auto v113 = v110;
        v113.vel = v112;
        const auto v115 = (v83 * 0.25f);
        auto v116 = v113;
        v116.mass = v115;
        const auto v118 = (v89 + 1000u);
        auto v119 = v116;
        v119.id = v118;
        const auto v121 = v95[0];
        const auto v122 = (v121 + v109);
        auto v123 = v95;
        v123[1] = v122;
        auto v124 = v119;
        v124.tags = v123;
        const auto v125 = (v115 > 1.0f);
        const auto v126 = (v125 ? 1u : 0u);
        const auto v127 = (v126 | v49);
        auto v128 = v124;
        v128.flag = v127;
        particles[i] = v128;
    }
    const auto v101 = ((_buffer_sizes[1] - 0u) / 16u);
    const auto v102 = (i < v101);
    if (v102) {
        const auto v103 = points[i];
        const auto v130 = fma(v103, float3(2.0f, 2.0f, 2.0f), float3(1.0f, 2.0f, 3.0f));
        points[i] = v130;
    }
    const auto v66 = float(i);
    if (v78) {
        particles[i].rot[2].y = v66;
    }
}
