//! Cooperative matrices on tensor cores, with the per-lane fragment layouts of our backend
//! (`dianran_ptx::codegen::coop`, where the tables are derived from the PTX ISA).
//!
//! A 16x16 matrix is 8 elements per lane in the fragment layout of `mma.m16n8k16`
//! (`g = laneid >> 2`, `t = laneid % 4`), its 16 columns as two 8-column n-tiles:
//!
//! | role | element `i` | row | column |
//! |---|---|---|---|
//! | A (M x K, f16) | 0..8 | `g + 8*((i>>1)&1)` | `2t + (i&1) + 8*(i>>2)` |
//! | B (K x N, f16) | tile `i>>2`, `j = i&3` | `2t + (j&1) + 8*(j>>1)` | `g + 8*tile` |
//! | C (M x N, f32/f16) | tile `i>>2`, `j = i&3` | `g + 8*(j>>1)` | `2t + (j&1) + 8*tile` |
//!
//! An 8x8 matrix is the top half of `mma.m16n8k8` (2 elements per lane): A and C hold
//! `(g, 2t + i)`, B holds `(2t + i, g)`.
//!
//! Loads and stores (`coopLoad` is column-major, element (r, c) at `c*stride + r`; the `T`
//! forms row-major, `r*stride + c`), chosen as our backend chooses them:
//! * f16 from workgroup memory: one `ldmatrix` (`.x4` for 16x16, `.x1` for 8x8; `.trans` when
//!   a lane's pair runs across the stored rows) when every row address is 16-byte aligned;
//! * otherwise per-lane loads and stores, a lane's two neighbouring elements as one access
//!   (`<2 x half>` or `<2 x float>`) when the pair is contiguous in memory and aligned;
//! * an alignment proven at compile time (our backend's analysis, `codegen::align::KnownAlign`)
//!   picks the fast form, a proven misalignment the per-element one, anything else is tested
//!   at run time with `vote.sync.all` over the active lanes, so the branch is uniform.
//!
//! Products: f16 A/B are one `llvm.nvvm.mma.m16n8k16` per n-tile (16x16) or one
//! `llvm.nvvm.mma.m16n8k8` with zero rows 8..15 (8x8), with f32 or f16 accumulators as C's
//! type says. 8x8 f32 products are computed exactly on the FMA units like our backend's
//! default (shuffles of A's row and B's columns, unfused products summed in order from 0, then
//! C). 16x16 f32 A/B matrices are a diagnostic: our backend computes them only on TF32 tensor
//! cores with its `--tf32` option, which this backend does not have.

use crate::lower::{lowbit, set_align, Lower, Ptr, Space, R, V};
use crate::subgroup::Shfl;
use dianran_frontend::ir::{BinaryOperator, CoopRole, Op, Scalar, ValueId};
use dianran_ptx::abi::layout;
use dianran_ptx::codegen::align::KnownAlign;
use dianran_ptx::lowering_common::ScalarLowering;
use dianran_ptx::lowering_common::{
    CoopAccess, CoopLowering, CoopShape as Shape, FragForm, MmaOperands,
};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, FunctionValue, IntValue, PointerValue, VectorValue,
};
use inkwell::IntPredicate;

/// Where a lane's fragment lives in memory.
#[derive(Clone, Copy)]
struct Frag<'ctx> {
    /// Address of the matrix's first element.
    ptr: PointerValue<'ctx>,
    /// Stride in elements.
    stride: IntValue<'ctx>,
    /// `T` form (row-major).
    row_major: bool,
    shape: Shape,
}

impl<'a, 'ctx> Lower<'a, 'ctx> {
    fn laneid_g_t(&self) -> R<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
        let lane = self.sreg("laneid")?;
        let g = self.ok(self.b.build_right_shift(lane, self.u32c(2), false, ""))?;
        let t = self.ok(self.b.build_and(lane, self.u32c(3), ""))?;
        Ok((lane, g, t))
    }

    /// Each lane's element offset of its fragment's element 0: row-major `row*S + col`,
    /// column-major `col*S + row`, with (row, col) the lane's base.
    fn coop_lane_base(&self, f: &Frag<'ctx>) -> R<IntValue<'ctx>> {
        let (hi, lo) = self.coop_lane_coords(f)?;
        let m = self.ok(self.b.build_int_mul(hi, f.stride, ""))?;
        self.ok(self.b.build_int_add(m, lo, ""))
    }

    /// Each lane's (major, minor) coordinates of its fragment's element 0 in storage order:
    /// (row, col) row-major, (col, row) column-major.
    fn coop_lane_coords(&self, f: &Frag<'ctx>) -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
        let (_, g, t) = self.laneid_g_t()?;
        let t2 = self.ok(self.b.build_left_shift(t, self.u32c(1), ""))?;
        let (br, bc) = if f.shape.role == CoopRole::B { (t2, g) } else { (g, t2) };
        Ok(if f.row_major { (br, bc) } else { (bc, br) })
    }

    /// For element `i` of the lane's fragment: whether its offset (in 64 bits, so a stride
    /// that would wrap 32 bits is past any limit) is below the bounds policy's `limit`, and
    /// its address.
    fn coop_elem_checked(
        &self,
        f: &Frag<'ctx>,
        limit: IntValue<'ctx>,
        i: u32,
    ) -> R<(IntValue<'ctx>, PointerValue<'ctx>)> {
        let i64t = self.cx.i64_type();
        let (hi0, lo0) = self.coop_lane_coords(f)?;
        let (r, c) = f.shape.elem_coords(i);
        let (dh, dl) = if f.row_major { (r, c) } else { (c, r) };
        let hi = self.ok(self.b.build_int_add(hi0, self.u32c(dh), ""))?;
        let lo = self.ok(self.b.build_int_add(lo0, self.u32c(dl), ""))?;
        let z = |v: IntValue<'ctx>| self.ok(self.b.build_int_z_extend(v, i64t, ""));
        let m = self.ok(self.b.build_int_nuw_mul(z(hi)?, z(f.stride)?, ""))?;
        let e = self.ok(self.b.build_int_nuw_add(m, z(lo)?, ""))?;
        let inside = self.ok(self.b.build_int_compare(IntPredicate::ULT, e, z(limit)?, ""))?;
        let size = i64t.const_int(u64::from(f.shape.elem.size()), false);
        let off = self.ok(self.b.build_int_mul(e, size, ""))?;
        // SAFETY: used only where `inside` holds (the element lies in its array).
        let a = self.ok(unsafe { self.b.build_gep(self.cx.i8_type(), f.ptr, &[off], "") })?;
        Ok((inside, a))
    }

    /// Per-lane loads of a fragment under the bounds policy's `limit`: an element at offset
    /// `limit` or beyond is not read and gives zero.
    fn coop_load_checked(&mut self, f: &Frag<'ctx>, limit: IntValue<'ctx>) -> R<Vec<V<'ctx>>> {
        let t = self.llty(f.shape.scalar());
        let mut out = Vec::new();
        for i in 0..f.shape.count() {
            let (inside, a) = self.coop_elem_checked(f, limit, i)?;
            let from = self.b.get_insert_block().ok_or_else(|| self.internal("no block"))?;
            let lb = self.cx.append_basic_block(self.func, "coop_elem");
            let merge = self.cx.append_basic_block(self.func, "coop_elem_done");
            self.ok(self.b.build_conditional_branch(inside, lb, merge))?;
            self.b.position_at_end(lb);
            let v = self.ok(self.b.build_load(t, a, ""))?;
            set_align(v.as_instruction_value(), f.shape.elem.size());
            self.ok(self.b.build_unconditional_branch(merge))?;
            self.b.position_at_end(merge);
            let phi = self.ok(self.b.build_phi(t, ""))?;
            let zero = t.const_zero();
            phi.add_incoming(&[(&v as &dyn BasicValue, lb), (&zero as &dyn BasicValue, from)]);
            out.push(phi.as_basic_value());
        }
        Ok(out)
    }

    /// Per-lane stores of a fragment under `limit` (see `coop_load_checked`).
    fn coop_store_checked(
        &mut self,
        f: &Frag<'ctx>,
        v: &[V<'ctx>],
        limit: IntValue<'ctx>,
    ) -> R<Vec<V<'ctx>>> {
        for (i, &x) in v.iter().enumerate() {
            let (inside, a) = self.coop_elem_checked(f, limit, i as u32)?;
            let sb = self.cx.append_basic_block(self.func, "coop_elem");
            let merge = self.cx.append_basic_block(self.func, "coop_elem_done");
            self.ok(self.b.build_conditional_branch(inside, sb, merge))?;
            self.b.position_at_end(sb);
            let st = self.ok(self.b.build_store(a, x))?;
            set_align(Some(st), f.shape.elem.size());
            self.ok(self.b.build_unconditional_branch(merge))?;
            self.b.position_at_end(merge);
        }
        Ok(Vec::new())
    }

    /// Runs `fast` when the whole tile lies below `limit` for every lane (its last element,
    /// `(major - 1) * stride + minor - 1`, is; a uniform `vote`), `slow` otherwise.
    fn when_inside(
        &mut self,
        f: &Frag<'ctx>,
        limit: IntValue<'ctx>,
        n: (Scalar, usize),
        fast: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
        slow: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
    ) -> R<Vec<V<'ctx>>> {
        let i64t = self.cx.i64_type();
        let (rows, cols) = f.shape.dims();
        let (major, minor) = if f.row_major { (rows, cols) } else { (cols, rows) };
        let (major, minor) = (u64::from(major - 1), u64::from(minor - 1));
        let z = |v: IntValue<'ctx>| self.ok(self.b.build_int_z_extend(v, i64t, ""));
        let m =
            self.ok(self.b.build_int_nuw_mul(z(f.stride)?, i64t.const_int(major, false), ""))?;
        let last = self.ok(self.b.build_int_nuw_add(m, i64t.const_int(minor, false), ""))?;
        let inside = self.ok(self.b.build_int_compare(IntPredicate::ULT, last, z(limit)?, ""))?;
        let ok = self.vote_all(inside)?;
        self.diverge(ok, n, fast, slow)
    }

    /// `ptr + zext(e) * size` bytes.
    fn elem_ptr(
        &self,
        ptr: PointerValue<'ctx>,
        e: IntValue<'ctx>,
        size: u32,
    ) -> R<PointerValue<'ctx>> {
        let i64t = self.cx.i64_type();
        let w = self.ok(self.b.build_int_z_extend(e, i64t, ""))?;
        let off = self.ok(self.b.build_int_mul(w, i64t.const_int(u64::from(size), false), ""))?;
        // SAFETY: the element lies inside the matrix the program addresses (bounds are the
        // program's responsibility, as everywhere in WGSL and our backend).
        self.ok(unsafe { self.b.build_in_bounds_gep(self.cx.i8_type(), ptr, &[off], "") })
    }

    /// Address of element `i` of the lane's fragment (`base` from `coop_lane_base`).
    fn coop_elem_addr(
        &self,
        f: &Frag<'ctx>,
        base: IntValue<'ctx>,
        i: u32,
    ) -> R<PointerValue<'ctx>> {
        let (r, c) = f.shape.elem_coords(i);
        let (hi, lo) = if f.row_major { (r, c) } else { (c, r) };
        let mut e = base;
        if hi != 0 {
            let k = self.ok(self.b.build_int_mul(f.stride, self.u32c(hi), ""))?;
            e = self.ok(self.b.build_int_add(k, e, ""))?;
        }
        if lo != 0 {
            e = self.ok(self.b.build_int_add(e, self.u32c(lo), ""))?;
        }
        self.elem_ptr(f.ptr, e, f.shape.elem.size())
    }

    /// The vector type of an element pair.
    fn pair_ty(&self, s: Scalar) -> inkwell::types::VectorType<'ctx> {
        if s == Scalar::F16 {
            self.cx.f16_type().vec_type(2)
        } else {
            self.cx.f32_type().vec_type(2)
        }
    }

    /// Per-lane loads of a fragment; `pairs`: each contiguous aligned pair as one access.
    fn coop_load_lanes(&mut self, f: &Frag<'ctx>, pairs: bool) -> R<Vec<V<'ctx>>> {
        let base = self.coop_lane_base(f)?;
        let s = f.shape.scalar();
        let size = s.size();
        let mut out = Vec::new();
        if pairs {
            let vt = self.pair_ty(s);
            for p in 0..f.shape.count() / 2 {
                let a = self.coop_elem_addr(f, base, 2 * p)?;
                let v = self.ok(self.b.build_load(vt, a, ""))?;
                set_align(v.as_instruction_value(), 2 * size);
                out.extend(self.unpack(v.into_vector_value())?);
            }
            return Ok(out);
        }
        let t = self.llty(s);
        for i in 0..f.shape.count() {
            let a = self.coop_elem_addr(f, base, i)?;
            let v = self.ok(self.b.build_load(t, a, ""))?;
            set_align(v.as_instruction_value(), size);
            out.push(v);
        }
        Ok(out)
    }

    /// Per-lane stores of a fragment; `pairs` as in `coop_load_lanes`.
    fn coop_store_lanes(&mut self, f: &Frag<'ctx>, v: &[V<'ctx>], pairs: bool) -> R<Vec<V<'ctx>>> {
        let base = self.coop_lane_base(f)?;
        let size = f.shape.elem.size();
        if pairs {
            for (p, xy) in v.chunks(2).enumerate() {
                let a = self.coop_elem_addr(f, base, 2 * p as u32)?;
                let w = self.pack(f.shape.scalar(), xy[0], xy[1])?;
                let st = self.ok(self.b.build_store(a, w))?;
                set_align(Some(st), 2 * size);
            }
            return Ok(Vec::new());
        }
        for (i, &x) in v.iter().enumerate() {
            let a = self.coop_elem_addr(f, base, i as u32)?;
            let st = self.ok(self.b.build_store(a, x))?;
            set_align(Some(st), size);
        }
        Ok(Vec::new())
    }

    /// One `ldmatrix` for an f16 fragment in workgroup memory (rows 16-byte aligned): lanes
    /// `8m..8m+7` address the stored rows of sub-matrix `m`, register `p` receives elements
    /// `2p`, `2p + 1`.
    fn coop_ldmatrix(&mut self, f: &Frag<'ctx>) -> R<Vec<V<'ctx>>> {
        let sh = f.shape;
        let regs = sh.count() / 2;
        let trans = (sh.role == CoopRole::B) == f.row_major;
        let lane = self.sreg("laneid")?;
        let bd = &self.b;
        let and = |a: IntValue<'ctx>, k: u32| self.ok(bd.build_and(a, self.u32c(k), ""));
        let shr1 = |a: IntValue<'ctx>| self.ok(bd.build_right_shift(a, self.u32c(1), false, ""));
        // Lane l gives stored row l & 7 of sub-matrix m = l >> 3 (rows 8*(m&1), columns
        // 8*(m>>1)); the stored rows are matrix rows when row-major, columns otherwise.
        let off = if regs == 4 {
            let (major, minor) = if f.row_major {
                (and(lane, 15)?, and(shr1(lane)?, 8)?)
            } else {
                let q = and(lane, 7)?;
                let h = and(shr1(lane)?, 8)?;
                (self.ok(bd.build_int_add(h, q, ""))?, and(lane, 8)?)
            };
            let m = self.ok(bd.build_int_mul(major, f.stride, ""))?;
            self.ok(bd.build_int_add(m, minor, ""))?
        } else {
            let q = and(lane, 7)?;
            self.ok(bd.build_int_mul(q, f.stride, ""))?
        };
        let addr = self.elem_ptr(f.ptr, off, 2)?;
        let name = format!(
            "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{regs}{}.b16.p3",
            if trans { ".trans" } else { "" }
        );
        let i32t = self.cx.i32_type();
        let ret: BasicTypeEnum<'ctx> = if regs == 1 {
            i32t.into()
        } else {
            self.cx.struct_type(&vec![i32t.into(); regs as usize], false).into()
        };
        let fun = self.intrinsic(&name, ret, &[addr.get_type().into()]);
        let r = self.call_intrinsic(fun, &[addr.into()])?;
        let words: Vec<V<'ctx>> = if regs == 1 {
            vec![r]
        } else {
            let sv = r.into_struct_value();
            (0..regs).map(|k| self.ok(self.b.build_extract_value(sv, k, ""))).collect::<R<_>>()?
        };
        let mut out = Vec::new();
        for w in words {
            let v = self.ok(self.b.build_bit_cast(w, self.pair_ty(Scalar::F16), ""))?;
            out.extend(self.unpack(v.into_vector_value())?);
        }
        Ok(out)
    }

    /// The two elements of a pair.
    fn unpack(&self, v: VectorValue<'ctx>) -> R<[V<'ctx>; 2]> {
        let lo = self.ok(self.b.build_extract_element(v, self.u32c(0), ""))?;
        let hi = self.ok(self.b.build_extract_element(v, self.u32c(1), ""))?;
        Ok([lo, hi])
    }

    /// `<lo, hi>`.
    fn pack(&self, s: Scalar, lo: V<'ctx>, hi: V<'ctx>) -> R<VectorValue<'ctx>> {
        let v = self.pair_ty(s).get_undef();
        let v = self.ok(self.b.build_insert_element(v, lo, self.u32c(0), ""))?;
        self.ok(self.b.build_insert_element(v, hi, self.u32c(1), ""))
    }

    /// Declares (once) intrinsic `name` of type `params -> ret`.
    fn intrinsic(
        &self,
        name: &str,
        ret: BasicTypeEnum<'ctx>,
        params: &[BasicMetadataTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        self.module
            .get_function(name)
            .unwrap_or_else(|| self.module.add_function(name, ret.fn_type(params, false), None))
    }

    fn call_intrinsic(&self, f: FunctionValue<'ctx>, args: &[V<'ctx>]) -> R<V<'ctx>> {
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|&v| v.into()).collect();
        let c = self.ok(self.b.build_call(f, &a, ""))?;
        c.try_as_basic_value().basic().ok_or_else(|| self.internal("intrinsic without result"))
    }

    /// Runs `fast` when the matrix address and `stride * size` are multiples of `need` bytes,
    /// `slow` otherwise: decided at compile time when proven either way, else by a uniform
    /// run-time test. Returns the values of whichever ran (of scalar type `s`, `n` of them).
    #[allow(clippy::too_many_arguments)]
    fn when_aligned(
        &mut self,
        p: &Ptr<'ctx>,
        (ptr_v, stride_v): (ValueId, ValueId),
        size: u32,
        need: u32,
        (s, n): (Scalar, usize),
        mut fast: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
        mut slow: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
    ) -> R<Vec<V<'ctx>>> {
        let known = KnownAlign::new(self.f);
        let align = p.align.max(self.ptr_align(&known, ptr_v, 0));
        let ptr_ok = align >= need;
        let stride_ok = known.pow2(stride_v).saturating_mul(size) >= need;
        if ptr_ok && stride_ok {
            return fast(self);
        }
        // Proven misaligned: a constant stride, or a static offset from a workgroup variable
        // (declared 16-byte aligned at least).
        let stride_bad = known.constant(stride_v).is_some_and(|s| s.wrapping_mul(size) % need != 0);
        let ptr_bad = p.static_off.is_some_and(|o| o % need != 0) && p.space == Space::Shared;
        if stride_bad || ptr_bad {
            return slow(self);
        }
        let st = self.scalar(stride_v)?.into_int_value();
        let i32t = self.cx.i32_type();
        let mut bits = Vec::new();
        if !ptr_ok {
            bits.push(self.ok(self.b.build_ptr_to_int(p.addr, i32t, ""))?);
        }
        if !stride_ok {
            bits.push(self.ok(self.b.build_int_mul(st, self.u32c(size), ""))?);
        }
        let mut x = bits[0];
        for &b in &bits[1..] {
            x = self.ok(self.b.build_or(x, b, ""))?;
        }
        let low = self.ok(self.b.build_and(x, self.u32c(need - 1), ""))?;
        let lane_ok = self.ok(self.b.build_int_compare(IntPredicate::EQ, low, self.u32c(0), ""))?;
        let ok = self.vote_all(lane_ok)?;
        self.diverge(ok, (s, n), fast, slow)
    }

    /// Whether `p` holds on every active lane (`vote.all.sync` over the active mask): a
    /// uniform condition for choosing between a fast and a checked path.
    fn vote_all(&mut self, p: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let mask = self.activemask()?;
        Ok(self
            .call_v(
                "llvm.nvvm.vote.all.sync",
                self.cx.bool_type().into(),
                &[mask.into(), p.into()],
            )?
            .into_int_value())
    }

    /// `fast` when the uniform `ok` holds, `slow` otherwise, each in a block of its own;
    /// returns the values (`n` of scalar type `s`) of whichever ran.
    fn diverge(
        &mut self,
        ok: IntValue<'ctx>,
        (s, n): (Scalar, usize),
        mut fast: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
        mut slow: impl FnMut(&mut Self) -> R<Vec<V<'ctx>>>,
    ) -> R<Vec<V<'ctx>>> {
        let fb = self.cx.append_basic_block(self.func, "coop_fast");
        let sb = self.cx.append_basic_block(self.func, "coop_slow");
        let merge = self.cx.append_basic_block(self.func, "coop_done");
        self.ok(self.b.build_conditional_branch(ok, fb, sb))?;
        // f16 fragments cross the merge as `<2 x half>` pairs (what `ldmatrix` and the paired
        // accesses deliver), so both halves of a register are taken apart in one place.
        let paired = s == Scalar::F16 && n % 2 == 0;
        let mut ends = Vec::new();
        type Arm<'s, 'a, 'ctx> = &'s mut dyn FnMut(&mut Lower<'a, 'ctx>) -> R<Vec<V<'ctx>>>;
        let arms: [(_, Arm<'_, 'a, 'ctx>); 2] = [(fb, &mut fast), (sb, &mut slow)];
        for (bb, f) in arms {
            self.b.position_at_end(bb);
            let v = f(self)?;
            if v.len() != n {
                return Err(self.internal("cooperative matrix fragment size"));
            }
            let v = if paired {
                v.chunks(2)
                    .map(|x| Ok(self.pack(s, x[0], x[1])?.into()))
                    .collect::<R<Vec<V<'ctx>>>>()?
            } else {
                v
            };
            let end = self.b.get_insert_block().ok_or_else(|| self.internal("no block"))?;
            self.ok(self.b.build_unconditional_branch(merge))?;
            ends.push((v, end));
        }
        self.b.position_at_end(merge);
        let mut out = Vec::new();
        let ((fv, fe), (sv, se)) = (&ends[0], &ends[1]);
        let mut phis = Vec::new();
        for (a, b) in fv.iter().zip(sv) {
            let phi = self.ok(self.b.build_phi(a.get_type(), ""))?;
            phi.add_incoming(&[(a as &dyn BasicValue, *fe), (b as &dyn BasicValue, *se)]);
            phis.push(phi.as_basic_value());
        }
        for v in phis {
            if paired {
                out.extend(self.unpack(v.into_vector_value())?);
            } else {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// A power of two known to divide the address of pointer `v`, as our backend knows it:
    /// an index's known alignment (`KnownAlign`) times the element stride (1 when unknown).
    fn ptr_align(&mut self, known: &KnownAlign<'_>, v: ValueId, depth: u32) -> u32 {
        // How deep pointer chains are followed; deeper ones count as unknown.
        const MAX_DEPTH: u32 = 24;
        if depth > MAX_DEPTH {
            return 1;
        }
        let own = self.ptr(v).map_or(1, |p| p.align);
        let computed = match known.def(v) {
            Some(Op::Access(base, idx)) => {
                let pointee = match self.ptr(*base) {
                    Ok(p) => p.pointee,
                    Err(_) => return own,
                };
                match layout::element_stride(&mut self.types, pointee) {
                    Some((stride, _, _)) => self
                        .ptr_align(known, *base, depth + 1)
                        .min(lowbit(stride).saturating_mul(known.pow2(*idx))),
                    None => 1,
                }
            }
            Some(Op::AccessIndex(base, i)) => {
                let pointee = match self.ptr(*base) {
                    Ok(p) => p.pointee,
                    Err(_) => return own,
                };
                match layout::member_offset(&mut self.types, pointee, *i) {
                    Some((off, _)) => self.ptr_align(known, *base, depth + 1).min(lowbit(off)),
                    None => 1,
                }
            }
            _ => 1,
        };
        own.max(computed)
    }

    /// `llvm.nvvm.mma.<shape>.row.col.<d>.<c>` on packed operands: `a` and `b` f16 pairs, `c`
    /// f16 pairs (`c_f16`) or floats. Returns D as f16 pairs unpacked, or floats.
    fn mma(
        &mut self,
        shape: &str,
        a: &[V<'ctx>],
        b: &[V<'ctx>],
        c: &[V<'ctx>],
        c_f16: bool,
    ) -> R<Vec<V<'ctx>>> {
        let h2: BasicTypeEnum<'ctx> = self.pair_ty(Scalar::F16).into();
        let f32t: BasicTypeEnum<'ctx> = self.cx.f32_type().into();
        let (dt, nd, sfx) = if c_f16 { (h2, 2, "f16.f16") } else { (f32t, 4, "f32.f32") };
        let ret = self.cx.struct_type(&vec![dt; nd], false).into();
        let params: Vec<BasicMetadataTypeEnum> =
            a.iter().chain(b).chain(c).map(|v| v.get_type().into()).collect();
        let f = self.intrinsic(&format!("llvm.nvvm.mma.{shape}.row.col.{sfx}"), ret, &params);
        let args: Vec<V<'ctx>> = a.iter().chain(b).chain(c).copied().collect();
        let r = self.call_intrinsic(f, &args)?.into_struct_value();
        let mut out = Vec::new();
        for k in 0..nd as u32 {
            let d = self.ok(self.b.build_extract_value(r, k, ""))?;
            if c_f16 {
                out.extend(self.unpack(d.into_vector_value())?);
            } else {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// f16 pairs of consecutive elements.
    fn pairs(&self, v: &[V<'ctx>]) -> R<Vec<V<'ctx>>> {
        v.chunks(2).map(|x| Ok(self.pack(Scalar::F16, x[0], x[1])?.into())).collect()
    }

    /// 16x16 f16 `a·b + c`: two `mma.m16n8k16`, one per n-tile, with f32 or (f16 C) f16
    /// accumulators.
    fn coop_mma16_f16(
        &mut self,
        av: &[V<'ctx>],
        bv: &[V<'ctx>],
        cv: &[V<'ctx>],
        c_f16: bool,
    ) -> R<Vec<V<'ctx>>> {
        let areg = self.pairs(av)?;
        let mut out = Vec::new();
        for (tile, c4) in cv.chunks(4).enumerate() {
            let breg = self.pairs(&bv[4 * tile..4 * tile + 4])?;
            let creg = if c_f16 { self.pairs(c4)? } else { c4.to_vec() };
            out.extend(self.mma("m16n8k16", &areg, &breg, &creg, c_f16)?);
        }
        Ok(out)
    }

    /// 8x8 f16 `a·b + c`: one `mma.m16n8k8` with zero rows 8..15 in A and C.
    fn coop_mma8_f16(
        &mut self,
        av: &[V<'ctx>],
        bv: &[V<'ctx>],
        cv: &[V<'ctx>],
        c_f16: bool,
    ) -> R<Vec<V<'ctx>>> {
        let zh: V<'ctx> = self.pair_ty(Scalar::F16).const_zero().into();
        let a = [self.pairs(av)?[0], zh];
        let b = self.pairs(bv)?;
        if c_f16 {
            let c = [self.pairs(cv)?[0], zh];
            let d = self.mma("m16n8k8", &a, &b, &c, true)?;
            return Ok(d[..2].to_vec());
        }
        let zf = self.const_of(Scalar::F32, 0.0);
        let c = [cv[0], cv[1], zf, zf];
        let d = self.mma("m16n8k8", &a, &b, &c, false)?;
        Ok(d[..2].to_vec())
    }

    /// Exact 8x8 f32 `a·b + c` without tensor cores: lane (g, t) owns D[g][2t + e]; it gathers
    /// row g of A and columns 2t, 2t+1 of B with `shfl.sync.idx` (full warp) and accumulates
    /// like the reference interpreter: products summed in order from 0 with unfused
    /// multiplies and adds, then C.
    fn coop_mma8_exact(
        &mut self,
        av: &[V<'ctx>],
        bv: &[V<'ctx>],
        cv: &[V<'ctx>],
        sc: Scalar,
    ) -> R<Vec<V<'ctx>>> {
        let (_, g, t) = self.laneid_g_t()?;
        let g4 = self.ok(self.b.build_left_shift(g, self.u32c(2), ""))?;
        let t8 = self.ok(self.b.build_left_shift(t, self.u32c(3), ""))?;
        let full = self.u32c(u32::MAX);
        // A[g][k] lives in lane 4g + k/2, element k%2.
        let mut arow = Vec::new();
        for k in 0..8u32 {
            let src = self.ok(self.b.build_int_add(g4, self.u32c(k >> 1), ""))?;
            arow.push(self.shfl(Scalar::F32, Shfl::Idx, av[(k & 1) as usize], src, 31, full)?);
        }
        let f32t = self.cx.f32_type();
        let mut out = Vec::new();
        for (e, &ce) in cv.iter().enumerate() {
            let mut acc = f32t.const_zero();
            for (k, &ak) in arow.iter().enumerate() {
                // B[k][c] lives in lane 4c + k/2, element k%2; here c = 2t + e.
                let n = (4 * e + (k >> 1)) as u32;
                let src = self.ok(self.b.build_int_add(t8, self.u32c(n), ""))?;
                let bk = self.shfl(Scalar::F32, Shfl::Idx, bv[k & 1], src, 31, full)?;
                let p = self.ok(self.b.build_float_mul(
                    ak.into_float_value(),
                    bk.into_float_value(),
                    "",
                ))?;
                acc = self.ok(self.b.build_float_add(acc, p, ""))?;
            }
            let cw = if sc == Scalar::F16 {
                self.ok(self.b.build_float_ext(ce.into_float_value(), f32t, ""))?
            } else {
                ce.into_float_value()
            };
            let r = self.ok(self.b.build_float_add(acc, cw, ""))?;
            out.push(if sc == Scalar::F16 {
                self.ok(self.b.build_float_trunc(r, self.cx.f16_type(), ""))?.into()
            } else {
                r.into()
            });
        }
        Ok(out)
    }
}

impl<'ctx> Lower<'_, 'ctx> {
    /// The access's stride in matrix elements (the IR counts pointee elements).
    fn matrix_stride(&mut self, a: &CoopAccess<Ptr<'ctx>>) -> R<IntValue<'ctx>> {
        let st = self.scalar(a.stride)?.into_int_value();
        if a.scale == 1 {
            return Ok(st);
        }
        self.ok(self.b.build_int_mul(st, self.u32c(a.scale), ""))
    }

    /// Integer subgroup matrices are our backend's alone for now (`docs/llvm.md`).
    fn float_only(&self, shape: Shape) -> R<()> {
        if shape.elem.is_float() {
            Ok(())
        } else {
            Err(self.unsupported("integer subgroup matrices"))
        }
    }
}

impl<'ctx> CoopLowering for Lower<'_, 'ctx> {
    fn coop_fill(&mut self, shape: Shape, v: V<'ctx>) -> R<Vec<V<'ctx>>> {
        self.float_only(shape)?;
        Ok(vec![v; shape.count() as usize])
    }

    fn coop_scalar(
        &mut self,
        shape: Shape,
        op: BinaryOperator,
        frag: &[V<'ctx>],
        s: V<'ctx>,
    ) -> R<Vec<V<'ctx>>> {
        self.float_only(shape)?;
        let y = s.into_float_value();
        let mut out = Vec::new();
        for &x in frag {
            let x = x.into_float_value();
            let r = match op {
                BinaryOperator::Add => self.ok(self.b.build_float_add(x, y, ""))?,
                BinaryOperator::Subtract => self.ok(self.b.build_float_sub(x, y, ""))?,
                _ => self.ok(self.b.build_float_mul(x, y, ""))?,
            };
            out.push(r.into());
        }
        Ok(out)
    }

    fn coop_load(&mut self, a: CoopAccess<Ptr<'ctx>>) -> R<Vec<V<'ctx>>> {
        self.float_only(a.shape)?;
        let (shape, p) = (a.shape, a.ptr);
        let st = self.matrix_stride(&a)?;
        let f = Frag { ptr: p.addr, stride: st, row_major: a.row_major, shape };
        let n = (shape.scalar(), shape.count() as usize);
        if let Some(limit) = a.limit {
            let limit = self.scalar(limit)?.into_int_value();
            let unchecked = CoopAccess { limit: None, ..a };
            return self.when_inside(
                &f,
                limit,
                n,
                |l| l.coop_load(unchecked),
                |l| l.coop_load_checked(&f, limit),
            );
        }
        match a.load_form(p.space == Space::Shared) {
            (FragForm::Elements, _) => self.coop_load_lanes(&f, false),
            (form, need) => self.when_aligned(
                &p,
                (a.ptr_value, a.stride),
                shape.elem.size() * a.scale,
                need,
                n,
                |l| match form {
                    FragForm::Ldmatrix => l.coop_ldmatrix(&f),
                    _ => l.coop_load_lanes(&f, true),
                },
                |l| l.coop_load_lanes(&f, false),
            ),
        }
    }

    fn coop_store(&mut self, a: CoopAccess<Ptr<'ctx>>, v: &[V<'ctx>]) -> R<()> {
        self.float_only(a.shape)?;
        let (shape, p) = (a.shape, a.ptr);
        let st = self.matrix_stride(&a)?;
        let f = Frag { ptr: p.addr, stride: st, row_major: a.row_major, shape };
        if let Some(limit) = a.limit {
            let limit = self.scalar(limit)?.into_int_value();
            let unchecked = CoopAccess { limit: None, ..a };
            self.when_inside(
                &f,
                limit,
                (shape.scalar(), 0),
                |l| l.coop_store(unchecked, v).map(|()| vec![]),
                |l| l.coop_store_checked(&f, v, limit),
            )?;
            return Ok(());
        }
        match a.store_form() {
            (FragForm::Elements, _) => {
                self.coop_store_lanes(&f, v, false)?;
            }
            (_, need) => {
                self.when_aligned(
                    &p,
                    (a.ptr_value, a.stride),
                    shape.elem.size() * a.scale,
                    need,
                    (shape.scalar(), 0),
                    |l| l.coop_store_lanes(&f, v, true),
                    |l| l.coop_store_lanes(&f, v, false),
                )?;
            }
        }
        Ok(())
    }

    fn coop_mma(&mut self, ops: MmaOperands<V<'ctx>>) -> R<Vec<V<'ctx>>> {
        self.float_only(ops.a)?;
        self.float_only(ops.c)?;
        let (sa, sc, [av, bv, cv]) = (ops.a, ops.c, ops.frags);
        let c_f16 = sc.scalar() == Scalar::F16;
        match (sa.n, sa.scalar()) {
            (16, Scalar::F16) => self.coop_mma16_f16(&av, &bv, &cv, c_f16),
            (8, Scalar::F16) => self.coop_mma8_f16(&av, &bv, &cv, c_f16),
            (8, _) => self.coop_mma8_exact(&av, &bv, &cv, sc.scalar()),
            _ => Err(self.internal("cooperative matrix shape")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (row, column) of a matrix is owned by exactly one (lane, element) pair, for each
    /// role and size, at the PTX ISA's positions (written out independently here).
    #[test]
    fn fragments_cover_the_matrix_once() {
        for n in [8u32, 16] {
            for role in [CoopRole::A, CoopRole::B, CoopRole::C] {
                let sh = Shape {
                    role,
                    elem: dianran_frontend::ir::CoopElem::F16,
                    n,
                    tf32: false,
                    packed: false,
                    short: false,
                };
                let mut seen = vec![vec![0u32; n as usize]; n as usize];
                for lane in 0..32u32 {
                    let (g, t) = (lane >> 2, lane % 4);
                    for i in 0..sh.count() {
                        let (r, c) = sh.elem_coords(i);
                        let (row, col) = if role == CoopRole::B {
                            (2 * t + r, g + c)
                        } else {
                            (g + r, 2 * t + c)
                        };
                        seen[row as usize][col as usize] += 1;
                        let want = match (n, role) {
                            (8, CoopRole::B) => (2 * t + i, g),
                            (8, _) => (g, 2 * t + i),
                            (_, CoopRole::A) => {
                                let row = if matches!(i, 0 | 1 | 4 | 5) { g } else { g + 8 };
                                (row, 2 * t + (i & 1) + if i < 4 { 0 } else { 8 })
                            }
                            (_, CoopRole::B) => {
                                let j = i % 4;
                                (2 * t + (j & 1) + if j < 2 { 0 } else { 8 }, g + 8 * (i / 4))
                            }
                            (_, CoopRole::C) => {
                                let j = i % 4;
                                (if j < 2 { g } else { g + 8 }, 2 * t + (j & 1) + 8 * (i / 4))
                            }
                        };
                        assert_eq!((row, col), want, "{role:?} n={n} lane {lane} element {i}");
                    }
                }
                assert!(seen.iter().flatten().all(|&k| k == 1), "{role:?} n={n}");
            }
        }
    }
}
