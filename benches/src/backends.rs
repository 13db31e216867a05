//! The `backends` bench's table: for each kernel pair, compile time and `ptxas -v`
//! registers/spills of our PTX backend, of the LLVM backend (`dianran-llvm`, with the `llvm`
//! feature) and of NVRTC on the CUDA equivalent.
//!
//! Every cell is either a number or a short reason (`skipped`, the first words of a
//! diagnostic); nothing here panics on a kernel a compiler rejects. The full reasons are in
//! [`notes`].

use std::time::{Duration, Instant};

use dianran_verify::ptxas::{self, PtxasError, PtxasStats};

use crate::kernels::{self, Pair};
use crate::nvrtc::{self, NvrtcError};
use crate::pipeline;
use crate::table::{ratio, Table};

/// Environment variable overriding [`DEFAULT_RUNS`].
pub const RUNS_ENV: &str = "DIANRAN_BENCH_RUNS";

/// Timed compiles per kernel and compiler (after one warm-up compile): the median of 7 keeps
/// the whole bench (10 pairs, 2 architectures, NVRTC at up to 0.4 s a compile) to a few
/// minutes on 2 cores.
pub const DEFAULT_RUNS: usize = 7;

/// Runs per compile: `$DIANRAN_BENCH_RUNS` when it is a positive number, else
/// [`DEFAULT_RUNS`].
pub fn runs() -> usize {
    std::env::var(RUNS_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(DEFAULT_RUNS)
}

/// The three compilers of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// dianran's own backend: WGSL text -> PTX text (frontend + codegen).
    Ours,
    /// dianran's frontend, then `dianran_llvm::compile_module` (IR, libdevice, O3, NVPTX).
    Llvm,
    /// NVRTC on the pair's CUDA C++ equivalent.
    Nvrtc,
}

impl Compiler {
    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Compiler::Ours => "ours",
            Compiler::Llvm => "LLVM",
            Compiler::Nvrtc => "NVRTC",
        }
    }
}

/// PTX text and the name of the kernel to look up in ptxas's report.
#[derive(Clone, Debug)]
pub struct Ptx {
    /// The module.
    pub text: String,
    /// The pair's kernel in it.
    pub kernel: String,
}

/// What one compiler gave for one kernel at one architecture.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Median compile time, or why there is none.
    pub time: Result<Duration, String>,
    /// `ptxas -v` on the PTX, or why there is none.
    pub ptxas: Result<PtxasStats, String>,
}

/// One kernel at one architecture.
#[derive(Clone, Debug)]
pub struct Row {
    /// The sample's name without `.wgsl`.
    pub kernel: String,
    /// The architecture (80, 90).
    pub sm: u32,
    /// Our backend.
    pub ours: Measured,
    /// The LLVM backend.
    pub llvm: Measured,
    /// NVRTC.
    pub nvrtc: Measured,
}

impl Row {
    /// The measurement of `c`.
    pub fn get(&self, c: Compiler) -> &Measured {
        match c {
            Compiler::Ours => &self.ours,
            Compiler::Llvm => &self.llvm,
            Compiler::Nvrtc => &self.nvrtc,
        }
    }
}

/// Why a compiler is skipped: the cell says `skipped`, the note says why.
const SKIPPED: &str = "skipped";

/// Our backend, from source text (the `compile` bench's measure).
pub fn compile_ours(name: &str, src: &str, sm: u32) -> Result<Ptx, String> {
    let out = pipeline::wgsl_to_ptx(name, src, sm).map_err(|e| e.to_string())?;
    let kernel = out.entries.first().map(|e| e.ptx_name.clone()).ok_or("no entry point")?;
    Ok(Ptx { text: out.text, kernel })
}

/// The LLVM backend, from source text: the frontend, then `dianran_llvm::compile_module`.
#[cfg(feature = "llvm")]
pub fn compile_llvm(name: &str, src: &str, sm: u32) -> Result<Ptx, String> {
    let out = pipeline::wgsl_to_ptx_llvm(name, src, sm).map_err(|e| e.to_string())?;
    let kernel = out.entries.first().map(|e| e.ptx_name.clone()).ok_or("no entry point")?;
    Ok(Ptx { text: out.text, kernel })
}

/// Without the `llvm` feature there is no LLVM backend.
#[cfg(not(feature = "llvm"))]
pub fn compile_llvm(_name: &str, _src: &str, _sm: u32) -> Result<Ptx, String> {
    Err(format!("{SKIPPED}: built without the llvm feature"))
}

/// NVRTC on the pair's CUDA C++.
pub fn compile_nvrtc(pair: &Pair, src: &str, sm: u32) -> Result<Ptx, String> {
    match nvrtc::compile(src, pair.cuda_file, sm) {
        Ok(text) => Ok(Ptx { text, kernel: pair.cuda_entry.to_string() }),
        Err(NvrtcError::NotFound(why)) => Err(format!("{SKIPPED}: nvrtc not found ({why})")),
        Err(e) => Err(e.to_string()),
    }
}

/// The median of `runs` timed calls of `compile`, after one untimed warm-up call whose result
/// is returned (an error stops there: nothing is timed).
pub fn time_median<T>(
    runs: usize,
    mut compile: impl FnMut() -> Result<T, String>,
) -> (Result<T, String>, Result<Duration, String>) {
    let first = compile();
    if let Err(e) = &first {
        let e = e.clone();
        return (first, Err(e));
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let r = compile();
        times.push(start.elapsed());
        if let Err(e) = r {
            return (first, Err(format!("failed on a later run: {e}")));
        }
        std::hint::black_box(r.ok());
    }
    (first, Ok(median(&mut times)))
}

/// The median (the lower middle one of an even count).
pub fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len().saturating_sub(1) / 2).copied().unwrap_or_default()
}

/// Whether ptxas can be run: `Err` is the line the bench prints instead of its columns.
pub fn ptxas_available() -> Result<(), String> {
    match ptxas::check("", 80) {
        Err(PtxasError::NotFound) => Err("skipped: ptxas not found (run tools/setup.sh)".into()),
        _ => Ok(()),
    }
}

/// ptxas on `ptx` at `sm_<sm>`: the kernel's resources.
pub fn ptxas_stats(ptx: &Ptx, sm: u32) -> Result<PtxasStats, String> {
    let stats = match ptxas::check(&ptx.text, sm) {
        Ok(s) => s,
        Err(PtxasError::NotFound) => return Err(format!("{SKIPPED}: ptxas not found")),
        Err(e) => return Err(format!("ptxas: {e}")),
    };
    stats
        .into_iter()
        .find(|s| s.kernel == ptx.kernel)
        .ok_or_else(|| format!("ptxas: no report for {}", ptx.kernel))
}

/// Times one compiler and runs ptxas on its PTX (unless `with_ptxas` is off).
fn measure(
    runs: usize,
    sm: u32,
    with_ptxas: bool,
    compile: impl FnMut() -> Result<Ptx, String>,
) -> Measured {
    let (ptx, time) = time_median(runs, compile);
    let ptxas = match ptx {
        Ok(_) if !with_ptxas => Err(format!("{SKIPPED}: ptxas not found")),
        Ok(p) => ptxas_stats(&p, sm),
        // The compile's own failure is already in the time cell.
        Err(_) => Err("-".into()),
    };
    Measured { time, ptxas }
}

/// Measures the three compilers on `pair` at `sm_<sm>`: `runs` timed compiles each (after
/// one warm-up) and ptxas on the PTX when `with_ptxas` is on.
pub fn measure_pair(pair: &Pair, sm: u32, runs: usize, with_ptxas: bool) -> Row {
    let name = pair.sample;
    let kernel = name.trim_end_matches(".wgsl").to_string();
    let wgsl = kernels::sample_source(name);
    let cuda = kernels::cuda_source(pair);
    let ours = measure(runs, sm, with_ptxas, || compile_ours(name, wgsl.as_ref()?, sm));
    let llvm = measure(runs, sm, with_ptxas, || compile_llvm(name, wgsl.as_ref()?, sm));
    let nvrtc = measure(runs, sm, with_ptxas, || compile_nvrtc(pair, cuda.as_ref()?, sm));
    Row { kernel, sm, ours, llvm, nvrtc }
}

/// The table's columns: compile times (ms), the time ratios, then ptxas resources.
pub const HEADER: [&str; 11] = [
    "kernel",
    "sm",
    "ours ms",
    "LLVM ms",
    "NVRTC ms",
    "LLVM/ours",
    "NVRTC/ours",
    "ours r/st/ld",
    "LLVM r/st/ld",
    "NVRTC r/st/ld",
    "regs ours/LLVM",
];

/// Longest reason printed in a cell; the notes carry the whole message.
const CELL_CHARS: usize = 34;

/// The first words of `reason` that fit a cell: `skipped` for a skipped compiler,
/// `unsupported: <what>` for a `does not support <what>` diagnostic, else the first line, cut
/// at a word.
pub fn short_reason(reason: &str) -> String {
    let line = reason.lines().next().unwrap_or("").trim();
    if line.starts_with(SKIPPED) {
        return SKIPPED.into();
    }
    // `PTX codegen: the LLVM backend does not support subgroup operations (entry 'main')`.
    let line = line.strip_prefix("PTX codegen: ").unwrap_or(line);
    let line = match line.find("does not support ") {
        Some(at) => {
            let what = &line[at + "does not support ".len()..];
            let what = what.split(" (entry").next().unwrap_or(what);
            format!("unsupported: {}", what.strip_prefix("the ").unwrap_or(what))
        }
        None => line.to_string(),
    };
    if line.chars().count() <= CELL_CHARS {
        return line;
    }
    let mut out = String::new();
    for word in line.split_whitespace() {
        if out.chars().count() + word.chars().count() + 4 > CELL_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        out = line.chars().take(CELL_CHARS - 3).collect();
    }
    out.push_str("...");
    out
}

/// A time cell: milliseconds with three decimals, or the reason.
fn time_cell(t: &Result<Duration, String>) -> String {
    match t {
        Ok(d) => format!("{:.3}", d.as_secs_f64() * 1e3),
        Err(e) => short_reason(e),
    }
}

/// A ptxas cell: `registers / spill store bytes / spill load bytes`, or the reason.
fn ptxas_cell(s: &Result<PtxasStats, String>) -> String {
    match s {
        Ok(s) => format!("{} / {} / {}", s.registers, s.spill_stores, s.spill_loads),
        Err(e) if e == "-" => "-".into(),
        Err(e) => short_reason(e),
    }
}

/// `theirs / ours` of two times, `-` when either is missing.
fn time_ratio(theirs: &Result<Duration, String>, ours: &Result<Duration, String>) -> String {
    match (theirs, ours) {
        (Ok(t), Ok(o)) => ratio(t.as_secs_f64(), o.as_secs_f64()),
        _ => "-".into(),
    }
}

/// The cells of one row, in [`HEADER`]'s order.
pub fn cells(r: &Row) -> Vec<String> {
    let regs = match (&r.ours.ptxas, &r.llvm.ptxas) {
        (Ok(o), Ok(l)) => format!("{} / {}", o.registers, l.registers),
        _ => "-".into(),
    };
    vec![
        r.kernel.clone(),
        format!("sm_{}", r.sm),
        time_cell(&r.ours.time),
        time_cell(&r.llvm.time),
        time_cell(&r.nvrtc.time),
        time_ratio(&r.llvm.time, &r.ours.time),
        time_ratio(&r.nvrtc.time, &r.ours.time),
        ptxas_cell(&r.ours.ptxas),
        ptxas_cell(&r.llvm.ptxas),
        ptxas_cell(&r.nvrtc.ptxas),
        regs,
    ]
}

/// The table of `rows`, in their order, with an empty line where the architecture changes.
pub fn render(rows: &[Row]) -> String {
    let mut t = Table::new(&HEADER);
    for (i, r) in rows.iter().enumerate() {
        if i > 0 && rows[i - 1].sm != r.sm {
            t.row(Vec::new());
        }
        t.row(cells(r));
    }
    t.render()
}

/// The full reason behind every cell that is not a number, once per kernel, compiler and
/// message, with the architectures it came from (`gelu LLVM sm_80, sm_90: ...`); `skipped`
/// compilers are said once, before the table, by the bench.
pub fn notes(rows: &[Row]) -> Vec<String> {
    // (kernel, compiler, message) -> architectures, in first-seen order.
    let mut seen: Vec<(&str, Compiler, &str, Vec<u32>)> = Vec::new();
    for r in rows {
        for c in [Compiler::Ours, Compiler::Llvm, Compiler::Nvrtc] {
            let m = r.get(c);
            for e in [m.time.as_ref().err(), m.ptxas.as_ref().err()].into_iter().flatten() {
                let e = e.trim_end();
                if e == "-" || e.starts_with(SKIPPED) {
                    continue;
                }
                let key = |n: &&mut (&str, Compiler, &str, Vec<u32>)| {
                    n.0 == r.kernel && n.1 == c && n.2 == e
                };
                match seen.iter_mut().find(|n| key(n)) {
                    Some(n) if !n.3.contains(&r.sm) => n.3.push(r.sm),
                    Some(_) => {}
                    None => seen.push((&r.kernel, c, e, vec![r.sm])),
                }
            }
        }
    }
    seen.into_iter()
        .map(|(kernel, c, e, sms)| {
            let sms: Vec<String> = sms.iter().map(|sm| format!("sm_{sm}")).collect();
            format!("{kernel} {} {}: {e}", c.name(), sms.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_short() {
        assert_eq!(short_reason("skipped: nvrtc not found (x)"), "skipped");
        assert_eq!(
            short_reason(
                "PTX codegen: the LLVM backend does not support subgroup operations (entry 'main')"
            ),
            "unsupported: subgroup operations"
        );
        let long = "frontend: a very long message that goes on and on about what went wrong";
        let s = short_reason(long);
        assert!(s.chars().count() <= CELL_CHARS, "{s}");
        assert!(s.starts_with("frontend: a very long") && s.ends_with("..."), "{s}");
        assert_eq!(short_reason("one\ntwo"), "one");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&mut [ms(4), ms(1), ms(3), ms(2)]), ms(2));
        assert_eq!(median(&mut []), Duration::ZERO);
    }

    #[test]
    fn failures_are_not_timed() {
        let mut calls = 0;
        let (r, t) = time_median::<()>(5, || {
            calls += 1;
            Err("no".into())
        });
        assert!(r.is_err() && t == Err("no".into()));
        assert_eq!(calls, 1);
        let (r, t) = time_median(3, || Ok(1));
        assert_eq!(r, Ok(1));
        assert!(t.is_ok());
    }

    #[test]
    fn rows_render_reasons_and_ratios() {
        let stats = |registers| PtxasStats {
            kernel: "k".into(),
            registers,
            spill_stores: 0,
            spill_loads: 0,
            shared_bytes: 0,
            stack_bytes: 0,
        };
        let row = Row {
            kernel: "k".into(),
            sm: 80,
            ours: Measured { time: Ok(Duration::from_millis(1)), ptxas: Ok(stats(10)) },
            llvm: Measured {
                time: Err("PTX codegen: the LLVM backend does not support x (entry 'k')".into()),
                ptxas: Err("-".into()),
            },
            nvrtc: Measured {
                time: Ok(Duration::from_millis(50)),
                ptxas: Err("skipped: ptxas not found".into()),
            },
        };
        assert_eq!(
            cells(&row),
            [
                "k",
                "sm_80",
                "1.000",
                "unsupported: x",
                "50.000",
                "-",
                "50.00x",
                "10 / 0 / 0",
                "-",
                "skipped",
                "-"
            ]
        );
        let at_90 = Row { sm: 90, ..row.clone() };
        let notes = notes(&[row, at_90]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("k LLVM sm_80, sm_90: PTX codegen: the LLVM backend"));
        assert_eq!(render(&[]).lines().count(), 2);
    }
}
