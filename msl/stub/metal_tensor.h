// dianran's Metal stub for <metal_tensor> (MSL 4.0): declarations only, for the clang syntax
// check of printed MSL (see metal_stub_base.h). Written from the public signatures in Apple's
// SDK headers (macOS/iOS 26: `metal_tensor`, `MPPTensorOpsMatMul2d.h`); not an
// implementation. Checks the shapes dianran relies on: tensors built from a pointer, extents
// and strides; cooperative tensors indexed per element.
#pragma once
#include <metal_stdlib>
#include <cstdint>

namespace metal {
constexpr size_t dynamic_extent = size_t(-1);

template <typename IndexType, size_t Rank> struct dextents {
    static_assert(std::is_integral<IndexType>::value, "extents are integers");
    IndexType e[Rank];
    template <typename... I, typename = std::enable_if_t<sizeof...(I) == Rank>>
    constexpr dextents(I... i) : e{IndexType(i)...} {}
    constexpr IndexType extent(size_t r) const { return e[r]; }
    static constexpr size_t rank() { return Rank; }
};

// Tensor descriptors: a host-bound MTLTensor, a view with an origin, and a view built in the
// shader from a pointer.
struct tensor_handle {};
struct tensor_offset {};
struct tensor_inline {};

template <typename ElementType, typename Extents, typename Descriptor = tensor_handle>
struct tensor;

template <typename ElementType, typename IndexType, size_t Rank>
struct tensor<ElementType, dextents<IndexType, Rank>, tensor_inline> {
    using element_type = ElementType;
    using extents_type = dextents<IndexType, Rank>;
    ElementType* data;
    // Dimension 0 is the contiguous one: strides[0] is 1 for the layouts tensor ops accept.
    tensor(ElementType* p, extents_type e, array<IndexType, Rank> strides);
    tensor(ElementType* p, extents_type e);
    extents_type extents() const;
};

template <typename T> struct dr_is_tensor : std::false_type {};
template <typename E, typename X, typename D> struct dr_is_tensor<tensor<E, X, D>> : std::true_type {};

// Execution scopes of tensor operations.
struct execution_thread {};
struct execution_simdgroup {};
template <int N> struct execution_simdgroups {
    static_assert(N > 0, "at least one simdgroup");
};

// A thread's share of a tensor distributed over an operation's execution scope; the layout
// is the operation's (only the operation creates one).
template <typename ElementType, typename Extents, typename Layout> struct cooperative_tensor {
    using element_type = ElementType;
    uint16_t get_capacity() const;
    bool is_valid_element(uint16_t i) const;
    ElementType& operator[](uint16_t i);
    const ElementType& operator[](uint16_t i) const;
    // [0] is the column (extent 0), [1] the row.
    array<int, 2> get_multidimensional_index(uint16_t i) const;
    template <typename T> void load(const T& source);
    template <typename T> void store(const T& destination) const;
};

template <typename T> struct dr_is_cooperative_tensor : std::false_type {};
template <typename E, typename X, typename L>
struct dr_is_cooperative_tensor<cooperative_tensor<E, X, L>> : std::true_type {};
}  // namespace metal
