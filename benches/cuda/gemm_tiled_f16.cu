// CUDA C++ equivalent of tests/samples/gemm_tiled_f16.wgsl, CUTLASS style (inline PTX
// `ldmatrix` + `mma.sync` m16n8k16): C[M x N] (f32) = A[M x K] (f16) * B[K x N] (f16),
// row-major, M, N, K multiples of 16 read from a struct in device memory. Blocks of 128
// threads (4 warps) compute 64x64 tiles of C, each warp 32x32 (2x2 tiles of 16x16). K slabs
// of 32: 16-byte global loads of slab t + 1 into registers while slab t is multiplied, then
// into the other of two padded shared stages (rows of 40 and 72 halves: odd multiples of 16
// bytes, so the 8 rows of an `ldmatrix` fall in 8 distinct bank groups), one barrier per
// slab. Edge blocks go through shared memory. Grid: ceil(N / 64) x ceil(M / 64).
#include "mma_sm80.cuh"

#define BM 64u
#define BN 64u
#define BK 32u
#define A_LD 40u
#define B_LD 72u
#define A_STAGE (BM * A_LD)
#define B_STAGE (BK * B_LD)
// Result rows 288 bytes apart: the 4 rows a fragment store writes per wavefront are disjoint.
#define C_LD 72u

extern "C" __global__ void __launch_bounds__(128)
gemm_tiled_f16(const Dims* dims, const uint4* a, const uint4* b, float* c) {
    __shared__ __align__(16) half_bits tile_a[2 * A_STAGE];
    __shared__ __align__(16) half_bits tile_b[2 * B_STAGE];
    __shared__ __align__(16) float block[BM * C_LD];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x, lane = lid & 31u, sg = lid >> 5;
    unsigned int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    unsigned int wr = (sg >> 1) * 32u, wc = (sg & 1u) * 32u;

    // This thread's 16-byte pieces of each slab, as in the WGSL (interleaved A rows keep
    // the shared stores conflict-free).
    unsigned int a_row = 16u * sg + 2u * ((lane >> 1) & 3u) + ((lane >> 3) & 1u) + 8u * (lane >> 4);
    unsigned int a_piece = lane & 1u;
    unsigned int b_row = lid >> 3, b_piece = lid & 7u;
    unsigned int a_at = a_row * A_LD + 8u * a_piece, b_at = b_row * B_LD + 8u * b_piece;
    // Pieces (8 halves) per row of A and B; piece indices of this thread's first pieces of
    // slab 0 (a slab further on, A moves BK / 8 pieces right and B moves BK rows down).
    unsigned int m = d.m, n = d.n, k = d.k, kq = k / 8u, nq = n / 8u;
    bool a_in = row0 + a_row < m, b_in = col0 / 8u + b_piece < nq;
    unsigned int a_idx = (row0 + a_row) * kq + a_piece, b_idx = b_row * nq + col0 / 8u + b_piece;

    float acc[2][2][2][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int h = 0; h < 2; h++)
                for (int e = 0; e < 4; e++) acc[i][j][h][e] = 0.0f;

    unsigned int slabs = (k + BK - 1u) / BK;
    uint4 ra0 = fetch8(a, a_in && a_piece < kq, a_idx);
    uint4 ra1 = fetch8(a, a_in && a_piece + 2u < kq, a_idx + 2u);
    uint4 rb0 = fetch8(b, b_in && b_row < k, b_idx);
    uint4 rb1 = fetch8(b, b_in && b_row + 16u < k, b_idx + 16u * nq);
    *(uint4*)&tile_a[a_at] = ra0;
    *(uint4*)&tile_a[a_at + 16u] = ra1;
    *(uint4*)&tile_b[b_at] = rb0;
    *(uint4*)&tile_b[b_at + 16u * B_LD] = rb1;
    __syncthreads();
    for (unsigned int t = 0; t < slabs; t++) {
        unsigned int cur = t & 1u;
        bool more = t + 1u < slabs;
        if (more) {
            unsigned int kp = (t + 1u) * (BK / 8u), kr = (t + 1u) * BK;
            unsigned int ai = a_idx + kp, bi = b_idx + kr * nq;
            ra0 = fetch8(a, a_in && kp + a_piece < kq, ai);
            ra1 = fetch8(a, a_in && kp + a_piece + 2u < kq, ai + 2u);
            rb0 = fetch8(b, b_in && kr + b_row < k, bi);
            rb1 = fetch8(b, b_in && kr + b_row + 16u < k, bi + 16u * nq);
        }
#pragma unroll
        for (unsigned int kk = 0; kk < BK; kk += 16u) {
            unsigned int fa[2][4], fb[2][4];
            const half_bits* ab = tile_a + cur * A_STAGE + kk;
            const half_bits* bb = tile_b + cur * B_STAGE + kk * B_LD + wc;
            ldsm_a(fa[0], ab + wr * A_LD, A_LD, lane);
            ldsm_a(fa[1], ab + (wr + 16u) * A_LD, A_LD, lane);
            ldsm_b(fb[0], bb, B_LD, lane);
            ldsm_b(fb[1], bb + 16u, B_LD, lane);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) mma16x16(acc[i][j], fa[i], fb[j]);
        }
        // Stage 1 - cur was last read during slab t - 1, before the previous barrier.
        if (more) {
            unsigned int sa = (1u - cur) * A_STAGE + a_at, sb = (1u - cur) * B_STAGE + b_at;
            *(uint4*)&tile_a[sa] = ra0;
            *(uint4*)&tile_a[sa + 16u] = ra1;
            *(uint4*)&tile_b[sb] = rb0;
            *(uint4*)&tile_b[sb + 16u * B_LD] = rb1;
        }
        __syncthreads();
    }

    if (row0 + BM <= m && col0 + BN <= n) {
        float* base = c + (row0 + wr) * n + col0 + wc;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                store_tile(base + i * 16u * n + j * 16u, acc[i][j], n, lane);
    } else {
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                store_tile(block + (wr + i * 16u) * C_LD + wc + j * 16u, acc[i][j], C_LD, lane);
        __syncthreads();
        for (unsigned int i = 0; i < BM * BN / 128u; i++) {
            unsigned int idx = i * 128u + lid;
            unsigned int br = idx / BN, bc = idx % BN;
            unsigned int r = row0 + br, col = col0 + bc;
            if (r < m && col < n) c[r * n + col] = block[br * C_LD + bc];
        }
    }
}
