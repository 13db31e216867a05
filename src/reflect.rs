//! Reflection: what a host program must know to bind and launch a compiled module.
//!
//! * [`Entry`]: one entry point: its names on every target, stage, workgroup size, the PTX
//!   parameter list (SPEC §3) and whether the PTX or MSL function takes a sizes buffer.
//! * [`Binding`]: one `@group @binding` resource: kind, access and, for buffers, the byte
//!   [`Layout`] of its type (size, alignment, field offsets, runtime-array stride).
//!
//! Text and lists are [`Cow<'static, _>`](Cow), so the same types describe a module compiled
//! at run time ([`crate::compile`]) and the constants that [`crate::build`] generates at build
//! time (`pub const 加倍: dianran::reflect::Entry = ...`).

use dianran_frontend::ir::{self, AddressSpace, FuncId, GlobalId, ImageClass, Op, Type, TypeId};
use dianran_frontend::names::ModuleNames;
use std::borrow::Cow;
use std::collections::BTreeSet;
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
    /// The `.entry` name in the PTX text (SPEC §3 mangling); `None` when the PTX text does not
    /// hold this entry (not a compute entry, or the PTX target failed).
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
    /// Access the shader has.
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

/// The resources of a module, sorted by (group, binding).
pub(crate) fn module_bindings(m: &ir::Module, names: &ModuleNames) -> Vec<Binding> {
    let mut out: Vec<Binding> = m.globals.iter().filter_map(|g| binding_of(m, names, g)).collect();
    out.sort_by_key(|b| (b.group, b.binding));
    out
}

fn binding_of(m: &ir::Module, names: &ModuleNames, g: &ir::Global) -> Option<Binding> {
    let rb = g.binding?;
    let (kind, access) = match g.space {
        AddressSpace::Uniform => (BindingKind::Uniform, Access::Read),
        AddressSpace::Storage { writable: true } => (BindingKind::Storage, Access::ReadWrite),
        AddressSpace::Storage { writable: false } => (BindingKind::Storage, Access::Read),
        AddressSpace::Handle => match m.types.get(g.ty) {
            Type::Sampler { .. } => (BindingKind::Sampler, Access::Read),
            Type::Image { class: ImageClass::Storage { access, .. }, .. } => {
                // naga's StorageAccess: LOAD = 1, STORE = 2.
                let access = match (access.bits() & 1 != 0, access.bits() & 2 != 0) {
                    (true, true) => Access::ReadWrite,
                    (false, true) => Access::Write,
                    _ => Access::Read,
                };
                (BindingKind::StorageTexture, access)
            }
            _ => (BindingKind::Texture, Access::Read),
        },
        // Private and workgroup variables have no binding; naga rejects one that does.
        // Immediate data has no binding either ([`Entry::ptx_immediates`] describes it).
        AddressSpace::Function
        | AddressSpace::Private
        | AddressSpace::Workgroup
        | AddressSpace::Immediate => return None,
    };
    let layout = kind.is_buffer().then(|| layout_of(m, names, g.ty));
    Some(Binding {
        name: Cow::Owned(g.name.clone()),
        group: rb.group,
        binding: rb.binding,
        kind,
        access,
        layout,
    })
}

fn type_name(m: &ir::Module, names: &ModuleNames, ty: TypeId) -> String {
    dianran_wgsl::type_name(&m.types, ty, &|t| names.struct_name(t))
}

fn layout_of(m: &ir::Module, names: &ModuleNames, ty: TypeId) -> Layout {
    let (size, align) = m.types.size_align(ty);
    let type_name = Cow::Owned(type_name(m, names, ty));
    match m.types.get(ty) {
        Type::Array { len: None, stride, .. } => Layout {
            type_name,
            size: 0,
            align,
            runtime_stride: Some(*stride),
            fields: List::Borrowed(&[]),
        },
        Type::Struct { members, .. } => {
            let mut runtime_stride = None;
            let mut fixed = size;
            let fields = members
                .iter()
                .map(|mb| {
                    let (fsize, falign) = m.types.size_align(mb.ty);
                    if let Type::Array { len: None, stride, .. } = m.types.get(mb.ty) {
                        runtime_stride = Some(*stride);
                        fixed = mb.offset;
                    }
                    Field {
                        name: Cow::Owned(mb.name.clone()),
                        type_name: Cow::Owned(self::type_name(m, names, mb.ty)),
                        offset: mb.offset,
                        size: fsize,
                        align: falign,
                    }
                })
                .collect::<Vec<_>>();
            Layout { type_name, size: fixed, align, runtime_stride, fields: List::Owned(fields) }
        }
        _ => Layout { type_name, size, align, runtime_stride: None, fields: List::Borrowed(&[]) },
    }
}

/// The globals an entry's code reaches, directly or through calls.
pub(crate) fn used_globals(m: &ir::Module, entry: FuncId) -> BTreeSet<GlobalId> {
    fn walk(b: &ir::Block, globals: &mut BTreeSet<GlobalId>, calls: &mut Vec<FuncId>) {
        for inst in &b.insts {
            match &inst.op {
                Op::GlobalAddr(g) => {
                    globals.insert(*g);
                }
                Op::Call(f, _) => calls.push(*f),
                Op::Inline { callee, .. } => calls.push(*callee),
                _ => {}
            }
            for blk in inst.op.blocks() {
                walk(blk, globals, calls);
            }
        }
    }
    let mut globals = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut todo = vec![entry];
    while let Some(f) = todo.pop() {
        if !seen.insert(f) {
            continue;
        }
        let Some(func) = m.functions.get(f.index()) else { continue };
        let mut calls = Vec::new();
        walk(&func.body, &mut globals, &mut calls);
        todo.extend(calls);
    }
    globals
}

/// What the PTX code generator reported for one entry, in the facade's terms.
#[derive(Clone, Debug, Default)]
pub(crate) struct PtxFacts {
    pub name: String,
    pub params: Vec<PtxParamFacts>,
    pub uses_sizes: bool,
    pub immediates: u32,
}

/// One PTX parameter as the code generator names it.
#[derive(Clone, Debug)]
pub(crate) struct PtxParamFacts {
    pub name: String,
    pub group: u32,
    pub binding: u32,
    pub sampler: Option<(u32, u32)>,
    /// A comparison pair's compare word ([`PtxParam::compare`]).
    pub compare: bool,
    /// Whether the kernel reads it (false: a placeholder).
    pub used: bool,
}

/// Builds the entry table. `ptx` and `msl_sizes` look entries up by their source name.
pub(crate) fn entry_table(
    m: &ir::Module,
    names: &ModuleNames,
    bindings: &[Binding],
    ptx: &dyn Fn(&str) -> Option<PtxFacts>,
    msl_sizes: &dyn Fn(&str) -> bool,
) -> Vec<Entry> {
    m.entry_points
        .iter()
        .map(|ep| {
            let used = used_globals(m, ep.function);
            let used_bindings: BTreeSet<(u32, u32)> = used
                .iter()
                .filter_map(|g| m.globals.get(g.index()).and_then(|g| g.binding))
                .map(|rb| (rb.group, rb.binding))
                .collect();
            let entry_bindings: Vec<Binding> = bindings
                .iter()
                .filter(|b| used_bindings.contains(&(b.group, b.binding)))
                .cloned()
                .collect();
            let facts = ptx(&ep.name);
            let ptx_params = facts
                .as_ref()
                .map(|f| {
                    f.params
                        .iter()
                        .map(|p| PtxParam {
                            name: Cow::Owned(p.name.clone()),
                            group: p.group,
                            binding: p.binding,
                            used: p.used && used_bindings.contains(&(p.group, p.binding)),
                            sampler: p.sampler,
                            compare: p.compare,
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let wgsl_name = names
                .functions
                .get(ep.function.index())
                .cloned()
                .unwrap_or_else(|| dianran_frontend::names::escape(&ep.name));
            Entry {
                name: Cow::Owned(ep.name.clone()),
                wgsl_name: Cow::Owned(wgsl_name),
                stage: ep.stage,
                workgroup_size: ep.workgroup_size,
                ptx_uses_sizes: facts.as_ref().is_some_and(|f| f.uses_sizes),
                ptx_immediates: facts.as_ref().map_or(0, |f| f.immediates),
                ptx_name: facts.map(|f| Cow::Owned(f.name)),
                ptx_params: List::Owned(ptx_params),
                msl_uses_sizes: msl_sizes(&ep.name),
                bindings: List::Owned(entry_bindings),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(src: &str) -> (ir::Module, ModuleNames) {
        let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let names = ModuleNames::new(&m);
        (m, names)
    }

    #[test]
    fn struct_layout_offsets_follow_wgsl_rules() {
        // Hand layout (WGSL host-shareable): vec3<f32> aligns 16, size 12; the f32 after it
        // packs into the vec3's last 4 bytes; mat2x2<f32> aligns 8, size 16; array<u32>
        // runtime tail at the next multiple of 4.
        let (m, names) = compile(
            "struct P { a: vec3<f32>, b: f32, c: mat2x2<f32>, d: u32, tail: array<u32> }
             @group(1) @binding(2) var<storage, read_write> p: P;
             @compute @workgroup_size(1) fn k() { p.d = arrayLength(&p.tail); }",
        );
        let b = module_bindings(&m, &names);
        assert_eq!(b.len(), 1);
        let b = &b[0];
        assert_eq!(
            (b.group, b.binding, b.kind, b.access),
            (1, 2, BindingKind::Storage, Access::ReadWrite)
        );
        let l = b.layout.as_ref().unwrap();
        assert_eq!(l.type_name, "P");
        let offsets: Vec<(&str, u32, u32)> =
            l.fields.iter().map(|f| (f.name.as_ref(), f.offset, f.size)).collect();
        assert_eq!(
            offsets,
            [("a", 0, 12), ("b", 12, 4), ("c", 16, 16), ("d", 32, 4), ("tail", 36, 0)]
        );
        assert_eq!((l.size, l.align, l.runtime_stride), (36, 16, Some(4)));
        assert_eq!(l.fields[4].type_name, "array<u32>");
    }

    #[test]
    fn length_checks() {
        let fixed = Layout {
            type_name: "P".into(),
            size: 16,
            align: 16,
            runtime_stride: None,
            fields: List::Borrowed(&[]),
        };
        assert!(fixed.check_len(16).is_ok());
        assert!(fixed.check_len(32).is_ok());
        assert_eq!(fixed.check_len(12).unwrap_err().expected, "at least 16 bytes");
        let tail = Layout { size: 8, runtime_stride: Some(4), ..fixed.clone() };
        assert!(tail.check_len(8).is_ok());
        assert!(tail.check_len(20).is_ok());
        assert_eq!(tail.runtime_len(20), Some(3));
        assert_eq!(tail.check_len(10).unwrap_err().expected, "8 + 4 * n bytes");
        assert!(tail.check_len(4).is_err());
        let bare = Layout { size: 0, runtime_stride: Some(8), ..fixed };
        assert_eq!(
            bare.check_len(12).unwrap_err().to_string(),
            "12 bytes given, the type needs a multiple of 8 bytes"
        );
    }

    #[test]
    fn access_and_kinds() {
        let (m, names) = compile(
            "@group(0) @binding(0) var<uniform> u: vec4<f32>;
             @group(0) @binding(1) var<storage> r: array<f32>;
             @group(0) @binding(3) var t: texture_2d<f32>;
             @group(0) @binding(4) var s: sampler;
             @group(0) @binding(5) var w: texture_storage_2d<rgba8unorm, write>;
             @compute @workgroup_size(1) fn k() { _ = u.x + r[0]; }",
        );
        let b = module_bindings(&m, &names);
        let kinds: Vec<(u32, BindingKind, Access)> =
            b.iter().map(|b| (b.binding, b.kind, b.access)).collect();
        assert_eq!(
            kinds,
            [
                (0, BindingKind::Uniform, Access::Read),
                (1, BindingKind::Storage, Access::Read),
                (3, BindingKind::Texture, Access::Read),
                (4, BindingKind::Sampler, Access::Read),
                (5, BindingKind::StorageTexture, Access::Write),
            ]
        );
        assert_eq!(b[0].layout.as_ref().map(|l| (l.size, l.align)), Some((16, 16)));
        assert!(b[2].layout.is_none());
    }
}
