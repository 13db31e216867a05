// CUDA C++ equivalent of tests/samples/gemm_bias_relu.wgsl: C = max(A * B + bias[col], 0)
// with the main loop of gemm_tiled_f16.cu; the accumulators go through a 64x64 shared tile
// where every thread adds the bias and clamps on the way to C. Grid: ceil(N / 64) x
// ceil(M / 64), blocks of 128.
#include "wmma_ptx.cuh"

struct Dims {
    unsigned int m, n, k;
};

#define BM 64u
#define BN 64u
#define BK 32u
#define A_LD 40u
#define B_LD 72u
#define A_STAGE (BM * A_LD)
#define B_STAGE (BK * B_LD)
#define THREADS 128u

__device__ void load_slab(half_bits* tile_a, half_bits* tile_b, const Dims& d,
                          const half_bits* a, const half_bits* b, unsigned int stage,
                          unsigned int k0, unsigned int row0, unsigned int col0,
                          unsigned int lid) {
    for (unsigned int i = 0; i < BM * BK / THREADS; i++) {
        unsigned int idx = i * THREADS + lid;
        unsigned int r = idx / BK, kk = idx % BK;
        half_bits v = 0;
        if (row0 + r < d.m && k0 + kk < d.k) v = a[(row0 + r) * d.k + k0 + kk];
        tile_a[stage * A_STAGE + r * A_LD + kk] = v;
    }
    for (unsigned int i = 0; i < BK * BN / THREADS; i++) {
        unsigned int idx = i * THREADS + lid;
        unsigned int kk = idx / BN, col = idx % BN;
        half_bits v = 0;
        if (k0 + kk < d.k && col0 + col < d.n) v = b[(k0 + kk) * d.n + col0 + col];
        tile_b[stage * B_STAGE + kk * B_LD + col] = v;
    }
}

extern "C" __global__ void __launch_bounds__(128)
gemm_bias_relu(const Dims* dims, const half_bits* a, const half_bits* b, const float* bias,
               float* c) {
    __shared__ __align__(32) half_bits tile_a[2 * A_STAGE];
    __shared__ __align__(32) half_bits tile_b[2 * B_STAGE];
    __shared__ __align__(32) float block[BM * BN];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x;
    unsigned int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    unsigned int sg = lid / 32u;
    unsigned int wr = (sg / 2u) * 32u, wc = (sg % 2u) * 32u;

    FragC acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) zero(acc[i][j]);

    unsigned int slabs = (d.k + BK - 1u) / BK;
    load_slab(tile_a, tile_b, d, a, b, 0u, 0u, row0, col0, lid);
    __syncthreads();
    for (unsigned int t = 0; t < slabs; t++) {
        unsigned int cur = t % 2u;
        if (t + 1u < slabs) {
            load_slab(tile_a, tile_b, d, a, b, 1u - cur, (t + 1u) * BK, row0, col0, lid);
        }
        for (unsigned int kk = 0; kk < BK; kk += 16u) {
            FragAB fa[2], fb[2];
            const half_bits* ab = tile_a + cur * A_STAGE + kk;
            const half_bits* bb = tile_b + cur * B_STAGE + kk * B_LD + wc;
            load_a(fa[0], ab + wr * A_LD, A_LD);
            load_a(fa[1], ab + (wr + 16u) * A_LD, A_LD);
            load_b(fb[0], bb, B_LD);
            load_b(fb[1], bb + 16u, B_LD);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) mma(acc[i][j], fa[i], fb[j]);
        }
        // Readers of stage `cur` are done and writers of the other stage have finished.
        __syncthreads();
    }

    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            store_c(block + (wr + i * 16u) * BN + wc + j * 16u, acc[i][j], BN);
    __syncthreads();
    for (unsigned int i = 0; i < BM * BN / THREADS; i++) {
        unsigned int idx = i * THREADS + lid;
        unsigned int r = row0 + idx / BN, col = col0 + idx % BN;
        if (r < d.m && col < d.n) c[r * d.n + col] = fmaxf(block[idx] + bias[col], 0.0f);
    }
}
