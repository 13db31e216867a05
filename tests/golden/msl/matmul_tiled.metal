#include <metal_stdlib>
using namespace metal;

constant uint N = 64u;
constant uint TILE = 16u;


[[max_total_threads_per_threadgroup(256)]] kernel void main_(const device float* a [[buffer(0)]],
    const device float* b [[buffer(1)]],
    device float* c [[buffer(2)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]],
    uint3 lid [[thread_position_in_threadgroup]],
    uint _local_index [[thread_index_in_threadgroup]]) {
    threadgroup array<array<float, 16>, 16> tile_a;
    threadgroup array<array<float, 16>, 16> tile_b;
    if (_local_index == 0u) {
        tile_a = array<array<float, 16>, 16>{};
        tile_b = array<array<float, 16>, 16>{};
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const auto row = gid.y;
    const auto col = gid.x;
    const auto v13 = lid.y;
    const auto v16 = lid.x;
    const auto v19 = (row * 64u);
    float acc = 0.0f;
    uint t = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto acc_1 = acc;
            const auto t_1 = t;
            const auto v67 = (t_1 + 1u);
            t = v67;
        }
        loop_init_0 = false;
        const auto acc_2 = acc;
        const auto t_2 = t;
        const auto v12 = (t_2 < 4u);
        if (!(v12)) {
            break;
        }
        const auto v22 = (t_2 * 16u);
        const auto v23 = (v19 + v22);
        const auto v25 = (v23 + v16);
        const auto v92 = ((_buffer_sizes[0] - 0u) / 4u);
        const auto v93 = (v25 < v92);
        float v28;
        if (v93) {
            const auto v94 = a[v25];
            v28 = v94;
        } else {
            v28 = float{};
        }
        tile_a[v13][v16] = v28;
        const auto v38 = (v22 + v13);
        const auto v40 = (v38 * 64u);
        const auto v41 = (v40 + col);
        const auto v96 = ((_buffer_sizes[1] - 0u) / 4u);
        const auto v97 = (v41 < v96);
        float v44;
        if (v97) {
            const auto v98 = b[v41];
            v44 = v98;
        } else {
            v44 = float{};
        }
        tile_b[v13][v16] = v44;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        float acc_3 = acc_2;
        uint k = 0u;
        bool loop_init_1 = true;
        while (true) {
            if (!loop_init_1) {
                const auto acc_4 = acc_3;
                const auto k_1 = k;
                const auto v64 = (k_1 + 1u);
                k = v64;
            }
            loop_init_1 = false;
            const auto acc_5 = acc_3;
            const auto k_2 = k;
            const auto v48 = (k_2 < 16u);
            if (!(v48)) {
                break;
            }
            const auto v54 = tile_a[v13][k_2];
            const auto v59 = tile_b[k_2][v16];
            const auto v61 = fma(v54, v59, acc_5);
            acc_3 = v61;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        acc = acc_3;
    }
    const auto v70 = (v19 + col);
    const auto v100 = ((_buffer_sizes[2] - 0u) / 4u);
    const auto v101 = (v70 < v100);
    if (v101) {
        c[v70] = acc;
    }
}
