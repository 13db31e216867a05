//! [`Native`]: the math library's operations evaluated on the CPU with PTX semantics.

use super::ops::{Cmp, Ops};

/// Evaluates [`Ops`] on the CPU, bit for bit as the PTX instructions do (Rust's f32 `+ - * /`,
/// `mul_add` and `sqrt` are IEEE 754 round-to-nearest-even, as `.rn` is). NaN payloads may
/// differ from the GPU's canonical NaN; everything else is identical.
#[derive(Clone, Copy, Debug, Default)]
pub struct Native;

/// `x` with a subnormal flushed to a zero of the same sign (PTX `.ftz`).
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

impl Ops for Native {
    type F = f32;
    type I = u32;
    type P = bool;
    type L = u64;
    type D = f64;

    fn cf(&mut self, v: f32) -> f32 {
        v
    }
    fn ci(&mut self, v: u32) -> u32 {
        v
    }
    fn add(&mut self, a: f32, b: f32) -> f32 {
        a + b
    }
    fn sub(&mut self, a: f32, b: f32) -> f32 {
        a - b
    }
    fn mul(&mut self, a: f32, b: f32) -> f32 {
        a * b
    }
    fn fma(&mut self, a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    fn div(&mut self, a: f32, b: f32) -> f32 {
        a / b
    }
    fn sqrt(&mut self, a: f32) -> f32 {
        a.sqrt()
    }
    fn rsqrt_approx(&mut self, a: f32) -> f32 {
        // As for the reciprocal: any value within the bound refines to the same result.
        ftz((1.0 / f64::from(ftz(a)).sqrt()) as f32)
    }
    fn rcp_approx(&mut self, a: f32) -> f32 {
        // Any value within the bound gives the same refined result; this is the correctly
        // rounded one, with `.ftz` on both sides.
        ftz(1.0 / ftz(a))
    }
    fn neg(&mut self, a: f32) -> f32 {
        -a
    }
    fn abs(&mut self, a: f32) -> f32 {
        a.abs()
    }
    fn copysign(&mut self, mag: f32, sign: f32) -> f32 {
        mag.copysign(sign)
    }
    fn rint(&mut self, a: f32) -> f32 {
        a.round_ties_even()
    }
    fn trunc(&mut self, a: f32) -> f32 {
        a.trunc()
    }
    fn f2i(&mut self, a: f32) -> u32 {
        // `as` saturates and maps NaN to 0, as cvt.rni.s32.f32 does.
        a.round_ties_even() as i32 as u32
    }
    fn i2f(&mut self, a: u32) -> f32 {
        a as i32 as f32
    }
    fn bits(&mut self, a: f32) -> u32 {
        a.to_bits()
    }
    fn float(&mut self, a: u32) -> f32 {
        f32::from_bits(a)
    }
    fn iadd(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    fn isub(&mut self, a: u32, b: u32) -> u32 {
        a.wrapping_sub(b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        a & b
    }
    fn or(&mut self, a: u32, b: u32) -> u32 {
        a | b
    }
    fn xor(&mut self, a: u32, b: u32) -> u32 {
        a ^ b
    }
    fn shl(&mut self, a: u32, n: u32) -> u32 {
        a.checked_shl(n).unwrap_or(0)
    }
    fn shr_u(&mut self, a: u32, n: u32) -> u32 {
        a.checked_shr(n).unwrap_or(0)
    }
    fn shr_s(&mut self, a: u32, n: u32) -> u32 {
        ((a as i32) >> n.min(31)) as u32
    }
    fn imin(&mut self, a: u32, b: u32) -> u32 {
        (a as i32).min(b as i32) as u32
    }
    fn imax(&mut self, a: u32, b: u32) -> u32 {
        (a as i32).max(b as i32) as u32
    }
    fn fcmp(&mut self, c: Cmp, a: f32, b: f32) -> bool {
        c.f32(a, b)
    }
    fn icmp(&mut self, c: Cmp, a: u32, b: u32) -> bool {
        c.i32(a as i32, b as i32)
    }
    fn fsel(&mut self, p: bool, a: f32, b: f32) -> f32 {
        if p {
            a
        } else {
            b
        }
    }
    fn isel(&mut self, p: bool, a: u32, b: u32) -> u32 {
        if p {
            a
        } else {
            b
        }
    }
    fn pand(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn por(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn pxor(&mut self, a: bool, b: bool) -> bool {
        a ^ b
    }
    fn pnot(&mut self, a: bool) -> bool {
        !a
    }
    fn mad_wide(&mut self, a: u32, b: u32, c: u32) -> u64 {
        u64::from(a) * u64::from(b) + u64::from(c)
    }
    fn lo(&mut self, a: u64) -> u32 {
        a as u32
    }
    fn hi(&mut self, a: u64) -> u32 {
        (a >> 32) as u32
    }
    fn pack(&mut self, lo: u32, hi: u32) -> u64 {
        u64::from(hi) << 32 | u64::from(lo)
    }
    fn lshr(&mut self, a: u64, n: u32) -> u64 {
        a.checked_shr(n).unwrap_or(0)
    }
    fn lshl(&mut self, a: u64, n: u32) -> u64 {
        a.checked_shl(n).unwrap_or(0)
    }
    fn l2d(&mut self, a: u64) -> f64 {
        a as i64 as f64
    }
    fn dmul(&mut self, a: f64, k: f64) -> f64 {
        a * k
    }
    fn d2f(&mut self, a: f64) -> f32 {
        a as f32
    }
    fn branch<const N: usize>(
        &mut self,
        p: bool,
        then_: impl FnOnce(&mut Self) -> [f32; N],
        else_: impl FnOnce(&mut Self) -> [f32; N],
    ) -> [f32; N] {
        if p {
            then_(self)
        } else {
            else_(self)
        }
    }
}
