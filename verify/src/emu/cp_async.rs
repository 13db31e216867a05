//! Ampere's asynchronous copies from global to shared memory: `cp.async.{ca,cg}.shared.global`,
//! `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all` (PTX ISA,
//! "Data Movement and Conversion Instructions: cp.async"; `docs/hopper.md` says where the
//! compiler uses them).
//!
//! * `cp.async [dst], [src], n` (n = 4, 8 or 16; `.cg` only 16) starts a copy of `n` bytes
//!   from a global address to a shared one, both aligned to `n` and inside their memory
//!   (checked when the copy starts, so an error names the instruction that started it).
//! * `cp.async.commit_group` closes the thread's copies not yet in a group into one (an empty
//!   group when there are none); `cp.async.wait_group N` completes every group of the thread
//!   but the `N` most recent; `cp.async.wait_all` commits and completes all. Copies not in a
//!   group stay in flight through a wait, as the ISA says.
//! * A copy reads its source and writes its destination when it completes: the latest moment
//!   the hardware may, so a program that relies on the copy before its wait sees stale data.
//!   And until then its bytes are in flight: a load or store of a destination byte by any
//!   thread, another copy into it, and a store to a source byte are errors (`Race`): PTX
//!   leaves the destination undefined until the wait, and a store to the source races with
//!   the copy's read. A copy still in flight when its thread exits never completes, so a
//!   thread that reads its destination afterwards fails too.

use super::decode::{Base, DInst, Opd};
use super::exec::Cta;
use super::inflight::{Bytes, Groups};
use super::{EmuError, EmuErrorKind};
use dianran_ptx::{Flag, StateSpace};

/// One copy: `size` bytes from global address `src` to shared address `dst`.
#[derive(Clone, Copy, Debug)]
struct Copy {
    dst: u64,
    src: u64,
    size: usize,
}

impl Copy {
    fn dst_bytes(self) -> std::ops::Range<u64> {
        self.dst..self.dst + self.size as u64
    }

    fn src_bytes(self) -> std::ops::Range<u64> {
        self.src..self.src + self.size as u64
    }
}

/// The copies in flight of a CTA's threads and the bytes they cover.
#[derive(Clone, Debug, Default)]
pub(crate) struct Copies {
    threads: Vec<Groups<Vec<Copy>>>,
    /// Shared-memory bytes that copies in flight write, with how many copies write each.
    dst: Bytes,
    /// Global bytes that copies in flight read.
    src: Bytes,
}

impl Copies {
    /// No copy in flight, for `n` threads.
    pub(crate) fn reset(&mut self, n: usize) {
        self.threads.clear();
        self.threads.resize(n, Groups::default());
        self.dst.clear();
        self.src.clear();
    }

    /// The first byte of the shared range [`a`, `a + size`) that a copy in flight writes.
    pub(crate) fn in_flight_dst(&self, a: u64, size: usize) -> Option<u64> {
        self.dst.first_in(a, size)
    }

    /// The first byte of the global range [`a`, `a + size`) that a copy in flight reads.
    pub(crate) fn in_flight_src(&self, a: u64, size: usize) -> Option<u64> {
        self.src.first_in(a, size)
    }
}

/// The address of memory operand `o` of a `cp.async` in state space `space` (the
/// instruction names two spaces, so [`Cta::addr`]'s single one does not apply).
fn address(cta: &Cta, t: usize, o: &Opd, space: StateSpace, i: &DInst) -> Result<u64, EmuError> {
    match o {
        Opd::Addr(Base::Reg(s), off) => Ok(cta.rd(t, *s, i)?.wrapping_add(*off as u64)),
        Opd::Addr(Base::Var(sp, a), off) if *sp == space => Ok(a.wrapping_add(*off as u64)),
        _ => Err(i.err(
            EmuErrorKind::Unsupported,
            format!("cp.async needs a .{} memory operand here", space.name()),
        )),
    }
}

fn race(cta: &Cta, t: usize, i: &DInst, what: String) -> EmuError {
    i.err(
        EmuErrorKind::Race,
        format!(
            "{what} (thread {:?} of CTA {:?})",
            cta.tid.get(t).copied().unwrap_or_default(),
            cta.ctaid
        ),
    )
}

/// The error for an access to shared byte `b`, the destination of a copy in flight.
pub(crate) fn dst_error(cta: &Cta, t: usize, b: u64, i: &DInst) -> EmuError {
    race(
        cta,
        t,
        i,
        format!("accesses shared byte {b:#x}, the destination of a cp.async that no cp.async.wait_group has completed"),
    )
}

/// The error for a store to global byte `b`, the source of a copy in flight.
pub(crate) fn src_error(cta: &Cta, t: usize, b: u64, i: &DInst) -> EmuError {
    race(
        cta,
        t,
        i,
        format!("writes global byte {b:#x}, the source of a cp.async that no cp.async.wait_group has completed"),
    )
}

/// Executes a `cp.async` instruction for thread `t`.
pub(crate) fn lane(cta: &mut Cta, t: usize, i: &DInst) -> Result<(), EmuError> {
    if !i.has(Flag::Async) {
        return Err(i.unsupported());
    }
    if i.has(Flag::CommitGroup) {
        commit(cta, t);
        return Ok(());
    }
    if i.has(Flag::WaitAll) {
        commit(cta, t);
        return wait(cta, t, 0, i);
    }
    if i.has(Flag::WaitGroup) {
        let keep = match i.opd(0)? {
            Opd::Imm(n) if *n >= 0 => usize::try_from(*n).unwrap_or(usize::MAX),
            _ => return Err(i.err(EmuErrorKind::Unsupported, "wait_group needs a count >= 0")),
        };
        return wait(cta, t, keep, i);
    }
    // The zero-filling (`src-size`) and `ignore-src` forms are not modelled: refused rather
    // than run as full copies.
    if i.ops.len() != 3 {
        return Err(i.err(
            EmuErrorKind::Unsupported,
            "only cp.async [dst], [src], size is modelled (no src-size or ignore-src)",
        ));
    }
    let size = match i.opd(2)? {
        Opd::Imm(16) => 16,
        // `.cg` (L2 only) exists for 16 bytes alone.
        Opd::Imm(n @ (4 | 8)) if !i.text.contains(".cg.") => *n as usize,
        _ => {
            return Err(i.err(
                EmuErrorKind::Unsupported,
                "cp.async.cg copies 16 bytes, cp.async.ca 4, 8 or 16",
            ))
        }
    };
    let dst = address(cta, t, i.opd(0)?, StateSpace::Shared, i)?;
    let src = address(cta, t, i.opd(1)?, StateSpace::Global, i)?;
    for (space, a) in [(StateSpace::Shared, dst), (StateSpace::Global, src)] {
        if !a.is_multiple_of(size as u64) {
            return Err(i.err(
                EmuErrorKind::OutOfBounds,
                format!("misaligned {size}-byte cp.async at {} address {a:#x}", space.name()),
            ));
        }
        // Both ends must exist now: the error then names this instruction.
        cta.mem.bytes(space, a, size, t).map_err(|m| i.err(EmuErrorKind::OutOfBounds, m))?;
    }
    if let Some(b) = cta.cp.in_flight_dst(dst, size) {
        return Err(dst_error(cta, t, b, i));
    }
    if let Some(b) = cta.wg.overwrites(dst, size) {
        return Err(super::wgmma::overwrite_error(cta, t, b, i));
    }
    let c = Copy { dst, src, size };
    cta.cp.dst.add(c.dst_bytes());
    cta.cp.src.add(c.src_bytes());
    if let Some(th) = cta.cp.threads.get_mut(t) {
        th.uncommitted.push(c);
    }
    Ok(())
}

fn commit(cta: &mut Cta, t: usize) {
    if let Some(th) = cta.cp.threads.get_mut(t) {
        th.commit();
    }
}

/// Completes every group of thread `t` but the `keep` most recent, oldest first.
fn wait(cta: &mut Cta, t: usize, keep: usize, i: &DInst) -> Result<(), EmuError> {
    while let Some(group) = cta.cp.threads.get_mut(t).and_then(|th| th.pop_older(keep)) {
        for c in group {
            cta.cp.dst.remove(c.dst_bytes());
            cta.cp.src.remove(c.src_bytes());
            let data = cta
                .mem
                .bytes(StateSpace::Global, c.src, c.size, t)
                .map_err(|m| i.err(EmuErrorKind::OutOfBounds, m))?
                .to_vec();
            cta.mem
                .bytes(StateSpace::Shared, c.dst, c.size, t)
                .map_err(|m| i.err(EmuErrorKind::OutOfBounds, m))?
                .copy_from_slice(&data);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{run, EmuErrorKind, EmuOptions};

    /// 64 threads: thread `t` copies the 16 bytes at `in + 16 t` to shared `16 t` with
    /// `cp.async`, runs `between`, then `after_copy` (waits); after a barrier it stores the
    /// 16 bytes of thread `63 - t`'s copy to `out + 16 t`.
    fn kernel(between: &str, after_copy: &str) -> String {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\
             \t.param .u64 p0,\n\t.param .u64 p1\n)\n.reqntid 64, 1, 1\n{{\n\
             \t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\
             \t.shared .align 16 .b8 smem[1024];\n\
             \tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
             \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
             \tadd.s64 %rd5, %rd2, %rd3;\n\
             \tmov.u32 %r1, smem;\n\tshl.b32 %r2, %r0, 4;\n\tadd.u32 %r3, %r1, %r2;\n\
             \tcp.async.cg.shared.global [%r3], [%rd4], 16;\n\
             {between}\
             \tcp.async.commit_group;\n\
             {after_copy}\
             \tbar.sync 0;\n\
             \tsub.u32 %r4, 63, %r0;\n\tshl.b32 %r4, %r4, 4;\n\tadd.u32 %r5, %r1, %r4;\n\
             \tld.shared.v4.u32 {{%r6, %r7, %r8, %r9}}, [%r5];\n\
             \tst.global.v4.u32 [%rd5], {{%r6, %r7, %r8, %r9}};\n\
             \tret;\n}}\n"
        )
    }

    fn launch(text: &str) -> Result<Vec<u8>, super::super::EmuError> {
        if let Some(p) = crate::tools::require("ptxas", crate::tools::ptxas()) {
            if let Err(e) = crate::ptxas::check_with(&p, text, 80) {
                panic!("ptxas: {e}\n{text}");
            }
        }
        let input: Vec<u8> = (0..1024u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut bufs = vec![input, vec![0u8; 1024]];
        run(text, "k", &mut bufs, [1, 1, 1], [64, 1, 1], &EmuOptions::default())?;
        Ok(bufs.swap_remove(1))
    }

    #[test]
    fn copies_land_after_the_wait() {
        for wait in ["\tcp.async.wait_group 0;\n", "\tcp.async.wait_all;\n"] {
            let out = launch(&kernel("", wait)).unwrap_or_else(|e| panic!("{e}"));
            for t in 0..64usize {
                for b in 0..16usize {
                    let src = (63 - t) * 16 + b;
                    assert_eq!(out[t * 16 + b], (src * 7 + 3) as u8, "thread {t} byte {b}");
                }
            }
        }
    }

    #[test]
    fn reading_a_destination_before_the_wait_is_a_race() {
        // Another thread's destination, read after the barrier, but without any wait.
        let e = launch(&kernel("", "")).expect_err("no wait");
        assert_eq!(e.kind, EmuErrorKind::Race, "{e}");
        assert!(e.to_string().contains("no cp.async.wait_group"), "{e}");
        // `wait_group 1` leaves the newest group in flight.
        let e = launch(&kernel("", "\tcp.async.wait_group 1;\n")).expect_err("newest group");
        assert_eq!(e.kind, EmuErrorKind::Race, "{e}");
        // A copy not yet committed is not completed by the wait either.
        let late = "\tcp.async.wait_group 0;\n\tcp.async.cg.shared.global [%r3], [%rd4], 16;\n";
        let e = launch(&kernel("", late)).expect_err("an uncommitted copy");
        assert_eq!(e.kind, EmuErrorKind::Race, "{e}");
    }

    #[test]
    fn storing_to_a_source_or_destination_in_flight_is_a_race() {
        let e = launch(&kernel("\tst.global.u32 [%rd4], %r0;\n", "\tcp.async.wait_group 0;\n"))
            .expect_err("a store to the source");
        assert_eq!(e.kind, EmuErrorKind::Race, "{e}");
        let e = launch(&kernel("\tst.shared.u32 [%r3+4], %r0;\n", "\tcp.async.wait_group 0;\n"))
            .expect_err("a store to the destination");
        assert_eq!(e.kind, EmuErrorKind::Race, "{e}");
    }

    #[test]
    fn forms_the_model_lacks_are_refused() {
        // The zero-filling form (copy 8 of the 16 bytes) would otherwise run as a full copy.
        let text = kernel("", "\tcp.async.wait_group 0;\n").replace("[%rd4], 16", "[%rd4], 16, 8");
        let e = launch(&text).expect_err("src-size form");
        assert_eq!(e.kind, EmuErrorKind::Unsupported, "{e}");
    }

    #[test]
    fn misaligned_or_outside_copies_are_errors() {
        let text = kernel("", "\tcp.async.wait_group 0;\n").replace("[%rd4], 16", "[%rd4+8], 16");
        let mut bufs = vec![vec![0u8; 1024], vec![0u8; 1024]];
        let e = run(&text, "k", &mut bufs, [1, 1, 1], [64, 1, 1], &EmuOptions::default())
            .expect_err("misaligned source");
        assert!(e.to_string().contains("misaligned"), "{e}");
        let mut bufs = vec![vec![0u8; 512], vec![0u8; 1024]];
        let text = kernel("", "\tcp.async.wait_group 0;\n");
        let e = run(&text, "k", &mut bufs, [1, 1, 1], [64, 1, 1], &EmuOptions::default())
            .expect_err("a source past the buffer");
        assert_eq!(e.kind, EmuErrorKind::OutOfBounds, "{e}");
    }
}
