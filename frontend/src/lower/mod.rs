//! Lowering of a validated naga module to the SSA IR in memory form.
//!
//! See `docs/architecture.md` ("The lowering's output") for the contract. The pieces:
//! `types` converts naga types, `consts` evaluates constant expressions, `func` sets a
//! function up (parameters, locals, the prologue of constants and addresses), `expr` and
//! `stmt` lower expressions and statements.

// `Diagnostic` is the error type the architecture fixes for every stage; errors are cold (one
// per function at most), so its size does not matter on the `Err` path.
#![allow(clippy::result_large_err)]

mod consts;
mod expr;
mod func;
mod stmt;
mod types;
mod wide_index;

#[cfg(test)]
mod tests;

use crate::ir::{self, FuncId};
use crate::{DiagKind, Diagnostic, Parsed};
use consts::Consts;
use types::TypeLowerer;

/// Module-wide state shared by the function lowerers.
struct ModCx<'m> {
    /// The naga module.
    pub module: &'m naga::Module,
    /// Type conversion and the IR type table.
    pub tl: TypeLowerer<'m>,
    /// Constant evaluation.
    pub consts: Consts<'m>,
    /// IR globals (naga's global handles index into it).
    pub globals: Vec<ir::Global>,
    /// Dawn's subgroup matrices: what the helper functions stand for.
    pub sgm: Option<&'m crate::ext::sgm::Rewrite>,
}

impl ModCx<'_> {
    /// The IR function of naga function `h` (regular functions come first, in naga order).
    pub fn func_id(h: naga::Handle<naga::Function>) -> FuncId {
        FuncId(h.index() as u32)
    }
}

/// Lowers `parsed` (see `docs/architecture.md` for the rules).
pub fn lower_module(parsed: &Parsed) -> Result<ir::Module, Vec<Diagnostic>> {
    let module = &parsed.module;
    let mut errors = Vec::new();
    let tl = TypeLowerer::new(module, &parsed.source, parsed.sgm.as_ref()).map_err(|d| vec![d])?;
    let sgm = parsed.sgm.as_ref();
    let mut cx = ModCx { module, tl, consts: Consts::new(module), globals: Vec::new(), sgm };

    let constants = lower_constants(&mut cx, &mut errors);
    lower_globals(&mut cx, &mut errors);

    let mut functions = Vec::new();
    for (h, fun) in module.functions.iter() {
        let name = fun.name.clone().unwrap_or_else(|| format!("function{}", h.index()));
        let span = module.functions.get_span(h).into();
        match func::lower_function(&mut cx, fun, &parsed.info[h], name, span) {
            Ok(f) => functions.push(f),
            Err(d) => errors.push(d),
        }
    }

    let mut entry_points = Vec::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        match lower_entry(&mut cx, parsed, i, ep, module.functions.len() + i) {
            Ok((e, f)) => {
                entry_points.push(e);
                functions.push(f);
            }
            Err(d) => errors.push(d),
        }
    }

    if !errors.is_empty() {
        return Err(errors);
    }
    let mut m = ir::Module {
        types: cx.tl.types,
        constants,
        globals: cx.globals,
        functions,
        entry_points,
        enables: parsed.enables,
        bounds_checked: false,
        warnings: Vec::new(),
        tiles: Vec::new(),
    };
    if let Some(sgm) = sgm {
        // The helpers stood in for builtins naga lacks; every call became an operation.
        drop_functions(&mut m, |f| sgm.stubs.contains_key(f.name.as_str()));
        m.tiles = tile_helpers(&m, &sgm.tile_helpers)?;
    }
    Ok(m)
}

/// The workgroup-matrix helpers of `m` with their arrays resolved to IR variables and member
/// indices (`specs` names them as the rewrite wrote them).
fn tile_helpers(
    m: &ir::Module,
    specs: &[(String, crate::ext::sgm::tile::TileSpec)],
) -> Result<Vec<ir::TileHelper>, Vec<Diagnostic>> {
    let internal = |what: String| {
        vec![Diagnostic::error(crate::DiagKind::Internal, what)
            .help("report this as a dianran bug together with the shader")]
    };
    let mut out = Vec::new();
    for (name, spec) in specs {
        let Some(i) = m.functions.iter().position(|f| &f.name == name) else {
            return Err(internal(format!("workgroup-matrix helper `{name}` was not lowered")));
        };
        let mut arrays = Vec::new();
        for (root, members, elem) in &spec.arrays {
            let Some(g) = m.globals.iter().position(|g| &g.name == root) else {
                return Err(internal(format!("array `{root}` of `{name}` was not lowered")));
            };
            let mut ty = m.globals[g].ty;
            let mut path = Vec::new();
            for mname in members {
                let ir::Type::Struct { members: ms, .. } = m.types.get(ty) else {
                    return Err(internal(format!("`{root}` has no member `{mname}`")));
                };
                let Some(k) = ms.iter().position(|x| &x.name == mname) else {
                    return Err(internal(format!("`{root}` has no member `{mname}`")));
                };
                path.push(k as u32);
                ty = ms[k].ty;
            }
            let elem = match elem {
                crate::ext::sgm::Num::F16 => ir::Scalar::F16,
                _ => ir::Scalar::F32,
            };
            arrays.push(ir::TileArray { global: ir::GlobalId(g as u32), members: path, elem });
        }
        out.push(ir::TileHelper {
            function: FuncId(i as u32),
            op: spec.op,
            k: spec.k,
            arrays,
            row_major: spec.row_major.clone(),
        });
    }
    Ok(out)
}

/// Removes the functions `gone` selects, which nothing may call, renumbering the rest.
fn drop_functions(m: &mut ir::Module, gone: impl Fn(&ir::Function) -> bool) {
    let mut new_id = Vec::with_capacity(m.functions.len());
    let mut next = 0u32;
    for f in &m.functions {
        new_id.push((!gone(f)).then(|| {
            next += 1;
            FuncId(next - 1)
        }));
    }
    if next as usize == m.functions.len() {
        return;
    }
    fn remap(b: &mut ir::Block, new_id: &[Option<FuncId>]) {
        for inst in &mut b.insts {
            if let ir::Op::Call(f, _) | ir::Op::Inline { callee: f, .. } = &mut inst.op {
                // A removed callee keeps its stale id; the verifier reports it.
                *f = new_id.get(f.index()).copied().flatten().unwrap_or(*f);
            }
            for nb in inst.op.blocks_mut() {
                remap(nb, new_id);
            }
        }
    }
    let old = std::mem::take(&mut m.functions);
    m.functions =
        old.into_iter().zip(&new_id).filter(|(_, id)| id.is_some()).map(|(f, _)| f).collect();
    for f in &mut m.functions {
        remap(&mut f.body, &new_id);
    }
    for e in &mut m.entry_points {
        e.function = new_id.get(e.function.index()).copied().flatten().unwrap_or(e.function);
    }
}

/// Named module constants with concrete types (abstract ones are inlined by naga).
fn lower_constants(cx: &mut ModCx, errors: &mut Vec<Diagnostic>) -> Vec<ir::Constant> {
    let mut out = Vec::new();
    for (h, c) in cx.module.constants.iter() {
        if types::is_abstract(cx.module, c.ty) {
            continue;
        }
        let span: ir::Span = cx.module.constants.get_span(h).into();
        let res = cx.tl.handle(c.ty).and_then(|ty| Ok((ty, cx.consts.constant(&mut cx.tl, h)?)));
        match res {
            Ok((ty, value)) => out.push(ir::Constant {
                name: c.name.clone().unwrap_or_else(|| format!("const{}", h.index())),
                ty,
                value,
            }),
            Err(d) => errors.push(if d.span.is_none() { d.at(span) } else { d }),
        }
    }
    out
}

/// Module-scope variables, in naga order (so naga's global handles index `cx.globals`).
fn lower_globals(cx: &mut ModCx, errors: &mut Vec<Diagnostic>) {
    for (h, g) in cx.module.global_variables.iter() {
        let span: ir::Span = cx.module.global_variables.get_span(h).into();
        let name = g.name.clone().unwrap_or_else(|| format!("global{}", h.index()));
        let res = (|| {
            let space = types::space(g.space)?;
            let ty = cx.tl.handle(g.ty)?;
            let init = match g.init {
                Some(e) => {
                    Some(cx.consts.eval(&mut cx.tl, &cx.module.global_expressions, e)?.ok_or_else(
                        || {
                            Diagnostic::error(
                                DiagKind::Internal,
                                "global initializer is not a constant",
                            )
                            .help("report this as a dianran bug together with the shader")
                        },
                    )?)
                }
                None => None,
            };
            Ok::<_, Diagnostic>(ir::Global {
                name: name.clone(),
                space,
                ty,
                binding: g
                    .binding
                    .map(|b| ir::ResourceBinding { group: b.group, binding: b.binding }),
                init,
                span,
            })
        })();
        match res {
            Ok(global) => cx.globals.push(global),
            Err(d) => {
                errors.push(if d.span.is_none() { d.at(span) } else { d });
                // Keep handles aligned so later diagnostics still name the right globals.
                let ty = cx.tl.intern(ir::Type::Scalar(ir::Scalar::U32));
                cx.globals.push(ir::Global {
                    name,
                    space: ir::AddressSpace::Private,
                    ty,
                    binding: None,
                    init: None,
                    span,
                });
            }
        }
    }
}

/// Lowers entry point `i`: its function (which becomes function `func_index`) and its table
/// entry.
fn lower_entry<'m>(
    cx: &mut ModCx<'m>,
    parsed: &'m Parsed,
    i: usize,
    ep: &'m naga::EntryPoint,
    func_index: usize,
) -> Result<(ir::EntryPoint, ir::Function), Diagnostic> {
    let span = func::body_span(&ep.function);
    let stage = match ep.stage {
        naga::ShaderStage::Compute => ir::Stage::Compute,
        naga::ShaderStage::Vertex => ir::Stage::Vertex,
        naga::ShaderStage::Fragment => ir::Stage::Fragment,
        naga::ShaderStage::Task | naga::ShaderStage::Mesh => {
            return Err(Diagnostic::error(
                DiagKind::Unsupported,
                "task and mesh shaders are not supported",
            )
            .at(span)
            .in_fn(&ep.name)
            .help("use a compute shader that writes the geometry to a storage buffer"))
        }
        naga::ShaderStage::RayGeneration
        | naga::ShaderStage::Miss
        | naga::ShaderStage::AnyHit
        | naga::ShaderStage::ClosestHit => {
            return Err(Diagnostic::error(
                DiagKind::Unsupported,
                "ray tracing shaders are not supported",
            )
            .at(span)
            .in_fn(&ep.name)
            .help("dianran supports compute, vertex and fragment shaders"))
        }
    };
    let workgroup_size = if stage == ir::Stage::Compute {
        if ep.workgroup_size.contains(&0) {
            return Err(Diagnostic::error(
                DiagKind::Override,
                "the workgroup size depends on an override without a value",
            )
            .at(span)
            .in_fn(&ep.name)
            .help("give the override a value with `--override NAME=VALUE`"));
        }
        ep.workgroup_size
    } else {
        [0; 3]
    };
    let info = parsed.info.get_entry_point(i);
    let function = func::lower_function(cx, &ep.function, info, ep.name.clone(), span)?;
    let entry = ir::EntryPoint {
        name: ep.name.clone(),
        stage,
        workgroup_size,
        early_depth_test: ep.early_depth_test.is_some(),
        function: FuncId(func_index as u32),
    };
    Ok((entry, function))
}
