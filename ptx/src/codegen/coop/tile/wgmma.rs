//! Workgroup-matrix products on Hopper's `wgmma` (`--sm 90a`, `docs/hopper.md`).
//!
//! The tile's registers keep the `mma.sync` placement of `super` (warp `w` holds rows
//! `16w .. 16w + 15`, registers `8n .. 8n + 7` the 16 × 16 block of columns `16n ..`), which
//! is exactly the accumulator fragment of `wgmma.mma_async.m64n64k16` with `.f32` results:
//! thread `t` (warp `w`, lane `l`) holds in register `i` row `16w + l/4 + 8((i/2) % 2)`,
//! column `8(i/4) + 2(l % 4) + i % 2`. So loads, stores and fills are the `mma.sync` ones and
//! only the product changes.
//!
//! A product copies its operands, `KC` = min(K, 64) columns of K at a time, into the entry's
//! staging area [`STAGE`] in workgroup memory, in the layout a matrix descriptor describes
//! without swizzling ("interleave", K-major): A (64 × KC) first, then B stored as its
//! 64 × KC transpose, each as 8 × 8 "core matrices" of 16-byte rows (128 contiguous bytes);
//! element (row `r`, k) of either lies at byte
//! `(r % 8) * 16 + (r / 8) * SBO + (k % 8) * 2 + (k / 8) * LBO` with `LBO` = 128 (the next
//! core matrix along K) and `SBO` = `KC / 8 * 128` (the next eight rows). Each of the 128
//! invocations copies `KC / 2` elements of each operand (column `k = t % KC` of rows
//! `t / KC + j * (128 / KC)`), under the bounds policy as the `mma.sync` form reads them.
//! Then `fence.proxy.async` (the copies are generic-proxy writes, `wgmma` reads through the
//! async proxy), `bar.sync 0`, `wgmma.fence`, one `wgmma.mma_async` per 16-deep step with
//! descriptors advanced by 256 bytes (two core matrices along K), `wgmma.commit_group` and
//! `wgmma.wait_group 0`. The accumulator is in place: the instructions carry it as tied
//! operands until register allocation (`codegen::regalloc::tied`), so nothing touches it
//! between the product and the wait.

use super::{ArrayAt, Product, R, REGS};
use crate::codegen::lower::Lower;
use crate::codegen::regalloc::Term;
use crate::codegen::regalloc::{RegKind, VRegId};
use crate::lowering_common::{InstLowering, ScalarLowering};
use crate::model::{build, Instruction, Opcode, Operand, Type as PT};
use dianran_frontend::ir::Scalar;

/// The staging area's PTX name: a `.shared` array declared in the entry.
pub(crate) const STAGE: &str = "_dr_wgm_stage";
/// Its alignment (128 bytes: core matrices never straddle it; the 128-byte swizzle, not used
/// yet, would need 1024).
pub(crate) const STAGE_ALIGN: u32 = 128;

/// Core matrix: 8 rows of 16 bytes.
const CORE: u32 = 128;

/// The descriptor bits of a byte offset (`LBO`, `SBO`, start address): bits 4.. of it, 14 of
/// them (PTX ISA, "Matrix Descriptor Format").
fn field(bytes: u32) -> u64 {
    u64::from((bytes >> 4) & 0x3fff)
}

impl Lower<'_> {
    /// `workgroupMatrixMultiplyAccumulate` with `f16` operands on `wgmma` (see the module
    /// documentation); `*_free`: the operand's elements need no bounds check.
    pub(super) fn tile_product_wgmma(
        &mut self,
        a: &ArrayAt,
        b: &ArrayAt,
        p: &Product,
        a_free: bool,
        b_free: bool,
    ) -> R<Vec<VRegId>> {
        if a.elem != Scalar::F16 || b.elem != Scalar::F16 || !p.k.is_multiple_of(16) {
            return Err(self.internal("wgmma products take f16 operands, K a multiple of 16"));
        }
        let kc = p.k.min(64);
        let half = 64 * kc * 2;
        self.tile_stage_bytes = self.tile_stage_bytes.max(2 * half);
        let lid = self.tile_lid();
        let stage =
            self.def(RegKind::B32, |d| build::mov(PT::U32, d, Operand::Symbol(STAGE.to_string())));
        // Descriptor of the staging area's start: LBO, SBO and the start address.
        let start = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, stage, Operand::Imm(4))
        });
        let start = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, start, Operand::Imm(0x3fff))
        });
        let start = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, start));
        let fixed = (field(CORE) << 16) | (field(kc / 8 * CORE) << 32);
        let desc0 = self.def(RegKind::B64, |d| {
            build::binary(Opcode::Or, &[], PT::B64, d, start, Operand::Imm(fixed as i64))
        });
        // A is K-major when row-major, B (stored as its transpose) when column-major: the
        // staging's contiguous dimension is the array's.
        let stagings = [
            Staging { arr: a, o: &p.a, free: a_free, at: 0, is_a: true, k_major: p.a.row_major },
            Staging {
                arr: b,
                o: &p.b,
                free: b_free,
                at: half,
                is_a: false,
                k_major: !p.b.row_major,
            },
        ];
        let mut c = p.c.clone();
        for chunk in 0..p.k / kc {
            // The previous product (this tile's or another's) is complete: its accumulator
            // may be read and the staging area written.
            self.tile_wgmma_wait();
            // `wgmma` writes its accumulator in place: each element in a register of its own
            // (a fill repeats one).
            c = c.iter().map(|&r| self.def(RegKind::B32, |d| build::mov(PT::B32, d, r))).collect();
            // The previous chunk's (or product's) reads of the area are complete everywhere.
            self.push(build::bar_sync(0));
            for st in &stagings {
                if st.free && self.tile_vector_ok(st) {
                    self.tile_stage_vectors(st, lid, stage, kc, chunk);
                } else {
                    self.tile_stage_elements(st, lid, stage, kc, chunk);
                }
            }
            self.push(build::fence_proxy_async());
            self.push(build::bar_sync(0));
            // Per 16-deep step, two core matrices (256 bytes) further along K: 16 in
            // descriptor units.
            let mut descs = Vec::new();
            for s in 0..kc / 16 {
                for at in [0, half >> 4] {
                    let delta = i64::from(16 * s + at);
                    descs.push(Operand::Reg(self.def(RegKind::B64, |d| {
                        build::add(PT::S64, d, desc0, Operand::Imm(delta))
                    })));
                }
            }
            // The whole product as one instruction, the accumulator tied (in place), written
            // out after register allocation (`regalloc::tied`).
            let d: Vec<VRegId> = (0..REGS).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
            let trans = |k_major: bool| Operand::Imm(i64::from(!k_major));
            self.push(Instruction::new(
                Opcode::Wgmma,
                build::wgmma_f16_mods(REGS),
                vec![
                    Operand::vector(&d),
                    Operand::List(descs),
                    Operand::vector(&c),
                    trans(stagings[0].k_major),
                    trans(stagings[1].k_major),
                ],
            ));
            c = d;
        }
        self.tile_pending.push(c.clone());
        Ok(c)
    }

    /// Copies chunk `chunk` of operand `st` into the staging area one element at a time:
    /// invocation `t` takes column `t % kc` of rows `t / kc + j * (128 / kc)`, reading under
    /// the bounds policy unless `st.free`.
    fn tile_stage_elements(
        &mut self,
        st: &Staging<'_>,
        lid: VRegId,
        stage: VRegId,
        kc: u32,
        chunk: u32,
    ) {
        let shift = kc.trailing_zeros();
        let k_lane = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, lid, Operand::Imm(i64::from(kc - 1)))
        });
        let r0 = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, lid, Operand::Imm(i64::from(shift)))
        });
        // r0 < 128 / kc <= 8: rows r0 + j * step are r0 * (row bytes) plus a constant.
        let step = 128 / kc;
        let lane_off = self.tile_layout_offset(st.k_major, kc, r0, k_lane);
        let slot = self.def(RegKind::B32, |d| build::add(PT::U32, d, stage, lane_off));
        let kk = self.def(RegKind::B32, |d| {
            build::add(PT::U32, d, k_lane, Operand::Imm(i64::from(chunk * kc)))
        });
        let o = st.o;
        for j in 0..kc / 2 {
            let rows = j * step;
            let row = self
                .def(RegKind::B32, |d| build::add(PT::U32, d, r0, Operand::Imm(i64::from(rows))));
            // A's element (row, kk); B's element (kk, row) of the K x 64 operand.
            let idx = if st.is_a {
                self.tile_index((o.off, o.stride), row, kk, o.row_major)
            } else {
                self.tile_index((o.off, o.stride), kk, row, o.row_major)
            };
            let v = self.tile_stage_load(st.arr, idx, st.free);
            let off = st.at + layout_const(st.k_major, kc, rows, 0);
            self.push(build::st(
                crate::model::StateSpace::Shared,
                PT::B16,
                Operand::addr(slot, i64::from(off)),
                v,
            ));
        }
    }

    /// Whether operand `st`'s 8-element runs along the staging's contiguous dimension are
    /// 16-byte aligned in its array for every offset the compiler allows: an aligned array,
    /// a constant stride and an offset that keep 8-element steps.
    fn tile_vector_ok(&self, st: &Staging<'_>) -> bool {
        st.arr.align >= 16
            && st.o.stride_k.is_some_and(|s| s.is_multiple_of(8))
            && super::aligned_offset(st.o.known, 2)
    }

    /// Copies chunk `chunk` of operand `st` 16 bytes (8 elements along the staging's
    /// contiguous dimension) at a time, every element known to be inside the array: pieces
    /// `t + 128 j`, `kc / 16` per invocation.
    fn tile_stage_vectors(
        &mut self,
        st: &Staging<'_>,
        lid: VRegId,
        stage: VRegId,
        kc: u32,
        chunk: u32,
    ) {
        // K-major: piece = (row r, 8-column group g) of the 64 x kc operand; MN-major:
        // (column k, 8-row group g).
        let groups = if st.k_major { kc / 8 } else { 8 };
        let g = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, lid, Operand::Imm(i64::from(groups - 1)))
        });
        let first = self.def(RegKind::B32, |d| {
            let sh = i64::from(groups.trailing_zeros());
            build::binary(Opcode::Shr, &[], PT::U32, d, lid, Operand::Imm(sh))
        });
        let g8 = self
            .def(RegKind::B32, |d| build::binary(Opcode::Shl, &[], PT::B32, d, g, Operand::Imm(3)));
        let (r, k) = if st.k_major { (first, g8) } else { (g8, first) };
        let lane_off = self.tile_layout_offset(st.k_major, kc, r, k);
        let slot = self.def(RegKind::B32, |d| build::add(PT::U32, d, stage, lane_off));
        let kk = self
            .def(RegKind::B32, |d| build::add(PT::U32, d, k, Operand::Imm(i64::from(chunk * kc))));
        let per_j = 128 / groups;
        let o = st.o;
        let sp = st.arr.space.state_space();
        for j in 0..kc / 16 {
            let (dr, dk) = if st.k_major { (j * per_j, 0) } else { (0, j * per_j) };
            let rj =
                self.def(RegKind::B32, |d| build::add(PT::U32, d, r, Operand::Imm(i64::from(dr))));
            let kj =
                self.def(RegKind::B32, |d| build::add(PT::U32, d, kk, Operand::Imm(i64::from(dk))));
            let idx = if st.is_a {
                self.tile_index((o.off, o.stride), rj, kj, o.row_major)
            } else {
                self.tile_index((o.off, o.stride), kj, rj, o.row_major)
            };
            let addr = self.tile_addr(st.arr, idx);
            let v: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
            self.push(build::ld_vec(sp, PT::B32, &v, Operand::addr(addr, 0)));
            let off = st.at + layout_const(st.k_major, kc, dr, dk);
            self.push(build::st_vec(
                crate::model::StateSpace::Shared,
                PT::B32,
                Operand::addr(slot, i64::from(off)),
                &v,
            ));
        }
    }

    /// The staging byte offset of element (`r`, `k`) (registers; `r % 8` and `k % 8` as
    /// they come) in the layout: K-major `(r % 8) * 16 + (r / 8) * SBO + (k % 8) * 2 +
    /// (k / 8) * LBO`, MN-major with the roles of 16 and 2 swapped.
    fn tile_layout_offset(&mut self, k_major: bool, kc: u32, r: VRegId, k: VRegId) -> VRegId {
        let (rs, ks) = if k_major { (16, 2) } else { (2, 16) };
        let sbo = i64::from(kc / 8 * CORE);
        let and7 = |l: &mut Self, x: VRegId| {
            l.def(RegKind::B32, |d| build::binary(Opcode::And, &[], PT::B32, d, x, Operand::Imm(7)))
        };
        let shr3 = |l: &mut Self, x: VRegId| {
            l.def(RegKind::B32, |d| build::binary(Opcode::Shr, &[], PT::U32, d, x, Operand::Imm(3)))
        };
        let (r_lo, r_hi, k_lo, k_hi) = (and7(self, r), shr3(self, r), and7(self, k), shr3(self, k));
        let x = self.def(RegKind::B32, |d| {
            build::binary(
                Opcode::Mul,
                &[crate::model::Flag::Lo.into()],
                PT::U32,
                d,
                r_lo,
                Operand::Imm(rs),
            )
        });
        let x = self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, r_hi, Operand::Imm(sbo), x));
        let x = self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, k_lo, Operand::Imm(ks), x));
        self.def(RegKind::B32, |d| {
            build::mad_lo(PT::U32, d, k_hi, Operand::Imm(i64::from(CORE)), x)
        })
    }

    /// Waits until every `wgmma` product has completed: `wgmma.wait_group 0`. A product
    /// returns with its group in flight, so that the kernel's code up to the next reader
    /// overlaps the tensor work; whatever reads a tile, or writes the staging area, waits
    /// first, and so does a block that passes a tile in flight to another (`set_term`). The
    /// wait names no register: the allocator's moves for the reader (or the edge) come after
    /// it, where a tied operand would have put them before.
    pub(in crate::codegen) fn tile_wgmma_wait(&mut self) {
        self.tile_pending.clear();
        self.push(build::wgmma_wait(0));
    }

    /// Terminator `t` of the current block, after a wait when it passes a tile in flight to
    /// another block (whose parameters the allocator may fill with moves) or leaves the
    /// kernel.
    pub(in crate::codegen) fn tile_wait_at_edge(&mut self, t: Term) -> Term {
        let passes = self
            .tile_pending
            .iter()
            .any(|tile| t.targets().iter().any(|x| x.args.iter().any(|a| tile.contains(a))));
        if passes || matches!(t, Term::Ret) {
            self.tile_wgmma_wait();
        }
        t
    }

    /// The `f16` bits of element `idx` of `arr` (a `.b16` register); unless `free`, zero
    /// past the array's end, as the `mma.sync` form reads it.
    fn tile_stage_load(&mut self, arr: &ArrayAt, idx: VRegId, free: bool) -> VRegId {
        let sp = arr.space.state_space();
        let load = |l: &mut Self| {
            let addr = l.tile_addr(arr, idx);
            l.def(RegKind::B16, |d| build::ld(sp, PT::B16, d, Operand::addr(addr, 0)))
        };
        match (free, self.tile_inside(arr, idx)) {
            (false, Some(p)) => {
                let zero = self.def(RegKind::B16, |d| build::mov(PT::B16, d, Operand::Imm(0)));
                self.if_then(p, RegKind::B16, zero, load)
            }
            _ => load(self),
        }
    }

    /// `local_invocation_index`, read in the entry block.
    pub(super) fn tile_lid(&mut self) -> VRegId {
        self.in_entry_block(|l| {
            let u = l.types_u32();
            l.builtin_input(dianran_frontend::ir::BuiltIn::LocalInvocationIndex, u, 1)
                .ok()
                .and_then(|v| v.first().copied())
                .unwrap_or_else(|| l.imm_u32(0))
        })
    }
}

/// One operand's copy into the staging area.
struct Staging<'a> {
    arr: &'a ArrayAt,
    o: &'a super::Operand3,
    /// Every element is inside the array (no check).
    free: bool,
    /// The operand's byte offset in the staging area.
    at: u32,
    is_a: bool,
    /// K-major (`imm-trans` 0) rather than MN-major.
    k_major: bool,
}

/// The part of a staging offset that a constant row step `dr` and column step `dk` add, when
/// `dr` keeps `r % 8` (a multiple of 8, or a step within the first 8 rows that the caller's
/// rows never cross) and `dk` keeps `k % 8` likewise: `(dr % 8) * row bytes + (dr / 8) * SBO
/// + (dk % 8) * column bytes + (dk / 8) * LBO`.
fn layout_const(k_major: bool, kc: u32, dr: u32, dk: u32) -> u32 {
    let (rs, ks) = if k_major { (16, 2) } else { (2, 16) };
    (dr % 8) * rs + (dr / 8) * (kc / 8 * CORE) + (dk % 8) * ks + (dk / 8) * CORE
}
