//! Measuring accuracy: f64 references and the ulp distance the accuracy tests report.

use dianran_frontend::ir::MathFunction as M;

/// The f64 reference of a one-argument function of [`super::FUNCTIONS`] (Rust's `f64`
/// functions: glibc's libm, below one f64 ulp, so about 2^-29 f32 ulp); NaN for others.
pub fn reference(fun: M, x: f64) -> f64 {
    match fun {
        M::Sin => x.sin(),
        M::Cos => x.cos(),
        M::Tan => x.tan(),
        M::Exp => x.exp(),
        M::Exp2 => x.exp2(),
        M::Log => x.ln(),
        M::Log2 => x.log2(),
        M::Sinh => x.sinh(),
        M::Cosh => x.cosh(),
        M::Tanh => x.tanh(),
        M::Asin => x.asin(),
        M::Acos => x.acos(),
        M::Atan => x.atan(),
        M::Asinh => x.asinh(),
        M::Acosh => x.acosh(),
        M::Atanh => x.atanh(),
        M::InverseSqrt => 1.0 / x.sqrt(),
        M::Sqrt => x.sqrt(),
        _ => f64::NAN,
    }
}

/// The f64 reference of `pow(a, b)` or `atan2(a, b)` (WGSL's argument order).
pub fn reference2(fun: M, a: f64, b: f64) -> f64 {
    match fun {
        M::Pow => a.powf(b),
        M::Atan2 => a.atan2(b),
        _ => f64::NAN,
    }
}

/// The error of `got` in units of the last place of the float format with `mant` explicit
/// mantissa bits and minimum normal exponent `emin` at the exact value (subnormal ulps below
/// the normal range). 0 when both are the same infinity or both NaN; infinite when only one is
/// NaN. A finite result against an exact value beyond the format's range counts from the
/// largest finite value (so an overflow to infinity one ulp early is one ulp, not infinite).
fn ulp_error_in(got: f64, exact: f64, mant: i32, emin: i32, max: f64) -> f64 {
    if got.is_nan() || exact.is_nan() {
        return if got.is_nan() && exact.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let top_ulp = 2f64.powi(max.log2().floor() as i32 - mant);
    let clamp = |v: f64| if v.is_infinite() { v.signum() * (max + top_ulp) } else { v };
    if got.is_infinite() && exact.abs() > max + top_ulp / 2.0 && got.signum() == exact.signum() {
        return 0.0;
    }
    let (g, e) = (clamp(got), clamp(exact));
    let a = e.abs().max(2f64.powi(emin));
    let ex = a.log2().floor() as i32;
    let ulp = 2f64.powi(ex.max(emin) - mant);
    (g - e).abs() / ulp
}

/// The error of an f32 result in f32 ulps at the exact value.
pub fn ulp_error(got: f32, exact: f64) -> f64 {
    ulp_error_in(f64::from(got), exact, 23, -126, f64::from(f32::MAX))
}

/// The error of an f16 result (as f32) in f16 ulps at the exact value.
pub fn ulp_error_f16(got: f32, exact: f64) -> f64 {
    ulp_error_in(f64::from(got), exact, 10, -14, 65504.0)
}

/// Position of a float on the number line in steps of its format (`bits` with `sign_bit`):
/// consecutive floats differ by 1, `±0` are both 0.
fn ordinal(bits: u32, sign_bit: u32) -> i64 {
    let mag = i64::from(bits & (sign_bit - 1));
    if bits & sign_bit != 0 {
        -mag
    } else {
        mag
    }
}

/// How many f32 steps `got` is from the correctly rounded result (CUDA's convention for its
/// documented ulp errors): 0 when equal (or both NaN), `u64::MAX` when only one is NaN.
pub fn steps_from_rounded(got: f32, exact: f64) -> u64 {
    let cr = exact as f32;
    if got.is_nan() || cr.is_nan() {
        return if got.is_nan() && cr.is_nan() { 0 } else { u64::MAX };
    }
    (ordinal(got.to_bits(), 1 << 31) - ordinal(cr.to_bits(), 1 << 31)).unsigned_abs()
}

/// [`steps_from_rounded`] for f16 bit patterns (`cr` is the correctly rounded f16).
pub fn steps_f16(got: u16, cr: u16) -> u64 {
    let nan = |b: u16| b & 0x7C00 == 0x7C00 && b & 0x03FF != 0;
    if nan(got) || nan(cr) {
        return if nan(got) && nan(cr) { 0 } else { u64::MAX };
    }
    (ordinal(u32::from(got), 1 << 15) - ordinal(u32::from(cr), 1 << 15)).unsigned_abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distances() {
        assert_eq!(ulp_error(1.0, 1.0), 0.0);
        let next = f32::from_bits(1.0f32.to_bits() + 1);
        assert!((ulp_error(next, 1.0) - 1.0).abs() < 1e-12);
        // Below 1 the ulp halves.
        let prev = f32::from_bits(1.0f32.to_bits() - 1);
        assert!((ulp_error(prev, 1.0) - 0.5).abs() < 1e-12);
        assert!((ulp_error(f32::from_bits(3), 2.0 * 2f64.powi(-149)) - 1.0).abs() < 1e-12);
        assert_eq!(ulp_error(f32::INFINITY, 1e39), 0.0);
        assert!((ulp_error(f32::INFINITY, f64::from(f32::MAX)) - 1.0).abs() < 1e-12);
        assert_eq!(ulp_error(f32::NAN, f64::NAN), 0.0);
        assert!(ulp_error(0.0, f64::NAN).is_infinite());
        assert!((ulp_error_f16(1.0 + 1.0 / 1024.0, 1.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn steps() {
        assert_eq!(steps_from_rounded(1.0, 1.0), 0);
        assert_eq!(steps_from_rounded(f32::from_bits(0x3F80_0002), 1.0), 2);
        assert_eq!(steps_from_rounded(-0.0, 0.0), 0);
        assert_eq!(steps_from_rounded(f32::from_bits(0x8000_0001), 1e-50), 1);
        assert_eq!(steps_from_rounded(f32::INFINITY, f64::from(f32::MAX)), 1);
        assert_eq!(steps_from_rounded(f32::NAN, 1.0), u64::MAX);
        assert_eq!(steps_f16(0x3C01, 0x3C00), 1);
        assert_eq!(steps_f16(0x8001, 0x0001), 2);
    }
}
