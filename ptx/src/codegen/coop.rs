//! Cooperative matrices on tensor cores: `mma.sync` m16n8k16 / m16n8k8 and `ldmatrix`.
//!
//! A 16x16 matrix is spread over the 32 lanes of a warp as 8 elements per lane in the
//! fragment layout of `mma.m16n8k16` (PTX ISA "Matrix Fragments for mma.m16n8k16 with floating
//! point type"; `g = laneid >> 2`, `t = laneid % 4`), the 16 columns as two 8-column n-tiles:
//!
//! | role | element `i` | row | column |
//! |---|---|---|---|
//! | A (M x K, f16) | 0..8 | `g + 8*((i>>1)&1)` | `2t + (i&1) + 8*(i>>2)` |
//! | B (K x N, f16) | tile `i>>2`, `j = i&3` | `2t + (j&1) + 8*(j>>1)` | `g + 8*tile` |
//! | C (M x N, f32/f16) | tile `i>>2`, `j = i&3` | `g + 8*(j>>1)` | `2t + (j&1) + 8*tile` |
//!
//! An 8x8 matrix is the top half of `mma.m16n8k8` (2 elements per lane): A and C hold
//! `(g, 2t + i)`, B holds `(2t + i, g)`; a product passes zero registers for rows 8..15 of A
//! and C and ignores those rows of D.
//!
//! Elements `2p` and `2p + 1` of an f16 fragment form the 8x8 sub-matrix `p` at rows
//! `8*(p&1)`, columns `8*(p>>1)`, which is exactly what `ldmatrix` delivers in register `p`
//! (no `.trans` when the lane's pair runs along the stored rows, `.trans` otherwise).
//!
//! Loads and stores, for both orientations (`coopLoad` is column-major, element (r, c) at
//! `c*stride + r`; the `T` forms are row-major, `r*stride + c`) and any stride:
//! * f16 from workgroup memory: one `ldmatrix` (`.x4` for 16x16, `.x1` for 8x8) when every
//!   row address is 16-byte aligned (matrix address and `2*stride` multiples of 16);
//! * otherwise, and for other spaces, per-lane `ld`/`st`, with a lane's two neighbouring
//!   elements as one access (`.b32` for an f16 pair, `.v2.u32` for f32) when the pair is
//!   contiguous in memory and aligned to its width;
//! * an alignment the compiler proves ([`super::align`]) picks the fast form directly; a
//!   proven misalignment picks the per-element form; anything else is checked at run time
//!   (`vote.sync.all` over the warp, so the branch is uniform and `ldmatrix` stays `.aligned`).
//!
//! Products: f16 A/B issue one `mma.sync` per 8-column n-tile, `.f32` or `.f16` accumulators
//! as C's type says. PTX has no exact f32 tensor-core product, so 16x16 f32 A/B matrices are a
//! diagnostic unless [`super::Options::tf32`] is set; 8x8 f32 products without it are computed
//! exactly on the FMA units (shuffles, unfused products summed in order, as the reference
//! interpreter does). With `tf32`, f32 A/B use the layout of `mma.m16n8k8` with `.tf32`
//! (PTX ISA "Matrix Fragments for mma.m16n8k8", `.tf32`), as two 8-wide k-steps:
//!
//! | role | element `i` | row | column |
//! |---|---|---|---|
//! | A (M x K, f32) | k-step `i>>2`, `j = i&3` | `g + 8*(j&1)` | `t + 4*(j>>1) + 8*(i>>2)` |
//! | B (K x N, f32) | tile `i>>2`, k-step `(i>>1)&1` | `t + 4*(i&1) + 8*((i>>1)&1)` | `g + 8*tile` |
//! | A 8x8 | 0..2 | `g` | `t + 4i` |
//! | B 8x8 | 0..2 | `t + 4i` | `g` |
//!
//! and a product is `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` on operands rounded
//! with `cvt.rna.tf32.f32` (four for 16x16: 2 k-steps x 2 n-tiles; one for 8x8).

use super::lower::{Lower, Ptr, Space};
use super::regalloc::{BlockId, RegKind, Target, Term, VRegId};
use crate::abi::layout::{element_stride, kind_of};
use crate::lowering_common::{
    CoopAccess, CoopLowering, CoopShape as Shape, CoopShape, FragForm, MmaOperands,
};
use crate::model::{
    build, CmpOp, Instruction, Opcode, Operand, Rounding, ShflMode, SpecialReg, Type as PT,
    VoteMode,
};
use dianran_frontend::ir::{
    BinaryOperator, CoopElem, CoopRole, GlobalId, Op, Scalar, TypeId, ValueId,
};
use dianran_frontend::Diagnostic;

type R<T> = Result<T, Diagnostic>;

pub(super) mod tile;

/// A checked fragment access's shared values ([`Lower::coop_checked_base`]).
struct CheckedBase {
    /// The lane's first element's offset from the tile's first element, in elements (u64).
    offset: VRegId,
    /// The lane's first element's byte address.
    addr: VRegId,
    /// The limit, widened to 64 bits.
    limit: VRegId,
    /// `dh * stride` (u64) for the distinct `dh` met so far (runtime strides only).
    rows: Vec<(u32, VRegId)>,
}

/// `shfl.sync.idx.b32 d, a, src, 31, -1`: lane `src`'s `a`, all lanes taking part.
fn shfl_idx(d: VRegId, a: VRegId, src: VRegId) -> Instruction {
    build::shfl_sync(ShflMode::Idx, d, a, src, Operand::Imm(31), Operand::Imm(-1))
}

/// The `ld` type of one element into its shader scalar's register (a byte sign- or
/// zero-extends).
fn ld_type(e: CoopElem) -> PT {
    match e {
        CoopElem::F16 => PT::B16,
        CoopElem::I8 => PT::S8,
        CoopElem::U8 => PT::U8,
        _ => PT::U32,
    }
}

/// The `st` type of one element (a byte stores its register's low byte).
fn st_type(e: CoopElem) -> PT {
    match e {
        CoopElem::F16 => PT::B16,
        CoopElem::I8 | CoopElem::U8 => PT::B8,
        _ => PT::U32,
    }
}

/// A decimal immediate.
fn imm(k: u32) -> Operand {
    Operand::Imm(i64::from(k))
}

/// `op.T d, a, k` with a decimal immediate `k` (shifts and masks).
fn op_imm(op: Opcode, t: PT, d: VRegId, a: VRegId, k: u32) -> Instruction {
    build::binary(op, &[], t, d, a, imm(k))
}

/// Where a lane's fragment lives in memory.
#[derive(Clone, Copy)]
struct Frag {
    /// Address of the matrix's first element.
    ptr: VRegId,
    /// State space of `ptr`.
    space: Space,
    /// Stride in elements.
    stride: VRegId,
    /// The stride when it is a compile-time constant.
    stride_k: Option<u32>,
    /// For a workgroup element `&tile[x + k]` (constant `k`): the tile's address, `x` and
    /// the byte offset of `k` elements ([`Lower::split_shared`]).
    split: Option<Split>,
    /// `T` form (row-major).
    row_major: bool,
    shape: Shape,
}

/// A workgroup element `&tile[x + k]` (constant `k`), see [`Lower::split_shared`].
#[derive(Clone, Copy)]
struct Split {
    /// The tile's address register.
    root: VRegId,
    /// The register of `x`.
    x: VRegId,
    /// The byte offset of `k` elements.
    bytes: i64,
    /// The array's element stride in bytes (2 or 4).
    elem: u32,
    /// When the tile lies at a constant byte offset in a workgroup variable: the variable and
    /// that offset, so that its address can be computed once in the entry block.
    global: Option<(GlobalId, u32)>,
}

/// `mma` shapes and types (D, A, B, C).
const M16N8K16: (u8, u8, u8) = (16, 8, 16);
const M16N8K8: (u8, u8, u8) = (16, 8, 8);
const M16N8K32: (u8, u8, u8) = (16, 8, 32);
const F32_F16: [PT; 4] = [PT::F32, PT::F16, PT::F16, PT::F32];
const F16_F16: [PT; 4] = [PT::F16, PT::F16, PT::F16, PT::F16];
const F32_TF32: [PT; 4] = [PT::F32, PT::Tf32, PT::Tf32, PT::F32];

impl Lower<'_> {
    /// Each lane's element offset of its fragment's element 0: row-major `row*S + col`,
    /// column-major `col*S + row`, with (row, col) the lane's base.
    fn coop_lane_base(&mut self, f: &Frag) -> VRegId {
        let (hi, lo) = self.coop_lane_coords(f);
        let stride = f.stride;
        self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, hi, stride, lo))
    }

    /// Each lane's (major, minor) coordinates of its fragment's element 0 in storage order:
    /// (row, col) row-major, (col, row) column-major.
    fn coop_lane_coords(&mut self, f: &Frag) -> (VRegId, VRegId) {
        let lane = self.sreg(SpecialReg::Laneid);
        let g = self.def(RegKind::B32, |d| op_imm(Opcode::Shr, PT::U32, d, lane, 2));
        let t = self.def(RegKind::B32, |d| op_imm(Opcode::And, PT::B32, d, lane, 3));
        let t2 = match f.shape.lane_step() {
            1 => t,
            u => self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, t, u.ilog2())),
        };
        let (br, bc) = if f.shape.role == CoopRole::B { (t2, g) } else { (g, t2) };
        if f.row_major {
            (br, bc)
        } else {
            (bc, br)
        }
    }

    /// Byte address of element `i` of the lane's fragment (`base` from
    /// [`Lower::coop_lane_base`]).
    fn coop_elem_addr(&mut self, f: &Frag, base: VRegId, i: u32) -> VRegId {
        let (r, c) = f.shape.elem_coords(i);
        let (hi, lo) = if f.row_major { (r, c) } else { (c, r) };
        let size = f.shape.elem.size();
        // base + hi*stride + lo, leaving out the zero terms (element 0 is the base itself).
        let mut e = base;
        let (stride, ptr) = (f.stride, f.ptr);
        if hi != 0 {
            let k = self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, stride, imm(hi)));
            let b = e;
            e = self.def(RegKind::B32, |d| build::add(PT::S32, d, k, b));
        }
        if lo != 0 {
            let b = e;
            e = self.def(RegKind::B32, |d| build::add(PT::S32, d, b, imm(lo)));
        }
        let off = self.def(RegKind::B64, |d| build::mul_wide(PT::U32, d, e, imm(size)));
        self.def(RegKind::B64, |d| build::add(PT::S64, d, ptr, off))
    }

    /// Per-lane loads of a fragment; `pairs`: each contiguous aligned pair as one access.
    fn coop_load_lanes(&mut self, f: &Frag, pairs: bool) -> Vec<VRegId> {
        let base = self.coop_lane_base(f);
        let sp = f.space.state_space();
        let s = f.shape.scalar();
        let mut out = Vec::new();
        if pairs && f.shape.packed {
            // Each word's 4 bytes are neighbours: one `ld.b32`.
            for w in 0..f.shape.count() {
                let a = self.coop_elem_addr(f, base, 4 * w);
                out.push(
                    self.def(RegKind::B32, |d| build::ld(sp, PT::B32, d, Operand::addr(a, 0))),
                );
            }
            return out;
        }
        if pairs {
            for p in 0..f.shape.count() / 2 {
                let a = self.coop_elem_addr(f, base, 2 * p);
                out.extend(if s == Scalar::F16 {
                    let w =
                        self.def(RegKind::B32, |d| build::ld(sp, PT::B32, d, Operand::addr(a, 0)));
                    self.unpack_f16x2(w)
                } else {
                    let d = [self.mf.new_vreg(RegKind::B32), self.mf.new_vreg(RegKind::B32)];
                    self.push(build::ld_vec(sp, PT::U32, &d, Operand::addr(a, 0)));
                    d
                });
            }
            return out;
        }
        let ty = ld_type(f.shape.elem);
        for i in 0..f.shape.elems() {
            let a = self.coop_elem_addr(f, base, i);
            out.push(self.def(kind_of(s), |d| build::ld(sp, ty, d, Operand::addr(a, 0))));
        }
        self.pack_frag(f.shape, out)
    }

    /// Per-lane stores of a fragment; `pairs` as in [`Lower::coop_load_lanes`].
    fn coop_store_lanes(&mut self, f: &Frag, v: &[VRegId], pairs: bool) {
        let base = self.coop_lane_base(f);
        let sp = f.space.state_space();
        let s = f.shape.scalar();
        if pairs && f.shape.packed {
            for (w, &x) in v.iter().enumerate() {
                let a = self.coop_elem_addr(f, base, 4 * w as u32);
                self.push(build::st(sp, PT::B32, Operand::addr(a, 0), x));
            }
            return;
        }
        if pairs {
            for (p, xy) in v.chunks(2).enumerate() {
                let a = self.coop_elem_addr(f, base, 2 * p as u32);
                if s == Scalar::F16 {
                    let w = self.pack_f16x2(xy[0], xy[1]);
                    self.push(build::st(sp, PT::B32, Operand::addr(a, 0), w));
                } else {
                    self.push(build::st_vec(sp, PT::U32, Operand::addr(a, 0), &[xy[0], xy[1]]));
                }
            }
            return;
        }
        let ty = st_type(f.shape.elem);
        for (i, x) in self.unpack_frag(f.shape, v).into_iter().enumerate() {
            let a = self.coop_elem_addr(f, base, i as u32);
            self.push(build::st(sp, ty, Operand::addr(a, 0), x));
        }
    }

    /// Per-lane loads of a fragment under the bounds policy's `limit` (a `u32` register):
    /// an element at offset `limit` or beyond is not read and gives zero. Offsets are
    /// computed in 64 bits, so a stride that would wrap 32 bits is past any limit.
    fn coop_load_checked(&mut self, f: &Frag, limit: VRegId) -> Vec<VRegId> {
        let sp = f.space.state_space();
        let s = f.shape.scalar();
        let ty = ld_type(f.shape.elem);
        let zero = if s == Scalar::F16 {
            self.def(RegKind::B16, |d| build::mov(PT::B16, d, imm(0)))
        } else {
            self.imm_u32(0)
        };
        let mut base = self.coop_checked_base(f, limit);
        let mut out = Vec::new();
        for i in 0..f.shape.elems() {
            let (p, a) = self.coop_elem_checked(f, &mut base, i);
            let v = self
                .if_then(p, kind_of(s), zero, |l| l.def(kind_of(s), |d| build::ld(sp, ty, d, a)));
            out.push(v);
        }
        self.pack_frag(f.shape, out)
    }

    /// Per-lane stores of a fragment under `limit` (see [`Lower::coop_load_checked`]): each
    /// element's store is predicated on its offset being below the limit.
    fn coop_store_checked(&mut self, f: &Frag, v: &[VRegId], limit: VRegId) {
        let sp = f.space.state_space();
        let ty = st_type(f.shape.elem);
        let mut base = self.coop_checked_base(f, limit);
        for (i, x) in self.unpack_frag(f.shape, v).into_iter().enumerate() {
            let (p, a) = self.coop_elem_checked(f, &mut base, i as u32);
            self.push(build::st(sp, ty, a, x).guarded(p, false));
        }
    }

    /// What every element of a checked fragment access shares: the lane's first element's
    /// offset and byte address and the limit, all 64-bit, computed once.
    fn coop_checked_base(&mut self, f: &Frag, limit: VRegId) -> CheckedBase {
        let (hi, lo) = self.coop_lane_coords(f);
        let stride = f.stride;
        let wide = self.def(RegKind::B64, |d| build::mul_wide(PT::U32, d, hi, stride));
        let lo64 = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, lo));
        let offset = self.def(RegKind::B64, |d| build::add(PT::U64, d, wide, lo64));
        let limit = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, limit));
        let (size, ptr) = (f.shape.elem.size(), f.ptr);
        let addr = self.def(RegKind::B64, |d| build::mad_lo(PT::U64, d, offset, imm(size), ptr));
        CheckedBase { offset, addr, limit, rows: Vec::new() }
    }

    /// For element `i` of the lane's fragment: the predicate "its offset is below the
    /// limit" and its address operand. With a constant stride the element's distance from
    /// the lane's first element is an immediate; with a runtime one, `dh * stride` is
    /// computed once per distinct `dh`.
    fn coop_elem_checked(&mut self, f: &Frag, b: &mut CheckedBase, i: u32) -> (VRegId, Operand) {
        let (r, c) = f.shape.elem_coords(i);
        let (dh, dl) = if f.row_major { (r, c) } else { (c, r) };
        let size = f.shape.elem.size();
        let (offset, limit) = (b.offset, b.limit);
        let below = |l: &mut Self, e: VRegId| {
            l.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::U64, d, e, limit))
        };
        if let Some(k) = f.stride_k {
            let delta = u64::from(dh) * u64::from(k) + u64::from(dl);
            let size = u64::from(size);
            if let (Ok(d32), Ok(bytes)) = (u32::try_from(delta), i32::try_from(delta * size)) {
                let e = if delta == 0 {
                    offset
                } else {
                    self.def(RegKind::B64, |d| build::add(PT::U64, d, offset, imm(d32)))
                };
                let bytes = i64::from(bytes);
                return (below(self, e), Operand::addr(b.addr, bytes));
            }
        }
        let mut e = offset;
        if dh != 0 {
            let row = match b.rows.iter().find(|(h, _)| *h == dh) {
                Some(&(_, v)) => v,
                None => {
                    let stride = f.stride;
                    let v =
                        self.def(RegKind::B64, |d| build::mul_wide(PT::U32, d, stride, imm(dh)));
                    b.rows.push((dh, v));
                    v
                }
            };
            e = self.def(RegKind::B64, |d| build::add(PT::U64, d, e, row));
        }
        if dl != 0 {
            let x = e;
            e = self.def(RegKind::B64, |d| build::add(PT::U64, d, x, imm(dl)));
        }
        let ptr = f.ptr;
        let a = self.def(RegKind::B64, |d| build::mad_lo(PT::U64, d, e, imm(size), ptr));
        (below(self, e), Operand::addr(a, 0))
    }

    /// `p ? then(..) : otherwise` with `then` emitted in a block of its own (a load that must
    /// not run when `p` fails); the value has register kind `kind`.
    fn if_then(
        &mut self,
        p: VRegId,
        kind: RegKind,
        otherwise: VRegId,
        then: impl FnOnce(&mut Self) -> VRegId,
    ) -> VRegId {
        let (tb, merge) = (self.mf.new_block(), self.mf.new_block());
        let param = self.mf.new_vreg(kind);
        if let Some(b) = self.mf.blocks.get_mut(merge.0 as usize) {
            b.params = vec![param];
        }
        self.set_term(Term::Branch {
            cond: p,
            then_: Target { block: tb, args: vec![] },
            else_: Target { block: merge, args: vec![otherwise] },
        });
        self.cur = tb;
        let v = then(self);
        self.jump(merge, vec![v]);
        self.cur = merge;
        param
    }

    /// Runs `fast` when the whole tile lies below `limit` for every lane (the last element's
    /// offset, `(major - 1) * stride + minor - 1`, is below it; a uniform `vote`), `slow`
    /// otherwise; returns the values of whichever ran.
    fn when_inside(
        &mut self,
        f: &Frag,
        limit: VRegId,
        kinds: &[RegKind],
        fast: impl FnOnce(&mut Self) -> R<Vec<VRegId>>,
        slow: impl FnOnce(&mut Self) -> Vec<VRegId>,
    ) -> R<Vec<VRegId>> {
        // The last element is (rows - 1, columns - 1).
        let (rows, cols) = f.shape.dims();
        let (major, minor) = if f.row_major { (rows, cols) } else { (cols, rows) };
        let inside = match f.stride_k {
            Some(k) => {
                let last = u64::from(major - 1) * u64::from(k) + u64::from(minor - 1);
                let Ok(last) = u32::try_from(last) else { return Ok(slow(self)) };
                self.def(RegKind::Pred, |d| build::setp(CmpOp::Gt, PT::U32, d, limit, imm(last)))
            }
            None => {
                let stride = f.stride;
                let w =
                    self.def(RegKind::B64, |d| build::mul_wide(PT::U32, d, stride, imm(major - 1)));
                let last = self.def(RegKind::B64, |d| build::add(PT::U64, d, w, imm(minor - 1)));
                let lim =
                    self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, limit));
                self.def(RegKind::Pred, |d| build::setp(CmpOp::Lt, PT::U64, d, last, lim))
            }
        };
        let ok = self.vote_all(inside);
        self.diverge(ok, kinds, fast, slow)
    }

    /// One `ldmatrix` for an f16 fragment in workgroup memory (rows 16-byte aligned): lanes
    /// `8m..8m+7` address the stored rows of sub-matrix `m`, register `p` receives elements
    /// `2p`, `2p + 1`. A `packed` byte fragment whose words run along the stored rows is the
    /// same: sub-matrix `p` (8 stored rows of 16 bytes) at rows `8*(p&1)` of A (columns
    /// `16*(p>>1)`) or columns `8*(p>>1)` of B (rows `16*(p&1)`) gives word `p`.
    fn coop_ldmatrix(&mut self, f: &Frag) -> Vec<VRegId> {
        let sh = f.shape;
        let regs = if sh.packed { 4 } else { sh.count() / 2 };
        let trans = !sh.packed && (sh.role == CoopRole::B) == f.row_major;
        let size = sh.elem.size();
        let ptr = f.ptr;
        // The lane's byte offset depends only on the lane and the stride: with a constant
        // stride it is computed once, in the entry block (which dominates every use), instead
        // of in every loop iteration.
        let off = match f.stride_k {
            Some(k) => {
                let key = (f.row_major, regs, k, size);
                match self.ldmatrix_offsets.get(&key) {
                    Some(&off) => off,
                    None => {
                        let here = self.cur;
                        self.cur = BlockId(0);
                        let stride = self.def(RegKind::B32, |d| build::mov(PT::U32, d, imm(k)));
                        let off = self.ldmatrix_lane_offset(f.row_major, regs, stride, size);
                        self.cur = here;
                        self.ldmatrix_offsets.insert(key, off);
                        off
                    }
                }
            }
            None => self.ldmatrix_lane_offset(f.row_major, regs, f.stride, size),
        };
        // A 32-bit shared address (the `.shared` window is below 4 GiB): in 32 bits ptxas may
        // distribute the truncation over the index arithmetic (`(x + k) * 2` is `x * 2 + 2k`
        // modulo 2^32), so the constant parts of the tiles' indices become `LDSM [R + imm]`
        // offsets of one base register.
        // With `&tile[x + k]`, the address is `tile + 2x + lane offset` plus the immediate
        // `2k`: the same register for every fragment of the tile at `x`, which ptxas computes
        // once (modulo 2^32 this is exactly the truncated 64-bit address).
        let (addr, imm_off) = match f.split {
            // The variable's address plus the lane offset is loop-invariant and the same for
            // every fragment of the variable: computed once in the entry block, it leaves one
            // `mad` (`x * 2 + base`) per fragment, which ptxas folds into one IMAD/LEA, where
            // adding the variable's address and the lane offset separately costs a second
            // instruction in every loop iteration.
            // Only when `off` itself is an entry-block value (a constant stride): a runtime
            // stride's offset is computed here, after the entry block.
            Some(Split { x, bytes, elem, global: Some((g, at)), .. }) if f.stride_k.is_some() => {
                let base = self.ldmatrix_base(g, off);
                let b = self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, x, imm(elem), base));
                (b, bytes + i64::from(at))
            }
            Some(Split { root, x, bytes, elem, .. }) => {
                let base =
                    self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, root));
                let b = self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, x, imm(elem), base));
                (self.def(RegKind::B32, |d| build::add(PT::U32, d, b, off)), bytes)
            }
            None => {
                let base =
                    self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, ptr));
                (self.def(RegKind::B32, |d| build::add(PT::U32, d, base, off)), 0)
            }
        };
        let d: Vec<VRegId> = (0..regs).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        self.push(build::ldmatrix(trans, &d, Operand::addr(addr, imm_off)));
        if sh.packed {
            return d;
        }
        d.into_iter().flat_map(|w| self.unpack_f16x2(w)).collect()
    }

    /// The 32-bit address of workgroup variable `g` plus the lane offset `off`, computed once
    /// in the entry block (which dominates every use; `off` is computed there too).
    fn ldmatrix_base(&mut self, g: GlobalId, off: VRegId) -> VRegId {
        if let Some(&b) = self.ldmatrix_bases.get(&(g, off)) {
            return b;
        }
        let here = self.cur;
        self.cur = BlockId(0);
        let name = self.shared_symbol(g).unwrap_or_default();
        let p = self.def(RegKind::B64, |d| build::mov(PT::U64, d, Operand::sym(&name)));
        let base = self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, p));
        let b = self.def(RegKind::B32, |d| build::add(PT::U32, d, base, off));
        self.cur = here;
        self.ldmatrix_bases.insert((g, off), b);
        b
    }

    /// The PTX name of workgroup variable `g`.
    fn shared_symbol(&self, g: GlobalId) -> Option<String> {
        self.layout.shared.get(&g).cloned()
    }

    /// The byte offset (32 bits) of the row lane `laneid` addresses for an `ldmatrix` of `regs`
    /// registers with `stride` elements of `size` bytes (2, or 1 for packed bytes) per stored
    /// row. The sub-matrices' column offsets are 16 bytes either way.
    fn ldmatrix_lane_offset(
        &mut self,
        row_major: bool,
        regs: u32,
        stride: VRegId,
        size: u32,
    ) -> VRegId {
        let lane = self.sreg(SpecialReg::Laneid);
        let and = |d, a, k| op_imm(Opcode::And, PT::B32, d, a, k);
        // Lane l gives stored row l & 7 of sub-matrix m = l >> 3 (rows 8*(m&1), columns
        // 8*(m>>1)); the stored rows are matrix rows when row-major, columns otherwise.
        let off = if regs == 4 {
            let (major, minor) = if row_major {
                let r = self.def(RegKind::B32, |d| and(d, lane, 15));
                let h = self.def(RegKind::B32, |d| op_imm(Opcode::Shr, PT::U32, d, lane, 1));
                (r, self.def(RegKind::B32, |d| and(d, h, 8)))
            } else {
                let q = self.def(RegKind::B32, |d| and(d, lane, 7));
                let h = self.def(RegKind::B32, |d| op_imm(Opcode::Shr, PT::U32, d, lane, 1));
                let h = self.def(RegKind::B32, |d| and(d, h, 8));
                let r = self.def(RegKind::B32, |d| build::add(PT::S32, d, h, q));
                (r, self.def(RegKind::B32, |d| and(d, lane, 8)))
            };
            if size == 1 {
                // Bytes: `major * stride + 2 * minor` (minor counts 16-bit units).
                let m2 = self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, minor, 1));
                return self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, major, stride, m2));
            }
            self.def(RegKind::B32, |d| build::mad_lo(PT::S32, d, major, stride, minor))
        } else {
            let q = self.def(RegKind::B32, |d| and(d, lane, 7));
            self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, q, stride))
        };
        if size == 1 {
            return off;
        }
        self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, off, 1))
    }

    /// `ptr` as `&tile[x + k]` of a workgroup array of 2- or 4-byte elements with a constant
    /// `k`: the array's address register, `x`'s register and `k` times the element size (bytes).
    /// Only for 32-bit shared addresses, where `(x + k) * s` and `x * s + s*k` agree modulo 2^32
    /// whatever `x` is.
    fn split_shared(&mut self, ptr: ValueId) -> Option<Split> {
        let Some(Op::Access(base, idx)) = self.known.def(ptr) else { return None };
        let (base, idx) = (*base, *idx);
        let root = self.ptr(base).ok()?;
        if root.space != Space::Shared {
            return None;
        }
        let (stride, _, _) = element_stride(&mut self.types, root.pointee)?;
        if !matches!(stride, 2 | 4) {
            return None;
        }
        let mut x = idx;
        let mut k: u64 = 0;
        // A few nested `+ const` steps, as `vectorize::split_index` (without its no-wrap
        // condition, which 32-bit addresses do not need).
        for _ in 0..4 {
            let Some(Op::Binary(BinaryOperator::Add, a, b)) = self.known.def(x) else { break };
            let (inner, c) = match (self.known.constant(*a), self.known.constant(*b)) {
                (_, Some(c)) => (*a, c),
                (Some(c), None) => (*b, c),
                (None, None) => break,
            };
            x = inner;
            k += u64::from(c);
        }
        let bytes =
            i64::try_from(k.checked_mul(u64::from(stride))?).ok().filter(|&b| b < 1 << 24)?;
        let global = match (root.root, root.static_off) {
            (Some(g), Some(at)) if self.shared_symbol(g).is_some() => Some((g, at)),
            _ => None,
        };
        Some(Split { root: root.addr, x: self.scalar(x).ok()?, bytes, elem: stride, global })
    }

    /// A `packed` fragment's elements as its words (`prmt` of each 4 bytes, element `4w` the
    /// low byte); other fragments unchanged.
    fn pack_frag(&mut self, sh: CoopShape, v: Vec<VRegId>) -> Vec<VRegId> {
        if !sh.packed {
            return v;
        }
        let prmt = |d, a, b, sel: u32| {
            build::ternary(Opcode::Prmt, &[], PT::B32, d, a, b, Operand::Imm(i64::from(sel)))
        };
        v.chunks(4)
            .map(|q| {
                // Bytes 0 and 4 of {a, b}: the low bytes of two elements.
                let lo = self.def(RegKind::B32, |d| prmt(d, q[0], q[1], 0x0040));
                let hi = self.def(RegKind::B32, |d| prmt(d, q[2], q[3], 0x0040));
                self.def(RegKind::B32, |d| prmt(d, lo, hi, 0x5410))
            })
            .collect()
    }

    /// A `packed` fragment's words as its elements (each byte sign- or zero-extended as the
    /// element type says); other fragments unchanged.
    fn unpack_frag(&mut self, sh: CoopShape, v: &[VRegId]) -> Vec<VRegId> {
        if !sh.packed {
            return v.to_vec();
        }
        let ty = if sh.elem == CoopElem::I8 { PT::S32 } else { PT::U32 };
        let mut out = Vec::new();
        for &w in v {
            for j in 0..4 {
                out.push(self.def(RegKind::B32, |d| {
                    build::ternary(Opcode::Bfe, &[], ty, d, w, imm(8 * j), imm(8))
                }));
            }
        }
        out
    }

    /// `mov.b32 {lo, hi}, w`.
    fn unpack_f16x2(&mut self, w: VRegId) -> [VRegId; 2] {
        let h = [self.mf.new_vreg(RegKind::B16), self.mf.new_vreg(RegKind::B16)];
        self.push(build::unpack(PT::B32, &h, w));
        h
    }

    /// `mov.b32 w, {lo, hi}`.
    fn pack_f16x2(&mut self, lo: VRegId, hi: VRegId) -> VRegId {
        self.def(RegKind::B32, |d| build::pack(PT::B32, d, &[lo, hi]))
    }

    /// Runs `fast` when the matrix address and `stride * size` are multiples of `need` bytes,
    /// `slow` otherwise: decided at compile time when proven either way, else by a uniform
    /// run-time test. Returns the values of whichever ran (`kinds` says their registers).
    #[allow(clippy::too_many_arguments)]
    fn when_aligned(
        &mut self,
        p: &Ptr,
        stride: ValueId,
        size: u32,
        need: u32,
        kinds: &[RegKind],
        fast: impl FnOnce(&mut Self) -> Vec<VRegId>,
        slow: impl FnOnce(&mut Self) -> Vec<VRegId>,
    ) -> R<Vec<VRegId>> {
        let ptr_ok = p.align >= need;
        let stride_ok = self.known.pow2(stride).saturating_mul(size) >= need;
        if ptr_ok && stride_ok {
            return Ok(fast(self));
        }
        // Proven misaligned: a constant stride, or a static offset from a root whose
        // alignment is at least `need`.
        let stride_bad =
            self.known.constant(stride).is_some_and(|s| s.wrapping_mul(size) % need != 0);
        let ptr_bad = p.static_off.is_some_and(|o| o % need != 0)
            && p.space == Space::Shared
            && self.types.size_align(self.root_type(p)).1.max(16) >= need;
        if stride_bad || ptr_bad {
            return Ok(slow(self));
        }
        let st = self.scalar(stride)?;
        let mut bits = Vec::new();
        if !ptr_ok {
            let a = p.addr;
            bits.push(self.def(RegKind::B32, |d| build::cvt(None, false, PT::U32, PT::U64, d, a)));
        }
        if !stride_ok {
            bits.push(self.def(RegKind::B32, |d| build::mul_lo(PT::S32, d, st, imm(size))));
        }
        let mut x = bits[0];
        for &b in &bits[1..] {
            let a = x;
            x = self.def(RegKind::B32, |d| build::binary(Opcode::Or, &[], PT::B32, d, a, b));
        }
        let low = self.def(RegKind::B32, |d| op_imm(Opcode::And, PT::B32, d, x, need - 1));
        let lane_ok =
            self.def(RegKind::Pred, |d| build::setp(CmpOp::Eq, PT::U32, d, low, Operand::Imm(0)));
        let ok = self.vote_all(lane_ok);
        self.diverge(ok, kinds, |l| Ok(fast(l)), slow)
    }

    /// Whether `p` holds on every active lane (`vote.sync.all` over the active mask): a
    /// uniform condition for choosing between a fast and a checked path.
    fn vote_all(&mut self, p: VRegId) -> VRegId {
        let mask = self.def(RegKind::B32, build::activemask);
        self.def(RegKind::Pred, |d| build::vote_sync(VoteMode::All, d, p, mask))
    }

    /// `fast` when the (uniform) predicate `ok` holds, `slow` otherwise, each in a block of
    /// its own; returns the values of whichever ran (`kinds` says their registers).
    fn diverge(
        &mut self,
        ok: VRegId,
        kinds: &[RegKind],
        fast: impl FnOnce(&mut Self) -> R<Vec<VRegId>>,
        slow: impl FnOnce(&mut Self) -> Vec<VRegId>,
    ) -> R<Vec<VRegId>> {
        let (fb, sb, merge) = (self.mf.new_block(), self.mf.new_block(), self.mf.new_block());
        let params: Vec<VRegId> = kinds.iter().map(|&k| self.mf.new_vreg(k)).collect();
        if let Some(b) = self.mf.blocks.get_mut(merge.0 as usize) {
            b.params = params.clone();
        }
        self.set_term(Term::Branch {
            cond: ok,
            then_: Target { block: fb, args: vec![] },
            else_: Target { block: sb, args: vec![] },
        });
        self.cur = fb;
        let v = fast(self)?;
        self.jump(merge, v);
        self.cur = sb;
        let v = slow(self);
        self.jump(merge, v);
        self.cur = merge;
        Ok(params)
    }

    /// The type of the variable a pointer is rooted in (the pointee when unknown).
    fn root_type(&self, p: &Ptr) -> TypeId {
        p.root.and_then(|g| self.m.globals.get(g.index())).map_or(p.pointee, |g| g.ty)
    }

    /// 16x16 f16 `a·b + c`: two `mma.m16n8k16`, one per n-tile, with `.f32` or (f16 C)
    /// `.f16` accumulators.
    fn coop_mma16_f16(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        c_f16: bool,
    ) -> Vec<VRegId> {
        let areg: Vec<VRegId> = av.chunks(2).map(|x| self.pack_f16x2(x[0], x[1])).collect();
        let mut out = Vec::new();
        for (tile, c4) in cv.chunks(4).enumerate() {
            let mut uses = areg.clone();
            uses.extend(bv[4 * tile..4 * tile + 4].chunks(2).map(|x| self.pack_f16x2(x[0], x[1])));
            if c_f16 {
                uses.extend(c4.chunks(2).map(|x| self.pack_f16x2(x[0], x[1])));
                let d = vec![self.mf.new_vreg(RegKind::B32), self.mf.new_vreg(RegKind::B32)];
                let (a, b, c) = (&uses[..4], &uses[4..6], &uses[6..8]);
                self.push(build::mma_sync(M16N8K16, F16_F16, &d, a, b, c));
                out.extend(d.into_iter().flat_map(|w| self.unpack_f16x2(w)));
            } else {
                uses.extend(c4);
                let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
                let (a, b, c) = (&uses[..4], &uses[4..6], &uses[6..10]);
                self.push(build::mma_sync(M16N8K16, F32_F16, &d, a, b, c));
                out.extend(d);
            }
        }
        out
    }

    /// 8x8 f16 `a·b + c`: one `mma.m16n8k8` with zero rows 8..15 in A and C.
    fn coop_mma8_f16(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        c_f16: bool,
    ) -> Vec<VRegId> {
        let a = self.pack_f16x2(av[0], av[1]);
        let b = self.pack_f16x2(bv[0], bv[1]);
        let zero = self.imm_u32(0);
        if c_f16 {
            let c = self.pack_f16x2(cv[0], cv[1]);
            let d = vec![self.mf.new_vreg(RegKind::B32), self.mf.new_vreg(RegKind::B32)];
            self.push(build::mma_sync(M16N8K8, F16_F16, &d, &[a, zero], &[b], &[c, zero]));
            return self.unpack_f16x2(d[0]).to_vec();
        }
        let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        let c = [cv[0], cv[1], zero, zero];
        self.push(build::mma_sync(M16N8K8, F32_F16, &d, &[a, zero], &[b], &c));
        d[..2].to_vec()
    }

    /// 8x8 f32 `a·b + c` on TF32 tensor cores: one `mma.m16n8k8.tf32` with zero rows 8..15.
    fn coop_mma8_tf32(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        sc: Scalar,
    ) -> Vec<VRegId> {
        let (at, bt) = self.tf32_operands(av, bv);
        let c: Vec<VRegId> = cv.iter().map(|&x| self.widen_f16(sc, x)).collect();
        let zero = self.imm_u32(0);
        let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
        let (a, b, c) = ([at[0], zero, at[1], zero], [bt[0], bt[1]], [c[0], c[1], zero, zero]);
        self.push(build::mma_sync(M16N8K8, F32_TF32, &d, &a, &b, &c));
        d[..2].iter().map(|&x| self.narrow_f16(sc, x)).collect()
    }
}

impl Lower<'_> {
    /// A and B fragments rounded to TF32 (`cvt.rna.tf32.f32`); marks the entry as using TF32.
    fn tf32_operands(&mut self, av: &[VRegId], bv: &[VRegId]) -> (Vec<VRegId>, Vec<VRegId>) {
        self.used_tf32 = true;
        let cvt = |d, x| build::cvt(Some(Rounding::Rna), false, PT::Tf32, PT::F32, d, x);
        let mut round = |v: &[VRegId]| -> Vec<VRegId> {
            v.iter().map(|&x| self.def(RegKind::B32, |d| cvt(d, x))).collect()
        };
        let at = round(av);
        (at, round(bv))
    }

    /// 16x16 f32 `a·b + c` on TF32 tensor cores: operands rounded with `cvt.rna.tf32.f32`, then
    /// per n-tile two chained `mma.m16n8k8` (k-steps 0 and 1), accumulating in f32.
    fn coop_mma_tf32(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        sc: Scalar,
    ) -> Vec<VRegId> {
        let (at, bt) = self.tf32_operands(av, bv);
        let mut out = Vec::new();
        for (tile, c4) in cv.chunks(4).enumerate() {
            let mut acc: Vec<VRegId> = c4.iter().map(|&x| self.widen_f16(sc, x)).collect();
            for (ks, a4) in at.chunks(4).enumerate() {
                let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
                let b2: Vec<VRegId> = bt.iter().skip(4 * tile + 2 * ks).take(2).copied().collect();
                self.push(build::mma_sync(M16N8K8, F32_TF32, &d, a4, &b2, &acc));
                acc = d;
            }
            for x in acc {
                out.push(self.narrow_f16(sc, x));
            }
        }
        out
    }

    /// Row g of an 8x8 A fragment in every lane of group g (A[g][k] lives in lane
    /// 4g + k/2, element k%2), gathered with `shfl.sync.idx`; and `8t`, the base lane of the
    /// lane's B columns ([`Lower::mma8_b_elem`]).
    fn mma8_a_row(&mut self, av: &[VRegId]) -> (Vec<VRegId>, VRegId) {
        let lane = self.sreg(SpecialReg::Laneid);
        let g = self.def(RegKind::B32, |d| op_imm(Opcode::Shr, PT::U32, d, lane, 2));
        let t = self.def(RegKind::B32, |d| op_imm(Opcode::And, PT::B32, d, lane, 3));
        let g4 = self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, g, 2));
        let t8 = self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, t, 3));
        let mut arow = Vec::new();
        for k in 0..8u32 {
            let src = self.def(RegKind::B32, |d| build::add(PT::S32, d, g4, imm(k >> 1)));
            let a = av[(k & 1) as usize];
            arow.push(self.def(RegKind::B32, |d| shfl_idx(d, a, src)));
        }
        (arow, t8)
    }

    /// B[k][2t + e] of an 8x8 B fragment: it lives in lane 4(2t + e) + k/2, element k%2.
    fn mma8_b_elem(&mut self, bv: &[VRegId], t8: VRegId, e: usize, k: usize) -> VRegId {
        let n = (4 * e + (k >> 1)) as u32;
        let src = self.def(RegKind::B32, |d| build::add(PT::S32, d, t8, imm(n)));
        let b = bv[k & 1];
        self.def(RegKind::B32, |d| shfl_idx(d, b, src))
    }

    /// Exact 8x8 f32 `a·b + c` without tensor cores: lane (g, t) owns D[g][2t + e]; it gathers
    /// row g of A and columns 2t, 2t+1 of B with `shfl.sync.idx` and accumulates like the
    /// reference interpreter: products summed in order from 0 with unfused `mul.rn`/`add.rn`,
    /// then C.
    fn coop_mma8_exact(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        sc: Scalar,
    ) -> Vec<VRegId> {
        let rn = [Rounding::Rn.into()];
        let mul_rn = |d, a, b| build::binary(Opcode::Mul, &rn, PT::F32, d, a, b);
        let add_rn = |d, a, b| build::binary(Opcode::Add, &rn, PT::F32, d, a, b);
        let (arow, t8) = self.mma8_a_row(av);
        let mut out = Vec::new();
        for (e, &ce) in cv.iter().enumerate() {
            let mut acc = self.imm_f32(0.0);
            for (k, &ak) in arow.iter().enumerate() {
                let bk = self.mma8_b_elem(bv, t8, e, k);
                let p = self.def(RegKind::B32, |d| mul_rn(d, ak, bk));
                let sum = acc;
                acc = self.def(RegKind::B32, |d| add_rn(d, sum, p));
            }
            let cw = self.widen_f16(sc, ce);
            let r = self.def(RegKind::B32, |d| add_rn(d, acc, cw));
            out.push(self.narrow_f16(sc, r));
        }
        out
    }
}

impl Lower<'_> {
    /// Exact 8x8 integer `a·b + c`, laid out and gathered as [`Lower::coop_mma8_exact`]:
    /// products and sums modulo 2^32 (`mul.lo`, `add`), then narrowed to a byte result's
    /// width (`docs/subgroup-matrix.md`).
    fn coop_mma8_int(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        sc: CoopElem,
    ) -> Vec<VRegId> {
        let (arow, t8) = self.mma8_a_row(av);
        let mut out = Vec::new();
        for (e, &ce) in cv.iter().enumerate() {
            let mut acc = ce;
            for (k, &ak) in arow.iter().enumerate() {
                let bk = self.mma8_b_elem(bv, t8, e, k);
                let sum = acc;
                acc = self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, ak, bk, sum));
            }
            out.push(self.coop_narrow(sc, acc));
        }
        out
    }

    /// 16x16 integer `a·b + c` of 16x32 by 32x16 byte matrices: two `mma.m16n8k32` (one per
    /// 8-column n-tile) with `.s32` accumulators, which wrap modulo 2^32 as the reference
    /// does; a byte result is narrowed afterwards.
    fn coop_mma_k32(
        &mut self,
        av: &[VRegId],
        bv: &[VRegId],
        cv: &[VRegId],
        ab: CoopElem,
        c: CoopElem,
    ) -> Vec<VRegId> {
        let t = if ab == CoopElem::I8 { PT::S8 } else { PT::U8 };
        let mut out = Vec::new();
        for (tile, c4) in cv.chunks(4).enumerate() {
            let d: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
            let b = &bv[2 * tile..2 * tile + 2];
            self.push(build::mma_sync(M16N8K32, [PT::S32, t, t, PT::S32], &d, av, b, c4));
            out.extend(d.into_iter().map(|x| self.coop_narrow(c, x)));
        }
        out
    }

    /// A 32-bit integer word narrowed to a byte element's width (sign- or zero-extended back
    /// to 32 bits); other elements unchanged.
    fn coop_narrow(&mut self, e: CoopElem, v: VRegId) -> VRegId {
        match e {
            CoopElem::I8 => {
                let hi = self.def(RegKind::B32, |d| op_imm(Opcode::Shl, PT::B32, d, v, 24));
                self.def(RegKind::B32, |d| op_imm(Opcode::Shr, PT::S32, d, hi, 24))
            }
            CoopElem::U8 => self.def(RegKind::B32, |d| op_imm(Opcode::And, PT::B32, d, v, 255)),
            _ => v,
        }
    }

    /// A scalar clamped to a byte element's range (fills and scalar arithmetic).
    fn coop_clamp(&mut self, e: CoopElem, v: VRegId) -> VRegId {
        match e {
            CoopElem::I8 => {
                let lo = self.def(RegKind::B32, |d| {
                    build::binary(Opcode::Max, &[], PT::S32, d, v, Operand::Imm(-128))
                });
                self.def(RegKind::B32, |d| {
                    build::binary(Opcode::Min, &[], PT::S32, d, lo, imm(127))
                })
            }
            CoopElem::U8 => {
                self.def(RegKind::B32, |d| build::binary(Opcode::Min, &[], PT::U32, d, v, imm(255)))
            }
            _ => v,
        }
    }

    /// The fragment access `a` describes, with `split` for a workgroup tile element.
    fn frag(&mut self, a: &CoopAccess<Ptr>, split: Option<Split>) -> R<Frag> {
        // The stride in matrix elements.
        let mut stride = self.scalar(a.stride)?;
        if a.scale > 1 {
            let s = stride;
            stride = self.def(RegKind::B32, |d| build::mul_lo(PT::U32, d, s, imm(a.scale)));
        }
        Ok(Frag {
            ptr: a.ptr.addr,
            space: a.ptr.space,
            stride,
            stride_k: self.known.constant(a.stride).and_then(|k| k.checked_mul(a.scale)),
            split,
            row_major: a.row_major,
            shape: a.shape,
        })
    }
}

impl CoopLowering for Lower<'_> {
    fn coop_load(&mut self, a: CoopAccess<Ptr>) -> R<Vec<VRegId>> {
        let (shape, p) = (a.shape, a.ptr);
        let split = self.split_shared(a.ptr_value);
        let f = self.frag(&a, split)?;
        let kinds = vec![kind_of(shape.scalar()); shape.count() as usize];
        let size = shape.elem.size();
        if let Some(limit) = a.limit {
            let limit = self.scalar(limit)?;
            let unchecked = CoopAccess { limit: None, ..a };
            return self.when_inside(
                &f,
                limit,
                &kinds,
                |l| l.coop_load(unchecked),
                |l| l.coop_load_checked(&f, limit),
            );
        }
        match a.load_form(p.space == Space::Shared) {
            (FragForm::Elements, _) => Ok(self.coop_load_lanes(&f, false)),
            (form, need) => self.when_aligned(
                &p,
                a.stride,
                size * a.scale,
                need,
                &kinds,
                |l| match form {
                    FragForm::Ldmatrix => l.coop_ldmatrix(&f),
                    _ => l.coop_load_lanes(&f, true),
                },
                |l| l.coop_load_lanes(&f, false),
            ),
        }
    }

    fn coop_store(&mut self, a: CoopAccess<Ptr>, v: &[VRegId]) -> R<()> {
        let (shape, p) = (a.shape, a.ptr);
        let f = self.frag(&a, None)?;
        if let Some(limit) = a.limit {
            let limit = self.scalar(limit)?;
            let unchecked = CoopAccess { limit: None, ..a };
            self.when_inside(
                &f,
                limit,
                &[],
                |l| l.coop_store(unchecked, v).map(|()| vec![]),
                |l| {
                    l.coop_store_checked(&f, v, limit);
                    vec![]
                },
            )?;
            return Ok(());
        }
        match a.store_form() {
            (FragForm::Elements, _) => self.coop_store_lanes(&f, v, false),
            (_, need) => {
                self.when_aligned(
                    &p,
                    a.stride,
                    shape.elem.size() * a.scale,
                    need,
                    &[],
                    |l| {
                        l.coop_store_lanes(&f, v, true);
                        vec![]
                    },
                    |l| {
                        l.coop_store_lanes(&f, v, false);
                        vec![]
                    },
                )?;
            }
        }
        Ok(())
    }

    fn coop_mma(&mut self, ops: MmaOperands<VRegId>) -> R<Vec<VRegId>> {
        let (sa, sc, [av, bv, cv]) = (ops.a, ops.c, ops.frags);
        if sa.packed {
            return Ok(self.coop_mma_k32(&av, &bv, &cv, sa.elem, sc.elem));
        }
        if !sc.elem.is_float() {
            return Ok(self.coop_mma8_int(&av, &bv, &cv, sc.elem));
        }
        let c_f16 = sc.scalar() == Scalar::F16;
        Ok(match (sa.n, sa.scalar()) {
            (16, Scalar::F16) => self.coop_mma16_f16(&av, &bv, &cv, c_f16),
            (16, _) => self.coop_mma_tf32(&av, &bv, &cv, sc.scalar()),
            (_, Scalar::F16) => self.coop_mma8_f16(&av, &bv, &cv, c_f16),
            _ if sa.tf32 => self.coop_mma8_tf32(&av, &bv, &cv, sc.scalar()),
            _ => self.coop_mma8_exact(&av, &bv, &cv, sc.scalar()),
        })
    }

    fn coop_fill(&mut self, shape: CoopShape, v: VRegId) -> R<Vec<VRegId>> {
        let w = self.coop_clamp(shape.elem, v);
        let w = if shape.packed {
            // The byte in all four lanes of the word.
            let sel = Operand::Imm(0);
            self.def(RegKind::B32, |d| build::ternary(Opcode::Prmt, &[], PT::B32, d, w, w, sel))
        } else {
            w
        };
        Ok(vec![w; shape.count() as usize])
    }

    fn coop_scalar(
        &mut self,
        shape: CoopShape,
        op: BinaryOperator,
        frag: &[VRegId],
        s: VRegId,
    ) -> R<Vec<VRegId>> {
        let s = self.coop_clamp(shape.elem, s);
        let (opc, ty) = match (op, shape.elem) {
            (BinaryOperator::Add, CoopElem::F16) => (Opcode::Add, PT::F16),
            (BinaryOperator::Subtract, CoopElem::F16) => (Opcode::Sub, PT::F16),
            (_, CoopElem::F16) => (Opcode::Mul, PT::F16),
            (BinaryOperator::Add, CoopElem::F32) => (Opcode::Add, PT::F32),
            (BinaryOperator::Subtract, CoopElem::F32) => (Opcode::Sub, PT::F32),
            (_, CoopElem::F32) => (Opcode::Mul, PT::F32),
            (BinaryOperator::Add, _) => (Opcode::Add, PT::U32),
            (BinaryOperator::Subtract, _) => (Opcode::Sub, PT::U32),
            _ => (Opcode::Mul, PT::U32),
        };
        let kind = kind_of(shape.scalar());
        let mut out = Vec::new();
        for x in self.unpack_frag(shape, frag) {
            let r = if shape.elem.is_float() {
                // Round to nearest, never contracted with a neighbour into an FMA.
                let rn = [Rounding::Rn.into()];
                self.def(kind, |d| build::binary(opc, &rn, ty, d, x, s))
            } else if opc == Opcode::Mul {
                self.def(kind, |d| build::mul_lo(ty, d, x, s))
            } else {
                self.def(kind, |d| build::binary(opc, &[], ty, d, x, s))
            };
            out.push(self.coop_narrow(shape.elem, r));
        }
        Ok(self.pack_frag(shape, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (row, column) of a 16x16 matrix is owned by exactly one (lane, element) pair, for
    /// each role, with the PTX ISA's formulas written out independently here.
    #[test]
    fn fragments_cover_the_matrix_once() {
        for role in [CoopRole::A, CoopRole::B, CoopRole::C] {
            let mut seen = [[0u32; 16]; 16];
            for lane in 0..32u32 {
                let (g, t) = (lane >> 2, lane % 4);
                for i in 0..8 {
                    let sh = Shape {
                        role,
                        elem: CoopElem::F16,
                        n: 16,
                        tf32: false,
                        packed: false,
                        short: false,
                    };
                    let (r, c) = sh.elem_coords(i);
                    let (row, col) =
                        if role == CoopRole::B { (2 * t + r, g + c) } else { (g + r, 2 * t + c) };
                    seen[row as usize][col as usize] += 1;
                    // Independent statement of the ISA tables.
                    let want = match role {
                        CoopRole::A => {
                            let row = if matches!(i, 0 | 1 | 4 | 5) { g } else { g + 8 };
                            let col = if i < 4 { 2 * t + (i & 1) } else { 2 * t + (i & 1) + 8 };
                            (row, col)
                        }
                        CoopRole::B => {
                            let j = i % 4;
                            let k = if j < 2 { 2 * t + (j & 1) } else { 2 * t + (j & 1) + 8 };
                            (k, g + 8 * (i / 4))
                        }
                        CoopRole::C => {
                            let j = i % 4;
                            let row = if j < 2 { g } else { g + 8 };
                            (row, 2 * t + (j & 1) + 8 * (i / 4))
                        }
                    };
                    assert_eq!((row, col), want, "{role:?} lane {lane} element {i}");
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{role:?}");
        }
    }

    /// The TF32 layout: per k-step `ks` and n-tile, the ISA's m16n8k8 `.tf32` table
    /// (A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B: b0 (t, g), b1 (t+4, g)),
    /// and every element owned once.
    #[test]
    fn tf32_fragments_cover_the_matrix_once() {
        for role in [CoopRole::A, CoopRole::B] {
            let mut seen = [[0u32; 16]; 16];
            for lane in 0..32u32 {
                let (g, t) = (lane >> 2, lane % 4);
                for i in 0..8 {
                    let sh = Shape {
                        role,
                        elem: CoopElem::F32,
                        n: 16,
                        tf32: true,
                        packed: false,
                        short: false,
                    };
                    let (r, c) = sh.elem_coords(i);
                    let (row, col) =
                        if role == CoopRole::B { (t + r, g + c) } else { (g + r, t + c) };
                    seen[row as usize][col as usize] += 1;
                    let want = if role == CoopRole::A {
                        let (ks, a) = (i / 4, i % 4);
                        let tab = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)];
                        (tab[a as usize].0, tab[a as usize].1 + 8 * ks)
                    } else {
                        let (tile, ks, b) = (i / 4, (i / 2) % 2, i % 2);
                        let tab = [(t, g), (t + 4, g)];
                        (tab[b as usize].0 + 8 * ks, tab[b as usize].1 + 8 * tile)
                    };
                    assert_eq!((row, col), want, "{role:?} lane {lane} element {i}");
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{role:?}");
        }
    }

    /// 8x8 fragments are the top half of `mma.m16n8k8`: A and C (f16) hold (g, 2t + i), B
    /// holds (2t + i, g); with TF32, A holds (g, t + 4i) and B (t + 4i, g) (the ISA's a0/a2
    /// and b0/b1). Every element is owned once.
    #[test]
    fn eight_by_eight_fragments_cover_the_matrix_once() {
        for tf32 in [false, true] {
            for role in [CoopRole::A, CoopRole::B, CoopRole::C] {
                let tf32 = tf32 && role != CoopRole::C;
                let sh =
                    Shape { role, elem: CoopElem::F32, n: 8, tf32, packed: false, short: false };
                let mut seen = [[0u32; 8]; 8];
                for lane in 0..32u32 {
                    let (g, t) = (lane >> 2, lane % 4);
                    for i in 0..2 {
                        let (r, c) = sh.elem_coords(i);
                        let base = match (role, tf32) {
                            (CoopRole::B, true) => (t, g),
                            (CoopRole::B, false) => (2 * t, g),
                            (_, true) => (g, t),
                            _ => (g, 2 * t),
                        };
                        let (row, col) = (base.0 + r, base.1 + c);
                        let want = match (role, tf32) {
                            (CoopRole::A, true) => [(g, t), (g, t + 4)][i as usize],
                            (CoopRole::B, true) => [(t, g), (t + 4, g)][i as usize],
                            (CoopRole::B, false) => (2 * t + i, g),
                            _ => (g, 2 * t + i),
                        };
                        assert_eq!((row, col), want, "{role:?} tf32={tf32} lane {lane} elem {i}");
                        seen[row as usize][col as usize] += 1;
                    }
                }
                assert!(seen.iter().flatten().all(|&n| n == 1), "{role:?} tf32={tf32}");
            }
        }
    }

    /// Elements 2p and 2p+1 of every f16 layout sit in the 8x8 sub-matrix at rows 8*(p&1),
    /// columns 8*(p>>1), at the position `ldmatrix` delivers: (g, 2t + e) for A and C, the
    /// transposed (2t + e, g) for B.
    #[test]
    fn pairs_are_ldmatrix_sub_matrices() {
        for n in [8u32, 16] {
            for role in [CoopRole::A, CoopRole::B, CoopRole::C] {
                let sh = Shape {
                    role,
                    elem: CoopElem::F16,
                    n,
                    tf32: false,
                    packed: false,
                    short: false,
                };
                for lane in 0..32u32 {
                    let (g, t) = (lane >> 2, lane % 4);
                    for i in 0..sh.count() {
                        let (p, e) = (i / 2, i % 2);
                        let (r, c) = sh.elem_coords(i);
                        let (row, col) = if role == CoopRole::B {
                            (2 * t + r, g + c)
                        } else {
                            (g + r, 2 * t + c)
                        };
                        let (r0, c0) = (8 * (p & 1), 8 * (p >> 1));
                        let want = if role == CoopRole::B {
                            (r0 + 2 * t + e, c0 + g)
                        } else {
                            (r0 + g, c0 + 2 * t + e)
                        };
                        assert_eq!((row, col), want, "{role:?} n={n} lane {lane} elem {i}");
                    }
                }
            }
        }
    }
}
