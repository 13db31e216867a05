//! Pure arithmetic: unary and binary operators, conversions, relational and math builtins,
//! all with WGSL semantics on the word representation of [`super::value`].
//!
//! Integer arithmetic wraps; `/` by zero gives the dividend, `%` by zero gives 0,
//! `i32::MIN / -1` is `i32::MIN` and `i32::MIN % -1` is 0; shift amounts are masked to the
//! bit width. Float `%` is `x - y * trunc(x / y)`. `f16` operations are computed in `f32` and
//! rounded to `f16`.

use super::scalar_ops::{float_binary, holds, scal, w32};
use super::value::{f2h, fget, fput, h2f, internal, type_name, unsupported};
use dianran_frontend::ir::{
    BinaryOperator, MathFunction, RelationalFunction, Scalar, Type, TypeId, Types, UnaryOperator,
};
use dianran_frontend::{packing, Diagnostic};

/// `op a` per component.
pub(crate) fn unary(
    types: &Types,
    op: UnaryOperator,
    ty: TypeId,
    a: &[u32],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let s = scal(types, ty);
    if s.is_64() {
        return super::wide::unary(types, op, ty, a, out);
    }
    for &x in a {
        out.push(match (op, s) {
            (UnaryOperator::Negate, Scalar::I32) => (x as i32).wrapping_neg() as u32,
            (UnaryOperator::Negate, Scalar::F32) => x ^ 0x8000_0000,
            (UnaryOperator::Negate, Scalar::F16) => x ^ 0x8000,
            (UnaryOperator::LogicalNot, Scalar::Bool) => u32::from(x == 0),
            (UnaryOperator::BitwiseNot, Scalar::I32 | Scalar::U32) => !x,
            _ => return Err(internal(format!("unary {op:?} on {}", type_name(types, ty)))),
        });
    }
    Ok(())
}

/// One scalar binary operation; a comparison gives a `bool` word (1 or 0).
fn bin1(op: BinaryOperator, s: Scalar, x: u32, y: u32) -> Option<u32> {
    use BinaryOperator as B;
    let r = match s {
        Scalar::I32 | Scalar::U32 => w32::binary(op, s == Scalar::I32, x, y)?,
        Scalar::F32 | Scalar::F16 => {
            float_binary(op, fget(s, x), fget(s, y), f32::trunc)?.map(|v| fput(s, v))
        }
        Scalar::Bool => match op {
            B::Equal | B::NotEqual => Err(holds(op, x, y)?),
            B::And | B::LogicalAnd => Ok(x & y),
            B::InclusiveOr | B::LogicalOr => Ok(x | y),
            _ => return None,
        },
        // Handled by `super::wide` before reaching here.
        Scalar::I64 | Scalar::U64 | Scalar::F64 => return None,
    };
    Some(r.unwrap_or_else(u32::from))
}

/// Replaces with NaN the results WGSL leaves undefined (for
/// [`super::InterpOptions::undefined_math_nan`]): `sin`, `cos`, `tan` beyond ±pi (WGSL states
/// no accuracy there) and `pow` of a negative base or of zero with a non-positive exponent
/// (WGSL's `pow` is `exp2(y * log2(x))`). `out[start..]` holds the function's results.
pub(crate) fn poison_undefined(
    types: &Types,
    fun: MathFunction,
    tys: &[TypeId],
    args: &[&[u32]],
    out: &mut [u32],
) {
    use MathFunction as M;
    let s = tys.first().map_or(Scalar::F32, |t| scal(types, *t));
    // WGSL states these bounds for f16 and f32; the f64 results are C99's everywhere.
    if s.is_64() {
        return;
    }
    let (Some(a), Some(first)) = (args.first(), tys.first()) else { return };
    let _ = first;
    for (i, o) in out.iter_mut().enumerate() {
        let x = fget(s, at(a, i));
        let undefined = match fun {
            M::Sin | M::Cos | M::Tan => x.abs() > std::f32::consts::PI,
            M::Pow => {
                let y = args.get(1).map_or(1.0, |b| fget(s, at(b, i)));
                x < 0.0 || (x == 0.0 && y <= 0.0)
            }
            _ => false,
        };
        if undefined {
            *o = fput(s, f32::NAN);
        }
    }
}

/// `a op b`: component-wise, or one of the linear-algebra forms of `*`.
pub(crate) fn binary(
    types: &Types,
    op: BinaryOperator,
    ta: TypeId,
    a: &[u32],
    tb: TypeId,
    b: &[u32],
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    let s = scal(types, ta);
    if s.is_64() || scal(types, tb).is_64() {
        return super::wide::binary(types, op, ta, a, tb, b, out);
    }
    let bad =
        || internal(format!("{op:?} on {} and {}", type_name(types, ta), type_name(types, tb)));
    if op == BinaryOperator::Multiply {
        match (types.get(ta), types.get(tb)) {
            (
                Type::Matrix { columns: k, rows: r, .. },
                Type::Matrix { columns: c, rows: k2, .. },
            ) => {
                let (k, r, c) = (*k as usize, *r as usize, *c as usize);
                if k != *k2 as usize || a.len() != k * r || b.len() != c * k {
                    return Err(bad());
                }
                for j in 0..c {
                    for i in 0..r {
                        let mut acc = 0.0f32;
                        for x in 0..k {
                            acc += fget(s, a[x * r + i]) * fget(s, b[j * k + x]);
                        }
                        out.push(fput(s, acc));
                    }
                }
                return Ok(());
            }
            (Type::Matrix { columns: k, rows: r, .. }, Type::Vector { size, .. }) => {
                let (k, r) = (*k as usize, *r as usize);
                if k != *size as usize || a.len() != k * r || b.len() != k {
                    return Err(bad());
                }
                for i in 0..r {
                    let mut acc = 0.0f32;
                    for x in 0..k {
                        acc += fget(s, a[x * r + i]) * fget(s, b[x]);
                    }
                    out.push(fput(s, acc));
                }
                return Ok(());
            }
            (Type::Vector { size, .. }, Type::Matrix { columns: c, rows: r, .. }) => {
                let (c, r) = (*c as usize, *r as usize);
                if r != *size as usize || a.len() != r || b.len() != c * r {
                    return Err(bad());
                }
                for j in 0..c {
                    let mut acc = 0.0f32;
                    for i in 0..r {
                        acc += fget(s, a[i]) * fget(s, b[j * r + i]);
                    }
                    out.push(fput(s, acc));
                }
                return Ok(());
            }
            _ => {}
        }
    }
    let s = if a.len() == 1 && b.len() > 1 { scal(types, tb) } else { s };
    let n = a.len().max(b.len());
    if !(a.len() == b.len() || a.len() == 1 || b.len() == 1) {
        return Err(bad());
    }
    for i in 0..n {
        let (x, y) = (at(a, i), at(b, i));
        out.push(bin1(op, s, x, y).ok_or_else(bad)?);
    }
    Ok(())
}

/// Numeric conversion of every component from `from` to `to` (float to int saturates,
/// NaN gives 0).
pub(crate) fn convert(from: Scalar, to: Scalar, a: &[u32], out: &mut Vec<u32>) {
    if from.is_64() || to.is_64() {
        return super::wide::convert(from, to, a, out);
    }
    for &x in a {
        out.push(match (from, to) {
            (f, t) if f == t => x,
            (_, Scalar::Bool) => match from {
                Scalar::F32 | Scalar::F16 => u32::from(fget(from, x) != 0.0),
                _ => u32::from(x != 0),
            },
            (Scalar::Bool, Scalar::F32) => (x as f32).to_bits(),
            (Scalar::Bool, Scalar::F16) => f2h(x as f32),
            (Scalar::Bool, _) => x,
            (Scalar::I32, Scalar::U32) | (Scalar::U32, Scalar::I32) => x,
            (Scalar::I32, Scalar::F32) => (x as i32 as f32).to_bits(),
            (Scalar::U32, Scalar::F32) => (x as f32).to_bits(),
            (Scalar::I32, Scalar::F16) => {
                u32::from(half::f16::from_f64(f64::from(x as i32)).to_bits())
            }
            (Scalar::U32, Scalar::F16) => u32::from(half::f16::from_f64(f64::from(x)).to_bits()),
            (Scalar::F32 | Scalar::F16, Scalar::I32) => fget(from, x) as i32 as u32,
            (Scalar::F32 | Scalar::F16, Scalar::U32) => fget(from, x) as u32,
            (Scalar::F16, Scalar::F32) => h2f(x).to_bits(),
            (Scalar::F32, Scalar::F16) => f2h(f32::from_bits(x)),
            _ => x,
        });
    }
}

/// `all`, `any`, `isNan`, `isInf`.
pub(crate) fn relational(
    types: &Types,
    fun: RelationalFunction,
    ty: TypeId,
    a: &[u32],
    out: &mut Vec<u32>,
) {
    let s = scal(types, ty);
    if s.is_64() && super::wide::relational(fun, a, out) {
        return;
    }
    match fun {
        RelationalFunction::All => out.push(u32::from(a.iter().all(|&x| x != 0))),
        RelationalFunction::Any => out.push(u32::from(a.iter().any(|&x| x != 0))),
        RelationalFunction::IsNan => out.extend(a.iter().map(|&x| u32::from(fget(s, x).is_nan()))),
        RelationalFunction::IsInf => {
            out.extend(a.iter().map(|&x| u32::from(fget(s, x).is_infinite())))
        }
    }
}

/// `select(reject, accept, cond)`: whole-value when `cond` is a scalar, else per component.
pub(crate) fn select(cond: &[u32], accept: &[u32], reject: &[u32], out: &mut Vec<u32>) {
    if cond.len() == 1 {
        out.extend_from_slice(if cond[0] != 0 { accept } else { reject });
    } else {
        // Components are one word, or two for 64-bit scalars.
        let w = (accept.len() / cond.len()).max(1);
        for (i, &c) in cond.iter().enumerate() {
            let src = if c != 0 { accept } else { reject };
            for k in 0..w {
                out.push(src.get(i * w + k).copied().unwrap_or(0));
            }
        }
    }
}

/// Component `i` of an argument, broadcasting scalars.
fn at(a: &[u32], i: usize) -> u32 {
    if a.len() == 1 {
        a[0]
    } else {
        a.get(i).copied().unwrap_or(0)
    }
}

/// WGSL's `clamp(x, 0, 1)`: `min(max(x, 0), 1)` with IEEE maxNum/minNum, so NaN gives 0.
fn clamp01(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// `atomicAdd` (or `atomicSub` with `sub`) on an `atomic<f32>` holding `old`: the new bits.
///
/// Float atomics exist only in storage memory (naga's `SHADER_FLOAT32_ATOMIC`), where PTX's
/// `atom.global.add.f32` rounds to nearest even and flushes subnormal inputs and results to
/// sign-preserving zero (PTX ISA, `atom`); the reference does the same so that our PTX agrees
/// bit for bit. `atomicSub` is the add of the negation, as on PTX.
pub(crate) fn atomic_add_f32(old: u32, v: u32, sub: bool) -> u32 {
    fn ftz(x: f32) -> f32 {
        if x.is_subnormal() {
            f32::from_bits(x.to_bits() & 0x8000_0000)
        } else {
            x
        }
    }
    let v = if sub { -f32::from_bits(v) } else { f32::from_bits(v) };
    ftz(ftz(f32::from_bits(old)) + ftz(v)).to_bits()
}

fn frexp(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let d = f64::from(x);
    let e = d.abs().log2().floor() as i32 + 1;
    let mut f = d / 2f64.powi(e);
    let mut e = e;
    // Correct for rounding of log2 near powers of two.
    if f.abs() >= 1.0 {
        f /= 2.0;
        e += 1;
    } else if f.abs() < 0.5 {
        f *= 2.0;
        e -= 1;
    }
    (f as f32, e)
}

fn det(m: &[f64], n: usize) -> f64 {
    let mut a = m.to_vec();
    let mut d = 1.0;
    for c in 0..n {
        let mut p = c;
        for r in c + 1..n {
            if a[c * n + r].abs() > a[c * n + p].abs() {
                p = r;
            }
        }
        if a[c * n + p] == 0.0 {
            return 0.0;
        }
        if p != c {
            for k in 0..n {
                a.swap(k * n + p, k * n + c);
            }
            d = -d;
        }
        let piv = a[c * n + c];
        d *= piv;
        for r in c + 1..n {
            let f = a[c * n + r] / piv;
            for k in c..n {
                a[k * n + r] -= f * a[k * n + c];
            }
        }
    }
    d
}

/// A math builtin. `tys` are the argument types, `rt` the result type.
pub(crate) fn math(
    types: &Types,
    fun: MathFunction,
    tys: &[TypeId],
    args: &[&[u32]],
    rt: TypeId,
    out: &mut Vec<u32>,
) -> Result<(), Diagnostic> {
    use MathFunction as M;
    let arity_err = || internal(format!("{fun:?} with {} arguments", args.len()));
    let a0: &[u32] = args.first().copied().ok_or_else(arity_err)?;
    let arg =
        |i: usize| -> Result<&[u32], Diagnostic> { args.get(i).copied().ok_or_else(arity_err) };
    let s = tys.first().map_or(Scalar::F32, |t| scal(types, *t));
    if s.is_64() {
        return super::wide::math(types, fun, tys, args, out);
    }
    let n = a0.len();
    let signed = s == Scalar::I32;
    let f1 = |out: &mut Vec<u32>, f: &dyn Fn(f32) -> f32| {
        out.extend(a0.iter().map(|&x| fput(s, f(fget(s, x)))));
    };
    let fv = |w: &[u32]| -> Vec<f32> { w.iter().map(|&x| fget(s, x)).collect() };
    let dotf = |x: &[f32], y: &[f32]| -> f32 { x.iter().zip(y).map(|(a, b)| a * b).sum() };
    match fun {
        M::Abs => out.extend(a0.iter().map(|&x| match s {
            Scalar::I32 | Scalar::U32 => w32::abs(signed, x),
            _ => fput(s, fget(s, x).abs()),
        })),
        M::Min | M::Max => {
            let b = arg(1)?;
            for (i, &a0i) in a0.iter().enumerate() {
                let (x, y) = (a0i, at(b, i));
                out.push(match (s, fun) {
                    (Scalar::I32 | Scalar::U32, M::Min) => w32::min(signed, x, y),
                    (Scalar::I32 | Scalar::U32, _) => w32::max(signed, x, y),
                    (_, M::Min) => fput(s, fget(s, x).min(fget(s, y))),
                    _ => fput(s, fget(s, x).max(fget(s, y))),
                });
            }
        }
        M::Clamp => {
            let (lo, hi) = (arg(1)?, arg(2)?);
            for (i, &a0i) in a0.iter().enumerate() {
                let (x, l, h) = (a0i, at(lo, i), at(hi, i));
                out.push(match s {
                    Scalar::I32 | Scalar::U32 => w32::min(signed, w32::max(signed, x, l), h),
                    _ => fput(s, fget(s, x).max(fget(s, l)).min(fget(s, h))),
                });
            }
        }
        M::Saturate => f1(out, &clamp01),
        M::Cos => f1(out, &f32::cos),
        M::Cosh => f1(out, &f32::cosh),
        M::Sin => f1(out, &f32::sin),
        M::Sinh => f1(out, &f32::sinh),
        M::Tan => f1(out, &f32::tan),
        M::Tanh => f1(out, &f32::tanh),
        M::Acos => f1(out, &f32::acos),
        M::Asin => f1(out, &f32::asin),
        M::Atan => f1(out, &f32::atan),
        M::Asinh => f1(out, &f32::asinh),
        M::Acosh => f1(out, &f32::acosh),
        M::Atanh => f1(out, &f32::atanh),
        M::Radians | M::Degrees => {
            // WGSL: `e * 57.29...`, the factor a constant of e's type (an f16 factor is not
            // f32's), then one rounding: a product of two f16 values is exact in f32.
            let k = if fun == M::Degrees {
                180.0 / std::f64::consts::PI
            } else {
                std::f64::consts::PI / 180.0
            };
            let k = fget(s, fput(s, k as f32));
            f1(out, &|x| x * k)
        }
        M::Ceil => f1(out, &f32::ceil),
        M::Floor => f1(out, &f32::floor),
        M::Round => f1(out, &f32::round_ties_even),
        M::Fract => f1(out, &|x| x - x.floor()),
        M::Trunc => f1(out, &f32::trunc),
        M::Exp => f1(out, &f32::exp),
        M::Exp2 => f1(out, &f32::exp2),
        M::Log => f1(out, &f32::ln),
        M::Log2 => f1(out, &f32::log2),
        M::Sqrt => f1(out, &f32::sqrt),
        M::InverseSqrt => f1(out, &|x| 1.0 / x.sqrt()),
        M::QuantizeToF16 => f1(out, &|x| h2f(f2h(x))),
        M::Sign => out.extend(a0.iter().map(|&x| match s {
            Scalar::I32 | Scalar::U32 => w32::sign(signed, x),
            _ => {
                let v = fget(s, x);
                fput(
                    s,
                    if v > 0.0 {
                        1.0
                    } else if v < 0.0 {
                        -1.0
                    } else {
                        v
                    },
                )
            }
        })),
        M::Atan2 | M::Pow | M::Step => {
            let b = arg(1)?;
            for (i, &a0i) in a0.iter().enumerate() {
                let (x, y) = (fget(s, a0i), fget(s, at(b, i)));
                out.push(fput(
                    s,
                    match fun {
                        M::Atan2 => x.atan2(y),
                        M::Pow => x.powf(y),
                        _ => {
                            if y >= x {
                                1.0
                            } else {
                                0.0
                            }
                        }
                    },
                ));
            }
        }
        M::Modf => {
            // C99: the fraction keeps x's sign (-0 for negative integers) and is ±0 for
            // infinities.
            f1(out, &|x| (if x.is_infinite() { 0.0 } else { x - x.trunc() }).copysign(x));
            f1(out, &f32::trunc);
        }
        M::Frexp => {
            f1(out, &|x| frexp(x).0);
            out.extend(a0.iter().map(|&x| frexp(fget(s, x)).1 as u32));
        }
        M::Ldexp => {
            let e = arg(1)?;
            for (i, &a0i) in a0.iter().enumerate() {
                // Beyond ±400 every f32 (and f16) result is 0 or infinite anyway; the clamp
                // keeps 0 * 2^2000 from becoming 0 * inf = NaN.
                let n = (at(e, i) as i32).clamp(-400, 400);
                let v = f64::from(fget(s, a0i)) * 2f64.powi(n);
                out.push(match s {
                    Scalar::F16 => u32::from(half::f16::from_f64(v).to_bits()),
                    _ => (v as f32).to_bits(),
                });
            }
        }
        M::Fma | M::Mix | M::SmoothStep => {
            let (b, c) = (arg(1)?, arg(2)?);
            let n = n.max(b.len()).max(c.len());
            for i in 0..n {
                let (x, y, z) = (fget(s, at(a0, i)), fget(s, at(b, i)), fget(s, at(c, i)));
                if fun == M::Fma && s == Scalar::F16 {
                    // One rounding to f16: the f16 product is exact in f64 and the sum is
                    // rounded once there (an f32 `mul_add` would round to f32 first).
                    let v = f64::from(x).mul_add(f64::from(y), f64::from(z));
                    out.push(u32::from(half::f16::from_f64(v).to_bits()));
                    continue;
                }
                out.push(fput(
                    s,
                    match fun {
                        M::Fma => x.mul_add(y, z),
                        M::Mix => x * (1.0 - z) + y * z,
                        _ => {
                            let t = clamp01((z - x) / (y - x));
                            t * t * (3.0 - 2.0 * t)
                        }
                    },
                ));
            }
        }
        M::Dot => {
            let b = arg(1)?;
            match s {
                Scalar::I32 | Scalar::U32 => {
                    let mut acc = 0u32;
                    for (i, &a0i) in a0.iter().enumerate() {
                        acc = acc.wrapping_add(a0i.wrapping_mul(at(b, i)));
                    }
                    out.push(acc);
                }
                _ => out.push(fput(s, dotf(&fv(a0), &fv(b)))),
            }
        }
        M::Dot4I8Packed | M::Dot4U8Packed => {
            let (x, y) = (a0.first().copied().unwrap_or(0), arg(1)?.first().copied().unwrap_or(0));
            let mut acc = 0u32;
            for k in 0..4 {
                let (p, q) = ((x >> (8 * k)) & 0xff, (y >> (8 * k)) & 0xff);
                let prod = if fun == M::Dot4I8Packed {
                    (i32::from(p as u8 as i8) * i32::from(q as u8 as i8)) as u32
                } else {
                    p * q
                };
                acc = acc.wrapping_add(prod);
            }
            out.push(acc);
        }
        M::Outer => {
            let b = arg(1)?;
            for &y in b {
                for &x in a0 {
                    out.push(fput(s, fget(s, x) * fget(s, y)));
                }
            }
        }
        M::Cross => {
            let (x, y) = (fv(a0), fv(arg(1)?));
            if x.len() != 3 || y.len() != 3 {
                return Err(arity_err());
            }
            for v in
                [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]]
            {
                out.push(fput(s, v));
            }
        }
        M::Length => {
            let x = fv(a0);
            out.push(fput(s, dotf(&x, &x).sqrt()));
        }
        M::Distance => {
            let (x, y) = (fv(a0), fv(arg(1)?));
            let d: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
            out.push(fput(s, dotf(&d, &d).sqrt()));
        }
        M::Normalize => {
            let x = fv(a0);
            let l = dotf(&x, &x).sqrt();
            out.extend(x.iter().map(|v| fput(s, v / l)));
        }
        M::FaceForward => {
            let (x, y, z) = (fv(a0), fv(arg(1)?), fv(arg(2)?));
            let neg = dotf(&y, &z) >= 0.0;
            out.extend(x.iter().map(|v| fput(s, if neg { -v } else { *v })));
        }
        M::Reflect => {
            let (e1, e2) = (fv(a0), fv(arg(1)?));
            let d = dotf(&e2, &e1);
            out.extend(e1.iter().zip(&e2).map(|(a, b)| fput(s, a - 2.0 * d * b)));
        }
        M::Refract => {
            let (e1, e2) = (fv(a0), fv(arg(1)?));
            let eta = fget(s, arg(2)?.first().copied().unwrap_or(0));
            let d = dotf(&e2, &e1);
            let k = 1.0 - eta * eta * (1.0 - d * d);
            if k < 0.0 {
                out.extend(e1.iter().map(|_| fput(s, 0.0)));
            } else {
                let f = eta * d + k.sqrt();
                out.extend(e1.iter().zip(&e2).map(|(a, b)| fput(s, eta * a - f * b)));
            }
        }
        M::Transpose => {
            if let Some(Type::Matrix { columns, rows, .. }) = tys.first().map(|t| types.get(*t)) {
                let (c, r) = (*columns as usize, *rows as usize);
                if a0.len() != c * r {
                    return Err(arity_err());
                }
                for i in 0..r {
                    for j in 0..c {
                        out.push(a0[j * r + i]);
                    }
                }
            } else {
                return Err(arity_err());
            }
        }
        M::Determinant | M::Inverse => {
            let dim = match tys.first().map(|t| types.get(*t)) {
                Some(Type::Matrix { columns, rows, .. })
                    if columns == rows && a0.len() == (*columns as usize).pow(2) =>
                {
                    *columns as usize
                }
                _ => return Err(arity_err()),
            };
            let m: Vec<f64> = a0.iter().map(|&x| f64::from(fget(s, x))).collect();
            if fun == M::Determinant {
                out.push(fput(s, det(&m, dim) as f32));
            } else {
                let d = det(&m, dim);
                // Inverse by cofactors: inv[j][i] = cof(i, j) / det, columns first.
                for col in 0..dim {
                    for row in 0..dim {
                        // Minor removing column `row` and row `col` (transposed cofactor).
                        let mut minor = Vec::with_capacity((dim - 1) * (dim - 1));
                        for c in (0..dim).filter(|&c| c != row) {
                            for r in (0..dim).filter(|&r| r != col) {
                                minor.push(m[c * dim + r]);
                            }
                        }
                        let sign = if (row + col) % 2 == 0 { 1.0 } else { -1.0 };
                        out.push(fput(s, (sign * det(&minor, dim - 1) / d) as f32));
                    }
                }
            }
        }
        M::CountTrailingZeros => out.extend(a0.iter().map(|&x| x.trailing_zeros())),
        M::CountLeadingZeros => out.extend(a0.iter().map(|&x| x.leading_zeros())),
        M::CountOneBits => out.extend(a0.iter().map(|&x| x.count_ones())),
        M::ReverseBits => out.extend(a0.iter().map(|&x| x.reverse_bits())),
        M::FirstTrailingBit => {
            out.extend(a0.iter().map(|&x| if x == 0 { u32::MAX } else { x.trailing_zeros() }))
        }
        M::FirstLeadingBit => out.extend(a0.iter().map(|&x| {
            if s == Scalar::I32 {
                let v = x as i32;
                if v == 0 || v == -1 {
                    u32::MAX
                } else if v < 0 {
                    31 - (!x).leading_zeros()
                } else {
                    31 - x.leading_zeros()
                }
            } else if x == 0 {
                u32::MAX
            } else {
                31 - x.leading_zeros()
            }
        })),
        M::ExtractBits => {
            let o = arg(1)?.first().copied().unwrap_or(0).min(32);
            let c = arg(2)?.first().copied().unwrap_or(0).min(32 - o);
            out.extend(a0.iter().map(|&x| {
                if c == 0 {
                    return 0;
                }
                let v = ((u64::from(x) >> o) & ((1u64 << c) - 1)) as u32;
                if s == Scalar::I32 && (v >> (c - 1)) & 1 == 1 {
                    v | !(((1u64 << c) - 1) as u32)
                } else {
                    v
                }
            }));
        }
        M::InsertBits => {
            let nb = arg(1)?;
            let o = arg(2)?.first().copied().unwrap_or(0).min(32);
            let c = arg(3)?.first().copied().unwrap_or(0).min(32 - o);
            let mask = ((((1u64 << c) - 1) << o) & 0xffff_ffff) as u32;
            for (i, &a0i) in a0.iter().enumerate() {
                let newb = ((u64::from(at(nb, i)) << o) & 0xffff_ffff) as u32;
                out.push((a0i & !mask) | (newb & mask));
            }
        }
        M::Pack4x8snorm
        | M::Pack4x8unorm
        | M::Pack2x16snorm
        | M::Pack2x16unorm
        | M::Pack2x16float => {
            let xs: Vec<f32> = a0.iter().map(|&x| fget(s, x)).collect();
            out.extend(packing::pack_float(fun, &xs));
        }
        M::Pack4xI8 | M::Pack4xU8 | M::Pack4xI8Clamp | M::Pack4xU8Clamp => {
            out.extend(packing::pack_int(fun, a0));
        }
        M::Unpack4x8snorm
        | M::Unpack4x8unorm
        | M::Unpack2x16snorm
        | M::Unpack2x16unorm
        | M::Unpack2x16float => {
            let rs = scal(types, rt);
            let x = a0.first().copied().unwrap_or(0);
            let lanes = packing::unpack_float(fun, x).unwrap_or_default();
            out.extend(lanes.into_iter().map(|v| fput(rs, v)));
        }
        M::Unpack4xI8 | M::Unpack4xU8 => {
            let x = a0.first().copied().unwrap_or(0);
            out.extend(packing::unpack_int(fun, x).unwrap_or_default());
        }
        #[allow(unreachable_patterns)]
        _ => return Err(unsupported(format!("math function {fun:?}"))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_frontend::ir::Type;

    fn run1(fun: MathFunction, ty: Type, args: &[&[u32]]) -> Vec<u32> {
        let mut types = Types::default();
        let t = types.intern(ty);
        let tys = vec![t; args.len()];
        let mut out = Vec::new();
        math(&types, fun, &tys, args, t, &mut out).unwrap();
        out
    }

    #[test]
    fn quantize_to_f16_rounds_to_nearest_even() {
        // 1 + 2^-11 is halfway between two f16 values: ties to even gives 1.0.
        let x = 1.0f32 + 2f32.powi(-11);
        let got = run1(MathFunction::QuantizeToF16, Type::Scalar(Scalar::F32), &[&[x.to_bits()]]);
        assert_eq!(f32::from_bits(got[0]), 1.0);
        let y = 1.0f32 + 3.0 * 2f32.powi(-11);
        let got = run1(MathFunction::QuantizeToF16, Type::Scalar(Scalar::F32), &[&[y.to_bits()]]);
        assert_eq!(f32::from_bits(got[0]), 1.0 + 2.0 * 2f32.powi(-10));
    }

    #[test]
    fn inverse_and_determinant_of_3x3() {
        // Columns of [[2,0,0],[0,4,0],[1,0,1]] (row-major math notation: m[r][c]).
        let m = [2.0f32, 0.0, 1.0, 0.0, 4.0, 0.0, 0.0, 0.0, 1.0].map(f32::to_bits);
        let ty = Type::Matrix { columns: 3, rows: 3, scalar: Scalar::F32 };
        let det = run1(MathFunction::Determinant, ty.clone(), &[&m]);
        assert_eq!(f32::from_bits(det[0]), 8.0);
        let inv: Vec<f32> =
            run1(MathFunction::Inverse, ty, &[&m]).into_iter().map(f32::from_bits).collect();
        // Inverse of [[2,0,0],[0,4,0],[1,0,1]] is [[0.5,0,0],[0,0.25,0],[-0.5,0,1]], by columns.
        assert_eq!(inv, vec![0.5, 0.0, -0.5, 0.0, 0.25, 0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn integer_edge_cases() {
        let i = Scalar::I32;
        assert_eq!(
            bin1(BinaryOperator::Divide, i, i32::MIN as u32, u32::MAX),
            Some(i32::MIN as u32)
        );
        assert_eq!(bin1(BinaryOperator::Modulo, i, i32::MIN as u32, u32::MAX), Some(0));
        assert_eq!(bin1(BinaryOperator::Divide, i, 7, 0), Some(7));
        assert_eq!(bin1(BinaryOperator::Modulo, i, 7, 0), Some(0));
        assert_eq!(bin1(BinaryOperator::ShiftLeft, Scalar::U32, 1, 33), Some(2));
        let mut out = Vec::new();
        convert(Scalar::F32, Scalar::I32, &[f32::NAN.to_bits(), 3e9f32.to_bits()], &mut out);
        convert(Scalar::F32, Scalar::U32, &[(-5.0f32).to_bits()], &mut out);
        assert_eq!(out, vec![0, i32::MAX as u32, 0]);
    }

    #[test]
    fn float_atomic_add_rounds_and_flushes_like_ptx_global_atom() {
        let b = |x: f32| x.to_bits();
        assert_eq!(atomic_add_f32(b(1.5), b(2.25), false), b(3.75));
        assert_eq!(atomic_add_f32(b(1.5), b(2.25), true), b(-0.75));
        // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to even gives 1.
        assert_eq!(atomic_add_f32(b(1.0), b(2f32.powi(-24)), false), b(1.0));
        // A subnormal input counts as zero, and so does a subnormal result (sign kept).
        let sub = f32::from_bits(1);
        assert_eq!(atomic_add_f32(b(sub), b(sub), false), 0);
        assert_eq!(atomic_add_f32(b(-sub), b(-0.0), false), b(-0.0));
        let tiny = f32::MIN_POSITIVE;
        // 1.5 * MIN_POSITIVE - MIN_POSITIVE is subnormal: flushed.
        assert_eq!(atomic_add_f32(b(tiny * 1.5), b(tiny), true), 0);
        assert_eq!(atomic_add_f32(b(tiny), b(tiny * 0.5), true), b(tiny));
    }
}
