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
        let sbo = kc / 8 * CORE;
        // The invocation's column of the chunk and first row, and the rows' stride.
        let lid = self.tile_lid();
        let shift = kc.trailing_zeros();
        let k_lane = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, lid, Operand::Imm(i64::from(kc - 1)))
        });
        let m0 = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, lid, Operand::Imm(i64::from(shift)))
        });
        let step = 128 / kc;
        // Staging byte offset of (m0, k_lane): m0 < step <= 8, so rows m0 + j * step split
        // into m0 * 16 plus a constant per j.
        let k_lo = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, k_lane, Operand::Imm(7))
        });
        let k_hi = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, k_lane, Operand::Imm(3))
        });
        let k_off = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shl, &[], PT::B32, d, k_lo, Operand::Imm(1))
        });
        let k_off = self.def(RegKind::B32, |d| {
            build::mad_lo(PT::U32, d, k_hi, Operand::Imm(i64::from(CORE)), k_off)
        });
        let lane_off =
            self.def(RegKind::B32, |d| build::mad_lo(PT::U32, d, m0, Operand::Imm(16), k_off));
        let stage =
            self.def(RegKind::B32, |d| build::mov(PT::U32, d, Operand::Symbol(STAGE.to_string())));
        let my_slot = self.def(RegKind::B32, |d| build::add(PT::U32, d, stage, lane_off));
        // Descriptor of the staging area's start: LBO, SBO and the start address.
        let start = self.def(RegKind::B32, |d| {
            build::binary(Opcode::Shr, &[], PT::U32, d, stage, Operand::Imm(4))
        });
        let start = self.def(RegKind::B32, |d| {
            build::binary(Opcode::And, &[], PT::B32, d, start, Operand::Imm(0x3fff))
        });
        let start = self.def(RegKind::B64, |d| build::cvt(None, false, PT::U64, PT::U32, d, start));
        let fixed = (field(CORE) << 16) | (field(sbo) << 32);
        let desc0 = self.def(RegKind::B64, |d| {
            build::binary(Opcode::Or, &[], PT::B64, d, start, Operand::Imm(fixed as i64))
        });
        // The accumulator in registers of its own: each must be a distinct register, as
        // `wgmma` writes them in place (a fill repeats one).
        let mut c: Vec<VRegId> =
            p.c.iter().map(|&r| self.def(RegKind::B32, |d| build::mov(PT::B32, d, r))).collect();
        for chunk in 0..p.k / kc {
            // The previous chunk's (or product's) reads of the area are complete everywhere.
            self.push(build::bar_sync(0));
            for (j, (arr, o, free, at)) in
                [(a, &p.a, a_free, 0u32), (b, &p.b, b_free, half)].into_iter().enumerate()
            {
                let kk = self.def(RegKind::B32, |d| {
                    build::add(PT::U32, d, k_lane, Operand::Imm(i64::from(chunk * kc)))
                });
                for i in 0..kc / 2 {
                    let rows = i * step;
                    let row = self.def(RegKind::B32, |d| {
                        build::add(PT::U32, d, m0, Operand::Imm(i64::from(rows)))
                    });
                    // A's element (row, kk); B's element (kk, row) of the K x 64 operand.
                    let idx = if j == 0 {
                        self.tile_index((o.off, o.stride), row, kk, o.row_major)
                    } else {
                        self.tile_index((o.off, o.stride), kk, row, o.row_major)
                    };
                    let v = self.tile_stage_load(arr, idx, free);
                    let off = at + (rows % 8) * 16 + (rows / 8) * sbo;
                    self.push(build::st(
                        crate::model::StateSpace::Shared,
                        PT::B16,
                        Operand::addr(my_slot, i64::from(off)),
                        v,
                    ));
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
            self.push(Instruction::new(
                Opcode::Wgmma,
                build::wgmma_f16_mods(REGS),
                vec![Operand::vector(&d), Operand::List(descs), Operand::vector(&c)],
            ));
            c = d;
        }
        Ok(c)
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

    /// `local_invocation_index`, computed once in the entry block.
    fn tile_lid(&mut self) -> VRegId {
        self.in_entry_block(|l| {
            let u = l.types_u32();
            l.builtin_input(dianran_frontend::ir::BuiltIn::LocalInvocationIndex, u, 1)
                .ok()
                .and_then(|v| v.first().copied())
                .unwrap_or_else(|| l.imm_u32(0))
        })
    }
}
