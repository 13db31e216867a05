#include <metal_stdlib>
using namespace metal;

// WGSL integer remainder: x % 0 == 0 and INT_MIN % -1 == 0.
template <typename T> T dr_srem(T a, T b) {
    auto bad = (b == T(0)) | ((a == T(-2147483647 - 1)) & (b == T(-1)));
    return select(a % select(b, T(1), bad), T(0), bad);
}


[[max_total_threads_per_threadgroup(64)]] kernel void main_(const device uint* input [[buffer(0)]],
    device uint* out [[buffer(1)]],
    constant uint* _buffer_sizes [[buffer(30)]],
    uint3 gid [[thread_position_in_grid]]) {
    const auto v9 = gid.x;
    const auto v94 = ((_buffer_sizes[0] - 0u) / 4u);
    const auto v95 = (v9 < v94);
    uint x;
    if (v95) {
        const auto v96 = input[v9];
        x = v96;
    } else {
        x = uint{};
    }
    const auto v14 = (x & 15u);
    uint r;
    switch (v14) {
        case 0u:
        case 1u:
        {
            r = 10u;
            break;
        }
        case 2u:
        {
            const auto v17 = (20u + x);
            r = v17;
            break;
        }
        default:
        {
            r = 99u;
            break;
        }
        case 3u:
        case 4u:
        case 5u:
        {
            const auto v20 = (x * 3u);
            r = v20;
            break;
        }
        case 12u:
        {
            const auto v22 = (x > 1000u);
            if (v22) {
                r = 1u;
                break;
            }
            r = 2u;
            break;
        }
    }
    const auto v27 = (3u * v9);
    const auto v98 = ((_buffer_sizes[1] - 0u) / 4u);
    const auto v99 = (v27 < v98);
    if (v99) {
        out[v27] = r;
    }
    const auto v33 = as_type<int>(x);
    const auto s = dr_srem(v33, 7);
    int q;
    switch (s) {
        case -6:
        case -5:
        case -4:
        {
            const auto v37 = (s * 100);
            q = v37;
            break;
        }
        case -3:
        case -2:
        case -1:
        {
            q = (-1);
            break;
        }
        case 6:
        default:
        {
            q = 77;
            break;
        }
        case 0:
        {
            q = 5;
            break;
        }
    }
    const auto v45 = (v27 + 1u);
    const auto v101 = (v45 < v98);
    const auto v48 = as_type<uint>(q);
    if (v101) {
        out[v45] = v48;
    }
    uint acc = 0u;
    uint k = 0u;
    bool loop_init_0 = true;
    while (true) {
        if (!loop_init_0) {
            const auto acc_1 = acc;
            const auto k_1 = k;
            const auto v72 = (k_1 + 1u);
            k = v72;
        }
        loop_init_0 = false;
        const auto acc_2 = acc;
        const auto k_2 = k;
        const auto v51 = (k_2 < 16u);
        if (!(v51)) {
            break;
        }
        const auto v53 = (x >> (k_2 & 31u));
        const auto v55 = (v53 & 3u);
        uint acc_3;
        switch (v55) {
            case 0u:
            {
                continue;
                break;
            }
            case 1u:
            {
                const auto v58 = (acc_2 + k_2);
                acc_3 = v58;
                break;
            }
            case 2u:
            {
                const auto v61 = (acc_2 * 3u);
                const auto v63 = (v61 + 1u);
                acc_3 = v63;
                break;
            }
            default:
            {
                const auto v66 = (acc_2 ^ 85u);
                acc_3 = v66;
                break;
            }
        }
        const auto v69 = (acc_3 + 1u);
        acc = v69;
    }
    const auto v77 = (v27 + 2u);
    const auto v103 = (v77 < v98);
    if (v103) {
        out[v77] = acc;
    }
}
