//! Verification level 5 (docs/verification.md): runs a WGSL compute entry on lavapipe, Mesa's software
//! Vulkan driver, through `wgpu`. Only a CPU Vulkan adapter is ever picked, so results do not
//! depend on whatever GPU the machine has.
//!
//! lavapipe's subgroup size is 8 (Mesa 22.3 with the default `LP_NATIVE_VECTOR_WIDTH`; 128 gives
//! 4, 512 gives 16); [`subgroup_size`] reads it from the adapter.

use crate::texture::{HandleBinding, TextureBindings};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a buffer is bound (must match the shader's declaration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LavaBindingKind {
    /// `var<storage, read>` (`read_only: true`) or `var<storage, read_write>`.
    Storage {
        /// True for `var<storage, read>`.
        read_only: bool,
    },
    /// `var<uniform>`.
    Uniform,
}

/// One buffer binding of the entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LavaBinding {
    /// `@group(N)`.
    pub group: u32,
    /// `@binding(N)`.
    pub binding: u32,
    /// Storage or uniform.
    pub kind: LavaBindingKind,
}

/// Why a lavapipe run did not produce results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LavapipeError {
    /// No CPU Vulkan adapter (lavapipe) was found, or no device could be made on it.
    NoAdapter(String),
    /// `bindings` names a buffer that `buffers` does not hold.
    MissingBuffer {
        /// Its group.
        group: u32,
        /// Its binding.
        binding: u32,
    },
    /// `bindings` names one (group, binding) twice.
    DuplicateBinding {
        /// Its group.
        group: u32,
        /// Its binding.
        binding: u32,
    },
    /// A buffer or group index exceeds what the adapter allows.
    Limit(String),
    /// wgpu rejected the WGSL, or found no such entry point; the message holds naga's report.
    Shader(String),
    /// wgpu rejected the bindings, the dispatch or another part of the run.
    Validation(String),
    /// The device ran out of memory or failed internally.
    Device(String),
    /// The dispatch did not finish in time.
    Timeout(Duration),
    /// Reading results back failed.
    Readback(String),
    /// The driver lost the device during this run (lavapipe does on some valid kernels while
    /// compiling them). Not a failure of the kernel; the next run gets a new device.
    DeviceLost(String),
    /// An earlier run of this process passed its time limit and still holds the device (Mesa
    /// cannot cancel a compile or a dispatch); this run did not start.
    Busy,
}

impl fmt::Display for LavapipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LavapipeError::NoAdapter(why) => write!(f, "no Vulkan adapter (lavapipe): {why}"),
            LavapipeError::MissingBuffer { group, binding } => {
                write!(f, "no buffer given for @group({group}) @binding({binding})")
            }
            LavapipeError::DuplicateBinding { group, binding } => {
                write!(f, "@group({group}) @binding({binding}) is listed twice")
            }
            LavapipeError::Limit(m) => write!(f, "lavapipe limit exceeded: {m}"),
            LavapipeError::Shader(m) => write!(f, "wgpu rejected the shader: {m}"),
            LavapipeError::Validation(m) => write!(f, "wgpu validation error: {m}"),
            LavapipeError::Device(m) => write!(f, "lavapipe device error: {m}"),
            LavapipeError::Timeout(d) => {
                write!(f, "lavapipe dispatch did not finish within {} s", d.as_secs())
            }
            LavapipeError::Readback(m) => write!(f, "reading results back failed: {m}"),
            LavapipeError::DeviceLost(m) => write!(
                f,
                "the Vulkan driver lost the device ({m}); not a dianran failure, but nothing to compare"
            ),
            LavapipeError::Busy => write!(
                f,
                "not run: an earlier lavapipe run passed its time limit and still holds the Vulkan driver (Mesa cannot cancel it)"
            ),
        }
    }
}

impl std::error::Error for LavapipeError {}

/// Set when a run past its caller's time limit may still hold the device ([`note_timed_out`]);
/// cleared when a run finishes.
static STUCK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that a caller stopped waiting for a lavapipe run: until some run finishes, a run
/// that finds the device taken reports [`LavapipeError::Busy`] at once instead of queueing
/// behind a compile that may never end.
pub fn note_timed_out() {
    STUCK.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// How long one dispatch may take before [`LavapipeError::Timeout`].
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The lavapipe device, made once per process (instance creation and adapter enumeration cost
/// tens of milliseconds; a run costs well under one).
struct Runner {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    /// The features the device was created with.
    features: wgpu::Features,
    /// Runs are serialized: lavapipe already uses every core for one dispatch.
    lock: Mutex<()>,
    /// Set by the device-lost callback. A lost device fails every later call without an
    /// error (WebGPU reports nothing after a loss), so runs check it and [`runner`] replaces
    /// a lost device.
    lost: Arc<std::sync::atomic::AtomicBool>,
}

impl Runner {
    fn is_lost(&self) -> bool {
        self.lost.load(std::sync::atomic::Ordering::SeqCst)
    }
}

fn runner() -> Result<Arc<Runner>, LavapipeError> {
    static RUNNER: Mutex<Option<Result<Arc<Runner>, String>>> = Mutex::new(None);
    let mut slot = RUNNER.lock().unwrap_or_else(|p| p.into_inner());
    let stale = match &*slot {
        None => true,
        Some(Ok(r)) => r.is_lost(),
        Some(Err(_)) => false,
    };
    if stale {
        // wgpu/ash may panic on a broken Vulkan installation; treat that as "no adapter".
        let made = std::panic::catch_unwind(make_runner)
            .unwrap_or_else(|_| Err("Vulkan initialisation panicked".to_string()));
        *slot = Some(made.map(Arc::new));
    }
    match slot.as_ref() {
        Some(Ok(r)) => Ok(Arc::clone(r)),
        Some(Err(why)) => Err(LavapipeError::NoAdapter(why.clone())),
        None => Err(LavapipeError::NoAdapter("not initialised".into())),
    }
}

fn make_runner() -> Result<Runner, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    // No validation layers (slow, usually absent); lavapipe may not claim full conformance.
    desc.flags = wgpu::InstanceFlags::ALLOW_UNDERLYING_NONCOMPLIANT_ADAPTER.with_env();
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        .ok_or_else(|| "no CPU Vulkan adapter; install mesa-vulkan-drivers".to_string())?;
    let info = adapter.get_info();
    let offered = adapter.features();
    // Textures: read-write storage textures, filtering of f32 textures and border colors;
    // f32 atomics (VK_EXT_shader_atomic_float), immediates and the 64-bit types: each only
    // where the adapter has it. Kernels that need a feature the device lacks are skipped
    // (`crate::executors::lavapipe_skips`, `missing_features`).
    let wanted = wgpu::Features::SHADER_F16
        | wgpu::Features::SUBGROUP
        | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
        | wgpu::Features::FLOAT32_FILTERABLE
        | wgpu::Features::ADDRESS_MODE_CLAMP_TO_BORDER
        | wgpu::Features::SHADER_FLOAT32_ATOMIC
        | wgpu::Features::IMMEDIATES
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SHADER_INT64
        | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX
        | wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS;
    let features = offered & wanted;
    let limits = adapter.limits();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("dianran lavapipe"),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("request_device on {}: {e}", info.name))?;
    // Errors outside an error scope would otherwise panic inside wgpu.
    device.on_uncaptured_error(Arc::new(|e| eprintln!("lavapipe: uncaptured wgpu error: {e}")));
    let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = Arc::clone(&lost);
    device.set_device_lost_callback(move |_, _| {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    Ok(Runner { device, queue, info, limits, features, lock: Mutex::new(()), lost })
}

/// The 64-bit shader features `m` needs that the lavapipe device lacks, as a `skipped` reason
/// (`None` when it has them all, or when there is no adapter: that is reported elsewhere).
pub fn missing_features(m: &dianran_frontend::ir::Module) -> Option<String> {
    use crate::wide_features::WideFeature as W;
    let r = runner().ok()?;
    let missing: Vec<&str> = crate::wide_features::needed(m)
        .into_iter()
        .filter(|f| {
            let flag = match f {
                W::F64 => wgpu::Features::SHADER_F64,
                W::Int64 => wgpu::Features::SHADER_INT64,
                W::Int64AtomicMinMax => wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX,
                W::Int64AtomicAllOps => wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
            };
            !r.features.contains(flag)
        })
        .map(|f| f.wgpu_name())
        .collect();
    (!missing.is_empty()).then(|| format!("the Vulkan adapter lacks {}", missing.join(", ")))
}

/// True when a lavapipe adapter and device are usable.
pub fn available() -> bool {
    runner().is_ok()
}

/// The adapter's name and driver, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`, when available.
pub fn adapter_name() -> Option<String> {
    runner().ok().map(|r| format!("{} ({} {})", r.info.name, r.info.driver, r.info.driver_info))
}

/// The features the lavapipe device was made with (of those dianran asks for), when available.
pub fn features() -> Option<wgpu::Features> {
    runner().ok().map(|r| r.device.features())
}

/// The device's `max_immediate_size` (bytes of immediate data a pipeline may use), when
/// available.
pub fn max_immediate_size() -> Option<u32> {
    runner().ok().map(|r| r.limits.max_immediate_size)
}

/// lavapipe's subgroup size (8 with Mesa's defaults), read from the adapter; `None` without an
/// adapter or when the adapter reports a range rather than one size.
pub fn subgroup_size() -> Option<u32> {
    let r = runner().ok()?;
    (r.info.subgroup_min_size == r.info.subgroup_max_size).then_some(r.info.subgroup_min_size)
}

/// For tests and harnesses: points `XDG_RUNTIME_DIR` at the temporary directory when it is
/// unset, which silences a harmless Mesa warning. Call before the first run, while the process
/// is still single-threaded where possible.
pub fn quiet_mesa_warnings() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
        }
    });
}

/// Runs `entry` of `wgsl` with `dispatch` workgroups on lavapipe.
///
/// Every binding in `bindings` must have a buffer in `buffers`, keyed by (group, binding), in
/// WGSL's host-shareable layout. Buffers are padded to a multiple of 4 bytes (16 for uniform
/// buffers) with zeros; after the run each writable storage buffer is replaced by its new
/// contents, at its original length. The bytes under [`crate::buffers::IMMEDIATES`], if
/// any, are the entry's immediate data (`set_immediates`). `enable subgroups;` is removed before wgpu sees the text,
/// since naga rejects it. `constants` are the pipeline-overridable constants' values, keyed by
/// `@id` or name as wgpu wants them.
pub fn run_wgsl(
    wgsl: &str,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut BTreeMap<(u32, u32), Vec<u8>>,
    bindings: &[LavaBinding],
    constants: &[(String, f64)],
) -> Result<(), LavapipeError> {
    let mut none = TextureBindings::default();
    run_wgsl_with(wgsl, entry, dispatch, buffers, bindings, constants, &[], &mut none)
}

/// [`run_wgsl`] with textures and samplers: `handles` (from
/// [`crate::texture::entry_handles`]) are bound from `textures`, and storage textures hold
/// their new contents after the run. Depth textures are drawn, not copied
/// (`crate::lavapipe_textures`).
pub fn run_wgsl_textured(
    wgsl: &str,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut BTreeMap<(u32, u32), Vec<u8>>,
    bindings: &[LavaBinding],
    handles: &[HandleBinding],
    textures: &mut TextureBindings,
) -> Result<(), LavapipeError> {
    crate::lavapipe_textures::check(handles, textures).map_err(LavapipeError::Limit)?;
    run_wgsl_with(wgsl, entry, dispatch, buffers, bindings, &[], handles, textures)
}

#[allow(clippy::too_many_arguments)]
fn run_wgsl_with(
    wgsl: &str,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut BTreeMap<(u32, u32), Vec<u8>>,
    bindings: &[LavaBinding],
    constants: &[(String, f64)],
    handles: &[HandleBinding],
    textures: &mut TextureBindings,
) -> Result<(), LavapipeError> {
    let mut r = runner()?;
    // A panic in another run leaves the lock poisoned but the device usable.
    let mut serial = match r.lock.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock)
            if STUCK.load(std::sync::atomic::Ordering::SeqCst) =>
        {
            return Err(LavapipeError::Busy)
        }
        Err(std::sync::TryLockError::WouldBlock) => {
            r.lock.lock().unwrap_or_else(|p| p.into_inner())
        }
    };
    if r.is_lost() {
        // Lost by the run this one waited for: take the replacement.
        drop(serial);
        r = runner()?;
        serial = r.lock.lock().unwrap_or_else(|p| p.into_inner());
    }
    let result = run_on(&r, wgsl, entry, dispatch, buffers, bindings, constants, handles, textures);
    STUCK.store(false, std::sync::atomic::Ordering::SeqCst);
    drop(serial);
    if r.is_lost() {
        // Whatever the run reported (usually "buffer is invalid"), the cause is the loss.
        let what = match result {
            Ok(()) => "after the run".to_string(),
            Err(e) => e.to_string(),
        };
        return Err(LavapipeError::DeviceLost(what));
    }
    result
}

/// [`run_wgsl`] on one device.
#[allow(clippy::too_many_arguments)]
fn run_on(
    r: &Runner,
    wgsl: &str,
    entry: &str,
    dispatch: [u32; 3],
    buffers: &mut BTreeMap<(u32, u32), Vec<u8>>,
    bindings: &[LavaBinding],
    constants: &[(String, f64)],
    handles: &[HandleBinding],
    textures: &mut TextureBindings,
) -> Result<(), LavapipeError> {
    let device = &r.device;

    // Check the request before touching the device.
    // Immediate data (`var<immediate>`), under `buffers::IMMEDIATES`: set with
    // `set_immediates` in whole 4-byte words, as wgpu requires.
    let mut immediates = buffers.get(&crate::buffers::IMMEDIATES).cloned().unwrap_or_default();
    immediates.resize(immediates.len().next_multiple_of(4), 0);
    let immediate_size = u32::try_from(immediates.len()).unwrap_or(u32::MAX);
    if immediate_size > r.limits.max_immediate_size {
        return Err(LavapipeError::Limit(format!(
            "{immediate_size} bytes of immediate data; the adapter allows {}",
            r.limits.max_immediate_size
        )));
    }
    let mut sizes = Vec::with_capacity(bindings.len());
    for (i, b) in bindings.iter().enumerate() {
        if bindings[..i].iter().any(|o| o.group == b.group && o.binding == b.binding) {
            return Err(LavapipeError::DuplicateBinding { group: b.group, binding: b.binding });
        }
        let data = buffers
            .get(&(b.group, b.binding))
            .ok_or(LavapipeError::MissingBuffer { group: b.group, binding: b.binding })?;
        if b.group >= r.limits.max_bind_groups {
            return Err(LavapipeError::Limit(format!(
                "@group({}) exceeds the adapter's {} bind groups",
                b.group, r.limits.max_bind_groups
            )));
        }
        let size = padded_size(data.len(), b.kind);
        let limit = match b.kind {
            LavaBindingKind::Storage { .. } => r.limits.max_storage_buffer_binding_size,
            LavaBindingKind::Uniform => r.limits.max_uniform_buffer_binding_size,
        }
        .min(r.limits.max_buffer_size);
        if size > limit {
            return Err(LavapipeError::Limit(format!(
                "@group({}) @binding({}) holds {size} bytes; the adapter allows {limit}",
                b.group, b.binding
            )));
        }
        sizes.push(size);
    }

    let text = dianran_frontend::source::preprocess(wgsl).0;
    let scopes = Scopes::push(device);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(entry),
        source: wgpu::ShaderSource::Wgsl(text.into()),
    });

    // Layouts: one per group used; groups in between stay empty (`None`).
    let mut by_group: BTreeMap<u32, Vec<wgpu::BindGroupLayoutEntry>> = BTreeMap::new();
    for b in bindings {
        let ty = match b.kind {
            LavaBindingKind::Storage { read_only } => {
                wgpu::BufferBindingType::Storage { read_only }
            }
            LavaBindingKind::Uniform => wgpu::BufferBindingType::Uniform,
        };
        by_group.entry(b.group).or_default().push(wgpu::BindGroupLayoutEntry {
            binding: b.binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
            count: None,
        });
    }
    let float32_filterable = r.device.features().contains(wgpu::Features::FLOAT32_FILTERABLE);
    for h in handles {
        let e = crate::lavapipe_textures::layout_entry(h, textures, float32_filterable);
        by_group.entry(h.group).or_default().push(e);
    }
    let layouts: BTreeMap<u32, wgpu::BindGroupLayout> = by_group
        .iter()
        .map(|(g, entries)| {
            (
                *g,
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: None,
                    entries,
                }),
            )
        })
        .collect();
    let group_count = layouts.keys().next_back().map_or(0, |g| g + 1);
    let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> =
        (0..group_count).map(|g| layouts.get(&g)).collect();
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &layout_refs,
        immediate_size,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &constants.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>(),
            ..Default::default()
        },
        cache: None,
    });
    scopes.pop().map_err(|e| match e {
        LavapipeError::Validation(m) => LavapipeError::Shader(m),
        other => other,
    })?;

    let scopes = Scopes::push(device);
    let mut gpu_buffers = Vec::with_capacity(bindings.len());
    for (b, &size) in bindings.iter().zip(&sizes) {
        let usage = match b.kind {
            LavaBindingKind::Storage { .. } => wgpu::BufferUsages::STORAGE,
            LavaBindingKind::Uniform => wgpu::BufferUsages::UNIFORM,
        } | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        });
        let mut bytes = buffers.get(&(b.group, b.binding)).cloned().unwrap_or_default();
        bytes.resize(usize::try_from(size).unwrap_or(usize::MAX), 0);
        r.queue.write_buffer(&buf, 0, &bytes);
        gpu_buffers.push(buf);
    }
    let (gpu_textures, gpu_samplers) =
        crate::lavapipe_textures::create(device, &r.queue, handles, textures);
    let bind_groups: Vec<(u32, wgpu::BindGroup)> = layouts
        .iter()
        .map(|(g, layout)| {
            let mut entries: Vec<wgpu::BindGroupEntry> = bindings
                .iter()
                .zip(&gpu_buffers)
                .filter(|(b, _)| b.group == *g)
                .map(|(b, buf)| wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource: buf.as_entire_binding(),
                })
                .collect();
            for t in gpu_textures.iter().filter(|t| t.key.0 == *g) {
                entries.push(wgpu::BindGroupEntry {
                    binding: t.key.1,
                    resource: wgpu::BindingResource::TextureView(&t.view),
                });
            }
            for (k, smp) in gpu_samplers.iter().filter(|(k, _)| k.0 == *g) {
                entries.push(wgpu::BindGroupEntry {
                    binding: k.1,
                    resource: wgpu::BindingResource::Sampler(smp),
                });
            }
            let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            });
            (*g, bg)
        })
        .collect();

    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        for (g, bg) in &bind_groups {
            pass.set_bind_group(*g, bg, &[]);
        }
        if !immediates.is_empty() {
            pass.set_immediates(0, &immediates);
        }
        pass.dispatch_workgroups(dispatch[0], dispatch[1], dispatch[2]);
    }
    // Staging copies of the writable buffers, the only ones a dispatch can change.
    let mut readback = Vec::new();
    for ((b, buf), &size) in bindings.iter().zip(&gpu_buffers).zip(&sizes) {
        if b.kind != (LavaBindingKind::Storage { read_only: false }) {
            continue;
        }
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
        readback.push((*b, staging));
    }
    let tex_readback =
        crate::lavapipe_textures::copy_out(device, &mut encoder, &gpu_textures, textures);
    r.queue.submit([encoder.finish()]);
    scopes.pop()?;

    let (tx, rx) = std::sync::mpsc::channel();
    let stagings = readback.iter().map(|(_, s)| s).chain(tex_readback.iter().map(|t| &t.staging));
    for (i, staging) in stagings.enumerate() {
        let tx = tx.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |res| {
            let _ = tx.send((i, res));
        });
    }
    drop(tx);
    match device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(TIMEOUT) }) {
        Ok(_) => {}
        Err(wgpu::PollError::Timeout) => return Err(LavapipeError::Timeout(TIMEOUT)),
        Err(e) => return Err(LavapipeError::Device(e.to_string())),
    }
    for (i, res) in rx.iter() {
        res.map_err(|e| LavapipeError::Readback(format!("mapping buffer {i}: {e}")))?;
    }
    for (b, staging) in &readback {
        let view =
            staging.get_mapped_range(..).map_err(|e| LavapipeError::Readback(e.to_string()))?;
        if let Some(dst) = buffers.get_mut(&(b.group, b.binding)) {
            let n = dst.len().min(view.len());
            if let (Some(d), Some(s)) = (dst.get_mut(..n), view.get(..n)) {
                d.copy_from_slice(s);
            }
        }
        drop(view);
        staging.unmap();
    }
    for t in &tex_readback {
        let view =
            t.staging.get_mapped_range(..).map_err(|e| LavapipeError::Readback(e.to_string()))?;
        crate::lavapipe_textures::store_back(t, &view, textures);
        drop(view);
        t.staging.unmap();
    }
    Ok(())
}

/// Buffer size on the device: a multiple of 4 bytes (16 for uniform buffers, whose structs
/// are 16-byte aligned), never 0 (a zero-sized binding is invalid).
fn padded_size(len: usize, kind: LavaBindingKind) -> u64 {
    let unit: u64 = match kind {
        LavaBindingKind::Storage { .. } => 4,
        LavaBindingKind::Uniform => 16,
    };
    let len = u64::try_from(len).unwrap_or(u64::MAX);
    len.max(1).div_ceil(unit).saturating_mul(unit)
}

/// The three error scopes (validation, out-of-memory, internal) around one stage of a run.
struct Scopes {
    guards: Vec<wgpu::ErrorScopeGuard>,
}

impl Scopes {
    fn push(device: &wgpu::Device) -> Scopes {
        Scopes {
            guards: vec![
                device.push_error_scope(wgpu::ErrorFilter::Internal),
                device.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
                device.push_error_scope(wgpu::ErrorFilter::Validation),
            ],
        }
    }

    /// Pops all three (innermost first) and returns the first error caught.
    fn pop(mut self) -> Result<(), LavapipeError> {
        let mut first = None;
        while let Some(guard) = self.guards.pop() {
            if let Some(err) = pollster::block_on(guard.pop()) {
                first.get_or_insert(err);
            }
        }
        match first {
            None => Ok(()),
            Some(wgpu::Error::Validation { description, .. }) => {
                Err(LavapipeError::Validation(description))
            }
            Some(e @ wgpu::Error::OutOfMemory { .. }) => Err(LavapipeError::Device(e.to_string())),
            Some(wgpu::Error::Internal { description, .. }) => {
                Err(LavapipeError::Device(description))
            }
        }
    }
}

/// In-crate tests that use the device hold this for reading; the one test that loses the
/// device on purpose holds it for writing, so the loss (reported asynchronously by wgpu) never
/// fails another test's run.
#[cfg(test)]
pub(crate) static TEST_DEVICE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// A read hold on [`TEST_DEVICE`] when there is a Vulkan adapter (`None`, after the strict-mode
/// check of [`crate::tools::require_that`], when there is none).
#[cfg(test)]
pub(crate) fn test_device() -> Option<std::sync::RwLockReadGuard<'static, ()>> {
    crate::tools::require_that(available(), "no Vulkan adapter")
        .then(|| TEST_DEVICE.read().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lavapipe() -> Option<std::sync::RwLockReadGuard<'static, ()>> {
        quiet_mesa_warnings();
        test_device()
    }

    fn u32s(bytes: &[u8]) -> Vec<u32> {
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    const DOUBLE: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> params: vec4<u32>;

@compute @workgroup_size(64)
fn double_it(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) {
        data[id.x] = data[id.x] * 2u + params.x;
    }
}
";

    /// Runs `double_it` over `input` with `add` in the uniform's first word on `groups`
    /// workgroups; returns the storage and uniform buffers afterwards.
    fn run_double(
        input: &[u32],
        add: u32,
        groups: u32,
    ) -> Result<(Vec<u32>, Vec<u32>), LavapipeError> {
        let mut buffers = BTreeMap::new();
        buffers.insert((0, 0), bytes(input));
        buffers.insert((0, 1), bytes(&[add, 0, 0, 0]));
        let bindings = [
            LavaBinding {
                group: 0,
                binding: 0,
                kind: LavaBindingKind::Storage { read_only: false },
            },
            LavaBinding { group: 0, binding: 1, kind: LavaBindingKind::Uniform },
        ];
        run_wgsl(DOUBLE, "double_it", [groups, 1, 1], &mut buffers, &bindings, &[])?;
        Ok((u32s(&buffers[&(0, 0)]), u32s(&buffers[&(0, 1)])))
    }

    #[test]
    fn padding_rules() {
        let s = LavaBindingKind::Storage { read_only: false };
        assert_eq!(padded_size(0, s), 4);
        assert_eq!(padded_size(5, s), 8);
        assert_eq!(padded_size(8, s), 8);
        assert_eq!(padded_size(4, LavaBindingKind::Uniform), 16);
        assert_eq!(padded_size(17, LavaBindingKind::Uniform), 32);
    }

    #[test]
    fn a_run_past_its_limit_makes_later_runs_say_busy_until_it_ends() {
        quiet_mesa_warnings();
        if !crate::tools::require_that(available(), "no Vulkan adapter") {
            return;
        }
        // Alone on the device: other tests' runs would see it busy.
        let _only = TEST_DEVICE.write().unwrap_or_else(|p| p.into_inner());
        let r = runner().unwrap_or_else(|e| panic!("{e}"));
        // A stand-in for a run stuck inside Mesa after its caller's limit: the lock is held.
        let held = r.lock.lock().unwrap_or_else(|p| p.into_inner());
        note_timed_out();
        let e = run_double(&[1, 2], 0, 1).expect_err("the device is taken");
        assert!(matches!(e, LavapipeError::Busy), "{e}");
        assert!(e.to_string().contains("the Vulkan driver"), "{e}");
        drop(held);
        // Free again: the run goes ahead and clears the mark.
        let (out, _) = run_double(&[1, 2], 0, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out, [2, 4]);
        assert!(!STUCK.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn doubles_values() {
        let Some(_device) = lavapipe() else { return };
        let input: Vec<u32> = (0..100u32).map(|i| i * 7 + 3).collect();
        let (out, uniform) = run_double(&input, 5, 2).unwrap_or_else(|e| panic!("{e}"));
        let want: Vec<u32> = input.iter().map(|v| v * 2 + 5).collect();
        assert_eq!(out, want);
        // The uniform buffer is left as it was.
        assert_eq!(uniform, [5, 0, 0, 0]);
    }

    #[test]
    fn subgroups_and_the_enable_directive() {
        let Some(_device) = lavapipe() else { return };
        let size = subgroup_size().expect("lavapipe reports one subgroup size");
        println!("lavapipe: {}, subgroup size {size}", adapter_name().unwrap_or_default());
        assert!(size.is_power_of_two() && (4..=128).contains(&size), "{size}");
        // `enable subgroups;` must not reach naga; each lane writes its subgroup's sum of 1s.
        let wgsl = "enable subgroups;
@group(1) @binding(3) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(32)
fn sums(@builtin(local_invocation_index) i: u32) {
    out[i] = subgroupAdd(1u);
}
";
        let mut buffers = BTreeMap::new();
        buffers.insert((1, 3), vec![0u8; 32 * 4]);
        let bindings = [LavaBinding {
            group: 1,
            binding: 3,
            kind: LavaBindingKind::Storage { read_only: false },
        }];
        run_wgsl(wgsl, "sums", [1, 1, 1], &mut buffers, &bindings, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u32s(&buffers[&(1, 3)]), vec![size; 32]);
    }

    #[test]
    fn f16_is_enabled() {
        let Some(_device) = lavapipe() else { return };
        let wgsl = "enable f16;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn halves() {
    let h = vec2<f16>(1.5h, -2.0h);
    out[0] = pack2x16float(vec2<f32>(h * 2.0h));
}
";
        let mut buffers = BTreeMap::new();
        buffers.insert((0, 0), vec![0u8; 4]);
        let bindings = [LavaBinding {
            group: 0,
            binding: 0,
            kind: LavaBindingKind::Storage { read_only: false },
        }];
        run_wgsl(wgsl, "halves", [1, 1, 1], &mut buffers, &bindings, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        // IEEE half: 3.0 = 0x4200, -4.0 = 0xC400; x in the low half.
        assert_eq!(u32s(&buffers[&(0, 0)]), [0xC400_4200]);
    }

    #[test]
    fn reports_errors() {
        let Some(_device) = lavapipe() else { return };
        let storage = LavaBindingKind::Storage { read_only: false };
        let one = [LavaBinding { group: 0, binding: 0, kind: storage }];
        let mut buffers = BTreeMap::new();
        assert_eq!(
            run_wgsl(DOUBLE, "double_it", [1, 1, 1], &mut buffers, &one, &[]),
            Err(LavapipeError::MissingBuffer { group: 0, binding: 0 })
        );
        buffers.insert((0, 0), vec![0u8; 16]);
        let twice = [one[0], one[0]];
        assert_eq!(
            run_wgsl(DOUBLE, "double_it", [1, 1, 1], &mut buffers, &twice, &[]),
            Err(LavapipeError::DuplicateBinding { group: 0, binding: 0 })
        );
        let bad = "@compute @workgroup_size(1) fn f() { let x: u32 = 1.5; }";
        match run_wgsl(bad, "f", [1, 1, 1], &mut buffers, &[], &[]) {
            Err(LavapipeError::Shader(m)) => assert!(!m.is_empty()),
            other => panic!("expected a shader error, got {other:?}"),
        }
        let ok = "@compute @workgroup_size(1) fn f() {}";
        match run_wgsl(ok, "nope", [1, 1, 1], &mut buffers, &[], &[]) {
            Err(LavapipeError::Shader(_)) => {}
            other => panic!("expected a missing-entry error, got {other:?}"),
        }
        // The device still works after errors.
        assert_eq!(run_wgsl(ok, "f", [1, 1, 1], &mut buffers, &[], &[]), Ok(()));
    }

    #[test]
    fn pipeline_constants_by_name_and_id() {
        let Some(_device) = lavapipe() else { return };
        let src = "override scale: u32 = 3u;\n@id(7) override shift: u32 = 1u;\n\
            @group(0) @binding(0) var<storage, read_write> b: array<u32, 4>;\n\
            @compute @workgroup_size(4) fn f(@builtin(local_invocation_index) i: u32) {\n\
            b[i] = i * scale + shift;\n}\n";
        let bindings = [LavaBinding {
            group: 0,
            binding: 0,
            kind: LavaBindingKind::Storage { read_only: false },
        }];
        let mut buffers = BTreeMap::new();
        buffers.insert((0, 0), vec![0u8; 16]);
        run_wgsl(src, "f", [1, 1, 1], &mut buffers, &bindings, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u32s(&buffers[&(0, 0)]), [1, 4, 7, 10]);
        let constants = [("scale".to_string(), 5.0), ("7".to_string(), 2.0)];
        run_wgsl(src, "f", [1, 1, 1], &mut buffers, &bindings, &constants)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u32s(&buffers[&(0, 0)]), [2, 7, 12, 17]);
    }

    /// Mesa 22.3's lavapipe loses its device on this valid kernel (found by `dianran fuzz`;
    /// naga's SPIR-V for the product of two transposed matrices). The loss is reported as
    /// such, and the next run gets a new device instead of failing silently forever.
    #[test]
    fn a_lost_device_is_reported_and_replaced() {
        let Some(shared) = lavapipe() else { return };
        drop(shared);
        // Alone on the device: the loss must not fail the runs of other tests.
        let _alone = TEST_DEVICE.write().unwrap_or_else(|p| p.into_inner());
        let lost = "var<private> pv1: mat2x4<f32>;\n\
            @group(0) @binding(0) var<storage, read_write> out: array<f32, 4>;\n\
            @compute @workgroup_size(1) fn main() {\n\
            pv1 = transpose(mat4x2<f32>()) * transpose(mat2x2<f32>());\n\
            out[0] = pv1[0][0] + 1.0;\n}\n";
        let bindings = [LavaBinding {
            group: 0,
            binding: 0,
            kind: LavaBindingKind::Storage { read_only: false },
        }];
        let mut buffers = BTreeMap::new();
        buffers.insert((0, 0), vec![0u8; 16]);
        match run_wgsl(lost, "main", [1, 1, 1], &mut buffers, &bindings, &[]) {
            // A driver without the bug computes it.
            Ok(()) => assert_eq!(buffers[&(0, 0)][..4], 1.0f32.to_le_bytes()),
            Err(LavapipeError::DeviceLost(_)) => {}
            Err(e) => panic!("expected a result or a lost device, got {e}"),
        }
        let input: Vec<u32> = (0..64u32).collect();
        let (out, _) = run_double(&input, 1, 1)
            .unwrap_or_else(|e| panic!("the next run needs a working device: {e}"));
        let want: Vec<u32> = input.iter().map(|v| v * 2 + 1).collect();
        assert_eq!(out, want);
    }
}
