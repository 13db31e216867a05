#include <metal_stdlib>
using namespace metal;


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device float* xs [[buffer(0)]],
    const device float* ps [[buffer(1)]],
    device float* out [[buffer(2)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto x = xs[i];
    const auto p = ps[i];
    const auto o = (i * 18u);
    const auto v14 = precise::exp(x);
    out[o] = v14;
    const auto v16 = (o + 1u);
    const auto v19 = (x * 4.0f);
    const auto v20 = precise::exp2(v19);
    out[v16] = v20;
    const auto v22 = (o + 2u);
    const auto v24 = precise::log(p);
    out[v22] = v24;
    const auto v26 = (o + 3u);
    const auto v28 = precise::log2(p);
    out[v26] = v28;
    const auto v30 = (o + 4u);
    const auto v32 = precise::sqrt(p);
    out[v30] = v32;
    const auto v34 = (o + 5u);
    const auto v36 = precise::rsqrt(p);
    out[v34] = v36;
    const auto v38 = (o + 6u);
    const auto v40 = precise::pow(p, x);
    out[v38] = v40;
    const auto v42 = (o + 7u);
    const auto v45 = (x * 3.0f);
    const auto v46 = precise::sin(v45);
    out[v42] = v46;
    const auto v48 = (o + 8u);
    const auto v52 = precise::cos(v45);
    out[v48] = v52;
    const auto v54 = (o + 9u);
    const auto v56 = precise::tan(x);
    out[v54] = v56;
    const auto v58 = (o + 10u);
    const auto v61 = (x * 5.0f);
    const auto v62 = precise::atan(v61);
    out[v58] = v62;
    const auto v64 = (o + 11u);
    const auto v67 = (p - 5.0f);
    const auto v68 = precise::atan2(x, v67);
    out[v64] = v68;
    const auto v70 = (o + 12u);
    const auto v73 = (x * 2.0f);
    const auto v74 = precise::tanh(v73);
    out[v70] = v74;
    const auto v76 = (o + 13u);
    const auto v78 = precise::asin(x);
    out[v76] = v78;
    const auto v80 = (o + 14u);
    const auto v82 = precise::acos(x);
    out[v80] = v82;
    const auto v84 = (o + 15u);
    const auto v86 = precise::sinh(x);
    const auto v87 = precise::cosh(x);
    const auto v88 = (v86 + v87);
    out[v84] = v88;
    const auto v90 = (o + 16u);
    const auto v92 = (x * float(57.29577951308232));
    const auto v93 = (p * float(0.017453292519943295));
    const auto v94 = (v92 + v93);
    out[v90] = v94;
    const auto v96 = (o + 17u);
    const auto v98 = float2(x, p);
    const auto v99 = length(v98);
    const auto v100 = distance(x, p);
    const auto v101 = (v99 + v100);
    out[v96] = v101;
}
