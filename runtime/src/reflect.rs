//! Reflection types: what a host program must know to bind and launch a compiled module.
//!
//! * [`Entry`]: one entry point: its names on every target, stage, workgroup size, the PTX
//!   parameter list (docs/architecture.md) and whether the PTX or MSL function takes a sizes
//!   buffer.
//! * [`Binding`]: one `@group @binding` resource: kind, access and, for buffers, the byte
//!   [`Layout`] of its type (size, alignment, field offsets, runtime-array stride).
//!
//! Text and lists are [`Cow<'static, _>`](Cow), so the same types describe a module compiled
//! at run time (`dianran::compile`, which fills them in through [`from_module`]) and the constants that
//! `dianran::build` generates at build time (`pub const 加倍: dianran::reflect::Entry = ...`).

pub mod from_module;

use std::borrow::Cow;
use std::fmt;

pub use dianran_frontend::ir::Stage;

/// Text that is either a `'static` literal (generated constants) or owned (run-time compiles).
pub type Text = Cow<'static, str>;

/// A list that is either a `'static` slice (generated constants) or owned.
pub type List<T> = Cow<'static, [T]>;

/// One entry point of a compiled module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name in the WGSL source.
    pub name: Text,
    /// The function name in the printed WGSL and MSL (the source name, escaped when it is a
    /// keyword of either language; the same in both).
    pub wgsl_name: Text,
    /// Pipeline stage.
    pub stage: Stage,
    /// `@workgroup_size` (compute; `[0, 0, 0]` otherwise). CUDA launches use it as block size.
    pub workgroup_size: [u32; 3],
    /// The `.entry` name in the PTX text (always ASCII: `dianran_ptx::names` mangles other
    /// names, e.g. `加倍` to `yy_e5_8a_a0_e5_80_8d`); `None` when the PTX text does not hold
    /// this entry (not a compute entry, or the PTX target failed).
    pub ptx_name: Option<Text>,
    /// The PTX kernel's `.u64` buffer parameters, in order (the trailing sizes parameter is
    /// not listed; see [`Entry::ptx_uses_sizes`]). Empty when `ptx_name` is `None`.
    pub ptx_params: List<PtxParam>,
    /// Whether the PTX kernel takes a last parameter `p_sizes`: a device pointer to one `u32`
    /// per buffer parameter (in parameter order) holding that buffer's size in bytes.
    pub ptx_uses_sizes: bool,
    /// The size in bytes of the entry's `var<immediate>`, 0 without one. When not 0, the PTX
    /// kernel's last parameter is `p_immediates`, those bytes by value (docs/immediates.md),
    /// and the MSL function takes them at `[[buffer(29)]]`.
    pub ptx_immediates: u32,
    /// Whether the MSL function takes `_buffer_sizes` at `[[buffer(30)]]`: one `uint` per Metal
    /// buffer index (`group * 16 + binding`) holding the buffer's size in bytes.
    pub msl_uses_sizes: bool,
    /// The resources the entry uses (directly or through calls), sorted by (group, binding).
    pub bindings: List<Binding>,
}

impl Entry {
    /// The resource at (`group`, `binding`) if the entry uses it.
    pub fn binding(&self, group: u32, binding: u32) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.group == group && b.binding == binding)
    }
}

/// One parameter of a PTX kernel: a `.u64` buffer device pointer, a texture's texture
/// object or a storage texture's surface object (what [`Entry::binding`] of its group and
/// binding is), the `.u64` texture object of a (texture, sampler) pair, or the `.u32`
/// compare word of a comparison pair, passed by value ([`PtxParam::compare`],
/// `docs/textures.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// The parameter name, `p_g<G>_b<B>`, or `p_g<G>_b<B>_s<SG>_b<SB>` for a pair.
    pub name: Text,
    /// `@group` of the buffer passed here.
    pub group: u32,
    /// `@binding` of the buffer passed here.
    pub binding: u32,
    /// False for a group-0 placeholder: a binding below the highest used one that the entry
    /// does not use (or a sampler, or a texture the entry only samples). The kernel never
    /// reads it; any valid device pointer will do.
    pub used: bool,
    /// For a (texture, sampler) pair: the sampler's `(group, binding)`; `group` and
    /// `binding` are the texture's. The host passes a texture object of that texture with
    /// that sampler's state.
    pub sampler: Option<(u32, u32)>,
    /// The `.u32` compare word of the comparison pair `sampler` names
    /// (`p_g<G>_b<B>_s<SG>_b<SB>_cmp`, right after the pair's object): the host passes the
    /// sampler's compare function (WebGPU order, bits 0..=2) and bit 3 set for a linear
    /// magnification filter, by value (`docs/textures.md`, "Depth comparison").
    pub compare: bool,
}

/// What kind of resource a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, ...>`.
    Storage,
    /// A sampled or depth texture.
    Texture,
    /// A `texture_storage_*`.
    StorageTexture,
    /// `sampler` or `sampler_comparison`.
    Sampler,
}

impl BindingKind {
    /// Whether the resource is a buffer (and so has a [`Layout`]).
    pub fn is_buffer(self) -> bool {
        matches!(self, BindingKind::Uniform | BindingKind::Storage)
    }
}

/// How the shader may access a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only (uniform buffers, `var<storage, read>`, textures, samplers).
    Read,
    /// Write only (`texture_storage_* <_, write>`).
    Write,
    /// Read and write (`var<storage, read_write>`, read-write storage textures).
    ReadWrite,
}

impl Access {
    /// Whether the shader may write the resource (so results must be copied back).
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
}

/// One `@group(g) @binding(b)` resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The variable's name in the source.
    pub name: Text,
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Buffer, texture or sampler.
    pub kind: BindingKind,
    /// Access the shader has: as declared in a module's binding list; in an entry's, what
    /// that entry's code does (a `read_write` binding it only reads is [`Access::Read`]).
    pub access: Access,
    /// Byte layout of a buffer's type; `None` for textures and samplers.
    pub layout: Option<Layout>,
}

/// The byte layout of a buffer's type (WGSL host-shareable rules, the same on every target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The type as WGSL spells it (`Params`, `array<f32>`).
    pub type_name: Text,
    /// Size in bytes. For a type ending in a runtime-sized array this is the fixed part only
    /// (the offset of that array; 0 for a bare `array<T>`).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Element stride of the trailing runtime-sized array, if the type has one.
    pub runtime_stride: Option<u32>,
    /// The members of a struct type, in declaration order; empty for other types.
    pub fields: List<Field>,
}

/// One member of a struct buffer type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Member name in the source.
    pub name: Text,
    /// Member type as WGSL spells it.
    pub type_name: Text,
    /// Byte offset from the start of the struct.
    pub offset: u32,
    /// Size in bytes (0 for a runtime-sized array).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// A buffer whose length does not fit its binding's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeMismatch {
    /// The buffer's length in bytes.
    pub len: u64,
    /// What the layout needs, in words (`exactly 16 bytes`, `8 + 4 * n bytes`).
    pub expected: String,
}

impl fmt::Display for SizeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes given, the type needs {}", self.len, self.expected)
    }
}

impl Layout {
    /// The smallest valid buffer length: the fixed part (a runtime array may be empty).
    pub fn min_size(&self) -> u64 {
        u64::from(self.size)
    }

    /// Number of elements of the trailing runtime-sized array in a buffer of `len` bytes.
    pub fn runtime_len(&self, len: u64) -> Option<u64> {
        let stride = u64::from(self.runtime_stride?);
        len.checked_sub(self.min_size()).map(|rest| rest / stride.max(1))
    }

    /// Checks a buffer length against the layout: at least the type's size for a fixed-size
    /// type; for a runtime-sized array, the fixed part plus a whole number of elements.
    pub fn check_len(&self, len: u64) -> Result<(), SizeMismatch> {
        let fixed = self.min_size();
        match self.runtime_stride {
            None if len < fixed => {
                Err(SizeMismatch { len, expected: format!("at least {fixed} bytes") })
            }
            None => Ok(()),
            Some(stride) => {
                let stride = u64::from(stride.max(1));
                let whole = len.checked_sub(fixed).is_some_and(|rest| rest % stride == 0);
                if whole {
                    Ok(())
                } else if fixed == 0 {
                    Err(SizeMismatch { len, expected: format!("a multiple of {stride} bytes") })
                } else {
                    Err(SizeMismatch { len, expected: format!("{fixed} + {stride} * n bytes") })
                }
            }
        }
    }
}
