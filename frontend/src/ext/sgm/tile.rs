//! dianran's workgroup matrices (`enable dianran_workgroup_matrix;`,
//! `docs/workgroup-matrix.md`): one 64 × 64 `f32` accumulator held by a whole workgroup of 128
//! invocations, rewritten into ordinary WGSL that every target runs.
//!
//! The rewrite is the *portable form*, and it is also the reference semantics:
//!
//! * the type `workgroup_matrix_result<f32, 64, 64>` becomes the struct [`TILE`], 32 `f32`
//!   per invocation: invocation `i` (its `local_invocation_index`) holds element
//!   (row `i / 64 + 2 j`, column `i % 64`) in slot `j`. The placement is not observable: the
//!   builtins are the only way in or out;
//! * every compute entry point stores its `local_invocation_index` in the private [`LID`]
//!   first (a parameter is added when the entry does not declare one);
//! * each builtin call becomes a call to a helper written for that call site, whose body is
//!   plain WGSL loops over the invocation's 32 elements and reads or writes the array the call
//!   names directly (WGSL functions cannot take storage pointers, so the pointer argument must
//!   name a module-scope array, `&a` or `&s.member`, and the helper is specialised to it);
//! * a product is, per element, `fma` over `k = 0, 1, ..., K - 1` starting from the
//!   accumulator, in `f32` (products of `f16` operands are exact in `f32`).
//!
//! No invocation reads another's elements, so the form needs no workgroup memory and no
//! barriers; its cost is scalar arithmetic. The uniformity and workgroup-size rules are
//! checked on the IR (`crate::uniformity`), where the lowering has recorded what each helper
//! stands for (`crate::ir::Module::tiles`, from [`TileSpec`]s).

use super::env::{Env, Num, Ty};
use super::{ident_of, span, Call, Walker};
use crate::ir::{Span, TileOp};
use std::fmt::Write as _;
use wgsl_parse::syntax::{self as ast, Expression, ExpressionNode, TypeExpression, UnaryOperator};

/// The type's name in WGSL.
pub const TYPE: &str = "workgroup_matrix_result";
/// The type as the user writes it.
pub const TYPE_WGSL: &str = "workgroup_matrix_result<f32, 64, 64>";
/// The prefix of every name the rewrite adds; user names may not start with it.
pub const PREFIX: &str = "_dr_wgm";
/// The struct holding an invocation's share of a tile.
pub const TILE: &str = "_dr_wgm_tile";
/// The private variable holding the invocation's `local_invocation_index`.
pub const LID: &str = "_dr_wgm_lid";
/// The parameter added to a compute entry that declares no `local_invocation_index`.
pub const LID_PARAM: &str = "_dr_wgm_lid_in";
/// Invocations per workgroup the tile is spread over.
pub const INVOCATIONS: u32 = 128;
/// Elements each invocation holds.
pub const PER_INVOCATION: u32 = 64 * 64 / INVOCATIONS;

/// What a helper stands for, as the rewrite knows it (names, not yet IR handles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileSpec {
    /// The operation.
    pub op: TileOp,
    /// K of a product, 0 otherwise.
    pub k: u32,
    /// The arrays, in argument order: the variable's name, the member names to the array,
    /// the element type.
    pub arrays: Vec<(String, Vec<String>, Num)>,
    /// The majorness of each array's tile.
    pub row_major: Vec<bool>,
}

impl TileOp {
    /// The word in the helper's name.
    fn word(self) -> &'static str {
        match self {
            TileOp::Fill => "fill",
            TileOp::Load => "load",
            TileOp::Store => "store",
            TileOp::MultiplyAccumulate => "mma",
        }
    }
    /// What the user wrote.
    pub fn user_name(self) -> &'static str {
        match self {
            TileOp::Fill => "the workgroup matrix constructor",
            TileOp::Load => "workgroupMatrixLoad",
            TileOp::Store => "workgroupMatrixStore",
            TileOp::MultiplyAccumulate => "workgroupMatrixMultiplyAccumulate",
        }
    }
    /// The arguments of the helper that hold tiles (not checked for uniformity: a tile is
    /// the workgroup's, whatever each invocation holds of it).
    pub fn tile_args(self) -> &'static [usize] {
        match self {
            TileOp::Store => &[1],
            TileOp::MultiplyAccumulate => &[4],
            TileOp::Fill | TileOp::Load => &[],
        }
    }
    /// The helper arguments' names, for diagnostics.
    pub fn arg_names(self) -> &'static [&'static str] {
        match self {
            TileOp::Fill => &["value"],
            TileOp::Load => &["offset", "stride", "columns bound", "rows bound"],
            TileOp::Store => &["offset", "value", "stride", "columns bound", "rows bound"],
            TileOp::MultiplyAccumulate => {
                &["left offset", "left stride", "right offset", "right stride", "accumulator"]
            }
        }
    }
}

/// Checks the template arguments of `workgroup_matrix_result<f32, 64, 64>`.
pub(super) fn check_type_args(env: &Env<'_>, t: &TypeExpression) -> Result<(), String> {
    let Some(args) = t.template_args.as_ref().filter(|a| a.len() == 3) else {
        return Err(format!("`{TYPE}` takes three template arguments: <f32, 64, 64>"));
    };
    let elem = match args[0].expression.node() {
        Expression::TypeOrIdentifier(e) if e.template_args.is_none() => e.ident.name().clone(),
        _ => String::new(),
    };
    if elem != "f32" {
        return Err(format!("the element type of `{TYPE}` must be f32 (the accumulator is f32; operands may be f16)"));
    }
    match (env.int(&args[1].expression), env.int(&args[2].expression)) {
        (Some(64), Some(64)) => Ok(()),
        _ => Err(format!("`{TYPE}` is 64 columns by 64 rows: write {TYPE_WGSL}")),
    }
}

/// A module-scope array a builtin reads or writes.
struct ArrayRef {
    /// The WGSL expression naming it (`a`, `s.member`).
    path: String,
    /// The variable and the member names to the array.
    root: String,
    members: Vec<String>,
    /// Its element type (`f32` or `f16`).
    elem: Num,
}

impl ArrayRef {
    fn spec(&self) -> (String, Vec<String>, Num) {
        (self.root.clone(), self.members.clone(), self.elem)
    }
}

/// `text` with `$` standing for [`PREFIX`]`_`.
fn prefixed(text: &str) -> String {
    text.replace('$', &format!("{PREFIX}_"))
}

/// The index of element (`r`, `c`) of a tile stored with `row_major` majorness.
fn index(off: &str, stride: &str, r: &str, c: &str, row_major: bool) -> String {
    let (major, minor) = if row_major { (r, c) } else { (c, r) };
    format!("{off} + {major} * {stride} + {minor}")
}

/// The loop over an invocation's elements, `$r`/`$c` bound to the element's row and column.
fn each_element(body: &str) -> String {
    format!(
        "let $c = $lid % 64u; for (var $j = 0u; $j < {PER_INVOCATION}u; $j++) {{ let $r = $lid / 64u + 2u * $j; {body} }}"
    )
}

impl<'a> Walker<'a> {
    fn wgm_error(&mut self, at: Span, msg: impl Into<String>) {
        self.error(at, msg, "see the extension's signatures in docs/workgroup-matrix.md");
    }

    /// Whether the extension is enabled; an error at `at` when not.
    fn wgm_enabled(&mut self, at: Span) -> bool {
        if !self.exts.workgroup {
            self.error(
                at,
                "workgroup matrices need `enable dianran_workgroup_matrix;`",
                "add the directive at the top of the file",
            );
        }
        self.exts.workgroup
    }

    /// Declares a helper standing for `spec` with `body` (`$` for the prefix) once per
    /// distinct text; its name.
    fn wgm_helper(&mut self, spec: TileSpec, params: &str, ret: &str, body: &str) -> String {
        let arrow = if ret.is_empty() { String::new() } else { format!(" -> {ret}") };
        let key = prefixed(&format!("({params}){arrow} {{ {body} }}"));
        let op = spec.op;
        if let Some(n) = self.tile_helpers.get(&(op.word(), key.clone())) {
            return n.clone();
        }
        let name = format!("{PREFIX}_{}{}", op.word(), self.tile_helpers.len());
        let _ = writeln!(self.stub_decls, "fn {name}{key}");
        self.tile_helpers.insert((op.word(), key), name.clone());
        self.out.tile_helpers.push((name.clone(), spec));
        name
    }

    /// Routes a call to the workgroup-matrix builtins; false when `name` is not one.
    pub(super) fn wgm_call(&mut self, c: &Call<'a>, name: &str) -> bool {
        let op = match name {
            "workgroupMatrixLoad" => TileOp::Load,
            "workgroupMatrixStore" => TileOp::Store,
            "workgroupMatrixMultiplyAccumulate" => TileOp::MultiplyAccumulate,
            _ => {
                let is_type = self.env.tile(&c.call.ty).is_some()
                    && (name == TYPE || c.call.ty.template_args.is_none());
                if is_type && self.wgm_enabled(c.span) {
                    self.wgm_construct(c);
                }
                return is_type;
            }
        };
        if !self.wgm_enabled(c.span) {
            return true;
        }
        match op {
            TileOp::Load | TileOp::Store => self.wgm_memory(c, op),
            _ => self.wgm_mma(c),
        }
        true
    }

    fn wgm_construct(&mut self, c: &Call<'a>) {
        if let Some(Err(msg)) = self.env.tile(&c.call.ty) {
            return self.wgm_error(c.span, msg);
        }
        match c.call.arguments.len() {
            0 => self.edits.push(super::Edit::new(
                c.span.start as usize,
                c.span.end as usize,
                format!("{TILE}()"),
            )),
            1 => {
                let body = format!(
                    "var $t: {TILE}; for (var $j = 0u; $j < {PER_INVOCATION}u; $j++) {{ $t.e[$j] = $v; }} return $t;"
                );
                let spec = TileSpec { op: TileOp::Fill, k: 0, arrays: vec![], row_major: vec![] };
                let name = self.wgm_helper(spec, "$v: f32", TILE, &body);
                self.edits.push(super::Edit::new(
                    c.span.start as usize,
                    c.arg(0).start as usize,
                    format!("{name}("),
                ));
            }
            _ => self.wgm_error(
                c.span,
                format!("`{TYPE_WGSL}` takes zero or one argument (the fill value)"),
            ),
        }
    }

    /// The array argument `i`: `&name` or `&name.member...` of a module-scope array of `f32`
    /// or `f16` in workgroup or storage memory (writable when `store`).
    fn wgm_array(&mut self, c: &Call<'a>, i: usize, store: bool, what: &str) -> Option<ArrayRef> {
        let a = c.call.arguments.get(i)?;
        let at = span(a.span());
        let inner = match a.node() {
            Expression::Unary(u) if u.operator == UnaryOperator::AddressOf => Some(&u.operand),
            _ => None,
        };
        let rooted = inner.is_some_and(|e| self.module_path(e));
        let Some(inner) = inner.filter(|_| rooted) else {
            self.wgm_error(at, format!("the array argument of `{what}` must be `&name` or `&name.member` of a module-scope array"));
            return None;
        };
        let Ty::Ptr(space, access, pointee) = self.env.expr(a).ty else {
            self.wgm_error(
                at,
                format!("dianran cannot tell the type of this argument of `{what}`"),
            );
            return None;
        };
        if !self.memory_ok((space, access), store, at, what) {
            return None;
        }
        let elem = match *pointee {
            Ty::Array(e, _) => match *e {
                Ty::Num { scalar: s @ (Num::F32 | Num::F16), n: 1 } => Some(s),
                _ => None,
            },
            _ => None,
        };
        let Some(elem) = elem else {
            self.wgm_error(at, format!("`{what}` needs an array of f32 or f16 scalars"));
            return None;
        };
        let path = self.text[span(inner.span()).start as usize..span(inner.span()).end as usize]
            .to_string();
        let mut members = Vec::new();
        let root = path_parts(inner, &mut members)?;
        Some(ArrayRef { path, root, members, elem })
    }

    /// Whether `e` is a name declared at module scope, or member accesses of one.
    fn module_path(&self, e: &ExpressionNode) -> bool {
        match e.node() {
            Expression::NamedComponent(n) => self.module_path(&n.base),
            Expression::Parenthesized(p) => self.module_path(&p.expression),
            _ => ident_of(e).is_some_and(|n| self.env.is_module_scope(&n)),
        }
    }

    fn wgm_majorness(&mut self, c: &Call<'a>, i: usize) -> Option<bool> {
        match c.template(i).and_then(ident_of).as_deref() {
            Some("row_major") => Some(true),
            Some("col_major") => Some(false),
            _ => {
                self.wgm_error(c.span, "the majorness must be `row_major` or `col_major`");
                None
            }
        }
    }

    /// A tile argument: its type must be the workgroup matrix.
    fn wgm_tile_arg(&mut self, c: &Call<'a>, i: usize, what: &str) -> bool {
        let Some(a) = c.call.arguments.get(i) else { return false };
        match self.env.expr(a).ty {
            Ty::Tile => true,
            Ty::Unknown => {
                self.wgm_error(span(a.span()), format!("dianran cannot tell the type of this argument of `{what}`; bind it to a `let` of type {TYPE_WGSL} first"));
                false
            }
            _ => {
                self.wgm_error(
                    span(a.span()),
                    format!("this argument of `{what}` must be a {TYPE_WGSL}"),
                );
                false
            }
        }
    }

    /// `workgroupMatrixLoad<M>(&p, offset, stride[, columns, rows])` or
    /// `workgroupMatrixStore<M>(&p, offset, value, stride[, columns, rows])`.
    fn wgm_memory(&mut self, c: &Call<'a>, op: TileOp) {
        let store = op == TileOp::Store;
        let what = op.user_name();
        let n = c.call.arguments.len();
        let base = 3 + usize::from(store);
        if n != base && n != base + 2 {
            return self.wgm_error(
                c.span,
                format!(
                    "`{what}` takes {base} arguments, or {} with a (columns, rows) bound",
                    base + 2
                ),
            );
        }
        if c.ntemplates() != 1 {
            return self.wgm_error(
                c.span,
                format!(
                    "`{what}` takes one template argument, the majorness: {what}<row_major>(...)"
                ),
            );
        }
        let Some(row_major) = self.wgm_majorness(c, 0) else { return };
        if store && !self.wgm_tile_arg(c, 2, what) {
            return;
        }
        let Some(arr) = self.wgm_array(c, 0, store, what) else { return };
        let idx = index("$off", "$stride", "$r", "$c", row_major);
        let inside = "$c < $cols && $r < $rows";
        let (params, ret, body) = if store {
            let conv = if arr.elem == Num::F16 { "f16" } else { "f32" };
            let body = each_element(&format!(
                "if ({inside}) {{ {}[{idx}] = {conv}($t.e[$j]); }}",
                arr.path
            ));
            (format!("$off: u32, $t: {TILE}, $stride: u32, $cols: u32, $rows: u32"), "", body)
        } else {
            let body = format!(
                "var $t: {TILE}; {} return $t;",
                each_element(&format!("if ({inside}) {{ $t.e[$j] = f32({}[{idx}]); }}", arr.path))
            );
            ("$off: u32, $stride: u32, $cols: u32, $rows: u32".to_string(), TILE, body)
        };
        let spec = TileSpec { op, k: 0, arrays: vec![arr.spec()], row_major: vec![row_major] };
        let name = self.wgm_helper(spec, &params, ret, &body);
        self.edits.push(super::Edit::new(
            c.span.start as usize,
            c.arg(1).start as usize,
            format!("{name}("),
        ));
        if n == base {
            let last = c.arg(n - 1).end as usize;
            self.edits.push(super::Edit::new(last, c.span.end as usize, ", 64u, 64u)"));
        }
    }

    /// `workgroupMatrixMultiplyAccumulate<K, LM, RM>(&a, a_off, a_stride, &b, b_off,
    /// b_stride, acc)`.
    fn wgm_mma(&mut self, c: &Call<'a>) {
        let what = TileOp::MultiplyAccumulate.user_name();
        if c.call.arguments.len() != 7 || c.ntemplates() != 3 {
            return self.wgm_error(c.span, format!("`{what}<K, row_major|col_major, row_major|col_major>` takes 7 arguments: (&left, left_offset, left_stride, &right, right_offset, right_stride, accumulator)"));
        }
        let k = c.template(0).and_then(|e| self.env.int(e));
        let Some(k) = k.filter(|k| *k > 0 && k % 16 == 0 && *k <= 256) else {
            return self.wgm_error(c.span, format!("the first template argument of `{what}` is K, a constant multiple of 16 from 16 to 256"));
        };
        let (Some(lm), Some(rm)) = (self.wgm_majorness(c, 1), self.wgm_majorness(c, 2)) else {
            return;
        };
        if !self.wgm_tile_arg(c, 6, what) {
            return;
        }
        let (Some(a), Some(b)) =
            (self.wgm_array(c, 0, false, what), self.wgm_array(c, 3, false, what))
        else {
            return;
        };
        // The invocation's 32 sums are scalars (registers on every target) and `k` is the
        // outer loop, so each step reads the invocation's one element of B once.
        let bi = index("$bo", "$bs", "$k", "$c", rm);
        let mut body = String::from("let $c = $lid % 64u; let $r = $lid / 64u; ");
        for j in 0..PER_INVOCATION {
            let _ = write!(body, "var $s{j} = $acc.e[{j}]; ");
        }
        let _ =
            write!(body, "for (var $k = 0u; $k < {k}u; $k++) {{ let $b = f32({}[{bi}]); ", b.path);
        for j in 0..PER_INVOCATION {
            let ai = index("$ao", "$as", &format!("($r + {}u)", 2 * j), "$k", lm);
            let _ = write!(body, "$s{j} = fma(f32({}[{ai}]), $b, $s{j}); ", a.path);
        }
        let sums: Vec<String> = (0..PER_INVOCATION).map(|j| format!("$s{j}")).collect();
        let _ =
            write!(body, "}} return {TILE}(array<f32, {PER_INVOCATION}>({}));", sums.join(", "));
        let params = format!("$ao: u32, $as: u32, $bo: u32, $bs: u32, $acc: {TILE}");
        let spec = TileSpec {
            op: TileOp::MultiplyAccumulate,
            k: k as u32,
            arrays: vec![a.spec(), b.spec()],
            row_major: vec![lm, rm],
        };
        let name = self.wgm_helper(spec, &params, TILE, &body);
        self.edits.push(super::Edit::new(
            c.span.start as usize,
            c.arg(1).start as usize,
            format!("{name}("),
        ));
        self.edits.push(super::Edit::new(c.arg(2).end as usize, c.arg(4).start as usize, ", "));
    }

    /// A compute entry point stores its `local_invocation_index` in [`LID`] first.
    pub(super) fn wgm_entry(&mut self, f: &ast::Function, decl: wgsl_parse::span::Span) {
        if !self.exts.workgroup
            || !f.attributes.iter().any(|a| matches!(a.node(), ast::Attribute::Compute))
        {
            return;
        }
        let is_lid = |attrs: &ast::Attributes| {
            attrs.iter().any(|a| {
                matches!(a.node(), ast::Attribute::Builtin(ast::BuiltinValue::LocalInvocationIndex))
            })
        };
        let mut lid = None;
        for p in &f.parameters {
            if is_lid(&p.attributes) {
                lid = Some(p.ident.name().clone());
                break;
            }
            let sname = p.ty.ident.name().clone();
            if let Some(m) = self.lid_members.get(&sname) {
                lid = Some(format!("{}.{m}", p.ident.name()));
                break;
            }
        }
        let Some((open, body)) = signature_positions(self.text, decl, &f.ident.name()) else {
            return self
                .wgm_error(span(decl), "dianran could not find this entry point's parameter list");
        };
        let lid = match lid {
            Some(l) => l,
            None => {
                let sep = if f.parameters.is_empty() { "" } else { ", " };
                let name = LID_PARAM.to_string();
                self.edits.push(super::Edit::new(
                    open + 1,
                    open + 1,
                    format!("@builtin(local_invocation_index) {name}: u32{sep}"),
                ));
                name
            }
        };
        self.edits.push(super::Edit::new(body + 1, body + 1, format!(" {LID} = {lid};")));
    }

    /// Replaces the type spelt at `s..e` (its name) with its template arguments by [`TILE`].
    pub(super) fn wgm_type(&mut self, s: usize, e: usize) {
        let at = Span { start: s as u32, end: e as u32 };
        if !self.wgm_enabled(at) {
            return;
        }
        let Some(close) = super::template_end(self.text, e) else {
            return self.wgm_error(at, format!("the workgroup matrix type is spelt {TYPE_WGSL}"));
        };
        let src = &self.text[s..close];
        let checked = match wgsl_parse::parse_str(&format!("alias {PREFIX}_t = {src};")) {
            Ok(tu) => match tu.global_declarations.first().map(|d| d.node()) {
                Some(ast::GlobalDeclaration::TypeAlias(a)) => self.env.tile(&a.ty),
                _ => None,
            },
            Err(_) => None,
        };
        let at = Span { start: s as u32, end: close as u32 };
        match checked {
            Some(Ok(())) => self.edits.push(super::Edit::new(s, close, TILE.to_string())),
            Some(Err(msg)) => self.wgm_error(at, msg),
            None => self.wgm_error(at, format!("the workgroup matrix type is spelt {TYPE_WGSL}")),
        }
    }

    /// Declarations the rewrite appends when the extension is enabled.
    pub(super) fn wgm_declarations(&self) -> String {
        format!("struct {TILE} {{ e: array<f32, {PER_INVOCATION}> }}\nvar<private> {LID}: u32;\n")
    }

    /// Rejects tiles in arrays, structs and module-scope variables (`t` declared at `at`).
    pub(super) fn wgm_place(&mut self, t: &Ty, at: Span, local: bool) {
        if self.env.holds_tile(t) && !(local && *t == Ty::Tile) {
            self.error(
                at,
                "workgroup matrices live in `let`s, function `var`s, parameters and return values only",
                "keep each tile in its own variable; store it to a workgroup array with workgroupMatrixStore to keep its elements",
            );
        }
    }
}

/// The variable `e` names (after [`Walker::module_path`]), with the member names to its end
/// appended to `members`.
fn path_parts(e: &ExpressionNode, members: &mut Vec<String>) -> Option<String> {
    match e.node() {
        Expression::NamedComponent(n) => {
            let root = path_parts(&n.base, members)?;
            members.push(n.component.name().clone());
            Some(root)
        }
        Expression::Parenthesized(p) => path_parts(&p.expression, members),
        _ => ident_of(e),
    }
}

/// The byte offsets of the `(` opening the parameter list and the `{` opening the body of the
/// function `name` declared at `decl`.
fn signature_positions(
    text: &str,
    decl: wgsl_parse::span::Span,
    name: &str,
) -> Option<(usize, usize)> {
    let d = text.get(decl.start..decl.end)?;
    let mut ids = crate::source::identifiers(d);
    let name_end = loop {
        let (s, e) = ids.next()?;
        if &d[s..e] == "fn" {
            let (ns, ne) = ids.next()?;
            if &d[ns..ne] == name {
                break ne;
            }
        }
    };
    let open = name_end + d[name_end..].find('(')?;
    let mut depth = 0i32;
    let mut close = None;
    for (i, ch) in d[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let body = close + d[close..].find('{')?;
    Some((decl.start + open, decl.start + body))
}

#[cfg(test)]
mod tests {
    use crate::{compile, Options};

    const HEAD: &str = "enable f16;\nenable dianran_workgroup_matrix;\n\
        @group(0) @binding(0) var<storage, read> a: array<f32>;\n\
        @group(0) @binding(1) var<storage, read_write> c: array<f32>;\n\
        @group(0) @binding(2) var<storage, read> h: array<f16>;\n\
        struct S { m: u32, v: array<f32> }\n\
        @group(0) @binding(3) var<storage, read_write> s: S;\n";

    /// The messages and the user's text under each diagnostic's span.
    fn errors_in(src: &str) -> Vec<(String, String)> {
        match compile("t.wgsl", src, &Options::default()) {
            Ok(_) => vec![],
            Err(d) => d
                .list
                .iter()
                .map(|x| {
                    let at = x.span.map_or(String::new(), |s| {
                        src[s.start as usize..s.end as usize].to_string()
                    });
                    (x.message.clone(), at)
                })
                .collect(),
        }
    }

    fn errors(body: &str) -> Vec<(String, String)> {
        errors_in(&format!(
            "{HEAD}@compute @workgroup_size(128) fn main(@builtin(local_invocation_index) li: u32) {{\n{body}\n}}\n"
        ))
    }

    const MMA: &str =
        "workgroupMatrixMultiplyAccumulate<32, row_major, col_major>(&a, 0u, 32u, &h, 0u, 32u, t)";

    #[test]
    fn every_builtin_form_compiles() {
        let body = format!(
            "var t = workgroup_matrix_result<f32, 64, 64>();\n\
             t = {MMA};\n\
             let u = workgroupMatrixLoad<col_major>(&s.v, 4u, 64u, 10u, 3u);\n\
             workgroupMatrixStore<row_major>(&c, 0u, t, 64u);\n\
             workgroupMatrixStore<col_major>(&s.v, 0u, u, 64u, 5u, 7u);\n\
             workgroupMatrixStore<row_major>(&c, 0u, workgroup_matrix_result<f32, 64, 64>(2.0), 64u);"
        );
        assert_eq!(errors(&body), vec![]);
    }

    #[test]
    fn rules_are_diagnostics_at_the_users_text() {
        let e = errors("let t = workgroup_matrix_result<f32, 32, 64>();");
        assert!(e[0].0.contains("64 columns by 64 rows"), "{e:?}");
        assert_eq!(e[0].1, "workgroup_matrix_result<f32, 32, 64>()");
        let e = errors("let t = workgroup_matrix_result<f16, 64, 64>();");
        assert!(e[0].0.contains("must be f32"), "{e:?}");
        let e = errors(&format!(
            "var t = workgroup_matrix_result<f32, 64, 64>();\nt = {};",
            MMA.replace("<32,", "<24,")
        ));
        assert!(e[0].0.contains("multiple of 16"), "{e:?}");
        let e = errors("let t = workgroup_matrix_result<f32, 64, 64>();\nworkgroupMatrixStore<row_major>(&a, 0u, t, 64u);");
        assert!(e[0].0.contains("read-only"), "{e:?}");
        assert_eq!(e[0].1, "&a");
        let e =
            errors("var v: array<f32, 4>;\nlet t = workgroupMatrixLoad<row_major>(&v, 0u, 64u);");
        assert!(e[0].0.contains("module-scope"), "{e:?}");
        let e = errors("let p = &c;\nlet t = workgroupMatrixLoad<row_major>(p, 0u, 64u);");
        assert!(e[0].0.contains("module-scope"), "{e:?}");
        assert_eq!(e[0].1, "p");
        let e = errors("let t = workgroupMatrixLoad<diagonal>(&c, 0u, 64u);");
        assert!(e[0].0.contains("majorness"), "{e:?}");
        let e = errors("var x: array<workgroup_matrix_result<f32, 64, 64>, 2>;");
        assert!(e[0].0.contains("live in"), "{e:?}");
        let e = errors("let _dr_wgm_x = 1u;");
        assert!(e[0].0.contains("reserved"), "{e:?}");
        // Without the directive (another extension runs the rewrite).
        let e = errors_in(
            "enable chromium_experimental_subgroup_matrix;\n\
             @group(0) @binding(0) var<storage, read_write> c: array<f32>;\n\
             @compute @workgroup_size(128) fn main() { let t = workgroupMatrixLoad<row_major>(&c, 0u, 64u); }",
        );
        assert!(e[0].0.contains("enable dianran_workgroup_matrix"), "{e:?}");
    }

    #[test]
    fn naga_errors_name_the_users_type() {
        let e = errors("let t = workgroup_matrix_result<f32, 64, 64>();\nlet bad: u32 = t;");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.contains("workgroup_matrix_result<f32, 64, 64>"), "{e:?}");
        assert!(!e[0].0.contains("_dr_wgm"), "helper names leak: {e:?}");
    }

    #[test]
    fn workgroups_of_other_sizes_are_errors_at_the_call() {
        let src = format!(
            "{HEAD}fn f() {{ workgroupMatrixStore<row_major>(&c, 0u, workgroup_matrix_result<f32, 64, 64>(), 64u); }}\n\
             @compute @workgroup_size(64) fn main() {{ f(); }}\n"
        );
        let e = errors_in(&src);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.contains("exactly 128 invocations") && e[0].0.contains("has 64"), "{e:?}");
        assert!(e[0].1.starts_with("workgroupMatrixStore"), "{e:?}");
        // 64 x 2 is 128, and the entry without a local_invocation_index gets one.
        let ok = src.replace("workgroup_size(64)", "workgroup_size(64, 2)");
        assert_eq!(errors_in(&ok), vec![]);
        // The index inside a struct parameter is found.
        let st = format!(
            "{HEAD}struct In {{ @builtin(local_invocation_index) i: u32, @builtin(workgroup_id) w: vec3<u32> }}\n\
             @compute @workgroup_size(128) fn main(x: In) {{ workgroupMatrixStore<row_major>(&c, x.w.x, workgroup_matrix_result<f32, 64, 64>(), 64u); }}\n"
        );
        assert_eq!(errors_in(&st), vec![]);
    }

    #[test]
    fn calls_need_uniform_control_flow_and_arguments() {
        let e = errors(&format!(
            "var t = workgroup_matrix_result<f32, 64, 64>();\nif (li < 64u) {{ t = {MMA}; }}\n\
             workgroupMatrixStore<row_major>(&c, 0u, t, 64u);"
        ));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.contains("workgroup-uniform control flow"), "{e:?}");
        assert!(e[0].1.starts_with("workgroupMatrixMultiplyAccumulate"), "{e:?}");
        let e = errors(
            "workgroupMatrixStore<row_major>(&c, li, workgroup_matrix_result<f32, 64, 64>(), 64u);",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].0.contains("the offset of workgroupMatrixStore may differ"), "{e:?}");
        // Tiles themselves are not checked (each invocation holds its own part), and a
        // subgroup-matrix severity does not turn the rule off.
        let off = errors_in(&format!(
            "diagnostic(off, chromium.subgroup_matrix_uniformity);\n{HEAD}@compute @workgroup_size(128) fn main(@builtin(local_invocation_index) li: u32) {{\n\
             let t = workgroupMatrixLoad<row_major>(&c, 0u, 64u);\nif (li == 0u) {{ workgroupMatrixStore<row_major>(&c, 0u, t, 64u); }}\n}}"
        ));
        assert_eq!(off.len(), 1, "{off:?}");
    }
}
