//! MSL's spelling of the shared walk ([`dianran_frontend::printer`]) and the instructions
//! whose shape is MSL's own.
//!
//! Control flow: `if`/`switch` map directly (every `case` ends with `break;` because C++
//! cases fall through). A WGSL `loop` with a `continuing` block becomes
//! `bool loop_init = true; while (true) { if (!loop_init) { continuing; if (cond) break; }
//! loop_init = false; body }`, so a `continue` in the body runs the continuing block first.
//! Values are `auto` constants, region results are variables declared before the region, and
//! loop-carried state is one variable per carried value, as in the WGSL printer.

use crate::body::{FnWriter, Res};
use crate::builtins::subgroup_name;
use crate::unsupported;
use dianran_frontend::ir::{
    self, CollectiveOperation, ConstValue, GatherMode, Inst, Op, SampleLevel, Scalar,
    SubgroupOperation, SwitchCase, Type, TypeId, ValueId,
};
use dianran_frontend::names::escape;
use dianran_frontend::printer::operands::{lane, Operands};
use dianran_frontend::printer::syntax::{AtomicAccess, BarrierKind, Syntax};
use dianran_frontend::printer::Body;
use dianran_frontend::Diagnostic;

impl<'a> Syntax<'a> for FnWriter<'a> {
    fn body(&self) -> &Body<'a> {
        &self.b
    }

    fn body_mut(&mut self) -> &mut Body<'a> {
        &mut self.b
    }

    fn unsupported(&self, what: &str, span: ir::Span) -> Box<Diagnostic> {
        Box::new(unsupported(what, span, &self.b.f.name))
    }

    fn ty(&self, t: TypeId) -> String {
        self.w.ty(t)
    }

    fn constant(&self, c: &ConstValue) -> String {
        self.w.constant(c)
    }

    fn deref(&self, pointer: &str) -> String {
        // Pointer parameters are references (`device T&`).
        pointer.to_string()
    }

    fn address_of(&self, place: String) -> String {
        place
    }

    fn packed_member(&self, struct_ty: TypeId, member: u32) -> bool {
        self.w.packed.contains(&(struct_ty, member))
    }

    fn let_decl(&self, name: &str, value: &str) -> String {
        format!("const auto {name} = {value};")
    }

    fn var_decl(&self, name: &str, ty: TypeId, init: Option<&str>) -> String {
        if self.w.is_native_tile(ty) && matches!(init, None | Some("{}")) {
            // Metal 4's cooperative tensor comes from the operation, not from `{}`.
            return format!("_dr_wgm_tile {name} = _dr_wgm_splat(0.0f);");
        }
        match init {
            Some(init) => format!("{} {name} = {init};", self.w.ty(ty)),
            None => format!("{} {name};", self.w.ty(ty)),
        }
    }

    fn copy_decl(&self, name: &str, value: &str) -> String {
        format!("auto {name} = {value};")
    }

    fn local_decl(&self, name: &str, ty: TypeId) -> String {
        // Metal leaves locals undefined; `{}` zeroes them.
        self.var_decl(name, ty, Some("{}"))
    }

    fn condition(&self, expr: &str) -> String {
        format!("({expr})")
    }

    fn case_labels(&self, case: &SwitchCase, unsigned: bool) -> Vec<String> {
        let mut labels: Vec<String> = case
            .values
            .iter()
            .map(|v| if unsigned { format!("case {v}u:") } else { format!("case {v}:") })
            .collect();
        if case.default {
            labels.push("default:".into());
        }
        labels.push("{".into());
        labels
    }

    fn case_falls_through(&self) -> bool {
        true
    }

    fn loop_open(&mut self, depth: usize, has_continuing: bool) -> String {
        let init_flag = format!("loop_init_{}", self.loop_counter);
        self.loop_counter += 1;
        if has_continuing {
            self.b.line(depth, &format!("bool {init_flag} = true;"));
        }
        self.b.line(depth, "while (true) {");
        init_flag
    }

    fn continuing_first(&self) -> bool {
        true
    }

    fn continuing_open(&self, init_flag: &str) -> String {
        format!("if (!{init_flag}) {{")
    }

    fn continuing_close(&self, init_flag: &str) -> Option<String> {
        Some(format!("{init_flag} = false;"))
    }

    fn break_if(&self, cond: &str) -> String {
        format!("if ({cond}) {{ break; }}")
    }

    fn return_value(&self, v: ValueId) -> String {
        let Some((name, ty)) = &self.out_struct else {
            return format!("return {};", self.val(v));
        };
        // An entry point returns its output struct, built from the value's members when the
        // WGSL result is a struct of bound members.
        match self.w.m.types.get(*ty) {
            Type::Struct { members, .. }
                if self.b.f.result.as_ref().is_some_and(|r| r.binding.is_none()) =>
            {
                let val = self.val(v);
                let parts: Vec<String> =
                    members.iter().map(|m| format!("{val}.{}", escape(&m.name))).collect();
                format!("return {name}{{{}}};", parts.join(", "))
            }
            _ => format!("return {name}{{{}}};", self.val(v)),
        }
    }

    fn discard(&self) -> &'static str {
        "discard_fragment();"
    }

    fn barrier(&self, kind: BarrierKind) -> &'static str {
        match kind {
            BarrierKind::Workgroup => "threadgroup_barrier(mem_flags::mem_threadgroup);",
            BarrierKind::Storage => "threadgroup_barrier(mem_flags::mem_device);",
            BarrierKind::Subgroup => "simdgroup_barrier(mem_flags::mem_threadgroup);",
            BarrierKind::Texture => "threadgroup_barrier(mem_flags::mem_texture);",
        }
    }

    fn atomic(&self, access: AtomicAccess, place: &str, operands: &[String]) -> String {
        let f = match access {
            AtomicAccess::Load => "atomic_load_explicit",
            AtomicAccess::Store => "atomic_store_explicit",
            AtomicAccess::Rmw(op) => match op {
                ir::AtomicOp::Add => "atomic_fetch_add_explicit",
                ir::AtomicOp::Sub => "atomic_fetch_sub_explicit",
                ir::AtomicOp::And => "atomic_fetch_and_explicit",
                ir::AtomicOp::Or => "atomic_fetch_or_explicit",
                ir::AtomicOp::Xor => "atomic_fetch_xor_explicit",
                ir::AtomicOp::Min => "atomic_fetch_min_explicit",
                ir::AtomicOp::Max => "atomic_fetch_max_explicit",
                ir::AtomicOp::Exchange => "atomic_exchange_explicit",
            },
        };
        // WGSL atomics are relaxed.
        let mut args = vec![format!("&{place}")];
        args.extend_from_slice(operands);
        args.push("memory_order_relaxed".into());
        format!("{f}({})", args.join(", "))
    }

    fn subgroup_name(
        &self,
        op: SubgroupOperation,
        kind: CollectiveOperation,
    ) -> Option<&'static str> {
        subgroup_name(op, kind)
    }

    fn statement(&mut self, inst: &Inst, depth: usize) -> Res<bool> {
        let span = inst.span;
        match &inst.op {
            Op::ImageStore { image, coordinate, array_index, value } => {
                let mut args = vec![self.val(*value), self.coord(*coordinate)];
                if let Some(a) = array_index {
                    args.push(format!("uint({})", self.val(*a)));
                }
                let text = format!("{}.write({});", self.val(*image), args.join(", "));
                self.b.line(depth, &text);
            }
            Op::CoopLoad { ptr, stride, row_major, limit } => {
                let Some(r) = inst.result else { return Ok(true) };
                self.coop_load(r, *ptr, *stride, *row_major, *limit, depth, span)?;
            }
            Op::CoopStore { value, ptr, stride, row_major, limit } => {
                self.coop_store(*value, *ptr, *stride, *row_major, *limit, depth, span)?;
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                let Some(r) = inst.result else { return Ok(true) };
                self.coop_multiply_add(r, [*a, *b, *c], depth, span)?;
            }
            Op::CoopFill(v) => {
                let Some(r) = inst.result else { return Ok(true) };
                self.coop_fill(r, *v, depth, span)?;
            }
            Op::CoopScalar { op, matrix, scalar } => {
                let Some(r) = inst.result else { return Ok(true) };
                self.coop_scalar(r, *op, *matrix, *scalar, depth, span)?;
            }
            Op::WorkgroupUniformLoad(p) => {
                self.b.line(depth, "threadgroup_barrier(mem_flags::mem_threadgroup);");
                if let Some(r) = inst.result {
                    let name = self.b.new_name(r);
                    let text = self.let_decl(&name, &self.place(*p));
                    self.b.line(depth, &text);
                }
                self.b.line(depth, "threadgroup_barrier(mem_flags::mem_threadgroup);");
            }
            Op::AtomicCompareExchange { ptr, compare, value } => {
                let Some(r) = inst.result else { return Ok(true) };
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
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn expr(&self, op: &Op, result: Option<ValueId>, span: ir::Span) -> Res<String> {
        let types = &self.w.m.types;
        let v = |x: &ValueId| self.val(*x);
        let rty = || self.result_ty(result, "a value without a type", span);
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
                    Type::Struct { members, size, .. } => {
                        // Aggregate initialization in declaration order: explicit padding
                        // members (layout parity) get `{}`.
                        let mut items = Vec::new();
                        for m in crate::layout::plan_struct(types, members, *size) {
                            match m {
                                crate::layout::MslMember::Pad(_) => items.push("{}".to_string()),
                                crate::layout::MslMember::Field { index, .. } => {
                                    items.push(parts.get(index).map(v).unwrap_or_default())
                                }
                            }
                        }
                        format!("{}{{{}}}", self.w.ty(t), items.join(", "))
                    }
                    Type::Array { .. } => {
                        format!("{}{{{}}}", self.w.ty(t), self.vals(parts))
                    }
                    _ => format!("{}({})", self.w.ty(t), self.vals(parts)),
                }
            }
            Op::Convert(a, to) if matches!(types.get(self.b.ty(*a)), Type::Matrix { .. }) => {
                // Metal has no conversion between matrix element types: convert column by
                // column (a same-type "conversion" is WGSL's identity constructor, a copy).
                let Type::Matrix { columns, rows, scalar } = types.get(self.b.ty(*a)).clone()
                else {
                    return Err(self.unsupported("a matrix conversion", span));
                };
                if scalar == *to {
                    v(a)
                } else {
                    let col = Self::shaped(*to, Some(rows));
                    let cols: Vec<String> =
                        (0..columns).map(|i| format!("{col}(({})[{i}])", v(a))).collect();
                    format!("{}({})", self.w.ty(rty()?), cols.join(", "))
                }
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
            Op::ArrayLength(p) => self.array_length(*p, span)?,
            Op::SubgroupBallot(pred) => {
                let p = pred.map_or("true".to_string(), |p| v(&p));
                self.helper("dr_ballot");
                format!("dr_ballot({p})")
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
                        args.push(format!("component::{}", lane(*c as u32)));
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
                if self.w.uses_stage.get(fid.index()).copied().unwrap_or(false) {
                    all.extend([crate::body::STAGE.into(), crate::body::LANE.into()]);
                }
                format!("{}({})", self.w.fn_name(*fid), all.join(", "))
            }
            other => return Err(self.unsupported(&format!("{other:?}"), span)),
        })
    }
}
