//! naga parsing, validation and override processing, with errors as [`Diagnostics`].

use crate::{Diagnostic, Diagnostics, Options, Parsed};

/// Parses and validates `source`, resolving overrides.
pub fn parse(file_name: &str, source: &str, opts: &Options) -> Result<Parsed, Diagnostics> {
    let _ = opts;
    Err(Diagnostics::new(
        file_name,
        source,
        vec![Diagnostic::error(crate::DiagKind::Internal, "parser not built yet")],
    ))
}
