//! The precise f32 math library PTX uses by default (docs/ptx.md, `docs/math.md`).
//!
//! Every function is written once against [`Ops`], an instruction set of exactly specified
//! PTX operations (`.rn` arithmetic, conversions, integer and bit operations, `selp`, one
//! branch) plus `rcp.approx` and `rsqrt.approx`, which are only used through [`recip`]'s and
//! [`sqrt`]'s refinements, whose results are the same for every value the instructions'
//! bounds allow: the code generator emits it
//! inline as PTX, and [`Native`] evaluates the very same sequence on the CPU. So the CPU result
//! is the GPU's bit for bit (NaN payloads aside), the accuracy tests can sweep the whole f32
//! range natively and the PTX emulator confirms, on a sample, that the emitted PTX computes the
//! same bits.
//!
//! Design rules, per function (details in each module):
//! * reduce the argument exactly or in extended precision (Cody-Waite with exact first steps,
//!   Payne-Hanek with 192 bits of 2/pi for large trigonometric arguments, double-f32 for the
//!   logarithm inside `pow`);
//! * approximate on the reduced interval with minimax polynomials whose coefficients come from
//!   `tools/minimax.py` ([`coeffs`]);
//! * apply exponents exactly (two-step scaling by powers of two, so subnormal results round
//!   once) and handle NaN, infinities, zeros and signs as C99 Annex F does.
//!
//! The stated bounds ([`BOUNDS`]) are checked by `verify/tests/math_accuracy.rs` and listed in
//! `docs/math.md` next to CUDA's documented bounds.

pub mod accuracy;
pub(crate) mod coeffs;
mod explog;
pub mod f64;
mod hyper;
mod inverse;
mod misc;
mod native;
mod ops;
mod recip;
mod trig;

pub use native::Native;
pub use ops::{Cmp, Ops};
pub(crate) use recip::{quotient, quotient_with, recip, sqrt};

use dianran_frontend::ir::MathFunction as M;

/// 1.5 * 2^23. For `|v| < 2^22`, `t = RN(v + ROUND_MAGIC)` is `v` rounded to the nearest
/// integer `j` (ties to even) plus `ROUND_MAGIC`, exactly: `t - ROUND_MAGIC` is `j` as an f32
/// and the bits of `t` are `0x4B40_0000 + j`, so the integer needs no conversion (`exp`'s
/// scale and the trigonometric functions' quadrant read them).
pub(crate) const ROUND_MAGIC: f32 = 12_582_912.0;

/// `c0 + x (c1 + x (c2 + ...))` with fma steps.
pub(crate) fn horner<O: Ops>(o: &mut O, x: O::F, c: &[f32]) -> O::F {
    let Some((&last, rest)) = c.split_last() else {
        return o.cf(0.0);
    };
    let mut p = o.cf(last);
    for &k in rest.iter().rev() {
        let kk = o.cf(k);
        p = o.fma(p, x, kk);
    }
    p
}

/// `x + x^3 P(x^2)` for odd functions (`c` holds P's coefficients).
pub(crate) fn odd_poly<O: Ops>(o: &mut O, x: O::F, c: &[f32]) -> O::F {
    let s = o.mul(x, x);
    let p = horner(o, s, c);
    let xs = o.mul(x, s);
    o.fma(xs, p, x)
}

/// `min(x, hi)` with NaN kept (a select on an ordered comparison, not `min`).
pub(crate) fn keep_nan_cap<O: Ops>(o: &mut O, x: O::F, hi: f32) -> O::F {
    let h = o.cf(hi);
    let big = o.fcmp(Cmp::Gt, x, h);
    o.fsel(big, h, x)
}

/// `x` clamped to [lo, hi] with NaN kept (selects on ordered comparisons, not `min`/`max`,
/// which would drop the NaN).
pub(crate) fn keep_nan_clamp<O: Ops>(o: &mut O, x: O::F, lo: f32, hi: f32) -> O::F {
    let x = keep_nan_cap(o, x, hi);
    let l = o.cf(lo);
    let small = o.fcmp(Cmp::Lt, x, l);
    o.fsel(small, l, x)
}

/// The functions [`unary`] and [`binary`] build (f32 in, one f32 out).
pub const FUNCTIONS: [M; 19] = [
    M::Sin,
    M::Cos,
    M::Tan,
    M::Exp,
    M::Exp2,
    M::Log,
    M::Log2,
    M::Pow,
    M::Sinh,
    M::Cosh,
    M::Tanh,
    M::Asin,
    M::Acos,
    M::Atan,
    M::Atan2,
    M::Asinh,
    M::Acosh,
    M::Atanh,
    M::InverseSqrt,
];

/// Builds `fun(x)` for a one-argument function of [`FUNCTIONS`]; `None` for any other.
pub fn unary<O: Ops>(o: &mut O, fun: M, x: O::F) -> Option<O::F> {
    Some(match fun {
        M::Sin => trig::trig(o, x, trig::Trig::Sin),
        M::Cos => trig::trig(o, x, trig::Trig::Cos),
        M::Tan => trig::trig(o, x, trig::Trig::Tan),
        M::Exp => explog::exp(o, x),
        M::Exp2 => explog::exp2(o, x),
        M::Log => explog::log(o, x),
        M::Log2 => explog::log2(o, x),
        M::Sinh => hyper::sinh(o, x),
        M::Cosh => hyper::cosh(o, x),
        M::Tanh => hyper::tanh(o, x),
        M::Asin => inverse::asin(o, x),
        M::Acos => inverse::acos(o, x),
        M::Atan => inverse::atan(o, x),
        M::Asinh => hyper::asinh(o, x),
        M::Acosh => hyper::acosh(o, x),
        M::Atanh => hyper::atanh(o, x),
        M::InverseSqrt => misc::rsqrt(o, x),
        _ => return None,
    })
}

/// Builds `fun(a, b)` for `pow(x, y)` and `atan2(y, x)` (WGSL's argument order); `None` for
/// any other function.
pub fn binary<O: Ops>(o: &mut O, fun: M, a: O::F, b: O::F) -> Option<O::F> {
    Some(match fun {
        M::Pow => explog::pow(o, a, b),
        M::Atan2 => inverse::atan2(o, a, b),
        _ => return None,
    })
}

/// `sqrt(x)`, correctly rounded over the whole range, from the refined `rsqrt.approx`
/// ([`misc::sqrt_any`]).
pub fn sqrt_any<O: Ops>(o: &mut O, x: O::F) -> O::F {
    misc::sqrt_any(o, x)
}

/// `ldexp(x, n)`: `x * 2^n` rounded once.
pub fn ldexp<O: Ops>(o: &mut O, x: O::F, n: O::I) -> O::F {
    misc::ldexp(o, x, n)
}

/// `frexp(x)`: `(fract, exp)`.
pub fn frexp<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::I) {
    misc::frexp(o, x)
}

/// `modf(x)`: `(fract, whole)`.
pub fn modf<O: Ops>(o: &mut O, x: O::F) -> (O::F, O::F) {
    misc::modf(o, x)
}

/// Evaluates a function of [`FUNCTIONS`] on the CPU with exactly the emitted PTX's
/// arithmetic (`args`: one value, or two for `pow`/`atan2`).
pub fn eval(fun: M, args: &[f32]) -> Option<f32> {
    let mut o = Native;
    match args {
        [x] => unary(&mut o, fun, *x),
        [a, b] => binary(&mut o, fun, *a, *b),
        _ => None,
    }
}

/// A function's stated accuracy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The WGSL function.
    pub fun: M,
    /// The stated maximum error in f32 ulps over the whole f32 range (the accuracy test fails
    /// above it).
    pub ulp: f32,
    /// CUDA's documented maximum ulp error for the float function (CUDA C++ Programming
    /// Guide, "Mathematical Functions", single precision table).
    pub cuda: f32,
}

/// The stated bound of every precise function, with CUDA's documented bound beside it.
pub const BOUNDS: [Bound; 19] = [
    Bound { fun: M::Sin, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Cos, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Tan, ulp: 4.0, cuda: 4.0 },
    Bound { fun: M::Exp, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Exp2, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Log, ulp: 1.0, cuda: 1.0 },
    Bound { fun: M::Log2, ulp: 1.0, cuda: 1.0 },
    Bound { fun: M::Pow, ulp: 4.0, cuda: 4.0 },
    Bound { fun: M::Sinh, ulp: 3.0, cuda: 3.0 },
    Bound { fun: M::Cosh, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Tanh, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Asin, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Acos, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Atan, ulp: 2.0, cuda: 2.0 },
    Bound { fun: M::Atan2, ulp: 3.0, cuda: 3.0 },
    Bound { fun: M::Asinh, ulp: 3.0, cuda: 3.0 },
    Bound { fun: M::Acosh, ulp: 4.0, cuda: 4.0 },
    Bound { fun: M::Atanh, ulp: 3.0, cuda: 3.0 },
    Bound { fun: M::InverseSqrt, ulp: 2.0, cuda: 2.0 },
];

/// The stated bound of `fun`, if it is one of [`FUNCTIONS`].
pub fn bound(fun: M) -> Option<Bound> {
    BOUNDS.iter().copied().find(|b| b.fun == fun)
}

#[cfg(test)]
mod tests;
