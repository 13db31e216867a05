//! Performance counters of an emulated launch ([`super::run_profiled`], `dianran run
//! --profile`): what a profiler on the hardware would count, from the instructions the
//! emulator issues and the addresses their lanes touch.
//!
//! * `warp_instructions`: warp-level instructions issued, predicated-off ones included (a
//!   warp that issues an instruction for a divergent group of lanes counts once per group),
//!   by [`InstClass`]; `thread_instructions`: the lanes whose guard held, summed.
//! * Global memory (`ld`/`st`/`atom`/`red` in `.global`, or generic addresses outside the
//!   shared and local windows): one request per warp-level instruction with at least one
//!   active lane; the distinct 32-byte sectors its lanes touch; the minimum sectors for the
//!   distinct bytes it uses (rounded up to whole sectors per request). The sector efficiency
//!   is minimum over touched, in percent (100 when there is no global access).
//! * Shared memory: 32 banks of 4 bytes. Accesses of up to 4 bytes per lane are served for
//!   the whole warp at once, 8-byte ones per half-warp and 16-byte ones per quarter-warp
//!   (each such phase moves at most 128 bytes); a phase needs as many wavefronts as the most
//!   distinct 4-byte words any one bank holds among its lanes' bytes (lanes reading the same
//!   word share it, a broadcast). `ldmatrix` reads each 8x8 matrix as one phase of 8 rows of
//!   16 bytes. Bank conflicts are the wavefronts beyond one per phase (NVIDIA's CUDA C++
//!   Best Practices Guide, "Shared Memory and Memory Banks"; Nsight Compute's
//!   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"). `ldmatrix`'s part is also reported
//!   alone.
//! * `mma`, `ldmatrix`: warp-level executions; `barriers`: CTA-wide barriers opened (each
//!   `bar.sync` every live thread of a CTA reached counts once per CTA, whatever the number
//!   of warps); `local_requests` and `atomics`: warp-level local accesses and atomics with at
//!   least one active lane.

use super::decode::DInst;
use dianran_ptx::{Opcode, StateSpace, Type};
use std::fmt;

/// What a warp instruction does, for `warp_instructions.<class>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstClass {
    /// Integer and bitwise arithmetic, comparisons, `selp`, `cvta`, `prmt`.
    Int,
    /// f32 and f64 arithmetic and comparisons.
    Float,
    /// f16, bf16 and packed `f16x2`/`bf16x2` arithmetic and comparisons.
    Half,
    /// Special-function-unit math: `sqrt`, `rsqrt`, `rcp`, `ex2`, `lg2`, `sin`, `cos`, `tanh`.
    Sfu,
    /// `cvt`.
    Convert,
    /// `mov` (register copies, special registers, packing and unpacking).
    Move,
    /// Global memory: `ld`, `st`, `atom`, `red` on global addresses.
    Global,
    /// Shared memory: `ld`, `st`, `atom`, `red` on shared addresses, and `ldmatrix`.
    Shared,
    /// Local memory (per-thread arrays and spills).
    Local,
    /// Reads of `.const` and `.param` memory (kernel and function parameters).
    Constant,
    /// Tensor-core `mma`.
    Tensor,
    /// `bra`, `call`, `ret`, `exit`, `trap`.
    Control,
    /// `bar`, `barrier`, `membar`, `fence`.
    Sync,
    /// Warp-collective data exchange: `shfl`, `vote`, `redux`, `activemask`.
    Warp,
}

impl InstClass {
    /// Every class, in the order the counters are printed.
    pub const ALL: [InstClass; 14] = [
        InstClass::Int,
        InstClass::Float,
        InstClass::Half,
        InstClass::Sfu,
        InstClass::Convert,
        InstClass::Move,
        InstClass::Global,
        InstClass::Shared,
        InstClass::Local,
        InstClass::Constant,
        InstClass::Tensor,
        InstClass::Control,
        InstClass::Sync,
        InstClass::Warp,
    ];

    /// The name in `warp_instructions.<name>`.
    pub fn name(self) -> &'static str {
        match self {
            InstClass::Int => "int",
            InstClass::Float => "float",
            InstClass::Half => "half",
            InstClass::Sfu => "sfu",
            InstClass::Convert => "convert",
            InstClass::Move => "move",
            InstClass::Global => "global",
            InstClass::Shared => "shared",
            InstClass::Local => "local",
            InstClass::Constant => "constant",
            InstClass::Tensor => "tensor",
            InstClass::Control => "control",
            InstClass::Sync => "sync",
            InstClass::Warp => "warp",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The class of a memory instruction in `space` (after resolving generic addresses).
    fn of_space(space: StateSpace) -> InstClass {
        match space {
            StateSpace::Shared => InstClass::Shared,
            StateSpace::Local => InstClass::Local,
            StateSpace::Const | StateSpace::Param => InstClass::Constant,
            _ => InstClass::Global,
        }
    }

    /// The class of `i`; memory instructions by their written state space (generic ones as
    /// global until their addresses say otherwise).
    pub(crate) fn of(i: &DInst) -> InstClass {
        let ty = i.tys.first().copied();
        match i.op {
            Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red => InstClass::of_space(i.space),
            Opcode::Ldmatrix => InstClass::Shared,
            // `cp.async` copies read global memory (their shared writes bypass the registers);
            // its commits and waits order, as barriers do.
            Opcode::Cp
                if i.has(dianran_ptx::Flag::CommitGroup)
                    || i.has(dianran_ptx::Flag::WaitGroup)
                    || i.has(dianran_ptx::Flag::WaitAll) =>
            {
                InstClass::Sync
            }
            Opcode::Cp => InstClass::Global,
            Opcode::Mma | Opcode::Wgmma => InstClass::Tensor,
            Opcode::Mov => InstClass::Move,
            Opcode::Cvt => InstClass::Convert,
            Opcode::Sqrt
            | Opcode::Rsqrt
            | Opcode::Rcp
            | Opcode::Ex2
            | Opcode::Lg2
            | Opcode::Sin
            | Opcode::Cos
            | Opcode::Tanh => InstClass::Sfu,
            Opcode::Bra | Opcode::Call | Opcode::Ret | Opcode::Exit | Opcode::Trap => {
                InstClass::Control
            }
            Opcode::Bar | Opcode::Barrier | Opcode::Membar | Opcode::Fence => InstClass::Sync,
            Opcode::Shfl | Opcode::Vote | Opcode::Redux | Opcode::Activemask => InstClass::Warp,
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Mad
            | Opcode::Fma
            | Opcode::Div
            | Opcode::Rem
            | Opcode::Neg
            | Opcode::Abs
            | Opcode::Min
            | Opcode::Max
            | Opcode::Setp
            | Opcode::Set
            | Opcode::Testp
            | Opcode::Copysign => match ty {
                Some(Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2) => InstClass::Half,
                Some(Type::F32 | Type::F64) => InstClass::Float,
                _ => InstClass::Int,
            },
            _ => InstClass::Int,
        }
    }
}

/// The counters of one launch (see the module documentation for what each counts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Warp instructions issued per [`InstClass`], indexed like [`InstClass::ALL`].
    pub by_class: [u64; InstClass::ALL.len()],
    /// Lanes that executed an instruction (guard true), summed over warp instructions.
    pub thread_instructions: u64,
    /// Warp-level global accesses with at least one active lane.
    pub global_requests: u64,
    /// Distinct 32-byte sectors touched, summed over global requests.
    pub global_sectors: u64,
    /// Minimum sectors for the distinct bytes of each global request, summed.
    pub global_sectors_min: u64,
    /// Distinct bytes of each global request, summed.
    pub global_bytes: u64,
    /// Warp-level local accesses with at least one active lane.
    pub local_requests: u64,
    /// Warp-level shared accesses (`ldmatrix` included) with at least one active lane.
    pub shared_requests: u64,
    /// Shared-memory wavefronts of those requests.
    pub shared_wavefronts: u64,
    /// The wavefronts they would need without bank conflicts (one per phase).
    pub shared_wavefronts_ideal: u64,
    /// The part of `shared_wavefronts` that `ldmatrix` needs.
    pub ldmatrix_wavefronts: u64,
    /// The part of `shared_wavefronts_ideal` that `ldmatrix` needs.
    pub ldmatrix_wavefronts_ideal: u64,
    /// Warp-level `atom`/`red` with at least one active lane (any state space).
    pub atomics: u64,
    /// Warp-level `mma` executions.
    pub mma: u64,
    /// Warp-level `ldmatrix` executions.
    pub ldmatrix: u64,
    /// CTA-wide barriers opened.
    pub barriers: u64,
}

impl Profile {
    /// Minimum sectors over touched sectors of the global requests, in percent (100 when
    /// there are none).
    pub fn global_sector_efficiency(&self) -> f64 {
        if self.global_sectors == 0 {
            100.0
        } else {
            100.0 * self.global_sectors_min as f64 / self.global_sectors as f64
        }
    }

    /// Shared-memory wavefronts beyond the ideal: the bank conflicts (`ldmatrix` included).
    pub fn shared_bank_conflicts(&self) -> u64 {
        self.shared_wavefronts - self.shared_wavefronts_ideal
    }

    /// The bank conflicts of `ldmatrix` alone.
    pub fn ldmatrix_bank_conflicts(&self) -> u64 {
        self.ldmatrix_wavefronts - self.ldmatrix_wavefronts_ideal
    }

    /// Warp instructions of class `c`.
    pub fn class(&self, c: InstClass) -> u64 {
        self.by_class[c.index()]
    }

    /// Every counter as `(name, value)`, in print order. Names are stable: scripts read them.
    pub fn counters(&self) -> Vec<(String, String)> {
        let mut out = vec![("warp_instructions".to_string(), self.warp_instructions.to_string())];
        for c in InstClass::ALL {
            out.push((format!("warp_instructions.{}", c.name()), self.class(c).to_string()));
        }
        let n = |name: &str, v: u64| (name.to_string(), v.to_string());
        out.extend([
            n("thread_instructions", self.thread_instructions),
            n("global_requests", self.global_requests),
            n("global_sectors", self.global_sectors),
            n("global_sectors_min", self.global_sectors_min),
            n("global_bytes", self.global_bytes),
            (
                "global_sector_efficiency".to_string(),
                format!("{:.1}", self.global_sector_efficiency()),
            ),
            n("local_requests", self.local_requests),
            n("shared_requests", self.shared_requests),
            n("shared_wavefronts", self.shared_wavefronts),
            n("shared_bank_conflicts", self.shared_bank_conflicts()),
            n("ldmatrix_bank_conflicts", self.ldmatrix_bank_conflicts()),
            n("mma", self.mma),
            n("ldmatrix", self.ldmatrix),
            n("barriers", self.barriers),
            n("atomics", self.atomics),
        ]);
        out
    }

    /// Counts one issued warp instruction of class `c` executed by `active` lanes.
    pub(crate) fn issue(&mut self, c: InstClass, active: u32) {
        self.warp_instructions += 1;
        self.by_class[c.index()] += 1;
        self.thread_instructions += u64::from(active);
    }

    /// Counts a warp-level `ld`/`st`/`atom`/`red` whose active lanes made `accesses`
    /// (lane, resolved state space, address or offset there, bytes).
    pub(crate) fn memory(&mut self, i: &DInst, active: u32, accesses: &[Access]) {
        let class = accesses.first().map_or(InstClass::of(i), |a| InstClass::of_space(a.space));
        self.issue(class, active);
        if accesses.is_empty() {
            return;
        }
        if matches!(i.op, Opcode::Atom | Opcode::Red) {
            self.atomics += 1;
        }
        let global: Vec<&Access> =
            accesses.iter().filter(|a| a.space == StateSpace::Global).collect();
        if !global.is_empty() {
            let (sectors, bytes) = sectors_and_bytes(&global);
            self.global_requests += 1;
            self.global_sectors += sectors;
            self.global_bytes += bytes;
            self.global_sectors_min += bytes.div_ceil(32);
        }
        let shared: Vec<&Access> =
            accesses.iter().filter(|a| a.space == StateSpace::Shared).collect();
        if !shared.is_empty() {
            let (w, ideal) = shared_wavefronts(&shared);
            self.shared_requests += 1;
            self.shared_wavefronts += w;
            self.shared_wavefronts_ideal += ideal;
        }
        if accesses.iter().any(|a| a.space == StateSpace::Local) {
            self.local_requests += 1;
        }
    }

    /// Counts one `ldmatrix`: `rows[j]` holds the shared offsets of matrix `j`'s 8 rows.
    pub(crate) fn ldmatrix(&mut self, rows: &[[u64; 8]]) {
        self.ldmatrix += 1;
        self.shared_requests += 1;
        for m in rows {
            let phase: Vec<Access> = m
                .iter()
                .enumerate()
                .map(|(r, &a)| Access {
                    lane: r as u8,
                    space: StateSpace::Shared,
                    addr: a,
                    size: 16,
                })
                .collect();
            let w = phase_wavefronts(phase.iter());
            self.shared_wavefronts += w;
            self.shared_wavefronts_ideal += 1;
            self.ldmatrix_wavefronts += w;
            self.ldmatrix_wavefronts_ideal += 1;
        }
    }

    /// Adds `other`'s counts to these (several launches as one).
    pub fn add(&mut self, other: &Profile) {
        self.warp_instructions += other.warp_instructions;
        for (a, b) in self.by_class.iter_mut().zip(other.by_class) {
            *a += b;
        }
        self.thread_instructions += other.thread_instructions;
        self.global_requests += other.global_requests;
        self.global_sectors += other.global_sectors;
        self.global_sectors_min += other.global_sectors_min;
        self.global_bytes += other.global_bytes;
        self.local_requests += other.local_requests;
        self.shared_requests += other.shared_requests;
        self.shared_wavefronts += other.shared_wavefronts;
        self.shared_wavefronts_ideal += other.shared_wavefronts_ideal;
        self.ldmatrix_wavefronts += other.ldmatrix_wavefronts;
        self.ldmatrix_wavefronts_ideal += other.ldmatrix_wavefronts_ideal;
        self.atomics += other.atomics;
        self.mma += other.mma;
        self.ldmatrix += other.ldmatrix;
        self.barriers += other.barriers;
    }
}

/// `COUNTER<TAB>VALUE` lines, one per counter.
impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in self.counters() {
            writeln!(f, "{k}\t{v}")?;
        }
        Ok(())
    }
}

/// One lane's memory access.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// Lane in the warp (0..32).
    pub lane: u8,
    /// Global, shared, local, const or param (generic addresses resolved).
    pub space: StateSpace,
    /// Address in `space` (global: the emulator's global address; shared: the offset).
    pub addr: u64,
    /// Bytes the lane accesses from `addr`.
    pub size: u32,
}

/// Distinct 32-byte sectors and distinct bytes of one request.
fn sectors_and_bytes(acc: &[&Access]) -> (u64, u64) {
    let mut ranges: Vec<(u64, u64)> =
        acc.iter().map(|a| (a.addr, a.addr.saturating_add(u64::from(a.size.max(1))))).collect();
    ranges.sort_unstable();
    let (mut bytes, mut sectors) = (0u64, 0u64);
    // Merged byte ranges in address order; a sector shared by two ranges counts once.
    let mut cur: Option<(u64, u64)> = None;
    let mut last_sector: Option<u64> = None;
    let mut flush = |(s, e): (u64, u64), last: &mut Option<u64>| {
        bytes += e - s;
        let (first, end) = (s / 32, (e - 1) / 32);
        let first = match *last {
            Some(l) if l >= first => l + 1,
            _ => first,
        };
        if end >= first {
            sectors += end - first + 1;
        }
        *last = Some(last.map_or(end, |l| l.max(end)));
    };
    for r in ranges {
        cur = match cur {
            Some((s, e)) if r.0 <= e => Some((s, e.max(r.1))),
            Some(c) => {
                flush(c, &mut last_sector);
                Some(r)
            }
            None => Some(r),
        };
    }
    if let Some(c) = cur {
        flush(c, &mut last_sector);
    }
    (sectors, bytes)
}

/// Wavefronts and ideal wavefronts of one shared request: lanes go in phases of
/// 128 / bytes-per-lane lanes (32 for up to 4 bytes, 16 for 8, 8 for 16).
fn shared_wavefronts(acc: &[&Access]) -> (u64, u64) {
    let size = acc.iter().map(|a| a.size).max().unwrap_or(4).max(4);
    let per_phase = (128 / size).clamp(1, 32) as u8;
    let (mut w, mut ideal) = (0, 0);
    for p in 0..32u8.div_ceil(per_phase) {
        let lanes = p * per_phase..(p + 1) * per_phase;
        let phase = acc.iter().copied().filter(|a| lanes.contains(&a.lane));
        let n = phase_wavefronts(phase);
        if n > 0 {
            w += n;
            ideal += 1;
        }
    }
    (w, ideal)
}

/// Wavefronts of one phase: the most distinct 4-byte words in any one bank (0 for no
/// access).
fn phase_wavefronts<'a>(acc: impl Iterator<Item = &'a Access>) -> u64 {
    let mut words: Vec<u64> = Vec::with_capacity(64);
    for a in acc {
        let first = a.addr / 4;
        let last = (a.addr + u64::from(a.size.max(1)) - 1) / 4;
        words.extend(first..=last);
    }
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u64; 32];
    for w in words {
        per_bank[(w % 32) as usize] += 1;
    }
    per_bank.into_iter().max().unwrap_or(0)
}
