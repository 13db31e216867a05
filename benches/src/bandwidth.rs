//! The memory-bound pair on a CUDA device: `saxpy_vec4.wgsl` and `softmax_rows.wgsl` compiled
//! by dianran and their CUDA C++ equivalents (`cuda/saxpy_vec4.cu`, `cuda/softmax_rows.cu`)
//! compiled by NVRTC, timed on the same inputs, in GB/s against the device's DRAM peak.
//!
//! Bandwidth counts the bytes the computation must move at least, once each: saxpy reads x
//! and y and writes y (12 bytes per float); softmax reads x and writes y (8 bytes per float),
//! although the kernels read each row twice (the second read mostly misses L2 at these
//! sizes, so "effective" GB/s is below what the memory system delivered). Both results are
//! spot-checked against plain Rust. [`run`] prints a table and returns the lines for
//! `verify/gpu-check.sh`'s summary. [`time_ours`] and [`time_theirs`] time one pair's two
//! kernels; the GEMM bench (`benches/gemm_device.rs`) uses them too.

use std::collections::BTreeMap;

use crate::device::{gbs, peak_bandwidth_gbs, DeviceInfo, Gpu, Launch, Rng, Timing};
use crate::kernels::{self, Pair};
use crate::table::{ratio, Table};

/// Timed launches per kernel (after one warm-up launch).
pub const REPS: u32 = 20;
/// saxpy's length in `vec4<f32>` elements: 2^24, 256 MiB per buffer.
pub const SAXPY_VEC4S: usize = 1 << 24;
/// softmax's rows and columns: 16384 x 4096 f32, 256 MiB per buffer.
pub const SOFTMAX_ROWS: usize = 16384;
/// Columns of the softmax input (a multiple of 8 so rows start 32-byte aligned).
pub const SOFTMAX_COLS: usize = 4096;
/// The workgroup size of all four kernels (softmax: one workgroup per row).
const WG: u32 = 256;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32_at(bytes: &[u8], i: usize) -> Result<f32, String> {
    bytes
        .get(4 * i..4 * i + 4)
        .and_then(|s| s.try_into().ok())
        .map(f32::from_le_bytes)
        .ok_or_else(|| format!("output too short for element {i}"))
}

/// Checks a kernel's output buffer; `Err` describes the first wrong element.
type Check = Box<dyn Fn(&[u8]) -> Result<(), String>>;

/// One memory-bound kernel: its pair, buffers by binding, launch geometry, bytes it must move
/// and a check of the output.
struct Case {
    pair: Pair,
    label: &'static str,
    /// Buffers by (group, binding), in binding order (the CUDA kernel's parameter order).
    buffers: BTreeMap<(u32, u32), Vec<u8>>,
    output: (u32, u32),
    grid: [u32; 3],
    bytes: u64,
    check: Check,
}

/// saxpy over `vec4s` elements of `vec4<f32>`.
fn saxpy(vec4s: usize) -> Case {
    let n = vec4s * 4;
    let mut rng = Rng(0x5A5A);
    let alpha = 0.75f32;
    let x: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.unit()).collect();
    let mut params = alpha.to_le_bytes().to_vec();
    params.extend_from_slice(&(vec4s as u32).to_le_bytes());
    params.resize(16, 0);
    let mut buffers = BTreeMap::new();
    buffers.insert((0, 0), params);
    buffers.insert((0, 1), f32_bytes(&x));
    buffers.insert((0, 2), f32_bytes(&y));
    // y is updated in place by the warm-up and every timed launch: replay them per element.
    let launches = REPS as usize + 1;
    let check = move |out: &[u8]| {
        let mut r = Rng(0xBEEF);
        for _ in 0..256 {
            let i = r.next_u32() as usize % n;
            let mut want = y[i];
            for _ in 0..launches {
                want = alpha.mul_add(x[i], want);
            }
            let got = f32_at(out, i)?;
            if got.to_bits() != want.to_bits() {
                return Err(format!("y[{i}] = {got}, expected {want}"));
            }
        }
        Ok(())
    };
    Case {
        pair: Pair {
            sample: "saxpy_vec4.wgsl",
            cuda_file: "saxpy_vec4.cu",
            cuda_entry: "saxpy_vec4",
        },
        label: "saxpy 2^26 f32",
        buffers,
        output: (0, 2),
        grid: [(vec4s as u32).div_ceil(WG), 1, 1],
        bytes: 12 * n as u64,
        check: Box::new(check),
    }
}

/// Row softmax of `rows` x `cols` f32.
fn softmax(rows: usize, cols: usize) -> Case {
    let mut rng = Rng(0x50F7);
    let x: Vec<f32> = (0..rows * cols).map(|_| 8.0 * rng.unit()).collect();
    let mut params = (cols as u32).to_le_bytes().to_vec();
    params.resize(16, 0);
    let mut buffers = BTreeMap::new();
    buffers.insert((0, 0), params);
    buffers.insert((0, 1), f32_bytes(&x));
    buffers.insert((0, 2), vec![0u8; 4 * rows * cols]);
    let check = move |out: &[u8]| {
        let mut r = Rng(0xFACE);
        for _ in 0..4 {
            let row = r.next_u32() as usize % rows;
            let xs = &x[row * cols..(row + 1) * cols];
            let max = xs.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
            let sum: f64 = xs.iter().map(|&v| (v as f64 - max).exp()).sum();
            for (j, &v) in xs.iter().enumerate() {
                let want = (v as f64 - max).exp() / sum;
                let got = f32_at(out, row * cols + j)? as f64;
                // A few f32 roundings of exp, the sums and the reciprocal.
                if (got - want).abs() > 1e-5 * want + 1e-12 {
                    return Err(format!("y[{row}][{j}] = {got}, expected {want}"));
                }
            }
        }
        Ok(())
    };
    Case {
        pair: Pair {
            sample: "softmax_rows.wgsl",
            cuda_file: "softmax_rows.cu",
            cuda_entry: "softmax_rows",
        },
        label: "softmax 16384x4096 f32",
        buffers,
        output: (0, 2),
        grid: [rows as u32, 1, 1],
        bytes: 8 * (rows * cols) as u64,
        check: Box::new(check),
    }
}

/// Times `pair`'s WGSL sample compiled by dianran: parameters laid out per docs/abi.md from
/// `buffers` (by binding), `reps` launches after one warm-up; `output` is the binding read back.
pub fn time_ours(
    gpu: &Gpu,
    sm: u32,
    pair: &Pair,
    buffers: &BTreeMap<(u32, u32), Vec<u8>>,
    output: (u32, u32),
    grid: [u32; 3],
    reps: u32,
) -> Result<Timing, String> {
    let src = kernels::sample_source(pair.sample)?;
    let out = crate::pipeline::wgsl_to_ptx(pair.sample, &src, sm).map_err(|e| e.to_string())?;
    let entry = out.entries.first().ok_or("no entry point")?;
    let dianran_verify::executors::PtxParams { buffers: params, bindings: keys } =
        dianran_verify::executors::ptx_params(entry, buffers).map_err(|e| e.to_string())?;
    let output = keys.iter().position(|k| *k == Some(output)).ok_or("no output parameter")?;
    gpu.time(
        &Launch {
            ptx: &out.text,
            entry: &entry.ptx_name,
            params: &params,
            output,
            grid,
            block: entry.workgroup_size,
        },
        reps,
    )
}

/// Times `pair`'s CUDA equivalent compiled by NVRTC: one pointer per binding of `buffers`, in
/// binding order, blocks of `block` threads.
#[allow(clippy::too_many_arguments)]
pub fn time_theirs(
    gpu: &Gpu,
    sm: u32,
    pair: &Pair,
    buffers: &BTreeMap<(u32, u32), Vec<u8>>,
    output: (u32, u32),
    grid: [u32; 3],
    block: [u32; 3],
    reps: u32,
) -> Result<Timing, String> {
    let src = kernels::cuda_source(pair)?;
    let ptx = crate::nvrtc::compile(&src, pair.cuda_file, sm).map_err(|e| e.to_string())?;
    let params: Vec<Vec<u8>> = buffers.values().cloned().collect();
    let output = buffers.keys().position(|k| *k == output).ok_or("no output parameter")?;
    gpu.time(
        &Launch { ptx: &ptx, entry: pair.cuda_entry, params: &params, output, grid, block },
        reps,
    )
}

/// Times both kernels of the memory-bound pair with dianran and NVRTC, prints a table, and
/// returns `what<TAB>value` summary lines.
pub fn run(gpu: &Gpu, sm: u32, info: &DeviceInfo) -> Vec<String> {
    let peak = peak_bandwidth_gbs(info);
    println!(
        "DRAM peak {}",
        peak.map(|p| format!("{p:.0} GB/s")).unwrap_or_else(|| "unknown".into())
    );
    let mut t = Table::new(&["memory-bound", "compiler", "ms/launch", "GB/s", "of peak", "result"]);
    let mut summary = Vec::new();
    for case in [saxpy(SAXPY_VEC4S), softmax(SOFTMAX_ROWS, SOFTMAX_COLS)] {
        let mut rates = Vec::new();
        let (b, out, grid) = (&case.buffers, case.output, case.grid);
        let runs = [
            ("dianran", time_ours(gpu, sm, &case.pair, b, out, grid, REPS)),
            ("NVRTC", time_theirs(gpu, sm, &case.pair, b, out, grid, [WG, 1, 1], REPS)),
        ];
        for (who, run) in runs {
            match run {
                Ok(r) => {
                    let rate = gbs(case.bytes, r.seconds);
                    rates.push(rate);
                    let of_peak = peak
                        .map(|p| format!("{:.1}%", 100.0 * rate / p))
                        .unwrap_or_else(|| "-".into());
                    let result = match (case.check)(&r.output) {
                        Ok(()) => "ok".to_string(),
                        Err(e) => format!("WRONG: {e}"),
                    };
                    summary.push(format!(
                        "{} {who}\t{rate:.0} GB/s, {of_peak} of peak, result {result}",
                        case.label
                    ));
                    t.row(vec![
                        case.label.into(),
                        who.into(),
                        format!("{:.3}", r.seconds * 1e3),
                        format!("{rate:.0}"),
                        of_peak,
                        result,
                    ]);
                }
                Err(e) => {
                    let first = e.lines().next().unwrap_or("").to_string();
                    summary.push(format!("{} {who}\tfailed: {first}", case.label));
                    t.row(vec![
                        case.label.into(),
                        who.into(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        first,
                    ]);
                }
            }
        }
        if let [ours, theirs] = rates[..] {
            summary.push(format!(
                "{} dianran/NVRTC bandwidth\t{}",
                case.label,
                ratio(ours, theirs)
            ));
        }
    }
    print!("{}", t.render());
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saxpy_check_replays_every_launch() {
        let c = saxpy(1000);
        // Build the output the kernel would leave after REPS + 1 launches, in plain Rust.
        let x = &c.buffers[&(0, 1)];
        let mut y = c.buffers[&(0, 2)].clone();
        for i in 0..4000 {
            let xv = f32_at(x, i).expect("x");
            let mut v = f32_at(&y, i).expect("y");
            for _ in 0..=REPS {
                v = 0.75f32.mul_add(xv, v);
            }
            y[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        assert_eq!((c.check)(&y), Ok(()));
        // One launch short: every checked element differs.
        assert!((c.check)(&c.buffers[&(0, 2)]).is_err());
        assert_eq!(c.bytes, 12 * 4000);
        assert_eq!(c.grid, [4, 1, 1]);
    }

    #[test]
    fn softmax_check_accepts_the_f64_answer_and_rejects_a_wrong_one() {
        let (rows, cols) = (8, 1024);
        let c = softmax(rows, cols);
        let x = &c.buffers[&(0, 1)];
        let mut y = vec![0u8; x.len()];
        for row in 0..rows {
            let xs: Vec<f64> =
                (0..cols).map(|j| f32_at(x, row * cols + j).expect("x") as f64).collect();
            let max = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = xs.iter().map(|v| (v - max).exp()).sum();
            for (j, v) in xs.iter().enumerate() {
                let o = 4 * (row * cols + j);
                y[o..o + 4].copy_from_slice(&(((v - max).exp() / sum) as f32).to_le_bytes());
            }
        }
        assert_eq!((c.check)(&y), Ok(()));
        assert!((c.check)(&vec![0u8; y.len()]).is_err());
    }
}
