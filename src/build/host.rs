//! Host-side Rust for one shader (docs/host.md): a `#[repr(C)]` struct with WGSL's
//! host-shareable layout for every struct a buffer or `var<immediate>` holds (explicit
//! padding, `bytemuck` derives, compile-time size and offset assertions), and, when the
//! `cuda` launchers are asked for, a `Kernels` type with one typed launcher per compute entry.
//!
//! The layouts come from the compiled module (`ir::Types::size_align`, struct member offsets,
//! array strides): the numbers every executor uses. The assertions make rustc check that the
//! Rust types have exactly those numbers.

use super::rust_ident;
use crate::api::Compiled;
use crate::reflect::{BindingKind, Entry};
use dianran_frontend::ir::{AddressSpace, Module, Scalar, Type, TypeId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Rust spellings of the generated structs, by the WGSL type they stand for.
pub(super) struct Structs {
    names: BTreeMap<usize, String>,
}

/// The Rust type of a scalar in host memory (`f16` as `half::f16`, re-exported by dianran).
fn scalar(s: Scalar) -> Option<&'static str> {
    Some(match s {
        Scalar::Bool => return None,
        Scalar::I32 => "i32",
        Scalar::U32 => "u32",
        Scalar::F32 => "f32",
        Scalar::F16 => "::dianran::half::f16",
        Scalar::I64 => "i64",
        Scalar::U64 => "u64",
        Scalar::F64 => "f64",
    })
}

/// The scalar a device buffer of this type is made of, for `CudaSlice<T>` (cudarc's
/// `DeviceRepr` types; `f16` as its bits in `u16`, since cudarc's `f16` feature is off).
fn device_scalar(s: Scalar) -> Option<&'static str> {
    match s {
        Scalar::F16 => Some("u16"),
        other => scalar(other),
    }
}

impl Structs {
    /// The Rust type of a WGSL type in host memory, or `None` when it has none (bool, a
    /// runtime-sized array, textures, an array whose stride is not its element's size).
    pub(super) fn rust(&self, m: &Module, ty: TypeId) -> Option<String> {
        Some(match m.types.get(ty) {
            Type::Scalar(s) | Type::Atomic(s) => scalar(*s)?.to_string(),
            Type::Vector { size, scalar: s } => format!("[{}; {size}]", scalar(*s)?),
            Type::Matrix { columns, rows, scalar: s } => {
                // Columns are vectors: a 3-row column takes 4 components' room.
                let r = if *rows == 3 { 4 } else { *rows };
                format!("[[{}; {r}]; {columns}]", scalar(*s)?)
            }
            Type::Array { base, len: Some(n), stride } => {
                let (size, _) = m.types.size_align(*base);
                let elem = match m.types.get(*base) {
                    // A vec3 element takes a vec4's room in an array.
                    Type::Vector { size: 3, scalar: s } if *stride == 4 * s.size() => {
                        format!("[{}; 4]", scalar(*s)?)
                    }
                    _ if size == *stride => self.rust(m, *base)?,
                    _ => return None,
                };
                format!("[{elem}; {n}]")
            }
            Type::Struct { .. } => self.names.get(&ty.index())?.clone(),
            _ => return None,
        })
    }

    /// The element type of `CudaSlice<T>` for a buffer of type `ty`: a generated struct, the
    /// scalar of a vector, matrix or scalar (padding included in the count), or `u8` for a
    /// struct ending in a runtime-sized array.
    pub(super) fn device_elem(&self, m: &Module, ty: TypeId) -> Option<String> {
        match m.types.get(ty) {
            Type::Array { base, .. } => self.device_elem(m, *base),
            Type::Scalar(s)
            | Type::Atomic(s)
            | Type::Vector { scalar: s, .. }
            | Type::Matrix { scalar: s, .. } => device_scalar(*s).map(str::to_string),
            // A struct with a runtime-sized tail has no Rust type: its bytes (header and
            // elements, WGSL's layout), checked against the layout at launch.
            Type::Struct { .. } => {
                Some(self.names.get(&ty.index()).cloned().unwrap_or_else(|| "u8".to_string()))
            }
            _ => None,
        }
    }
}

/// The structs buffers and immediates hold, nested ones first, each once.
fn host_structs(m: &Module) -> Vec<TypeId> {
    fn visit(m: &Module, ty: TypeId, seen: &mut BTreeSet<usize>, out: &mut Vec<TypeId>) {
        match m.types.get(ty) {
            Type::Array { base, .. } => visit(m, *base, seen, out),
            Type::Struct { members, .. } => {
                if !seen.insert(ty.index()) {
                    return;
                }
                for mem in members {
                    visit(m, mem.ty, seen, out);
                }
                out.push(ty);
            }
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for g in &m.globals {
        if matches!(
            g.space,
            AddressSpace::Uniform | AddressSpace::Storage { .. } | AddressSpace::Immediate
        ) {
            visit(m, g.ty, &mut seen, &mut out);
        }
    }
    out
}

/// Rust's primitive type names, which a generated struct must not shadow.
const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f16", "f32", "f64", "f128",
];

/// Writes the structs into `o` (indented for the shader's module); returns their names.
pub(super) fn structs(o: &mut String, m: &Module, used: &mut BTreeSet<String>) -> Structs {
    let mut s = Structs { names: BTreeMap::new() };
    for ty in host_structs(m) {
        let Type::Struct { name, members, size, align } = m.types.get(ty) else { continue };
        let mut ident = rust_ident(name);
        // Not a primitive's name: the generated code spells `u8`, `u32`, ... plainly.
        while used.contains(ident.trim_start_matches("r#")) || PRIMITIVES.contains(&ident.as_str())
        {
            ident.push('_');
        }
        // Fields first: a struct that cannot be written is left out, and so are the structs
        // holding it.
        let mut fields = Vec::new();
        let mut at = 0u32;
        let mut pads = 0;
        let mut field_names = BTreeSet::new();
        let mut ok = true;
        for mem in members {
            let Some(rty) = s.rust(m, mem.ty) else {
                ok = false;
                break;
            };
            if mem.offset > at {
                fields.push((format!("__pad{pads}"), format!("[u8; {}]", mem.offset - at), None));
                pads += 1;
            }
            let mut f = rust_ident(&mem.name);
            // Pads are `__padN`: WGSL names cannot start with `__`, so no member takes them.
            while !field_names.insert(f.clone()) {
                f.push('_');
            }
            fields.push((f, rty, Some(mem.offset)));
            at = mem.offset + m.types.size_align(mem.ty).0;
        }
        if !ok {
            let _ = writeln!(
                o,
                "    // WGSL `struct {}` has no host struct here: a member has no fixed-size Rust type (a runtime-sized array or bool).",
                super::doc_text(name)
            );
            continue;
        }
        if *size > at {
            fields.push((format!("__pad{pads}"), format!("[u8; {}]", size - at), None));
        }
        used.insert(ident.trim_start_matches("r#").to_string());
        let _ = writeln!(
            o,
            "    /// WGSL `struct {}` in its host-shareable layout: {size} bytes, alignment {align}.",
            super::doc_text(name)
        );
        let _ = writeln!(o, "    #[repr(C, align({align}))]");
        o.push_str("    #[derive(Clone, Copy, Debug, ::dianran::bytemuck::Pod, ::dianran::bytemuck::Zeroable)]\n");
        o.push_str("    #[bytemuck(crate = \"::dianran::bytemuck\")]\n");
        let _ = writeln!(o, "    pub struct {ident} {{");
        for (f, t, off) in &fields {
            match off {
                Some(off) => {
                    let _ = writeln!(o, "        /// Offset {off}.");
                }
                None => o.push_str("        /// Padding (WGSL's layout).\n"),
            }
            let _ = writeln!(o, "        pub {f}: {t},");
        }
        o.push_str("    }\n");
        let _ =
            writeln!(o, "    const _: () = assert!(::core::mem::size_of::<{ident}>() == {size});");
        let _ = writeln!(
            o,
            "    const _: () = assert!(::core::mem::align_of::<{ident}>() == {align});"
        );
        for (f, _, off) in &fields {
            if let Some(off) = off {
                let _ = writeln!(
                    o,
                    "    const _: () = assert!(::core::mem::offset_of!({ident}, {f}) == {off});"
                );
            }
        }
        s.names.insert(ty.index(), ident);
    }
    s
}

/// One parameter of a typed launcher.
struct Param {
    ident: String,
    rust: String,
    arg: String,
}

/// The parameters of a typed launcher for `e`, or why it has none.
fn launcher_params(c: &Compiled, s: &Structs, e: &Entry) -> Result<Vec<Param>, String> {
    let m = &c.module;
    let mut out = Vec::new();
    let mut names = BTreeSet::from(["self", "stream", "grid", "immediates"].map(String::from));
    for b in e.bindings.iter() {
        let (g_, b_) = (b.group, b.binding);
        let used = e.ptx_params.iter().any(|p| p.used && (p.group, p.binding) == (g_, b_));
        if b.kind.is_buffer() && !used {
            continue;
        }
        let mut ident = rust_ident(&b.name);
        while !names.insert(ident.trim_start_matches("r#").to_string()) {
            ident.push('_');
        }
        let global = || {
            m.globals
                .iter()
                .find(|g| g.binding.is_some_and(|rb| (rb.group, rb.binding) == (g_, b_)))
                .ok_or_else(|| format!("binding '{}' is not in the module", b.name))
        };
        let elem = || {
            s.device_elem(m, global()?.ty)
                .ok_or_else(|| format!("the buffer '{}' has no device element type", b.name))
        };
        let launch = "::dianran::launch";
        let (ctor, rust) = match b.kind {
            BindingKind::Texture => ("texture", format!("&{launch}::DeviceTexture")),
            BindingKind::StorageTexture if b.access.writes() => {
                ("storage_texture", format!("&mut {launch}::DeviceTexture"))
            }
            BindingKind::StorageTexture => ("texture", format!("&{launch}::DeviceTexture")),
            BindingKind::Sampler => ("sampler", format!("&{launch}::SamplerDesc")),
            BindingKind::Uniform => {
                let rust = s
                    .rust(m, global()?.ty)
                    .ok_or_else(|| format!("the uniform '{}' has no host type", b.name))?;
                ("value", format!("&{rust}"))
            }
            BindingKind::Storage if b.access.writes() => {
                ("write", format!("&mut {launch}::CudaSlice<{}>", elem()?))
            }
            BindingKind::Storage => ("read", format!("&{launch}::CudaSlice<{}>", elem()?)),
        };
        out.push(Param {
            arg: format!("{launch}::DeviceArg::{ctor}({g_}, {b_}, {ident})"),
            ident,
            rust,
        });
    }
    Ok(out)
}

/// The host type of the `var<immediate>` entry `e` uses (each entry uses at most one; a
/// module may declare several).
fn immediates_type(c: &Compiled, s: &Structs, e: &Entry) -> Option<String> {
    let ep = c.module.entry_point(&e.name)?;
    let used = crate::reflect::from_module::used_globals(&c.module, ep.function);
    let g = used
        .iter()
        .filter_map(|g| c.module.globals.get(g.index()))
        .find(|g| g.space == AddressSpace::Immediate)?;
    s.rust(&c.module, g.ty)
}

/// Writes `Kernels`: the PTX loaded on a CUDA context and one launcher per compute entry
/// (`idents` are the entries' constants, in `c.entries` order).
pub(super) fn launchers(o: &mut String, c: &Compiled, s: &Structs, idents: &[String]) {
    if c.ptx.is_err() {
        return;
    }
    o.push_str("    /// This shader's PTX loaded on CUDA device 0, with one typed launcher per compute entry\n");
    o.push_str("    /// (docs/host.md). Launchers queue the kernel on a stream and return: buffers stay on\n");
    o.push_str("    /// the device; read them back with cudarc when needed.\n");
    o.push_str("    pub struct Kernels {\n        module: ::dianran::launch::CudaModule,\n    }\n");
    o.push_str("    impl Kernels {\n");
    o.push_str("        /// JIT-loads the PTX (`LaunchError::NoDevice` without a CUDA device).\n");
    o.push_str(
        "        pub fn load() -> ::std::result::Result<Self, ::dianran::launch::LaunchError> {\n",
    );
    o.push_str("            ::std::result::Result::Ok(Kernels { module: ::dianran::launch::CudaModule::load(PTX)? })\n        }\n");
    o.push_str("        /// The loaded module: its context makes streams and buffers; `launch_on` binds by name.\n");
    o.push_str("        pub fn module(&self) -> &::dianran::launch::CudaModule {\n            &self.module\n        }\n");
    let mut methods = BTreeSet::from(["load".to_string(), "module".to_string()]);
    for (e, ident) in c.entries.iter().zip(idents) {
        if e.ptx_name.is_none() {
            continue;
        }
        let params = match launcher_params(c, s, e) {
            Ok(p) => p,
            Err(why) => {
                let _ = writeln!(
                    o,
                    "        // No typed launcher for `{}`: {why}; use `CudaModule::launch_full`.",
                    super::doc_text(&e.name)
                );
                continue;
            }
        };
        let imm_param = match (e.ptx_immediates, immediates_type(c, s, e)) {
            (0, _) => None,
            (_, Some(t)) => Some(t),
            (_, None) => {
                let _ = writeln!(
                    o,
                    "        // No typed launcher for `{}`: its immediate data has no host type.",
                    super::doc_text(&e.name)
                );
                continue;
            }
        };
        let mut name = ident.clone();
        while !methods.insert(name.trim_start_matches("r#").to_string()) {
            name.push('_');
        }
        let [x, y, z] = e.workgroup_size;
        let _ = writeln!(o, "        /// Queues entry `{}` (workgroup size ({x}, {y}, {z})) on `stream` over `grid` workgroups.", super::doc_text(&e.name));
        let _ = write!(o, "        pub fn {name}(\n            &self,\n            stream: &::std::sync::Arc<::dianran::launch::CudaStream>,\n            grid: [u32; 3],\n");
        for p in &params {
            let _ = writeln!(o, "            {}: {},", p.ident, p.rust);
        }
        if let Some(t) = &imm_param {
            let _ = writeln!(o, "            immediates: &{t},");
        }
        o.push_str("        ) -> ::std::result::Result<(), ::dianran::launch::LaunchError> {\n");
        let args: Vec<&str> = params.iter().map(|p| p.arg.as_str()).collect();
        let imm_arg =
            if imm_param.is_some() { "::dianran::bytemuck::bytes_of(immediates)" } else { "&[]" };
        let _ = writeln!(
            o,
            "            self.module.launch_on(stream, &{ident}, grid, &mut [{}], {imm_arg})\n        }}",
            args.join(", ")
        );
    }
    o.push_str("    }\n");
    // cudarc's buffers hold the generated structs.
    for name in s.names.values() {
        let _ = writeln!(o, "    // SAFETY: a plain-old-data struct (`bytemuck::Pod`), valid for any bytes and for zero.");
        let _ = writeln!(o, "    unsafe impl ::dianran::launch::DeviceRepr for {name} {{}}");
        let _ = writeln!(o, "    unsafe impl ::dianran::launch::ValidAsZeroBits for {name} {{}}");
    }
}
