//! WGSL math builtins, with the semantics of our own backend (`dianran_ptx::codegen`'s
//! `builtins.rs` and precise math library) wherever WGSL leaves a choice.
//!
//! * Transcendental functions call CUDA's libdevice (`__nv_sinf`, `__nv_powf`, ...), which
//!   `lib.rs` links when any `__nv_*` function is declared; `pow(x, n)` with a constant `n` of
//!   1, 2, 3 or -1 is `x`, `x*x`, `x*x*x` or `1/x`, as in our backend.
//! * `sqrt` is `llvm.sqrt` (`sqrt.rn.f32`), `inverseSqrt` the correctly rounded `1 / sqrt(x)`
//!   (our backend's precise form), `normalize` `v / sqrt(dot(v, v))`.
//! * `min`/`max`/`clamp` are `llvm.minnum`/`maxnum` (PTX `min`/`max`: a NaN operand gives the
//!   other), `saturate` is `cvt.sat.f32.f32` (NaN gives 0), `round` is `llvm.roundeven`.
//! * `modf`, `frexp` and `ldexp` are our backend's precise library spelled in IR (C99 results,
//!   subnormals included, `ldexp` rounded once for every exponent).
//! * f16 operands of the functions computed in f32 are widened and the result rounded once to
//!   f16, as in our backend; `abs`, `min`, `max`, `clamp`, `floor` and the like, `fract`,
//!   `fma`, `mix`, `sign`, `step` and the geometric products stay in f16.
//! * Bit operations spell out WGSL's offset/count clamping, so nothing is poison.
//!
//! `inverse`, `outer` and `refract` (which our backend does not have) follow the reference
//! interpreter's formulas.

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{BinaryOperator as B, MathFunction as M, Scalar, Type, TypeId, ValueId};
use dianran_ptx::abi::layout;
use dianran_ptx::lowering_common;
use dianran_ptx::lowering_common::ScalarLowering;
use inkwell::values::{AnyValue, FloatValue, IntValue};
use inkwell::{FloatPredicate as FP, IntPredicate as IP};

/// The libdevice function computing each transcendental builtin in f32.
const LIBDEVICE: [(M, &str); 18] = [
    (M::Sin, "__nv_sinf"),
    (M::Cos, "__nv_cosf"),
    (M::Tan, "__nv_tanf"),
    (M::Asin, "__nv_asinf"),
    (M::Acos, "__nv_acosf"),
    (M::Atan, "__nv_atanf"),
    (M::Atan2, "__nv_atan2f"),
    (M::Sinh, "__nv_sinhf"),
    (M::Cosh, "__nv_coshf"),
    (M::Tanh, "__nv_tanhf"),
    (M::Asinh, "__nv_asinhf"),
    (M::Acosh, "__nv_acoshf"),
    (M::Atanh, "__nv_atanhf"),
    (M::Exp, "__nv_expf"),
    (M::Exp2, "__nv_exp2f"),
    (M::Log, "__nv_logf"),
    (M::Log2, "__nv_log2f"),
    (M::Pow, "__nv_powf"),
];

/// The libdevice function of `f`, if it is computed by one.
fn libdevice_name(f: M) -> Option<&'static str> {
    LIBDEVICE.iter().find(|(g, _)| *g == f).map(|(_, n)| *n)
}

/// The value of a constant float as LLVM prints it (`float 2.000000e+00`); `None` for
/// anything else (instructions, `undef`, constant expressions, hexadecimal spellings).
fn constant_value(v: FloatValue<'_>) -> Option<f64> {
    if !v.is_const() {
        return None;
    }
    let text = v.print_to_string().to_string();
    let (_, num) = text.split_once(' ')?;
    num.trim().parse::<f64>().ok()
}

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// The math builtin `f` applied to `args`, producing a value of type `ty`.
    pub(crate) fn math(&mut self, f: M, args: &[ValueId], ty: TypeId) -> R<Vec<V<'ctx>>> {
        // Validated IR has the right arity; checking it makes every `args[i]` and `x[i]` below
        // (i < arity) in bounds.
        if args.len() < f.argument_count() || args.is_empty() {
            return Err(self.internal("math function arity"));
        }
        for &a in args {
            if self.comps(a)?.is_empty() {
                return Err(self.internal("empty math operand"));
            }
        }
        let out = self.math_values(f, args, ty)?;
        if out.len() != layout::leaf_count(&self.types, ty) {
            return Err(self.internal(&format!("{f:?}: result shape")));
        }
        Ok(out)
    }

    fn math_values(&mut self, f: M, args: &[ValueId], ty: TypeId) -> R<Vec<V<'ctx>>> {
        let s = self.scalar_ty(args[0])?;
        if let Some(name) = libdevice_name(f) {
            if !s.is_float() {
                return Err(self.internal(&format!("{f:?} of a non-float")));
            }
            return self.math_comps(args, |l, s, x| {
                if f == M::Pow && s == Scalar::F32 {
                    if let Some(r) = l.math_pow_const(x[0], x[1])? {
                        return Ok(r.into());
                    }
                }
                l.math_f32(s, x, |l, y| l.math_call(name, y))
            });
        }
        match f {
            M::Abs => self.math_comps(args, |l, s, x| match s {
                Scalar::F32 | Scalar::F16 => Ok(l.fabs(x[0].into_float_value())?.into()),
                Scalar::I32 => {
                    let no = l.cx.bool_type().const_zero();
                    let i32t = l.cx.i32_type().into();
                    l.call_v("llvm.abs.i32", i32t, &[x[0], no.into()])
                }
                _ => Ok(x[0]),
            }),
            M::Min | M::Max => {
                self.math_comps(args, |l, s, x| l.math_minmax(f == M::Min, s, x[0], x[1]))
            }
            M::Clamp => self.math_comps(args, |l, s, x| {
                let t = l.math_minmax(false, s, x[0], x[1])?;
                l.math_minmax(true, s, t, x[2])
            }),
            M::Saturate => {
                self.math_comps(args, |l, s, x| l.math_f32(s, x, |l, y| l.math_saturate(y[0])))
            }
            M::Sqrt => self.math_comps(args, |l, s, x| {
                l.math_f32(s, x, |l, y| l.math_fintr("llvm.sqrt", &[y[0]]))
            }),
            M::InverseSqrt => self.math_comps(args, |l, s, x| {
                l.math_f32(s, x, |l, y| {
                    let r = l.math_fintr("llvm.sqrt", &[y[0]])?;
                    let one = l.cx.f32_type().const_float(1.0);
                    l.ok(l.b.build_float_div(one, r, ""))
                })
            }),
            M::Radians | M::Degrees => {
                let k = lowering_common::angle_factor(f == M::Radians);
                self.math_comps(args, |l, s, x| {
                    let kk = l.const_of(s, k);
                    l.binary_scalar(B::Multiply, s, x[0], kk)
                })
            }
            M::Floor | M::Ceil | M::Round | M::Trunc => {
                let name = match f {
                    M::Floor => "llvm.floor",
                    M::Ceil => "llvm.ceil",
                    M::Round => "llvm.roundeven",
                    _ => "llvm.trunc",
                };
                self.math_comps(args, |l, _, x| {
                    Ok(l.math_fintr(name, &[x[0].into_float_value()])?.into())
                })
            }
            M::Fract => self.math_comps(args, |l, s, x| {
                let fl = l.math_fintr("llvm.floor", &[x[0].into_float_value()])?;
                l.binary_scalar(B::Subtract, s, x[0], fl.into())
            }),
            M::Fma => self.math_comps(args, |l, _, x| {
                let [a, b, c] = [x[0], x[1], x[2]].map(|v| v.into_float_value());
                Ok(l.fma(a, b, c)?.into())
            }),
            M::Mix => self.math_comps(args, |l, s, x| {
                // fma(y - x, t, x), as our backend computes it.
                let d = l.binary_scalar(B::Subtract, s, x[1], x[0])?;
                let [d, t, a] = [d, x[2], x[0]].map(|v| v.into_float_value());
                Ok(l.fma(d, t, a)?.into())
            }),
            M::Step => self.math_comps(args, |l, s, x| {
                // x >= edge ? 1 : 0 (NaN gives 0).
                let (e, v) = (x[0].into_float_value(), x[1].into_float_value());
                let p = l.ok(l.b.build_float_compare(FP::OGE, v, e, ""))?;
                let (one, zero) = (l.const_of(s, 1.0), l.const_of(s, 0.0));
                l.select(p, one, zero)
            }),
            M::SmoothStep => self.math_comps(args, |l, s, x| {
                l.math_f32(s, x, |l, y| {
                    let bd = &l.b;
                    let num = l.ok(bd.build_float_sub(y[2], y[0], ""))?;
                    let den = l.ok(bd.build_float_sub(y[1], y[0], ""))?;
                    let t = l.ok(bd.build_float_div(num, den, ""))?;
                    let t = l.math_saturate(t)?;
                    let f32t = l.cx.f32_type();
                    let k = l.fma(f32t.const_float(-2.0), t, f32t.const_float(3.0))?;
                    let tt = l.ok(bd.build_float_mul(t, t, ""))?;
                    l.ok(bd.build_float_mul(tt, k, ""))
                })
            }),
            M::Sign => self.math_comps(args, |l, s, x| {
                let zero = l.const_of(s, 0.0);
                let one = l.const_of(s, 1.0);
                let m1 = l.const_of(s, -1.0);
                let (gt, lt) = if s.is_float() {
                    let (v, z) = (x[0].into_float_value(), zero.into_float_value());
                    (
                        l.ok(l.b.build_float_compare(FP::OGT, v, z, ""))?,
                        l.ok(l.b.build_float_compare(FP::OLT, v, z, ""))?,
                    )
                } else {
                    let (v, z) = (x[0].into_int_value(), zero.into_int_value());
                    let (pg, pl) =
                        if s == Scalar::I32 { (IP::SGT, IP::SLT) } else { (IP::UGT, IP::ULT) };
                    (
                        l.ok(l.b.build_int_compare(pg, v, z, ""))?,
                        l.ok(l.b.build_int_compare(pl, v, z, ""))?,
                    )
                };
                // Floats keep ±0 and NaN; integers give 0.
                let rest = if s.is_float() { x[0] } else { zero };
                let a = l.select(lt, m1, rest)?;
                l.select(gt, one, a)
            }),
            M::Modf | M::Frexp => {
                let mut first = Vec::new();
                let mut second = Vec::new();
                for v in self.comps(args[0])? {
                    let v32 = self.math_widen(s, v)?;
                    if f == M::Modf {
                        let (fr, w) = self.math_modf(v32)?;
                        first.push(self.math_narrow(s, fr)?);
                        second.push(self.math_narrow(s, w)?);
                    } else {
                        let (fr, e) = self.math_frexp(v32)?;
                        first.push(self.math_narrow(s, fr)?);
                        second.push(e.into());
                    }
                }
                first.extend(second);
                Ok(first)
            }
            M::Ldexp => self.math_comps(args, |l, s, x| {
                let xf = l.math_widen(s, x[0])?;
                let r = l.math_ldexp(xf, x[1].into_int_value())?;
                l.math_narrow(s, r)
            }),
            M::QuantizeToF16 => self.math_comps(args, |l, _, x| {
                let h =
                    l.ok(l.b.build_float_trunc(x[0].into_float_value(), l.cx.f16_type(), ""))?;
                Ok(l.ok(l.b.build_float_ext(h, l.cx.f32_type(), ""))?.into())
            }),
            M::Dot => {
                let a = self.comps(args[0])?;
                let b = self.comps(args[1])?;
                Ok(vec![self.dot(s, &a, &b)?])
            }
            M::Outer => {
                let a = self.comps(args[0])?;
                let b = self.comps(args[1])?;
                let mut out = Vec::new();
                for &y in &b {
                    for &x in &a {
                        out.push(self.binary_scalar(B::Multiply, s, x, y)?);
                    }
                }
                Ok(out)
            }
            M::Cross => {
                let a = self.comps(args[0])?;
                let b = self.comps(args[1])?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(self.internal("cross shape"));
                }
                let mut out = Vec::new();
                for i in 0..3 {
                    // a[j] b[k] - a[k] b[j] as fma(a[j], b[k], -(a[k] b[j])).
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    let p = self.binary_scalar(B::Multiply, s, a[k], b[j])?.into_float_value();
                    let np = self.ok(self.b.build_float_neg(p, ""))?;
                    let r = self.fma(a[j].into_float_value(), b[k].into_float_value(), np)?;
                    out.push(r.into());
                }
                Ok(out)
            }
            M::Length | M::Distance | M::Normalize => {
                let mut a = self.comps(args[0])?;
                if f == M::Distance {
                    let b = self.comps(args[1])?;
                    a = a
                        .iter()
                        .zip(&b)
                        .map(|(&p, &q)| self.binary_scalar(B::Subtract, s, p, q))
                        .collect::<R<_>>()?;
                }
                let a32: Vec<V<'ctx>> =
                    a.iter().map(|&v| Ok(self.math_widen(s, v)?.into())).collect::<R<_>>()?;
                let d = self.dot(Scalar::F32, &a32, &a32)?.into_float_value();
                let r = self.math_fintr("llvm.sqrt", &[d])?;
                if f == M::Normalize {
                    let mut out = Vec::new();
                    for &v in &a32 {
                        let q = self.ok(self.b.build_float_div(v.into_float_value(), r, ""))?;
                        out.push(self.math_narrow(s, q)?);
                    }
                    Ok(out)
                } else {
                    Ok(vec![self.math_narrow(s, r)?])
                }
            }
            M::FaceForward => {
                // dot(nref, i) < 0 ? n : -n
                let n = self.comps(args[0])?;
                let i = self.comps(args[1])?;
                let nr = self.comps(args[2])?;
                let d = self.dot(s, &nr, &i)?.into_float_value();
                let z = d.get_type().const_zero();
                let p = self.ok(self.b.build_float_compare(FP::OLT, d, z, ""))?;
                n.iter()
                    .map(|&v| {
                        let nv = self.ok(self.b.build_float_neg(v.into_float_value(), ""))?;
                        self.select(p, v, nv.into())
                    })
                    .collect()
            }
            M::Reflect => {
                // i - 2 dot(n, i) n as fma(dot(n, i) * -2, n, i).
                let i = self.comps(args[0])?;
                let n = self.comps(args[1])?;
                let d = self.dot(s, &n, &i)?;
                let m2 = self.const_of(s, -2.0);
                let k = self.binary_scalar(B::Multiply, s, d, m2)?.into_float_value();
                i.iter()
                    .zip(&n)
                    .map(|(&iv, &nv)| {
                        Ok(self.fma(k, nv.into_float_value(), iv.into_float_value())?.into())
                    })
                    .collect()
            }
            M::Refract => self.math_refract(s, args),
            M::Transpose => lowering_common::transpose(self, args[0]),
            M::Determinant => {
                let cols = self.math_square(args[0])?;
                Ok(vec![self.math_det(s, &cols)?])
            }
            M::Inverse => self.math_inverse(s, args[0]),
            M::CountOneBits | M::ReverseBits | M::CountLeadingZeros | M::CountTrailingZeros => {
                let (name, poison_flag) = match f {
                    M::CountOneBits => ("llvm.ctpop.i32", false),
                    M::ReverseBits => ("llvm.bitreverse.i32", false),
                    M::CountLeadingZeros => ("llvm.ctlz.i32", true),
                    _ => ("llvm.cttz.i32", true),
                };
                self.math_comps(args, |l, _, x| {
                    let i32t = l.cx.i32_type().into();
                    if poison_flag {
                        // is_zero_poison = false: 32 for 0.
                        let no = l.cx.bool_type().const_zero();
                        l.call_v(name, i32t, &[x[0], no.into()])
                    } else {
                        l.call_v(name, i32t, &[x[0]])
                    }
                })
            }
            M::FirstLeadingBit => self.math_comps(args, |l, s, x| {
                // 31 - clz(y), where y is x (u32) or x with its sign bits flipped to zeros
                // (i32): -1 (all ones) when no bit is found, as PTX's `bfind`.
                let v = x[0].into_int_value();
                let y = if s == Scalar::I32 {
                    let sign = l.ok(l.b.build_right_shift(v, l.u32c(31), true, ""))?;
                    l.ok(l.b.build_xor(v, sign, ""))?
                } else {
                    v
                };
                let z = l.math_clz(y)?;
                Ok(l.ok(l.b.build_int_sub(l.u32c(31), z, ""))?.into())
            }),
            M::FirstTrailingBit => self.math_comps(args, |l, _, x| {
                // The lowest set bit's index, -1 for 0: 31 - clz(x & -x).
                let v = x[0].into_int_value();
                let n = l.ok(l.b.build_int_neg(v, ""))?;
                let low = l.ok(l.b.build_and(v, n, ""))?;
                let z = l.math_clz(low)?;
                Ok(l.ok(l.b.build_int_sub(l.u32c(31), z, ""))?.into())
            }),
            M::ExtractBits => self.math_comps(args, |l, s, x| {
                let v = x[0].into_int_value();
                let (o, c) = l.math_clamp_bits(x[1].into_int_value(), x[2].into_int_value())?;
                // (v << (32 - o - c)) >> (32 - c), arithmetic for i32; 0 when c == 0. The shift
                // amounts are below 32 whenever c > 0 (o + c <= 32); masked otherwise.
                let bd = &l.b;
                let k32 = l.u32c(32);
                let up = l.ok(bd.build_int_sub(k32, o, ""))?;
                let up = l.ok(bd.build_int_sub(up, c, ""))?;
                let up = l.ok(bd.build_and(up, l.u32c(31), ""))?;
                let down = l.ok(bd.build_int_sub(k32, c, ""))?;
                let down = l.ok(bd.build_and(down, l.u32c(31), ""))?;
                let t = l.ok(bd.build_left_shift(v, up, ""))?;
                let t = l.ok(bd.build_right_shift(t, down, s == Scalar::I32, ""))?;
                let none = l.ok(bd.build_int_compare(IP::EQ, c, l.u32c(0), ""))?;
                l.select(none, l.u32c(0).into(), t.into())
            }),
            M::InsertBits => self.math_comps(args, |l, _, x| {
                let (e, nb) = (x[0].into_int_value(), x[1].into_int_value());
                let (o, c) = l.math_clamp_bits(x[2].into_int_value(), x[3].into_int_value())?;
                let bd = &l.b;
                let (k31, k32) = (l.u32c(31), l.u32c(32));
                // mask = (~0 >> (32 - c)) << o, 0 when c == 0 (then o may be 32).
                let down = l.ok(bd.build_int_sub(k32, c, ""))?;
                let down = l.ok(bd.build_and(down, k31, ""))?;
                let om = l.ok(bd.build_and(o, k31, ""))?;
                let mask = l.ok(bd.build_right_shift(l.u32c(u32::MAX), down, false, ""))?;
                let mask = l.ok(bd.build_left_shift(mask, om, ""))?;
                let none = l.ok(bd.build_int_compare(IP::EQ, c, l.u32c(0), ""))?;
                let mask = l.select(none, l.u32c(0).into(), mask.into())?.into_int_value();
                let keep = l.ok(bd.build_not(mask, ""))?;
                let keep = l.ok(bd.build_and(e, keep, ""))?;
                let ins = l.ok(bd.build_left_shift(nb, om, ""))?;
                let ins = l.ok(bd.build_and(ins, mask, ""))?;
                Ok(l.ok(bd.build_or(keep, ins, ""))?.into())
            }),
            M::Dot4I8Packed | M::Dot4U8Packed => {
                let a = self.scalar(args[0])?.into_int_value();
                let b = self.scalar(args[1])?.into_int_value();
                let signed = f == M::Dot4I8Packed;
                let mut acc = self.u32c(0);
                for k in 0..4 {
                    let p = self.math_field(a, 8 * k, 8, signed)?;
                    let q = self.math_field(b, 8 * k, 8, signed)?;
                    let m = self.ok(self.b.build_int_mul(p, q, ""))?;
                    acc = self.ok(self.b.build_int_add(acc, m, ""))?;
                }
                Ok(vec![acc.into()])
            }
            M::Pack4x8snorm | M::Pack4x8unorm | M::Pack2x16snorm | M::Pack2x16unorm => {
                let c = self.comps(args[0])?;
                let (lo, scale, bits) = match f {
                    M::Pack4x8snorm => (-1.0, 127.0, 8),
                    M::Pack4x8unorm => (0.0, 255.0, 8),
                    M::Pack2x16snorm => (-1.0, 32767.0, 16),
                    _ => (0.0, 65535.0, 16),
                };
                let f32t = self.cx.f32_type();
                let mut fields = Vec::new();
                for &v in &c {
                    // WGSL: floor(0.5 + scale * clamp(v, lo, 1)), not round-to-even; the
                    // clamp is max then min (NaN gives lo), as in our backend.
                    let t = self.math_minmax(false, Scalar::F32, v, f32t.const_float(lo).into())?;
                    let t = self.math_minmax(true, Scalar::F32, t, f32t.const_float(1.0).into())?;
                    let bd = &self.b;
                    let t = self.ok(bd.build_float_mul(
                        t.into_float_value(),
                        f32t.const_float(scale),
                        "",
                    ))?;
                    let t = self.ok(bd.build_float_add(t, f32t.const_float(0.5), ""))?;
                    let t = self.math_fintr("llvm.floor", &[t])?;
                    let i = self.ok(self.b.build_float_to_signed_int(t, self.cx.i32_type(), ""))?;
                    fields.push(i);
                }
                Ok(vec![self.math_pack(&fields, bits)?.into()])
            }
            M::Pack4xI8 | M::Pack4xU8 | M::Pack4xI8Clamp | M::Pack4xU8Clamp => {
                let c = self.comps(args[0])?;
                let i32t = self.cx.i32_type().into();
                let mut fields = Vec::new();
                for &v in &c {
                    let v = match f {
                        M::Pack4xI8Clamp => {
                            let t = self.call_v(
                                "llvm.smax.i32",
                                i32t,
                                &[v, self.u32c((-128i32) as u32).into()],
                            )?;
                            self.call_v("llvm.smin.i32", i32t, &[t, self.u32c(127).into()])?
                        }
                        M::Pack4xU8Clamp => {
                            self.call_v("llvm.umin.i32", i32t, &[v, self.u32c(255).into()])?
                        }
                        _ => v,
                    };
                    fields.push(v.into_int_value());
                }
                Ok(vec![self.math_pack(&fields, 8)?.into()])
            }
            M::Pack2x16float => {
                // Each component rounded to f16 (`cvt.rn.f16.f32`), the pair as one word.
                let c = self.comps(args[0])?;
                if c.len() != 2 {
                    return Err(self.internal("pack2x16float shape"));
                }
                let mut v = self.cx.f16_type().vec_type(2).get_undef();
                for (i, &x) in c.iter().enumerate() {
                    let h = self.ok(self.b.build_float_trunc(
                        x.into_float_value(),
                        self.cx.f16_type(),
                        "",
                    ))?;
                    v = self.ok(self.b.build_insert_element(v, h, self.u32c(i as u32), ""))?;
                }
                Ok(vec![self.ok(self.b.build_bit_cast(v, self.cx.i32_type(), ""))?])
            }
            M::Unpack4x8snorm | M::Unpack4x8unorm | M::Unpack2x16snorm | M::Unpack2x16unorm => {
                let x = self.scalar(args[0])?.into_int_value();
                let (n, bits, signed, scale) = match f {
                    M::Unpack4x8snorm => (4, 8, true, 127.0),
                    M::Unpack4x8unorm => (4, 8, false, 255.0),
                    M::Unpack2x16snorm => (2, 16, true, 32767.0),
                    _ => (2, 16, false, 65535.0),
                };
                let f32t = self.cx.f32_type();
                let mut out = Vec::new();
                for i in 0..n {
                    let b = self.math_field(x, i * bits, bits, signed)?;
                    let v = if signed {
                        self.ok(self.b.build_signed_int_to_float(b, f32t, ""))?
                    } else {
                        self.ok(self.b.build_unsigned_int_to_float(b, f32t, ""))?
                    };
                    let v = self.ok(self.b.build_float_div(v, f32t.const_float(scale), ""))?;
                    out.push(if signed {
                        self.math_minmax(
                            false,
                            Scalar::F32,
                            v.into(),
                            f32t.const_float(-1.0).into(),
                        )?
                    } else {
                        v.into()
                    });
                }
                Ok(out)
            }
            M::Unpack2x16float => {
                // The word as `<2 x half>` (one `mov.b32 {lo, hi}`), each half widened.
                let x = self.scalar(args[0])?;
                let v2 = self.cx.f16_type().vec_type(2);
                let v = self.ok(self.b.build_bit_cast(x, v2, ""))?.into_vector_value();
                let mut out = Vec::new();
                for i in 0..2 {
                    let h = self.ok(self.b.build_extract_element(v, self.u32c(i), ""))?;
                    let w = self.ok(self.b.build_float_ext(
                        h.into_float_value(),
                        self.cx.f32_type(),
                        "",
                    ))?;
                    out.push(w.into());
                }
                Ok(out)
            }
            M::Unpack4xI8 | M::Unpack4xU8 => {
                let x = self.scalar(args[0])?.into_int_value();
                let signed = f == M::Unpack4xI8;
                (0..4).map(|i| Ok(self.math_field(x, 8 * i, 8, signed)?.into())).collect()
            }
            _ => {
                let _ = ty;
                Err(self.unsupported(&format!("the math builtin {f:?}")))
            }
        }
    }

    // ---- helpers (named `math_*`: the `impl Lower` blocks of all modules share one scope) ----

    /// Component-wise application of `f` over the arguments' components (scalar arguments
    /// broadcast).
    fn math_comps(
        &mut self,
        args: &[ValueId],
        mut f: impl FnMut(&mut Self, Scalar, &[V<'ctx>]) -> R<V<'ctx>>,
    ) -> R<Vec<V<'ctx>>> {
        let first = *args.first().ok_or_else(|| self.internal("math without arguments"))?;
        let s = self.scalar_ty(first)?;
        let lists: Vec<Vec<V<'ctx>>> = args.iter().map(|a| self.comps(*a)).collect::<R<_>>()?;
        let n = lists.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let xs: Vec<V<'ctx>> = lists.iter().map(|l| l[i.min(l.len() - 1)]).collect();
            out.push(f(self, s, &xs)?);
        }
        Ok(out)
    }

    /// A float component as f32 (f16 widened exactly).
    fn math_widen(&self, s: Scalar, v: V<'ctx>) -> R<FloatValue<'ctx>> {
        let v = v.into_float_value();
        if s == Scalar::F16 {
            self.ok(self.b.build_float_ext(v, self.cx.f32_type(), ""))
        } else {
            Ok(v)
        }
    }

    /// An f32 result as a component of scalar type `s` (rounded once to f16).
    fn math_narrow(&self, s: Scalar, v: FloatValue<'ctx>) -> R<V<'ctx>> {
        if s == Scalar::F16 {
            Ok(self.ok(self.b.build_float_trunc(v, self.cx.f16_type(), ""))?.into())
        } else {
            Ok(v.into())
        }
    }

    /// An f32 computation applied to f32 or f16 operands (through f32).
    fn math_f32(
        &mut self,
        s: Scalar,
        xs: &[V<'ctx>],
        f: impl FnOnce(&mut Self, &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>>,
    ) -> R<V<'ctx>> {
        let ys: Vec<FloatValue<'ctx>> =
            xs.iter().map(|&x| self.math_widen(s, x)).collect::<R<_>>()?;
        let r = f(self, &ys)?;
        self.math_narrow(s, r)
    }

    /// The overloaded float intrinsic `name` (`llvm.floor`, ...) at the operands' type.
    fn math_fintr(&self, name: &str, args: &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>> {
        let t = args.first().ok_or_else(|| self.internal("intrinsic arity"))?.get_type();
        let sfx = if t == self.cx.f16_type() { "f16" } else { "f32" };
        let a: Vec<V<'ctx>> = args.iter().map(|&v| v.into()).collect();
        Ok(self.call_v(&format!("{name}.{sfx}"), t.into(), &a)?.into_float_value())
    }

    /// A libdevice `float(float...)` function.
    fn math_call(&self, name: &str, args: &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>> {
        let a: Vec<V<'ctx>> = args.iter().map(|&v| v.into()).collect();
        Ok(self.call_v(name, self.cx.f32_type().into(), &a)?.into_float_value())
    }

    /// `pow(x, n)` for a constant `n` of 1, 2, 3 or -1: `x`, `x*x`, `x*x*x`, `1/x` (our
    /// backend's forms: C99's special cases, at most 1.5 ulp). `None` for other exponents.
    fn math_pow_const(&self, x: V<'ctx>, n: V<'ctx>) -> R<Option<FloatValue<'ctx>>> {
        let (x, n) = (x.into_float_value(), n.into_float_value());
        let Some(k) = constant_value(n) else { return Ok(None) };
        let bd = &self.b;
        Ok(Some(if k == 1.0 {
            x
        } else if k == 2.0 {
            self.ok(bd.build_float_mul(x, x, ""))?
        } else if k == 3.0 {
            let sq = self.ok(bd.build_float_mul(x, x, ""))?;
            self.ok(bd.build_float_mul(sq, x, ""))?
        } else if k == -1.0 {
            self.ok(bd.build_float_div(x.get_type().const_float(1.0), x, ""))?
        } else {
            return Ok(None);
        }))
    }

    /// `min`/`max` of one scalar type (`llvm.minnum`/`maxnum` for floats).
    fn math_minmax(&self, min: bool, s: Scalar, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        if s.is_float() {
            let name = if min { "llvm.minnum" } else { "llvm.maxnum" };
            return Ok(self
                .math_fintr(name, &[a.into_float_value(), b.into_float_value()])?
                .into());
        }
        let name = match (min, s == Scalar::I32) {
            (true, true) => "llvm.smin.i32",
            (true, false) => "llvm.umin.i32",
            (false, true) => "llvm.smax.i32",
            (false, false) => "llvm.umax.i32",
        };
        self.call_v(name, self.cx.i32_type().into(), &[a, b])
    }

    /// `cvt.sat.f32.f32`: clamped to [0, 1], NaN gives 0.
    fn math_saturate(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let f32t = self.cx.f32_type();
        Ok(self.call_v("llvm.nvvm.saturate.f", f32t.into(), &[x.into()])?.into_float_value())
    }

    /// `llvm.ctlz.i32` with a defined result (32) for 0.
    fn math_clz(&self, v: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let no = self.cx.bool_type().const_zero();
        let i32t = self.cx.i32_type().into();
        Ok(self.call_v("llvm.ctlz.i32", i32t, &[v.into(), no.into()])?.into_int_value())
    }

    /// WGSL's bit-field clamping: `o = min(offset, 32)`, `c = min(count, 32 - o)`.
    fn math_clamp_bits(
        &self,
        offset: IntValue<'ctx>,
        count: IntValue<'ctx>,
    ) -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
        let i32t = self.cx.i32_type().into();
        let o = self.call_v("llvm.umin.i32", i32t, &[offset.into(), self.u32c(32).into()])?;
        let rest = self.ok(self.b.build_int_sub(self.u32c(32), o.into_int_value(), ""))?;
        let c = self.call_v("llvm.umin.i32", i32t, &[count.into(), rest.into()])?;
        Ok((o.into_int_value(), c.into_int_value()))
    }

    /// Bits `[pos, pos + len)` of `x` (constant position and length, `0 < len`,
    /// `pos + len <= 32`), sign-extended when `signed`.
    fn math_field(&self, x: IntValue<'ctx>, pos: u32, len: u32, signed: bool) -> R<IntValue<'ctx>> {
        let up = 32 - pos - len;
        let t = if up == 0 { x } else { self.ok(self.b.build_left_shift(x, self.u32c(up), ""))? };
        if len == 32 {
            return Ok(t);
        }
        self.ok(self.b.build_right_shift(t, self.u32c(32 - len), signed, ""))
    }

    /// The low `bits` bits of each field, field `i` at bit `i * bits`.
    fn math_pack(&self, fields: &[IntValue<'ctx>], bits: u32) -> R<IntValue<'ctx>> {
        let mask = self.u32c(((1u64 << bits) - 1) as u32);
        let mut acc = self.u32c(0);
        for (i, &v) in fields.iter().enumerate() {
            let t = self.ok(self.b.build_and(v, mask, ""))?;
            let sh = i as u32 * bits;
            let t =
                if sh == 0 { t } else { self.ok(self.b.build_left_shift(t, self.u32c(sh), ""))? };
            acc = self.ok(self.b.build_or(acc, t, ""))?;
        }
        Ok(acc)
    }

    fn math_fconst(&self, v: f32) -> FloatValue<'ctx> {
        self.cx.f32_type().const_float(f64::from(v))
    }

    fn math_fsel(
        &self,
        p: IntValue<'ctx>,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> R<FloatValue<'ctx>> {
        Ok(self.select(p, a.into(), b.into())?.into_float_value())
    }

    fn math_isel(
        &self,
        p: IntValue<'ctx>,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
    ) -> R<IntValue<'ctx>> {
        Ok(self.select(p, a.into(), b.into())?.into_int_value())
    }

    /// `x * 2^n` rounded once (our backend's `ldexp`, musl's scheme): `n` clamped to
    /// [-400, 400], at most two steps of 2^127 up or of 2^-102 down, then one multiplication
    /// by a normal power of two.
    fn math_ldexp(&self, x: FloatValue<'ctx>, n: IntValue<'ctx>) -> R<FloatValue<'ctx>> {
        let i32t = self.cx.i32_type().into();
        let bd = &self.b;
        let n =
            self.call_v("llvm.smax.i32", i32t, &[n.into(), self.u32c((-400i32) as u32).into()])?;
        let mut n =
            self.call_v("llvm.smin.i32", i32t, &[n, self.u32c(400).into()])?.into_int_value();
        let mut y = x;
        let one = self.math_fconst(1.0);
        let zero = self.u32c(0);
        for _ in 0..2 {
            let lim = self.u32c(127);
            let p = self.ok(bd.build_int_compare(IP::SGT, n, lim, ""))?;
            let k = self.math_fsel(p, self.math_fconst(f32::from_bits(0x7F00_0000)), one)?;
            y = self.ok(bd.build_float_mul(y, k, ""))?;
            let d = self.math_isel(p, lim, zero)?;
            n = self.ok(bd.build_int_sub(n, d, ""))?;
        }
        for _ in 0..2 {
            let lim = self.u32c((-126i32) as u32);
            let p = self.ok(bd.build_int_compare(IP::SLT, n, lim, ""))?;
            let k = self.math_fsel(p, self.math_fconst(f32::from_bits(0x0C80_0000)), one)?;
            y = self.ok(bd.build_float_mul(y, k, ""))?;
            let d = self.math_isel(p, self.u32c(102), zero)?;
            n = self.ok(bd.build_int_add(n, d, ""))?;
        }
        let n =
            self.call_v("llvm.smax.i32", i32t, &[n.into(), self.u32c((-126i32) as u32).into()])?;
        let n = self.call_v("llvm.smin.i32", i32t, &[n, self.u32c(127).into()])?.into_int_value();
        let n = self.ok(bd.build_int_add(n, self.u32c(127), ""))?;
        let n = self.ok(bd.build_left_shift(n, self.u32c(23), ""))?;
        let p = self.ok(bd.build_bit_cast(n, self.cx.f32_type(), ""))?.into_float_value();
        self.ok(bd.build_float_mul(y, p, ""))
    }

    /// `frexp(x) = (fract, exp)`, `|fract|` in [0.5, 1) (subnormals included); zeros,
    /// infinities and NaN give `(x, 0)` (our backend's).
    fn math_frexp(&self, x: FloatValue<'ctx>) -> R<(FloatValue<'ctx>, IntValue<'ctx>)> {
        let bd = &self.b;
        let i32t = self.cx.i32_type();
        let ax = self.fabs(x)?;
        let sub =
            self.ok(bd.build_float_compare(FP::OLT, ax, self.math_fconst(f32::MIN_POSITIVE), ""))?;
        let xs = self.ok(bd.build_float_mul(x, self.math_fconst(16_777_216.0), ""))?;
        let xs = self.math_fsel(sub, xs, x)?;
        let ix = self.ok(bd.build_bit_cast(xs, i32t, ""))?.into_int_value();
        let be = self.ok(bd.build_right_shift(ix, self.u32c(23), false, ""))?;
        let be = self.ok(bd.build_and(be, self.u32c(0xFF), ""))?;
        let e = self.ok(bd.build_int_sub(be, self.u32c(126), ""))?;
        let adj = self.math_isel(sub, self.u32c(24), self.u32c(0))?;
        let e = self.ok(bd.build_int_sub(e, adj, ""))?;
        let m = self.ok(bd.build_and(ix, self.u32c(0x807F_FFFF), ""))?;
        let m = self.ok(bd.build_or(m, self.u32c(0x3F00_0000), ""))?;
        let fr = self.ok(bd.build_bit_cast(m, self.cx.f32_type(), ""))?.into_float_value();
        let pos = self.ok(bd.build_float_compare(FP::OGT, ax, self.math_fconst(0.0), ""))?;
        let fin =
            self.ok(bd.build_float_compare(FP::OLT, ax, self.math_fconst(f32::INFINITY), ""))?;
        let normal = self.ok(bd.build_and(pos, fin, ""))?;
        let fr = self.math_fsel(normal, fr, x)?;
        let e = self.math_isel(normal, e, self.u32c(0))?;
        Ok((fr, e))
    }

    /// `modf(x) = (fract, whole)`: `whole = trunc(x)`, `fract = x - whole` with x's sign
    /// (C99: `-0` for negative integers, `±0` for infinities).
    fn math_modf(&self, x: FloatValue<'ctx>) -> R<(FloatValue<'ctx>, FloatValue<'ctx>)> {
        let bd = &self.b;
        let whole = self.math_fintr("llvm.trunc", &[x])?;
        let d = self.ok(bd.build_float_sub(x, whole, ""))?;
        let ax = self.fabs(x)?;
        let inf =
            self.ok(bd.build_float_compare(FP::OEQ, ax, self.math_fconst(f32::INFINITY), ""))?;
        let d = self.math_fsel(inf, self.math_fconst(0.0), d)?;
        let fr = self.math_fintr("llvm.copysign", &[d, x])?;
        Ok((fr, whole))
    }

    /// `refract(e1, e2, eta)`: `k = 1 - eta^2 (1 - dot(e2, e1)^2)`; 0 when `k < 0`, else
    /// `eta e1 - (eta dot + sqrt(k)) e2` (the reference interpreter's formula), in f32.
    fn math_refract(&mut self, s: Scalar, args: &[ValueId]) -> R<Vec<V<'ctx>>> {
        let wide = |l: &Self, v: ValueId| -> R<Vec<FloatValue<'ctx>>> {
            l.comps(v)?.into_iter().map(|c| l.math_widen(s, c)).collect()
        };
        let i = wide(self, args[0])?;
        let n = wide(self, args[1])?;
        let eta = *wide(self, args[2])?.first().ok_or_else(|| self.internal("refract"))?;
        let iv: Vec<V<'ctx>> = i.iter().map(|&v| v.into()).collect();
        let nv: Vec<V<'ctx>> = n.iter().map(|&v| v.into()).collect();
        let d = self.dot(Scalar::F32, &nv, &iv)?.into_float_value();
        let bd = &self.b;
        let one = self.math_fconst(1.0);
        let dd = self.ok(bd.build_float_mul(d, d, ""))?;
        let t = self.ok(bd.build_float_sub(one, dd, ""))?;
        let e2 = self.ok(bd.build_float_mul(eta, eta, ""))?;
        let t = self.ok(bd.build_float_mul(e2, t, ""))?;
        let k = self.ok(bd.build_float_sub(one, t, ""))?;
        let neg = self.ok(bd.build_float_compare(FP::OLT, k, self.math_fconst(0.0), ""))?;
        let r = self.math_fintr("llvm.sqrt", &[k])?;
        let ed = self.ok(bd.build_float_mul(eta, d, ""))?;
        let fk = self.ok(bd.build_float_add(ed, r, ""))?;
        let mut out = Vec::new();
        for (&a, &b) in i.iter().zip(&n) {
            let p = self.ok(bd.build_float_mul(eta, a, ""))?;
            let q = self.ok(bd.build_float_mul(fk, b, ""))?;
            let v = self.ok(bd.build_float_sub(p, q, ""))?;
            let v = self.math_fsel(neg, self.math_fconst(0.0), v)?;
            out.push(self.math_narrow(s, v)?);
        }
        Ok(out)
    }

    /// The columns of a square matrix value.
    fn math_square(&self, v: ValueId) -> R<Vec<Vec<V<'ctx>>>> {
        let a = self.comps(v)?;
        let n = match self.types.get(self.ty(v)) {
            Type::Matrix { columns, rows, .. } if columns == rows => *columns as usize,
            _ => return Err(self.internal("determinant or inverse of a non-square matrix")),
        };
        if n * n != a.len() || n < 2 {
            return Err(self.internal("matrix shape"));
        }
        Ok(a.chunks(n).map(<[V<'ctx>]>::to_vec).collect())
    }

    /// Determinant by cofactor expansion along the first column (our backend's order of
    /// operations).
    fn math_det(&mut self, s: Scalar, cols: &[Vec<V<'ctx>>]) -> R<V<'ctx>> {
        let n = cols.len();
        if n == 1 {
            return cols[0].first().copied().ok_or_else(|| self.internal("empty matrix"));
        }
        if n == 2 {
            let ad = self.binary_scalar(B::Multiply, s, cols[0][0], cols[1][1])?;
            let bc = self.binary_scalar(B::Multiply, s, cols[1][0], cols[0][1])?;
            return self.binary_scalar(B::Subtract, s, ad, bc);
        }
        let mut acc: Option<V<'ctx>> = None;
        for r in 0..n {
            let minor = math_minor(cols, r, 0);
            let d = self.math_det(s, &minor)?;
            let term = self.binary_scalar(B::Multiply, s, cols[0][r], d)?;
            acc = Some(match acc {
                None => term,
                Some(a) if r % 2 == 1 => self.binary_scalar(B::Subtract, s, a, term)?,
                Some(a) => self.binary_scalar(B::Add, s, a, term)?,
            });
        }
        acc.ok_or_else(|| self.internal("empty matrix"))
    }

    /// `inverse(m)`: the transposed cofactors over the determinant, in f32 (f16 widened).
    fn math_inverse(&mut self, s: Scalar, v: ValueId) -> R<Vec<V<'ctx>>> {
        let cols = self.math_square(v)?;
        let n = cols.len();
        let cols: Vec<Vec<V<'ctx>>> = cols
            .iter()
            .map(|c| c.iter().map(|&x| Ok(self.math_widen(s, x)?.into())).collect::<R<_>>())
            .collect::<R<_>>()?;
        // cof[r][c]: the cofactor of row r, column c.
        let mut cof = vec![vec![None; n]; n];
        for (r, row) in cof.iter_mut().enumerate() {
            for (c, slot) in row.iter_mut().enumerate() {
                let d = self.math_det(Scalar::F32, &math_minor(&cols, r, c))?.into_float_value();
                *slot = Some(if (r + c) % 2 == 1 {
                    self.ok(self.b.build_float_neg(d, ""))?
                } else {
                    d
                });
            }
        }
        let cof: Vec<Vec<FloatValue<'ctx>>> = cof
            .into_iter()
            .map(|row| row.into_iter().collect::<Option<Vec<_>>>())
            .collect::<Option<_>>()
            .ok_or_else(|| self.internal("cofactors"))?;
        // det = sum over rows r of m[r][0] cof[r][0].
        let mut det = None;
        for (r, row) in cof.iter().enumerate() {
            let t = self.ok(self.b.build_float_mul(cols[0][r].into_float_value(), row[0], ""))?;
            det = Some(match det {
                None => t,
                Some(a) => self.ok(self.b.build_float_add(a, t, ""))?,
            });
        }
        let det = det.ok_or_else(|| self.internal("empty matrix"))?;
        // Column c, row r of the inverse: cof[c][r] / det (row c of the cofactors).
        let mut out = Vec::new();
        for row in &cof {
            for &x in row {
                let q = self.ok(self.b.build_float_div(x, det, ""))?;
                out.push(self.math_narrow(s, q)?);
            }
        }
        Ok(out)
    }
}

/// The minor of a matrix (given by columns) without row `row` and column `col`.
fn math_minor<T: Copy>(cols: &[Vec<T>], row: usize, col: usize) -> Vec<Vec<T>> {
    cols.iter()
        .enumerate()
        .filter(|(c, _)| *c != col)
        .map(|(_, c)| c.iter().enumerate().filter(|(r, _)| *r != row).map(|(_, &v)| v).collect())
        .collect()
}
