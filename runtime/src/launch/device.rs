//! Launches on device-resident buffers, queued on the caller's stream
//! ([`CudaModule::launch_on`](super::CudaModule::launch_on)).
//!
//! The arguments are cudarc's own types: a [`CudaSlice`] or a view of one, lent immutably
//! for a binding the entry only reads and mutably for one it may write, so the Rust compiler
//! and cudarc's stream events see every access. A uniform can also be a host value, copied to
//! the device on the stream at each launch. Nothing is synchronized and nothing comes back to
//! the host: results stay on the device for the next launch.
//!
//! The parameter list is the launch ABI's (`dianran_ptx::abi`, docs/abi.md), built from the
//! entry table exactly as the host-bytes path builds it ([`super::plan`]): one device pointer
//! per buffer parameter, a placeholder for an unused one, the sizes block for `arrayLength`
//! (kept on the device per distinct set of sizes, so a loop of launches uploads it once), then
//! the immediates by value. Textures and samplers need the host path
//! ([`super::CudaModule::launch_full`]), which builds their CUDA arrays.

use super::{CudaModule, LaunchError};
use crate::cuda::describe_error;
use crate::reflect::Entry;
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

/// The memory behind one argument.
#[derive(Debug)]
pub enum DeviceBuffer<'a> {
    /// Device memory the kernel only reads.
    Read(CudaView<'a, u8>),
    /// Device memory the kernel may write.
    Write(CudaViewMut<'a, u8>),
    /// Host bytes (a uniform's value) copied to the device at launch.
    Host(Vec<u8>),
}

impl DeviceBuffer<'_> {
    /// Bytes the kernel sees.
    pub fn len(&self) -> usize {
        match self {
            DeviceBuffer::Read(v) => v.len(),
            DeviceBuffer::Write(v) => v.len(),
            DeviceBuffer::Host(b) => b.len(),
        }
    }
    /// True when [`DeviceBuffer::len`] is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether the kernel may write through it.
    pub fn writable(&self) -> bool {
        matches!(self, DeviceBuffer::Write(_))
    }
}

/// One argument of [`CudaModule::launch_on`](super::CudaModule::launch_on).
#[derive(Debug)]
pub struct DeviceArg<'a> {
    /// The binding it is for.
    pub target: Target<'a>,
    /// Its memory.
    pub buffer: DeviceBuffer<'a>,
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
        DeviceArg { target: Target::At { group, binding }, buffer: DeviceBuffer::Read(bytes_of(s)) }
    }
    /// A buffer the entry may write, at (`group`, `binding`).
    pub fn write<T>(group: u32, binding: u32, s: &'a mut CudaSlice<T>) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Write(bytes_of_mut(s)),
        }
    }
    /// A host value (a uniform's struct), copied to the device at each launch.
    pub fn value<T: bytemuck::Pod>(group: u32, binding: u32, v: &T) -> Self {
        DeviceArg {
            target: Target::At { group, binding },
            buffer: DeviceBuffer::Host(bytemuck::bytes_of(v).to_vec()),
        }
    }
    /// [`DeviceArg::read`] by the binding's name in the shader.
    pub fn named_read<T>(name: &'a str, s: &'a CudaSlice<T>) -> Self {
        DeviceArg { target: Target::Named(name), buffer: DeviceBuffer::Read(bytes_of(s)) }
    }
    /// [`DeviceArg::write`] by the binding's name in the shader.
    pub fn named_write<T>(name: &'a str, s: &'a mut CudaSlice<T>) -> Self {
        DeviceArg { target: Target::Named(name), buffer: DeviceBuffer::Write(bytes_of_mut(s)) }
    }
    /// [`DeviceArg::value`] by the binding's name in the shader.
    pub fn named_value<T: bytemuck::Pod>(name: &'a str, v: &T) -> Self {
        DeviceArg {
            target: Target::Named(name),
            buffer: DeviceBuffer::Host(bytemuck::bytes_of(v).to_vec()),
        }
    }
}

/// What a module keeps between launches on device memory: kernel handles, the placeholder
/// for unused buffer parameters and the sizes blocks already on the device.
#[derive(Debug, Default)]
pub(super) struct Cache {
    functions: Mutex<HashMap<String, CudaFunction>>,
    placeholder: Mutex<Option<CudaSlice<u8>>>,
    sizes: Mutex<HashMap<Vec<u8>, CudaSlice<u8>>>,
}

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

/// The (group, binding) of each argument, names resolved through the entry's bindings.
fn resolve(entry: &Entry, args: &[DeviceArg<'_>]) -> Result<Vec<(u32, u32, usize)>, LaunchError> {
    args.iter()
        .map(|a| {
            let (group, binding) = match a.target {
                Target::At { group, binding } => (group, binding),
                Target::Named(name) => entry
                    .bindings
                    .iter()
                    .find(|b| b.name == name)
                    .map(|b| (b.group, b.binding))
                    .ok_or_else(|| LaunchError::UnknownBinding { name: name.to_string() })?,
            };
            Ok((group, binding, a.buffer.len()))
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
    /// buffer the entry may write was lent mutably ([`DeviceArg::write`]). Entries with
    /// textures or samplers take [`CudaModule::launch_full`].
    pub fn launch_on(
        &self,
        stream: &Arc<CudaStream>,
        entry: &Entry,
        grid: [u32; 3],
        args: &mut [DeviceArg<'_>],
        immediates: &[u8],
    ) -> Result<(), LaunchError> {
        let value = super::immediates_value(entry, immediates)?;
        let ptx_name = entry
            .ptx_name
            .as_deref()
            .ok_or_else(|| LaunchError::NotInPtx { entry: entry.name.to_string() })?;
        if grid.contains(&0) {
            return Err(LaunchError::EmptyGrid(grid));
        }
        let bound = resolve(entry, args)?;
        let slots = super::plan(entry, &bound)?;
        for p in entry.ptx_params.iter() {
            let info = entry.binding(p.group, p.binding);
            if p.used && (p.sampler.is_some() || info.is_some_and(|i| !i.kind.is_buffer())) {
                return Err(LaunchError::NeedsHostPath {
                    name: info.map_or_else(|| p.name.to_string(), |i| i.name.to_string()),
                });
            }
        }
        for (i, (group, binding, _)) in bound.iter().enumerate() {
            let Some(info) = entry.binding(*group, *binding) else { continue };
            if info.access.writes() && !args.get(i).is_some_and(|a| a.buffer.writable()) {
                return Err(LaunchError::ReadOnlyBuffer {
                    group: *group,
                    binding: *binding,
                    name: info.name.to_string(),
                });
            }
        }
        let func = self.device.function(&self.module, ptx_name)?;
        self.ctx.bind_to_thread().map_err(super::driver("binding the context"))?;

        // Host values go to the device first, on the stream.
        let mut hosts: Vec<Option<CudaSlice<u8>>> = Vec::with_capacity(args.len());
        for a in args.iter() {
            hosts.push(match &a.buffer {
                DeviceBuffer::Host(b) if !b.is_empty() => {
                    Some(stream.clone_htod(b).map_err(super::driver("copying a uniform value"))?)
                }
                _ => None,
            });
        }
        let mut placeholder = lock(&self.device.placeholder);
        let needs_placeholder = slots.iter().any(Option::is_none) || bound.iter().any(|b| b.2 == 0);
        if needs_placeholder && placeholder.is_none() {
            let p =
                stream.alloc_zeros::<u8>(16).map_err(super::driver("allocating a placeholder"))?;
            *placeholder = Some(p);
        }
        let mut sizes_cache = lock(&self.device.sizes);
        let sizes_key = if entry.ptx_uses_sizes {
            let lens: Vec<Option<usize>> =
                slots.iter().map(|s| s.and_then(|i| bound.get(i)).map(|b| b.2)).collect();
            let key = super::sizes_bytes(entry, &lens)?;
            if !sizes_cache.contains_key(&key) {
                let dev = stream.clone_htod(&key).map_err(super::driver("copying buffer sizes"))?;
                sizes_cache.insert(key.clone(), dev);
            }
            Some(key)
        } else {
            None
        };

        let [x, y, z] = entry.workgroup_size.map(|d| d.max(1));
        let cfg = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (x, y, z),
            shared_mem_bytes: 0,
        };
        let mut buffers: Vec<Option<&mut DeviceBuffer<'_>>> =
            args.iter_mut().map(|a| Some(&mut a.buffer)).collect();
        let mut launch = stream.launch_builder(&func);
        for slot in &slots {
            let taken =
                slot.and_then(|i| buffers.get_mut(i).and_then(Option::take).map(|b| (i, b)));
            match taken {
                Some((_, DeviceBuffer::Read(v))) if !v.is_empty() => {
                    launch.arg(&*v);
                }
                Some((_, DeviceBuffer::Write(v))) if !v.is_empty() => {
                    launch.arg(v);
                }
                Some((i, DeviceBuffer::Host(_))) if hosts.get(i).is_some_and(Option::is_some) => {
                    if let Some(Some(h)) = hosts.get(i) {
                        launch.arg(h);
                    }
                }
                // Placeholders and empty buffers still get a valid pointer (allocated above).
                _ => {
                    if let Some(p) = placeholder.as_ref() {
                        launch.arg(p);
                    }
                }
            }
        }
        if let Some(dev) = sizes_key.as_ref().and_then(|k| sizes_cache.get(k)) {
            launch.arg(dev);
        }
        if let Some(first) = value.first() {
            launch.arg(first);
        }
        // SAFETY: the kernel takes exactly these `.u64` device pointers, the sizes block and
        // the immediate bytes by value (the entry table's ABI), and every buffer's length was
        // checked against its binding's layout, so in-bounds accesses stay inside the
        // allocations (and the bounds policy keeps every access in bounds).
        unsafe { launch.launch(cfg) }.map_err(|e| LaunchError::Launch(describe_error(&e)))?;
        Ok(())
    }
}
