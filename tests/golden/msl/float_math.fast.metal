#include <metal_stdlib>
using namespace metal;


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device float* xs [[buffer(0)]],
    const device float* ps [[buffer(1)]],
    device float* out [[buffer(2)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto i = gid.x;
    const auto v102 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v103 = (i < v102);
    float x;
    if (v103) {
        const auto v104 = xs[i];
        x = v104;
    } else {
        x = float{};
    }
    const auto v106 = ((_buffer_sizes[1] - 0u) / 4u);
    const auto v107 = (i < v106);
    float p;
    if (v107) {
        const auto v108 = ps[i];
        p = v108;
    } else {
        p = float{};
    }
    const auto o = (i * 18u);
    const auto v110 = ((_buffer_sizes[2] - 0u) / 4u);
    const auto v111 = (o < v110);
    const auto v14 = fast::exp(x);
    if (v111) {
        out[o] = v14;
    }
    const auto v16 = (o + 1u);
    const auto v113 = (v16 < v110);
    const auto v19 = (x * 4.0f);
    const auto v20 = fast::exp2(v19);
    if (v113) {
        out[v16] = v20;
    }
    const auto v22 = (o + 2u);
    const auto v115 = (v22 < v110);
    const auto v24 = fast::log(p);
    if (v115) {
        out[v22] = v24;
    }
    const auto v26 = (o + 3u);
    const auto v117 = (v26 < v110);
    const auto v28 = fast::log2(p);
    if (v117) {
        out[v26] = v28;
    }
    const auto v30 = (o + 4u);
    const auto v119 = (v30 < v110);
    const auto v32 = fast::sqrt(p);
    if (v119) {
        out[v30] = v32;
    }
    const auto v34 = (o + 5u);
    const auto v121 = (v34 < v110);
    const auto v36 = fast::rsqrt(p);
    if (v121) {
        out[v34] = v36;
    }
    const auto v38 = (o + 6u);
    const auto v123 = (v38 < v110);
    const auto v40 = fast::pow(p, x);
    if (v123) {
        out[v38] = v40;
    }
    const auto v42 = (o + 7u);
    const auto v125 = (v42 < v110);
    const auto v45 = (x * 3.0f);
    const auto v46 = fast::sin(v45);
    if (v125) {
        out[v42] = v46;
    }
    const auto v48 = (o + 8u);
    const auto v127 = (v48 < v110);
    const auto v52 = fast::cos(v45);
    if (v127) {
        out[v48] = v52;
    }
    const auto v54 = (o + 9u);
    const auto v129 = (v54 < v110);
    const auto v56 = fast::tan(x);
    if (v129) {
        out[v54] = v56;
    }
    const auto v58 = (o + 10u);
    const auto v131 = (v58 < v110);
    const auto v61 = (x * 5.0f);
    const auto v62 = fast::atan(v61);
    if (v131) {
        out[v58] = v62;
    }
    const auto v64 = (o + 11u);
    const auto v133 = (v64 < v110);
    const auto v67 = (p - 5.0f);
    const auto v68 = fast::atan2(x, v67);
    if (v133) {
        out[v64] = v68;
    }
    const auto v70 = (o + 12u);
    const auto v135 = (v70 < v110);
    const auto v73 = (x * 2.0f);
    const auto v74 = fast::tanh(v73);
    if (v135) {
        out[v70] = v74;
    }
    const auto v76 = (o + 13u);
    const auto v137 = (v76 < v110);
    const auto v78 = fast::asin(x);
    if (v137) {
        out[v76] = v78;
    }
    const auto v80 = (o + 14u);
    const auto v139 = (v80 < v110);
    const auto v82 = fast::acos(x);
    if (v139) {
        out[v80] = v82;
    }
    const auto v84 = (o + 15u);
    const auto v141 = (v84 < v110);
    const auto v86 = fast::sinh(x);
    const auto v87 = fast::cosh(x);
    const auto v88 = (v86 + v87);
    if (v141) {
        out[v84] = v88;
    }
    const auto v90 = (o + 16u);
    const auto v143 = (v90 < v110);
    const auto v92 = (x * float(57.29577951308232));
    const auto v93 = (p * float(0.017453292519943295));
    const auto v94 = (v92 + v93);
    if (v143) {
        out[v90] = v94;
    }
    const auto v96 = (o + 17u);
    const auto v145 = (v96 < v110);
    const auto v98 = float2(x, p);
    const auto v99 = length(v98);
    const auto v100 = distance(x, p);
    const auto v101 = (v99 + v100);
    if (v145) {
        out[v96] = v101;
    }
}
