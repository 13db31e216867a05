//! Filling the reflection types in from a compiled module: [`module_bindings`] (every
//! resource with its layout), [`ptx_facts`] (what one compiled PTX entry takes) and
//! [`entry_table`] (one [`Entry`] per entry point). `dianran::compile` builds its table here,
//! and `dianran-verify`'s CUDA executor builds the [`Entry`] it launches with the same code,
//! so both launch through one description of the kernel.

use super::*;
use dianran_frontend::ir::{self, AddressSpace, FuncId, GlobalId, ImageClass, Op, Type, TypeId};
use dianran_frontend::names::ModuleNames;
use dianran_ptx::abi::{EntryInfo, ParamKind};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The resources of a module, sorted by (group, binding).
pub fn module_bindings(m: &ir::Module, names: &ModuleNames) -> Vec<Binding> {
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
    dianran_wgsl::type_name(
        &m.types,
        ty,
        &|t| names.struct_name(t),
        dianran_wgsl::MatrixSpelling::of(m),
    )
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
pub fn used_globals(m: &ir::Module, entry: FuncId) -> BTreeSet<GlobalId> {
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
    for_each_reachable(m, entry, |body, calls| walk(body, &mut globals, calls));
    globals
}

/// Calls `visit` on the body of `entry` and of every function reachable from it, each once;
/// `visit` pushes the functions a body calls.
fn for_each_reachable(
    m: &ir::Module,
    entry: FuncId,
    mut visit: impl FnMut(&ir::Block, &mut Vec<FuncId>),
) {
    let mut seen = BTreeSet::new();
    let mut todo = vec![entry];
    while let Some(f) = todo.pop() {
        if !seen.insert(f) {
            continue;
        }
        let Some(func) = m.functions.get(f.index()) else { continue };
        let mut calls = Vec::new();
        visit(&func.body, &mut calls);
        todo.extend(calls);
    }
}

/// The globals an entry's code may write, directly or through calls: those a store, an
/// atomic, a `textureStore` or a cooperative-matrix store reaches through a pointer (or
/// texture handle) derived from them. Conservative: a derived pointer handed to anything but
/// a known read (a load, an access, `arrayLength`, a texture read or query) counts as a
/// write, calls and inlined bodies included, so a global left out is certainly only read.
pub fn written_globals(m: &ir::Module, entry: FuncId) -> BTreeSet<GlobalId> {
    fn walk(
        m: &ir::Module,
        b: &ir::Block,
        root: &mut std::collections::HashMap<ir::ValueId, GlobalId>,
        out: &mut BTreeSet<GlobalId>,
        calls: &mut Vec<FuncId>,
    ) {
        for inst in &b.insts {
            let derived = match &inst.op {
                Op::GlobalAddr(g) => Some(*g),
                Op::AccessIndex(p, _) | Op::Access(p, _) => root.get(p).copied(),
                // A texture or sampler handle is a load of its global.
                Op::Load(p) => root.get(p).copied().filter(|g| {
                    m.globals.get(g.index()).is_some_and(|g| g.space == AddressSpace::Handle)
                }),
                _ => None,
            };
            if let (Some(r), Some(g)) = (inst.result, derived) {
                root.insert(r, g);
            }
            let reads_only = matches!(
                &inst.op,
                Op::AccessIndex(..)
                    | Op::Access(..)
                    | Op::Load(_)
                    | Op::ArrayLength(_)
                    | Op::WorkgroupUniformLoad(_)
                    | Op::CoopLoad { .. }
                    | Op::ImageLoad { .. }
                    | Op::ImageSample { .. }
                    | Op::ImageQuery(..)
            );
            if !reads_only {
                inst.op.for_each_operand(|v| {
                    if let Some(g) = root.get(&v) {
                        out.insert(*g);
                    }
                });
            }
            if let Op::Call(f, _) = &inst.op {
                calls.push(*f);
            }
            for blk in inst.op.blocks() {
                walk(m, blk, root, out, calls);
            }
        }
    }
    let mut out = BTreeSet::new();
    for_each_reachable(m, entry, |body, calls| {
        walk(m, body, &mut Default::default(), &mut out, calls)
    });
    out
}

/// What the PTX code generator reported for one entry, in the reflection's terms
/// ([`ptx_facts`] reads them off a compiled entry).
#[derive(Clone, Debug, Default)]
pub struct PtxFacts {
    /// The `.entry` name.
    pub name: String,
    /// The parameters that bind resources, in order (`p_sizes` and `p_immediates` left out).
    pub params: Vec<PtxParamFacts>,
    /// Whether the last buffer-like parameter is `p_sizes`.
    pub uses_sizes: bool,
    /// The byte size of the entry's `var<immediate>` (0 without one).
    pub immediates: u32,
}

/// One PTX parameter as the code generator names it.
#[derive(Clone, Debug)]
pub struct PtxParamFacts {
    /// The parameter's name (`p_g<G>_b<B>`, a pair's or a compare word's name).
    pub name: String,
    /// `@group` of the resource.
    pub group: u32,
    /// `@binding` of the resource.
    pub binding: u32,
    /// A (texture, sampler) pair's sampler.
    pub sampler: Option<(u32, u32)>,
    /// A comparison pair's compare word ([`PtxParam::compare`]).
    pub compare: bool,
    /// Whether the kernel reads it (false: a placeholder).
    pub used: bool,
}

/// The byte size of the `var<immediate>` entry `name` uses (0 without one).
fn immediates_size(m: &ir::Module, name: &str) -> u32 {
    let Some(ep) = m.entry_point(name) else { return 0 };
    used_globals(m, ep.function)
        .iter()
        .filter_map(|g| m.globals.get(g.index()))
        .find(|g| g.space == ir::AddressSpace::Immediate)
        .map_or(0, |g| m.types.size_align(g.ty).0)
}

/// What the compiled PTX entry `e` takes, read off its parameter names (docs/abi.md) and,
/// when `ptx` holds its code, which parameters the code reads (the others are placeholders).
/// Without `ptx` (text from another backend) every parameter counts as read. `Err` names a
/// parameter outside the ABI: a bug in the code generator.
pub fn ptx_facts(
    m: &ir::Module,
    e: &EntryInfo,
    ptx: Option<&dianran_ptx::Module>,
) -> Result<PtxFacts, String> {
    // A parameter the kernel reads (`ld.param`); placeholders are never read.
    let read: Option<BTreeSet<String>> = ptx.map(|module| {
        let mut read = BTreeSet::new();
        if let Some(k) = module.entry(&e.ptx_name) {
            for i in k.instructions() {
                i.operands.iter().for_each(|o| {
                    o.for_each_symbol(&mut |s| {
                        read.insert(s.to_string());
                    })
                });
            }
        }
        read
    });
    let mut params = Vec::new();
    for p in &e.params {
        let used = read.as_ref().is_none_or(|r| r.contains(p));
        let fact = |(group, binding), sampler, compare| PtxParamFacts {
            name: p.clone(),
            group,
            binding,
            sampler,
            compare,
            used,
        };
        match ParamKind::of(p) {
            Some(ParamKind::Sizes | ParamKind::Immediates) => {}
            Some(ParamKind::Slot(k)) => params.push(fact(k, None, false)),
            Some(ParamKind::Pair { texture, sampler }) => {
                params.push(fact(texture, Some(sampler), false))
            }
            Some(ParamKind::CompareWord { texture, sampler }) => {
                params.push(fact(texture, Some(sampler), true))
            }
            None => {
                return Err(format!(
                    "the PTX code generator named a parameter '{p}', not p_g<G>_b<B>"
                ))
            }
        }
    }
    let immediates = if e.uses_immediates() { immediates_size(m, &e.name) } else { 0 };
    Ok(PtxFacts { name: e.ptx_name.clone(), params, uses_sizes: e.uses_sizes(), immediates })
}

/// The [`Entry`] of entry point `e` compiled to PTX, for a launch: its bindings and PTX
/// parameters (no MSL facts).
pub fn ptx_entry(
    m: &ir::Module,
    e: &EntryInfo,
    ptx: Option<&dianran_ptx::Module>,
) -> Result<Entry, String> {
    let facts = ptx_facts(m, e, ptx)?;
    let ep = m
        .entry_point(&e.name)
        .ok_or_else(|| format!("the module has no entry point '{}'", e.name))?;
    let names = ModuleNames::new(m);
    let bindings = module_bindings(m, &names);
    Ok(entry_of(m, &names, &bindings, ep, Some(facts), false))
}

/// Builds the entry table. `ptx` and `msl_sizes` look entries up by their source name.
pub fn entry_table(
    m: &ir::Module,
    names: &ModuleNames,
    bindings: &[Binding],
    ptx: &dyn Fn(&str) -> Option<PtxFacts>,
    msl_sizes: &dyn Fn(&str) -> bool,
) -> Vec<Entry> {
    m.entry_points
        .iter()
        .map(|ep| entry_of(m, names, bindings, ep, ptx(&ep.name), msl_sizes(&ep.name)))
        .collect()
}

/// One entry of the table: `facts` of its PTX entry (`None` when the PTX holds none) and
/// whether its MSL function takes the sizes buffer.
fn entry_of(
    m: &ir::Module,
    names: &ModuleNames,
    bindings: &[Binding],
    ep: &ir::EntryPoint,
    facts: Option<PtxFacts>,
    msl_uses_sizes: bool,
) -> Entry {
    let used = used_globals(m, ep.function);
    let used_bindings: BTreeSet<(u32, u32)> = used
        .iter()
        .filter_map(|g| m.globals.get(g.index()).and_then(|g| g.binding))
        .map(|rb| (rb.group, rb.binding))
        .collect();
    // An entry's access is what its code does: a `read_write` binding it only reads is
    // read-only for it (launchers lend it immutably, the host path copies nothing back).
    let written: BTreeSet<(u32, u32)> = written_globals(m, ep.function)
        .iter()
        .filter_map(|g| m.globals.get(g.index()).and_then(|g| g.binding))
        .map(|rb| (rb.group, rb.binding))
        .collect();
    let entry_bindings: Vec<Binding> = bindings
        .iter()
        .filter(|b| used_bindings.contains(&(b.group, b.binding)))
        .cloned()
        .map(|mut b| {
            if b.access.writes() && !written.contains(&(b.group, b.binding)) {
                b.access = Access::Read;
            }
            b
        })
        .collect();
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
        msl_uses_sizes,
        bindings: List::Owned(entry_bindings),
    }
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
    fn entry_access_is_what_the_entry_does() {
        let (m, names) = compile(
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
            @group(0) @binding(1) var<storage, read_write> b: array<u32>;
            @group(0) @binding(2) var<storage, read_write> c: array<atomic<u32>>;
            @group(0) @binding(3) var img: texture_storage_2d<r32uint, write>;
            fn put(v: u32) { a[0] = v; }
            @compute @workgroup_size(1) fn reads() { b[0] = a[0] + arrayLength(&a); }
            @compute @workgroup_size(1) fn helper() { put(2u); }
            @compute @workgroup_size(1) fn atomics() { b[1] = atomicLoad(&c[0]); atomicAdd(&c[1], 1u); }
            @compute @workgroup_size(1) fn stores() {
                textureStore(img, vec2<i32>(0), vec4<u32>(a[1]));
            }",
        );
        let bindings = module_bindings(&m, &names);
        let access = |entry: &str| -> Vec<(String, Access)> {
            let ep = m.entry_point(entry).unwrap_or_else(|| panic!("no {entry}"));
            let e = entry_of(&m, &names, &bindings, ep, None, false);
            e.bindings.iter().map(|b| (b.name.to_string(), b.access)).collect()
        };
        let own = |v: &[(&str, Access)]| -> Vec<(String, Access)> {
            v.iter().map(|(n, a)| (n.to_string(), *a)).collect()
        };
        assert_eq!(access("reads"), own(&[("a", Access::Read), ("b", Access::ReadWrite)]));
        // In a called function.
        assert_eq!(access("helper"), own(&[("a", Access::ReadWrite)]));
        assert_eq!(access("atomics"), own(&[("b", Access::ReadWrite), ("c", Access::ReadWrite)]));
        assert_eq!(access("stores"), own(&[("a", Access::Read), ("img", Access::Write)]));
        // The module's list keeps the declarations.
        assert!(bindings.iter().filter(|b| b.name != "img").all(|b| b.access == Access::ReadWrite));
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
    #[test]
    fn a_launch_entry_from_compiled_ptx() {
        // One buffer read, one unused group-0 buffer (a placeholder), a (texture, sampler)
        // pair, `arrayLength` (sizes) and immediates: the entry a launcher needs.
        let src = "@group(0) @binding(0) var<storage, read> a: array<f32>;
             @group(0) @binding(1) var<storage, read> unused: array<f32>;
             @group(0) @binding(2) var<storage, read_write> out: array<f32>;
             @group(1) @binding(0) var t: texture_2d<f32>;
             @group(1) @binding(1) var s: sampler;
             var<immediate> k: vec2<f32>;
             @compute @workgroup_size(4, 2, 1) fn go(@builtin(global_invocation_id) id: vec3<u32>) {
                 let i = id.x;
                 if i < arrayLength(&out) {
                     out[i] = a[i] * k.y + textureSampleLevel(t, s, vec2(0.5), 0.0).x;
                 }
             }";
        let (m, _) = compile(src);
        let out = dianran_ptx::codegen::compile_module(&m, &Default::default());
        let info = out.entries.iter().find(|e| e.name == "go").expect("compiled");
        let e = ptx_entry(&m, info, Some(&out.module)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.ptx_name.as_deref(), Some(info.ptx_name.as_str()));
        assert_eq!(e.workgroup_size, [4, 2, 1]);
        assert!(e.ptx_uses_sizes);
        assert_eq!(e.ptx_immediates, 8);
        type Param = (u32, u32, bool, Option<(u32, u32)>);
        let params: Vec<Param> =
            e.ptx_params.iter().map(|p| (p.group, p.binding, p.used, p.sampler)).collect();
        assert_eq!(
            params,
            [
                (0, 0, true, None),
                (0, 1, false, None),
                (0, 2, true, None),
                (1, 0, true, Some((1, 1)))
            ]
        );
        let bound: Vec<(u32, u32)> = e.bindings.iter().map(|b| (b.group, b.binding)).collect();
        assert_eq!(bound, [(0, 0), (0, 2), (1, 0), (1, 1)]);
        // Without the code (another backend's text) the module's own use decides.
        let e = ptx_entry(&m, info, None).unwrap_or_else(|e| panic!("{e}"));
        let used: Vec<bool> = e.ptx_params.iter().map(|p| p.used).collect();
        assert_eq!(used, [true, false, true, true]);
    }
}
