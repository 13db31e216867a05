// dianran's Metal stub: just enough of the Metal Shading Language surface that dianran's MSL
// printer uses for `clang++ -fsyntax-only -std=c++17 -fdeclspec` to check printed MSL for
// syntax and type errors without Apple tools.
//
// This is NOT a Metal compiler. Address spaces (`device`, `threadgroup`, ...) and attributes
// (`[[buffer(0)]]`, ...) are ignored, most functions are loosely typed templates, and nothing
// here says the code runs correctly on a GPU. Swizzles are MS-style properties (`-fdeclspec`)
// so `auto v = a.xyz;` has a vector type as in Metal.
#pragma once
#include <cstddef>
#include <type_traits>

#define kernel
#define vertex
#define fragment
#define device
#define threadgroup
#define constant
#define thread

namespace metal {
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;
// clang has no usable 16-bit float on every host; `half` is an alias of `float` here, so
// mixing `half` and `float` is not diagnosed (Metal mostly converts implicitly anyway).
typedef float half;

inline half operator""h(long double x) { return half(x); }
inline half operator""h(unsigned long long x) { return half(x); }

template <typename T> struct dr_is_scalar : std::false_type {};
#define DR_IS_SCALAR(S) template <> struct dr_is_scalar<S> : std::true_type {};
DR_IS_SCALAR(bool)
DR_IS_SCALAR(char)
DR_IS_SCALAR(signed char)
DR_IS_SCALAR(uchar)
DR_IS_SCALAR(short)
DR_IS_SCALAR(ushort)
DR_IS_SCALAR(int)
DR_IS_SCALAR(uint)
DR_IS_SCALAR(long)
DR_IS_SCALAR(ulong)
DR_IS_SCALAR(float)
DR_IS_SCALAR(double)
#define DR_SCALAR(S) typename = std::enable_if_t<dr_is_scalar<S>::value>

template <typename T, int N> struct vec;
template <typename T, int N> struct packed_vec;

template <typename T> inline void dr_fill(T*, int&) {}
template <typename T, typename A, typename... R> inline void dr_fill(T* d, int& at, A a, R... r);
template <typename T, typename S, DR_SCALAR(S)> inline void dr_put(T* d, int& at, S s) {
    d[at++] = T(s);
}
template <typename T, typename U, int M> inline void dr_put(T* d, int& at, vec<U, M> v) {
    for (int i = 0; i < M; ++i) d[at++] = T(v.d[i]);
}
template <typename T, typename A, typename... R> inline void dr_fill(T* d, int& at, A a, R... r) {
    dr_put(d, at, a);
    dr_fill(d, at, r...);
}

// @VECTORS@

template <typename T, int N> struct packed_vec {
    T d[N];
    packed_vec() : d{} {}
    packed_vec(vec<T, N> v) { for (int i = 0; i < N; ++i) d[i] = v.d[i]; }
    operator vec<T, N>() const {
        vec<T, N> r;
        for (int i = 0; i < N; ++i) r.d[i] = d[i];
        return r;
    }
    T& operator[](int i) { return d[i]; }
    const T& operator[](int i) const { return d[i]; }
};

#define DR_VEC_TYPEDEFS(T, name)                                                                 \
    typedef vec<T, 2> name##2;                                                                  \
    typedef vec<T, 3> name##3;                                                                  \
    typedef vec<T, 4> name##4;                                                                  \
    typedef packed_vec<T, 2> packed_##name##2;                                                  \
    typedef packed_vec<T, 3> packed_##name##3;                                                  \
    typedef packed_vec<T, 4> packed_##name##4;
DR_VEC_TYPEDEFS(float, float)
typedef float2 half2;
typedef float3 half3;
typedef float4 half4;
typedef packed_float2 packed_half2;
typedef packed_float3 packed_half3;
typedef packed_float4 packed_half4;
DR_VEC_TYPEDEFS(int, int)
DR_VEC_TYPEDEFS(uint, uint)
DR_VEC_TYPEDEFS(long, long)
DR_VEC_TYPEDEFS(ulong, ulong)
DR_VEC_TYPEDEFS(bool, bool)
DR_VEC_TYPEDEFS(short, short)
DR_VEC_TYPEDEFS(ushort, ushort)
DR_VEC_TYPEDEFS(char, char)
DR_VEC_TYPEDEFS(uchar, uchar)

// Component-wise operators: vector-vector, vector-scalar, scalar-vector.
#define DR_ARITH(op)                                                                             \
    template <typename T, int N> vec<T, N> operator op(vec<T, N> a, vec<T, N> b) {              \
        vec<T, N> r;                                                                            \
        for (int i = 0; i < N; ++i) r.d[i] = T(a.d[i] op b.d[i]);                               \
        return r;                                                                               \
    }                                                                                           \
    template <typename T, int N, typename S, DR_SCALAR(S)> vec<T, N> operator op(vec<T, N> a, S b) { \
        return a op vec<T, N>(T(b));                                                            \
    }                                                                                           \
    template <typename T, int N, typename S, DR_SCALAR(S)> vec<T, N> operator op(S a, vec<T, N> b) { \
        return vec<T, N>(T(a)) op b;                                                            \
    }
DR_ARITH(+)
DR_ARITH(-)
DR_ARITH(*)
DR_ARITH(/)
DR_ARITH(%)
DR_ARITH(&)
DR_ARITH(|)
DR_ARITH(^)
DR_ARITH(<<)
DR_ARITH(>>)
// Shifts take an amount of another integer type (WGSL shifts i32 by u32).
template <typename T, typename U, int N, typename = std::enable_if_t<!std::is_same<T, U>::value>>
vec<T, N> operator<<(vec<T, N> a, vec<U, N> b) {
    for (int i = 0; i < N; ++i) a.d[i] = T(a.d[i] << b.d[i]);
    return a;
}
template <typename T, typename U, int N, typename = std::enable_if_t<!std::is_same<T, U>::value>>
vec<T, N> operator>>(vec<T, N> a, vec<U, N> b) {
    for (int i = 0; i < N; ++i) a.d[i] = T(a.d[i] >> b.d[i]);
    return a;
}
#define DR_CMP(op)                                                                               \
    template <typename T, int N> vec<bool, N> operator op(vec<T, N> a, vec<T, N> b) {           \
        vec<bool, N> r;                                                                         \
        for (int i = 0; i < N; ++i) r.d[i] = a.d[i] op b.d[i];                                  \
        return r;                                                                               \
    }                                                                                           \
    template <typename T, int N, typename S, DR_SCALAR(S)> vec<bool, N> operator op(vec<T, N> a, S b) { \
        return a op vec<T, N>(T(b));                                                            \
    }                                                                                           \
    template <typename T, int N, typename S, DR_SCALAR(S)> vec<bool, N> operator op(S a, vec<T, N> b) { \
        return vec<T, N>(T(a)) op b;                                                            \
    }
DR_CMP(==)
DR_CMP(!=)
DR_CMP(<)
DR_CMP(<=)
DR_CMP(>)
DR_CMP(>=)
DR_CMP(&&)
DR_CMP(||)
template <typename T, int N> vec<T, N> operator-(vec<T, N> a) {
    for (int i = 0; i < N; ++i) a.d[i] = -a.d[i];
    return a;
}
template <typename T, int N> vec<T, N> operator~(vec<T, N> a) {
    for (int i = 0; i < N; ++i) a.d[i] = ~a.d[i];
    return a;
}
template <int N> vec<bool, N> operator!(vec<bool, N> a) {
    for (int i = 0; i < N; ++i) a.d[i] = !a.d[i];
    return a;
}

// Matrices: C columns of R components (`float3x2` has 3 columns of float2).
template <typename T, int C, int R> struct matrix {
    vec<T, R> c[C];
    matrix() : c{} {}
    explicit matrix(T diag) : c{} {
        for (int i = 0; i < C && i < R; ++i) c[i].d[i] = diag;
    }
    template <typename... A, typename = std::enable_if_t<sizeof...(A) == C>>
    matrix(A... cols) : c{vec<T, R>(cols)...} {}
    vec<T, R>& operator[](int i) { return c[i]; }
    const vec<T, R>& operator[](int i) const { return c[i]; }
};
#define DR_MAT_TYPEDEFS(T, name)                                                                 \
    typedef matrix<T, 2, 2> name##2x2;                                                          \
    typedef matrix<T, 2, 3> name##2x3;                                                          \
    typedef matrix<T, 2, 4> name##2x4;                                                          \
    typedef matrix<T, 3, 2> name##3x2;                                                          \
    typedef matrix<T, 3, 3> name##3x3;                                                          \
    typedef matrix<T, 3, 4> name##3x4;                                                          \
    typedef matrix<T, 4, 2> name##4x2;                                                          \
    typedef matrix<T, 4, 3> name##4x3;                                                          \
    typedef matrix<T, 4, 4> name##4x4;
DR_MAT_TYPEDEFS(float, float)
typedef float2x2 half2x2;
typedef float2x3 half2x3;
typedef float2x4 half2x4;
typedef float3x2 half3x2;
typedef float3x3 half3x3;
typedef float3x4 half3x4;
typedef float4x2 half4x2;
typedef float4x3 half4x3;
typedef float4x4 half4x4;
template <typename T, int C, int R> vec<T, R> operator*(matrix<T, C, R> m, vec<T, C> v) {
    vec<T, R> r;
    for (int i = 0; i < C; ++i) r = r + m.c[i] * v.d[i];
    return r;
}
template <typename T, int C, int R> vec<T, C> operator*(vec<T, R> v, matrix<T, C, R> m) {
    vec<T, C> r;
    for (int i = 0; i < C; ++i) r.d[i] = T(0);
    return r;
}
template <typename T, int C, int K, int R>
matrix<T, C, R> operator*(matrix<T, K, R> a, matrix<T, C, K> b) {
    matrix<T, C, R> r;
    for (int i = 0; i < C; ++i) r.c[i] = a * b.c[i];
    return r;
}
template <typename T, int C, int R, typename S, DR_SCALAR(S)>
matrix<T, C, R> operator*(matrix<T, C, R> m, S s) {
    for (int i = 0; i < C; ++i) m.c[i] = m.c[i] * T(s);
    return m;
}
template <typename T, int C, int R, typename S, DR_SCALAR(S)>
matrix<T, C, R> operator*(S s, matrix<T, C, R> m) {
    return m * s;
}
template <typename T, int C, int R> matrix<T, C, R> operator+(matrix<T, C, R> a, matrix<T, C, R> b) {
    for (int i = 0; i < C; ++i) a.c[i] = a.c[i] + b.c[i];
    return a;
}
template <typename T, int C, int R> matrix<T, C, R> operator-(matrix<T, C, R> a, matrix<T, C, R> b) {
    for (int i = 0; i < C; ++i) a.c[i] = a.c[i] - b.c[i];
    return a;
}
template <typename T, int C, int R> matrix<T, C, R> operator-(matrix<T, C, R> a) {
    for (int i = 0; i < C; ++i) a.c[i] = -a.c[i];
    return a;
}
template <typename T, int C, int R> matrix<T, R, C> transpose(matrix<T, C, R> m);
template <typename T, int N> T determinant(matrix<T, N, N> m);

template <typename T, size_t N> struct array {
    T elems[N];
    T& operator[](size_t i) { return elems[i]; }
    const T& operator[](size_t i) const { return elems[i]; }
};

// Atomics.
template <typename T> struct dr_atomic {
    T v;
};
typedef dr_atomic<int> atomic_int;
typedef dr_atomic<uint> atomic_uint;
// Metal 3.0: add, sub, exchange, load and store only (on device memory).
typedef dr_atomic<float> atomic_float;
enum memory_order { memory_order_relaxed };
template <typename T> T atomic_load_explicit(dr_atomic<T>* p, memory_order);
template <typename T, typename U> void atomic_store_explicit(dr_atomic<T>* p, U v, memory_order);
#define DR_ATOMIC_RMW(f) template <typename T, typename U> T f(dr_atomic<T>* p, U v, memory_order);
DR_ATOMIC_RMW(atomic_fetch_add_explicit)
DR_ATOMIC_RMW(atomic_fetch_sub_explicit)
DR_ATOMIC_RMW(atomic_fetch_and_explicit)
DR_ATOMIC_RMW(atomic_fetch_or_explicit)
DR_ATOMIC_RMW(atomic_fetch_xor_explicit)
DR_ATOMIC_RMW(atomic_fetch_min_explicit)
DR_ATOMIC_RMW(atomic_fetch_max_explicit)
DR_ATOMIC_RMW(atomic_exchange_explicit)
template <typename T, typename U>
bool atomic_compare_exchange_weak_explicit(dr_atomic<T>* p, T* expected, U desired, memory_order,
                                           memory_order);

// Barriers.
enum class mem_flags { mem_none, mem_device, mem_threadgroup, mem_texture };
inline mem_flags operator|(mem_flags a, mem_flags) { return a; }
void threadgroup_barrier(mem_flags);
void simdgroup_barrier(mem_flags);
void discard_fragment();

// Math and bit functions (loosely typed: the result has the first argument's type).
#define DR_FN1(f) template <typename T> T f(T x);
#define DR_FN2(f) template <typename T, typename U> T f(T x, U y);
#define DR_FN3(f) template <typename T, typename U, typename V> T f(T x, U y, V z);
DR_FN1(abs) DR_FN1(saturate) DR_FN1(cos) DR_FN1(cosh) DR_FN1(sin) DR_FN1(sinh) DR_FN1(tan)
DR_FN1(tanh) DR_FN1(acos) DR_FN1(asin) DR_FN1(atan) DR_FN1(asinh) DR_FN1(acosh) DR_FN1(atanh)
DR_FN1(ceil) DR_FN1(floor) DR_FN1(rint) DR_FN1(trunc) DR_FN1(exp) DR_FN1(exp2) DR_FN1(log)
DR_FN1(log2) DR_FN1(sqrt) DR_FN1(rsqrt) DR_FN1(sign) DR_FN1(normalize) DR_FN1(popcount)
DR_FN1(clz) DR_FN1(ctz) DR_FN1(reverse_bits) DR_FN1(dfdx) DR_FN1(dfdy) DR_FN1(fwidth)
DR_FN2(min) DR_FN2(max) DR_FN2(pow) DR_FN2(atan2) DR_FN2(step) DR_FN2(fmod) DR_FN2(ldexp)
DR_FN2(cross) DR_FN2(reflect)
DR_FN3(clamp) DR_FN3(mix) DR_FN3(smoothstep) DR_FN3(fma) DR_FN3(faceforward) DR_FN3(refract)
DR_FN3(select) DR_FN3(extract_bits)
template <typename T, typename U, typename V, typename W> T insert_bits(T e, U n, V o, W c);
// f32 math with an explicit precision (float and float vectors only: passing half is an error).
#define DR_FF1(f) float f(float x); template <int N> vec<float, N> f(vec<float, N> x);
#define DR_FF2(f) float f(float x, float y); \
    template <int N> vec<float, N> f(vec<float, N> x, vec<float, N> y);
#define DR_FFALL \
    DR_FF1(sin) DR_FF1(cos) DR_FF1(tan) DR_FF1(asin) DR_FF1(acos) DR_FF1(atan) DR_FF1(sinh) \
    DR_FF1(cosh) DR_FF1(tanh) DR_FF1(asinh) DR_FF1(acosh) DR_FF1(atanh) DR_FF1(exp) DR_FF1(exp2) \
    DR_FF1(log) DR_FF1(log2) DR_FF1(sqrt) DR_FF1(rsqrt) DR_FF2(pow) DR_FF2(atan2) DR_FF2(divide)
namespace precise { DR_FFALL }
namespace fast { DR_FFALL }
template <typename T, int N> T dot(vec<T, N> a, vec<T, N> b);
template <typename T, int N> T length(vec<T, N> a);
template <typename T, int N> T distance(vec<T, N> a, vec<T, N> b);
template <typename T, DR_SCALAR(T)> T length(T a);
template <typename T, DR_SCALAR(T)> T distance(T a, T b);
template <int N> bool all(vec<bool, N> a);
template <int N> bool any(vec<bool, N> a);
bool isnan(float);
bool isinf(float);
template <int N> vec<bool, N> isnan(vec<float, N>);
template <int N> vec<bool, N> isinf(vec<float, N>);
template <typename T, typename U> T as_type(U x);
uint pack_float_to_snorm4x8(float4);
uint pack_float_to_unorm4x8(float4);
uint pack_float_to_snorm2x16(float2);
uint pack_float_to_unorm2x16(float2);
float4 unpack_snorm4x8_to_float(uint);
float4 unpack_unorm4x8_to_float(uint);
float2 unpack_snorm2x16_to_float(uint);
float2 unpack_unorm2x16_to_float(uint);

// SIMD-group functions.
struct simd_vote {
    typedef ulong vote_t;
    explicit operator vote_t() const;
};
simd_vote simd_ballot(bool);
DR_FN1(simd_sum) DR_FN1(simd_product) DR_FN1(simd_min) DR_FN1(simd_max) DR_FN1(simd_and)
DR_FN1(simd_or) DR_FN1(simd_xor) DR_FN1(simd_prefix_inclusive_sum)
DR_FN1(simd_prefix_inclusive_product) DR_FN1(simd_prefix_exclusive_sum)
DR_FN1(simd_prefix_exclusive_product) DR_FN1(simd_broadcast_first)
bool simd_all(bool);
bool simd_any(bool);
template <typename T> T simd_broadcast(T x, ushort lane);
template <typename T> T simd_shuffle(T x, ushort lane);
template <typename T> T simd_shuffle_down(T x, ushort delta);
template <typename T> T simd_shuffle_up(T x, ushort delta);
template <typename T> T simd_shuffle_xor(T x, ushort mask);
template <typename T> T quad_broadcast(T x, ushort lane);
template <typename T> T quad_shuffle_xor(T x, ushort mask);

// Textures and samplers.
enum class access { sample, read, write, read_write };
enum class component { x, y, z, w };
struct sampler {};
struct level {
    explicit level(float);
};
struct bias {
    explicit bias(float);
};
struct gradient2d {
    gradient2d(float2, float2);
};
#define DR_TEXTURE(name, coord_t, read_t)                                                        \
    template <typename T, access A = access::sample> struct name {                              \
        template <typename... X> vec<T, 4> sample(sampler, coord_t, X...) const;                \
        template <typename... X> vec<T, 4> gather(sampler, coord_t, X...) const;                \
        template <typename... X> vec<T, 4> read(read_t, X...) const;                            \
        template <typename... X> void write(vec<T, 4>, read_t, X...) const;                     \
        uint get_width(uint = 0) const;                                                         \
        uint get_height(uint = 0) const;                                                        \
        uint get_depth(uint = 0) const;                                                         \
        uint get_num_mip_levels() const;                                                        \
        uint get_array_size() const;                                                            \
        uint get_num_samples() const;                                                           \
    };
DR_TEXTURE(texture1d, float, uint)
DR_TEXTURE(texture1d_array, float, uint)
DR_TEXTURE(texture2d, float2, uint2)
DR_TEXTURE(texture2d_array, float2, uint2)
DR_TEXTURE(texture2d_ms, float2, uint2)
DR_TEXTURE(texture3d, float3, uint3)
DR_TEXTURE(texturecube, float3, uint2)
DR_TEXTURE(texturecube_array, float3, uint2)
#define DR_DEPTH(name, coord_t, read_t)                                                          \
    template <typename T, access A = access::sample> struct name {                              \
        template <typename... X> T sample(sampler, coord_t, X...) const;                        \
        template <typename... X> T sample_compare(sampler, coord_t, X...) const;                \
        template <typename... X> vec<T, 4> gather(sampler, coord_t, X...) const;                \
        template <typename... X> vec<T, 4> gather_compare(sampler, coord_t, X...) const;        \
        template <typename... X> T read(read_t, X...) const;                                    \
        uint get_width(uint = 0) const;                                                         \
        uint get_height(uint = 0) const;                                                        \
        uint get_num_mip_levels() const;                                                        \
        uint get_array_size() const;                                                            \
        uint get_num_samples() const;                                                           \
    };
DR_DEPTH(depth2d, float2, uint2)
DR_DEPTH(depth2d_array, float2, uint2)
DR_DEPTH(depth2d_ms, float2, uint2)
DR_DEPTH(depthcube, float3, uint2)
DR_DEPTH(depthcube_array, float3, uint2)
}  // namespace metal
