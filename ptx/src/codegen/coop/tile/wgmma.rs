//! Workgroup-matrix products on Hopper's `wgmma` (`--sm 90a`, `docs/hopper.md`).
//!
//! The tile's registers keep the `mma.sync` placement of `super` (warp `w` holds rows
//! `16w .. 16w + 15`, registers `8n .. 8n + 7` the 16 × 16 block of columns `16n ..`), which
//! is exactly the accumulator fragment of `wgmma.mma_async.m64n64k16` with `.f32` results:
//! thread `t` (warp `w`, lane `l`) holds in register `i` row `16w + l/4 + 8((i/2) % 2)`,
//! column `8(i/4) + 2(l % 4) + i % 2`. So loads, stores and fills are the `mma.sync` ones and
//! only the product changes.
//!
//! A product copies its operands, `KC` = min(K, 64) columns of K at a time, into a buffer
//! of the entry's staging area [`STAGE`] in workgroup memory (1024-byte aligned), A
//! (64 × KC) first, then B stored as its 64 × KC transpose, each keeping its array's
//! contiguous dimension ([`Layout`]), swizzled as the matrix descriptor says:
//!
//! * K-major (`imm-trans` 0: a row-major A, a column-major B): rows of `2 KC` bytes, element
//!   (`r`, `k`) at `r * 2KC + 2k`, with the swizzle of `KC / 8` chunks of 16 bytes (the 32-,
//!   64- or 128-byte mode for K = 16, 32, 64); SBO `16 KC` (8 rows); a 16-deep step is 32
//!   bytes on;
//! * MN-major (`imm-trans` 1): 128-byte rows of one k, element (`r`, `k`) at `2r + 128k`,
//!   the 128-byte swizzle; SBO 1024 (8 columns of K); a step is 2048 bytes on;
//!
//! the swizzle exclusive-ors an offset's 16-byte chunk bits (4..) with its bits 7..
//! (`x ^ ((x >> 3) & ((w - 1) << 4))`). Consecutive invocations copy consecutive 16-byte
//! chunks (bank-conflict free), or element by element under the bounds policy, each
//! element's offset swizzled. [`Stage`] holds two buffers when they fit beside the entry's
//! own workgroup memory: chunks alternate between them (the phase word after them says
//! which), so the copies of one overlap the tensor work of the previous
//! (`wgmma.wait_group 1`); with one buffer each chunk waits for every product first. Then
//! `fence.proxy.async.shared::cta` (the copies are generic-proxy writes, `wgmma` reads
//! through the async proxy), `bar.sync 0`, and the product: `wgmma.fence`, one
//! `wgmma.mma_async` per 16-deep step, `wgmma.commit_group`, one instruction until after
//! register allocation, its accumulator in fixed registers (`codegen::regalloc::tied`). The
//! product returns in flight; `codegen::wgmma_waits` puts the `wgmma.wait_group 0` before
//! the first instruction that touches its registers.

use super::{ArrayAt, Product, R, REGS};
use crate::codegen::lower::Lower;
use crate::codegen::regalloc::{RegKind, VRegId};
use crate::lowering_common::{InstLowering, ScalarLowering};
use crate::model::{build, CmpOp, Instruction, Opcode, Operand, Type as PT};
use dianran_frontend::ir::Scalar;

/// The staging area's PTX name: a `.shared` array declared in the entry.
pub(crate) const STAGE: &str = "_dr_wgm_stage";
/// Its alignment: the 128-byte swizzle's period (the swizzle acts on address bits 4..=9).
pub(crate) const STAGE_ALIGN: u32 = 1024;

/// How an operand lies in a staging buffer (see the module documentation): its rows'
/// bytes, the swizzle (16-byte chunks per row: 2, 4 or 8 for the 32-, 64- and 128-byte
/// modes) and the byte offsets of element (`r`, `k`) and of the next 16-deep step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    k_major: bool,
    kc: u32,
}

impl Layout {
    /// Chunks of 16 bytes per swizzled row: a K-major row holds the chunk's `kc` elements of
    /// K, an MN-major row the 64 rows of M (N) at one k.
    fn w(self) -> u32 {
        if self.k_major {
            self.kc / 8
        } else {
            8
        }
    }

    /// The unswizzled byte offset of element (`r`, `k`): `r * 2kc + 2k` (K-major),
    /// `2r + 128k` (MN-major).
    fn at(self, r: u32, k: u32) -> u32 {
        if self.k_major {
            r * 2 * self.kc + 2 * k
        } else {
            2 * r + 128 * k
        }
    }

    /// The descriptor's fixed bits: LBO 16 (unused by these layouts: K-major swizzled rows
    /// hold all of a step's K, and 64 MN-major rows fit one swizzled row), SBO the next 8
    /// rows (K-major) or 8 columns of K (MN-major): 128 w bytes, and the layout type (1 for
    /// the 128-byte swizzle, 2 for 64, 3 for 32).
    fn desc_bits(self) -> u64 {
        let w = self.w();
        let mode: u64 = match w {
            8 => 1,
            4 => 2,
            _ => 3,
        };
        (field(16) << 16) | (field(128 * w) << 32) | (mode << 62)
    }

    /// Bytes from one 16-deep step to the next: two chunks along a K-major row, 16 rows of
    /// K for MN-major.
    fn step_bytes(self) -> u32 {
        if self.k_major {
            32
        } else {
            2048
        }
    }
}

/// How an entry stages its `wgmma` operands: `buffers` buffers of `buf` bytes (A then B of
/// the largest chunk), then, when there are two, the 4-byte phase word that says which one
/// the next chunk fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stage {
    pub buf: u32,
    pub buffers: u32,
}

impl Stage {
    /// The staging of entry `f`'s `f16` products (`None`: it has none), double-buffered when
    /// two buffers fit in `room` bytes of workgroup memory; an error message when not even
    /// one does.
    pub(crate) fn plan(
        m: &dianran_frontend::ir::Module,
        f: &dianran_frontend::ir::Function,
        room: u32,
    ) -> Result<Option<Stage>, u32> {
        let kc = max_chunk(m, &f.body);
        if kc == 0 {
            return Ok(None);
        }
        let buf = 2 * 64 * kc * 2;
        if 2 * buf + 16 <= room {
            Ok(Some(Stage { buf, buffers: 2 }))
        } else if buf <= room {
            Ok(Some(Stage { buf, buffers: 1 }))
        } else {
            Err(buf)
        }
    }

    /// Bytes of the staging area.
    pub(crate) fn bytes(self) -> u32 {
        if self.buffers == 2 {
            2 * self.buf + 16
        } else {
            self.buf
        }
    }
}

/// The largest K chunk (min(K, 64)) of the `f16` products in `b`, 0 when there are none.
fn max_chunk(m: &dianran_frontend::ir::Module, b: &dianran_frontend::ir::Block) -> u32 {
    use dianran_frontend::ir::{Op, TileOp};
    b.insts
        .iter()
        .map(|inst| match &inst.op {
            Op::Inline { callee, body, .. } => match m.tile_helper(*callee) {
                Some(h) if h.op == TileOp::MultiplyAccumulate => {
                    if h.arrays.iter().all(|a| a.elem == Scalar::F16) {
                        h.k.min(64)
                    } else {
                        0
                    }
                }
                Some(_) => 0,
                None => max_chunk(m, body),
            },
            op => op.blocks().into_iter().map(|b| max_chunk(m, b)).max().unwrap_or(0),
        })
        .max()
        .unwrap_or(0)
}

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
        let Some(plan) = self.tile_stage else {
            return Err(self.internal("a wgmma product without a staging plan"));
        };
        let kc = p.k.min(64);
        let half = 64 * kc * 2;
        let lid = self.tile_lid();
        let stage =
            self.def(RegKind::B32, |d| build::mov(PT::U32, d, Operand::Symbol(STAGE.to_string())));
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
        // `wgmma` accumulates in place: each element needs a register of its own (a fill
        // repeats one). A tile from an earlier product is used as it is, in flight: PTX orders
        // the accesses of products of one shape to one accumulator.
        let mut c = p.c.clone();
        for i in 0..c.len() {
            if c[..i].contains(&c[i]) {
                let x = c[i];
                c[i] = self.def(RegKind::B32, |d| build::mov(PT::B32, d, x));
            }
        }
        for chunk in 0..p.k / kc {
            let base = self.tile_stage_begin(plan, stage, lid);
            let mut copies = false;
            for st in &stagings {
                if st.free && self.tile_vector_ok(st) {
                    copies |= self.tile_stage_vectors(st, lid, base, kc, chunk);
                } else {
                    self.tile_stage_elements(st, lid, base, kc, chunk);
                }
            }
            if copies {
                // This thread's copies are complete; the barrier below publishes them.
                self.push(build::cp_async_commit());
                self.push(build::cp_async_wait(0));
            }
            self.push(build::fence_proxy_async());
            self.push(build::bar_sync(0));
            // The descriptors of the operands' starts (the start address is bits 4..=17 of
            // the shared address: below 48 KiB, adding an offset never carries out of it),
            // then one per 16-deep step.
            let start = self.def(RegKind::B32, |d| {
                build::binary(Opcode::Shr, &[], PT::U32, d, base, Operand::Imm(4))
            });
            let start =
                self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, start));
            let first: Vec<VRegId> = stagings
                .iter()
                .map(|st| {
                    // An addition: the operand's offset may carry into the start's bits.
                    let bits = st.layout(kc).desc_bits() + field(st.at);
                    self.def(RegKind::B64, |d| {
                        build::add(PT::S64, d, start, Operand::Imm(bits as i64))
                    })
                })
                .collect();
            let mut descs = Vec::new();
            for s in 0..kc / 16 {
                for (st, &d0) in stagings.iter().zip(&first) {
                    let delta = i64::from(s * st.layout(kc).step_bytes() / 16);
                    descs.push(Operand::Reg(if delta == 0 {
                        d0
                    } else {
                        self.def(RegKind::B64, |d| build::add(PT::S64, d, d0, Operand::Imm(delta)))
                    }));
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
        Ok(c)
    }

    /// The start of a chunk: waits until the buffer the chunk fills is no longer read and
    /// returns its address. With one buffer, every product is complete first
    /// (`wgmma.wait_group 0`). With two, chunks alternate between them as the phase word
    /// says (read by every invocation before the barrier, flipped by invocation 0 after it,
    /// so the next chunk reads the new value after its own barrier): the group committed
    /// last used the other buffer, so `wgmma.wait_group 1` completes the one that read
    /// this buffer. The barrier makes every warp's wait (and its reads of the phase word)
    /// precede every invocation's copies.
    fn tile_stage_begin(&mut self, plan: Stage, stage: VRegId, lid: VRegId) -> VRegId {
        if plan.buffers == 1 {
            self.push(build::wgmma_wait(0));
            self.push(build::bar_sync(0));
            return stage;
        }
        let sp = crate::model::StateSpace::Shared;
        let phase_at = Operand::addr(stage, i64::from(2 * plan.buf));
        let phase = self.def(RegKind::B32, |d| build::ld(sp, PT::U32, d, phase_at.clone()));
        self.push(build::wgmma_wait(1));
        self.push(build::bar_sync(0));
        let first =
            self.def(RegKind::Pred, |d| build::setp(CmpOp::Eq, PT::U32, d, lid, Operand::Imm(0)));
        let next = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Xor, &[], PT::B32, d, phase, Operand::Imm(1))
        });
        self.push(build::st(sp, PT::U32, phase_at, next).guarded(first, false));
        let which = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, phase, Operand::Imm(1))
        });
        let buf = Operand::Imm(i64::from(plan.buf));
        self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, which, buf, stage))
    }

    /// Copies chunk `chunk` of operand `st` into the staging area one element at a time,
    /// reading under the bounds policy unless `st.free`. Invocation `t` takes, for `j` in
    /// `0..kc / 2`, K-major: column `t % kc` of row `t / kc + j * (128 / kc)` (consecutive
    /// invocations read consecutive elements of a row-major A); MN-major: row `t % 64` at
    /// column `t / 64 + 2j` of K (consecutive invocations read consecutive elements of a
    /// row-major B). Either way element `j` lies `256 j` bytes after element 0 before the
    /// swizzle, whose bits repeat every `w / 2` elements: `w / 2` swizzled addresses and
    /// constant offsets.
    fn tile_stage_elements(
        &mut self,
        st: &Staging<'_>,
        lid: VRegId,
        stage: VRegId,
        kc: u32,
        chunk: u32,
    ) {
        let layout = st.layout(kc);
        let (fast, shift) = if st.k_major { (kc, kc.trailing_zeros()) } else { (64, 6) };
        let lane = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, lid, Operand::Imm(i64::from(fast - 1)))
        });
        let slow = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, lid, Operand::Imm(i64::from(shift)))
        });
        // (row, column of K within the chunk) of element 0, and the steps per element.
        let (r0, k0, dr, dk) =
            if st.k_major { (slow, lane, 128 / kc, 0) } else { (lane, slow, 0, 2) };
        let lane_off = self.tile_layout_offset(layout, r0, k0);
        let period = (layout.w() / 2).max(1);
        let slots: Vec<VRegId> = (0..period)
            .map(|m| {
                let pre = self.def(RegKind::B32, |d| {
                    build::add(PT::U32, d, lane_off, Operand::Imm(i64::from(256 * m)))
                });
                let off = self.tile_swizzle(layout, pre);
                self.def(RegKind::B32, |d| build::add(PT::U32, d, stage, off))
            })
            .collect();
        let kk0 = self
            .def(RegKind::B32, |d| build::add(PT::U32, d, k0, Operand::Imm(i64::from(chunk * kc))));
        let o = st.o;
        for j in 0..kc / 2 {
            let add = |l: &mut Self, x: VRegId, c: u32| {
                if c == 0 {
                    x
                } else {
                    l.def(RegKind::B32, |d| build::add(PT::U32, d, x, Operand::Imm(i64::from(c))))
                }
            };
            let row = add(self, r0, j * dr);
            let kk = add(self, kk0, j * dk);
            // A's element (row, kk); B's element (kk, row) of the K x 64 operand.
            let idx = if st.is_a {
                self.tile_index((o.off, o.stride), row, kk, o.row_major)
            } else {
                self.tile_index((o.off, o.stride), kk, row, o.row_major)
            };
            let v = self.tile_stage_load(st.arr, idx, st.free);
            let m = j % period;
            let off = st.at + 256 * (j - m);
            self.push(build::st(
                crate::model::StateSpace::Shared,
                PT::B16,
                Operand::addr(slots[m as usize], i64::from(off)),
                v,
            ));
        }
    }

    /// Whether operand `st`'s 8-element runs along the staging's contiguous dimension are
    /// 16-byte aligned in its array: checked at run time ([`Operand3::rows16`]) or known
    /// for every offset the compiler allows ([`super::rows16_known`]).
    fn tile_vector_ok(&self, st: &Staging<'_>) -> bool {
        st.o.rows16 || super::rows16_known(st.arr, st.o)
    }

    /// Copies chunk `chunk` of operand `st` 16 bytes (8 elements along the staging's
    /// contiguous dimension) at a time, every element known to be inside the array: pieces
    /// `t + 128 j`, `kc / 16` per invocation. Consecutive invocations fill consecutive 16-byte
    /// chunks of a row (before the swizzle, which keeps 8 consecutive chunks in distinct
    /// bank groups): no bank conflicts. From global memory each piece is one
    /// `cp.async.cg.shared.global` (no registers, L1 bypassed; true returned: the caller
    /// waits for them), from workgroup memory an `ld.shared.v4` and an `st.shared.v4`.
    fn tile_stage_vectors(
        &mut self,
        st: &Staging<'_>,
        lid: VRegId,
        stage: VRegId,
        kc: u32,
        chunk: u32,
    ) -> bool {
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
        let layout = st.layout(kc);
        let pre = self.tile_layout_offset(layout, r, k);
        let off = self.tile_swizzle(layout, pre);
        let slot = self.def(RegKind::B32, |d| build::add(PT::U32, d, stage, off));
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
            // 128 pieces on is 2048 bytes on (1024 / kc rows of 2 kc bytes, or 16 columns of
            // K of 128): past the swizzle's bits, so a constant.
            let dst = Operand::addr(slot, i64::from(st.at + layout.at(dr, dk)));
            if sp == crate::model::StateSpace::Global {
                self.push(build::cp_async16(dst, Operand::addr(addr, 0)));
                continue;
            }
            let v: Vec<VRegId> = (0..4).map(|_| self.mf.new_vreg(RegKind::B32)).collect();
            self.push(build::ld_vec(sp, PT::B32, &v, Operand::addr(addr, 0)));
            self.push(build::st_vec(crate::model::StateSpace::Shared, PT::B32, dst, &v));
        }
        sp == crate::model::StateSpace::Global
    }

    /// The unswizzled staging offset of element (`r`, `k`) (registers): [`Layout::at`].
    fn tile_layout_offset(&mut self, layout: Layout, r: VRegId, k: VRegId) -> VRegId {
        let (rs, ks) = if layout.k_major { (2 * layout.kc, 2) } else { (2, 128) };
        let x = self.def(RegKind::B32, |d| {
            build::binary(
                Opcode::Mul,
                &[crate::model::Flag::Lo.into()],
                PT::U32,
                d,
                r,
                Operand::Imm(i64::from(rs)),
            )
        });
        self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, k, Operand::Imm(i64::from(ks)), x))
    }

    /// The swizzle of `layout` on a buffer offset (the buffer is aligned to its period):
    /// the 16-byte chunk bits 4.. exclusive-or bits 7.., `log2 w` of them (CUTLASS's
    /// `Swizzle<log2 w, 4, 3>`): `x ^ ((x >> 3) & ((w - 1) << 4))`.
    fn tile_swizzle(&mut self, layout: Layout, x: VRegId) -> VRegId {
        let mask = i64::from((layout.w() - 1) << 4);
        let y = self
            .def(RegKind::B32, |d| build::binary(Opcode::Shr, &[], PT::U32, d, x, Operand::Imm(3)));
        let y = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, y, Operand::Imm(mask))
        });
        self.def(RegKind::B32, |d| build::binary(Opcode::Xor, &[], PT::B32, d, x, y))
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

impl Staging<'_> {
    /// The operand's layout for chunks of `kc`.
    fn layout(&self, kc: u32) -> Layout {
        Layout { k_major: self.k_major, kc }
    }
}
