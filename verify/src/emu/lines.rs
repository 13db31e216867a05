//! Source lines of an entry's statements. The PTX model carries no positions, so the
//! emulator re-scans the text with the `ptx` crate's lexer and walks the entry body the way
//! the parser does, recording the line of every statement it would push.

use dianran_ptx::parse::lexer::{lex, Tok, Token};
use dianran_ptx::{RegKind, Type};

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

/// The index of the first token inside the body whose header starts at `i` (after the
/// name), or `None` for a declaration without a body (`;` before `{`).
fn body_open(toks: &[Token], mut i: usize) -> Option<usize> {
    let mut parens = 0usize;
    loop {
        match &toks.get(i)?.tok {
            Tok::Punct('(') => parens += 1,
            Tok::Punct(')') => parens = parens.saturating_sub(1),
            Tok::Punct('{') if parens == 0 => return Some(i + 1),
            Tok::Punct(';') if parens == 0 => return None,
            _ => {}
        }
        i += 1;
    }
}

/// The tokens of the text and the index of the first token inside entry `name`'s body.
fn entry_body(text: &str, name: &str) -> Option<(Vec<Token>, usize)> {
    let toks = lex(text).ok()?;
    let start = toks.windows(2).position(|w| {
        w[0].tok == Tok::Word(".entry".into()) && w[1].tok == Tok::Word(name.to_string())
    })?;
    let open = body_open(&toks, start + 2)?;
    Some((toks, open))
}

/// The tokens of the text and the index of the first token inside the body of the
/// definition of function `name` (`.func (.param .b32 r) name(...) {`).
fn func_body(text: &str, name: &str) -> Option<(Vec<Token>, usize)> {
    let toks = lex(text).ok()?;
    let mut i = 0;
    while i < toks.len() {
        if toks[i].tok == Tok::Word(".func".into()) {
            // Skip the return list, then expect the name.
            let mut j = i + 1;
            if toks.get(j)?.tok == Tok::Punct('(') {
                while toks.get(j)?.tok != Tok::Punct(')') {
                    j += 1;
                }
                j += 1;
            }
            if toks.get(j)?.tok == Tok::Word(name.to_string()) {
                if let Some(open) = body_open(&toks, j + 1) {
                    return Some((toks, open));
                }
            }
        }
        i += 1;
    }
    None
}

/// The source names of entry `name`'s registers, by register kind ([`RegKind::index`]) and
/// number as the parser assigns them: each `.reg` declaration takes the next numbers of its
/// width in declaration order (so NVRTC's `%f3` may be the model's `%r12`).
pub(crate) fn register_names(text: &str, name: &str) -> Option<[Vec<String>; 4]> {
    let (toks, mut i) = entry_body(text, name)?;
    let mut names: [Vec<String>; 4] = Default::default();
    let mut depth = 1usize;
    while depth > 0 {
        match &toks.get(i)?.tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Word(w) if w == ".reg" => {
                let ty = match &toks.get(i + 1)?.tok {
                    Tok::Word(t) => t.strip_prefix('.').and_then(Type::from_name)?,
                    _ => return None,
                };
                let kind = match ty.bits() {
                    16 => RegKind::B16,
                    32 => RegKind::B32,
                    64 => RegKind::B64,
                    _ if ty == Type::Pred => RegKind::Pred,
                    _ => return None,
                };
                let list = &mut names[kind.index()];
                i += 2;
                loop {
                    let r = match &toks.get(i)?.tok {
                        Tok::Reg(r) => r.clone(),
                        // `.reg .b32 temp;` (LLVM names scoped registers without `%`).
                        Tok::Word(w) => w.clone(),
                        _ => return None,
                    };
                    let r =
                        if matches!(toks.get(i)?.tok, Tok::Reg(_)) { format!("%{r}") } else { r };
                    if toks.get(i + 1)?.tok == Tok::Punct('<') {
                        let Tok::Num(n) = &toks.get(i + 2)?.tok else { return None };
                        let n: usize = n.parse().ok()?;
                        list.extend((0..n).map(|k| format!("{r}{k}")));
                        i += 4;
                    } else {
                        list.push(r);
                        i += 1;
                    }
                    if toks.get(i)?.tok != Tok::Punct(',') {
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Some(names)
}

/// The 1-based line of every statement (label, instruction, own-line comment, nested `{`
/// and `}`, `.param` declaration, `.pragma`) of entry `name`'s body, in body order; `None`
/// when the text cannot be scanned.
pub(crate) fn statement_lines(text: &str, name: &str) -> Option<Vec<u32>> {
    let (toks, i) = entry_body(text, name)?;
    body_lines(&toks, i)
}

/// [`statement_lines`] for the definition of device function `name`.
pub(crate) fn func_statement_lines(text: &str, name: &str) -> Option<Vec<u32>> {
    let (toks, i) = func_body(text, name)?;
    body_lines(&toks, i)
}

/// The statement lines of the body whose first token is `toks[i]`, as the parser records
/// its statements.
fn body_lines(toks: &[Token], mut i: usize) -> Option<Vec<u32>> {
    let mut depth = 1usize;
    let mut lines = Vec::new();
    while depth > 0 {
        let t = toks.get(i)?;
        match &t.tok {
            Tok::Punct('{') => {
                depth += 1;
                lines.push(t.line);
                i += 1;
            }
            Tok::Punct('}') => {
                depth -= 1;
                if depth > 0 {
                    lines.push(t.line);
                }
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
            Tok::Word(w) if w == ".param" || w == ".pragma" => {
                lines.push(t.line);
                i = after_semicolon(toks, i);
            }
            Tok::Word(w) if w.starts_with('.') => i = after_semicolon(toks, i),
            Tok::Word(_) if toks.get(i + 1).map(|t| &t.tok) == Some(&Tok::Punct(':')) => {
                lines.push(t.line);
                i += 2;
            }
            Tok::Word(_) | Tok::Punct('@') => {
                lines.push(t.line);
                i = after_semicolon(toks, i);
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
        let names = register_names(text, "k").expect("scans");
        assert_eq!(names[RegKind::B32.index()], ["%r0", "%r1", "%r2"]);
    }

    #[test]
    fn llvm_functions_blocks_and_declarations() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
            .func (.param .b32 func_retval0) f;\n\
            .func (.param .b32 func_retval0) f(\n\t.param .b32 f_param_0\n)\n{\n\
            \t.reg .b32 %r<3>; .reg .b64 %rd<2>;\n\
            \tld.param.u32 %r1, [f_param_0];\n\
            \t{ .reg .b32 tmp; mov.b64 {tmp, %r2}, %rd1; }\n\
            \tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n\
            .visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\
            $L1:\n\t.pragma \"nounroll\";\n\
            \t{ // callseq 0, 0\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n\
            \t.param .b32 retval0;\n\tcall.uni (retval0),\n\tf,\n\t(\n\tparam0\n\t);\n\
            \tld.param.b32 %r2, [retval0+0];\n\t} // callseq 0\n\tret;\n}\n";
        let m = dianran_ptx::parse_module(text).expect("parses");
        let k = statement_lines(text, "k").expect("scans k");
        assert_eq!(k.len(), m.entries[0].body.len());
        assert_eq!(k, vec![18, 19, 20, 21, 22, 23, 24, 29, 30, 31]);
        let f = func_statement_lines(text, "f").expect("scans f");
        assert_eq!(f.len(), m.funcs[1].def.body.len());
        assert_eq!(f, vec![10, 11, 11, 11, 12, 13]);
        let names = register_names(text, "k").expect("scans");
        assert_eq!(names[RegKind::B32.index()], ["%r0", "%r1", "%r2"]);
    }

    #[test]
    fn nvrtc_register_names() {
        let text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .f32 %f<3>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %SP, %SPL;\n\tret;\n}\n";
        let names = register_names(text, "k").expect("scans");
        assert_eq!(names[RegKind::B32.index()], ["%f0", "%f1", "%f2", "%r0", "%r1"]);
        assert_eq!(names[RegKind::B64.index()], ["%SP", "%SPL"]);
        assert_eq!(names[RegKind::Pred.index()], ["%p0", "%p1"]);
    }
}
