//! The instruction set the precise math library is written against.

/// A comparison of [`Ops::fcmp`] (floats) or [`Ops::icmp`] (signed 32-bit integers).
///
/// Float comparisons are ordered (false when an operand is NaN) except [`Cmp::Neu`] and
/// [`Cmp::Nan`], as PTX's `setp.eq/ne/lt/le/gt/ge/neu/nan.f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=` (ordered: false with a NaN)
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `!=` or unordered (floats only)
    Neu,
    /// Either operand is NaN (floats only)
    Nan,
}

impl Cmp {
    /// The PTX comparison suffix (`setp.<suffix>.f32`).
    pub fn ptx(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
            Cmp::Neu => "neu",
            Cmp::Nan => "nan",
        }
    }

    /// The comparison on two f32 values.
    pub fn f32(self, a: f32, b: f32) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => !a.is_nan() && !b.is_nan() && a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Neu => a != b,
            Cmp::Nan => a.is_nan() || b.is_nan(),
        }
    }

    /// The comparison on two signed 32-bit integers (`Neu` is `!=`, `Nan` is false).
    pub fn i32(self, a: i32, b: i32) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne | Cmp::Neu => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Nan => false,
        }
    }
}

/// The operations the precise math library is built from: one method per PTX instruction it
/// uses, all of them exactly specified by IEEE 754 or the PTX ISA (round-to-nearest-even
/// `add/sub/mul/fma/div/sqrt.rn.f32`, conversions, integer and bit operations, `selp`), except
/// [`Ops::rcp_approx`] and [`Ops::rsqrt_approx`], whose every use is refined to a result that
/// does not depend on the approximation ([`super::recip`], [`super::sqrt`]). So an implementation that executes these operations
/// exactly (the [`super::Native`] evaluator, the PTX emulator) computes the same bits as the
/// GPU.
///
/// Two implementations exist: [`super::Native`] evaluates on the CPU (used by the accuracy
/// tests, which can sweep every f32 input), and the PTX code generator emits one instruction
/// per call. Writing each function once against this trait is what makes the CPU sweep a proof
/// about the emitted PTX.
///
/// `F` is an f32 value, `I` a 32-bit integer (signed where it matters), `P` a predicate, `L` a
/// 64-bit integer and `D` an f64 value (only the Payne-Hanek reduction uses the last two).
pub trait Ops {
    /// An f32 value.
    type F: Copy;
    /// A 32-bit integer value.
    type I: Copy;
    /// A predicate.
    type P: Copy;
    /// A 64-bit integer value.
    type L: Copy;
    /// An f64 value.
    type D: Copy;

    /// An f32 constant.
    fn cf(&mut self, v: f32) -> Self::F;
    /// A 32-bit integer constant.
    fn ci(&mut self, v: u32) -> Self::I;

    /// `add.rn.f32`
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `sub.rn.f32`
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `mul.rn.f32`
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `fma.rn.f32`: `a * b + c` rounded once.
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// `div.rn.f32`
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `sqrt.rn.f32`
    fn sqrt(&mut self, a: Self::F) -> Self::F;
    /// `rcp.approx.ftz.f32`: `1/a` within 1 ulp (the PTX ISA's bound), subnormal inputs and
    /// results flushed to zero of the same sign. The one approximate operation: the library
    /// only uses it through [`super::recip`], whose results are the same for every value the
    /// bound allows, so an implementation may return any of them ([`super::Native`] returns
    /// the correctly rounded one).
    fn rcp_approx(&mut self, a: Self::F) -> Self::F;
    /// `rsqrt.approx.ftz.f32`: `1/sqrt(a)` within 2^-22.9 relative (the PTX ISA's bound),
    /// subnormals flushed. Used only through [`super::sqrt`], whose result is the same for
    /// every value the bound allows.
    fn rsqrt_approx(&mut self, a: Self::F) -> Self::F;
    /// `neg.f32`
    fn neg(&mut self, a: Self::F) -> Self::F;
    /// `abs.f32`
    fn abs(&mut self, a: Self::F) -> Self::F;
    /// `copysign.f32`: `|mag|` with the sign bit of `sign`.
    fn copysign(&mut self, mag: Self::F, sign: Self::F) -> Self::F;
    /// `cvt.rni.f32.f32`: round to the nearest integer, ties to even.
    fn rint(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rzi.f32.f32`: round toward zero.
    fn trunc(&mut self, a: Self::F) -> Self::F;
    /// `cvt.rni.s32.f32`: nearest integer, saturating, NaN gives 0.
    fn f2i(&mut self, a: Self::F) -> Self::I;
    /// `cvt.rn.f32.s32`
    fn i2f(&mut self, a: Self::I) -> Self::F;
    /// The bits of an f32 (`mov.b32`).
    fn bits(&mut self, a: Self::F) -> Self::I;
    /// The f32 with these bits (`mov.b32`).
    fn float(&mut self, a: Self::I) -> Self::F;

    /// `add.s32` (wrapping)
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `sub.s32` (wrapping)
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `and.b32`
    fn and(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `or.b32`
    fn or(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `xor.b32`
    fn xor(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `shl.b32` by a constant (below 32).
    fn shl(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shr.u32` by a constant (below 32).
    fn shr_u(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `shr.s32` by a constant (below 32).
    fn shr_s(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `min.s32`
    fn imin(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `max.s32`
    fn imax(&mut self, a: Self::I, b: Self::I) -> Self::I;

    /// `setp.<c>.f32`
    fn fcmp(&mut self, c: Cmp, a: Self::F, b: Self::F) -> Self::P;
    /// `setp.<c>.s32`
    fn icmp(&mut self, c: Cmp, a: Self::I, b: Self::I) -> Self::P;
    /// `selp.f32`: `p ? a : b`.
    fn fsel(&mut self, p: Self::P, a: Self::F, b: Self::F) -> Self::F;
    /// `selp.b32`: `p ? a : b`.
    fn isel(&mut self, p: Self::P, a: Self::I, b: Self::I) -> Self::I;
    /// `and.pred`
    fn pand(&mut self, a: Self::P, b: Self::P) -> Self::P;
    /// `or.pred`
    fn por(&mut self, a: Self::P, b: Self::P) -> Self::P;
    /// `xor.pred`
    fn pxor(&mut self, a: Self::P, b: Self::P) -> Self::P;
    /// `not.pred`
    fn pnot(&mut self, a: Self::P) -> Self::P;

    /// `mad.wide.u32`: `a * b + c` with a 64-bit result (`c` zero-extended).
    fn mad_wide(&mut self, a: Self::I, b: Self::I, c: Self::I) -> Self::L;
    /// The low 32 bits of a 64-bit value.
    fn lo(&mut self, a: Self::L) -> Self::I;
    /// The high 32 bits of a 64-bit value.
    fn hi(&mut self, a: Self::L) -> Self::I;
    /// `mov.b64 d, {lo, hi}`
    fn pack(&mut self, lo: Self::I, hi: Self::I) -> Self::L;
    /// `shr.b64` by a 32-bit amount (0..=63).
    fn lshr(&mut self, a: Self::L, n: Self::I) -> Self::L;
    /// `shl.b64` by a constant (below 64).
    fn lshl(&mut self, a: Self::L, n: u32) -> Self::L;
    /// `cvt.rn.f64.s64`
    fn l2d(&mut self, a: Self::L) -> Self::D;
    /// `mul.rn.f64` by a constant.
    fn dmul(&mut self, a: Self::D, k: f64) -> Self::D;
    /// `cvt.rn.f32.f64`
    fn d2f(&mut self, a: Self::D) -> Self::F;

    /// `p ? then_() : else_()` with real control flow: only one side executes (a branch in
    /// PTX), which keeps rare slow paths off the common path.
    fn branch<const N: usize>(
        &mut self,
        p: Self::P,
        then_: impl FnOnce(&mut Self) -> [Self::F; N],
        else_: impl FnOnce(&mut Self) -> [Self::F; N],
    ) -> [Self::F; N];
}
