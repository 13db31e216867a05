//! Source lines of an entry's statements. The PTX model carries no positions, so the
//! emulator re-scans the text with the `ptx` crate's lexer and walks the entry body the way
//! the parser does, recording the line of every statement it would push.

use dianran_ptx::parse::lexer::{lex, Tok, Token};

/// Index of the token after the next `;` at or after `i`.
fn after_semicolon(toks: &[Token], mut i: usize) -> usize {
    while let Some(t) = toks.get(i) {
        i += 1;
        if t.tok == Tok::Punct(';') {
            break;
        }
    }
    i
}

/// The 1-based line of every statement (label, instruction, own-line comment) of entry
/// `name`'s body, in body order; `None` when the text cannot be scanned.
pub(crate) fn statement_lines(text: &str, name: &str) -> Option<Vec<u32>> {
    let toks = lex(text).ok()?;
    let start = toks.windows(2).position(|w| {
        w[0].tok == Tok::Word(".entry".into()) && w[1].tok == Tok::Word(name.to_string())
    })?;
    // The body opens at the first `{` after the parameter list.
    let mut i = start + 2;
    let mut in_params = false;
    loop {
        match &toks.get(i)?.tok {
            Tok::Punct('(') => in_params = true,
            Tok::Punct(')') => in_params = false,
            Tok::Punct('{') if !in_params => break,
            _ => {}
        }
        i += 1;
    }
    i += 1;
    let mut depth = 1usize;
    let mut lines = Vec::new();
    while depth > 0 {
        let t = toks.get(i)?;
        match &t.tok {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth -= 1;
                i += 1;
            }
            Tok::Comment(_, own_line) => {
                if *own_line {
                    lines.push(t.line);
                }
                i += 1;
            }
            Tok::Word(w) if w == ".loc" || w == ".file" => {
                let line = t.line;
                while toks.get(i).is_some_and(|t| t.line == line) {
                    i += 1;
                }
            }
            Tok::Word(w) if w.starts_with('.') => i = after_semicolon(&toks, i),
            Tok::Word(_) if toks.get(i + 1).map(|t| &t.tok) == Some(&Tok::Punct(':')) => {
                lines.push(t.line);
                i += 2;
            }
            Tok::Word(_) | Tok::Punct('@') => {
                lines.push(t.line);
                i = after_semicolon(&toks, i);
            }
            _ => i += 1,
        }
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_the_parser() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 p\n)\n.reqntid 32, 1, 1\n{\n\t.reg .b32 %r<3>;\n\t// note\n\tmov.u32 %r1, 1;\n$L1:\n\t@%p1 bra $L1;\n\tret;\n}\n";
        assert_eq!(statement_lines(text, "k"), Some(vec![11, 12, 13, 14, 15]));
    }
}
