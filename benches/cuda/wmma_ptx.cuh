// PTX `wmma` 16x16x16 fragment operations (f16 inputs, f32 accumulators, row-major), as
// nvcuda::wmma's load_matrix_sync, mma_sync and store_matrix_sync emit them. The NVRTC wheel
// on PyPI ships no headers (no cuda_fp16.h, no mma.h), so the GEMM equivalents use these
// inline-asm versions, and halves travel as their 16-bit patterns. Addresses are generic
// (shared or global); strides are in elements.
#pragma once

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

__device__ __forceinline__ void zero(FragC& c) {
    for (int e = 0; e < 8; e++) c.x[e] = 0.0f;
}
