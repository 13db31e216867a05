//! The CUDA driver through `cudarc`: JIT-load PTX (`cuModuleLoadData`), launch an entry and
//! read its buffers back. Without an NVIDIA driver every entry point here returns
//! [`CudaError::NoDevice`] and tests print `skipped: no CUDA device`.
//!
//! cudarc loads `libcuda` at run time and panics when it is absent, so every path first asks
//! [`cudarc::driver::sys::is_culib_present`] and wraps context creation in `catch_unwind`.

use std::ffi::{c_void, CString};
use std::fmt;
use std::panic::catch_unwind;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{sys, CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

/// One kernel parameter's contents: a byte buffer the kernel receives as a device pointer.
pub type ParamBuffer = Vec<u8>;

/// Why a CUDA run did not produce results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CudaError {
    /// No CUDA driver library, or no CUDA device.
    NoDevice,
    /// The PTX text or the entry name contains a NUL byte, which the driver API cannot take.
    InvalidInput(String),
    /// The driver's JIT (ptxas inside the driver) rejected the PTX.
    Load {
        /// The driver's error, e.g. `CUDA_ERROR_INVALID_PTX`.
        error: String,
        /// The JIT's error log (`ptxas application ptx input, line N; error : …`).
        log: String,
    },
    /// The module has no entry of that name.
    MissingEntry(String),
    /// The launch was refused (bad block or grid dimensions, too many resources…).
    Launch(String),
    /// The kernel failed while running (illegal address, trap, …), reported at synchronization.
    Execution(String),
    /// Another driver call failed (context creation, allocation, copies).
    Driver {
        /// What was being done.
        op: String,
        /// The driver's error.
        error: String,
    },
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NoDevice => write!(f, "no CUDA device"),
            CudaError::InvalidInput(m) => write!(f, "invalid input for the CUDA driver: {m}"),
            CudaError::Load { error, log } => {
                write!(f, "the CUDA driver could not load the PTX ({error})")?;
                if !log.is_empty() {
                    write!(f, ":\n{log}")?;
                }
                Ok(())
            }
            CudaError::MissingEntry(name) => write!(f, "the PTX module has no entry '{name}'"),
            CudaError::Launch(m) => write!(f, "kernel launch failed: {m}"),
            CudaError::Execution(m) => write!(f, "kernel failed while running: {m}"),
            CudaError::Driver { op, error } => write!(f, "CUDA driver error while {op}: {error}"),
        }
    }
}

impl std::error::Error for CudaError {}

/// `CUDA_ERROR_NAME: description` for a driver error: the text every error here carries, and
/// what `dianran::launch` reports too.
pub fn describe_error(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(n), Ok(t)) => format!("{n}: {t}"),
        (Ok(n), Err(_)) => n,
        _ => format!("{e:?}"),
    }
}

fn driver(op: &str) -> impl FnOnce(DriverError) -> CudaError + '_ {
    move |e| CudaError::Driver { op: op.to_string(), error: describe_error(&e) }
}

/// True when the CUDA driver library loads and reports at least one device.
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        // SAFETY: only tries to dlopen libcuda; no CUDA call is made.
        if !unsafe { sys::is_culib_present() } {
            return false;
        }
        catch_unwind(CudaContext::device_count)
            .map(|n| matches!(n, Ok(n) if n > 0))
            .unwrap_or(false)
    })
}

/// The context on device 0, made once and shared; dropped and remade after a kernel fault
/// (a faulting kernel leaves its context unusable).
static CONTEXT: Mutex<Option<Arc<CudaContext>>> = Mutex::new(None);

fn context(slot: &mut Option<Arc<CudaContext>>) -> Result<Arc<CudaContext>, CudaError> {
    if let Some(ctx) = slot.as_ref() {
        // An error recorded by an earlier run's clean-up means the context may be broken.
        if ctx.check_err().is_ok() {
            return Ok(ctx.clone());
        }
        *slot = None;
    }
    let ctx = new_context()?;
    *slot = Some(ctx.clone());
    Ok(ctx)
}

/// A new handle on device 0's primary context, for callers that keep their own (the shared
/// one behind [`run_ptx`] is private). Never panics: without a driver library or a device it
/// returns [`CudaError::NoDevice`]; any other failure is [`CudaError::Driver`].
pub fn new_context() -> Result<Arc<CudaContext>, CudaError> {
    if !available() {
        return Err(CudaError::NoDevice);
    }
    // cudarc panics instead of returning an error when the driver misbehaves on load.
    let made = catch_unwind(|| CudaContext::new(0)).map_err(|_| CudaError::NoDevice)?;
    made.map_err(|e| match e.0 {
        sys::CUresult::CUDA_ERROR_NO_DEVICE => CudaError::NoDevice,
        _ => driver("creating a context")(e),
    })
}

/// One kernel parameter of [`run_kernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelParam<'a> {
    /// Copied to its own device allocation, passed as a `.u64` device pointer and read back
    /// after the run. An empty buffer (an unused binding's placeholder) still gets a small
    /// zeroed allocation so the kernel receives a valid pointer.
    Buffer(&'a [u8]),
    /// Passed by value: the bytes of a `.param .b8 name[N]` array or a `.u32` word (immediate
    /// data, padded to whole words, docs/immediates.md; a comparison pair's compare word,
    /// docs/textures.md). Must not be empty.
    Value(&'a [u8]),
}

/// JIT-loads `ptx`, launches `entry_ptx_name` with block dim `block` and grid dim `grid`, and
/// returns every parameter buffer's contents after the run, in parameter order.
///
/// Each of `params` is copied to its own device allocation and passed as one `.u64` device
/// pointer, in order (the entry's parameter list, `docs/architecture.md`, decides which buffer
/// goes where; that is the caller's business). [`run_kernel`] also passes by-value bytes.
pub fn run_ptx<B: AsRef<[u8]>>(
    ptx: &str,
    entry_ptx_name: &str,
    params: &[B],
    block: [u32; 3],
    grid: [u32; 3],
) -> Result<Vec<Vec<u8>>, CudaError> {
    let params: Vec<KernelParam<'_>> =
        params.iter().map(|p| KernelParam::Buffer(p.as_ref())).collect();
    run_kernel(ptx, entry_ptx_name, &params, block, grid)
}

/// [`run_ptx`] with each parameter a device buffer or by-value bytes ([`KernelParam`]). Returns
/// one entry per parameter, in order: a buffer's contents after the run, a by-value
/// parameter's bytes unchanged.
pub fn run_kernel(
    ptx: &str,
    entry_ptx_name: &str,
    params: &[KernelParam<'_>],
    block: [u32; 3],
    grid: [u32; 3],
) -> Result<Vec<Vec<u8>>, CudaError> {
    // A caller's mistake, reported the same with or without a device.
    if params.iter().any(|p| matches!(p, KernelParam::Value(v) if v.is_empty())) {
        return Err(CudaError::InvalidInput("a by-value parameter has no bytes".into()));
    }
    // SAFETY: only tries to dlopen libcuda.
    if !unsafe { sys::is_culib_present() } {
        return Err(CudaError::NoDevice);
    }
    let src = CString::new(ptx)
        .map_err(|_| CudaError::InvalidInput("the PTX text contains a NUL byte".into()))?;
    if entry_ptx_name.contains('\0') {
        return Err(CudaError::InvalidInput("the entry name contains a NUL byte".into()));
    }
    // One run at a time: runs share the context, and a fault must not hit a neighbour.
    let mut slot = CONTEXT.lock().unwrap_or_else(|p| p.into_inner());
    let ctx = context(&mut slot)?;
    let result = run_in(&ctx, ptx, &src, entry_ptx_name, params, block, grid);
    if matches!(result, Err(CudaError::Execution(_)) | Err(CudaError::Launch(_))) {
        // A sticky error poisons the context: let it go so the next run gets a fresh one.
        *slot = None;
    }
    result
}

fn run_in(
    ctx: &Arc<CudaContext>,
    ptx: &str,
    src: &CString,
    entry: &str,
    params: &[KernelParam<'_>],
    block: [u32; 3],
    grid: [u32; 3],
) -> Result<Vec<Vec<u8>>, CudaError> {
    let module = match ctx.load_module(Ptx::from_src(ptx)) {
        Ok(m) => m,
        Err(e) => {
            return Err(CudaError::Load { error: describe_error(&e), log: jit_error_log(ctx, src) })
        }
    };
    let func =
        module.load_function(entry).map_err(|_| CudaError::MissingEntry(entry.to_string()))?;
    let stream = ctx.default_stream();
    // One allocation per parameter (by-value ones get none); `None` keeps the indices aligned.
    let mut device_bufs = Vec::with_capacity(params.len());
    for p in params {
        let buf = match *p {
            KernelParam::Buffer([]) => Some(stream.alloc_zeros::<u8>(16)),
            KernelParam::Buffer(bytes) => Some(stream.clone_htod(bytes)),
            KernelParam::Value(_) => None,
        };
        device_bufs.push(buf.transpose().map_err(driver("copying a buffer to the device"))?);
    }
    let cfg = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (block[0], block[1], block[2]),
        shared_mem_bytes: 0,
    };
    {
        let mut launch = stream.launch_builder(&func);
        for (p, buf) in params.iter().zip(device_bufs.iter_mut()) {
            match (p, buf) {
                (_, Some(buf)) => {
                    launch.arg(buf);
                }
                // By value: the driver copies the parameter's declared size from the address
                // of the first byte (checked non-empty above).
                (KernelParam::Value([first, ..]), None) => {
                    launch.arg(first);
                }
                _ => {}
            }
        }
        // SAFETY: every buffer parameter is a device pointer to an allocation of the caller's
        // size and every by-value one the caller's bytes, which is what the entry's parameter
        // list declares. A kernel that reads or writes out of bounds can only fault on the
        // device, which surfaces below as `CudaError::Execution`.
        unsafe { launch.launch(cfg) }.map_err(|e| CudaError::Launch(describe_error(&e)))?;
    }
    stream.synchronize().map_err(|e| CudaError::Execution(describe_error(&e)))?;
    let mut out = Vec::with_capacity(params.len());
    for (p, buf) in params.iter().zip(&device_bufs) {
        match (p, buf) {
            (KernelParam::Buffer(host), Some(buf)) => {
                let mut bytes =
                    stream.clone_dtoh(buf).map_err(|e| CudaError::Execution(describe_error(&e)))?;
                bytes.truncate(host.len());
                out.push(bytes);
            }
            (KernelParam::Value(v) | KernelParam::Buffer(v), _) => out.push(v.to_vec()),
        }
    }
    Ok(out)
}

/// Loads the module again with `cuModuleLoadDataEx` and an error-log buffer, to recover the
/// JIT's message (plain `cuModuleLoadData` returns only an error code).
pub fn jit_error_log(ctx: &Arc<CudaContext>, src: &CString) -> String {
    if ctx.bind_to_thread().is_err() {
        return String::new();
    }
    let mut log = vec![0u8; 64 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The size option is passed by value in the pointer-sized slot, as the driver API says.
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `src` is NUL-terminated; `options`/`values` hold 2 entries each; `log` outlives
    // the call and its size is what we pass.
    let res = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            src.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if res == sys::CUresult::CUDA_SUCCESS && !module.is_null() {
        // SAFETY: the module was just loaded by us and is used nowhere else.
        unsafe { sys::cuModuleUnload(module) };
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    String::from_utf8_lossy(log.get(..end).unwrap_or_default()).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data[i] = data[i] * 2 + add[0]` for the 64 threads of one block, over two buffers.
    const DOUBLE: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry double_it(.param .u64 p_g0_b0, .param .u64 p_g0_b1)
.reqntid 64, 1, 1
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [p_g0_b0];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd4, [p_g0_b1];
    cvta.to.global.u64 %rd4, %rd4;
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, %ctaid.x;
    mad.lo.u32 %r1, %r4, 64, %r1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    ld.global.u32 %r5, [%rd4];
    add.s32 %r3, %r2, %r2;
    add.s32 %r3, %r3, %r5;
    st.global.u32 [%rd3], %r3;
    ret;
}
";

    /// A CUDA device is optional even under CI: without one, skip and pass.
    fn device() -> bool {
        if available() {
            return true;
        }
        println!("skipped: no CUDA device");
        false
    }

    #[test]
    fn new_context_without_a_device_is_no_device() {
        match new_context() {
            Ok(_) => assert!(available()),
            Err(e) if available() => panic!("device present but no context: {e}"),
            Err(e) => assert_eq!(e, CudaError::NoDevice),
        }
    }

    #[test]
    fn no_device_is_reported_not_panicked() {
        if available() {
            return;
        }
        let r = run_ptx(DOUBLE, "double_it", &[vec![0u8; 4]], [64, 1, 1], [1, 1, 1]);
        assert_eq!(r, Err(CudaError::NoDevice));
        println!("skipped: no CUDA device");
    }

    #[test]
    fn rejects_nul_bytes_before_the_driver() {
        if !available() {
            // Without a driver the NUL check is not reached; NoDevice comes first.
            return;
        }
        let r = run_ptx("x\0y", "k", &[Vec::<u8>::new()], [1, 1, 1], [1, 1, 1]);
        assert!(matches!(r, Err(CudaError::InvalidInput(_))), "{r:?}");
    }

    #[test]
    fn doubles_values_on_the_device() {
        if !device() {
            return;
        }
        let input: Vec<u32> = (0..128u32).map(|i| i * 3 + 1).collect();
        let data: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
        let add = 7u32.to_le_bytes().to_vec();
        let out = run_ptx(DOUBLE, "double_it", &[data, add.clone()], [64, 1, 1], [2, 1, 1])
            .unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<u32> =
            out[0].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let want: Vec<u32> = input.iter().map(|v| v * 2 + 7).collect();
        assert_eq!(got, want);
        assert_eq!(out[1], add);
    }

    /// `data[i] += imm[1]` with `imm` two `.u32` words passed by value.
    const ADD_IMMEDIATE: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry add_imm(.param .u64 p_g0_b0, .param .align 16 .b8 p_immediates[8])
.reqntid 32, 1, 1
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_g0_b0];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r3, [p_immediates+4];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    add.s32 %r2, %r2, %r3;
    st.global.u32 [%rd3], %r2;
    ret;
}
";

    #[test]
    fn empty_by_value_parameters_are_refused_with_or_without_a_device() {
        let r = run_kernel(
            ADD_IMMEDIATE,
            "add_imm",
            &[KernelParam::Buffer(&[0; 128]), KernelParam::Value(&[])],
            [32, 1, 1],
            [1, 1, 1],
        );
        assert!(matches!(r, Err(CudaError::InvalidInput(_))), "{r:?}");
    }

    #[test]
    fn by_value_bytes_reach_the_kernel() {
        let data: Vec<u8> = (0..32u32).flat_map(|i| (i * 5).to_le_bytes()).collect();
        let imm: Vec<u8> = [1000u32, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let params = [KernelParam::Buffer(&data), KernelParam::Value(&imm)];
        let r = run_kernel(ADD_IMMEDIATE, "add_imm", &params, [32, 1, 1], [1, 1, 1]);
        if !device() {
            assert_eq!(r, Err(CudaError::NoDevice));
            return;
        }
        let out = r.unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<u32> =
            out[0].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        // The second word (7) is added, not the first: the bytes arrive in order.
        let want: Vec<u32> = (0..32u32).map(|i| i * 5 + 7).collect();
        assert_eq!(got, want);
        assert_eq!(out[1], imm);
    }

    #[test]
    fn load_errors_carry_the_jit_log() {
        if !device() {
            return;
        }
        let bad = DOUBLE.replace("add.s32 %r3, %r2, %r2;", "bogus.op %r3;");
        match run_ptx(&bad, "double_it", &[vec![0u8; 512], vec![0u8; 4]], [64, 1, 1], [1, 1, 1]) {
            Err(CudaError::Load { log, .. }) => assert!(log.contains("bogus"), "{log}"),
            other => panic!("expected a load error, got {other:?}"),
        }
        let r = run_ptx(DOUBLE, "nope", &[vec![0u8; 512], vec![0u8; 4]], [64, 1, 1], [1, 1, 1]);
        assert_eq!(r, Err(CudaError::MissingEntry("nope".into())));
        // A block larger than `.reqntid` is refused at launch, and the next run still works.
        let r =
            run_ptx(DOUBLE, "double_it", &[vec![0u8; 512], vec![0u8; 4]], [128, 1, 1], [1, 1, 1]);
        assert!(matches!(r, Err(CudaError::Launch(_))), "{r:?}");
        let r =
            run_ptx(DOUBLE, "double_it", &[vec![0u8; 256], vec![0u8; 4]], [64, 1, 1], [1, 1, 1]);
        assert!(r.is_ok(), "{r:?}");
    }
}
