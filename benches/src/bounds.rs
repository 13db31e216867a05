//! The `bounds` bench's table: what WebGPU's bounds policy (`docs/bounds.md`) costs on every
//! kernel pair's WGSL at one architecture. Each kernel is compiled twice, with the default
//! policy and with `--bounds-checks off`, and the table gives the checks the policy emitted
//! and the ones it proved unnecessary (per entry, as `dianran ptx --stats` counts them),
//! `ptxas -v` registers, and static SASS instructions (nvdisasm on ptxas's cubin) of the whole
//! kernel and of its hottest loop (the GEMM K loop where there is one, else the largest
//! innermost loop), both ways.
//!
//! Every cell is a number or a short reason; a missing tool gives a reason, never a panic.

use dianran_frontend::passes::entry_counts;
use dianran_frontend::passes::BoundsCounts;
use dianran_frontend::BoundsChecks;
use dianran_ptx::codegen::{compile_module, Options};
use dianran_verify::sass::KernelMix;

use crate::backends::{self, Ptx};
use crate::kernels::{self, Pair};
use crate::table::Table;

/// One build of one kernel: its checks, registers and SASS mix.
#[derive(Clone, Debug)]
pub struct Build {
    /// The bounds checks of the kernel's entry (zero with the checks off).
    pub counts: BoundsCounts,
    /// `ptxas -v` registers, or why there are none.
    pub registers: Result<u32, String>,
    /// The SASS mix, or why there is none.
    pub mix: Result<KernelMix, String>,
}

/// One kernel, both ways.
#[derive(Clone, Debug)]
pub struct Row {
    /// The sample's name without `.wgsl`.
    pub kernel: String,
    /// With the default policy (checks on).
    pub on: Result<Build, String>,
    /// With `--bounds-checks off`.
    pub off: Result<Build, String>,
}

/// Compiles `src` with `checks` and measures it at `sm_<sm>`.
pub fn build(name: &str, src: &str, checks: BoundsChecks, sm: u32) -> Result<Build, String> {
    let fopts = dianran_frontend::Options { bounds_checks: checks, ..Default::default() };
    let module = dianran_frontend::compile(name, src, &fopts).map_err(|d| d.to_string())?;
    let ep = module.entry_points.first().ok_or("no entry point")?;
    let counts = entry_counts(&module, ep.function);
    let out = compile_module(&module, &Options { sm, ..Options::default() });
    if let Some(d) = out.diagnostics.first() {
        return Err(d.message.clone());
    }
    let kernel = out.entries.first().map(|e| e.ptx_name.clone()).ok_or("no compute entry")?;
    let ptx = Ptx { text: out.text, kernel };
    let registers = backends::ptxas_stats(&ptx, sm).map(|s| s.registers);
    let mix = crate::sass::mix_of(&ptx, sm);
    Ok(Build { counts, registers, mix })
}

/// Both builds of `pair`'s WGSL.
pub fn measure(pair: &Pair, sm: u32) -> Row {
    let kernel = pair.sample.trim_end_matches(".wgsl").to_string();
    match kernels::sample_source(pair.sample) {
        Ok(src) => Row {
            kernel,
            on: build(pair.sample, &src, BoundsChecks::On, sm),
            off: build(pair.sample, &src, BoundsChecks::Off, sm),
        },
        Err(e) => Row { kernel, on: Err(e.clone()), off: Err(e) },
    }
}

/// The hottest loop's instruction count: the main (tensor-core) loop, else the innermost loop
/// with the most instructions; `None` for a kernel without loops.
fn hot_loop(m: &KernelMix) -> Option<u32> {
    if let Some(l) = m.main_loop() {
        return Some(l.mix.total);
    }
    m.innermost().map(|l| l.mix.total).max()
}

/// `on (off, +x%)` for two numbers.
fn pair_cell(on: u32, off: u32) -> String {
    if off == 0 {
        return format!("{on} ({off})");
    }
    let pct = 100.0 * (f64::from(on) - f64::from(off)) / f64::from(off);
    format!("{on} ({off}, {pct:+.0}%)")
}

/// The table, one row per kernel.
pub fn render(rows: &[Row]) -> String {
    let mut t = Table::new(&[
        "kernel",
        "checks emitted / eliminated",
        "registers on (off)",
        "SASS on (off, cost)",
        "hot loop SASS on (off, cost)",
    ]);
    for r in rows {
        let cells = match (&r.on, &r.off) {
            (Ok(on), Ok(off)) => {
                let regs = match (&on.registers, &off.registers) {
                    (Ok(a), Ok(b)) => pair_cell(*a, *b),
                    (Err(e), _) | (_, Err(e)) => e.clone(),
                };
                let (total, hot) = match (&on.mix, &off.mix) {
                    (Ok(a), Ok(b)) => (
                        pair_cell(a.mix.total, b.mix.total),
                        match (hot_loop(a), hot_loop(b)) {
                            (Some(x), Some(y)) => pair_cell(x, y),
                            _ => "no loop".into(),
                        },
                    ),
                    (Err(e), _) | (_, Err(e)) => (e.clone(), "-".into()),
                };
                vec![format!("{} / {}", on.counts.emitted, on.counts.eliminated), regs, total, hot]
            }
            (Err(e), _) | (_, Err(e)) => vec![e.clone(), "-".into(), "-".into(), "-".into()],
        };
        let mut row = vec![r.kernel.clone()];
        row.extend(cells);
        t.row(row);
    }
    t.render()
}
