// CUDA C++ equivalent of tests/samples/sgm_gemm_i8.wgsl, written the way a CUDA programmer
// would (inline PTX `ldmatrix` + `mma.sync.m16n8k32.s8`): C[M x N] (i32) = A[M x K] (i8) *
// B[K x N] (i8), A row-major and B as its transpose Bt[N x K], both packed four bytes to a
// word (K a multiple of 4), M and N any size. Blocks of 128 threads (4 warps) compute 32x32
// tiles of C, warp w the 16x16 tile (w / 2, w % 2); K slabs of 32 bytes staged in shared
// memory with rows of 12 words (48 bytes: 16-byte aligned, an odd number of bank groups
// apart); the block goes through shared memory so that only elements inside C are written.
// Grid: ceil(N / 32) x ceil(M / 32).
#include "mma_sm80.cuh"

#define LD 12u

// Copies word i (0..256) of the slab at word w0 into both stages, zeros outside.
__device__ __forceinline__ void stage(unsigned int* sa, unsigned int* sb, const unsigned int* a,
                                      const unsigned int* bt, const Dims& d, unsigned int i,
                                      unsigned int row0, unsigned int col0, unsigned int w0,
                                      unsigned int kw) {
    unsigned int r = i >> 3, w = i & 7u;
    bool kin = w0 + w < kw;
    sa[r * LD + w] = (row0 + r < d.m && kin) ? a[(row0 + r) * kw + w0 + w] : 0u;
    sb[r * LD + w] = (col0 + r < d.n && kin) ? bt[(col0 + r) * kw + w0 + w] : 0u;
}

extern "C" __global__ void __launch_bounds__(128)
sgm_gemm_i8(const Dims* dims, const unsigned int* a, const unsigned int* bt, int* c) {
    __shared__ __align__(16) unsigned int sa[32 * LD];
    __shared__ __align__(16) unsigned int sb[32 * LD];
    __shared__ __align__(16) int block[32 * 32];
    const Dims d = *dims;
    unsigned int lid = threadIdx.x, lane = lid & 31u, w = lid >> 5;
    unsigned int row0 = blockIdx.y * 32u, col0 = blockIdx.x * 32u, kw = d.k / 4u;
    unsigned int ti = w >> 1, tj = w & 1u;
    int acc[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    // Lane l addresses stored row l % 16, bytes 16 * (l / 16) of a 16 x 32-byte tile: the
    // four 8 x 16-byte matrices arrive as the m16n8k32 A registers (and, for Bt, as the B
    // registers of columns 0..7 then 8..15).
    unsigned int a_addr = smem_addr(sa + (16u * ti + (lane & 15u)) * LD + 4u * (lane >> 4));
    unsigned int b_addr =
        smem_addr(sb + (16u * tj + (lane & 7u) + ((lane >> 4) << 3)) * LD + 4u * ((lane >> 3) & 1u));
    for (unsigned int w0 = 0; w0 < kw; w0 += 8u) {
        stage(sa, sb, a, bt, d, lid, row0, col0, w0, kw);
        stage(sa, sb, a, bt, d, lid + 128u, row0, col0, w0, kw);
        __syncthreads();
        unsigned int ra[4], rb[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                     : "r"(a_addr));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(rb[0]), "=r"(rb[1]), "=r"(rb[2]), "=r"(rb[3])
                     : "r"(b_addr));
        for (int h = 0; h < 2; h++) {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+r"(acc[h][0]), "+r"(acc[h][1]), "+r"(acc[h][2]), "+r"(acc[h][3])
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[2 * h]),
                           "r"(rb[2 * h + 1]));
        }
        __syncthreads();
    }
    // Accumulator (g, 2t + e) and (g + 8, 2t + e) of each 8-column half.
    unsigned int g = lane >> 2, t = lane & 3u;
    for (int h = 0; h < 2; h++) {
        int* q = block + (16u * ti + g) * 32u + 16u * tj + 8u * h + 2u * t;
        q[0] = acc[h][0];
        q[1] = acc[h][1];
        q[256] = acc[h][2];
        q[257] = acc[h][3];
    }
    __syncthreads();
    for (unsigned int i = lid; i < 1024u; i += 128u) {
        unsigned int r = row0 + i / 32u, col = col0 + i % 32u;
        if (r < d.m && col < d.n) c[r * d.n + col] = block[i];
    }
}
