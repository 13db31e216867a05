//! The SASS instruction mix of a cubin: NVIDIA's `nvdisasm` disassembles the machine code
//! `ptxas` made, and this module reads its text per kernel (`.text.<kernel>` sections) into
//! [`Instruction`]s, sorts them into [`Class`]es, finds the loops, and counts the mix per
//! kernel and per loop ([`KernelMix`]).
//!
//! The counts are static: each instruction once, however often it runs. Loops come from
//! backward branches (a `BRA`/`JMP` whose target offset is at or before its own): the loop is
//! the address range from the target to the last branch back to it. A loop is *innermost*
//! when no other loop lies inside its range; the *main loop* of a kernel with tensor-core ops
//! is the loop holding tensor-core ops with no other such loop inside it (in a GEMM, the loop
//! over K, even when an inner loop copies the next tile; of two such loops with as many tensor
//! ops, the shorter: the check-free copy of a versioned loop). For it, "instructions per tensor
//! op" is the loop's static instruction count over its tensor-core op count: the overhead
//! each `mma` carries in the steady state.
//!
//! Not counted: the `BRA` to itself `ptxas` puts after the last `EXIT` and the `NOP`s that pad
//! the section after it (never executed).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ptxas::{self, PtxasError};
use crate::tools;

/// One SASS instruction as `nvdisasm` prints it:
/// `/*0140*/ @!P1 BRA `(.L_x_4) ;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Byte offset in the kernel's `.text` section.
    pub offset: u64,
    /// The guard predicate, without the `@` (`P0`, `!P1`, `!PT`), when there is one.
    pub predicate: Option<String>,
    /// The opcode with its modifiers: `HMMA.16816.F32`, `LDG.E.128`, `BAR.SYNC.DEFER_BLOCKING`.
    pub opcode: String,
    /// The operands as printed, split at the top-level commas.
    pub operands: Vec<String>,
    /// The label a branch, call or convergence barrier names (`.L_x_4` from `` `(.L_x_4) ``).
    pub target: Option<String>,
}

impl Instruction {
    /// The opcode without modifiers: `HMMA` for `HMMA.16816.F32`.
    pub fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(&self.opcode)
    }

    /// The modifiers after the base opcode: `["16816", "F32"]` for `HMMA.16816.F32`.
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.opcode.split('.').skip(1)
    }

    /// What kind of instruction this is.
    pub fn class(&self) -> Class {
        classify(self)
    }

    /// Whether this is a jump to a label (`BRA`, `JMP`): the instructions a loop is found from.
    fn jumps(&self) -> bool {
        matches!(self.base(), "BRA" | "JMP") && self.target.is_some()
    }
}

/// Access width in bits of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Width {
    /// `.U8`/`.S8`.
    B8,
    /// `.U16`/`.S16`.
    B16,
    /// No size modifier: one 32-bit word.
    B32,
    /// `.64`.
    B64,
    /// `.128`.
    B128,
}

impl Width {
    /// Every width, narrowest first.
    pub const ALL: [Width; 5] = [Width::B8, Width::B16, Width::B32, Width::B64, Width::B128];

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Width::B8 => 8,
            Width::B16 => 16,
            Width::B32 => 32,
            Width::B64 => 64,
            Width::B128 => 128,
        }
    }

    /// The width a memory opcode's modifiers say (`LDG.E.128` -> 128, `STS.U16` -> 16, `LDS`
    /// -> 32). Modifiers are compared whole, so a cache hint like `LTC128B` is not a width.
    fn of(i: &Instruction) -> Width {
        let mut w = Width::B32;
        for m in i.modifiers() {
            w = match m {
                "U8" | "S8" => Width::B8,
                "U16" | "S16" => Width::B16,
                "64" => Width::B64,
                "128" => Width::B128,
                _ => continue,
            };
        }
        w
    }

    fn index(self) -> usize {
        match self {
            Width::B8 => 0,
            Width::B16 => 1,
            Width::B32 => 2,
            Width::B64 => 3,
            Width::B128 => 4,
        }
    }
}

/// The kinds of instruction the mix counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Tensor-core matrix ops: `HMMA`, `IMMA`, `BMMA`, `DMMA` and sm_90's warpgroup `HGMMA`,
    /// `IGMMA`, `QGMMA`, `BGMMA`.
    Tensor,
    /// `LDSM` (`ldmatrix`): `.x1` prints as `LDSM.16.M88`, `.x2` as `.2`, `.x4` as `.4`.
    Ldsm(u8),
    /// Shared-memory load `LDS`.
    SharedLoad(Width),
    /// Shared-memory store `STS`.
    SharedStore(Width),
    /// Global load: `LDG`, the async global-to-shared copy `LDGSTS`, and generic-address `LD`
    /// (in compute kernels generic pointers reach global memory).
    GlobalLoad(Width),
    /// Global store: `STG` and generic-address `ST`.
    GlobalStore(Width),
    /// Local-memory load or store (`LDL`, `STL`): local arrays and register spills.
    Local,
    /// Atomics and reductions on memory: `ATOM`, `ATOMG`, `ATOMS`, `RED`, `REDG`.
    Atomic,
    /// Integer and address arithmetic, compares included (`IMAD` in all its forms, `IMAD.MOV`
    /// too, since it occupies the same pipe; `IADD3`, `VIADD`, `LEA`, `SHF`, `LOP3`, `ISETP`,
    /// `PRMT`, `POPC`, ..., and their uniform-datapath `U` forms): the loop and address
    /// overhead around the real work.
    Integer,
    /// Floating-point arithmetic and compares, f16x2 (`HFMA2`, ...) and f64 included, and the
    /// special-function unit (`MUFU`).
    Float,
    /// Conversions between number formats: `F2F`, `F2I`, `I2F`, `I2I`, `F2FP` (packing to
    /// f16x2/bf16x2), `I2IP`, `FRND`.
    Conversion,
    /// Control flow: `BRA`, `BRX`, `JMP`, `JMX`, `CALL`, `RET`, `EXIT`, `BREAK`, `KILL`, and the
    /// convergence ops `BSSY`, `BSYNC`, `WARPSYNC` the branches need.
    Branch,
    /// Barriers and fences: `BAR`, `MEMBAR`, `DEPBAR`, `LDGDEPBAR`, `ERRBAR`, `SYNCS`,
    /// `ARRIVES`.
    Barrier,
    /// Everything else: moves, constant loads (`LDC`, `ULDC`), special registers (`S2R`),
    /// predicate logic, shuffles, votes, `NOP`.
    Other,
}

const TENSOR: &[&str] = &["HMMA", "IMMA", "BMMA", "DMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA"];
const INTEGER: &[&str] = &[
    "IMAD",
    "IMADSP",
    "IMUL",
    "IADD",
    "IADD3",
    "IADD32I",
    "VIADD",
    "VIADDMNMX",
    "VIMNMX",
    "VIMNMX3",
    "LEA",
    "SHF",
    "SHL",
    "SHR",
    "LOP",
    "LOP3",
    "LOP32I",
    "ISETP",
    "ISET",
    "ICMP",
    "ISCADD",
    "IMNMX",
    "IABS",
    "POPC",
    "FLO",
    "BREV",
    "BMSK",
    "SGXT",
    "PRMT",
    "IDP",
    "IDP4A",
    "BFE",
    "BFI",
    "XMAD",
];
const FLOAT: &[&str] = &[
    "FADD",
    "FADD32I",
    "FMUL",
    "FMUL32I",
    "FFMA",
    "FFMA32I",
    "FMNMX",
    "FSETP",
    "FSET",
    "FSEL",
    "FCHK",
    "FSWZADD",
    "MUFU",
    "HADD2",
    "HADD2_32I",
    "HMUL2",
    "HMUL2_32I",
    "HFMA2",
    "HFMA2_32I",
    "HMNMX2",
    "HSETP2",
    "HSET2",
    "DADD",
    "DMUL",
    "DFMA",
    "DSETP",
    "DMNMX",
];
const CONVERSION: &[&str] = &["F2F", "F2I", "I2F", "I2I", "F2FP", "I2IP", "FRND", "F2IP", "I2FP"];
const BRANCH: &[&str] = &[
    "BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET", "EXIT", "BREAK", "KILL", "BSSY",
    "BSYNC", "WARPSYNC",
];
const BARRIER: &[&str] = &["BAR", "MEMBAR", "DEPBAR", "LDGDEPBAR", "ERRBAR", "SYNCS", "ARRIVES"];
const ATOMIC: &[&str] = &["ATOM", "ATOMG", "ATOMS", "RED", "REDG"];

fn classify(i: &Instruction) -> Class {
    let base = i.base();
    let is = |set: &[&str], op: &str| set.contains(&op);
    match base {
        "LDSM" => {
            let n = i.modifiers().find_map(|m| match m {
                "2" => Some(2),
                "4" => Some(4),
                _ => None,
            });
            return Class::Ldsm(n.unwrap_or(1));
        }
        "LDS" => return Class::SharedLoad(Width::of(i)),
        "STS" => return Class::SharedStore(Width::of(i)),
        "LDG" | "LDGSTS" | "LD" => return Class::GlobalLoad(Width::of(i)),
        "STG" | "ST" => return Class::GlobalStore(Width::of(i)),
        "LDL" | "STL" => return Class::Local,
        _ => {}
    }
    if is(TENSOR, base) {
        Class::Tensor
    } else if is(ATOMIC, base) {
        Class::Atomic
    } else if is(CONVERSION, base) {
        Class::Conversion
    } else if is(FLOAT, base) {
        Class::Float
    } else if is(BRANCH, base) {
        Class::Branch
    } else if is(BARRIER, base) {
        Class::Barrier
    } else if is(INTEGER, base) || base.strip_prefix('U').is_some_and(|b| is(INTEGER, b)) {
        // `UIADD3`, `ULEA`, ...: the same arithmetic on the uniform datapath.
        Class::Integer
    } else {
        Class::Other
    }
}

/// One kernel's code: its `.text.<kernel>` section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's name (the PTX entry name).
    pub name: String,
    /// The instructions in address order, without the end-of-section guard and padding.
    pub instructions: Vec<Instruction>,
    /// Each label's offset (the offset of the instruction after it).
    pub labels: BTreeMap<String, u64>,
}

/// Counts of accesses by width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Widths([u32; 5]);

impl Widths {
    /// The count at width `w`.
    pub fn get(&self, w: Width) -> u32 {
        self.0[w.index()]
    }

    /// All widths together.
    pub fn total(&self) -> u32 {
        self.0.iter().sum()
    }

    fn add(&mut self, w: Width) {
        self.0[w.index()] += 1;
    }

    /// `N` when `N` is 0, else `N [32:a 128:b]` listing the nonzero widths.
    pub fn cell(&self) -> String {
        let parts: Vec<String> = Width::ALL
            .iter()
            .filter(|w| self.get(**w) > 0)
            .map(|w| format!("{}:{}", w.bits(), self.get(*w)))
            .collect();
        if parts.is_empty() {
            "0".into()
        } else {
            format!("{} [{}]", self.total(), parts.join(" "))
        }
    }
}

/// How many instructions of each [`Class`] a stretch of code holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mix {
    /// Every instruction.
    pub total: u32,
    /// [`Class::Tensor`].
    pub tensor: u32,
    /// [`Class::Ldsm`] by matrix count: `.x1`, `.x2`, `.x4`.
    pub ldsm: [u32; 3],
    /// [`Class::SharedLoad`].
    pub lds: Widths,
    /// [`Class::SharedStore`].
    pub sts: Widths,
    /// [`Class::GlobalLoad`].
    pub ldg: Widths,
    /// [`Class::GlobalStore`].
    pub stg: Widths,
    /// [`Class::Local`].
    pub local: u32,
    /// [`Class::Atomic`].
    pub atomic: u32,
    /// [`Class::Integer`].
    pub integer: u32,
    /// [`Class::Float`].
    pub float: u32,
    /// [`Class::Conversion`].
    pub conversion: u32,
    /// [`Class::Branch`].
    pub branch: u32,
    /// [`Class::Barrier`].
    pub barrier: u32,
    /// [`Class::Other`].
    pub other: u32,
}

impl Mix {
    /// The mix of `instructions`.
    pub fn of<'a>(instructions: impl IntoIterator<Item = &'a Instruction>) -> Mix {
        let mut m = Mix::default();
        for i in instructions {
            m.add(i.class());
        }
        m
    }

    fn add(&mut self, c: Class) {
        self.total += 1;
        match c {
            Class::Tensor => self.tensor += 1,
            Class::Ldsm(n) => {
                let slot = match n {
                    1 => 0,
                    2 => 1,
                    _ => 2,
                };
                self.ldsm[slot] += 1;
            }
            Class::SharedLoad(w) => self.lds.add(w),
            Class::SharedStore(w) => self.sts.add(w),
            Class::GlobalLoad(w) => self.ldg.add(w),
            Class::GlobalStore(w) => self.stg.add(w),
            Class::Local => self.local += 1,
            Class::Atomic => self.atomic += 1,
            Class::Integer => self.integer += 1,
            Class::Float => self.float += 1,
            Class::Conversion => self.conversion += 1,
            Class::Branch => self.branch += 1,
            Class::Barrier => self.barrier += 1,
            Class::Other => self.other += 1,
        }
    }

    /// All `LDSM`s.
    pub fn ldsm_total(&self) -> u32 {
        self.ldsm.iter().sum()
    }

    /// Instructions per tensor-core op, when there are tensor-core ops.
    pub fn per_tensor(&self) -> Option<f64> {
        (self.tensor > 0).then(|| f64::from(self.total) / f64::from(self.tensor))
    }

    /// `N` when `N` is 0, else `N [x1:a x2:b x4:c]` listing the nonzero counts.
    pub fn ldsm_cell(&self) -> String {
        let parts: Vec<String> = ["x1", "x2", "x4"]
            .iter()
            .zip(self.ldsm)
            .filter(|(_, n)| *n > 0)
            .map(|(x, n)| format!("{x}:{n}"))
            .collect();
        if parts.is_empty() {
            "0".into()
        } else {
            format!("{} [{}]", self.ldsm_total(), parts.join(" "))
        }
    }
}

/// A loop: the address range from a backward branch's target to the last branch back to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// The loop head's label.
    pub head: String,
    /// Offset of the first instruction (the head).
    pub start: u64,
    /// Offset of the last backward branch to the head.
    pub end: u64,
    /// No other loop lies inside this one.
    pub innermost: bool,
    /// The kernel's main loop (see the module documentation).
    pub main: bool,
    /// The instructions in `start..=end`.
    pub mix: Mix,
}

/// A kernel's instruction mix, overall and per loop.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelMix {
    /// The kernel's name.
    pub kernel: String,
    /// The whole kernel.
    pub mix: Mix,
    /// Every loop, by start offset (one per loop head: branches back to the same head share it).
    pub loops: Vec<Loop>,
}

impl KernelMix {
    /// The main loop, when the kernel has tensor-core ops in a loop.
    pub fn main_loop(&self) -> Option<&Loop> {
        self.loops.iter().find(|l| l.main)
    }

    /// The innermost loops.
    pub fn innermost(&self) -> impl Iterator<Item = &Loop> {
        self.loops.iter().filter(|l| l.innermost)
    }
}

/// Why a SASS mix could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SassError {
    /// No `nvdisasm` binary was found (see [`tools::nvdisasm`]; `tools/setup.sh` installs one).
    NotFound,
    /// ptxas failed (or was not found) on the way to the cubin.
    Ptxas(PtxasError),
    /// A temporary file could not be written, or nvdisasm could not be started.
    Io {
        /// What was being done.
        context: String,
        /// The operating system's message.
        message: String,
    },
    /// nvdisasm exited with an error.
    Rejected {
        /// Exit status, when nvdisasm exited normally.
        status: Option<i32>,
        /// nvdisasm's messages.
        log: String,
    },
    /// The disassembly did not read as expected.
    Parse {
        /// The 1-based line of the disassembly.
        line: usize,
        /// What was wrong.
        message: String,
    },
}

impl fmt::Display for SassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SassError::NotFound => write!(
                f,
                "nvdisasm not found: run tools/setup.sh or set {} to an nvdisasm binary",
                tools::NVDISASM_ENV
            ),
            SassError::Ptxas(e) => write!(f, "{e}"),
            SassError::Io { context, message } => write!(f, "nvdisasm: {context}: {message}"),
            SassError::Rejected { status, log } => {
                match status {
                    Some(code) => write!(f, "nvdisasm failed (exit status {code})")?,
                    None => write!(f, "nvdisasm was terminated by a signal")?,
                }
                if !log.trim().is_empty() {
                    write!(f, ":\n{}", log.trim_end())?;
                }
                Ok(())
            }
            SassError::Parse { line, message } => {
                write!(f, "nvdisasm output, line {line}: {message}")
            }
        }
    }
}

impl std::error::Error for SassError {}

impl From<PtxasError> for SassError {
    fn from(e: PtxasError) -> Self {
        SassError::Ptxas(e)
    }
}

/// Reads `nvdisasm -c` text into its kernels, in section order.
pub fn parse(text: &str) -> Result<Vec<Kernel>, SassError> {
    let mut kernels: Vec<Kernel> = Vec::new();
    // Labels seen since the last instruction: they name the next one.
    let mut pending: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        // `.section NAME,...`, not `.sectionflags` or `.sectioninfo`.
        let section = t.strip_prefix(".section").filter(|r| r.starts_with(char::is_whitespace));
        if let Some(rest) = section {
            let name = rest.trim().split(',').next().unwrap_or("").trim();
            if let Some(k) = name.strip_prefix(".text.") {
                kernels.push(Kernel { name: k.to_string(), ..Kernel::default() });
            } else {
                // Data sections carry no code; their labels are not ours.
                kernels.push(Kernel::default());
            }
            pending.clear();
            continue;
        }
        let Some(kernel) = kernels.last_mut() else { continue };
        if kernel.name.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("/*") {
            let i =
                instruction(rest).map_err(|message| SassError::Parse { line: n + 1, message })?;
            for l in pending.drain(..) {
                kernel.labels.insert(l, i.offset);
            }
            kernel.instructions.push(i);
        } else if let Some(label) = t.strip_suffix(':') {
            if !label.is_empty() && !label.contains(char::is_whitespace) {
                pending.push(label.to_string());
            }
        }
    }
    kernels.retain(|k| !k.name.is_empty());
    for k in &mut kernels {
        drop_guard(k);
    }
    Ok(kernels)
}

/// Reads one instruction line after its leading `/*`: `0140*/ @!P1 BRA `(.L_x_4) ;`.
fn instruction(rest: &str) -> Result<Instruction, String> {
    let (offset, body) = rest.split_once("*/").ok_or("no end to the offset comment")?;
    let offset =
        u64::from_str_radix(offset.trim(), 16).map_err(|e| format!("offset '{offset}': {e}"))?;
    // A trailing `/* ... */` comment (encodings, with `-hex`) is not part of the instruction.
    let body = body.split("/*").next().unwrap_or(body).trim();
    let body = body.strip_suffix(';').unwrap_or(body).trim();
    let mut words = body.splitn(2, char::is_whitespace);
    let mut first = words.next().unwrap_or("");
    let mut rest = words.next().unwrap_or("").trim();
    let mut predicate = None;
    if let Some(p) = first.strip_prefix('@') {
        predicate = Some(p.to_string());
        let mut w = rest.splitn(2, char::is_whitespace);
        first = w.next().unwrap_or("");
        rest = w.next().unwrap_or("").trim();
    }
    if first.is_empty() {
        return Err(format!("no opcode in '{body}'"));
    }
    let operands: Vec<String> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(',').map(|o| o.trim().to_string()).collect()
    };
    let target = operands.iter().find_map(|o| {
        let inner = o.strip_prefix("`(")?;
        Some(inner.strip_suffix(')').unwrap_or(inner).to_string())
    });
    Ok(Instruction { offset, predicate, opcode: first.to_string(), operands, target })
}

/// Removes the unconditional branch to itself after the last `EXIT` and the `NOP` padding
/// after it: never executed, so not part of the kernel's mix.
fn drop_guard(k: &mut Kernel) {
    let Some(last_real) = k.instructions.iter().rposition(|i| i.base() != "NOP") else {
        return;
    };
    let guard = &k.instructions[last_real];
    let to_itself = guard.predicate.is_none()
        && guard.base() == "BRA"
        && guard.target.as_ref().and_then(|t| k.labels.get(t)) == Some(&guard.offset);
    if to_itself {
        k.instructions.truncate(last_real);
    }
}

/// The loops of `k` (see the module documentation), by start offset.
pub fn loops(k: &Kernel) -> Vec<Loop> {
    // Head offset -> (label, last backward branch).
    let mut heads: BTreeMap<u64, (String, u64)> = BTreeMap::new();
    for i in k.instructions.iter().filter(|i| i.jumps()) {
        let Some(label) = &i.target else { continue };
        let Some(&target) = k.labels.get(label) else { continue };
        if target <= i.offset {
            let e = heads.entry(target).or_insert_with(|| (label.clone(), i.offset));
            e.1 = e.1.max(i.offset);
        }
    }
    let mut out: Vec<Loop> = heads
        .into_iter()
        .map(|(start, (head, end))| Loop {
            head,
            start,
            end,
            innermost: false,
            main: false,
            mix: Mix::of(k.instructions.iter().filter(|i| (start..=end).contains(&i.offset))),
        })
        .collect();
    let inside = |a: &Loop, b: &Loop| b.start >= a.start && b.end <= a.end && a != b;
    for j in 0..out.len() {
        out[j].innermost = !out.iter().any(|other| inside(&out[j], other));
    }
    // The main loop: tensor ops, and no loop with tensor ops inside it; the one with the most
    // tensor ops when there are several, and of those the shortest: a versioned loop (the
    // check-free copy and the checked one, `docs/bounds.md`) counts as its check-free copy,
    // which every workgroup whose accesses the hoisted test proves runs.
    let candidates: Vec<usize> = (0..out.len())
        .filter(|&j| out[j].mix.tensor > 0)
        .filter(|&j| !out.iter().any(|o| o.mix.tensor > 0 && inside(&out[j], o)))
        .collect();
    let best = candidates.iter().copied().reduce(|a, b| {
        let (ta, tb) = (out[a].mix.tensor, out[b].mix.tensor);
        if tb > ta || (tb == ta && out[b].mix.total < out[a].mix.total) {
            b
        } else {
            a
        }
    });
    if let Some(b) = best {
        out[b].main = true;
    }
    out
}

/// The mix of a kernel, overall and per loop.
pub fn analyze(k: &Kernel) -> KernelMix {
    KernelMix { kernel: k.name.clone(), mix: Mix::of(&k.instructions), loops: loops(k) }
}

/// Runs `nvdisasm -c` (code sections only) on `cubin` with the binary [`tools::nvdisasm`]
/// finds.
pub fn disassemble(cubin: &[u8]) -> Result<String, SassError> {
    let nvdisasm = tools::nvdisasm().ok_or(SassError::NotFound)?;
    disassemble_with(&nvdisasm, cubin)
}

/// [`disassemble`] with an explicit `nvdisasm` binary.
pub fn disassemble_with(nvdisasm: &Path, cubin: &[u8]) -> Result<String, SassError> {
    let file = TempFile::new(cubin)?;
    let out = Command::new(nvdisasm).arg("-c").arg(&file.path).output().map_err(|e| {
        SassError::Io { context: format!("running {}", nvdisasm.display()), message: e.to_string() }
    })?;
    if !out.status.success() {
        let mut log = String::from_utf8_lossy(&out.stderr).into_owned();
        log.push_str(&String::from_utf8_lossy(&out.stdout));
        return Err(SassError::Rejected { status: out.status.code(), log });
    }
    // stderr holds only warnings (the CUDA 13 nvdisasm on a CUDA 12 cubin says it switches
    // to the "Old format"), nothing the mix needs.
    String::from_utf8(out.stdout)
        .map_err(|e| SassError::Parse { line: 0, message: format!("not UTF-8 text: {e}") })
}

/// The mix of every kernel in `cubin`.
pub fn of_cubin(cubin: &[u8]) -> Result<Vec<KernelMix>, SassError> {
    Ok(parse(&disassemble(cubin)?)?.iter().map(analyze).collect())
}

/// The mix of every kernel of `ptx`, assembled by `ptxas` for `sm_<sm>`.
pub fn of_ptx(ptx: &str, sm: u32) -> Result<Vec<KernelMix>, SassError> {
    of_cubin(&ptxas::assemble(ptx, sm)?.cubin)
}

/// A cubin written to a fresh file under the temporary directory, removed on drop
/// (nvdisasm reads files only).
struct TempFile {
    path: PathBuf,
}

impl TempFile {
    fn new(bytes: &[u8]) -> Result<TempFile, SassError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let io = |e: std::io::Error| SassError::Io {
            context: "writing the cubin to a temporary file".into(),
            message: e.to_string(),
        };
        for _ in 0..16 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path =
                std::env::temp_dir().join(format!("dianran-sass-{}-{n}.cubin", std::process::id()));
            // `create_new` fails rather than overwrite a file another process left or owns.
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    use std::io::Write;
                    let file = TempFile { path };
                    f.write_all(bytes).map_err(io)?;
                    return Ok(file);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io(e)),
            }
        }
        Err(SassError::Io {
            context: "writing the cubin to a temporary file".into(),
            message: format!("no free name under {}", std::env::temp_dir().display()),
        })
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The columns of [`table`].
pub const HEADER: &str = "KERNEL\tSCOPE\tTOTAL\tTENSOR\tLDSM\tLDS\tSTS\tLDG\tSTG\tLOCAL\tATOMIC\
                          \tINTEGER\tFLOAT\tCONVERSION\tBRANCH\tBARRIER\tOTHER\tPER_TENSOR";

/// The mixes as a tab-separated table after a [`HEADER`] line: per kernel one `kernel` row,
/// then one row per innermost loop and for the main loop (`loop 0x2080-0x3f60 innermost`,
/// `... main`, `... innermost main`). Width cells read `N [32:a 128:b]` (accesses by width in
/// bits), the `LDSM` cell `N [x1:a x4:b]`, `PER_TENSOR` is instructions per tensor-core op
/// (`-` without any).
pub fn table(kernels: &[KernelMix]) -> String {
    let mut out = format!("{HEADER}\n");
    for k in kernels {
        row(&mut out, &k.kernel, "kernel", &k.mix);
        for l in k.loops.iter().filter(|l| l.innermost || l.main) {
            let mut scope = format!("loop {:#06x}-{:#06x}", l.start, l.end);
            if l.innermost {
                scope.push_str(" innermost");
            }
            if l.main {
                scope.push_str(" main");
            }
            row(&mut out, &k.kernel, &scope, &l.mix);
        }
    }
    out
}

fn row(out: &mut String, kernel: &str, scope: &str, m: &Mix) {
    let per = m.per_tensor().map_or("-".to_string(), |p| format!("{p:.2}"));
    out.push_str(&format!(
        "{kernel}\t{scope}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{per}\n",
        m.total,
        m.tensor,
        m.ldsm_cell(),
        m.lds.cell(),
        m.sts.cell(),
        m.ldg.cell(),
        m.stg.cell(),
        m.local,
        m.atomic,
        m.integer,
        m.float,
        m.conversion,
        m.branch,
        m.barrier,
        m.other,
    ));
}

#[cfg(test)]
mod tests;
