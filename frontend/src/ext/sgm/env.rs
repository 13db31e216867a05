//! The types of the expressions a subgroup-matrix call needs, inferred from declarations.
//!
//! The rewrite needs a few facts naga would know only after parsing: the matrix type of an
//! argument (to pick the helper and check Dawn's rules) and the array a pointer argument
//! points into (its element type and address space). Matrix expressions are restricted by the
//! extension to names, member and index accesses, `*`/`&`, and calls, so a small typer over
//! the declarations in scope is enough; anything else types as [`Ty::Unknown`] and the
//! caller asks for a typed `let`.

use super::matrix::{Kind, MatTy};
use crate::ir::CoopElem;
use rustc_hash::FxHashMap;
use wgsl_parse::syntax::{
    self as ast, AccessMode, AddressSpace, BinaryOperator, DeclarationKind, Expression,
    ExpressionNode, GlobalDeclaration, LiteralExpression, TranslationUnit, TypeExpression,
    UnaryOperator,
};

/// A numeric scalar usable as an array element for matrix loads and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// `f32`
    F32,
    /// `f16`
    F16,
    /// `i32`
    I32,
    /// `u32`
    U32,
}

impl Num {
    fn size(self) -> u32 {
        if self == Num::F16 {
            2
        } else {
            4
        }
    }
    /// WGSL spelling.
    pub fn name(self) -> &'static str {
        match self {
            Num::F32 => "f32",
            Num::F16 => "f16",
            Num::I32 => "i32",
            Num::U32 => "u32",
        }
    }
    fn parse(name: &str) -> Option<Num> {
        Some(match name {
            "f32" => Num::F32,
            "f16" => Num::F16,
            "i32" => Num::I32,
            "u32" => Num::U32,
            _ => return None,
        })
    }
}

/// A type, as far as the rewrite needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A subgroup matrix.
    Mat(MatTy),
    /// dianran's workgroup matrix, `workgroup_matrix_result<f32, 64, 64>` (`super::tile`).
    Tile,
    /// A numeric scalar (`n == 1`) or vector.
    Num {
        /// Component type.
        scalar: Num,
        /// Components (1 to 4).
        n: u8,
    },
    /// An abstract integer (a literal), which converts to `i32` or `u32`.
    AbstractInt,
    /// `bool`.
    Bool,
    /// `array<T, N>` (`None`: runtime-sized or an override length).
    Array(Box<Ty>, Option<u64>),
    /// A struct, by name.
    Struct(String),
    /// A pointer.
    Ptr(AddressSpace, AccessMode, Box<Ty>),
    /// Anything else, or not known.
    Unknown,
}

impl Ty {
    /// Byte distance between elements of an array of this type (WGSL's rules), for the
    /// numeric scalars and vectors a matrix may be loaded from.
    pub fn array_stride(&self) -> Option<u32> {
        let Ty::Num { scalar, n } = *self else { return None };
        let s = scalar.size();
        Some(match n {
            1 => s,
            2 => 2 * s,
            _ => 4 * s,
        })
    }
    /// WGSL spelling of a numeric scalar or vector.
    pub fn wgsl(&self) -> Option<String> {
        match *self {
            Ty::Num { scalar, n: 1 } => Some(scalar.name().to_string()),
            Ty::Num { scalar, n } => Some(format!("vec{n}<{}>", scalar.name())),
            _ => None,
        }
    }
}

/// A typed expression: its type, and the memory it names when it is a reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    /// The value's type (a reference's store type).
    pub ty: Ty,
    /// For references: the address space and access mode.
    pub place: Option<(AddressSpace, AccessMode)>,
}

impl Typed {
    fn value(ty: Ty) -> Self {
        Typed { ty, place: None }
    }
    const UNKNOWN: Typed = Typed { ty: Ty::Unknown, place: None };
}

/// Module-scope declarations, and the local scopes of the function being walked.
pub struct Env<'a> {
    structs: FxHashMap<String, Vec<(String, &'a TypeExpression)>>,
    aliases: FxHashMap<String, &'a TypeExpression>,
    functions: FxHashMap<String, Option<&'a TypeExpression>>,
    globals: FxHashMap<String, Typed>,
    consts: FxHashMap<String, i64>,
    scopes: Vec<FxHashMap<String, Typed>>,
    local_consts: Vec<FxHashMap<String, i64>>,
}

/// The access mode a declaration without one gets.
fn default_access(space: AddressSpace) -> AccessMode {
    match space {
        AddressSpace::Storage | AddressSpace::Uniform | AddressSpace::Handle => AccessMode::Read,
        _ => AccessMode::ReadWrite,
    }
}

impl<'a> Env<'a> {
    /// Collects the module-scope declarations of `tu`.
    pub fn new(tu: &'a TranslationUnit) -> Self {
        let mut env = Env {
            structs: FxHashMap::default(),
            aliases: FxHashMap::default(),
            functions: FxHashMap::default(),
            globals: FxHashMap::default(),
            consts: FxHashMap::default(),
            scopes: Vec::new(),
            local_consts: Vec::new(),
        };
        for d in &tu.global_declarations {
            match d.node() {
                GlobalDeclaration::Struct(s) => {
                    let members =
                        s.members.iter().map(|m| (m.ident.name().clone(), &m.ty)).collect();
                    env.structs.insert(s.ident.name().clone(), members);
                }
                GlobalDeclaration::TypeAlias(a) => {
                    env.aliases.insert(a.ident.name().clone(), &a.ty);
                }
                GlobalDeclaration::Function(f) => {
                    env.functions.insert(f.ident.name().clone(), f.return_type.as_ref());
                }
                _ => {}
            }
        }
        // Constants may use constants declared later; a few rounds settle every chain.
        for _ in 0..4 {
            for d in &tu.global_declarations {
                if let GlobalDeclaration::Declaration(decl) = d.node() {
                    if matches!(decl.kind, DeclarationKind::Const | DeclarationKind::Override) {
                        if let Some(v) = decl.initializer.as_ref().and_then(|i| env.int(i)) {
                            env.consts.insert(decl.ident.name().clone(), v);
                        }
                    }
                }
            }
        }
        for d in &tu.global_declarations {
            if let GlobalDeclaration::Declaration(decl) = d.node() {
                let t = env.declared(decl, true);
                env.globals.insert(decl.ident.name().clone(), t);
            }
        }
        env
    }

    /// The type a declaration gives its name.
    pub fn declared(&self, decl: &ast::Declaration, module_scope: bool) -> Typed {
        let ty = match (&decl.ty, &decl.initializer) {
            (Some(t), _) => self.ty(t),
            (None, Some(init)) => {
                let t = self.expr(init).ty;
                if t == Ty::AbstractInt {
                    Ty::Num { scalar: Num::I32, n: 1 }
                } else {
                    t
                }
            }
            (None, None) => Ty::Unknown,
        };
        let place = match decl.kind {
            DeclarationKind::Var(Some((space, access))) => {
                Some((space, access.unwrap_or_else(|| default_access(space))))
            }
            DeclarationKind::Var(None) if module_scope => {
                Some((AddressSpace::Handle, AccessMode::Read))
            }
            DeclarationKind::Var(None) => Some((AddressSpace::Function, AccessMode::ReadWrite)),
            _ => None,
        };
        Typed { ty, place }
    }

    /// Enters a block.
    pub fn push(&mut self) {
        self.scopes.push(FxHashMap::default());
        self.local_consts.push(FxHashMap::default());
    }
    /// Leaves a block.
    pub fn pop(&mut self) {
        self.scopes.pop();
        self.local_consts.pop();
    }
    /// Declares a local name.
    pub fn bind(&mut self, name: String, t: Typed) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name, t);
        }
    }
    /// Declares a local constant's value.
    pub fn bind_const(&mut self, name: String, v: i64) {
        if let Some(s) = self.local_consts.last_mut() {
            s.insert(name, v);
        }
    }

    /// Whether `name` is a module-scope declaration here (no local shadows it).
    pub fn is_module_scope(&self, name: &str) -> bool {
        self.scopes.iter().all(|s| !s.contains_key(name)) && self.globals.contains_key(name)
    }

    fn lookup(&self, name: &str) -> Option<&Typed> {
        self.scopes.iter().rev().find_map(|s| s.get(name)).or_else(|| self.globals.get(name))
    }

    fn const_value(&self, name: &str) -> Option<i64> {
        self.local_consts
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
            .or_else(|| self.consts.get(name).copied())
    }

    /// The value of an integer constant expression (literals, constants, `+ - * /`,
    /// negation, parentheses, `i32(..)`/`u32(..)`).
    pub fn int(&self, e: &ExpressionNode) -> Option<i64> {
        match e.node() {
            Expression::Literal(l) => match *l {
                LiteralExpression::AbstractInt(v) => Some(v),
                LiteralExpression::I32(v) => Some(i64::from(v)),
                LiteralExpression::U32(v) => Some(i64::from(v)),
                _ => None,
            },
            Expression::Parenthesized(p) => self.int(&p.expression),
            Expression::TypeOrIdentifier(t) if t.template_args.is_none() => {
                self.const_value(&t.ident.name())
            }
            Expression::Unary(u) if u.operator == UnaryOperator::Negation => {
                self.int(&u.operand).map(|v| -v)
            }
            Expression::Binary(b) => {
                let (l, r) = (self.int(&b.left)?, self.int(&b.right)?);
                match b.operator {
                    BinaryOperator::Addition => l.checked_add(r),
                    BinaryOperator::Subtraction => l.checked_sub(r),
                    BinaryOperator::Multiplication => l.checked_mul(r),
                    BinaryOperator::Division => l.checked_div(r),
                    _ => None,
                }
            }
            Expression::FunctionCall(c)
                if matches!(c.ty.ident.name().as_str(), "i32" | "u32")
                    && c.arguments.len() == 1 =>
            {
                self.int(&c.arguments[0])
            }
            _ => None,
        }
    }

    /// The value of a `bool` constant expression.
    pub fn boolean(&self, e: &ExpressionNode) -> Option<bool> {
        match e.node() {
            Expression::Literal(LiteralExpression::Bool(b)) => Some(*b),
            Expression::Parenthesized(p) => self.boolean(&p.expression),
            Expression::Unary(u) if u.operator == UnaryOperator::LogicalNegation => {
                self.boolean(&u.operand).map(|b| !b)
            }
            _ => None,
        }
    }

    /// A matrix type named by `subgroup_matrix_*<T, C, R>` or by an alias of one (`alias
    /// Left = subgroup_matrix_left<f32, 8, 8>;`); `Err` says what is wrong.
    pub fn matrix(&self, t: &TypeExpression) -> Option<Result<MatTy, String>> {
        self.matrix_depth(t, 0)
    }

    fn matrix_depth(&self, t: &TypeExpression, depth: u32) -> Option<Result<MatTy, String>> {
        let name = t.ident.name().clone();
        let Some(kind) = Kind::parse(&name) else {
            // An alias names the type it stands for (a cycle is naga's error to report).
            let a = self.aliases.get(&name).filter(|_| t.template_args.is_none() && depth < 16)?;
            return self.matrix_depth(a, depth + 1);
        };
        let Some(args) = t.template_args.as_ref().filter(|a| a.len() == 3) else {
            return Some(Err(format!(
                "`{name}` takes three template arguments: <T, columns, rows>"
            )));
        };
        let elem = match args[0].expression.node() {
            Expression::TypeOrIdentifier(e) if e.template_args.is_none() => {
                CoopElem::parse(&e.ident.name())
            }
            _ => None,
        };
        let Some(elem) = elem else {
            return Some(Err(format!(
                "the element type of `{name}` must be one of f16, f32, i8, u8, i32, u32"
            )));
        };
        let dim = |i: usize| self.int(&args[i].expression);
        match (dim(1), dim(2)) {
            (Some(c), Some(r)) if (1..=64).contains(&c) && (1..=64).contains(&r) => {
                Some(Ok(MatTy { kind, elem, cols: c as u8, rows: r as u8 }))
            }
            (Some(_), Some(_)) => {
                Some(Err(format!("the columns and rows of `{name}` must be between 1 and 64")))
            }
            _ => Some(Err(format!(
                "the columns and rows of `{name}` must be constant integer expressions"
            ))),
        }
    }

    /// Whether `t` names the workgroup matrix type (`workgroup_matrix_result<f32, 64, 64>`,
    /// directly or through aliases): `None` when it names something else, `Err` when it
    /// spells the type with arguments other than the one supported.
    pub fn tile(&self, t: &TypeExpression) -> Option<Result<(), String>> {
        let mut t = t;
        for _ in 0..16 {
            let name = t.ident.name().clone();
            if name == super::tile::TYPE {
                return Some(super::tile::check_type_args(self, t));
            }
            t = self.aliases.get(&name).filter(|_| t.template_args.is_none())?;
        }
        None
    }

    /// The type a type expression names.
    pub fn ty(&self, t: &TypeExpression) -> Ty {
        self.ty_depth(t, 0)
    }

    fn ty_depth(&self, t: &TypeExpression, depth: u32) -> Ty {
        if depth > 32 {
            return Ty::Unknown;
        }
        if let Some(m) = self.matrix(t) {
            return m.map(Ty::Mat).unwrap_or(Ty::Unknown);
        }
        if let Some(r) = self.tile(t) {
            return r.map_or(Ty::Unknown, |()| Ty::Tile);
        }
        let name = t.ident.name().clone();
        let arg_ty = |i: usize| -> Ty {
            match t.template_args.as_ref().and_then(|a| a.get(i)).map(|a| a.expression.node()) {
                Some(Expression::TypeOrIdentifier(e)) => self.ty_depth(e, depth + 1),
                _ => Ty::Unknown,
            }
        };
        let arg_ident = |i: usize| -> Option<String> {
            match t.template_args.as_ref()?.get(i)?.expression.node() {
                Expression::TypeOrIdentifier(e) => Some(e.ident.name().clone()),
                _ => None,
            }
        };
        if let Some(s) = Num::parse(&name) {
            return Ty::Num { scalar: s, n: 1 };
        }
        if let Some(n) =
            name.strip_prefix("vec").and_then(|r| r.get(..1)).and_then(|d| d.parse::<u8>().ok())
        {
            if (2..=4).contains(&n) {
                let rest = &name[4..];
                let scalar = match rest {
                    "" => match arg_ty(0) {
                        Ty::Num { scalar, n: 1 } => Some(scalar),
                        _ => None,
                    },
                    "f" => Some(Num::F32),
                    "h" => Some(Num::F16),
                    "i" => Some(Num::I32),
                    "u" => Some(Num::U32),
                    _ => None,
                };
                return scalar.map_or(Ty::Unknown, |scalar| Ty::Num { scalar, n });
            }
        }
        match name.as_str() {
            "bool" => Ty::Bool,
            "array" => {
                let len = t
                    .template_args
                    .as_ref()
                    .and_then(|a| a.get(1))
                    .and_then(|a| self.int(&a.expression))
                    .and_then(|v| u64::try_from(v).ok());
                Ty::Array(Box::new(arg_ty(0)), len)
            }
            "ptr" => {
                let space = match arg_ident(0).as_deref() {
                    Some("function") => AddressSpace::Function,
                    Some("private") => AddressSpace::Private,
                    Some("workgroup") => AddressSpace::Workgroup,
                    Some("uniform") => AddressSpace::Uniform,
                    Some("storage") => AddressSpace::Storage,
                    _ => return Ty::Unknown,
                };
                let access = match arg_ident(2).as_deref() {
                    Some("read") => AccessMode::Read,
                    Some("write") => AccessMode::Write,
                    Some("read_write") => AccessMode::ReadWrite,
                    _ => default_access(space),
                };
                Ty::Ptr(space, access, Box::new(arg_ty(1)))
            }
            _ if self.structs.contains_key(&name) => Ty::Struct(name),
            _ => match self.aliases.get(&name) {
                Some(a) => self.ty_depth(a, depth + 1),
                None => Ty::Unknown,
            },
        }
    }

    /// Whether a type holds a subgroup matrix: directly, in an array, or in a struct member.
    pub fn holds_matrix(&self, t: &Ty) -> bool {
        self.holds(t, &|t| matches!(t, Ty::Mat(_)), 0)
    }

    /// Whether a type holds a workgroup matrix, as [`Env::holds_matrix`].
    pub fn holds_tile(&self, t: &Ty) -> bool {
        self.holds(t, &|t| *t == Ty::Tile, 0)
    }

    fn holds(&self, t: &Ty, is: &dyn Fn(&Ty) -> bool, depth: u32) -> bool {
        match t {
            _ if depth > 32 => false,
            _ if is(t) => true,
            Ty::Array(e, _) => self.holds(e, is, depth + 1),
            Ty::Struct(s) => self
                .structs
                .get(s)
                .is_some_and(|ms| ms.iter().any(|(_, m)| self.holds(&self.ty(m), is, depth + 1))),
            _ => false,
        }
    }

    /// A struct member's type.
    fn member(&self, s: &str, m: &str) -> Ty {
        self.structs
            .get(s)
            .and_then(|ms| ms.iter().find(|(n, _)| n == m))
            .map_or(Ty::Unknown, |(_, t)| self.ty(t))
    }

    /// The type of an expression (see the module doc for what is understood).
    pub fn expr(&self, e: &ExpressionNode) -> Typed {
        match e.node() {
            Expression::Literal(l) => Typed::value(match l {
                LiteralExpression::AbstractInt(_) => Ty::AbstractInt,
                LiteralExpression::I32(_) => Ty::Num { scalar: Num::I32, n: 1 },
                LiteralExpression::U32(_) => Ty::Num { scalar: Num::U32, n: 1 },
                LiteralExpression::F32(_) => Ty::Num { scalar: Num::F32, n: 1 },
                LiteralExpression::F16(_) => Ty::Num { scalar: Num::F16, n: 1 },
                LiteralExpression::Bool(_) => Ty::Bool,
                _ => Ty::Unknown,
            }),
            Expression::Parenthesized(p) => self.expr(&p.expression),
            Expression::TypeOrIdentifier(t) if t.template_args.is_none() => {
                self.lookup(&t.ident.name()).cloned().unwrap_or(Typed::UNKNOWN)
            }
            Expression::NamedComponent(n) => {
                let b = deref(self.expr(&n.base));
                let name = n.component.name().clone();
                match b.ty {
                    Ty::Struct(s) => Typed { ty: self.member(&s, &name), place: b.place },
                    Ty::Num { scalar, .. } if (1..=4).contains(&name.len()) => Typed {
                        ty: Ty::Num { scalar, n: name.len() as u8 },
                        place: if name.len() == 1 { b.place } else { None },
                    },
                    _ => Typed::UNKNOWN,
                }
            }
            Expression::Indexing(ix) => {
                let b = deref(self.expr(&ix.base));
                match b.ty {
                    Ty::Array(elem, _) => Typed { ty: *elem, place: b.place },
                    Ty::Num { scalar, .. } => {
                        Typed { ty: Ty::Num { scalar, n: 1 }, place: b.place }
                    }
                    _ => Typed::UNKNOWN,
                }
            }
            Expression::Unary(u) => {
                let o = self.expr(&u.operand);
                match u.operator {
                    UnaryOperator::AddressOf => match o.place {
                        Some((space, access)) => {
                            Typed::value(Ty::Ptr(space, access, Box::new(o.ty)))
                        }
                        None => Typed::UNKNOWN,
                    },
                    UnaryOperator::Indirection => match o.ty {
                        Ty::Ptr(space, access, t) => Typed { ty: *t, place: Some((space, access)) },
                        _ => Typed::UNKNOWN,
                    },
                    UnaryOperator::Negation => Typed::value(o.ty),
                    _ => Typed::UNKNOWN,
                }
            }
            Expression::FunctionCall(c) => Typed::value(self.call(c)),
            _ => Typed::UNKNOWN,
        }
    }

    /// The result type of a call (matrix builtins by their rules; user functions by their
    /// declared return type; value constructors by their type).
    fn call(&self, c: &ast::FunctionCall) -> Ty {
        let name = c.ty.ident.name().clone();
        let arg = |i: usize| c.arguments.get(i).map_or(Ty::Unknown, |a| self.expr(a).ty);
        match name.as_str() {
            "subgroupMatrixLoad" => match c.ty.template_args.as_ref().and_then(|a| a.first()) {
                Some(a) => match a.expression.node() {
                    Expression::TypeOrIdentifier(t) => self.ty(t),
                    _ => Ty::Unknown,
                },
                None => Ty::Unknown,
            },
            "subgroupMatrixMultiply" => {
                let elem =
                    c.ty.template_args.as_ref().and_then(|a| a.first()).and_then(|a| {
                        match a.expression.node() {
                            Expression::TypeOrIdentifier(t) => CoopElem::parse(&t.ident.name()),
                            _ => None,
                        }
                    });
                match (arg(0), arg(1), elem) {
                    (Ty::Mat(l), Ty::Mat(r), Some(elem)) => {
                        Ty::Mat(MatTy { kind: Kind::Result, elem, cols: r.cols, rows: l.rows })
                    }
                    _ => Ty::Unknown,
                }
            }
            "subgroupMatrixMultiplyAccumulate" => arg(2),
            "workgroupMatrixLoad" | "workgroupMatrixMultiplyAccumulate" => Ty::Tile,
            "subgroupMatrixScalarAdd"
            | "subgroupMatrixScalarSubtract"
            | "subgroupMatrixScalarMultiply" => arg(0),
            _ => {
                if let Some(r) = self.functions.get(&name) {
                    return r.map_or(Ty::Unknown, |t| self.ty(t));
                }
                self.ty(&c.ty)
            }
        }
    }
}

/// A pointer used where its pointee is meant (WGSL's pointer composite access) as the
/// reference it points to.
fn deref(t: Typed) -> Typed {
    match t.ty {
        Ty::Ptr(space, access, inner) => Typed { ty: *inner, place: Some((space, access)) },
        ty => Typed { ty, place: t.place },
    }
}
