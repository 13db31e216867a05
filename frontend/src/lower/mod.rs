//! Lowering of a validated naga module to the SSA form in memory form.

use crate::{Diagnostic, Parsed};

/// Lowers `parsed` (see `docs/architecture.md` for the rules).
pub fn lower_module(parsed: &Parsed) -> Result<crate::ir::Module, Vec<Diagnostic>> {
    let _ = parsed;
    Err(vec![Diagnostic::error(crate::DiagKind::Internal, "lowering not built yet")])
}
