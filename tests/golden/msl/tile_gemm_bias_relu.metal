#include <metal_stdlib>
#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
// Metal 4: compile as MSL 4.0 (MTLLanguageVersion4_0) for a device in MTLGPUFamilyMetal4
// (Apple10: M5, A19); dispatch threadgroups of threadExecutionWidth x 4 = 128 threads.
using namespace metal;

template <typename T> T dr_udiv(T a, T b) {
    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));
}

template <typename T> T dr_urem(T a, T b) {
    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));
}

// Workgroup matrices on Metal 4 (docs/workgroup-matrix.md): one 64 x 64 float accumulator per
// threadgroup of 4 simdgroups (128 threads).
using _dr_wgm_op = mpp::tensor_ops::matmul2d<mpp::tensor_ops::matmul2d_descriptor(64, 64, 32, false, false, false, mpp::tensor_ops::matmul2d_descriptor::mode::multiply_accumulate), metal::execution_simdgroups<4>>;
using _dr_wgm_left = metal::tensor<device half, metal::dextents<int32_t, 2>, metal::tensor_inline>;
using _dr_wgm_right = metal::tensor<device half, metal::dextents<int32_t, 2>, metal::tensor_inline>;
using _dr_wgm_tile = _dr_wgm_op::cooperative_tensor_destination_t<_dr_wgm_left, _dr_wgm_right, float>;

_dr_wgm_tile _dr_wgm_splat(float v) {
    _dr_wgm_op op;
    _dr_wgm_tile t = op.get_destination_cooperative_tensor<_dr_wgm_left, _dr_wgm_right, float>();
    for (uint16_t _dr_wgm_i = 0; _dr_wgm_i < t.get_capacity(); ++_dr_wgm_i) {
        if (!t.is_valid_element(_dr_wgm_i)) {
            continue;
        }
        const auto _dr_wgm_ix = t.get_multidimensional_index(_dr_wgm_i);
        const uint _dr_wgm_c = uint(_dr_wgm_ix[0]);
        const uint _dr_wgm_r = uint(_dr_wgm_ix[1]);
        (void)_dr_wgm_c;
        (void)_dr_wgm_r;
        t[_dr_wgm_i] = v;
    }
    return t;
}

struct alignas(4) Dims {
    uint m;
    uint n;
    uint k;
    uint pad;
};

uint extent(uint start, uint end);
_dr_wgm_tile _dr_wgm_mma0(uint _dr_wgm_ao, uint _dr_wgm_as, uint _dr_wgm_bo, uint _dr_wgm_bs, _dr_wgm_tile _dr_wgm_acc, const device half* a, const device half* b, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes);
_dr_wgm_tile product(_dr_wgm_tile acc0, uint row0, uint col0, constant Dims& dims, const device half* a, const device half* b, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes);
_dr_wgm_tile _dr_wgm_load1(uint _dr_wgm_off, uint _dr_wgm_stride, uint _dr_wgm_cols, uint _dr_wgm_rows, const device float* residual, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes);
void _dr_wgm_store2(uint _dr_wgm_off, _dr_wgm_tile _dr_wgm_t, uint _dr_wgm_stride, uint _dr_wgm_cols, uint _dr_wgm_rows, threadgroup array<float, 4096>& block, thread uint& _dr_wgm_lid);

uint extent(uint start, uint end) {
    const auto v2 = (end - start);
    const auto v4 = min(64u, v2);
    const auto v5 = (end > start);
    const auto v7 = (v5 ? v4 : 0u);
    return v7;
}

_dr_wgm_tile _dr_wgm_mma0(uint _dr_wgm_ao, uint _dr_wgm_as, uint _dr_wgm_bo, uint _dr_wgm_bs, _dr_wgm_tile _dr_wgm_acc, const device half* a, const device half* b, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes) {
    // Every operand element inside its array: the tensor operation.
    if (ulong(_dr_wgm_ao) + 63ul * ulong(_dr_wgm_as) + 31ul < ulong(((_buffer_sizes[1] - 0u) / 2u)) && ulong(_dr_wgm_bo) + 31ul * ulong(_dr_wgm_bs) + 63ul < ulong(((_buffer_sizes[2] - 0u) / 2u))) {
        _dr_wgm_left _dr_wgm_a(const_cast<device half*>(&a[_dr_wgm_ao]), metal::dextents<int32_t, 2>(32, 64), metal::array<int32_t, 2>{1, int32_t(_dr_wgm_as)});
        _dr_wgm_right _dr_wgm_b(const_cast<device half*>(&b[_dr_wgm_bo]), metal::dextents<int32_t, 2>(64, 32), metal::array<int32_t, 2>{1, int32_t(_dr_wgm_bs)});
        _dr_wgm_op _dr_wgm_mm;
        _dr_wgm_mm.run(_dr_wgm_a, _dr_wgm_b, _dr_wgm_acc);
        return _dr_wgm_acc;
    }
    // Otherwise the reference order, each operand element read under the bounds policy.
    for (uint16_t _dr_wgm_i = 0; _dr_wgm_i < _dr_wgm_acc.get_capacity(); ++_dr_wgm_i) {
        if (!_dr_wgm_acc.is_valid_element(_dr_wgm_i)) {
            continue;
        }
        const auto _dr_wgm_ix = _dr_wgm_acc.get_multidimensional_index(_dr_wgm_i);
        const uint _dr_wgm_c = uint(_dr_wgm_ix[0]);
        const uint _dr_wgm_r = uint(_dr_wgm_ix[1]);
        (void)_dr_wgm_c;
        (void)_dr_wgm_r;
        float _dr_wgm_s = _dr_wgm_acc[_dr_wgm_i];
        for (uint _dr_wgm_k = 0u; _dr_wgm_k < 32u; ++_dr_wgm_k) {
            _dr_wgm_s = fma((((_dr_wgm_ao + _dr_wgm_r * _dr_wgm_as + _dr_wgm_k)) < ((_buffer_sizes[1] - 0u) / 2u) ? float(a[(_dr_wgm_ao + _dr_wgm_r * _dr_wgm_as + _dr_wgm_k)]) : 0.0f), (((_dr_wgm_bo + _dr_wgm_k * _dr_wgm_bs + _dr_wgm_c)) < ((_buffer_sizes[2] - 0u) / 2u) ? float(b[(_dr_wgm_bo + _dr_wgm_k * _dr_wgm_bs + _dr_wgm_c)]) : 0.0f), _dr_wgm_s);
        }
        _dr_wgm_acc[_dr_wgm_i] = _dr_wgm_s;
    }
    return _dr_wgm_acc;
}

_dr_wgm_tile product(_dr_wgm_tile acc0, uint row0, uint col0, constant Dims& dims, const device half* a, const device half* b, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes) {
    const auto n = dims.n;
    const auto k = dims.k;
    const auto v14 = (row0 * k);
    _dr_wgm_tile acc = acc0;
    uint k0 = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto acc_1 = acc;
            const auto k0_1 = k0;
            const auto v24 = (k0_1 + 32u);
            k0 = v24;
        }
        loop_init_0 = false;
        const auto acc_2 = acc;
        const auto k0_2 = k0;
        const auto v13 = (k0_2 < k);
        if (!(v13)) {
            break;
        }
        const auto v16 = (v14 + k0_2);
        const auto v18 = (k0_2 * n);
        const auto v19 = (v18 + col0);
        const auto v21 = _dr_wgm_mma0(v16, k, v19, n, acc_2, a, b, _dr_wgm_lid, _buffer_sizes);
        acc = v21;
    }
    return acc;
}

_dr_wgm_tile _dr_wgm_load1(uint _dr_wgm_off, uint _dr_wgm_stride, uint _dr_wgm_cols, uint _dr_wgm_rows, const device float* residual, thread uint& _dr_wgm_lid, constant uint* _buffer_sizes) {
    _dr_wgm_tile _dr_wgm_res = _dr_wgm_splat(0.0f);
    for (uint16_t _dr_wgm_i = 0; _dr_wgm_i < _dr_wgm_res.get_capacity(); ++_dr_wgm_i) {
        if (!_dr_wgm_res.is_valid_element(_dr_wgm_i)) {
            continue;
        }
        const auto _dr_wgm_ix = _dr_wgm_res.get_multidimensional_index(_dr_wgm_i);
        const uint _dr_wgm_c = uint(_dr_wgm_ix[0]);
        const uint _dr_wgm_r = uint(_dr_wgm_ix[1]);
        (void)_dr_wgm_c;
        (void)_dr_wgm_r;
        if (_dr_wgm_c < _dr_wgm_cols && _dr_wgm_r < _dr_wgm_rows) {
            _dr_wgm_res[_dr_wgm_i] = (((_dr_wgm_off + _dr_wgm_r * _dr_wgm_stride + _dr_wgm_c)) < ((_buffer_sizes[3] - 0u) / 4u) ? float(residual[(_dr_wgm_off + _dr_wgm_r * _dr_wgm_stride + _dr_wgm_c)]) : 0.0f);
        }
    }
    return _dr_wgm_res;
}

void _dr_wgm_store2(uint _dr_wgm_off, _dr_wgm_tile _dr_wgm_t, uint _dr_wgm_stride, uint _dr_wgm_cols, uint _dr_wgm_rows, threadgroup array<float, 4096>& block, thread uint& _dr_wgm_lid) {
    for (uint16_t _dr_wgm_i = 0; _dr_wgm_i < _dr_wgm_t.get_capacity(); ++_dr_wgm_i) {
        if (!_dr_wgm_t.is_valid_element(_dr_wgm_i)) {
            continue;
        }
        const auto _dr_wgm_ix = _dr_wgm_t.get_multidimensional_index(_dr_wgm_i);
        const uint _dr_wgm_c = uint(_dr_wgm_ix[0]);
        const uint _dr_wgm_r = uint(_dr_wgm_ix[1]);
        (void)_dr_wgm_c;
        (void)_dr_wgm_r;
        if (_dr_wgm_c < _dr_wgm_cols && _dr_wgm_r < _dr_wgm_rows) {
            const uint _dr_wgm_at = _dr_wgm_off + _dr_wgm_r * _dr_wgm_stride + _dr_wgm_c;
            block[min(_dr_wgm_at, 4096u - 1u)] = float(_dr_wgm_t[_dr_wgm_i]);
        }
    }
}

[[max_total_threads_per_threadgroup(128)]] kernel void main_(constant Dims& dims [[buffer(0)]],
    const device half* a [[buffer(1)]],
    const device half* b [[buffer(2)]],
    const device float* residual [[buffer(3)]],
    const device float* bias [[buffer(4)]],
    device float* y [[buffer(5)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 wg [[threadgroup_position_in_grid]],
    uint li [[thread_index_in_threadgroup]]) {
    threadgroup array<float, 4096> block;
    uint _dr_wgm_lid = {};
    if (li == 0u) {
        block = array<float, 4096>{};
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    _dr_wgm_lid = li;
    const auto m = dims.m;
    const auto n = dims.n;
    const auto v12 = wg.y;
    const auto row0 = (v12 * 64u);
    const auto v15 = wg.x;
    const auto col0 = (v15 * 64u);
    const auto rows = extent(row0, m);
    const auto cols = extent(col0, n);
    const auto v20 = (row0 * n);
    const auto v21 = (v20 + col0);
    const auto start = _dr_wgm_load1(v21, n, cols, rows, residual, _dr_wgm_lid, _buffer_sizes);
    const auto acc = product(start, row0, col0, dims, a, b, _dr_wgm_lid, _buffer_sizes);
    _dr_wgm_store2(0u, acc, 64u, 64u, 64u, block, _dr_wgm_lid);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint e = li;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto e_1 = e;
            const auto v60 = (e_1 + 128u);
            e = v60;
        }
        loop_init_0 = false;
        const auto e_2 = e;
        const auto v30 = (e_2 < 4096u);
        if (!(v30)) {
            break;
        }
        const auto r = dr_udiv(e_2, 64u);
        const auto c = dr_urem(e_2, 64u);
        const auto v37 = (r < rows);
        const auto v38 = (c < cols);
        const auto local1 = (v37 && v38);
        if (local1) {
            const auto v41 = (row0 + r);
            const auto v42 = (v41 * n);
            const auto v43 = (v42 + col0);
            const auto v44 = (v43 + c);
            const auto v70 = ((_buffer_sizes[5] - 0u) / 4u);
            const auto v71 = (v44 < v70);
            const auto v50 = block[e_2];
            const auto v51 = (col0 + c);
            const auto v72 = ((_buffer_sizes[4] - 0u) / 4u);
            const auto v73 = (v51 < v72);
            float v54;
            if (v73) {
                const auto v74 = bias[v51];
                v54 = v74;
            } else {
                v54 = float{};
            }
            const auto v55 = (v50 + v54);
            const auto v57 = max(v55, 0.0f);
            if (v71) {
                y[v44] = v57;
            }
        }
    }
}
