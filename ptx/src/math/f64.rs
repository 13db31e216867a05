//! The precise f64 math library: `exp`, `exp2`, `log`, `log2`, `pow` and `inverseSqrt` here;
//! `sin`, `cos`, `tan` in `f64/trig.rs` (with `f64/payne_hanek.rs` for huge arguments),
//! `sinh`, `cosh`, `tanh` in `f64/hyper.rs`, `asin`, `acos`, `atan`, `atan2`, `asinh`,
//! `acosh`, `atanh` in `f64/inverse.rs`, on the double-f64 helpers of `f64/dd.rs`
//! (`docs/math.md`, "f64 functions").
//!
//! PTX has no f64 transcendental instruction (only `add/mul/fma/div/sqrt.rn`, conversions and
//! the approximate `rcp`/`rsqrt`), so every function here is a range reduction and a
//! polynomial, like CUDA's libdevice. As for f32 ([`super::Ops`]), each function is written
//! once against [`Ops64`], an instruction set of exactly specified PTX operations: the code
//! generator emits it as PTX and [`Native64`] evaluates the same sequence on the CPU, bit for
//! bit (NaN payloads aside), so the CPU sweeps in the tests speak for the emitted PTX, and
//! `verify/tests/math64_accuracy.rs` confirms on the PTX emulator that the PTX computes those
//! bits.
//!
//! Polynomials are truncated Taylor series with enough terms that the truncation error is far
//! below an f64 ulp on the reduced interval; the reductions keep the rounding error of the
//! reduced argument in a second f64 (double-f64), so the results are within about one ulp.

use super::ops::Cmp;
use dianran_frontend::ir::MathFunction as M;

/// The exactly specified PTX operations the f64 library is built from. `D` is an f64 value,
/// `L` a 64-bit integer (both live in `%rd` registers in PTX, so [`Ops64::bits`] and
/// [`Ops64::float`] emit nothing), `P` a predicate.
pub trait Ops64 {
    /// An f64 value.
    type D: Copy;
    /// A 64-bit integer.
    type L: Copy;
    /// A predicate.
    type P: Copy;

    /// An f64 constant.
    fn k(&mut self, v: f64) -> Self::D;
    /// A 64-bit integer constant.
    fn kl(&mut self, v: u64) -> Self::L;
    /// `add.rn.f64`
    fn add(&mut self, a: Self::D, b: Self::D) -> Self::D;
    /// `sub.rn.f64`
    fn sub(&mut self, a: Self::D, b: Self::D) -> Self::D;
    /// `mul.rn.f64`
    fn mul(&mut self, a: Self::D, b: Self::D) -> Self::D;
    /// `fma.rn.f64`: `a * b + c` rounded once.
    fn fma(&mut self, a: Self::D, b: Self::D, c: Self::D) -> Self::D;
    /// `div.rn.f64`
    fn div(&mut self, a: Self::D, b: Self::D) -> Self::D;
    /// `sqrt.rn.f64`
    fn sqrt(&mut self, a: Self::D) -> Self::D;
    /// `cvt.rni.f64.f64`: nearest integer, ties to even.
    fn rint(&mut self, a: Self::D) -> Self::D;
    /// `cvt.rni.s64.f64` (saturating, NaN gives 0).
    fn d2l(&mut self, a: Self::D) -> Self::L;
    /// `cvt.rn.f64.s64`
    fn l2d(&mut self, a: Self::L) -> Self::D;
    /// The bits of an f64.
    fn bits(&mut self, a: Self::D) -> Self::L;
    /// The f64 with these bits.
    fn float(&mut self, a: Self::L) -> Self::D;
    /// `add.s64` (wrapping)
    fn ladd(&mut self, a: Self::L, b: Self::L) -> Self::L;
    /// `sub.s64` (wrapping)
    fn lsub(&mut self, a: Self::L, b: Self::L) -> Self::L;
    /// `and.b64`
    fn land(&mut self, a: Self::L, b: Self::L) -> Self::L;
    /// `shl.b64` by a constant below 64.
    fn lshl(&mut self, a: Self::L, n: u32) -> Self::L;
    /// `shr.s64` by a constant below 64.
    fn lshr_s(&mut self, a: Self::L, n: u32) -> Self::L;
    /// `setp.<c>.f64`
    fn cmp(&mut self, c: Cmp, a: Self::D, b: Self::D) -> Self::P;
    /// `or.pred`
    fn por(&mut self, a: Self::P, b: Self::P) -> Self::P;
    /// `selp.f64`: `p ? a : b`.
    fn sel(&mut self, p: Self::P, a: Self::D, b: Self::D) -> Self::D;
    /// `p ? then_() : else_()` with real control flow: only one side executes (a branch in
    /// PTX), which keeps rare slow paths off the common path.
    fn branch<const N: usize>(
        &mut self,
        p: Self::P,
        then_: impl FnOnce(&mut Self) -> [Self::D; N],
        else_: impl FnOnce(&mut Self) -> [Self::D; N],
    ) -> [Self::D; N];
}

/// The CPU evaluation of [`Ops64`], with exactly the PTX instructions' arithmetic.
#[derive(Clone, Copy, Debug, Default)]
pub struct Native64;

impl Ops64 for Native64 {
    type D = f64;
    type L = u64;
    type P = bool;

    fn k(&mut self, v: f64) -> f64 {
        v
    }
    fn kl(&mut self, v: u64) -> u64 {
        v
    }
    fn add(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn fma(&mut self, a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn div(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn sqrt(&mut self, a: f64) -> f64 {
        a.sqrt()
    }
    fn rint(&mut self, a: f64) -> f64 {
        a.round_ties_even()
    }
    fn d2l(&mut self, a: f64) -> u64 {
        // `as` saturates and maps NaN to 0, as `cvt.rni.s64.f64` does.
        a.round_ties_even() as i64 as u64
    }
    fn l2d(&mut self, a: u64) -> f64 {
        a as i64 as f64
    }
    fn bits(&mut self, a: f64) -> u64 {
        a.to_bits()
    }
    fn float(&mut self, a: u64) -> f64 {
        f64::from_bits(a)
    }
    fn ladd(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    fn lsub(&mut self, a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    fn land(&mut self, a: u64, b: u64) -> u64 {
        a & b
    }
    fn lshl(&mut self, a: u64, n: u32) -> u64 {
        a << n
    }
    fn lshr_s(&mut self, a: u64, n: u32) -> u64 {
        ((a as i64) >> n) as u64
    }
    fn cmp(&mut self, c: Cmp, a: f64, b: f64) -> bool {
        match c {
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
    fn por(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn sel(&mut self, p: bool, a: f64, b: f64) -> f64 {
        if p {
            a
        } else {
            b
        }
    }
    fn branch<const N: usize>(
        &mut self,
        p: bool,
        then_: impl FnOnce(&mut Self) -> [f64; N],
        else_: impl FnOnce(&mut Self) -> [f64; N],
    ) -> [f64; N] {
        if p {
            then_(self)
        } else {
            else_(self)
        }
    }
}

/// ln 2 with its low 21 bits zero, so `j * LN2_HI` is exact for `|j| < 2^11` (fdlibm's).
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
/// `ln 2 - LN2_HI`.
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// ln 2 rounded.
const LN2: f64 = std::f64::consts::LN_2;
/// `ln 2 - LN2`.
const LN2_TAIL: f64 = f64::from_bits(0x3C7A_BC9E_3B39_803F);
/// log2(e) rounded.
const LOG2E: f64 = std::f64::consts::LOG2_E;
/// `log2(e) - LOG2E`.
const LOG2E_TAIL: f64 = f64::from_bits(0x3C77_77D0_FFDA_0D24);
/// The bits of sqrt(1/2) rounded: the logarithms' mantissa split point.
const SQRT_HALF_BITS: u64 = 0x3FE6_A09E_667F_3BCD;

/// The functions [`unary`] and [`binary`] build.
pub const FUNCTIONS: [M; 19] = [
    M::Exp,
    M::Exp2,
    M::Log,
    M::Log2,
    M::Pow,
    M::InverseSqrt,
    M::Sin,
    M::Cos,
    M::Tan,
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
];

/// The stated maximum error in f64 ulps of each function of [`FUNCTIONS`] (checked by the
/// sweeps here and on the emulator), with CUDA's documented double-precision bound.
pub const BOUNDS: [super::Bound; 19] = [
    super::Bound { fun: M::Exp, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Exp2, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Log, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Log2, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Pow, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::InverseSqrt, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Sin, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Cos, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Tan, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Sinh, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Cosh, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Tanh, ulp: 1.0, cuda: 1.0 },
    super::Bound { fun: M::Asin, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Acos, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Atan, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Atan2, ulp: 1.0, cuda: 2.0 },
    super::Bound { fun: M::Asinh, ulp: 1.0, cuda: 3.0 },
    super::Bound { fun: M::Acosh, ulp: 1.0, cuda: 3.0 },
    super::Bound { fun: M::Atanh, ulp: 1.0, cuda: 2.0 },
];

/// Builds `fun(x)` for a one-argument function of [`FUNCTIONS`]; `None` for any other.
pub fn unary<O: Ops64>(o: &mut O, fun: M, x: O::D) -> Option<O::D> {
    Some(match fun {
        M::Exp => exp(o, x),
        M::Exp2 => exp2(o, x),
        M::Log => log(o, x, false),
        M::Log2 => log(o, x, true),
        M::InverseSqrt => rsqrt(o, x),
        M::Sin => trig::trig(o, x, trig::Trig::Sin),
        M::Cos => trig::trig(o, x, trig::Trig::Cos),
        M::Tan => trig::trig(o, x, trig::Trig::Tan),
        M::Sinh => hyper::sinh(o, x),
        M::Cosh => hyper::cosh(o, x),
        M::Tanh => hyper::tanh(o, x),
        M::Asin => inverse::asin(o, x),
        M::Acos => inverse::acos(o, x),
        M::Atan => inverse::atan(o, x),
        M::Asinh => inverse::asinh(o, x),
        M::Acosh => inverse::acosh(o, x),
        M::Atanh => inverse::atanh(o, x),
        _ => return None,
    })
}

/// Builds `pow(x, y)` or `atan2(x, y)` (WGSL's `atan2(y, x)` order: the first argument is
/// the ordinate); `None` for any other function.
pub fn binary<O: Ops64>(o: &mut O, fun: M, x: O::D, y: O::D) -> Option<O::D> {
    match fun {
        M::Pow => Some(pow(o, x, y)),
        M::Atan2 => Some(inverse::atan2(o, x, y)),
        _ => None,
    }
}

/// Evaluates a function of [`FUNCTIONS`] on the CPU with exactly the emitted PTX's arithmetic
/// (`args`: one value, or two for `pow` and `atan2`).
pub fn eval(fun: M, args: &[f64]) -> Option<f64> {
    match args {
        [x] => unary(&mut Native64, fun, *x),
        [x, y] => binary(&mut Native64, fun, *x, *y),
        _ => None,
    }
}

/// `c0 + x (c1 + x (c2 + ...))` with fma steps.
fn horner<O: Ops64>(o: &mut O, x: O::D, c: &[f64]) -> O::D {
    let Some((&last, rest)) = c.split_last() else {
        return o.k(0.0);
    };
    let mut p = o.k(last);
    for &kk in rest.iter().rev() {
        let kk = o.k(kk);
        p = o.fma(p, x, kk);
    }
    p
}

/// `x` clamped to [lo, hi] with NaN kept (selects on ordered comparisons).
fn keep_nan_clamp<O: Ops64>(o: &mut O, x: O::D, lo: f64, hi: f64) -> O::D {
    let h = o.k(hi);
    let big = o.cmp(Cmp::Gt, x, h);
    let x = o.sel(big, h, x);
    let l = o.k(lo);
    let small = o.cmp(Cmp::Lt, x, l);
    o.sel(small, l, x)
}

/// `2^n` for an integral `n` in the normal exponent range, from its bits.
fn pow2<O: Ops64>(o: &mut O, n: O::L) -> O::D {
    let bias = o.kl(1023);
    let b = o.ladd(n, bias);
    let b = o.lshl(b, 52);
    o.float(b)
}

/// `p * 2^j` for an integral `j` in [-1100, 1100], rounded once: the scale goes in two exact
/// halves so neither power of two leaves the normal range, and only the last multiplication
/// can round (into the subnormal range, or to infinity).
fn scale<O: Ops64>(o: &mut O, p: O::D, j: O::D) -> O::D {
    let n = o.d2l(j);
    let n1 = o.lshr_s(n, 1);
    let n2 = o.lsub(n, n1);
    let s1 = pow2(o, n1);
    let s2 = pow2(o, n2);
    let t = o.mul(p, s1);
    o.mul(t, s2)
}

/// `1/k!` for k = 2..=13: `e^r = 1 + r + r^2 (1/2 + r/6 + ...)`; the truncation error on
/// |r| <= 0.35 is below 0.35^14/14! < 2^-57.
const EXP_TAYLOR: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `e^(r + lo)` for |r| <= 0.35 and a tiny `lo` (the rounding error of `r`):
/// `1 + (t + lo (1 + t))` with `t = r + r^2 Q(r)`, so only the final addition rounds at 1.
fn exp_reduced<O: Ops64>(o: &mut O, r: O::D, lo: O::D) -> O::D {
    let q = horner(o, r, &EXP_TAYLOR);
    let r2 = o.mul(r, r);
    let t = o.fma(q, r2, r);
    let c = o.fma(t, lo, lo);
    let t = o.add(t, c);
    let one = o.k(1.0);
    o.add(one, t)
}

/// `e^x`: `x = j ln2 + r` (Cody-Waite: `j * LN2_HI` is exact and so is its subtraction, as in
/// fdlibm), `r`'s rounding error kept in `lo`, then the exact scale by `2^j`.
pub(crate) fn exp<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    // e^710 overflows and e^-746 is below half the smallest subnormal: the clamp keeps `j`
    // in `scale`'s range and gives inf and 0 for the infinities.
    let x = keep_nan_clamp(o, x, -746.0, 710.0);
    let (j, r, lo) = exp_reduce(o, x);
    let p = exp_reduced(o, r, lo);
    scale(o, p, j)
}

/// `x = j ln2 + r + lo` for `|x| <= 746`: `j` integral, `|r| <= 0.35`, `lo` the rounding
/// error of `r` (exp's Cody-Waite reduction).
fn exp_reduce<O: Ops64>(o: &mut O, x: O::D) -> (O::D, O::D, O::D) {
    let l2e = o.k(LOG2E);
    let t = o.mul(x, l2e);
    let j = o.rint(t);
    let zero = o.k(0.0);
    let nj = o.sub(zero, j);
    let hi = o.k(LN2_HI);
    let rh = o.fma(nj, hi, x);
    let lo_k = o.k(LN2_LO);
    let r = o.fma(nj, lo_k, rh);
    // lo = (rh - r) - j LN2_LO: the part of the exact reduced argument `r` lost.
    let d = o.sub(rh, r);
    let lo = o.fma(nj, lo_k, d);
    (j, r, lo)
}

/// `2^x`: `x = j + f` (exact, |f| <= 1/2), `f ln2` as a double-f64 `r + lo`, then `e^(r+lo)`
/// and the exact scale.
pub(crate) fn exp2<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let x = keep_nan_clamp(o, x, -1080.0, 1025.0);
    let j = o.rint(x);
    let f = o.sub(x, j);
    let ln2 = o.k(LN2);
    let r = o.mul(f, ln2);
    let zero = o.k(0.0);
    let nr = o.sub(zero, r);
    let e = o.fma(f, ln2, nr);
    let tail = o.k(LN2_TAIL);
    let lo = o.fma(f, tail, e);
    let p = exp_reduced(o, r, lo);
    scale(o, p, j)
}

/// `2/(2k+1)` for k = 1..=12: `2 atanh(s) = 2s + s R(z)`, `R(z) = z (2/3 + 2z/5 + ...)`,
/// `z = s^2 <= 0.0295`; the truncation error is below `s z^13 < 2^-67`.
const ATANH_TAYLOR: [f64; 12] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
    2.0 / 23.0,
    2.0 / 25.0,
];

/// `(s, e)` with `s = a + b` rounded and `a + b = s + e` exactly (Knuth's TwoSum).
fn two_sum<O: Ops64>(o: &mut O, a: O::D, b: O::D) -> (O::D, O::D) {
    let s = o.add(a, b);
    let bb = o.sub(s, a);
    let ab = o.sub(s, bb);
    let ea = o.sub(a, ab);
    let eb = o.sub(b, bb);
    let e = o.add(ea, eb);
    (s, e)
}

/// Splits a positive finite `x` (subnormals included) into `2^e m` with `m` in
/// [sqrt(1/2), sqrt(2)); returns `f = m - 1` (exact) and `e` as an f64.
fn log_split<O: Ops64>(o: &mut O, x: O::D) -> (O::D, O::D) {
    let min_normal = o.k(f64::MIN_POSITIVE);
    let sub = o.cmp(Cmp::Lt, x, min_normal);
    let big = o.k(18_014_398_509_481_984.0); // 2^54
    let xs = o.mul(x, big);
    let xs = o.sel(sub, xs, x);
    let ix = o.bits(xs);
    // Subtracting the bits of sqrt(1/2) makes the exponent field floor(log2(x / sqrt(1/2))).
    let c = o.kl(SQRT_HALF_BITS);
    let t = o.lsub(ix, c);
    let e = o.lshr_s(t, 52);
    let mask = o.kl(0xFFF0_0000_0000_0000);
    let em = o.land(t, mask);
    let mb = o.lsub(ix, em);
    let m = o.float(mb);
    let one = o.k(1.0);
    let f = o.sub(m, one);
    let ef = o.l2d(e);
    let adj = o.k(-54.0);
    let zero = o.k(0.0);
    let adj = o.sel(sub, adj, zero);
    let ef = o.add(ef, adj);

    (f, ef)
}

/// `log(x)` (`base2`: `log2(x)`): `x = 2^e m` with `m` in [sqrt(1/2), sqrt(2)) (subnormals
/// scaled by 2^54 first), `f = m - 1` exact, `log(1+f) = f - (f^2/2 - s (f^2/2 + R))` with
/// `s = f/(2+f)` (fdlibm's scheme) as a double-f64 `hi + lo`, then `e ln2 + log(1+f)` (or
/// `e + log2(e) log(1+f)`) summed with its rounding errors kept. NaN below zero, -inf at zero.
pub(crate) fn log<O: Ops64>(o: &mut O, x: O::D, base2: bool) -> O::D {
    let (f, ef) = log_split(o, x);
    let r = if base2 {
        log2_split(o, f, ef)
    } else {
        let (s, low) = ln_split(o, f, ef);
        o.add(s, low)
    };
    log_specials(o, x, r)
}

/// `log(1+f) = hi + lo` for `f` in [sqrt(1/2) - 1, sqrt(2) - 1]: `f - (f^2/2 - s (f^2/2 + R))`
/// with `s = f/(2+f)` (fdlibm's scheme).
fn log1p_reduced<O: Ops64>(o: &mut O, f: O::D) -> (O::D, O::D) {
    let zero = o.k(0.0);
    let two = o.k(2.0);
    let den = o.add(two, f);
    let s = o.div(f, den);
    let z = o.mul(s, s);
    let r = horner(o, z, &ATANH_TAYLOR);
    let r = o.mul(r, z);
    let half = o.k(0.5);
    let hf = o.mul(half, f);
    let hfsq = o.mul(hf, f);
    let u = o.add(hfsq, r);
    let ns = o.sub(zero, s);
    let v = o.fma(ns, u, hfsq);
    // log(1+f) = f - v = hi + lo (|v| < |f|, so the subtraction's error is exact: Fast2Sum).
    let hi = o.sub(f, v);
    let fh = o.sub(f, hi);
    let lo = o.sub(fh, v);
    (hi, lo)
}

/// `e + log2(1+f)` rounded: `e + log2(e) (hi + lo)`, the product as a double-f64.
fn log2_split<O: Ops64>(o: &mut O, f: O::D, ef: O::D) -> O::D {
    let (hi, lo) = log1p_reduced(o, f);
    let zero = o.k(0.0);
    let l2e = o.k(LOG2E);
    let ph = o.mul(hi, l2e);
    let nph = o.sub(zero, ph);
    let pe = o.fma(hi, l2e, nph);
    let l2t = o.k(LOG2E_TAIL);
    let lt = o.mul(lo, l2e);
    let pt = o.fma(hi, l2t, lt);
    let pl = o.add(pe, pt);
    let (s, err) = two_sum(o, ef, ph);
    let low = o.add(err, pl);
    o.add(s, low)
}

/// `e ln2 + log(1+f)` as an unrounded sum `s + low` (`e LN2_HI` is exact; `e LN2_LO` joins
/// the low part).
fn ln_split<O: Ops64>(o: &mut O, f: O::D, ef: O::D) -> (O::D, O::D) {
    let (hi, lo) = log1p_reduced(o, f);
    let lnh = o.k(LN2_HI);
    let a = o.mul(ef, lnh);
    let lnl = o.k(LN2_LO);
    let low = o.fma(ef, lnl, lo);
    let (s, err) = two_sum(o, a, hi);
    let low = o.add(err, low);
    (s, low)
}

/// The logarithms' special values over a finite positive argument's result `r`.
fn log_specials<O: Ops64>(o: &mut O, x: O::D, r: O::D) -> O::D {
    let zero = o.k(0.0);
    // Special values: +inf stays, zeros give -inf, negatives and NaN give NaN.
    let inf = o.k(f64::INFINITY);
    let is_inf = o.cmp(Cmp::Eq, x, inf);
    let r = o.sel(is_inf, inf, r);
    let is_zero = o.cmp(Cmp::Eq, x, zero);
    let ninf = o.k(f64::NEG_INFINITY);
    let r = o.sel(is_zero, ninf, r);
    let neg = o.cmp(Cmp::Lt, x, zero);
    let nan = o.cmp(Cmp::Nan, x, x);
    let bad = o.por(neg, nan);
    let qnan = o.k(f64::NAN);
    o.sel(bad, qnan, r)
}

/// 2/3 as a double-f64.
const TWO_THIRDS: f64 = 2.0 / 3.0;
/// `2/3 - TWO_THIRDS`.
const TWO_THIRDS_TAIL: f64 = 3.700743415417188e-17;

/// `(hi, lo)` renormalized so `hi` is `hi + lo` rounded (Fast2Sum, `|hi| >= |lo|`).
fn fast_two_sum<O: Ops64>(o: &mut O, a: O::D, b: O::D) -> (O::D, O::D) {
    let s = o.add(a, b);
    let t = o.sub(s, a);
    let e = o.sub(b, t);
    (s, e)
}

/// `(hi, lo)` with `a * b = hi + lo` exactly (fma).
fn two_prod<O: Ops64>(o: &mut O, a: O::D, b: O::D) -> (O::D, O::D) {
    let h = o.mul(a, b);
    let zero = o.k(0.0);
    let nh = o.sub(zero, h);
    let l = o.fma(a, b, nh);
    (h, l)
}

/// `log2(x)` for a positive finite `x` as a double-f64 accurate to about 2^-66 relative (what
/// `pow` needs: `y log2 x` up to 1075 must be exact to a small fraction of 2^-53).
/// `log(1+f) = 2s + (2/3) s^3 + s^5 P(s^2)`, `s = f / (2 + f)`, with `s`, `s^3` and the
/// first two terms kept as double-f64 and only the small tail in plain f64.
fn log2_dd<O: Ops64>(o: &mut O, x: O::D) -> (O::D, O::D) {
    let (f, ef) = log_split(o, x);
    let two = o.k(2.0);
    let den = o.add(two, f);
    let d2 = o.sub(den, two);
    let den_lo = o.sub(f, d2);
    let sh = o.div(f, den);
    let zero = o.k(0.0);
    let nsh = o.sub(zero, sh);
    let rem = o.fma(nsh, den, f);
    let rem = o.fma(nsh, den_lo, rem);
    let sl = o.div(rem, den);
    // z = s^2 and c = s^3 as double-f64.
    let (z, zl) = two_prod(o, sh, sh);
    let tsl = o.add(sl, sl);
    let zl = o.fma(sh, tsl, zl);
    let (c, cl) = two_prod(o, sh, z);
    let t = o.mul(sl, z);
    let cl = o.fma(sh, zl, cl);
    let cl = o.add(cl, t);
    // (2/3) s^3
    let k = o.k(TWO_THIRDS);
    let (t3, t3l) = two_prod(o, c, k);
    let kt = o.k(TWO_THIRDS_TAIL);
    let u = o.mul(cl, k);
    let u = o.fma(c, kt, u);
    let t3l = o.add(t3l, u);
    // tail: s^5 (2/5 + 2z/7 + ...)
    let p = horner(o, z, &ATANH_TAYLOR[1..]);
    let cz = o.mul(c, z);
    let tail = o.mul(cz, p);
    // L = 2 sh + t3 + (2 sl + t3l + tail)
    let s2 = o.add(sh, sh);
    let (h, l) = two_sum(o, s2, t3);
    let low = o.add(tsl, t3l);
    let low = o.add(low, tail);
    let l = o.add(l, low);
    let (h, l) = fast_two_sum(o, h, l);
    // e + log2(e) (h + l)
    let (ph, pl) = mul_dd_const(o, h, l, LOG2E, LOG2E_TAIL);
    let (gh, ge) = two_sum(o, ef, ph);
    let gl = o.add(ge, pl);
    fast_two_sum(o, gh, gl)
}

/// `(h + l) * (k + k_tail)` as a double-f64 `(hi, lo)`: `h * k` exact, plus the cross terms
/// `l * k + h * k_tail` (the `l * k_tail` term is below the result's precision).
fn mul_dd_const<O: Ops64>(o: &mut O, h: O::D, l: O::D, k: f64, k_tail: f64) -> (O::D, O::D) {
    let kc = o.k(k);
    let (hi, e) = two_prod(o, h, kc);
    let tc = o.k(k_tail);
    let u = o.mul(l, kc);
    let u = o.fma(h, tc, u);
    (hi, o.add(e, u))
}

/// `2^(zh + zl)` for a double-f64 exponent (`zh` clamped to [-1080, 1025], `zl` tiny).
fn exp2_dd<O: Ops64>(o: &mut O, zh: O::D, zl: O::D) -> O::D {
    let j = o.rint(zh);
    let f = o.sub(zh, j);
    let (fh, fl) = fast_two_sum(o, f, zl);
    let (r, lo) = mul_dd_const(o, fh, fl, LN2, LN2_TAIL);
    let p = exp_reduced(o, r, lo);
    scale(o, p, j)
}

/// `pow(x, y)` with C99 Annex F's special cases (the f32 library's rule, `docs/math.md`):
/// `2^(y log2|x|)` with `log2|x|` and the product as double-f64; a negative base takes the
/// sign of an odd integral exponent and gives NaN for a finite base and a non-integral
/// exponent; `pow(x, +-0) = pow(1, y) = 1` (even for NaN), `pow(-1, +-inf) = 1`, zeros and
/// infinities by sign and parity.
pub(crate) fn pow<O: Ops64>(o: &mut O, x: O::D, y: O::D) -> O::D {
    let zero = o.k(0.0);
    let one = o.k(1.0);
    let inf = o.k(f64::INFINITY);
    let ninf = o.k(f64::NEG_INFINITY);
    let nx = o.sub(zero, x);
    let neg = o.cmp(Cmp::Lt, x, zero);
    let ax = o.sel(neg, nx, x);
    let (gh, gl) = log2_dd(o, ax);
    // log2 of 0 and inf, where the mantissa split does not apply.
    let at_zero = o.cmp(Cmp::Eq, ax, zero);
    let gh = o.sel(at_zero, ninf, gh);
    let at_inf = o.cmp(Cmp::Eq, ax, inf);
    let gh = o.sel(at_inf, inf, gh);
    let (zh, zl) = two_prod(o, y, gh);
    let u = o.mul(y, gl);
    let zl = o.add(zl, u);
    // |x| = 1 (log2 is exactly 0): the exponent is 0 even for an infinite y.
    let unit = o.cmp(Cmp::Eq, gh, zero);
    let zh = o.sel(unit, zero, zh);
    // Beyond the range (or infinite), the low part is meaningless (possibly NaN).
    let hi = o.k(1025.0);
    let big = o.cmp(Cmp::Gt, zh, hi);
    let lo = o.k(-1080.0);
    let small = o.cmp(Cmp::Lt, zh, lo);
    let out = o.por(big, small);
    let out = o.por(out, unit);
    let zl = o.sel(out, zero, zl);
    let zh = keep_nan_clamp(o, zh, -1080.0, 1025.0);
    let r = exp2_dd(o, zh, zl);
    // Sign and NaN for a negative base.
    let yi = o.rint(y);
    let half = o.k(0.5);
    let hy = o.mul(half, y);
    let hyi = o.rint(hy);
    let non_int = o.cmp(Cmp::Neu, yi, y);
    let not_even = o.cmp(Cmp::Neu, hyi, hy);
    // -r by a product, which (unlike 0 - r) gives -0 for +0.
    let m1 = o.k(-1.0);
    let nr = o.mul(r, m1);
    // Odd: integral and not even.
    let odd_r = o.sel(not_even, nr, r);
    let odd_r = o.sel(non_int, r, odd_r);
    // The sign bit (-0 included: 1/-0 is -inf) picks the odd-exponent sign.
    let inv = o.div(one, x);
    let inv_neg = o.cmp(Cmp::Lt, inv, zero);
    let signed = o.por(neg, inv_neg);
    let r = o.sel(signed, odd_r, r);
    let finite = o.cmp(Cmp::Gt, x, ninf);
    let qnan = o.k(f64::NAN);
    let bad = o.sel(finite, qnan, r);
    let r_bad = o.sel(non_int, bad, r);
    let r = o.sel(neg, r_bad, r);
    let nan = o.cmp(Cmp::Nan, x, y);
    let r = o.sel(nan, qnan, r);
    let y0 = o.cmp(Cmp::Eq, y, zero);
    let x1 = o.cmp(Cmp::Eq, x, one);
    let ones = o.por(y0, x1);
    o.sel(ones, one, r)
}

/// `1 / sqrt(x)`: `y0 = div.rn(1, sqrt.rn(x))` (within 1.5 ulp), then one Newton step on the
/// residual `1 - x y0^2`, computed with `x y0` as a double-f64 so it is exact to far below an
/// ulp: `y = y0 + y0 (1 - x y0^2) / 2`. IEEE's special cases come from `y0` (the step would
/// turn them into NaN): +-0 give +-inf, +inf gives 0, negatives and NaN give NaN.
pub(crate) fn rsqrt<O: Ops64>(o: &mut O, x: O::D) -> O::D {
    let s = o.sqrt(x);
    let one = o.k(1.0);
    let y0 = o.div(one, s);
    let ph = o.mul(x, y0);
    let zero = o.k(0.0);
    let nph = o.sub(zero, ph);
    let pl = o.fma(x, y0, nph);
    let npl = o.sub(zero, pl);
    let r = o.fma(nph, y0, one);
    let r = o.fma(npl, y0, r);
    let half = o.k(0.5);
    let hy = o.mul(half, y0);
    let y = o.fma(hy, r, y0);
    let inf = o.k(f64::INFINITY);
    let at_inf = o.cmp(Cmp::Eq, x, inf);
    let at_zero = o.cmp(Cmp::Eq, x, zero);
    let keep = o.por(at_inf, at_zero);
    o.sel(keep, y0, y)
}

mod dd;
mod hyper;
mod inverse;
mod payne_hanek;
pub(crate) mod trig;

#[cfg(test)]
mod tests;
