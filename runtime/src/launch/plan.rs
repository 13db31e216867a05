//! The launch plan: what the host passes for every PTX parameter of one launch, as data.
//!
//! Both CUDA launch paths ([`super::CudaModule::launch_full`] on host bytes,
//! [`super::CudaModule::launch_on`] on device memory) carry out a [`LaunchPlan`], and so can
//! any other executor of the same PTX: the tests run plans on dianran's PTX emulator, which is
//! how the marshalling of every binding kind is checked without a GPU. The plan follows the
//! launch ABI of the entry table (`dianran_ptx::abi`, docs/abi.md): one parameter per buffer
//! binding (a placeholder where nothing is bound or the buffer is empty), a texture or surface
//! object per texture, a compare word per comparison pair, then the sizes block for
//! `arrayLength` and the immediates by value.

use super::textures::{plan_objects, ObjectPlan, SamplerArg};
use super::LaunchError;
use crate::reflect::Entry;
use crate::texture::{compare_object_sampler, compare_word, SamplerDesc};

/// What one PTX parameter receives.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A pointer to buffer `i` of the launch (the index into its buffers).
    Buffer(usize),
    /// A valid pointer to at least 16 zero bytes: an unused binding, or an empty buffer.
    Placeholder,
    /// A texture object over texture `texture` (index into the textures), sampling with
    /// `sampler` (`None`: a point-filtered object for fetches and queries).
    Texture {
        /// Index into the textures.
        texture: usize,
        /// The sampler state the object carries; for a comparison pair already the
        /// point-filtered object sampler (the kernel compares and filters).
        sampler: Option<SamplerDesc>,
    },
    /// A surface object over storage texture `texture` (index into the textures).
    Surface {
        /// Index into the textures.
        texture: usize,
    },
    /// A comparison pair's `.u32` word, by value.
    CompareWord(u32),
    /// `p_sizes`: a pointer to these bytes (one little-endian `u32` byte length per buffer
    /// parameter).
    Sizes(Vec<u8>),
    /// `p_immediates`: these bytes by value, padded to whole words.
    Immediates(Vec<u8>),
}

impl ParamValue {
    /// Whether the parameter is a pointer to device memory (a buffer, the placeholder or
    /// the sizes block) rather than an object or a value.
    pub fn is_pointer(&self) -> bool {
        matches!(self, ParamValue::Buffer(_) | ParamValue::Placeholder | ParamValue::Sizes(_))
    }
}

/// Every parameter of one launch, in the kernel's parameter order, and its shape.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    /// The PTX entry name.
    pub ptx_name: String,
    /// One value per PTX parameter.
    pub params: Vec<ParamValue>,
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Threads per workgroup (the entry's workgroup size).
    pub block: [u32; 3],
}

/// A buffer of a launch as the plan sees it: where it is bound and how many bytes it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundBuffer {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Its length in bytes.
    pub len: usize,
}

impl LaunchPlan {
    /// Plans a launch of `entry` over `grid` workgroups with `buffers`, the textures bound at
    /// `textures` (group, binding), `samplers` and `immediates` (the bytes of the entry's
    /// `var<immediate>`, unpadded).
    /// Everything is checked here, before any driver call: the entry is in the PTX, the grid
    /// is not empty, every buffer, texture and sampler the kernel uses is bound once, every
    /// buffer's length fits its binding's layout, the immediates have the variable's size,
    /// and `arrayLength` can describe every length.
    pub fn new(
        entry: &Entry,
        grid: [u32; 3],
        buffers: &[BoundBuffer],
        textures: &[(u32, u32)],
        samplers: &[SamplerArg],
        immediates: &[u8],
    ) -> Result<Self, LaunchError> {
        let value = super::immediates_value(entry, immediates)?;
        let ptx_name = entry
            .ptx_name
            .as_deref()
            .ok_or_else(|| LaunchError::NotInPtx { entry: entry.name.to_string() })?;
        if grid.contains(&0) {
            return Err(LaunchError::EmptyGrid(grid));
        }
        let slots = super::plan(entry, buffers)?;
        let objects = plan_objects(entry, textures, samplers)?;
        let sampler = |i: usize| samplers.get(i).map(|s| s.sampler);
        let mut params = Vec::with_capacity(slots.len() + 2);
        for (slot, object) in slots.iter().zip(&objects) {
            params.push(match *object {
                ObjectPlan::Buffer(_) => match slot {
                    Some(i) if buffers.get(*i).is_some_and(|b| b.len > 0) => ParamValue::Buffer(*i),
                    _ => ParamValue::Placeholder,
                },
                ObjectPlan::Texture { texture, sampler: s, compare } => ParamValue::Texture {
                    texture,
                    sampler: s.and_then(sampler).map(|s| {
                        if compare {
                            compare_object_sampler(&s)
                        } else {
                            s
                        }
                    }),
                },
                ObjectPlan::Surface { texture } => ParamValue::Surface { texture },
                ObjectPlan::CompareWord { sampler: s } => {
                    ParamValue::CompareWord(sampler(s).map_or(0, |s| compare_word(&s)))
                }
            });
        }
        if entry.ptx_uses_sizes {
            let lens: Vec<Option<usize>> =
                slots.iter().map(|s| s.and_then(|i| buffers.get(i)).map(|b| b.len)).collect();
            params.push(ParamValue::Sizes(super::sizes_bytes(entry, &lens)?));
        }
        if !value.is_empty() {
            params.push(ParamValue::Immediates(value));
        }
        Ok(LaunchPlan {
            ptx_name: ptx_name.to_string(),
            params,
            grid,
            block: entry.workgroup_size.map(|d| d.max(1)),
        })
    }
}
