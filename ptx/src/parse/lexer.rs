//! Splits PTX text into tokens with 1-based line numbers.

use crate::error::{PtxError, PtxErrorKind};

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier, opcode with modifiers (`ld.global.f32`) or directive (`.reg`).
    Word(String),
    /// `%name` (register or special register), without the `%`.
    Reg(String),
    /// A number as written (`42`, `0x3C00`, `0f3F800000`, `8.0`).
    Num(String),
    /// A quoted string, without the quotes.
    Str(String),
    /// A punctuation character.
    Punct(char),
    /// A `//` comment: its text after `//`, and whether it stands on its own line.
    Comment(String, bool),
}

/// A token and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line.
    pub line: u32,
}

fn word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

/// Tokenizes `text`. Non-ASCII bytes are an error (ptxas rejects them too) except in comments.
pub fn lex(text: &str) -> Result<Vec<Token>, PtxError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    let mut line = 1u32;
    // Whether only whitespace precedes `i` on the current line.
    let mut line_start = true;
    while let Some(&c) = b.get(i) {
        if c == b'\n' {
            line = line.saturating_add(1);
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let own_line = line_start;
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            let body = text.get(i + 2..end).unwrap_or("").trim_end_matches('\r');
            out.push(Token { tok: Tok::Comment(body.to_string(), own_line), line });
            i = end;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let Some(n) = text.get(i + 2..).and_then(|r| r.find("*/")) else {
                return Err(PtxError::at_line(
                    PtxErrorKind::Syntax,
                    line,
                    "unterminated /* comment",
                ));
            };
            let end = i + 2 + n + 2;
            line = line.saturating_add(text[i..end].matches('\n').count() as u32);
            i = end;
            continue;
        }
        let tok = if c == b'%' {
            i += 1;
            while b.get(i).is_some_and(|c| word_char(*c)) {
                i += 1;
            }
            Tok::Reg(text[start + 1..i].to_string())
        } else if c.is_ascii_digit() {
            while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.') {
                i += 1;
            }
            Tok::Num(text[start..i].to_string())
        } else if c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'.') {
            loop {
                match b.get(i) {
                    Some(c) if word_char(*c) => i += 1,
                    // `.shared::cta`: a double colon belongs to the word, a single one ends it.
                    Some(b':') if b.get(i + 1) == Some(&b':') => i += 2,
                    _ => break,
                }
            }
            Tok::Word(text[start..i].to_string())
        } else if c == b'"' {
            let Some(n) = text.get(i + 1..).and_then(|r| r.find(['"', '\n'])) else {
                return Err(PtxError::at_line(PtxErrorKind::Syntax, line, "unterminated string"));
            };
            let end = i + 1 + n;
            if b.get(end) != Some(&b'"') {
                return Err(PtxError::at_line(PtxErrorKind::Syntax, line, "unterminated string"));
            }
            i = end + 1;
            Tok::Str(text[start + 1..end].to_string())
        } else if b",;:{}[]()<>+-|!@=".contains(&c) {
            i += 1;
            Tok::Punct(char::from(c))
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(PtxError::at_line(
                if c.is_ascii() { PtxErrorKind::Syntax } else { PtxErrorKind::NonAscii },
                line,
                format!("unexpected character {ch:?}"),
            ));
        };
        out.push(Token { tok, line });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).map(|v| v.into_iter().map(|t| t.tok).collect()).unwrap_or_default()
    }

    #[test]
    fn splits_tokens() {
        assert_eq!(
            toks("$L__BB0_2:\n\t@!%p1 ld.shared::cta.u32 %r1, [x+-4]; // hi"),
            vec![
                Tok::Word("$L__BB0_2".into()),
                Tok::Punct(':'),
                Tok::Punct('@'),
                Tok::Punct('!'),
                Tok::Reg("p1".into()),
                Tok::Word("ld.shared::cta.u32".into()),
                Tok::Reg("r1".into()),
                Tok::Punct(','),
                Tok::Punct('['),
                Tok::Word("x".into()),
                Tok::Punct('+'),
                Tok::Punct('-'),
                Tok::Num("4".into()),
                Tok::Punct(']'),
                Tok::Punct(';'),
                Tok::Comment(" hi".into(), false),
            ]
        );
    }

    #[test]
    fn lines_and_errors() {
        let v = lex("// a\n/* b\n c */ .reg").unwrap_or_default();
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].tok, Tok::Comment(" a".into(), true));
        assert_eq!(v[1].line, 3);
        let e = lex("\n\n mov é");
        assert_eq!(e.map_err(|e| (e.kind, e.line)), Err((PtxErrorKind::NonAscii, Some(3))));
        assert!(lex("/* open").is_err());
    }
}
