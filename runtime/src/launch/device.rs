//! Launches on device-resident buffers, queued on the caller's stream
//! ([`CudaModule::launch_on`](super::CudaModule::launch_on)).
//!
//! The arguments are cudarc's own types: a [`CudaSlice`] or a view of one, lent immutably
//! for a binding the entry only reads and mutably for one it may write, so the Rust compiler
//! and cudarc's stream events see every access. A uniform can also be a host value, copied to
//! the device on the stream (once per distinct value). Nothing is synchronized and nothing
//! comes back to the host: results stay on the device for the next launch. Textures written
//! by a kernel are read back with [`DeviceTexture::download`]; cudarc's events do not cover
//! CUDA arrays, so a texture shared between streams is the caller's to order.
//!
//! The parameter list is the launch ABI's (`dianran_ptx::abi`, docs/abi.md): the same
//! [`LaunchPlan`] the host-bytes path carries out, built from the entry table: one device pointer
//! per buffer parameter, a placeholder for an unused one, the sizes block for `arrayLength`
//! (kept on the device per distinct set of sizes, as uniform values passed by value are per
//! distinct value, so a loop of launches uploads each once), then
//! the immediates by value. Textures are [`DeviceTexture`]s uploaded once; their texture and
//! surface objects are made once per sampler state and kept with them, and a comparison
//! pair's word comes from its sampler.

use super::device_texture::DeviceTexture;
use super::plan::{BoundBuffer, LaunchPlan, ParamValue};
use super::textures::SamplerArg;
use super::{CudaModule, LaunchError};
use crate::cuda::describe_error;
use crate::reflect::{BindingKind, Entry};
use crate::texture::SamplerDesc;
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, LaunchConfig, PushKernelArg,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Where an argument goes: a (group, binding) or the binding's name in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target<'a> {
    /// `@group(group) @binding(binding)`.
    At {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
    },
    /// The name of the variable in the shader.
    Named(&'a str),
}

/// What one argument binds: memory, a texture or a sampler.
#[derive(Debug)]
pub enum DeviceBuffer<'a> {
    /// Device memory the kernel only reads.
    Read(CudaView<'a, u8>),
    /// Device memory the kernel may write.
    Write(CudaViewMut<'a, u8>),
    /// Host bytes (a uniform's value) copied to the device at launch.
    Host(Vec<u8>),
    /// A texture on the device, only read (sampled, depth, or a read-only storage texture).
    Texture(&'a DeviceTexture),
    /// A storage texture the kernel may write.
    StorageTexture(&'a mut DeviceTexture),
    /// A sampler's state (`sampler` or `sampler_comparison`).
    Sampler(SamplerDesc),
}

impl DeviceBuffer<'_> {
    /// Bytes the kernel sees (0 for textures and samplers).
    pub fn len(&self) -> usize {
        match self {
            DeviceBuffer::Read(v) => v.len(),
            DeviceBuffer::Write(v) => v.len(),
            DeviceBuffer::Host(b) => b.len(),
            _ => 0,
        }
    }
    /// True when [`DeviceBuffer::len`] is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether the kernel may write through it.
    pub fn writable(&self) -> bool {
        matches!(self, DeviceBuffer::Write(_) | DeviceBuffer::StorageTexture(_))
    }
    /// The texture it binds, read-only or storage.
    pub fn texture(&self) -> Option<&DeviceTexture> {
        match self {
            DeviceBuffer::Texture(t) => Some(t),
            DeviceBuffer::StorageTexture(t) => Some(t),
            _ => None,
        }
    }
}

/// One argument of [`CudaModule::launch_on`](super::CudaModule::launch_on).
#[derive(Debug)]
pub struct DeviceArg<'a> {
    /// The binding it is for.
    pub target: Target<'a>,
    /// Its memory.
    pub buffer: DeviceBuffer<'a>,
    /// The size of the caller's element type (`CudaSlice<T>`: `size_of::<T>()`; 1 for bytes
    /// and host values), checked against the binding's element stride.
    pub elem_size: usize,
}

fn bytes_of<T>(s: &CudaSlice<T>) -> CudaView<'_, u8> {
    // SAFETY: every bit pattern is a valid `u8`, and the byte view covers exactly the
    // slice's allocation (`num_bytes`).
    match unsafe { s.transmute::<u8>(s.num_bytes()) } {
        Some(v) => v,
        None => whole_slice_refused(),
    }
}

fn bytes_of_mut<T>(s: &mut CudaSlice<T>) -> CudaViewMut<'_, u8> {
    let n = s.num_bytes();
    // SAFETY: as `bytes_of`; the kernel writes bytes in WGSL's layout, which the caller's
    // element type `T` was chosen to hold (the typed launchers take it from the shader).
    match unsafe { s.transmute_mut::<u8>(n) } {
        Some(v) => v,
        None => whole_slice_refused(),
    }
}

/// Never reached: cudarc refuses a view only when it is larger than the allocation, and a
/// byte view of `num_bytes` bytes is exactly its size.
#[cold]
fn whole_slice_refused() -> ! {
    panic!("cudarc refused a byte view of a whole slice")
}

impl<'a> DeviceArg<'a> {
    /// A buffer the entry only reads, at (`group`, `binding`).
    pub fn read<T>(group: u32, binding: u32, s: &'a CudaSlice<T>) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Read(bytes_of(s)),
            elem_size: size_of::<T>(),
        }
    }
    /// A buffer the entry may write, at (`group`, `binding`). Its elements take whatever
    /// bytes the kernel stores, so every bit pattern must be a valid `T`.
    pub fn write<T: bytemuck::AnyBitPattern>(
        group: u32,
        binding: u32,
        s: &'a mut CudaSlice<T>,
    ) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Write(bytes_of_mut(s)),
            elem_size: size_of::<T>(),
        }
    }
    /// A host value (a uniform's struct), copied to the device on the launch's stream (once
    /// per distinct value: later launches with the same bytes reuse the copy).
    pub fn value<T: bytemuck::Pod>(group: u32, binding: u32, v: &T) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Host(bytemuck::bytes_of(v).to_vec()),
            elem_size: 1,
        }
    }
    /// A texture the entry reads (sampled, depth, or read-only storage), at (`group`,
    /// `binding`).
    pub fn texture(group: u32, binding: u32, t: &'a DeviceTexture) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Texture(t),
            elem_size: 1,
        }
    }
    /// A storage texture the entry may write, at (`group`, `binding`); uploaded with
    /// `storage` ([`DeviceTexture::upload`]).
    pub fn storage_texture(group: u32, binding: u32, t: &'a mut DeviceTexture) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::StorageTexture(t),
            elem_size: 1,
        }
    }
    /// A sampler's state, at (`group`, `binding`).
    pub fn sampler(group: u32, binding: u32, s: &SamplerDesc) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Sampler(*s),
            elem_size: 1,
        }
    }
    /// [`DeviceArg::read`] by the binding's name in the shader.
    pub fn named_read<T>(name: &'a str, s: &'a CudaSlice<T>) -> Self {
        DeviceArg { target: Target::Named(name), ..Self::read(0, 0, s) }
    }
    /// [`DeviceArg::write`] by the binding's name in the shader.
    pub fn named_write<T: bytemuck::AnyBitPattern>(name: &'a str, s: &'a mut CudaSlice<T>) -> Self {
        DeviceArg { target: Target::Named(name), ..Self::write(0, 0, s) }
    }
    /// [`DeviceArg::value`] by the binding's name in the shader.
    pub fn named_value<T: bytemuck::Pod>(name: &'a str, v: &T) -> Self {
        DeviceArg { target: Target::Named(name), ..Self::value(0, 0, v) }
    }
}

/// What a module keeps between launches on device memory: kernel handles, the placeholder
/// for unused buffer parameters, and the small host blocks already on the device (sizes
/// blocks and uniform values), by content.
#[derive(Debug, Default)]
pub(super) struct Cache {
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// By stream: every use of a cached block is on the stream that allocated it, so
    /// freeing it (which waits on that stream) cannot overtake a kernel still reading it.
    placeholder: Mutex<HashMap<StreamKey, CudaSlice<u8>>>,
    values: Mutex<HashMap<BlockKey, CudaSlice<u8>>>,
}

/// A stream's handle as a key. Unique while a cached block lives: the block holds its stream.
type StreamKey = usize;

/// A cached host block: its stream and its bytes.
type BlockKey = (StreamKey, Vec<u8>);

/// Host blocks kept on the device at most (each a few bytes to a few hundred).
const MAX_CACHED_VALUES: usize = 1024;

/// Cache entries are reused, never edited, so a poisoned lock still holds good data.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Cache {
    fn function(
        &self,
        module: &Arc<cudarc::driver::CudaModule>,
        name: &str,
    ) -> Result<CudaFunction, LaunchError> {
        let mut map = lock(&self.functions);
        if let Some(f) = map.get(name) {
            return Ok(f.clone());
        }
        let f = module
            .load_function(name)
            .map_err(|_| LaunchError::MissingKernel { ptx_name: name.to_string() })?;
        map.insert(name.to_string(), f.clone());
        Ok(f)
    }
}

/// Why elements of `elem` bytes cannot hold a value of `layout` (their size must divide its
/// fixed part and its runtime-sized elements), or `None` when they can.
pub(crate) fn element_mismatch(layout: &crate::reflect::Layout, elem: usize) -> Option<String> {
    let elem = u32::try_from(elem).ok().filter(|e| *e > 1)?;
    let parts = [layout.size, layout.runtime_stride.unwrap_or(0)];
    let bad = parts.iter().any(|p| *p % elem != 0);
    bad.then(|| {
        let unit = layout.runtime_stride.map_or(String::new(), |s| format!(", {s}-byte elements"));
        format!(
            "{elem}-byte elements cannot hold {} ({} bytes fixed{unit})",
            layout.type_name, layout.size
        )
    })
}

/// The (group, binding) of each argument, names resolved through the entry's bindings.
fn resolve(entry: &Entry, args: &[DeviceArg<'_>]) -> Result<Vec<(u32, u32)>, LaunchError> {
    args.iter()
        .map(|a| match a.target {
            Target::At { group, binding } => Ok((group, binding)),
            Target::Named(name) => entry
                .bindings
                .iter()
                .find(|b| b.name == name)
                .map(|b| (b.group, b.binding))
                .ok_or_else(|| LaunchError::UnknownBinding { name: name.to_string() }),
        })
        .collect()
}

impl CudaModule {
    /// Queues `entry` on `stream` over a grid of `grid` workgroups, with `args` bound by
    /// (group, binding) or by name and `immediates` as in
    /// [`CudaModule::launch_with_immediates`]. Returns once the launch is queued: no copy
    /// back, no synchronization (cudarc's stream events order it after earlier work on the
    /// same buffers). Every argument is checked against its binding before anything reaches
    /// the driver: presence, duplicates, its size against the binding's layout, and that a
    /// buffer or storage texture the entry may write was lent mutably ([`DeviceArg::write`],
    /// [`DeviceArg::storage_texture`]), that each argument's kind fits its binding's, and
    /// that a `CudaSlice<T>`'s element size divides the binding's element stride.
    ///
    /// `entry` must describe this module's PTX (the generated constants of the same shader):
    /// the kernel's name is checked, its parameter list is taken on trust.
    pub fn launch_on(
        &self,
        stream: &Arc<CudaStream>,
        entry: &Entry,
        grid: [u32; 3],
        args: &mut [DeviceArg<'_>],
        immediates: &[u8],
    ) -> Result<(), LaunchError> {
        let at = resolve(entry, args)?;
        // Memory, textures and samplers, each with the index of its argument.
        let mut bound: Vec<BoundBuffer> = Vec::new();
        let mut bound_arg: Vec<usize> = Vec::new();
        let mut tex_keys: Vec<(u32, u32)> = Vec::new();
        let mut tex_arg: Vec<usize> = Vec::new();
        let mut samplers: Vec<SamplerArg> = Vec::new();
        for (i, (a, &(group, binding))) in args.iter().zip(&at).enumerate() {
            let info = entry.binding(group, binding);
            let name = || info.map_or_else(String::new, |b| b.name.to_string());
            let kind_error = |detail: &str| LaunchError::BufferType {
                group,
                binding,
                name: name(),
                detail: detail.to_string(),
            };
            if let Some(info) = info {
                if info.access.writes() && !a.buffer.writable() {
                    return Err(LaunchError::ReadOnlyBuffer { group, binding, name: name() });
                }
                let fits = match &a.buffer {
                    DeviceBuffer::Texture(_) | DeviceBuffer::StorageTexture(_) => {
                        matches!(info.kind, BindingKind::Texture | BindingKind::StorageTexture)
                    }
                    DeviceBuffer::Sampler(_) => info.kind == BindingKind::Sampler,
                    _ => info.kind.is_buffer(),
                };
                if !fits {
                    return Err(kind_error(&format!("the binding is a {:?}", info.kind)));
                }
                let needs_surface = info.kind == BindingKind::StorageTexture;
                if needs_surface && a.buffer.texture().is_some_and(|t| !t.is_storage()) {
                    return Err(kind_error(
                        "a storage texture needs a DeviceTexture uploaded with `storage`",
                    ));
                }
                if let Some(detail) =
                    info.layout.as_ref().and_then(|l| element_mismatch(l, a.elem_size))
                {
                    return Err(kind_error(&detail));
                }
            }
            match &a.buffer {
                DeviceBuffer::Texture(_) | DeviceBuffer::StorageTexture(_) => {
                    tex_keys.push((group, binding));
                    tex_arg.push(i);
                }
                DeviceBuffer::Sampler(sampler) => {
                    samplers.push(SamplerArg { group, binding, sampler: *sampler })
                }
                _ => {
                    bound.push(BoundBuffer { group, binding, len: a.buffer.len() });
                    bound_arg.push(i);
                }
            }
        }
        let plan = LaunchPlan::new(entry, grid, &bound, &tex_keys, &samplers, immediates)?;
        // Texture and surface objects, made once per texture and sampler state and kept
        // with the texture.
        let mut handles: Vec<u64> = Vec::with_capacity(plan.params.len());
        for p in &plan.params {
            let texture = |k: &usize| {
                tex_arg.get(*k).and_then(|i| args.get(*i)).and_then(|a| a.buffer.texture())
            };
            handles.push(match p {
                ParamValue::Texture { texture: k, sampler } => {
                    texture(k).ok_or(LaunchError::InvalidPtx)?.texture_object(sampler.as_ref())?
                }
                ParamValue::Surface { texture: k } => {
                    texture(k).ok_or(LaunchError::InvalidPtx)?.surface_object()?
                }
                _ => 0,
            });
        }
        let func = self.device.function(&self.module, &plan.ptx_name)?;
        self.ctx.bind_to_thread().map_err(super::driver("binding the context"))?;

        // Host blocks (uniform values, the sizes block) go to the device first, on the
        // stream. They are read-only once uploaded, so a cached copy serves every later launch
        // with the same bytes; ever-new values (a step counter) are bounded by clearing.
        let host_blocks: Vec<&[u8]> = args
            .iter()
            .filter_map(|a| match &a.buffer {
                DeviceBuffer::Host(b) if !b.is_empty() => Some(b.as_slice()),
                _ => None,
            })
            .chain(plan.params.iter().filter_map(|p| match p {
                ParamValue::Sizes(b) => Some(b.as_slice()),
                _ => None,
            }))
            .collect();
        let key = stream.cu_stream() as StreamKey;
        let mut values = lock(&self.device.values);
        if values.len() + host_blocks.len() > MAX_CACHED_VALUES {
            values.clear();
        }
        for b in &host_blocks {
            if let std::collections::hash_map::Entry::Vacant(slot) = values.entry((key, b.to_vec()))
            {
                slot.insert(stream.clone_htod(*b).map_err(super::driver("copying a host value"))?);
            }
        }
        let mut placeholders = lock(&self.device.placeholder);
        if plan.params.contains(&ParamValue::Placeholder) && !placeholders.contains_key(&key) {
            let p =
                stream.alloc_zeros::<u8>(16).map_err(super::driver("allocating a placeholder"))?;
            placeholders.insert(key, p);
        }
        let placeholder = placeholders.get(&key);

        let [x, y, z] = plan.block;
        let cfg = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (x, y, z),
            shared_mem_bytes: 0,
        };
        let mut buffers: Vec<Option<&mut DeviceBuffer<'_>>> =
            args.iter_mut().map(|a| Some(&mut a.buffer)).collect();
        let mut launch = stream.launch_builder(&func);
        for (p, handle) in plan.params.iter().zip(&handles) {
            match p {
                ParamValue::Buffer(i) => {
                    match bound_arg.get(*i).and_then(|a| buffers.get_mut(*a)).and_then(Option::take)
                    {
                        Some(DeviceBuffer::Read(v)) => {
                            launch.arg(&*v);
                        }
                        Some(DeviceBuffer::Write(v)) => {
                            launch.arg(v);
                        }
                        Some(DeviceBuffer::Host(b)) => {
                            if let Some(dev) = values.get(&(key, b.clone())) {
                                launch.arg(dev);
                            }
                        }
                        _ => return Err(LaunchError::InvalidPtx),
                    }
                }
                ParamValue::Placeholder => {
                    if let Some(p) = placeholder {
                        launch.arg(p);
                    }
                }
                ParamValue::Sizes(k) => {
                    if let Some(dev) = values.get(&(key, k.clone())) {
                        launch.arg(dev);
                    }
                }
                // By value: the driver copies the parameter's size from the first byte.
                ParamValue::Immediates(v) => {
                    if let Some(first) = v.first() {
                        launch.arg(first);
                    }
                }
                ParamValue::Texture { .. } | ParamValue::Surface { .. } => {
                    launch.arg(handle);
                }
                ParamValue::CompareWord(w) => {
                    launch.arg(w);
                }
            }
        }
        // SAFETY: the kernel takes exactly these `.u64` device pointers, the sizes block and
        // the immediate bytes by value (the entry table's ABI), and every buffer's length was
        // checked against its binding's layout, so in-bounds accesses stay inside the
        // allocations (and the bounds policy keeps every access in bounds).
        unsafe { launch.launch(cfg) }.map_err(|e| LaunchError::Launch(describe_error(&e)))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::element_mismatch;
    use crate::reflect::Layout;
    use std::borrow::Cow;

    fn layout(size: u32, stride: Option<u32>) -> Layout {
        Layout {
            type_name: Cow::Borrowed("T"),
            size,
            align: 4,
            runtime_stride: stride,
            fields: Cow::Borrowed(&[]),
        }
    }

    #[test]
    fn element_sizes_must_tile_the_binding() {
        // array<vec4<f32>>: f32 (4) and [f32; 4] (16) elements fit, [f32; 3] (12) and f64
        // (8) of a 12-byte stride do not.
        assert_eq!(element_mismatch(&layout(0, Some(16)), 4), None);
        assert_eq!(element_mismatch(&layout(0, Some(16)), 16), None);
        assert!(element_mismatch(&layout(0, Some(16)), 12).is_some());
        assert!(element_mismatch(&layout(0, Some(12)), 8).is_some());
        // struct { count: u32, items: array<u32> } as u32 words or bytes; not as u64.
        assert_eq!(element_mismatch(&layout(4, Some(4)), 4), None);
        assert_eq!(element_mismatch(&layout(4, Some(4)), 1), None);
        assert!(element_mismatch(&layout(4, Some(4)), 8).is_some());
        // A uniform struct of 8 bytes as one `Params` or two words.
        assert_eq!(element_mismatch(&layout(8, None), 8), None);
        assert_eq!(element_mismatch(&layout(8, None), 4), None);
        assert!(element_mismatch(&layout(8, None), 16).is_some());
    }
}
