//! The stable text form of the SSA (`dianran ssa FILE`), used by snapshot tests.
//!
//! ```text
//! global g0 数据: array<u32> storage(read_write) @group(0) @binding(0)
//! entry 加倍 compute @workgroup_size(4, 1, 1) = f0
//! fn f0 加倍(%0: vec3<u32> @builtin(GlobalInvocationId)) {
//!   %1: u32 = extract %0, 0
//!   %2: ptr<storage, array<u32>, read_write> = global_addr g0
//!   ...
//!   return
//! }
//! ```
//! Region instructions print their results first (`%5: u32 = if %4 { ... } else { ... }`),
//! loops print `loop(init) body(params) { ... } continuing(params) { ... } break_if %v`.

use crate::ir::*;
use std::fmt::Write;

/// Prints a type in WGSL-like syntax.
pub fn type_name(types: &Types, ty: TypeId) -> String {
    match types.get(ty) {
        Type::Scalar(s) => s.wgsl_name().to_string(),
        Type::Vector { size, scalar } => format!("vec{}<{}>", size, scalar.wgsl_name()),
        Type::Matrix { columns, rows, scalar } => {
            format!("mat{}x{}<{}>", columns, rows, scalar.wgsl_name())
        }
        Type::Array { base, len: Some(n), stride } => {
            format!("array<{}, {}>/*stride {}*/", type_name(types, *base), n, stride)
        }
        Type::Array { base, len: None, stride } => {
            format!("array<{}>/*stride {}*/", type_name(types, *base), stride)
        }
        Type::Struct { name, .. } => name.clone(),
        Type::Atomic(s) => format!("atomic<{}>", s.wgsl_name()),
        Type::Pointer { base, space } => {
            format!("ptr<{}, {}>", space_name(*space), type_name(types, *base))
        }
        Type::Image { dim, arrayed, class } => {
            format!("texture<{:?}{}, {:?}>", dim, if *arrayed { ", arrayed" } else { "" }, class)
        }
        Type::Sampler { comparison } => {
            if *comparison {
                "sampler_comparison".into()
            } else {
                "sampler".into()
            }
        }
        Type::CoopMatrix { columns, rows, elem, role } => {
            format!("coop_mat{}x{}<{}, {:?}>", columns, rows, elem.name(), role)
        }
    }
}

/// Name of an address space in the text form.
pub fn space_name(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Function => "function",
        AddressSpace::Private => "private",
        AddressSpace::Workgroup => "workgroup",
        AddressSpace::Uniform => "uniform",
        AddressSpace::Storage { writable: true } => "storage(read_write)",
        AddressSpace::Storage { writable: false } => "storage(read)",
        AddressSpace::Handle => "handle",
        AddressSpace::Immediate => "immediate",
    }
}

/// Prints a constant.
pub fn const_text(types: &Types, c: &ConstValue) -> String {
    match c {
        ConstValue::Bool(b) => b.to_string(),
        ConstValue::I32(v) => format!("{v}i"),
        ConstValue::U32(v) => format!("{v}u"),
        // The bits after the value, most significant byte first (`1f /*0x3f800000*/`).
        ConstValue::F32(b) => {
            format!("{:?}f /*0x{}*/", f32::from_bits(*b), hex::encode(b.to_be_bytes()))
        }
        ConstValue::F16(b) => {
            format!("{}h /*0x{}*/", half::f16::from_bits(*b), hex::encode(b.to_be_bytes()))
        }
        ConstValue::I64(v) => format!("{v}li"),
        ConstValue::U64(v) => format!("{v}lu"),
        ConstValue::F64(b) => {
            format!("{:?}lf /*0x{}*/", f64::from_bits(*b), hex::encode(b.to_be_bytes()))
        }
        ConstValue::Composite(t, parts) => {
            let inner: Vec<String> = parts.iter().map(|p| const_text(types, p)).collect();
            format!("{}({})", type_name(types, *t), inner.join(", "))
        }
        ConstValue::Zero(t) => format!("{}()", type_name(types, *t)),
    }
}

fn binding_text(b: &IoBinding) -> String {
    match b {
        IoBinding::BuiltIn(bi) => format!("@builtin({bi:?})"),
        IoBinding::Location { location, interpolation, sampling, blend_src } => {
            let mut s = format!("@location({location})");
            if let Some(i) = interpolation {
                let _ = write!(s, " @interpolate({i:?}");
                if let Some(sa) = sampling {
                    let _ = write!(s, ", {sa:?}");
                }
                s.push(')');
            }
            if let Some(b) = blend_src {
                let _ = write!(s, " @blend_src({b})");
            }
            s
        }
    }
}

/// Prints a whole module.
pub fn module_text(m: &Module) -> String {
    let mut out = String::new();
    for (id, ty) in m.types.iter() {
        if let Type::Struct { name, members, size, align } = ty {
            let _ = writeln!(out, "struct {id} {name} size {size} align {align} {{");
            for mem in members {
                let b = mem.binding.as_ref().map(|b| format!(" {}", binding_text(b)));
                let _ = writeln!(
                    out,
                    "  @{} {}: {}{}",
                    mem.offset,
                    mem.name,
                    type_name(&m.types, mem.ty),
                    b.unwrap_or_default()
                );
            }
            out.push_str("}\n");
        }
    }
    for (i, c) in m.constants.iter().enumerate() {
        let _ = writeln!(
            out,
            "const c{i} {}: {} = {}",
            c.name,
            type_name(&m.types, c.ty),
            const_text(&m.types, &c.value)
        );
    }
    for (i, g) in m.globals.iter().enumerate() {
        let _ = write!(
            out,
            "global g{i} {}: {} {}",
            g.name,
            type_name(&m.types, g.ty),
            space_name(g.space)
        );
        if let Some(b) = g.binding {
            let _ = write!(out, " @group({}) @binding({})", b.group, b.binding);
        }
        if let Some(init) = &g.init {
            let _ = write!(out, " = {}", const_text(&m.types, init));
        }
        out.push('\n');
    }
    for e in &m.entry_points {
        let _ = write!(out, "entry {} {}", e.name, e.stage.name());
        if e.stage == Stage::Compute {
            let [x, y, z] = e.workgroup_size;
            let _ = write!(out, " @workgroup_size({x}, {y}, {z})");
        }
        let _ = writeln!(out, " = {}", FuncId(e.function.0));
    }
    for (i, f) in m.functions.iter().enumerate() {
        out.push('\n');
        out.push_str(&function_text(m, FuncId(i as u32), f));
    }
    out
}

/// Prints one function.
pub fn function_text(m: &Module, id: FuncId, f: &Function) -> String {
    let mut p = Printer { m, f, out: String::new() };
    let params: Vec<String> = f
        .params
        .iter()
        .map(|prm| {
            let b = prm.binding.as_ref().map(|b| format!(" {}", binding_text(b)));
            format!("{}: {}{}", p.val(prm.value), p.ty(prm.value), b.unwrap_or_default())
        })
        .collect();
    let _ = write!(p.out, "fn {id} {}({})", f.name, params.join(", "));
    if let Some(r) = &f.result {
        let b = r.binding.as_ref().map(|b| format!(" {}", binding_text(b)));
        let _ = write!(p.out, " -> {}{}", type_name(&m.types, r.ty), b.unwrap_or_default());
    }
    p.out.push_str(" {\n");
    for (i, l) in f.locals.iter().enumerate() {
        let _ = writeln!(p.out, "  local l{i} {}: {}", l.name, type_name(&m.types, l.ty));
    }
    p.block_body(&f.body, 1);
    p.out.push_str("}\n");
    p.out
}

struct Printer<'a> {
    m: &'a Module,
    f: &'a Function,
    out: String,
}

impl Printer<'_> {
    fn val(&self, v: ValueId) -> String {
        match self.f.values.get(v.index()).and_then(|d| d.name.as_ref()) {
            Some(n) => format!("%{}.{}", v.0, n),
            None => format!("%{}", v.0),
        }
    }
    fn ty(&self, v: ValueId) -> String {
        match self.f.values.get(v.index()) {
            Some(d) => type_name(&self.m.types, d.ty),
            None => "<bad value>".into(),
        }
    }
    fn vals(&self, vs: &[ValueId]) -> String {
        vs.iter().map(|v| self.val(*v)).collect::<Vec<_>>().join(", ")
    }
    fn typed(&self, vs: &[ValueId]) -> String {
        vs.iter()
            .map(|v| format!("{}: {}", self.val(*v), self.ty(*v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn block_body(&mut self, b: &Block, depth: usize) {
        for inst in &b.insts {
            self.inst(inst, depth);
        }
        self.indent(depth);
        let t = match &b.term {
            Terminator::Unreachable => "unreachable".to_string(),
            Terminator::Yield(v) => format!("yield {}", self.vals(v)),
            Terminator::Break(v) => format!("break {}", self.vals(v)),
            Terminator::Continue(v) => format!("continue {}", self.vals(v)),
            Terminator::Return(Some(v)) => format!("return {}", self.val(*v)),
            Terminator::Return(None) => "return".to_string(),
            Terminator::Discard => "discard".to_string(),
        };
        self.out.push_str(t.trim_end());
        self.out.push('\n');
    }

    fn inst(&mut self, inst: &Inst, depth: usize) {
        self.indent(depth);
        let results = inst.op.region_results();
        if let Some(r) = inst.result {
            let _ = write!(self.out, "{}: {} = ", self.val(r), self.ty(r));
        } else if !results.is_empty() {
            let _ = write!(self.out, "{} = ", self.typed(results));
        }
        let v = |x: &ValueId| self.val(*x);
        let text = match &inst.op {
            Op::Const(c) => format!("const {}", const_text(&self.m.types, c)),
            Op::Unary(o, a) => format!("{} {}", lower(o), v(a)),
            Op::Binary(o, a, b) => format!("{} {}, {}", lower(o), v(a), v(b)),
            Op::Select { cond, accept, reject } => {
                format!("select {}, {}, {}", v(cond), v(accept), v(reject))
            }
            Op::Compose(p) => format!("compose {}", self.vals(p)),
            Op::Splat(a) => format!("splat {}", v(a)),
            Op::Extract(a, i) => format!("extract {}, {}", v(a), i),
            Op::ExtractDyn(a, i) => format!("extract_dyn {}, {}", v(a), v(i)),
            Op::Insert { base, index, value } => {
                format!("insert {}, {}, {}", v(base), index, v(value))
            }
            Op::InsertDyn { base, index, value } => {
                format!("insert_dyn {}, {}, {}", v(base), v(index), v(value))
            }
            Op::Swizzle(a, p) => format!("swizzle {}, {:?}", v(a), p),
            Op::Convert(a, s) => format!("convert {} to {}", v(a), s.wgsl_name()),
            Op::Bitcast(a) => format!("bitcast {}", v(a)),
            Op::Math(fun, args) => format!("math {} {}", lower(fun), self.vals(args)),
            Op::Relational(fun, a) => format!("{} {}", lower(fun), v(a)),
            Op::Derivative(ax, c, a) => format!("derivative {ax:?} {c:?} {}", v(a)),
            Op::GlobalAddr(g) => {
                format!(
                    "global_addr g{} {}",
                    g.0,
                    self.m.globals.get(g.index()).map_or("?", |g| &g.name)
                )
            }
            Op::LocalAddr(l) => {
                format!(
                    "local_addr l{} {}",
                    l.0,
                    self.f.locals.get(l.index()).map_or("?", |l| &l.name)
                )
            }
            Op::AccessIndex(a, i) => format!("access_index {}, {}", v(a), i),
            Op::Access(a, i) => format!("access {}, {}", v(a), v(i)),
            Op::Load(p) => format!("load {}", v(p)),
            Op::Store { ptr, value } => format!("store {}, {}", v(ptr), v(value)),
            Op::Atomic { ptr, op, value } => {
                format!("atomic {} {}, {}", lower(op), v(ptr), v(value))
            }
            Op::AtomicCompareExchange { ptr, compare, value } => {
                format!("atomic_cmpxchg {}, {}, {}", v(ptr), v(compare), v(value))
            }
            Op::ArrayLength(p) => format!("array_length {}", v(p)),
            Op::Barrier(b) => format!("barrier {:?}", b),
            Op::WorkgroupUniformLoad(p) => format!("workgroup_uniform_load {}", v(p)),
            Op::WorkgroupAll(p) => format!("workgroup_all {}", v(p)),
            Op::SubgroupBallot(p) => match p {
                Some(p) => format!("subgroup_ballot {}", v(p)),
                None => "subgroup_ballot".into(),
            },
            Op::SubgroupCollective { op, kind, arg } => {
                format!("subgroup_{} {} {}", lower(kind), lower(op), v(arg))
            }
            Op::SubgroupGather { mode, arg, index } => match index {
                Some(i) => format!("subgroup_gather {mode:?} {}, {}", v(arg), v(i)),
                None => format!("subgroup_gather {mode:?} {}", v(arg)),
            },
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
                let mut s = format!("image_sample {}, {}, {}", v(image), v(sampler), v(coordinate));
                if let Some(a) = array_index {
                    let _ = write!(s, " array {}", v(a));
                }
                if let Some(o) = offset {
                    let _ = write!(s, " offset {}", v(o));
                }
                let _ = write!(
                    s,
                    " level {}",
                    match level {
                        SampleLevel::Auto => "auto".to_string(),
                        SampleLevel::Zero => "zero".to_string(),
                        SampleLevel::Exact(l) => format!("exact {}", v(l)),
                        SampleLevel::Bias(l) => format!("bias {}", v(l)),
                        SampleLevel::Gradient { x, y } => format!("grad {}, {}", v(x), v(y)),
                    }
                );
                if let Some(d) = depth_ref {
                    let _ = write!(s, " depth_ref {}", v(d));
                }
                if let Some(g) = gather {
                    let _ = write!(s, " gather {g}");
                }
                s
            }
            Op::ImageLoad { image, coordinate, array_index, sample, level } => {
                let mut s = format!("image_load {}, {}", v(image), v(coordinate));
                for (k, x) in [("array", array_index), ("sample", sample), ("level", level)] {
                    if let Some(x) = x {
                        let _ = write!(s, " {k} {}", v(x));
                    }
                }
                s
            }
            Op::ImageStore { image, coordinate, array_index, value } => {
                let mut s = format!("image_store {}, {}", v(image), v(coordinate));
                if let Some(a) = array_index {
                    let _ = write!(s, " array {}", v(a));
                }
                let _ = write!(s, ", {}", v(value));
                s
            }
            Op::ImageQuery(img, q) => match q {
                ImageQuery::Size { level: Some(l) } => {
                    format!("image_size {}, level {}", v(img), v(l))
                }
                ImageQuery::Size { level: None } => format!("image_size {}", v(img)),
                ImageQuery::NumLevels => format!("image_num_levels {}", v(img)),
                ImageQuery::NumLayers => format!("image_num_layers {}", v(img)),
                ImageQuery::NumSamples => format!("image_num_samples {}", v(img)),
            },
            Op::CoopLoad { ptr, stride, row_major, limit } => {
                format!(
                    "coop_load{} {}, stride {}{}",
                    if *row_major { "_t" } else { "" },
                    v(ptr),
                    v(stride),
                    limit.map(|l| format!(", limit {}", v(&l))).unwrap_or_default()
                )
            }
            Op::CoopStore { value, ptr, stride, row_major, limit } => format!(
                "coop_store{} {}, {}, stride {}{}",
                if *row_major { "_t" } else { "" },
                v(value),
                v(ptr),
                v(stride),
                limit.map(|l| format!(", limit {}", v(&l))).unwrap_or_default()
            ),
            Op::CoopMultiplyAdd(a, b, c) => {
                format!("coop_multiply_add {}, {}, {}", v(a), v(b), v(c))
            }
            Op::CoopFill(x) => format!("coop_fill {}", v(x)),
            Op::CoopScalar { op, matrix, scalar } => {
                format!("coop_scalar {op:?} {}, {}", v(matrix), v(scalar))
            }
            Op::Call(fid, args) => {
                let name = self.m.functions.get(fid.index()).map_or("?", |f| &f.name);
                format!("call {fid} {name}({})", self.vals(args))
            }
            Op::If { cond, then_, else_, .. } => {
                let _ = writeln!(self.out, "if {} {{", v(cond));
                self.block_body(then_, depth + 1);
                self.indent(depth);
                self.out.push_str("} else {\n");
                self.block_body(else_, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
                return;
            }
            Op::Switch { selector, cases, .. } => {
                let _ = writeln!(self.out, "switch {} {{", v(selector));
                for c in cases {
                    self.indent(depth + 1);
                    let mut sels: Vec<String> = c.values.iter().map(|x| x.to_string()).collect();
                    if c.default {
                        sels.push("default".into());
                    }
                    let _ = writeln!(self.out, "case {} {{", sels.join(", "));
                    self.block_body(&c.body, depth + 2);
                    self.indent(depth + 1);
                    self.out.push_str("}\n");
                }
                self.indent(depth);
                self.out.push_str("}\n");
                return;
            }
            Op::Loop { init, body, continuing, break_if, .. } => {
                let _ = writeln!(
                    self.out,
                    "loop({}) body({}) {{",
                    self.vals(init),
                    self.typed(&body.params)
                );
                self.block_body(body, depth + 1);
                self.indent(depth);
                let _ = writeln!(self.out, "}} continuing({}) {{", self.typed(&continuing.params));
                self.block_body(continuing, depth + 1);
                self.indent(depth);
                match break_if {
                    Some(b) => {
                        let _ = writeln!(self.out, "}} break_if {}", self.val(*b));
                    }
                    None => self.out.push_str("}\n"),
                }
                return;
            }
            Op::Inline { callee, body, args, .. } => {
                let name = self.m.functions.get(callee.index()).map_or("?", |f| &f.name);
                let _ = writeln!(
                    self.out,
                    "inline {callee} {name}({}) body({}) {{",
                    self.vals(args),
                    self.typed(&body.params)
                );
                self.block_body(body, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
                return;
            }
        };
        self.out.push_str(&text);
        self.out.push('\n');
    }
}

fn lower(x: &impl std::fmt::Debug) -> String {
    let s = format!("{x:?}");
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}
