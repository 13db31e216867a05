// dianran's Metal stub for <metal_simdgroup_matrix>: declarations only, for the clang syntax
// check of printed MSL (see metal_stub_base.h). Not a Metal implementation.
#pragma once
#include <metal_stdlib>

namespace metal {
template <typename T, int C, int R> struct simdgroup_matrix {
    simdgroup_matrix() = default;
    // Metal's constructor from a scalar: a diagonal matrix with `dval` on the diagonal.
    simdgroup_matrix(T dval);
};
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
template <typename T, int C, int R> simdgroup_matrix<T, C, R> make_filled_simdgroup_matrix(T value);
template <typename T, int C, int R, typename P>
void simdgroup_load(simdgroup_matrix<T, C, R>& d, const P* src, ulong elements_per_row = C,
                    vec<ulong, 2> matrix_origin = vec<ulong, 2>(), bool transpose_matrix = false);
template <typename T, int C, int R, typename P>
void simdgroup_store(simdgroup_matrix<T, C, R> a, P* dst, ulong elements_per_row = C,
                     vec<ulong, 2> matrix_origin = vec<ulong, 2>(), bool transpose_matrix = false);
template <typename D, typename A, typename B, typename C>
void simdgroup_multiply_accumulate(D& d, const A& a, const B& b, const C& c);
template <typename D, typename A, typename B>
void simdgroup_multiply(D& d, const A& a, const B& b);
}  // namespace metal
