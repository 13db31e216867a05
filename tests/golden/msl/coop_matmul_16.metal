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
    uint3 wid [[threadgroup_position_in_grid]],
    uint _local_index [[thread_index_in_threadgroup]]) {
    threadgroup float _coop_stages[64];
    threadgroup float* _coop_stage = &_coop_stages[(_local_index / 32u) * 64u];
    const uint _coop_lane = _local_index % 32u;
    const auto v5 = wid.y;
    const auto row = (v5 * 16u);
    const auto v8 = wid.x;
    const auto col = (v8 * 16u);
    const auto v12 = (row * 32u);
    const auto v13 = (v12 + col);
    const auto v56 = ((_buffer_sizes[2] - 0u) / 4u);
    const auto v57 = (v13 < v56);
    const auto v59 = (v56 - v13);
    const auto v61 = (v57 ? v59 : 0u);
    dr_coop16_float v17;
    if (simd_all(ulong(32u) * 15ul + 15ul < ulong(v61))) {
        simdgroup_load(v17.t[0][0], &c[v13] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(v17.t[0][1], &c[v13] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
        simdgroup_load(v17.t[1][0], &c[v13] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_load(v17.t[1][1], &c[v13] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
    } else {
        threadgroup float* _coop_s = (threadgroup float*)_coop_stage;
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
            _coop_s[_coop_e] = _coop_o < ulong(v61) ? (&c[v13])[_coop_o] : float(0);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(v17.t[0][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
            _coop_s[_coop_e] = _coop_o < ulong(v61) ? (&c[v13])[_coop_o] : float(0);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(v17.t[0][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
            _coop_s[_coop_e] = _coop_o < ulong(v61) ? (&c[v13])[_coop_o] : float(0);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(v17.t[1][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
            _coop_s[_coop_e] = _coop_o < ulong(v61) ? (&c[v13])[_coop_o] : float(0);
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_load(v17.t[1][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
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
        const auto v62 = ((_buffer_sizes[0] - 0u) / 2u);
        const auto v63 = (v24 < v62);
        const auto v65 = (v62 - v24);
        const auto v67 = (v63 ? v65 : 0u);
        dr_coop16_half am;
        if (simd_all(ulong(32u) * 15ul + 15ul < ulong(v67))) {
            simdgroup_load(am.t[0][0], &a[v24] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
            simdgroup_load(am.t[0][1], &a[v24] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
            simdgroup_load(am.t[1][0], &a[v24] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
            simdgroup_load(am.t[1][1], &a[v24] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
        } else {
            threadgroup half* _coop_s = (threadgroup half*)_coop_stage;
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v67) ? (&a[v24])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(am.t[0][0], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v67) ? (&a[v24])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(am.t[0][1], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v67) ? (&a[v24])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(am.t[1][0], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v67) ? (&a[v24])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(am.t[1][1], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
        const auto v31 = (k_2 * 32u);
        const auto v32 = (v31 + col);
        const auto v68 = ((_buffer_sizes[1] - 0u) / 2u);
        const auto v69 = (v32 < v68);
        const auto v71 = (v68 - v32);
        const auto v73 = (v69 ? v71 : 0u);
        dr_coop16_half bm;
        if (simd_all(ulong(32u) * 15ul + 15ul < ulong(v73))) {
            simdgroup_load(bm.t[0][0], &b[v32] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
            simdgroup_load(bm.t[0][1], &b[v32] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
            simdgroup_load(bm.t[1][0], &b[v32] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
            simdgroup_load(bm.t[1][1], &b[v32] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
        } else {
            threadgroup half* _coop_s = (threadgroup half*)_coop_stage;
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v73) ? (&b[v32])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(bm.t[0][0], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v73) ? (&b[v32])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(bm.t[0][1], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v73) ? (&b[v32])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(bm.t[1][0], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
                const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
                _coop_s[_coop_e] = _coop_o < ulong(v73) ? (&b[v32])[_coop_o] : half(0);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_load(bm.t[1][1], _coop_s, 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
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
    if (simd_all(ulong(32u) * 15ul + 15ul < ulong(v61))) {
        simdgroup_store(acc.t[0][0], &c[v13] + (0u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_store(acc.t[0][1], &c[v13] + (0u * 32u + 8u), ulong(32u), ulong2(0), false);
        simdgroup_store(acc.t[1][0], &c[v13] + (8u * 32u + 0u), ulong(32u), ulong2(0), false);
        simdgroup_store(acc.t[1][1], &c[v13] + (8u * 32u + 8u), ulong(32u), ulong2(0), false);
    } else {
        threadgroup float* _coop_s = (threadgroup float*)_coop_stage;
        simdgroup_store(acc.t[0][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v61)) { (&c[v13])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(acc.t[0][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v61)) { (&c[v13])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(acc.t[1][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v61)) { (&c[v13])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(acc.t[1][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(32u) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v61)) { (&c[v13])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
}
