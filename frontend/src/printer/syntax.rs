//! What each text printer spells its own way.
//!
//! The walk over regions ([`super::walk`]) and the operand printing ([`super::operands`]) are
//! written once; a printer implements [`Syntax`] to say how a declaration, a condition, a
//! switch label, a loop with a continuing block, an atomic call... look in its language, and
//! prints the instructions whose shape is its own (`statement`, `expr`). Hooks that print one
//! construct return its text; hooks that may print several lines or keep state write to
//! [`Body::line`] themselves.

use super::Body;
use crate::ir::{
    AtomicOp, Barrier, BinaryOperator, CollectiveOperation, ConstValue, Inst, Op, Span,
    SubgroupOperation, SwitchCase, TypeId, ValueId,
};
use crate::Diagnostic;

/// A memory access to an atomic, named by each syntax ([`Syntax::atomic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicAccess {
    /// An atomic read (`Load` of an atomic pointee).
    Load,
    /// An atomic write (`Store` to an atomic pointee).
    Store,
    /// A read-modify-write returning the old value.
    Rmw(AtomicOp),
}

/// A barrier, one per flag of [`Barrier`] the IR uses ([`Syntax::barrier`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierKind {
    /// Workgroup memory and execution.
    Workgroup,
    /// Storage buffer memory.
    Storage,
    /// Subgroup execution.
    Subgroup,
    /// Texture memory.
    Texture,
}

impl BarrierKind {
    /// Every kind with its flag, in the order their statements are printed.
    pub const ALL: [(Barrier, BarrierKind); 4] = [
        (Barrier::WORK_GROUP, BarrierKind::Workgroup),
        (Barrier::STORAGE, BarrierKind::Storage),
        (Barrier::SUB_GROUP, BarrierKind::Subgroup),
        (Barrier::TEXTURE, BarrierKind::Texture),
    ];
}

/// The target language of a structured printer: per-function state and spelling.
pub trait Syntax<'a> {
    // ---- state ----

    /// The shared per-function state.
    fn body(&self) -> &Body<'a>;
    /// The shared per-function state, for printing.
    fn body_mut(&mut self) -> &mut Body<'a>;
    /// The diagnostic for a construct this language cannot express (`what` names it).
    fn unsupported(&self, what: &str, span: Span) -> Box<Diagnostic>;

    // ---- operands ----

    /// The name of type `t`.
    fn ty(&self, t: TypeId) -> String;
    /// The text of a constant.
    fn constant(&self, c: &ConstValue) -> String;
    /// The place a named pointer (a parameter or a bound pointer value) denotes: WGSL
    /// dereferences it, MSL passes references.
    fn deref(&self, pointer: &str) -> String;
    /// A pointer operand to `place`: WGSL takes its address, MSL passes the reference.
    fn address_of(&self, place: String) -> String;
    /// Whether member `member` of struct `struct_ty` is stored packed (MSL's `packed_float3`),
    /// so reading it needs a conversion and its lanes are indexed.
    fn packed_member(&self, _struct_ty: TypeId, _member: u32) -> bool {
        false
    }

    // ---- declarations (one statement each) ----

    /// An immutable binding of `value`.
    fn let_decl(&self, name: &str, value: &str) -> String;
    /// A variable of type `ty`, uninitialized or set to `init`.
    fn var_decl(&self, name: &str, ty: TypeId, init: Option<&str>) -> String;
    /// A variable holding a copy of `value` (of the value's type), to be modified in place.
    fn copy_decl(&self, name: &str, value: &str) -> String;
    /// A function-local memory variable of type `ty`, zero-initialized as WGSL's are.
    fn local_decl(&self, name: &str, ty: TypeId) -> String;
    /// Whether the stores of zero that open a function body (the frontend's initializers of
    /// locals declared without one) are left out because [`Syntax::local_decl`] already
    /// zeroes the variable in a way that reads back as the same IR. Leaving them out makes
    /// printing the printed text again a fixed point.
    fn omits_zero_initializers(&self) -> bool {
        false
    }
    /// Whether an `if` on `!x` (a negation used only there) with an empty `else` prints as
    /// `if !(x) { .. }` instead of binding the negation first: the form an `if` with an empty
    /// `then` prints as, so that reading either back and printing it again gives the same
    /// text.
    fn inlines_negated_conditions(&self) -> bool {
        false
    }

    // ---- control flow ----

    /// A condition or selector as it follows `if` / `switch` (C++ wants parentheses).
    fn condition(&self, expr: &str) -> String;
    /// The label lines of one switch arm, the last opening its block with `{`.
    fn case_labels(&self, case: &SwitchCase, unsigned: bool) -> Vec<String>;
    /// Whether an arm falls into the next one unless it ends in `break;` (C++).
    fn case_falls_through(&self) -> bool;
    /// Prints the head of a loop at `depth` and returns a label the continuing hooks get
    /// back (MSL: the name of its first-iteration flag).
    fn loop_open(&mut self, depth: usize, has_continuing: bool) -> String;
    /// Whether the continuing block is printed before the body (a `while` that runs it at
    /// the top of every iteration but the first) rather than after it.
    fn continuing_first(&self) -> bool;
    /// The head of the continuing block, ending in `{`.
    fn continuing_open(&self, label: &str) -> String;
    /// A statement after the continuing block's closing brace, if any.
    fn continuing_close(&self, label: &str) -> Option<String>;
    /// The statement leaving the loop when `cond` holds, at the end of the continuing block.
    fn break_if(&self, cond: &str) -> String;
    /// The statement returning `v` from the function.
    fn return_value(&self, v: ValueId) -> String;
    /// The statement ending a fragment invocation.
    fn discard(&self) -> &'static str;

    // ---- instructions ----

    /// The statement for one barrier (the walker calls it for each flag that is set).
    fn barrier(&self, kind: BarrierKind) -> &'static str;
    /// An atomic access to `place` with the printed `operands` (no trailing `;`).
    fn atomic(&self, access: AtomicAccess, place: &str, operands: &[String]) -> String;
    /// The function computing a subgroup collective, if the language has one.
    fn subgroup_name(
        &self,
        op: SubgroupOperation,
        kind: CollectiveOperation,
    ) -> Option<&'static str>;
    /// Prints an instruction that is a statement in this language (stores to images,
    /// cooperative matrix operations, multi-statement forms) and returns `true`; returns
    /// `false` for an instruction that is an expression (see [`Syntax::expr`]).
    fn statement(&mut self, inst: &Inst, depth: usize) -> Result<bool, Box<Diagnostic>>;
    /// Whether a store through `ptr` is left out of the text: one the printed form's own
    /// constructs stand for (the invocation index a workgroup-matrix entry records, when the
    /// WGSL printer prints the extension itself).
    fn skip_store(&self, _ptr: ValueId) -> bool {
        false
    }
    /// The expression computing `op` (whose value is `result`), for the operations the shared
    /// walker does not print itself.
    fn expr(&self, op: &Op, result: Option<ValueId>, span: Span)
        -> Result<String, Box<Diagnostic>>;
}

/// The symbol of a binary operator, spelled alike in WGSL and C++ (whose semantics differ
/// for some operand types: the MSL printer wraps those).
pub fn binary_symbol(o: BinaryOperator) -> &'static str {
    use BinaryOperator as B;
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
