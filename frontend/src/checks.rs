//! Checks naga's validator misses, for cooperative matrices (naga's validator does not check them).
//!
//! * `coopLoad<M>` / `coopLoadT<M>`: naga drops the scalar type of `M` and types the result
//!   from the pointer, so `coopLoad<coop_mat16x16<f16, A>>(&f32_buffer[0])` silently yields
//!   an f32 matrix. The template is read back from the source text at the call's span and
//!   compared with the pointer's element type.
//! * Strides: must be `u32`, or a constant that is a non-negative integer.
//! * `coopMultiplyAdd(a, b, c)`: roles A, B, C, equal sizes, and consistent scalars (A and B
//!   the same; an f32 A/B needs an f32 C).
//!
//! Each problem is a [`DiagKind::Check`] diagnostic with the call's span, the function name
//! and a help text.

use crate::ir::Span;
use crate::parse::span_of;
use crate::{DiagKind, Diagnostic};
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{CooperativeRole, Expression, Handle, Scalar, ScalarKind, TypeInner};

/// Runs every check on a validated module; `text` is the source naga parsed (spans index
/// into it).
pub fn check_module(module: &naga::Module, info: &ModuleInfo, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (h, f) in module.functions.iter() {
        let name = f.name.clone().unwrap_or_default();
        // `info` comes from validating `module`, so it has an entry for every function.
        check_function(module, f, &info[h], &name, text, &mut out);
    }
    for (i, ep) in module.entry_points.iter().enumerate() {
        check_function(module, &ep.function, info.get_entry_point(i), &ep.name, text, &mut out);
    }
    out
}

/// What one function's checks need.
struct Ctx<'a> {
    module: &'a naga::Module,
    func: &'a naga::Function,
    info: &'a FunctionInfo,
    name: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn ty(&self, e: Handle<Expression>) -> &TypeInner {
        self.info[e].ty.inner_with(&self.module.types)
    }
    fn span(&self, e: Handle<Expression>) -> Span {
        span_of(self.func.expressions.get_span(e))
    }
    fn error(&self, span: Span, message: String, help: &str) -> Diagnostic {
        Diagnostic::error(DiagKind::Check, message).at(span).in_fn(self.name).help(help)
    }
}

fn check_function(
    module: &naga::Module,
    func: &naga::Function,
    info: &FunctionInfo,
    name: &str,
    text: &str,
    out: &mut Vec<Diagnostic>,
) {
    let cx = Ctx { module, func, info, name, text };
    for (h, expr) in func.expressions.iter() {
        match expr {
            Expression::CooperativeLoad { data, .. } => {
                check_load_element(&cx, h, out);
                check_stride(&cx, data.stride, cx.span(h), out);
            }
            Expression::CooperativeMultiplyAdd { a, b, c } => {
                check_multiply_add(&cx, h, [*a, *b, *c], out)
            }
            _ => {}
        }
    }
    check_stores(&cx, &func.body, out);
}

/// Store statements anywhere in `block` (nested blocks included).
fn check_stores(cx: &Ctx, block: &naga::Block, out: &mut Vec<Diagnostic>) {
    use naga::Statement as S;
    for (stmt, span) in block.span_iter() {
        match stmt {
            S::CooperativeStore { data, .. } => check_stride(cx, data.stride, span_of(*span), out),
            S::Block(b) => check_stores(cx, b, out),
            S::If { accept, reject, .. } => {
                check_stores(cx, accept, out);
                check_stores(cx, reject, out);
            }
            S::Switch { cases, .. } => cases.iter().for_each(|c| check_stores(cx, &c.body, out)),
            S::Loop { body, continuing, .. } => {
                check_stores(cx, body, out);
                check_stores(cx, continuing, out);
            }
            _ => {}
        }
    }
}

/// The scalar name WGSL writes (`f16`, `f32`, ...).
fn scalar_name(s: Scalar) -> String {
    let kind = match s.kind {
        ScalarKind::Float | ScalarKind::AbstractFloat => "f",
        ScalarKind::Sint | ScalarKind::AbstractInt => "i",
        ScalarKind::Uint => "u",
        ScalarKind::Bool => return "bool".to_string(),
    };
    format!("{kind}{}", u32::from(s.width) * 8)
}

fn role_name(r: CooperativeRole) -> &'static str {
    match r {
        CooperativeRole::A => "A",
        CooperativeRole::B => "B",
        CooperativeRole::C => "C",
    }
}

/// `coopLoad<M>(p)`: `M`'s scalar (from the source text) must be `p`'s element type.
fn check_load_element(cx: &Ctx, h: Handle<Expression>, out: &mut Vec<Diagnostic>) {
    let span = cx.span(h);
    let TypeInner::CooperativeMatrix { scalar: loaded, .. } = *cx.ty(h) else { return };
    let Some(call) = cx.text.get(span.start as usize..span.end as usize) else { return };
    // When the template cannot be read back (an unusual spelling), nothing is reported:
    // a check must never reject a correct program.
    let Some(template) = load_template(call) else { return };
    let Some(declared) = template_scalar(cx.text, template) else { return };
    if declared != scalar_name(loaded) {
        out.push(cx.error(
            span,
            format!(
                "cooperative load of a `{declared}` matrix from memory holding `{}` elements",
                scalar_name(loaded)
            ),
            &format!(
                "load from a buffer of `{declared}` elements, or declare the matrix with `{}` elements; coopLoad never converts",
                scalar_name(loaded)
            ),
        ));
    }
}

/// The text between the `<` and its matching `>` after `coopLoad`/`coopLoadT`.
fn load_template(call: &str) -> Option<&str> {
    let rest = call.trim_start();
    let rest = rest.strip_prefix("coopLoadT").or_else(|| rest.strip_prefix("coopLoad"))?;
    let rest = rest.trim_start().strip_prefix('<')?;
    let mut depth = 1usize;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return rest.get(..i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The scalar of a cooperative matrix type written as `coop_matNxN<T, R>`, or as the name
/// of an `alias` to one (looked up in `text`).
fn template_scalar(text: &str, template: &str) -> Option<String> {
    let t = template.trim();
    if let Some(rest) = t.strip_prefix("coop_mat") {
        let args = rest.split_once('<')?.1;
        let scalar = args.split(',').next()?.trim();
        return Some(scalar.to_string());
    }
    if t.is_empty() || !t.chars().all(|c| c == '_' || c.is_alphanumeric()) {
        return None;
    }
    // `alias NAME = coop_mat...;` (one level; an alias of an alias is not followed).
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|r| r.find("alias")).map(|i| i + from) {
        from = i + "alias".len();
        let rest = text.get(from..)?.trim_start();
        let Some(after_name) = rest.strip_prefix(t) else { continue };
        let Some(def) = after_name.trim_start().strip_prefix('=') else { continue };
        let def = def.split(';').next()?.trim();
        if def.starts_with("coop_mat") {
            return template_scalar(text, def);
        }
        return None;
    }
    None
}

/// A stride must be a `u32`, or a constant non-negative integer.
fn check_stride(cx: &Ctx, stride: Handle<Expression>, call: Span, out: &mut Vec<Diagnostic>) {
    let own = cx.span(stride);
    let span = if own.is_unknown() { call } else { own };
    let help =
        "pass the stride (in elements, between rows or columns) as a `u32`, e.g. `16u` or `u32(n)`";
    let message = match *cx.ty(stride) {
        TypeInner::Scalar(Scalar { kind: ScalarKind::Uint, width: 4 }) => return,
        TypeInner::Scalar(Scalar { kind: ScalarKind::Sint, .. }) => match const_int(cx, stride) {
            Some(v) if v >= 0 => return,
            Some(v) => format!("cooperative matrix stride is negative ({v})"),
            None => "cooperative matrix stride must be `u32`, found `i32`".to_string(),
        },
        _ => {
            use naga::common::wgsl::TypeContext;
            let found = cx.module.types.type_resolution_to_string(&cx.info[stride].ty);
            format!("cooperative matrix stride must be `u32`, found `{found}`")
        }
    };
    let mut d = cx.error(span, message, help);
    if span != call {
        // The value may be defined far from the call (a `let`): show the call too.
        d = d.label(call, "used as the stride here");
    }
    out.push(d);
}

/// The value of an integer constant expression (a literal or a named `const`).
fn const_int(cx: &Ctx, e: Handle<Expression>) -> Option<i64> {
    let literal = |l: &naga::Literal| match *l {
        naga::Literal::I32(v) => Some(i64::from(v)),
        naga::Literal::U32(v) => Some(i64::from(v)),
        naga::Literal::AbstractInt(v) => Some(v),
        _ => None,
    };
    match cx.func.expressions.try_get(e).ok()? {
        Expression::Literal(l) => literal(l),
        Expression::Constant(c) => {
            let init = cx.module.constants.try_get(*c).ok()?.init;
            match cx.module.global_expressions.try_get(init).ok()? {
                Expression::Literal(l) => literal(l),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `coopMultiplyAdd(a, b, c)`: roles, sizes and scalars.
fn check_multiply_add(
    cx: &Ctx,
    h: Handle<Expression>,
    ops: [Handle<Expression>; 3],
    out: &mut Vec<Diagnostic>,
) {
    let span = cx.span(h);
    let mut mats = Vec::new();
    for (e, want) in
        ops.into_iter().zip([CooperativeRole::A, CooperativeRole::B, CooperativeRole::C])
    {
        let TypeInner::CooperativeMatrix { columns, rows, scalar, role } = *cx.ty(e) else {
            return;
        };
        if role != want {
            let s = cx.span(e);
            out.push(cx.error(
                if s.is_unknown() { span } else { s },
                format!(
                    "coopMultiplyAdd operand {} has role {}, expected role {}",
                    role_name(want).to_ascii_lowercase(),
                    role_name(role),
                    role_name(want)
                ),
                "coopMultiplyAdd(a, b, c) takes matrices of roles A, B and C in that order",
            ));
        }
        mats.push((columns as u32, rows as u32, scalar));
    }
    let [(ac, ar, asc), (bc, br, bsc), (cc, cr, csc)] = mats[..] else { return };
    if (ac, ar) != (bc, br) || (ac, ar) != (cc, cr) {
        out.push(cx.error(
            span,
            format!("coopMultiplyAdd sizes differ: a is {ac}x{ar}, b is {bc}x{br}, c is {cc}x{cr}"),
            "use matrices of one size (all coop_mat8x8 or all coop_mat16x16)",
        ));
    }
    if asc != bsc {
        out.push(cx.error(
            span,
            format!(
                "coopMultiplyAdd operands a and b differ in type: `{}` and `{}`",
                scalar_name(asc),
                scalar_name(bsc)
            ),
            "give a and b the same element type (both f16 or both f32)",
        ));
    } else if asc.width > csc.width {
        out.push(cx.error(
            span,
            format!(
                "coopMultiplyAdd accumulates `{}` products into a `{}` matrix",
                scalar_name(asc),
                scalar_name(csc)
            ),
            "the accumulator c must be at least as wide as a and b: use an f32 c (f16 a/b with an f32 or f16 c is fine)",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse, Options};

    const HEAD: &str = "enable f16;\nenable wgpu_cooperative_matrix;\n\
        @group(0) @binding(0) var<storage, read_write> h: array<f16>;\n\
        @group(0) @binding(1) var<storage, read_write> s: array<f32>;\n";

    /// Diagnostics of kind Check for a compute body using the buffers in `HEAD`.
    fn check(body: &str) -> Vec<Diagnostic> {
        let src = format!("{HEAD}@compute @workgroup_size(32) fn main() {{\n{body}\n}}\n");
        match parse::parse("t.wgsl", &src, &Options::default()) {
            Ok(_) => Vec::new(),
            Err(e) => {
                for d in &e.list {
                    assert_eq!(d.kind, DiagKind::Check, "{}", e.render());
                    assert_eq!(d.context.as_deref(), Some("main"));
                    assert!(d.span.is_some() && d.help.is_some());
                }
                e.list
            }
        }
    }

    #[test]
    fn correct_kernel_passes() {
        let body = "let a = coopLoad<coop_mat16x16<f16, A>>(&h[0]);\n\
            let b = coopLoadT<coop_mat16x16<f16, B>>(&h[256], 16u);\n\
            let c = coopLoad<coop_mat16x16<f32, C>>(&s[0], 16);\n\
            let d = coopMultiplyAdd(a, b, c);\n\
            coopStore(d, &s[0], 16u);";
        assert_eq!(check(body), Vec::new());
    }

    #[test]
    fn load_element_mismatch() {
        let l = check("let a = coopLoad<coop_mat16x16<f16, A>>(&s[0]);");
        assert_eq!(l.len(), 1);
        assert!(
            l[0].message.contains("`f16` matrix") && l[0].message.contains("`f32` elements"),
            "{}",
            l[0].message
        );
        let src_off = HEAD.len() + "@compute @workgroup_size(32) fn main() {\n".len() + 8;
        assert_eq!(l[0].span.map(|s| s.start as usize), Some(src_off));
    }

    #[test]
    fn matrix_held_in_a_typed_let() {
        // The annotation agrees with the memory but not with the template: the check sees it.
        let l = check("let a: coop_mat8x8<f32, A> = coopLoad<coop_mat8x8<f16, A>>(&s[0]);");
        assert_eq!(l.len(), 1, "{l:?}");
        // The annotation disagrees with the loaded type: naga's frontend rejects it.
        let src = format!(
            "{HEAD}@compute @workgroup_size(32) fn main() {{ let a: coop_mat8x8<f16, A> = coopLoad<coop_mat8x8<f16, A>>(&s[0]); }}"
        );
        let e = parse::parse("t.wgsl", &src, &Options::default())
            .err()
            .map(|e| e.list)
            .unwrap_or_default();
        assert_eq!(e.len(), 1, "{e:?}");
    }

    #[test]
    fn load_through_alias() {
        let src = format!(
            "{HEAD}alias MA = coop_mat8x8<f32, A>;\n@compute @workgroup_size(32) fn main() {{ let a = coopLoadT<MA>(&h[0]); }}"
        );
        let e = parse::parse("t.wgsl", &src, &Options::default())
            .err()
            .map(|e| e.list)
            .unwrap_or_default();
        assert_eq!(e.len(), 1);
        assert!(e[0].message.contains("`f32` matrix"), "{}", e[0].message);
    }

    #[test]
    fn strides() {
        assert!(check("let a = coopLoad<coop_mat8x8<f16, A>>(&h[0], 8);").is_empty());
        let l = check("let a = coopLoad<coop_mat8x8<f16, A>>(&h[0], -8);");
        assert_eq!(l.len(), 1);
        assert!(l[0].message.contains("negative"), "{}", l[0].message);
        let l = check("var n: i32 = 8;\nlet a = coopLoad<coop_mat8x8<f16, A>>(&h[0], n);");
        assert_eq!(l.len(), 1);
        assert!(l[0].message.contains("must be `u32`, found `i32`"), "{}", l[0].message);
        let l = check("let a = coopLoad<coop_mat8x8<f16, A>>(&h[0], 8.0);");
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].message.contains("found `f32`"), "{}", l[0].message);
        let l = check("let c = coopLoad<coop_mat8x8<f32, C>>(&s[0]);\ncoopStore(c, &s[0], 8.0);");
        assert_eq!(l.len(), 1, "{l:?}");
    }

    #[test]
    fn multiply_add_sizes_and_types() {
        let l = check(
            "let a = coopLoad<coop_mat8x8<f16, A>>(&h[0]);\n\
             let b = coopLoad<coop_mat16x16<f16, B>>(&h[0]);\n\
             let c = coopLoad<coop_mat8x8<f32, C>>(&s[0]);\n\
             let d = coopMultiplyAdd(a, b, c);",
        );
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].message.contains("a is 8x8, b is 16x16, c is 8x8"), "{}", l[0].message);
        let l = check(
            "let a = coopLoad<coop_mat8x8<f16, A>>(&h[0]);\n\
             let b = coopLoad<coop_mat8x8<f32, B>>(&s[0]);\n\
             let c = coopLoad<coop_mat8x8<f32, C>>(&s[0]);\n\
             let d = coopMultiplyAdd(a, b, c);",
        );
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].message.contains("differ in type"), "{}", l[0].message);
        let l = check(
            "let a = coopLoad<coop_mat8x8<f32, A>>(&s[0]);\n\
             let b = coopLoad<coop_mat8x8<f32, B>>(&s[0]);\n\
             let c = coopLoad<coop_mat8x8<f16, C>>(&h[0]);\n\
             let d = coopMultiplyAdd(a, b, c);",
        );
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(
            l[0].message.contains("accumulates `f32` products into a `f16`"),
            "{}",
            l[0].message
        );
    }

    #[test]
    fn template_reading() {
        assert_eq!(load_template("coopLoad<coop_mat8x8<f16, A>>(&x)"), Some("coop_mat8x8<f16, A>"));
        assert_eq!(load_template("coopLoadT <M>(&x)"), Some("M"));
        assert_eq!(load_template("coopLoad(&x)"), None);
        assert_eq!(template_scalar("", "coop_mat16x16< f32 ,C>"), Some("f32".to_string()));
        assert_eq!(template_scalar("alias M =coop_mat8x8<f16,A>;", "M"), Some("f16".to_string()));
        assert_eq!(template_scalar("alias N = u32;", "N"), None);
    }
}
