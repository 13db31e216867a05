// CUDA C++ equivalent of tests/samples/gemm_small_m.wgsl, the decode case: C[M x N] (f32) =
// A[M x K] (f16) * B[K x N] (f16), row-major, M <= 16 (typically 8), CUTLASS-style
// `ldmatrix` + `mma.sync` m16n8k16. K slabs of 64: every thread fetches 16-byte pieces of
// slab t + 1 (one of A, zero rows past M; four of B) into registers while slab t is
// multiplied, then stages them in the other of two padded shared buffers (rows of 72
// halves: 9 groups of 16 bytes, so an `ldmatrix`'s 8 rows hit 8 distinct bank groups); one
// barrier per slab. Each of 4 warps multiplies the A slab by its 16-column strip of the
// 64-column B slab; the 16x16 result goes through shared memory so only the M real rows are
// written. Grid: ceil(N / 64) blocks of 128.
#include "mma_sm80.cuh"

#define BK 64u
#define LD 72u
#define A_STAGE (16u * LD)
#define B_STAGE (BK * LD)
#define R_LD 24u // result rows 96 bytes apart: a fragment store's 4 rows per wavefront are disjoint

extern "C" __global__ void __launch_bounds__(128)
gemm_small_m(const Dims* dims, const uint4* a, const uint4* b, float* c) {
    __shared__ __align__(16) half_bits slab_a[2 * A_STAGE];
    __shared__ __align__(16) half_bits slab_b[2 * B_STAGE];
    __shared__ __align__(16) float result[4 * 16 * R_LD];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x, lane = lid & 31u, sg = lid >> 5;
    unsigned int col0 = blockIdx.x * 64u, wc = sg * 16u;
    unsigned int row = lid >> 3, piece = lid & 7u;
    unsigned int at = row * LD + 8u * piece;
    // Pieces (8 halves) per row of A and B; piece indices of this thread's pieces of slab 0.
    unsigned int m = d.m, n = d.n, k = d.k, kq = k / 8u, nq = n / 8u;
    bool a_in = row < m, b_in = col0 / 8u + piece < nq;
    unsigned int a_idx = row * kq + piece, b_idx = row * nq + col0 / 8u + piece;

    float acc[2][4];
    for (int h = 0; h < 2; h++)
        for (int e = 0; e < 4; e++) acc[h][e] = 0.0f;

    unsigned int slabs = (k + BK - 1u) / BK;
    uint4 ra = fetch8(a, a_in && piece < kq, a_idx);
    uint4 rb[4];
    for (int i = 0; i < 4; i++) rb[i] = fetch8(b, b_in && row + 16u * i < k, b_idx + 16u * i * nq);
    *(uint4*)&slab_a[at] = ra;
    for (int i = 0; i < 4; i++) *(uint4*)&slab_b[at + 16u * i * LD] = rb[i];
    __syncthreads();
    for (unsigned int t = 0; t < slabs; t++) {
        unsigned int cur = t & 1u;
        bool more = t + 1u < slabs;
        if (more) {
            unsigned int kr = (t + 1u) * BK, kp = (t + 1u) * (BK / 8u), bi = b_idx + kr * nq;
            ra = fetch8(a, a_in && kp + piece < kq, a_idx + kp);
            for (int i = 0; i < 4; i++)
                rb[i] = fetch8(b, b_in && kr + row + 16u * i < k, bi + 16u * i * nq);
        }
        for (unsigned int kk = 0; kk < BK && t * BK + kk < k; kk += 16u) {
            unsigned int fa[4], fb[4];
            ldsm_a(fa, slab_a + cur * A_STAGE + kk, LD, lane);
            ldsm_b(fb, slab_b + cur * B_STAGE + kk * LD + wc, LD, lane);
            mma16x16(acc, fa, fb);
        }
        // Stage 1 - cur was last read during slab t - 1, before the previous barrier.
        if (more) {
            unsigned int sa = (1u - cur) * A_STAGE + at, sb = (1u - cur) * B_STAGE + at;
            *(uint4*)&slab_a[sa] = ra;
            for (int i = 0; i < 4; i++) *(uint4*)&slab_b[sb + 16u * i * LD] = rb[i];
        }
        __syncthreads();
    }

    float* tile = result + sg * 16u * R_LD;
    store_tile(tile, acc, R_LD, lane);
    __syncthreads();
    unsigned int col = col0 + wc;
    for (unsigned int i = 0; i < 8u; i++) {
        unsigned int idx = i * 32u + lane;
        unsigned int r = idx / 16u, cc = idx % 16u;
        if (r < m && col + cc < n) c[r * n + col + cc] = tile[r * R_LD + cc];
    }
}
