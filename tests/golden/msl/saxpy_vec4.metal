#include <metal_stdlib>
using namespace metal;

struct alignas(4) Params {
    float alpha;
    uint count;
};


[[max_total_threads_per_threadgroup(256)]] kernel void main_(constant Params& params [[buffer(0)]],
    const device float4* x [[buffer(1)]],
    device float4* y [[buffer(2)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v4 = params.count;
    const auto v5 = (i < v4);
    const auto v17 = ((_buffer_sizes[2] - 0u) / 16u);
    const auto v18 = (i < v17);
    const auto v9 = params.alpha;
    const auto v10 = float4(v9);
    const auto v19 = ((_buffer_sizes[1] - 0u) / 16u);
    const auto v20 = (i < v19);
    const auto v26 = (v5 && v20);
    float4 v13;
    if (v26) {
        const auto v21 = x[i];
        v13 = v21;
    } else {
        v13 = float4{};
    }
    const auto v27 = (v5 && v18);
    if (v27) {
        const auto v23 = y[i];
        const auto v25 = fma(v10, v13, v23);
        y[i] = v25;
    }
}
