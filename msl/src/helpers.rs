//! Helper templates: MSL functions giving WGSL's semantics, printed once before the structs
//! when a function uses them.

use crate::body::FnWriter;

impl FnWriter<'_> {
    /// Records that the printed code calls helper `name`.
    pub(crate) fn helper(&self, name: &'static str) {
        self.w.helpers.borrow_mut().insert(name);
    }
}

/// The text of a helper template (emitted once, before the structs).
pub(crate) fn helper_text(name: &str) -> &'static str {
    match name {
        "dr_sdiv" => "// WGSL integer division: x / 0 == x and INT_MIN / -1 == INT_MIN.\ntemplate <typename T> T dr_sdiv(T a, T b) {\n    auto bad = (b == T(0)) | ((a == T(-2147483647 - 1)) & (b == T(-1)));\n    return select(a / select(b, T(1), bad), a, bad);\n}\n",
        "dr_udiv" => "template <typename T> T dr_udiv(T a, T b) {\n    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));\n}\n",
        "dr_srem" => "// WGSL integer remainder: x % 0 == 0 and INT_MIN % -1 == 0.\ntemplate <typename T> T dr_srem(T a, T b) {\n    auto bad = (b == T(0)) | ((a == T(-2147483647 - 1)) & (b == T(-1)));\n    return select(a % select(b, T(1), bad), T(0), bad);\n}\n",
        "dr_urem" => "template <typename T> T dr_urem(T a, T b) {\n    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));\n}\n",
        "dr_extract_bits" => "// WGSL clamps offset and count to the bit width.\ntemplate <typename T> T dr_extract_bits(T e, uint offset, uint count) {\n    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n    return c == 0u ? T(0) : extract_bits(e, o, c);\n}\n",
        "dr_insert_bits" => "template <typename T> T dr_insert_bits(T e, T n, uint offset, uint count) {\n    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n    return c == 0u ? e : insert_bits(e, n, o, c);\n}\n",
        "dr_first_trailing_bit" => "template <typename T> T dr_first_trailing_bit(T x) {\n    return select(T(ctz(x)), T(-1), x == T(0));\n}\n",
        "dr_first_leading_bit" => "template <typename T> T dr_first_leading_bit(T x) {\n    // Signed inputs look for the first bit that differs from the sign bit.\n    T y = select(x, ~x, x < T(0));\n    return select(T(31) - T(clz(y)), T(-1), y == T(0));\n}\n",
        "dr_ballot" => "inline uint4 dr_ballot(bool p) {\n    ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(simd_ballot(p)));\n    return uint4(uint(bits), uint(bits >> 32), 0u, 0u);\n}\n",
        "dr_coop16_half" => "// A 16x16 cooperative matrix as 2x2 tiles of Metal's 8x8 simdgroup matrices.\nstruct dr_coop16_half {\n    simdgroup_half8x8 t[2][2];\n};\n",
        "dr_coop16_float" => "struct dr_coop16_float {\n    simdgroup_float8x8 t[2][2];\n};\n",
        "dr_coop8x16_half" => "// An 8-row, 16-column cooperative matrix as 1x2 tiles of Metal's 8x8 simdgroup matrices.\nstruct dr_coop8x16_half {\n    simdgroup_half8x8 t[1][2];\n};\n",
        "dr_coop8x16_float" => "struct dr_coop8x16_float {\n    simdgroup_float8x8 t[1][2];\n};\n",
        _ => "",
    }
}
