//! The `sass` bench's table: for every kernel pair, the SASS instruction mix (NVIDIA's
//! `nvdisasm` on the cubin `ptxas` makes, read by `dianran_verify::sass`) of our PTX, of
//! NVRTC's PTX for the CUDA equivalent, and of the LLVM backend's PTX (with the `llvm`
//! feature): total SASS instructions, tensor-core ops (`HMMA` at sm_80), `ldmatrix`
//! (`LDSM`), global loads and stores by width, branches, and, for the main loop (the loop
//! with tensor-core ops that holds no other such loop: a GEMM's loop over K), its
//! instructions, its tensor-core ops and the instructions per tensor-core op.
//!
//! Every cell is a number or a short reason; a compiler that rejects a kernel, or a missing
//! tool, gives a reason, never a panic.

use dianran_verify::sass::{self, KernelMix, SassError};

use crate::backends::{self, Compiler, Ptx};
use crate::kernels::{self, Pair};
use crate::table::Table;

/// One compiler's mix for one kernel, or why there is none.
pub type Measured = Result<KernelMix, String>;

/// One kernel pair at one architecture.
#[derive(Clone, Debug)]
pub struct Row {
    /// The sample's name without `.wgsl`.
    pub kernel: String,
    /// Our backend.
    pub ours: Measured,
    /// The LLVM backend (a `skipped` reason without the `llvm` feature).
    pub llvm: Measured,
    /// NVRTC on the CUDA equivalent.
    pub nvrtc: Measured,
}

impl Row {
    /// The mix of `c`.
    pub fn get(&self, c: Compiler) -> &Measured {
        match c {
            Compiler::Ours => &self.ours,
            Compiler::Llvm => &self.llvm,
            Compiler::Nvrtc => &self.nvrtc,
        }
    }
}

/// Whether ptxas and nvdisasm can be run: `Err` is the line the bench prints instead of its
/// table.
pub fn tools_available() -> Result<(), String> {
    backends::ptxas_available()?;
    match dianran_verify::tools::nvdisasm() {
        Some(_) => Ok(()),
        None => Err("skipped: nvdisasm not found (run tools/setup.sh)".into()),
    }
}

/// The mix of `ptx`'s kernel at `sm_<sm>`.
pub fn mix_of(ptx: &Ptx, sm: u32) -> Measured {
    let mixes = match sass::of_ptx(&ptx.text, sm) {
        Ok(m) => m,
        Err(SassError::NotFound) => return Err("skipped: nvdisasm not found".into()),
        Err(e) => return Err(e.to_string()),
    };
    mixes
        .into_iter()
        .find(|k| k.kernel == ptx.kernel)
        .ok_or_else(|| format!("no SASS for {} in the cubin", ptx.kernel))
}

/// Compiles `pair` with the three compilers and reads each cubin's mix at `sm_<sm>`.
pub fn measure_pair(pair: &Pair, sm: u32) -> Row {
    let name = pair.sample;
    let wgsl = kernels::sample_source(name);
    let cuda = kernels::cuda_source(pair);
    let ours = wgsl
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|src| backends::compile_ours(name, src, sm).and_then(|p| mix_of(&p, sm)));
    let llvm = wgsl
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|src| backends::compile_llvm(name, src, sm).and_then(|p| mix_of(&p, sm)));
    let nvrtc = cuda
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|src| backends::compile_nvrtc(pair, src, sm).and_then(|p| mix_of(&p, sm)));
    Row { kernel: name.trim_end_matches(".wgsl").to_string(), ours, llvm, nvrtc }
}

/// The table's columns.
pub const HEADER: [&str; 11] = [
    "kernel",
    "compiler",
    "SASS",
    "HMMA",
    "LDSM",
    "LDG [bits:n]",
    "STG [bits:n]",
    "branches",
    "main loop SASS",
    "main loop HMMA",
    "SASS/HMMA",
];

/// The cells of one compiler's row, in [`HEADER`]'s order.
pub fn cells(kernel: &str, c: Compiler, m: &Measured) -> Vec<String> {
    let mut out = vec![kernel.to_string(), c.name().to_string()];
    match m {
        Ok(k) => {
            let mix = &k.mix;
            out.extend([
                mix.total.to_string(),
                mix.tensor.to_string(),
                mix.ldsm_cell(),
                mix.ldg.cell(),
                mix.stg.cell(),
                mix.branch.to_string(),
            ]);
            match k.main_loop() {
                Some(l) => out.extend([
                    l.mix.total.to_string(),
                    l.mix.tensor.to_string(),
                    l.mix.per_tensor().map_or("-".into(), |p| format!("{p:.2}")),
                ]),
                None => out.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        Err(e) => out.push(backends::short_reason(e)),
    }
    out
}

/// The compilers the table shows: LLVM only when it was built.
pub fn compilers() -> Vec<Compiler> {
    if cfg!(feature = "llvm") {
        vec![Compiler::Ours, Compiler::Llvm, Compiler::Nvrtc]
    } else {
        vec![Compiler::Ours, Compiler::Nvrtc]
    }
}

/// The table of `rows`: one line per kernel and compiler, an empty line between kernels.
pub fn render(rows: &[Row]) -> String {
    let mut t = Table::new(&HEADER);
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            t.row(Vec::new());
        }
        for c in compilers() {
            t.row(cells(&r.kernel, c, r.get(c)));
        }
    }
    t.render()
}

/// The full reason behind every cell that is not a number (`skipped` ones left out).
pub fn notes(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        for c in compilers() {
            if let Err(e) = r.get(c) {
                if !e.starts_with("skipped") {
                    out.push(format!("{} {}: {}", r.kernel, c.name(), e.trim_end()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dianran_verify::sass::{Loop, Mix};

    #[test]
    fn cells_of_a_mix_and_of_a_reason() {
        let mix = Mix { total: 40, tensor: 8, branch: 3, ..Mix::default() };
        let main = Loop {
            head: ".L_x_1".into(),
            start: 0,
            end: 0x100,
            innermost: true,
            main: true,
            mix: Mix { total: 20, tensor: 8, ..Mix::default() },
        };
        let k = KernelMix { kernel: "k".into(), mix, loops: vec![main] };
        assert_eq!(
            cells("gemm", Compiler::Ours, &Ok(k)),
            ["gemm", "ours", "40", "8", "0", "0", "0", "3", "20", "8", "2.50"]
        );
        assert_eq!(
            cells("gemm", Compiler::Nvrtc, &Err("skipped: nvrtc not found (x)".into())),
            ["gemm", "NVRTC", "skipped"]
        );
        let plain = KernelMix { kernel: "k".into(), mix, loops: Vec::new() };
        assert_eq!(cells("k", Compiler::Ours, &Ok(plain))[8..], ["-", "-", "-"]);
    }
}
