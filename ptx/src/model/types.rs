//! Scalar types, state spaces, registers and special registers.

use std::fmt;

/// The four register files docs/ptx.md allows: `%p` (.pred), `%h` (.b16), `%r` (.b32), `%rd` (.b64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegKind {
    /// `%p`, declared `.reg .pred`.
    Pred,
    /// `%h`, declared `.reg .b16` (f16 values, 16-bit integers).
    B16,
    /// `%r`, declared `.reg .b32` (f32, i32, u32, packed f16x2).
    B32,
    /// `%rd`, declared `.reg .b64` (pointers, 64-bit values).
    B64,
}

impl RegKind {
    /// Every kind, in declaration order.
    pub const ALL: [RegKind; 4] = [RegKind::Pred, RegKind::B16, RegKind::B32, RegKind::B64];

    /// The register name prefix without `%`: `p`, `h`, `r`, `rd`.
    pub fn prefix(self) -> &'static str {
        match self {
            RegKind::Pred => "p",
            RegKind::B16 => "h",
            RegKind::B32 => "r",
            RegKind::B64 => "rd",
        }
    }

    /// The type used in the `.reg` declaration.
    pub fn decl_type(self) -> Type {
        match self {
            RegKind::Pred => Type::Pred,
            RegKind::B16 => Type::B16,
            RegKind::B32 => Type::B32,
            RegKind::B64 => Type::B64,
        }
    }

    /// Position in [`RegKind::ALL`].
    pub fn index(self) -> usize {
        match self {
            RegKind::Pred => 0,
            RegKind::B16 => 1,
            RegKind::B32 => 2,
            RegKind::B64 => 3,
        }
    }

    /// The register file holding values of `ty` (`None` for 8-bit types, which need no register).
    pub fn for_type(ty: Type) -> Option<RegKind> {
        match ty.bits() {
            _ if ty == Type::Pred => Some(RegKind::Pred),
            16 => Some(RegKind::B16),
            32 => Some(RegKind::B32),
            64 => Some(RegKind::B64),
            _ => None,
        }
    }
}

/// A numbered virtual register such as `%r7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// Which register file.
    pub kind: RegKind,
    /// The number after the prefix.
    pub num: u32,
}

impl Reg {
    /// `%p<num>`.
    pub fn pred(num: u32) -> Reg {
        Reg { kind: RegKind::Pred, num }
    }
    /// `%h<num>`.
    pub fn b16(num: u32) -> Reg {
        Reg { kind: RegKind::B16, num }
    }
    /// `%r<num>`.
    pub fn b32(num: u32) -> Reg {
        Reg { kind: RegKind::B32, num }
    }
    /// `%rd<num>`.
    pub fn b64(num: u32) -> Reg {
        Reg { kind: RegKind::B64, num }
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.kind.prefix(), self.num)
    }
}

/// Hands out fresh registers, numbered from 1 in each file as NVRTC does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegPool {
    next: [u32; 4],
}

impl Default for RegPool {
    fn default() -> Self {
        RegPool { next: [1; 4] }
    }
}

impl RegPool {
    /// A pool whose first register of each kind is number 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh register of `kind`.
    pub fn fresh(&mut self, kind: RegKind) -> Reg {
        let slot = &mut self.next[kind.index()];
        let num = *slot;
        *slot = slot.saturating_add(1);
        Reg { kind, num }
    }

    /// How many registers of `kind` were handed out.
    pub fn count(&self, kind: RegKind) -> u32 {
        self.next[kind.index()] - 1
    }
}

/// PTX fundamental types, as written after a dot (`.u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Type {
    Pred,
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    /// TensorFloat-32 (`cvt.rna.tf32.f32` results, `mma` operands): an f32 bit pattern
    /// with the low 13 mantissa bits zero.
    Tf32,
    F32,
    F64,
}

impl Type {
    /// Every type, for tables and tests.
    pub const ALL: [Type; 20] = [
        Type::Pred,
        Type::B8,
        Type::B16,
        Type::B32,
        Type::B64,
        Type::U8,
        Type::U16,
        Type::U32,
        Type::U64,
        Type::S8,
        Type::S16,
        Type::S32,
        Type::S64,
        Type::F16,
        Type::F16x2,
        Type::Bf16,
        Type::Bf16x2,
        Type::Tf32,
        Type::F32,
        Type::F64,
    ];

    /// The name without the dot.
    pub fn name(self) -> &'static str {
        match self {
            Type::Pred => "pred",
            Type::B8 => "b8",
            Type::B16 => "b16",
            Type::B32 => "b32",
            Type::B64 => "b64",
            Type::U8 => "u8",
            Type::U16 => "u16",
            Type::U32 => "u32",
            Type::U64 => "u64",
            Type::S8 => "s8",
            Type::S16 => "s16",
            Type::S32 => "s32",
            Type::S64 => "s64",
            Type::F16 => "f16",
            Type::F16x2 => "f16x2",
            Type::Bf16 => "bf16",
            Type::Bf16x2 => "bf16x2",
            Type::Tf32 => "tf32",
            Type::F32 => "f32",
            Type::F64 => "f64",
        }
    }

    /// Parses a name without the dot.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.name() == s)
    }

    /// Width in bits (1 for `.pred`).
    pub fn bits(self) -> u32 {
        match self {
            Type::Pred => 1,
            Type::B8 | Type::U8 | Type::S8 => 8,
            Type::B16 | Type::U16 | Type::S16 | Type::F16 | Type::Bf16 => 16,
            Type::B32
            | Type::U32
            | Type::S32
            | Type::F32
            | Type::F16x2
            | Type::Bf16x2
            | Type::Tf32 => 32,
            Type::B64 | Type::U64 | Type::S64 | Type::F64 => 64,
        }
    }

    /// Width in bytes (0 for `.pred`).
    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }

    /// Floating-point types (scalar or packed).
    pub fn is_float(self) -> bool {
        matches!(self, Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64)
    }

    /// Signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// PTX state spaces. `Reg` and `Generic` are never written as a modifier: a generic access
/// is a plain `ld`/`st`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// Registers (`.reg`).
    Reg,
    /// Kernel parameters (`.param`).
    Param,
    /// Global memory (`.global`).
    Global,
    /// CTA-shared memory (`.shared`).
    Shared,
    /// Thread-local memory (`.local`).
    Local,
    /// Constant bank (`.const`).
    Const,
    /// The generic address space (no modifier).
    Generic,
}

impl StateSpace {
    /// The name without the dot (`""` for generic).
    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Param => "param",
            StateSpace::Global => "global",
            StateSpace::Shared => "shared",
            StateSpace::Local => "local",
            StateSpace::Const => "const",
            StateSpace::Generic => "",
        }
    }

    /// Parses a name without the dot (`shared::cta` counts as `shared`).
    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            "reg" => StateSpace::Reg,
            "param" | "param::entry" => StateSpace::Param,
            "global" => StateSpace::Global,
            "shared" | "shared::cta" => StateSpace::Shared,
            "local" => StateSpace::Local,
            "const" => StateSpace::Const,
            _ => return None,
        })
    }
}

/// A dimension of a 3-component special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }

    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
}

/// Read-only special registers (`%tid.x`, `%laneid`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.d`: thread index in the CTA.
    Tid(Dim),
    /// `%ntid.d`: CTA size.
    Ntid(Dim),
    /// `%ctaid.d`: CTA index in the grid.
    Ctaid(Dim),
    /// `%nctaid.d`: grid size in CTAs.
    Nctaid(Dim),
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%lanemask_eq`.
    LanemaskEq,
    /// `%lanemask_lt`.
    LanemaskLt,
    /// `%lanemask_le`.
    LanemaskLe,
    /// `%lanemask_gt`.
    LanemaskGt,
    /// `%lanemask_ge`.
    LanemaskGe,
    /// `%clock`.
    Clock,
    /// `%clock64`.
    Clock64,
    /// `%globaltimer`.
    Globaltimer,
}

impl SpecialReg {
    /// The register type (`.u32` or `.u64`).
    pub fn ty(self) -> Type {
        match self {
            SpecialReg::Clock64 | SpecialReg::Globaltimer => Type::U64,
            _ => Type::U32,
        }
    }

    /// Parses the text after `%` (`tid.x`, `laneid`, ...).
    pub fn from_name(s: &str) -> Option<SpecialReg> {
        let dim = |d: &str| match d {
            "x" => Some(Dim::X),
            "y" => Some(Dim::Y),
            "z" => Some(Dim::Z),
            _ => None,
        };
        if let Some((base, d)) = s.split_once('.') {
            let d = dim(d)?;
            return match base {
                "tid" => Some(SpecialReg::Tid(d)),
                "ntid" => Some(SpecialReg::Ntid(d)),
                "ctaid" => Some(SpecialReg::Ctaid(d)),
                "nctaid" => Some(SpecialReg::Nctaid(d)),
                _ => None,
            };
        }
        Some(match s {
            "laneid" => SpecialReg::Laneid,
            "warpid" => SpecialReg::Warpid,
            "nwarpid" => SpecialReg::Nwarpid,
            "smid" => SpecialReg::Smid,
            "lanemask_eq" => SpecialReg::LanemaskEq,
            "lanemask_lt" => SpecialReg::LanemaskLt,
            "lanemask_le" => SpecialReg::LanemaskLe,
            "lanemask_gt" => SpecialReg::LanemaskGt,
            "lanemask_ge" => SpecialReg::LanemaskGe,
            "clock" => SpecialReg::Clock,
            "clock64" => SpecialReg::Clock64,
            "globaltimer" => SpecialReg::Globaltimer,
            _ => return None,
        })
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let simple = match self {
            SpecialReg::Tid(d) => return write!(f, "%tid.{}", d.name()),
            SpecialReg::Ntid(d) => return write!(f, "%ntid.{}", d.name()),
            SpecialReg::Ctaid(d) => return write!(f, "%ctaid.{}", d.name()),
            SpecialReg::Nctaid(d) => return write!(f, "%nctaid.{}", d.name()),
            SpecialReg::Laneid => "laneid",
            SpecialReg::Warpid => "warpid",
            SpecialReg::Nwarpid => "nwarpid",
            SpecialReg::Smid => "smid",
            SpecialReg::LanemaskEq => "lanemask_eq",
            SpecialReg::LanemaskLt => "lanemask_lt",
            SpecialReg::LanemaskLe => "lanemask_le",
            SpecialReg::LanemaskGt => "lanemask_gt",
            SpecialReg::LanemaskGe => "lanemask_ge",
            SpecialReg::Clock => "clock",
            SpecialReg::Clock64 => "clock64",
            SpecialReg::Globaltimer => "globaltimer",
        };
        write!(f, "%{simple}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_round_trip() {
        for t in Type::ALL {
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        assert_eq!(Type::F16x2.bits(), 32);
        assert_eq!(Type::Pred.bytes(), 0);
    }

    #[test]
    fn reg_display_and_pool() {
        assert_eq!(Reg::b64(3).to_string(), "%rd3");
        assert_eq!(Reg::pred(0).to_string(), "%p0");
        let mut pool = RegPool::new();
        assert_eq!(pool.fresh(RegKind::B32), Reg::b32(1));
        assert_eq!(pool.fresh(RegKind::B32), Reg::b32(2));
        assert_eq!(pool.fresh(RegKind::B16), Reg::b16(1));
        assert_eq!(pool.count(RegKind::B32), 2);
    }

    #[test]
    fn special_names() {
        assert_eq!(SpecialReg::from_name("tid.y"), Some(SpecialReg::Tid(Dim::Y)));
        assert_eq!(SpecialReg::Nctaid(Dim::Z).to_string(), "%nctaid.z");
        assert_eq!(SpecialReg::Laneid.to_string(), "%laneid");
        assert_eq!(SpecialReg::from_name("tid.w"), None);
    }
}

/// The spelling of an f32 immediate by its bits: `0f` and eight uppercase hex digits, most
/// significant first (`0f3F800000` is 1.0).
pub fn f32_bits_text(bits: u32) -> String {
    format!("0f{}", hex::encode_upper(bits.to_be_bytes()))
}

/// The spelling of an f64 immediate by its bits: `0d` and sixteen uppercase hex digits.
pub fn f64_bits_text(bits: u64) -> String {
    format!("0d{}", hex::encode_upper(bits.to_be_bytes()))
}

/// The bits of an immediate's hex digits after `0f` (8 digits) or `0d` (16 digits), either
/// case; `None` for any other length or a non-hex digit.
pub fn float_bits_from_hex(digits: &str) -> Option<u64> {
    let mut b = [0u8; 8];
    let n = digits.len() / 2;
    if !matches!(digits.len(), 8 | 16) {
        return None;
    }
    hex::decode_to_slice(digits, &mut b[8 - n..]).ok()?;
    Some(u64::from_be_bytes(b))
}

#[cfg(test)]
mod bits_tests {
    use super::*;

    #[test]
    fn float_immediates_round_trip() {
        assert_eq!(f32_bits_text(1.0f32.to_bits()), "0f3F800000");
        assert_eq!(f32_bits_text(0x7F), "0f0000007F");
        assert_eq!(f64_bits_text(1.0f64.to_bits()), "0d3FF0000000000000");
        assert_eq!(float_bits_from_hex("3f800000"), Some(0x3F80_0000));
        assert_eq!(float_bits_from_hex("3FF0000000000000"), Some(1.0f64.to_bits()));
        assert_eq!(float_bits_from_hex("3F80000"), None);
        assert_eq!(float_bits_from_hex("3F80000G"), None);
    }
}
