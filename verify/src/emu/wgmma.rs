//! Hopper's warpgroup products: `wgmma.mma_async`, `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group` (PTX ISA 8.0, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
//! Instructions"; `docs/hopper.md` lists what is modelled and the sources).
//!
//! * `wgmma.mma_async` is warpgroup-collective: the scheduler runs it once the four warps of
//!   a warpgroup (128 consecutive threads, the CTA's threads `128g ..`) all wait at it, which
//!   `.sync.aligned` requires; every thread must pass the same descriptors.
//! * Operands come from shared memory through 64-bit matrix descriptors: bits 0-13 the start
//!   address, 16-29 the leading-dimension byte offset (LBO), 32-45 the stride-dimension byte
//!   offset (SBO), all in 16-byte units; bits 62-63 the swizzle mode. Only mode 0 (no
//!   swizzle, "interleave") is modelled: element (row `r`, k) of a 64 × 16 (A) or N × 16 (B,
//!   as its transpose) operand of 16-bit elements is at
//!   `start + (r % 8) * 16 + (r / 8) * SBO + (k % 8) * 2 + (k / 8) * LBO` when K-major
//!   (`imm-trans` 0), `start + (r % 8) * 2 + (r / 8) * SBO + (k % 8) * 16 + (k / 8) * LBO`
//!   when MN-major (`imm-trans` 1: 8 consecutive rows contiguous). A swizzled descriptor is
//!   an `Unsupported` error, never a guess.
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
//!   may accumulate into it.

use super::decode::{DInst, Opd};
use super::exec::Cta;
use super::num::Fmt;
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{Flag, Rounding, StateSpace, Type};
use std::collections::VecDeque;

/// One thread's products in flight.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    /// Register slots written by products not yet committed.
    uncommitted: Vec<u32>,
    /// Committed groups, oldest first.
    groups: VecDeque<Vec<u32>>,
}

/// The asynchronous state of a CTA's threads: per thread its groups, and per register
/// whether it is pending.
#[derive(Clone, Debug, Default)]
pub(crate) struct Async {
    threads: Vec<Pending>,
    /// `thread * nslots + slot`: the register belongs to a product not yet waited for.
    pending: Vec<bool>,
    /// Whether any register is pending (the register accessors test this first).
    pub any: bool,
}

impl Async {
    /// No product in flight, for `n` threads of `nslots` registers.
    pub(crate) fn reset(&mut self, n: usize, nslots: usize) {
        self.threads.clear();
        self.threads.resize(n, Pending::default());
        self.pending.clear();
        self.pending.resize(n * nslots, false);
        self.any = false;
    }

    /// Whether register `idx` (`thread * nslots + slot`) is pending.
    pub(crate) fn is_pending(&self, idx: usize) -> bool {
        self.any && self.pending.get(idx).copied().unwrap_or(false)
    }
}

/// A matrix descriptor's fields, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Desc {
    start: u64,
    lbo: u64,
    sbo: u64,
}

/// The fields of descriptor `bits`, or its swizzle mode when that is not 0.
fn fields(bits: u64) -> Result<Desc, u64> {
    let field = |at: u32| ((bits >> at) & 0x3fff) << 4;
    match bits >> 62 {
        0 => Ok(Desc { start: field(0), lbo: field(16), sbo: field(32) }),
        swizzle => Err(swizzle),
    }
}

fn decode(bits: u64, i: &DInst) -> Result<Desc, EmuError> {
    fields(bits).map_err(|swizzle| {
        i.err(
            EmuErrorKind::Unsupported,
            format!("wgmma descriptor {bits:#018x}: swizzle mode {swizzle} is not modelled (only 0, no swizzle)"),
        )
    })
}

impl Desc {
    /// The shared-memory byte address of 16-bit element (`r`, `k`) of a K-major operand.
    fn at(self, r: u64, k: u64) -> u64 {
        self.start + (r % 8) * 16 + (r / 8) * self.sbo + (k % 8) * 2 + (k / 8) * self.lbo
    }

    /// The same for an MN-major operand (`imm-trans` 1).
    fn at_mn(self, r: u64, k: u64) -> u64 {
        self.start + (r % 8) * 2 + (r / 8) * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo
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
    let half = |cta: &mut Cta, addr: u64| -> Result<f64, EmuError> {
        let bits = cta.load(lo, StateSpace::Shared, addr, 2, i)?;
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
    let nslots = cta.prog.nslots;
    for t in lo..lo + 128 {
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
                th.uncommitted.push(slot);
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
            let group = std::mem::take(&mut th.uncommitted);
            th.groups.push_back(group);
        }
        Ok(())
    } else if i.has(Flag::WaitGroup) {
        let keep = usize::try_from(imm(i, 0)?).unwrap_or(0);
        let Some(th) = cta.wg.threads.get_mut(t) else { return Ok(()) };
        while th.groups.len() > keep {
            for slot in th.groups.pop_front().unwrap_or_default() {
                if let Some(p) = cta.wg.pending.get_mut(t * nslots + slot as usize) {
                    *p = false;
                }
            }
        }
        Ok(())
    } else if i.has(Flag::WgFence) {
        Ok(())
    } else {
        Err(i.unsupported())
    }
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
            let d = super::Desc { start: 128, lbo, sbo };
            assert_eq!(super::fields(bits), Ok(d));
            assert_eq!(super::fields(bits | 1 << 62), Err(1), "128-byte swizzle is refused");
            for r in 0..64 {
                for k in 0..16 {
                    assert_eq!(d.at(r, k), 128 + cute_k_major(r, k, lbo, sbo), "({r}, {k})");
                    assert_eq!(d.at_mn(r, k), 128 + cute_mn_major(r, k, lbo, sbo), "({r}, {k})");
                }
            }
        }
    }

    /// The kernel: 128 threads copy a 4 KiB image of A (bytes 0..2048) and B (2048..4096)
    /// into shared memory, run one `m64n64k16` product from zero (or read an accumulator
    /// early, `early`), and store every thread's 32 registers in (thread, register) order.
    fn kernel(desc_a: u64, desc_b: u64, early: bool) -> String {
        kernel_t(desc_a, desc_b, early, (0, 0))
    }

    /// [`kernel`] with `imm-trans-a`, `imm-trans-b`.
    fn kernel_t(desc_a: u64, desc_b: u64, early: bool, (ta, tb): (u32, u32)) -> String {
        let regs: Vec<String> = (0..32).map(|i| format!("%f{i}")).collect();
        let mut body = String::new();
        for (n, at) in [0, 8, 16, 24].iter().enumerate() {
            body += &format!(
                "\tld.global.u64 %rd{0}, [%rd4+{at}];\n\tst.shared.u64 [%r3+{at}], %rd{0};\n",
                10 + n
            );
        }
        body += "\tfence.proxy.async;\n\tbar.sync 0;\n";
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
        if early {
            body += "\tmov.b32 %r9, %f3;\n";
        }
        body += "\twgmma.wait_group.sync.aligned 0;\n";
        for (i, r) in regs.iter().enumerate() {
            body += &format!("\tst.global.f32 [%rd5+{}], {r};\n", 4 * i);
        }
        format!(
            ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(\n\
             \t.param .u64 p0,\n\t.param .u64 p1\n)\n.reqntid 128, 1, 1\n{{\n\
             \t.reg .b32 %r<16>;\n\t.reg .f32 %f<32>;\n\t.reg .b64 %rd<32>;\n\
             \t.shared .align 128 .b8 smem[4096];\n\
             \tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
             \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
             \tmul.wide.u32 %rd6, %r0, 128;\n\tadd.s64 %rd5, %rd1, %rd6;\n\
             \tmov.u32 %r1, smem;\n\tmul.lo.u32 %r2, %r0, 32;\n\tadd.u32 %r3, %r1, %r2;\n\
             {body}\tret;\n}}\n"
        )
    }

    /// A and B in shared memory laid out by CUTLASS's formula (A with LBO 1024, SBO 128; B,
    /// the 64 × 16 transpose of the K × N operand, with LBO 128, SBO 256), the product on
    /// the emulator, and every register compared, through CUTLASS's fragment layout, with a
    /// plain Rust product.
    #[test]
    fn mma_async_m64n64k16_against_cutlass_layouts() {
        for trans in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            product_against_cutlass(trans);
        }
    }

    /// One product with operands K-major (0) or MN-major (1) as `trans` says.
    fn product_against_cutlass((ta, tb): (u32, u32)) {
        let a = |r: usize, k: usize| ((r * 3 + k * 5) % 7) as f32 - 3.0;
        let b = |n: usize, k: usize| ((n * 5 + k * 3) % 9) as f32 - 4.0;
        let (a_lbo, a_sbo, b_lbo, b_sbo) = (1024u64, 128u64, 128u64, 256u64);
        let mut image = vec![0u8; 4096];
        for r in 0..64 {
            for k in 0..16 {
                let put = |img: &mut Vec<u8>, at: u64, v: f32| {
                    let bits = f16::from_f32(v).to_bits().to_le_bytes();
                    img[at as usize..at as usize + 2].copy_from_slice(&bits);
                };
                let at = |trans: u32, lbo: u64, sbo: u64| {
                    if trans == 1 {
                        cute_mn_major(r as u64, k as u64, lbo, sbo)
                    } else {
                        cute_k_major(r as u64, k as u64, lbo, sbo)
                    }
                };
                put(&mut image, at(ta, a_lbo, a_sbo), a(r, k));
                put(&mut image, 2048 + at(tb, b_lbo, b_sbo), b(r, k));
            }
        }
        let desc =
            |start: u64, lbo: u64, sbo: u64| (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32);
        let text = kernel_t(desc(0, a_lbo, a_sbo), desc(2048, b_lbo, b_sbo), false, (ta, tb));
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
                let want: f32 = (0..16).map(|k| a(row, k) * b(col, k)).sum();
                assert_eq!(got, want, "trans {ta}, {tb}: thread {t} register {v}: D[{row}][{col}]");
            }
        }
    }

    #[test]
    fn reading_an_accumulator_before_the_wait_is_an_error() {
        let desc = (128u64 >> 4) << 16 | (256u64 >> 4) << 32;
        let text = kernel(desc, desc + (2048 >> 4), true);
        let mut bufs = vec![vec![0u8; 128 * 32 * 4], vec![0u8; 4096]];
        let e = run(&text, "k", &mut bufs, [1, 1, 1], [128, 1, 1], &EmuOptions::default())
            .expect_err("the read of %f3 before wgmma.wait_group");
        assert!(e.to_string().contains("no wgmma.wait_group has completed"), "{e}");
    }

    #[test]
    fn a_warpgroup_short_of_threads_never_runs_wgmma() {
        let desc = (128u64 >> 4) << 16 | (256u64 >> 4) << 32;
        let text = kernel(desc, desc + (2048 >> 4), false)
            .replace(".reqntid 128, 1, 1", ".reqntid 96, 1, 1");
        let mut bufs = vec![vec![0u8; 96 * 32 * 4], vec![0u8; 4096]];
        let e = run(&text, "k", &mut bufs, [1, 1, 1], [96, 1, 1], &EmuOptions::default())
            .expect_err("96 threads are no warpgroup");
        assert!(e.to_string().contains("warpgroup"), "{e}");
    }
}
