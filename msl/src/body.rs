//! MSL function signatures and bodies.
//!
//! Control flow: `if`/`switch` map directly (every `case` ends with `break;` because C++
//! cases fall through). A WGSL `loop` with a `continuing` block becomes
//! `bool loop_init = true; while (true) { if (!loop_init) { continuing; if (cond) break; }
//! loop_init = false; body }`, so a `continue` in the body runs the continuing block first.
//! Values are `auto` constants, region results are variables declared before the region, and
//! loop-carried state is one variable per carried value, as in the WGSL printer.

use crate::module::{builtin_attr, location_attr, Writer};
use crate::types::scalar_name;
use crate::unsupported;
use dianran_frontend::ir::{
    self, AddressSpace, Block, CollectiveOperation, FuncId, Function, GatherMode, Inst, IoBinding,
    Op, SampleLevel, Scalar, Stage, SubgroupOperation, Terminator, Type, TypeId, ValueId,
};
use dianran_frontend::names::escape;
use dianran_frontend::printer::{is_trivial, Body, Ctx, Target};
use dianran_frontend::Diagnostic;
use std::fmt::Write;

type Res<T> = Result<T, Box<Diagnostic>>;

struct FnWriter<'a, 'w> {
    w: &'w Writer<'a>,
    fname: String,
    b: Body<'a>,
    out_struct: Option<(String, TypeId)>,
    loop_counter: u32,
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// Returns (prototype for helper functions, full text).
pub(crate) fn write_function(
    w: &Writer<'_>,
    id: FuncId,
    f: &Function,
    entry: Option<&ir::EntryPoint>,
) -> Res<(Option<String>, String)> {
    let mut fw = FnWriter {
        w,
        fname: f.name.clone(),
        b: Body::new(f, w.names.namer.clone()),
        out_struct: None,
        loop_counter: 0,
    };
    let name = w.fn_name(id);
    let uses: Vec<ir::GlobalId> =
        w.uses.get(id.index()).map(|s| s.iter().copied().collect()).unwrap_or_default();
    let uses_sizes = w.uses_sizes.get(id.index()).copied().unwrap_or(false);
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
                        if let (Some(decl), Some(attr)) = (w.global_param(*g), w.resource_attr(*g))
                        {
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
                            fw.err(&format!("the builtin {b:?} as an input"), f.span)
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
                            return Err(fw.err("an entry parameter without a binding", f.span));
                        };
                        let mut parts = Vec::new();
                        for mem in members {
                            let mname = fw.b.namer.name(&format!("{}_{}", p.name, mem.name));
                            match &mem.binding {
                                Some(IoBinding::BuiltIn(b)) => {
                                    let attr =
                                        builtin_attr(*b, e.stage, false).ok_or_else(|| {
                                            fw.err(
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
                                    return Err(fw.err("a struct member without a binding", f.span))
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
            if !wg_vars.is_empty() {
                let li = match local_index {
                    Some(l) => l,
                    None => {
                        let l = fw.b.namer.name("_local_index");
                        params.push(format!("uint {l} [[thread_index_in_threadgroup]]"));
                        l
                    }
                };
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
                                    fw.err("an output member without a binding", f.span)
                                })?;
                                fields.push(fw.out_field(
                                    b,
                                    mem.ty,
                                    &escape(&mem.name),
                                    e.stage,
                                )?);
                            }
                        }
                        _ => return Err(fw.err("an entry result without a binding", f.span)),
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
    fw.b.out.push_str(" {\n");
    fw.b.out.push_str(&prologue);
    for l in &f.locals {
        let lname = fw.b.namer.name(&l.name);
        let _ = writeln!(fw.b.out, "    {} {lname} = {{}};", w.ty(l.ty));
        fw.b.locals.push(lname);
    }
    fw.block(&f.body, 1, &Ctx::Body)?;
    fw.b.out.push_str("}\n");
    Ok((proto, fw.b.out))
}

impl FnWriter<'_, '_> {
    fn err(&self, what: &str, span: ir::Span) -> Box<Diagnostic> {
        Box::new(unsupported(what, span, &self.fname))
    }

    fn out_field(&self, b: &IoBinding, ty: TypeId, name: &str, stage: Stage) -> Res<String> {
        let attr = match b {
            IoBinding::BuiltIn(bi) => match builtin_attr(*bi, stage, true) {
                Some(a) => format!("[[{a}]]"),
                None => {
                    return Err(self.err(&format!("the builtin {bi:?} as an output"), self.b.f.span))
                }
            },
            loc => location_attr(loc, stage, true),
        };
        Ok(format!("    {} {name} {attr};", self.w.ty(ty)))
    }

    fn param_decl(&self, ty: TypeId, name: &str) -> String {
        match self.w.m.types.get(ty) {
            Type::Pointer { base, space } => {
                let inner = self.w.ty(*base);
                let q = match space {
                    AddressSpace::Workgroup => "threadgroup",
                    AddressSpace::Storage { writable: true } => "device",
                    AddressSpace::Storage { writable: false } => "const device",
                    AddressSpace::Uniform => "constant",
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

    fn is_pointer(&self, v: ValueId) -> bool {
        self.b.pointer(&self.w.m.types, v).is_some()
    }

    fn pointee(&self, v: ValueId) -> Option<TypeId> {
        self.b.pointer(&self.w.m.types, v).map(|(base, _)| base)
    }

    fn val(&self, v: ValueId) -> String {
        match self.b.defs.get(&v) {
            Some(Op::Const(c)) => return self.w.constant(c),
            Some(Op::GlobalAddr(g)) if !self.is_pointer(v) => {
                return self.w.names.globals.get(g.index()).cloned().unwrap_or_default()
            }
            _ => {}
        }
        if self.is_pointer(v) && !self.b.params.contains_key(&v) {
            return self.place(v);
        }
        self.b.names.get(&v).cloned().unwrap_or_else(|| format!("v{}", v.0))
    }

    fn vals(&self, vs: &[ValueId]) -> String {
        vs.iter().map(|v| self.val(*v)).collect::<Vec<_>>().join(", ")
    }

    /// The lvalue a pointer denotes.
    fn place(&self, p: ValueId) -> String {
        if let Some(name) = self.b.params.get(&p) {
            return name.clone();
        }
        match self.b.defs.get(&p) {
            Some(Op::GlobalAddr(g)) => {
                self.w.names.globals.get(g.index()).cloned().unwrap_or_default()
            }
            Some(Op::LocalAddr(l)) => self.b.locals.get(l.index()).cloned().unwrap_or_default(),
            Some(Op::AccessIndex(base, i)) => {
                let b = self.place(*base);
                let bt = self.pointee(*base);
                match bt.map(|t| (t, self.w.m.types.get(t))) {
                    Some((_, Type::Struct { members, .. })) => {
                        let name = members.get(*i as usize).map_or("?", |m| m.name.as_str());
                        format!("{b}.{}", escape(name))
                    }
                    Some((_, Type::Vector { .. })) if self.is_packed_place(*base) => {
                        format!("{b}[{i}]")
                    }
                    Some((_, Type::Vector { .. })) => {
                        format!("{b}.{}", LANES[(*i as usize).min(3)])
                    }
                    _ => format!("{b}[{i}]"),
                }
            }
            Some(Op::Access(base, i)) => format!("{}[{}]", self.place(*base), self.val(*i)),
            _ => self.b.names.get(&p).cloned().unwrap_or_default(),
        }
    }

    /// Whether pointer `p` denotes a struct member printed as a packed vector.
    fn is_packed_place(&self, p: ValueId) -> bool {
        if let Some(Op::AccessIndex(base, i)) = self.b.defs.get(&p) {
            if let Some(t) = self.pointee(*base) {
                return self.w.packed.contains(&(t, *i));
            }
        }
        false
    }

    /// Assigns the printed `args` to `targets` (see [`Body::assign`]).
    fn assign(&mut self, depth: usize, targets: &[String], args: &[ValueId]) {
        let values: Vec<String> = args.iter().map(|a| self.val(*a)).collect();
        self.b.assign(depth, targets, &values);
    }

    fn block(&mut self, b: &Block, depth: usize, ctx: &Ctx) -> Res<()> {
        for inst in &b.insts {
            self.inst(inst, depth)?;
        }
        self.terminator(&b.term, depth, ctx)
    }

    fn terminator(&mut self, t: &Terminator, depth: usize, ctx: &Ctx) -> Res<()> {
        match t {
            Terminator::Unreachable => {}
            Terminator::Yield(args) => match ctx {
                Ctx::Arm(r) | Ctx::Loop(r) => {
                    let r = r.clone();
                    self.assign(depth, &r, args)
                }
                Ctx::Body => {}
            },
            Terminator::Break(args) => {
                let vars = self.b.break_vars();
                self.assign(depth, &vars, args);
                self.b.line(depth, "break;");
            }
            Terminator::Continue(args) => {
                let vars = self.b.continue_vars();
                self.assign(depth, &vars, args);
                self.b.line(depth, "continue;");
            }
            Terminator::Return(Some(v)) => {
                let text = match &self.out_struct {
                    Some((name, ty)) => match self.w.m.types.get(*ty) {
                        Type::Struct { members, .. }
                            if self.b.f.result.as_ref().is_some_and(|r| r.binding.is_none()) =>
                        {
                            let val = self.val(*v);
                            let parts: Vec<String> = members
                                .iter()
                                .map(|m| format!("{val}.{}", escape(&m.name)))
                                .collect();
                            format!("return {name}{{{}}};", parts.join(", "))
                        }
                        _ => format!("return {name}{{{}}};", self.val(*v)),
                    },
                    None => format!("return {};", self.val(*v)),
                };
                self.b.line(depth, &text);
            }
            Terminator::Return(None) => {
                if depth != 1 {
                    self.b.line(depth, "return;");
                }
            }
            Terminator::Discard => self.b.line(depth, "discard_fragment();"),
        }
        Ok(())
    }

    fn declare_vars(&mut self, depth: usize, results: &[ValueId]) -> Vec<String> {
        let mut names = Vec::new();
        for r in results {
            let name = self.b.new_name(*r);
            let text = format!("{} {name};", self.w.ty(self.b.ty(*r)));
            self.b.line(depth, &text);
            names.push(name);
        }
        names
    }

    fn pointee_is_atomic(&self, p: ValueId) -> bool {
        self.pointee(p).is_some_and(|t| matches!(self.w.m.types.get(t), Type::Atomic(_)))
    }

    fn helper(&self, name: &'static str) {
        self.w.helpers.borrow_mut().insert(name);
    }

    fn inst(&mut self, inst: &Inst, depth: usize) -> Res<()> {
        let span = inst.span;
        match &inst.op {
            Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::Access(..) | Op::AccessIndex(..)
                if inst.result.is_some_and(|r| self.is_pointer(r)) =>
            {
                return Ok(())
            }
            Op::GlobalAddr(_) | Op::Const(_) => return Ok(()),
            Op::Store { ptr, value } => {
                let text = if self.pointee_is_atomic(*ptr) {
                    format!(
                        "atomic_store_explicit(&{}, {}, memory_order_relaxed);",
                        self.place(*ptr),
                        self.val(*value)
                    )
                } else {
                    format!("{} = {};", self.place(*ptr), self.val(*value))
                };
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::Barrier(flags) => {
                if flags.contains(naga::Barrier::WORK_GROUP) {
                    self.b.line(depth, "threadgroup_barrier(mem_flags::mem_threadgroup);");
                }
                if flags.contains(naga::Barrier::STORAGE) {
                    self.b.line(depth, "threadgroup_barrier(mem_flags::mem_device);");
                }
                if flags.contains(naga::Barrier::SUB_GROUP) {
                    self.b.line(depth, "simdgroup_barrier(mem_flags::mem_threadgroup);");
                }
                if flags.contains(naga::Barrier::TEXTURE) {
                    self.b.line(depth, "threadgroup_barrier(mem_flags::mem_texture);");
                }
                return Ok(());
            }
            Op::ImageStore { image, coordinate, array_index, value } => {
                let mut args = vec![self.val(*value), self.coord(*coordinate)];
                if let Some(a) = array_index {
                    args.push(format!("uint({})", self.val(*a)));
                }
                let text = format!("{}.write({});", self.val(*image), args.join(", "));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::CoopLoad { ptr, stride, row_major } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let (tiles, _) = self.coop_shape(self.b.ty(r), span)?;
                let ty = self.w.ty(self.b.ty(r));
                self.b.line(depth, &format!("{ty} {name};"));
                let (base, s) = (format!("&{}", self.place(*ptr)), self.val(*stride));
                for (i, j, off) in coop_tiles(tiles, *row_major, &s) {
                    let dst = if tiles == 1 { name.clone() } else { format!("{name}.t[{i}][{j}]") };
                    let text = format!(
                        "simdgroup_load({dst}, {base} + {off}, ulong({s}), ulong2(0), {});",
                        !row_major
                    );
                    self.b.line(depth, &text);
                }
                return Ok(());
            }
            Op::CoopStore { value, ptr, stride, row_major } => {
                let (tiles, _) = self.coop_shape(self.b.ty(*value), span)?;
                let (m, base, s) =
                    (self.val(*value), format!("&{}", self.place(*ptr)), self.val(*stride));
                for (i, j, off) in coop_tiles(tiles, *row_major, &s) {
                    let src = if tiles == 1 { m.clone() } else { format!("{m}.t[{i}][{j}]") };
                    let text = format!(
                        "simdgroup_store({src}, {base} + {off}, ulong({s}), ulong2(0), {});",
                        !row_major
                    );
                    self.b.line(depth, &text);
                }
                return Ok(());
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let (tiles, _) = self.coop_shape(self.b.ty(r), span)?;
                let ty = self.w.ty(self.b.ty(r));
                self.b.line(depth, &format!("{ty} {name};"));
                let (a, b, c) = (self.val(*a), self.val(*b), self.val(*c));
                if tiles == 1 {
                    self.b.line(
                        depth,
                        &format!("simdgroup_multiply_accumulate({name}, {a}, {b}, {c});"),
                    );
                } else {
                    // D(i,j) = A(i,0)·B(0,j) + C(i,j), then += A(i,1)·B(1,j).
                    for i in 0..2 {
                        for j in 0..2 {
                            self.b.line(depth, &format!(
                                "simdgroup_multiply_accumulate({name}.t[{i}][{j}], {a}.t[{i}][0], {b}.t[0][{j}], {c}.t[{i}][{j}]);"
                            ));
                            self.b.line(depth, &format!(
                                "simdgroup_multiply_accumulate({name}.t[{i}][{j}], {a}.t[{i}][1], {b}.t[1][{j}], {name}.t[{i}][{j}]);"
                            ));
                        }
                    }
                }
                return Ok(());
            }
            Op::WorkgroupUniformLoad(p) => {
                self.b.line(depth, "threadgroup_barrier(mem_flags::mem_threadgroup);");
                if let Some(r) = inst.result {
                    let name = self.b.new_name(r);
                    let text = format!("const auto {name} = {};", self.place(*p));
                    self.b.line(depth, &text);
                }
                self.b.line(depth, "threadgroup_barrier(mem_flags::mem_threadgroup);");
                return Ok(());
            }
            Op::AtomicCompareExchange { ptr, compare, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let old = format!("{name}_old");
                let text = format!("auto {old} = {};", self.val(*compare));
                self.b.line(depth, &text);
                let text = format!(
                    "bool {name}_ok = atomic_compare_exchange_weak_explicit(&{}, &{old}, {}, memory_order_relaxed, memory_order_relaxed);",
                    self.place(*ptr),
                    self.val(*value)
                );
                self.b.line(depth, &text);
                let text =
                    format!("const {} {name} = {{{old}, {name}_ok}};", self.w.ty(self.b.ty(r)));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::Insert { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let member = self.member_text(self.b.ty(*base), *index);
                let text = format!("auto {name} = {};", self.val(*base));
                self.b.line(depth, &text);
                let text = format!("{name}{member} = {};", self.val(*value));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::InsertDyn { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let text = format!("auto {name} = {};", self.val(*base));
                self.b.line(depth, &text);
                let text = format!("{name}[{}] = {};", self.val(*index), self.val(*value));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::If { cond, then_, else_, results } => {
                let vars = self.declare_vars(depth, results);
                let ctx = Ctx::Arm(vars);
                if is_trivial(then_) && !is_trivial(else_) {
                    let text = format!("if (!({})) {{", self.val(*cond));
                    self.b.line(depth, &text);
                    self.block(else_, depth + 1, &ctx)?;
                    self.b.line(depth, "}");
                    return Ok(());
                }
                let text = format!("if ({}) {{", self.val(*cond));
                self.b.line(depth, &text);
                self.block(then_, depth + 1, &ctx)?;
                if !is_trivial(else_) {
                    self.b.line(depth, "} else {");
                    self.block(else_, depth + 1, &ctx)?;
                }
                self.b.line(depth, "}");
                return Ok(());
            }
            Op::Switch { selector, cases, results } => {
                let vars = self.declare_vars(depth, results);
                let unsigned = self.w.m.types.scalar_of(self.b.ty(*selector)) == Some(Scalar::U32);
                let text = format!("switch ({}) {{", self.val(*selector));
                self.b.line(depth, &text);
                self.b.targets.push(Target::Switch(vars.clone()));
                let ctx = Ctx::Arm(vars);
                for case in cases {
                    for v in &case.values {
                        let t = if unsigned { format!("case {v}u:") } else { format!("case {v}:") };
                        self.b.line(depth + 1, &t);
                    }
                    if case.default {
                        self.b.line(depth + 1, "default:");
                    }
                    self.b.line(depth + 1, "{");
                    self.block(&case.body, depth + 2, &ctx)?;
                    self.b.line(depth + 2, "break;");
                    self.b.line(depth + 1, "}");
                }
                self.b.targets.pop();
                self.b.line(depth, "}");
                return Ok(());
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let mut state = Vec::new();
                for (i, v) in init.iter().enumerate() {
                    let hint = body.params.get(i).copied().unwrap_or(*v);
                    let name = self.b.new_name(hint);
                    let text = format!("{} {name} = {};", self.w.ty(self.b.ty(*v)), self.val(*v));
                    self.b.line(depth, &text);
                    state.push(name);
                }
                for (r, s) in results.iter().zip(&state) {
                    self.b.names.insert(*r, s.clone());
                }
                let has_continuing = !continuing.insts.is_empty()
                    || break_if.is_some()
                    || !continuing.params.is_empty();
                let ctx = Ctx::Loop(state.clone());
                let init_flag = format!("loop_init_{}", self.loop_counter);
                self.loop_counter += 1;
                if has_continuing {
                    self.b.line(depth, &format!("bool {init_flag} = true;"));
                }
                self.b.line(depth, "while (true) {");
                self.b.targets.push(Target::Loop(state.clone()));
                if has_continuing {
                    self.b.line(depth + 1, &format!("if (!{init_flag}) {{"));
                    for (p, s) in continuing.params.iter().zip(&state) {
                        let name = self.b.new_name(*p);
                        self.b.line(depth + 2, &format!("const auto {name} = {s};"));
                        self.b.copy_of.insert(name, s.clone());
                    }
                    self.block(continuing, depth + 2, &ctx)?;
                    if let Some(b) = break_if {
                        let text = format!("if ({}) {{ break; }}", self.val(*b));
                        self.b.line(depth + 2, &text);
                    }
                    self.b.line(depth + 1, "}");
                    self.b.line(depth + 1, &format!("{init_flag} = false;"));
                }
                for (p, s) in body.params.iter().zip(&state) {
                    let name = self.b.new_name(*p);
                    self.b.line(depth + 1, &format!("const auto {name} = {s};"));
                    self.b.copy_of.insert(name, s.clone());
                }
                self.block(body, depth + 1, &ctx)?;
                self.b.targets.pop();
                self.b.line(depth, "}");
                return Ok(());
            }
            Op::Inline { .. } => return Err(self.err("inlined call regions", span)),
            _ => {}
        }
        let expr = self.expr(&inst.op, inst.result, span)?;
        match inst.result {
            Some(r) => {
                let name = self.b.new_name(r);
                self.b.line(depth, &format!("const auto {name} = {expr};"));
            }
            None => self.b.line(depth, &format!("{expr};")),
        }
        Ok(())
    }

    /// Number of 8×8 tiles per side (1 or 2) and the scalar of a cooperative matrix type.
    fn coop_shape(&self, t: TypeId, span: ir::Span) -> Res<(usize, Scalar)> {
        match self.w.m.types.get(t) {
            Type::CoopMatrix { columns: 8, rows: 8, scalar, .. } => Ok((1, *scalar)),
            Type::CoopMatrix { columns: 16, rows: 16, scalar, .. } => {
                self.helper(if *scalar == Scalar::F16 {
                    "dr_coop16_half"
                } else {
                    "dr_coop16_float"
                });
                Ok((2, *scalar))
            }
            _ => Err(self.err("a cooperative matrix of this shape (Metal has 8x8 tiles)", span)),
        }
    }

    fn member_text(&self, t: TypeId, index: u32) -> String {
        match self.w.m.types.get(t) {
            Type::Struct { members, .. } => {
                let name = members.get(index as usize).map_or("?", |m| m.name.as_str());
                format!(".{}", escape(name))
            }
            Type::Vector { .. } => format!(".{}", LANES[(index as usize).min(3)]),
            _ => format!("[{index}]"),
        }
    }

    fn coord(&self, c: ValueId) -> String {
        match self.w.m.types.get(self.b.ty(c)) {
            Type::Vector { size, .. } => format!("uint{size}({})", self.val(c)),
            _ => format!("uint({})", self.val(c)),
        }
    }

    fn shape(&self, v: ValueId) -> (Option<Scalar>, Option<u8>) {
        match self.w.m.types.get(self.b.ty(v)) {
            Type::Scalar(s) => (Some(*s), None),
            Type::Vector { size, scalar } => (Some(*scalar), Some(*size)),
            _ => (None, None),
        }
    }

    fn shaped(s: Scalar, size: Option<u8>) -> String {
        match size {
            Some(n) => format!("{}{}", scalar_name(s), n),
            None => scalar_name(s).to_string(),
        }
    }

    fn expr(&self, op: &Op, result: Option<ValueId>, span: ir::Span) -> Res<String> {
        let types = &self.w.m.types;
        let v = |x: &ValueId| self.val(*x);
        let rty =
            || result.map(|r| self.b.ty(r)).ok_or_else(|| self.err("a value without a type", span));
        Ok(match op {
            Op::Unary(o, a) => match o {
                naga::UnaryOperator::Negate => format!("(-{})", v(a)),
                naga::UnaryOperator::LogicalNot => format!("(!{})", v(a)),
                naga::UnaryOperator::BitwiseNot => format!("(~{})", v(a)),
            },
            Op::Binary(o, a, b) => self.binary(*o, *a, *b, rty()?)?,
            Op::Select { cond, accept, reject } => {
                if matches!(types.get(self.b.ty(*cond)), Type::Vector { .. }) {
                    format!("select({}, {}, {})", v(reject), v(accept), v(cond))
                } else {
                    format!("({} ? {} : {})", v(cond), v(accept), v(reject))
                }
            }
            Op::Compose(parts) => {
                let t = rty()?;
                match types.get(t) {
                    Type::Struct { .. } | Type::Array { .. } => {
                        format!("{}{{{}}}", self.w.ty(t), self.vals(parts))
                    }
                    _ => format!("{}({})", self.w.ty(t), self.vals(parts)),
                }
            }
            Op::Splat(a) => format!("{}({})", self.w.ty(rty()?), v(a)),
            Op::Extract(a, i) => {
                let t = self.b.ty(*a);
                let text = format!("{}{}", v(a), self.member_text(t, *i));
                if self.w.packed.contains(&(t, *i)) {
                    format!("{}({text})", self.w.ty(rty()?))
                } else {
                    text
                }
            }
            Op::ExtractDyn(a, i) => format!("{}[{}]", v(a), v(i)),
            Op::Swizzle(a, pat) => {
                let s: String = pat.iter().map(|&i| LANES[(i as usize).min(3)]).collect();
                format!("{}.{s}", v(a))
            }
            Op::Convert(a, to) => {
                let (from, size) = self.shape(*a);
                let target = Self::shaped(*to, size);
                match (from, to) {
                    (Some(f), Scalar::I32 | Scalar::U32) if f.is_float() => {
                        // WGSL float->int conversion saturates; Metal's is undefined out of range.
                        let ft = Self::shaped(f, size);
                        let (lo, hi) = if *to == Scalar::I32 {
                            ("-2147483648.0", "2147483520.0")
                        } else {
                            ("0.0", "4294967040.0")
                        };
                        format!("{target}(clamp({}, {ft}({lo}), {ft}({hi})))", v(a))
                    }
                    _ => format!("{target}({})", v(a)),
                }
            }
            Op::Bitcast(a) => format!("as_type<{}>({})", self.w.ty(rty()?), v(a)),
            Op::Math(fun, args) => self.math(*fun, args, span)?,
            Op::Relational(fun, a) => {
                let f = match fun {
                    naga::RelationalFunction::All => "all",
                    naga::RelationalFunction::Any => "any",
                    naga::RelationalFunction::IsNan => "isnan",
                    naga::RelationalFunction::IsInf => "isinf",
                };
                format!("{f}({})", v(a))
            }
            Op::Derivative(axis, _, a) => {
                let f = match axis {
                    naga::DerivativeAxis::X => "dfdx",
                    naga::DerivativeAxis::Y => "dfdy",
                    naga::DerivativeAxis::Width => "fwidth",
                };
                format!("{f}({})", v(a))
            }
            Op::Load(p) => {
                if self.pointee_is_atomic(*p) {
                    format!("atomic_load_explicit(&{}, memory_order_relaxed)", self.place(*p))
                } else if self.is_packed_place(*p) {
                    format!("{}({})", self.w.ty(rty()?), self.place(*p))
                } else {
                    self.place(*p)
                }
            }
            Op::Atomic { ptr, op, value } => {
                let f = match op {
                    ir::AtomicOp::Add => "atomic_fetch_add_explicit",
                    ir::AtomicOp::Sub => "atomic_fetch_sub_explicit",
                    ir::AtomicOp::And => "atomic_fetch_and_explicit",
                    ir::AtomicOp::Or => "atomic_fetch_or_explicit",
                    ir::AtomicOp::Xor => "atomic_fetch_xor_explicit",
                    ir::AtomicOp::Min => "atomic_fetch_min_explicit",
                    ir::AtomicOp::Max => "atomic_fetch_max_explicit",
                    ir::AtomicOp::Exchange => "atomic_exchange_explicit",
                };
                format!("{f}(&{}, {}, memory_order_relaxed)", self.place(*ptr), v(value))
            }
            Op::ArrayLength(p) => self.array_length(*p, span)?,
            Op::SubgroupBallot(pred) => {
                let p = pred.map_or("true".to_string(), |p| v(&p));
                self.helper("dr_ballot");
                format!("dr_ballot({p})")
            }
            Op::SubgroupCollective { op, kind, arg } => {
                let f = subgroup_name(*op, *kind)
                    .ok_or_else(|| self.err(&format!("subgroup {kind:?} {op:?}"), span))?;
                format!("{f}({})", v(arg))
            }
            Op::SubgroupGather { mode, arg, index } => {
                let i = index.map(|i| format!("ushort({})", v(&i)));
                match mode {
                    GatherMode::BroadcastFirst => format!("simd_broadcast_first({})", v(arg)),
                    GatherMode::Broadcast => {
                        format!("simd_broadcast({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::Shuffle => {
                        format!("simd_shuffle({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::ShuffleDown => {
                        format!("simd_shuffle_down({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::ShuffleUp => {
                        format!("simd_shuffle_up({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::ShuffleXor => {
                        format!("simd_shuffle_xor({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::QuadBroadcast => {
                        format!("quad_broadcast({}, {})", v(arg), i.unwrap_or_default())
                    }
                    GatherMode::QuadSwap(d) => {
                        let m = match d {
                            naga::Direction::X => 1,
                            naga::Direction::Y => 2,
                            naga::Direction::Diagonal => 3,
                        };
                        format!("quad_shuffle_xor({}, ushort({m}))", v(arg))
                    }
                }
            }
            Op::ImageSample {
                image,
                sampler,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                gather,
            } => {
                let mut args = vec![v(sampler), v(coordinate)];
                if let Some(a) = array_index {
                    args.push(format!("uint({})", v(a)));
                }
                if let Some(d) = depth_ref {
                    args.push(v(d));
                }
                if let Some(c) = gather {
                    if let Some(o) = offset {
                        args.push(v(o));
                    }
                    if depth_ref.is_none() {
                        args.push(format!("component::{}", LANES[(*c as usize).min(3)]));
                    }
                    let f = if depth_ref.is_some() { "gather_compare" } else { "gather" };
                    return Ok(format!("{}.{f}({})", v(image), args.join(", ")));
                }
                match level {
                    SampleLevel::Auto => {}
                    SampleLevel::Zero => args.push("level(0)".into()),
                    SampleLevel::Exact(l) => args.push(format!("level({})", v(l))),
                    SampleLevel::Bias(b) => args.push(format!("bias({})", v(b))),
                    SampleLevel::Gradient { x, y } => {
                        args.push(format!("gradient2d({}, {})", v(x), v(y)))
                    }
                }
                if let Some(o) = offset {
                    args.push(v(o));
                }
                let f = if depth_ref.is_some() { "sample_compare" } else { "sample" };
                format!("{}.{f}({})", v(image), args.join(", "))
            }
            Op::ImageLoad { image, coordinate, array_index, sample, level } => {
                let mut args = vec![self.coord(*coordinate)];
                for x in [array_index, sample, level].into_iter().flatten() {
                    args.push(format!("uint({})", v(x)));
                }
                format!("{}.read({})", v(image), args.join(", "))
            }
            Op::ImageQuery(img, q) => {
                let dim = match types.get(self.b.ty(*img)) {
                    Type::Image { dim, .. } => *dim,
                    _ => naga::ImageDimension::D2,
                };
                match q {
                    ir::ImageQuery::Size { level } => {
                        let l = level.map_or("0".to_string(), |l| format!("uint({})", v(&l)));
                        let i = v(img);
                        match dim {
                            naga::ImageDimension::D1 => format!("{i}.get_width()"),
                            naga::ImageDimension::D3 => format!(
                                "uint3({i}.get_width({l}), {i}.get_height({l}), {i}.get_depth({l}))"
                            ),
                            _ => format!("uint2({i}.get_width({l}), {i}.get_height({l}))"),
                        }
                    }
                    ir::ImageQuery::NumLevels => format!("{}.get_num_mip_levels()", v(img)),
                    ir::ImageQuery::NumLayers => format!("{}.get_array_size()", v(img)),
                    ir::ImageQuery::NumSamples => format!("{}.get_num_samples()", v(img)),
                }
            }
            Op::Call(fid, args) => {
                let mut all: Vec<String> = args.iter().map(|a| self.val(*a)).collect();
                if let Some(uses) = self.w.uses.get(fid.index()) {
                    for g in uses {
                        all.push(self.w.names.globals.get(g.index()).cloned().unwrap_or_default());
                    }
                }
                if self.w.uses_sizes.get(fid.index()).copied().unwrap_or(false) {
                    all.push("_buffer_sizes".into());
                }
                format!("{}({})", self.w.fn_name(*fid), all.join(", "))
            }
            Op::Const(c) => self.w.constant(c),
            other => return Err(self.err(&format!("{other:?}"), span)),
        })
    }

    fn binary(&self, o: naga::BinaryOperator, a: ValueId, b: ValueId, rty: TypeId) -> Res<String> {
        use naga::BinaryOperator as B;
        let (sa, size) = self.shape(a);
        let (x, y) = (self.val(a), self.val(b));
        let int = sa.is_some_and(|s| s.is_int());
        Ok(match o {
            B::Divide if int => {
                self.helper(if sa == Some(Scalar::I32) { "dr_sdiv" } else { "dr_udiv" });
                let f = if sa == Some(Scalar::I32) { "dr_sdiv" } else { "dr_udiv" };
                format!("{f}({x}, {y})")
            }
            B::Modulo if int => {
                let f = if sa == Some(Scalar::I32) { "dr_srem" } else { "dr_urem" };
                self.helper(f);
                format!("{f}({x}, {y})")
            }
            B::Modulo => format!("fmod({x}, {y})"),
            B::ShiftLeft | B::ShiftRight => {
                let mask = match size {
                    Some(n) => format!("uint{n}(31u)"),
                    None => "31u".into(),
                };
                let sym = if o == B::ShiftLeft { "<<" } else { ">>" };
                format!("({x} {sym} ({y} & {mask}))")
            }
            B::And | B::InclusiveOr | B::ExclusiveOr if sa == Some(Scalar::Bool) => {
                let sym = match o {
                    B::And => "&",
                    B::InclusiveOr => "|",
                    _ => "^",
                };
                format!("{}({x} {sym} {y})", self.w.ty(rty))
            }
            _ => {
                let sym = match o {
                    B::Add => "+",
                    B::Subtract => "-",
                    B::Multiply => "*",
                    B::Divide => "/",
                    B::Equal => "==",
                    B::NotEqual => "!=",
                    B::Less => "<",
                    B::LessEqual => "<=",
                    B::Greater => ">",
                    B::GreaterEqual => ">=",
                    B::And => "&",
                    B::ExclusiveOr => "^",
                    B::InclusiveOr => "|",
                    B::LogicalAnd => "&&",
                    B::LogicalOr => "||",
                    _ => "?",
                };
                format!("({x} {sym} {y})")
            }
        })
    }

    fn math(&self, fun: naga::MathFunction, args: &[ValueId], span: ir::Span) -> Res<String> {
        use naga::MathFunction as M;
        let a = self.vals(args);
        let first = args.first().map(|x| self.val(*x)).unwrap_or_default();
        let plain = |name: &str| format!("{name}({a})");
        Ok(match fun {
            M::Abs => plain("abs"),
            M::Min => plain("min"),
            M::Max => plain("max"),
            M::Clamp => plain("clamp"),
            M::Saturate => plain("saturate"),
            M::Cos => plain("cos"),
            M::Cosh => plain("cosh"),
            M::Sin => plain("sin"),
            M::Sinh => plain("sinh"),
            M::Tan => plain("tan"),
            M::Tanh => plain("tanh"),
            M::Acos => plain("acos"),
            M::Asin => plain("asin"),
            M::Atan => plain("atan"),
            M::Atan2 => plain("atan2"),
            M::Asinh => plain("asinh"),
            M::Acosh => plain("acosh"),
            M::Atanh => plain("atanh"),
            M::Radians => format!("({first} * 0.017453292519943295)"),
            M::Degrees => format!("({first} * 57.29577951308232)"),
            M::Ceil => plain("ceil"),
            M::Floor => plain("floor"),
            // WGSL rounds half to even, like `rint`; Metal's `round` rounds half away from zero.
            M::Round => plain("rint"),
            M::Fract => format!("({first} - floor({first}))"),
            M::Trunc => plain("trunc"),
            M::Ldexp => plain("ldexp"),
            M::Exp => plain("exp"),
            M::Exp2 => plain("exp2"),
            M::Log => plain("log"),
            M::Log2 => plain("log2"),
            M::Pow => plain("pow"),
            M::Dot => plain("dot"),
            M::Cross => plain("cross"),
            M::Distance => plain("distance"),
            M::Length => plain("length"),
            M::Normalize => plain("normalize"),
            M::FaceForward => plain("faceforward"),
            M::Reflect => plain("reflect"),
            M::Refract => plain("refract"),
            M::Sign => plain("sign"),
            M::Fma => plain("fma"),
            M::Mix => plain("mix"),
            M::Step => plain("step"),
            M::SmoothStep => plain("smoothstep"),
            M::Sqrt => plain("sqrt"),
            M::InverseSqrt => plain("rsqrt"),
            M::Transpose => plain("transpose"),
            M::Determinant => plain("determinant"),
            M::QuantizeToF16 => {
                let (_, size) = args.first().map(|x| self.shape(*x)).unwrap_or((None, None));
                let h = Self::shaped(Scalar::F16, size);
                let f = Self::shaped(Scalar::F32, size);
                format!("{f}({h}({first}))")
            }
            M::CountTrailingZeros => plain("ctz"),
            M::CountLeadingZeros => plain("clz"),
            M::CountOneBits => plain("popcount"),
            M::ReverseBits => plain("reverse_bits"),
            M::ExtractBits => {
                self.helper("dr_extract_bits");
                plain("dr_extract_bits")
            }
            M::InsertBits => {
                self.helper("dr_insert_bits");
                plain("dr_insert_bits")
            }
            M::FirstTrailingBit => {
                self.helper("dr_first_trailing_bit");
                plain("dr_first_trailing_bit")
            }
            M::FirstLeadingBit => {
                self.helper("dr_first_leading_bit");
                plain("dr_first_leading_bit")
            }
            M::Pack4x8snorm => plain("pack_float_to_snorm4x8"),
            M::Pack4x8unorm => plain("pack_float_to_unorm4x8"),
            M::Pack2x16snorm => plain("pack_float_to_snorm2x16"),
            M::Pack2x16unorm => plain("pack_float_to_unorm2x16"),
            M::Pack2x16float => format!("as_type<uint>(half2({first}))"),
            M::Unpack4x8snorm => plain("unpack_snorm4x8_to_float"),
            M::Unpack4x8unorm => plain("unpack_unorm4x8_to_float"),
            M::Unpack2x16snorm => plain("unpack_snorm2x16_to_float"),
            M::Unpack2x16unorm => plain("unpack_unorm2x16_to_float"),
            M::Unpack2x16float => format!("float2(as_type<half2>({first}))"),
            M::Pack4xI8 => format!("as_type<uint>(char4({first}))"),
            M::Pack4xU8 => format!("as_type<uint>(uchar4({first}))"),
            M::Pack4xI8Clamp => format!("as_type<uint>(char4(clamp({first}, -128, 127)))"),
            M::Pack4xU8Clamp => format!("as_type<uint>(uchar4(min({first}, 255u)))"),
            M::Unpack4xI8 => format!("int4(as_type<char4>({first}))"),
            M::Unpack4xU8 => format!("uint4(as_type<uchar4>({first}))"),
            M::Dot4I8Packed => {
                let b = args.get(1).map(|x| self.val(*x)).unwrap_or_default();
                format!("dot(int4(as_type<char4>({first})), int4(as_type<char4>({b})))")
            }
            M::Dot4U8Packed => {
                let b = args.get(1).map(|x| self.val(*x)).unwrap_or_default();
                format!("dot(uint4(as_type<uchar4>({first})), uint4(as_type<uchar4>({b})))")
            }
            other => return Err(self.err(&format!("the math function {other:?}"), span)),
        })
    }

    /// `arrayLength(&buf.data)`: (byte size of the buffer - offset of the array) / stride.
    fn array_length(&self, p: ValueId, span: ir::Span) -> Res<String> {
        let (g, offset) = match self.b.defs.get(&p) {
            Some(Op::GlobalAddr(g)) => (*g, 0),
            Some(Op::AccessIndex(base, i)) => match self.b.defs.get(base) {
                Some(Op::GlobalAddr(g)) => {
                    let off = match self.pointee(*base).map(|t| self.w.m.types.get(t)) {
                        Some(Type::Struct { members, .. }) => {
                            members.get(*i as usize).map_or(0, |m| m.offset)
                        }
                        _ => 0,
                    };
                    (*g, off)
                }
                _ => return Err(self.err("arrayLength of a pointer that is not a buffer", span)),
            },
            _ => return Err(self.err("arrayLength of a pointer parameter", span)),
        };
        let stride = match self.pointee(p).map(|t| self.w.m.types.get(t)) {
            Some(Type::Array { stride, .. }) => *stride,
            _ => return Err(self.err("arrayLength of a non-array", span)),
        };
        let b = self
            .w
            .m
            .globals
            .get(g.index())
            .and_then(|g| g.binding)
            .ok_or_else(|| self.err("arrayLength of an unbound variable", span))?;
        let idx = b.group * 16 + b.binding;
        Ok(format!("((_buffer_sizes[{idx}] - {offset}u) / {stride}u)"))
    }
}

/// The 8×8 tiles of a `tiles`×`tiles` grid with the element offset of each tile's first
/// element: row-major memory puts tile (i, j) at `8i·stride + 8j`, column-major at
/// `8j·stride + 8i` (and is loaded transposed).
fn coop_tiles(tiles: usize, row_major: bool, stride: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for i in 0..tiles {
        for j in 0..tiles {
            let (major, minor) = if row_major { (i, j) } else { (j, i) };
            out.push((i, j, format!("({}u * {stride} + {}u)", 8 * major, 8 * minor)));
        }
    }
    out
}

fn subgroup_name(op: SubgroupOperation, kind: CollectiveOperation) -> Option<&'static str> {
    use CollectiveOperation as K;
    use SubgroupOperation as S;
    Some(match (kind, op) {
        (K::Reduce, S::All) => "simd_all",
        (K::Reduce, S::Any) => "simd_any",
        (K::Reduce, S::Add) => "simd_sum",
        (K::Reduce, S::Mul) => "simd_product",
        (K::Reduce, S::Min) => "simd_min",
        (K::Reduce, S::Max) => "simd_max",
        (K::Reduce, S::And) => "simd_and",
        (K::Reduce, S::Or) => "simd_or",
        (K::Reduce, S::Xor) => "simd_xor",
        (K::InclusiveScan, S::Add) => "simd_prefix_inclusive_sum",
        (K::InclusiveScan, S::Mul) => "simd_prefix_inclusive_product",
        (K::ExclusiveScan, S::Add) => "simd_prefix_exclusive_sum",
        (K::ExclusiveScan, S::Mul) => "simd_prefix_exclusive_product",
        _ => return None,
    })
}

/// The text of a helper template (emitted once, before the structs).
pub(crate) fn helper_text(name: &str) -> &'static str {
    match name {
        "dr_sdiv" => "// WGSL integer division: x / 0 == x and INT_MIN / -1 == INT_MIN.\ntemplate <typename T> T dr_sdiv(T a, T b) {\n    auto bad = (b == T(0)) | ((a == T(-2147483647 - 1)) & (b == T(-1)));\n    return select(a / select(b, T(1), bad), a, bad);\n}\n",
        "dr_udiv" => "template <typename T> T dr_udiv(T a, T b) {\n    return select(a / select(b, T(1u), b == T(0u)), a, b == T(0u));\n}\n",
        "dr_srem" => "// WGSL integer remainder: x % 0 == 0 and INT_MIN % -1 == 0.\ntemplate <typename T> T dr_srem(T a, T b) {\n    auto bad = (b == T(0)) | ((a == T(-2147483647 - 1)) & (b == T(-1)));\n    return select(a % select(b, T(1), bad), T(0), bad);\n}\n",
        "dr_urem" => "template <typename T> T dr_urem(T a, T b) {\n    return select(a % select(b, T(1u), b == T(0u)), T(0u), b == T(0u));\n}\n",
        "dr_extract_bits" => "// WGSL clamps offset and count to the bit width.\ntemplate <typename T> T dr_extract_bits(T e, uint offset, uint count) {\n    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n    return c == 0u ? T(0) : extract_bits(e, o, c);\n}\n",
        "dr_insert_bits" => "template <typename T> T dr_insert_bits(T e, T n, uint offset, uint count) {\n    uint o = min(offset, 32u);\n    uint c = min(count, 32u - o);\n    return c == 0u ? e : insert_bits(e, n, o, c);\n}\n",
        "dr_first_trailing_bit" => "template <typename T> T dr_first_trailing_bit(T x) {\n    return select(T(ctz(x)), T(-1), x == T(0));\n}\n",
        "dr_first_leading_bit" => "template <typename T> T dr_first_leading_bit(T x) {\n    // Signed inputs look for the first bit that differs from the sign bit.\n    T y = select(x, ~x, x < T(0));\n    return select(T(31) - T(clz(y)), T(-1), y == T(0));\n}\n",
        "dr_ballot" => "inline uint4 dr_ballot(bool p) {\n    ulong bits = static_cast<ulong>(static_cast<simd_vote::vote_t>(simd_ballot(p)));\n    return uint4(uint(bits), uint(bits >> 32), 0u, 0u);\n}\n",
        "dr_coop16_half" => "// A 16x16 cooperative matrix as 2x2 tiles of Metal's 8x8 simdgroup matrices.\nstruct dr_coop16_half {\n    simdgroup_half8x8 t[2][2];\n};\n",
        "dr_coop16_float" => "struct dr_coop16_float {\n    simdgroup_float8x8 t[2][2];\n};\n",
        _ => "",
    }
}
