//! Hopper's warpgroup products: `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group` (PTX ISA 8.0, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
//! Instructions"; `docs/hopper.md` lists what is modelled and the sources).
//!
//! * `wgmma.mma_async` is warpgroup-collective: the scheduler runs it once the four warps of
//!   a warpgroup (128 consecutive threads, the CTA's threads `128g ..`) all wait at it, which
//!   `.sync.aligned` requires; every thread must pass the same descriptors.
//! * Operands come from shared memory through 64-bit matrix descriptors: bits 0-13 the start
//!   address, 16-29 the leading-dimension byte offset (LBO), 32-45 the stride-dimension byte
//!   offset (SBO), all in 16-byte units; bits 62-63 the swizzle mode (0 none, 1 128-byte,
//!   2 64-byte, 3 32-byte). Without swizzling ("interleave") element (row `r`, k) of a
//!   64 × 16 (A) or N × 16 (B, as its transpose) operand of 16-bit elements is at
//!   `start + (r % 8) * 16 + (r / 8) * SBO + (k % 8) * 2 + (k / 8) * LBO` when K-major
//!   (`imm-trans` 0), `start + (r % 8) * 2 + (r / 8) * SBO + (k % 8) * 16 + (k / 8) * LBO`
//!   when MN-major (`imm-trans` 1: 8 consecutive rows contiguous). With a swizzle of `w`
//!   16-byte chunks per row, a K-major row is `16w` contiguous bytes (element at
//!   `(r % 8) * 16w + (r / 8) * SBO + 2k`), an MN-major one `w` groups of 8 rows, and the
//!   address's chunk bits 4.. exclusive-or its bits 7.. (`Desc`). A matrix base offset
//!   other than 0 is an `Unsupported` error, never a guess.
//! * The accumulator fragment (`.f32`, N/2 registers): thread `t` of the warpgroup (warp
//!   `w = t / 32`, lane `l`) holds in register `i` row `16w + l/4 + 8((i/2) % 2)`, column
//!   `8(i/4) + 2(l % 4) + i % 2`. Products of `f16` are exact; each element's sum (with the
//!   accumulator when `scale-d` is 1) is computed exactly and rounded once to `f32`, as the
//!   `mma.sync` model does (the hardware's order is unspecified).
//! * Asynchrony: the results are written at once, but the accumulator registers are
//!   *pending* until a `wgmma.wait_group` completes their group: `wgmma.commit_group` closes
//!   the thread's uncommitted products into a group, `wgmma.wait_group N` completes all but
//!   the `N` most recent groups. Any other instruction that reads or writes a pending
//!   register is an error naming it (PTX leaves that undefined); a later `wgmma.mma_async`
//!   may accumulate into it (PTX orders accesses to one accumulator by products of the same
//!   shape), and the register then stays pending until that product's group completes.
//! * The operands are read at once too, but the hardware reads them while the product is in
//!   flight: a store to a byte of shared memory that a product reads is an error until every
//!   thread of its warpgroup has completed the product's group (`wgmma.wait_group`), so a
//!   kernel must wait, and make the other warps' waits visible with a barrier, before it
//!   overwrites an operand.

use super::decode::{DInst, Opd};
use super::exec::Cta;
use super::inflight::{Bytes, Groups};
use super::num::Fmt;
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{Flag, Rounding, StateSpace, Type};
use std::collections::HashMap;

/// Products of one thread: the register slots they write and the products' serial numbers.
#[derive(Clone, Debug, Default)]
struct Group {
    slots: Vec<u32>,
    products: Vec<u64>,
}

/// The shared-memory bytes one warpgroup product reads, until all its threads have waited.
#[derive(Clone, Debug, Default)]
struct Reads {
    bytes: Vec<u64>,
    /// Threads of the warpgroup that have not completed the product's group yet.
    waiting: usize,
}

/// The asynchronous state of a CTA's threads: per thread its groups, and per register
/// whether it is pending.
#[derive(Clone, Debug, Default)]
pub(crate) struct Async {
    /// Each thread's products in flight.
    threads: Vec<Groups<Group>>,
    /// `thread * nslots + slot`: the register belongs to a product not yet waited for.
    pending: Vec<bool>,
    /// Whether any register is pending (the register accessors test this first).
    pub any: bool,
    /// Products whose operands some thread of the warpgroup has not waited for, by serial
    /// number.
    reads: HashMap<u64, Reads>,
    /// Shared-memory bytes those products read, with how many of them read each.
    read_bytes: Bytes,
    next_product: u64,
}

impl Async {
    /// No product in flight, for `n` threads of `nslots` registers.
    pub(crate) fn reset(&mut self, n: usize, nslots: usize) {
        self.threads.clear();
        self.threads.resize(n, Groups::default());
        self.pending.clear();
        self.pending.resize(n * nslots, false);
        self.any = false;
        self.reads.clear();
        self.read_bytes.clear();
        self.next_product = 0;
    }

    /// Whether a store of `size` bytes at shared address `a` overwrites an operand of a
    /// product in flight: the first such byte.
    pub(crate) fn overwrites(&self, a: u64, size: usize) -> Option<u64> {
        self.read_bytes.first_in(a, size)
    }

    /// Thread `t` has completed the products of `g`: registers no newer product writes stop
    /// being pending, and a product all its threads have waited for releases its operands.
    fn complete(&mut self, t: usize, nslots: usize, g: Group) {
        for slot in g.slots {
            let newer =
                self.threads.get(t).is_some_and(|th| th.all().any(|x| x.slots.contains(&slot)));
            if !newer {
                if let Some(p) = self.pending.get_mut(t * nslots + slot as usize) {
                    *p = false;
                }
            }
        }
        for id in g.products {
            let done = self.reads.get_mut(&id).is_some_and(|r| {
                r.waiting = r.waiting.saturating_sub(1);
                r.waiting == 0
            });
            if done {
                self.read_bytes.remove(self.reads.remove(&id).map(|r| r.bytes).unwrap_or_default());
            }
        }
    }

    /// Whether register `idx` (`thread * nslots + slot`) is pending.
    pub(crate) fn is_pending(&self, idx: usize) -> bool {
        self.any && self.pending.get(idx).copied().unwrap_or(false)
    }
}

/// A matrix descriptor's fields, in bytes, and its swizzle as the number of 16-byte chunks
/// in a swizzled row (`w`: 1 without swizzling, 2, 4, 8 for the 32-, 64- and 128-byte
/// modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Desc {
    start: u64,
    lbo: u64,
    sbo: u64,
    w: u64,
}

/// The fields of descriptor `bits` (PTX ISA "Matrix Descriptor Format"; CUTLASS's
/// `GmmaDescriptor`): start address bits 0-13, LBO 16-29, SBO 32-45 (bytes / 16), the
/// matrix base offset 49-51, the layout type 62-63 (0 interleave, 1 128-byte swizzle, 2
/// 64-byte, 3 32-byte). A base offset other than 0 is refused (the pattern would not start
/// at the operand's aligned address).
fn fields(bits: u64) -> Result<Desc, String> {
    let field = |at: u32| ((bits >> at) & 0x3fff) << 4;
    if (bits >> 49) & 7 != 0 {
        return Err(format!("matrix base offset {} is not modelled (only 0)", (bits >> 49) & 7));
    }
    let w = match bits >> 62 {
        0 => 1,
        1 => 8,
        2 => 4,
        _ => 2,
    };
    Ok(Desc { start: field(0), lbo: field(16), sbo: field(32), w })
}

fn decode(bits: u64, i: &DInst) -> Result<Desc, EmuError> {
    fields(bits).map_err(|why| {
        i.err(EmuErrorKind::Unsupported, format!("wgmma descriptor {bits:#018x}: {why}"))
    })
}

impl Desc {
    /// The shared-memory byte address of 16-bit element (`r`, `k`) of a K-major operand:
    /// the canonical layouts `((8,m),(T,2)):((1T,SBO),(1,LBO))` without swizzling and
    /// `((8,m),(T,2)):((wT,SBO),(1,T))` with (T = 8 elements, 16 bytes), then the swizzle.
    fn at(self, r: u64, k: u64) -> u64 {
        let along_k = if self.w == 1 { (k % 8) * 2 + (k / 8) * self.lbo } else { k * 2 };
        self.swizzle(self.start + (r % 8) * 16 * self.w + (r / 8) * self.sbo + along_k)
    }

    /// The same for an MN-major operand (`imm-trans` 1): `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))`
    /// without swizzling, `((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))` with.
    fn at_mn(self, r: u64, k: u64) -> u64 {
        let x = if self.w == 1 {
            (r % 8) * 2 + (r / 8) * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo
        } else {
            let w = self.w;
            (r % 8) * 2
                + ((r / 8) % w) * 16
                + (r / (8 * w)) * self.lbo
                + (k % 8) * 16 * w
                + (k / 8) * self.sbo
        };
        self.swizzle(self.start + x)
    }

    /// CUTLASS's `Swizzle<log2 w, 4, 3>` on the byte address: the 16-byte chunk bits (4..)
    /// exclusive-or the bits 7.. of the 128-byte row, `log2 w` of them.
    fn swizzle(self, a: u64) -> u64 {
        a ^ ((a >> 3) & ((self.w - 1) << 4))
    }

    /// Element (`r`, `k`) of an operand, MN-major when `trans`.
    fn elem(self, trans: bool, r: u64, k: u64) -> u64 {
        if trans {
            self.at_mn(r, k)
        } else {
            self.at(r, k)
        }
    }
}

/// An immediate operand.
fn imm(i: &DInst, k: usize) -> Result<i64, EmuError> {
    match i.opd(k)? {
        Opd::Imm(v) => Ok(*v),
        _ => {
            Err(i.err(EmuErrorKind::Unsupported, format!("wgmma operand {k} must be an immediate")))
        }
    }
}

/// `wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16` for the warpgroup starting at thread
/// `lo` (all 128 wait at it).
pub(crate) fn mma_async(cta: &mut Cta, i: &DInst, lo: usize) -> Result<(), EmuError> {
    let (m, n, k) = (usize::from(i.shape.0), usize::from(i.shape.1), usize::from(i.shape.2));
    if (m, k) != (64, 16)
        || n == 0
        || n % 8 != 0
        || i.tys.as_slice() != [Type::F32, Type::F16, Type::F16]
    {
        return Err(i.err(
            EmuErrorKind::Unsupported,
            "only wgmma.mma_async.m64nNk16.f32.f16.f16 is modelled",
        ));
    }
    let dregs: Vec<u32> = match i.opd(0)? {
        Opd::Vector(v) if v.len() == n / 2 => v
            .iter()
            .map(|o| match o {
                Opd::Reg(s) => Ok(*s),
                _ => Err(i.err(EmuErrorKind::Unsupported, "accumulators must be registers")),
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(i.err(
                EmuErrorKind::Unsupported,
                format!("the accumulator must be a brace list of {} registers", n / 2),
            ))
        }
    };
    let (scale_a, scale_b) = (imm(i, 4)?, imm(i, 5)?);
    if ![scale_a, scale_b].iter().all(|s| *s == 1 || *s == -1) {
        return Err(i.err(EmuErrorKind::Unsupported, "imm-scale-a/b must be 1 or -1"));
    }
    let (trans_a, trans_b) = (imm(i, 6)?, imm(i, 7)?);
    if ![trans_a, trans_b].iter().all(|t| *t == 0 || *t == 1) {
        return Err(i.err(EmuErrorKind::Unsupported, "imm-trans-a/b must be 0 or 1"));
    }
    let (trans_a, trans_b) = (trans_a == 1, trans_b == 1);
    // The descriptors and scale-d must be the same on every thread.
    let mut first = None;
    for t in lo..lo + 128 {
        let da = cta.src(t, i, 1, Type::B64)?;
        let db = cta.src(t, i, 2, Type::B64)?;
        let sd = match i.opd(3)? {
            Opd::Imm(v) => *v != 0,
            o => cta.pred(t, o, i)?,
        };
        match first {
            None => first = Some((da, db, sd)),
            Some(f) if f != (da, db, sd) => {
                return Err(i.err(
                    EmuErrorKind::MemberMask,
                    format!(
                    "threads of the warpgroup at thread {lo} pass different descriptors or scale-d"
                ),
                ))
            }
            _ => {}
        }
    }
    let (da, db, scale_d) = first.unwrap_or_default();
    let (da, db) = (decode(da, i)?, decode(db, i)?);
    let mut bytes = Vec::with_capacity(2 * 16 * (64 + n));
    let mut half = |cta: &mut Cta, addr: u64| -> Result<f64, EmuError> {
        let bits = cta.load(lo, StateSpace::Shared, addr, 2, i)?;
        bytes.extend([addr, addr + 1]);
        Ok(Fmt::F16.get(bits))
    };
    let mut a = vec![[0f64; 16]; 64];
    for (r, row) in a.iter_mut().enumerate() {
        for (kk, x) in row.iter_mut().enumerate() {
            *x = scale_a as f64 * half(cta, da.elem(trans_a, r as u64, kk as u64))?;
        }
    }
    let mut b = vec![[0f64; 16]; n];
    for (c, col) in b.iter_mut().enumerate() {
        for (kk, x) in col.iter_mut().enumerate() {
            *x = scale_b as f64 * half(cta, db.elem(trans_b, c as u64, kk as u64))?;
        }
    }
    let id = cta.wg.next_product;
    cta.wg.next_product += 1;
    cta.wg.read_bytes.add(bytes.iter().copied());
    cta.wg.reads.insert(id, Reads { bytes, waiting: 128 });
    let nslots = cta.prog.nslots;
    for t in lo..lo + 128 {
        if let Some(th) = cta.wg.threads.get_mut(t) {
            th.uncommitted.products.push(id);
        }
        let (w, l) = ((t - lo) / 32, (t - lo) % 32);
        for (ri, &slot) in dregs.iter().enumerate() {
            let row = 16 * w + l / 4 + 8 * ((ri / 2) % 2);
            let col = 8 * (ri / 4) + 2 * (l % 4) + ri % 2;
            let mut acc = if scale_d { Fmt::F32.get(cta.rd_raw(t, slot, i)?) } else { 0.0 };
            for kk in 0..16 {
                acc += a[row][kk] * b[col][kk];
            }
            // `wr`, unlike `dst`, writes an accumulator in flight.
            cta.wr(t, slot, Fmt::F32.round(acc, Rounding::Rn));
            let idx = t * nslots + slot as usize;
            if let Some(p) = cta.wg.pending.get_mut(idx) {
                *p = true;
            }
            if let Some(th) = cta.wg.threads.get_mut(t) {
                th.uncommitted.slots.push(slot);
            }
        }
    }
    cta.wg.any = true;
    Ok(())
}

/// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group N` on thread `t`.
pub(crate) fn lane(cta: &mut Cta, t: usize, i: &DInst) -> Result<(), EmuError> {
    let nslots = cta.prog.nslots;
    if i.has(Flag::CommitGroup) {
        if let Some(th) = cta.wg.threads.get_mut(t) {
            th.commit();
        }
        Ok(())
    } else if i.has(Flag::WaitGroup) {
        let keep = usize::try_from(imm(i, 0)?).unwrap_or(0);
        while let Some(g) = cta.wg.threads.get_mut(t).and_then(|th| th.pop_older(keep)) {
            cta.wg.complete(t, nslots, g);
        }
        Ok(())
    } else if i.has(Flag::WgFence) {
        Ok(())
    } else {
        Err(i.unsupported())
    }
}

/// The error for a store to shared byte `b`, an operand of a product in flight.
pub(crate) fn overwrite_error(cta: &Cta, t: usize, b: u64, i: &DInst) -> EmuError {
    i.err(
        EmuErrorKind::Race,
        format!(
            "writes shared byte {b:#x}, an operand of a wgmma.mma_async that not every thread of its warpgroup has waited for (thread {:?} of CTA {:?})",
            cta.tid.get(t).copied().unwrap_or_default(),
            cta.ctaid
        ),
    )
}

/// The error for an access to a pending accumulator register.
pub(crate) fn pending_error(cta: &Cta, t: usize, slot: u32, i: &DInst, write: bool) -> EmuError {
    i.err(
        EmuErrorKind::UndefinedRegister,
        format!(
            "{} register {}, an accumulator of a wgmma.mma_async that no wgmma.wait_group has completed (thread {:?} of CTA {:?})",
            if write { "writes" } else { "reads" },
            cta.prog.slot_name(slot),
            cta.tid.get(t).copied().unwrap_or_default(),
            cta.ctaid
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::super::{run, EmuOptions};
    use half::f16;

    /// Byte offset of element (`r`, `k`) of a K-major f16 operand in the canonical no-swizzle
    /// layout as CUTLASS writes it (`cute/atom/mma_traits_sm90_gmma.hpp`, `make_gmma_desc`):
    /// `((8, m), (T, 2k)) : ((1T, SBO), (1, LBO))` in elements, T = 8 elements per 16 bytes.
    /// An evaluation of that hierarchical layout, not the emulator's formula.
    fn cute_k_major(r: u64, k: u64, lbo: u64, sbo: u64) -> u64 {
        let t = 8;
        let (r0, r1) = (r % 8, r / 8);
        let (k0, k1) = (k % t, k / t);
        let elems = r0 * t + r1 * (sbo / 2) + k0 + k1 * (lbo / 2);
        elems * 2
    }

    /// The same for an MN-major operand: `((T, 1, m), (8, k)) : ((1, T, SBO), (1T, LBO))`.
    fn cute_mn_major(r: u64, k: u64, lbo: u64, sbo: u64) -> u64 {
        let t = 8;
        let (r0, r1) = (r % t, r / t);
        let (k0, k1) = (k % 8, k / 8);
        let elems = r0 + r1 * (sbo / 2) + k0 * t + k1 * (lbo / 2);
        elems * 2
    }

    /// CUTLASS's `Swizzle<log2 w, 4, 3>` on a byte offset (`cute/swizzle.hpp`: the bits
    /// selected by the mask `(w - 1) << 7` move down by 3 and exclusive-or into bits 4..).
    fn cute_swizzle(x: u64, w: u64) -> u64 {
        x ^ ((x & ((w - 1) << 7)) >> 3)
    }

    /// A K-major operand swizzled with `w` chunks per row, before the swizzle:
    /// `((8, m), (T, 2)) : ((wT, SBO), (1, T))`.
    fn cute_k_major_sw(r: u64, k: u64, w: u64, sbo: u64) -> u64 {
        let t = 8;
        let elems = (r % 8) * w * t + (r / 8) * (sbo / 2) + (k % t) + (k / t) * t;
        elems * 2
    }

    /// An MN-major operand swizzled with `w` chunks per row, before the swizzle:
    /// `((T, w, m), (8, k)) : ((1, T, LBO), (wT, SBO))`.
    fn cute_mn_major_sw(r: u64, k: u64, w: u64, lbo: u64, sbo: u64) -> u64 {
        let t = 8;
        let elems = (r % t)
            + ((r / t) % w) * t
            + (r / (t * w)) * (lbo / 2)
            + (k % 8) * w * t
            + (k / 8) * (sbo / 2);
        elems * 2
    }

    /// (row, column) of accumulator register `v` of thread `t` (0..128) of an m64nN `.f32`
    /// product, from CUTLASS's `CLayout_64xN = ((4, 8, 4), (2, 2, N/8)) : ((128, 1, 16), (64,
    /// 8, 512))` (`cute/atom/mma_traits_sm90_gmma.hpp`), a column-major 64 × N index.
    fn cutlass_c(t: usize, v: usize) -> (usize, usize) {
        let (t0, t1, t2) = (t % 4, (t / 4) % 8, t / 32);
        let (v0, v1, v2) = (v % 2, (v / 2) % 2, v / 4);
        let idx = t0 * 128 + t1 + t2 * 16 + v0 * 64 + v1 * 8 + v2 * 512;
        (idx % 64, idx / 64)
    }

    #[test]
    fn descriptor_addresses_are_the_canonical_layout() {
        for (lbo, sbo) in [(128, 256), (1024, 128), (256, 512)] {
            let bits = (128 >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32);
            let d = super::Desc { start: 128, lbo, sbo, w: 1 };
            assert_eq!(super::fields(bits), Ok(d));
            assert!(super::fields(bits | 1 << 49).is_err(), "a base offset is refused");
            for (mode, w) in [(1u64, 8u64), (2, 4), (3, 2)] {
                let d = super::fields(bits | mode << 62).expect("swizzled");
                assert_eq!(d.w, w);
                for r in 0..64 {
                    for k in 0..16 {
                        // The start (128) is inside the swizzle period: the pattern is the
                        // absolute address's.
                        let k_major = cute_swizzle(128 + cute_k_major_sw(r, k, w, sbo), w);
                        assert_eq!(d.at(r, k), k_major, "{mode} ({r}, {k})");
                        let mn = cute_swizzle(128 + cute_mn_major_sw(r, k, w, lbo, sbo), w);
                        assert_eq!(d.at_mn(r, k), mn, "{mode} ({r}, {k})");
                    }
                }
            }
            for r in 0..64 {
                for k in 0..16 {
                    assert_eq!(d.at(r, k), 128 + cute_k_major(r, k, lbo, sbo), "({r}, {k})");
                    assert_eq!(d.at_mn(r, k), 128 + cute_mn_major(r, k, lbo, sbo), "({r}, {k})");
                }
            }
        }
    }

    /// Bytes of the shared-memory image the test kernels copy: A in the first half, B in
    /// the second.
    const IMAGE: usize = 16384;

    /// The kernel: 128 threads copy an image of A (bytes 0..IMAGE / 2) and B (the rest) into
    /// shared memory (1024-byte aligned: the 128-byte swizzle's period), run one `m64n64k16` product from zero, run `between` (PTX lines)
    /// before `wgmma.wait_group 0`, and store every thread's 32 registers in (thread,
    /// register) order.
    fn kernel(desc_a: u64, desc_b: u64, between: &str) -> String {
        kernel_t(desc_a, desc_b, between, (0, 0))
    }

    /// A second product accumulating into the first's registers, in a group of its own.
    fn chained(ta: u32, tb: u32) -> String {
        let regs: Vec<String> = (0..32).map(|i| format!("%f{i}")).collect();
        format!(
            "\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{}}}, %rd21, %rd22, 1, 1, 1, {ta}, {tb};\n\twgmma.commit_group.sync.aligned;\n",
            regs.join(", ")
        )
    }

    /// [`kernel`] with `imm-trans-a`, `imm-trans-b`.
    fn kernel_t(desc_a: u64, desc_b: u64, between: &str, (ta, tb): (u32, u32)) -> String {
        let regs: Vec<String> = (0..32).map(|i| format!("%f{i}")).collect();
        let mut body = String::new();
        for at in (0..IMAGE / 128).step_by(8) {
            body += &format!(
                "\tld.global.u64 %rd10, [%rd4+{at}];\n\tst.shared.u64 [%r3+{at}], %rd10;\n"
            );
        }
        body += "\tfence.proxy.async.shared::cta;\n\tbar.sync 0;\n";
        body += &format!(
            "\tmov.u32 %r4, smem;\n\tshr.u32 %r4, %r4, 4;\n\tcvt.u64.u32 %rd20, %r4;\n\
             \tadd.s64 %rd21, %rd20, {desc_a};\n\tadd.s64 %rd22, %rd20, {desc_b};\n"
        );
        body += "\twgmma.fence.sync.aligned;\n";
        body += &format!(
            "\twgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{}}}, %rd21, %rd22, 0, 1, 1, {ta}, {tb};\n",
            regs.join(", ")
        );
        body += "\twgmma.commit_group.sync.aligned;\n";
        body += between;
        body += "\twgmma.wait_group.sync.aligned 0;\n";
        for (i, r) in regs.iter().enumerate() {
            body += &format!("\tst.global.f32 [%rd5+{}], {r};\n", 4 * i);
        }
        format!(
            ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\
             \t.param .u64 p0,\n\t.param .u64 p1\n)\n.reqntid 128, 1, 1\n{{\n\
             \t.reg .b32 %r<16>;\n\t.reg .f32 %f<32>;\n\t.reg .b64 %rd<32>;\n\
             \t.shared .align 1024 .b8 smem[{IMAGE}];\n\
             \tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
             \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, {per};\n\tadd.s64 %rd4, %rd2, %rd3;\n\
             \tmul.wide.u32 %rd6, %r0, 128;\n\tadd.s64 %rd5, %rd1, %rd6;\n\
             \tmov.u32 %r1, smem;\n\tmul.lo.u32 %r2, %r0, {per};\n\tadd.u32 %r3, %r1, %r2;\n\
             {body}\tret;\n}}\n",
            per = IMAGE / 128
        )
    }

    /// A and B in shared memory laid out by CUTLASS's formula (A with LBO 1024, SBO 128; B,
    /// the 64 × 16 transpose of the K × N operand, with LBO 128, SBO 256), the product on
    /// the emulator, and every register compared, through CUTLASS's fragment layout, with a
    /// plain Rust product.
    #[test]
    fn mma_async_m64n64k16_against_cutlass_layouts() {
        for w in [1, 2, 4, 8] {
            for trans in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                product_against_cutlass(trans, w, "", 1.0);
            }
        }
    }

    /// A product may accumulate into registers an earlier one has in flight (PTX orders
    /// accumulator accesses among products of one shape): the second product doubles the
    /// first's result.
    #[test]
    fn a_product_accumulates_into_an_accumulator_in_flight() {
        product_against_cutlass((0, 1), 1, &chained(0, 1), 2.0);
    }

    /// One product with operands K-major (0) or MN-major (1) as `trans` says, swizzled with
    /// `w` 16-byte chunks per row (1: none), `between` run before the wait; the registers
    /// must hold `factor` times the product.
    fn product_against_cutlass((ta, tb): (u32, u32), w: u64, between: &str, factor: f32) {
        let a = |r: usize, k: usize| ((r * 3 + k * 5) % 7) as f32 - 3.0;
        let b = |n: usize, k: usize| ((n * 5 + k * 3) % 9) as f32 - 4.0;
        // (LBO, SBO) of A and B. Without swizzling, both fields matter for either
        // majorness; with it, SBO is the next 8 rows (K-major) or the next 8 columns of K
        // (MN-major: LBO, the next 8w rows, lies past 16 columns of K).
        let swizzled = |trans: u32| if trans == 0 { (16, 128 * w) } else { (256 * w, 128 * w) };
        let ((a_lbo, a_sbo), (b_lbo, b_sbo)) = if w == 1 {
            ((1024u64, 128u64), (128u64, 256u64))
        } else {
            (swizzled(ta), swizzled(tb))
        };
        let mode = match w {
            1 => 0u64,
            2 => 3,
            4 => 2,
            _ => 1,
        };
        let half = IMAGE as u64 / 2;
        let mut image = vec![0u8; IMAGE];
        for r in 0..64 {
            for k in 0..16 {
                let put = |img: &mut Vec<u8>, at: u64, v: f32| {
                    let bits = f16::from_f32(v).to_bits().to_le_bytes();
                    img[at as usize..at as usize + 2].copy_from_slice(&bits);
                };
                let at = |trans: u32, lbo: u64, sbo: u64| match (trans, w) {
                    (1, 1) => cute_mn_major(r as u64, k as u64, lbo, sbo),
                    (_, 1) => cute_k_major(r as u64, k as u64, lbo, sbo),
                    (1, _) => cute_swizzle(cute_mn_major_sw(r as u64, k as u64, w, lbo, sbo), w),
                    _ => cute_swizzle(cute_k_major_sw(r as u64, k as u64, w, sbo), w),
                };
                put(&mut image, at(ta, a_lbo, a_sbo), a(r, k));
                put(&mut image, half + at(tb, b_lbo, b_sbo), b(r, k));
            }
        }
        let desc = |start: u64, lbo: u64, sbo: u64| {
            (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)
        };
        let text = kernel_t(desc(0, a_lbo, a_sbo), desc(half, b_lbo, b_sbo), between, (ta, tb));
        // The kernel is real PTX: ptxas takes it for sm_90a.
        if let Some(p) = crate::tools::require("ptxas", crate::tools::ptxas()) {
            if let Err(e) = crate::ptxas::check_with(&p, &text, dianran_ptx::model::SM_90A) {
                panic!("ptxas: {e}\n{text}");
            }
        }
        let mut bufs = vec![vec![0u8; 128 * 32 * 4], image];
        if let Err(e) = run(&text, "k", &mut bufs, [1, 1, 1], [128, 1, 1], &EmuOptions::default()) {
            panic!("{e}\n{text}");
        }
        for t in 0..128 {
            for v in 0..32 {
                let at = (t * 32 + v) * 4;
                let got = f32::from_le_bytes([
                    bufs[0][at],
                    bufs[0][at + 1],
                    bufs[0][at + 2],
                    bufs[0][at + 3],
                ]);
                let (row, col) = cutlass_c(t, v);
                let want = factor * (0..16).map(|k| a(row, k) * b(col, k)).sum::<f32>();
                assert_eq!(
                    got, want,
                    "trans {ta}, {tb}, swizzle {w}: thread {t} register {v}: D[{row}][{col}]"
                );
            }
        }
    }

    /// The kernel with `between` before its wait, run on zero data: the emulator's result.
    fn run_between(between: &str) -> Result<(), super::super::EmuError> {
        let desc = (128u64 >> 4) << 16 | (256u64 >> 4) << 32;
        let text = kernel(desc, desc + (2048 >> 4), between);
        let mut bufs = vec![vec![0u8; 128 * 32 * 4], vec![0u8; IMAGE]];
        run(&text, "k", &mut bufs, [1, 1, 1], [128, 1, 1], &EmuOptions::default())
    }

    #[test]
    fn reading_an_accumulator_before_the_wait_is_an_error() {
        let e = run_between("\tmov.b32 %r9, %f3;\n")
            .expect_err("the read of %f3 before wgmma.wait_group");
        assert!(e.to_string().contains("no wgmma.wait_group has completed"), "{e}");
    }

    /// `wait_group 1` completes the older of two groups; a register the newer product
    /// accumulates into stays pending.
    #[test]
    fn a_chained_accumulator_stays_pending_until_its_last_group() {
        let between = chained(0, 0) + "\twgmma.wait_group.sync.aligned 1;\n\tmov.b32 %r9, %f3;\n";
        let e = run_between(&between).expect_err("%f3 is still pending under the second group");
        assert!(e.to_string().contains("no wgmma.wait_group has completed"), "{e}");
    }

    /// Storing to an operand before the product's group is complete everywhere is a race
    /// (the hardware reads operands while the product is in flight); after the wait and a
    /// barrier the same store is fine.
    #[test]
    fn overwriting_an_operand_in_flight_is_a_race() {
        let store = "\tst.shared.u32 [%r1+64], %r0;\n";
        let e = run_between(store).expect_err("the store to A before wgmma.wait_group");
        assert_eq!(e.kind, super::super::EmuErrorKind::Race, "{e}");
        let after = format!("\twgmma.wait_group.sync.aligned 0;\n\tbar.sync 0;\n{store}");
        if let Err(e) = run_between(&after) {
            panic!("{e}");
        }
    }

    #[test]
    fn a_warpgroup_short_of_threads_never_runs_wgmma() {
        let desc = (128u64 >> 4) << 16 | (256u64 >> 4) << 32;
        let text =
            kernel(desc, desc + (2048 >> 4), "").replace(".reqntid 128, 1, 1", ".reqntid 96, 1, 1");
        let mut bufs = vec![vec![0u8; 96 * 32 * 4], vec![0u8; IMAGE]];
        let e = run(&text, "k", &mut bufs, [1, 1, 1], [96, 1, 1], &EmuOptions::default())
            .expect_err("96 threads are no warpgroup");
        assert!(e.to_string().contains("warpgroup"), "{e}");
    }
}
