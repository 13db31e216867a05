// CUDA C++ equivalent of tests/samples/sgm_gemm_f16.wgsl, written the way a CUDA programmer
// would (inline PTX `ldmatrix` + `mma.sync.m16n8k16`, the blocks of mma_sm80.cuh): C[M x N]
// (f32) = A[M x K] (f16) * B[K x N] (f16), both row-major and packed two halves to a word (K
// and N even), M and N any size. Blocks of 128 threads (4 warps) compute 32x32 tiles of C,
// warp w the 16x16 tile (w / 2, w % 2); K slabs of 16 staged in shared memory, A's rows 12
// words (48 bytes) and B's 20 (80 bytes) apart: 16-byte aligned, an odd number of bank groups
// apart; the block goes through shared memory so that only elements inside C are written.
// Grid: ceil(N / 32) x ceil(M / 32).
#include "mma_sm80.cuh"

#define LA 12u
#define LB 20u

extern "C" __global__ void __launch_bounds__(128)
sgm_gemm_f16(const Dims* dims, const unsigned int* a, const unsigned int* b, float* c) {
    __shared__ __align__(16) unsigned int sa[32 * LA];
    __shared__ __align__(16) unsigned int sb[16 * LB];
    __shared__ __align__(16) float block[32 * 32];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x, lane = lid & 31u, w = lid >> 5;
    unsigned int row0 = blockIdx.y * 32u, col0 = blockIdx.x * 32u;
    unsigned int kw = d.k / 2u, nw = d.n / 2u;
    unsigned int ti = w >> 1, tj = w & 1u;
    // This thread's words of every slab: A rows r and r + 16, word x of 8; B rows q and
    // q + 8, word v of 16.
    unsigned int r = lid >> 3, x = lid & 7u, q = lid >> 4, v = lid & 15u;
    bool a_in0 = row0 + r < d.m, a_in1 = row0 + r + 16u < d.m, b_in = col0 / 2u + v < nw;
    float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
    for (unsigned int k0 = 0; k0 < d.k; k0 += 16u) {
        unsigned int w0 = k0 / 2u;
        bool ka = w0 + x < kw;
        sa[r * LA + x] = (ka && a_in0) ? a[(row0 + r) * kw + w0 + x] : 0u;
        sa[(r + 16u) * LA + x] = (ka && a_in1) ? a[(row0 + r + 16u) * kw + w0 + x] : 0u;
        sb[q * LB + v] = (k0 + q < d.k && b_in) ? b[(k0 + q) * nw + col0 / 2u + v] : 0u;
        sb[(q + 8u) * LB + v] =
            (k0 + q + 8u < d.k && b_in) ? b[(k0 + q + 8u) * nw + col0 / 2u + v] : 0u;
        __syncthreads();
        unsigned int ra[4], rb[4];
        ldsm_a(ra, (const half_bits*)(sa + 16u * ti * LA), 2u * LA, lane);
        ldsm_b(rb, (const half_bits*)sb + 16u * tj, 2u * LB, lane);
        mma16x16(acc, ra, rb);
        __syncthreads();
    }
    store_tile(block + 16u * ti * 32u + 16u * tj, acc, 32u, lane);
    __syncthreads();
    for (unsigned int i = lid; i < 1024u; i += 128u) {
        unsigned int rr = row0 + i / 32u, cc = col0 + i % 32u;
        if (rr < d.m && cc < d.n) c[rr * d.n + cc] = block[i];
    }
}
