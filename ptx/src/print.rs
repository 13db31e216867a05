//! The printer: deterministic PTX text in NVRTC's layout (tabs), ASCII only.
//!
//! Registers are declared from the body (`.reg .b32 %r<N>;`, N = highest number + 1), so a
//! module built through the model never lacks a declaration. Every name is checked to be a
//! PTX identifier and every comment to be one line of ASCII; anything else is a typed error
//! and nothing is printed.

use crate::error::{PtxError, PtxErrorKind};
use crate::model::{
    Entry, Func, Linkage, Module, Param, RegKind, StateSpace, Statement, Type, VarDecl,
};
use crate::names::is_identifier;
use std::fmt::Write;

/// Prints `m` as PTX text.
pub fn print_module(m: &Module) -> Result<String, PtxError> {
    print_module_lines(m).map(|(text, _)| text)
}

/// [`print_module`], also returning for every entry the 1-based line of each statement of its
/// body (what an executor of the model names in its messages).
pub fn print_module_lines(m: &Module) -> Result<(String, Vec<Vec<u32>>), PtxError> {
    check_module(m)?;
    // About 32 bytes per line: growing the string as it fills was a visible cost.
    let statements: usize = m
        .entries
        .iter()
        .chain(m.funcs.iter().map(|f| &f.def))
        .map(|e| e.body.len() + e.params.len() + 8)
        .sum();
    let mut out = String::with_capacity(256 + 32 * statements);
    for c in &m.comments {
        push_comment(&mut out, "", c);
    }
    if !m.comments.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, ".version {}.{}", m.version.major, m.version.minor);
    let _ = writeln!(
        out,
        ".target sm_{}{}",
        m.target.sm,
        if m.target.arch_specific { "a" } else { "" }
    );
    let _ = writeln!(out, ".address_size {}", m.address_size);
    out.push('\n');
    for g in &m.globals {
        push_var(&mut out, "", g);
    }
    if !m.globals.is_empty() {
        out.push('\n');
    }
    for f in &m.funcs {
        push_func(&mut out, f);
    }
    let mut lines = Vec::with_capacity(m.entries.len());
    for e in &m.entries {
        lines.push(push_entry(&mut out, e));
    }
    debug_assert!(out.is_ascii());
    Ok((out, lines))
}

fn push_comment(out: &mut String, indent: &str, text: &str) {
    if text.is_empty() {
        let _ = writeln!(out, "{indent}//");
    } else {
        let _ = writeln!(out, "{indent}// {text}");
    }
}

fn push_var(out: &mut String, indent: &str, v: &VarDecl) {
    out.push_str(indent);
    let _ = write!(out, ".{} ", v.space.name());
    if let Some(a) = v.align {
        let _ = write!(out, ".align {a} ");
    }
    let _ = write!(out, ".{} {}", v.ty, v.name);
    if let Some(n) = v.len {
        let _ = write!(out, "[{n}]");
    }
    if !v.init.is_empty() {
        let item = |x: u64| match v.ty {
            Type::F32 => crate::model::types::f32_bits_text(x as u32),
            Type::F64 => crate::model::types::f64_bits_text(x),
            _ => x.to_string(),
        };
        let items: Vec<String> = v.init.iter().map(|&x| item(x)).collect();
        if v.len.is_some() {
            let _ = write!(out, " = {{{}}}", items.join(", "));
        } else {
            let _ = write!(out, " = {}", items.join(", "));
        }
    }
    out.push_str(";\n");
}

/// `.param .u64 name`, or `.param .align A .b8 name[n]`.
fn push_param(out: &mut String, p: &Param) {
    out.push_str(".param ");
    if let Some(a) = p.align {
        let _ = write!(out, ".align {a} ");
    }
    let _ = write!(out, ".{} {}", p.ty, p.name);
    if let Some(n) = p.len {
        let _ = write!(out, "[{n}]");
    }
}

/// A parameter list, one per line, from `(` to `)` (no line break after).
fn push_params(out: &mut String, params: &[Param]) {
    out.push('(');
    for (i, p) in params.iter().enumerate() {
        out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
        push_param(out, p);
    }
    out.push_str(if params.is_empty() { ")" } else { "\n)" });
}

/// Appends function `f` (a definition or a declaration).
fn push_func(out: &mut String, f: &Func) {
    if f.linkage != Linkage::Internal {
        let _ = write!(out, "{} ", f.linkage.directive());
    }
    out.push_str(".func ");
    if !f.rets.is_empty() {
        out.push('(');
        for (i, p) in f.rets.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_param(out, p);
        }
        out.push_str(") ");
    }
    out.push_str(&f.def.name);
    push_params(out, &f.def.params);
    if f.defined {
        out.push('\n');
        push_body(out, &f.def);
    } else {
        out.push_str(";\n\n");
    }
}

/// Appends entry `e`; returns the line of each statement of its body.
fn push_entry(out: &mut String, e: &Entry) -> Vec<u32> {
    let _ = write!(out, ".visible .entry {}", e.name);
    push_params(out, &e.params);
    out.push('\n');
    if let Some([x, y, z]) = e.reqntid {
        let _ = writeln!(out, ".reqntid {x}, {y}, {z}");
    }
    if let Some([x, y, z]) = e.maxntid {
        let _ = writeln!(out, ".maxntid {x}, {y}, {z}");
    }
    push_body(out, e)
}

/// Appends `{`, the register declarations, variables and statements of `e`, and `}`;
/// returns the line of each statement.
fn push_body(out: &mut String, e: &Entry) -> Vec<u32> {
    out.push_str("{\n");
    let counts = e.reg_counts();
    for kind in RegKind::ALL {
        let n = counts[kind.index()];
        if n > 0 {
            let _ = writeln!(out, "\t.reg .{} \t%{}<{n}>;", kind.decl_type(), kind.prefix());
        }
    }
    for v in &e.vars {
        push_var(out, "\t", v);
    }
    out.push('\n');
    let first = out.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
    let lines = (first..first + e.body.len() as u32).collect();
    for s in &e.body {
        match s {
            Statement::Label(l) => {
                let _ = writeln!(out, "{l}:");
            }
            Statement::Inst(i) => {
                out.push('\t');
                i.write_to(out);
                out.push('\n');
            }
            Statement::Comment(c) => push_comment(out, "\t", c),
            Statement::BlockStart => out.push_str("\t{\n"),
            Statement::BlockEnd => out.push_str("\t}\n"),
            Statement::Decl(v) => push_var(out, "\t", v),
            Statement::Pragma(p) => {
                let _ = writeln!(out, "\t.pragma \"{p}\";");
            }
        }
    }
    out.push_str("\n}\n\n");
    lines
}

fn check_comment(text: &str, context: &str) -> Result<(), PtxError> {
    if !text.is_ascii() {
        return Err(PtxError::new(
            PtxErrorKind::NonAscii,
            format!("comment {context} holds a non-ASCII character: {text:?}"),
        ));
    }
    if text.contains(['\n', '\r']) {
        return Err(PtxError::new(
            PtxErrorKind::InvalidName,
            format!("comment {context} holds a line break: {text:?}"),
        ));
    }
    Ok(())
}

fn check_name(name: &str, what: &str) -> Result<(), PtxError> {
    if !name.is_ascii() {
        return Err(PtxError::new(
            PtxErrorKind::NonAscii,
            format!("{what} name {name:?} is not ASCII"),
        ));
    }
    if !is_identifier(name) || name.starts_with('%') {
        return Err(PtxError::new(
            PtxErrorKind::InvalidName,
            format!("{what} name {name:?} is not a PTX identifier"),
        ));
    }
    Ok(())
}

/// Checks a variable; `param`: a `.param` declaration among the statements of a body.
fn check_var(v: &VarDecl, param: bool) -> Result<(), PtxError> {
    check_name(&v.name, "variable")?;
    let room = v.len.unwrap_or(1);
    if !v.init.is_empty() {
        if !matches!(v.space, StateSpace::Global | StateSpace::Const) {
            return Err(PtxError::new(
                PtxErrorKind::InvalidName,
                format!(
                    "variable '{}': only .global and .const variables have initializers",
                    v.name
                ),
            ));
        }
        if v.init.len() as u64 > room {
            return Err(PtxError::new(
                PtxErrorKind::InvalidName,
                format!(
                    "variable '{}' has {} initializers for {room} elements",
                    v.name,
                    v.init.len()
                ),
            ));
        }
    }
    if param != (v.space == StateSpace::Param) {
        return Err(PtxError::new(
            PtxErrorKind::InvalidName,
            if param {
                format!("declaration '{}' among the statements must be in .param", v.name)
            } else {
                format!("variable '{}' must be in .shared, .global, .local or .const", v.name)
            },
        ));
    }
    if matches!(v.space, StateSpace::Reg | StateSpace::Generic) {
        return Err(PtxError::new(
            PtxErrorKind::InvalidName,
            format!("variable '{}' must be in .shared, .global, .local or .const", v.name),
        ));
    }
    Ok(())
}

/// Checks the names, variables and statements of a kernel or function body.
fn check_body(e: &Entry, what: &str) -> Result<(), PtxError> {
    check_name(&e.name, what)?;
    let ctx = format!("in {what} '{}'", e.name);
    for p in &e.params {
        check_name(&p.name, "parameter")?;
    }
    for v in &e.vars {
        check_var(v, false)?;
    }
    let mut depth = 0usize;
    for s in &e.body {
        match s {
            Statement::Label(l) => check_name(l, "label")?,
            Statement::Comment(c) => check_comment(c, &ctx)?,
            Statement::Pragma(p) => {
                check_comment(p, &ctx)?;
                if p.contains('"') {
                    return Err(PtxError::new(
                        PtxErrorKind::InvalidName,
                        format!("pragma {ctx} holds a quote: {p:?}"),
                    ));
                }
            }
            Statement::Decl(v) => check_var(v, true)?,
            Statement::BlockStart => depth += 1,
            Statement::BlockEnd => {
                depth = depth.checked_sub(1).ok_or_else(|| {
                    PtxError::new(PtxErrorKind::InvalidName, format!("'}}' without '{{' {ctx}"))
                })?;
            }
            Statement::Inst(i) => {
                let mut bad = None;
                for o in &i.operands {
                    o.for_each_symbol(&mut |s| {
                        if bad.is_none() {
                            bad = check_name(s, "symbol").err();
                        }
                    });
                }
                if let Some(err) = bad {
                    return Err(err);
                }
            }
        }
    }
    if depth != 0 {
        return Err(PtxError::new(PtxErrorKind::InvalidName, format!("unclosed '{{' {ctx}")));
    }
    Ok(())
}

/// Checks every name and comment of `m` before anything is printed.
pub fn check_module(m: &Module) -> Result<(), PtxError> {
    for c in &m.comments {
        check_comment(c, "before .version")?;
    }
    for g in &m.globals {
        check_var(g, false)?;
    }
    for f in &m.funcs {
        for p in &f.rets {
            check_name(&p.name, "return parameter")?;
        }
        check_body(&f.def, "function")?;
    }
    for e in &m.entries {
        check_body(e, "entry")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::build;
    use crate::model::{Param, Reg, Type};

    #[test]
    fn prints_nvrtc_layout() {
        let mut m = Module::new(80);
        m.comments.push("generated".into());
        let mut e = Entry::new("k");
        e.params.push(Param::pointer("p_g0_b0"));
        e.reqntid = Some([64, 1, 1]);
        e.vars.push(VarDecl::shared_bytes("ys_t", 16, 256));
        e.push(build::ld_param(Type::U64, Reg::b64(1), "p_g0_b0"));
        e.label("$L1");
        e.comment("done");
        e.push(build::ret().guarded(Reg::pred(1), true));
        m.entries.push(e);
        let text = print_module(&m).map_err(|e| e.to_string());
        let want = "// generated\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\
                    .visible .entry k(\n\t.param .u64 p_g0_b0\n)\n.reqntid 64, 1, 1\n{\n\
                    \t.reg .pred \t%p<2>;\n\t.reg .b64 \t%rd<2>;\n\
                    \t.shared .align 16 .b8 ys_t[256];\n\n\
                    \tld.param.u64 \t%rd1, [p_g0_b0];\n$L1:\n\t// done\n\t@!%p1 ret;\n\n}\n\n";
        assert_eq!(text, Ok(want.to_string()));
    }

    #[test]
    fn rejects_non_ascii_and_bad_names() {
        let mut m = Module::new(80);
        m.entries.push(Entry::new("加倍"));
        assert_eq!(print_module(&m).map_err(|e| e.kind), Err(PtxErrorKind::NonAscii));
        m.entries[0].name = "a-b".into();
        assert_eq!(print_module(&m).map_err(|e| e.kind), Err(PtxErrorKind::InvalidName));
        m.entries[0].name = "k".into();
        m.entries[0].comment("ü");
        assert_eq!(print_module(&m).map_err(|e| e.kind), Err(PtxErrorKind::NonAscii));
        m.entries[0].body.clear();
        m.entries[0].comment("a\nb");
        assert_eq!(print_module(&m).map_err(|e| e.kind), Err(PtxErrorKind::InvalidName));
        m.entries[0].body.clear();
        m.entries[0].push(build::bra("é"));
        assert_eq!(print_module(&m).map_err(|e| e.kind), Err(PtxErrorKind::NonAscii));
    }
}
