//! Function bodies: WGSL's spelling of the shared walk ([`dianran_frontend::printer`]) and
//! the expressions whose shape is WGSL's own.

use crate::module::{binding_text, Writer};
use crate::types::{shaped, MatrixSpelling};
use crate::unsupported;
use crate::wide;
use dianran_frontend::ext::sgm::tile;
use dianran_frontend::ir::{
    self, CollectiveOperation, ConstValue, FuncId, Function, GatherMode, Inst, Op, SampleLevel,
    SubgroupOperation, SwitchCase, Type, TypeId, ValueId,
};
use dianran_frontend::names::escape;
use dianran_frontend::printer::operands::Operands;
use dianran_frontend::printer::syntax::{binary_symbol, AtomicAccess, BarrierKind, Syntax};
use dianran_frontend::printer::walk::Walk;
use dianran_frontend::printer::Body;
use dianran_frontend::Diagnostic;
use naga::common::wgsl::TryToWgsl;
use std::fmt::Write;

pub(crate) type Res<T> = Result<T, Box<Diagnostic>>;

pub(crate) struct FnWriter<'a> {
    pub w: &'a Writer<'a>,
    pub b: Body<'a>,
    /// Matrix values the portable form holds in a `var` of their own that nothing writes
    /// after the value's definition ([`crate::portable`]): read in place, never copied.
    pub matrix_vars: std::collections::HashSet<ValueId>,
}

impl FnWriter<'_> {
    /// The scalar and vector size of value `a`'s type.
    fn shape(&self, a: ValueId) -> Option<(ir::Scalar, Option<u8>)> {
        let types = &self.w.m.types;
        let ty = self.b.ty(a);
        let size = match types.get(ty) {
            Type::Vector { size, .. } => Some(*size),
            _ => None,
        };
        types.scalar_of(ty).map(|s| (s, size))
    }

    /// `op` spelled around naga's 64-bit bugs ([`wide`]), if it is one of the operations
    /// naga mistranslates: a signedness-changing integer widening ([`wide::widening`]), a
    /// 64-bit bit scan ([`wide::bit_scan`]) or bit field ([`wide::bit_field`]).
    fn naga_64_bit_spelling(&self, op: &Op) -> Option<String> {
        match op {
            Op::Convert(a, to) => {
                let (from, size) = self.shape(*a)?;
                wide::widening(&self.val(*a), from, *to, size)
            }
            Op::Math(fun, args) => {
                let (s, size) = self.shape(*args.first()?)?;
                match args.as_slice() {
                    [a] => wide::bit_scan(*fun, &self.val(*a), s, size),
                    _ => {
                        let texts: Vec<String> = args.iter().map(|a| self.val(*a)).collect();
                        wide::bit_field(*fun, &texts, s, size)
                    }
                }
            }
            _ => None,
        }
    }
}

impl FnWriter<'_> {
    /// Prints a cooperative-matrix operation in plain WGSL ([`crate::portable`]); `false`
    /// for other instructions.
    fn portable_statement(&mut self, inst: &Inst, depth: usize) -> Res<bool> {
        let span = inst.span;
        match (&inst.op, inst.result) {
            (Op::CoopLoad { ptr, stride, row_major, limit }, Some(r)) => {
                self.portable_load(r, *ptr, *stride, *row_major, *limit, depth, span)?
            }
            (Op::CoopStore { value, ptr, stride, row_major, limit }, _) => {
                self.portable_store(*value, *ptr, *stride, *row_major, *limit, depth, span)?
            }
            (Op::CoopMultiplyAdd(a, b, c), Some(r)) => {
                self.portable_multiply_add(r, [*a, *b, *c], depth, span)?
            }
            (Op::CoopFill(x), Some(r)) => self.portable_fill(r, *x, depth, span)?,
            (Op::CoopScalar { op, matrix, scalar }, Some(r)) => {
                self.portable_scalar(r, *op, *matrix, *scalar, depth, span)?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Why a tile cannot be printed when its pointer is not an element of an array.
pub(crate) const TILE_NOT_IN_ARRAY: &str = "a matrix tile that does not start in an array";

/// Dawn's majorness template argument.
fn majorness(row_major: bool) -> &'static str {
    if row_major {
        "row_major"
    } else {
        "col_major"
    }
}

impl FnWriter<'_> {
    /// Whether cooperative matrices print in Dawn's syntax.
    fn dawn(&self) -> bool {
        self.w.matrices() == MatrixSpelling::Dawn
    }

    /// `v` as a `u32` operand: Dawn's offsets and strides are `u32`; the IR's may be `i32`.
    pub(crate) fn u32_operand(&self, v: ValueId) -> String {
        match self.shape(v) {
            Some((ir::Scalar::U32, None)) => self.val(v),
            _ => format!("u32({})", self.val(v)),
        }
    }

    /// Where a tile starts: the IR points at its first element (`Access`/`AccessIndex` into
    /// an array); this is the pointer to the array, the array's type and the element's index
    /// (a `u32` expression). `None` for a tile that does not start in an array.
    pub(crate) fn tile_start(&self, ptr: ValueId) -> Option<(ValueId, TypeId, String)> {
        let (base, first) = match self.b.defs.get(&ptr) {
            Some(Op::Access(base, i)) => (*base, self.u32_operand(*i)),
            Some(Op::AccessIndex(base, i)) => (*base, format!("{i}u")),
            _ => return None,
        };
        let (array, _) = self.b.pointer(base)?;
        matches!(self.w.m.types.get(array), Type::Array { .. }).then_some((base, array, first))
    }

    /// A tile's first element pointer as Dawn's `(&array, offset)` pair.
    fn dawn_tile(&self, ptr: ValueId, span: ir::Span) -> Res<(String, String)> {
        match self.tile_start(ptr) {
            Some((base, _, first)) => Ok((format!("&{}", self.place(base)), first)),
            None => Err(self.unsupported(TILE_NOT_IN_ARRAY, span)),
        }
    }
}

impl FnWriter<'_> {
    /// `&name.member...` of a workgroup-matrix array.
    fn tile_array(&self, a: &ir::TileArray) -> String {
        let m = self.w.m;
        let mut text =
            format!("&{}", self.w.names.globals.get(a.global.index()).cloned().unwrap_or_default());
        let mut ty = m.globals.get(a.global.index()).map(|g| g.ty);
        for &i in &a.members {
            let member = ty.and_then(|t| match m.types.get(t) {
                Type::Struct { members, .. } => members.get(i as usize),
                _ => None,
            });
            ty = member.map(|x| x.ty);
            let _ = write!(text, ".{}", escape(member.map_or("?", |x| x.name.as_str())));
        }
        text
    }

    /// The workgroup-matrix builtin a helper call stands for (`docs/workgroup-matrix.md`).
    fn tile_call(&self, h: &ir::TileHelper, args: &[ValueId]) -> String {
        let a: Vec<String> = args.iter().map(|v| self.val(*v)).collect();
        let array = |i: usize| h.arrays.get(i).map(|x| self.tile_array(x)).unwrap_or_default();
        let major = |i: usize| majorness(h.row_major.get(i).copied().unwrap_or(true));
        match h.op {
            ir::TileOp::Fill => format!("{}({})", tile::TYPE_WGSL, a.join(", ")),
            ir::TileOp::Load => {
                format!("workgroupMatrixLoad<{}>({}, {})", major(0), array(0), a.join(", "))
            }
            ir::TileOp::Store => {
                format!("workgroupMatrixStore<{}>({}, {})", major(0), array(0), a.join(", "))
            }
            ir::TileOp::MultiplyAccumulate => {
                let part =
                    |r: std::ops::Range<usize>| a.get(r).map(|x| x.join(", ")).unwrap_or_default();
                format!(
                    "workgroupMatrixMultiplyAccumulate<{}, {}, {}>({}, {}, {}, {}, {})",
                    h.k,
                    major(0),
                    major(1),
                    array(0),
                    part(0..2),
                    array(1),
                    part(2..4),
                    part(4..5)
                )
            }
        }
    }
}

pub(crate) fn write_function(
    w: &Writer<'_>,
    id: FuncId,
    f: &Function,
    entry: Option<&ir::EntryPoint>,
) -> Res<String> {
    let mut fw =
        FnWriter { w, b: Body::new(f, &w.m.types, &w.names), matrix_vars: Default::default() };
    if let Some(e) = entry {
        fw.b.out.push_str(&w.entry_attrs(e));
    }
    let mut params = Vec::new();
    for p in &f.params {
        // The index the extension layer added for its helpers, which print as builtins.
        if w.tiles() && entry.is_some() && p.name == tile::LID_PARAM {
            continue;
        }
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
    fw.function_body()?;
    Ok(fw.b.out)
}

impl FnWriter<'_> {
    /// When `v` is an integer constant with a zero component, or a vector built from parts of
    /// which one is (naga looks through constructors too): its text with ones there.
    fn zero_divisor(&self, v: ValueId) -> Option<String> {
        if let Some(Op::Compose(parts)) = self.b.defs.get(&v) {
            let texts: Vec<Option<String>> = parts.iter().map(|p| self.zero_divisor(*p)).collect();
            if texts.iter().all(Option::is_none) {
                return None;
            }
            let ty = self.w.ty(self.b.ty(v));
            let args: Vec<String> =
                parts.iter().zip(texts).map(|(p, t)| t.unwrap_or_else(|| self.val(*p))).collect();
            return Some(format!("{ty}({})", args.join(", ")));
        }
        let Some(Op::Const(c)) = self.b.defs.get(&v) else { return None };
        let types = &self.w.m.types;
        fn ones(types: &ir::Types, c: &ConstValue) -> Option<ConstValue> {
            use ir::Scalar as S;
            let one = |s: S| match s {
                S::I32 => Some(ConstValue::I32(1)),
                S::U32 => Some(ConstValue::U32(1)),
                _ => None,
            };
            match c {
                ConstValue::I32(0) => Some(ConstValue::I32(1)),
                ConstValue::U32(0) => Some(ConstValue::U32(1)),
                ConstValue::Composite(t, parts) => {
                    let mut changed = false;
                    let parts = parts
                        .iter()
                        .map(|p| match ones(types, p) {
                            Some(q) => {
                                changed = true;
                                q
                            }
                            None => p.clone(),
                        })
                        .collect();
                    changed.then_some(ConstValue::Composite(*t, parts))
                }
                ConstValue::Zero(t) => match types.get(*t) {
                    Type::Scalar(s) => one(*s),
                    Type::Vector { size, scalar } => {
                        Some(ConstValue::Composite(*t, vec![one(*scalar)?; *size as usize]))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        ones(types, c).map(|c| self.constant(&c))
    }
}

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
        format!("(*{pointer})")
    }

    fn address_of(&self, place: String) -> String {
        format!("&{place}")
    }

    fn let_decl(&self, name: &str, value: &str) -> String {
        format!("let {name} = {value};")
    }

    fn var_decl(&self, name: &str, ty: TypeId, init: Option<&str>) -> String {
        match init {
            Some(init) => format!("var {name} = {init};"),
            None => format!("var {name}: {};", self.w.ty(ty)),
        }
    }

    fn copy_decl(&self, name: &str, value: &str) -> String {
        format!("var {name} = {value};")
    }

    fn local_decl(&self, name: &str, ty: TypeId) -> String {
        self.var_decl(name, ty, None)
    }

    fn omits_zero_initializers(&self) -> bool {
        true
    }

    fn inlines_negated_conditions(&self) -> bool {
        true
    }

    fn condition(&self, expr: &str) -> String {
        expr.to_string()
    }

    fn case_labels(&self, case: &SwitchCase, unsigned: bool) -> Vec<String> {
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
        vec![head]
    }

    fn case_falls_through(&self) -> bool {
        false
    }

    fn loop_open(&mut self, depth: usize, _has_continuing: bool) -> String {
        self.b.line(depth, "loop {");
        String::new()
    }

    fn continuing_first(&self) -> bool {
        false
    }

    fn continuing_open(&self, _label: &str) -> String {
        "continuing {".into()
    }

    fn continuing_close(&self, _label: &str) -> Option<String> {
        None
    }

    fn break_if(&self, cond: &str) -> String {
        format!("break if {cond};")
    }

    fn return_value(&self, v: ValueId) -> String {
        format!("return {};", self.val(v))
    }

    fn discard(&self) -> &'static str {
        "discard;"
    }

    fn barrier(&self, kind: BarrierKind) -> &'static str {
        match kind {
            BarrierKind::Workgroup => "workgroupBarrier();",
            BarrierKind::Storage => "storageBarrier();",
            BarrierKind::Subgroup => "subgroupBarrier();",
            BarrierKind::Texture => "textureBarrier();",
        }
    }

    fn atomic(&self, access: AtomicAccess, place: &str, operands: &[String]) -> String {
        let f = match access {
            AtomicAccess::Load => "atomicLoad",
            AtomicAccess::Store => "atomicStore",
            AtomicAccess::Rmw(op) => match op {
                ir::AtomicOp::Add => "atomicAdd",
                ir::AtomicOp::Sub => "atomicSub",
                ir::AtomicOp::And => "atomicAnd",
                ir::AtomicOp::Or => "atomicOr",
                ir::AtomicOp::Xor => "atomicXor",
                ir::AtomicOp::Min => "atomicMin",
                ir::AtomicOp::Max => "atomicMax",
                ir::AtomicOp::Exchange => "atomicExchange",
            },
        };
        let mut args = vec![format!("&{place}")];
        args.extend_from_slice(operands);
        format!("{f}({})", args.join(", "))
    }

    fn subgroup_name(
        &self,
        op: SubgroupOperation,
        kind: CollectiveOperation,
    ) -> Option<&'static str> {
        subgroup_name(op, kind)
    }

    fn skip_store(&self, ptr: ValueId) -> bool {
        matches!(self.b.defs.get(&ptr), Some(Op::GlobalAddr(g)) if self.w.is_tile_lid(*g))
    }

    fn statement(&mut self, inst: &Inst, depth: usize) -> Res<bool> {
        if self.w.opts.portable_matrices && self.portable_statement(inst, depth)? {
            return Ok(true);
        }
        let text = match &inst.op {
            Op::ImageStore { image, coordinate, array_index, value } => {
                let mut args = vec![self.val(*image), self.val(*coordinate)];
                if let Some(a) = array_index {
                    args.push(self.val(*a));
                }
                args.push(self.val(*value));
                format!("textureStore({});", args.join(", "))
            }
            Op::CoopStore { value, ptr, stride, row_major, .. } if self.dawn() => {
                let (array, offset) = self.dawn_tile(*ptr, inst.span)?;
                format!(
                    "subgroupMatrixStore<{}>({array}, {offset}, {}, {});",
                    majorness(*row_major),
                    self.val(*value),
                    self.u32_operand(*stride)
                )
            }
            Op::CoopStore { value, ptr, stride, row_major, .. } => {
                let f = if *row_major { "coopStoreT" } else { "coopStore" };
                format!("{f}({}, &{}, {});", self.val(*value), self.place(*ptr), self.val(*stride))
            }
            _ => return Ok(false),
        };
        self.b.line(depth, &text);
        Ok(true)
    }

    fn expr(&self, op: &Op, result: Option<ValueId>, span: ir::Span) -> Res<String> {
        let types = &self.w.m.types;
        let v = |x: &ValueId| self.val(*x);
        if let Some(text) = self.naga_64_bit_spelling(op) {
            return Ok(text);
        }
        Ok(match op {
            Op::Unary(o, a) => {
                let sym = match o {
                    naga::UnaryOperator::Negate => "-",
                    naga::UnaryOperator::LogicalNot => "!",
                    naga::UnaryOperator::BitwiseNot => "~",
                };
                format!("{sym}({})", v(a))
            }
            // naga rejects an integer `/` or `%` by a constant with a zero component; WGSL
            // defines `x / 0` as `x / 1` and `x % 0` as `x % 1`, so print the ones.
            Op::Binary(o @ (naga::BinaryOperator::Divide | naga::BinaryOperator::Modulo), a, b)
                if self.zero_divisor(*b).is_some() =>
            {
                let ones = self.zero_divisor(*b).unwrap_or_default();
                format!("({} {} {ones})", v(a), binary_symbol(*o))
            }
            Op::Binary(o, a, b) => format!("({} {} {})", v(a), binary_symbol(*o), v(b)),
            Op::Select { cond, accept, reject } => {
                format!("select({}, {}, {})", v(reject), v(accept), v(cond))
            }
            Op::Compose(parts) => {
                let t = self.result_ty(result, "a compose", span)?;
                format!("{}({})", self.w.ty(t), self.vals(parts))
            }
            Op::Convert(a, to) => match types.get(self.b.ty(*a)) {
                Type::Vector { size, .. } => format!("{}({})", shaped(*to, Some(*size)), v(a)),
                // `mat3x2<f16>(m)`: a matrix converts (or is copied) with its own constructor.
                Type::Matrix { .. } => {
                    let t = self.result_ty(result, "a matrix conversion", span)?;
                    format!("{}({})", self.w.ty(t), v(a))
                }
                _ => format!("{}({})", shaped(*to, None), v(a)),
            },
            Op::Bitcast(a) => {
                let t = self.result_ty(result, "a bitcast", span)?;
                format!("bitcast<{}>({})", self.w.ty(t), v(a))
            }
            Op::Math(fun, args) => {
                let name = fun
                    .try_to_wgsl()
                    .ok_or_else(|| self.unsupported(&format!("the math function {fun:?}"), span))?;
                format!("{name}({})", self.vals(args))
            }
            Op::Relational(fun, a) => match fun {
                naga::RelationalFunction::All => format!("all({})", v(a)),
                naga::RelationalFunction::Any => format!("any({})", v(a)),
                other => {
                    return Err(
                        self.unsupported(&format!("the relational function {other:?}"), span)
                    )
                }
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
                            return Err(
                                self.unsupported("a depth comparison with an explicit level", span)
                            )
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
            Op::CoopLoad { ptr, stride, row_major, .. } if self.dawn() => {
                let t = self.result_ty(result, "a subgroupMatrixLoad", span)?;
                let (array, offset) = self.dawn_tile(*ptr, span)?;
                format!(
                    "subgroupMatrixLoad<{}, {}>({array}, {offset}, {})",
                    self.w.ty(t),
                    majorness(*row_major),
                    self.u32_operand(*stride)
                )
            }
            Op::CoopMultiplyAdd(a, b, c) if self.dawn() => {
                format!("subgroupMatrixMultiplyAccumulate({}, {}, {})", v(a), v(b), v(c))
            }
            Op::CoopFill(x) if self.dawn() => {
                let t = self.result_ty(result, "a matrix fill", span)?;
                format!("{}({})", self.w.ty(t), v(x))
            }
            Op::CoopScalar { op, matrix, scalar } if self.dawn() => {
                let f = match op {
                    naga::BinaryOperator::Add => "subgroupMatrixScalarAdd",
                    naga::BinaryOperator::Subtract => "subgroupMatrixScalarSubtract",
                    naga::BinaryOperator::Multiply => "subgroupMatrixScalarMultiply",
                    _ => return Err(self.unsupported(&format!("a matrix-scalar {op:?}"), span)),
                };
                format!("{f}({}, {})", v(matrix), v(scalar))
            }
            Op::CoopLoad { ptr, stride, row_major, .. } => {
                let t = self.result_ty(result, "a coopLoad", span)?;
                let f = if *row_major { "coopLoadT" } else { "coopLoad" };
                format!("{f}<{}>(&{}, {})", self.w.ty(t), self.place(*ptr), v(stride))
            }
            Op::CoopMultiplyAdd(a, b, c) => {
                format!("coopMultiplyAdd({}, {}, {})", v(a), v(b), v(c))
            }
            Op::Call(fid, args) if self.w.tiles() && self.w.m.tile_helper(*fid).is_some() => {
                let h =
                    self.w.m.tile_helper(*fid).ok_or_else(|| self.unsupported("a helper", span))?;
                self.tile_call(h, args)
            }
            Op::Call(fid, args) => {
                let name = self
                    .w
                    .names
                    .functions
                    .get(fid.index())
                    .cloned()
                    .ok_or_else(|| self.unsupported("a call to a missing function", span))?;
                format!("{name}({})", self.vals(args))
            }
            Op::GlobalAddr(_) | Op::LocalAddr(_) | Op::Access(..) | Op::AccessIndex(..) => {
                return Err(self.unsupported("a pointer held in a value", span))
            }
            _ => return Err(self.unsupported(&format!("{op:?}"), span)),
        })
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
