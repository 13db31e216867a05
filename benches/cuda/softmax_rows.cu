// CUDA C++ equivalent of tests/samples/softmax_rows.wgsl: numerically stable softmax over
// rows of `cols` f32 (a multiple of 4), one block of 256 per row. Pass 1 keeps a running
// (max, sum of exp(x - max)) per thread over float4 loads, merges the pairs with warp
// shuffles and then across the 8 warps in shared memory (one barrier); pass 2 writes
// exp(x - max) / sum with float4 stores. Grid: one block per row.
#define WG 256u
#define LOWEST (-3.40282347e38f)

struct Params {
    unsigned int cols;
};

extern "C" __global__ void __launch_bounds__(256)
softmax_rows(const Params* params, const float4* x, float4* y) {
    __shared__ float part_max[WG / 32u];
    __shared__ float part_sum[WG / 32u];
    unsigned int lid = threadIdx.x;
    unsigned int n4 = params->cols / 4u;
    unsigned int base = blockIdx.x * n4;

    float m = LOWEST, s = 0.0f;
    for (unsigned int i = lid; i < n4; i += WG) {
        float4 v = x[base + i];
        float mn = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        float ex = expf(v.x - mn), ey = expf(v.y - mn), ez = expf(v.z - mn), ew = expf(v.w - mn);
        s = s * expf(m - mn) + (ex + ey) + (ez + ew);
        m = mn;
    }

    float sm = m;
    for (int o = 16; o > 0; o >>= 1) sm = fmaxf(sm, __shfl_xor_sync(0xffffffffu, sm, o));
    float ss = s * expf(m - sm);
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if ((lid & 31u) == 0u) {
        part_max[lid >> 5] = sm;
        part_sum[lid >> 5] = ss;
    }
    __syncthreads();
    float row_max = LOWEST;
    for (unsigned int g = 0; g < WG / 32u; g++) row_max = fmaxf(row_max, part_max[g]);
    float total = 0.0f;
    for (unsigned int g = 0; g < WG / 32u; g++) total += part_sum[g] * expf(part_max[g] - row_max);
    float inv = 1.0f / total;

    for (unsigned int i = lid; i < n4; i += WG) {
        float4 v = x[base + i];
        y[base + i] = make_float4(expf(v.x - row_max) * inv, expf(v.y - row_max) * inv,
                                  expf(v.z - row_max) * inv, expf(v.w - row_max) * inv);
    }
}
