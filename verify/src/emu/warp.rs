//! Scheduling (CTAs, warps, min-PC lane groups, barriers) and the warp-collective
//! instructions: `shfl.sync`, `vote.sync`, `redux.sync`, `bar.warp.sync`, `mma.sync`,
//! `ldmatrix`.

use super::decode::{Class, DInst, Opd, Prog};
use super::exec::{Cta, Flow, Profiler};
use super::memory::{Mem, LOCAL_WINDOW, SHARED_WINDOW};
use super::num::{int_val, mask, tf32_rna, Fmt};
use super::profile::{Access, InstClass, Profile};
use super::{EmuError, EmuErrorKind, EmuOptions};
use dianran_ptx::{AtomOp, Flag, Layout, Opcode, Rounding, ShflMode, StateSpace, Type, VoteMode};

/// What a thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Run,
    /// Waits at the `bar.sync` its pc points to.
    Bar,
    /// Waits at the collective its pc points to.
    Coll,
    /// Waits at the warpgroup-collective `wgmma.mma_async` its pc points to.
    Wg,
    Exit,
}

struct Threads {
    pc: Vec<usize>,
    st: Vec<St>,
    /// Each thread's call stack: the index of every `call` it is inside of.
    calls: Vec<Vec<usize>>,
}

/// Runs the whole grid.
pub(crate) fn launch(
    prog: &Prog,
    params: &mut [Vec<u8>],
    textures: &mut [Option<super::texture::TexObject>],
    grid: [u32; 3],
    block: [u32; 3],
    opts: &EmuOptions,
    prof: Option<&mut Profile>,
) -> Result<(), EmuError> {
    let n = block.iter().map(|&d| d as usize).product::<usize>();
    let cells = n.saturating_mul(prog.nslots.max(prog.local_size).max(prog.tparam_size));
    if cells > 1 << 28 {
        return Err(EmuError::new(
            EmuErrorKind::Launch,
            None,
            format!(
                "{n} threads with {} registers and {} local bytes each are more than the emulator holds",
                prog.nslots, prog.local_size
            ),
        ));
    }
    let tid = (0..n)
        .map(|t| {
            let (bx, by) = (block[0] as usize, block[1] as usize);
            [(t % bx) as u32, ((t / bx) % by) as u32, (t / (bx * by)) as u32]
        })
        .collect();
    // Kernel parameters: a device pointer to each `.u64` parameter's buffer, the bytes of
    // any other's (sizes are checked by the caller).
    let mut kparams = vec![0u8; prog.kparam_size];
    for (i, p) in prog.kparams.iter().enumerate() {
        let value = if p.pointer {
            super::memory::global_base(i).to_le_bytes().to_vec()
        } else {
            params.get(i).cloned().unwrap_or_default()
        };
        if let Some(dst) = kparams.get_mut(p.offset..p.offset + p.size.min(value.len())) {
            let k = dst.len();
            dst.copy_from_slice(&value[..k]);
        }
    }
    let mut cta = Cta {
        prog,
        regs: vec![0; n * prog.nslots],
        def: vec![false; n * prog.nslots],
        mem: Mem {
            global: params,
            textures,
            module: prog.module_data.clone(),
            shared: vec![0; prog.shared_size],
            local: vec![0; n * prog.local_size],
            local_size: prog.local_size,
            kparams,
            tparams: vec![0; n * prog.tparam_size],
            tparam_size: prog.tparam_size,
        },
        tid,
        ctaid: [0; 3],
        grid,
        block,
        steps: 0,
        cc: vec![false; n],
        undefined: opts.undefined_registers,
        prof: prof.as_ref().map(|_| {
            Box::new(Profiler { p: Profile::default(), accesses: Vec::with_capacity(32) })
        }),
        wg: Default::default(),
        cp: Default::default(),
    };
    let uses_wgmma = prog.insts.iter().any(|i| i.op == Opcode::Wgmma);
    let uses_cp_async = prog.insts.iter().any(|i| i.op == Opcode::Cp);
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                cta.ctaid = [x, y, z];
                cta.def.iter_mut().for_each(|d| *d = false);
                cta.mem.shared.iter_mut().for_each(|b| *b = 0);
                cta.mem.local.iter_mut().for_each(|b| *b = 0);
                cta.mem.tparams.iter_mut().for_each(|b| *b = 0);
                cta.cc.iter_mut().for_each(|c| *c = false);
                if uses_wgmma {
                    cta.wg.reset(n, prog.nslots);
                }
                if uses_cp_async {
                    cta.cp.reset(n);
                }
                run_cta(&mut cta, n, opts)?;
            }
        }
    }
    if let (Some(out), Some(p)) = (prof, cta.prof) {
        *out = p.p;
    }
    Ok(())
}

fn run_cta(cta: &mut Cta, n: usize, opts: &EmuOptions) -> Result<(), EmuError> {
    let mut th = Threads { pc: vec![0; n], st: vec![St::Run; n], calls: vec![Vec::new(); n] };
    let nwarps = n.div_ceil(32);
    let mut stacks = vec![Vec::new(); nwarps];
    loop {
        for (w, stack) in stacks.iter_mut().enumerate() {
            run_warp(cta, &mut th, w * 32, (w * 32 + 32).min(n), stack, opts)?;
        }
        if th.st.iter().all(|s| *s == St::Exit) {
            return Ok(());
        }
        if let Some(t) = th.st.iter().position(|s| *s == St::Coll) {
            return Err(stuck_collective(cta, &th, t, n));
        }
        if th.st.contains(&St::Wg) {
            fire_warpgroups(cta, &mut th, n)?;
            continue;
        }
        if let Some(t) = th.st.iter().position(|s| *s == St::Run) {
            let line = |pc: usize| cta.prog.insts.get(pc).and_then(|i| i.line);
            let bar = th.st.iter().position(|s| *s == St::Bar).map(|b| th.pc[b]);
            return Err(EmuError::new(
                EmuErrorKind::Deadlock,
                bar.and_then(line),
                format!(
                    "deadlock in CTA {:?}: threads wait at this barrier while thread {:?} waits for its warp to reconverge at line {}; bar.sync in divergent code",
                    cta.ctaid,
                    cta.tid.get(t),
                    line(th.pc[t]).map_or("?".to_string(), |l| l.to_string())
                ),
            ));
        }
        // Every live thread waits at a barrier: it opens when they all wait at the same one.
        let waiting: Vec<usize> = (0..n).filter(|&t| th.st[t] == St::Bar).collect();
        let Some(&w0) = waiting.first() else {
            return Err(EmuError::new(EmuErrorKind::Deadlock, None, "no thread can make progress"));
        };
        let first = th.pc[w0];
        if let Some(&other) = waiting.iter().find(|&&t| th.pc[t] != first) {
            let line = |pc: usize| cta.prog.insts.get(pc).and_then(|i| i.line);
            let a: Vec<usize> = waiting.iter().copied().filter(|&t| th.pc[t] == first).collect();
            let b: Vec<usize> =
                waiting.iter().copied().filter(|&t| th.pc[t] == th.pc[other]).collect();
            return Err(EmuError::new(
                EmuErrorKind::Deadlock,
                line(first),
                format!(
                    "deadlock in CTA {:?}: {} threads (first {:?}) wait at this barrier while {} threads (first {:?}) wait at the barrier on line {}; bar.sync in divergent code",
                    cta.ctaid,
                    a.len(),
                    a.first().and_then(|&t| cta.tid.get(t)),
                    b.len(),
                    b.first().and_then(|&t| cta.tid.get(t)),
                    line(th.pc[other]).map_or("?".to_string(), |l| l.to_string())
                ),
            ));
        }
        // `bar.red.and.pred d, a, p`: every waiting thread learns whether `p` holds on all.
        if let Some(i) = cta.prog.insts.get(first).filter(|i| i.has(Flag::Red)) {
            let last = i.ops.len().saturating_sub(1);
            let mut all = true;
            for &t in &waiting {
                all &= cta.pred(t, i.opd(last)?, i)?;
            }
            for &t in &waiting {
                cta.dst(t, i, 0, u64::from(all))?;
            }
        }
        for t in waiting {
            th.st[t] = St::Run;
            th.pc[t] += 1;
        }
        if let Some(p) = cta.prof.as_mut() {
            p.p.barriers += 1;
        }
    }
}

/// Runs every `wgmma.mma_async` whose warpgroup (128 consecutive threads) waits at it
/// whole; an error when threads wait at one that can never run (a warpgroup split between
/// instructions or with exited threads, or a CTA that is no whole number of warpgroups).
fn fire_warpgroups(cta: &mut Cta, th: &mut Threads, n: usize) -> Result<(), EmuError> {
    let mut fired = false;
    for lo in (0..n).step_by(128) {
        let hi = (lo + 128).min(n);
        let Some(w) = (lo..hi).find(|&t| th.st[t] == St::Wg) else { continue };
        let pc = th.pc[w];
        let whole = hi - lo == 128 && (lo..hi).all(|t| th.st[t] == St::Wg && th.pc[t] == pc);
        if !whole {
            continue;
        }
        let i = cta.prog.insts.get(pc).ok_or_else(|| {
            EmuError::new(EmuErrorKind::Launch, None, "wgmma outside the program")
        })?;
        super::wgmma::mma_async(cta, i, lo)?;
        if let Some(p) = cta.prof.as_mut() {
            p.p.mma += 1;
        }
        for t in lo..hi {
            th.st[t] = St::Run;
            th.pc[t] += 1;
        }
        fired = true;
    }
    if fired {
        return Ok(());
    }
    let t = th.st.iter().position(|s| *s == St::Wg).unwrap_or(0);
    let line = cta.prog.insts.get(th.pc[t]).and_then(|i| i.line);
    Err(EmuError::new(
        EmuErrorKind::Deadlock,
        line,
        format!(
            "thread {:?} of CTA {:?} waits at wgmma.mma_async, which the 128 threads of its warpgroup (threads {}..{}) never all reach (a CTA of {n} threads; .sync.aligned needs whole warpgroups executing it together)",
            cta.tid.get(t).copied().unwrap_or_default(),
            cta.ctaid,
            t / 128 * 128,
            t / 128 * 128 + 128
        ),
    ))
}

/// The error for a collective that can never complete.
fn stuck_collective(cta: &Cta, th: &Threads, t: usize, n: usize) -> EmuError {
    let pc = th.pc[t];
    let lo = t / 32 * 32;
    let hi = (lo + 32).min(n);
    let mut missing = Vec::new();
    let mut exited = false;
    for u in lo..hi {
        if !(th.st[u] == St::Coll && th.pc[u] == pc) {
            missing.push(u - lo);
            exited |= th.st[u] == St::Exit;
        }
    }
    let (kind, why) = if exited {
        (EmuErrorKind::MemberMask, "some of them have exited")
    } else {
        (EmuErrorKind::Deadlock, "they wait elsewhere")
    };
    let i = cta.prog.insts.get(pc);
    EmuError::new(
        kind,
        i.and_then(|i| i.line),
        format!(
            "{}: lanes {:?} of warp {} in CTA {:?} never reach this warp-collective instruction ({why})",
            i.map_or("?", |i| i.text.as_str()),
            missing,
            lo / 32,
            cta.ctaid
        ),
    )
}

fn guard(cta: &Cta, t: usize, i: &DInst) -> Result<bool, EmuError> {
    match i.guard {
        None => Ok(true),
        Some((s, neg)) => Ok((cta.rd(t, s, i)? & 1 == 1) != neg),
    }
}

/// A reconvergence frame of a warp's SIMT stack: the lanes of `mask` that diverged at a
/// branch run (lowest pc first) until all of them reach `rpc`, the branch's immediate
/// post-dominator, or exit.
#[derive(Clone, Copy, Debug)]
struct Frame {
    rpc: usize,
    mask: u32,
}

fn run_warp(
    cta: &mut Cta,
    th: &mut Threads,
    lo: usize,
    hi: usize,
    stack: &mut Vec<Frame>,
    opts: &EmuOptions,
) -> Result<(), EmuError> {
    let prog = cta.prog;
    loop {
        // Pop frames whose lanes have all reconverged (or exited).
        while let Some(f) = stack.last() {
            let mut done = true;
            for_lanes(f.mask, lo, |t| {
                if th.st[t] != St::Exit && !(th.st[t] == St::Run && th.pc[t] == f.rpc) {
                    done = false;
                }
            });
            if !done {
                break;
            }
            stack.pop();
        }
        let (frame_mask, rpc) = stack.last().map_or((u32::MAX, usize::MAX), |f| (f.mask, f.rpc));
        let mut pc = usize::MAX;
        for t in lo..hi {
            if frame_mask & (1 << (t - lo)) != 0
                && th.st[t] == St::Run
                && th.pc[t] != rpc
                && th.pc[t] < pc
            {
                pc = th.pc[t];
            }
        }
        if pc == usize::MAX {
            // The frame's other lanes wait at a barrier or collective: let the lanes parked
            // at the reconvergence point go on (they may exit, as after an early return),
            // as independent thread scheduling does.
            let parked = stack.last().is_some_and(|f| {
                (lo..hi).any(|t| f.mask & (1 << (t - lo)) != 0 && th.st[t] == St::Run)
            });
            if parked {
                stack.pop();
                continue;
            }
            return Ok(());
        }
        let mut group = 0u32;
        for t in lo..hi {
            if frame_mask & (1 << (t - lo)) != 0 && th.st[t] == St::Run && th.pc[t] == pc {
                group |= 1 << (t - lo);
            }
        }
        let Some(i) = prog.insts.get(pc) else {
            // Falling off the end of the body exits.
            for_lanes(group, lo, |t| th.st[t] = St::Exit);
            continue;
        };
        cta.steps += 1;
        if cta.steps > opts.max_steps {
            return Err(i.err(
                EmuErrorKind::StepLimit,
                format!(
                    "stopped after {} warp instructions (EmuOptions::max_steps); an infinite loop?",
                    opts.max_steps
                ),
            ));
        }
        match i.class {
            Class::Lane => {
                // Profiled: the accesses of a memory instruction, lane by lane, before it runs.
                let mem_opd = cta.prof.as_ref().and_then(|_| memory_operand(i));
                let mut accesses = match cta.prof.as_mut() {
                    Some(p) => std::mem::take(&mut p.accesses),
                    None => Vec::new(),
                };
                accesses.clear();
                let mut active = 0u32;
                for l in 0..32 {
                    if group & (1 << l) == 0 {
                        continue;
                    }
                    let t = lo + l;
                    if !guard(cta, t, i)? {
                        th.pc[t] += 1;
                        continue;
                    }
                    active += 1;
                    if let Some((k, size)) = mem_opd {
                        let (space, a) = cta.addr(t, i.opd(k)?, i)?;
                        let (space, addr) = resolve(space, a);
                        accesses.push(Access { lane: l as u8, space, addr, size });
                    }
                    if i.op == Opcode::Activemask {
                        cta.dst(t, i, 0, u64::from(group))?;
                        th.pc[t] += 1;
                        continue;
                    }
                    match cta.exec(t, i)? {
                        Flow::Next => th.pc[t] += 1,
                        Flow::Jump(to) => th.pc[t] = to,
                        Flow::Exit => th.st[t] = St::Exit,
                        Flow::Call(to) => {
                            let callee = i.call.as_ref().and_then(|c| c.body);
                            let again = th.calls[t].iter().any(|&c| {
                                prog.insts.get(c).and_then(|x| x.call.as_ref()).and_then(|x| x.body)
                                    == callee
                            });
                            if again {
                                return Err(i.err(
                                    EmuErrorKind::Unsupported,
                                    "recursive calls are not supported by the emulator",
                                ));
                            }
                            th.calls[t].push(pc);
                            th.pc[t] = to;
                        }
                        Flow::Ret => match th.calls[t].pop() {
                            None => th.st[t] = St::Exit,
                            Some(c) => {
                                let call = prog.insts.get(c);
                                if let Some(info) = call.and_then(|x| x.call.as_ref()) {
                                    cta.copy_params(t, &info.rets, i)?;
                                }
                                th.pc[t] = c + 1;
                            }
                        },
                    }
                }
                if let Some(p) = cta.prof.as_mut() {
                    if mem_opd.is_some() {
                        p.p.memory(i, active, &accesses);
                    } else {
                        p.p.issue(InstClass::of(i), active);
                    }
                    p.accesses = accesses;
                }
                // A divergent branch: the group reconverges at the post-dominator.
                if matches!(i.op, Opcode::Bra | Opcode::Ret | Opcode::Exit | Opcode::Call)
                    && i.guard.is_some()
                {
                    let mut first = None;
                    let mut diverged = false;
                    for_lanes(group, lo, |t| {
                        if th.st[t] == St::Run {
                            match first {
                                None => first = Some(th.pc[t]),
                                Some(p) if p != th.pc[t] => diverged = true,
                                _ => {}
                            }
                        }
                    });
                    if diverged && i.op == Opcode::Bra && i.has(Flag::Uni) {
                        return Err(i.err(
                            EmuErrorKind::DivergentUniform,
                            format!("bra.uni diverges: the active threads of warp {} branch differently", lo / 32),
                        ));
                    }
                    if diverged {
                        let r = prog.ipdom.get(pc).copied().unwrap_or(prog.insts.len());
                        let nested =
                            stack.last().is_some_and(|f| f.rpc == r && group & !f.mask == 0);
                        if !nested {
                            stack.push(Frame { rpc: r, mask: group });
                        }
                    }
                }
            }
            Class::Barrier => {
                if cta.prof.is_some() {
                    let active = count_guarded(cta, group, lo, i)?;
                    if let Some(p) = cta.prof.as_mut() {
                        p.p.issue(InstClass::of(i), active);
                    }
                }
                // The optional thread count `b`: `bar a, b` or `bar.red d, a, b, c`.
                let count = match i.has(Flag::Red) {
                    true if i.ops.len() == 4 => i.ops.get(2),
                    true => None,
                    false => i.ops.get(1),
                };
                if let Some(o) = count {
                    let t0 = lo + group.trailing_zeros() as usize;
                    let count = cta.val(t0, o, Type::U32, i)?;
                    if count as usize != th.pc.len().div_ceil(32) * 32 {
                        return Err(i.err(
                            EmuErrorKind::Unsupported,
                            "barriers with a thread count below the CTA size are not supported",
                        ));
                    }
                }
                for l in 0..32 {
                    if group & (1 << l) != 0 {
                        let t = lo + l;
                        if guard(cta, t, i)? {
                            th.st[t] = St::Bar;
                        } else {
                            th.pc[t] += 1;
                        }
                    }
                }
            }
            Class::Warpgroup => {
                if cta.prof.is_some() {
                    let active = count_guarded(cta, group, lo, i)?;
                    if let Some(p) = cta.prof.as_mut() {
                        p.p.issue(InstClass::of(i), active);
                    }
                }
                for_lanes(group, lo, |t| th.st[t] = St::Wg);
                if i.guard.is_some() {
                    return Err(i.err(EmuErrorKind::Unsupported, "a guarded wgmma.mma_async"));
                }
            }
            Class::Collective => {
                if cta.prof.is_some() {
                    let active = count_guarded(cta, group, lo, i)?;
                    if let Some(p) = cta.prof.as_mut() {
                        p.p.issue(InstClass::of(i), active);
                    }
                }
                for l in 0..32 {
                    if group & (1 << l) != 0 {
                        let t = lo + l;
                        if guard(cta, t, i)? {
                            th.st[t] = St::Coll;
                        } else {
                            th.pc[t] += 1;
                        }
                    }
                }
                try_fire(cta, th, lo, hi, pc)?;
            }
        }
    }
}

/// The lanes of `group` whose guard of `i` holds.
fn count_guarded(cta: &Cta, group: u32, lo: usize, i: &DInst) -> Result<u32, EmuError> {
    let mut n = 0;
    for l in 0..32 {
        if group & (1 << l) != 0 && guard(cta, lo + l, i)? {
            n += 1;
        }
    }
    Ok(n)
}

/// For a memory instruction the profiler follows (`ld`, `st`, `atom`, `red`): its address
/// operand and the bytes each lane accesses.
fn memory_operand(i: &DInst) -> Option<(usize, u32)> {
    let ty = i.tys.first()?;
    let vec = u32::from(i.vec.max(1));
    match i.op {
        Opcode::Ld => Some((1, ty.bytes() * vec)),
        Opcode::St => Some((0, ty.bytes() * vec)),
        Opcode::Atom => Some((1, ty.bytes())),
        Opcode::Red => Some((0, ty.bytes())),
        _ => None,
    }
}

/// The state space a generic address falls in, and the address there.
fn resolve(space: StateSpace, a: u64) -> (StateSpace, u64) {
    use super::memory::WINDOW;
    match space {
        StateSpace::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&a) => {
            (StateSpace::Shared, a - SHARED_WINDOW)
        }
        StateSpace::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&a) => {
            (StateSpace::Local, a - LOCAL_WINDOW)
        }
        StateSpace::Generic => (StateSpace::Global, a),
        s => (s, a),
    }
}

fn for_lanes(mask: u32, lo: usize, mut f: impl FnMut(usize)) {
    for l in 0..32 {
        if mask & (1 << l) != 0 {
            f(lo + l);
        }
    }
}

/// Runs the collective at `pc` when every lane of its member mask waits there.
fn try_fire(
    cta: &mut Cta,
    th: &mut Threads,
    lo: usize,
    hi: usize,
    pc: usize,
) -> Result<(), EmuError> {
    let prog = cta.prog;
    let Some(i) = prog.insts.get(pc) else { return Ok(()) };
    let mut waiting = 0u32;
    for t in lo..hi {
        if th.st[t] == St::Coll && th.pc[t] == pc {
            waiting |= 1 << (t - lo);
        }
    }
    if waiting == 0 {
        return Ok(());
    }
    let existing = if hi - lo == 32 { u32::MAX } else { (1u32 << (hi - lo)) - 1 };
    let mask_opd = match i.op {
        Opcode::Shfl => Some(4),
        Opcode::Vote | Opcode::Redux => Some(2),
        Opcode::Bar | Opcode::Barrier => Some(0),
        _ => None,
    };
    let required = match mask_opd {
        None => existing,
        Some(k) => {
            let mut mask = None;
            for l in 0..32 {
                if waiting & (1 << l) == 0 {
                    continue;
                }
                let m = cta.src(lo + l, i, k, Type::B32)? as u32;
                if m & (1 << l) == 0 {
                    return Err(i.err(EmuErrorKind::MemberMask, format!("lane {l} of warp {} executes it but is not in its member mask {m:#010x}", lo / 32)));
                }
                match mask {
                    None => mask = Some(m),
                    Some(m0) if m0 != m => {
                        return Err(i.err(EmuErrorKind::MemberMask, format!("lanes of warp {} use different member masks ({m0:#010x} and {m:#010x})", lo / 32)));
                    }
                    _ => {}
                }
            }
            let m = mask.unwrap_or(0);
            if m & !existing != 0 {
                return Err(i.err(EmuErrorKind::MemberMask, format!("member mask {m:#010x} names lanes that do not exist in warp {} ({} threads)", lo / 32, hi - lo)));
            }
            m
        }
    };
    for l in 0..32 {
        if required & (1 << l) != 0 && th.st[lo + l] == St::Exit {
            return Err(i.err(
                EmuErrorKind::MemberMask,
                format!("lane {l} of warp {} is in the member mask but has exited", lo / 32),
            ));
        }
    }
    if required & !waiting != 0 {
        return Ok(());
    }
    match i.op {
        Opcode::Shfl => shfl(cta, i, lo, waiting)?,
        Opcode::Vote => vote(cta, i, lo, waiting)?,
        Opcode::Redux => redux(cta, i, lo, waiting)?,
        Opcode::Mma => {
            if hi - lo != 32 {
                return Err(
                    i.err(EmuErrorKind::MemberMask, "mma.sync needs a full warp of 32 threads")
                );
            }
            mma(cta, i, lo)?;
            if let Some(p) = cta.prof.as_mut() {
                p.p.mma += 1;
            }
        }
        Opcode::Ldmatrix => {
            if hi - lo != 32 {
                return Err(
                    i.err(EmuErrorKind::MemberMask, "ldmatrix needs a full warp of 32 threads")
                );
            }
            ldmatrix(cta, i, lo)?
        }
        _ => {}
    }
    for_lanes(waiting, lo, |t| {
        th.st[t] = St::Run;
        th.pc[t] += 1;
    });
    Ok(())
}

fn shfl(cta: &mut Cta, i: &DInst, lo: usize, members: u32) -> Result<(), EmuError> {
    let mode = i.shfl.ok_or_else(|| i.unsupported())?;
    let mut out = Vec::new();
    for lane in 0..32u32 {
        if members & (1 << lane) == 0 {
            continue;
        }
        let t = lo + lane as usize;
        let b = (cta.src(t, i, 2, Type::B32)? & 0x1f) as i64;
        let c = cta.src(t, i, 3, Type::B32)? as u32;
        let (cval, seg) = (i64::from(c & 0x1f), i64::from((c >> 8) & 0x1f));
        let l = i64::from(lane);
        let max_lane = (l & seg) | (cval & !seg);
        let min_lane = l & seg;
        let (j, ok) = match mode {
            ShflMode::Up => (l - b, l - b >= max_lane),
            ShflMode::Down => (l + b, l + b <= max_lane),
            ShflMode::Bfly => (l ^ b, (l ^ b) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (b & !seg);
                (j, j <= max_lane)
            }
        };
        let j = if ok { j } else { l };
        // A source lane that does not execute this shfl (inactive, or exited): PTX leaves the
        // value undefined and WGSL calls it indeterminate; the lane gets its own value, as for
        // an out-of-range source. (A lane that executes the shfl outside the member mask is an
        // error above: that is a mask bug.)
        let j = if (0..32).contains(&j) && members & (1 << j) != 0 { j } else { l };
        if !(0..32).contains(&j) || members & (1 << j) == 0 {
            return Err(i.err(
                EmuErrorKind::MemberMask,
                format!("lane {lane} of warp {} reads lane {j}, which is not in the member mask {members:#010x}", lo / 32),
            ));
        }
        let v = cta.src(lo + j as usize, i, 1, Type::B32)?;
        out.push((t, v, ok));
    }
    for (t, v, ok) in out {
        match i.opd(0)? {
            Opd::Pair(d, p) => {
                let (d, p) = (*d, *p);
                cta.wr(t, d, v);
                cta.wr(t, p, u64::from(ok));
            }
            _ => cta.dst(t, i, 0, v)?,
        }
    }
    Ok(())
}

fn vote(cta: &mut Cta, i: &DInst, lo: usize, members: u32) -> Result<(), EmuError> {
    let mut ballot = 0u32;
    for l in 0..32 {
        if members & (1 << l) != 0 && cta.pred(lo + l, i.opd(1)?, i)? {
            ballot |= 1 << l;
        }
    }
    let v = match i.vote.ok_or_else(|| i.unsupported())? {
        VoteMode::All => u64::from(ballot == members),
        VoteMode::Any => u64::from(ballot != 0),
        VoteMode::Uni => u64::from(ballot == members || ballot == 0),
        VoteMode::Ballot => u64::from(ballot),
    };
    for_lanes_try(members, lo, |t| cta.dst(t, i, 0, v))
}

fn for_lanes_try(
    mask: u32,
    lo: usize,
    mut f: impl FnMut(usize) -> Result<(), EmuError>,
) -> Result<(), EmuError> {
    for l in 0..32 {
        if mask & (1 << l) != 0 {
            f(lo + l)?;
        }
    }
    Ok(())
}

fn redux(cta: &mut Cta, i: &DInst, lo: usize, members: u32) -> Result<(), EmuError> {
    let ty = i.ty(0)?;
    let op = i.atom.ok_or_else(|| i.unsupported())?;
    if Fmt::of(ty).is_some() || ty.bits() != 32 {
        return Err(i.unsupported());
    }
    let mut acc: Option<u64> = None;
    for l in 0..32 {
        if members & (1 << l) == 0 {
            continue;
        }
        let v = cta.src(lo + l, i, 1, ty)?;
        acc = Some(match acc {
            None => v,
            Some(a) => match op {
                AtomOp::Add => a.wrapping_add(v) & 0xffff_ffff,
                AtomOp::Min => {
                    if int_val(v, ty) < int_val(a, ty) {
                        v
                    } else {
                        a
                    }
                }
                AtomOp::Max => {
                    if int_val(v, ty) > int_val(a, ty) {
                        v
                    } else {
                        a
                    }
                }
                AtomOp::And => a & v,
                AtomOp::Or => a | v,
                AtomOp::Xor => a ^ v,
                _ => return Err(i.unsupported()),
            },
        });
    }
    let v = acc.unwrap_or(0);
    for_lanes_try(members, lo, |t| cta.dst(t, i, 0, v))
}

/// The registers of a fragment operand (a brace list).
fn frag_regs(i: &DInst, k: usize, n: usize) -> Result<&[Opd], EmuError> {
    match i.opd(k)? {
        Opd::Vector(v) if v.len() == n => Ok(v),
        _ => Err(i.err(
            EmuErrorKind::Unsupported,
            format!("operand {} must be a list of {n} registers", k + 1),
        )),
    }
}

/// Element `e` of a fragment: (register, bit shift) for elements of `eb` bits.
fn elem(e: usize, eb: usize) -> (usize, usize) {
    (e * eb / 32, (e * eb) % 32)
}

/// `mma.sync.aligned` m16n8k16 / m16n8k8 (f16, bf16 inputs; f32 or f16 accumulators),
/// m16n8k16 / m16n8k32 (s8, u8 inputs; s32 accumulators) and m16n8k8 (tf32 inputs, f32
/// accumulators), `.row.col`. Fragment layouts follow the PTX ISA tables (`g` = lane / 4,
/// `t` = lane % 4).
fn mma(cta: &mut Cta, i: &DInst, lo: usize) -> Result<(), EmuError> {
    let (m, n, k) = (usize::from(i.shape.0), usize::from(i.shape.1), usize::from(i.shape.2));
    if i.layouts != [Layout::Row, Layout::Col] || i.tys.len() != 4 || (m, n) != (16, 8) {
        return Err(i.unsupported());
    }
    let (dty, aty, bty, cty) = (i.tys[0], i.tys[1], i.tys[2], i.tys[3]);
    if aty == Type::Tf32 || bty == Type::Tf32 {
        return mma_tf32(cta, i, lo);
    }
    let int = matches!(aty, Type::S8 | Type::U8);
    let eb = if int { 8 } else { 16 };
    let ok = match (int, k) {
        (false, 8 | 16) => {
            matches!(aty, Type::F16 | Type::Bf16)
                && aty == bty
                && matches!(cty, Type::F32 | Type::F16)
                && (cty == dty)
        }
        (true, 16 | 32) => {
            matches!(bty, Type::S8 | Type::U8) && cty == Type::S32 && dty == Type::S32
        }
        _ => false,
    };
    if !ok {
        return Err(i.unsupported());
    }
    let in_fmt = Fmt::of(aty);
    let (a_elems, b_elems, c_elems) = (m * k / 32, k * n / 32, m * n / 32);
    let ceb = if cty == Type::F16 { 16 } else { 32 };
    let (a_regs, b_regs, c_regs) = (a_elems * eb / 32, b_elems * eb / 32, c_elems * ceb / 32);
    let mut a = vec![0f64; m * k];
    let mut b = vec![0f64; k * n];
    let mut c = vec![0f64; m * n];
    let read = |cta: &Cta, t: usize, regs: &[Opd], e: usize, eb: usize| -> Result<u64, EmuError> {
        let (r, sh) = elem(e, eb);
        let o = regs.get(r).ok_or_else(|| i.unsupported())?;
        Ok((cta.val(t, o, Type::B32, i)? >> sh) & mask(eb as u32))
    };
    let value = |bits: u64, ty: Type| -> f64 {
        match (ty, in_fmt) {
            (Type::S8, _) => (bits as u8 as i8) as f64,
            (Type::U8, _) => bits as u8 as f64,
            (_, Some(f)) => f.get(bits),
            _ => 0.0,
        }
    };
    let ar = frag_regs(i, 1, a_regs)?;
    let br = frag_regs(i, 2, b_regs)?;
    let cr = frag_regs(i, 3, c_regs)?;
    for lane in 0..32 {
        let t = lo + lane;
        let (g, tq) = (lane / 4, lane % 4);
        for e in 0..a_elems {
            let (row, col) = if int {
                (g + 8 * ((e >> 2) & 1), 4 * tq + (e & 3) + 16 * (e >> 3))
            } else {
                (g + 8 * ((e >> 1) & 1), 2 * tq + (e & 1) + 8 * (e >> 2))
            };
            a[row * k + col] = value(read(cta, t, ar, e, eb)?, aty);
        }
        for e in 0..b_elems {
            let (kk, col) = if int {
                (4 * tq + (e & 3) + 16 * (e >> 2), g)
            } else {
                (2 * tq + (e & 1) + 8 * (e >> 1), g)
            };
            b[kk * n + col] = value(read(cta, t, br, e, eb)?, bty);
        }
        for e in 0..c_elems {
            let (row, col) = (g + 8 * (e >> 1), 2 * tq + (e & 1));
            let bits = read(cta, t, cr, e, ceb)?;
            c[row * n + col] = match cty {
                Type::F32 => Fmt::F32.get(bits),
                Type::F16 => Fmt::F16.get(bits),
                _ => f64::from(bits as u32 as i32),
            };
        }
    }
    let dr = frag_regs(i, 0, c_regs)?.to_vec();
    let mut out = vec![0u64; 32 * c_regs];
    for lane in 0..32 {
        let (g, tq) = (lane / 4, lane % 4);
        for e in 0..c_elems {
            let (row, col) = (g + 8 * (e >> 1), 2 * tq + (e & 1));
            let mut acc = c[row * n + col];
            for kk in 0..k {
                acc += a[row * k + kk] * b[kk * n + col];
            }
            let bits = match dty {
                Type::F32 => Fmt::F32.round(acc, Rounding::Rn),
                Type::F16 => Fmt::F16.round(acc, Rounding::Rn),
                _ => {
                    let v = acc as i64;
                    if i.has(Flag::SatFinite) {
                        v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u64 & 0xffff_ffff
                    } else {
                        v as u64 & 0xffff_ffff
                    }
                }
            };
            let (r, sh) = elem(e, ceb);
            out[lane * c_regs + r] |= bits << sh;
        }
    }
    for lane in 0..32 {
        for (r, o) in dr.iter().enumerate() {
            match o {
                Opd::Reg(s) => cta.wr(lo + lane, *s, out[lane * c_regs + r]),
                _ => {
                    return Err(
                        i.err(EmuErrorKind::Unsupported, "mma destinations must be registers")
                    )
                }
            }
        }
    }
    Ok(())
}

/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`. PTX ISA "Matrix Fragments for
/// mma.m16n8k8", `.tf32`: A (16x8) a0 = (g, t), a1 = (g+8, t), a2 = (g, t+4),
/// a3 = (g+8, t+4); B (8x8) b0 = (t, g), b1 = (t+4, g); C and D c0 = (g, 2t),
/// c1 = (g, 2t+1), c2 = (g+8, 2t), c3 = (g+8, 2t+1). Inputs are rounded to TF32 as
/// `cvt.rna.tf32.f32` does; products and sums are exact in f64 and rounded once to f32.
fn mma_tf32(cta: &mut Cta, i: &DInst, lo: usize) -> Result<(), EmuError> {
    let tys = (i.tys[0], i.tys[1], i.tys[2], i.tys[3]);
    if i.shape != (16, 8, 8) || tys != (Type::F32, Type::Tf32, Type::Tf32, Type::F32) {
        return Err(i.unsupported());
    }
    let ar = frag_regs(i, 1, 4)?;
    let br = frag_regs(i, 2, 2)?;
    let cr = frag_regs(i, 3, 4)?;
    let dr = frag_regs(i, 0, 4)?.to_vec();
    let mut a = [[0f64; 8]; 16];
    let mut b = [[0f64; 8]; 8];
    let mut c = [[0f64; 8]; 16];
    let tf32 = |bits: u64| f64::from(f32::from_bits(tf32_rna(bits as u32)));
    for lane in 0..32 {
        let t = lo + lane;
        let (g, tq) = (lane / 4, lane % 4);
        for (e, (row, col)) in
            [(g, tq), (g + 8, tq), (g, tq + 4), (g + 8, tq + 4)].into_iter().enumerate()
        {
            a[row][col] = tf32(cta.val(t, &ar[e], Type::B32, i)?);
        }
        for (e, kk) in [tq, tq + 4].into_iter().enumerate() {
            b[kk][g] = tf32(cta.val(t, &br[e], Type::B32, i)?);
        }
        for (e, (row, col)) in c_coords(g, tq).into_iter().enumerate() {
            c[row][col] = Fmt::F32.get(cta.val(t, &cr[e], Type::B32, i)?);
        }
    }
    for lane in 0..32 {
        let (g, tq) = (lane / 4, lane % 4);
        for (e, (row, col)) in c_coords(g, tq).into_iter().enumerate() {
            // Every tf32 product is exact in f64 (11 x 11 significant bits); the sum is
            // rounded once to f32 (the ISA leaves the hardware's order and precision open).
            let acc = (0..8).fold(c[row][col], |s, kk| s + a[row][kk] * b[kk][col]);
            match &dr[e] {
                Opd::Reg(s) => cta.wr(lo + lane, *s, Fmt::F32.round(acc, Rounding::Rn)),
                _ => {
                    return Err(
                        i.err(EmuErrorKind::Unsupported, "mma destinations must be registers")
                    )
                }
            }
        }
    }
    Ok(())
}

/// The accumulator elements (c0..c3) of lane (g, t) for an m16n8 shape.
fn c_coords(g: usize, t: usize) -> [(usize, usize); 4] {
    [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]
}

/// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16`: lanes 8j..8j+7 supply the
/// row addresses of matrix j; lane l receives row l/4, columns 2(l%4) and 2(l%4)+1 of each
/// matrix (with `.trans`, stored rows 2(l%4)+i, column l/4).
fn ldmatrix(cta: &mut Cta, i: &DInst, lo: usize) -> Result<(), EmuError> {
    let num = usize::from(i.num);
    if i.shape != (8, 8, 0) || !matches!(num, 1 | 2 | 4) || i.tys.first() != Some(&Type::B16) {
        return Err(i.unsupported());
    }
    if !matches!(i.space, StateSpace::Shared | StateSpace::Generic) {
        return Err(i.unsupported());
    }
    let dr = frag_regs(i, 0, num)?.to_vec();
    // rows[j][r][c]
    let mut rows = vec![[[0u16; 8]; 8]; num];
    // The shared offset of every row, for the profiler.
    let mut offsets = vec![[0u64; 8]; num];
    for (j, mat) in rows.iter_mut().enumerate() {
        for (r, row) in mat.iter_mut().enumerate() {
            let t = lo + 8 * j + r;
            let (space, a) = cta.addr(t, i.opd(1)?, i)?;
            let shared_off = match space {
                StateSpace::Generic => a.wrapping_sub(super::memory::SHARED_WINDOW),
                _ => a,
            };
            if space == StateSpace::Generic && shared_off >= 0x1000_0000 {
                return Err(i.err(
                    EmuErrorKind::OutOfBounds,
                    format!(
                        "lane {} gives generic address {a:#x}, which is not in shared memory",
                        8 * j + r
                    ),
                ));
            }
            if shared_off % 16 != 0 {
                return Err(i.err(
                    EmuErrorKind::OutOfBounds,
                    format!(
                        "lane {} gives row address {a:#x}, which is not 16-byte aligned",
                        8 * j + r
                    ),
                ));
            }
            for (c, v) in row.iter_mut().enumerate() {
                *v = cta.load(t, StateSpace::Shared, shared_off + 2 * c as u64, 2, i)? as u16;
            }
            offsets[j][r] = shared_off;
        }
    }
    if let Some(p) = cta.prof.as_mut() {
        p.p.ldmatrix(&offsets);
    }
    let trans = i.has(Flag::Trans);
    for lane in 0..32 {
        for (j, o) in dr.iter().enumerate() {
            let m = &rows[j];
            let (x0, x1) = if trans {
                (m[2 * (lane % 4)][lane / 4], m[2 * (lane % 4) + 1][lane / 4])
            } else {
                (m[lane / 4][2 * (lane % 4)], m[lane / 4][2 * (lane % 4) + 1])
            };
            match o {
                Opd::Reg(s) => cta.wr(lo + lane, *s, u64::from(x0) | u64::from(x1) << 16),
                _ => {
                    return Err(
                        i.err(EmuErrorKind::Unsupported, "ldmatrix destinations must be registers")
                    )
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{run, EmuOptions};

    /// `x` rounded to a 10-bit mantissa, ties away from zero, computed in f64 arithmetic
    /// (independent of the bit manipulation in `tf32_rna`).
    fn tf32_ref(x: f32) -> f64 {
        let x = f64::from(x);
        if x == 0.0 {
            return x;
        }
        let q = 2f64.powi(x.abs().log2().floor() as i32 - 10);
        x.signum() * (x.abs() / q).round() * q
    }

    /// m16n8k8 tf32 with all-distinct, non-tf32-exact inputs: each lane loads its fragment
    /// by the ISA table (A through `cvt.rna.tf32.f32`, B raw, which `mma` rounds the same way)
    /// and stores D by the C table; compared with a plain Rust matrix product.
    #[test]
    fn mma_m16n8k8_tf32() {
        let a: Vec<f32> = (0..128).map(|i| (i as f32 * 0.7311 - 40.0) / 7.0).collect();
        let b: Vec<f32> = (0..64).map(|i| (i as f32 * 1.0137 - 30.0) / 3.0).collect();
        let c: Vec<f32> = (0..128).map(|i| i as f32 * 0.37 - 20.0).collect();
        // Input: A (16x8 row-major) at 0, B (8x8, [k][n]) at 512, C (16x8) at 768.
        let input: Vec<u8> = a.iter().chain(&b).chain(&c).flat_map(|x| x.to_le_bytes()).collect();
        let ld = |row: &str, col: &str, cols: u32, base: u32, dst: &str| {
            format!(
                "\tmad.lo.u32 %r40, {row}, {cols}, {col};\n\tmul.wide.u32 %rd10, %r40, 4;\n\
                 \tadd.s64 %rd10, %rd2, %rd10;\n\tld.global.f32 {dst}, [%rd10+{base}];\n"
            )
        };
        // g = %r1, t = %r2, g+8 = %r3, t+4 = %r4, 2t = %r5, 2t+1 = %r6.
        let mut body = String::from(
            "\tshr.u32 %r1, %r0, 2;\n\tand.b32 %r2, %r0, 3;\n\tadd.u32 %r3, %r1, 8;\n\
             \tadd.u32 %r4, %r2, 4;\n\tshl.b32 %r5, %r2, 1;\n\tadd.u32 %r6, %r5, 1;\n",
        );
        let a_map = [("%r1", "%r2"), ("%r3", "%r2"), ("%r1", "%r4"), ("%r3", "%r4")];
        for (e, (row, col)) in a_map.iter().enumerate() {
            body += &ld(row, col, 8, 0, &format!("%r{}", 10 + e));
            body += &format!("\tcvt.rna.tf32.f32 %r{0}, %r{0};\n", 10 + e);
        }
        body += &ld("%r2", "%r1", 8, 512, "%r14");
        body += &ld("%r4", "%r1", 8, 512, "%r15");
        let c_map = [("%r1", "%r5"), ("%r1", "%r6"), ("%r3", "%r5"), ("%r3", "%r6")];
        for (e, (row, col)) in c_map.iter().enumerate() {
            body += &ld(row, col, 8, 768, &format!("%r{}", 20 + e));
        }
        body += "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r30, %r31, %r32, %r33}, \
                 {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};\n";
        for (e, (row, col)) in c_map.iter().enumerate() {
            body += &format!(
                "\tmad.lo.u32 %r40, {row}, 8, {col};\n\tmul.wide.u32 %rd10, %r40, 4;\n\
                 \tadd.s64 %rd10, %rd1, %rd10;\n\tst.global.f32 [%rd10], %r{};\n",
                30 + e
            );
        }
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\
             \t.param .u64 p0,\n\t.param .u64 p1\n)\n.reqntid 32, 1, 1\n{{\n\
             \t.reg .b32 %r<64>;\n\t.reg .b64 %rd<16>;\n\
             \tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
             \tmov.u32 %r0, %tid.x;\n{body}\tret;\n}}\n"
        );
        let mut bufs = vec![vec![0u8; 512], input];
        if let Err(e) = run(&text, "k", &mut bufs, [1, 1, 1], [32, 1, 1], &EmuOptions::default()) {
            panic!("{e}\n{text}");
        }
        let got: Vec<f32> =
            bufs[0].chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        for r in 0..16 {
            for n in 0..8 {
                let mut acc = f64::from(c[r * 8 + n]);
                for k in 0..8 {
                    acc += tf32_ref(a[r * 8 + k]) * tf32_ref(b[k * 8 + n]);
                }
                assert_eq!(got[r * 8 + n], acc as f32, "D[{r}][{n}]");
            }
        }
        // The rounding mattered: the exact f32 product differs somewhere.
        let exact: f64 = (0..8).map(|k| f64::from(a[k]) * f64::from(b[k * 8])).sum();
        assert_ne!((exact + f64::from(c[0])) as f32, got[0]);
    }
}
