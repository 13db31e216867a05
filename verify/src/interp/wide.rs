//! The 64-bit scalars (`i64`, `u64`, `f64`) in the interpreter: each component is two words,
//! low half first (see [`super::value`]). Integer arithmetic wraps, division follows WGSL as
//! for 32 bits (by zero: the dividend, remainder 0; `MIN / -1` is `MIN`), shift amounts are
//! masked to 0..=63, float -> int conversions truncate and saturate (NaN gives 0), and every
//! `f64` operation is one IEEE operation rounded to nearest even, as PTX's `.rn` forms.

use super::scalar_ops::{float_binary, scal, w64};
use super::value::{f2h, h2f, internal, type_name, unsupported};
use dianran_frontend::ir::{
    BinaryOperator, MathFunction, RelationalFunction, Scalar, Type, TypeId, Types, UnaryOperator,
};
use dianran_frontend::Diagnostic;

/// Words per component of scalar `s`.
pub(crate) fn width(s: Scalar) -> usize {
    if s.is_64() {
        2
    } else {
        1
    }
}

/// The 64-bit value of component `i` of `a` (a single component broadcasts).
fn get(a: &[u32], i: usize) -> u64 {
    let i = if a.len() == 2 { 0 } else { i };
    let lo = a.get(2 * i).copied().unwrap_or(0);
    let hi = a.get(2 * i + 1).copied().unwrap_or(0);
    u64::from(lo) | (u64::from(hi) << 32)
}

/// Appends a 64-bit value as two words.
pub(crate) fn put(out: &mut Vec<u32>, v: u64) {
    out.push(v as u32);
    out.push((v >> 32) as u32);
}

fn fput(out: &mut Vec<u32>, v: f64) {
    put(out, v.to_bits());
}

fn f(x: u64) -> f64 {
    f64::from_bits(x)
}

/// `-x`, `~x` per component.
pub(crate) fn unary(
    types: &Types,
    op: UnaryOperator,
    ty: TypeId,
    a: &[u32],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let s = scal(types, ty);
    for i in 0..a.len() / 2 {
        let x = get(a, i);
        put(
            out,
            match (op, s) {
                (UnaryOperator::Negate, Scalar::I64) => (x as i64).wrapping_neg() as u64,
                (UnaryOperator::Negate, Scalar::F64) => x ^ (1 << 63),
                (UnaryOperator::BitwiseNot, Scalar::I64 | Scalar::U64) => !x,
                _ => return Err(internal(format!("unary {op:?} on {}", type_name(types, ty)))),
            },
        );
    }
    Ok(())
}

/// One 64-bit binary operation: `Ok` with the result bits, `Err` with a comparison's truth
/// (a bool result), `None` for an operator the scalar lacks.
fn bin1(op: BinaryOperator, s: Scalar, x: u64, y: u64) -> Option<Result<u64, bool>> {
    match s {
        Scalar::I64 | Scalar::U64 => w64::binary(op, s == Scalar::I64, x, y),
        Scalar::F64 => Some(float_binary(op, f(x), f(y), f64::trunc)?.map(f64::to_bits)),
        _ => None,
    }
}

/// `a op b` where `a` has 64-bit components: component-wise (shift amounts are `u32` words),
/// or an `f64` matrix product (a product, then one `fma` per further term, as the PTX).
pub(crate) fn binary(
    types: &Types,
    op: BinaryOperator,
    ta: TypeId,
    a: &[u32],
    tb: TypeId,
    b: &[u32],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let bad =
        || internal(format!("{op:?} on {} and {}", type_name(types, ta), type_name(types, tb)));
    let (sa, sb) = (scal(types, ta), scal(types, tb));
    let is_mat = |t: TypeId| matches!(types.get(t), Type::Matrix { .. });
    if op == BinaryOperator::Multiply && (is_mat(ta) || is_mat(tb)) {
        return matrix_product(types, ta, a, tb, b, out).ok_or_else(bad);
    }
    let s = if sa.is_64() { sa } else { sb };
    let na = a.len() / width(sa);
    let nb = b.len() / width(sb);
    if !(na == nb || na == 1 || nb == 1) {
        return Err(bad());
    }
    let comp = |v: &[u32], sv: Scalar, i: usize| -> u64 {
        if sv.is_64() {
            get(v, i)
        } else {
            u64::from(if v.len() == 1 { v[0] } else { v.get(i).copied().unwrap_or(0) })
        }
    };
    for i in 0..na.max(nb) {
        match bin1(op, s, comp(a, sa, i), comp(b, sb, i)).ok_or_else(bad)? {
            Ok(v) => put(out, v),
            Err(t) => out.push(u32::from(t)),
        }
    }
    Ok(())
}

/// `f64` dot product in the PTX's order, unfused (a fused `dot` is an explicit `fma` chain in
/// the SSA, `docs/math.md`, "Contraction"): `a0*b0`, then each further product added.
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = 0.0;
    for (k, (p, q)) in x.iter().zip(y).enumerate() {
        acc = if k == 0 { p * q } else { acc + p * q };
    }
    acc
}

fn matrix_product(
    types: &Types,
    ta: TypeId,
    a: &[u32],
    tb: TypeId,
    b: &[u32],
    out: &mut Vec<u32>,
) -> Option<()> {
    let fa: Vec<f64> = (0..a.len() / 2).map(|i| f(get(a, i))).collect();
    let fb: Vec<f64> = (0..b.len() / 2).map(|i| f(get(b, i))).collect();
    match (types.get(ta), types.get(tb)) {
        (Type::Matrix { .. }, Type::Scalar(_)) => fa.iter().for_each(|x| fput(out, x * fb[0])),
        (Type::Scalar(_), Type::Matrix { .. }) => fb.iter().for_each(|x| fput(out, fa[0] * x)),
        (Type::Matrix { columns, rows, .. }, Type::Vector { .. }) => {
            let (c, r) = (*columns as usize, *rows as usize);
            for i in 0..r {
                let row: Vec<f64> = (0..c).map(|k| fa[k * r + i]).collect();
                fput(out, dot(&row, &fb));
            }
        }
        (Type::Vector { .. }, Type::Matrix { columns, rows, .. }) => {
            let (c, r) = (*columns as usize, *rows as usize);
            for k in 0..c {
                fput(out, dot(&fa, fb.get(k * r..k * r + r)?));
            }
        }
        (Type::Matrix { columns: k, rows: r, .. }, Type::Matrix { columns: c, .. }) => {
            let (k, r, c) = (*k as usize, *r as usize, *c as usize);
            for j in 0..c {
                for i in 0..r {
                    let row: Vec<f64> = (0..k).map(|q| fa[q * r + i]).collect();
                    fput(out, dot(&row, fb.get(j * k..j * k + k)?));
                }
            }
        }
        _ => return None,
    }
    Some(())
}

/// A conversion where `from` or `to` is 64-bit (see the module docs for the semantics).
pub(crate) fn convert(from: Scalar, to: Scalar, a: &[u32], out: &mut Vec<u32>) {
    let n = a.len() / width(from);
    for i in 0..n {
        let x = if from.is_64() { get(a, i) } else { u64::from(a.get(i).copied().unwrap_or(0)) };
        // The source as an exact integer or float.
        enum V {
            I(i128),
            F(f64),
        }
        let v = match from {
            Scalar::Bool => V::I(i128::from(x != 0)),
            Scalar::I32 => V::I(i128::from(x as u32 as i32)),
            Scalar::U32 => V::I(i128::from(x as u32)),
            Scalar::I64 => V::I(i128::from(x as i64)),
            Scalar::U64 => V::I(i128::from(x)),
            Scalar::F32 => V::F(f64::from(f32::from_bits(x as u32))),
            Scalar::F16 => V::F(f64::from(h2f(x as u32))),
            Scalar::F64 => V::F(f(x)),
        };
        match (v, to) {
            (V::I(k), Scalar::Bool) => out.push(u32::from(k != 0)),
            (V::F(y), Scalar::Bool) => out.push(u32::from(y != 0.0)),
            (V::I(k), Scalar::I32 | Scalar::U32) => out.push(k as u32),
            (V::I(k), Scalar::I64 | Scalar::U64) => put(out, k as u64),
            // i128 -> float rounds to nearest even once.
            (V::I(k), Scalar::F32) => out.push((k as f32).to_bits()),
            (V::I(k), Scalar::F64) => fput(out, k as f64),
            // Every integer finite in f16 is exact in f32: one rounding.
            (V::I(k), Scalar::F16) => out.push(f2h(k as f32)),
            (V::F(y), Scalar::I32) => out.push(y as i32 as u32),
            (V::F(y), Scalar::U32) => out.push(y as u32),
            (V::F(y), Scalar::I64) => put(out, y as i64 as u64),
            (V::F(y), Scalar::U64) => put(out, y as u64),
            (V::F(y), Scalar::F32) => out.push((y as f32).to_bits()),
            (V::F(y), Scalar::F16) => out.push(u32::from(half::f16::from_f64(y).to_bits())),
            (V::F(y), Scalar::F64) => fput(out, y),
        }
    }
}

/// `isNan`, `isInf` on `f64`.
pub(crate) fn relational(fun: RelationalFunction, a: &[u32], out: &mut Vec<u32>) -> bool {
    let test: fn(f64) -> bool = match fun {
        RelationalFunction::IsNan => f64::is_nan,
        RelationalFunction::IsInf => f64::is_infinite,
        _ => return false,
    };
    out.extend((0..a.len() / 2).map(|i| u32::from(test(f(get(a, i))))));
    true
}

/// A math builtin on 64-bit arguments: the set the PTX backend implements exactly.
pub(crate) fn math(
    types: &Types,
    fun: MathFunction,
    tys: &[TypeId],
    args: &[&[u32]],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    use MathFunction as M;
    let s = tys.first().map_or(Scalar::F64, |t| scal(types, *t));
    let a0 = args.first().copied().unwrap_or(&[]);
    let n = a0.len() / 2;
    let arg = |k: usize| args.get(k).copied().unwrap_or(&[]);
    let each = |out: &mut Vec<u32>, g: &dyn Fn(usize) -> u64| {
        for i in 0..n {
            put(out, g(i));
        }
    };
    let fl =
        |out: &mut Vec<u32>, g: &dyn Fn(f64) -> f64| each(out, &|i| g(f(get(a0, i))).to_bits());
    let signed = s == Scalar::I64;
    let min = |x: u64, y: u64| match s {
        Scalar::F64 => f(x).min(f(y)).to_bits(),
        _ => w64::min(signed, x, y),
    };
    let max = |x: u64, y: u64| match s {
        Scalar::F64 => f(x).max(f(y)).to_bits(),
        _ => w64::max(signed, x, y),
    };
    match fun {
        M::Abs => each(out, &|i| {
            let x = get(a0, i);
            match s {
                Scalar::F64 => x & !(1 << 63),
                _ => w64::abs(signed, x),
            }
        }),
        M::Min => each(out, &|i| min(get(a0, i), get(arg(1), i))),
        M::Max => each(out, &|i| max(get(a0, i), get(arg(1), i))),
        M::Clamp => each(out, &|i| min(max(get(a0, i), get(arg(1), i)), get(arg(2), i))),
        M::Sqrt => fl(out, &f64::sqrt),
        // The transcendental functions by Rust's (glibc's) f64 functions; PTX's library is
        // within 1 ulp of them (docs/math.md, "f64 functions").
        M::Exp => fl(out, &f64::exp),
        M::Exp2 => fl(out, &f64::exp2),
        M::Log => fl(out, &f64::ln),
        M::Log2 => fl(out, &f64::log2),
        M::InverseSqrt => fl(out, &|x| 1.0 / x.sqrt()),
        M::Pow => each(out, &|i| f(get(a0, i)).powf(f(get(arg(1), i))).to_bits()),
        M::Sin => fl(out, &f64::sin),
        M::Cos => fl(out, &f64::cos),
        M::Tan => fl(out, &f64::tan),
        M::Sinh => fl(out, &f64::sinh),
        M::Cosh => fl(out, &f64::cosh),
        M::Tanh => fl(out, &f64::tanh),
        M::Asin => fl(out, &f64::asin),
        M::Acos => fl(out, &f64::acos),
        M::Atan => fl(out, &f64::atan),
        M::Atan2 => each(out, &|i| f(get(a0, i)).atan2(f(get(arg(1), i))).to_bits()),
        M::Asinh => fl(out, &inverse_hyperbolic::asinh),
        M::Acosh => fl(out, &inverse_hyperbolic::acosh),
        M::Atanh => fl(out, &inverse_hyperbolic::atanh),
        M::Floor => fl(out, &f64::floor),
        M::Ceil => fl(out, &f64::ceil),
        M::Trunc => fl(out, &f64::trunc),
        M::Round => fl(out, &f64::round_ties_even),
        M::Fract => fl(out, &|x| x - x.floor()),
        M::Fma => {
            each(out, &|i| f(get(a0, i)).mul_add(f(get(arg(1), i)), f(get(arg(2), i))).to_bits())
        }
        M::Sign => each(out, &|i| {
            let x = get(a0, i);
            match s {
                Scalar::F64 if f(x) > 0.0 => 1.0f64.to_bits(),
                Scalar::F64 if f(x) < 0.0 => (-1.0f64).to_bits(),
                Scalar::F64 => x,
                _ => w64::sign(signed, x),
            }
        }),
        M::CountOneBits => each(out, &|i| u64::from(get(a0, i).count_ones())),
        M::CountLeadingZeros => each(out, &|i| u64::from(get(a0, i).leading_zeros())),
        M::CountTrailingZeros => each(out, &|i| u64::from(get(a0, i).trailing_zeros())),
        M::ReverseBits => each(out, &|i| get(a0, i).reverse_bits()),
        // WGSL: the index of the most significant 1 bit (of a negative value: 0 bit), the
        // least significant 1 bit; -1 (all ones) where there is none.
        M::FirstLeadingBit => each(out, &|i| {
            let x = get(a0, i);
            let y = if signed && (x as i64) < 0 { !x } else { x };
            if y == 0 {
                u64::MAX
            } else {
                u64::from(63 - y.leading_zeros())
            }
        }),
        M::FirstTrailingBit => each(out, &|i| {
            let x = get(a0, i);
            if x == 0 {
                u64::MAX
            } else {
                u64::from(x.trailing_zeros())
            }
        }),
        M::ExtractBits | M::InsertBits => {
            // offset and count (u32 scalars) come last: o = min(offset, 64),
            // c = min(count, 64 - o).
            let k = if fun == M::ExtractBits { 1 } else { 2 };
            let o = arg(k).first().copied().unwrap_or(0).min(64);
            let c = arg(k + 1).first().copied().unwrap_or(0).min(64 - o);
            let ones = if c == 64 { u64::MAX } else { (1u64 << c) - 1 };
            let sh = |v: u64| if o == 64 { 0 } else { v << o };
            each(out, &|i| {
                let x = get(a0, i);
                if fun == M::InsertBits {
                    let mask = sh(ones);
                    return (x & !mask) | (sh(get(arg(1), i)) & mask);
                }
                if c == 0 {
                    return 0;
                }
                let v = if o == 64 { 0 } else { (x >> o) & ones };
                if signed && c < 64 && (v >> (c - 1)) & 1 == 1 {
                    v | !ones
                } else {
                    v
                }
            })
        }
        // The f64 forms of the composite builtins, by WGSL's formulas in f64 arithmetic (the
        // PTX may fuse some steps: verify's f64 bound, 4 ulp or 1e-12, covers it).
        M::Saturate => fl(out, &|x| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }),
        // C99 modf: the fraction keeps x's sign (-0 for negative integers), +-0 for
        // infinities; the fractions, then the whole parts.
        M::Modf => {
            fl(out, &|x| (if x.is_infinite() { 0.0 } else { x - x.trunc() }).copysign(x));
            fl(out, &f64::trunc);
        }
        // The fractions, then the exponents: naga's `__frexp_result_f64` holds an i64 `exp`
        // (its exponent has the fraction's width).
        M::Frexp => {
            each(out, &|i| frexp(f(get(a0, i))).0.to_bits());
            each(out, &|i| i64::from(frexp(f(get(a0, i))).1) as u64);
        }
        M::Ldexp => {
            let e = arg(1);
            each(out, &|i| {
                let k = e.get(i).or(e.first()).copied().unwrap_or(0) as i32;
                scalbn(f(get(a0, i)), k).to_bits()
            })
        }
        M::Degrees => fl(out, &|x| x * (180.0 / std::f64::consts::PI)),
        M::Radians => fl(out, &|x| x * (std::f64::consts::PI / 180.0)),
        M::Step | M::Mix | M::SmoothStep => {
            // A scalar last argument applies to every component (`mix(v, w, t)`).
            let at = |a: &[u32], i: usize| f(get(a, if a.len() == 2 { 0 } else { i }));
            each(out, &|i| {
                let (x, y) = (at(a0, i), at(arg(1), i));
                match fun {
                    M::Step => f64::from(u8::from(y >= x)),
                    M::Mix => {
                        let t = at(arg(2), i);
                        x * (1.0 - t) + y * t
                    }
                    _ => {
                        let q = (at(arg(2), i) - x) / (y - x);
                        let t = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
                        t * t * (3.0 - 2.0 * t)
                    }
                }
                .to_bits()
            })
        }
        M::Transpose => {
            let Some(Type::Matrix { columns, rows, .. }) = tys.first().map(|t| types.get(*t))
            else {
                return Err(unsupported("transpose of a non-matrix"));
            };
            let (c, r) = (*columns as usize, *rows as usize);
            for i in 0..r {
                for j in 0..c {
                    put(out, get(a0, j * r + i));
                }
            }
        }
        // By cofactors along the first column, the expansion WGSL's definition implies.
        M::Determinant => {
            let m: Vec<f64> = (0..n).map(|i| f(get(a0, i))).collect();
            let dim = (n as f64).sqrt() as usize;
            if dim * dim != n || dim < 2 {
                return Err(unsupported("determinant of a non-square matrix"));
            }
            let cols: Vec<Vec<f64>> = m.chunks(dim).map(<[f64]>::to_vec).collect();
            put(out, cofactor_det(&cols).to_bits());
        }
        M::Length
        | M::Distance
        | M::Normalize
        | M::Cross
        | M::FaceForward
        | M::Reflect
        | M::Refract => {
            let v = |a: &[u32]| (0..a.len() / 2).map(|i| f(get(a, i))).collect::<Vec<f64>>();
            let (x, y, z) = (v(a0), v(arg(1)), v(arg(2)));
            let r: Vec<f64> = match fun {
                M::Length => vec![dot(&x, &x).sqrt()],
                M::Distance => {
                    let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
                    vec![dot(&d, &d).sqrt()]
                }
                M::Normalize => {
                    let l = dot(&x, &x).sqrt();
                    x.iter().map(|p| p / l).collect()
                }
                M::Cross if x.len() == 3 && y.len() == 3 => vec![
                    x[1] * y[2] - x[2] * y[1],
                    x[2] * y[0] - x[0] * y[2],
                    x[0] * y[1] - x[1] * y[0],
                ],
                M::Cross => return Err(unsupported("cross of vectors other than vec3")),
                M::FaceForward => {
                    let keep = dot(&z, &y) < 0.0;
                    x.iter().map(|p| if keep { *p } else { -p }).collect()
                }
                // k = 1 - eta^2 (1 - dot(n, i)^2); zero when k < 0, else
                // eta i - (eta dot(n, i) + sqrt(k)) n.
                M::Refract => {
                    let eta = z.first().copied().unwrap_or(0.0);
                    let d = dot(&y, &x);
                    let k = 1.0 - eta * eta * (1.0 - d * d);
                    x.iter()
                        .zip(&y)
                        .map(
                            |(p, q)| if k < 0.0 { 0.0 } else { eta * p - (eta * d + k.sqrt()) * q },
                        )
                        .collect()
                }
                _ => {
                    let d = dot(&y, &x);
                    x.iter().zip(&y).map(|(p, q)| p - 2.0 * d * q).collect()
                }
            };
            for b in r {
                put(out, b.to_bits());
            }
        }
        M::Dot => {
            let b = arg(1);
            let bits = if s == Scalar::F64 {
                let x: Vec<f64> = (0..n).map(|i| f(get(a0, i))).collect();
                let y: Vec<f64> = (0..n).map(|i| f(get(b, i))).collect();
                dot(&x, &y).to_bits()
            } else {
                (0..n).fold(0u64, |acc, i| acc.wrapping_add(get(a0, i).wrapping_mul(get(b, i))))
            };
            put(out, bits);
        }
        _ => {
            return Err(unsupported(format!(
                "the builtin {fun:?} on {} is not supported for 64-bit types",
                tys.first().map_or_else(String::new, |t| type_name(types, *t))
            )))
        }
    }
    Ok(())
}

/// The inverse hyperbolic functions by fdlibm's formulas on Rust's `ln`/`ln_1p`/`sqrt`, within
/// about 2 ulp: Rust's own `asinh`, `acosh` and `atanh` are plain formulas that overflow
/// above 1e154 and lose most digits of `atanh` near -1.
mod inverse_hyperbolic {
    /// 2^28: above it `1/(4x^2)` is below an ulp of `ln(2x)`.
    const BIG: f64 = 268_435_456.0;

    /// `sign(x) ln(2|x|)` terms for large arguments, `ln_1p` with a cancellation-free argument
    /// otherwise.
    pub(super) fn asinh(x: f64) -> f64 {
        let a = x.abs();
        let r = if a > BIG {
            a.ln() + std::f64::consts::LN_2
        } else if a > 2.0 {
            (2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a)).ln()
        } else {
            let t = a * a;
            (a + t / (1.0 + (1.0 + t).sqrt())).ln_1p()
        };
        if x == 0.0 {
            x
        } else {
            r.copysign(x)
        }
    }

    /// `ln(2x - 1/(x + sqrt(x^2 - 1)))`, or `ln_1p(t + sqrt(2t + t^2))` with `t = x - 1` below 2.
    pub(super) fn acosh(x: f64) -> f64 {
        if x.is_nan() || x < 1.0 {
            f64::NAN
        } else if x > BIG {
            x.ln() + std::f64::consts::LN_2
        } else if x > 2.0 {
            (2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt())).ln()
        } else {
            let t = x - 1.0;
            (t + (2.0 * t + t * t).sqrt()).ln_1p()
        }
    }

    /// `sign(x) ln_1p(2a + 2a^2/(1 - a)) / 2` below 1/2, `sign(x) ln_1p(2a/(1 - a)) / 2` above.
    pub(super) fn atanh(x: f64) -> f64 {
        let a = x.abs();
        let r = if a < 0.5 {
            0.5 * (2.0 * a + 2.0 * a * a / (1.0 - a)).ln_1p()
        } else {
            0.5 * (2.0 * a / (1.0 - a)).ln_1p()
        };
        if x == 0.0 || x.is_nan() {
            x
        } else {
            r.copysign(x)
        }
    }
}

/// The determinant of the matrix with columns `cols`, expanded by cofactors along the first
/// column.
fn cofactor_det(cols: &[Vec<f64>]) -> f64 {
    let n = cols.len();
    if n == 2 {
        return cols[0][0] * cols[1][1] - cols[1][0] * cols[0][1];
    }
    let mut acc = 0.0;
    for r in 0..n {
        let minor: Vec<Vec<f64>> = cols[1..]
            .iter()
            .map(|c| c.iter().enumerate().filter(|(i, _)| *i != r).map(|(_, v)| *v).collect())
            .collect();
        let term = cols[0][r] * cofactor_det(&minor);
        acc = match r {
            0 => term,
            _ if r % 2 == 1 => acc - term,
            _ => acc + term,
        };
    }
    acc
}

/// `(fract, exp)` with `x = fract 2^exp` and `|fract|` in [0.5, 1); zeros, infinities and NaN
/// give `(x, 0)`. Found by halving or doubling by exact powers of two (no bit fields, unlike
/// the PTX lowering).
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut e = x.abs().log2().floor() as i32 + 1;
    // 2^-e in two exact factors (2^1074 alone is not an f64).
    let half = e / 2;
    let mut fr = x * 2f64.powi(-half) * 2f64.powi(half - e);
    while fr.abs() >= 1.0 {
        fr /= 2.0;
        e += 1;
    }
    while fr.abs() < 0.5 {
        fr *= 2.0;
        e -= 1;
    }
    (fr, e)
}

/// `x * 2^n` rounded once: exact scaling in steps that stay normal, then one final product.
fn scalbn(x: f64, n: i32) -> f64 {
    let mut n = n.clamp(-2200, 2200);
    let mut y = x;
    while n > 1023 {
        y *= 2f64.powi(1023);
        n -= 1023;
    }
    // Down by 2^-969 at a time (2^-1022 2^53): the value keeps its 53 bits until the last step.
    while n < -1022 {
        y *= 2f64.powi(-969);
        n += 969;
    }
    y * f64::from_bits(((n + 1023) as u64) << 52)
}

/// The new value of a 64-bit atomic read-modify-write.
pub(crate) fn atomic(op: dianran_frontend::ir::AtomicOp, s: Scalar, old: u64, v: u64) -> u64 {
    w64::atomic(op, s == Scalar::I64, old, v)
}

/// Reads a 64-bit value (two words) from `w` at component `i`, for callers outside.
pub(crate) fn word_pair(w: &[u32], i: usize) -> u64 {
    get(w, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_hyperbolic_functions_are_accurate_where_the_plain_formulas_are_not() {
        use inverse_hyperbolic::{acosh, asinh, atanh};
        // Within 2 ulp of the correctly rounded values (arbitrary precision).
        let near = |got: f64, want: f64| {
            let ulp = f64::from_bits(want.abs().to_bits() + 1) - want.abs();
            assert!((got - want).abs() <= 2.0 * ulp, "{got:e} is not {want:e}");
        };
        near(asinh(f64::MAX), 710.475860073944);
        near(asinh(-1e300), -691.4686750787737);
        near(acosh(1e300), 691.4686750787737);
        near(atanh(-0.9999999999999999), -18.714973875118524);
        near(asinh(0.5), 0.48121182505960347);
        near(acosh(1.5), 0.9624236501192069);
        near(acosh(1.0000001), 4.472135919037347e-4);
        near(atanh(0.25), 0.25541281188299536);
        near(asinh(1e-10), 1e-10);
        assert_eq!(asinh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(atanh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(atanh(1.0), f64::INFINITY);
        assert!(acosh(0.5).is_nan() && atanh(2.0).is_nan() && asinh(f64::NAN).is_nan());
    }

    #[test]
    fn division_and_shifts_follow_wgsl() {
        let b = |op, s, x, y| bin1(op, s, x, y).and_then(|r| r.ok());
        assert_eq!(b(BinaryOperator::Divide, Scalar::I64, 7, 0), Some(7));
        assert_eq!(b(BinaryOperator::Modulo, Scalar::U64, 7, 0), Some(0));
        let min = i64::MIN as u64;
        assert_eq!(b(BinaryOperator::Divide, Scalar::I64, min, u64::MAX), Some(min));
        assert_eq!(b(BinaryOperator::ShiftLeft, Scalar::U64, 1, 64 + 40), Some(1 << 40));
        assert_eq!(
            b(BinaryOperator::ShiftRight, Scalar::I64, (-16i64) as u64, 2),
            Some((-4i64) as u64)
        );
    }

    #[test]
    fn conversions_saturate_and_extend_by_source_sign() {
        let mut out = Vec::new();
        convert(Scalar::I32, Scalar::U64, &[(-1i32) as u32], &mut out);
        assert_eq!(out, vec![u32::MAX, u32::MAX]);
        out.clear();
        put(&mut out, 1e30f64.to_bits());
        let src = out.clone();
        out.clear();
        convert(Scalar::F64, Scalar::I64, &src, &mut out);
        assert_eq!(word_pair(&out, 0), i64::MAX as u64);
        out.clear();
        put(&mut out, f64::NAN.to_bits());
        let src = out.clone();
        out.clear();
        convert(Scalar::F64, Scalar::U32, &src, &mut out);
        assert_eq!(out, vec![0]);
    }
}
