//! Test-only helpers: a builder for hand-written IR, a tiny interpreter for the subset of the
//! IR the pass tests use (so a pass can be checked against plain-Rust expectations before and
//! after it runs), and WGSL-to-IR plumbing for end-to-end tests.

use crate::ir::*;
use std::collections::HashMap;

/// Builds one function (and the module around it) instruction by instruction.
pub(crate) struct Builder {
    pub m: Module,
    pub f: Function,
    stack: Vec<Block>,
}

impl Builder {
    pub fn new(name: &str) -> Self {
        Builder {
            m: Module::default(),
            f: Function {
                name: name.into(),
                params: Vec::new(),
                result: None,
                values: Vec::new(),
                locals: Vec::new(),
                body: Block::default(),
                bounds: Default::default(),
                span: Span::default(),
            },
            stack: vec![Block::default()],
        }
    }
    /// Starts the next function of the same module (the current one must be finished).
    pub fn next_function(m: Module, name: &str) -> Self {
        let mut b = Builder::new(name);
        b.m = m;
        b
    }
    pub fn t(&mut self, ty: Type) -> TypeId {
        self.m.types.intern(ty)
    }
    pub fn i32(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::I32))
    }
    pub fn u32(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::U32))
    }
    pub fn f32(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::F32))
    }
    pub fn bool(&mut self) -> TypeId {
        self.t(Type::Scalar(Scalar::Bool))
    }
    pub fn vec(&mut self, size: u8, scalar: Scalar) -> TypeId {
        self.t(Type::Vector { size, scalar })
    }
    pub fn ptr(&mut self, base: TypeId) -> TypeId {
        self.t(Type::Pointer { base, space: AddressSpace::Function })
    }
    pub fn val(&mut self, ty: TypeId) -> ValueId {
        self.f.new_value(ty, None)
    }
    pub fn param(&mut self, ty: TypeId) -> ValueId {
        let v = self.val(ty);
        self.f.params.push(Param { name: format!("p{}", v.0), value: v, binding: None });
        v
    }
    pub fn result(&mut self, ty: TypeId) {
        self.f.result = Some(FnResult { ty, binding: None });
    }
    pub fn local(&mut self, name: &str, ty: TypeId) -> LocalId {
        self.f.locals.push(Local { name: name.into(), ty, span: Span::default() });
        LocalId(self.f.locals.len() as u32 - 1)
    }
    /// A local and its address.
    pub fn var(&mut self, name: &str, ty: TypeId) -> ValueId {
        let l = self.local(name, ty);
        let p = self.ptr(ty);
        self.op(Op::LocalAddr(l), p)
    }
    pub fn push(&mut self, inst: Inst) {
        if let Some(b) = self.stack.last_mut() {
            b.insts.push(inst);
        }
    }
    pub fn op(&mut self, op: Op, ty: TypeId) -> ValueId {
        let v = self.val(ty);
        self.push(Inst { result: Some(v), op, span: Span { start: 1, end: 2 } });
        v
    }
    pub fn stmt(&mut self, op: Op) {
        self.push(Inst { result: None, op, span: Span { start: 1, end: 2 } });
    }
    pub fn ci(&mut self, x: i32) -> ValueId {
        let t = self.i32();
        self.op(Op::Const(ConstValue::I32(x)), t)
    }
    pub fn cu(&mut self, x: u32) -> ValueId {
        let t = self.u32();
        self.op(Op::Const(ConstValue::U32(x)), t)
    }
    pub fn cb(&mut self, x: bool) -> ValueId {
        let t = self.bool();
        self.op(Op::Const(ConstValue::Bool(x)), t)
    }
    pub fn cf(&mut self, x: f32) -> ValueId {
        let t = self.f32();
        self.op(Op::Const(ConstValue::f32(x)), t)
    }
    pub fn bin(&mut self, o: BinaryOperator, a: ValueId, b: ValueId) -> ValueId {
        use BinaryOperator as B;
        let ta = self.f.ty(a);
        let t = match o {
            B::Equal | B::NotEqual | B::Less | B::LessEqual | B::Greater | B::GreaterEqual => {
                match *self.m.types.get(ta) {
                    Type::Vector { size, .. } => self.vec(size, Scalar::Bool),
                    _ => self.bool(),
                }
            }
            _ => ta,
        };
        self.op(Op::Binary(o, a, b), t)
    }
    pub fn load(&mut self, p: ValueId) -> ValueId {
        let t = match *self.m.types.get(self.f.ty(p)) {
            Type::Pointer { base, .. } => base,
            _ => self.f.ty(p),
        };
        self.op(Op::Load(p), t)
    }
    pub fn store(&mut self, ptr: ValueId, value: ValueId) {
        self.stmt(Op::Store { ptr, value });
    }
    /// `AccessIndex`/`Access` on a function pointer; `elem` is the element type.
    pub fn access_index(&mut self, p: ValueId, i: u32, elem: TypeId) -> ValueId {
        let t = self.ptr(elem);
        self.op(Op::AccessIndex(p, i), t)
    }
    pub fn access(&mut self, p: ValueId, i: ValueId, elem: TypeId) -> ValueId {
        let t = self.ptr(elem);
        self.op(Op::Access(p, i), t)
    }
    pub fn open(&mut self) {
        self.stack.push(Block::default());
    }
    pub fn open_with(&mut self, params: Vec<ValueId>) {
        self.stack.push(Block { params, ..Block::default() });
    }
    pub fn close(&mut self, term: Terminator) -> Block {
        let mut b = self.stack.pop().unwrap_or_default();
        b.term = term;
        b
    }
    /// Finishes the function body with `term`; returns the module and the function's id.
    pub fn finish(mut self, term: Terminator) -> (Module, FuncId) {
        let body = self.close(term);
        self.f.body = body;
        let id = FuncId(self.m.functions.len() as u32);
        self.m.functions.push(self.f);
        (self.m, id)
    }
    /// Finishes with `term` and adds a compute entry point for the function.
    pub fn finish_entry(self, term: Terminator) -> Module {
        let name = self.f.name.clone();
        let (mut m, id) = self.finish(term);
        m.entry_points.push(EntryPoint {
            name,
            stage: Stage::Compute,
            workgroup_size: [1, 1, 1],
            early_depth_test: false,
            function: id,
        });
        m
    }
}

/// A value of the test interpreter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    B(bool),
    I(i32),
    U(u32),
    F(f32),
    C(Vec<Val>),
    /// A pointer into the local memory: (slot, path).
    Ptr(usize, Vec<usize>),
}

enum Flow {
    Normal,
    Yield(Vec<Val>),
    Break(Vec<Val>),
    Continue(Vec<Val>),
    Return(Option<Val>),
}

/// Runs function `f` of `m` with `args`; supports the integer/bool subset the tests use.
pub(crate) fn run(m: &Module, f: FuncId, args: Vec<Val>) -> Result<Option<Val>, String> {
    let mut it = Interp { m, mem: Vec::new(), steps: 0 };
    it.call(f, args)
}

struct Interp<'a> {
    m: &'a Module,
    mem: Vec<Val>,
    steps: u64,
}

struct Frame<'a> {
    f: &'a Function,
    vals: HashMap<ValueId, Val>,
    local_base: usize,
}

fn zero(types: &Types, t: TypeId) -> Val {
    match types.get(t) {
        Type::Scalar(Scalar::Bool) => Val::B(false),
        Type::Scalar(Scalar::I32) => Val::I(0),
        Type::Scalar(Scalar::U32) => Val::U(0),
        Type::Scalar(_) => Val::F(0.0),
        Type::Vector { size, scalar } => {
            let s = types.find(&Type::Scalar(*scalar));
            Val::C((0..*size).map(|_| s.map_or(Val::I(0), |s| zero(types, s))).collect())
        }
        Type::Matrix { columns, rows, scalar } => {
            let col = Val::C(
                (0..*rows)
                    .map(|_| if scalar.is_float() { Val::F(0.0) } else { Val::I(0) })
                    .collect(),
            );
            Val::C((0..*columns).map(|_| col.clone()).collect())
        }
        Type::Array { base, len, .. } => {
            Val::C((0..len.unwrap_or(0)).map(|_| zero(types, *base)).collect())
        }
        Type::Struct { members, .. } => Val::C(members.iter().map(|m| zero(types, m.ty)).collect()),
        _ => Val::I(0),
    }
}

fn konst(types: &Types, c: &ConstValue) -> Val {
    match c {
        ConstValue::Bool(b) => Val::B(*b),
        ConstValue::I32(x) => Val::I(*x),
        ConstValue::U32(x) => Val::U(*x),
        ConstValue::F32(b) => Val::F(f32::from_bits(*b)),
        ConstValue::F16(b) => Val::F(half::f16::from_bits(*b).to_f32()),
        // The pass tests build 32-bit programs only; 64-bit folding has its own tests
        // (`passes/fold64.rs`).
        ConstValue::I64(_) | ConstValue::U64(_) | ConstValue::F64(_) => {
            panic!("the pass-test evaluator holds 32-bit values only")
        }
        ConstValue::Composite(_, p) => Val::C(p.iter().map(|c| konst(types, c)).collect()),
        ConstValue::Zero(t) => zero(types, *t),
    }
}

fn idx(v: &Val) -> Result<usize, String> {
    match v {
        Val::I(x) => Ok(*x as usize),
        Val::U(x) => Ok(*x as usize),
        _ => Err(format!("bad index {v:?}")),
    }
}

fn get_path<'v>(mut v: &'v mut Val, path: &[usize]) -> Result<&'v mut Val, String> {
    for &i in path {
        match v {
            Val::C(parts) => v = parts.get_mut(i).ok_or("index out of range")?,
            _ => return Err("path into a scalar".into()),
        }
    }
    Ok(v)
}

fn binary(o: BinaryOperator, a: &Val, b: &Val) -> Result<Val, String> {
    use BinaryOperator as B;
    use Val::*;
    if let (C(x), C(y)) = (a, b) {
        return Ok(C(x.iter().zip(y).map(|(x, y)| binary(o, x, y)).collect::<Result<_, _>>()?));
    }
    Ok(match (o, a, b) {
        (B::Add, I(x), I(y)) => I(x.wrapping_add(*y)),
        (B::Subtract, I(x), I(y)) => I(x.wrapping_sub(*y)),
        (B::Multiply, I(x), I(y)) => I(x.wrapping_mul(*y)),
        (B::Add, U(x), U(y)) => U(x.wrapping_add(*y)),
        (B::Subtract, U(x), U(y)) => U(x.wrapping_sub(*y)),
        (B::Multiply, U(x), U(y)) => U(x.wrapping_mul(*y)),
        (B::Add, F(x), F(y)) => F(x + y),
        (B::Multiply, F(x), F(y)) => F(x * y),
        (B::Less, I(x), I(y)) => B(x < y),
        (B::Less, U(x), U(y)) => B(x < y),
        (B::Greater, I(x), I(y)) => B(x > y),
        (B::GreaterEqual, I(x), I(y)) => B(x >= y),
        (B::GreaterEqual, U(x), U(y)) => B(x >= y),
        (B::Equal, I(x), I(y)) => B(x == y),
        (B::Equal, U(x), U(y)) => B(x == y),
        (B::NotEqual, I(x), I(y)) => B(x != y),
        (B::Divide, I(x), I(y)) => I(if *y == 0 { *x } else { x.wrapping_div(*y) }),
        (B::Divide, U(x), U(y)) => U(if *y == 0 { *x } else { x / y }),
        (B::And, I(x), I(y)) => I(x & y),
        (B::InclusiveOr, I(x), I(y)) => I(x | y),
        (B::ExclusiveOr, I(x), I(y)) => I(x ^ y),
        (B::ShiftLeft, I(x), U(y)) => I(x.wrapping_shl(*y)),
        (B::ShiftRight, I(x), U(y)) => I(x.wrapping_shr(*y)),
        (B::ShiftLeft, U(x), U(y)) => U(x.wrapping_shl(*y)),
        (B::ShiftRight, U(x), U(y)) => U(x.wrapping_shr(*y)),
        (B::Subtract, F(x), F(y)) => F(x - y),
        (B::Less, F(x), F(y)) => B(x < y),
        (B::LessEqual, I(x), I(y)) => B(x <= y),
        (B::LessEqual, U(x), U(y)) => B(x <= y),
        (B::Greater, U(x), U(y)) => B(x > y),
        (B::NotEqual, U(x), U(y)) => B(x != y),
        (B::Equal, B(x), B(y)) => B(x == y),
        (B::Modulo, I(x), I(y)) => I(if *y == 0 { 0 } else { x.wrapping_rem(*y) }),
        (B::Modulo, U(x), U(y)) => U(if *y == 0 { 0 } else { x % y }),
        (B::And, U(x), U(y)) => U(x & y),
        (B::LogicalAnd, B(x), B(y)) => B(*x && *y),
        (B::LogicalOr, B(x), B(y)) => B(*x || *y),
        _ => return Err(format!("unsupported binary {o:?} {a:?} {b:?}")),
    })
}

impl<'a> Interp<'a> {
    fn call(&mut self, fid: FuncId, args: Vec<Val>) -> Result<Option<Val>, String> {
        let f = self.m.functions.get(fid.index()).ok_or("no such function")?;
        let base = self.mem.len();
        for l in &f.locals {
            self.mem.push(zero(&self.m.types, l.ty));
        }
        let mut fr = Frame { f, vals: HashMap::new(), local_base: base };
        for (p, a) in f.params.iter().zip(args) {
            fr.vals.insert(p.value, a);
        }
        match self.block(&mut fr, &f.body)? {
            Flow::Return(v) => Ok(v),
            _ => Err("function body did not return".into()),
        }
    }

    fn get(&self, fr: &Frame, v: ValueId) -> Result<Val, String> {
        fr.vals.get(&v).cloned().ok_or(format!("value {v} not available"))
    }

    fn bind(fr: &mut Frame, vs: &[ValueId], xs: Vec<Val>) -> Result<(), String> {
        if vs.len() != xs.len() {
            return Err(format!("arity mismatch {} vs {}", vs.len(), xs.len()));
        }
        for (v, x) in vs.iter().zip(xs) {
            fr.vals.insert(*v, x);
        }
        Ok(())
    }

    fn args(&self, fr: &Frame, vs: &[ValueId]) -> Result<Vec<Val>, String> {
        vs.iter().map(|v| self.get(fr, *v)).collect()
    }

    fn block(&mut self, fr: &mut Frame<'a>, b: &'a Block) -> Result<Flow, String> {
        for inst in &b.insts {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return Err("step limit".into());
            }
            match self.inst(fr, inst)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        let t = &b.term;
        Ok(match t {
            Terminator::Yield(v) => Flow::Yield(self.args(fr, v)?),
            Terminator::Break(v) => Flow::Break(self.args(fr, v)?),
            Terminator::Continue(v) => Flow::Continue(self.args(fr, v)?),
            Terminator::Return(v) => Flow::Return(match v {
                Some(v) => Some(self.get(fr, *v)?),
                None => None,
            }),
            Terminator::Unreachable | Terminator::Discard => return Err("unreachable".into()),
        })
    }

    fn inst(&mut self, fr: &mut Frame<'a>, inst: &'a Inst) -> Result<Flow, String> {
        let g = |v: &ValueId| self.get(fr, *v);
        let val = match &inst.op {
            Op::Const(c) => konst(&self.m.types, c),
            Op::Unary(UnaryOperator::Negate, a) => match g(a)? {
                Val::I(x) => Val::I(x.wrapping_neg()),
                v => return Err(format!("negate {v:?}")),
            },
            Op::Unary(UnaryOperator::LogicalNot, a) => match g(a)? {
                Val::B(x) => Val::B(!x),
                v => return Err(format!("not {v:?}")),
            },
            Op::Binary(o, a, b) => binary(*o, &g(a)?, &g(b)?)?,
            Op::Bitcast(a) => {
                let to = inst.result.map(|r| self.m.types.get(fr.f.ty(r)).clone());
                match (g(a)?, to) {
                    (Val::I(x), Some(Type::Scalar(Scalar::U32))) => Val::U(x as u32),
                    (Val::U(x), Some(Type::Scalar(Scalar::I32))) => Val::I(x as i32),
                    (Val::F(x), Some(Type::Scalar(Scalar::U32))) => Val::U(x.to_bits()),
                    (Val::U(x), Some(Type::Scalar(Scalar::F32))) => Val::F(f32::from_bits(x)),
                    (v, _) => return Err(format!("bitcast {v:?}")),
                }
            }
            Op::Convert(a, to) => {
                fn conv(v: Val, to: Scalar) -> Result<Val, String> {
                    Ok(match (v, to) {
                        (Val::C(p), _) => {
                            Val::C(p.into_iter().map(|x| conv(x, to)).collect::<Result<_, _>>()?)
                        }
                        (Val::I(x), Scalar::U32) => Val::U(x as u32),
                        (Val::I(x), Scalar::I32) => Val::I(x),
                        (Val::U(x), Scalar::I32) => Val::I(x as i32),
                        (Val::U(x), Scalar::U32) => Val::U(x),
                        (Val::I(x), Scalar::F32) => Val::F(x as f32),
                        (Val::U(x), Scalar::F32) => Val::F(x as f32),
                        (Val::F(x), Scalar::I32) => Val::I(x as i32),
                        (Val::F(x), Scalar::U32) => Val::U(x as u32),
                        (Val::B(b), Scalar::I32) => Val::I(b as i32),
                        (Val::B(b), Scalar::U32) => Val::U(b as u32),
                        (v, _) => return Err(format!("convert {v:?}")),
                    })
                }
                conv(g(a)?, *to)?
            }
            Op::Math(MathFunction::Abs, args) if args.len() == 1 => match g(&args[0])? {
                Val::I(x) => Val::I(x.wrapping_abs()),
                v => return Err(format!("abs {v:?}")),
            },
            Op::Math(fun @ (MathFunction::Min | MathFunction::Max), args) if args.len() == 2 => {
                match (g(&args[0])?, g(&args[1])?) {
                    (Val::I(x), Val::I(y)) => {
                        Val::I(if *fun == MathFunction::Min { x.min(y) } else { x.max(y) })
                    }
                    (v, w) => return Err(format!("min/max {v:?} {w:?}")),
                }
            }
            Op::Select { cond, accept, reject } => match g(cond)? {
                Val::B(true) => g(accept)?,
                Val::B(false) => g(reject)?,
                v => return Err(format!("select on {v:?}")),
            },
            Op::Compose(p) => {
                let mut parts = Vec::new();
                let is_vec = matches!(
                    inst.result.map(|r| self.m.types.get(fr.f.ty(r))),
                    Some(Type::Vector { .. })
                );
                for x in p {
                    match g(x)? {
                        Val::C(inner) if is_vec => parts.extend(inner),
                        v => parts.push(v),
                    }
                }
                Val::C(parts)
            }
            Op::Splat(a) => {
                let n = match inst.result.map(|r| self.m.types.get(fr.f.ty(r))) {
                    Some(Type::Vector { size, .. }) => *size,
                    _ => return Err("splat to non-vector".into()),
                };
                Val::C(vec![g(a)?; n as usize])
            }
            Op::Extract(a, i) => get_path(&mut g(a)?, &[*i as usize])?.clone(),
            Op::ExtractDyn(a, i) => get_path(&mut g(a)?, &[idx(&g(i)?)?])?.clone(),
            Op::Insert { base, index, value } => {
                let mut b = g(base)?;
                *get_path(&mut b, &[*index as usize])? = g(value)?;
                b
            }
            Op::InsertDyn { base, index, value } => {
                let mut b = g(base)?;
                *get_path(&mut b, &[idx(&g(index)?)?])? = g(value)?;
                b
            }
            Op::Swizzle(a, pat) => {
                let a = g(a)?;
                let Val::C(p) = a else { return Err("swizzle".into()) };
                Val::C(pat.iter().map(|&i| p[i as usize].clone()).collect())
            }
            Op::LocalAddr(l) => Val::Ptr(fr.local_base + l.index(), Vec::new()),
            Op::AccessIndex(p, i) => match g(p)? {
                Val::Ptr(s, mut path) => {
                    path.push(*i as usize);
                    Val::Ptr(s, path)
                }
                v => return Err(format!("access on {v:?}")),
            },
            Op::Access(p, i) => match g(p)? {
                Val::Ptr(s, mut path) => {
                    path.push(idx(&g(i)?)?);
                    Val::Ptr(s, path)
                }
                v => return Err(format!("access on {v:?}")),
            },
            Op::Load(p) => match g(p)? {
                Val::Ptr(s, path) => {
                    let root = self.mem.get_mut(s).ok_or("bad slot")?;
                    get_path(root, &path)?.clone()
                }
                v => return Err(format!("load of {v:?}")),
            },
            Op::Store { ptr, value } => {
                let v = g(value)?;
                match g(ptr)? {
                    Val::Ptr(s, path) => {
                        let root = self.mem.get_mut(s).ok_or("bad slot")?;
                        *get_path(root, &path)? = v;
                    }
                    v => return Err(format!("store to {v:?}")),
                }
                return Ok(Flow::Normal);
            }
            Op::Call(callee, args) => {
                let a = self.args(fr, args)?;
                let r = self.call(*callee, a)?;
                match (inst.result, r) {
                    (Some(res), Some(v)) => {
                        fr.vals.insert(res, v);
                    }
                    (None, _) => {}
                    _ => return Err("call result missing".into()),
                }
                return Ok(Flow::Normal);
            }
            Op::If { cond, then_, else_, results } => {
                let arm = match g(cond)? {
                    Val::B(true) => then_,
                    Val::B(false) => else_,
                    v => return Err(format!("if on {v:?}")),
                };
                return match self.block(fr, arm)? {
                    Flow::Yield(v) => {
                        Self::bind(fr, results, v)?;
                        Ok(Flow::Normal)
                    }
                    other => Ok(other),
                };
            }
            Op::Switch { selector, cases, results } => {
                let s = match g(selector)? {
                    Val::I(x) => x as i64,
                    Val::U(x) => x as i64,
                    v => return Err(format!("switch on {v:?}")),
                };
                let case = cases
                    .iter()
                    .find(|c| c.values.contains(&s))
                    .or_else(|| cases.iter().find(|c| c.default))
                    .ok_or("no default")?;
                return match self.block(fr, &case.body)? {
                    Flow::Yield(v) | Flow::Break(v) => {
                        Self::bind(fr, results, v)?;
                        Ok(Flow::Normal)
                    }
                    other => Ok(other),
                };
            }
            Op::Loop { init, body, continuing, break_if, results } => {
                let mut state = self.args(fr, init)?;
                loop {
                    self.steps += 1;
                    if self.steps > 1_000_000 {
                        return Err("step limit".into());
                    }
                    Self::bind(fr, &body.params, state)?;
                    let to_cont = match self.block(fr, body)? {
                        Flow::Yield(v) | Flow::Continue(v) => v,
                        Flow::Break(v) => {
                            Self::bind(fr, results, v)?;
                            return Ok(Flow::Normal);
                        }
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal => return Err("body fell off".into()),
                    };
                    Self::bind(fr, &continuing.params, to_cont)?;
                    let next = match self.block(fr, continuing)? {
                        Flow::Yield(v) => v,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => return Err("bad continuing exit".into()),
                    };
                    if let Some(b) = break_if {
                        if self.get(fr, *b)? == Val::B(true) {
                            Self::bind(fr, results, next)?;
                            return Ok(Flow::Normal);
                        }
                    }
                    state = next;
                }
            }
            Op::Inline { body, args, results, .. } => {
                let a = self.args(fr, args)?;
                Self::bind(fr, &body.params, a)?;
                let out = match self.block(fr, body)? {
                    Flow::Yield(v) => v,
                    Flow::Return(v) => v.into_iter().collect(),
                    _ => return Err("bad inline exit".into()),
                };
                Self::bind(fr, results, out)?;
                return Ok(Flow::Normal);
            }
            other => return Err(format!("unsupported op {other:?}")),
        };
        if let Some(r) = inst.result {
            fr.vals.insert(r, val);
        }
        Ok(Flow::Normal)
    }
}

/// Parses and validates WGSL with naga and fills a [`crate::Parsed`].
pub(crate) fn parsed(src: &str) -> crate::Parsed {
    use naga::valid::{ValidationFlags, Validator};
    let module =
        naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    let info = Validator::new(ValidationFlags::all(), crate::parse::CAPABILITIES)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    crate::Parsed {
        module,
        info,
        enables: Enables::default(),
        file_name: "test.wgsl".into(),
        source: src.into(),
        sgm: None,
    }
}

/// Counts instructions (recursively) matching `pred`.
pub(crate) fn count_insts(b: &Block, pred: &impl Fn(&Op) -> bool) -> usize {
    let mut n = 0;
    for inst in &b.insts {
        if pred(&inst.op) {
            n += 1;
        }
        for nb in inst.op.blocks() {
            n += count_insts(nb, pred);
        }
    }
    n
}
