// CUDA C++ equivalent of tests/samples/gemm_tiled_f16.wgsl, with 16x16x16 WMMA tiles:
// C[M x N] (f32) = A[M x K] (f16) * B[K x N] (f16), row-major, M, N, K multiples of 16 read
// from a struct in device memory. Blocks of 128 threads (4 warps) compute 64x64 tiles of C,
// each warp 2x2 fragments; K slabs of 32 double buffered in padded shared memory; edge
// blocks go through shared memory. Grid: ceil(N / 64) x ceil(M / 64).
//
// The NVRTC wheel on PyPI ships no headers (no cuda_fp16.h, no mma.h), so the fragment
// operations are the PTX `wmma` instructions that nvcuda::wmma's load_matrix_sync,
// mma_sync and store_matrix_sync emit, written as inline asm, and halves travel as their
// 16-bit patterns (the kernel only copies them; the tensor cores do the arithmetic).

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

typedef unsigned short half_bits;

struct FragAB {
    unsigned int x[8]; // 16 halves as 8 f16x2
};
struct FragC {
    float x[8];
};

__device__ __forceinline__ void load_a(FragAB& f, const half_bits* p, unsigned int ld) {
    asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, [%8], %9;"
                 : "=r"(f.x[0]), "=r"(f.x[1]), "=r"(f.x[2]), "=r"(f.x[3]), "=r"(f.x[4]), "=r"(f.x[5]), "=r"(f.x[6]), "=r"(f.x[7])
                 : "l"(p), "r"(ld)
                 : "memory");
}

__device__ __forceinline__ void load_b(FragAB& f, const half_bits* p, unsigned int ld) {
    asm volatile("wmma.load.b.sync.aligned.row.m16n16k16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, [%8], %9;"
                 : "=r"(f.x[0]), "=r"(f.x[1]), "=r"(f.x[2]), "=r"(f.x[3]), "=r"(f.x[4]), "=r"(f.x[5]), "=r"(f.x[6]), "=r"(f.x[7])
                 : "l"(p), "r"(ld)
                 : "memory");
}

// c = a * b + c
__device__ __forceinline__ void mma(FragC& c, const FragAB& a, const FragAB& b) {
    asm volatile("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19,%20,%21,%22,%23}, {%0,%1,%2,%3,%4,%5,%6,%7};"
                 : "+f"(c.x[0]), "+f"(c.x[1]), "+f"(c.x[2]), "+f"(c.x[3]), "+f"(c.x[4]), "+f"(c.x[5]), "+f"(c.x[6]), "+f"(c.x[7])
                 : "r"(a.x[0]), "r"(a.x[1]), "r"(a.x[2]), "r"(a.x[3]), "r"(a.x[4]), "r"(a.x[5]), "r"(a.x[6]), "r"(a.x[7]),
                   "r"(b.x[0]), "r"(b.x[1]), "r"(b.x[2]), "r"(b.x[3]), "r"(b.x[4]), "r"(b.x[5]), "r"(b.x[6]), "r"(b.x[7]));
}

__device__ __forceinline__ void store_c(float* p, const FragC& c, unsigned int ld) {
    asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.f32 [%0], {%1,%2,%3,%4,%5,%6,%7,%8}, %9;"
                 :
                 : "l"(p), "f"(c.x[0]), "f"(c.x[1]), "f"(c.x[2]), "f"(c.x[3]), "f"(c.x[4]), "f"(c.x[5]), "f"(c.x[6]), "f"(c.x[7]), "r"(ld)
                 : "memory");
}

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
gemm_tiled_f16(const Dims* dims, const half_bits* a, const half_bits* b, float* c) {
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
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < 8; e++) acc[i][j].x[e] = 0.0f;

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

    if (row0 + BM <= d.m && col0 + BN <= d.n) {
        float* base = c + (row0 + wr) * d.n + col0 + wc;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) store_c(base + i * 16u * d.n + j * 16u, acc[i][j], d.n);
    } else {
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                store_c(block + (wr + i * 16u) * BN + wc + j * 16u, acc[i][j], BN);
        __syncthreads();
        for (unsigned int i = 0; i < BM * BN / THREADS; i++) {
            unsigned int idx = i * THREADS + lid;
            unsigned int r = row0 + idx / BN, col = col0 + idx % BN;
            if (r < d.m && col < d.n) c[r * d.n + col] = block[idx];
        }
    }
}
