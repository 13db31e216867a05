//! GEMM throughput on a CUDA device: loads a PTX module, launches one kernel repeatedly on
//! device buffers, and reports seconds per launch and TFLOP/s. Nothing here runs without a
//! device: [`Gpu::open`] says why, and the bench prints `skipped: ...`.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

/// What the device is.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// The driver's device name.
    pub name: String,
    /// Compute capability (major, minor).
    pub cc: (i32, i32),
    /// Streaming multiprocessors.
    pub sms: i32,
    /// Maximum SM clock in kHz.
    pub clock_khz: i32,
    /// Peak memory clock in kHz.
    pub mem_clock_khz: i32,
    /// Global memory bus width in bits.
    pub bus_width_bits: i32,
}

/// Dense f16 tensor-core peak with f32 accumulation, in TFLOP/s: SMs x clock x the
/// per-SM rate of the architecture (A100: 1024 f16 FMAs per clock and SM; H100/H200: 2048).
/// `None` for architectures whose rate is not in the table. The clock is the driver's
/// maximum, so the result is somewhat above datasheet numbers that use a lower boost clock
/// (H100 SXM: 989 TFLOP/s at 1.83 GHz).
pub fn peak_f16_tensor_tflops(info: &DeviceInfo) -> Option<f64> {
    let flops_per_clock_per_sm = match info.cc {
        (8, 0) => 2048.0,
        (9, 0) => 4096.0,
        _ => return None,
    };
    Some(info.sms as f64 * info.clock_khz as f64 * 1e3 * flops_per_clock_per_sm / 1e12)
}

/// Peak DRAM bandwidth in GB/s (10^9 bytes): two transfers per memory clock (DDR) over the
/// whole bus. H100 SXM: 2619 MHz x 5120 bits -> 3352 GB/s, NVIDIA's "3.35 TB/s".
pub fn peak_bandwidth_gbs(info: &DeviceInfo) -> Option<f64> {
    if info.mem_clock_khz <= 0 || info.bus_width_bits <= 0 {
        return None;
    }
    Some(2.0 * info.mem_clock_khz as f64 * 1e3 * (info.bus_width_bits as f64 / 8.0) / 1e9)
}

/// Bytes moved / seconds, in GB/s (10^9 bytes).
pub fn gbs(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

/// xorshift32: deterministic device-bench inputs and check positions, no dependencies.
pub struct Rng(pub u32);

impl Rng {
    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

/// `2 * m * n * k` / seconds, in TFLOP/s.
pub fn gemm_tflops(m: u64, n: u64, k: u64, seconds: f64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64 / seconds / 1e12
}

/// One kernel launch: PTX, entry, one device buffer per parameter (in order), geometry.
pub struct Launch<'a> {
    /// PTX text.
    pub ptx: &'a str,
    /// The `.entry` name.
    pub entry: &'a str,
    /// Parameter buffers, each passed as a device pointer.
    pub params: &'a [Vec<u8>],
    /// Which parameter to read back.
    pub output: usize,
    /// Grid dimensions (blocks).
    pub grid: [u32; 3],
    /// Block dimensions (threads).
    pub block: [u32; 3],
}

/// The result of timing a launch.
pub struct Timing {
    /// Mean wall time per launch over the timed repetitions, in seconds.
    pub seconds: f64,
    /// The output buffer after the runs.
    pub output: Vec<u8>,
}

/// Device 0.
pub struct Gpu {
    ctx: Arc<CudaContext>,
}

fn describe(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

impl Gpu {
    /// Opens device 0, or says why not (`no CUDA device` without a driver or device).
    pub fn open() -> Result<Gpu, String> {
        // One guarded place creates contexts (cudarc panics without a driver).
        dianran_verify::cuda::new_context().map(|ctx| Gpu { ctx }).map_err(|e| e.to_string())
    }

    /// Name, compute capability, SM count and clock.
    pub fn info(&self) -> Result<DeviceInfo, String> {
        use sys::CUdevice_attribute as A;
        Ok(DeviceInfo {
            name: self.ctx.name().map_err(describe)?,
            cc: self.ctx.compute_capability().map_err(describe)?,
            sms: self
                .ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(describe)?,
            clock_khz: self.ctx.attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE).map_err(describe)?,
            mem_clock_khz: self
                .ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)
                .map_err(describe)?,
            bus_width_bits: self
                .ctx
                .attribute(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)
                .map_err(describe)?,
        })
    }

    /// Runs the launch once to warm up, then `reps` times back to back, and returns the mean
    /// time per launch (wall clock around the repetitions and one final synchronize).
    pub fn time(&self, l: &Launch<'_>, reps: u32) -> Result<Timing, String> {
        let module = self.ctx.load_module(Ptx::from_src(l.ptx)).map_err(|e| {
            let log = std::ffi::CString::new(l.ptx)
                .map(|src| dianran_verify::cuda::jit_error_log(&self.ctx, &src))
                .unwrap_or_default();
            format!("loading the PTX: {}\n{log}", describe(e))
        })?;
        let func =
            module.load_function(l.entry).map_err(|e| format!("entry {}: {e:?}", l.entry))?;
        let stream = self.ctx.default_stream();
        let mut bufs = Vec::with_capacity(l.params.len());
        for p in l.params {
            let b = if p.is_empty() { stream.alloc_zeros::<u8>(16) } else { stream.clone_htod(p) };
            bufs.push(b.map_err(|e| format!("copying to the device: {}", describe(e)))?);
        }
        let cfg = LaunchConfig {
            grid_dim: (l.grid[0], l.grid[1], l.grid[2]),
            block_dim: (l.block[0], l.block[1], l.block[2]),
            shared_mem_bytes: 0,
        };
        let launch_once = |bufs: &mut Vec<cudarc::driver::CudaSlice<u8>>| {
            let mut b = stream.launch_builder(&func);
            for buf in bufs.iter_mut() {
                b.arg(buf);
            }
            // SAFETY: every parameter is a device pointer to a buffer sized for the problem
            // the caller describes; a kernel fault surfaces as an error at synchronize.
            unsafe { b.launch(cfg) }.map(|_| ()).map_err(|e| format!("launch: {}", describe(e)))
        };
        launch_once(&mut bufs)?;
        stream.synchronize().map_err(|e| format!("warm-up run: {}", describe(e)))?;
        let start = Instant::now();
        for _ in 0..reps.max(1) {
            launch_once(&mut bufs)?;
        }
        stream.synchronize().map_err(|e| format!("timed runs: {}", describe(e)))?;
        let seconds = start.elapsed().as_secs_f64() / reps.max(1) as f64;
        let out = bufs.get(l.output).ok_or("output parameter out of range")?;
        let output =
            stream.clone_dtoh(out).map_err(|e| format!("reading back: {}", describe(e)))?;
        Ok(Timing { seconds, output })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peaks_match_the_datasheets() {
        // A100 SXM: 108 SMs at 1410 MHz -> 312 TFLOP/s dense f16 (NVIDIA's figure).
        let a100 = DeviceInfo {
            name: "A100".into(),
            cc: (8, 0),
            sms: 108,
            clock_khz: 1_410_000,
            mem_clock_khz: 1_215_000,
            bus_width_bits: 5120,
        };
        let p = peak_f16_tensor_tflops(&a100).expect("known");
        assert!((p - 311.9).abs() < 0.5, "{p}");
        // H100 SXM: 132 SMs at 1830 MHz -> 989 TFLOP/s.
        let h100 = DeviceInfo {
            name: "H100".into(),
            cc: (9, 0),
            sms: 132,
            clock_khz: 1_830_000,
            mem_clock_khz: 2_619_000,
            bus_width_bits: 5120,
        };
        let p = peak_f16_tensor_tflops(&h100).expect("known");
        assert!((p - 989.4).abs() < 0.5, "{p}");
        let other = DeviceInfo { cc: (7, 5), ..a100.clone() };
        assert_eq!(peak_f16_tensor_tflops(&other), None);
    }

    #[test]
    fn bandwidth_peaks_match_the_datasheets() {
        // A100 40GB: 1215 MHz HBM2 on 5120 bits -> 1555 GB/s (NVIDIA's figure).
        let a100 = DeviceInfo {
            name: "A100".into(),
            cc: (8, 0),
            sms: 108,
            clock_khz: 1_410_000,
            mem_clock_khz: 1_215_000,
            bus_width_bits: 5120,
        };
        let p = peak_bandwidth_gbs(&a100).expect("known");
        assert!((p - 1555.2).abs() < 0.5, "{p}");
        assert_eq!(peak_bandwidth_gbs(&DeviceInfo { mem_clock_khz: 0, ..a100 }), None);
        // 1 GiB in 1 ms: 1073.7 GB/s.
        assert!((gbs(1 << 30, 1e-3) - 1073.74).abs() < 0.01);
    }

    #[test]
    fn tflops_of_a_gemm() {
        // 4096^3 in 1 ms: 2 * 2^36 / 1e-3 / 1e12 = 137.4 TFLOP/s.
        let t = gemm_tflops(4096, 4096, 4096, 1e-3);
        assert!((t - 137.44).abs() < 0.01, "{t}");
    }

    #[test]
    fn open_says_why_without_a_device() {
        if let Err(why) = Gpu::open() {
            assert!(why.contains("CUDA"), "{why}");
        }
    }
}
