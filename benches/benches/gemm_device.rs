//! GEMM throughput at 4096³ on a CUDA device, in one run: our `gemm_tiled_f16.wgsl` compiled
//! by dianran, and its CUDA C++ equivalent (`cuda/gemm_tiled_f16.cu`, inline-PTX `ldmatrix`
//! and `mma.sync`) compiled by NVRTC, with the ratio and the fraction of the device's dense
//! f16 tensor peak; then the same for the GEMM written with Dawn's subgroup matrices
//! (`sgm_gemm_f16.wgsl` against `cuda/sgm_gemm_f16.cu`: the same buffers, 32x32 blocks), and
//! for the one written with a workgroup matrix (`tile_gemm.wgsl`, against gemm_tiled_f16's
//! CUDA equivalent: the same buffers and blocks; on Hopper also its `--sm 90a` PTX, on
//! `wgmma`).
//! Every result is spot-checked against an f64 CPU reference. Then the
//! memory-bound pair (saxpy and a row softmax, [`bandwidth`]) in GB/s against the DRAM peak.
//! Ends with `SUMMARY<TAB>what<TAB>value` lines that `verify/gpu-check.sh --bench` gathers
//! into its summary table. Without a device: `skipped: no CUDA device`.

use std::collections::BTreeMap;

use dianran_benches::bandwidth;
use dianran_benches::device::{gemm_tflops, peak_f16_tensor_tflops, Gpu, Rng};
use dianran_benches::kernels::{Pair, GEMM, PAIRS};
use dianran_benches::table::{ratio, Table};
use half::f16;

const M: usize = 4096;
const N: usize = 4096;
const K: usize = 4096;
const REPS: u32 = 20;
/// Entries of C checked against the CPU.
const CHECKS: usize = 256;

struct Inputs {
    dims: Vec<u8>,
    a: Vec<f16>,
    b: Vec<f16>,
}

fn bytes(v: &[f16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Spot-checks `c` (f32 bytes) against f64 dot products; `Err` describes the first miss.
fn check(inp: &Inputs, c: &[u8]) -> Result<(), String> {
    let mut rng = Rng(0xC0FFEE);
    for _ in 0..CHECKS {
        let (i, j) = (rng.next_u32() as usize % M, rng.next_u32() as usize % N);
        let (mut want, mut mag) = (0.0f64, 0.0f64);
        for p in 0..K {
            let prod = inp.a[i * K + p].to_f64() * inp.b[p * N + j].to_f64();
            want += prod;
            mag += prod.abs();
        }
        let off = 4 * (i * N + j);
        let got = c
            .get(off..off + 4)
            .and_then(|s| s.try_into().ok())
            .map(f32::from_le_bytes)
            .ok_or("output too short")?;
        // f32 accumulation of exact f16 products: 1e-3 of the terms' magnitude.
        if (got as f64 - want).abs() > 1e-3 * mag + 1e-5 {
            return Err(format!("C[{i}][{j}] = {got}, expected {want}"));
        }
    }
    Ok(())
}

/// Buffers by binding: (dims, a, b, c).
fn buffers(inp: &Inputs) -> BTreeMap<(u32, u32), Vec<u8>> {
    let mut buffers = BTreeMap::new();
    buffers.insert((0, 0), inp.dims.clone());
    buffers.insert((0, 1), bytes(&inp.a));
    buffers.insert((0, 2), bytes(&inp.b));
    buffers.insert((0, 3), vec![0u8; 4 * M * N]);
    buffers
}

/// Prints the table of one GEMM pair's runs (ours, NVRTC's) and adds their summary lines.
fn gemm_rows(
    pair: &Pair,
    what: &str,
    runs: &[(&str, Result<dianran_benches::device::Timing, String>)],
    inp: &Inputs,
    peak: Option<f64>,
    summary: &mut Vec<String>,
) {
    let head = format!("{what} 4096³ f16->f32 ({})", pair.sample);
    let mut t = Table::new(&[&head, "ms/launch", "TFLOP/s", "of peak", "result"]);
    let mut tflops = Vec::new();
    for (who, run) in runs {
        match run {
            Ok(r) => {
                let tf = gemm_tflops(M as u64, N as u64, K as u64, r.seconds);
                tflops.push((*who, tf));
                let of_peak =
                    peak.map(|p| format!("{:.1}%", 100.0 * tf / p)).unwrap_or_else(|| "-".into());
                let result = match check(inp, &r.output) {
                    Ok(()) => "ok".to_string(),
                    Err(e) => format!("WRONG: {e}"),
                };
                summary.push(format!(
                    "{what} 4096^3 f16 {who}\t{tf:.1} TFLOP/s, {of_peak} of peak, result {result}"
                ));
                t.row(vec![
                    who.to_string(),
                    format!("{:.3}", r.seconds * 1e3),
                    format!("{tf:.1}"),
                    of_peak,
                    result,
                ]);
            }
            Err(e) => {
                let first = e.lines().next().unwrap_or("");
                summary.push(format!("{what} 4096^3 f16 {who}\tfailed: {first}"));
                t.row(vec![who.to_string(), "-".into(), "-".into(), "-".into(), first.into()]);
            }
        }
    }
    print!("{}", t.render());
    let of = |who: &str| tflops.iter().find(|(w, _)| *w == who).map(|(_, tf)| *tf);
    if let Some(theirs) = of("NVRTC") {
        for (who, ours) in tflops.iter().filter(|(w, _)| w.starts_with("dianran")) {
            println!("{what} {who}/NVRTC throughput: {}", ratio(*ours, theirs));
            summary.push(format!("{what} {who}/NVRTC throughput\t{}", ratio(*ours, theirs)));
        }
    }
}

fn main() {
    let gpu = match Gpu::open() {
        Ok(g) => g,
        Err(why) => {
            println!("skipped: {why}");
            println!("SUMMARY\tGEMM and bandwidth benchmarks\tskipped: {why}");
            return;
        }
    };
    let info = match gpu.info() {
        Ok(i) => i,
        Err(e) => {
            println!("skipped: cannot query the device: {e}");
            println!("SUMMARY\tGEMM and bandwidth benchmarks\tskipped: cannot query the device");
            return;
        }
    };
    let sm = if info.cc.0 >= 9 { 90 } else { 80 };
    let peak = peak_f16_tensor_tflops(&info);
    println!(
        "{} (sm_{}{}, {} SMs, {} MHz): dense f16 tensor peak {}",
        info.name,
        info.cc.0,
        info.cc.1,
        info.sms,
        info.clock_khz / 1000,
        peak.map(|p| format!("{p:.0} TFLOP/s")).unwrap_or_else(|| "unknown".into())
    );
    let mut rng = Rng(0x5EED);
    let inp = Inputs {
        dims: [M as u32, N as u32, K as u32, 0].iter().flat_map(|x| x.to_le_bytes()).collect(),
        a: (0..M * K).map(|_| f16::from_f32(rng.unit())).collect(),
        b: (0..K * N).map(|_| f16::from_f32(rng.unit())).collect(),
    };
    let bufs = buffers(&inp);
    // `SUMMARY<TAB>what<TAB>value` lines feed verify/gpu-check.sh's summary table.
    let mut summary = Vec::new();
    let sgm = PAIRS.iter().find(|p| p.sample == "sgm_gemm_f16.wgsl");
    let tile = PAIRS.iter().find(|p| p.sample == "tile_gemm.wgsl");
    let gemms = [
        (Some(&GEMM), 64, "GEMM"),
        (sgm, 32, "subgroup-matrix GEMM"),
        (tile, 64, "workgroup-matrix GEMM"),
    ];
    for (pair, block, what) in gemms {
        let Some(pair) = pair else { continue };
        let grid = [(N / block) as u32, (M / block) as u32, 1];
        let mut runs = vec![
            ("dianran", bandwidth::time_ours(&gpu, sm, pair, &bufs, (0, 3), grid, REPS)),
            (
                "NVRTC",
                bandwidth::time_theirs(&gpu, sm, pair, &bufs, (0, 3), grid, [128, 1, 1], REPS),
            ),
        ];
        // Hopper (compute capability 9.0 exactly: sm_90a code runs on no other): the
        // workgroup-matrix GEMM on `wgmma` as well (docs/hopper.md).
        if what == "workgroup-matrix GEMM" && info.cc == (9, 0) {
            let sm90a = dianran_ptx::model::SM_90A;
            let t = bandwidth::time_ours(&gpu, sm90a, pair, &bufs, (0, 3), grid, REPS);
            runs.push(("dianran sm_90a", t));
        }
        gemm_rows(pair, what, &runs, &inp, peak, &mut summary);
    }
    summary.extend(bandwidth::run(&gpu, sm, &info));
    for line in summary {
        println!("SUMMARY\t{line}");
    }
}
