// CUDA C++ equivalent of tests/samples/gemm_small_m.wgsl, the decode case: C[M x N] (f32) =
// A[M x K] (f16) * B[K x N] (f16), row-major, M <= 16 (typically 8). Each of 4 warps owns a
// 16-column strip of a 64-column block and streams its B tiles from global memory; the A
// slab, zero-padded to 16 rows, is staged once per K slab of 64 in shared memory. The 16x16
// result goes through shared memory so only the M real rows are written. Grid: ceil(N / 64)
// blocks of 128.
#include "wmma_ptx.cuh"

struct Dims {
    unsigned int m, n, k;
};

#define BK 64u
#define A_LD 72u
#define THREADS 128u

extern "C" __global__ void __launch_bounds__(128)
gemm_small_m(const Dims* dims, const half_bits* a, const half_bits* b, float* c) {
    __shared__ __align__(32) half_bits slab_a[16 * A_LD];
    __shared__ __align__(32) float result[4 * 256];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x;
    unsigned int sg = lid / 32u, lane = lid % 32u;
    unsigned int col = blockIdx.x * 64u + sg * 16u;
    unsigned int n = d.n;
    // A strip past the end of C computes a copy of the last real strip; it is not stored.
    unsigned int strip = min(col, n - 16u);

    FragC acc;
    zero(acc);
    for (unsigned int k0 = 0; k0 < d.k; k0 += BK) {
        for (unsigned int i = 0; i < 16u * BK / THREADS; i++) {
            unsigned int idx = i * THREADS + lid;
            unsigned int r = idx / BK, kk = idx % BK;
            half_bits v = 0;
            if (r < d.m && k0 + kk < d.k) v = a[r * d.k + k0 + kk];
            slab_a[r * A_LD + kk] = v;
        }
        __syncthreads();
        for (unsigned int kk = 0; kk < BK && k0 + kk < d.k; kk += 16u) {
            FragAB am, bm;
            load_a(am, slab_a + kk, A_LD);
            load_b(bm, b + (k0 + kk) * n + strip, n);
            mma(acc, am, bm);
        }
        // The slab is overwritten next iteration.
        __syncthreads();
    }

    store_c(result + sg * 256u, acc, 16u);
    __syncthreads();
    for (unsigned int i = 0; i < 8u; i++) {
        unsigned int idx = i * 32u + lane;
        unsigned int r = idx / 16u, cc = idx % 16u;
        if (r < d.m && col + cc < n) c[r * n + col + cc] = result[sg * 256u + idx];
    }
}
