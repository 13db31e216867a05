//! Typed errors of the PTX model: printing (non-ASCII, bad names) and parsing (with line numbers).

use dianran_frontend::{DiagKind, Diagnostic};
use std::fmt;

/// What went wrong while printing or parsing PTX; tests match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtxErrorKind {
    /// A name or comment holds a byte outside ASCII (ptxas rejects such files).
    NonAscii,
    /// A name is not a valid PTX identifier, or a comment holds a line break.
    InvalidName,
    /// Two source names map to the same PTX name.
    NameCollision,
    /// The text is not PTX this parser understands (unexpected token, bad number, ...).
    Syntax,
    /// Valid PTX that the model does not cover (indirect calls, `.extern` variables, unknown
    /// opcodes, ...).
    Unsupported,
    /// A register is used but not declared in any enclosing scope.
    UndeclaredRegister,
    /// An instruction breaks a PTX rule (operand count or form, register width, branch
    /// target); reported by [`crate::Module::validate`].
    InvalidInstruction,
}

/// An error with its kind, a one-line message and, for parse errors, the 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// What kind of problem this is.
    pub kind: PtxErrorKind,
    /// 1-based line of the PTX text, when the error comes from the parser.
    pub line: Option<u32>,
    /// One-line message, lower case, no trailing period.
    pub message: String,
}

impl PtxError {
    /// An error without a line number (printer, names).
    pub fn new(kind: PtxErrorKind, message: impl Into<String>) -> Self {
        PtxError { kind, line: None, message: message.into() }
    }

    /// An error at a 1-based line of the PTX text (parser).
    pub fn at_line(kind: PtxErrorKind, line: u32, message: impl Into<String>) -> Self {
        PtxError { kind, line: Some(line), message: message.into() }
    }

    /// Converts to the project-wide diagnostic type.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let kind = match self.kind {
            PtxErrorKind::NameCollision => DiagKind::NameCollision,
            PtxErrorKind::Unsupported => DiagKind::Unsupported,
            PtxErrorKind::Syntax | PtxErrorKind::UndeclaredRegister => DiagKind::Parse,
            // The printer only fails on names that earlier stages should have mangled.
            PtxErrorKind::NonAscii
            | PtxErrorKind::InvalidName
            | PtxErrorKind::InvalidInstruction => DiagKind::Internal,
        };
        let mut d = Diagnostic::error(kind, self.to_string());
        d = match self.kind {
            PtxErrorKind::NonAscii | PtxErrorKind::InvalidName => {
                d.help("mangle names with dianran_ptx::names before building PTX")
            }
            PtxErrorKind::NameCollision => d.help("rename one of the two so they stay distinct"),
            PtxErrorKind::Unsupported => {
                d.help("the PTX model covers the instruction subset a WGSL compiler emits")
            }
            _ => d,
        };
        d
    }
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "PTX line {l}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for PtxError {}

impl From<PtxError> for Diagnostic {
    fn from(e: PtxError) -> Self {
        e.to_diagnostic()
    }
}
