//! The shared namer: one reserved-word table for WGSL and MSL, so an identifier gets the
//! same escaped name in both printed languages (docs/msl.md).
//!
//! Names are kept as written (Unicode included) unless they are a WGSL reserved word (naga's
//! table), an MSL/C++ keyword or a Metal builtin function name (table below, taken from naga's
//! MSL backend), or start with `__`. Those get a trailing `_`; a later collision gets `_1`,
//! `_2`, ... in the order names are registered.

use std::collections::HashSet;

/// MSL and C++ keywords and Metal standard-library names that a user identifier must avoid.
pub const MSL_RESERVED: &[&str] = &[
    "assert", // found in https://github.com/gfx-rs/wgpu/issues/5347
    "and",
    "bitor",
    "or",
    "xor",
    "compl",
    "bitand",
    "and_eq",
    "or_eq",
    "xor_eq",
    "not",
    "not_eq",
    "alignas",
    "alignof",
    "asm",
    "auto",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "class",
    "const",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "main",
    "int8_t",
    "uchar",
    "uint8_t",
    "int16_t",
    "ushort",
    "uint16_t",
    "int32_t",
    "uint",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "half",
    "bfloat",
    "size_t",
    "ptrdiff_t",
    "bool2",
    "bool3",
    "bool4",
    "char2",
    "char3",
    "char4",
    "short2",
    "short3",
    "short4",
    "int2",
    "int3",
    "int4",
    "long2",
    "long3",
    "long4",
    "uchar2",
    "uchar3",
    "uchar4",
    "ushort2",
    "ushort3",
    "ushort4",
    "uint2",
    "uint3",
    "uint4",
    "ulong2",
    "ulong3",
    "ulong4",
    "half2",
    "half3",
    "half4",
    "bfloat2",
    "bfloat3",
    "bfloat4",
    "float2",
    "float3",
    "float4",
    "vec",
    "packed_bool2",
    "packed_bool3",
    "packed_bool4",
    "packed_char2",
    "packed_char3",
    "packed_char4",
    "packed_short2",
    "packed_short3",
    "packed_short4",
    "packed_int2",
    "packed_int3",
    "packed_int4",
    "packed_uchar2",
    "packed_uchar3",
    "packed_uchar4",
    "packed_ushort2",
    "packed_ushort3",
    "packed_ushort4",
    "packed_uint2",
    "packed_uint3",
    "packed_uint4",
    "packed_half2",
    "packed_half3",
    "packed_half4",
    "packed_bfloat2",
    "packed_bfloat3",
    "packed_bfloat4",
    "packed_float2",
    "packed_float3",
    "packed_float4",
    "packed_long2",
    "packed_long3",
    "packed_long4",
    "packed_vec",
    "half2x2",
    "half2x3",
    "half2x4",
    "half3x2",
    "half3x3",
    "half3x4",
    "half4x2",
    "half4x3",
    "half4x4",
    "float2x2",
    "float2x3",
    "float2x4",
    "float3x2",
    "float3x3",
    "float3x4",
    "float4x2",
    "float4x3",
    "float4x4",
    "matrix",
    "atomic",
    "atomic_int",
    "atomic_uint",
    "atomic_bool",
    "atomic_ulong",
    "atomic_float",
    "as_type",
    "device",
    "constant",
    "thread",
    "threadgroup",
    "threadgroup_imageblock",
    "ray_data",
    "object_data",
    "vertex",
    "fragment",
    "kernel",
    "metal",
    "restrict",
    "llong",
    "ullong",
    "quad",
    "complex",
    "imaginary",
    "CHAR_BIT",
    "SCHAR_MAX",
    "SCHAR_MIN",
    "UCHAR_MAX",
    "CHAR_MAX",
    "CHAR_MIN",
    "USHRT_MAX",
    "SHRT_MAX",
    "SHRT_MIN",
    "UINT_MAX",
    "INT_MAX",
    "INT_MIN",
    "ULONG_MAX",
    "LONG_MAX",
    "LONG_MIN",
    "ULLONG_MAX",
    "LLONG_MAX",
    "LLONG_MIN",
    "FLT_DIG",
    "FLT_MANT_DIG",
    "FLT_MAX_10_EXP",
    "FLT_MAX_EXP",
    "FLT_MIN_10_EXP",
    "FLT_MIN_EXP",
    "FLT_RADIX",
    "FLT_MAX",
    "FLT_MIN",
    "FLT_EPSILON",
    "FLT_DECIMAL_DIG",
    "FP_ILOGB0",
    "FP_ILOGB0",
    "FP_ILOGBNAN",
    "FP_ILOGBNAN",
    "MAXFLOAT",
    "HUGE_VALF",
    "INFINITY",
    "NAN",
    "M_E_F",
    "M_LOG2E_F",
    "M_LOG10E_F",
    "M_LN2_F",
    "M_LN10_F",
    "M_PI_F",
    "M_PI_2_F",
    "M_PI_4_F",
    "M_1_PI_F",
    "M_2_PI_F",
    "M_2_SQRTPI_F",
    "M_SQRT2_F",
    "M_SQRT1_2_F",
    "HALF_DIG",
    "HALF_MANT_DIG",
    "HALF_MAX_10_EXP",
    "HALF_MAX_EXP",
    "HALF_MIN_10_EXP",
    "HALF_MIN_EXP",
    "HALF_RADIX",
    "HALF_MAX",
    "HALF_MIN",
    "HALF_EPSILON",
    "HALF_DECIMAL_DIG",
    "MAXHALF",
    "HUGE_VALH",
    "M_E_H",
    "M_LOG2E_H",
    "M_LOG10E_H",
    "M_LN2_H",
    "M_LN10_H",
    "M_PI_H",
    "M_PI_2_H",
    "M_PI_4_H",
    "M_1_PI_H",
    "M_2_PI_H",
    "M_2_SQRTPI_H",
    "M_SQRT2_H",
    "M_SQRT1_2_H",
    "DBL_DIG",
    "DBL_MANT_DIG",
    "DBL_MAX_10_EXP",
    "DBL_MAX_EXP",
    "DBL_MIN_10_EXP",
    "DBL_MIN_EXP",
    "DBL_RADIX",
    "DBL_MAX",
    "DBL_MIN",
    "DBL_EPSILON",
    "DBL_DECIMAL_DIG",
    "MAXDOUBLE",
    "HUGE_VAL",
    "M_E",
    "M_LOG2E",
    "M_LOG10E",
    "M_LN2",
    "M_LN10",
    "M_PI",
    "M_PI_2",
    "M_PI_4",
    "M_1_PI",
    "M_2_PI",
    "M_2_SQRTPI",
    "M_SQRT2",
    "M_SQRT1_2",
    "DefaultConstructible",
    "__local_invocation_index",
    "metal",
    "main",
    "simd_sum",
    "simd_shuffle",
    "simd_ballot",
    "simdgroup_matrix",
    "threadgroup_barrier",
    // The MSL printer's own parameters and locals.
    "_buffer_sizes",
    "_coop_stage",
    "_coop_stages",
    "_coop_lane",
    "_coop_s",
    "_coop_e",
    "_coop_o",
];

/// Whether `name` must be escaped in WGSL or MSL output.
pub fn is_reserved(name: &str) -> bool {
    name.starts_with("__")
        || naga::keywords::wgsl::RESERVED.contains(&name)
        || MSL_RESERVED.contains(&name)
}

/// Escapes one identifier without collision tracking.
pub fn escape(name: &str) -> String {
    let base = if name.is_empty() { "_unnamed" } else { name };
    if is_reserved(base) {
        format!("{base}_")
    } else {
        base.to_string()
    }
}

/// Hands out unique, escaped identifiers.
#[derive(Clone, Debug, Default)]
pub struct Namer {
    used: HashSet<String>,
}

impl Namer {
    /// A namer with nothing taken.
    pub fn new() -> Self {
        Self::default()
    }
    /// Returns an escaped name for `wanted` that was not handed out before.
    pub fn name(&mut self, wanted: &str) -> String {
        let base = escape(wanted);
        if self.used.insert(base.clone()) {
            return base;
        }
        let mut i = 1u32;
        loop {
            let candidate = format!("{base}_{i}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
            i += 1;
        }
    }
    /// Marks `name` as taken without escaping it (for names fixed by the target).
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_unicode_and_escapes_keywords() {
        let mut n = Namer::new();
        assert_eq!(n.name("加倍"), "加倍");
        assert_eq!(n.name("loop"), "loop_");
        assert_eq!(n.name("kernel"), "kernel_");
        assert_eq!(n.name("float4"), "float4_");
        assert_eq!(n.name("x"), "x");
        assert_eq!(n.name("x"), "x_1");
        assert_eq!(n.name("x"), "x_2");
        assert_eq!(n.name("__hidden"), "__hidden_");
    }
}

/// Names of every module-level item, decided once so that every printer agrees.
///
/// Registration order is fixed (structs, constants, globals, functions, in module order), so
/// WGSL and MSL output give an item the same name.
#[derive(Clone, Debug)]
pub struct ModuleNames {
    /// Struct type names (predeclared `__...` result types keep their naga name).
    pub structs: std::collections::HashMap<crate::ir::TypeId, String>,
    /// Constant names by index.
    pub constants: Vec<String>,
    /// Global names by index.
    pub globals: Vec<String>,
    /// Function names by index (entry-point functions carry the entry name).
    pub functions: Vec<String>,
    /// The namer after every module-level name was taken; function bodies clone it.
    pub namer: Namer,
}

impl ModuleNames {
    /// Decides the names of `m`'s items.
    pub fn new(m: &crate::ir::Module) -> Self {
        let mut namer = Namer::new();
        let mut structs = std::collections::HashMap::new();
        for (id, ty) in m.types.iter() {
            if let crate::ir::Type::Struct { name, .. } = ty {
                let n = if name.starts_with("__") { name.clone() } else { namer.name(name) };
                structs.insert(id, n);
            }
        }
        let constants = m.constants.iter().map(|c| namer.name(&c.name)).collect();
        let globals = m.globals.iter().map(|g| namer.name(&g.name)).collect();
        let functions = m.functions.iter().map(|f| namer.name(&f.name)).collect();
        ModuleNames { structs, constants, globals, functions, namer }
    }

    /// The name of struct type `t`.
    pub fn struct_name(&self, t: crate::ir::TypeId) -> String {
        self.structs.get(&t).cloned().unwrap_or_else(|| format!("_struct{}", t.0))
    }
}
