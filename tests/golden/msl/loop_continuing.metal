#include <metal_stdlib>
using namespace metal;

template <typename T> T dr_udiv(T a, T b) {
    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));
}

template <typename T> T dr_urem(T a, T b) {
    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));
}


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device uint* input [[buffer(0)]],
    device uint* out [[buffer(1)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto v17 = gid.x;
    const auto v170 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v171 = (v17 < v170);
    uint x;
    if (v171) {
        const auto v172 = input[v17];
        x = v172;
    } else {
        x = uint{};
    }
    const auto v22 = dr_urem(x, 23u);
    const auto n = (v22 + 1u);
    uint i = 0u;
    uint acc = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto i_1 = i;
            const auto acc_1 = acc;
            const auto v36 = (i_1 + 1u);
            const auto v38 = (v36 >= n);
            i = v36;
            if (v38) { break; }
        }
        loop_init_0 = false;
        const auto i_2 = i;
        const auto acc_2 = acc;
        const auto v27 = dr_urem(i_2, 3u);
        const auto v29 = (v27 == 0u);
        if (v29) {
            continue;
        }
        const auto v32 = (i_2 * x);
        const auto v33 = (acc_2 + v32);
        acc = v33;
    }
    const auto v41 = (3u * v17);
    const auto v174 = ((_buffer_sizes[1] - 0u) / 4u);
    const auto v175 = (v41 < v174);
    if (v175) {
        out[v41] = acc;
    }
    const auto v69 = dr_urem(x, 40u);
    const auto v71 = (v69 + 10u);
    uint pairs = 0u;
    uint a = 0u;
    bool loop_init_1 = true;
    while (true) {
        if (!loop_init_1) {
            const auto pairs_1 = pairs;
            const auto a_1 = a;
        }
        loop_init_1 = false;
        const auto pairs_2 = pairs;
        const auto a_2 = a;
        const auto v49 = (a_2 >= 12u);
        if (v49) {
            break;
        }
        const auto v52 = (a_2 + 1u);
        const auto v54 = (v52 + x);
        const auto v56 = dr_urem(v54, 5u);
        const auto v58 = (v56 == 0u);
        if (v58) {
            a = v52;
            continue;
        }
        const auto v61 = (v52 + 1u);
        const auto v84 = (v52 * 16u);
        uint pairs_3 = pairs_2;
        uint b = v61;
        bool loop_init_2 = true;
        while (true) {
            if (!loop_init_2) {
                const auto pairs_4 = pairs_3;
                const auto b_1 = b;
                const auto v90 = (b_1 + 1u);
                b = v90;
            }
            loop_init_2 = false;
            const auto pairs_5 = pairs_3;
            const auto b_2 = b;
            const auto v64 = (b_2 < 12u);
            if (!(v64)) {
                break;
            }
            const auto v67 = (v52 * b_2);
            const auto v72 = (v67 > v71);
            if (v72) {
                break;
            }
            const auto v75 = (v52 ^ b_2);
            const auto v76 = (v75 ^ x);
            const auto v78 = dr_urem(v76, 3u);
            const auto v80 = (v78 == 0u);
            if (v80) {
                continue;
            }
            const auto v86 = (v84 + b_2);
            const auto v87 = (pairs_5 + v86);
            pairs_3 = v87;
        }
        pairs = pairs_3;
        a = v52;
    }
    const auto v95 = (v41 + 1u);
    const auto v177 = (v95 < v174);
    if (v177) {
        out[v95] = pairs;
    }
    const auto v99 = dr_urem(x, 1000u);
    const auto v101 = (v99 + 1u);
    uint lo = 0u;
    uint hi = v101;
    uint probes = 0u;
    bool loop_init_3 = true;
    while (true) {
        if (!loop_init_3) {
            const auto lo_1 = lo;
            const auto hi_1 = hi;
            const auto probes_1 = probes;
            const auto v113 = (probes_1 + 1u);
            const auto v116 = (hi_1 - lo_1);
            const auto v118 = (v116 <= 1u);
            probes = v113;
            if (v118) { break; }
        }
        loop_init_3 = false;
        const auto lo_2 = lo;
        const auto hi_2 = hi;
        const auto probes_2 = probes;
        const auto v104 = (lo_2 + hi_2);
        const auto mid = dr_udiv(v104, 2u);
        const auto v107 = (mid * mid);
        const auto v110 = (v107 > v99);
        uint lo_3;
        uint hi_3;
        if (v110) {
            lo_3 = lo_2;
            hi_3 = mid;
        } else {
            lo_3 = mid;
            hi_3 = hi_2;
        }
        lo = lo_3;
        hi = hi_3;
    }
    const auto v123 = (v41 + 2u);
    const auto v179 = (v123 < v174);
    const auto v128 = (probes << (16u & 31u));
    const auto v129 = (lo | v128);
    if (v179) {
        out[v123] = v129;
    }
}
