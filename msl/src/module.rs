//! Module-level MSL output: header, helpers, structs, constants, resource plumbing, entry
//! point signatures.

use crate::layout::{plan_struct, MslMember};
use crate::types::{const_text, scalar_name, type_name};
use crate::{EntryInfo, MslOutput};
use dianran_frontend::ir::{
    self, AddressSpace, FuncId, GlobalId, IoBinding, Op, Stage, Type, TypeId,
};
use dianran_frontend::names::{escape, ModuleNames};
use dianran_frontend::{DiagKind, Diagnostic};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

/// The element count of a runtime-sized array at byte `offset` of the buffer at Metal index
/// `idx`, elements `stride` bytes apart: `arrayLength`, read from `_buffer_sizes`.
pub(crate) fn buffer_elements(idx: u32, offset: u32, stride: u32) -> String {
    format!("((_buffer_sizes[{idx}] - {offset}u) / {stride}u)")
}

pub(crate) struct Writer<'a> {
    pub m: &'a ir::Module,
    pub names: ModuleNames,
    /// Globals each function uses, directly or through calls.
    pub uses: Vec<BTreeSet<GlobalId>>,
    /// Functions that call `arrayLength` (directly or through calls).
    pub uses_sizes: Vec<bool>,
    /// Functions with a cooperative load or store under a bounds limit (directly or through
    /// calls): they take the simdgroup's staging slot and lane (`coop.rs`).
    pub uses_stage: Vec<bool>,
    /// (struct, member) pairs printed as packed vectors.
    pub packed: HashSet<(TypeId, u32)>,
    /// Helper templates the bodies asked for.
    pub helpers: std::cell::RefCell<BTreeSet<&'static str>>,
    /// f32 math through `metal::fast::` rather than `metal::precise::`.
    pub fast_math: bool,
    /// Workgroup matrices on Metal 4 (`tile.rs`); `None` prints their portable form.
    pub tile: Option<crate::tile::Plan>,
    /// Functions that call a workgroup-matrix helper, directly or through calls.
    pub reaches_tiles: Vec<bool>,
}

impl<'a> Writer<'a> {
    /// A printer for `m`, workgroup matrices printed as `tile` says (`None`: the portable
    /// form).
    pub fn new(m: &'a ir::Module, tile: Option<crate::tile::Plan>) -> Self {
        let names = ModuleNames::new(m);
        let n = m.functions.len();
        let mut uses = vec![BTreeSet::new(); n];
        let mut uses_sizes = vec![false; n];
        let mut uses_stage = vec![false; n];
        let mut calls: Vec<BTreeSet<FuncId>> = vec![BTreeSet::new(); n];
        for (i, f) in m.functions.iter().enumerate() {
            let mut needs = Needs::default();
            scan(&f.body, &mut uses[i], &mut calls[i], &mut needs);
            (uses_sizes[i], uses_stage[i]) = (needs.sizes, needs.stage);
            // The simdgroup form of workgroup matrices stages pieces (`tile.rs`).
            if matches!(tile.as_ref().map(|p| &p.product), Some(Ok(crate::tile::Form::Simdgroup)))
                && m.tile_helper(FuncId(i as u32)).is_some_and(|h| h.op != ir::TileOp::Fill)
            {
                uses_stage[i] = true;
            }
        }
        // Propagate through calls to a fixed point (WGSL has no recursion; bound anyway).
        for _ in 0..=n {
            let mut changed = false;
            for i in 0..n {
                for c in calls[i].clone() {
                    let (cu, cs, ct) = match (
                        uses.get(c.index()),
                        uses_sizes.get(c.index()),
                        uses_stage.get(c.index()),
                    ) {
                        (Some(u), Some(s), Some(t)) => (u.clone(), *s, *t),
                        _ => continue,
                    };
                    if ct && !uses_stage[i] {
                        uses_stage[i] = true;
                        changed = true;
                    }
                    let before = uses[i].len();
                    uses[i].extend(cu);
                    changed |= uses[i].len() != before;
                    if cs && !uses_sizes[i] {
                        uses_sizes[i] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut reaches_tiles: Vec<bool> =
            (0..n).map(|i| m.tile_helper(FuncId(i as u32)).is_some()).collect();
        for _ in 0..=n {
            let mut changed = false;
            for i in 0..n {
                if !reaches_tiles[i]
                    && calls[i].iter().any(|c| reaches_tiles.get(c.index()) == Some(&true))
                {
                    reaches_tiles[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut packed = HashSet::new();
        for (id, ty) in m.types.iter() {
            if let Type::Struct { members, size, .. } = ty {
                for item in plan_struct(&m.types, members, *size) {
                    if let MslMember::Field { index, packed: true } = item {
                        packed.insert((id, index as u32));
                    }
                }
            }
        }
        Writer {
            m,
            names,
            uses,
            uses_sizes,
            uses_stage,
            packed,
            helpers: Default::default(),
            fast_math: false,
            tile,
            reaches_tiles,
        }
    }

    pub fn struct_name(&self, t: TypeId) -> String {
        let n = self.names.struct_name(t);
        // `__` names are reserved in C++; predeclared result structs get a `dr` prefix.
        if n.starts_with("__") {
            let clean: String =
                n.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
            format!("dr{clean}")
        } else {
            n
        }
    }

    pub fn ty(&self, t: TypeId) -> String {
        type_name(&self.m.types, t, &|id| self.struct_name(id))
    }

    /// Whether `t` is the workgroup-matrix tile type printed natively (Metal 4's cooperative
    /// tensor or simdgroup matrices) rather than as the portable struct.
    pub fn is_native_tile(&self, t: TypeId) -> bool {
        self.tile.as_ref().is_some_and(|p| p.ty == t && p.product.is_ok())
    }

    pub fn constant(&self, c: &ir::ConstValue) -> String {
        // A tile constant is a fill (every slot the same value): the cooperative tensor has
        // no aggregate initializer.
        match c {
            ir::ConstValue::Zero(t) if self.is_native_tile(*t) => {
                return "_dr_wgm_splat(0.0f)".into()
            }
            ir::ConstValue::Composite(t, parts) if self.is_native_tile(*t) => {
                let first = match parts.first() {
                    Some(ir::ConstValue::Composite(_, e)) => e.first().cloned(),
                    Some(ir::ConstValue::Zero(_)) | None => None,
                    Some(v) => Some(v.clone()),
                };
                return match first {
                    Some(v) => format!("_dr_wgm_splat({})", self.constant(&v)),
                    None => "_dr_wgm_splat(0.0f)".into(),
                };
            }
            _ => {}
        }
        const_text(&self.m.types, c, &|id| self.struct_name(id))
    }

    pub fn write(self) -> MslOutput {
        let mut body = String::new();
        self.structs(&mut body);
        for (i, c) in self.m.constants.iter().enumerate() {
            // Metal has no `double`; the functions that use such a constant are left out.
            if crate::wide::holds(&self.m.types, c.ty, false, 0) {
                continue;
            }
            let name = self.names.constants.get(i).cloned().unwrap_or_default();
            let _ =
                writeln!(body, "constant {} {name} = {};", self.ty(c.ty), self.constant(&c.value));
        }
        if !self.m.constants.is_empty() {
            body.push('\n');
        }
        let entries: HashMap<FuncId, &ir::EntryPoint> =
            self.m.entry_points.iter().map(|e| (e.function, e)).collect();
        let mut errors = Vec::new();
        let mut infos = Vec::new();
        let mut failed_helpers = BTreeSet::new();
        let mut protos = String::new();
        let mut defs = String::new();
        for (i, f) in self.m.functions.iter().enumerate() {
            let id = FuncId(i as u32);
            let entry = entries.get(&id).copied();
            match crate::body::write_function(&self, id, f, entry) {
                Ok((proto, text)) => {
                    if let Some(p) = proto {
                        protos.push_str(&p);
                        protos.push_str(";\n");
                    }
                    defs.push('\n');
                    defs.push_str(&text);
                    if let Some(e) = entry {
                        infos.push(EntryInfo {
                            name: e.name.clone(),
                            msl_name: self.fn_name(id),
                            uses_sizes: self.uses_sizes.get(i).copied().unwrap_or(false),
                        });
                    }
                }
                Err(d) => {
                    if entry.is_none() {
                        failed_helpers.insert(id);
                    }
                    errors.push(*d);
                }
            }
        }
        let mut out = String::from("#include <metal_stdlib>\n");
        let simdgroup_tiles = matches!(
            self.tile.as_ref().map(|p| &p.product),
            Some(Ok(crate::tile::Form::Simdgroup))
        );
        if self.m.uses_cooperative_matrices() || simdgroup_tiles {
            out.push_str("#include <metal_simdgroup_matrix>\n");
        }
        let form = self.tile.as_ref().and_then(|p| p.product.as_ref().ok());
        let metal4 = matches!(form, Some(crate::tile::Form::Metal4(_)));
        if metal4 {
            out.push_str(crate::tile::HEADER);
        }
        out.push_str("using namespace metal;\n\n");
        for h in self.helpers.borrow().iter() {
            out.push_str(crate::helpers::helper_text(h));
            out.push('\n');
        }
        match form {
            Some(crate::tile::Form::Metal4(p)) => {
                out.push_str(&crate::tile::declarations(p, self.fast_math))
            }
            Some(crate::tile::Form::Simdgroup) => {
                out.push_str(&crate::tile::simdgroup_declarations())
            }
            None => {}
        }
        out.push_str(&body);
        if !protos.is_empty() {
            out.push_str(&protos);
        }
        out.push_str(&defs);
        let _ = failed_helpers;
        MslOutput { text: out, entries: infos, errors, metal4 }
    }

    pub fn fn_name(&self, id: FuncId) -> String {
        self.names.functions.get(id.index()).cloned().unwrap_or_else(|| format!("f{}", id.0))
    }

    fn structs(&self, out: &mut String) {
        for (id, ty) in self.m.types.iter() {
            let Type::Struct { members, size, align, .. } = ty else { continue };
            // On Metal 4 the tile is the product's cooperative tensor (`tile.rs`).
            if self.is_native_tile(id) {
                continue;
            }
            // Metal has no `double`: every function that touches this struct is left out with
            // a diagnostic, so the struct would only be a compile error.
            if crate::wide::holds(&self.m.types, id, false, 0) {
                continue;
            }
            // Structs that hold shader-stage I/O get their own in/out structs at the entry.
            let name = self.struct_name(id);
            let _ = writeln!(out, "struct alignas({align}) {name} {{");
            let mut pad = 0;
            for item in plan_struct(&self.m.types, members, *size) {
                match item {
                    MslMember::Pad(n) => {
                        let _ = writeln!(out, "    char _pad{pad}[{n}];");
                        pad += 1;
                    }
                    MslMember::Field { index, packed } => {
                        let Some(mem) = members.get(index) else { continue };
                        let mname = escape(&mem.name);
                        let decl = match self.m.types.get(mem.ty) {
                            Type::Vector { size: 3, scalar } if packed => {
                                format!("packed_{}3 {mname}", scalar_name(*scalar))
                            }
                            Type::Array { base, len: None, .. } => {
                                format!("{} {mname}[1]", self.ty(*base))
                            }
                            Type::Scalar(ir::Scalar::Bool) => format!("bool {mname}"),
                            _ => format!("{} {mname}", self.ty(mem.ty)),
                        };
                        let _ = writeln!(out, "    {decl};");
                    }
                }
            }
            out.push_str("};\n\n");
        }
    }

    /// The parameter declaration of global `g` in a helper function (without attribute).
    pub fn global_param(&self, g: GlobalId) -> Option<String> {
        let glob = self.m.globals.get(g.index())?;
        let name = self.names.globals.get(g.index())?;
        let ty = self.ty(glob.ty);
        let runtime = matches!(self.m.types.get(glob.ty), Type::Array { len: None, .. });
        Some(match glob.space {
            AddressSpace::Storage { writable } => {
                let c = if writable { "" } else { "const " };
                if runtime {
                    format!("{c}device {ty}* {name}")
                } else {
                    format!("{c}device {ty}& {name}")
                }
            }
            AddressSpace::Uniform | AddressSpace::Immediate => format!("constant {ty}& {name}"),
            AddressSpace::Workgroup => format!("threadgroup {ty}& {name}"),
            AddressSpace::Private | AddressSpace::Function => format!("thread {ty}& {name}"),
            AddressSpace::Handle => format!("{ty} {name}"),
        })
    }

    /// The Metal index of a bound resource, `group × 16 + binding`, or a diagnostic when it
    /// is beyond Metal's argument tables: buffers 0-30 (30 is `_buffer_sizes`, so 0-29 here),
    /// textures 0-127, samplers 0-15. `Ok(None)` for a global without a binding.
    pub fn metal_index(&self, g: GlobalId) -> Result<Option<(u32, &'static str)>, Box<Diagnostic>> {
        let Some(glob) = self.m.globals.get(g.index()) else { return Ok(None) };
        if glob.space == AddressSpace::Immediate {
            return Ok(Some((crate::IMMEDIATES_BUFFER_INDEX, "buffer")));
        }
        let Some(b) = glob.binding else { return Ok(None) };
        let has_immediates = self.m.globals.iter().any(|g| g.space == AddressSpace::Immediate);
        let (kind, limit) = match (glob.space, self.m.types.get(glob.ty)) {
            (AddressSpace::Handle, Type::Sampler { .. }) => ("sampler", 16),
            (AddressSpace::Handle, _) => ("texture", 128),
            _ if has_immediates => ("buffer", crate::IMMEDIATES_BUFFER_INDEX),
            _ => ("buffer", crate::SIZES_BUFFER_INDEX),
        };
        match b.group.checked_mul(16).and_then(|n| n.checked_add(b.binding)) {
            Some(n) if n < limit => Ok(Some((n, kind))),
            n => {
                let index = n.map_or_else(|| format!("above {}", u32::MAX), |n| n.to_string());
                Err(Box::new(
                    Diagnostic::error(
                        DiagKind::Limit,
                        format!(
                            "@group({}) @binding({}) would be Metal {kind} index {index}; Metal \
                             {kind} indices here are 0-{}",
                            b.group,
                            b.binding,
                            limit - 1
                        ),
                    )
                    .at(glob.span)
                    .help("the Metal index is group × 16 + binding: use small groups and bindings"),
                ))
            }
        }
    }

    /// The `[[buffer(n)]]`-style attribute of a resource global in a kernel signature.
    pub fn resource_attr(&self, g: GlobalId) -> Result<Option<String>, Box<Diagnostic>> {
        Ok(self.metal_index(g)?.map(|(n, kind)| format!("[[{kind}({n})]]")))
    }

    pub fn entry_attr(&self, e: &ir::EntryPoint) -> String {
        match e.stage {
            Stage::Compute => {
                let [x, y, z] = e.workgroup_size;
                format!("[[max_total_threads_per_threadgroup({})]] kernel", x * y * z)
            }
            Stage::Vertex => "vertex".into(),
            Stage::Fragment => {
                if e.early_depth_test {
                    "[[early_fragment_tests]] fragment".into()
                } else {
                    "fragment".into()
                }
            }
        }
    }
}

/// What [`scan`] records of a function besides its globals and calls.
#[derive(Default)]
struct Needs {
    /// It calls `arrayLength`.
    sizes: bool,
    /// It has a cooperative load or store under a bounds limit.
    stage: bool,
}

fn scan(
    b: &ir::Block,
    uses: &mut BTreeSet<GlobalId>,
    calls: &mut BTreeSet<FuncId>,
    needs: &mut Needs,
) {
    for inst in &b.insts {
        match &inst.op {
            Op::GlobalAddr(g) => {
                uses.insert(*g);
            }
            Op::Call(f, _) => {
                calls.insert(*f);
            }
            Op::ArrayLength(_) => needs.sizes = true,
            Op::CoopLoad { limit: Some(_), .. } | Op::CoopStore { limit: Some(_), .. } => {
                needs.stage = true;
            }
            _ => {}
        }
        for nested in inst.op.blocks() {
            scan(nested, uses, calls, needs);
        }
    }
}

/// The MSL attribute of a shader-stage builtin, or `None` when Metal has no such input.
pub(crate) fn builtin_attr(b: naga::BuiltIn, stage: Stage, output: bool) -> Option<&'static str> {
    use naga::BuiltIn as B;
    Some(match b {
        B::GlobalInvocationId => "thread_position_in_grid",
        B::LocalInvocationId => "thread_position_in_threadgroup",
        B::LocalInvocationIndex => "thread_index_in_threadgroup",
        B::WorkGroupId => "threadgroup_position_in_grid",
        B::NumWorkGroups => "threadgroups_per_grid",
        B::SubgroupInvocationId => "thread_index_in_simdgroup",
        B::SubgroupSize => "threads_per_simdgroup",
        B::SubgroupId => "simdgroup_index_in_threadgroup",
        B::NumSubgroups => "simdgroups_per_threadgroup",
        B::VertexIndex => "vertex_id",
        B::InstanceIndex => "instance_id",
        B::Position { .. } => "position",
        B::FrontFacing => "front_facing",
        B::SampleIndex => "sample_id",
        B::SampleMask if output || stage == Stage::Fragment => "sample_mask",
        B::FragDepth => "depth(any)",
        _ => return None,
    })
}

/// The MSL attribute of a `@location` I/O value.
pub(crate) fn location_attr(b: &IoBinding, stage: Stage, output: bool) -> String {
    let IoBinding::Location { location, interpolation, blend_src, .. } = b else {
        return String::new();
    };
    match (stage, output) {
        (Stage::Vertex, false) => format!("[[attribute({location})]]"),
        (Stage::Fragment, true) => match blend_src {
            Some(i) => format!("[[color({location}), index({i})]]"),
            None => format!("[[color({location})]]"),
        },
        _ => {
            let interp = match interpolation {
                Some(naga::Interpolation::Flat) => " [[flat]]",
                Some(naga::Interpolation::Linear) => " [[center_no_perspective]]",
                _ => "",
            };
            format!("[[user(loc{location})]]{interp}")
        }
    }
}
