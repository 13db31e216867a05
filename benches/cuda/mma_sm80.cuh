// Tensor-core building blocks for the GEMM equivalents, CUTLASS style: inline PTX
// `ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16` and
// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, the instructions dianran emits for
// cooperative matrices, so the PTX emulator runs both sides (it has no `wmma`). The NVRTC
// wheel on PyPI ships no headers (no cuda_fp16.h, no mma.h): halves travel as 16-bit
// patterns, packed two to a 32-bit register, eight to a `uint4`.
//
// Fragments (PTX ISA "Matrix Fragments for mma.m16n8k16", g = lane / 4, t = lane % 4):
// A 16x16: 4 registers, {A[g][2t..]}, {A[g+8][2t..]}, {A[g][2t+8..]}, {A[g+8][2t+8..]};
// B 16x8: 2 registers, {B[2t..][g]}, {B[2t+8..][g]}; C 16x8 f32: C[g][2t], C[g][2t+1],
// C[g+8][2t], C[g+8][2t+1].
#pragma once

typedef unsigned short half_bits;

struct Dims {
    unsigned int m, n, k;
};

// The shared-window address of a pointer into shared memory (what `ldmatrix` takes).
__device__ __forceinline__ unsigned int smem_addr(const void* p) {
    return (unsigned int)__cvta_generic_to_shared(p);
}

// A 16x16 f16 tile, row-major at `p` (row stride `ld` halves, rows 16-byte aligned), as the
// 4 A registers of an m16n8k16 product: lane l gives the address of row l % 16, column
// 8 * (l / 16), so the 8x8 matrices arrive top-left, bottom-left, top-right, bottom-right.
__device__ __forceinline__ void ldsm_a(unsigned int (&r)[4], const half_bits* p, unsigned int ld,
                                       unsigned int lane) {
    unsigned int addr = smem_addr(p + (lane & 15u) * ld + ((lane >> 4) << 3));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// A 16x16 f16 tile of B (K x N), row-major at `p`, as the B registers of two m16n8k16
// products (columns 0..7: r[0], r[1]; columns 8..15: r[2], r[3]); `.trans` because a lane's
// pair runs down a column.
__device__ __forceinline__ void ldsm_b(unsigned int (&r)[4], const half_bits* p, unsigned int ld,
                                       unsigned int lane) {
    unsigned int addr = smem_addr(p + (lane & 15u) * ld + ((lane >> 4) << 3));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// d += a * b for one 16x8 f32 tile.
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned int (&a)[4],
                                         unsigned int b0, unsigned int b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += a * b for a 16x16 tile of C as two 16x8 halves (b from `ldsm_b`).
__device__ __forceinline__ void mma16x16(float (&d)[2][4], const unsigned int (&a)[4],
                                         const unsigned int (&b)[4]) {
    mma16816(d[0], a, b[0], b[1]);
    mma16816(d[1], a, b[2], b[3]);
}

// The 8 halves at piece `i` of a row-major f16 matrix seen as `uint4`s, or zeros when
// `inside` is false (a piece past the matrix).
__device__ __forceinline__ uint4 fetch8(const uint4* p, bool inside, unsigned int i) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (inside) v = p[i];
    return v;
}

// Stores a 16x16 f32 tile (fragments of `mma16x16`) row-major at `p`, row stride `ld`
// floats: each lane writes 2 adjacent floats per row, 8 rows x 32 bytes per instruction.
__device__ __forceinline__ void store_tile(float* p, const float (&d)[2][4], unsigned int ld,
                                           unsigned int lane) {
    unsigned int g = lane >> 2, t = lane & 3u;
    for (int nt = 0; nt < 2; nt++) {
        float* q = p + g * ld + nt * 8 + 2 * t;
        *(float2*)q = make_float2(d[nt][0], d[nt][1]);
        *(float2*)(q + 8 * ld) = make_float2(d[nt][2], d[nt][3]);
    }
}
