//! Diagnostics: typed errors with source spans, rendered with codespan-reporting.
//!
//! Every error the pipeline reports is a [`Diagnostic`]: a message, the primary span, the
//! function or entry point it is in, and a `help` line saying what to do instead. A
//! [`Diagnostics`] list carries the file name and text so it can render itself with the
//! source line, a caret, and `file:line:column`.

use crate::ir::Span;
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{self as cs_files, Files};
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
        let config = term::Config::default();
        let mut out = String::new();
        for d in &self.list {
            // Lines longer than `MAX_LINE` characters (generated or minified sources) are
            // shown as a window around the diagnostic's spans; line numbers stay the same.
            let mut anchors: Vec<u32> = d.span.iter().map(|s| s.start).collect();
            anchors.extend(d.labels.iter().map(|(s, _)| s.start));
            let view = View::new(&self.source, &anchors);
            let file = ViewFile { name: &self.file_name, source: &self.source, view: &view };
            let sev = if d.warning { cs::Severity::Warning } else { cs::Severity::Error };
            let mut message = d.message.clone();
            if let Some(ctx) = &d.context {
                message = format!("{message} (in '{ctx}')");
            }
            let mut labels = Vec::new();
            let clamp = |s: Span| {
                let a = view.map(s.start as usize);
                let b = view.map(s.end as usize).max(a);
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

/// Longest source line a rendered diagnostic shows whole.
const MAX_LINE: usize = 160;
/// Characters kept before the anchor of a cut line.
const BEFORE_ANCHOR: usize = 60;

/// The source as a diagnostic shows it: every line longer than [`MAX_LINE`] characters cut to
/// a window of that many characters around the first span that starts on it (or its start),
/// with `...` where text was left out.
struct View {
    text: String,
    lines: Vec<ViewLine>,
}

/// One source line in a [`View`].
struct ViewLine {
    /// End of the line (after its terminator) in the source.
    end: usize,
    /// The kept window `lo..hi` of the source (the whole line when it is short).
    lo: usize,
    hi: usize,
    /// Where the line starts in the view (at its `...` when cut on the left).
    begin: usize,
    /// Where `lo` lands in the view.
    at: usize,
}

impl View {
    fn new(source: &str, anchors: &[u32]) -> View {
        let mut text = String::with_capacity(source.len().min(1 << 16));
        let mut lines = Vec::new();
        let mut start = 0;
        for line in source.split_inclusive('\n') {
            let end = start + line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            let (lo, hi) = if body.chars().count() <= MAX_LINE {
                (start, end)
            } else {
                let anchor = anchors
                    .iter()
                    .map(|&a| a as usize)
                    .filter(|a| (start..end).contains(a))
                    .min()
                    .unwrap_or(start);
                // Character boundaries of the window around the anchor.
                let at = body.char_indices().take_while(|(i, _)| start + i < anchor).count();
                let first = at.saturating_sub(BEFORE_ANCHOR);
                let byte = |n: usize| body.char_indices().nth(n).map_or(body.len(), |(i, _)| i);
                (start + byte(first), start + byte(first + MAX_LINE))
            };
            let begin = text.len();
            if lo > start {
                text.push_str("...");
            }
            lines.push(ViewLine { end, lo, hi, begin, at: text.len() });
            text.push_str(&source[lo..hi]);
            if hi < start + body.len() {
                text.push_str("...");
                text.push_str(&line[body.len()..]);
            }
            start = end;
        }
        View { text, lines }
    }

    /// Where source byte offset `o` is in the view (clamped into its line's window).
    fn map(&self, o: usize) -> usize {
        let i = self.lines.partition_point(|l| l.end <= o);
        match self.lines.get(i) {
            Some(l) => l.at + o.clamp(l.lo, l.hi) - l.lo,
            None => self.text.len(),
        }
    }

    /// The line of view offset `v`.
    fn line_of(&self, v: usize) -> usize {
        self.lines.partition_point(|l| l.begin <= v).saturating_sub(1)
    }

    /// The view's byte range of line `i` (the kept window plus any `...` markers).
    fn line_range(&self, i: usize) -> std::ops::Range<usize> {
        let begin = |i: usize| self.lines.get(i).map_or(self.text.len(), |l| l.begin);
        begin(i)..begin(i + 1)
    }

    /// The source offset that view offset `v` shows (the window edge for `...`).
    fn unmap(&self, v: usize) -> usize {
        match self.lines.get(self.line_of(v)) {
            Some(l) => (l.lo + v.saturating_sub(l.at)).min(l.hi),
            None => 0,
        }
    }
}

/// The [`View`] as codespan's file: the text is the view's, the `file:line:column` header is
/// the source's (columns in characters of the original line).
struct ViewFile<'a> {
    name: &'a str,
    source: &'a str,
    view: &'a View,
}

impl<'a> Files<'a> for ViewFile<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, _: ()) -> Result<&'a str, cs_files::Error> {
        Ok(self.name)
    }
    fn source(&'a self, _: ()) -> Result<&'a str, cs_files::Error> {
        Ok(&self.view.text)
    }
    fn line_index(&'a self, _: (), byte_index: usize) -> Result<usize, cs_files::Error> {
        Ok(self.view.line_of(byte_index))
    }
    fn line_range(
        &'a self,
        _: (),
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, cs_files::Error> {
        Ok(self.view.line_range(line_index))
    }
    fn column_number(
        &'a self,
        _: (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, cs_files::Error> {
        Ok(line_col(self.source, self.view.unmap(byte_index) as u32).1)
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

    /// A 20000-character line shows as a window with the caret on the span, and the
    /// reported column is still the real one.
    #[test]
    fn long_lines_are_cut_around_the_span() {
        let long = format!("let x = {}y;\n", "a + ".repeat(5000));
        let src = format!("fn f() {{\n{long}}}\n");
        let at = src.find('y').unwrap_or(0) as u32;
        let d = Diagnostic::error(DiagKind::Unsupported, "bad").at(Span { start: at, end: at + 1 });
        let ds = Diagnostics::new("a.wgsl", &src, vec![d]);
        let r = ds.render();
        assert!(r.len() < 1200, "{} bytes:\n{r}", r.len());
        assert!(r.contains("a.wgsl:2:20009"), "{r}");
        assert!(r.contains("...a + a + "), "{r}");
        assert!(r.contains("a.wgsl:2:20009\n") || r.contains("─ a.wgsl:2:20009"), "{r}");
        // The caret sits under `y`.
        let src_line = r.lines().find(|l| l.contains("y;")).unwrap_or_default();
        let caret = r.lines().find(|l| l.trim_end().ends_with('^')).unwrap_or_default();
        assert_eq!(src_line.find("y;"), caret.find('^'), "{r}");
        assert!(!r.contains("y;..."), "nothing was cut after the end of the line:\n{r}");
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
