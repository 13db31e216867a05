//! The generator's own syntax tree of a WGSL compute module, and its printer.
//!
//! Every expression carries its type, so the reducer can replace any expression by the zero
//! value of its type (`T()`) or by a same-typed operand.

use std::fmt::Write as _;

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum S {
    /// `bool`
    Bool,
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `f32`
    F32,
    /// `f16`
    F16,
}

impl S {
    /// The WGSL name.
    pub fn name(self) -> &'static str {
        match self {
            S::Bool => "bool",
            S::I32 => "i32",
            S::U32 => "u32",
            S::F32 => "f32",
            S::F16 => "f16",
        }
    }
    /// `f32` or `f16`.
    pub fn is_float(self) -> bool {
        matches!(self, S::F32 | S::F16)
    }
    /// `i32` or `u32`.
    pub fn is_int(self) -> bool {
        matches!(self, S::I32 | S::U32)
    }
}

/// The role of a cooperative matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// `A`
    A,
    /// `B`
    B,
    /// `C`
    C,
}

/// A WGSL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A scalar.
    S(S),
    /// `vecN<T>`
    Vec(u8, S),
    /// `matCxR<T>` (columns, rows).
    Mat(u8, u8, S),
    /// `array<T, N>`
    Array(Box<Ty>, u32),
    /// `array<T>` (storage buffers only).
    RtArray(Box<Ty>),
    /// A struct, by name.
    Struct(String),
    /// `atomic<T>`
    Atomic(S),
    /// `coop_mat16x16<T, R>` (size, element, role).
    Coop(u8, S, Role),
    /// An extension matrix type by its spelling: Dawn's subgroup matrices
    /// (`subgroup_matrix_left<i8, 32, 16>`) and dianran's workgroup matrices.
    Sgm(String),
    /// A pointer (`ptr<space, T>`); only in parameter lists.
    Ptr(&'static str, Box<Ty>),
    /// The `__atomic_compare_exchange_result` of `atomicCompareExchangeWeak`.
    CasResult(S),
}

impl Ty {
    /// A scalar type.
    pub fn s(s: S) -> Ty {
        Ty::S(s)
    }
    /// The scalar of a scalar or vector type.
    pub fn scalar(&self) -> Option<S> {
        match self {
            Ty::S(s) | Ty::Vec(_, s) => Some(*s),
            _ => None,
        }
    }
    /// Components of a scalar (1) or vector (N) type.
    pub fn width(&self) -> u8 {
        match self {
            Ty::Vec(n, _) => *n,
            _ => 1,
        }
    }
    /// The WGSL spelling.
    pub fn wgsl(&self) -> String {
        match self {
            Ty::S(s) => s.name().into(),
            Ty::Vec(n, s) => format!("vec{n}<{}>", s.name()),
            Ty::Mat(c, r, s) => format!("mat{c}x{r}<{}>", s.name()),
            Ty::Array(t, n) => format!("array<{}, {n}>", t.wgsl()),
            Ty::RtArray(t) => format!("array<{}>", t.wgsl()),
            Ty::Struct(n) => n.clone(),
            Ty::Atomic(s) => format!("atomic<{}>", s.name()),
            Ty::Coop(n, s, r) => format!("coop_mat{n}x{n}<{}, {r:?}>", s.name()),
            Ty::Sgm(spelling) => spelling.clone(),
            Ty::Ptr(space, t) => format!("ptr<{space}, {}>", t.wgsl()),
            Ty::CasResult(s) => format!("__atomic_compare_exchange_result<{}>", s.name()),
        }
    }
    /// Whether `T()` is a valid zero value of the type.
    pub fn constructible(&self) -> bool {
        match self {
            Ty::S(_) | Ty::Vec(..) | Ty::Mat(..) | Ty::Struct(_) => true,
            Ty::Array(t, _) => t.constructible(),
            _ => false,
        }
    }
}

/// An expression with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: Box<ExprKind>,
    /// Its type.
    pub ty: Ty,
}

/// The forms of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal as printed (`3u`, `0.25f`, `true`).
    Lit(String),
    /// A variable, `let`, parameter or builtin.
    Name(String),
    /// A prefix operator (`-`, `!`, `~`).
    Unary(&'static str, Expr),
    /// An infix operator.
    Binary(&'static str, Expr, Expr),
    /// A call: builtin, user function, or type constructor (`vec3<f32>(...)`).
    Call(String, Vec<Expr>),
    /// `base[index]`
    Index(Expr, Expr),
    /// `base.member` (struct fields and swizzles).
    Member(Expr, String),
    /// `&lvalue`
    AddrOf(Expr),
    /// `*pointer`
    Deref(Expr),
}

impl Expr {
    /// A literal of type `ty`.
    pub fn lit(text: impl Into<String>, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Lit(text.into())), ty }
    }
    /// A name of type `ty`.
    pub fn name(n: impl Into<String>, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Name(n.into())), ty }
    }
    /// A call of type `ty`.
    pub fn call(f: impl Into<String>, args: Vec<Expr>, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Call(f.into(), args)), ty }
    }
    /// An infix operation of type `ty`.
    pub fn bin(op: &'static str, a: Expr, b: Expr, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Binary(op, a, b)), ty }
    }
    /// A prefix operation of type `ty`.
    pub fn un(op: &'static str, a: Expr, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Unary(op, a)), ty }
    }
    /// `base[index]` of type `ty`.
    pub fn index(base: Expr, index: Expr, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Index(base, index)), ty }
    }
    /// `base.member` of type `ty`.
    pub fn member(base: Expr, m: impl Into<String>, ty: Ty) -> Expr {
        Expr { kind: Box::new(ExprKind::Member(base, m.into())), ty }
    }
    /// `&e` (a pointer into `space`).
    pub fn addr(e: Expr, space: &'static str) -> Expr {
        let ty = Ty::Ptr(space, Box::new(e.ty.clone()));
        Expr { kind: Box::new(ExprKind::AddrOf(e)), ty }
    }
    /// `*p`.
    pub fn deref(p: Expr) -> Expr {
        let ty = match &p.ty {
            Ty::Ptr(_, t) => (**t).clone(),
            t => t.clone(),
        };
        Expr { kind: Box::new(ExprKind::Deref(p)), ty }
    }
    /// The zero value `T()`, if the type has one.
    pub fn zero(ty: &Ty) -> Option<Expr> {
        ty.constructible().then(|| Expr::call(ty.wgsl(), Vec::new(), ty.clone()))
    }

    /// The expression as WGSL.
    pub fn wgsl(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, out: &mut String) {
        match &*self.kind {
            ExprKind::Lit(t) | ExprKind::Name(t) => out.push_str(t),
            ExprKind::Unary(op, a) => {
                out.push('(');
                out.push_str(op);
                a.write(out);
                out.push(')');
            }
            ExprKind::Binary(op, a, b) => {
                out.push('(');
                a.write(out);
                let _ = write!(out, " {op} ");
                b.write(out);
                out.push(')');
            }
            ExprKind::Call(f, args) => {
                out.push_str(f);
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    a.write(out);
                }
                out.push(')');
            }
            ExprKind::Index(b, i) => {
                b.write(out);
                out.push('[');
                i.write(out);
                out.push(']');
            }
            ExprKind::Member(b, m) => {
                b.write(out);
                out.push('.');
                out.push_str(m);
            }
            ExprKind::AddrOf(e) => {
                out.push_str("(&");
                e.write(out);
                out.push(')');
            }
            ExprKind::Deref(p) => {
                out.push_str("(*");
                p.write(out);
                out.push(')');
            }
        }
    }

    /// The direct sub-expressions.
    pub fn children(&self) -> Vec<&Expr> {
        match &*self.kind {
            ExprKind::Lit(_) | ExprKind::Name(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _)
            | ExprKind::AddrOf(a)
            | ExprKind::Deref(a) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Call(_, args) => args.iter().collect(),
        }
    }

    /// The direct sub-expressions, mutably.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut *self.kind {
            ExprKind::Lit(_) | ExprKind::Name(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _)
            | ExprKind::AddrOf(a)
            | ExprKind::Deref(a) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Call(_, args) => args.iter_mut().collect(),
        }
    }
}

/// One `case` clause of a `switch` (`default` among the selectors makes it the default).
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Selector literals (`1i`, `default`).
    pub selectors: Vec<String>,
    /// The clause's statements.
    pub body: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let name = e;`
    Let(String, Expr),
    /// `var name: T = e;` (zero-initialized without `e`).
    Var(String, Ty, Option<Expr>),
    /// `lhs op rhs;` with `op` one of `=`, `+=`, `-=`, ...
    Assign(Expr, &'static str, Expr),
    /// `lhs++;` or `lhs--;`
    Step(Expr, &'static str),
    /// `_ = e;`
    Phony(Expr),
    /// `f(args);`
    Call(String, Vec<Expr>),
    /// `if (c) { .. } else { .. }`
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `switch (e) { case ..: {..} }`
    Switch(Expr, Vec<Case>),
    /// `loop { body continuing { .. break if c; } }`
    Loop {
        /// Statements of the loop body.
        body: Vec<Stmt>,
        /// The `continuing` block.
        continuing: Vec<Stmt>,
        /// Its `break if` condition.
        break_if: Option<Expr>,
    },
    /// `for (init; cond; update) { body }`
    For {
        /// The initializer (a `var`).
        init: Box<Stmt>,
        /// The condition.
        cond: Expr,
        /// The update (an increment or assignment).
        update: Box<Stmt>,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while (c) { body }`
    While(Expr, Vec<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` or `return e;`
    Return(Option<Expr>),
    /// `{ .. }`
    Block(Vec<Stmt>),
}

impl Stmt {
    /// The nested statement lists (for the reducer).
    pub fn bodies_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Stmt::If(_, a, b) => vec![a, b],
            Stmt::Switch(_, cases) => cases.iter_mut().map(|c| &mut c.body).collect(),
            Stmt::Loop { body, continuing, .. } => vec![body, continuing],
            Stmt::For { body, .. } | Stmt::While(_, body) | Stmt::Block(body) => vec![body],
            _ => Vec::new(),
        }
    }

    /// The expressions directly in the statement (for the reducer).
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Stmt::Let(_, e) | Stmt::Phony(e) | Stmt::Step(e, _) => vec![e],
            Stmt::Var(_, _, e) => e.iter_mut().collect(),
            Stmt::Assign(a, _, b) => vec![a, b],
            Stmt::Call(_, args) => args.iter_mut().collect(),
            Stmt::If(c, ..) | Stmt::Switch(c, _) | Stmt::While(c, _) => vec![c],
            Stmt::Loop { break_if, .. } => break_if.iter_mut().collect(),
            Stmt::For { cond, .. } => vec![cond],
            Stmt::Return(e) => e.iter_mut().collect(),
            Stmt::Break | Stmt::Continue | Stmt::Block(_) => Vec::new(),
        }
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = "    ".repeat(indent);
        let block = |out: &mut String, list: &[Stmt]| {
            out.push_str("{\n");
            for s in list {
                s.write(out, indent + 1);
            }
            out.push_str(&pad);
            out.push('}');
        };
        match self {
            Stmt::Let(n, e) => {
                let _ = writeln!(out, "{pad}let {n} = {};", e.wgsl());
            }
            Stmt::Var(n, t, e) => match e {
                Some(e) => {
                    let _ = writeln!(out, "{pad}var {n}: {} = {};", t.wgsl(), e.wgsl());
                }
                None => {
                    let _ = writeln!(out, "{pad}var {n}: {};", t.wgsl());
                }
            },
            Stmt::Assign(a, op, b) => {
                let _ = writeln!(out, "{pad}{} {op} {};", a.wgsl(), b.wgsl());
            }
            Stmt::Step(a, op) => {
                let _ = writeln!(out, "{pad}{}{op};", a.wgsl());
            }
            Stmt::Phony(e) => {
                let _ = writeln!(out, "{pad}_ = {};", e.wgsl());
            }
            Stmt::Call(f, args) => {
                let a: Vec<String> = args.iter().map(Expr::wgsl).collect();
                let _ = writeln!(out, "{pad}{f}({});", a.join(", "));
            }
            Stmt::If(c, t, e) => {
                let _ = write!(out, "{pad}if ({}) ", c.wgsl());
                block(out, t);
                if !e.is_empty() {
                    out.push_str(" else ");
                    block(out, e);
                }
                out.push('\n');
            }
            Stmt::Switch(e, cases) => {
                let _ = writeln!(out, "{pad}switch ({}) {{", e.wgsl());
                for c in cases {
                    let _ = write!(out, "{pad}    case {}: ", c.selectors.join(", "));
                    let inner = "    ".repeat(indent + 1);
                    out.push_str("{\n");
                    for s in &c.body {
                        s.write(out, indent + 2);
                    }
                    out.push_str(&inner);
                    out.push_str("}\n");
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Loop { body, continuing, break_if } => {
                let _ = writeln!(out, "{pad}loop {{");
                for s in body {
                    s.write(out, indent + 1);
                }
                let _ = writeln!(out, "{pad}    continuing {{");
                for s in continuing {
                    s.write(out, indent + 2);
                }
                if let Some(c) = break_if {
                    let _ = writeln!(out, "{pad}        break if {};", c.wgsl());
                }
                let _ = writeln!(out, "{pad}    }}");
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::For { init, cond, update, body } => {
                let mut i = String::new();
                init.write(&mut i, 0);
                let mut u = String::new();
                update.write(&mut u, 0);
                let (i, u) = (i.trim().trim_end_matches(';'), u.trim().trim_end_matches(';'));
                let _ = write!(out, "{pad}for ({i}; {}; {u}) ", cond.wgsl());
                block(out, body);
                out.push('\n');
            }
            Stmt::While(c, body) => {
                let _ = write!(out, "{pad}while ({}) ", c.wgsl());
                block(out, body);
                out.push('\n');
            }
            Stmt::Break => {
                let _ = writeln!(out, "{pad}break;");
            }
            Stmt::Continue => {
                let _ = writeln!(out, "{pad}continue;");
            }
            Stmt::Return(e) => match e {
                Some(e) => {
                    let _ = writeln!(out, "{pad}return {};", e.wgsl());
                }
                None => {
                    let _ = writeln!(out, "{pad}return;");
                }
            },
            Stmt::Block(list) => {
                out.push_str(&pad);
                block(out, list);
                out.push('\n');
            }
        }
    }
}

/// A struct declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// Fields in order.
    pub fields: Vec<(String, Ty)>,
}

/// A module-scope variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    /// `private`, `workgroup`, `storage, read`, `storage, read_write` or `uniform`.
    pub space: &'static str,
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// `@group(g) @binding(b)` for buffers.
    pub binding: Option<(u32, u32)>,
    /// An initializer (private variables).
    pub init: Option<Expr>,
}

/// A function (the entry point has `stage` set).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Parameters: (attribute, name, type); the attribute is `@builtin(...)` or empty.
    pub params: Vec<(String, String, Ty)>,
    /// The return type.
    pub ret: Option<Ty>,
    /// The body.
    pub body: Vec<Stmt>,
    /// `@compute @workgroup_size(x, y, z)` for the entry point.
    pub workgroup_size: Option<[u32; 3]>,
}

/// A generated module with what it takes to run it.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The seed it was generated from.
    pub seed: u64,
    /// `enable` directives.
    pub enables: Vec<&'static str>,
    /// Structs in declaration order.
    pub structs: Vec<StructDef>,
    /// Module-scope variables.
    pub globals: Vec<Global>,
    /// Helper functions, then the entry point last.
    pub functions: Vec<Function>,
    /// Workgroups per dimension.
    pub dispatch: [u32; 3],
    /// Elements of every runtime-sized array.
    pub runtime_len: u32,
}

/// The entry point's name.
pub const ENTRY: &str = "main";

impl Program {
    /// The module as WGSL, with a header saying how to run it (`dianran verify`).
    pub fn wgsl(&self) -> String {
        let mut out = String::new();
        let [x, y, z] = self.dispatch;
        let _ = writeln!(out, "// Generated by `dianran fuzz` from seed {}.", self.seed);
        let _ = writeln!(
            out,
            "// Run: dianran verify FILE --len {} --seed {}",
            self.runtime_len, self.seed
        );
        let _ = writeln!(out, "// dispatch: {x},{y},{z}");
        for e in &self.enables {
            let _ = writeln!(out, "enable {e};");
        }
        if self.enables.contains(&"chromium_experimental_subgroup_matrix") {
            // Tiles are placed by subgroup (`idx / 32`), which Dawn's workgroup-uniformity
            // rule cannot prove uniform; real kernels turn it off the same way.
            out.push_str("diagnostic(off, chromium.subgroup_matrix_uniformity);\n");
        }
        out.push('\n');
        for s in &self.structs {
            let _ = writeln!(out, "struct {} {{", s.name);
            for (n, t) in &s.fields {
                let _ = writeln!(out, "    {n}: {},", t.wgsl());
            }
            out.push_str("}\n\n");
        }
        for g in &self.globals {
            if let Some((gr, b)) = g.binding {
                let _ = write!(out, "@group({gr}) @binding({b}) ");
            }
            let _ = write!(out, "var<{}> {}: {}", g.space, g.name, g.ty.wgsl());
            if let Some(e) = &g.init {
                let _ = write!(out, " = {}", e.wgsl());
            }
            out.push_str(";\n");
        }
        out.push('\n');
        for f in &self.functions {
            if let Some([x, y, z]) = f.workgroup_size {
                let _ = writeln!(out, "@compute @workgroup_size({x}, {y}, {z})");
            }
            let params: Vec<String> = f
                .params
                .iter()
                .map(|(attr, n, t)| {
                    if attr.is_empty() {
                        format!("{n}: {}", t.wgsl())
                    } else {
                        format!("{attr} {n}: {}", t.wgsl())
                    }
                })
                .collect();
            let _ = write!(out, "fn {}({})", f.name, params.join(", "));
            if let Some(r) = &f.ret {
                let _ = write!(out, " -> {}", r.wgsl());
            }
            out.push_str(" {\n");
            for s in &f.body {
                s.write(&mut out, 1);
            }
            out.push_str("}\n\n");
        }
        out
    }
}
