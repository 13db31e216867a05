//! naga types, scalars, address spaces and bindings to their IR counterparts.

use crate::ir::{self, TypeId};
use crate::{DiagKind, Diagnostic};
use naga::proc::{Layouter, TypeResolution};
use naga::{Handle, TypeInner};

/// Converts naga types to interned IR types, caching by naga handle.
pub(super) struct TypeLowerer<'m> {
    module: &'m naga::Module,
    /// The user's text, which naga's spans index (for `@align` attributes, see
    /// [`declared_align`]).
    source: &'m str,
    layouter: Layouter,
    cache: Vec<Option<TypeId>>,
    /// Dawn's subgroup matrices: the opaque structs that stand for matrix types.
    sgm: Option<&'m crate::ext::sgm::Rewrite>,
    /// The IR type table being built.
    pub types: ir::Types,
}

impl<'m> TypeLowerer<'m> {
    /// Lays out every type of `module` (naga's WGSL host-shareable rules).
    pub fn new(
        module: &'m naga::Module,
        source: &'m str,
        sgm: Option<&'m crate::ext::sgm::Rewrite>,
    ) -> Result<Self, Diagnostic> {
        let mut layouter = Layouter::default();
        layouter.update(module.to_ctx()).map_err(|e| {
            Diagnostic::error(DiagKind::Internal, format!("type layout failed: {e}"))
                .help("report this as a dianran bug together with the shader")
        })?;
        Ok(TypeLowerer {
            module,
            source,
            layouter,
            cache: vec![None; module.types.len()],
            sgm,
            types: ir::Types::default(),
        })
    }

    /// The IR type of a naga type handle.
    pub fn handle(&mut self, h: Handle<naga::Type>) -> Result<TypeId, Diagnostic> {
        if let Some(Some(id)) = self.cache.get(h.index()) {
            return Ok(*id);
        }
        let module = self.module;
        let span = ir::Span::from(module.types.get_span(h));
        let ty = &module.types[h];
        let id = self.inner(&ty.inner, Some(h)).map_err(|d| {
            if d.span.is_none() {
                d.at(span)
            } else {
                d
            }
        })?;
        if let Some(slot) = self.cache.get_mut(h.index()) {
            *slot = Some(id);
        }
        Ok(id)
    }

    /// The value of an override that sizes an array, when it is a positive integer literal.
    fn override_len(&self, o: Handle<naga::Override>) -> Option<u32> {
        let init = self.module.overrides.try_get(o).ok()?.init?;
        let v = match self.module.global_expressions.try_get(init).ok()? {
            naga::Expression::Literal(naga::Literal::U32(v)) => i64::from(*v),
            naga::Expression::Literal(naga::Literal::I32(v)) => i64::from(*v),
            naga::Expression::Literal(naga::Literal::AbstractInt(v)) => *v,
            _ => return None,
        };
        u32::try_from(v).ok().filter(|&n| n > 0)
    }

    /// The subgroup matrix type an opaque struct stands for.
    fn sgm_matrix(&self, h: Option<Handle<naga::Type>>) -> Option<crate::ext::sgm::MatTy> {
        let name = self.module.types[h?].name.as_deref()?;
        self.sgm?.structs.get(name).copied()
    }

    /// Whether an IR type holds a `bool` (directly, or in an array or struct).
    fn contains_bool(&self, ty: TypeId) -> bool {
        match self.types.get(ty) {
            ir::Type::Scalar(ir::Scalar::Bool) => true,
            ir::Type::Vector { scalar, .. } => *scalar == ir::Scalar::Bool,
            ir::Type::Array { base, .. } => self.contains_bool(*base),
            ir::Type::Struct { members, .. } => members.iter().any(|m| self.contains_bool(m.ty)),
            _ => false,
        }
    }

    /// The IR type of a type resolution from naga's validator.
    pub fn resolution(&mut self, r: &TypeResolution) -> Result<TypeId, Diagnostic> {
        match r {
            TypeResolution::Handle(h) => self.handle(*h),
            TypeResolution::Value(inner) => self.inner(inner, None),
        }
    }

    /// The IR type of a `TypeInner`; `h` is its arena handle when it has one (structs need it
    /// for their name and alignment).
    fn inner(
        &mut self,
        inner: &TypeInner,
        h: Option<Handle<naga::Type>>,
    ) -> Result<TypeId, Diagnostic> {
        let ty = match *inner {
            TypeInner::Scalar(s) => ir::Type::Scalar(scalar(s)?),
            TypeInner::Vector { size, scalar: s } => {
                ir::Type::Vector { size: size as u8, scalar: scalar(s)? }
            }
            TypeInner::Matrix { columns, rows, scalar: s } => {
                ir::Type::Matrix { columns: columns as u8, rows: rows as u8, scalar: scalar(s)? }
            }
            TypeInner::CooperativeMatrix { columns, rows, scalar: s, role } => {
                let s = scalar(s)?;
                ir::Type::CoopMatrix {
                    columns: columns as u8,
                    rows: rows as u8,
                    elem: ir::CoopElem::of_scalar(s).ok_or_else(|| {
                        Diagnostic::error(
                            DiagKind::Unsupported,
                            "cooperative matrix of this element type",
                        )
                        .help("use f16 or f32 elements")
                    })?,
                    role: match role {
                        naga::CooperativeRole::A => ir::CoopRole::A,
                        naga::CooperativeRole::B => ir::CoopRole::B,
                        naga::CooperativeRole::C => ir::CoopRole::C,
                    },
                }
            }
            TypeInner::Atomic(s) => ir::Type::Atomic(scalar(s)?),
            TypeInner::Pointer { base, space: sp } => {
                ir::Type::Pointer { base: self.handle(base)?, space: space(sp)? }
            }
            TypeInner::ValuePointer { size, scalar: s, space: sp } => {
                let s = scalar(s)?;
                let base = match size {
                    Some(n) => self.types.intern(ir::Type::Vector { size: n as u8, scalar: s }),
                    None => self.types.scalar(s),
                };
                ir::Type::Pointer { base, space: space(sp)? }
            }
            TypeInner::Array { base, size, stride } => {
                let len = match size {
                    naga::ArraySize::Constant(n) => Some(n.get()),
                    naga::ArraySize::Dynamic => None,
                    // naga's `process_overrides` leaves override-sized arrays pending; the
                    // override's value, once resolved to a literal, is the length.
                    naga::ArraySize::Pending(o) if self.override_len(o).is_some() => {
                        self.override_len(o)
                    }
                    naga::ArraySize::Pending(_) => {
                        return Err(Diagnostic::error(
                            DiagKind::Override,
                            "array size depends on an override without a value",
                        )
                        .help("give the override a value with `--override NAME=VALUE`"))
                    }
                };
                let base = self.handle(base)?;
                // naga lays `bool` out as one byte; dianran stores it as a 4-byte word (docs/abi.md,
                // layouts), so arrays of (structs of) bools get their stride from the IR layout.
                // Such types are never host-shareable, so no buffer layout changes.
                let stride = if self.contains_bool(base) {
                    let (size, align) = self.types.size_align(base);
                    size.div_ceil(align.max(1)) * align.max(1)
                } else {
                    stride
                };
                ir::Type::Array { base, len, stride }
            }
            TypeInner::Struct { .. } if self.sgm_matrix(h).is_some() => {
                let m = self.sgm_matrix(h).ok_or_else(|| {
                    Diagnostic::error(DiagKind::Internal, "subgroup matrix struct vanished")
                })?;
                ir::Type::CoopMatrix {
                    columns: m.cols,
                    rows: m.rows,
                    elem: m.elem,
                    role: m.kind.role(),
                }
            }
            TypeInner::Struct { ref members, span } => {
                let Some(h) = h else {
                    return Err(Diagnostic::error(
                        DiagKind::Internal,
                        "struct type without a handle",
                    )
                    .help("report this as a dianran bug together with the shader"));
                };
                let mut out = Vec::with_capacity(members.len());
                for (i, m) in members.iter().enumerate() {
                    out.push(ir::Member {
                        name: m.name.clone().unwrap_or_else(|| format!("member{i}")),
                        ty: self.handle(m.ty)?,
                        offset: m.offset,
                        binding: m.binding.as_ref().map(io_binding),
                    });
                }
                let name = self.module.types[h]
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("struct{}", h.index()));
                // `round_up(1)` of an alignment is the alignment itself. naga's layouter
                // takes the widest member type, but WGSL's AlignOf(struct) also counts
                // `@align(N)` on members, which naga's IR drops (its offsets and span honour
                // it); the declaration's text and the members' own IR alignments (nested
                // structs) restore it. The PTX backend proves wider accesses from it.
                let mut align = self.layouter[h].alignment.round_up(1);
                let text =
                    self.module.types.get_span(h).to_range().and_then(|r| self.source.get(r));
                align = align.max(text.map_or(1, declared_align));
                for m in &out {
                    align = align.max(self.types.size_align(m.ty).1);
                }
                let mut size = span;
                if out.iter().any(|m| self.contains_bool(m.ty)) {
                    // As for arrays: 4-byte bools, so the members are laid out again in order.
                    let mut end = 0u32;
                    align = 1;
                    for m in &mut out {
                        let (s, a) = self.types.size_align(m.ty);
                        let a = a.max(1);
                        m.offset = end.div_ceil(a) * a;
                        end = m.offset + s;
                        align = align.max(a);
                    }
                    size = end.div_ceil(align) * align;
                }
                ir::Type::Struct { name, members: out, size, align }
            }
            TypeInner::Image { dim, arrayed, class } => {
                if let naga::ImageClass::External = class {
                    return Err(unsupported_type(
                        "external textures are not supported",
                        "use a `texture_2d<f32>` and convert the video frame on the host",
                    ));
                }
                ir::Type::Image { dim, arrayed, class }
            }
            TypeInner::Sampler { comparison } => ir::Type::Sampler { comparison },
            TypeInner::AccelerationStructure { .. } | TypeInner::RayQuery { .. } => {
                return Err(unsupported_type(
                    "ray tracing types are not supported",
                    "dianran targets compute, vertex and fragment shaders without ray queries",
                ))
            }
            TypeInner::BindingArray { .. } => {
                return Err(unsupported_type(
                    "binding arrays are not supported",
                    "declare one binding per resource instead of a `binding_array`",
                ))
            }
        };
        Ok(self.types.intern(ty))
    }

    /// Interns an IR type directly.
    pub fn intern(&mut self, ty: ir::Type) -> TypeId {
        self.types.intern(ty)
    }
}

fn unsupported_type(msg: &str, help: &str) -> Diagnostic {
    Diagnostic::error(DiagKind::Unsupported, msg).help(help)
}

/// The IR scalar of a naga scalar; 16-bit integer and abstract types are errors.
pub(super) fn scalar(s: naga::Scalar) -> Result<ir::Scalar, Diagnostic> {
    use naga::ScalarKind as K;
    match (s.kind, s.width) {
        (K::Bool, _) => Ok(ir::Scalar::Bool),
        (K::Sint, 4) => Ok(ir::Scalar::I32),
        (K::Uint, 4) => Ok(ir::Scalar::U32),
        (K::Float, 4) => Ok(ir::Scalar::F32),
        (K::Float, 2) => Ok(ir::Scalar::F16),
        (K::Float, 8) => Ok(ir::Scalar::F64),
        (K::Sint, 8) => Ok(ir::Scalar::I64),
        (K::Uint, 8) => Ok(ir::Scalar::U64),
        (K::Sint | K::Uint, _) => Err(unsupported_type(
            "integers narrower than 32 bits are not supported",
            "use i32 or u32 and mask the value",
        )),
        (K::Float, _) => Err(unsupported_type("this float width is not supported", "use f32")),
        (K::AbstractInt | K::AbstractFloat, _) => Err(Diagnostic::error(
            DiagKind::Internal,
            "an abstract numeric type survived validation",
        )
        .help("give the value a concrete type (`i32`, `u32`, `f32`) as a workaround")),
    }
}

/// The IR scalar for `As { kind, convert: Some(width) }`.
pub(super) fn scalar_of_kind(kind: naga::ScalarKind, width: u8) -> Result<ir::Scalar, Diagnostic> {
    scalar(naga::Scalar { kind, width })
}

/// The IR address space of a naga address space.
pub(super) fn space(s: naga::AddressSpace) -> Result<ir::AddressSpace, Diagnostic> {
    use naga::AddressSpace as A;
    match s {
        A::Function => Ok(ir::AddressSpace::Function),
        A::Private => Ok(ir::AddressSpace::Private),
        A::WorkGroup => Ok(ir::AddressSpace::Workgroup),
        A::Uniform => Ok(ir::AddressSpace::Uniform),
        A::Storage { access } => {
            Ok(ir::AddressSpace::Storage { writable: access.contains(naga::StorageAccess::STORE) })
        }
        A::Handle => Ok(ir::AddressSpace::Handle),
        A::Immediate => Ok(ir::AddressSpace::Immediate),
        A::TaskPayload => Err(unsupported_type(
            "task payloads (mesh shading) are not supported",
            "dianran supports compute, vertex and fragment shaders",
        )),
        A::RayPayload | A::IncomingRayPayload => Err(unsupported_type(
            "ray payloads are not supported",
            "dianran supports compute, vertex and fragment shaders",
        )),
    }
}

/// The IR form of an entry-point I/O binding.
pub(super) fn io_binding(b: &naga::Binding) -> ir::IoBinding {
    match *b {
        naga::Binding::BuiltIn(bi) => ir::IoBinding::BuiltIn(bi),
        naga::Binding::Location { location, interpolation, sampling, blend_src, .. } => {
            ir::IoBinding::Location { location, interpolation, sampling, blend_src }
        }
    }
}

/// Whether a naga type (or anything it contains) is abstract; such constants are inlined by
/// naga at every use and have no IR type.
pub(super) fn is_abstract(module: &naga::Module, h: Handle<naga::Type>) -> bool {
    use naga::ScalarKind as K;
    let abs = |s: naga::Scalar| matches!(s.kind, K::AbstractInt | K::AbstractFloat);
    match module.types[h].inner {
        TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => abs(s),
        TypeInner::Matrix { scalar: s, .. } => abs(s),
        TypeInner::Array { base, .. } => is_abstract(module, base),
        _ => false,
    }
}

/// The largest `@align(N)` with an integer literal `N` (a power of two) in a struct
/// declaration's text, comments skipped; 1 when there is none. An `@align` whose argument is
/// not a literal is ignored, which can only under-estimate the alignment (safe: the backend
/// then proves less).
pub(super) fn declared_align(decl: &str) -> u32 {
    let mut best = 1u32;
    let mut rest = strip_comments(decl);
    while let Some(at) = rest.find("@align") {
        rest = rest[at + "@align".len()..].to_string();
        let arg = rest.trim_start();
        let Some(arg) = arg.strip_prefix('(') else { continue };
        let Some(close) = arg.find(')') else { break };
        let lit = arg[..close].trim().trim_end_matches(['u', 'i']);
        if let Ok(n) = lit.parse::<u32>() {
            if n.is_power_of_two() {
                best = best.max(n);
            }
        }
    }
    best
}

/// `text` without `//` line comments and (nested) `/* */` block comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if depth > 0 && b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
        } else if depth == 0 && b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            if depth == 0 {
                out.push(b[i] as char);
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod align_tests {
    use super::declared_align;

    #[test]
    fn align_attributes_are_read_from_the_declaration() {
        assert_eq!(declared_align("struct H { @align(16) lo: vec4<f16>, hi: vec4<f16> }"), 16);
        assert_eq!(declared_align("struct H { @align( 32u ) a: f32, @align(8) b: f32 }"), 32);
        assert_eq!(declared_align("struct H { a: f32 }"), 1);
        // Comments, non-literal arguments and non-powers of two prove nothing.
        assert_eq!(declared_align("struct H { // @align(64)\n a: f32 /* @align(64) */ }"), 1);
        assert_eq!(declared_align("struct H { @align(A) a: f32, @align(12) b: f32 }"), 1);
    }
}
