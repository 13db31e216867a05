//! Module-level output: enables, structs, constants, globals, function headers.

use crate::types::{const_text, type_name, MatrixSpelling};
use crate::Options;
use dianran_frontend::ext::sgm::tile;
use dianran_frontend::ir::{self, FuncId, IoBinding, Stage, Type, TypeId};
use dianran_frontend::names::{escape, ModuleNames};
use dianran_frontend::Diagnostic;
use naga::common::wgsl::{ToWgsl, TryToWgsl};
use std::collections::HashMap;
use std::fmt::Write;

pub(crate) struct Writer<'a> {
    pub m: &'a ir::Module,
    pub opts: Options,
    pub names: ModuleNames,
}

impl<'a> Writer<'a> {
    pub fn new(m: &'a ir::Module, opts: Options) -> Self {
        Writer { m, opts, names: ModuleNames::new(m) }
    }

    /// How this output spells cooperative matrices.
    pub fn matrices(&self) -> MatrixSpelling {
        MatrixSpelling::printing(self.m, self.opts.portable_matrices)
    }

    pub fn ty(&self, t: TypeId) -> String {
        type_name(&self.m.types, t, &|id| self.struct_name(id), self.matrices())
    }

    pub fn constant(&self, c: &ir::ConstValue) -> String {
        const_text(&self.m.types, c, &|id| self.struct_name(id), self.matrices())
    }

    /// A struct's printed name; the workgroup-matrix tile is the extension's type.
    fn struct_name(&self, id: TypeId) -> String {
        if self.is_tile(id) {
            return tile::TYPE_WGSL.to_string();
        }
        self.names.struct_name(id)
    }

    /// Whether workgroup matrices print in the extension's own syntax: the module has them
    /// and the portable form was not asked for (`docs/workgroup-matrix.md`).
    pub fn tiles(&self) -> bool {
        !self.opts.portable_matrices && !self.m.tiles.is_empty()
    }

    /// Whether `id` is the extension layer's tile struct, printed as the extension's type.
    pub fn is_tile(&self, id: TypeId) -> bool {
        self.tiles()
            && matches!(self.m.types.get(id), Type::Struct { name, .. } if name == tile::TILE)
    }

    /// Whether global `g` is the extension layer's invocation index (not printed).
    pub fn is_tile_lid(&self, g: ir::GlobalId) -> bool {
        self.tiles() && self.m.globals.get(g.index()).is_some_and(|x| x.name == tile::LID)
    }

    pub fn write(self) -> Result<String, Vec<Diagnostic>> {
        let mut out = String::new();
        self.enables(&mut out);
        self.structs(&mut out);
        for (i, c) in self.m.constants.iter().enumerate() {
            let name = &self.names.constants[i];
            let _ = writeln!(out, "const {name}: {} = {};", self.ty(c.ty), self.constant(&c.value));
        }
        if !self.m.constants.is_empty() {
            out.push('\n');
        }
        self.globals(&mut out);
        let entries: HashMap<FuncId, &ir::EntryPoint> =
            self.m.entry_points.iter().map(|e| (e.function, e)).collect();
        let mut errors = Vec::new();
        for (i, f) in self.m.functions.iter().enumerate() {
            let id = FuncId(i as u32);
            // The helpers print as the builtins they stand for.
            if self.tiles() && self.m.tile_helper(id).is_some() {
                continue;
            }
            match crate::expr::write_function(&self, id, f, entries.get(&id).copied()) {
                Ok(text) => {
                    out.push('\n');
                    out.push_str(&text);
                }
                Err(d) => errors.push(*d),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }

    fn enables(&self, out: &mut String) {
        let mut f16 = self.m.enables.f16;
        let mut coop = self.m.enables.cooperative_matrix;
        for (_, ty) in self.m.types.iter() {
            match ty {
                Type::Scalar(ir::Scalar::F16)
                | Type::Vector { scalar: ir::Scalar::F16, .. }
                | Type::Matrix { scalar: ir::Scalar::F16, .. } => f16 = true,
                Type::CoopMatrix { elem, .. } => {
                    coop = true;
                    f16 |= *elem == ir::CoopElem::F16;
                }
                _ => {}
            }
        }
        let subgroups = self.m.enables.subgroups || self.m.uses_subgroups();
        let mut any = false;
        if f16 {
            out.push_str("enable f16;\n");
            any = true;
        }
        if subgroups && !self.opts.omit_subgroups_enable {
            out.push_str("enable subgroups;\n");
            any = true;
        }
        let extension = match self.matrices() {
            MatrixSpelling::Naga => Some("wgpu_cooperative_matrix"),
            MatrixSpelling::Dawn => Some("chromium_experimental_subgroup_matrix"),
            // Plain arrays and loops: no extension.
            MatrixSpelling::Portable => None,
        };
        if let Some(e) = extension.filter(|_| coop) {
            let _ = writeln!(out, "enable {e};");
            any = true;
        }
        if self.tiles() {
            out.push_str("enable dianran_workgroup_matrix;\n");
            any = true;
        }
        // Dawn's uniformity rule for its matrices, as the source set it (dianran does not run
        // that analysis, so printed Dawn WGSL keeps what Dawn would accept).
        let severity = self.m.enables.subgroup_matrix_uniformity;
        if let Some(sev) = severity.filter(|_| self.matrices() == MatrixSpelling::Dawn && coop) {
            let _ = writeln!(out, "diagnostic({sev}, chromium.subgroup_matrix_uniformity);");
            any = true;
        }
        if any {
            out.push('\n');
        }
    }

    /// The struct types the printed text names: those of constants, globals, parameters,
    /// results, locals and every value an instruction defines, and the structs inside them.
    /// A struct the source only used in expressions the passes folded away (`S().l`) is not
    /// printed: the printed text would not use it, and reading it back would drop it.
    fn used_structs(&self) -> std::collections::HashSet<TypeId> {
        fn consts(c: &ir::ConstValue, out: &mut Vec<TypeId>) {
            match c {
                ir::ConstValue::Zero(t) => out.push(*t),
                ir::ConstValue::Composite(t, parts) => {
                    out.push(*t);
                    parts.iter().for_each(|p| consts(p, out));
                }
                _ => {}
            }
        }
        fn block(f: &ir::Function, b: &ir::Block, out: &mut Vec<TypeId>) {
            out.extend(b.params.iter().map(|&v| f.ty(v)));
            for i in &b.insts {
                out.extend(i.result.iter().map(|&v| f.ty(v)));
                out.extend(i.op.region_results().iter().map(|&v| f.ty(v)));
                if let ir::Op::Const(c) = &i.op {
                    consts(c, out);
                }
                for nb in i.op.blocks() {
                    block(f, nb, out);
                }
            }
        }
        let mut stack: Vec<TypeId> = Vec::new();
        for c in &self.m.constants {
            stack.push(c.ty);
            consts(&c.value, &mut stack);
        }
        stack.extend(self.m.globals.iter().map(|g| g.ty));
        for f in &self.m.functions {
            stack.extend(f.params.iter().map(|p| f.ty(p.value)));
            stack.extend(f.result.iter().map(|r| r.ty));
            stack.extend(f.locals.iter().map(|l| l.ty));
            block(f, &f.body, &mut stack);
        }
        let mut seen = std::collections::HashSet::new();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            match self.m.types.get(t) {
                Type::Struct { members, .. } => stack.extend(members.iter().map(|m| m.ty)),
                Type::Array { base, .. } | Type::Pointer { base, .. } => stack.push(*base),
                _ => {}
            }
        }
        seen
    }

    fn structs(&self, out: &mut String) {
        let used = self.used_structs();
        for (id, ty) in self.m.types.iter() {
            let Type::Struct { members, size, align, .. } = ty else { continue };
            let name = self.names.struct_name(id);
            if name.starts_with("__") || !used.contains(&id) || self.is_tile(id) {
                continue;
            }
            if self.matrices() == MatrixSpelling::Portable && self.holds_matrix(id) {
                // Matrices are not host-shareable, so the struct's layout is nobody's
                // contract, and an 8-bit matrix's array is wider than the recorded size.
                let _ = writeln!(out, "struct {name} {{");
                for mem in members {
                    let _ = writeln!(out, "    {}: {},", escape(&mem.name), self.ty(mem.ty));
                }
                out.push_str("}\n\n");
                continue;
            }
            let _ = writeln!(out, "struct {name} {{");
            // Reproduce the recorded layout: raise the struct's alignment on the first member
            // and pad members with @size where the natural layout would pack tighter.
            let mut natural_align = 1;
            for mem in members {
                natural_align = natural_align.max(self.m.types.size_align(mem.ty).1);
            }
            for (i, mem) in members.iter().enumerate() {
                let mut attrs = String::new();
                if let Some(b) = &mem.binding {
                    attrs.push_str(&binding_text(b));
                    attrs.push(' ');
                }
                if i == 0 && *align > natural_align {
                    let _ = write!(attrs, "@align({align}) ");
                }
                let (msize, _) = self.m.types.size_align(mem.ty);
                let next = match members.get(i + 1) {
                    Some(n) => {
                        let na = self.m.types.size_align(n.ty).1;
                        let natural_next = round_up(mem.offset + msize, na);
                        (n.offset > natural_next).then_some(n.offset)
                    }
                    None => {
                        let natural_size = round_up(mem.offset + msize, *align);
                        (*size > natural_size).then_some(*size)
                    }
                };
                let is_runtime = matches!(self.m.types.get(mem.ty), Type::Array { len: None, .. });
                if let (Some(end), false) = (next, is_runtime) {
                    let _ = write!(attrs, "@size({}) ", end - mem.offset);
                }
                let _ = writeln!(out, "    {attrs}{}: {},", escape(&mem.name), self.ty(mem.ty));
            }
            out.push_str("}\n\n");
        }
    }

    /// Whether type `t` is or contains a cooperative matrix.
    fn holds_matrix(&self, t: TypeId) -> bool {
        match self.m.types.get(t) {
            Type::CoopMatrix { .. } => true,
            Type::Array { base, .. } => self.holds_matrix(*base),
            Type::Struct { members, .. } => members.iter().any(|m| self.holds_matrix(m.ty)),
            _ => false,
        }
    }

    fn globals(&self, out: &mut String) {
        for (i, g) in self.m.globals.iter().enumerate() {
            if self.is_tile_lid(ir::GlobalId(i as u32)) {
                continue;
            }
            let name = &self.names.globals[i];
            if let Some(b) = g.binding {
                let _ = write!(out, "@group({}) @binding({}) ", b.group, b.binding);
            }
            let space = match g.space {
                ir::AddressSpace::Storage { writable: true } => "<storage, read_write>",
                ir::AddressSpace::Storage { writable: false } => "<storage, read>",
                ir::AddressSpace::Uniform => "<uniform>",
                ir::AddressSpace::Workgroup => "<workgroup>",
                ir::AddressSpace::Private => "<private>",
                ir::AddressSpace::Function => "<function>",
                ir::AddressSpace::Handle => "",
                ir::AddressSpace::Immediate => "<immediate>",
            };
            let _ = write!(out, "var{space} {name}: {}", self.ty(g.ty));
            if let Some(init) = &g.init {
                let _ = write!(out, " = {}", self.constant(init));
            }
            out.push_str(";\n");
        }
        if !self.m.globals.is_empty() {
            out.push('\n');
        }
    }

    /// Attributes before `fn`.
    pub fn entry_attrs(&self, e: &ir::EntryPoint) -> String {
        match e.stage {
            Stage::Compute => {
                let [x, y, z] = e.workgroup_size;
                format!("@compute @workgroup_size({x}, {y}, {z})\n")
            }
            Stage::Vertex => "@vertex\n".into(),
            Stage::Fragment if e.early_depth_test => "@fragment @early_depth_test\n".into(),
            Stage::Fragment => "@fragment\n".into(),
        }
    }
}

fn round_up(x: u32, a: u32) -> u32 {
    if a == 0 {
        x
    } else {
        x.div_ceil(a) * a
    }
}

/// `@builtin(...)` / `@location(...) @interpolate(...)` text.
pub(crate) fn binding_text(b: &IoBinding) -> String {
    match b {
        IoBinding::BuiltIn(bi) => match bi.try_to_wgsl() {
            Some(s) => format!("@builtin({s})"),
            None => format!("@builtin({bi:?})"),
        },
        IoBinding::Location { location, interpolation, sampling, blend_src } => {
            let mut s = format!("@location({location})");
            if let Some(b) = blend_src {
                let _ = write!(s, " @blend_src({b})");
            }
            // naga fills in the default (perspective, center); printing it would put
            // `@interpolate` on vertex inputs and fragment outputs, where WGSL forbids it.
            let default = matches!(interpolation, Some(naga::Interpolation::Perspective))
                && matches!(sampling, None | Some(naga::Sampling::Center));
            if let (Some(i), false) = (interpolation, default) {
                let _ = write!(s, " @interpolate({}", i.to_wgsl());
                match sampling {
                    Some(sa) if *sa != naga::Sampling::Center => {
                        let _ = write!(s, ", {}", sa.to_wgsl());
                    }
                    _ => {}
                }
                s.push(')');
            }
            s
        }
    }
}
