#include <metal_stdlib>
using namespace metal;


[[max_total_threads_per_threadgroup(128)]] kernel void main_(const device uint* samples [[buffer(0)]],
    device array<atomic_uint, 64>& hist [[buffer(1)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]]) {
    threadgroup array<atomic_uint, 64> local_hist;
    if (lid == 0u) {
        local_hist = array<atomic_uint, 64>{};
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v3 = (lid < 64u);
    if (v3) {
        atomic_store_explicit(&local_hist[lid], 0u, memory_order_relaxed);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v7 = gid.x;
    const auto v25 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v26 = (v7 < v25);
    uint v10;
    if (v26) {
        const auto v27 = samples[v7];
        v10 = v27;
    } else {
        v10 = uint{};
    }
    const auto bin = (v10 >> (26u & 31u));
    const auto v15 = atomic_fetch_add_explicit(&local_hist[bin], 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (v3) {
        const auto count = atomic_load_explicit(&local_hist[lid], memory_order_relaxed);
        const auto v21 = (count != 0u);
        if (v21) {
            const auto v24 = atomic_fetch_add_explicit(&hist[lid], count, memory_order_relaxed);
        }
    }
}
