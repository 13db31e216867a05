#include <metal_stdlib>
using namespace metal;

constant half HALF_PI = 1.5703125h;


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device half* a [[buffer(0)]],
    const device half* b [[buffer(1)]],
    device half* out [[buffer(2)]],
    device float* wide [[buffer(3)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto x = a[i];
    const auto y = b[i];
    const auto o = (i * 6u);
    const auto v14 = (x + y);
    out[o] = v14;
    const auto v16 = (o + 1u);
    const auto v56 = (-1.5h);
    const auto v20 = fma(x, y, v56);
    out[v16] = v20;
    const auto v22 = (o + 2u);
    const auto v24 = (x / y);
    out[v22] = v24;
    const auto v26 = (o + 3u);
    const auto v29 = fma(x, y, 1.5703125h);
    out[v26] = v29;
    const auto v31 = (o + 4u);
    const auto v33 = abs(x);
    const auto v34 = max(v33, y);
    const auto v35 = abs(y);
    const auto v36 = sqrt(v35);
    const auto v37 = (v34 + v36);
    out[v31] = v37;
    const auto v38 = (x - y);
    const auto v40 = half4(x, y, v38, 2.0h);
    const auto v = (v40 * half4(0.5h, 0.5h, 0.5h, 0.5h));
    const auto v44 = (o + 5u);
    const auto v57 = v.x;
    const auto v58 = half4(1.0h, (-1.0h), 1.0h, 0.25h).x;
    const auto v59 = (v57 * v58);
    const auto v60 = v.y;
    const auto v61 = half4(1.0h, (-1.0h), 1.0h, 0.25h).y;
    const auto v62 = fma(v60, v61, v59);
    const auto v63 = v.z;
    const auto v64 = half4(1.0h, (-1.0h), 1.0h, 0.25h).z;
    const auto v65 = fma(v63, v64, v62);
    const auto v66 = v.w;
    const auto v67 = half4(1.0h, (-1.0h), 1.0h, 0.25h).w;
    const auto v47 = fma(v66, v67, v65);
    out[v44] = v47;
    const auto v50 = float(x);
    const auto v51 = float(y);
    const auto v54 = float(v38);
    const auto v55 = fma(v50, v51, v54);
    wide[i] = v55;
}
