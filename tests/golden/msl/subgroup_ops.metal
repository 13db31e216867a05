#include <metal_stdlib>
using namespace metal;

inline uint4 dr_ballot(bool p) {
    ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(simd_ballot(p)));
    return uint4(uint(bits), uint(bits >> 32), 0u, 0u);
}

struct alignas(16) SubgroupOut {
    uint sum;
    uint exclusive;
    uint broadcast;
    uint lane_info;
    uint4 ballot;
};


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device uint* input [[buffer(0)]],
    device SubgroupOut* out [[buffer(1)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint size [[threads_per_simdgroup]]) {
    const auto v5 = gid.x;
    const auto v36 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v37 = (v5 < v36);
    uint v;
    if (v37) {
        const auto v38 = input[v5];
        v = v38;
    } else {
        v = uint{};
    }
    const auto v10 = simd_sum(v);
    auto v31 = SubgroupOut{};
    v31.sum = v10;
    const auto v12 = simd_prefix_exclusive_sum(v);
    auto v32 = v31;
    v32.exclusive = v12;
    const auto v15 = simd_broadcast(v, ushort(3u));
    auto v33 = v32;
    v33.broadcast = v15;
    const auto v18 = (size << (16u & 31u));
    const auto v19 = (lane | v18);
    auto v34 = v33;
    v34.lane_info = v19;
    const auto v22 = (v & 1u);
    const auto v24 = (v22 == 1u);
    const auto v25 = dr_ballot(v24);
    auto v35 = v34;
    v35.ballot = v25;
    const auto v40 = ((_buffer_sizes[1] - 0u) / 32u);
    const auto v41 = (v5 < v40);
    if (v41) {
        out[v5] = v35;
    }
}
