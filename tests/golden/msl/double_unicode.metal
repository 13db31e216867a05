#include <metal_stdlib>
using namespace metal;


[[max_total_threads_per_threadgroup(4)]] kernel void 加倍(device uint* 数据 [[buffer(0)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 序 [[thread_position_in_grid]]) {
    const auto v1 = 序.x;
    const auto v9 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v10 = (v1 < v9);
    if (v10) {
        const auto v11 = 数据[v1];
        const auto v13 = (v11 * 2u);
        数据[v1] = v13;
    }
}
