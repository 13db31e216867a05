//! Constant expressions (module constants, global initializers, function-level constant
//! expressions naga does not emit) to [`ConstValue`]s.

use super::types::TypeLowerer;
use crate::ir::{self, ConstValue};
use crate::{DiagKind, Diagnostic};
use naga::{Arena, Expression, Handle, Literal};

/// Evaluates naga constant expressions, caching module constants by handle.
pub(super) struct Consts<'m> {
    module: &'m naga::Module,
    cache: Vec<Option<ConstValue>>,
}

impl<'m> Consts<'m> {
    /// An evaluator for `module`'s constants.
    pub fn new(module: &'m naga::Module) -> Self {
        Consts { module, cache: vec![None; module.constants.len()] }
    }

    /// The value of a module constant.
    pub fn constant(
        &mut self,
        tl: &mut TypeLowerer,
        c: Handle<naga::Constant>,
    ) -> Result<ConstValue, Diagnostic> {
        if let Some(Some(v)) = self.cache.get(c.index()) {
            return Ok(v.clone());
        }
        let module = self.module;
        let init = module.constants[c].init;
        let v = self.eval(tl, &module.global_expressions, init)?.ok_or_else(|| {
            let span = module.global_expressions.get_span(init);
            Diagnostic::error(DiagKind::Internal, "constant initializer was not evaluated")
                .at(span.into())
                .help("report this as a dianran bug together with the shader")
        })?;
        if let Some(slot) = self.cache.get_mut(c.index()) {
            *slot = Some(v.clone());
        }
        Ok(v)
    }

    /// Evaluates expression `h` of `arena` if it is a constant (literal, constant, zero value,
    /// or a compose/splat of constants); `Ok(None)` when it is not one.
    pub fn eval(
        &mut self,
        tl: &mut TypeLowerer,
        arena: &Arena<Expression>,
        h: Handle<Expression>,
    ) -> Result<Option<ConstValue>, Diagnostic> {
        let span: ir::Span = arena.get_span(h).into();
        let at = |d: Diagnostic| if d.span.is_none() { d.at(span) } else { d };
        let v = match arena[h] {
            Expression::Literal(lit) => literal(lit).map_err(at)?,
            Expression::Constant(c) => self.constant(tl, c).map_err(at)?,
            Expression::ZeroValue(ty) => ConstValue::Zero(tl.handle(ty).map_err(at)?),
            Expression::Compose { ty, ref components } => {
                let tid = tl.handle(ty).map_err(at)?;
                let is_vector = matches!(tl.types.get(tid), ir::Type::Vector { .. });
                let mut parts = Vec::with_capacity(components.len());
                for &c in components {
                    let Some(part) = self.eval(tl, arena, c)? else { return Ok(None) };
                    if is_vector {
                        flatten_into(&tl.types, part, &mut parts);
                    } else {
                        parts.push(part);
                    }
                }
                ConstValue::Composite(tid, parts)
            }
            Expression::Splat { size, value } => {
                let Some(part) = self.eval(tl, arena, value)? else { return Ok(None) };
                let Some(s) = const_scalar(&tl.types, &part) else {
                    return Err(Diagnostic::error(DiagKind::Internal, "splat of a non-scalar")
                        .at(span)
                        .help("report this as a dianran bug together with the shader"));
                };
                let tid = tl.intern(ir::Type::Vector { size: size as u8, scalar: s });
                ConstValue::Composite(tid, vec![part; size as usize])
            }
            Expression::Override(_) => {
                return Err(Diagnostic::error(
                    DiagKind::Override,
                    "an override was not resolved before lowering",
                )
                .at(span)
                .help("give the override a value with `--override NAME=VALUE`"))
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }
}

/// A literal as a constant; 16-bit integer and abstract literals are errors.
pub(super) fn literal(lit: Literal) -> Result<ConstValue, Diagnostic> {
    let unsupported =
        |msg: &str, help: &str| Diagnostic::error(DiagKind::Unsupported, msg).help(help);
    Ok(match lit {
        Literal::Bool(b) => ConstValue::Bool(b),
        Literal::I32(v) => ConstValue::I32(v),
        Literal::U32(v) => ConstValue::U32(v),
        Literal::F32(v) => ConstValue::F32(v.to_bits()),
        Literal::F16(v) => ConstValue::F16(v.to_bits()),
        Literal::F64(v) => ConstValue::F64(v.to_bits()),
        Literal::I64(v) => ConstValue::I64(v),
        Literal::U64(v) => ConstValue::U64(v),
        Literal::I16(_) | Literal::U16(_) => {
            return Err(unsupported(
                "integers narrower than 32 bits are not supported",
                "use i32 or u32",
            ))
        }
        Literal::AbstractInt(_) | Literal::AbstractFloat(_) => {
            return Err(Diagnostic::error(
                DiagKind::Internal,
                "an abstract literal survived validation",
            )
            .help("give the value a concrete type (`1i`, `1u`, `1.0f`) as a workaround"))
        }
    })
}

/// The zero constant of a scalar.
pub(super) fn zero_scalar(s: ir::Scalar) -> ConstValue {
    match s {
        ir::Scalar::Bool => ConstValue::Bool(false),
        ir::Scalar::I32 => ConstValue::I32(0),
        ir::Scalar::U32 => ConstValue::U32(0),
        ir::Scalar::F32 => ConstValue::F32(0),
        ir::Scalar::F16 => ConstValue::F16(0),
        ir::Scalar::I64 => ConstValue::I64(0),
        ir::Scalar::U64 => ConstValue::U64(0),
        ir::Scalar::F64 => ConstValue::F64(0),
    }
}

/// The scalar type of a scalar constant.
fn const_scalar(types: &ir::Types, c: &ConstValue) -> Option<ir::Scalar> {
    match c {
        ConstValue::Bool(_) => Some(ir::Scalar::Bool),
        ConstValue::I32(_) => Some(ir::Scalar::I32),
        ConstValue::U32(_) => Some(ir::Scalar::U32),
        ConstValue::F32(_) => Some(ir::Scalar::F32),
        ConstValue::F16(_) => Some(ir::Scalar::F16),
        ConstValue::I64(_) => Some(ir::Scalar::I64),
        ConstValue::U64(_) => Some(ir::Scalar::U64),
        ConstValue::F64(_) => Some(ir::Scalar::F64),
        ConstValue::Zero(t) => match types.get(*t) {
            ir::Type::Scalar(s) => Some(*s),
            _ => None,
        },
        ConstValue::Composite(..) => None,
    }
}

/// Appends the scalar components of `part` (a scalar or vector constant) to `out`, so a
/// vector constant always lists exactly its components.
fn flatten_into(types: &ir::Types, part: ConstValue, out: &mut Vec<ConstValue>) {
    match part {
        ConstValue::Composite(t, inner) if matches!(types.get(t), ir::Type::Vector { .. }) => {
            for p in inner {
                flatten_into(types, p, out);
            }
        }
        ConstValue::Zero(t) => match *types.get(t) {
            ir::Type::Vector { size, scalar } => {
                out.extend(std::iter::repeat_n(zero_scalar(scalar), size as usize))
            }
            ir::Type::Scalar(s) => out.push(zero_scalar(s)),
            _ => out.push(ConstValue::Zero(t)),
        },
        other => out.push(other),
    }
}
