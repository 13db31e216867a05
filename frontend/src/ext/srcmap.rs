//! Text edits and the map from the edited text back to the user's.
//!
//! An extension rewrites some ranges of the user's text and appends declarations. naga then
//! reports spans into the rewritten text; [`SourceMap::span`] turns each back into a span of
//! the user's file. Text outside the edits maps one to one (shifted); a position inside a
//! replacement maps to the start of the range it replaced (an end to its end), so a span that
//! touches a rewritten call still covers that call as the user wrote it.

use crate::ir::Span;

/// One replacement of `start..end` (byte offsets into the user's text) by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced (`== start` for an insertion).
    pub end: usize,
    /// The new text.
    pub text: String,
}

impl Edit {
    /// Replaces `start..end` by `text`.
    pub fn new(start: usize, end: usize, text: impl Into<String>) -> Self {
        Edit { start, end, text: text.into() }
    }
}

/// A piece of the edited text, starting at `new`, that came from `old..old + old_len`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    new: usize,
    old: usize,
    old_len: usize,
    /// A replacement (positions inside map to its ends) rather than copied text.
    replaced: bool,
}

/// Maps byte offsets of an edited text back to the original.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pieces: Vec<Piece>,
    old_len: usize,
}

/// Applies `edits` (any order; they must not overlap) to `source`. Returns the new text and
/// its map, or `None` when two edits overlap or one is out of range (a bug in the caller).
pub fn apply(source: &str, mut edits: Vec<Edit>) -> Option<(String, SourceMap)> {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = String::with_capacity(source.len() + 1024);
    let mut pieces = Vec::new();
    let mut at = 0usize;
    for e in &edits {
        if e.start < at || e.end < e.start || e.end > source.len() {
            return None;
        }
        let kept = source.get(at..e.start)?;
        pieces.push(Piece { new: out.len(), old: at, old_len: kept.len(), replaced: false });
        out.push_str(kept);
        pieces.push(Piece {
            new: out.len(),
            old: e.start,
            old_len: e.end - e.start,
            replaced: true,
        });
        out.push_str(&e.text);
        at = e.end;
    }
    let rest = source.get(at..)?;
    pieces.push(Piece { new: out.len(), old: at, old_len: rest.len(), replaced: false });
    out.push_str(rest);
    Some((out, SourceMap { pieces, old_len: source.len() }))
}

impl SourceMap {
    /// The original offset of edited offset `pos`; `end` picks the end of a replaced range
    /// for positions inside it.
    fn offset(&self, pos: usize, end: bool) -> usize {
        // The last piece starting at or before `pos` (for an end, strictly before, so an
        // end that falls on a boundary stays in the piece it closes).
        let i = self.pieces.partition_point(|p| if end { p.new < pos } else { p.new <= pos });
        let Some(p) = i.checked_sub(1).and_then(|i| self.pieces.get(i)) else { return 0 };
        if p.replaced {
            if pos == p.new && !end {
                return p.old;
            }
            return if end { p.old + p.old_len } else { p.old };
        }
        (p.old + (pos - p.new).min(p.old_len)).min(self.old_len)
    }

    /// The span of the user's text that edited span `s` came from.
    pub fn span(&self, s: Span) -> Span {
        if s.start == 0 && s.end == 0 {
            return s;
        }
        let start = self.offset(s.start as usize, false);
        let end = self.offset(s.end as usize, true).max(start);
        Span { start: start as u32, end: end as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_map_back_through_replacements() {
        let src = "let m = f(a, b);";
        let edits = vec![Edit::new(8, 10, "long_name("), Edit::new(13, 13, "&")];
        let (text, map) = apply(src, edits).expect("edits apply");
        assert_eq!(text, "let m = long_name(a, &b);");
        // `a` in the new text.
        let a = text.find("a,").expect("a") as u32;
        assert_eq!(map.span(Span { start: a, end: a + 1 }), Span { start: 10, end: 11 });
        // The whole call maps to the whole call.
        let call = Span { start: 8, end: text.len() as u32 - 1 };
        assert_eq!(map.span(call), Span { start: 8, end: 15 });
        // Something inside the replaced head maps to the head as written.
        assert_eq!(map.span(Span { start: 9, end: 12 }), Span { start: 8, end: 10 });
        // Text after every edit is shifted back.
        let semi = text.len() as u32 - 1;
        assert_eq!(map.span(Span { start: semi, end: semi + 1 }), Span { start: 15, end: 16 });
    }

    #[test]
    fn overlapping_edits_are_refused() {
        assert!(apply("abcdef", vec![Edit::new(0, 3, "x"), Edit::new(2, 4, "y")]).is_none());
        assert!(apply("abc", vec![Edit::new(2, 9, "x")]).is_none());
    }

    #[test]
    fn appended_text_maps_to_the_end() {
        let (text, map) = apply("fn f() {}", vec![Edit::new(9, 9, "\nfn g() {}")]).expect("ok");
        assert_eq!(text, "fn f() {}\nfn g() {}");
        assert_eq!(map.span(Span { start: 13, end: 14 }), Span { start: 9, end: 9 });
    }
}
