//! Source preprocessing before naga sees the text.
//!
//! naga 30 rejects `enable subgroups;` although it accepts the subgroup builtins, so the
//! directive (or just the `subgroups` item of a list such as `enable f16, subgroups;`) is
//! replaced by spaces of the same byte length. Every byte offset, and therefore every span
//! naga reports, stays valid for the user's original text. The enables of dianran's own
//! extension layer ([`crate::ext`]) are blanked the same way; the layer then rewrites the
//! text with a source map.

use crate::ir::{Enables, Span};
use crate::{DiagKind, Diagnostic};

/// A token of the directive prologue: its byte range and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    start: usize,
    end: usize,
    kind: TokenKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokenKind {
    Ident,
    Comma,
    Semicolon,
    /// Anything else (a declaration starts, or junk naga will report).
    Other,
}

/// Whether `c` can continue an identifier. Non-ASCII characters count so that a Unicode
/// identifier is one token, whatever naga later decides about it.
fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric() || !c.is_ascii()
}

/// A lexer over the directive prologue that skips whitespace and WGSL comments (`//` to the
/// end of the line, nested `/* */`).
struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn skip_trivia(&mut self) {
        loop {
            let rest = self.text.get(self.pos..).unwrap_or("");
            if let Some(c) = rest.chars().next().filter(|c| c.is_whitespace()) {
                self.pos += c.len_utf8();
            } else if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                self.pos += block_comment_len(rest);
            } else {
                return;
            }
        }
    }

    fn next_token(&mut self) -> Option<Token> {
        self.skip_trivia();
        let rest = self.text.get(self.pos..).unwrap_or("");
        let c = rest.chars().next()?;
        let start = self.pos;
        let (len, kind) = match c {
            ',' => (1, TokenKind::Comma),
            ';' => (1, TokenKind::Semicolon),
            c if is_ident_char(c) => {
                let len = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
                (len, TokenKind::Ident)
            }
            c => (c.len_utf8(), TokenKind::Other),
        };
        self.pos += len;
        Some(Token { start, end: start + len, kind })
    }
}

/// Byte length of the (possibly nested, possibly unterminated) block comment `text` starts
/// with.
fn block_comment_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if bytes[i..].starts_with(b"*/") {
            depth = depth.saturating_sub(1);
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The severity of `diagnostic(SEVERITY, chromium.subgroup_matrix_uniformity)`, given the
/// tokens between `diagnostic` and `;` (whitespace and comments between them ignored).
fn uniformity_severity(source: &str, body: &[Token]) -> Option<&'static str> {
    let (first, last) = (body.first()?, body.last()?);
    let text: String = source[first.start..last.end].split_whitespace().collect();
    let rule = text.strip_prefix('(')?.strip_suffix(')')?;
    let (severity, name) = rule.split_once(',')?;
    if name.trim_end_matches(',') != "chromium.subgroup_matrix_uniformity" {
        return None;
    }
    ["off", "info", "warning", "error"].into_iter().find(|s| *s == severity)
}

/// Returns the text naga should parse (with `subgroups` removed from `enable` directives) and
/// the enable-extensions the source names.
///
/// Only the directive prologue (the `enable`, `requires` and `diagnostic` directives before
/// the first declaration) is looked at; text in comments and other identifiers is never
/// touched. A malformed directive is left as written for naga to report.
pub fn preprocess(source: &str) -> (String, Enables) {
    let mut enables = Enables::default();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut lexer = Lexer { text: source, pos: 0 };
    while let Some(first) = lexer.next_token() {
        let word = &source[first.start..first.end];
        if first.kind != TokenKind::Ident || !matches!(word, "enable" | "requires" | "diagnostic") {
            break;
        }
        // Collect the directive's tokens up to its semicolon.
        let mut body = Vec::new();
        let mut terminated = None;
        while let Some(t) = lexer.next_token() {
            if t.kind == TokenKind::Semicolon {
                terminated = Some(t);
                break;
            }
            body.push(t);
        }
        let Some(semicolon) = terminated else { break };
        if word == "diagnostic" {
            enables.subgroup_matrix_uniformity =
                uniformity_severity(source, &body).or(enables.subgroup_matrix_uniformity);
            continue;
        }
        if word != "enable" || !is_name_list(&body) {
            continue;
        }
        let names: Vec<Token> =
            body.iter().copied().filter(|t| t.kind == TokenKind::Ident).collect();
        for t in &names {
            match &source[t.start..t.end] {
                "f16" => enables.f16 = true,
                "subgroups" => enables.subgroups = true,
                "wgpu_cooperative_matrix" => enables.cooperative_matrix = true,
                "chromium_experimental_subgroup_matrix" | "subgroup_matrix" => {
                    enables.subgroup_matrix = true
                }
                "dianran_workgroup_matrix" => enables.workgroup_matrix = true,
                _ => {}
            }
        }
        let is_subgroups = |t: &Token| {
            matches!(
                &source[t.start..t.end],
                "subgroups"
                    | "chromium_experimental_subgroup_matrix"
                    | "subgroup_matrix"
                    | "dianran_workgroup_matrix"
            )
        };
        if names.iter().all(is_subgroups) {
            // Nothing else is enabled: the whole directive goes, token by token, so comments
            // between the tokens survive.
            blank.push((first.start, first.end));
            blank.extend(body.iter().map(|t| (t.start, t.end)));
            blank.push((semicolon.start, semicolon.end));
            continue;
        }
        // Remove each `subgroups` item with one adjacent comma, keeping a valid list.
        let mut removed = vec![false; body.len()];
        for i in 0..body.len() {
            if body[i].kind != TokenKind::Ident || !is_subgroups(&body[i]) {
                continue;
            }
            removed[i] = true;
            // Prefer the comma after the item; the last item takes the one before it.
            if i + 1 < body.len() && body[i + 1].kind == TokenKind::Comma && !removed[i + 1] {
                removed[i + 1] = true;
            } else if i > 0 && body[i - 1].kind == TokenKind::Comma && !removed[i - 1] {
                removed[i - 1] = true;
            }
        }
        blank.extend(body.iter().zip(&removed).filter(|(_, r)| **r).map(|(t, _)| (t.start, t.end)));
    }
    let mut bytes = source.as_bytes().to_vec();
    for (start, end) in blank {
        // Only ASCII tokens (identifiers we matched, commas, semicolons) are blanked, so the
        // result stays valid UTF-8 with the same byte length.
        for b in bytes.iter_mut().take(end).skip(start) {
            *b = b' ';
        }
    }
    let text = String::from_utf8(bytes).unwrap_or_else(|_| source.to_string());
    (text, enables)
}

/// The byte ranges of the identifiers of `text` (comments skipped), in order.
pub fn identifiers(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut lexer = Lexer { text, pos: 0 };
    std::iter::from_fn(move || lexer.next_token())
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| (t.start, t.end))
}

/// Most operator characters one statement may hold. naga's parser and validator recurse
/// once per operator of a chain like `1 + 1 + ...`; real kernels stay far below this.
pub const MAX_STATEMENT_OPERATORS: usize = 4096;

/// Rejects text whose statements are so long that naga's recursion could exhaust the stack:
/// more than [`MAX_STATEMENT_OPERATORS`] operator characters between `;`, `{` and `}`
/// (comments skipped).
pub fn check_limits(text: &str) -> Option<Diagnostic> {
    limit_error(longest_statement(text))
}

/// The diagnostic for a [`longest_statement`] result over the limit.
pub fn limit_error((ops, start, end): (usize, usize, usize)) -> Option<Diagnostic> {
    (ops > MAX_STATEMENT_OPERATORS).then(|| {
        Diagnostic::error(
            DiagKind::Limit,
            format!("statement has more than {MAX_STATEMENT_OPERATORS} operators"),
        )
        .at(Span { start: start as u32, end: end as u32 })
        .help("split the computation into several `let` declarations")
    })
}

/// The most operator characters in one statement (between `;`, `{` and `}`, comments
/// skipped), which bounds naga's recursion depth. The scan stops once the count passes
/// [`MAX_STATEMENT_OPERATORS`]. Returns the count and the byte range of that statement up to
/// the last operator counted.
pub fn longest_statement(text: &str) -> (usize, usize, usize) {
    let mut lexer = Lexer { text, pos: 0 };
    let mut start = 0usize;
    let mut ops = 0usize;
    let mut best = (0usize, 0usize, 0usize);
    loop {
        lexer.skip_trivia();
        let rest = text.get(lexer.pos..).unwrap_or("");
        let Some(c) = rest.chars().next() else { return best };
        match c {
            ';' | '{' | '}' => {
                ops = 0;
                start = lexer.pos + 1;
            }
            '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '!' | '~' | '<' | '>' | '=' | '('
            | '[' => {
                ops += 1;
                if ops > best.0 {
                    best = (ops, start, lexer.pos + 1);
                    if ops > MAX_STATEMENT_OPERATORS {
                        return best;
                    }
                }
            }
            _ => {}
        }
        lexer.pos += c.len_utf8();
    }
}

/// The name of the function whose declaration contains byte `offset` (signature or body),
/// found lexically so it also works for text naga could not parse.
pub fn enclosing_function(text: &str, offset: usize) -> Option<String> {
    let mut lexer = Lexer { text, pos: 0 };
    let mut depth = 0usize;
    let mut current: Option<(usize, String)> = None; // (start of `fn`, name)
    let mut prev_fn = false;
    while let Some(t) = lexer.next_token() {
        if t.start >= offset {
            break;
        }
        let word = text.get(t.start..t.end).unwrap_or("");
        if prev_fn && t.kind == TokenKind::Ident && depth == 0 {
            current = Some((t.start, word.to_string()));
        }
        prev_fn = t.kind == TokenKind::Ident && word == "fn" && depth == 0;
        match word {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    current = None;
                }
            }
            ";" if depth == 0 => current = None,
            _ => {}
        }
    }
    current.map(|(_, name)| name)
}

/// Byte offset of the first bracket at the deepest nesting of `(`, `[` and `{` (comments
/// skipped), for pointing at "nested too deeply" errors.
pub fn deepest_nesting(text: &str) -> Option<usize> {
    let mut lexer = Lexer { text, pos: 0 };
    let (mut depth, mut best, mut at) = (0usize, 0usize, None);
    loop {
        lexer.skip_trivia();
        let rest = text.get(lexer.pos..).unwrap_or("");
        let Some(c) = rest.chars().next() else { return at };
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > best {
                    best = depth;
                    at = Some(lexer.pos);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        lexer.pos += c.len_utf8();
        if lexer.pos >= text.len() {
            return at;
        }
    }
}

/// Whether `body` is `name (, name)* ,?`: the only shape in which items are removed.
fn is_name_list(body: &[Token]) -> bool {
    if body.is_empty() {
        return false;
    }
    body.iter().enumerate().all(|(i, t)| {
        let want = if i % 2 == 0 { TokenKind::Ident } else { TokenKind::Comma };
        t.kind == want
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(s: &str) -> (String, Enables) {
        let (out, e) = preprocess(s);
        assert_eq!(out.len(), s.len(), "byte length must not change");
        (out, e)
    }

    #[test]
    fn removes_lone_directive() {
        let (out, e) = pre("enable subgroups;\nfn f() {}\n");
        assert_eq!(out, "                 \nfn f() {}\n");
        assert!(e.subgroups && !e.f16 && !e.cooperative_matrix);
    }

    #[test]
    fn removes_item_from_list_first_middle_last() {
        assert_eq!(pre("enable subgroups, f16;").0, "enable            f16;");
        assert_eq!(pre("enable f16, subgroups;").0, "enable f16           ;");
        assert_eq!(
            pre("enable f16,subgroups,wgpu_cooperative_matrix;").0,
            "enable f16,          wgpu_cooperative_matrix;"
        );
        let (_, e) = pre("enable f16, subgroups, wgpu_cooperative_matrix;");
        assert_eq!(
            e,
            Enables {
                f16: true,
                subgroups: true,
                cooperative_matrix: true,
                subgroup_matrix: false,
                workgroup_matrix: false,
                subgroup_matrix_uniformity: None
            }
        );
    }

    #[test]
    fn dawn_uniformity_diagnostic_is_recorded() {
        let sev = |text: &str| pre(text).1.subgroup_matrix_uniformity;
        let enable = "enable chromium_experimental_subgroup_matrix;";
        assert_eq!(
            sev(&format!("diagnostic(off, chromium.subgroup_matrix_uniformity);{enable}")),
            Some("off")
        );
        assert_eq!(
            sev(&format!(
                "{enable} diagnostic( warning ,chromium . subgroup_matrix_uniformity ,);"
            )),
            Some("warning")
        );
        assert_eq!(sev(&format!("{enable} diagnostic(off, derivative_uniformity);")), None);
        assert_eq!(
            sev(&format!("{enable} diagnostic(loud, chromium.subgroup_matrix_uniformity);")),
            None
        );
        // Only the directive prologue: after the first declaration it is not a directive.
        assert_eq!(
            sev(&format!(
                "{enable} const c = 1; diagnostic(off, chromium.subgroup_matrix_uniformity);"
            )),
            None
        );
    }

    #[test]
    fn trailing_comma_and_repeats() {
        assert_eq!(pre("enable f16, subgroups,;").0, "enable f16,           ;");
        assert_eq!(pre("enable subgroups, subgroups;").0, "                            ");
    }

    #[test]
    fn comments_are_kept_and_never_edited() {
        let src =
            "// enable subgroups;\n/* enable subgroups; /* nested */ */enable /*x*/ subgroups;";
        let (out, e) = pre(src);
        let want = format!(
            "// enable subgroups;\n/* enable subgroups; /* nested */ */{} /*x*/ {}{}",
            " ".repeat(6),
            " ".repeat(9),
            " "
        );
        assert_eq!(out, want);
        assert!(e.subgroups);
        // A comment mentioning the directive alone enables nothing.
        let (out, e) = pre("// enable subgroups;\nfn f() {}");
        assert_eq!(out, "// enable subgroups;\nfn f() {}");
        assert!(!e.subgroups);
    }

    #[test]
    fn other_identifiers_untouched() {
        let src = "enable f16;\nfn subgroups_x() { let subgroups = 1; }";
        let (out, e) = pre(src);
        assert_eq!(out, src);
        assert!(e.f16 && !e.subgroups);
        // A directive after a declaration is not in the prologue: left for naga to report.
        let src = "fn f() {}\nenable subgroups;";
        assert_eq!(pre(src).0, src);
    }

    #[test]
    fn columns_after_multibyte_text_stay() {
        let src = "enable subgroups; // 加倍\nfn 加倍() {}";
        let (out, _) = pre(src);
        assert_eq!(out, "                  // 加倍\nfn 加倍() {}");
    }

    #[test]
    fn malformed_directives_left_alone() {
        for src in
            ["enable subgroups", "enable ;", "enable subgroups subgroups;", "enable (subgroups);"]
        {
            assert_eq!(pre(src).0, src);
        }
        assert_eq!(pre("").0, "");
        assert_eq!(pre("/* unterminated enable subgroups;").0, "/* unterminated enable subgroups;");
    }

    #[test]
    fn statement_operator_limit() {
        let ok =
            format!("fn f() -> i32 {{ return 1{}; }}", " + 1".repeat(MAX_STATEMENT_OPERATORS - 1));
        assert!(check_limits(&ok).is_none());
        // The same count spread over statements is fine.
        let ok = "fn f() { let a = 1 + 2; }\n".repeat(MAX_STATEMENT_OPERATORS);
        assert!(check_limits(&ok).is_none());
        let bad =
            format!("fn f() -> i32 {{ return 1{}; }}", " + 1".repeat(MAX_STATEMENT_OPERATORS + 1));
        let d = check_limits(&bad).map(|d| (d.kind, d.span.map(|s| s.start)));
        assert_eq!(d, Some((DiagKind::Limit, Some(15))));
        // Operators in comments do not count.
        let c = format!("// {}\nfn f() {{}}", "+".repeat(MAX_STATEMENT_OPERATORS * 2));
        assert!(check_limits(&c).is_none());
    }

    #[test]
    fn enclosing_function_by_offset() {
        let src = "const a = 1;\nfn first(x: i32) -> i32 {\n  { return x; }\n}\nfn 加倍() { let y = z; }\n";
        let at = |needle: &str| src.find(needle).unwrap_or(0);
        assert_eq!(enclosing_function(src, at("1;")), None);
        assert_eq!(enclosing_function(src, at("x: i32")).as_deref(), Some("first"));
        assert_eq!(enclosing_function(src, at("return x")).as_deref(), Some("first"));
        assert_eq!(enclosing_function(src, at("z;")).as_deref(), Some("加倍"));
        assert_eq!(enclosing_function(src, src.len()), None);
        // Unbalanced text (a parse error) still finds the open function.
        assert_eq!(enclosing_function("fn g() { if (", 12).as_deref(), Some("g"));
    }

    #[test]
    fn deepest_nesting_points_at_innermost_bracket() {
        assert_eq!(deepest_nesting("f(a, (b[(c)]))"), Some(8));
        assert_eq!(deepest_nesting("abc"), None);
        assert_eq!(deepest_nesting("/* ((( */ ("), Some(10));
        assert_eq!(deepest_nesting("((x))\n"), Some(1));
    }

    #[test]
    fn other_directives_are_skipped() {
        let src = "diagnostic(off, derivative_uniformity);\nrequires readonly_and_readwrite_storage_textures;\nenable subgroups;";
        let (out, e) = pre(src);
        assert!(out.ends_with("\n                 "), "{out:?}");
        assert!(e.subgroups);
    }
}
