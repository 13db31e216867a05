//! `ptxas -v` resources of our PTX against NVRTC's for the same kernels (sm_80 and sm_90):
//! registers per thread, spill stores/loads and static shared memory. Without ptxas the
//! bench prints `skipped: ptxas not found`; without NVRTC its columns say `skipped`.

use dianran_benches::kernels::{self, Pair, PAIRS};
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
    notes.dedup();
    for n in notes.iter().filter(|n| !n.ends_with(": skipped")) {
        println!("note: {n}");
    }
}
