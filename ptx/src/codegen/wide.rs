//! Selection for the 64-bit scalars: `i64`/`u64` as `.s64`/`.u64` and `f64` as `.f64`, all in
//! `%rd` registers. Integer division follows WGSL (by zero: `e1`, remainder 0; `MIN / -1`:
//! `MIN`) exactly as the 32-bit lowering; float `+ - * /`, `sqrt` and `fma` carry `.rn` so
//! ptxas neither contracts nor approximates them and every executor agrees bit for bit.

use super::lower::Lower;
use super::regalloc::{RegKind, VRegId};
use crate::abi::layout::{arith_ty, kind_of};
use crate::lowering_common::ScalarLowering;
use crate::model::{build, CmpOp, Modifier, Opcode, Operand, Rounding, Type as PT};
use dianran_frontend::ir::{BinaryOperator as B, MathFunction as M, Scalar, UnaryOperator as U};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

const RN: Modifier = Modifier::Round(Rounding::Rn);

impl Lower<'_> {
    /// A register holding a 64-bit constant of scalar `s` by its bits.
    pub(crate) fn imm_b64(&mut self, s: Scalar, bits: u64) -> VRegId {
        if s == Scalar::F64 {
            self.def(RegKind::B64, |d| build::mov(PT::F64, d, Operand::ImmF64(bits)))
        } else {
            self.def(RegKind::B64, |d| build::mov(PT::B64, d, Operand::ImmHex(bits)))
        }
    }

    /// `-x` and `~x` on a 64-bit scalar.
    pub(crate) fn unary64(&mut self, u: U, s: Scalar, v: VRegId) -> R<VRegId> {
        Ok(match u {
            U::BitwiseNot => {
                self.def(RegKind::B64, |d| build::unary(Opcode::Not, &[], PT::B64, d, v))
            }
            U::Negate => {
                self.def(RegKind::B64, |d| build::unary(Opcode::Neg, &[], arith_ty(s), d, v))
            }
            U::LogicalNot => return Err(self.internal("logical not on a 64-bit value")),
        })
    }

    /// A binary operator on 64-bit scalars (shift amounts are `u32`, masked to 0..=63).
    pub(crate) fn binary64(&mut self, op: B, s: Scalar, a: VRegId, b: VRegId) -> R<VRegId> {
        let float = s == Scalar::F64;
        let t = arith_ty(s);
        let fmods: &[Modifier] = if float { &[RN] } else { &[] };
        let bin = |l: &mut Self, o: Opcode, mods: &[Modifier], x: VRegId, y: VRegId| {
            l.def(RegKind::B64, |d| build::binary(o, mods, t, d, x, y))
        };
        Ok(match op {
            B::Add => bin(self, Opcode::Add, fmods, a, b),
            B::Subtract if self.inject == Some(super::InjectedBug::SubSwapped) => {
                bin(self, Opcode::Sub, fmods, b, a)
            }
            B::Subtract => bin(self, Opcode::Sub, fmods, a, b),
            B::Multiply if float => bin(self, Opcode::Mul, fmods, a, b),
            B::Multiply => self.def(RegKind::B64, |d| build::mul_lo(t, d, a, b)),
            B::Divide if float => bin(self, Opcode::Div, fmods, a, b),
            B::Divide | B::Modulo if !float => {
                let d = self.safe_divisor64(s, a, b);
                let name = if op == B::Divide { Opcode::Div } else { Opcode::Rem };
                bin(self, name, &[], a, d)
            }
            B::Divide | B::Modulo => {
                // WGSL: x - y * trunc(x / y), each step rounded once.
                let q = bin(self, Opcode::Div, &[RN], a, b);
                let q = self.def(RegKind::B64, |d| {
                    build::cvt(Some(Rounding::Rzi), false, PT::F64, PT::F64, d, q)
                });
                let m = bin(self, Opcode::Mul, &[RN], q, b);
                bin(self, Opcode::Sub, &[RN], a, m)
            }
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                self.wgsl_compare(op, float, t, a, b)
            }
            // Bit operations take only .b64 (ptxas rejects `and.u64`).
            B::And => self.binop(Opcode::And, &[], PT::B64, a, b),
            B::InclusiveOr => self.binop(Opcode::Or, &[], PT::B64, a, b),
            B::ExclusiveOr => self.binop(Opcode::Xor, &[], PT::B64, a, b),
            B::ShiftLeft | B::ShiftRight => self.wgsl_shift(op, s, a, b),
            B::LogicalAnd | B::LogicalOr => {
                return Err(self.internal("logical operator on a 64-bit value"))
            }
        })
    }

    /// The divisor WGSL division uses (see `safe_divisor`): 1 for a zero divisor and for
    /// `i64::MIN / -1`.
    fn safe_divisor64(&mut self, s: Scalar, a: VRegId, b: VRegId) -> VRegId {
        let one = self.imm_b64(s, 1);
        let z = self.def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::U64, p, b, Operand::Imm(0)));
        let bad = if s == Scalar::I64 {
            let m1 = self
                .def(RegKind::Pred, |p| build::setp(CmpOp::Eq, PT::S64, p, b, Operand::Imm(-1)));
            let mn = self.def(RegKind::Pred, |p| {
                build::setp(CmpOp::Eq, PT::U64, p, a, Operand::ImmHex(1 << 63))
            });
            let both = self.pred_op(Opcode::And, m1, mn);
            self.pred_op(Opcode::Or, z, both)
        } else {
            z
        };
        self.def(RegKind::B64, |d| build::selp(PT::B64, d, one, b, bad))
    }

    /// A conversion where `from` or `to` is 64-bit, with WGSL semantics: float -> int
    /// truncates and saturates (NaN -> 0), int -> int keeps the low bits of the source
    /// extended by its own signedness, float narrowing rounds to nearest even once.
    pub(crate) fn convert64(&mut self, from: Scalar, to: Scalar, v: VRegId) -> R<VRegId> {
        use Scalar::*;
        let cvt = |l: &mut Self, r: Option<Rounding>, dst: Scalar, src: PT, v: VRegId| {
            l.def(kind_of(dst), |d| build::cvt(r, false, arith_ty(dst), src, d, v))
        };
        Ok(match (from, to) {
            (a, b) if a == b => v,
            (I64, U64) | (U64, I64) => v,
            (Bool, F64) => {
                let one = self.imm_b64(F64, 1.0f64.to_bits());
                let zero = self.imm_b64(F64, 0);
                self.def(RegKind::B64, |d| build::selp(PT::B64, d, one, zero, v))
            }
            (Bool, _) => self.def(RegKind::B64, |d| {
                build::selp(PT::U64, d, Operand::Imm(1), Operand::Imm(0), v)
            }),
            (I64 | U64, Bool) => {
                self.def(RegKind::Pred, |p| build::setp(CmpOp::Ne, PT::U64, p, v, Operand::Imm(0)))
            }
            (F64, Bool) => {
                let z = self.imm_b64(F64, 0);
                self.def(RegKind::Pred, |p| build::setp(CmpOp::Neu, PT::F64, p, v, z))
            }
            // Integer widening: cvt extends by the source's signedness.
            (I32 | U32, I64 | U64) => cvt(self, None, to, arith_ty(from), v),
            // Integer narrowing keeps the low 32 bits.
            (I64 | U64, I32 | U32) => cvt(self, None, U32, PT::U64, v),
            (I32 | U32 | I64 | U64, F64) | (I64 | U64, F32) => {
                cvt(self, Some(Rounding::Rn), to, arith_ty(from), v)
            }
            // Every integer that is finite in f16 is exact in f32, so one rounding either way.
            (I64 | U64, F16) => {
                let f = cvt(self, Some(Rounding::Rn), F32, arith_ty(from), v);
                cvt(self, Some(Rounding::Rn), F16, PT::F32, f)
            }
            (F64, I32 | U32 | I64 | U64) | (F32, I64 | U64) => {
                cvt(self, Some(Rounding::Rzi), to, arith_ty(from), v)
            }
            (F16, I64 | U64) => {
                let f = cvt(self, None, F32, PT::F16, v);
                cvt(self, Some(Rounding::Rzi), to, PT::F32, f)
            }
            (F64, F32 | F16) => cvt(self, Some(Rounding::Rn), to, PT::F64, v),
            (F32 | F16, F64) => cvt(self, None, F64, arith_ty(from), v),
            _ => return Err(self.internal("64-bit conversion")),
        })
    }

    /// Bit reinterpretation when either side has 64-bit components: same-width components
    /// are the same registers; `vec2` of 32-bit halves pack into (or split from) one 64-bit
    /// value, low half first.
    pub(crate) fn bitcast64(
        &mut self,
        from: Scalar,
        to: Scalar,
        c: Vec<VRegId>,
        n: usize,
    ) -> R<Vec<VRegId>> {
        match (from.is_64(), to.is_64()) {
            (true, true) if n == c.len() => Ok(c),
            (false, true) if c.len() == 2 * n && from.size() == 4 => {
                Ok(self.pack_pairs(RegKind::B64, PT::B64, &c))
            }
            (true, false) if n == 2 * c.len() && to.size() == 4 => {
                Ok(self.unpack_halves(RegKind::B32, PT::B64, &c))
            }
            _ => Err(self.unsupported("this bitcast between 64-bit and narrower types")),
        }
    }

    /// A math builtin on 64-bit arguments, one component at a time.
    pub(crate) fn math64(
        &mut self,
        fun: M,
        args: &[dianran_frontend::ir::ValueId],
    ) -> R<Vec<VRegId>> {
        let un = |l: &mut Self, o: Opcode, mods: &[Modifier], t: PT, x: VRegId| {
            l.def(RegKind::B64, |d| build::unary(o, mods, t, d, x))
        };
        let rnd = |l: &mut Self, r: Rounding, x: VRegId| {
            l.def(RegKind::B64, |d| build::cvt(Some(r), false, PT::F64, PT::F64, d, x))
        };
        match fun {
            M::Abs => self.per_comp(args, |l, s, x| {
                Ok(match s {
                    Scalar::U64 => x[0],
                    _ => un(l, Opcode::Abs, &[], arith_ty(s), x[0]),
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
            M::Sqrt => {
                self.per_comp(args, |l, s, x| Ok(un(l, Opcode::Sqrt, &[RN], arith_ty(s), x[0])))
            }
            M::Fma => self.per_comp(args, |l, _, x| {
                let (a, b, c) = (x[0], x[1], x[2]);
                Ok(l.def(RegKind::B64, |d| build::fma_rn(PT::F64, d, a, b, c)))
            }),
            M::Floor => self.per_comp(args, |l, _, x| Ok(rnd(l, Rounding::Rmi, x[0]))),
            M::Ceil => self.per_comp(args, |l, _, x| Ok(rnd(l, Rounding::Rpi, x[0]))),
            M::Trunc => self.per_comp(args, |l, _, x| Ok(rnd(l, Rounding::Rzi, x[0]))),
            M::Round => self.per_comp(args, |l, _, x| Ok(rnd(l, Rounding::Rni, x[0]))),
            M::Fract => self.per_comp(args, |l, _, x| {
                let f = rnd(l, Rounding::Rmi, x[0]);
                let a = x[0];
                Ok(l.def(RegKind::B64, |d| build::binary(Opcode::Sub, &[RN], PT::F64, d, a, f)))
            }),
            M::Sign => self.per_comp(args, |l, s, x| {
                // 1 above zero, -1 below, else `x` itself (zeros keep their sign, NaN stays
                // NaN), as the interpreter's f32 `sign`.
                let z = l.imm_b64(s, 0);
                let t = arith_ty(s);
                let a = x[0];
                let gt = l.def(RegKind::Pred, |p| build::setp(CmpOp::Gt, t, p, a, z));
                let lt = l.def(RegKind::Pred, |p| build::setp(CmpOp::Lt, t, p, a, z));
                let (one, m1) = if s == Scalar::F64 {
                    (l.imm_b64(s, 1.0f64.to_bits()), l.imm_b64(s, (-1.0f64).to_bits()))
                } else {
                    (l.imm_b64(s, 1), l.imm_b64(s, u64::MAX))
                };
                let r = l.def(RegKind::B64, |d| build::selp(PT::B64, d, m1, a, lt));
                Ok(l.def(RegKind::B64, |d| build::selp(PT::B64, d, one, r, gt)))
            }),
            M::CountOneBits | M::CountLeadingZeros => {
                let op = if fun == M::CountOneBits { Opcode::Popc } else { Opcode::Clz };
                self.per_comp(args, |l, _, x| {
                    let a = x[0];
                    let n = l.def(RegKind::B32, |d| build::unary(op, &[], PT::B64, d, a));
                    Ok(l.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, n)))
                })
            }
            M::CountTrailingZeros => self.per_comp(args, |l, _, x| {
                let r = un(l, Opcode::Brev, &[], PT::B64, x[0]);
                let n = l.def(RegKind::B32, |d| build::unary(Opcode::Clz, &[], PT::B64, d, r));
                Ok(l.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, n)))
            }),
            M::ReverseBits => {
                self.per_comp(args, |l, _, x| Ok(un(l, Opcode::Brev, &[], PT::B64, x[0])))
            }
            // clamp(x, 0, 1) as min(max(x, 0), 1): NaN gives 0, as `cvt.sat` does for f32.
            M::Saturate => self.per_comp(args, |l, s, x| {
                let (zero, one) = (l.imm_of(s, 0.0), l.imm_of(s, 1.0));
                let t = l.bin(Opcode::Max, s, x[0], zero);
                Ok(l.bin(Opcode::Min, s, t, one))
            }),
            // t = saturate((x - e0) / (e1 - e0)); t * t * (3 - 2 t), each step rounded.
            M::SmoothStep => self.per_comp(args, |l, s, x| {
                let num = l.f64_bin(Opcode::Sub, x[2], x[0]);
                let den = l.f64_bin(Opcode::Sub, x[1], x[0]);
                let q = l.f64_bin(Opcode::Div, num, den);
                let (zero, one) = (l.imm_of(s, 0.0), l.imm_of(s, 1.0));
                let q = l.bin(Opcode::Max, s, q, zero);
                let t = l.bin(Opcode::Min, s, q, one);
                let (m2, three) = (l.imm_of(s, -2.0), l.imm_of(s, 3.0));
                let k = l.def(RegKind::B64, |d| build::fma_rn(PT::F64, d, m2, t, three));
                let tt = l.f64_bin(Opcode::Mul, t, t);
                Ok(l.f64_bin(Opcode::Mul, tt, k))
            }),
            // C99 `modf`: `whole = trunc(x)`, `fract = x - whole` with x's sign (-0 for negative
            // integers, +-0 for infinities). The result is fract's components, then whole's.
            M::Modf => {
                let x = self.comps(args[0])?;
                let mut fract = Vec::new();
                let mut whole = Vec::new();
                for &v in &x {
                    let w = rnd(self, Rounding::Rzi, v);
                    let d = self.f64_bin(Opcode::Sub, v, w);
                    let inf = self.imm_of(Scalar::F64, f64::INFINITY);
                    let a = un(self, Opcode::Abs, &[], PT::F64, v);
                    let is_inf = self.bin_setp(CmpOp::Eq, Scalar::F64, a, inf);
                    let zero = self.imm_of(Scalar::F64, 0.0);
                    let d = self.select(Scalar::F64, is_inf, zero, d);
                    // `copysign d, a, b`: b with a's sign.
                    fract.push(self.def(RegKind::B64, |r| {
                        build::binary(Opcode::Copysign, &[], PT::F64, r, v, d)
                    }));
                    whole.push(w);
                }
                fract.extend(whole);
                Ok(fract)
            }
            M::Frexp => {
                let x = self.comps(args[0])?;
                let (fract, exp): (Vec<_>, Vec<_>) =
                    x.iter().map(|&v| self.frexp64(v)).collect::<Vec<_>>().into_iter().unzip();
                Ok(fract.into_iter().chain(exp).collect())
            }
            M::Ldexp => self.per_comp(args, |l, _, x| Ok(l.ldexp64(x[0], x[1]))),
            M::Length | M::Distance | M::Normalize => {
                let mut a = self.comps(args[0])?;
                if fun == M::Distance {
                    let b =
                        self.comps(*args.get(1).ok_or_else(|| self.internal("distance arity"))?)?;
                    a = a.iter().zip(&b).map(|(&p, &q)| self.f64_bin(Opcode::Sub, p, q)).collect();
                }
                let d = self.dot(Scalar::F64, &a, &a);
                let r = un(self, Opcode::Sqrt, &[RN], PT::F64, d);
                Ok(match fun {
                    M::Normalize => a.iter().map(|&v| self.f64_bin(Opcode::Div, v, r)).collect(),
                    _ => vec![r],
                })
            }
            M::Dot => {
                let first = *args.first().ok_or_else(|| self.internal("dot arity"))?;
                let s = self.scalar_ty(first)?;
                let a = self.comps(first)?;
                let b = self.comps(*args.get(1).ok_or_else(|| self.internal("dot arity"))?)?;
                let t = arith_ty(s);
                let float = s == Scalar::F64;
                // `a0 * b0`, then one fused step per further pair (the interpreter's order;
                // starting from `fma(a0, b0, 0)` would turn a -0 product into +0).
                let (Some(&a0), Some(&b0)) = (a.first(), b.first()) else {
                    return Err(self.internal("dot of empty vectors"));
                };
                let mut acc = if float {
                    self.def(RegKind::B64, |d| build::binary(Opcode::Mul, &[RN], t, d, a0, b0))
                } else {
                    self.def(RegKind::B64, |d| build::mul_lo(t, d, a0, b0))
                };
                for (&x, &y) in a.iter().zip(&b).skip(1) {
                    let c = acc;
                    acc = if float {
                        self.def(RegKind::B64, |d| build::fma_rn(t, d, x, y, c))
                    } else {
                        self.def(RegKind::B64, |d| build::mad_lo(t, d, x, y, c))
                    };
                }
                Ok(vec![acc])
            }
            // The precise f64 library (`crate::math::f64`, docs/math.md).
            _ if crate::math::f64::FUNCTIONS.contains(&fun) => self.per_comp(args, |l, s, x| {
                if s != Scalar::F64 {
                    return Err(l.internal("f64 math on a non-f64 argument"));
                }
                match x {
                    [a, b] => crate::math::f64::binary(l, fun, *a, *b),
                    _ => crate::math::f64::unary(l, fun, x[0]),
                }
                .ok_or_else(|| l.internal("f64 math function without a lowering"))
            }),
            _ => Err(self.unsupported(&format!(
                "the builtin `{}` on 64-bit arguments (supported: abs, min, max, clamp, sign, \
                 saturate, sqrt, fma, floor, ceil, trunc, round, fract, mix, step, smoothstep, \
                 degrees, radians, dot, cross, length, distance, normalize, faceForward, \
                 reflect, modf, frexp, ldexp, exp, exp2, log, log2, pow, inverseSqrt, sin, cos, \
                 tan, sinh, cosh, tanh, asin, acos, atan, atan2, asinh, acosh, atanh, \
                 countOneBits, \
                 countLeadingZeros, countTrailingZeros, firstLeadingBit, firstTrailingBit, \
                 extractBits, insertBits, reverseBits)",
                wgsl_math_name(fun)
            ))),
        }
    }

    /// `frexp(x) = (fract, exp)` of an f64: `x = fract 2^exp`, `|fract|` in [0.5, 1)
    /// (subnormals scaled by 2^54 first); zeros, infinities and NaN give `(x, 0)`. `exp` is
    /// an i64: naga's `__frexp_result_f64` gives the exponent the fraction's width.
    fn frexp64(&mut self, x: VRegId) -> (VRegId, VRegId) {
        let s = Scalar::F64;
        let ax = self.def(RegKind::B64, |d| build::unary(Opcode::Abs, &[], PT::F64, d, x));
        let min_normal = self.imm_of(s, f64::MIN_POSITIVE);
        let sub = self.bin_setp(CmpOp::Lt, s, ax, min_normal);
        let k = self.imm_of(s, 2f64.powi(54));
        let scaled = self.f64_bin(Opcode::Mul, x, k);
        let xs = self.select(s, sub, scaled, x);
        // The biased exponent from the high word: bits 20..30.
        let sh = self.i64_bin(Opcode::Shr, PT::U64, xs, Operand::Imm(32));
        let hi = self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, sh));
        let be = self.binop(Opcode::Shr, &[], PT::U32, hi, Operand::Imm(20));
        let be = self.binop(Opcode::And, &[], PT::B32, be, Operand::Imm(0x7FF));
        let e = self.binop(Opcode::Sub, &[], PT::S32, be, Operand::Imm(1022));
        let adj = self.binop(Opcode::Sub, &[], PT::S32, e, Operand::Imm(54));
        let e = self.def(RegKind::B32, |d| build::selp(PT::B32, d, adj, e, sub));
        // Sign and mantissa kept, exponent set to 2^-1.
        let m = self.i64_bin(Opcode::And, PT::B64, xs, Operand::ImmHex(0x800F_FFFF_FFFF_FFFF));
        let m = self.i64_bin(Opcode::Or, PT::B64, m, Operand::ImmHex(0x3FE0_0000_0000_0000));
        let zero = self.imm_of(s, 0.0);
        let inf = self.imm_of(s, f64::INFINITY);
        let pos = self.bin_setp(CmpOp::Gt, s, ax, zero);
        let fin = self.bin_setp(CmpOp::Lt, s, ax, inf);
        let normal = self.pred_op(Opcode::And, pos, fin);
        let fract = self.select(s, normal, m, x);
        let zi = self.imm_u32(0);
        let exp = self.def(RegKind::B32, |d| build::selp(PT::B32, d, e, zi, normal));
        let exp = self.def(RegKind::B64, |d| build::cvt(None, false, PT::S64, PT::S32, d, exp));
        (fract, exp)
    }

    /// `x * 2^n` for an f64 `x` and an i32 `n`, rounded once (C99 `scalbn`, musl's scheme): at
    /// most two steps of 2^1023 up or of 2^-969 down bring `n` into the normal range before
    /// the final multiplication; a down step can round only where the result underflows.
    fn ldexp64(&mut self, x: VRegId, n: VRegId) -> VRegId {
        let s = Scalar::F64;
        let lo = self.imm_u32((-2200i32) as u32);
        let n = self.binop(Opcode::Max, &[], PT::S32, n, lo);
        let mut n = self.binop(Opcode::Min, &[], PT::S32, n, Operand::Imm(2200));
        let mut y = x;
        let one = self.imm_of(s, 1.0);
        for _ in 0..2 {
            let limit = Operand::Imm(1023);
            let p = self.def(RegKind::Pred, |d| build::setp(CmpOp::Gt, PT::S32, d, n, limit));
            let f = self.imm_of(s, 2f64.powi(1023));
            let k = self.select(s, p, f, one);
            y = self.f64_bin(Opcode::Mul, y, k);
            let t = self.binop(Opcode::Sub, &[], PT::S32, n, Operand::Imm(1023));
            n = self.def(RegKind::B32, |d| build::selp(PT::B32, d, t, n, p));
        }
        // 2^-1022 * 2^53: the down steps keep 53 bits in hand, so only the last multiplication
        // rounds a result that ends up subnormal.
        for _ in 0..2 {
            let limit = Operand::Imm(-1022);
            let p = self.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::S32, d, n, limit));
            let f = self.imm_of(s, 2f64.powi(-969));
            let k = self.select(s, p, f, one);
            y = self.f64_bin(Opcode::Mul, y, k);
            let t = self.binop(Opcode::Add, &[], PT::S32, n, Operand::Imm(969));
            n = self.def(RegKind::B32, |d| build::selp(PT::B32, d, t, n, p));
        }
        let lo = self.imm_u32((-1022i32) as u32);
        let n = self.binop(Opcode::Max, &[], PT::S32, n, lo);
        let n = self.binop(Opcode::Min, &[], PT::S32, n, Operand::Imm(1023));
        let b = self.binop(Opcode::Add, &[], PT::S32, n, Operand::Imm(1023));
        let b = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, b));
        let scale = self.i64_bin(Opcode::Shl, PT::B64, b, Operand::Imm(52));
        self.f64_bin(Opcode::Mul, y, scale)
    }

    /// `atom` on a 64-bit atomic: `add`/`min`/`max` typed `.u64`/`.s64`, the bit operations
    /// and `exch` `.b64`; `sub` adds the negation.
    pub(crate) fn atomic64(
        &mut self,
        sp: crate::model::StateSpace,
        addr: Operand,
        op: dianran_frontend::ir::AtomicOp,
        s: Scalar,
        v: VRegId,
    ) -> VRegId {
        use crate::model::AtomOp;
        use dianran_frontend::ir::AtomicOp as A;
        // PTX has no atom.add.s64: two's-complement addition is the same bits.
        let at = if s == Scalar::I64 { PT::S64 } else { PT::U64 };
        let (aop, t, v) = match op {
            A::Add => (AtomOp::Add, PT::U64, v),
            A::Sub => {
                let n = self.def(RegKind::B64, |d| build::unary(Opcode::Neg, &[], PT::S64, d, v));
                (AtomOp::Add, PT::U64, n)
            }
            A::And => (AtomOp::And, PT::B64, v),
            A::Or => (AtomOp::Or, PT::B64, v),
            A::Xor => (AtomOp::Xor, PT::B64, v),
            A::Min => (AtomOp::Min, at, v),
            A::Max => (AtomOp::Max, at, v),
            A::Exchange => (AtomOp::Exch, PT::B64, v),
        };
        self.def(RegKind::B64, |d| build::atom(sp, aop, t, d, addr, v))
    }
}

/// The WGSL spelling of a math builtin, for diagnostics.
pub(crate) fn wgsl_math_name(fun: M) -> String {
    let dbg = format!("{fun:?}");
    let mut cs = dbg.chars();
    match cs.next() {
        Some(c) => c.to_lowercase().chain(cs).collect(),
        None => dbg,
    }
}
