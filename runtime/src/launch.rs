//! Launching compiled entries on an NVIDIA GPU through the CUDA driver (feature `cuda`).
//!
//! [`CudaModule::load`] JIT-loads a module's PTX (`cuModuleLoadData`); [`CudaModule::launch`]
//! runs one [`Entry`] with host buffers bound by (group, binding). The helper applies the PTX
//! parameter convention from the entry table: one device pointer per
//! [`Entry::ptx_params`] (a small zeroed allocation for a group-0 placeholder), and, when
//! [`Entry::ptx_uses_sizes`], a trailing pointer to the buffers' byte sizes, then, when
//! [`Entry::ptx_immediates`] is not zero, the immediate data by value
//! ([`CudaModule::launch_with_immediates`], docs/immediates.md). Each buffer's
//! length is checked against its binding's [`Layout`](crate::reflect::Layout) first. The
//! block size is the entry's workgroup size; the grid is the dispatch count.
//! [`CudaModule::launch_with_textures`] also binds textures and samplers ([`textures`]):
//! CUDA arrays, texture objects and surface objects as the parameter list names them.
//!
//! Without a CUDA driver or device, every call returns [`LaunchError::NoDevice`]; nothing
//! panics (cudarc loads `libcuda` at run time and panics when it is missing, so every path
//! checks for the library first and makes its context through
//! [`crate::cuda::new_context`], which contains such panics).
//!
//! ```no_run
//! use dianran::launch::{BufferArg, CudaModule, LaunchError};
//!
//! let src = "@group(0) @binding(0) var<storage, read_write> data: array<f32>;
//! @compute @workgroup_size(64) fn double(@builtin(global_invocation_id) id: vec3<u32>) {
//!     if id.x < arrayLength(&data) { data[id.x] = data[id.x] * 2.0; }
//! }";
//! let out = dianran::compile("double.wgsl", src, &Default::default()).map_err(|d| d.render())?;
//! let ptx = out.ptx.as_ref().map_err(|d| d.render())?;
//! let module = match CudaModule::load(ptx) {
//!     Err(LaunchError::NoDevice) => return Ok(println!("skipped: no CUDA device")),
//!     m => m?,
//! };
//! let mut bytes: Vec<u8> = (0..256).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let entry = out.entry("double").ok_or("no entry")?;
//! module.launch(entry, [1, 1, 1], &mut [BufferArg::new(0, 0, &mut bytes)])?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod device;
pub mod device_texture;
pub mod plan;
pub mod textures;

pub use crate::texture::{SamplerDesc, TextureData};
pub use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr, DriverError,
    ValidAsZeroBits,
};
pub use device::{DeviceArg, DeviceBuffer, Target};
pub use device_texture::DeviceTexture;
pub use plan::{BoundBuffer, LaunchPlan, ParamValue};
pub use textures::{SamplerArg, TextureArg};

use crate::cuda::{self, describe_error, CudaError};
use crate::reflect::Entry;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use std::ffi::CString;
use std::fmt;
use std::sync::Arc;

/// True when the CUDA driver library loads and reports at least one device.
pub fn available() -> bool {
    cuda::available()
}

/// A host buffer bound to `@group(group) @binding(binding)` for one launch. After a
/// successful launch, buffers the shader may write hold the results.
#[derive(Debug)]
pub struct BufferArg<'a> {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The bytes, in WGSL's host-shareable layout (little-endian).
    pub data: &'a mut [u8],
}

impl<'a> BufferArg<'a> {
    /// Binds `data` to (`group`, `binding`).
    pub fn new(group: u32, binding: u32, data: &'a mut [u8]) -> Self {
        BufferArg { group, binding, data }
    }
}

/// Why a load or launch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// No CUDA driver library, or no CUDA device.
    NoDevice,
    /// The PTX text contains a NUL byte, which the driver API cannot take.
    InvalidPtx,
    /// The driver's JIT rejected the PTX.
    Load {
        /// The driver's error, e.g. `CUDA_ERROR_INVALID_PTX: ...`.
        error: String,
        /// The JIT's error log (`ptxas application ptx input, line N; error : ...`).
        log: String,
    },
    /// The entry is not in the PTX (not a compute entry, or the PTX target failed for it).
    NotInPtx {
        /// The entry's WGSL name.
        entry: String,
    },
    /// The loaded module has no kernel of the entry's PTX name (PTX from another shader?).
    MissingKernel {
        /// The PTX name looked up.
        ptx_name: String,
    },
    /// A buffer the entry uses was not given.
    MissingBuffer {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
        /// The variable's name in the shader.
        name: String,
    },
    /// Two buffers were given for one (group, binding).
    DuplicateBuffer {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
    },
    /// A buffer's length does not fit its binding's type.
    BufferSize {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
        /// The variable's name in the shader.
        name: String,
        /// What is wrong (`12 bytes given, the type needs a multiple of 8 bytes`).
        detail: String,
    },
    /// A device buffer's element type cannot hold its binding's type: its size does not
    /// divide the binding's element stride or fixed size (`launch_on`).
    BufferType {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
        /// The variable's name in the shader.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// The immediate data given does not have the size of the entry's `var<immediate>`.
    ImmediatesSize {
        /// [`Entry::ptx_immediates`]: the variable's size in bytes (0: none).
        expected: u32,
        /// Bytes given.
        given: usize,
    },
    /// A grid dimension is zero.
    EmptyGrid([u32; 3]),
    /// An argument names a binding the entry does not have.
    UnknownBinding {
        /// The name given.
        name: String,
    },
    /// A buffer the entry may write was lent immutably ([`DeviceArg::read`]).
    ReadOnlyBuffer {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
        /// The variable's name in the shader.
        name: String,
    },
    /// The launch was refused (grid too large, too many resources, ...).
    Launch(String),
    /// The kernel failed while running (illegal address, trap, ...).
    Execution(String),
    /// Another driver call failed (context creation, allocation, copies).
    Driver {
        /// What was being done.
        op: String,
        /// The driver's error.
        error: String,
    },
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::NoDevice => write!(f, "no CUDA device"),
            LaunchError::InvalidPtx => write!(f, "the PTX text contains a NUL byte"),
            LaunchError::Load { error, log } => {
                write!(f, "the CUDA driver could not load the PTX ({error})")?;
                if !log.is_empty() {
                    write!(f, ":\n{log}")?;
                }
                Ok(())
            }
            LaunchError::NotInPtx { entry } => write!(
                f,
                "entry '{entry}' is not in the PTX (only compute entries are, and only when the \
                 PTX target compiled)"
            ),
            LaunchError::MissingKernel { ptx_name } => {
                write!(f, "the loaded PTX has no kernel '{ptx_name}'; was it compiled from this shader?")
            }
            LaunchError::MissingBuffer { group, binding, name } => write!(
                f,
                "no buffer bound to @group({group}) @binding({binding}) ('{name}'), which the entry uses"
            ),
            LaunchError::DuplicateBuffer { group, binding } => {
                write!(f, "two buffers bound to @group({group}) @binding({binding})")
            }
            LaunchError::BufferSize { group, binding, name, detail } => write!(
                f,
                "buffer for @group({group}) @binding({binding}) ('{name}') has the wrong size: {detail}"
            ),
            LaunchError::BufferType { group, binding, name, detail } => write!(
                f,
                "buffer for @group({group}) @binding({binding}) ('{name}') has the wrong element type: {detail}"
            ),
            LaunchError::ImmediatesSize { expected, given } => write!(
                f,
                "{given} bytes of immediate data given; the entry's var<immediate> has {expected}"
            ),
            LaunchError::EmptyGrid(g) => {
                write!(f, "grid {g:?} has a zero dimension; every dispatch count must be at least 1")
            }
            LaunchError::UnknownBinding { name } => {
                write!(f, "the entry has no binding named '{name}'")
            }
            LaunchError::ReadOnlyBuffer { group, binding, name } => write!(
                f,
                "@group({group}) @binding({binding}) ('{name}') may be written by the entry; lend it mutably (DeviceArg::write, DeviceArg::storage_texture)"
            ),
            LaunchError::Launch(m) => write!(f, "kernel launch failed: {m}"),
            LaunchError::Execution(m) => write!(f, "kernel failed while running: {m}"),
            LaunchError::Driver { op, error } => write!(f, "CUDA driver error while {op}: {error}"),
        }
    }
}

impl std::error::Error for LaunchError {}

/// A failed cudarc call of the caller's own (an upload, a read-back on a stream), so code
/// around the typed launchers can use `?` throughout.
impl From<DriverError> for LaunchError {
    fn from(e: DriverError) -> Self {
        LaunchError::Driver { op: "calling the driver".to_string(), error: describe_error(&e) }
    }
}

fn driver(op: &str) -> impl FnOnce(DriverError) -> LaunchError + '_ {
    move |e| LaunchError::Driver { op: op.to_string(), error: describe_error(&e) }
}

/// The launch error for a failed [`cuda::new_context`] (which returns only `NoDevice` or
/// `Driver`).
fn context_error(e: CudaError) -> LaunchError {
    match e {
        CudaError::NoDevice => LaunchError::NoDevice,
        CudaError::Driver { op, error } => LaunchError::Driver { op, error },
        other => LaunchError::Driver { op: "creating a context".into(), error: other.to_string() },
    }
}

/// A PTX module loaded on CUDA device 0.
#[derive(Debug)]
pub struct CudaModule {
    ctx: Arc<CudaContext>,
    module: Arc<cudarc::driver::CudaModule>,
    device: device::Cache,
}

impl CudaModule {
    /// JIT-loads `ptx` on device 0. A JIT failure carries the driver's error log.
    pub fn load(ptx: &str) -> Result<Self, LaunchError> {
        // `new_context` checks for a driver and device first, so no device stays `NoDevice`
        // whatever the PTX.
        let ctx = cuda::new_context().map_err(context_error)?;
        let src = CString::new(ptx).map_err(|_| LaunchError::InvalidPtx)?;
        let module = ctx.load_module(Ptx::from_src(ptx)).map_err(|e| LaunchError::Load {
            error: describe_error(&e),
            log: cuda::jit_error_log(&ctx, &src),
        })?;
        Ok(CudaModule { ctx, module, device: device::Cache::default() })
    }

    /// The CUDA context the module is loaded in (device 0's primary context): make streams
    /// and device buffers for [`CudaModule::launch_on`] from it.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Runs `entry` on a grid of `grid` workgroups (blocks of the entry's workgroup size),
    /// with `buffers` bound by (group, binding), and waits for it. Buffers the entry does not
    /// use are ignored; buffers it may write are copied back into their `data`.
    pub fn launch(
        &self,
        entry: &Entry,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
    ) -> Result<(), LaunchError> {
        self.launch_full(entry, grid, buffers, &mut [], &[], &[])
    }

    /// [`CudaModule::launch`] with `immediates`, the bytes of the entry's `var<immediate>` in
    /// WGSL's host-shareable layout ([`Entry::ptx_immediates`] of them; empty when the entry
    /// has none), passed by value as the last kernel parameter (docs/immediates.md).
    pub fn launch_with_immediates(
        &self,
        entry: &Entry,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        immediates: &[u8],
    ) -> Result<(), LaunchError> {
        self.launch_full(entry, grid, buffers, &mut [], &[], immediates)
    }

    /// [`CudaModule::launch`] with textures and samplers bound by (group, binding)
    /// (`docs/textures.md`): every texture becomes a mipmapped CUDA array holding its levels,
    /// each texture parameter a texture object (a pair's with its sampler's state), each
    /// storage texture a surface object; storage textures the entry may write are copied back.
    /// Objects and arrays are destroyed before returning.
    pub fn launch_with_textures(
        &self,
        entry: &Entry,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        textures: &mut [TextureArg<'_>],
        samplers: &[SamplerArg],
    ) -> Result<(), LaunchError> {
        self.launch_full(entry, grid, buffers, textures, samplers, &[])
    }

    /// Everything at once: buffers, textures and samplers, and immediate data (see
    /// [`CudaModule::launch_with_textures`] and [`CudaModule::launch_with_immediates`]).
    pub fn launch_full(
        &self,
        entry: &Entry,
        grid: [u32; 3],
        buffers: &mut [BufferArg<'_>],
        textures: &mut [TextureArg<'_>],
        samplers: &[SamplerArg],
        immediates: &[u8],
    ) -> Result<(), LaunchError> {
        let bound: Vec<BoundBuffer> = buffers
            .iter()
            .map(|b| BoundBuffer { group: b.group, binding: b.binding, len: b.data.len() })
            .collect();
        let keys: Vec<(u32, u32)> = textures.iter().map(|t| (t.group, t.binding)).collect();
        let plan = LaunchPlan::new(entry, grid, &bound, &keys, samplers, immediates)?;
        self.ctx.bind_to_thread().map_err(driver("binding the context"))?;
        let func = self
            .module
            .load_function(&plan.ptx_name)
            .map_err(|_| LaunchError::MissingKernel { ptx_name: plan.ptx_name.clone() })?;
        let stream = self.ctx.default_stream();
        // Device memory and objects for the plan's parameters, in its order. Each texture is
        // uploaded once (a storage texture's array also backs surfaces).
        let storage: Vec<bool> = (0..textures.len())
            .map(|k| plan.params.contains(&ParamValue::Surface { texture: k }))
            .collect();
        let mut uploaded: Vec<Option<DeviceTexture>> = (0..textures.len()).map(|_| None).collect();
        let mut device: Vec<Option<CudaSlice<u8>>> = Vec::with_capacity(plan.params.len());
        let mut handles: Vec<u64> = Vec::with_capacity(plan.params.len());
        for p in &plan.params {
            let texture = match p {
                ParamValue::Texture { texture, .. } | ParamValue::Surface { texture } => {
                    Some(*texture)
                }
                _ => None,
            };
            if let Some(k) = texture.filter(|k| uploaded.get(*k).is_some_and(Option::is_none)) {
                let t = textures.get(k).ok_or(LaunchError::InvalidPtx)?;
                let on = storage.get(k).copied().unwrap_or(false);
                let dev = DeviceTexture::upload(&self.ctx, t.texture, on)?;
                if let Some(slot) = uploaded.get_mut(k) {
                    *slot = Some(dev);
                }
            }
            let uploaded_at = |k: usize| uploaded.get(k).and_then(Option::as_ref);
            let (dev, handle) = match p {
                ParamValue::Buffer(i) => {
                    let b = buffers.get(*i).ok_or(LaunchError::InvalidPtx)?;
                    (Some(stream.clone_htod(&*b.data)), 0)
                }
                ParamValue::Placeholder => (Some(stream.alloc_zeros::<u8>(16)), 0),
                ParamValue::Sizes(b) => (Some(stream.clone_htod(b)), 0),
                ParamValue::Texture { texture, sampler } => {
                    let t = uploaded_at(*texture).ok_or(LaunchError::InvalidPtx)?;
                    (None, t.texture_object(sampler.as_ref())?)
                }
                ParamValue::Surface { texture } => {
                    let t = uploaded_at(*texture).ok_or(LaunchError::InvalidPtx)?;
                    (None, t.surface_object()?)
                }
                ParamValue::CompareWord(_) | ParamValue::Immediates(_) => (None, 0),
            };
            device.push(dev.transpose().map_err(driver("copying a buffer to the device"))?);
            handles.push(handle);
        }
        let [x, y, z] = plan.block;
        let cfg = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (x, y, z),
            shared_mem_bytes: 0,
        };
        {
            let mut launch = stream.launch_builder(&func);
            for ((p, dev), h) in plan.params.iter().zip(device.iter_mut()).zip(&handles) {
                match (p, dev) {
                    (_, Some(buf)) => {
                        launch.arg(buf);
                    }
                    (ParamValue::CompareWord(w), None) => {
                        launch.arg(w);
                    }
                    // By value: the driver copies the parameter's size (these padded bytes)
                    // from the address of their first byte.
                    (ParamValue::Immediates(v), None) => {
                        if let Some(first) = v.first() {
                            launch.arg(first);
                        }
                    }
                    (_, None) => {
                        launch.arg(h);
                    }
                }
            }
            // SAFETY: the kernel takes exactly these `.u64` device pointers and texture or
            // surface objects, `.u32` compare words and the immediate bytes by value, in the
            // plan's order (the entry table's ABI, docs/abi.md), and every buffer's length
            // was checked against its binding's layout, so in-bounds shader accesses stay
            // inside the allocations. A fault can only come from the device, reported below
            // as `Execution`.
            unsafe { launch.launch(cfg) }.map_err(|e| LaunchError::Launch(describe_error(&e)))?;
        }
        stream.synchronize().map_err(|e| LaunchError::Execution(describe_error(&e)))?;
        for (k, dev) in uploaded.iter().enumerate() {
            let (Some(dev), Some(t)) = (dev, textures.get_mut(k)) else { continue };
            let writes = entry.binding(t.group, t.binding).is_some_and(|i| i.access.writes());
            if writes && dev.is_storage() {
                dev.download(t.texture)?;
            }
        }
        for (p, dev) in plan.params.iter().zip(&device) {
            let (ParamValue::Buffer(i), Some(dev)) = (p, dev) else { continue };
            let Some(b) = buffers.get_mut(*i) else { continue };
            let writes = entry.binding(b.group, b.binding).is_some_and(|info| info.access.writes());
            if !writes {
                continue;
            }
            let bytes =
                stream.clone_dtoh(dev).map_err(|e| LaunchError::Execution(describe_error(&e)))?;
            let n = b.data.len().min(bytes.len());
            if let (Some(dst), Some(src)) = (b.data.get_mut(..n), bytes.get(..n)) {
                dst.copy_from_slice(src);
            }
        }
        Ok(())
    }
}

/// The bytes of the `p_immediates` parameter: `immediates` padded to whole words, after
/// checking their size against the entry's variable (empty for an entry without one).
fn immediates_value(entry: &Entry, immediates: &[u8]) -> Result<Vec<u8>, LaunchError> {
    if immediates.len() != entry.ptx_immediates as usize {
        return Err(LaunchError::ImmediatesSize {
            expected: entry.ptx_immediates,
            given: immediates.len(),
        });
    }
    let mut v = immediates.to_vec();
    if !v.is_empty() {
        v.resize(dianran_ptx::abi::immediates_len(v.len()), 0);
    }
    Ok(v)
}

/// For each PTX buffer parameter, the index in `bound` of the buffer bound to it (`None`:
/// placeholder with nothing bound). Checks presence, duplicates and sizes ([`LaunchPlan`]
/// plans buffers with it).
fn plan(entry: &Entry, bound: &[BoundBuffer]) -> Result<Vec<Option<usize>>, LaunchError> {
    for (i, a) in bound.iter().enumerate() {
        let dup = bound.iter().skip(i + 1).any(|b| (b.group, b.binding) == (a.group, a.binding));
        if dup {
            return Err(LaunchError::DuplicateBuffer { group: a.group, binding: a.binding });
        }
    }
    let mut slots = Vec::with_capacity(entry.ptx_params.len());
    for p in entry.ptx_params.iter() {
        let found = bound.iter().position(|b| (b.group, b.binding) == (p.group, p.binding));
        let info = entry.binding(p.group, p.binding);
        match (found, info) {
            (None, Some(info)) if p.used && p.sampler.is_none() && info.kind.is_buffer() => {
                return Err(LaunchError::MissingBuffer {
                    group: p.group,
                    binding: p.binding,
                    name: info.name.to_string(),
                })
            }
            (Some(i), Some(info)) => {
                if let (Some(layout), Some(b)) = (&info.layout, bound.get(i)) {
                    layout.check_len(b.len as u64).map_err(|e| LaunchError::BufferSize {
                        group: p.group,
                        binding: p.binding,
                        name: info.name.to_string(),
                        detail: e.to_string(),
                    })?;
                }
            }
            _ => {}
        }
        slots.push(found);
    }
    Ok(slots)
}

/// The `p_sizes` array: one little-endian `u32` byte size per buffer parameter (`lens`, the
/// bound buffer's length per parameter; 0 for a placeholder).
fn sizes_bytes(entry: &Entry, lens: &[Option<usize>]) -> Result<Vec<u8>, LaunchError> {
    let mut out = Vec::with_capacity(lens.len() * 4);
    for (p, len) in entry.ptx_params.iter().zip(lens) {
        let len = len.unwrap_or(0);
        let len = u32::try_from(len).map_err(|_| LaunchError::BufferSize {
            group: p.group,
            binding: p.binding,
            name: entry
                .binding(p.group, p.binding)
                .map_or_else(String::new, |b| b.name.to_string()),
            detail: format!("{len} bytes is more than arrayLength can describe (4 GiB)"),
        })?;
        out.extend_from_slice(&len.to_le_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{Access, Binding, BindingKind, Layout, PtxParam, Stage};
    use std::borrow::Cow;

    /// A buffer binding `@group(0) @binding(binding)` of `size` bytes (plus `stride`-byte
    /// runtime-array elements when `stride` is given).
    fn buffer(binding: u32, size: u32, stride: Option<u32>) -> Binding {
        Binding {
            name: Cow::Owned(format!("b{binding}")),
            group: 0,
            binding,
            kind: BindingKind::Storage,
            access: Access::ReadWrite,
            layout: Some(Layout {
                type_name: Cow::Borrowed("T"),
                size,
                align: 4,
                runtime_stride: stride,
                fields: Cow::Borrowed(&[]),
            }),
        }
    }

    fn param(binding: u32, used: bool) -> PtxParam {
        PtxParam {
            name: Cow::Owned(format!("p_g0_b{binding}")),
            group: 0,
            binding,
            used,
            sampler: None,
            compare: false,
        }
    }

    /// What `dianran::compile` reports for
    /// `@group(0) @binding(0) var<storage, read_write> data: array<f32>;` and
    /// `@group(0) @binding(2) var<uniform> p: P;` (`struct P { scale: f32, pad: u32 }`, 8 bytes)
    /// with binding 1 a group-0 placeholder, and `immediates` bytes of immediate data.
    fn entry(immediates: u32) -> Entry {
        Entry {
            name: Cow::Borrowed("scale"),
            wgsl_name: Cow::Borrowed("scale"),
            stage: Stage::Compute,
            workgroup_size: [64, 1, 1],
            ptx_name: Some(Cow::Borrowed("scale")),
            ptx_params: Cow::Owned(vec![param(0, true), param(1, false), param(2, true)]),
            ptx_uses_sizes: true,
            ptx_immediates: immediates,
            msl_uses_sizes: true,
            bindings: Cow::Owned(vec![buffer(0, 0, Some(4)), buffer(2, 8, None)]),
        }
    }

    #[test]
    fn immediates_are_checked_and_padded() {
        let e = entry(24);
        assert_eq!(immediates_value(&e, &[7; 24]), Ok(vec![7; 24]));
        assert_eq!(
            immediates_value(&e, &[0; 20]),
            Err(LaunchError::ImmediatesSize { expected: 24, given: 20 })
        );
        // Padded to whole words: 6 bytes travel as 8.
        assert_eq!(immediates_value(&entry(6), &[1; 6]), Ok(vec![1, 1, 1, 1, 1, 1, 0, 0]));
        // An entry without immediate data takes none.
        assert_eq!(immediates_value(&entry(0), &[]), Ok(Vec::new()));
        assert!(immediates_value(&entry(0), &[1]).is_err());
    }

    #[test]
    fn plan_checks_buffers_before_the_driver() {
        let e = entry(0);
        // binding 1 is a placeholder: nothing bound, slot None.
        let at = |binding, len| BoundBuffer { group: 0, binding, len };
        let args = [at(0, 40), at(2, 8)];
        assert_eq!(plan(&e, &args), Ok(vec![Some(0), None, Some(1)]));
        let sizes = sizes_bytes(&e, &[Some(40), None, Some(8)]).unwrap();
        assert_eq!(sizes, [40, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0]);
        assert!(matches!(
            plan(&e, &[at(0, 40)]),
            Err(LaunchError::MissingBuffer { binding: 2, .. })
        ));
        match plan(&e, &[at(0, 10), at(2, 4)]) {
            Err(LaunchError::BufferSize { binding: 0, detail, .. }) => {
                assert_eq!(detail, "10 bytes given, the type needs a multiple of 4 bytes")
            }
            other => panic!("{other:?}"),
        }
        let args = [at(2, 8), at(2, 8)];
        assert_eq!(plan(&e, &args), Err(LaunchError::DuplicateBuffer { group: 0, binding: 2 }));
    }
}
