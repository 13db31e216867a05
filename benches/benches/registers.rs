//! `ptxas -v` resources of our PTX against NVRTC's for the same kernels (sm_80 and sm_90):
//! registers per thread, spill stores/loads and static shared memory; then, for the kernels
//! that call math builtins, both math modes of both compilers side by side (registers and
//! PTX instruction count: what precise math costs). Without ptxas the bench prints
//! `skipped: ptxas not found`; without NVRTC its columns say `skipped`.

use dianran_benches::kernels::{self, Pair, MATH_PAIRS, PAIRS};
use dianran_benches::nvrtc::{self, NvrtcError};
use dianran_benches::pipeline;
use dianran_benches::table::Table;
use dianran_verify::ptxas::{self, PtxasError, PtxasStats};

/// `regs / spill stores / spill loads / shared` of one kernel.
fn cell(s: &PtxasStats) -> String {
    format!("{} / {} / {} / {}", s.registers, s.spill_stores, s.spill_loads, s.shared_bytes)
}

/// ptxas on our PTX for the pair's sample.
fn ours(pair: &Pair, sm: u32) -> Result<PtxasStats, String> {
    let src = kernels::sample_source(pair.sample)?;
    let out = pipeline::wgsl_to_ptx(pair.sample, &src, sm).map_err(|e| format!("not yet: {e}"))?;
    let entry = out.entries.first().ok_or("no entry point")?;
    let stats = ptxas::check(&out.text, sm).map_err(|e| e.to_string())?;
    stats.into_iter().find(|s| s.kernel == entry.ptx_name).ok_or_else(|| "no ptxas report".into())
}

/// ptxas on NVRTC's PTX for the pair's CUDA source.
fn theirs(pair: &Pair, sm: u32) -> Result<PtxasStats, String> {
    let src = kernels::cuda_source(pair)?;
    let ptx = match nvrtc::compile(&src, pair.cuda_file, sm) {
        Ok(p) => p,
        Err(NvrtcError::NotFound(_)) => return Err("skipped".into()),
        Err(e) => return Err(e.to_string()),
    };
    let stats = ptxas::check(&ptx, sm).map_err(|e| e.to_string())?;
    stats
        .into_iter()
        .find(|s| s.kernel == pair.cuda_entry)
        .ok_or_else(|| format!("no ptxas report for {}", pair.cuda_entry))
}

fn main() {
    if let Err(PtxasError::NotFound) = ptxas::check("", 80) {
        println!("skipped: ptxas not found (run tools/setup.sh)");
        return;
    }
    if let Err(NvrtcError::NotFound(why)) = nvrtc::load() {
        println!("skipped: nvrtc not found ({why}); showing dianran only");
    }
    println!(
        "ptxas -v per kernel: registers / spill store bytes / spill load bytes / shared bytes"
    );
    let mut t = Table::new(&["kernel", "sm", "dianran", "NVRTC", "registers dianran/NVRTC"]);
    let mut notes = Vec::new();
    for pair in PAIRS {
        for sm in [80, 90] {
            let o = ours(pair, sm);
            let n = theirs(pair, sm);
            let mut short = |r: &Result<PtxasStats, String>, who: &str| match r {
                Ok(s) => cell(s),
                Err(e) => {
                    let first = e.lines().next().unwrap_or("").to_string();
                    notes.push(format!("{} sm_{sm} {who}: {e}", pair.sample));
                    if first.starts_with("not yet") {
                        "not yet".into()
                    } else if first == "skipped" {
                        "skipped".into()
                    } else {
                        "error".into()
                    }
                }
            };
            let oc = short(&o, "dianran");
            let nc = short(&n, "NVRTC");
            let r = match (&o, &n) {
                (Ok(o), Ok(n)) => format!("{} / {}", o.registers, n.registers),
                _ => "-".into(),
            };
            t.row(vec![
                pair.sample.trim_end_matches(".wgsl").into(),
                format!("sm_{sm}"),
                oc,
                nc,
                r,
            ]);
        }
    }
    print!("{}", t.render());
    math_modes();
    notes.dedup();
    for n in notes.iter().filter(|n| !n.ends_with(": skipped")) {
        println!("note: {n}");
    }
}

/// PTX instructions in a module: lines ending in `;` that are not directives or declarations.
fn instructions(ptx: &str) -> usize {
    ptx.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';') && !l.starts_with('.') && !l.starts_with("//"))
        .count()
}

/// `registers / PTX instructions` of one compiler's PTX for the kernel named `entry`.
fn mode_cell(ptx: Result<String, String>, entry: &str) -> String {
    let Ok(ptx) = ptx else { return "skipped".into() };
    match ptxas::check(&ptx, 80) {
        Ok(stats) => match stats.into_iter().find(|s| s.kernel == entry) {
            Some(s) => format!("{} / {}", s.registers, instructions(&ptx)),
            None => "no report".into(),
        },
        Err(_) => "error".into(),
    }
}

/// Both math modes of both compilers for the kernels that call math builtins (sm_80).
fn math_modes() {
    println!(
        "\nWhat precise math costs (sm_80): registers / PTX instructions; fast = dianran \
         --fast-math, NVRTC --use_fast_math"
    );
    let mut t =
        Table::new(&["kernel", "dianran precise", "dianran fast", "NVRTC default", "NVRTC fast"]);
    for pair in PAIRS.iter().filter(|p| MATH_PAIRS.contains(&p.sample)) {
        let Ok(src) = kernels::sample_source(pair.sample) else { continue };
        let ours = |fast_math: bool| {
            let opts = dianran_ptx::codegen::Options { fast_math, ..Default::default() };
            pipeline::wgsl_to_ptx_with(pair.sample, &src, &opts)
                .map(|o| {
                    (o.text, o.entries.first().map(|e| e.ptx_name.clone()).unwrap_or_default())
                })
                .map_err(|e| e.to_string())
        };
        let cuda = kernels::cuda_source(pair);
        let theirs = |fast: bool| match &cuda {
            Ok(s) => nvrtc::compile_with(s, pair.cuda_file, 80, fast).map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        };
        let (p, f) = (ours(false), ours(true));
        let entry = p.as_ref().map(|(_, n)| n.clone()).unwrap_or_default();
        t.row(vec![
            pair.sample.trim_end_matches(".wgsl").into(),
            mode_cell(p.map(|(t, _)| t), &entry),
            mode_cell(f.map(|(t, _)| t), &entry),
            mode_cell(theirs(false), pair.cuda_entry),
            mode_cell(theirs(true), pair.cuda_entry),
        ]);
    }
    print!("{}", t.render());
}
