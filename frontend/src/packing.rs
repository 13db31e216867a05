//! WGSL's packing builtins (`pack4x8unorm` ... `unpack4xU8`) on plain values, as the WGSL
//! specification writes them: the one definition the constant folder
//! ([`crate::passes::fold`]) and the reference interpreter use, so a folded constant is what
//! the interpreter, and the executors it is checked against, compute at run time.
//!
//! WGSL leaves the packing of a NaN lane implementation-defined: here it packs as 0 (Rust's
//! saturating float-to-integer cast, the interpreter's choice), and the folder does not fold
//! calls with a NaN lane, so it never picks a value a target would not.

use crate::ir::MathFunction as M;

/// `pack4x8snorm`, `pack4x8unorm`, `pack2x16snorm`, `pack2x16unorm` and `pack2x16float` of
/// `xs` (4 or 2 lanes): `floor(0.5 + scale * clamp(e, lo, 1))` per lane for the normalized
/// forms, the round-to-nearest f16 bits for `pack2x16float`, lane `i` in bits `width * i`.
/// `None` for another function.
pub fn pack_float(fun: M, xs: &[f32]) -> Option<u32> {
    let (bits, lo, scale) = match fun {
        M::Pack4x8snorm => (8, -1.0f32, 127.0f32),
        M::Pack4x8unorm => (8, 0.0, 255.0),
        M::Pack2x16snorm => (16, -1.0, 32767.0),
        M::Pack2x16unorm => (16, 0.0, 65535.0),
        M::Pack2x16float => {
            let mut w = 0u32;
            for (i, &x) in xs.iter().enumerate() {
                w |= u32::from(half::f16::from_f32(x).to_bits()) << (16 * i);
            }
            return Some(w);
        }
        _ => return None,
    };
    let mut w = 0u32;
    for (i, &x) in xs.iter().enumerate() {
        let v = (0.5 + scale * x.clamp(lo, 1.0)).floor() as i32 as u32;
        w |= (v & ((1u32 << bits) - 1)) << (bits * i as u32);
    }
    Some(w)
}

/// `pack4xI8`, `pack4xU8`, `pack4xI8Clamp`, `pack4xU8Clamp` of four lanes (the bits of
/// `i32` or `u32` values); `None` for another function.
pub fn pack_int(fun: M, xs: &[u32]) -> Option<u32> {
    let mut w = 0u32;
    for (i, &x) in xs.iter().enumerate() {
        let v = match fun {
            M::Pack4xI8Clamp => (x as i32).clamp(-128, 127) as u32,
            M::Pack4xU8Clamp => x.min(255),
            M::Pack4xI8 | M::Pack4xU8 => x,
            _ => return None,
        };
        w |= (v & 0xff) << (8 * i);
    }
    Some(w)
}

/// `unpack4x8snorm`, `unpack4x8unorm`, `unpack2x16snorm`, `unpack2x16unorm` (`q / scale`,
/// at least -1 for the signed forms) and `unpack2x16float` of `x`; `None` for another
/// function.
pub fn unpack_float(fun: M, x: u32) -> Option<Vec<f32>> {
    Some(match fun {
        M::Unpack4x8snorm => {
            (0..4).map(|i| (f32::from((x >> (8 * i)) as u8 as i8) / 127.0).max(-1.0)).collect()
        }
        M::Unpack4x8unorm => (0..4).map(|i| f32::from((x >> (8 * i)) as u8) / 255.0).collect(),
        M::Unpack2x16snorm => {
            (0..2).map(|i| (f32::from((x >> (16 * i)) as u16 as i16) / 32767.0).max(-1.0)).collect()
        }
        M::Unpack2x16unorm => (0..2).map(|i| f32::from((x >> (16 * i)) as u16) / 65535.0).collect(),
        M::Unpack2x16float => {
            (0..2).map(|i| half::f16::from_bits((x >> (16 * i)) as u16).to_f32()).collect()
        }
        _ => return None,
    })
}

/// `unpack4xI8` (sign-extended, as `i32` bits) and `unpack4xU8` of `x`; `None` for another
/// function.
pub fn unpack_int(fun: M, x: u32) -> Option<[u32; 4]> {
    match fun {
        M::Unpack4xI8 => Some([0, 1, 2, 3].map(|i| i32::from((x >> (8 * i)) as u8 as i8) as u32)),
        M::Unpack4xU8 => Some([0, 1, 2, 3].map(|i| (x >> (8 * i)) & 0xff)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specification_examples() {
        // Hand calculation: 255 * 0.5 + 0.5 = 128 -> 0x80; -1 snorm -> -127 = 0x81.
        assert_eq!(pack_float(M::Pack4x8unorm, &[0.0, 0.5, 1.0, 2.0]), Some(0xFFFF_8000));
        assert_eq!(pack_float(M::Pack4x8snorm, &[-1.0, 0.0, 1.0, -0.5]), Some(0xC17F_0081));
        assert_eq!(pack_float(M::Pack2x16float, &[1.0, -2.0]), Some(0xC000_3C00));
        assert_eq!(pack_float(M::Pack2x16unorm, &[f32::NAN, 1.0]), Some(0xFFFF_0000));
        assert_eq!(pack_int(M::Pack4xI8Clamp, &[300, (-300i32) as u32, 5, 0]), Some(0x0005_807F));
        assert_eq!(pack_int(M::Pack4xU8Clamp, &[300, 7, 0, 1]), Some(0x0100_07FF));
        assert_eq!(unpack_float(M::Unpack4x8snorm, 0x81), Some(vec![-1.0, 0.0, 0.0, 0.0]));
        assert_eq!(unpack_float(M::Unpack4x8unorm, 0xFF), Some(vec![1.0, 0.0, 0.0, 0.0]));
        assert_eq!(unpack_int(M::Unpack4xI8, 0x80FF), Some([u32::MAX, 0xFFFF_FF80, 0, 0]));
        assert_eq!(unpack_int(M::Unpack4xU8, 0x80FF), Some([0xFF, 0x80, 0, 0]));
    }
}
