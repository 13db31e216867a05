//! Selection of WGSL math builtins (`MathFunction`): the precise library ([`crate::math`]),
//! `--fast-math` approximations, and the exact integer and geometric builtins.

#![allow(unused_imports)]
use super::lower::Lower;
use super::mathops::Opnd;
use super::regalloc::{RegKind, Target, Term, VRegId};
use crate::abi::layout::{self, arith_ty, kind_of};
use crate::lowering_common;
use crate::lowering_common::ScalarLowering;
use crate::math::{self, Native};
use crate::model::{build, CmpOp, Flag, Modifier, Opcode, Operand, Rounding, Type as PT};
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

const RN: Modifier = Modifier::Round(Rounding::Rn);
const APPROX: Modifier = Modifier::Flag(Flag::Approx);

/// `fma.rn.f32 d, a, b, c` into a new 32-bit register.
fn f32_fma(l: &mut Lower<'_>, a: VRegId, b: VRegId, c: VRegId) -> VRegId {
    l.def(RegKind::B32, |d| build::fma_rn(PT::F32, d, a, b, c))
}

/// `selp.b32 d, a, b, p`.
fn selp_b32(l: &mut Lower<'_>, a: VRegId, b: VRegId, p: VRegId) -> VRegId {
    l.def(RegKind::B32, |d| build::selp(PT::B32, d, a, b, p))
}

/// `setp.CMP.f32 p, a, b` into a new predicate.
fn setp_f32(l: &mut Lower<'_>, cmp: CmpOp, a: VRegId, b: VRegId) -> VRegId {
    l.def(RegKind::Pred, |p| build::setp(cmp, PT::F32, p, a, b))
}

/// `bfe.T d, a, pos, len` with immediate position and length.
fn bfe_imm(l: &mut Lower<'_>, t: PT, a: VRegId, pos: u32, len: u32) -> VRegId {
    let (pos, len) = (Operand::Imm(i64::from(pos)), Operand::Imm(i64::from(len)));
    l.def(RegKind::B32, |d| build::ternary(Opcode::Bfe, &[], t, d, a, pos, len))
}

/// `bfi.b32 d, a, b, pos, len` with immediate position and length.
fn bfi_imm(l: &mut Lower<'_>, a: VRegId, b: VRegId, pos: usize, len: usize) -> VRegId {
    let srcs = [a.into(), b.into(), Operand::Imm(pos as i64), Operand::Imm(len as i64)];
    l.op(RegKind::B32, Opcode::Bfi, &[PT::B32.into()], &srcs)
}

/// Whether the f32 lowering of `fun` below is written for any float width (`kind_of`,
/// `arith_ty`, `imm_of` of the argument's scalar) and so serves f64 unchanged.
fn width_generic(fun: M) -> bool {
    matches!(
        fun,
        M::Mix
            | M::Step
            | M::Degrees
            | M::Radians
            | M::Cross
            | M::FaceForward
            | M::Reflect
            | M::Refract
            | M::Transpose
            | M::Determinant
            | M::FirstLeadingBit
            | M::FirstTrailingBit
            | M::ExtractBits
            | M::InsertBits
    )
}

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
            return Err(self.internal("math function arity"));
        }
        for &a in args {
            if self.comps(a)?.is_empty() {
                return Err(self.internal("empty math operand"));
            }
        }
        let wide = self.scalar_ty(args[0])?.is_64();
        if wide && !width_generic(fun) {
            return self.math64(fun, args);
        }
        if wide {
            // The lowerings below that are written for any float width serve f64 as they are.
        } else if self.fast_math {
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
                Ok(l.via_f32(s, x, |l, y| {
                    l.def(RegKind::B32, |d| build::cvt(None, true, PT::F32, PT::F32, d, y[0]))
                }))
            }),
            M::Sqrt => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.sqrt_f32(y[0])))),
            M::InverseSqrt => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.unop(Opcode::Rsqrt, &[APPROX], PT::F32, y[0])))
            }),
            M::Exp2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.unop(Opcode::Ex2, &[APPROX], PT::F32, y[0])))
            }),
            M::Log2 => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.unop(Opcode::Lg2, &[APPROX], PT::F32, y[0])))
            }),
            M::Exp => self.per_comp(args, |l, s, x| Ok(l.via_f32(s, x, |l, y| l.exp_f32(y[0])))),
            M::Log => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let t = l.unop(Opcode::Lg2, &[APPROX], PT::F32, y[0]);
                    let k = l.imm_f32(std::f32::consts::LN_2);
                    l.binop(Opcode::Mul, &[], PT::F32, t, k)
                }))
            }),
            M::Pow => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    // A constant exponent of 1, 2, 3 or -1 keeps its exact form (a negative
                    // base is then no NaN, and it is faster than ex2/lg2).
                    let n = l.fconsts.get(&y[1]).copied();
                    if let Some(r) = l.pow_small_exponent(y[0], n, true) {
                        return r;
                    }
                    let t = l.unop(Opcode::Lg2, &[APPROX], PT::F32, y[0]);
                    let t = l.binop(Opcode::Mul, &[], PT::F32, y[1], t);
                    l.unop(Opcode::Ex2, &[APPROX], PT::F32, t)
                }))
            }),
            M::Sin | M::Cos => {
                let op = if fun == M::Sin { Opcode::Sin } else { Opcode::Cos };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| l.unop(op, &[APPROX], PT::F32, y[0])))
                })
            }
            M::Tan => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let sn = l.unop(Opcode::Sin, &[APPROX], PT::F32, y[0]);
                    let cs = l.unop(Opcode::Cos, &[APPROX], PT::F32, y[0]);
                    l.binop(Opcode::Div, &[RN], PT::F32, sn, cs)
                }))
            }),
            M::Tanh => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| l.unop(Opcode::Tanh, &[APPROX], PT::F32, y[0])))
            }),
            M::Sinh | M::Cosh => {
                let sign = if fun == M::Sinh { Opcode::Sub } else { Opcode::Add };
                self.per_comp(args, |l, s, x| {
                    Ok(l.via_f32(s, x, |l, y| {
                        let e = l.exp_f32(y[0]);
                        let n = l.unop(Opcode::Neg, &[], PT::F32, y[0]);
                        let en = l.exp_f32(n);
                        let t = l.binop(sign, &[], PT::F32, e, en);
                        let h = l.imm_f32(0.5);
                        l.binop(Opcode::Mul, &[], PT::F32, t, h)
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
                        let nx = l.unop(Opcode::Neg, &[], PT::F32, y[0]);
                        let t = f32_fma(l, nx, y[0], one);
                        let r = l.unop(Opcode::Sqrt, &[RN], PT::F32, t);
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
                                    f32_fma(l, y[0], y[0], one)
                                } else {
                                    let m1 = l.imm_f32(-1.0);
                                    f32_fma(l, y[0], y[0], m1)
                                };
                                let r = l.unop(Opcode::Sqrt, &[RN], PT::F32, sq);
                                l.binop(Opcode::Add, &[], PT::F32, y[0], r)
                            }
                            // 0.5 ln((1 + x) / (1 - x))
                            _ => {
                                let a = l.binop(Opcode::Add, &[], PT::F32, one, y[0]);
                                let b = l.binop(Opcode::Sub, &[], PT::F32, one, y[0]);
                                l.binop(Opcode::Div, &[RN], PT::F32, a, b)
                            }
                        };
                        let t = l.unop(Opcode::Lg2, &[APPROX], PT::F32, arg);
                        let k = if fun == M::Atanh {
                            0.5 * std::f32::consts::LN_2
                        } else {
                            std::f32::consts::LN_2
                        };
                        let k = l.imm_f32(k);
                        l.binop(Opcode::Mul, &[], PT::F32, t, k)
                    }))
                })
            }
            M::Radians | M::Degrees => {
                let k = lowering_common::angle_factor(fun == M::Radians);
                self.per_comp(args, |l, s, x| {
                    let kk = l.imm_of(s, k);
                    Ok(l.bin(Opcode::Mul, s, x[0], kk))
                })
            }
            M::Floor | M::Ceil | M::Round | M::Trunc => {
                let r = match fun {
                    M::Floor => Rounding::Rmi,
                    M::Ceil => Rounding::Rpi,
                    M::Round => Rounding::Rni,
                    _ => Rounding::Rzi,
                };
                self.per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    Ok(l.def(kind_of(s), |d| build::cvt(Some(r), false, t, t, d, x[0])))
                })
            }
            M::Fract => self.per_comp(args, |l, s, x| {
                let t = arith_ty(s);
                let fl =
                    l.def(kind_of(s), |d| build::cvt(Some(Rounding::Rmi), false, t, t, d, x[0]));
                Ok(l.bin(Opcode::Sub, s, x[0], fl))
            }),
            M::Fma => self.per_comp(args, |l, s, x| {
                let (a, b, c) = (x[0], x[1], x[2]);
                Ok(l.def(kind_of(s), |d| build::fma_rn(arith_ty(s), d, a, b, c)))
            }),
            M::Mix => self.per_comp(args, |l, s, x| {
                let d = l.bin(Opcode::Sub, s, x[1], x[0]);
                let (b, c) = (x[2], x[0]);
                Ok(l.def(kind_of(s), |dd| build::fma_rn(arith_ty(s), dd, d, b, c)))
            }),
            M::Step => self.per_comp(args, |l, s, x| {
                let p = l.bin_setp(CmpOp::Ge, s, x[1], x[0]);
                let one = l.imm_of(s, 1.0);
                let zero = l.imm_of(s, 0.0);
                Ok(l.select(s, p, one, zero))
            }),
            M::SmoothStep => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    let num = l.binop(Opcode::Sub, &[], PT::F32, y[2], y[0]);
                    let den = l.binop(Opcode::Sub, &[], PT::F32, y[1], y[0]);
                    let t = l.binop(Opcode::Div, &[RN], PT::F32, num, den);
                    let t = l.def(RegKind::B32, |d| build::cvt(None, true, PT::F32, PT::F32, d, t));
                    let m2 = l.imm_f32(-2.0);
                    let three = l.imm_f32(3.0);
                    let k = f32_fma(l, m2, t, three);
                    let tt = l.binop(Opcode::Mul, &[], PT::F32, t, t);
                    l.binop(Opcode::Mul, &[], PT::F32, tt, k)
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
                let b = self.comps(*args.get(1).ok_or_else(|| self.internal("dot arity"))?)?;
                Ok(vec![self.dot(s, &a, &b)])
            }
            M::Cross => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let b = self.comps(*args.get(1).ok_or_else(|| self.internal("cross arity"))?)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(self.internal("cross shape"));
                }
                let mut out = Vec::new();
                for i in 0..3 {
                    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
                    let p = self.bin(Opcode::Mul, s, a[k], b[j]);
                    let np = self.un(Opcode::Neg, s, p);
                    let (aj, bk) = (a[j], b[k]);
                    out.push(self.def(kind_of(s), |d| build::fma_rn(arith_ty(s), d, aj, bk, np)));
                }
                Ok(out)
            }
            M::Length | M::Distance | M::Normalize => {
                let s = self.scalar_ty(args[0])?;
                let mut a = self.comps(args[0])?;
                if fun == M::Distance {
                    let b =
                        self.comps(*args.get(1).ok_or_else(|| self.internal("distance arity"))?)?;
                    a = a.iter().zip(&b).map(|(&p, &q)| self.bin(Opcode::Sub, s, p, q)).collect();
                }
                let a32: Vec<VRegId> = a.iter().map(|&v| self.widen_f16(s, v)).collect();
                let d = self.dot(Scalar::F32, &a32, &a32);
                if fun == M::Normalize {
                    let r = self.unop(Opcode::Rsqrt, &[APPROX], PT::F32, d);
                    let mut out = Vec::new();
                    for &v in &a32 {
                        let t = self.binop(Opcode::Mul, &[], PT::F32, v, r);
                        out.push(self.narrow_f16(s, t));
                    }
                    Ok(out)
                } else {
                    let r = self.sqrt_f32(d);
                    Ok(vec![self.narrow_f16(s, r)])
                }
            }
            M::FaceForward => {
                // select(-n, n, dot(nref, i) < 0)
                let s = self.scalar_ty(args[0])?;
                let n = self.comps(args[0])?;
                let i = self.comps(*args.get(1).ok_or_else(|| self.internal("arity"))?)?;
                let nr = self.comps(*args.get(2).ok_or_else(|| self.internal("arity"))?)?;
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
                let n = self.comps(*args.get(1).ok_or_else(|| self.internal("arity"))?)?;
                let d = self.dot(s, &n, &i);
                let m2 = self.imm_of(s, -2.0);
                let k = self.bin(Opcode::Mul, s, d, m2);
                Ok(i.iter()
                    .zip(&n)
                    .map(|(&iv, &nv)| {
                        self.def(kind_of(s), |d| build::fma_rn(arith_ty(s), d, k, nv, iv))
                    })
                    .collect())
            }
            M::Refract => self.refract(args),
            M::CountOneBits => {
                self.per_comp(args, |l, _, x| Ok(l.unop(Opcode::Popc, &[], PT::B32, x[0])))
            }
            M::ReverseBits => {
                self.per_comp(args, |l, _, x| Ok(l.unop(Opcode::Brev, &[], PT::B32, x[0])))
            }
            M::CountLeadingZeros => {
                self.per_comp(args, |l, _, x| Ok(l.unop(Opcode::Clz, &[], PT::B32, x[0])))
            }
            M::CountTrailingZeros => self.per_comp(args, |l, _, x| {
                let r = l.unop(Opcode::Brev, &[], PT::B32, x[0]);
                Ok(l.unop(Opcode::Clz, &[], PT::B32, r))
            }),
            // `bfind` answers a 32-bit index, 0xffffffff where there is no such bit (WGSL's -1):
            // sign-extended for a 64-bit operand's result.
            M::FirstLeadingBit => self.per_comp(args, |l, s, x| {
                let (t, a) = (arith_ty(s), x[0]);
                let n = l.def(RegKind::B32, |d| build::unary(Opcode::Bfind, &[], t, d, a));
                Ok(l.bit_index(s, n))
            }),
            // The lowest set bit alone (`x & -x`) is also the highest.
            M::FirstTrailingBit => self.per_comp(args, |l, s, x| {
                let (st, bt, ut) = if s.is_64() {
                    (PT::S64, PT::B64, PT::U64)
                } else {
                    (PT::S32, PT::B32, PT::U32)
                };
                let n = l.unop(Opcode::Neg, &[], st, x[0]);
                let low = l.binop(Opcode::And, &[], bt, x[0], n);
                let i = l.def(RegKind::B32, |d| build::unary(Opcode::Bfind, &[], ut, d, low));
                Ok(l.bit_index(s, i))
            }),
            M::ExtractBits => self.per_comp(args, |l, s, x| {
                let (o, c) = l.clamp_bits(x[1], x[2], 8 * s.size());
                let (t, a) = (arith_ty(s), x[0]);
                Ok(l.def(kind_of(s), |d| build::ternary(Opcode::Bfe, &[], t, d, a, o, c)))
            }),
            M::InsertBits => self.per_comp(args, |l, s, x| {
                let (o, c) = l.clamp_bits(x[2], x[3], 8 * s.size());
                let (a, b) = (x[1], x[0]);
                let bt = if s.is_64() { PT::B64 } else { PT::B32 };
                Ok(l.op(
                    kind_of(s),
                    Opcode::Bfi,
                    &[bt.into()],
                    &[a.into(), b.into(), o.into(), c.into()],
                ))
            }),
            M::QuantizeToF16 => self.per_comp(args, |l, _, x| {
                let a = x[0];
                let h = l.def(RegKind::B16, |d| {
                    build::cvt(Some(Rounding::Rn), false, PT::F16, PT::F32, d, a)
                });
                Ok(l.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, h)))
            }),
            M::Pack2x16float => {
                let c = self.comps(args[0])?;
                let h: Vec<VRegId> = c
                    .iter()
                    .map(|&v| {
                        self.def(RegKind::B16, |d| {
                            build::cvt(Some(Rounding::Rn), false, PT::F16, PT::F32, d, v)
                        })
                    })
                    .collect();
                if h.len() != 2 {
                    return Err(self.internal("pack2x16float shape"));
                }
                Ok(vec![self.def(RegKind::B32, |d| build::pack(PT::B32, d, &h))])
            }
            M::Unpack2x16float => {
                let v = self.scalar(args[0])?;
                let lo = self.mf.new_vreg(RegKind::B16);
                let hi = self.mf.new_vreg(RegKind::B16);
                self.push(build::unpack(PT::B32, &[lo, hi], v));
                Ok(vec![
                    self.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, lo)),
                    self.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, hi)),
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
                    let t = self.binop(Opcode::Max, &[], PT::F32, v, lo);
                    let t = self.binop(Opcode::Min, &[], PT::F32, t, hi);
                    let t = self.binop(Opcode::Mul, &[RN], PT::F32, t, k);
                    let t = self.binop(Opcode::Add, &[RN], PT::F32, t, half);
                    let t = self.def(RegKind::B32, |d| {
                        build::cvt(Some(Rounding::Rmi), false, PT::S32, PT::F32, d, t)
                    });
                    acc = bfi_imm(self, t, acc, i * bits, bits);
                }
                Ok(vec![acc])
            }
            M::Pack4xI8 | M::Pack4xU8 | M::Pack4xI8Clamp | M::Pack4xU8Clamp => {
                let c = self.comps(args[0])?;
                let mut acc = self.imm_u32(0);
                for (i, &v) in c.iter().enumerate() {
                    let v = match fun {
                        M::Pack4xI8Clamp => {
                            let t = self.binop(Opcode::Max, &[], PT::S32, v, Operand::Imm(-128));
                            self.binop(Opcode::Min, &[], PT::S32, t, Operand::Imm(127))
                        }
                        M::Pack4xU8Clamp => {
                            self.binop(Opcode::Min, &[], PT::U32, v, Operand::Imm(255))
                        }
                        _ => v,
                    };
                    acc = bfi_imm(self, v, acc, i * 8, 8);
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
                let t = if signed { PT::S32 } else { PT::U32 };
                let k = self.imm_f32(scale);
                let m1 = self.imm_f32(-1.0);
                let mut out = Vec::new();
                for i in 0..n {
                    let b = bfe_imm(self, t, x, i * bits, bits);
                    let f = self.def(RegKind::B32, |d| {
                        build::cvt(Some(Rounding::Rn), false, PT::F32, t, d, b)
                    });
                    let f = self.binop(Opcode::Div, &[RN], PT::F32, f, k);
                    out.push(if signed { self.binop(Opcode::Max, &[], PT::F32, f, m1) } else { f });
                }
                Ok(out)
            }
            M::Unpack4xI8 | M::Unpack4xU8 => {
                let x = self.scalar(args[0])?;
                let t = if fun == M::Unpack4xI8 { PT::S32 } else { PT::U32 };
                Ok((0..4).map(|i| bfe_imm(self, t, x, i * 8, 8)).collect())
            }
            M::Dot4I8Packed | M::Dot4U8Packed => {
                let a = self.scalar(args[0])?;
                let b = self.scalar(*args.get(1).ok_or_else(|| self.internal("arity"))?)?;
                let t = if fun == M::Dot4I8Packed { PT::S32 } else { PT::U32 };
                let z = self.imm_u32(0);
                Ok(vec![self.def(RegKind::B32, |d| {
                    build::ternary(Opcode::Dp4a, &[t.into()], t, d, a, b, z)
                })])
            }
            M::Determinant => {
                let s = self.scalar_ty(args[0])?;
                let a = self.comps(args[0])?;
                let n = (a.len() as f64).sqrt() as usize;
                if n * n != a.len() || n < 2 {
                    return Err(self.internal("determinant of a non-square matrix"));
                }
                let cols: Vec<Vec<VRegId>> = a.chunks(n).map(|c| c.to_vec()).collect();
                Ok(vec![self.det(s, &cols)])
            }
            M::Modf => self
                .per_comp(args, |l, s, x| {
                    let t = arith_ty(s);
                    let a = x[0];
                    Ok(l.def(kind_of(s), |d| build::cvt(Some(Rounding::Rzi), false, t, t, d, a)))
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
                    let e = bfe_imm(self, PT::U32, v32, 23, 8);
                    let e = self.binop(Opcode::Sub, &[], PT::S32, e, Operand::Imm(126));
                    let m =
                        self.binop(Opcode::And, &[], PT::B32, v32, Operand::ImmHex(0x807F_FFFF));
                    let m = self.binop(Opcode::Or, &[], PT::B32, m, Operand::ImmHex(0x3F00_0000));
                    let zero = self.imm_f32(0.0);
                    let z = setp_f32(self, CmpOp::Eq, v32, zero);
                    let m = selp_b32(self, v32, m, z);
                    let zi = self.imm_u32(0);
                    ex.push(selp_b32(self, zi, e, z));
                    fr.push(self.narrow_f16(s, m));
                }
                fr.extend(ex);
                Ok(fr)
            }
            M::Transpose => lowering_common::transpose(self, args[0]),
            M::Ldexp => self.per_comp(args, |l, s, x| {
                // x * 2^e, with 2^e built exactly from its exponent bits (e clamped to [-126, 127]).
                let lo = l.imm_u32((-126i32) as u32);
                let e = l.binop(Opcode::Max, &[], PT::S32, x[1], lo);
                let e = l.binop(Opcode::Min, &[], PT::S32, e, Operand::Imm(127));
                let b = l.binop(Opcode::Add, &[], PT::S32, e, Operand::Imm(127));
                let p = l.binop(Opcode::Shl, &[], PT::B32, b, Operand::Imm(23));
                let xf = l.widen_f16(s, x[0]);
                let r = l.binop(Opcode::Mul, &[], PT::F32, xf, p);
                Ok(l.narrow_f16(s, r))
            }),
            _ => {
                let _ = out_n;
                Err(self.unsupported(&format!("the math function {fun:?}")))
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
                    // Constant arguments fold, with the arithmetic the device would do.
                    let k = |l: &Self, v: VRegId| l.fconsts.get(&v).copied();
                    if let (Some(a), Some(n)) = (k(l, x[0]), k(l, x[1])) {
                        let r = match n {
                            1.0 => a,
                            2.0 => a * a,
                            3.0 => a * a * a,
                            -1.0 => 1.0 / a,
                            _ => math::eval(fun, &[a, n]).unwrap_or(f32::NAN),
                        };
                        if !r.is_nan() {
                            return Ok(l.imm_f32(r));
                        }
                    }
                    if let Some(r) = l.pow_small_exponent(x[0], k(l, x[1]), false) {
                        return Ok(r);
                    }
                    let r = math::binary(l, fun, Opnd::R(x[0]), Opnd::R(x[1]));
                    let r = r.unwrap_or(Opnd::R(x[0]));
                    Ok(l.reg(r))
                })?
            }
            _ if math::FUNCTIONS.contains(&fun) => self.per_comp(args, |l, s, x| {
                Ok(l.via_f32(s, x, |l, y| {
                    // Constant arguments fold: the CPU evaluates the same algorithm with the
                    // device's arithmetic (`math::eval`), so the constant is the device's
                    // result bit for bit. NaN results are left to the device (its NaN
                    // bits are the hardware's).
                    let ks: Option<Vec<f32>> =
                        y.iter().map(|v| l.fconsts.get(v).copied()).collect();
                    if let Some(r) = ks.and_then(|ks| math::eval(fun, &ks)) {
                        if !r.is_nan() {
                            return l.imm_f32(r);
                        }
                    }
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
                // Constant arguments fold with the device's arithmetic (`Native`).
                let known = (l.fconsts.get(&xf).copied(), l.consts.get(&x[1]).copied());
                if let (Some(a), Some(n)) = known {
                    let r = math::ldexp(&mut Native, a, n);
                    if !r.is_nan() {
                        let r = l.imm_f32(r);
                        return Ok(l.narrow_f16(s, r));
                    }
                }
                let r = math::ldexp(l, Opnd::R(xf), Opnd::R(x[1]));
                let r = l.reg(r);
                Ok(l.narrow_f16(s, r))
            })?,
            M::Frexp | M::Modf => {
                let s = self.scalar_ty(args[0])?;
                let mut first = Vec::new();
                let mut second = Vec::new();
                for v in self.comps(args[0])? {
                    let v32 = self.widen_f16(s, v);
                    // A constant argument folds with the device's arithmetic (`Native`).
                    if let Some(x) = self.fconsts.get(&v32).copied().filter(|x| !x.is_nan()) {
                        let (a, b) = if fun == M::Frexp {
                            let (fr, e) = math::frexp(&mut Native, x);
                            (self.imm_f32(fr), self.imm_u32(e))
                        } else {
                            let (fr, w) = math::modf(&mut Native, x);
                            (self.imm_f32(fr), self.imm_f32(w))
                        };
                        first.push(a);
                        second.push(b);
                        continue;
                    }
                    let v32 = Opnd::R(v32);
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
                let r = self.sqrt_f32(d);
                let mut out = Vec::new();
                for &v in &a32 {
                    let t = self.binop(Opcode::Div, &[RN], PT::F32, v, r);
                    out.push(self.narrow_f16(s, t));
                }
                out
            }
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    /// `refract(i, n, eta)` as WGSL defines it: with `k = 1 - eta^2 (1 - dot(n, i)^2)`, the
    /// zero vector when `k < 0`, else `eta i - (eta dot(n, i) + sqrt(k)) n`. In f64 for f64,
    /// else in f32 (f16 operands are widened and the result narrowed), every step rounded to nearest (`.rn`
    /// keeps ptxas from contracting them) and the square root correctly rounded, in both math
    /// modes; the dot product is `dot`'s fma chain. Within 4 ulp of the reference interpreter
    /// except where `k` cancels (grazing rays), which `agree` bounds as a math builtin.
    fn refract(&mut self, args: &[dianran_frontend::ir::ValueId]) -> R<Vec<VRegId>> {
        // `math` checked the arity: three arguments.
        let s = self.scalar_ty(args[0])?;
        let i = self.comps(args[0])?;
        let n = self.comps(args[1])?;
        let eta = self.comps(args[2])?;
        let eta = *eta.first().ok_or_else(|| self.internal("refract without eta"))?;
        let i: Vec<VRegId> = i.iter().map(|&v| self.widen_f16(s, v)).collect();
        let n: Vec<VRegId> = n.iter().map(|&v| self.widen_f16(s, v)).collect();
        let e = self.widen_f16(s, eta);
        // f64 works in f64, f32 and f16 in f32.
        let w = if s == Scalar::F64 { Scalar::F64 } else { Scalar::F32 };
        let d = self.dot(w, &n, &i);
        let op =
            |l: &mut Self, op: Opcode, a: VRegId, b: VRegId| l.binop(op, &[RN], arith_ty(w), a, b);
        let one = self.imm_of(w, 1.0);
        let dd = op(self, Opcode::Mul, d, d);
        let t = op(self, Opcode::Sub, one, dd);
        let ee = op(self, Opcode::Mul, e, e);
        let et = op(self, Opcode::Mul, ee, t);
        let k = op(self, Opcode::Sub, one, et);
        let zero = self.imm_of(w, 0.0);
        let total_reflection = self.bin_setp(CmpOp::Lt, w, k, zero);
        let root = if w == Scalar::F32 {
            self.sqrt_f32(k)
        } else {
            self.unop(Opcode::Sqrt, &[RN], arith_ty(w), k)
        };
        let ed = op(self, Opcode::Mul, e, d);
        let f = op(self, Opcode::Add, ed, root);
        let mut out = Vec::with_capacity(i.len());
        for (&iv, &nv) in i.iter().zip(&n) {
            let a = op(self, Opcode::Mul, e, iv);
            let b = op(self, Opcode::Mul, f, nv);
            let v = op(self, Opcode::Sub, a, b);
            let v = self.select(w, total_reflection, zero, v);
            out.push(self.narrow_f16(s, v));
        }
        Ok(out)
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
    /// A bit index `n` (a 32-bit `bfind` result, 0xffffffff for none) as the result type of a
    /// bit scan on `s`: sign-extended to 64 bits for 64-bit operands, so none is WGSL's -1.
    fn bit_index(&mut self, s: Scalar, n: VRegId) -> VRegId {
        if s.is_64() {
            self.def(RegKind::B64, |d| build::cvt(None, false, PT::S64, PT::S32, d, n))
        } else {
            n
        }
    }

    /// WGSL's clamping of `extractBits`/`insertBits` operands for `width`-bit values:
    /// `o = min(offset, width)`, `c = min(count, width - o)`.
    pub(crate) fn clamp_bits(
        &mut self,
        offset: VRegId,
        count: VRegId,
        width: u32,
    ) -> (VRegId, VRegId) {
        let o = self.binop(Opcode::Min, &[], PT::U32, offset, Operand::Imm(i64::from(width)));
        let k = self.imm_u32(width);
        let rest = self.binop(Opcode::Sub, &[], PT::S32, k, o);
        let c = self.binop(Opcode::Min, &[], PT::U32, count, rest);
        (o, c)
    }

    /// e^x as 2^(x log2 e).
    pub(crate) fn exp_f32(&mut self, x: VRegId) -> VRegId {
        let k = self.imm_f32(std::f32::consts::LOG2_E);
        let t = self.binop(Opcode::Mul, &[], PT::F32, x, k);
        self.unop(Opcode::Ex2, &[APPROX], PT::F32, t)
    }

    /// atan on all of f32: reduce |x| > 1 with atan(x) = pi/2 - atan(1/x), then a minimax
    /// polynomial on [0, 1] (max error about 1e-5 rad), sign restored at the end.
    pub(crate) fn atan_f32(&mut self, x: VRegId) -> VRegId {
        let ax = self.unop(Opcode::Abs, &[], PT::F32, x);
        let one = self.imm_f32(1.0);
        let big = setp_f32(self, CmpOp::Gt, ax, one);
        let inv = self.unop(Opcode::Rcp, &[RN], PT::F32, ax);
        let t = selp_b32(self, inv, ax, big);
        let t2 = self.binop(Opcode::Mul, &[], PT::F32, t, t);
        let mut p = self.imm_f32(ATAN_COEFFS[0]);
        for &c in &ATAN_COEFFS[1..] {
            let k = self.imm_f32(c);
            p = f32_fma(self, p, t2, k);
        }
        let r = self.binop(Opcode::Mul, &[], PT::F32, p, t);
        let half_pi = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let rr = self.binop(Opcode::Sub, &[], PT::F32, half_pi, r);
        let r = selp_b32(self, rr, r, big);
        // copysign(r, x)
        self.binop(Opcode::Copysign, &[], PT::F32, x, r)
    }

    /// `pow(x, n)` for a constant `n` of 1, 2 or 3 as `x`, `x * x`, `x * x * x`, and of -1 as
    /// `1 / x` (`rcp.approx` under `--fast-math`, else `rcp.rn`, the same value as `div.rn`); `None` for any other `n`.
    fn pow_small_exponent(&mut self, x: VRegId, n: Option<f32>, fast: bool) -> Option<VRegId> {
        let mul = |l: &mut Self, a, b| l.binop(Opcode::Mul, &[RN], PT::F32, a, b);
        Some(match n? {
            1.0 => x,
            2.0 => mul(self, x, x),
            3.0 => {
                let sq = mul(self, x, x);
                mul(self, sq, x)
            }
            -1.0 if fast => self.unop(Opcode::Rcp, &[APPROX], PT::F32, x),
            -1.0 => self.unop(Opcode::Rcp, &[RN], PT::F32, x),
            _ => return None,
        })
    }

    /// A correctly rounded f32 square root: `sqrt.rn`'s bits from the refined `rsqrt.approx`
    /// (`math::sqrt_any`, docs/math.md), without `sqrt.rn`'s slow-path subroutine; under
    /// `--fast-math` `sqrt.rn.f32` itself.
    pub(crate) fn sqrt_f32(&mut self, x: VRegId) -> VRegId {
        if self.fast_math {
            return self.unop(Opcode::Sqrt, &[RN], PT::F32, x);
        }
        let r = math::sqrt_any(self, Opnd::R(x));
        self.reg(r)
    }

    /// atan2(y, x) from atan(y / x) with quadrant fix-ups.
    pub(crate) fn atan2_f32(&mut self, y: VRegId, x: VRegId) -> VRegId {
        let q = self.binop(Opcode::Div, &[RN], PT::F32, y, x);
        let a = self.atan_f32(q);
        let zero = self.imm_f32(0.0);
        let pi = self.imm_f32(std::f32::consts::PI);
        let xneg = setp_f32(self, CmpOp::Lt, x, zero);
        let spi = self.binop(Opcode::Copysign, &[], PT::F32, y, pi);
        let adj = self.binop(Opcode::Add, &[], PT::F32, a, spi);
        let r = selp_b32(self, adj, a, xneg);
        // x == 0: +-pi/2 by the sign of y (0 when y is 0 too).
        let xz = setp_f32(self, CmpOp::Eq, x, zero);
        let hp = self.imm_f32(std::f32::consts::FRAC_PI_2);
        let shp = self.binop(Opcode::Copysign, &[], PT::F32, y, hp);
        let yz = setp_f32(self, CmpOp::Eq, y, zero);
        let shp = selp_b32(self, zero, shp, yz);
        selp_b32(self, shp, r, xz)
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
