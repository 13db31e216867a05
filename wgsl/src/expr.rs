//! Function bodies: statements, expressions and structured control flow.

use crate::module::{binding_text, Writer};
use crate::types::shaped;
use crate::unsupported;
use dianran_frontend::ir::{
    self, Block, CollectiveOperation, FuncId, Function, GatherMode, Inst, Op, SampleLevel, Scalar,
    SubgroupOperation, Terminator, Type, TypeId, ValueId,
};
use dianran_frontend::names::escape;
use dianran_frontend::printer::{is_trivial, Body, Ctx, Target};
use dianran_frontend::Diagnostic;
use naga::common::wgsl::TryToWgsl;
use std::fmt::Write;

type Res<T> = Result<T, Box<Diagnostic>>;

struct FnWriter<'a, 'w> {
    w: &'w Writer<'a>,
    fname: String,
    b: Body<'a>,
}

pub(crate) fn write_function(
    w: &Writer<'_>,
    id: FuncId,
    f: &Function,
    entry: Option<&ir::EntryPoint>,
) -> Res<String> {
    let mut fw = FnWriter { w, fname: f.name.clone(), b: Body::new(f, w.names.namer.clone()) };
    if let Some(e) = entry {
        fw.b.out.push_str(&w.entry_attrs(e));
    }
    let mut params = Vec::new();
    for p in &f.params {
        let name = fw.b.namer.name(&p.name);
        let b = p.binding.as_ref().map(|b| format!("{} ", binding_text(b))).unwrap_or_default();
        params.push(format!("{b}{name}: {}", w.ty(f.ty(p.value))));
        fw.b.params.insert(p.value, name.clone());
        fw.b.names.insert(p.value, name);
    }
    let fname = w.names.functions.get(id.index()).cloned().unwrap_or_else(|| escape(&f.name));
    let _ = write!(fw.b.out, "fn {fname}({})", params.join(", "));
    if let Some(r) = &f.result {
        let b = r.binding.as_ref().map(|b| format!("{} ", binding_text(b))).unwrap_or_default();
        let _ = write!(fw.b.out, " -> {b}{}", w.ty(r.ty));
    }
    fw.b.out.push_str(" {\n");
    for l in &f.locals {
        let name = fw.b.namer.name(&l.name);
        let _ = writeln!(fw.b.out, "    var {name}: {};", w.ty(l.ty));
        fw.b.locals.push(name);
    }
    fw.block(&f.body, 1, &Ctx::Body)?;
    fw.b.out.push_str("}\n");
    Ok(fw.b.out)
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

impl FnWriter<'_, '_> {
    fn err(&self, what: &str, span: ir::Span) -> Box<Diagnostic> {
        Box::new(unsupported(what, span, &self.fname))
    }

    /// The text of a value used as an operand.
    fn val(&self, v: ValueId) -> String {
        if let Some(Op::Const(c)) = self.b.defs.get(&v) {
            return self.w.constant(c);
        }
        if let Some(Op::GlobalAddr(g)) = self.b.defs.get(&v) {
            if !self.is_pointer(v) {
                return self.w.names.globals.get(g.index()).cloned().unwrap_or_default();
            }
        }
        if self.is_pointer(v) && !self.b.params.contains_key(&v) {
            return format!("&{}", self.place(v));
        }
        self.b.names.get(&v).cloned().unwrap_or_else(|| format!("v{}", v.0))
    }

    fn is_pointer(&self, v: ValueId) -> bool {
        self.b.pointer(&self.w.m.types, v).is_some()
    }

    fn pointee(&self, v: ValueId) -> Option<TypeId> {
        self.b.pointer(&self.w.m.types, v).map(|(base, _)| base)
    }

    /// The reference a pointer value denotes, e.g. `buf.data[i]`.
    fn place(&self, p: ValueId) -> String {
        if let Some(name) = self.b.params.get(&p) {
            return format!("(*{name})");
        }
        match self.b.defs.get(&p) {
            Some(Op::GlobalAddr(g)) => {
                self.w.names.globals.get(g.index()).cloned().unwrap_or_default()
            }
            Some(Op::LocalAddr(l)) => self.b.locals.get(l.index()).cloned().unwrap_or_default(),
            Some(Op::AccessIndex(base, i)) => {
                let b = self.place(*base);
                match self.pointee(*base).map(|t| self.w.m.types.get(t)) {
                    Some(Type::Struct { members, .. }) => {
                        let name = members.get(*i as usize).map_or("?", |m| m.name.as_str());
                        format!("{b}.{}", escape(name))
                    }
                    Some(Type::Vector { .. }) => format!("{b}.{}", LANES[(*i as usize).min(3)]),
                    _ => format!("{b}[{i}]"),
                }
            }
            Some(Op::Access(base, i)) => format!("{}[{}]", self.place(*base), self.val(*i)),
            _ => format!("(*{})", self.b.names.get(&p).cloned().unwrap_or_default()),
        }
    }

    fn vals(&self, vs: &[ValueId]) -> String {
        vs.iter().map(|v| self.val(*v)).collect::<Vec<_>>().join(", ")
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
                Ctx::Body => {
                    if !args.is_empty() {
                        return Err(self.err("a yield at function level", ir::Span::default()));
                    }
                }
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
                let text = format!("return {};", self.val(*v));
                self.b.line(depth, &text);
            }
            Terminator::Return(None) => {
                // A trailing `return;` at function level is implied.
                if depth != 1 {
                    self.b.line(depth, "return;");
                }
            }
            Terminator::Discard => self.b.line(depth, "discard;"),
        }
        Ok(())
    }

    fn declare_vars(&mut self, depth: usize, results: &[ValueId]) -> Vec<String> {
        let mut names = Vec::new();
        for r in results {
            let name = self.b.new_name(*r);
            let text = format!("var {name}: {};", self.w.ty(self.b.ty(*r)));
            self.b.line(depth, &text);
            names.push(name);
        }
        names
    }

    fn inst(&mut self, inst: &Inst, depth: usize) -> Res<()> {
        let span = inst.span;
        match &inst.op {
            // Pointers and constants are printed at their uses.
            Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::Access(..) | Op::AccessIndex(..)
                if inst.result.is_some_and(|r| self.is_pointer(r)) =>
            {
                return Ok(())
            }
            Op::GlobalAddr(_) | Op::Const(_) => return Ok(()),
            Op::Store { ptr, value } => {
                let text = if self.pointee_is_atomic(*ptr) {
                    format!("atomicStore(&{}, {});", self.place(*ptr), self.val(*value))
                } else {
                    format!("{} = {};", self.place(*ptr), self.val(*value))
                };
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::Barrier(flags) => {
                let pairs = [
                    (naga::Barrier::WORK_GROUP, "workgroupBarrier();"),
                    (naga::Barrier::STORAGE, "storageBarrier();"),
                    (naga::Barrier::SUB_GROUP, "subgroupBarrier();"),
                    (naga::Barrier::TEXTURE, "textureBarrier();"),
                ];
                for (flag, text) in pairs {
                    if flags.contains(flag) {
                        self.b.line(depth, text);
                    }
                }
                return Ok(());
            }
            Op::ImageStore { image, coordinate, array_index, value } => {
                let mut args = vec![self.val(*image), self.val(*coordinate)];
                if let Some(a) = array_index {
                    args.push(self.val(*a));
                }
                args.push(self.val(*value));
                self.b.line(depth, &format!("textureStore({});", args.join(", ")));
                return Ok(());
            }
            Op::CoopStore { value, ptr, stride, row_major } => {
                let f = if *row_major { "coopStoreT" } else { "coopStore" };
                let text = format!(
                    "{f}({}, &{}, {});",
                    self.val(*value),
                    self.place(*ptr),
                    self.val(*stride)
                );
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::Insert { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let member = self.member_text(self.b.ty(*base), *index);
                let text = format!("var {name} = {};", self.val(*base));
                self.b.line(depth, &text);
                let text = format!("{name}{member} = {};", self.val(*value));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::InsertDyn { base, index, value } => {
                let Some(r) = inst.result else { return Ok(()) };
                let name = self.b.new_name(r);
                let text = format!("var {name} = {};", self.val(*base));
                self.b.line(depth, &text);
                let text = format!("{name}[{}] = {};", self.val(*index), self.val(*value));
                self.b.line(depth, &text);
                return Ok(());
            }
            Op::If { cond, then_, else_, results } => {
                let vars = self.declare_vars(depth, results);
                let ctx = Ctx::Arm(vars);
                if is_trivial(then_) && !is_trivial(else_) {
                    let text = format!("if !({}) {{", self.val(*cond));
                    self.b.line(depth, &text);
                    self.block(else_, depth + 1, &ctx)?;
                    self.b.line(depth, "}");
                    return Ok(());
                }
                let text = format!("if {} {{", self.val(*cond));
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
                let text = format!("switch {} {{", self.val(*selector));
                self.b.line(depth, &text);
                self.b.targets.push(Target::Switch(vars.clone()));
                let ctx = Ctx::Arm(vars);
                for case in cases {
                    let mut sels: Vec<String> = case
                        .values
                        .iter()
                        .map(|v| if unsigned { format!("{v}u") } else { format!("{v}i") })
                        .collect();
                    if case.default {
                        sels.push("default".into());
                    }
                    let head = if sels.len() == 1 && case.default {
                        "default: {".to_string()
                    } else {
                        format!("case {}: {{", sels.join(", "))
                    };
                    self.b.line(depth + 1, &head);
                    self.block(&case.body, depth + 2, &ctx)?;
                    self.b.line(depth + 1, "}");
                }
                self.b.targets.pop();
                self.b.line(depth, "}");
                return Ok(());
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                // One var per carried value; the results are those vars after the loop.
                let mut state = Vec::new();
                for (i, v) in init.iter().enumerate() {
                    let hint = body.params.get(i).copied().unwrap_or(*v);
                    let name = self.b.new_name(hint);
                    let text = format!("var {name} = {};", self.val(*v));
                    self.b.line(depth, &text);
                    state.push(name);
                }
                for (r, s) in results.iter().zip(&state) {
                    self.b.names.insert(*r, s.clone());
                }
                self.b.line(depth, "loop {");
                let mut body_copies = Vec::new();
                for (p, s) in body.params.iter().zip(&state) {
                    let name = self.b.new_name(*p);
                    self.b.line(depth + 1, &format!("let {name} = {s};"));
                    self.b.copy_of.insert(name.clone(), s.clone());
                    body_copies.push(name);
                }
                self.b.targets.push(Target::Loop(state.clone()));
                let ctx = Ctx::Loop(state.clone());
                self.block(body, depth + 1, &ctx)?;
                // The body's end assigned the state: its copies are stale in `continuing`.
                for name in body_copies {
                    self.b.copy_of.remove(&name);
                }
                let has_continuing = !continuing.insts.is_empty()
                    || break_if.is_some()
                    || !continuing.params.is_empty();
                if has_continuing {
                    self.b.line(depth + 1, "continuing {");
                    for (p, s) in continuing.params.iter().zip(&state) {
                        let name = self.b.new_name(*p);
                        self.b.line(depth + 2, &format!("let {name} = {s};"));
                        self.b.copy_of.insert(name, s.clone());
                    }
                    self.block(continuing, depth + 2, &ctx)?;
                    if let Some(b) = break_if {
                        let text = format!("break if {};", self.val(*b));
                        self.b.line(depth + 2, &text);
                    }
                    self.b.line(depth + 1, "}");
                }
                self.b.targets.pop();
                self.b.line(depth, "}");
                return Ok(());
            }
            Op::Inline { .. } => return Err(self.err("an inlined call region", span)),
            _ => {}
        }
        let expr = self.expr(&inst.op, inst.result, span)?;
        match inst.result {
            Some(r) => {
                let name = self.b.new_name(r);
                self.b.line(depth, &format!("let {name} = {expr};"));
            }
            None => self.b.line(depth, &format!("{expr};")),
        }
        Ok(())
    }

    fn pointee_is_atomic(&self, p: ValueId) -> bool {
        self.pointee(p).is_some_and(|t| matches!(self.w.m.types.get(t), Type::Atomic(_)))
    }

    /// `.x`, `.field` or `[i]` selecting member `index` of a value of type `t`.
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

    fn result_ty(&self, result: Option<ValueId>) -> Option<TypeId> {
        result.map(|r| self.b.ty(r))
    }

    fn expr(&self, op: &Op, result: Option<ValueId>, span: ir::Span) -> Res<String> {
        let types = &self.w.m.types;
        let v = |x: &ValueId| self.val(*x);
        Ok(match op {
            Op::Unary(o, a) => {
                let sym = match o {
                    naga::UnaryOperator::Negate => "-",
                    naga::UnaryOperator::LogicalNot => "!",
                    naga::UnaryOperator::BitwiseNot => "~",
                };
                format!("{sym}({})", v(a))
            }
            Op::Binary(o, a, b) => format!("({} {} {})", v(a), binary_symbol(*o), v(b)),
            Op::Select { cond, accept, reject } => {
                format!("select({}, {}, {})", v(reject), v(accept), v(cond))
            }
            Op::Compose(parts) => {
                let t = self.result_ty(result).ok_or_else(|| self.err("a compose", span))?;
                format!("{}({})", self.w.ty(t), self.vals(parts))
            }
            Op::Splat(a) => {
                let t = self.result_ty(result).ok_or_else(|| self.err("a splat", span))?;
                format!("{}({})", self.w.ty(t), v(a))
            }
            Op::Extract(a, i) => format!("{}{}", v(a), self.member_text(self.b.ty(*a), *i)),
            Op::ExtractDyn(a, i) => format!("{}[{}]", v(a), v(i)),
            Op::Swizzle(a, pat) => {
                let s: String = pat.iter().map(|&i| LANES[(i as usize).min(3)]).collect();
                format!("{}.{s}", v(a))
            }
            Op::Convert(a, to) => {
                let size = match types.get(self.b.ty(*a)) {
                    Type::Vector { size, .. } => Some(*size),
                    _ => None,
                };
                format!("{}({})", shaped(*to, size), v(a))
            }
            Op::Bitcast(a) => {
                let t = self.result_ty(result).ok_or_else(|| self.err("a bitcast", span))?;
                format!("bitcast<{}>({})", self.w.ty(t), v(a))
            }
            Op::Math(fun, args) => {
                let name = fun
                    .try_to_wgsl()
                    .ok_or_else(|| self.err(&format!("the math function {fun:?}"), span))?;
                format!("{name}({})", self.vals(args))
            }
            Op::Relational(fun, a) => match fun {
                naga::RelationalFunction::All => format!("all({})", v(a)),
                naga::RelationalFunction::Any => format!("any({})", v(a)),
                other => return Err(self.err(&format!("the relational function {other:?}"), span)),
            },
            Op::Derivative(axis, ctrl, a) => {
                let base = match axis {
                    naga::DerivativeAxis::X => "dpdx",
                    naga::DerivativeAxis::Y => "dpdy",
                    naga::DerivativeAxis::Width => "fwidth",
                };
                let suffix = match ctrl {
                    naga::DerivativeControl::Coarse => "Coarse",
                    naga::DerivativeControl::Fine => "Fine",
                    naga::DerivativeControl::None => "",
                };
                format!("{base}{suffix}({})", v(a))
            }
            Op::Load(p) => {
                if self.pointee_is_atomic(*p) {
                    format!("atomicLoad(&{})", self.place(*p))
                } else {
                    self.place(*p)
                }
            }
            Op::Atomic { ptr, op, value } => {
                let f = match op {
                    ir::AtomicOp::Add => "atomicAdd",
                    ir::AtomicOp::Sub => "atomicSub",
                    ir::AtomicOp::And => "atomicAnd",
                    ir::AtomicOp::Or => "atomicOr",
                    ir::AtomicOp::Xor => "atomicXor",
                    ir::AtomicOp::Min => "atomicMin",
                    ir::AtomicOp::Max => "atomicMax",
                    ir::AtomicOp::Exchange => "atomicExchange",
                };
                format!("{f}(&{}, {})", self.place(*ptr), v(value))
            }
            Op::AtomicCompareExchange { ptr, compare, value } => format!(
                "atomicCompareExchangeWeak(&{}, {}, {})",
                self.place(*ptr),
                v(compare),
                v(value)
            ),
            Op::ArrayLength(p) => format!("arrayLength(&{})", self.place(*p)),
            Op::WorkgroupUniformLoad(p) => format!("workgroupUniformLoad(&{})", self.place(*p)),
            Op::SubgroupBallot(Some(p)) => format!("subgroupBallot({})", v(p)),
            Op::SubgroupBallot(None) => "subgroupBallot()".into(),
            Op::SubgroupCollective { op, kind, arg } => {
                let name = subgroup_name(*op, *kind)
                    .ok_or_else(|| self.err(&format!("subgroup {kind:?} {op:?}"), span))?;
                format!("{name}({})", v(arg))
            }
            Op::SubgroupGather { mode, arg, index } => {
                let name = match mode {
                    GatherMode::BroadcastFirst => "subgroupBroadcastFirst",
                    GatherMode::Broadcast => "subgroupBroadcast",
                    GatherMode::Shuffle => "subgroupShuffle",
                    GatherMode::ShuffleDown => "subgroupShuffleDown",
                    GatherMode::ShuffleUp => "subgroupShuffleUp",
                    GatherMode::ShuffleXor => "subgroupShuffleXor",
                    GatherMode::QuadBroadcast => "quadBroadcast",
                    GatherMode::QuadSwap(naga::Direction::X) => "quadSwapX",
                    GatherMode::QuadSwap(naga::Direction::Y) => "quadSwapY",
                    GatherMode::QuadSwap(naga::Direction::Diagonal) => "quadSwapDiagonal",
                };
                match index {
                    Some(i) => format!("{name}({}, {})", v(arg), v(i)),
                    None => format!("{name}({})", v(arg)),
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
                let is_depth = matches!(
                    types.get(self.b.ty(*image)),
                    Type::Image { class: naga::ImageClass::Depth { .. }, .. }
                );
                let mut args = Vec::new();
                let name = if let Some(c) = gather {
                    if depth_ref.is_some() {
                        "textureGatherCompare"
                    } else {
                        if !is_depth {
                            args.push(format!("{c}"));
                        }
                        "textureGather"
                    }
                } else {
                    match (level, depth_ref.is_some()) {
                        (SampleLevel::Auto, false) => "textureSample",
                        (SampleLevel::Auto, true) => "textureSampleCompare",
                        (SampleLevel::Zero, true) => "textureSampleCompareLevel",
                        (SampleLevel::Zero | SampleLevel::Exact(_), false) => "textureSampleLevel",
                        (SampleLevel::Bias(_), false) => "textureSampleBias",
                        (SampleLevel::Gradient { .. }, false) => "textureSampleGrad",
                        (_, true) => {
                            return Err(self.err("a depth comparison with an explicit level", span))
                        }
                    }
                };
                args.push(v(image));
                args.push(v(sampler));
                args.push(v(coordinate));
                if let Some(a) = array_index {
                    args.push(v(a));
                }
                if let Some(d) = depth_ref {
                    args.push(v(d));
                }
                if gather.is_none() {
                    match level {
                        SampleLevel::Zero if depth_ref.is_none() => {
                            args.push(if is_depth { "0i".into() } else { "0.0f".into() })
                        }
                        SampleLevel::Exact(l) | SampleLevel::Bias(l) => args.push(v(l)),
                        SampleLevel::Gradient { x, y } => {
                            args.push(v(x));
                            args.push(v(y));
                        }
                        _ => {}
                    }
                }
                if let Some(o) = offset {
                    args.push(v(o));
                }
                format!("{name}({})", args.join(", "))
            }
            Op::ImageLoad { image, coordinate, array_index, sample, level } => {
                let mut args = vec![v(image), v(coordinate)];
                for x in [array_index, sample, level].into_iter().flatten() {
                    args.push(v(x));
                }
                format!("textureLoad({})", args.join(", "))
            }
            Op::ImageQuery(img, q) => match q {
                ir::ImageQuery::Size { level: Some(l) } => {
                    format!("textureDimensions({}, {})", v(img), v(l))
                }
                ir::ImageQuery::Size { level: None } => format!("textureDimensions({})", v(img)),
                ir::ImageQuery::NumLevels => format!("textureNumLevels({})", v(img)),
                ir::ImageQuery::NumLayers => format!("textureNumLayers({})", v(img)),
                ir::ImageQuery::NumSamples => format!("textureNumSamples({})", v(img)),
            },
            Op::CoopLoad { ptr, stride, row_major } => {
                let t = self.result_ty(result).ok_or_else(|| self.err("a coopLoad", span))?;
                let f = if *row_major { "coopLoadT" } else { "coopLoad" };
                format!("{f}<{}>(&{}, {})", self.w.ty(t), self.place(*ptr), v(stride))
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                format!("coopMultiplyAdd({}, {}, {})", v(a), v(b), v(c))
            }
            Op::Call(fid, args) => {
                let name = self
                    .w
                    .names
                    .functions
                    .get(fid.index())
                    .cloned()
                    .ok_or_else(|| self.err("a call to a missing function", span))?;
                format!("{name}({})", self.vals(args))
            }
            Op::Const(c) => self.w.constant(c),
            Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::Access(..) | Op::AccessIndex(..) => {
                return Err(self.err("a pointer held in a value", span))
            }
            _ => return Err(self.err(&format!("{op:?}"), span)),
        })
    }
}

fn binary_symbol(o: naga::BinaryOperator) -> &'static str {
    use naga::BinaryOperator as B;
    match o {
        B::Add => "+",
        B::Subtract => "-",
        B::Multiply => "*",
        B::Divide => "/",
        B::Modulo => "%",
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
        B::ShiftLeft => "<<",
        B::ShiftRight => ">>",
    }
}

fn subgroup_name(op: SubgroupOperation, kind: CollectiveOperation) -> Option<&'static str> {
    use CollectiveOperation as K;
    use SubgroupOperation as S;
    Some(match (kind, op) {
        (K::Reduce, S::All) => "subgroupAll",
        (K::Reduce, S::Any) => "subgroupAny",
        (K::Reduce, S::Add) => "subgroupAdd",
        (K::Reduce, S::Mul) => "subgroupMul",
        (K::Reduce, S::Min) => "subgroupMin",
        (K::Reduce, S::Max) => "subgroupMax",
        (K::Reduce, S::And) => "subgroupAnd",
        (K::Reduce, S::Or) => "subgroupOr",
        (K::Reduce, S::Xor) => "subgroupXor",
        (K::InclusiveScan, S::Add) => "subgroupInclusiveAdd",
        (K::InclusiveScan, S::Mul) => "subgroupInclusiveMul",
        (K::ExclusiveScan, S::Add) => "subgroupExclusiveAdd",
        (K::ExclusiveScan, S::Mul) => "subgroupExclusiveMul",
        _ => return None,
    })
}
