#include <metal_stdlib>
#include <metal_simdgroup_matrix>
using namespace metal;

struct dr_coop16_float {
    simdgroup_float8x8 t[2][2];
};

// A 16x16 cooperative matrix as 2x2 tiles of Metal's 8x8 simdgroup matrices.
struct dr_coop16_half {
    simdgroup_half8x8 t[2][2];
};

constant uint N = 32u;
constant uint K = 32u;


[[max_total_threads_per_threadgroup(32)]] kernel void main_(const device half* a [[buffer(0)]],
    const device half* b [[buffer(1)]],
    device float* c [[buffer(2)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 wid [[threadgroup_position_in_grid]]) {
    const auto v5 = wid.y;
    const auto row = (v5 * 16u);
    const auto v8 = wid.x;
    const auto col = (v8 * 16u);
    const auto v12 = (row * 32u);
    const auto v13 = (v12 + col);
    const auto v56 = ((_buffer_sizes[2] - 0u) / 4u);
    const auto v57 = (v13 < v56);
    dr_coop16_float v17;
    simdgroup_load(v17.t[0][0], &c[v13] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
    simdgroup_load(v17.t[0][1], &c[v13] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
    simdgroup_load(v17.t[1][0], &c[v13] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
    simdgroup_load(v17.t[1][1], &c[v13] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
    dr_coop16_float acc = v17;
    uint k = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto acc_1 = acc;
            const auto k_1 = k;
            const auto v41 = (k_1 + 16u);
            k = v41;
        }
        loop_init_0 = false;
        const auto acc_2 = acc;
        const auto k_2 = k;
        const auto v20 = (k_2 < 32u);
        if (!(v20)) {
            break;
        }
        const auto v24 = (v12 + k_2);
        const auto v58 = ((_buffer_sizes[0] - 0u) / 2u);
        const auto v59 = (v24 < v58);
        dr_coop16_half am;
        simdgroup_load(am.t[0][0], &a[v24] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(am.t[0][1], &a[v24] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
        simdgroup_load(am.t[1][0], &a[v24] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(am.t[1][1], &a[v24] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
        const auto v31 = (k_2 * 32u);
        const auto v32 = (v31 + col);
        const auto v60 = ((_buffer_sizes[1] - 0u) / 2u);
        const auto v61 = (v32 < v60);
        dr_coop16_half bm;
        simdgroup_load(bm.t[0][0], &b[v32] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(bm.t[0][1], &b[v32] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
        simdgroup_load(bm.t[1][0], &b[v32] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(bm.t[1][1], &b[v32] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
        dr_coop16_float v38;
        simdgroup_multiply_accumulate(v38.t[0][0], am.t[0][0], bm.t[0][0], acc_2.t[0][0]);
        simdgroup_multiply_accumulate(v38.t[0][0], am.t[0][1], bm.t[1][0], v38.t[0][0]);
        simdgroup_multiply_accumulate(v38.t[0][1], am.t[0][0], bm.t[0][1], acc_2.t[0][1]);
        simdgroup_multiply_accumulate(v38.t[0][1], am.t[0][1], bm.t[1][1], v38.t[0][1]);
        simdgroup_multiply_accumulate(v38.t[1][0], am.t[1][0], bm.t[0][0], acc_2.t[1][0]);
        simdgroup_multiply_accumulate(v38.t[1][0], am.t[1][1], bm.t[1][0], v38.t[1][0]);
        simdgroup_multiply_accumulate(v38.t[1][1], am.t[1][0], bm.t[0][1], acc_2.t[1][1]);
        simdgroup_multiply_accumulate(v38.t[1][1], am.t[1][1], bm.t[1][1], v38.t[1][1]);
        acc = v38;
    }
    simdgroup_store(acc.t[0][0], &c[v13] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
    simdgroup_store(acc.t[0][1], &c[v13] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
    simdgroup_store(acc.t[1][0], &c[v13] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
    simdgroup_store(acc.t[1][1], &c[v13] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
}
