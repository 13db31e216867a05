//! naga expressions to IR instructions.

use super::consts::literal;
use super::func::FnLowerer;
use super::types::{scalar, scalar_of_kind};
use crate::ir::{self, Op, Span, ValueId};
use crate::{DiagKind, Diagnostic};
use naga::{BinaryOperator, Expression, Handle, TypeInner};

/// Whether `e` is defined by a statement (a call, an atomic, ...) rather than evaluated.
pub(super) fn is_statement_result(e: &Expression) -> bool {
    matches!(
        e,
        Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
            | Expression::RayQueryProceedResult
    )
}

impl FnLowerer<'_, '_> {
    /// The IR value of expression `h`. Expressions naga evaluates before any statement
    /// (constants, addresses, arguments) are lowered on first use into the prologue at the top
    /// of the body, so they dominate every use; emitted expressions must already have been
    /// lowered by their `Emit` statement.
    pub fn value(&mut self, h: Handle<Expression>) -> Result<ValueId, Diagnostic> {
        if let Some(Some(v)) = self.values.get(h.index()) {
            return Ok(*v);
        }
        let span = self.expr_span(h);
        if self.emitted.get(h.index()).copied().unwrap_or(false) {
            // naga emits some constant expressions (a `var`'s initializer, for one) that are
            // also used before their `Emit`; they depend on nothing, so evaluate them once in
            // the prologue (their `Emit` then finds them done).
            if self.kinds.is_const_or_override(h) {
                return self.lower_expr(h, true);
            }
            return Err(self.internal("expression used before its evaluation", span));
        }
        if is_statement_result(&self.fun.expressions[h]) {
            return Err(self.internal("result used before the statement that defines it", span));
        }
        self.lower_expr(h, true)
    }

    /// Lowers expression `h` into the current block, or into the prologue when `prologue`.
    pub fn lower_expr(
        &mut self,
        h: Handle<Expression>,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let span = self.expr_span(h);
        let p = prologue;
        let fun = self.fun;
        let op = match fun.expressions[h] {
            Expression::Literal(lit) => Op::Const(literal(lit).map_err(|d| self.fix(d, span))?),
            Expression::Constant(c) => {
                let v = self.cx.consts.constant(&mut self.cx.tl, c);
                Op::Const(v.map_err(|d| self.fix(d, span))?)
            }
            Expression::Override(_) => {
                return Err(self.error(
                    DiagKind::Override,
                    "an override was not resolved before lowering",
                    span,
                    "give the override a value with `--override NAME=VALUE`",
                ))
            }
            Expression::ZeroValue(ty) => {
                let t = self.cx.tl.handle(ty).map_err(|d| self.fix(d, span))?;
                Op::Const(ir::ConstValue::Zero(t))
            }
            Expression::Compose { ref components, .. } => {
                if let Some(c) = self.try_const(h, p)? {
                    c
                } else {
                    let mut vals = Vec::with_capacity(components.len());
                    for &c in components {
                        vals.push(self.value(c)?);
                    }
                    Op::Compose(vals)
                }
            }
            Expression::Splat { value, .. } => match self.try_const(h, p)? {
                Some(c) => c,
                None => Op::Splat(self.value(value)?),
            },
            Expression::Access { base, index } => {
                let (b, i) = (self.value(base)?, self.value(index)?);
                let i = self.narrow_index(i, span, p)?;
                if self.is_pointer(base) {
                    Op::Access(b, i)
                } else {
                    Op::ExtractDyn(b, i)
                }
            }
            Expression::AccessIndex { base, index } => {
                let b = self.value(base)?;
                if self.is_pointer(base) {
                    Op::AccessIndex(b, index)
                } else {
                    Op::Extract(b, index)
                }
            }
            Expression::Swizzle { size, vector, pattern } => {
                let v = self.value(vector)?;
                let pattern = pattern.iter().take(size as usize).map(|c| *c as u8).collect();
                Op::Swizzle(v, pattern)
            }
            Expression::FunctionArgument(i) => {
                let Some(param) = self.out.params.get(i as usize) else {
                    return Err(self.internal("argument index out of range", span));
                };
                let v = param.value;
                self.set_value(h, v);
                return Ok(v);
            }
            Expression::GlobalVariable(g) => {
                if let Some(&v) = self.global_addrs.get(&g.index()) {
                    self.set_value(h, v);
                    return Ok(v);
                }
                // Always in the prologue: one address per global, dominating every use.
                let v = self.define(h, Op::GlobalAddr(ir::GlobalId(g.index() as u32)), true)?;
                self.global_addrs.insert(g.index(), v);
                return Ok(v);
            }
            Expression::LocalVariable(l) => {
                let Some(&v) = self.local_addrs.get(l.index()) else {
                    return Err(self.internal("local variable out of range", span));
                };
                self.set_value(h, v);
                return Ok(v);
            }
            Expression::Load { pointer } => Op::Load(self.value(pointer)?),
            Expression::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            } => {
                if clamp_to_edge {
                    return Err(self.error(
                        DiagKind::Unsupported,
                        "textureSampleBaseClampToEdge is not supported",
                        span,
                        "clamp the coordinates yourself and use textureSampleLevel(.., 0.0)",
                    ));
                }
                let level = match level {
                    naga::SampleLevel::Auto => ir::SampleLevel::Auto,
                    naga::SampleLevel::Zero => ir::SampleLevel::Zero,
                    naga::SampleLevel::Exact(l) => ir::SampleLevel::Exact(self.value(l)?),
                    naga::SampleLevel::Bias(l) => ir::SampleLevel::Bias(self.value(l)?),
                    naga::SampleLevel::Gradient { x, y } => {
                        ir::SampleLevel::Gradient { x: self.value(x)?, y: self.value(y)? }
                    }
                };
                Op::ImageSample {
                    image: self.value(image)?,
                    sampler: self.value(sampler)?,
                    coordinate: self.value(coordinate)?,
                    array_index: self.opt_value(array_index)?,
                    offset: self.opt_value(offset)?,
                    level,
                    depth_ref: self.opt_value(depth_ref)?,
                    gather: gather.map(|g| g as u8),
                }
            }
            Expression::ImageLoad { image, coordinate, array_index, sample, level } => {
                Op::ImageLoad {
                    image: self.value(image)?,
                    coordinate: self.value(coordinate)?,
                    array_index: self.opt_value(array_index)?,
                    sample: self.opt_value(sample)?,
                    level: self.opt_value(level)?,
                }
            }
            Expression::ImageQuery { image, query } => {
                let img = self.value(image)?;
                let q = match query {
                    naga::ImageQuery::Size { level } => {
                        ir::ImageQuery::Size { level: self.opt_value(level)? }
                    }
                    naga::ImageQuery::NumLevels => ir::ImageQuery::NumLevels,
                    naga::ImageQuery::NumLayers => ir::ImageQuery::NumLayers,
                    naga::ImageQuery::NumSamples => ir::ImageQuery::NumSamples,
                };
                Op::ImageQuery(img, q)
            }
            Expression::Unary { op, expr } => Op::Unary(op, self.value(expr)?),
            Expression::Binary { op, left, right } => {
                return self.binary(h, op, left, right, p);
            }
            Expression::Select { condition, accept, reject } => Op::Select {
                cond: self.value(condition)?,
                accept: self.value(accept)?,
                reject: self.value(reject)?,
            },
            Expression::Derivative { axis, ctrl, expr } => {
                Op::Derivative(axis, ctrl, self.value(expr)?)
            }
            Expression::Relational { fun, argument } => Op::Relational(fun, self.value(argument)?),
            Expression::Math { fun, arg, arg1, arg2, arg3 } => {
                let mut args = vec![self.value(arg)?];
                for a in [arg1, arg2, arg3].into_iter().flatten() {
                    args.push(self.value(a)?);
                }
                Op::Math(fun, args)
            }
            Expression::As { expr, kind, convert } => {
                let v = self.value(expr)?;
                match convert {
                    Some(width) => {
                        let s = scalar_of_kind(kind, width).map_err(|d| self.fix(d, span))?;
                        Op::Convert(v, s)
                    }
                    None => Op::Bitcast(v),
                }
            }
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => {
                return Err(self.internal("result used before the statement that defines it", span))
            }
            Expression::ArrayLength(e) => Op::ArrayLength(self.value(e)?),
            Expression::RayQueryVertexPositions { .. }
            | Expression::RayQueryProceedResult
            | Expression::RayQueryGetIntersection { .. } => {
                return Err(self.error(
                    DiagKind::Unsupported,
                    "ray queries are not supported",
                    span,
                    "dianran supports compute, vertex and fragment shaders without ray queries",
                ))
            }
            Expression::CooperativeLoad { data, .. } => Op::CoopLoad {
                ptr: self.value(data.pointer)?,
                stride: self.value(data.stride)?,
                row_major: data.row_major,
                limit: None,
            },
            Expression::CooperativeMultiplyAdd { a, b, c } => {
                Op::CoopMultiplyAdd(self.value(a)?, self.value(b)?, self.value(c)?)
            }
        };
        self.define(h, op, p)
    }

    /// The values of optional operands.
    pub fn opt_value(
        &mut self,
        h: Option<Handle<Expression>>,
    ) -> Result<Option<ValueId>, Diagnostic> {
        h.map(|h| self.value(h)).transpose()
    }

    /// Whether expression `h` is a pointer (as opposed to a value).
    fn is_pointer(&self, h: Handle<Expression>) -> bool {
        matches!(self.inner_of(h), TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. })
    }

    /// A constant for a compose/splat of constants that naga evaluated before any statement.
    fn try_const(
        &mut self,
        h: Handle<Expression>,
        prologue: bool,
    ) -> Result<Option<Op>, Diagnostic> {
        if !prologue {
            return Ok(None);
        }
        let span = self.expr_span(h);
        let fun = self.fun;
        let c = self.cx.consts.eval(&mut self.cx.tl, &fun.expressions, h);
        Ok(c.map_err(|d| self.fix(d, span))?.map(Op::Const))
    }

    /// A binary operation; a scalar operand of a component-wise operation on vectors is
    /// splatted first. `Mul` with a matrix operand keeps its linear-algebra form.
    fn binary(
        &mut self,
        h: Handle<Expression>,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let span = self.expr_span(h);
        let mut l = self.value(left)?;
        let mut r = self.value(right)?;
        let (li, ri) = (self.inner_of(left), self.inner_of(right));
        let is_mat = |t: &TypeInner| matches!(t, TypeInner::Matrix { .. });
        let linear = op == BinaryOperator::Multiply && (is_mat(li) || is_mat(ri));
        if !linear {
            match (li, ri) {
                (TypeInner::Vector { size, .. }, TypeInner::Scalar(s)) => {
                    r = self.splat(r, *size, *s, span, prologue)?;
                }
                (TypeInner::Scalar(s), TypeInner::Vector { size, .. }) => {
                    l = self.splat(l, *size, *s, span, prologue)?;
                }
                _ => {}
            }
        }
        self.define(h, Op::Binary(op, l, r), prologue)
    }

    /// Splats scalar `v` (of naga scalar type `s`) to a vector of `size`.
    fn splat(
        &mut self,
        v: ValueId,
        size: naga::VectorSize,
        s: naga::Scalar,
        span: Span,
        prologue: bool,
    ) -> Result<ValueId, Diagnostic> {
        let s = scalar(s).map_err(|d| self.fix(d, span))?;
        let ty = self.cx.tl.intern(ir::Type::Vector { size: size as u8, scalar: s });
        self.push(Op::Splat(v), Some(ty), None, span, prologue)
            .ok_or_else(|| self.internal("splat without a result", span))
    }
}
