#include <metal_stdlib>
using namespace metal;

struct alignas(4) Params {
    float alpha;
    uint count;
};


[[max_total_threads_per_threadgroup(256)]] kernel void main_(constant Params& params [[buffer(0)]],
    const device float4* x [[buffer(1)]],
    device float4* y [[buffer(2)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v4 = params.count;
    const auto v5 = (i < v4);
    if (v5) {
        const auto v9 = params.alpha;
        const auto v10 = float4(v9);
        const auto v13 = x[i];
        const auto v15 = y[i];
        const auto v16 = fma(v10, v13, v15);
        y[i] = v16;
        return;
    } else {
        return;
    }
}
