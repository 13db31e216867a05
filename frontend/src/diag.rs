//! Diagnostics: typed errors with source spans, rendered with codespan-reporting.
//!
//! Every error the pipeline reports is a [`Diagnostic`]: a message, the primary span, the
//! function or entry point it is in, and a `help` line saying what to do instead. A
//! [`Diagnostics`] list carries the file name and text so it can render itself with the
//! source line, a caret, and `file:line:column`.

use crate::ir::Span;
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use std::fmt;

/// What kind of problem a diagnostic reports; tests match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagKind {
    /// naga rejected the WGSL syntax.
    Parse,
    /// naga's validator rejected the module.
    Validation,
    /// A check naga misses (cooperative-matrix types and strides, ...).
    Check,
    /// An `override` without a value, or a bad `--override`.
    Override,
    /// A construct dianran does not support (on any target, or on the one being printed).
    Unsupported,
    /// An internal limit (nesting depth, sizes) was exceeded.
    Limit,
    /// Two names map to the same target name.
    NameCollision,
    /// An execution error found by an executor (out of bounds, deadlock, ...).
    Runtime,
    /// A bug in dianran itself: a pass produced IR the verifier rejects.
    Internal,
}

/// One error (or warning) with its location and context.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// What kind of problem this is.
    pub kind: DiagKind,
    /// One-line message, lower case, no trailing period.
    pub message: String,
    /// Primary location; `None` when the problem has no source location.
    pub span: Option<Span>,
    /// Secondary labels (span, text).
    pub labels: Vec<(Span, String)>,
    /// The function or entry point the problem is in, when known.
    pub context: Option<String>,
    /// What to do instead.
    pub help: Option<String>,
    /// Further notes.
    pub notes: Vec<String>,
    /// A warning rather than an error.
    pub warning: bool,
}

impl Diagnostic {
    /// An error of `kind` with `message`.
    pub fn error(kind: DiagKind, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            message: message.into(),
            span: None,
            labels: Vec::new(),
            context: None,
            help: None,
            notes: Vec::new(),
            warning: false,
        }
    }
    /// Sets the primary span (ignored when unknown).
    pub fn at(mut self, span: Span) -> Self {
        if !span.is_unknown() {
            self.span = Some(span);
        }
        self
    }
    /// Sets the function/entry context.
    pub fn in_fn(mut self, name: impl Into<String>) -> Self {
        self.context = Some(name.into());
        self
    }
    /// Sets the help text.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    /// Adds a secondary label.
    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        if !span.is_unknown() {
            self.labels.push((span, text.into()));
        }
        self
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(source.len());
    let mut start = offset;
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let before = &source[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// A list of diagnostics for one source file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostics {
    /// File name as given by the user.
    pub file_name: String,
    /// Full source text (as the user wrote it, before any preprocessing).
    pub source: String,
    /// The diagnostics, in the order found.
    pub list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Wraps diagnostics for `file_name`.
    pub fn new(file_name: &str, source: &str, list: Vec<Diagnostic>) -> Self {
        Diagnostics { file_name: file_name.to_string(), source: source.to_string(), list }
    }

    /// `file:line:column` of a diagnostic's primary span, or just the file.
    pub fn location(&self, d: &Diagnostic) -> String {
        match d.span {
            Some(s) => {
                let (l, c) = line_col(&self.source, s.start);
                format!("{}:{}:{}", self.file_name, l, c)
            }
            None => self.file_name.clone(),
        }
    }

    /// Renders every diagnostic with codespan-reporting (no colour): a header with the
    /// location and context, the source line with a caret, help and notes.
    pub fn render(&self) -> String {
        let file = SimpleFile::new(self.file_name.as_str(), self.source.as_str());
        let config = term::Config::default();
        let mut out = String::new();
        for d in &self.list {
            let sev = if d.warning { cs::Severity::Warning } else { cs::Severity::Error };
            let mut message = d.message.clone();
            if let Some(ctx) = &d.context {
                message = format!("{message} (in '{ctx}')");
            }
            let mut labels = Vec::new();
            let len = self.source.len();
            let clamp = |s: Span| {
                let a = (s.start as usize).min(len);
                let b = (s.end as usize).clamp(a, len);
                a..b
            };
            if let Some(s) = d.span {
                labels.push(cs::Label::primary((), clamp(s)));
            }
            for (s, t) in &d.labels {
                labels.push(cs::Label::secondary((), clamp(*s)).with_message(t.clone()));
            }
            let mut notes = Vec::new();
            if d.span.is_some() {
                notes.push(format!("at {}", self.location(d)));
            }
            if let Some(h) = &d.help {
                notes.push(format!("help: {h}"));
            }
            notes.extend(d.notes.iter().cloned());
            let diag = cs::Diagnostic::new(sev)
                .with_message(message)
                .with_labels(labels)
                .with_notes(notes);
            match term::emit_into_string(&config, &file, &diag) {
                Ok(s) => out.push_str(&s),
                // codespan only fails on spans outside the file, which `clamp` prevents;
                // fall back to a plain line rather than losing the error.
                Err(_) => out.push_str(&format!("error: {} at {}\n", d.message, self.location(d))),
            }
        }
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let src = "ab\n加倍 x";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 10), (2, 4));
    }

    #[test]
    fn render_has_location_caret_and_help() {
        let d = Diagnostic::error(DiagKind::Unsupported, "textures are not supported")
            .at(Span { start: 3, end: 5 })
            .in_fn("blur")
            .help("use a storage buffer");
        let ds = Diagnostics::new("a.wgsl", "ab\ncd ef\n", vec![d]);
        let r = ds.render();
        assert!(r.contains("a.wgsl:2:1"), "{r}");
        assert!(r.contains("^^"), "{r}");
        assert!(r.contains("in 'blur'"), "{r}");
        assert!(r.contains("help: use a storage buffer"), "{r}");
    }
}
