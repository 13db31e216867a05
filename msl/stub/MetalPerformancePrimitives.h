// dianran's Metal stub for <MetalPerformancePrimitives/MetalPerformancePrimitives.h>: the
// `matmul2d` tensor operation's declarations (public signatures of Apple's
// `MPPTensorOpsMatMul2d.h`, SDK 26), for the clang syntax check of printed MSL (see
// metal_stub_base.h). Not an implementation: it checks the descriptor, the operand types and
// the type combinations the header lists for float destinations.
#pragma once
#include <metal_tensor>

namespace mpp {
namespace tensor_ops {
struct matmul2d_descriptor {
    enum class mode { multiply, multiply_accumulate };
    int m, n, k;
    bool transpose_left, transpose_right;
    bool relaxed_precision;
    mode matmul_mode;
    constexpr matmul2d_descriptor(int m_, int n_, int k_ = static_cast<int>(metal::dynamic_extent),
                                  bool transpose_left_ = false, bool transpose_right_ = false,
                                  bool relaxed_precision_ = false, mode mode_ = mode::multiply)
        : m(m_), n(n_), k(k_), transpose_left(transpose_left_), transpose_right(transpose_right_),
          relaxed_precision(relaxed_precision_), matmul_mode(mode_) {}
};

template <typename T> struct dr_element { using type = T; };
template <typename E, typename X, typename D> struct dr_element<metal::tensor<E, X, D>> {
    using type = std::remove_const_t<E>;
};
template <typename E, typename X, typename L>
struct dr_element<metal::cooperative_tensor<E, X, L>> { using type = E; };

template <matmul2d_descriptor D, typename Scope> struct dr_destination_layout {};

template <matmul2d_descriptor Descriptor, typename Scope> class matmul2d {
    static_assert(Descriptor.m > 0 && Descriptor.n > 0, "m and n are static");

  public:
    static constexpr matmul2d_descriptor descriptor = Descriptor;
    using scope = Scope;
    matmul2d() = default;

    template <typename Left, typename Right, typename ElementType>
    using cooperative_tensor_destination_t =
        metal::cooperative_tensor<ElementType, metal::dextents<int, 2>,
                                  dr_destination_layout<Descriptor, Scope>>;

    template <typename Left, typename Right, typename ElementType>
    cooperative_tensor_destination_t<Left, Right, ElementType> get_destination_cooperative_tensor() const {
        static_assert(metal::dr_is_tensor<Left>::value || metal::dr_is_cooperative_tensor<Left>::value,
                      "the left operand type is a tensor");
        static_assert(metal::dr_is_tensor<Right>::value || metal::dr_is_cooperative_tensor<Right>::value,
                      "the right operand type is a tensor");
        return {};
    }

    // Operands are non-const lvalues (named tensors).
    template <typename Left, typename Right, typename Destination>
    void run(Left& left, Right& right, Destination& destination) const {
        static_assert(metal::dr_is_tensor<Left>::value || metal::dr_is_cooperative_tensor<Left>::value,
                      "the left operand is a tensor");
        static_assert(metal::dr_is_tensor<Right>::value || metal::dr_is_cooperative_tensor<Right>::value,
                      "the right operand is a tensor");
        using L = typename dr_element<Left>::type;
        using R = typename dr_element<Right>::type;
        using C = typename dr_element<Destination>::type;
        // The float-destination rows of the header's table dianran uses (half is float in
        // this stub, so the two are not told apart here).
        static_assert(std::is_same<C, float>::value, "a float destination");
        static_assert(std::is_same<L, float>::value && std::is_same<R, float>::value,
                      "half or float operands");
        (void)left;
        (void)right;
        (void)destination;
    }
};
}  // namespace tensor_ops
}  // namespace mpp
