//! Operands: how a value or a pointer's place is printed, written once for every [`Syntax`].
//!
//! Constants are printed inline, pointers are never bound to names but printed at each use as
//! the place they denote (`buf.data[i]`), and other values by their name.

use super::syntax::Syntax;
use crate::ir::{Op, Span, Type, TypeId, ValueId};
use crate::names::escape;
use crate::Diagnostic;

/// Vector lane names by index.
pub const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// The name of vector lane `i` (`w` for anything past the fourth).
pub fn lane(i: u32) -> &'static str {
    LANES[(i as usize).min(3)]
}

/// Operand printing, for every [`Syntax`].
pub trait Operands<'a>: Syntax<'a> {
    /// The text of a value used as an operand.
    fn val(&self, v: ValueId) -> String {
        match self.body().defs.get(&v) {
            Some(Op::Const(c)) => return self.constant(c),
            Some(Op::GlobalAddr(g)) if !self.is_pointer(v) => return self.global(g.index()),
            _ => {}
        }
        if self.is_pointer(v) && !self.body().params.contains_key(&v) {
            return self.address_of(self.place(v));
        }
        self.body().names.get(&v).cloned().unwrap_or_else(|| format!("v{}", v.0))
    }

    /// The operands `vs`, comma-separated.
    fn vals(&self, vs: &[ValueId]) -> String {
        vs.iter().map(|v| self.val(*v)).collect::<Vec<_>>().join(", ")
    }

    /// The type of an instruction's `result`; `what` names the instruction in the diagnostic
    /// when it has none.
    fn result_ty(
        &self,
        result: Option<ValueId>,
        what: &str,
        span: Span,
    ) -> Result<TypeId, Box<Diagnostic>> {
        result.map(|r| self.body().ty(r)).ok_or_else(|| self.unsupported(what, span))
    }

    /// The name of global `index`.
    fn global(&self, index: usize) -> String {
        self.body().module_names.globals.get(index).cloned().unwrap_or_default()
    }

    /// The place (reference, lvalue) a pointer value denotes, e.g. `buf.data[i]`.
    fn place(&self, p: ValueId) -> String {
        let body = self.body();
        if let Some(name) = body.params.get(&p) {
            return self.deref(name);
        }
        match body.defs.get(&p) {
            Some(Op::GlobalAddr(g)) => self.global(g.index()),
            Some(Op::LocalAddr(l)) => body.locals.get(l.index()).cloned().unwrap_or_default(),
            Some(Op::AccessIndex(base, i)) => {
                let b = self.place(*base);
                match self.pointee(*base) {
                    // A packed vector has no lane names, only indices.
                    Some(t)
                        if matches!(self.body().types.get(t), Type::Vector { .. })
                            && self.is_packed_place(*base) =>
                    {
                        format!("{b}[{i}]")
                    }
                    Some(t) => format!("{b}{}", self.member_text(t, *i)),
                    None => format!("{b}[{i}]"),
                }
            }
            Some(Op::Access(base, i)) => format!("{}[{}]", self.place(*base), self.val(*i)),
            _ => self.deref(&body.names.get(&p).cloned().unwrap_or_default()),
        }
    }

    /// `.x`, `.field` or `[i]` selecting member `index` of a value of type `t`.
    fn member_text(&self, t: TypeId, index: u32) -> String {
        match self.body().types.get(t) {
            Type::Struct { members, .. } => {
                let name = members.get(index as usize).map_or("?", |m| m.name.as_str());
                format!(".{}", escape(name))
            }
            Type::Vector { .. } => format!(".{}", lane(index)),
            _ => format!("[{index}]"),
        }
    }

    /// Whether `v` is a pointer.
    fn is_pointer(&self, v: ValueId) -> bool {
        self.body().pointer(v).is_some()
    }

    /// The pointee type when `v` is a pointer.
    fn pointee(&self, v: ValueId) -> Option<TypeId> {
        self.body().pointer(v).map(|(base, _)| base)
    }

    /// Whether pointer `p` points to an atomic.
    fn pointee_is_atomic(&self, p: ValueId) -> bool {
        self.pointee(p).is_some_and(|t| matches!(self.body().types.get(t), Type::Atomic(_)))
    }

    /// Whether pointer `p` denotes a struct member stored packed ([`Syntax::packed_member`]).
    fn is_packed_place(&self, p: ValueId) -> bool {
        if let Some(Op::AccessIndex(base, i)) = self.body().defs.get(&p) {
            if let Some(t) = self.pointee(*base) {
                return self.packed_member(t, *i);
            }
        }
        false
    }
}

impl<'a, S: Syntax<'a> + ?Sized> Operands<'a> for S {}
