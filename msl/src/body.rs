//! MSL functions: the signature (resource parameters, entry-point I/O structs, workgroup
//! zeroing) and the frame the shared walk ([`dianran_frontend::printer`]) prints the body
//! into; [`crate::syntax`] spells the body.

use crate::module::{builtin_attr, location_attr, Writer};
use dianran_frontend::ir::{self, AddressSpace, FuncId, Function, IoBinding, Stage, Type, TypeId};
use dianran_frontend::names::escape;
use dianran_frontend::printer::syntax::Syntax;
use dianran_frontend::printer::walk::Walk;
use dianran_frontend::printer::Body;
use dianran_frontend::Diagnostic;
use std::fmt::Write;

/// The name of a function's staging slot for cooperative tiles partly outside their array
/// (`coop.rs`), a `threadgroup float*` of 64 elements per simdgroup; the entry declares the
/// slots as `{STAGE}s`.
pub(crate) const STAGE: &str = "_coop_stage";
/// The name of the invocation's lane in its simdgroup, passed with [`STAGE`].
pub(crate) const LANE: &str = "_coop_lane";

pub(crate) type Res<T> = Result<T, Box<Diagnostic>>;

/// Printing state of one MSL function.
pub(crate) struct FnWriter<'a> {
    /// The module-level printer (names, types, helpers in use).
    pub w: &'a Writer<'a>,
    /// The shared per-function state.
    pub b: Body<'a>,
    /// An entry point's output struct and the WGSL result type it is built from.
    pub out_struct: Option<(String, TypeId)>,
    /// Loops printed so far (names each loop's first-iteration flag).
    pub loop_counter: u32,
}

/// Returns (prototype for helper functions, full text).
pub(crate) fn write_function(
    w: &Writer<'_>,
    id: FuncId,
    f: &Function,
    entry: Option<&ir::EntryPoint>,
) -> Res<(Option<String>, String)> {
    let mut fw =
        FnWriter { w, b: Body::new(f, &w.m.types, &w.names), out_struct: None, loop_counter: 0 };
    let name = w.fn_name(id);
    let uses: Vec<ir::GlobalId> =
        w.uses.get(id.index()).map(|s| s.iter().copied().collect()).unwrap_or_default();
    let uses_sizes = w.uses_sizes.get(id.index()).copied().unwrap_or(false);
    let uses_stage = w.uses_stage.get(id.index()).copied().unwrap_or(false);
    let global_tys: Vec<ir::TypeId> =
        uses.iter().filter_map(|g| w.m.globals.get(g.index()).map(|g| g.ty)).collect();
    if let Some(what) = crate::wide::missing_in_metal(w.m, f, &global_tys) {
        return Err(fw.unsupported(what, f.span));
    }
    // Entries that reach a workgroup matrix are refused when the module mixes product
    // configurations; the other functions print the portable form.
    if let (Some(Err(why)), Some(true), Some(_)) =
        (w.tile.as_ref().map(|p| &p.product), w.reaches_tiles.get(id.index()), entry)
    {
        return Err(Box::new(
            Diagnostic::error(
                dianran_frontend::DiagKind::Unsupported,
                format!(
                    "Metal 4 workgroup matrices take one product configuration per module, {why}"
                ),
            )
            .at(f.span)
            .in_fn(&f.name)
            .help("print with `--no-metal4` (simdgroup matrices take any mix), or use one configuration"),
        ));
    }
    let mut prologue = String::new();
    let (proto, header) = match entry {
        None => {
            let mut params = Vec::new();
            for p in &f.params {
                let pname = fw.b.namer.name(&p.name);
                params.push(fw.param_decl(f.ty(p.value), &pname));
                fw.b.params.insert(p.value, pname.clone());
                fw.b.names.insert(p.value, pname);
            }
            for g in &uses {
                if let Some(decl) = w.global_param(*g) {
                    params.push(decl);
                }
            }
            if uses_sizes {
                params.push("constant uint* _buffer_sizes".into());
            }
            if uses_stage {
                params.push(format!("threadgroup float* {STAGE}, uint {LANE}"));
            }
            let ret = match &f.result {
                Some(r) => w.ty(r.ty),
                None => "void".into(),
            };
            let sig = format!("{ret} {name}({})", params.join(", "));
            (Some(sig.clone()), sig)
        }
        Some(e) => {
            let mut params = Vec::new();
            let mut pre = String::new();
            for g in &uses {
                let glob = &w.m.globals[g.index()];
                match glob.space {
                    AddressSpace::Workgroup => {
                        let gname = &w.names.globals[g.index()];
                        let _ = writeln!(pre, "    threadgroup {} {gname};", w.ty(glob.ty));
                    }
                    AddressSpace::Private | AddressSpace::Function => {
                        let gname = &w.names.globals[g.index()];
                        let init = match &glob.init {
                            Some(c) => w.constant(c),
                            None => "{}".into(),
                        };
                        let _ = writeln!(pre, "    {} {gname} = {init};", w.ty(glob.ty));
                    }
                    _ => {
                        let attr = w.resource_attr(*g).map_err(|d| d.in_fn(e.name.clone()))?;
                        if let (Some(decl), Some(attr)) = (w.global_param(*g), attr) {
                            params.push(format!("{decl} {attr}"));
                        }
                    }
                }
            }
            if uses_sizes {
                params.push(format!(
                    "constant uint* _buffer_sizes [[buffer({})]]",
                    crate::SIZES_BUFFER_INDEX
                ));
            }
            let mut stage_in = Vec::new();
            let mut local_index: Option<String> = None;
            for p in &f.params {
                let pname = fw.b.namer.name(&p.name);
                let pty = f.ty(p.value);
                match &p.binding {
                    Some(IoBinding::BuiltIn(b)) => {
                        let attr = builtin_attr(*b, e.stage, false).ok_or_else(|| {
                            fw.unsupported(&format!("the builtin {b:?} as an input"), f.span)
                        })?;
                        if *b == naga::BuiltIn::LocalInvocationIndex {
                            local_index = Some(pname.clone());
                        }
                        params.push(format!("{} {pname} [[{attr}]]", w.ty(pty)));
                    }
                    Some(b @ IoBinding::Location { .. }) => {
                        stage_in.push(format!(
                            "    {} {pname} {};",
                            w.ty(pty),
                            location_attr(b, e.stage, false)
                        ));
                        let _ = writeln!(pre, "    const auto {pname} = _in.{pname};");
                    }
                    None => {
                        // A struct of I/O values: flatten its members, rebuild the struct.
                        let Type::Struct { members, .. } = w.m.types.get(pty) else {
                            return Err(
                                fw.unsupported("an entry parameter without a binding", f.span)
                            );
                        };
                        let mut parts = Vec::new();
                        for mem in members {
                            let mname = fw.b.namer.name(&format!("{}_{}", p.name, mem.name));
                            match &mem.binding {
                                Some(IoBinding::BuiltIn(b)) => {
                                    let attr =
                                        builtin_attr(*b, e.stage, false).ok_or_else(|| {
                                            fw.unsupported(
                                                &format!("the builtin {b:?} as an input"),
                                                f.span,
                                            )
                                        })?;
                                    if *b == naga::BuiltIn::LocalInvocationIndex {
                                        local_index = Some(mname.clone());
                                    }
                                    params.push(format!("{} {mname} [[{attr}]]", w.ty(mem.ty)));
                                    parts.push(mname);
                                }
                                Some(b) => {
                                    stage_in.push(format!(
                                        "    {} {mname} {};",
                                        w.ty(mem.ty),
                                        location_attr(b, e.stage, false)
                                    ));
                                    parts.push(format!("_in.{mname}"));
                                }
                                None => {
                                    return Err(
                                        fw.unsupported("a struct member without a binding", f.span)
                                    )
                                }
                            }
                        }
                        let _ = writeln!(
                            pre,
                            "    const {} {pname} = {{{}}};",
                            w.ty(pty),
                            parts.join(", ")
                        );
                    }
                }
                fw.b.params.insert(p.value, pname.clone());
                fw.b.names.insert(p.value, pname);
            }
            let mut structs = String::new();
            if !stage_in.is_empty() {
                let in_name = fw.b.namer.name(&format!("{name}_Input"));
                let _ = writeln!(structs, "struct {in_name} {{\n{}\n}};\n", stage_in.join("\n"));
                params.insert(0, format!("{in_name} _in [[stage_in]]"));
            }
            // Workgroup memory is zero in WGSL; Metal leaves it undefined.
            let wg_vars: Vec<&ir::GlobalId> = uses
                .iter()
                .filter(|g| w.m.globals[g.index()].space == AddressSpace::Workgroup)
                .collect();
            let li = match local_index {
                Some(l) => Some(l),
                None if !wg_vars.is_empty() || uses_stage => {
                    let l = fw.b.namer.name("_local_index");
                    params.push(format!("uint {l} [[thread_index_in_threadgroup]]"));
                    Some(l)
                }
                None => None,
            };
            if let (true, Some(li)) = (uses_stage, &li) {
                // One 64-element slot per simdgroup (Apple GPUs run simdgroups of 32
                // consecutive invocations), in floats: a half tile takes half of it.
                let [x, y, z] = e.workgroup_size;
                let groups = (x.max(1) * y.max(1) * z.max(1)).div_ceil(32);
                let _ = writeln!(pre, "    threadgroup float {STAGE}s[{}];", groups * 64);
                let _ = writeln!(
                    pre,
                    "    threadgroup float* {STAGE} = &{STAGE}s[({li} / 32u) * 64u];"
                );
                let _ = writeln!(pre, "    const uint {LANE} = {li} % 32u;");
            }
            if let (false, Some(li)) = (wg_vars.is_empty(), li) {
                let _ = writeln!(pre, "    if ({li} == 0u) {{");
                for g in wg_vars {
                    let glob = &w.m.globals[g.index()];
                    let gname = &w.names.globals[g.index()];
                    let _ = writeln!(pre, "        {gname} = {}{{}};", w.ty(glob.ty));
                }
                pre.push_str("    }\n    threadgroup_barrier(mem_flags::mem_threadgroup);\n");
            }
            let ret = match (&f.result, e.stage) {
                (None, _) => "void".to_string(),
                (Some(r), _) => {
                    let out_name = fw.b.namer.name(&format!("{name}_Output"));
                    let mut fields = Vec::new();
                    match (&r.binding, w.m.types.get(r.ty)) {
                        (Some(b), _) => fields.push(fw.out_field(b, r.ty, "value", e.stage)?),
                        (None, Type::Struct { members, .. }) => {
                            for mem in members {
                                let b = mem.binding.as_ref().ok_or_else(|| {
                                    fw.unsupported("an output member without a binding", f.span)
                                })?;
                                fields.push(fw.out_field(
                                    b,
                                    mem.ty,
                                    &escape(&mem.name),
                                    e.stage,
                                )?);
                            }
                        }
                        _ => {
                            return Err(fw.unsupported("an entry result without a binding", f.span))
                        }
                    }
                    let _ = writeln!(structs, "struct {out_name} {{\n{}\n}};\n", fields.join("\n"));
                    fw.out_struct = Some((out_name.clone(), r.ty));
                    out_name
                }
            };
            prologue = pre;
            let sig =
                format!("{structs}{} {ret} {name}({})", w.entry_attr(e), params.join(",\n    "));
            (None, sig)
        }
    };
    fw.b.out.push_str(&header);
    if let (Some(Ok(form)), Some(h), None) =
        (w.tile.as_ref().map(|p| &p.product), w.m.tile_helper(id), entry)
    {
        let params: Vec<String> =
            f.params.iter().filter_map(|p| fw.b.params.get(&p.value).cloned()).collect();
        let text = crate::tile::helper_body(w, form, h, &params).map_err(|why| {
            fw.unsupported(&format!("this workgroup-matrix call ({why})"), f.span)
        })?;
        fw.b.out.push_str(&text);
        return Ok((proto, fw.b.out));
    }
    fw.b.out.push_str(" {\n");
    fw.b.out.push_str(&prologue);
    fw.function_body()?;
    Ok((proto, fw.b.out))
}

impl FnWriter<'_> {
    /// A member of an entry point's output struct with its attribute.
    fn out_field(&self, b: &IoBinding, ty: TypeId, name: &str, stage: Stage) -> Res<String> {
        let attr = match b {
            IoBinding::BuiltIn(bi) => match builtin_attr(*bi, stage, true) {
                Some(a) => format!("[[{a}]]"),
                None => {
                    return Err(self
                        .unsupported(&format!("the builtin {bi:?} as an output"), self.b.f.span))
                }
            },
            loc => location_attr(loc, stage, true),
        };
        Ok(format!("    {} {name} {attr};", self.w.ty(ty)))
    }

    /// A helper function parameter; pointers are references (or pointers for runtime-sized
    /// arrays) in their address space.
    fn param_decl(&self, ty: TypeId, name: &str) -> String {
        match self.w.m.types.get(ty) {
            Type::Pointer { base, space } => {
                let inner = self.w.ty(*base);
                let q = match space {
                    AddressSpace::Workgroup => "threadgroup",
                    AddressSpace::Storage { writable: true } => "device",
                    AddressSpace::Storage { writable: false } => "const device",
                    AddressSpace::Uniform | AddressSpace::Immediate => "constant",
                    _ => "thread",
                };
                if matches!(self.w.m.types.get(*base), Type::Array { len: None, .. }) {
                    format!("{q} {inner}* {name}")
                } else {
                    format!("{q} {inner}& {name}")
                }
            }
            _ => format!("{} {name}", self.w.ty(ty)),
        }
    }
}
