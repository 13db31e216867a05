//! Dawn's subgroup matrices (`enable chromium_experimental_subgroup_matrix;` or
//! `enable subgroup_matrix;`), brought to naga as ordinary WGSL (`docs/subgroup-matrix.md`).
//!
//! The text is parsed with `wgsl-parse`, the types of the arguments the builtins need are
//! inferred ([`env`]), Dawn's rules are checked, and each construct is replaced:
//!
//! * a type `subgroup_matrix_left<f16, 8, 8>` by an opaque struct `_dr_sgm_left_f16_8x8` of
//!   the matrix's size ([`MatTy::struct_decl`]);
//! * a builtin call by a call to a helper function appended to the text, whose body naga
//!   validates and the lowering never reads: it recognises the helper by name
//!   ([`Rewrite::stubs`]) and emits the cooperative-matrix operation instead. A load or
//!   store passes its tile's first array element *as a value* (`(*p)[offset]`), since WGSL
//!   functions cannot take storage pointers; the lowering takes that load's pointer.
//!   The stride keeps counting array elements (the IR's rule, `ir::Types::coop_scale`); the
//!   deprecated forms' offsets and strides, which count matrix elements, are divided as Dawn
//!   does.
//!
//! Every edit is recorded in a [`SourceMap`], so diagnostics naga reports on the new text
//! point into the user's file.

mod env;
mod matrix;
pub mod tile;

pub use env::Num;
pub use matrix::{Kind, MatTy};

use super::srcmap::{self, Edit, SourceMap};
use crate::ir::{CoopElem, Span};
use crate::{DiagKind, Diagnostic};
use env::{Env, Ty, Typed};
use rustc_hash::FxHashMap;
use wgsl_parse::syntax::{
    self as ast, AccessMode, AddressSpace, Expression, ExpressionNode, GlobalDeclaration,
    Statement, StatementNode,
};

/// An arithmetic builtin applied to every element with one scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    /// `subgroupMatrixScalarAdd`
    Add,
    /// `subgroupMatrixScalarSubtract`
    Subtract,
    /// `subgroupMatrixScalarMultiply`
    Multiply,
}

/// What a helper function stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stub {
    /// `(element, stride) -> matrix`: a load whose tile starts at the element's address;
    /// the stride counts matrix elements.
    Load {
        /// The loaded type.
        matrix: MatTy,
        /// `row_major`.
        row_major: bool,
    },
    /// `(element, matrix, stride)`: a store, as [`Stub::Load`].
    Store {
        /// The stored type.
        matrix: MatTy,
        /// `row_major`.
        row_major: bool,
    },
    /// `(scalar) -> matrix`: every element set to the scalar (clamped to an 8-bit element's
    /// range).
    Fill(MatTy),
    /// `(left, right) -> result`: the product.
    Multiply(MatTy),
    /// `(left, right, acc) -> acc`: the product plus `acc`.
    MultiplyAccumulate,
    /// `(matrix, scalar) -> matrix`.
    Scalar(ScalarOp),
}

/// The rewritten text and what the lowering needs to read it.
#[derive(Clone, Debug, Default)]
pub struct Rewrite {
    /// The naga-valid text.
    pub text: String,
    /// Edited offsets back to the user's.
    pub map: SourceMap,
    /// Opaque struct name → matrix type.
    pub structs: FxHashMap<String, MatTy>,
    /// Helper function name → what it stands for.
    pub stubs: FxHashMap<String, Stub>,
    /// Functions and statements whose `@diagnostic` attribute sets the severity of
    /// `chromium.subgroup_matrix_uniformity` ([`crate::uniformity`]).
    pub uniformity_scopes: Vec<crate::uniformity::Scope>,
    /// The workgroup-matrix helpers ([`tile`]): name and what it stands for.
    pub tile_helpers: Vec<(String, tile::TileSpec)>,
}

/// The extensions a file enables; the rewrite runs when one is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exts {
    /// Dawn's subgroup matrices.
    pub subgroup: bool,
    /// dianran's workgroup matrices ([`tile`]).
    pub workgroup: bool,
}

/// The prefix of every name the rewrite adds; user names may not start with it.
pub const PREFIX: &str = "_dr_sgm";

/// Rewrites `text` (the enable directives already blanked) for the extensions `exts`
/// enables.
pub fn rewrite(text: &str, exts: Exts) -> Result<Rewrite, Vec<Diagnostic>> {
    if let Some((at, len)) = user_prefix(text) {
        return Err(vec![Diagnostic::error(
            DiagKind::Check,
            format!("names starting with `{}` are reserved by dianran", &text[at..at + len]),
        )
        .at(Span { start: at as u32, end: (at + len) as u32 })
        .help("rename this declaration")]);
    }
    let tu = wgsl_parse::parse_str(&mask_builtins(text)).map_err(|e| {
        vec![Diagnostic::error(DiagKind::Parse, format!("{}", e.error))
            .at(Span { start: e.span.start as u32, end: e.span.end.max(e.span.start) as u32 })
            .note("files that enable subgroup matrices are read by dianran's extension parser (wgsl-parse 0.3), which does not know every recent WGSL feature")]
    })?;
    let mut w = Walker {
        text,
        env: Env::new(&tu),
        edits: Vec::new(),
        errors: Vec::new(),
        mats: Vec::new(),
        stub_decls: String::new(),
        stub_names: FxHashMap::default(),
        out: Rewrite::default(),
        exts,
        tile_helpers: FxHashMap::default(),
        lid_members: lid_members(&tu),
    };
    for d in &tu.global_declarations {
        match d.node() {
            GlobalDeclaration::Function(f) => {
                w.scope(&f.attributes, d.span());
                w.wgm_entry(f, d.span());
                let types = f.parameters.iter().map(|p| &p.ty).chain(f.return_type.as_ref());
                for t in types {
                    let t = w.env.ty(t);
                    w.wgm_place(&t, span(d.span()), true);
                }
                w.function(f)
            }
            GlobalDeclaration::Declaration(decl) => {
                if let Some(init) = &decl.initializer {
                    w.expr(init);
                }
                w.check_global(decl, d.span());
            }
            GlobalDeclaration::Struct(st) => {
                for m in &st.members {
                    let t = w.env.ty(&m.ty);
                    w.wgm_place(&t, span(d.span()), false);
                }
            }
            _ => {}
        }
    }
    w.types();
    if !w.errors.is_empty() {
        return Err(w.errors);
    }
    let mut tail = String::from("\n");
    for m in &w.mats {
        tail.push_str(&m.struct_decl());
        w.out.structs.insert(m.struct_name(), *m);
    }
    if exts.workgroup {
        tail.push_str(&w.wgm_declarations());
    }
    tail.push_str(&w.stub_decls);
    w.edits.push(Edit::new(text.len(), text.len(), tail));
    let Some((new_text, map)) = srcmap::apply(text, std::mem::take(&mut w.edits)) else {
        return Err(vec![Diagnostic::error(
            DiagKind::Internal,
            "subgroup matrix rewrite produced overlapping edits",
        )
        .help("report this as a dianran bug together with the shader")]);
    };
    w.out.text = new_text;
    w.out.map = map;
    Ok(w.out)
}

/// Makes a diagnostic naga reported on the rewritten text read as the user's: spans move back
/// into the user's file, and the opaque structs and helpers are called what the user wrote.
pub fn user_facing(d: &mut Diagnostic, r: &Rewrite) {
    d.span = d.span.map(|s| r.map.span(s));
    for (s, _) in &mut d.labels {
        *s = r.map.span(*s);
    }
    let mut helpers: Vec<&(String, tile::TileSpec)> = r.tile_helpers.iter().collect();
    // Longest first: `_dr_wgm_load1` is a prefix of `_dr_wgm_load12`.
    helpers.sort_by_key(|(h, _)| std::cmp::Reverse(h.len()));
    let rename = |text: &mut String| {
        for (h, spec) in &helpers {
            *text = text.replace(h.as_str(), spec.op.user_name());
        }
        *text = text.replace(tile::TILE, tile::TYPE_WGSL);
        if !text.contains(PREFIX) {
            return;
        }
        for (name, m) in &r.structs {
            *text = text.replace(name.as_str(), &m.wgsl());
        }
        for (name, stub) in &r.stubs {
            let user = match stub {
                Stub::Load { .. } => "subgroupMatrixLoad",
                Stub::Store { .. } => "subgroupMatrixStore",
                Stub::Fill(_) => "the matrix constructor",
                Stub::Multiply(_) => "subgroupMatrixMultiply",
                Stub::MultiplyAccumulate => "subgroupMatrixMultiplyAccumulate",
                Stub::Scalar(ScalarOp::Add) => "subgroupMatrixScalarAdd",
                Stub::Scalar(ScalarOp::Subtract) => "subgroupMatrixScalarSubtract",
                Stub::Scalar(ScalarOp::Multiply) => "subgroupMatrixScalarMultiply",
            };
            *text = text.replace(name.as_str(), user);
        }
    };
    rename(&mut d.message);
    if let Some(h) = &mut d.help {
        rename(h);
    }
    for n in &mut d.notes {
        rename(n);
    }
    for (_, l) in &mut d.labels {
        rename(l);
    }
    if let Some(c) = &mut d.context {
        rename(c);
    }
}

/// Byte offset and length of the reserved prefix ([`PREFIX`], [`tile::PREFIX`]) that the first
/// identifier (outside comments) using one starts with.
fn user_prefix(text: &str) -> Option<(usize, usize)> {
    crate::source::identifiers(text).find_map(|(s, e)| {
        [PREFIX, tile::PREFIX].into_iter().find(|p| text[s..e].starts_with(p)).map(|p| (s, p.len()))
    })
}

/// Struct name → the member carrying `@builtin(local_invocation_index)`.
fn lid_members(tu: &ast::TranslationUnit) -> FxHashMap<String, String> {
    let mut out = FxHashMap::default();
    for d in &tu.global_declarations {
        let GlobalDeclaration::Struct(s) = d.node() else { continue };
        for m in &s.members {
            let lid = m.attributes.iter().any(|a| {
                matches!(a.node(), ast::Attribute::Builtin(ast::BuiltinValue::LocalInvocationIndex))
            });
            if lid {
                out.insert(s.ident.name().clone(), m.ident.name().clone());
            }
        }
    }
    out
}

fn span(s: wgsl_parse::span::Span) -> Span {
    Span { start: s.start as u32, end: s.end as u32 }
}

struct Walker<'a> {
    text: &'a str,
    env: Env<'a>,
    edits: Vec<Edit>,
    errors: Vec<Diagnostic>,
    /// Matrix types met, in first-use order.
    mats: Vec<MatTy>,
    stub_decls: String,
    /// Helper signature → name.
    stub_names: FxHashMap<String, String>,
    out: Rewrite,
    exts: Exts,
    /// Workgroup-matrix helpers: (kind, signature and body) → name.
    tile_helpers: FxHashMap<(&'static str, String), String>,
    /// Struct name → its `local_invocation_index` member.
    lid_members: FxHashMap<String, String>,
}

/// A builtin call's parts: its span and its arguments' spans.
struct Call<'c> {
    call: &'c ast::FunctionCall,
    span: Span,
}

impl<'c> Call<'c> {
    fn arg(&self, i: usize) -> Span {
        self.call.arguments.get(i).map_or(self.span, |a| span(a.span()))
    }
    fn template(&self, i: usize) -> Option<&'c ExpressionNode> {
        self.call.ty.template_args.as_ref()?.get(i).map(|a| &a.expression)
    }
    fn ntemplates(&self) -> usize {
        self.call.ty.template_args.as_ref().map_or(0, Vec::len)
    }
}

fn ident_of(e: &ExpressionNode) -> Option<String> {
    match e.node() {
        Expression::TypeOrIdentifier(t) if t.template_args.is_none() => {
            Some(t.ident.name().clone())
        }
        _ => None,
    }
}

impl<'a> Walker<'a> {
    fn error(&mut self, at: Span, msg: impl Into<String>, help: impl Into<String>) {
        self.errors.push(Diagnostic::error(DiagKind::Check, msg).at(at).help(help));
    }

    fn note_mat(&mut self, m: MatTy) {
        if !self.mats.contains(&m) {
            self.mats.push(m);
        }
    }

    /// The helper for `sig` (its body and parameters as WGSL), declared once.
    fn stub(&mut self, kind: &str, stub: Stub, params: &str, ret: &str, body: &str) -> String {
        let sig = format!("{kind}({params}){ret}");
        if let Some(n) = self.stub_names.get(&sig) {
            return n.clone();
        }
        let name = format!("{PREFIX}_{kind}{}", self.stub_names.len());
        let arrow = if ret.is_empty() { String::new() } else { format!(" -> {ret}") };
        self.stub_decls.push_str(&format!("fn {name}({params}){arrow} {{ {body} }}\n"));
        self.stub_names.insert(sig, name.clone());
        self.out.stubs.insert(name.clone(), stub);
        name
    }

    fn function(&mut self, f: &'a ast::Function) {
        self.env.push();
        for p in &f.parameters {
            let t = Typed { ty: self.env.ty(&p.ty), place: None };
            self.env.bind(p.ident.name().clone(), t);
        }
        self.block(&f.body);
        self.env.pop();
    }

    fn block(&mut self, b: &'a ast::CompoundStatement) {
        self.env.push();
        for s in &b.statements {
            self.stmt(s);
        }
        self.env.pop();
    }

    /// Records a `@diagnostic(SEVERITY, chromium.subgroup_matrix_uniformity)` among `attrs`
    /// as a scope over `at`.
    fn scope(&mut self, attrs: &ast::Attributes, at: wgsl_parse::span::Span) {
        for a in attrs {
            let ast::Attribute::Diagnostic(d) = a.node() else { continue };
            let rule: String = d.rule.chars().filter(|c| !c.is_whitespace()).collect();
            if rule != crate::uniformity::RULE {
                continue;
            }
            if let Some(severity) = crate::uniformity::Severity::parse(&d.severity.to_string()) {
                self.out
                    .uniformity_scopes
                    .push(crate::uniformity::Scope { span: span(at), severity });
            }
        }
    }

    fn stmt(&mut self, s: &'a StatementNode) {
        match s.node() {
            Statement::Compound(b) => self.scope(&b.attributes, s.span()),
            Statement::If(i) => self.scope(&i.attributes, s.span()),
            Statement::Switch(sw) => self.scope(&sw.attributes, s.span()),
            Statement::Loop(l) => self.scope(&l.attributes, s.span()),
            Statement::For(f) => self.scope(&f.attributes, s.span()),
            Statement::While(w) => self.scope(&w.attributes, s.span()),
            _ => {}
        }
        match s.node() {
            Statement::Compound(b) => self.block(b),
            Statement::Assignment(a) => {
                self.expr(&a.lhs);
                self.expr(&a.rhs);
            }
            Statement::Increment(i) => self.expr(&i.expression),
            Statement::Decrement(d) => self.expr(&d.expression),
            Statement::If(i) => {
                self.expr(&i.if_clause.expression);
                self.block(&i.if_clause.body);
                for c in &i.else_if_clauses {
                    self.expr(&c.expression);
                    self.block(&c.body);
                }
                if let Some(e) = &i.else_clause {
                    self.block(&e.body);
                }
            }
            Statement::Switch(sw) => {
                self.expr(&sw.expression);
                for c in &sw.clauses {
                    for sel in &c.case_selectors {
                        if let ast::CaseSelector::Expression(e) = sel {
                            self.expr(e);
                        }
                    }
                    self.block(&c.body);
                }
            }
            Statement::Loop(l) => {
                // The continuing block sees the body's declarations.
                self.env.push();
                for st in &l.body.statements {
                    self.stmt(st);
                }
                if let Some(c) = &l.continuing {
                    self.block(&c.body);
                    if let Some(b) = &c.break_if {
                        self.expr(&b.expression);
                    }
                }
                self.env.pop();
            }
            Statement::For(f) => {
                self.env.push();
                if let Some(i) = &f.initializer {
                    self.stmt(i);
                }
                if let Some(c) = &f.condition {
                    self.expr(c);
                }
                if let Some(u) = &f.update {
                    self.stmt(u);
                }
                self.block(&f.body);
                self.env.pop();
            }
            Statement::While(w) => {
                self.expr(&w.condition);
                self.block(&w.body);
            }
            Statement::Return(r) => {
                if let Some(e) = &r.expression {
                    self.expr(e);
                }
            }
            Statement::FunctionCall(c) => {
                for a in &c.call.arguments {
                    self.expr(a);
                }
                // The statement's span runs to its `;`; the call ends at the last `)`.
                let sp = span(s.span());
                let end = self.text[..sp.end as usize].rfind(')').map_or(sp.end, |p| p as u32 + 1);
                self.call(Call { call: &c.call, span: Span { start: sp.start, end } });
            }
            Statement::Declaration(d) => {
                if let Some(init) = &d.initializer {
                    self.expr(init);
                }
                let t = self.env.declared(d, false);
                if let Ty::Mat(m) = &t.ty {
                    self.note_mat(*m);
                }
                self.wgm_place(&t.ty, span(s.span()), true);
                if matches!(d.kind, ast::DeclarationKind::Const) {
                    if let Some(v) = d.initializer.as_ref().and_then(|i| self.env.int(i)) {
                        self.env.bind_const(d.ident.name().clone(), v);
                    }
                }
                self.env.bind(d.ident.name().clone(), t);
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &'a ExpressionNode) {
        match e.node() {
            Expression::Parenthesized(p) => self.expr(&p.expression),
            Expression::NamedComponent(n) => self.expr(&n.base),
            Expression::Indexing(i) => {
                self.expr(&i.base);
                self.expr(&i.index);
            }
            Expression::Unary(u) => self.expr(&u.operand),
            Expression::Binary(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expression::FunctionCall(c) => {
                for a in &c.arguments {
                    self.expr(a);
                }
                self.call(Call { call: c, span: span(e.span()) });
            }
            _ => {}
        }
    }

    /// A global `var` may hold matrices only in the private address space.
    fn check_global(&mut self, decl: &ast::Declaration, at: wgsl_parse::span::Span) {
        let t = self.env.declared(decl, true);
        self.wgm_place(&t.ty, span(at), false);
        if self.env.holds_tile(&t.ty) {
            return;
        }
        if self.env.holds_matrix(&t.ty)
            && !matches!(t.place, Some((AddressSpace::Private, _)) | None)
        {
            self.error(
                span(at),
                "subgroup matrices can only be stored in `var<private>` or function variables",
                "load the matrix from, or store it to, a workgroup or storage array with subgroupMatrixLoad/subgroupMatrixStore",
            );
        }
    }

    fn call(&mut self, c: Call<'a>) {
        let name = c.call.ty.ident.name().clone();
        if self.wgm_call(&c, &name) {
            return;
        }
        if (name.starts_with("subgroupMatrix") || Kind::parse(&name).is_some())
            && !self.exts.subgroup
        {
            return self.error(
                c.span,
                "subgroup matrices need `enable chromium_experimental_subgroup_matrix;`",
                "add the directive at the top of the file",
            );
        }
        if Kind::parse(&name).is_some() {
            if c.call.ty.template_args.is_some() {
                self.construct(&c);
            }
            return;
        }
        // A value constructor through an alias of a matrix type (`Res(0.0)`).
        if c.call.ty.template_args.is_none() && self.env.matrix(&c.call.ty).is_some() {
            self.construct(&c);
            return;
        }
        match name.as_str() {
            "subgroupMatrixLoad" => self.tile(&c, false),
            "subgroupMatrixStore" => self.tile(&c, true),
            "subgroupMatrixMultiply" => self.multiply(&c, false),
            "subgroupMatrixMultiplyAccumulate" => self.multiply(&c, true),
            "subgroupMatrixScalarAdd" => self.scalar(&c, ScalarOp::Add),
            "subgroupMatrixScalarSubtract" => self.scalar(&c, ScalarOp::Subtract),
            "subgroupMatrixScalarMultiply" => self.scalar(&c, ScalarOp::Multiply),
            _ => {}
        }
    }

    fn arity(&mut self, c: &Call<'_>, n: usize, what: &str) -> bool {
        if c.call.arguments.len() == n {
            return true;
        }
        self.error(
            c.span,
            format!("`{what}` takes {n} arguments, found {}", c.call.arguments.len()),
            "see the extension's signature in docs/subgroup-matrix.md",
        );
        false
    }

    /// The matrix type of argument `i`, or an error at it.
    fn mat_arg(&mut self, c: &Call<'a>, i: usize, what: &str) -> Option<MatTy> {
        let a = c.call.arguments.get(i)?;
        match self.env.expr(a).ty {
            Ty::Mat(m) => {
                self.note_mat(m);
                Some(m)
            }
            Ty::Unknown => {
                self.error(
                    span(a.span()),
                    format!("dianran cannot tell the type of this argument of `{what}`"),
                    "bind it to a `let` with an explicit subgroup matrix type first",
                );
                None
            }
            _ => {
                self.error(
                    span(a.span()),
                    format!("this argument of `{what}` must be a subgroup matrix"),
                    "pass a subgroup_matrix_left, _right or _result value",
                );
                None
            }
        }
    }

    fn template_matrix(&mut self, c: &Call<'a>, i: usize, what: &str) -> Option<MatTy> {
        let t = match c.template(i).map(|e| e.node()) {
            Some(Expression::TypeOrIdentifier(t)) => self.env.matrix(t),
            _ => None,
        };
        match t {
            Some(Ok(m)) => {
                self.note_mat(m);
                Some(m)
            }
            Some(Err(msg)) => {
                self.error(c.span, msg, "write the type as subgroup_matrix_left<T, columns, rows>");
                None
            }
            None => {
                self.error(c.span, format!("the first template argument of `{what}` must be a subgroup matrix type"), "for example subgroupMatrixLoad<subgroup_matrix_left<f16, 8, 8>, row_major>(&a, offset, stride)");
                None
            }
        }
    }

    fn construct(&mut self, c: &Call<'a>) {
        let m = match self.env.matrix(&c.call.ty) {
            Some(Ok(m)) => m,
            Some(Err(msg)) => {
                return self.error(
                    c.span,
                    msg,
                    "write the type as subgroup_matrix_left<T, columns, rows>",
                )
            }
            None => return,
        };
        self.note_mat(m);
        if c.call.arguments.len() > 1 {
            return self.error(
                c.span,
                format!("`{}` takes zero or one argument", m.wgsl()),
                "pass nothing for a zero matrix or one value to fill it with",
            );
        }
        // A zero matrix is the opaque struct's zero value, as in `array<T, 4>()[1]` or a
        // `var` without initializer: one form for every zero matrix, so that printed WGSL
        // (which spells a zero matrix `T()`) reads back to what it was printed from.
        if c.call.arguments.is_empty() {
            self.edits.push(Edit::new(
                c.span.start as usize,
                c.span.end as usize,
                format!("{}()", m.struct_name()),
            ));
            return;
        }
        let s = m.elem.scalar_name();
        let stub = self.stub(
            "fill",
            Stub::Fill(m),
            &format!("v: {s}"),
            &m.struct_name(),
            &format!("return {}();", m.struct_name()),
        );
        self.edits.push(Edit::new(
            c.span.start as usize,
            c.arg(0).start as usize,
            format!("{stub}("),
        ));
    }

    /// Checks the pointer argument of a load or store; returns the array element's type.
    fn array_arg(
        &mut self,
        c: &Call<'a>,
        m: MatTy,
        store: bool,
        what: &str,
    ) -> Option<(Ty, Option<u64>)> {
        let a = c.call.arguments.first()?;
        let t = self.env.expr(a).ty;
        let at = span(a.span());
        let Ty::Ptr(space, access, inner) = t else {
            self.error(at, format!("the first argument of `{what}` must be a pointer to a workgroup or storage array"), "pass `&array_variable` or a pointer parameter");
            return None;
        };
        if !self.memory_ok((space, access), store, at, what) {
            return None;
        }
        let Ty::Array(elem, len) = *inner else {
            self.error(
                at,
                format!("the first argument of `{what}` must point to an array"),
                "pass a pointer to an array of f32, f16, i32 or u32 scalars or vectors",
            );
            return None;
        };
        let Some(stride) = elem.array_stride() else {
            self.error(
                at,
                "the array's elements must be f32, f16, i32 or u32 scalars or vectors",
                "declare the array with one of those element types",
            );
            return None;
        };
        if stride < m.elem.size() {
            self.error(at, format!("the stride of the array ({stride} bytes) must be greater than or equal to the matrix element size ({} bytes)", m.elem.size()), "use an array of a wider element type");
            return None;
        }
        Some((*elem, len))
    }

    /// Whether an array in `space` with `access` may be read (and, with `store`, written) by a
    /// matrix builtin `what`; an error at `at` when not.
    fn memory_ok(
        &mut self,
        (space, access): (AddressSpace, AccessMode),
        store: bool,
        at: Span,
        what: &str,
    ) -> bool {
        if !matches!(space, AddressSpace::Storage | AddressSpace::Workgroup) {
            self.error(
                at,
                format!("`{what}` reads and writes only workgroup and storage arrays"),
                "copy the data to a `var<workgroup>` array first",
            );
            return false;
        }
        if store && access == AccessMode::Read {
            self.error(
                at,
                "this storage buffer is read-only",
                "declare the buffer `var<storage, read_write>`",
            );
            return false;
        }
        true
    }

    /// The rules Dawn checks when the offset or stride is a constant.
    #[allow(clippy::too_many_arguments)]
    fn check_extent(
        &mut self,
        c: &Call<'a>,
        m: MatTy,
        row_major: bool,
        arr_stride: u32,
        len: Option<u64>,
        (oi, si): (usize, usize),
        scale: u32,
        what: &str,
    ) {
        let konst = |w: &Self, i: usize| c.call.arguments.get(i).and_then(|a| w.env.int(a));
        let (offset, stride) = (konst(self, oi), konst(self, si));
        for (v, i, name) in [(offset, oi, "offset"), (stride, si, "stride")] {
            if v.is_some_and(|v| v < 0) {
                self.error(
                    c.arg(i),
                    format!("the {name} argument of `{what}` must be non-negative"),
                    "pass a non-negative value",
                );
                return;
            }
        }
        // Deprecated forms count matrix elements: convert as Dawn does.
        let to_arr = |v: i64| (v as u64) / u64::from(scale);
        let min_bytes = u64::from(m.minor(row_major) * m.elem.size());
        let stride_bytes = match stride {
            Some(s) => {
                let b = to_arr(s) * u64::from(arr_stride);
                if b < min_bytes {
                    self.error(c.arg(si), format!("the stride argument ({}, {b} bytes) of `{what}` must be at least the minimum stride ({min_bytes} bytes)", to_arr(s)), format!("a {} stored {} needs {} elements between its {}", m.wgsl(), if row_major { "row-major" } else { "column-major" }, m.minor(row_major), if row_major { "rows" } else { "columns" }));
                    return;
                }
                b
            }
            None => min_bytes,
        };
        let (Some(len), offset) = (len, offset.map_or(0, to_arr)) else { return };
        let major = u64::from(if row_major { m.rows } else { m.cols });
        let need = offset * u64::from(arr_stride) + stride_bytes * (major - 1) + min_bytes;
        let have = len * u64::from(arr_stride);
        if need > have {
            self.error(c.span, format!("the array ({have} bytes) is too small for this matrix ({need} bytes from its start are touched)"), "use a larger array, or a smaller offset or stride");
        }
    }

    fn majorness(&mut self, c: &Call<'a>, i: usize) -> Option<bool> {
        match c.template(i).and_then(ident_of).as_deref() {
            Some("row_major") => Some(true),
            Some("col_major") => Some(false),
            _ => {
                self.error(
                    c.span,
                    "the majorness must be `row_major` or `col_major`",
                    "for example subgroupMatrixStore<row_major>(&a, offset, m, stride)",
                );
                None
            }
        }
    }

    /// `col_major` of the deprecated forms: a constant `bool`.
    fn col_major_arg(&mut self, c: &Call<'a>, i: usize) -> Option<bool> {
        let v = c.call.arguments.get(i).and_then(|a| self.env.boolean(a));
        if v.is_none() {
            self.error(c.arg(i), "`col_major` must be a constant `bool`", "write `true` or `false`, or use the form with a row_major/col_major template argument");
        }
        v
    }

    /// The deprecated forms take arrays of the matrix's shader scalar (`i32`/`u32` for 8-bit).
    fn check_deprecated_array(&mut self, c: &Call<'a>, m: MatTy, elem: &Ty) -> bool {
        let ok = matches!(elem, Ty::Num { scalar, n: 1 } if scalar.name() == m.elem.scalar_name());
        if !ok {
            self.error(c.arg(0), format!("this form needs an array of {}", m.elem.scalar_name()), "use the form with a row_major/col_major template argument, which reads any f32, f16, i32 or u32 array");
        }
        ok
    }

    /// `subgroupMatrixLoad` (`store` false) or `subgroupMatrixStore`, current or deprecated
    /// form. The argument positions differ: a store's matrix is argument 2 and pushes the
    /// stride (and the deprecated `col_major`) one place on; a load names its matrix type and
    /// majorness as template arguments 0 and 1, a store its majorness as template argument 0.
    fn tile(&mut self, c: &Call<'a>, store: bool) {
        let what = if store { "subgroupMatrixStore" } else { "subgroupMatrixLoad" };
        let value = store.then_some(2);
        let shift = usize::from(store);
        let deprecated = c.ntemplates() + shift == 1;
        let n = 3 + shift + usize::from(deprecated);
        if !self.arity(c, n, what) {
            return;
        }
        let m = match value {
            Some(v) => self.mat_arg(c, v, what),
            None => self.template_matrix(c, 0, what),
        };
        let Some(m) = m else { return };
        let row_major = if deprecated {
            match self.col_major_arg(c, 2 + shift) {
                Some(cm) => !cm,
                None => return,
            }
        } else {
            match self.majorness(c, 1 - shift) {
                Some(r) => r,
                None => return,
            }
        };
        let Some((elem, len)) = self.array_arg(c, m, store, what) else { return };
        if deprecated && !self.check_deprecated_array(c, m, &elem) {
            return;
        }
        let arr_stride = elem.array_stride().unwrap_or(4);
        let q = if deprecated { arr_stride / m.elem.size() } else { 1 };
        let si = n - 1;
        self.check_extent(c, m, row_major, arr_stride, len, (1, si), q, what);
        let et = elem.wgsl().unwrap_or_default();
        let st = m.struct_name();
        let name = if store {
            let params = format!("p: {et}, m: {st}, stride: u32");
            self.stub("store", Stub::Store { matrix: m, row_major }, &params, "", "")
        } else {
            let (params, body) = (format!("p: {et}, stride: u32"), format!("return {st}();"));
            self.stub("load", Stub::Load { matrix: m, row_major }, &params, &st, &body)
        };
        self.tile_edits(c, &name, (0, 1, si), value, q);
    }

    /// `helper((*p)[offset / q], [value, ]u32(stride / q))`, keeping the argument texts in
    /// place (`q`: matrix elements per array element in the deprecated forms, which count
    /// matrix elements; 1 otherwise).
    fn tile_edits(
        &mut self,
        c: &Call<'a>,
        name: &str,
        (p, o, s): (usize, usize, usize),
        value: Option<usize>,
        q: u32,
    ) {
        let (pa, oa, sa) = (c.arg(p), c.arg(o), c.arg(s));
        let at = |x: u32| x as usize;
        let div = if q == 1 { String::new() } else { format!(") / {q}") };
        let open = if q == 1 { "" } else { "(" };
        self.edits.push(Edit::new(at(c.span.start), at(pa.start), format!("{name}((*")));
        self.edits.push(Edit::new(at(pa.end), at(oa.start), format!(")[{open}")));
        let stride_open = format!("u32({open}");
        match value {
            Some(v) => {
                let va = c.arg(v);
                self.edits.push(Edit::new(at(oa.end), at(va.start), format!("{div}], ")));
                self.edits.push(Edit::new(at(va.end), at(sa.start), format!(", {stride_open}")));
            }
            None => {
                self.edits.push(Edit::new(
                    at(oa.end),
                    at(sa.start),
                    format!("{div}], {stride_open}"),
                ));
            }
        }
        self.edits.push(Edit::new(at(sa.end), at(c.span.end), format!("{div}))")));
    }

    fn multiply(&mut self, c: &Call<'a>, accumulate: bool) {
        let what =
            if accumulate { "subgroupMatrixMultiplyAccumulate" } else { "subgroupMatrixMultiply" };
        if !self.arity(c, if accumulate { 3 } else { 2 }, what) {
            return;
        }
        let (Some(l), Some(r)) = (self.mat_arg(c, 0, what), self.mat_arg(c, 1, what)) else {
            return;
        };
        if l.kind != Kind::Left || r.kind != Kind::Right {
            return self.error(c.span, format!("`{what}` multiplies a subgroup_matrix_left by a subgroup_matrix_right, found {} and {}", l.wgsl(), r.wgsl()), "pass the left operand first");
        }
        if l.elem != r.elem {
            return self.error(
                c.span,
                format!(
                    "the operands of `{what}` must have the same element type, found {} and {}",
                    l.elem.name(),
                    r.elem.name()
                ),
                "load both operands with one element type",
            );
        }
        if l.cols != r.rows {
            return self.error(c.span, format!("the left operand's columns ({}) must equal the right operand's rows ({})", l.cols, r.rows), "use matching K sizes: subgroup_matrix_left<T, K, M> and subgroup_matrix_right<T, N, K>");
        }
        let result_elem = if accumulate {
            let Some(acc) = self.mat_arg(c, 2, what) else { return };
            if acc.kind != Kind::Result || acc.cols != r.cols || acc.rows != l.rows {
                return self.error(
                    c.arg(2),
                    format!(
                        "the accumulator must be a subgroup_matrix_result<T, {}, {}>, found {}",
                        r.cols,
                        l.rows,
                        acc.wgsl()
                    ),
                    "the result has the right operand's columns and the left operand's rows",
                );
            }
            acc.elem
        } else {
            match c.template(0).and_then(ident_of).as_deref().and_then(CoopElem::parse) {
                Some(e) => e,
                None => return self.error(c.span, "`subgroupMatrixMultiply` needs the result's element type as its template argument", "for example subgroupMatrixMultiply<f32>(left, right)"),
            }
        };
        if !product_allowed(l.elem, result_elem) {
            return self.error(c.span, format!("a product of {} matrices cannot have {} results", l.elem.name(), result_elem.name()), "allowed: f16 → f16 or f32; f32 → f32; i8/u8 → i32, u32, i8 or u8; i32/u32 → i32 or u32");
        }
        let res = MatTy { kind: Kind::Result, elem: result_elem, cols: r.cols, rows: l.rows };
        self.note_mat(res);
        let (ls, rs, ts) = (l.struct_name(), r.struct_name(), res.struct_name());
        let name = if accumulate {
            self.stub(
                "mma",
                Stub::MultiplyAccumulate,
                &format!("l: {ls}, r: {rs}, acc: {ts}"),
                &ts,
                "return acc;",
            )
        } else {
            self.stub(
                "mul",
                Stub::Multiply(res),
                &format!("l: {ls}, r: {rs}"),
                &ts,
                &format!("return {ts}();"),
            )
        };
        self.edits.push(Edit::new(
            c.span.start as usize,
            c.arg(0).start as usize,
            format!("{name}("),
        ));
    }

    fn scalar(&mut self, c: &Call<'a>, op: ScalarOp) {
        let what = match op {
            ScalarOp::Add => "subgroupMatrixScalarAdd",
            ScalarOp::Subtract => "subgroupMatrixScalarSubtract",
            ScalarOp::Multiply => "subgroupMatrixScalarMultiply",
        };
        if !self.arity(c, 2, what) {
            return;
        }
        let Some(m) = self.mat_arg(c, 0, what) else { return };
        let st = m.struct_name();
        let s = m.elem.scalar_name();
        let kind = match op {
            ScalarOp::Add => "add",
            ScalarOp::Subtract => "sub",
            ScalarOp::Multiply => "mul_scalar",
        };
        let name = self.stub(kind, Stub::Scalar(op), &format!("m: {st}, s: {s}"), &st, "return m;");
        self.edits.push(Edit::new(
            c.span.start as usize,
            c.arg(0).start as usize,
            format!("{name}("),
        ));
    }

    /// Replaces every remaining `subgroup_matrix_*<...>` type (declarations, parameters,
    /// struct members, template arguments outside rewritten calls) by its struct.
    fn types(&mut self) {
        let text = self.text;
        let inside = |edits: &[Edit], at: usize| edits.iter().any(|e| e.start <= at && at < e.end);
        let found: Vec<(usize, usize)> = crate::source::identifiers(text)
            .filter(|&(s, e)| Kind::parse(&text[s..e]).is_some() || &text[s..e] == tile::TYPE)
            .collect();
        for (s, e) in found {
            if inside(&self.edits, s) {
                continue;
            }
            if &text[s..e] == tile::TYPE {
                self.wgm_type(s, e);
                continue;
            }
            if !self.exts.subgroup {
                self.error(
                    Span { start: s as u32, end: e as u32 },
                    "subgroup matrices need `enable chromium_experimental_subgroup_matrix;`",
                    "add the directive at the top of the file",
                );
                continue;
            }
            let Some(close) = template_end(text, e) else {
                self.error(
                    Span { start: s as u32, end: e as u32 },
                    "a subgroup matrix type needs template arguments",
                    "write subgroup_matrix_left<T, columns, rows>",
                );
                continue;
            };
            let src = &text[s..close];
            // Parse the type alone so the constant arguments are evaluated like any other.
            let m = match wgsl_parse::parse_str(&format!("alias _dr_sgm_t = {src};")) {
                Ok(tu) => match tu.global_declarations.first().map(|d| d.node()) {
                    Some(GlobalDeclaration::TypeAlias(a)) => self.env.matrix(&a.ty),
                    _ => None,
                },
                Err(_) => None,
            };
            match m {
                Some(Ok(m)) => {
                    self.note_mat(m);
                    self.edits.push(Edit::new(s, close, m.struct_name()));
                }
                Some(Err(msg)) => self.error(
                    Span { start: s as u32, end: close as u32 },
                    msg,
                    "write the type as subgroup_matrix_left<T, columns, rows>",
                ),
                None => self.error(
                    Span { start: s as u32, end: close as u32 },
                    "this subgroup matrix type is malformed",
                    "write the type as subgroup_matrix_left<T, columns, rows>",
                ),
            }
        }
    }
}

/// Dawn's allowed (operand, result) element pairs.
fn product_allowed(operand: CoopElem, result: CoopElem) -> bool {
    use CoopElem::*;
    match operand {
        F16 => matches!(result, F16 | F32),
        F32 => result == F32,
        I8 | U8 => matches!(result, I32 | U32 | I8 | U8),
        I32 | U32 => matches!(result, I32 | U32),
    }
}

/// `text` with the built-in values wgsl-parse 0.3 does not know, `subgroup_id` (which Dawn's
/// extension adds) and `num_subgroups`, spelled as known ones of the same length inside
/// `@builtin(...)`, so the parser reads the file and every span stays where it was. Only the
/// parser sees this copy: naga reads the real names.
fn mask_builtins(text: &str) -> std::borrow::Cow<'_, str> {
    const MASKS: [(&str, &str); 2] =
        [("subgroup_id", "sample_mask"), ("num_subgroups", "subgroup_size")];
    let mut out = std::borrow::Cow::Borrowed(text);
    let mut from = 0;
    while let Some(at) = text[from..].find("@builtin").map(|i| from + i) {
        from = at + "@builtin".len();
        let rest = &text[from..];
        let Some(open) =
            rest.find(|c: char| !c.is_whitespace()).filter(|&i| rest[i..].starts_with('('))
        else {
            continue;
        };
        let after = &rest[open + 1..];
        let Some(start) = after.find(|c: char| !c.is_whitespace()) else { continue };
        let name_at = from + open + 1 + start;
        for (name, mask) in MASKS {
            let Some(tail) = text[name_at..].strip_prefix(name) else { continue };
            if !tail.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                out.to_mut().replace_range(name_at..name_at + name.len(), mask);
            }
        }
    }
    out
}

/// The byte after the `>` closing the template list that starts at the first `<` at or
/// after `from` (only whitespace before it).
fn template_end(text: &str, from: usize) -> Option<usize> {
    let rest = &text[from..];
    let open = rest.find(|c: char| !c.is_whitespace())?;
    if !rest[open..].starts_with('<') {
        return None;
    }
    let mut depth = 0i32;
    for (i, ch) in rest[open..].char_indices() {
        match ch {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + open + i + 1);
                }
            }
            ';' | '{' | '}' => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::mask_builtins;
    use crate::{compile, DiagKind, Options};

    const HEAD: &str = "enable chromium_experimental_subgroup_matrix;\n\
        @group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n";

    fn errors(body: &str) -> Vec<(DiagKind, String, String)> {
        let src = format!("{HEAD}@compute @workgroup_size(32) fn main() {{\n{body}\n}}\n");
        match compile("t.wgsl", &src, &Options::default()) {
            Ok(_) => vec![],
            Err(d) => d
                .list
                .iter()
                .map(|x| {
                    let at = x.span.map_or(String::new(), |s| {
                        src[s.start as usize..s.end as usize].to_string()
                    });
                    (x.kind, x.message.clone(), at)
                })
                .collect(),
        }
    }

    #[test]
    fn dawn_rules_are_diagnostics_at_the_users_text() {
        let e = errors(
            "let m = subgroupMatrixLoad<subgroup_matrix_left<f32, 8, 8>, row_major>(&buf, 0u, 4u);",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].1.contains("minimum stride"), "{e:?}");
        assert_eq!(e[0].2, "4u");
        let e = errors("let m = subgroup_matrix_left<i4, 8, 8>();");
        assert!(e[0].1.contains("element type"), "{e:?}");
        let e = errors(
            "let l = subgroup_matrix_left<f32, 8, 8>();\n\
             let r = subgroup_matrix_right<f16, 8, 8>();\n\
             let x = subgroupMatrixMultiply<f32>(l, r);",
        );
        assert!(e[0].1.contains("same element type"), "{e:?}");
        let e = errors("let _dr_sgm_x = 1u;");
        assert!(e[0].1.contains("reserved"), "{e:?}");
    }

    #[test]
    fn only_private_globals_hold_matrices_through_structs() {
        let src = format!(
            "{HEAD}struct S_M {{ m: subgroup_matrix_left<f32, 8, 8> }}\n\
             struct S {{ x: u32 }}\n\
             var<workgroup> plain: S;\n\
             var<private> fine: S_M;\n\
             var<workgroup> bad: array<S_M, 2>;\n\
             @compute @workgroup_size(32) fn main() {{ _ = plain.x; }}\n"
        );
        let e = compile("t.wgsl", &src, &Options::default()).expect_err("bad is rejected");
        assert_eq!(e.list.len(), 1, "{}", e.render());
        let at = e.list[0].span.expect("a span");
        assert!(src[at.start as usize..at.end as usize].contains("bad"), "{}", e.render());
    }

    #[test]
    fn naga_errors_in_rewritten_text_point_into_the_users_file() {
        // A type error naga finds after the rewrite: the matrix passed where a u32 goes.
        let e = errors(
            "let m = subgroup_matrix_left<f32, 8, 8>();\n\
             let bad: u32 = m;",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].2, "bad", "{e:?}");
        assert!(e[0].1.contains("subgroup_matrix_left<f32, 8, 8>"), "{e:?}");
        assert!(!e[0].1.contains("_dr_sgm"), "helper names leak: {e:?}");
    }

    #[test]
    fn files_without_the_extension_are_untouched() {
        let src = "@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n\
                   @compute @workgroup_size(1) fn main() { b[0] = 1u; }";
        let p = crate::parse("t.wgsl", src, &Options::default()).expect("valid");
        assert!(p.sgm.is_none());
    }

    #[test]
    fn aliases_of_matrix_types_name_them_everywhere() {
        // As real kernels write them: template arguments, value constructors, array elements.
        let src = "enable chromium_experimental_subgroup_matrix;\n\
                   alias Left = subgroup_matrix_left<f32, 8, 8>;\n\
                   alias L2 = Left;\n\
                   alias Res = subgroup_matrix_result<f32, 8, 8>;\n\
                   @group(0) @binding(0) var<storage, read_write> buf: array<f32>;\n\
                   @compute @workgroup_size(32) fn main() {\n\
                     var a: array<L2, 2>;\n\
                     a[1] = subgroupMatrixLoad<Left>(&buf, 0u, false, 8u);\n\
                     let r = subgroupMatrixLoad<subgroup_matrix_right<f32, 8, 8>, col_major>(&buf, 64u, 8u);\n\
                     let c = subgroupMatrixMultiplyAccumulate(a[1], r, Res(2.0));\n\
                     subgroupMatrixStore(&buf, 128u, subgroupMatrixScalarAdd(c, 1.0), false, 8u);\n\
                     subgroupMatrixStore<row_major>(&buf, 192u, Res(), 8u);\n\
                   }";
        let m = compile("t.wgsl", src, &Options::default()).expect("aliases resolve");
        assert!(m.uses_cooperative_matrices());
        // A misspelt alias is still an error at the call.
        let bad = src.replace("subgroupMatrixLoad<Left>", "subgroupMatrixLoad<Lef>");
        let e = compile("t.wgsl", &bad, &Options::default()).expect_err("unknown type");
        assert!(e.render().contains("subgroup matrix type"), "{}", e.render());
    }

    #[test]
    fn subgroup_id_is_read_although_the_extension_parser_lacks_it() {
        let text = "fn f(@builtin( subgroup_id ) a: u32, @builtin(num_subgroups) b: u32,\n\
                    @builtin(subgroup_idx) c: u32) {} // @builtin(subgroup_id";
        let masked = mask_builtins(text);
        assert_eq!(masked.len(), text.len());
        assert!(masked.contains("@builtin( sample_mask ) a"), "{masked}");
        assert!(masked.contains("@builtin(subgroup_size) b"), "{masked}");
        // Not a whole name: left alone. In a comment it is masked too, which the parser
        // ignores.
        assert!(masked.contains("@builtin(subgroup_idx) c"), "{masked}");
        assert!(masked.ends_with("// @builtin(sample_mask"), "{masked}");
        // Cut-off text never panics.
        for cut in ["@builtin", "@builtin(", "@builtin( ", "@builtin(subgroup_i", "@builtin(中文"]
        {
            assert_eq!(mask_builtins(cut), cut);
        }
        // The whole file compiles, with the real built-ins (tiles placed by subgroup, which
        // the uniformity rule cannot prove uniform: it is off).
        let src = "enable chromium_experimental_subgroup_matrix;\n\
                   diagnostic(off, chromium.subgroup_matrix_uniformity);\n\
                   @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
                   @compute @workgroup_size(64)\n\
                   fn main(@builtin(subgroup_id) sg: u32, @builtin(num_subgroups) n: u32) {\n\
                     let m = subgroup_matrix_result<f32, 8, 8>(f32(n));\n\
                     subgroupMatrixStore<row_major>(&out, sg * 64u, m, 8u);\n\
                   }";
        let m = crate::compile("t.wgsl", src, &Options::default()).expect("valid");
        let f = &m.entry_points[0];
        assert_eq!(f.name, "main");
    }
}
