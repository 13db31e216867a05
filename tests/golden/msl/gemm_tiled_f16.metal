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

template <typename T> T dr_udiv(T a, T b) {
    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));
}

template <typename T> T dr_urem(T a, T b) {
    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));
}

struct alignas(4) Dims {
    uint m;
    uint n;
    uint k;
};

struct alignas(16) Half8 {
    half4 lo;
    half4 hi;
};

constant uint BM = 64u;
constant uint BN = 64u;
constant uint BK = 32u;
constant uint A_LD = 40u;
constant uint B_LD = 72u;
constant uint A_STAGE = 2560u;
constant uint B_STAGE = 2304u;
constant uint C_LD = 72u;

Half8 fetch_a(bool inside, uint i, const device Half8* a, constant uint* _buffer_sizes);
Half8 fetch_b(bool inside, uint i, const device Half8* b, constant uint* _buffer_sizes);
void put_a(uint at, Half8 v, threadgroup array<half, 5120>& tile_a);
void put_b(uint at, Half8 v, threadgroup array<half, 4608>& tile_b);
void store_block(dr_coop16_float m, uint offset, threadgroup array<float, 4608>& block, threadgroup float* _coop_stage, uint _coop_lane);
void store_c(dr_coop16_float m, uint offset, uint stride, device float* c, constant uint* _buffer_sizes, threadgroup float* _coop_stage, uint _coop_lane);

Half8 fetch_a(bool inside, uint i, const device Half8* a, constant uint* _buffer_sizes) {
    const auto v10 = ((_buffer_sizes[1] - 0u) / 16u);
    const auto v11 = (i < v10);
    const auto v19 = (inside && v11);
    half4 v15;
    half4 v18;
    if (v19) {
        const auto v12 = a[i];
        const auto v13 = v12.lo;
        const auto v16 = v12.hi;
        v15 = v13;
        v18 = v16;
    } else {
        v15 = half4{};
        v18 = half4{};
    }
    const auto v6 = Half8{v15, v18};
    return v6;
}

Half8 fetch_b(bool inside, uint i, const device Half8* b, constant uint* _buffer_sizes) {
    const auto v10 = ((_buffer_sizes[2] - 0u) / 16u);
    const auto v11 = (i < v10);
    const auto v19 = (inside && v11);
    half4 v15;
    half4 v18;
    if (v19) {
        const auto v12 = b[i];
        const auto v13 = v12.lo;
        const auto v16 = v12.hi;
        v15 = v13;
        v18 = v16;
    } else {
        v15 = half4{};
        v18 = half4{};
    }
    const auto v6 = Half8{v15, v18};
    return v6;
}

void put_a(uint at, Half8 v, threadgroup array<half, 5120>& tile_a) {
    const auto v42 = min(at, 5119u);
    const auto v4 = v.lo;
    const auto v5 = v4.x;
    tile_a[v42] = v5;
    const auto v7 = (at + 1u);
    const auto v44 = min(v7, 5119u);
    const auto v10 = v4.y;
    tile_a[v44] = v10;
    const auto v12 = (at + 2u);
    const auto v46 = min(v12, 5119u);
    const auto v15 = v4.z;
    tile_a[v46] = v15;
    const auto v17 = (at + 3u);
    const auto v48 = min(v17, 5119u);
    const auto v20 = v4.w;
    tile_a[v48] = v20;
    const auto v22 = (at + 4u);
    const auto v50 = min(v22, 5119u);
    const auto v24 = v.hi;
    const auto v25 = v24.x;
    tile_a[v50] = v25;
    const auto v27 = (at + 5u);
    const auto v52 = min(v27, 5119u);
    const auto v30 = v24.y;
    tile_a[v52] = v30;
    const auto v32 = (at + 6u);
    const auto v54 = min(v32, 5119u);
    const auto v35 = v24.z;
    tile_a[v54] = v35;
    const auto v37 = (at + 7u);
    const auto v56 = min(v37, 5119u);
    const auto v40 = v24.w;
    tile_a[v56] = v40;
}

void put_b(uint at, Half8 v, threadgroup array<half, 4608>& tile_b) {
    const auto v42 = min(at, 4607u);
    const auto v4 = v.lo;
    const auto v5 = v4.x;
    tile_b[v42] = v5;
    const auto v7 = (at + 1u);
    const auto v44 = min(v7, 4607u);
    const auto v10 = v4.y;
    tile_b[v44] = v10;
    const auto v12 = (at + 2u);
    const auto v46 = min(v12, 4607u);
    const auto v15 = v4.z;
    tile_b[v46] = v15;
    const auto v17 = (at + 3u);
    const auto v48 = min(v17, 4607u);
    const auto v20 = v4.w;
    tile_b[v48] = v20;
    const auto v22 = (at + 4u);
    const auto v50 = min(v22, 4607u);
    const auto v24 = v.hi;
    const auto v25 = v24.x;
    tile_b[v50] = v25;
    const auto v27 = (at + 5u);
    const auto v52 = min(v27, 4607u);
    const auto v30 = v24.y;
    tile_b[v52] = v30;
    const auto v32 = (at + 6u);
    const auto v54 = min(v32, 4607u);
    const auto v35 = v24.z;
    tile_b[v54] = v35;
    const auto v37 = (at + 7u);
    const auto v56 = min(v37, 4607u);
    const auto v40 = v24.w;
    tile_b[v56] = v40;
}

void store_block(dr_coop16_float m, uint offset, threadgroup array<float, 4608>& block, threadgroup float* _coop_stage, uint _coop_lane) {
    const auto v6 = (offset < 4608u);
    const auto v8 = (4608u - offset);
    const auto v10 = (v6 ? v8 : 0u);
    if (simd_all(ulong(72u) * 15ul + 15ul < ulong(v10))) {
        simdgroup_store(m.t[0][0], &block[offset] + (0u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_store(m.t[0][1], &block[offset] + (0u * 72u + 8u), ulong(72u), ulong2(0), false);
        simdgroup_store(m.t[1][0], &block[offset] + (8u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_store(m.t[1][1], &block[offset] + (8u * 72u + 8u), ulong(72u), ulong2(0), false);
    } else {
        threadgroup float* _coop_s = (threadgroup float*)_coop_stage;
        simdgroup_store(m.t[0][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(72u) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&block[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[0][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(72u) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&block[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[1][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(72u) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&block[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[1][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(72u) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&block[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
}

void store_c(dr_coop16_float m, uint offset, uint stride, device float* c, constant uint* _buffer_sizes, threadgroup float* _coop_stage, uint _coop_lane) {
    const auto v5 = ((_buffer_sizes[3] - 0u) / 4u);
    const auto v6 = (offset < v5);
    const auto v8 = (v5 - offset);
    const auto v10 = (v6 ? v8 : 0u);
    if (simd_all(ulong(stride) * 15ul + 15ul < ulong(v10))) {
        simdgroup_store(m.t[0][0], &c[offset] + (0u * stride + 0u), ulong(stride), ulong2(0), false);
        simdgroup_store(m.t[0][1], &c[offset] + (0u * stride + 8u), ulong(stride), ulong2(0), false);
        simdgroup_store(m.t[1][0], &c[offset] + (8u * stride + 0u), ulong(stride), ulong2(0), false);
        simdgroup_store(m.t[1][1], &c[offset] + (8u * stride + 8u), ulong(stride), ulong2(0), false);
    } else {
        threadgroup float* _coop_s = (threadgroup float*)_coop_stage;
        simdgroup_store(m.t[0][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(stride) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&c[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[0][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(0u + _coop_e / 8u) * ulong(stride) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&c[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[1][0], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(stride) + ulong(0u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&c[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
        simdgroup_store(m.t[1][1], _coop_s, 8);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        for (uint _coop_e = _coop_lane; _coop_e < 64u; _coop_e += 32u) {
            const ulong _coop_o = ulong(8u + _coop_e / 8u) * ulong(stride) + ulong(8u + _coop_e % 8u);
            if (_coop_o < ulong(v10)) { (&c[offset])[_coop_o] = _coop_s[_coop_e]; }
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
}

[[max_total_threads_per_threadgroup(128)]] kernel void main_(constant Dims& dims [[buffer(0)]],
    const device Half8* a [[buffer(1)]],
    const device Half8* b [[buffer(2)]],
    device float* c [[buffer(3)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 wid [[threadgroup_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]]) {
    threadgroup array<half, 5120> tile_a;
    threadgroup array<half, 4608> tile_b;
    threadgroup array<float, 4608> block;
    threadgroup float _coop_stages[256];
    threadgroup float* _coop_stage = &_coop_stages[(lid / 32u) * 64u];
    const uint _coop_lane = lid % 32u;
    if (lid == 0u) {
        tile_a = array<half, 5120>{};
        tile_b = array<half, 4608>{};
        block = array<float, 4608>{};
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v42 = wid.y;
    const auto row0 = (v42 * 64u);
    const auto v45 = wid.x;
    const auto col0 = (v45 * 64u);
    const auto sg = dr_udiv(lid, 32u);
    const auto lane = dr_urem(lid, 32u);
    const auto v53 = dr_udiv(sg, 2u);
    const auto wr = (v53 * 32u);
    const auto v57 = dr_urem(sg, 2u);
    const auto wc = (v57 * 32u);
    const auto v61 = (16u * sg);
    const auto v63 = (lane >> (1u & 31u));
    const auto v65 = (v63 & 3u);
    const auto v67 = (2u * v65);
    const auto v68 = (v61 + v67);
    const auto v70 = (lane >> (3u & 31u));
    const auto v72 = (v70 & 1u);
    const auto v73 = (v68 + v72);
    const auto v75 = (lane >> (4u & 31u));
    const auto v77 = (8u * v75);
    const auto a_row = (v73 + v77);
    const auto a_piece = (lane & 1u);
    const auto b_row = (lid >> (3u & 31u));
    const auto b_piece = (lid & 7u);
    const auto v86 = (a_row * 40u);
    const auto v88 = (8u * a_piece);
    const auto a_at = (v86 + v88);
    const auto v91 = (b_row * 72u);
    const auto v93 = (8u * b_piece);
    const auto b_at = (v91 + v93);
    const auto m = dims.m;
    const auto n = dims.n;
    const auto k = dims.k;
    const auto kq = dr_udiv(k, 8u);
    const auto nq = dr_udiv(n, 8u);
    const auto v106 = (row0 + a_row);
    const auto a_in = (v106 < m);
    const auto v109 = dr_udiv(col0, 8u);
    const auto v110 = (v109 + b_piece);
    const auto b_in = (v110 < nq);
    const auto v113 = (v106 * kq);
    const auto a_idx = (v113 + a_piece);
    const auto v115 = (b_row * nq);
    const auto v118 = (v115 + v109);
    const auto b_idx = (v118 + b_piece);
    const auto v121 = (k + 32u);
    const auto v123 = (v121 - 1u);
    const auto slabs = dr_udiv(v123, 32u);
    const auto v126 = (a_piece < kq);
    const auto local4 = (a_in && v126);
    const auto v129 = fetch_a(local4, a_idx, a, _buffer_sizes);
    const auto v131 = (a_piece + 2u);
    const auto v132 = (v131 < kq);
    const auto local6 = (a_in && v132);
    const auto v136 = (a_idx + 2u);
    const auto v137 = fetch_a(local6, v136, a, _buffer_sizes);
    const auto v138 = (b_row < k);
    const auto local8 = (b_in && v138);
    const auto v141 = fetch_b(local8, b_idx, b, _buffer_sizes);
    const auto v143 = (b_row + 16u);
    const auto v144 = (v143 < k);
    const auto local10 = (b_in && v144);
    const auto v148 = (16u * nq);
    const auto v149 = (b_idx + v148);
    const auto v150 = fetch_b(local10, v149, b, _buffer_sizes);
    put_a(a_at, v129, tile_a);
    const auto v153 = (a_at + 16u);
    put_a(v153, v137, tile_a);
    put_b(b_at, v141, tile_b);
    const auto v157 = (b_at + 1152u);
    put_b(v157, v150, tile_b);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto v213 = (wr * 40u);
    dr_coop16_float acc00 = dr_coop16_float{{{make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}, {make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}}};
    dr_coop16_float acc01 = dr_coop16_float{{{make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}, {make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}}};
    dr_coop16_float acc10 = dr_coop16_float{{{make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}, {make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}}};
    dr_coop16_float acc11 = dr_coop16_float{{{make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}, {make_filled_simdgroup_matrix<float, 8, 8>(float(0)), make_filled_simdgroup_matrix<float, 8, 8>(float(0))}}};
    Half8 ra0 = v129;
    Half8 ra1 = v137;
    Half8 rb0 = v141;
    Half8 rb1 = v150;
    uint t = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto acc00_1 = acc00;
            const auto acc01_1 = acc01;
            const auto acc10_1 = acc10;
            const auto acc11_1 = acc11;
            const auto ra0_1 = ra0;
            const auto ra1_1 = ra1;
            const auto rb0_1 = rb0;
            const auto rb1_1 = rb1;
            const auto t_1 = t;
            const auto v296 = (t_1 + 1u);
            t = v296;
        }
        loop_init_0 = false;
        const auto acc00_2 = acc00;
        const auto acc01_2 = acc01;
        const auto acc10_2 = acc10;
        const auto acc11_2 = acc11;
        const auto ra0_2 = ra0;
        const auto ra1_2 = ra1;
        const auto rb0_2 = rb0;
        const auto rb1_2 = rb1;
        const auto t_2 = t;
        const auto v160 = (t_2 < slabs);
        if (!(v160)) {
            break;
        }
        const auto cur = (t_2 & 1u);
        const auto v166 = (t_2 + 1u);
        const auto more = (v166 < slabs);
        Half8 ra0_3;
        Half8 ra1_3;
        Half8 rb0_3;
        Half8 rb1_3;
        if (more) {
            const auto kp = (v166 * 4u);
            const auto kr = (v166 * 32u);
            const auto ai = (a_idx + kp);
            const auto v179 = (kr * nq);
            const auto bi = (b_idx + v179);
            const auto v181 = (kp + a_piece);
            const auto v182 = (v181 < kq);
            const auto local13 = (a_in && v182);
            const auto v185 = fetch_a(local13, ai, a, _buffer_sizes);
            const auto v188 = (v181 + 2u);
            const auto v189 = (v188 < kq);
            const auto local14 = (a_in && v189);
            const auto v193 = (ai + 2u);
            const auto v194 = fetch_a(local14, v193, a, _buffer_sizes);
            const auto v195 = (kr + b_row);
            const auto v196 = (v195 < k);
            const auto local15 = (b_in && v196);
            const auto v199 = fetch_b(local15, bi, b, _buffer_sizes);
            const auto v202 = (v195 + 16u);
            const auto v203 = (v202 < k);
            const auto local16 = (b_in && v203);
            const auto v208 = (bi + v148);
            const auto v209 = fetch_b(local16, v208, b, _buffer_sizes);
            ra0_3 = v185;
            ra1_3 = v194;
            rb0_3 = v199;
            rb1_3 = v209;
        } else {
            ra0_3 = ra0_2;
            ra1_3 = ra1_2;
            rb0_3 = rb0_2;
            rb1_3 = rb1_2;
        }
        const auto v211 = (cur * 2560u);
        const auto ab = (v211 + v213);
        const auto v216 = (cur * 2304u);
        const auto bb = (v216 + wc);
        dr_coop16_half a0;
        simdgroup_load(a0.t[0][0], &tile_a[ab] + (0u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0.t[0][1], &tile_a[ab] + (0u * 40u + 8u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0.t[1][0], &tile_a[ab] + (8u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0.t[1][1], &tile_a[ab] + (8u * 40u + 8u), ulong(40u), ulong2(0), false);
        const auto v223 = (ab + 640u);
        dr_coop16_half a1;
        simdgroup_load(a1.t[0][0], &tile_a[v223] + (0u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1.t[0][1], &tile_a[v223] + (0u * 40u + 8u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1.t[1][0], &tile_a[v223] + (8u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1.t[1][1], &tile_a[v223] + (8u * 40u + 8u), ulong(40u), ulong2(0), false);
        dr_coop16_half b0;
        simdgroup_load(b0.t[0][0], &tile_b[bb] + (0u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0.t[0][1], &tile_b[bb] + (0u * 72u + 8u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0.t[1][0], &tile_b[bb] + (8u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0.t[1][1], &tile_b[bb] + (8u * 72u + 8u), ulong(72u), ulong2(0), false);
        const auto v232 = (bb + 16u);
        dr_coop16_half b1;
        simdgroup_load(b1.t[0][0], &tile_b[v232] + (0u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1.t[0][1], &tile_b[v232] + (0u * 72u + 8u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1.t[1][0], &tile_b[v232] + (8u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1.t[1][1], &tile_b[v232] + (8u * 72u + 8u), ulong(72u), ulong2(0), false);
        dr_coop16_float v237;
        simdgroup_multiply_accumulate(v237.t[0][0], a0.t[0][0], b0.t[0][0], acc00_2.t[0][0]);
        simdgroup_multiply_accumulate(v237.t[0][0], a0.t[0][1], b0.t[1][0], v237.t[0][0]);
        simdgroup_multiply_accumulate(v237.t[0][1], a0.t[0][0], b0.t[0][1], acc00_2.t[0][1]);
        simdgroup_multiply_accumulate(v237.t[0][1], a0.t[0][1], b0.t[1][1], v237.t[0][1]);
        simdgroup_multiply_accumulate(v237.t[1][0], a0.t[1][0], b0.t[0][0], acc00_2.t[1][0]);
        simdgroup_multiply_accumulate(v237.t[1][0], a0.t[1][1], b0.t[1][0], v237.t[1][0]);
        simdgroup_multiply_accumulate(v237.t[1][1], a0.t[1][0], b0.t[0][1], acc00_2.t[1][1]);
        simdgroup_multiply_accumulate(v237.t[1][1], a0.t[1][1], b0.t[1][1], v237.t[1][1]);
        dr_coop16_float v239;
        simdgroup_multiply_accumulate(v239.t[0][0], a0.t[0][0], b1.t[0][0], acc01_2.t[0][0]);
        simdgroup_multiply_accumulate(v239.t[0][0], a0.t[0][1], b1.t[1][0], v239.t[0][0]);
        simdgroup_multiply_accumulate(v239.t[0][1], a0.t[0][0], b1.t[0][1], acc01_2.t[0][1]);
        simdgroup_multiply_accumulate(v239.t[0][1], a0.t[0][1], b1.t[1][1], v239.t[0][1]);
        simdgroup_multiply_accumulate(v239.t[1][0], a0.t[1][0], b1.t[0][0], acc01_2.t[1][0]);
        simdgroup_multiply_accumulate(v239.t[1][0], a0.t[1][1], b1.t[1][0], v239.t[1][0]);
        simdgroup_multiply_accumulate(v239.t[1][1], a0.t[1][0], b1.t[0][1], acc01_2.t[1][1]);
        simdgroup_multiply_accumulate(v239.t[1][1], a0.t[1][1], b1.t[1][1], v239.t[1][1]);
        dr_coop16_float v241;
        simdgroup_multiply_accumulate(v241.t[0][0], a1.t[0][0], b0.t[0][0], acc10_2.t[0][0]);
        simdgroup_multiply_accumulate(v241.t[0][0], a1.t[0][1], b0.t[1][0], v241.t[0][0]);
        simdgroup_multiply_accumulate(v241.t[0][1], a1.t[0][0], b0.t[0][1], acc10_2.t[0][1]);
        simdgroup_multiply_accumulate(v241.t[0][1], a1.t[0][1], b0.t[1][1], v241.t[0][1]);
        simdgroup_multiply_accumulate(v241.t[1][0], a1.t[1][0], b0.t[0][0], acc10_2.t[1][0]);
        simdgroup_multiply_accumulate(v241.t[1][0], a1.t[1][1], b0.t[1][0], v241.t[1][0]);
        simdgroup_multiply_accumulate(v241.t[1][1], a1.t[1][0], b0.t[0][1], acc10_2.t[1][1]);
        simdgroup_multiply_accumulate(v241.t[1][1], a1.t[1][1], b0.t[1][1], v241.t[1][1]);
        dr_coop16_float v243;
        simdgroup_multiply_accumulate(v243.t[0][0], a1.t[0][0], b1.t[0][0], acc11_2.t[0][0]);
        simdgroup_multiply_accumulate(v243.t[0][0], a1.t[0][1], b1.t[1][0], v243.t[0][0]);
        simdgroup_multiply_accumulate(v243.t[0][1], a1.t[0][0], b1.t[0][1], acc11_2.t[0][1]);
        simdgroup_multiply_accumulate(v243.t[0][1], a1.t[0][1], b1.t[1][1], v243.t[0][1]);
        simdgroup_multiply_accumulate(v243.t[1][0], a1.t[1][0], b1.t[0][0], acc11_2.t[1][0]);
        simdgroup_multiply_accumulate(v243.t[1][0], a1.t[1][1], b1.t[1][0], v243.t[1][0]);
        simdgroup_multiply_accumulate(v243.t[1][1], a1.t[1][0], b1.t[0][1], acc11_2.t[1][1]);
        simdgroup_multiply_accumulate(v243.t[1][1], a1.t[1][1], b1.t[1][1], v243.t[1][1]);
        const auto v245 = (ab + 16u);
        dr_coop16_half a0_1;
        simdgroup_load(a0_1.t[0][0], &tile_a[v245] + (0u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0_1.t[0][1], &tile_a[v245] + (0u * 40u + 8u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0_1.t[1][0], &tile_a[v245] + (8u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a0_1.t[1][1], &tile_a[v245] + (8u * 40u + 8u), ulong(40u), ulong2(0), false);
        const auto v252 = (v223 + 16u);
        dr_coop16_half a1_1;
        simdgroup_load(a1_1.t[0][0], &tile_a[v252] + (0u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1_1.t[0][1], &tile_a[v252] + (0u * 40u + 8u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1_1.t[1][0], &tile_a[v252] + (8u * 40u + 0u), ulong(40u), ulong2(0), false);
        simdgroup_load(a1_1.t[1][1], &tile_a[v252] + (8u * 40u + 8u), ulong(40u), ulong2(0), false);
        const auto v257 = (bb + 1152u);
        dr_coop16_half b0_1;
        simdgroup_load(b0_1.t[0][0], &tile_b[v257] + (0u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0_1.t[0][1], &tile_b[v257] + (0u * 72u + 8u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0_1.t[1][0], &tile_b[v257] + (8u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b0_1.t[1][1], &tile_b[v257] + (8u * 72u + 8u), ulong(72u), ulong2(0), false);
        const auto v264 = (v257 + 16u);
        dr_coop16_half b1_1;
        simdgroup_load(b1_1.t[0][0], &tile_b[v264] + (0u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1_1.t[0][1], &tile_b[v264] + (0u * 72u + 8u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1_1.t[1][0], &tile_b[v264] + (8u * 72u + 0u), ulong(72u), ulong2(0), false);
        simdgroup_load(b1_1.t[1][1], &tile_b[v264] + (8u * 72u + 8u), ulong(72u), ulong2(0), false);
        dr_coop16_float v269;
        simdgroup_multiply_accumulate(v269.t[0][0], a0_1.t[0][0], b0_1.t[0][0], v237.t[0][0]);
        simdgroup_multiply_accumulate(v269.t[0][0], a0_1.t[0][1], b0_1.t[1][0], v269.t[0][0]);
        simdgroup_multiply_accumulate(v269.t[0][1], a0_1.t[0][0], b0_1.t[0][1], v237.t[0][1]);
        simdgroup_multiply_accumulate(v269.t[0][1], a0_1.t[0][1], b0_1.t[1][1], v269.t[0][1]);
        simdgroup_multiply_accumulate(v269.t[1][0], a0_1.t[1][0], b0_1.t[0][0], v237.t[1][0]);
        simdgroup_multiply_accumulate(v269.t[1][0], a0_1.t[1][1], b0_1.t[1][0], v269.t[1][0]);
        simdgroup_multiply_accumulate(v269.t[1][1], a0_1.t[1][0], b0_1.t[0][1], v237.t[1][1]);
        simdgroup_multiply_accumulate(v269.t[1][1], a0_1.t[1][1], b0_1.t[1][1], v269.t[1][1]);
        dr_coop16_float v271;
        simdgroup_multiply_accumulate(v271.t[0][0], a0_1.t[0][0], b1_1.t[0][0], v239.t[0][0]);
        simdgroup_multiply_accumulate(v271.t[0][0], a0_1.t[0][1], b1_1.t[1][0], v271.t[0][0]);
        simdgroup_multiply_accumulate(v271.t[0][1], a0_1.t[0][0], b1_1.t[0][1], v239.t[0][1]);
        simdgroup_multiply_accumulate(v271.t[0][1], a0_1.t[0][1], b1_1.t[1][1], v271.t[0][1]);
        simdgroup_multiply_accumulate(v271.t[1][0], a0_1.t[1][0], b1_1.t[0][0], v239.t[1][0]);
        simdgroup_multiply_accumulate(v271.t[1][0], a0_1.t[1][1], b1_1.t[1][0], v271.t[1][0]);
        simdgroup_multiply_accumulate(v271.t[1][1], a0_1.t[1][0], b1_1.t[0][1], v239.t[1][1]);
        simdgroup_multiply_accumulate(v271.t[1][1], a0_1.t[1][1], b1_1.t[1][1], v271.t[1][1]);
        dr_coop16_float v273;
        simdgroup_multiply_accumulate(v273.t[0][0], a1_1.t[0][0], b0_1.t[0][0], v241.t[0][0]);
        simdgroup_multiply_accumulate(v273.t[0][0], a1_1.t[0][1], b0_1.t[1][0], v273.t[0][0]);
        simdgroup_multiply_accumulate(v273.t[0][1], a1_1.t[0][0], b0_1.t[0][1], v241.t[0][1]);
        simdgroup_multiply_accumulate(v273.t[0][1], a1_1.t[0][1], b0_1.t[1][1], v273.t[0][1]);
        simdgroup_multiply_accumulate(v273.t[1][0], a1_1.t[1][0], b0_1.t[0][0], v241.t[1][0]);
        simdgroup_multiply_accumulate(v273.t[1][0], a1_1.t[1][1], b0_1.t[1][0], v273.t[1][0]);
        simdgroup_multiply_accumulate(v273.t[1][1], a1_1.t[1][0], b0_1.t[0][1], v241.t[1][1]);
        simdgroup_multiply_accumulate(v273.t[1][1], a1_1.t[1][1], b0_1.t[1][1], v273.t[1][1]);
        dr_coop16_float v275;
        simdgroup_multiply_accumulate(v275.t[0][0], a1_1.t[0][0], b1_1.t[0][0], v243.t[0][0]);
        simdgroup_multiply_accumulate(v275.t[0][0], a1_1.t[0][1], b1_1.t[1][0], v275.t[0][0]);
        simdgroup_multiply_accumulate(v275.t[0][1], a1_1.t[0][0], b1_1.t[0][1], v243.t[0][1]);
        simdgroup_multiply_accumulate(v275.t[0][1], a1_1.t[0][1], b1_1.t[1][1], v275.t[0][1]);
        simdgroup_multiply_accumulate(v275.t[1][0], a1_1.t[1][0], b1_1.t[0][0], v243.t[1][0]);
        simdgroup_multiply_accumulate(v275.t[1][0], a1_1.t[1][1], b1_1.t[1][0], v275.t[1][0]);
        simdgroup_multiply_accumulate(v275.t[1][1], a1_1.t[1][0], b1_1.t[0][1], v243.t[1][1]);
        simdgroup_multiply_accumulate(v275.t[1][1], a1_1.t[1][1], b1_1.t[1][1], v275.t[1][1]);
        if (more) {
            const auto v277 = (1u - cur);
            const auto v279 = (v277 * 2560u);
            const auto sa = (v279 + a_at);
            const auto v284 = (v277 * 2304u);
            const auto sb = (v284 + b_at);
            put_a(sa, ra0_3, tile_a);
            const auto v288 = (sa + 16u);
            put_a(v288, ra1_3, tile_a);
            put_b(sb, rb0_3, tile_b);
            const auto v292 = (sb + 1152u);
            put_b(v292, rb1_3, tile_b);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        acc00 = v269;
        acc01 = v271;
        acc10 = v273;
        acc11 = v275;
        ra0 = ra0_3;
        ra1 = ra1_3;
        rb0 = rb0_3;
        rb1 = rb1_3;
    }
    const auto v298 = (row0 + 64u);
    const auto v299 = (v298 <= m);
    const auto v301 = (col0 + 64u);
    const auto v302 = (v301 <= n);
    const auto local17 = (v299 && v302);
    if (local17) {
        const auto v305 = (row0 + wr);
        const auto v306 = (v305 * n);
        const auto v307 = (v306 + col0);
        const auto base = (v307 + wc);
        store_c(acc00, base, n, c, _buffer_sizes, _coop_stage, _coop_lane);
        const auto v312 = (base + 16u);
        store_c(acc01, v312, n, c, _buffer_sizes, _coop_stage, _coop_lane);
        const auto v315 = (16u * n);
        const auto v316 = (base + v315);
        store_c(acc10, v316, n, c, _buffer_sizes, _coop_stage, _coop_lane);
        const auto v322 = (v316 + 16u);
        store_c(acc11, v322, n, c, _buffer_sizes, _coop_stage, _coop_lane);
    } else {
        const auto v325 = (wr * 72u);
        const auto v326 = (v325 + wc);
        store_block(acc00, v326, block, _coop_stage, _coop_lane);
        const auto v332 = (v326 + 16u);
        store_block(acc01, v332, block, _coop_stage, _coop_lane);
        const auto v335 = (wr + 16u);
        const auto v337 = (v335 * 72u);
        const auto v338 = (v337 + wc);
        store_block(acc10, v338, block, _coop_stage, _coop_lane);
        const auto v346 = (v338 + 16u);
        store_block(acc11, v346, block, _coop_stage, _coop_lane);
        threadgroup_barrier(mem_flags::mem_threadgroup);
        uint i = 0u;
        bool loop_init_1 = true;
        while (true) {
            if (!loop_init_1) {
                const auto i_1 = i;
                const auto v376 = (i_1 + 1u);
                i = v376;
            }
            loop_init_1 = false;
            const auto i_2 = i;
            const auto v349 = (i_2 < 32u);
            if (!(v349)) {
                break;
            }
            const auto v352 = (i_2 * 128u);
            const auto idx = (v352 + lid);
            const auto br = dr_udiv(idx, 64u);
            const auto bc = dr_urem(idx, 64u);
            const auto r = (row0 + br);
            const auto col = (col0 + bc);
            const auto v360 = (r < m);
            const auto v361 = (col < n);
            const auto local19 = (v360 && v361);
            if (local19) {
                const auto v364 = (r * n);
                const auto v365 = (v364 + col);
                const auto v462 = ((_buffer_sizes[3] - 0u) / 4u);
                const auto v463 = (v365 < v462);
                const auto v369 = (br * 72u);
                const auto v370 = (v369 + bc);
                const auto v373 = block[v370];
                if (v463) {
                    c[v365] = v373;
                }
            }
        }
    }
}
