//! dianran's workgroup matrices on tensor cores (`docs/workgroup-matrix.md`, "PTX").
//!
//! The frontend hands every backend the portable form: each operation is a call of a helper
//! whose body computes the invocation's 32 elements with scalar `fma`s
//! ([`ir::Module::tiles`] says what each helper stands for). When every product of an entry
//! multiplies `f16` operands, this module lowers the inlined helpers itself instead, and a
//! tile's 32 registers take another placement, invisible to the kernel (only helpers touch a
//! tile's elements, and fills and zero tiles are the same in both):
//!
//! * warp `w` (`local_invocation_index / 32`) holds rows `16w .. 16w + 15`;
//! * registers `8n .. 8n + 7` are the 16 × 16 `f32` C fragment of columns `16n .. 16n + 15`
//!   (the `mma.m16n8k16` layout of `super`'s table: element `i` at row `g + 8 * ((i & 3) >> 1)`,
//!   column `2t + (i & 1) + 8 * (i >> 2)` of the block).
//!
//! A product walks K in steps of 16: one A fragment (rows `16w..`, columns `k..k + 15`) and
//! four B fragments per step, each loaded as cooperative loads are (`ldmatrix` from aligned
//! workgroup memory, elements otherwise), and four `mma.m16n8k16` pairs. With `--tf32`,
//! products of `f32` by `f32` take the same form on TF32 tensor cores: fragments in the
//! `mma.m16n8k8.tf32` layout, loaded element by element, two k-steps of `mma.m16n8k8` per
//! 16-deep step and 16-column block. Loads and stores of
//! a tile go element by element, each predicated on the (columns, rows) bound and on the
//! bounds policy. Operands are read under the policy too: when the compiler cannot prove
//! every element of a product inside its array, the fragments are loaded element by element
//! with a limit (elements past the end read zero, as in the portable form).

use super::{Frag, Split};
use crate::abi::layout;
use crate::codegen::lower::{Lower, Space};
use crate::codegen::regalloc::{BlockId, RegKind, VRegId};
use crate::lowering_common::{ArrayLength, CoopShape, InstLowering, ScalarLowering};
use crate::model::{build, CmpOp, Opcode, Operand, SpecialReg, Type as PT};
use dianran_frontend::ir::{
    self, Block, CoopElem, CoopRole, FuncId, Op, Scalar, TileArray, TileHelper, TileOp, Type,
    ValueId,
};
use dianran_frontend::Diagnostic;

pub(in crate::codegen) mod wgmma;

type R<T> = Result<T, Diagnostic>;

/// Registers of a tile per lane.
const REGS: usize = 32;

/// Whether entry function `f`'s tiles take the tensor-core form: it calls workgroup-matrix
/// helpers, and every product among them multiplies `f16` by `f16`, or (with `tf32`, TF32
/// tensor cores allowed) `f32` by `f32`.
pub(crate) fn native(m: &ir::Module, f: &ir::Function, tf32: bool) -> bool {
    fn walk(m: &ir::Module, b: &Block, tf32: bool, any: &mut bool) -> bool {
        b.insts.iter().all(|inst| match &inst.op {
            Op::Inline { callee, body, .. } => match m.tile_helper(*callee) {
                Some(h) => {
                    *any = true;
                    let all = |s: Scalar| h.arrays.iter().all(|a| a.elem == s);
                    h.op != TileOp::MultiplyAccumulate
                        || all(Scalar::F16)
                        || (tf32 && all(Scalar::F32))
                }
                None => walk(m, body, tf32, any),
            },
            op => op.blocks().into_iter().all(|b| walk(m, b, tf32, any)),
        })
    }
    let mut any = false;
    walk(m, &f.body, tf32, &mut any) && any
}

/// Whether the compiler knows the runs of 8 `f16` elements along operand `o`'s stored rows
/// start on 16 bytes for every offset it allows: an aligned array, a constant stride that
/// is a multiple of 8 and an offset known to keep 8-element steps (otherwise `wgmma`
/// staging tests it at run time, [`Operand3::rows16`]).
fn rows16_known(arr: &ArrayAt, o: &Operand3) -> bool {
    arr.align >= 16 && o.stride_k.is_some_and(|s| s.is_multiple_of(8)) && aligned_offset(o.known, 2)
}

/// Whether an element offset keeps 16-byte rows aligned (elements of `size` bytes): a
/// constant, or a value alignment analysis knows a power of two of (`(constant, pow2)`).
fn aligned_offset((o, pow2): (Option<u32>, u32), size: u32) -> bool {
    match o {
        Some(o) => (u64::from(o) * u64::from(size)) % 16 == 0,
        None => u64::from(pow2) * u64::from(size) >= 16,
    }
}

/// A product's memory operand: its offset and stride registers and what is known of them.
#[derive(Clone)]
struct Operand3 {
    off: VRegId,
    stride: VRegId,
    /// The offset's constant value and a power of two dividing it.
    known: (Option<u32>, u32),
    stride_k: Option<u32>,
    row_major: bool,
    /// The largest values of the offset and the stride, when known.
    hi: (Option<u64>, Option<u64>),
    /// Its runs of 8 elements along the stored rows are 16-byte aligned, as a run-time test
    /// found (`wgmma` staging copies them 16 bytes at a time).
    rows16: bool,
}

/// A product's operands and accumulator.
#[derive(Clone)]
struct Product {
    k: u32,
    a: Operand3,
    b: Operand3,
    c: Vec<VRegId>,
}

/// An operand array as the lowering sees it.
struct ArrayAt {
    /// The array's first element.
    base: VRegId,
    space: Space,
    /// Bytes per element (2 or 4).
    size: u32,
    elem: Scalar,
    /// Elements in the array: a constant, or a register (runtime-sized arrays).
    len: Len,
    /// The variable (workgroup arrays: for `ldmatrix` addressing) and the array's byte
    /// offset in it.
    global: ir::GlobalId,
    at: u32,
    /// A power of two dividing the first element's address.
    align: u32,
}

#[derive(Clone, Copy)]
enum Len {
    Const(u64),
    Reg(VRegId),
}

impl Lower<'_> {
    /// Lowers an inlined call of a workgroup-matrix helper on tensor cores; false when the
    /// callee is no helper or the entry uses the portable form (the caller lowers the body).
    pub(crate) fn tile_inline(
        &mut self,
        callee: FuncId,
        args: &[ValueId],
        results: &[ValueId],
    ) -> R<bool> {
        if !self.native_tiles {
            return Ok(false);
        }
        let Some(h) = self.m.tile_helper(callee).cloned() else { return Ok(false) };
        let arg = |i: usize| args.get(i).copied();
        let out = match h.op {
            TileOp::Fill => {
                let v = self.scalar(arg(0).ok_or_else(|| self.internal("fill without value"))?)?;
                Some(vec![v; REGS])
            }
            TileOp::Load => Some(self.tile_load(&h, args)?),
            TileOp::Store => {
                self.tile_store(&h, args)?;
                None
            }
            TileOp::MultiplyAccumulate => Some(self.tile_mma(&h, args)?),
        };
        if let (Some(v), Some(&r)) = (out, results.first()) {
            self.define(r, crate::lowering_common::Val::Comps(v));
        }
        Ok(true)
    }

    /// Computes `make` once in the entry block (which dominates every use).
    fn in_entry_block<T>(&mut self, make: impl FnOnce(&mut Self) -> T) -> T {
        let here = self.cur;
        self.cur = BlockId(0);
        let v = make(self);
        self.cur = here;
        v
    }

    /// The lane's first fragment row in the tile (`16w + g`) and column (`2t`), computed once.
    fn tile_lane(&mut self) -> (VRegId, VRegId) {
        if let Some(rc) = self.tile_lane {
            return rc;
        }
        let w16 = self.tile_warp_row();
        let rc = self.in_entry_block(|l| {
            let lane = l.sreg(SpecialReg::Laneid);
            let g = l.def(RegKind::B32, |d| {
                build::binary(Opcode::Shr, &[], PT::U32, d, lane, Operand::Imm(2))
            });
            let row = l.def(RegKind::B32, |d| build::add(PT::U32, d, w16, g));
            let t = l.def(RegKind::B32, |d| {
                build::binary(Opcode::And, &[], PT::B32, d, lane, Operand::Imm(3))
            });
            let col = l.def(RegKind::B32, |d| {
                build::binary(Opcode::Shl, &[], PT::B32, d, t, Operand::Imm(1))
            });
            (row, col)
        });
        self.tile_lane = Some(rc);
        rc
    }

    /// The warp's first tile row, `16w`, computed once.
    fn tile_warp_row(&mut self) -> VRegId {
        if let Some(r) = self.tile_warp_row {
            return r;
        }
        let lid = self.tile_lid();
        let r = self.in_entry_block(|l| {
            let w = l.def(RegKind::B32, |d| {
                build::binary(Opcode::Shr, &[], PT::U32, d, lid, Operand::Imm(5))
            });
            l.def(RegKind::B32, |d| build::binary(Opcode::Shl, &[], PT::B32, d, w, Operand::Imm(4)))
        });
        self.tile_warp_row = Some(r);
        r
    }

    fn types_u32(&mut self) -> ir::TypeId {
        self.types.scalar(Scalar::U32)
    }

    /// The array `a` names: its first element's address, length and layout.
    fn tile_array(&mut self, a: &TileArray) -> R<ArrayAt> {
        let mut p = match self.global(a.global, None)? {
            Some(crate::lowering_common::Val::Ptr(p)) => p,
            _ => return Err(self.internal("workgroup-matrix array is not a variable")),
        };
        for &m in &a.members {
            let (off, ty) = layout::member_offset(&mut self.types, p.pointee, m)
                .ok_or_else(|| self.internal("workgroup-matrix array member"))?;
            p = self.offset_ptr(p, off, ty);
        }
        let (len, size) = match self.types.get(p.pointee).clone() {
            Type::Array { len: Some(n), stride, .. } => (Len::Const(u64::from(n)), stride),
            Type::Array { len: None, stride, .. } => {
                let reg = if self.m.bounds_checked {
                    let slot = self.layout.buffers.iter().position(|b| *b == Some(a.global));
                    let (Some(slot), Some(offset)) = (slot, p.static_off) else {
                        return Err(self.internal("runtime-sized workgroup-matrix array"));
                    };
                    self.array_length(ArrayLength { slot, offset, stride: stride.max(1) })?
                } else {
                    self.imm_u32(u32::MAX)
                };
                (Len::Reg(reg), stride)
            }
            _ => return Err(self.internal("workgroup-matrix operand is not an array")),
        };
        Ok(ArrayAt {
            base: p.addr,
            space: p.space,
            size,
            elem: a.elem,
            len,
            global: a.global,
            at: p.static_off.unwrap_or(0),
            align: p.align,
        })
    }

    /// `base + index * size` (64-bit).
    fn tile_addr(&mut self, arr: &ArrayAt, index: VRegId) -> VRegId {
        let (size, base) = (arr.size, arr.base);
        let off = self.def(RegKind::B64, |d| {
            build::mul_wide(PT::U32, d, index, Operand::Imm(i64::from(size)))
        });
        self.def(RegKind::B64, |d| build::add(PT::S64, d, base, off))
    }

    /// `index < len` (`None`: proven or the policy is off).
    fn tile_inside(&mut self, arr: &ArrayAt, index: VRegId) -> Option<VRegId> {
        if !self.m.bounds_checked {
            return None;
        }
        let len = match arr.len {
            Len::Const(n) => match u32::try_from(n) {
                Ok(n) => Operand::Imm(i64::from(n)),
                Err(_) => return None,
            },
            Len::Reg(r) => Operand::Reg(r),
        };
        Some(self.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::U32, d, index, len)))
    }

    /// `a && b` for optional predicates.
    fn tile_and(&mut self, a: Option<VRegId>, b: VRegId) -> VRegId {
        match a {
            Some(a) => self.pred_op(Opcode::And, a, b),
            None => b,
        }
    }

    /// The index of element (`row`, `col`) of a tile at `off` with `stride`.
    fn tile_index(
        &mut self,
        (off, stride): (VRegId, VRegId),
        row: VRegId,
        col: VRegId,
        row_major: bool,
    ) -> VRegId {
        let (major, minor) = if row_major { (row, col) } else { (col, row) };
        let m = self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, major, stride, minor));
        self.def(RegKind::B32, |d| build::add(PT::U32, d, m, off))
    }

    /// For every register `i` of the lane's tile, the element it holds in a tile at `off`
    /// with `stride` in array `arr`: the predicate "inside the (columns, rows) bound and,
    /// under the bounds policy, inside the array", and the element's address; `f` of them,
    /// the results in register order.
    fn tile_each(
        &mut self,
        arr: &ArrayAt,
        [off, stride, cols, rows]: [VRegId; 4],
        row_major: bool,
        mut f: impl FnMut(&mut Self, usize, VRegId, VRegId) -> Option<VRegId>,
    ) -> Vec<VRegId> {
        let (row0, col0) = self.tile_lane();
        let c = CoopShape {
            role: CoopRole::C,
            elem: CoopElem::F32,
            n: 16,
            tf32: false,
            packed: false,
            short: false,
        };
        let mut out = Vec::new();
        let mut rows_at: Vec<(u32, VRegId)> = Vec::new();
        for blk in 0..4u32 {
            for i in 0..8u32 {
                let (dr, dc) = c.elem_coords(i);
                let row = match rows_at.iter().find(|(k, _)| *k == dr) {
                    Some(&(_, r)) => r,
                    None => {
                        let r = if dr == 0 {
                            row0
                        } else {
                            self.def(RegKind::B32, |d| {
                                build::add(PT::U32, d, row0, Operand::Imm(i64::from(dr)))
                            })
                        };
                        rows_at.push((dr, r));
                        r
                    }
                };
                let dc = dc + 16 * blk;
                let col = self.def(RegKind::B32, |d| {
                    build::add(PT::U32, d, col0, Operand::Imm(i64::from(dc)))
                });
                let r_in =
                    self.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::U32, d, row, rows));
                let c_in =
                    self.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::U32, d, col, cols));
                let mut p = self.pred_op(Opcode::And, r_in, c_in);
                let idx = self.tile_index((off, stride), row, col, row_major);
                if let Some(q) = self.tile_inside(arr, idx) {
                    p = self.tile_and(Some(p), q);
                }
                let addr = self.tile_addr(arr, idx);
                if let Some(v) = f(self, (8 * blk + i) as usize, p, addr) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// `workgroupMatrixLoad`: every element inside the bound and the array is read, the
    /// others are zero.
    fn tile_load(&mut self, h: &TileHelper, args: &[ValueId]) -> R<Vec<VRegId>> {
        let scalars = self.tile_args4(args)?;
        let arr =
            self.tile_array(h.arrays.first().ok_or_else(|| self.internal("load without array"))?)?;
        let row_major = h.row_major.first().copied().unwrap_or(true);
        let zero = self.imm_u32(0);
        let (sp, elem) = (arr.space.state_space(), arr.elem);
        Ok(self.tile_each(&arr, scalars, row_major, |l, _, p, addr| {
            Some(l.if_then(p, RegKind::B32, zero, |l| {
                if elem == Scalar::F16 {
                    let h =
                        l.def(RegKind::B16, |d| build::ld(sp, PT::B16, d, Operand::addr(addr, 0)));
                    l.def(RegKind::B32, |d| build::cvt(None, false, PT::F32, PT::F16, d, h))
                } else {
                    l.def(RegKind::B32, |d| build::ld(sp, PT::F32, d, Operand::addr(addr, 0)))
                }
            }))
        }))
    }

    /// `workgroupMatrixStore`: every element inside the bound and the array is written.
    fn tile_store(&mut self, h: &TileHelper, args: &[ValueId]) -> R<()> {
        let (Some(&off), Some(&tile), Some(&stride), Some(&cols), Some(&rows)) =
            (args.first(), args.get(1), args.get(2), args.get(3), args.get(4))
        else {
            return Err(self.internal("workgroupMatrixStore arguments"));
        };
        let v = self.comps(tile)?;
        if v.len() != REGS {
            return Err(self.internal("tile registers"));
        }
        let scalars = self.tile_args4(&[off, stride, cols, rows])?;
        let arr =
            self.tile_array(h.arrays.first().ok_or_else(|| self.internal("store without array"))?)?;
        let row_major = h.row_major.first().copied().unwrap_or(true);
        let (sp, elem) = (arr.space.state_space(), arr.elem);
        self.tile_each(&arr, scalars, row_major, |l, i, p, addr| {
            let x = v[i];
            if elem == Scalar::F16 {
                let h = l.def(RegKind::B16, |d| {
                    build::cvt(Some(crate::model::Rounding::Rn), false, PT::F16, PT::F32, d, x)
                });
                l.push(build::st(sp, PT::B16, Operand::addr(addr, 0), h).guarded(p, false));
            } else {
                l.push(build::st(sp, PT::F32, Operand::addr(addr, 0), x).guarded(p, false));
            }
            None
        });
        Ok(())
    }

    /// The four scalar arguments of a load.
    fn tile_args4(&mut self, args: &[ValueId]) -> R<[VRegId; 4]> {
        if args.len() < 4 {
            return Err(self.internal("workgroupMatrixLoad arguments"));
        }
        Ok([
            self.scalar(args[0])?,
            self.scalar(args[1])?,
            self.scalar(args[2])?,
            self.scalar(args[3])?,
        ])
    }

    /// `workgroupMatrixMultiplyAccumulate` with `f16` operands on `mma.m16n8k16`. When the
    /// compiler cannot prove every element of an operand inside its array, one uniform test
    /// per call picks between the product with unchecked loads (`ldmatrix` where it can) and
    /// the one that checks each element.
    fn tile_mma(&mut self, h: &TileHelper, args: &[ValueId]) -> R<Vec<VRegId>> {
        let (Some(&ao), Some(&as_), Some(&bo), Some(&bs), Some(&acc)) =
            (args.first(), args.get(1), args.get(2), args.get(3), args.get(4))
        else {
            return Err(self.internal("workgroupMatrixMultiplyAccumulate arguments"));
        };
        let c = self.comps(acc)?;
        if c.len() != REGS || h.arrays.len() != 2 || h.row_major.len() != 2 {
            return Err(self.internal("workgroup-matrix product operands"));
        }
        let k = h.k;
        let (lm, rm) = (h.row_major[0], h.row_major[1]);
        let a = self.tile_array(&h.arrays[0])?;
        let b = self.tile_array(&h.arrays[1])?;
        let known = |l: &Self, v: ValueId| (l.known.constant(v), l.known.pow2(v));
        let p = Product {
            k,
            a: Operand3 {
                off: self.scalar(ao)?,
                stride: self.scalar(as_)?,
                known: known(self, ao),
                stride_k: self.known.constant(as_),
                row_major: lm,
                hi: (self.tile_hi(ao), self.tile_hi(as_)),
                rows16: false,
            },
            b: Operand3 {
                off: self.scalar(bo)?,
                stride: self.scalar(bs)?,
                known: known(self, bo),
                stride_k: self.known.constant(bs),
                row_major: rm,
                hi: (self.tile_hi(bo), self.tile_hi(bs)),
                rows16: false,
            },
            c,
        };
        // A is 64 x K, B is K x 64: their extents along and across the stored rows.
        let ext = |row_major: bool, rows: u32, cols: u32| {
            if row_major {
                (rows, cols)
            } else {
                (cols, rows)
            }
        };
        let checked = self.m.bounds_checked;
        let a_fits = !checked || self.tile_fits_static(&a, &p.a, ext(lm, 64, k));
        let b_fits = !checked || self.tile_fits_static(&b, &p.b, ext(rm, k, 64));
        // On `wgmma`, the fast path also copies global operands whose rows a run-time test
        // finds 16-byte aligned 16 bytes at a time (`cp.async`).
        let hopper = self.sm == crate::model::SM_90A && a.elem == Scalar::F16;
        let a_rows = if hopper { self.tile_rows16(&a, &p.a) } else { None };
        let b_rows = if hopper { self.tile_rows16(&b, &p.b) } else { None };
        let mut fast = p.clone();
        fast.a.rows16 = a_rows.is_some();
        fast.b.rows16 = b_rows.is_some();
        let mut ok = None;
        for q in [a_rows, b_rows].into_iter().flatten() {
            ok = Some(self.tile_and(ok, q));
        }
        if a_fits && b_fits && ok.is_none() {
            return self.tile_product(&a, &b, &p, true, true);
        }
        if !a_fits {
            let q = self.tile_fits(&a, &p.a, ext(lm, 64, k));
            ok = Some(self.tile_and(ok, q));
        }
        if !b_fits {
            let q = self.tile_fits(&b, &p.b, ext(rm, k, 64));
            ok = Some(self.tile_and(ok, q));
        }
        let ok = ok.ok_or_else(|| self.internal("tile bounds"))?;
        let ok = self.vote_all(ok);
        let mut err = None;
        let kinds = vec![RegKind::B32; REGS];
        let out = self.diverge(
            ok,
            &kinds,
            |l| l.tile_product(&a, &b, &fast, true, true),
            |l| match l.tile_product(&a, &b, &p, a_fits, b_fits) {
                Ok(v) => v,
                Err(e) => {
                    err = Some(e);
                    vec![l.imm_u32(0); REGS]
                }
            },
        )?;
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// For a global operand whose row alignment the compiler cannot prove, the run-time test
    /// that its runs of 8 elements along the stored rows start on 16 bytes: the array's
    /// address, the offset and the stride (in elements of 2 bytes) are all multiples of 16
    /// bytes. `None` for other operands (workgroup arrays keep their static test).
    fn tile_rows16(&mut self, arr: &ArrayAt, o: &Operand3) -> Option<VRegId> {
        if rows16_known(arr, o) || arr.space != Space::Global || arr.size != 2 {
            return None;
        }
        let base = arr.base;
        let lo = self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, base));
        let (off, stride) = (o.off, o.stride);
        let x = self.def(RegKind::B32, |d| build::binary(Opcode::Or, &[], PT::B32, d, off, stride));
        let x = self
            .def(RegKind::B32, |d| build::binary(Opcode::Shl, &[], PT::B32, d, x, Operand::Imm(1)));
        let x = self.def(RegKind::B32, |d| build::binary(Opcode::Or, &[], PT::B32, d, x, lo));
        let x = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, x, Operand::Imm(15))
        });
        Some(self.def(RegKind::Pred, |d| build::setp(CmpOp::Eq, PT::U32, d, x, Operand::Imm(0))))
    }

    /// The largest value of `u32` value `v`, when the entry's value ranges know one.
    fn tile_hi(&mut self, v: ValueId) -> Option<u64> {
        self.tile_ranges.as_mut()?.range(v).map(|(_, hi)| hi)
    }

    /// Whether a tile of (`major`, `minor`) extent lies inside an array of constant length
    /// for every offset and stride the value ranges allow.
    fn tile_fits_static(&self, arr: &ArrayAt, o: &Operand3, (major, minor): (u32, u32)) -> bool {
        let (Some(off), Some(s), Len::Const(n)) = (o.hi.0, o.hi.1, arr.len) else {
            return false;
        };
        off + u64::from(major - 1) * s + u64::from(minor - 1) < n
    }

    /// `offset + (major - 1) * stride + minor - 1 < len`, in 64 bits.
    fn tile_fits(&mut self, arr: &ArrayAt, o: &Operand3, (major, minor): (u32, u32)) -> VRegId {
        let (off, stride) = (o.off, o.stride);
        let w = self.def(RegKind::B64, |d| {
            build::mul_wide(PT::U32, d, stride, Operand::Imm(i64::from(major - 1)))
        });
        let off64 = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, off));
        let last = self.def(RegKind::B64, |d| build::add(PT::U64, d, w, off64));
        let len = match arr.len {
            Len::Const(n) => Operand::Imm(i64::try_from(n).unwrap_or(i64::MAX)),
            Len::Reg(r) => Operand::Reg(
                self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, r)),
            ),
        };
        let end = self
            .def(RegKind::B64, |d| build::add(PT::U64, d, last, Operand::Imm(i64::from(minor))));
        // last element + 1 <= len
        self.def(RegKind::Pred, |d| build::setp(CmpOp::Le, PT::U64, d, end, len))
    }

    /// The product's k-steps: per step one A fragment and four B fragments, four pairs of
    /// `mma.m16n8k16`; `*_free`: the operand's elements need no bounds check.
    fn tile_product(
        &mut self,
        a: &ArrayAt,
        b: &ArrayAt,
        p: &Product,
        a_free: bool,
        b_free: bool,
    ) -> R<Vec<VRegId>> {
        // f16 operands, or f32 ones on TF32 tensor cores (`native` admits no other).
        let f32_ops = a.elem == Scalar::F32;
        if self.sm == crate::model::SM_90A && !f32_ops {
            return self.tile_product_wgmma(a, b, p, a_free, b_free);
        }
        let mut c = p.c.clone();
        let w16 = self.tile_warp_row();
        let elem = if f32_ops { CoopElem::F32 } else { CoopElem::F16 };
        let shape =
            |role| CoopShape { role, elem, n: 16, tf32: f32_ops, packed: false, short: false };
        let (pa, pb) = (&p.a, &p.b);
        // A's rows start at 16w: the warp's part of the offset.
        let a_x = if pa.row_major {
            let (s, o) = (pa.stride, pa.off);
            self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, w16, s, o))
        } else {
            let o = pa.off;
            self.def(RegKind::B32, |d| build::add(PT::U32, d, o, w16))
        };
        let a_ok = aligned_offset(pa.known, a.size);
        let b_ok = aligned_offset(pb.known, b.size);
        for kk in (0..p.k).step_by(16) {
            // A's element (row, kk): row-major `kk` on, column-major `kk` columns on.
            let (x, delta) = if pa.row_major {
                (a_x, i64::from(kk))
            } else {
                match pa.stride_k {
                    Some(s) => (a_x, i64::from(kk) * i64::from(s)),
                    None if kk == 0 => (a_x, 0),
                    None => {
                        let s = pa.stride;
                        (
                            self.def(RegKind::B32, |d| {
                                build::mad_lo(PT::S32, d, s, Operand::Imm(i64::from(kk)), a_x)
                            }),
                            0,
                        )
                    }
                }
            };
            let af = self.tile_fragment(
                a,
                (x, delta, a_ok),
                (pa.stride, pa.stride_k),
                pa.row_major,
                shape(CoopRole::A),
                a_free,
            )?;
            for n in 0..4u32 {
                let col = 16 * n;
                // B's element (kk, col): row-major `kk * stride + col`, column-major
                // `col * stride + kk`.
                let (across, along) = if pb.row_major { (kk, col) } else { (col, kk) };
                let (x, delta) = match pb.stride_k {
                    Some(s) => (pb.off, i64::from(across) * i64::from(s) + i64::from(along)),
                    None if across == 0 => (pb.off, i64::from(along)),
                    None => {
                        let (s, o) = (pb.stride, pb.off);
                        (
                            self.def(RegKind::B32, |d| {
                                build::mad_lo(PT::S32, d, s, Operand::Imm(i64::from(across)), o)
                            }),
                            i64::from(along),
                        )
                    }
                };
                let bf = self.tile_fragment(
                    b,
                    (x, delta, b_ok),
                    (pb.stride, pb.stride_k),
                    pb.row_major,
                    shape(CoopRole::B),
                    b_free,
                )?;
                let at = 8 * n as usize;
                let d = if f32_ops {
                    self.coop_mma_tf32(&af, &bf, &c[at..at + 8], Scalar::F32)
                } else {
                    self.coop_mma16_f16(&af, &bf, &c[at..at + 8], false)
                };
                c.splice(at..at + 8, d);
            }
        }
        Ok(c)
    }

    /// A 16 × 16 `f16` operand fragment whose first element is array element `x + delta`
    /// (`delta` an immediate), `stride` apart: `ldmatrix` when it lies in workgroup memory
    /// with 16-byte aligned rows, element loads otherwise; `free`: every element is inside
    /// the array (else each is checked against the array's end).
    #[allow(clippy::too_many_arguments)]
    fn tile_fragment(
        &mut self,
        arr: &ArrayAt,
        (x, delta, x_aligned): (VRegId, i64, bool),
        (stride, stride_k): (VRegId, Option<u32>),
        row_major: bool,
        shape: CoopShape,
        free: bool,
    ) -> R<Vec<VRegId>> {
        // `ldmatrix` moves 16-bit elements.
        let aligned = arr.space == Space::Shared
            && shape.elem == CoopElem::F16
            && arr.align >= 16
            && stride_k.is_some_and(|s| (s * arr.size).is_multiple_of(16))
            && (delta * i64::from(arr.size)) % 16 == 0
            && x_aligned;
        let first = self.def(RegKind::B32, |d| build::add(PT::U32, d, x, Operand::Imm(delta)));
        if free && aligned {
            let f = Frag {
                ptr: arr.base,
                space: Space::Shared,
                stride,
                stride_k,
                split: Some(Split {
                    root: arr.base,
                    x,
                    bytes: delta * i64::from(arr.size),
                    elem: arr.size,
                    global: Some((arr.global, arr.at)),
                }),
                row_major,
                shape,
            };
            return Ok(self.coop_ldmatrix(&f));
        }
        let ptr = self.tile_addr(arr, first);
        let f = Frag { ptr, space: arr.space, stride, stride_k, split: None, row_major, shape };
        if free {
            return Ok(self.coop_load_lanes(&f, false));
        }
        // Elements from the fragment's first to the array's end (zero when it starts past it).
        let len = match arr.len {
            Len::Const(n) => self.imm_u32(u32::try_from(n).unwrap_or(u32::MAX)),
            Len::Reg(r) => r,
        };
        let top =
            self.def(RegKind::B32, |d| build::binary(Opcode::Max, &[], PT::U32, d, len, first));
        let limit = self.def(RegKind::B32, |d| build::sub(PT::S32, d, top, first));
        Ok(self.coop_load_checked(&f, limit))
    }
}
