#include <metal_stdlib>
using namespace metal;

constant half HALF_PI = 1.5703125h;


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device half* a [[buffer(0)]],
    const device half* b [[buffer(1)]],
    device half* out [[buffer(2)]],
    device float* wide [[buffer(3)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v56 = ((_buffer_sizes[0] - 0u) / 2u);
    const auto v57 = (i < v56);
    half x;
    if (v57) {
        const auto v58 = a[i];
        x = v58;
    } else {
        x = half{};
    }
    const auto v60 = ((_buffer_sizes[1] - 0u) / 2u);
    const auto v61 = (i < v60);
    half y;
    if (v61) {
        const auto v62 = b[i];
        y = v62;
    } else {
        y = half{};
    }
    const auto o = (i * 6u);
    const auto v64 = ((_buffer_sizes[2] - 0u) / 2u);
    const auto v65 = (o < v64);
    const auto v14 = (x + y);
    if (v65) {
        out[o] = v14;
    }
    const auto v16 = (o + 1u);
    const auto v67 = (v16 < v64);
    const auto v78 = (-1.5h);
    const auto v20 = fma(x, y, v78);
    if (v67) {
        out[v16] = v20;
    }
    const auto v22 = (o + 2u);
    const auto v69 = (v22 < v64);
    const auto v24 = (x / y);
    if (v69) {
        out[v22] = v24;
    }
    const auto v26 = (o + 3u);
    const auto v71 = (v26 < v64);
    const auto v29 = fma(x, y, 1.5703125h);
    if (v71) {
        out[v26] = v29;
    }
    const auto v31 = (o + 4u);
    const auto v73 = (v31 < v64);
    const auto v33 = abs(x);
    const auto v34 = max(v33, y);
    const auto v35 = abs(y);
    const auto v36 = sqrt(v35);
    const auto v37 = (v34 + v36);
    if (v73) {
        out[v31] = v37;
    }
    const auto v38 = (x - y);
    const auto v40 = half4(x, y, v38, 2.0h);
    const auto v = (v40 * half4(0.5h, 0.5h, 0.5h, 0.5h));
    const auto v44 = (o + 5u);
    const auto v75 = (v44 < v64);
    const auto v79 = v.x;
    const auto v80 = half4(1.0h, (-1.0h), 1.0h, 0.25h).x;
    const auto v81 = (v79 * v80);
    const auto v82 = v.y;
    const auto v83 = half4(1.0h, (-1.0h), 1.0h, 0.25h).y;
    const auto v84 = fma(v82, v83, v81);
    const auto v85 = v.z;
    const auto v86 = half4(1.0h, (-1.0h), 1.0h, 0.25h).z;
    const auto v87 = fma(v85, v86, v84);
    const auto v88 = v.w;
    const auto v89 = half4(1.0h, (-1.0h), 1.0h, 0.25h).w;
    const auto v47 = fma(v88, v89, v87);
    if (v75) {
        out[v44] = v47;
    }
    const auto v76 = ((_buffer_sizes[3] - 0u) / 4u);
    const auto v77 = (i < v76);
    const auto v50 = float(x);
    const auto v51 = float(y);
    const auto v54 = float(v38);
    const auto v55 = fma(v50, v51, v54);
    if (v77) {
        wide[i] = v55;
    }
}
