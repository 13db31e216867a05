//! Subgroup operations (docs/ptx.md), selected as our backend selects them
//! (`dianran_ptx::codegen::subgroup`), so the two agree on everything WGSL leaves open:
//!
//! * the member mask of every warp instruction is `activemask` at the operation, so only the
//!   lanes that reach it take part, with any divergent control flow;
//! * ballots are `vote.sync.ballot` (`vec4<u32>` with zero upper words), `subgroupAll`/`Any`
//!   `vote.sync.all`/`any`;
//! * lane exchanges are one `shfl.sync` per 32-bit component (f16 zero-extended, bool as 0/1)
//!   with our clamps (31, `up`: 0): a source out of range returns the reader's own value, and
//!   `quadBroadcast` reads lane `(lane & ~3) + id`;
//! * integer reductions other than products are `redux.sync`; everything else reduces with
//!   shuffles: a full warp by a butterfly (reductions) or Hillis-Steele (scans), which fixes
//!   the float rounding order, and a partial warp by walking the 32 source lanes in order and
//!   combining the active ones (exact for any mask). A lane whose source is inactive or out of
//!   range contributes the identity. (The walk picks values with bit operations instead of
//!   `select`s, see `select_bit`, which keeps ptxas from running out of predicate
//!   registers; the values are the same.)
//!
//! Beyond our backend: f16 reductions and scans (our backend reports them unsupported) use the
//! same algorithm in f16 arithmetic (each operation rounds to f16, as the reference
//! interpreter computes them).

use crate::lower::{Lower, R, V};
use dianran_frontend::ir::{CollectiveOperation as C, Scalar, SubgroupOperation as S};
use dianran_ptx::lowering_common::ScalarLowering;
use dianran_ptx::lowering_common::{GatherLane, SubgroupLowering};
use inkwell::values::{BasicValue, IntValue};
use inkwell::IntPredicate;

/// `shfl.sync` modes.
pub(crate) use dianran_ptx::ShflMode as Shfl;

impl<'ctx> SubgroupLowering for Lower<'_, 'ctx> {
    fn active_mask(&mut self) -> R<V<'ctx>> {
        Ok(self.activemask()?.into())
    }

    fn const_u32(&mut self, v: u32) -> V<'ctx> {
        self.u32c(v).into()
    }

    fn ballot(&mut self, p: Option<V<'ctx>>, mask: V<'ctx>) -> R<V<'ctx>> {
        let p = p.unwrap_or_else(|| self.cx.bool_type().const_int(1, false).into());
        let i32t = self.cx.i32_type().into();
        self.call_v("llvm.nvvm.vote.ballot.sync", i32t, &[mask, p])
    }

    fn gather_lane(&mut self, from: GatherLane<V<'ctx>>, mask: V<'ctx>) -> R<V<'ctx>> {
        Ok(match from {
            // The lowest active lane (our backend: `bfind(mask & -mask)`); the mask holds
            // this lane, so it is never zero.
            GatherLane::FirstActive => {
                let i32t = self.cx.i32_type().into();
                let f = self.cx.bool_type().const_int(1, false).into();
                self.call_v("llvm.cttz.i32", i32t, &[mask, f])?
            }
            GatherLane::Index(i) => i,
            GatherLane::InQuad(i) => {
                let lane = self.sreg("laneid")?;
                let base = self.ok(self.b.build_and(lane, self.u32c(!3), ""))?;
                self.ok(self.b.build_int_add(base, i.into_int_value(), ""))?.into()
            }
            GatherLane::Const(k) => self.u32c(k).into(),
        })
    }

    fn shuffle(
        &mut self,
        s: Scalar,
        mode: Shfl,
        x: V<'ctx>,
        src: V<'ctx>,
        clamp: u32,
        mask: V<'ctx>,
    ) -> R<V<'ctx>> {
        self.shfl(s, mode, x, src.into_int_value(), clamp, mask.into_int_value())
    }

    fn collective(&mut self, op: S, kind: C, s: Scalar, x: V<'ctx>, mask: V<'ctx>) -> R<V<'ctx>> {
        self.collective_component(op, kind, s, x, mask.into_int_value())
    }
}

impl<'a, 'ctx> Lower<'a, 'ctx> {
    /// `activemask`.
    pub(crate) fn activemask(&self) -> R<IntValue<'ctx>> {
        let i32t = self.cx.i32_type().into();
        Ok(self.call_v("llvm.nvvm.activemask", i32t, &[])?.into_int_value())
    }

    /// `shfl.sync.MODE.b32 d, x, src, clamp, mask` on one component of scalar type `s` (f16
    /// zero-extended to 32 bits, bool as 0/1).
    pub(crate) fn shfl(
        &self,
        s: Scalar,
        mode: Shfl,
        x: V<'ctx>,
        src: IntValue<'ctx>,
        clamp: u32,
        mask: IntValue<'ctx>,
    ) -> R<V<'ctx>> {
        let i32t = self.cx.i32_type();
        let m = mode.name();
        let c = self.u32c(clamp);
        let word = |w: IntValue<'ctx>| -> R<IntValue<'ctx>> {
            let name = format!("llvm.nvvm.shfl.sync.{m}.i32");
            let args = [mask.into(), w.into(), src.into(), c.into()];
            Ok(self.call_v(&name, i32t.into(), &args)?.into_int_value())
        };
        Ok(match s {
            Scalar::F32 => {
                let name = format!("llvm.nvvm.shfl.sync.{m}.f32");
                let args = [mask.into(), x, src.into(), c.into()];
                self.call_v(&name, self.cx.f32_type().into(), &args)?
            }
            Scalar::F16 => {
                let i16t = self.cx.i16_type();
                let h = self.ok(self.b.build_bit_cast(x, i16t, ""))?.into_int_value();
                let w = self.ok(self.b.build_int_z_extend(h, i32t, ""))?;
                let r = word(w)?;
                let r = self.ok(self.b.build_int_truncate(r, i16t, ""))?;
                self.ok(self.b.build_bit_cast(r, self.cx.f16_type(), ""))?
            }
            Scalar::Bool => {
                let w = self.ok(self.b.build_int_z_extend(x.into_int_value(), i32t, ""))?;
                let r = word(w)?;
                self.ok(self.b.build_int_compare(IntPredicate::NE, r, self.u32c(0), ""))?.into()
            }
            Scalar::I32 | Scalar::U32 => word(x.into_int_value())?.into(),
            // Entries with 64-bit types are refused before lowering (`uses_64bit`).
            Scalar::I64 | Scalar::U64 | Scalar::F64 => {
                return Err(self.unsupported("subgroup exchanges of 64-bit values"))
            }
        })
    }

    /// One component of a subgroup reduction or scan.
    fn collective_component(
        &mut self,
        sop: S,
        kind: C,
        s: Scalar,
        x: V<'ctx>,
        mask: IntValue<'ctx>,
    ) -> R<V<'ctx>> {
        if matches!(sop, S::All | S::Any) {
            if kind != C::Reduce {
                return Err(self.unsupported("subgroup scans of booleans"));
            }
            let name =
                if sop == S::All { "llvm.nvvm.vote.all.sync" } else { "llvm.nvvm.vote.any.sync" };
            return self.call_v(name, self.cx.bool_type().into(), &[mask.into(), x]);
        }
        if kind == C::Reduce && matches!(s, Scalar::I32 | Scalar::U32) && sop != S::Mul {
            let signed = s == Scalar::I32;
            let n = match sop {
                S::Add => "add",
                S::Min if signed => "min",
                S::Min => "umin",
                S::Max if signed => "max",
                S::Max => "umax",
                S::And => "and",
                S::Or => "or",
                _ => "xor",
            };
            let i32t = self.cx.i32_type().into();
            return self.call_v(&format!("llvm.nvvm.redux.sync.{n}"), i32t, &[x, mask.into()]);
        }
        if s == Scalar::Bool {
            return Err(self.unsupported("subgroup reductions on this type"));
        }
        self.collective_shfl(sop, kind, s, x, mask)
    }

    /// The identity of `op` on `s`.
    fn identity(&self, op: S, s: Scalar) -> R<V<'ctx>> {
        Ok(match (op, s) {
            (S::Add | S::Or | S::Xor, Scalar::F32 | Scalar::F16) => self.const_of(s, 0.0),
            (S::Mul, Scalar::F32 | Scalar::F16) => self.const_of(s, 1.0),
            (S::Min, Scalar::F32 | Scalar::F16) => self.const_of(s, f64::INFINITY),
            (S::Max, Scalar::F32 | Scalar::F16) => self.const_of(s, f64::NEG_INFINITY),
            (S::Add | S::Or | S::Xor, _) => self.u32c(0).into(),
            (S::Mul, _) => self.u32c(1).into(),
            (S::Min, Scalar::I32) => self.u32c(i32::MAX as u32).into(),
            (S::Max, Scalar::I32) => self.u32c(i32::MIN as u32).into(),
            (S::Min, _) => self.u32c(u32::MAX).into(),
            (S::Max, _) => self.u32c(0).into(),
            (S::And, _) => self.u32c(u32::MAX).into(),
            _ => return Err(self.unsupported("this subgroup operation")),
        })
    }

    /// `a op b` for a reduction step.
    fn apply(&self, op: S, s: Scalar, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        let bd = &self.b;
        if s.is_float() {
            let (x, y) = (a.into_float_value(), b.into_float_value());
            let sfx = if s == Scalar::F16 { "f16" } else { "f32" };
            let t = x.get_type().into();
            return Ok(match op {
                S::Add => self.ok(bd.build_float_add(x, y, ""))?.into(),
                S::Mul => self.ok(bd.build_float_mul(x, y, ""))?.into(),
                // `min.f32`/`max.f32`, as our backend: a NaN operand gives the other one.
                S::Min => self.call_v(&format!("llvm.minnum.{sfx}"), t, &[a, b])?,
                S::Max => self.call_v(&format!("llvm.maxnum.{sfx}"), t, &[a, b])?,
                _ => return Err(self.unsupported("this subgroup operation on floats")),
            });
        }
        let (x, y) = (a.into_int_value(), b.into_int_value());
        let signed = s == Scalar::I32;
        let i32t = self.cx.i32_type().into();
        Ok(match op {
            S::Add => self.ok(bd.build_int_add(x, y, ""))?.into(),
            S::Mul => self.ok(bd.build_int_mul(x, y, ""))?.into(),
            S::Min if signed => self.call_v("llvm.smin.i32", i32t, &[a, b])?,
            S::Min => self.call_v("llvm.umin.i32", i32t, &[a, b])?,
            S::Max if signed => self.call_v("llvm.smax.i32", i32t, &[a, b])?,
            S::Max => self.call_v("llvm.umax.i32", i32t, &[a, b])?,
            S::And => self.ok(bd.build_and(x, y, ""))?.into(),
            S::Or => self.ok(bd.build_or(x, y, ""))?.into(),
            S::Xor => self.ok(bd.build_xor(x, y, ""))?.into(),
            _ => return Err(self.unsupported("this subgroup operation")),
        })
    }

    /// Reductions and scans with shuffles; a lane whose source is inactive or out of range
    /// contributes the identity (docs/ptx.md).
    fn collective_shfl(
        &mut self,
        op: S,
        kind: C,
        s: Scalar,
        x: V<'ctx>,
        mask: IntValue<'ctx>,
    ) -> R<V<'ctx>> {
        let ident = self.identity(op, s)?;
        let lane = self.sreg("laneid")?;
        // Full warp: logarithmic butterfly / Hillis-Steele. Partial warps: inactive lanes hold
        // no partial results, so walk all 32 source lanes and combine the active ones in lane
        // order (exact for any mask).
        let full =
            self.ok(self.b.build_int_compare(IntPredicate::EQ, mask, self.u32c(u32::MAX), ""))?;
        let fast = self.cx.append_basic_block(self.func, "sg_full");
        let slow = self.cx.append_basic_block(self.func, "sg_partial");
        let merge = self.cx.append_basic_block(self.func, "sg_done");
        self.ok(self.b.build_conditional_branch(full, fast, slow))?;

        self.b.position_at_end(fast);
        let mut acc = x;
        match kind {
            C::Reduce => {
                for k in [16u32, 8, 4, 2, 1] {
                    let t = self.shfl(s, Shfl::Bfly, acc, self.u32c(k), 31, mask)?;
                    acc = self.apply(op, s, acc, t)?;
                }
            }
            C::InclusiveScan | C::ExclusiveScan => {
                for k in [1u32, 2, 4, 8, 16] {
                    let t = self.shfl(s, Shfl::Up, acc, self.u32c(k), 0, mask)?;
                    let ok = self.ok(self.b.build_int_compare(
                        IntPredicate::UGE,
                        lane,
                        self.u32c(k),
                        "",
                    ))?;
                    let t = self.select_v(ok, t, ident)?;
                    acc = self.apply(op, s, acc, t)?;
                }
                if kind == C::ExclusiveScan {
                    let t = self.shfl(s, Shfl::Up, acc, self.u32c(1), 0, mask)?;
                    let ok = self.ok(self.b.build_int_compare(
                        IntPredicate::UGE,
                        lane,
                        self.u32c(1),
                        "",
                    ))?;
                    acc = self.select_v(ok, t, ident)?;
                }
            }
        }
        let fast_acc = acc;
        let fast_end = self.b.get_insert_block().ok_or_else(|| self.internal("no block"))?;
        self.ok(self.b.build_unconditional_branch(merge))?;

        self.b.position_at_end(slow);
        // The lanes whose values are taken: the active ones, for scans only up to this lane
        // (inclusive: `(2 << lane) - 1`, exclusive: `(1 << lane) - 1`).
        let taken = match kind {
            C::Reduce => mask,
            C::InclusiveScan | C::ExclusiveScan => {
                let k = if kind == C::InclusiveScan { 2 } else { 1 };
                let b = self.ok(self.b.build_left_shift(self.u32c(k), lane, ""))?;
                let below = self.ok(self.b.build_int_sub(b, self.u32c(1), ""))?;
                self.ok(self.b.build_and(mask, below, ""))?
            }
        };
        let mut acc = ident;
        for src in 0..32u32 {
            let sr = self.u32c(src);
            let v = self.shfl(s, Shfl::Idx, x, sr, 31, mask)?;
            let v = self.select_bit(s, taken, src, v, ident)?;
            acc = self.apply(op, s, acc, v)?;
        }
        let slow_acc = acc;
        let slow_end = self.b.get_insert_block().ok_or_else(|| self.internal("no block"))?;
        self.ok(self.b.build_unconditional_branch(merge))?;

        self.b.position_at_end(merge);
        let phi = self.ok(self.b.build_phi(self.llty(s), ""))?;
        phi.add_incoming(&[
            (&fast_acc as &dyn BasicValue, fast_end),
            (&slow_acc as &dyn BasicValue, slow_end),
        ]);
        Ok(phi.as_basic_value())
    }

    /// `a` when bit `src` of `taken` is set, else `b`, computed on the bits
    /// (`b ^ ((a ^ b) & m)` with `m` all ones or zero) rather than with a `select`. A partial
    /// warp's reduction makes 32 of these; as predicates (`setp`/`selp`) they can exhaust the
    /// seven predicate registers, and sm_90's ptxas then fails ("Register allocation failed
    /// with register count of '7'") when the reduction follows a loop with divergent trip
    /// counts. `m` comes from `prmt` (bit `src` moved to bit 31, whose sign fills every
    /// byte), which LLVM does not see through, so it cannot turn this back into a `select`.
    fn select_bit(
        &self,
        s: Scalar,
        taken: IntValue<'ctx>,
        src: u32,
        a: V<'ctx>,
        b: V<'ctx>,
    ) -> R<V<'ctx>> {
        let i32t = self.cx.i32_type();
        let i16t = self.cx.i16_type();
        let bd = &self.b;
        let to_word = |v: V<'ctx>| -> R<IntValue<'ctx>> {
            Ok(match s {
                Scalar::F32 => self.ok(bd.build_bit_cast(v, i32t, ""))?.into_int_value(),
                Scalar::F16 => {
                    let h = self.ok(bd.build_bit_cast(v, i16t, ""))?.into_int_value();
                    self.ok(bd.build_int_z_extend(h, i32t, ""))?
                }
                _ => v.into_int_value(),
            })
        };
        let (wa, wb) = (to_word(a)?, to_word(b)?);
        let top = self.ok(bd.build_left_shift(taken, self.u32c(31 - src), ""))?;
        let args = [top.into(), self.u32c(0).into(), self.u32c(0xBBBB).into()];
        let m = self.call_v("llvm.nvvm.prmt", i32t.into(), &args)?.into_int_value();
        let d = self.ok(bd.build_xor(wa, wb, ""))?;
        let d = self.ok(bd.build_and(d, m, ""))?;
        let w = self.ok(bd.build_xor(wb, d, ""))?;
        Ok(match s {
            Scalar::F32 => self.ok(bd.build_bit_cast(w, self.cx.f32_type(), ""))?,
            Scalar::F16 => {
                let h = self.ok(bd.build_int_truncate(w, i16t, ""))?;
                self.ok(bd.build_bit_cast(h, self.cx.f16_type(), ""))?
            }
            _ => w.into(),
        })
    }

    /// `p ? a : b`.
    fn select_v(&self, p: IntValue<'ctx>, a: V<'ctx>, b: V<'ctx>) -> R<V<'ctx>> {
        self.ok(self.b.build_select(p, a, b, ""))
    }
}
