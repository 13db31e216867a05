#include <metal_stdlib>
using namespace metal;


[[max_total_threads_per_threadgroup(4)]] kernel void 加倍(device uint* 数据 [[buffer(0)]],
    uint3 序 [[thread_position_in_grid]]) {
    const auto v1 = 序.x;
    const auto v6 = 数据[v1];
    const auto v8 = (v6 * 2u);
    数据[v1] = v8;
}
