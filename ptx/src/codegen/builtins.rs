//! Selection of WGSL math builtins (`MathFunction`): the precise library ([`crate::math`]),
//! `--fast-math` approximations, and the exact integer and geometric builtins.

#![allow(unused_imports)]
use super::layout::{self, arith_ty, kind_of};
use super::lower::Lower;
use super::mathops::Opnd;
use super::regalloc::{RegKind, Target, Term, VRegId};
use crate::math;
use crate::model::{build, CmpOp, Opcode};
use dianran_frontend::ir::{
    BinaryOperator as B, MathFunction as M, Op, RelationalFunction, Scalar, Type, TypeId,
    UnaryOperator as U,
};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// Whether `fun` is lowered to an approximation under `--fast-math` (everything the precise
/// library covers, plus `normalize` through `rsqrt.approx`).
fn approximate_under_fast_math(fun: M) -> bool {
    math::FUNCTIONS.contains(&fun) || fun == M::Normalize
}

/// atan(t) ~ t * P(t^2) on [0, 1], highest power first (the odd minimax polynomial of the Cg
/// reference implementation; max error about 1e-6 rad, checked by a test against `f64::atan`).
const ATAN_COEFFS: [f32; 6] =
    [-0.013_480_47, 0.057_477_314, -0.121_239_07, 0.195_635_93, -0.332_994_6, 0.999_995_6];

impl Lower<'_> {
    pub(crate) fn math(
        &mut self,
        fun: M,
        args: &[dianran_frontend::ir::ValueId],
        ty: TypeId,
    ) -> R<Vec<VRegId>> {
        let out_n = layout::leaf_count(&self.types, ty);
        // Validated IR has the right arity; checking it here makes every `args[i]` /
        // `x[i]` below (i < arity) in bounds.
        if args.len() < fun.argument_count() || args.is_empty() {
            return Err(self.err_internal("math function arity"));
        }
        for &a in args {
            if self.comps(a)?.is_empty() {
                return Err(self.err_internal("empty math operand"));
            }
        }
        if self.fast_math {
            if approximate_under_fast_math(fun) {
                self.used_fast_math = true;
            }
        } else if let Some(out) = self.precise_math(fun, args)? {
            return Ok(out);
        }
        match fun {
            M::Abs => self.per_comp(args, |l, s, x| {
                Ok(match s {
                    Scalar::F32 | Scalar::F16 => l.un(Opcode::Abs, s, x[0]),
                    Scalar::I32 => l.un(Opcode::Abs, s, x[0]),
                    _ => x[0],
                })
            }),
            M::Min | M::Max => {
                let op = if fun == M::Min { Opcode::Min } else { Opcode::Max };
                self.per_comp(args, |l, s, x| Ok(l.bin(op, s, x[0], x[1])))
            }
            M::Clamp => self.per_comp(args, |l, s, x| {
                let t = l.bin(Opcode::Max, s, x[0], x[1]);
                Ok(l.bin(Opcode::Min, s, t, x[2]))
            }),
            M::Saturate => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("cvt.sat.f32.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Sqrt => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("sqrt.rn.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::InverseSqrt => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("rsqrt.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Exp2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("ex2.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Log2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Exp => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.exp_f32(y[0])))),
            M::Log => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let k = l.imm_f32(std::f32::consts::LN_2);
                    l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, k])
                }))
            }),
            M::Pow => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let t = l.f("mul.f32 {d0}, {u0}, {u1}", vec![y[1], t]);
                    l.f("ex2.approx.f32 {d0}, {u0}", vec![t])
                }))
            }),
            M::Sin | M::Cos => {
                let name = if fun == M::Sin { "sin" } else { "cos" };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        l.f(&format!("{name}.approx.f32 {{d0}}, {{u0}}"), vec![y[0]])
                    }))
                })
            }
            M::Tan => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let sn = l.f("sin.approx.f32 {d0}, {u0}", vec![y[0]]);
                    let cs = l.f("cos.approx.f32 {d0}, {u0}", vec![y[0]]);
                    l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![sn, cs])
                }))
            }),
            M::Tanh => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.f("tanh.approx.f32 {d0}, {u0}", vec![y[0]])))
            }),
            M::Sinh | M::Cosh => {
                let sign = if fun == M::Sinh { "sub" } else { "add" };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        let e = l.exp_f32(y[0]);
                        let n = l.f("neg.f32 {d0}, {u0}", vec![y[0]]);
                        let en = l.exp_f32(n);
                        let t = l.f(&format!("{sign}.f32 {{d0}}, {{u0}}, {{u1}}"), vec![e, en]);
                        let h = l.imm_f32(0.5);
                        l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, h])
                    }))
                })
            }
            M::Atan => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.atan_f32(y[0])))),
            M::Atan2 => {
                self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.atan2_f32(y[0], y[1]))))
            }
            M::Asin | M::Acos => {
                let is_asin = fun == M::Asin;
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        // asin(x) = atan2(x, sqrt(1 - x^2)); acos(x) = atan2(sqrt(1 - x^2), x).
                        let one = l.imm_f32(1.0);
                        let nx = l.f("neg.f32 {d0}, {u0}", vec![y[0]]);
                        let t = l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![nx, y[0], one]);
                        let r = l.f("sqrt.rn.f32 {d0}, {u0}", vec![t]);
                        if is_asin {
                            l.atan2_f32(y[0], r)
                        } else {
                            l.atan2_f32(r, y[0])
                        }
                    }))
                })
            }
            M::Asinh | M::Acosh | M::Atanh => {
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        let one = l.imm_f32(1.0);
                        let arg = match fun {
                            // ln(x + sqrt(x^2 ± 1))
                            M::Asinh | M::Acosh => {
                                let sq = if fun == M::Asinh {
                                    l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![y[0], y[0], one])
                                } else {
                                    let m1 = l.imm_f32(-1.0);
                                    l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![y[0], y[0], m1])
                                };
                                let r = l.f("sqrt.rn.f32 {d0}, {u0}", vec![sq]);
                                l.f("add.f32 {d0}, {u0}, {u1}", vec![y[0], r])
                            }
                            // 0.5 ln((1 + x) / (1 - x))
                            _ => {
                                let a = l.f("add.f32 {d0}, {u0}, {u1}", vec![one, y[0]]);
                                let b = l.f("sub.f32 {d0}, {u0}, {u1}", vec![one, y[0]]);
                                l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![a, b])
                            }
                        };
                        let t = l.f("lg2.approx.f32 {d0}, {u0}", vec![arg]);
                        let k = if fun == M::Atanh {
                            0.5 * std::f32::consts::LN_2
                        } else {
                            std::f32::consts::LN_2
                        };
                        let k = l.imm_f32(k);
                        l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, k])
                    }))
                })
            }
            M::Radians | M::Degrees => {
                let k = if fun == M::Radians {
                    std::f64::consts::PI / 180.0
                } else {
                    180.0 / std::f64::consts::PI
                };
                self.per_comp(args, |l, s, x| {
                    let kk = l.imm_of(s, k);
                    Ok(l.bin(Opcode::Mul, s, x[0], kk))
                })
            }
            M::Floor | M::Ceil | M::Round | M::Trunc => {
                let r = match fun {
                    M::Floor => "rmi",
                    M::Ceil => "rpi",
                    M::Round => "rni",
                    _ => "rzi",
                };
                self.per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    Ok(l.op1(kind_of(s), format!("cvt.{r}.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]))
                })
            }
            M::Fract => self.per_comp(args, |l, s, x| {
                let t = arith_ty(s);
                let fl = l.op1(kind_of(s), format!("cvt.rmi.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]);
                Ok(l.bin(Opcode::Sub, s, x[0], fl))
            }),
            M::Fma => self.per_comp(args, |l, s, x| {
                Ok(l.op1(
                    kind_of(s),
                    format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                    x.to_vec(),
                ))
            }),
            M::Mix => self.per_comp(args, |l, s, x| {
                let d = l.bin(Opcode::Sub, s, x[1], x[0]);
                Ok(l.op1(
                    kind_of(s),
                    format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                    vec![d, x[2], x[0]],
                ))
            }),
            M::Step => self.per_comp(args, |l, s, x| {
                let p = l.bin_setp(CmpOp::Ge, s, x[1], x[0]);
                let one = l.imm_of(s, 1.0);
                let zero = l.imm_of(s, 0.0);
                Ok(l.select(s, p, one, zero))
            }),
            M::SmoothStep => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let num = l.f("sub.f32 {d0}, {u0}, {u1}", vec![y[2], y[0]]);
                    let den = l.f("sub.f32 {d0}, {u0}, {u1}", vec![y[1], y[0]]);
                    let t = l.f("div.rn.f32 {d0}, {u0}, {u1}", vec![num, den]);
                    let t = l.f("cvt.sat.f32.f32 {d0}, {u0}", vec![t]);
                    let m2 = l.imm_f32(-2.0);
                    let three = l.imm_f32(3.0);
                    let k = l.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![m2, t, three]);
                    let tt = l.f("mul.f32 {d0}, {u0}, {u1}", vec![t, t]);
                    l.f("mul.f32 {d0}, {u0}, {u1}", vec![tt, k])
                }))
            }),
            M::Sign => self.per_comp(args, |l, s, x| {
                let zero = l.imm_of(s, 0.0);
                let one = l.imm_of(s, 1.0);
                let m1 = l.imm_of(s, -1.0);
                let gt = l.bin_setp(CmpOp::Gt, s, x[0], zero);
                let lt = l.bin_setp(CmpOp::Lt, s, x[0], zero);
                let a = l.select(s, lt, m1, x[0]);
                let a = if s.is_float() { a } else { l.select(s, lt, m1, zero) };
                Ok(l.select(s, gt, one, a))
            }),
            M::Dot => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let b = self.comps(*args.get(1).ok_or_else(|| self.err_internal("dot arity"))?)?;
                Ok(vec![self.dot(s, &a, &b)])
            }
            M::Cross => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let b =
                    self.comps(*args.get(1).ok_or_else(|| self.err_internal("cross arity"))?)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(self.err_internal("cross shape"));
                }
                let mut out = Vec::new();
                for i in 0..3 {
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    let p = self.bin(Opcode::Mul, s, a[k], b[j]);
                    let np = self.un(Opcode::Neg, s, p);
                    out.push(self.op1(
                        kind_of(s),
                        format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                        vec![a[j], b[k], np],
                    ));
                }
                Ok(out)
            }
            M::Length | M::Distance | M::Normalize => {
                let s = self.scalar_ty(args[0])?;
                let mut a = self.comps(args[0])?;
                if fun == M::Distance {
                    let b = self
                        .comps(*args.get(1).ok_or_else(|| self.err_internal("distance arity"))?)?;
                    a = a.iter().zip(&b).map(|(&p, &q)| self.bin(Opcode::Sub, s, p, q)).collect();
                }
                let a32: Vec<VRegId> = a.iter().map(|&v| self.widen_f16(s, v)).collect();
                let d = self.dot(Scalar::F32, &a32, &a32);
                if fun == M::Normalize {
                    let r = self.f("rsqrt.approx.f32 {d0}, {u0}", vec![d]);
                    let mut out = Vec::new();
                    for &v in &a32 {
                        let t = self.f("mul.f32 {d0}, {u0}, {u1}", vec![v, r]);
                        out.push(self.narrow_f16(s, t));
                    }
                    Ok(out)
                } else {
                    let r = self.f("sqrt.rn.f32 {d0}, {u0}", vec![d]);
                    Ok(vec![self.narrow_f16(s, r)])
                }
            }
            M::FaceForward => {
                // select(-n, n, dot(nref, i) < 0)
                let s = self.scalar_ty(args[0])?;
                let n = self.comps(args[0])?;
                let i = self.comps(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let nr = self.comps(*args.get(2).ok_or_else(|| self.err_internal("arity"))?)?;
                let d = self.dot(s, &nr, &i);
                let z = self.imm_of(s, 0.0);
                let p = self.bin_setp(CmpOp::Lt, s, d, z);
                Ok(n.iter()
                    .map(|&v| {
                        let nv = self.un(Opcode::Neg, s, v);
                        self.select(s, p, v, nv)
                    })
                    .collect())
            }
            M::Reflect => {
                // i - 2 * dot(n, i) * n
                let s = self.scalar_ty(args[0])?;
                let i = self.comps(args[0])?;
                let n = self.comps(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let d = self.dot(s, &n, &i);
                let m2 = self.imm_of(s, -2.0);
                let k = self.bin(Opcode::Mul, s, d, m2);
                Ok(i.iter()
                    .zip(&n)
                    .map(|(&iv, &nv)| {
                        self.op1(
                            kind_of(s),
                            format!("fma.rn.{} {{d0}}, {{u0}}, {{u1}}, {{u2}}", arith_ty(s)),
                            vec![k, nv, iv],
                        )
                    })
                    .collect())
            }
            M::CountOneBits => {
                self.per_comp(args, |l, _, x| Ok(l.f("popc.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::ReverseBits => {
                self.per_comp(args, |l, _, x| Ok(l.f("brev.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::CountLeadingZeros => {
                self.per_comp(args, |l, _, x| Ok(l.f("clz.b32 {d0}, {u0}", vec![x[0]])))
            }
            M::CountTrailingZeros => self.per_comp(args, |l, _, x| {
                let r = l.f("brev.b32 {d0}, {u0}", vec![x[0]]);
                Ok(l.f("clz.b32 {d0}, {u0}", vec![r]))
            }),
            M::FirstLeadingBit => self.per_comp(args, |l, s, x| {
                let t = if s == Scalar::I32 { "s32" } else { "u32" };
                Ok(l.f(&format!("bfind.{t} {{d0}}, {{u0}}"), vec![x[0]]))
            }),
            M::FirstTrailingBit => self.per_comp(args, |l, _, x| {
                let n = l.f("neg.s32 {d0}, {u0}", vec![x[0]]);
                let low = l.f("and.b32 {d0}, {u0}, {u1}", vec![x[0], n]);
                Ok(l.f("bfind.u32 {d0}, {u0}", vec![low]))
            }),
            M::ExtractBits => self.per_comp(args, |l, s, x| {
                let (o, c) = l.clamp_bits(x[1], x[2]);
                let t = if s == Scalar::I32 { "s32" } else { "u32" };
                Ok(l.f(&format!("bfe.{t} {{d0}}, {{u0}}, {{u1}}, {{u2}}"), vec![x[0], o, c]))
            }),
            M::InsertBits => self.per_comp(args, |l, _, x| {
                let (o, c) = l.clamp_bits(x[2], x[3]);
                Ok(l.f("bfi.b32 {d0}, {u0}, {u1}, {u2}, {u3}", vec![x[1], x[0], o, c]))
            }),
            M::QuantizeToF16 => self.per_comp(args, |l, _, x| {
                let h = l.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![x[0]]);
                Ok(l.f("cvt.f32.f16 {d0}, {u0}", vec![h]))
            }),
            M::Pack2x16float => {
                let c = self.comps(args[0])?;
                let h: Vec<VRegId> = c
                    .iter()
                    .map(|&v| self.op1(RegKind::B16, "cvt.rn.f16.f32 {d0}, {u0}", vec![v]))
                    .collect();
                if h.len() != 2 {
                    return Err(self.err_internal("pack2x16float shape"));
                }
                Ok(vec![self.f("mov.b32 {d0}, {{u0}, {u1}}", h)])
            }
            M::Unpack2x16float => {
                let v = self.scalar(args[0])?;
                let lo = self.mf.new_vreg(RegKind::B16);
                let hi = self.mf.new_vreg(RegKind::B16);
                self.emit("mov.b32 {{d0}, {d1}}, {u0}", vec![lo, hi], vec![v]);
                Ok(vec![
                    self.f("cvt.f32.f16 {d0}, {u0}", vec![lo]),
                    self.f("cvt.f32.f16 {d0}, {u0}", vec![hi]),
                ])
            }
            M::Pack4x8snorm | M::Pack4x8unorm | M::Pack2x16snorm | M::Pack2x16unorm => {
                let c = self.comps(args[0])?;
                let (lo, scale, bits) = match fun {
                    M::Pack4x8snorm => (-1.0, 127.0, 8),
                    M::Pack4x8unorm => (0.0, 255.0, 8),
                    M::Pack2x16snorm => (-1.0, 32767.0, 16),
                    _ => (0.0, 65535.0, 16),
                };
                let (lo, hi, k) = (self.imm_f32(lo), self.imm_f32(1.0), self.imm_f32(scale));
                let half = self.imm_f32(0.5);
                let mut acc = self.imm_u32(0);
                for (i, &v) in c.iter().enumerate() {
                    // WGSL: floor(0.5 + scale * clamp(v)), not round-to-even. Explicit `.rn`
                    // keeps ptxas from contracting the multiply-add into an fma.
                    let t = self.f("max.f32 {d0}, {u0}, {u1}", vec![v, lo]);
                    let t = self.f("min.f32 {d0}, {u0}, {u1}", vec![t, hi]);
                    let t = self.f("mul.rn.f32 {d0}, {u0}, {u1}", vec![t, k]);
                    let t = self.f("add.rn.f32 {d0}, {u0}, {u1}", vec![t, half]);
                    let t = self.f("cvt.rmi.s32.f32 {d0}, {u0}", vec![t]);
                    acc = self.f(
                        &format!("bfi.b32 {{d0}}, {{u0}}, {{u1}}, {}, {bits}", i * bits),
                        vec![t, acc],
                    );
                }
                Ok(vec![acc])
            }
            M::Pack4xI8 | M::Pack4xU8 | M::Pack4xI8Clamp | M::Pack4xU8Clamp => {
                let c = self.comps(args[0])?;
                let mut acc = self.imm_u32(0);
                for (i, &v) in c.iter().enumerate() {
                    let v = match fun {
                        M::Pack4xI8Clamp => {
                            let t = self.f("max.s32 {d0}, {u0}, -128", vec![v]);
                            self.f("min.s32 {d0}, {u0}, 127", vec![t])
                        }
                        M::Pack4xU8Clamp => self.f("min.u32 {d0}, {u0}, 255", vec![v]),
                        _ => v,
                    };
                    acc = self
                        .f(&format!("bfi.b32 {{d0}}, {{u0}}, {{u1}}, {}, 8", i * 8), vec![v, acc]);
                }
                Ok(vec![acc])
            }
            M::Unpack4x8snorm | M::Unpack4x8unorm | M::Unpack2x16snorm | M::Unpack2x16unorm => {
                let x = self.scalar(args[0])?;
                let (n, bits, signed, scale) = match fun {
                    M::Unpack4x8snorm => (4, 8, true, 127.0),
                    M::Unpack4x8unorm => (4, 8, false, 255.0),
                    M::Unpack2x16snorm => (2, 16, true, 32767.0),
                    _ => (2, 16, false, 65535.0),
                };
                let t = if signed { "s32" } else { "u32" };
                let k = self.imm_f32(scale);
                let m1 = self.imm_f32(-1.0);
                let mut out = Vec::new();
                for i in 0..n {
                    let b =
                        self.f(&format!("bfe.{t} {{d0}}, {{u0}}, {}, {bits}", i * bits), vec![x]);
                    let f = self.f(&format!("cvt.rn.f32.{t} {{d0}}, {{u0}}"), vec![b]);
                    let f = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![f, k]);
                    out.push(if signed {
                        self.f("max.f32 {d0}, {u0}, {u1}", vec![f, m1])
                    } else {
                        f
                    });
                }
                Ok(out)
            }
            M::Unpack4xI8 | M::Unpack4xU8 => {
                let x = self.scalar(args[0])?;
                let t = if fun == M::Unpack4xI8 { "s32" } else { "u32" };
                Ok((0..4)
                    .map(|i| self.f(&format!("bfe.{t} {{d0}}, {{u0}}, {}, 8", i * 8), vec![x]))
                    .collect())
            }
            M::Dot4I8Packed | M::Dot4U8Packed => {
                let a = self.scalar(args[0])?;
                let b = self.scalar(*args.get(1).ok_or_else(|| self.err_internal("arity"))?)?;
                let t = if fun == M::Dot4I8Packed { "s32" } else { "u32" };
                let z = self.imm_u32(0);
                Ok(vec![
                    self.f(&format!("dp4a.{t}.{t} {{d0}}, {{u0}}, {{u1}}, {{u2}}"), vec![a, b, z])
                ])
            }
            M::Determinant => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let n = (a.len() as f64).sqrt() as usize;
                if n * n != a.len() || n < 2 {
                    return Err(self.err_internal("determinant of a non-square matrix"));
                }
                let cols: Vec<Vec<VRegId>> = a.chunks(n).map(|c| c.to_vec()).collect();
                Ok(vec![self.det(s, &cols)])
            }
            M::Modf => self
                .per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    Ok(l.op1(kind_of(s), format!("cvt.rzi.{t}.{t} {{d0}}, {{u0}}"), vec![x[0]]))
                })
                .and_then(|whole| {
                    let x = self.comps(args[0])?;
                    let s = self.scalar_ty(args[0])?;
                    let mut out: Vec<VRegId> = x
                        .iter()
                        .zip(&whole)
                        .map(|(&v, &w)| self.bin(Opcode::Sub, s, v, w))
                        .collect();
                    out.extend(whole);
                    Ok(out)
                }),
            M::Frexp => {
                // fract in [0.5, 1) and exponent from the bits (normal numbers; 0 gives (0, 0)).
                let s = self.scalar_ty(args[0])?;
                let x = self.comps(args[0])?;
                let mut fr = Vec::new();
                let mut ex = Vec::new();
                for &v in &x {
                    let v32 = self.widen_f16(s, v);
                    let e = self.f("bfe.u32 {d0}, {u0}, 23, 8", vec![v32]);
                    let e = self.f("sub.s32 {d0}, {u0}, 126", vec![e]);
                    let m = self.f("and.b32 {d0}, {u0}, 0x807FFFFF", vec![v32]);
                    let m = self.f("or.b32 {d0}, {u0}, 0x3F000000", vec![m]);
                    let zero = self.imm_f32(0.0);
                    let z =
                        self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![v32, zero]);
                    let m = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![v32, m, z]);
                    let zi = self.imm_u32(0);
                    ex.push(self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![zi, e, z]));
                    fr.push(self.narrow_f16(s, m));
                }
                fr.extend(ex);
                Ok(fr)
            }
            M::Transpose => {
                let a = self.comps(args[0])?;
                let Type::Matrix { columns, rows, .. } = self.types.get(self.ty(args[0])).clone()
                else {
                    return Err(self.err_internal("transpose of a non-matrix"));
                };
                let (c, r) = (columns as usize, rows as usize);
                let mut out = Vec::new();
                for i in 0..r {
                    for k in 0..c {
                        out.push(a[k * r + i]);
                    }
                }
                Ok(out)
            }
            M::Ldexp => self.per_comp(args, |l, s, x| {
                // x * 2^e, with 2^e built exactly from its exponent bits (e clamped to [-126, 127]).
                let lo = l.imm_u32((-126i32) as u32);
                let e = l.f("max.s32 {d0}, {u0}, {u1}", vec![x[1], lo]);
                let e = l.f("min.s32 {d0}, {u0}, 127", vec![e]);
                let b = l.f("add.s32 {d0}, {u0}, 127", vec![e]);
                let p = l.f("shl.b32 {d0}, {u0}, 23", vec![b]);
                let xf = l.widen_f16(s, x[0]);
                let r = l.f("mul.f32 {d0}, {u0}, {u1}", vec![xf, p]);
                Ok(l.narrow_f16(s, r))
            }),
            _ => {
                let _ = out_n;
                Err(self.err_unsupported(&format!("the math function {fun:?}")))
            }
        }
    }

    /// The precise lowering (the default, [`crate::math`]) of the functions that have one;
    /// `None` for the others, which have one lowering for both modes.
    pub(crate) fn precise_math(
        &mut self,
        fun: M,
        args: &[dianran_frontend::ir::ValueId],
    ) -> R<Option<Vec<VRegId>>> {
        let out = match fun {
            // pow(x, n) for n = 1, 2, 3, -1 as products and a quotient, like CUDA: exactly
            // C99's special cases, within 1.5 ulp (docs/math.md).
            M::Pow if self.scalar_ty(args[0])? == Scalar::F32 => {
                self.per_comp(args, |l, _, x| {
                    let mul = |l: &mut Self, a, b| l.f("mul.rn.f32 {d0}, {u0}, {u1}", vec![a, b]);
                    Ok(match l.fconsts.get(&x[1]).copied() {
                        Some(1.0) => x[0],
                        Some(2.0) => mul(l, x[0], x[0]),
                        Some(3.0) => {
                            let sq = mul(l, x[0], x[0]);
                            mul(l, sq, x[0])
                        }
                        Some(-1.0) => l.f("div.rn.f32 {d0}, 0f3F800000, {u0}", vec![x[0]]),
                        _ => {
                            let r = math::binary(l, fun, Opnd::R(x[0]), Opnd::R(x[1]));
                            let r = r.unwrap_or(Opnd::R(x[0]));
                            l.reg(r)
                        }
                    })
                })?
            }
            _ if math::FUNCTIONS.contains(&fun) => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let a = Opnd::R(y[0]);
                    let r = match y.get(1) {
                        Some(&b) => math::binary(l, fun, a, Opnd::R(b)),
                        None => math::unary(l, fun, a),
                    };
                    let r = r.unwrap_or(a);
                    l.reg(r)
                }))
            })?,
            M::Ldexp => self.per_comp(args, |l, s, x| {
                let xf = l.widen_f16(s, x[0]);
                let r = math::ldexp(l, Opnd::R(xf), Opnd::R(x[1]));
                let r = l.reg(r);
                Ok(l.narrow_f16(s, r))
            })?,
            M::Frexp | M::Modf => {
                let s = self.scalar_ty(args[0])?;
                let mut first = Vec::new();
                let mut second = Vec::new();
                for v in self.comps(args[0])? {
                    let v32 = Opnd::R(self.widen_f16(s, v));
                    let (a, b) = if fun == M::Frexp {
                        let (fr, e) = math::frexp(self, v32);
                        let fr = self.reg(fr);
                        (self.narrow_f16(s, fr), self.reg(e))
                    } else {
                        let (fr, w) = math::modf(self, v32);
                        let (fr, w) = (self.reg(fr), self.reg(w));
                        (self.narrow_f16(s, fr), self.narrow_f16(s, w))
                    };
                    first.push(a);
                    second.push(b);
                }
                first.extend(second);
                first
            }
            M::Normalize => {
                // v / sqrt(dot(v, v)), correctly rounded square root and quotients.
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let a32: Vec<VRegId> = a.iter().map(|&v| self.widen_f16(s, v)).collect();
                let d = self.dot(Scalar::F32, &a32, &a32);
                let r = self.f("sqrt.rn.f32 {d0}, {u0}", vec![d]);
                let mut out = Vec::new();
                for &v in &a32 {
                    let t = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![v, r]);
                    out.push(self.narrow_f16(s, t));
                }
                out
            }
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    /// Determinant by cofactor expansion along the first column.
    pub(crate) fn det(&mut self, s: Scalar, cols: &[Vec<VRegId>]) -> VRegId {
        let n = cols.len();
        if n == 2 {
            let ad = self.bin(Opcode::Mul, s, cols[0][0], cols[1][1]);
            let bc = self.bin(Opcode::Mul, s, cols[1][0], cols[0][1]);
            return self.bin(Opcode::Sub, s, ad, bc);
        }
        let mut acc: Option<VRegId> = None;
        for r in 0..n {
            let minor: Vec<Vec<VRegId>> = cols[1..]
                .iter()
                .map(|c| c.iter().enumerate().filter(|(i, _)| *i != r).map(|(_, &v)| v).collect())
                .collect();
            let d = self.det(s, &minor);
            let term = self.bin(Opcode::Mul, s, cols[0][r], d);
            acc = Some(match acc {
                None => term,
                Some(a) if r % 2 == 1 => self.bin(Opcode::Sub, s, a, term),
                Some(a) => self.bin(Opcode::Add, s, a, term),
            });
        }
        acc.unwrap_or(cols[0][0])
    }

    /// WGSL's bit-field clamping: `o = min(offset, 32)`, `c = min(count, 32 - o)`.
    pub(crate) fn clamp_bits(&mut self, offset: VRegId, count: VRegId) -> (VRegId, VRegId) {
        let o = self.f("min.u32 {d0}, {u0}, 32", vec![offset]);
        let k = self.imm_u32(32);
        let rest = self.f("sub.s32 {d0}, {u0}, {u1}", vec![k, o]);
        let c = self.f("min.u32 {d0}, {u0}, {u1}", vec![count, rest]);
        (o, c)
    }

    /// e^x as 2^(x log2 e).
    pub(crate) fn exp_f32(&mut self, x: VRegId) -> VRegId {
        let k = self.imm_f32(std::f32::consts::LOG2_E);
        let t = self.f("mul.f32 {d0}, {u0}, {u1}", vec![x, k]);
        self.f("ex2.approx.f32 {d0}, {u0}", vec![t])
    }

    /// atan on all of f32: reduce |x| > 1 with atan(x) = pi/2 - atan(1/x), then a minimax
    /// polynomial on [0, 1] (max error about 1e-5 rad), sign restored at the end.
    pub(crate) fn atan_f32(&mut self, x: VRegId) -> VRegId {
        let ax = self.f("abs.f32 {d0}, {u0}", vec![x]);
        let one = self.imm_f32(1.0);
        let big = self.op1(RegKind::Pred, "setp.gt.f32 {d0}, {u0}, {u1}", vec![ax, one]);
        let inv = self.f("rcp.rn.f32 {d0}, {u0}", vec![ax]);
        let t = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![inv, ax, big]);
        let t2 = self.f("mul.f32 {d0}, {u0}, {u1}", vec![t, t]);
        let mut p = self.imm_f32(ATAN_COEFFS[0]);
        for &c in &ATAN_COEFFS[1..] {
            let k = self.imm_f32(c);
            p = self.f("fma.rn.f32 {d0}, {u0}, {u1}, {u2}", vec![p, t2, k]);
        }
        let r = self.f("mul.f32 {d0}, {u0}, {u1}", vec![p, t]);
        let half_pi = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let rr = self.f("sub.f32 {d0}, {u0}, {u1}", vec![half_pi, r]);
        let r = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![rr, r, big]);
        // copysign(r, x)
        self.f("copysign.f32 {d0}, {u0}, {u1}", vec![x, r])
    }

    /// atan2(y, x) from atan(y / x) with quadrant fix-ups.
    pub(crate) fn atan2_f32(&mut self, y: VRegId, x: VRegId) -> VRegId {
        let q = self.f("div.rn.f32 {d0}, {u0}, {u1}", vec![y, x]);
        let a = self.atan_f32(q);
        let zero = self.imm_f32(0.0);
        let pi = self.imm_f32(std::f32::consts::PI);
        let xneg = self.op1(RegKind::Pred, "setp.lt.f32 {d0}, {u0}, {u1}", vec![x, zero]);
        let spi = self.f("copysign.f32 {d0}, {u0}, {u1}", vec![y, pi]);
        let adj = self.f("add.f32 {d0}, {u0}, {u1}", vec![a, spi]);
        let r = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![adj, a, xneg]);
        // x == 0: +-pi/2 by the sign of y (0 when y is 0 too).
        let xz = self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![x, zero]);
        let hp = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let shp = self.f("copysign.f32 {d0}, {u0}, {u1}", vec![y, hp]);
        let yz = self.op1(RegKind::Pred, "setp.eq.f32 {d0}, {u0}, {u1}", vec![y, zero]);
        let shp = self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![zero, shp, yz]);
        self.f("selp.b32 {d0}, {u0}, {u1}, {u2}", vec![shp, r, xz])
    }
}

#[cfg(test)]
mod tests {
    use super::ATAN_COEFFS;

    #[test]
    pub(crate) fn atan_polynomial_is_accurate() {
        for i in 0..=1000 {
            let t = i as f64 / 1000.0;
            let t2 = t * t;
            let p = ATAN_COEFFS.iter().fold(0.0f64, |acc, &c| acc * t2 + c as f64);
            assert!((p * t - t.atan()).abs() < 2e-5, "t = {t}");
        }
    }
}
