//! Constant folding and exact algebraic simplification.
//!
//! Folding follows WGSL's semantics bit for bit: integer arithmetic wraps, `e1 / 0` is `e1`,
//! `e1 % 0` is `0`, `i32::MIN / -1` is `i32::MIN` (and `% -1` is `0`), shift amounts are
//! masked to the bit width; `f32` `+ - * /` are IEEE operations (Rust's), `f16` ones go through
//! `f32` (exact: 24 bits hold an f16 result before its single rounding). What could differ
//! between targets is left alone: results that are NaN (payloads differ), float `%`, float
//! `min`/`max`/`clamp` on NaN or signed zeros, int-to-float conversions that round, and all
//! transcendental functions (the PTX backend folds those itself, with the device's arithmetic).
//! The packing builtins fold by WGSL's formulas ([`crate::packing`], which the interpreter
//! uses too), except with a NaN lane in or out.
//!
//! Identities are applied only where they are exact for every input: `x + 0`, `x * 1`,
//! `x * 0`, `x - x` for integers; `x * 1.0`, `x / 1.0`, `x - 0.0`, `x + (-0.0)` for floats
//! (never `x + 0.0`: `-0.0 + 0.0` is `+0.0`); `x && true`, `!!x`, `select(a, a, c)`, extracts
//! of `Compose`/`Insert`. An `if` on a constant condition whose taken arm ends in `Yield` is
//! replaced by that arm; so is a `switch` on a constant selector whose chosen arm ends in
//! `Yield` or `Break` and has no other way out.

use super::util::Subst;
use crate::ir::*;
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// Folds constants in every function.
pub fn fold(m: &mut Module) {
    let Module { types, functions, .. } = m;
    for f in functions.iter_mut() {
        let mut body = std::mem::take(&mut f.body);
        let mut fo = Folder {
            types,
            f,
            subst: Subst::default(),
            consts: HashMap::default(),
            defs: HashMap::default(),
        };
        fo.block(&mut body);
        f.body = body;
    }
}

/// What an instruction folds to.
enum Folded {
    Const(ConstValue),
    Value(ValueId),
    Op(Op),
}

struct Folder<'a> {
    types: &'a mut Types,
    f: &'a mut Function,
    subst: Subst,
    /// Values defined by `Const`.
    consts: HashMap<ValueId, ConstValue>,
    /// Pure definitions that simplifications look through (`Compose`, `Insert`, `Unary`).
    defs: HashMap<ValueId, Op>,
}

fn zero_scalar(s: Scalar) -> ConstValue {
    match s {
        Scalar::Bool => ConstValue::Bool(false),
        Scalar::I32 => ConstValue::I32(0),
        Scalar::U32 => ConstValue::U32(0),
        Scalar::F32 => ConstValue::F32(0),
        Scalar::F16 => ConstValue::F16(0),
        Scalar::I64 => ConstValue::I64(0),
        Scalar::U64 => ConstValue::U64(0),
        Scalar::F64 => ConstValue::F64(0),
    }
}

impl Folder<'_> {
    fn ty(&self, v: ValueId) -> Option<TypeId> {
        self.f.values.get(v.index()).map(|d| d.ty)
    }

    /// Scalar components of a scalar or vector constant.
    fn comps(&self, c: &ConstValue) -> Option<Vec<ConstValue>> {
        match c {
            ConstValue::Composite(t, parts) => match self.types.get(*t) {
                Type::Vector { .. } => {
                    let mut out = Vec::new();
                    for p in parts {
                        let mut inner = self.comps(p)?;
                        if inner.len() != 1 {
                            return None;
                        }
                        out.append(&mut inner);
                    }
                    Some(out)
                }
                _ => None,
            },
            ConstValue::Zero(t) => match *self.types.get(*t) {
                Type::Scalar(s) => Some(vec![zero_scalar(s)]),
                Type::Vector { size, scalar } => Some(vec![zero_scalar(scalar); size as usize]),
                _ => None,
            },
            scalar => Some(vec![scalar.clone()]),
        }
    }

    /// Members of any composite constant (vector components, columns, elements, fields).
    fn members(&mut self, c: &ConstValue) -> Option<Vec<ConstValue>> {
        match c {
            ConstValue::Composite(_, parts) => Some(parts.clone()),
            ConstValue::Zero(t) => {
                let t = *t;
                let n = match self.types.get(t).clone() {
                    Type::Vector { size, .. } => size as usize,
                    Type::Matrix { columns, .. } => columns as usize,
                    Type::Array { len: Some(n), .. } => n as usize,
                    Type::Struct { members, .. } => members.len(),
                    _ => return None,
                };
                (0..n)
                    .map(|i| {
                        let e = super::util::element_type(self.types, t, Some(i as u32))?;
                        Some(match *self.types.get(e) {
                            Type::Scalar(s) => zero_scalar(s),
                            _ => ConstValue::Zero(e),
                        })
                    })
                    .collect()
            }
            _ => None,
        }
    }

    /// Builds a constant of type `ty` from scalar components.
    fn build_comps(&self, ty: TypeId, comps: Vec<ConstValue>) -> Option<ConstValue> {
        match *self.types.get(ty) {
            Type::Scalar(_) if comps.len() == 1 => comps.into_iter().next(),
            Type::Vector { size, .. } if comps.len() == size as usize => {
                Some(ConstValue::Composite(ty, comps))
            }
            _ => None,
        }
    }

    fn konst(&self, v: ValueId) -> Option<&ConstValue> {
        self.consts.get(&v)
    }

    /// The scalar every component of constant `v` equals, if they are all the same.
    fn uniform(&self, v: ValueId) -> Option<ConstValue> {
        let comps = self.comps(self.konst(v)?)?;
        let first = comps.first()?.clone();
        comps.iter().all(|c| *c == first).then_some(first)
    }

    fn zero_of(&self, ty: TypeId) -> ConstValue {
        match *self.types.get(ty) {
            Type::Scalar(s) => zero_scalar(s),
            _ => ConstValue::Zero(ty),
        }
    }

    fn block(&mut self, b: &mut Block) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            self.subst.apply_op(&mut inst.op);
            match &mut inst.op {
                Op::If { cond, then_, else_, results } => {
                    let taken = match self.konst(*cond) {
                        Some(ConstValue::Bool(c)) => Some(*c),
                        _ => None,
                    };
                    match taken {
                        Some(c) => {
                            let arm = if c { &mut *then_ } else { &mut *else_ };
                            let fits = matches!(&arm.term, Terminator::Yield(a) if a.len() == results.len());
                            {
                                if fits {
                                    let mut arm = std::mem::take(arm);
                                    self.block(&mut arm);
                                    if let Terminator::Yield(args) = &arm.term {
                                        for (&r, &a) in results.iter().zip(args) {
                                            self.subst.set(r, a);
                                        }
                                    }
                                    out.append(&mut arm.insts);
                                    continue;
                                }
                            }
                            self.block(then_);
                            self.block(else_);
                        }
                        None => {
                            self.block(then_);
                            self.block(else_);
                        }
                    }
                }
                Op::Switch { selector, cases, results } => {
                    let sel = match self.konst(*selector) {
                        Some(ConstValue::I32(x)) => Some(*x as i64),
                        Some(ConstValue::U32(x)) => Some(*x as i64),
                        _ => None,
                    };
                    let chosen = sel.and_then(|v| {
                        cases
                            .iter()
                            .position(|c| c.values.contains(&v))
                            .or_else(|| cases.iter().position(|c| c.default))
                    });
                    if let Some(k) = chosen {
                        let body = &cases[k].body;
                        let exits = matches!(&body.term,
                            Terminator::Yield(a) | Terminator::Break(a) if a.len() == results.len());
                        if exits && !breaks_out(body) {
                            let mut arm = std::mem::take(&mut cases[k].body);
                            self.block(&mut arm);
                            if let Terminator::Yield(args) | Terminator::Break(args) = &arm.term {
                                for (&r, &a) in results.iter().zip(args) {
                                    self.subst.set(r, a);
                                }
                            }
                            out.append(&mut arm.insts);
                            continue;
                        }
                    }
                    for c in cases.iter_mut() {
                        self.block(&mut c.body);
                    }
                }
                Op::Loop { body, continuing, break_if, .. } => {
                    self.block(body);
                    self.block(continuing);
                    if let Some(b) = break_if {
                        *b = self.subst.get(*b);
                    }
                }
                op if op.blocks().is_empty() => {
                    if let Some(r) = inst.result {
                        match op {
                            Op::Const(c) => {
                                self.consts.insert(r, c.clone());
                            }
                            _ if !op.has_side_effects() && !op.reads_memory() => {
                                // A rewritten op may simplify further (extract through
                                // a chain of inserts); the bound keeps this linear.
                                let mut gone = false;
                                for _ in 0..8 {
                                    match self.try_fold(op, r) {
                                        Some(Folded::Const(c)) => {
                                            self.consts.insert(r, c.clone());
                                            *op = Op::Const(c);
                                        }
                                        Some(Folded::Value(v)) => {
                                            self.subst.set(r, v);
                                            gone = true;
                                        }
                                        Some(Folded::Op(new)) => {
                                            *op = new;
                                            continue;
                                        }
                                        None => {}
                                    }
                                    break;
                                }
                                if gone {
                                    continue;
                                }
                                if matches!(op, Op::Compose(_) | Op::Insert { .. } | Op::Unary(..))
                                {
                                    self.defs.insert(r, op.clone());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                op => {
                    for nb in op.blocks_mut() {
                        self.block(nb);
                    }
                }
            }
            out.push(inst);
        }
        b.insts = out;
        self.subst.apply_term(&mut b.term);
    }

    fn try_fold(&mut self, op: &Op, r: ValueId) -> Option<Folded> {
        let rty = self.ty(r)?;
        match op {
            Op::Unary(o, a) => {
                if let Some(Op::Unary(o2, inner)) = self.defs.get(a) {
                    if o2 == o {
                        return Some(Folded::Value(*inner));
                    }
                }
                let comps = self.comps(self.konst(*a)?)?;
                let out = comps.iter().map(|c| unary(*o, c)).collect::<Option<Vec<_>>>()?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Binary(o, a, b) => self.binary(*o, *a, *b, rty),
            Op::Select { cond, accept, reject } => {
                if accept == reject {
                    return Some(Folded::Value(*accept));
                }
                match self.konst(*cond)? {
                    ConstValue::Bool(true) => Some(Folded::Value(*accept)),
                    ConstValue::Bool(false) => Some(Folded::Value(*reject)),
                    c => {
                        let cs = self.comps(c)?;
                        let xs = self.comps(self.konst(*accept)?)?;
                        let ys = self.comps(self.konst(*reject)?)?;
                        if cs.len() != xs.len() || xs.len() != ys.len() {
                            return None;
                        }
                        let out = cs
                            .iter()
                            .zip(xs.into_iter().zip(ys))
                            .map(|(c, (x, y))| match c {
                                ConstValue::Bool(true) => Some(x),
                                ConstValue::Bool(false) => Some(y),
                                _ => None,
                            })
                            .collect::<Option<Vec<_>>>()?;
                        self.build_comps(rty, out).map(Folded::Const)
                    }
                }
            }
            Op::Compose(parts) => {
                let mut cs = Vec::new();
                for p in parts {
                    cs.push(self.konst(*p)?.clone());
                }
                if let Type::Vector { .. } = self.types.get(rty) {
                    let mut flat = Vec::new();
                    for c in &cs {
                        flat.extend(self.comps(c)?);
                    }
                    return self.build_comps(rty, flat).map(Folded::Const);
                }
                Some(Folded::Const(ConstValue::Composite(rty, cs)))
            }
            Op::Splat(a) => {
                let c = self.konst(*a)?.clone();
                let Type::Vector { size, .. } = *self.types.get(rty) else { return None };
                Some(Folded::Const(ConstValue::Composite(rty, vec![c; size as usize])))
            }
            Op::Extract(a, i) => {
                if let Some(c) = self.konst(*a).cloned() {
                    let m = self.members(&c)?;
                    return m.get(*i as usize).cloned().map(Folded::Const);
                }
                match self.defs.get(a)? {
                    Op::Compose(parts) => {
                        let vector = matches!(
                            self.ty(*a).map(|t| self.types.get(t)),
                            Some(Type::Vector { .. })
                        );
                        let all_scalar = parts.iter().all(|p| {
                            matches!(self.ty(*p).map(|t| self.types.get(t)), Some(Type::Scalar(_)))
                        });
                        if vector && !all_scalar {
                            return None;
                        }
                        parts.get(*i as usize).copied().map(Folded::Value)
                    }
                    Op::Insert { base, index, value } => {
                        if index == i {
                            Some(Folded::Value(*value))
                        } else {
                            Some(Folded::Op(Op::Extract(*base, *i)))
                        }
                    }
                    _ => None,
                }
            }
            Op::Swizzle(a, pat) => {
                let comps = self.comps(self.konst(*a)?)?;
                let out = pat
                    .iter()
                    .map(|&k| comps.get(k as usize).cloned())
                    .collect::<Option<Vec<_>>>()?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Convert(a, to) => {
                let comps = self.comps(self.konst(*a)?)?;
                let out = comps.iter().map(|c| convert(c, *to)).collect::<Option<Vec<_>>>()?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Bitcast(a) => {
                let comps = self.comps(self.konst(*a)?)?;
                let mut bytes = Vec::new();
                for c in &comps {
                    match c {
                        ConstValue::I32(x) => bytes.extend(x.to_le_bytes()),
                        ConstValue::U32(x) | ConstValue::F32(x) => bytes.extend(x.to_le_bytes()),
                        ConstValue::F16(x) => bytes.extend(x.to_le_bytes()),
                        ConstValue::I64(x) => bytes.extend(x.to_le_bytes()),
                        ConstValue::U64(x) | ConstValue::F64(x) => bytes.extend(x.to_le_bytes()),
                        _ => return None,
                    }
                }
                let (n, s) = match *self.types.get(rty) {
                    Type::Scalar(s) => (1, s),
                    Type::Vector { size, scalar } => (size as usize, scalar),
                    _ => return None,
                };
                let w = s.size() as usize;
                if bytes.len() != n * w {
                    return None;
                }
                let out = bytes
                    .chunks(w)
                    .map(|ch| {
                        let mut b8 = [0u8; 8];
                        b8[..w].copy_from_slice(ch);
                        let x = u64::from_le_bytes(b8);
                        match s {
                            Scalar::I32 => Some(ConstValue::I32(x as i32)),
                            Scalar::U32 => Some(ConstValue::U32(x as u32)),
                            Scalar::F32 => Some(ConstValue::F32(x as u32)),
                            Scalar::F16 => Some(ConstValue::F16(x as u16)),
                            Scalar::I64 => Some(ConstValue::I64(x as i64)),
                            Scalar::U64 => Some(ConstValue::U64(x)),
                            Scalar::F64 => Some(ConstValue::F64(x)),
                            Scalar::Bool => None,
                        }
                    })
                    .collect::<Option<Vec<_>>>()?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Math(fun, args) if is_packing(*fun) => {
                let [a] = args.as_slice() else { return None };
                let out = packing(*fun, &self.comps(self.konst(*a)?)?)?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Math(fun, args) => {
                let mut cols = Vec::new();
                for a in args {
                    cols.push(self.comps(self.konst(*a)?)?);
                }
                let n = cols.first()?.len();
                if cols.iter().any(|c| c.len() != n) {
                    return None;
                }
                let out = (0..n)
                    .map(|k| {
                        let xs: Vec<&ConstValue> = cols.iter().map(|c| &c[k]).collect();
                        math(*fun, &xs)
                    })
                    .collect::<Option<Vec<_>>>()?;
                self.build_comps(rty, out).map(Folded::Const)
            }
            Op::Relational(fun, a) => {
                let comps = self.comps(self.konst(*a)?)?;
                let bools = comps
                    .iter()
                    .map(|c| match c {
                        ConstValue::Bool(b) => Some(*b),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                match fun {
                    RelationalFunction::All => {
                        Some(Folded::Const(ConstValue::Bool(bools.iter().all(|&b| b))))
                    }
                    RelationalFunction::Any => {
                        Some(Folded::Const(ConstValue::Bool(bools.iter().any(|&b| b))))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn binary(&mut self, o: BinaryOperator, a: ValueId, b: ValueId, rty: TypeId) -> Option<Folded> {
        use BinaryOperator as B;
        let (ta, tb) = (self.ty(a)?, self.ty(b)?);
        // Only the component-wise forms (equal operand types, or shifts by same-shape u32).
        let componentwise = ta == tb || matches!(o, B::ShiftLeft | B::ShiftRight);
        let shape_ok = matches!(self.types.get(ta), Type::Scalar(_) | Type::Vector { .. });
        if !componentwise || !shape_ok {
            return None;
        }
        if let (Some(ca), Some(cb)) = (self.konst(a), self.konst(b)) {
            let xs = self.comps(ca)?;
            let ys = self.comps(cb)?;
            if xs.len() != ys.len() {
                return None;
            }
            let out =
                xs.iter().zip(&ys).map(|(x, y)| binary(o, x, y)).collect::<Option<Vec<_>>>()?;
            return self.build_comps(rty, out).map(Folded::Const);
        }
        let scalar = self.types.scalar_of(ta)?;
        let ka = self.uniform(a);
        let kb = self.uniform(b);
        let is = |k: &Option<ConstValue>, want: i64| match k {
            Some(ConstValue::I32(x)) => *x as i64 == want,
            Some(ConstValue::U32(x)) => *x as i64 == want || (want == -1 && *x == u32::MAX),
            Some(ConstValue::I64(x)) => *x == want,
            Some(ConstValue::U64(x)) => *x as i64 == want,
            _ => false,
        };
        let fis =
            |k: &Option<ConstValue>, bits: u32| matches!(k, Some(ConstValue::F32(x)) if *x == bits);
        let his =
            |k: &Option<ConstValue>, bits: u16| matches!(k, Some(ConstValue::F16(x)) if *x == bits);
        let bis = |k: &Option<ConstValue>, want: bool| matches!(k, Some(ConstValue::Bool(x)) if *x == want);
        let f64is =
            |k: &Option<ConstValue>, bits: u64| matches!(k, Some(ConstValue::F64(x)) if *x == bits);
        // Shift amounts are masked to the operand's width minus one.
        let shift_mask = if scalar.is_64() { 63 } else { 31 };
        let zero = || Some(Folded::Const(self.zero_of(rty)));
        let v = |x: ValueId| Some(Folded::Value(x));
        match scalar {
            Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 => match o {
                B::Add if is(&kb, 0) => v(a),
                B::Add if is(&ka, 0) => v(b),
                B::Subtract if is(&kb, 0) => v(a),
                B::Subtract if a == b => zero(),
                B::Multiply if is(&kb, 1) => v(a),
                B::Multiply if is(&ka, 1) => v(b),
                B::Multiply if is(&ka, 0) || is(&kb, 0) => zero(),
                B::Divide if is(&kb, 1) => v(a),
                B::Modulo if is(&kb, 1) => zero(),
                B::And if is(&ka, 0) || is(&kb, 0) => zero(),
                B::And if is(&kb, -1) => v(a),
                B::And if is(&ka, -1) => v(b),
                B::And | B::InclusiveOr if a == b => v(a),
                B::InclusiveOr if is(&kb, 0) => v(a),
                B::InclusiveOr if is(&ka, 0) => v(b),
                B::ExclusiveOr if is(&kb, 0) => v(a),
                B::ExclusiveOr if is(&ka, 0) => v(b),
                B::ExclusiveOr if a == b => zero(),
                B::ShiftLeft | B::ShiftRight => match kb {
                    Some(ConstValue::U32(s)) if s & shift_mask == 0 => v(a),
                    _ => None,
                },
                B::Equal | B::LessEqual | B::GreaterEqual if a == b => self.bools(rty, true),
                B::NotEqual | B::Less | B::Greater if a == b => self.bools(rty, false),
                _ => None,
            },
            Scalar::F32 => match o {
                B::Multiply if fis(&kb, 1.0f32.to_bits()) => v(a),
                B::Multiply if fis(&ka, 1.0f32.to_bits()) => v(b),
                B::Divide if fis(&kb, 1.0f32.to_bits()) => v(a),
                B::Subtract if fis(&kb, 0) => v(a),
                B::Add if fis(&kb, (-0.0f32).to_bits()) => v(a),
                B::Add if fis(&ka, (-0.0f32).to_bits()) => v(b),
                _ => None,
            },
            Scalar::F64 => match o {
                B::Multiply if f64is(&kb, 1.0f64.to_bits()) => v(a),
                B::Multiply if f64is(&ka, 1.0f64.to_bits()) => v(b),
                B::Divide if f64is(&kb, 1.0f64.to_bits()) => v(a),
                B::Subtract if f64is(&kb, 0) => v(a),
                B::Add if f64is(&kb, (-0.0f64).to_bits()) => v(a),
                B::Add if f64is(&ka, (-0.0f64).to_bits()) => v(b),
                _ => None,
            },
            Scalar::F16 => match o {
                B::Multiply if his(&kb, 0x3c00) => v(a),
                B::Multiply if his(&ka, 0x3c00) => v(b),
                B::Divide if his(&kb, 0x3c00) => v(a),
                B::Subtract if his(&kb, 0) => v(a),
                B::Add if his(&kb, 0x8000) => v(a),
                B::Add if his(&ka, 0x8000) => v(b),
                _ => None,
            },
            Scalar::Bool => match o {
                B::LogicalAnd | B::And if bis(&kb, true) => v(a),
                B::LogicalAnd | B::And if bis(&ka, true) => v(b),
                B::LogicalOr | B::InclusiveOr if bis(&kb, false) => v(a),
                B::LogicalOr | B::InclusiveOr if bis(&ka, false) => v(b),
                B::LogicalAnd | B::And | B::LogicalOr | B::InclusiveOr if a == b => v(a),
                B::LogicalAnd | B::And if bis(&ka, false) || bis(&kb, false) => {
                    self.bools(rty, false)
                }
                B::LogicalOr | B::InclusiveOr if bis(&ka, true) || bis(&kb, true) => {
                    self.bools(rty, true)
                }
                B::Equal if a == b => self.bools(rty, true),
                B::NotEqual if a == b => self.bools(rty, false),
                _ => None,
            },
        }
    }

    /// A bool (or bool vector) constant of type `rty` with every component `x`.
    fn bools(&self, rty: TypeId, x: bool) -> Option<Folded> {
        let n = match *self.types.get(rty) {
            Type::Scalar(Scalar::Bool) => 1,
            Type::Vector { size, scalar: Scalar::Bool } => size as usize,
            _ => return None,
        };
        self.build_comps(rty, vec![ConstValue::Bool(x); n]).map(Folded::Const)
    }
}

/// Whether a `Break` nested in `b`'s `If`s (not its loops, switches or inline regions) leaves
/// the switch `b` belongs to.
fn breaks_out(b: &Block) -> bool {
    b.insts.iter().any(|i| match &i.op {
        Op::If { then_, else_, .. } => [then_, else_]
            .iter()
            .any(|arm| matches!(arm.term, Terminator::Break(_)) || breaks_out(arm)),
        _ => false,
    })
}

fn f16(x: u16) -> f32 {
    half::f16::from_bits(x).to_f32()
}

/// A float result as a constant, unless it is NaN (NaN payloads differ between targets).
fn f32c(x: f32) -> Option<ConstValue> {
    (!x.is_nan()).then_some(ConstValue::F32(x.to_bits()))
}

fn f16c(x: f32) -> Option<ConstValue> {
    let h = half::f16::from_f32(x);
    (!h.is_nan()).then_some(ConstValue::F16(h.to_bits()))
}

fn unary(o: UnaryOperator, c: &ConstValue) -> Option<ConstValue> {
    use ConstValue as C;
    use UnaryOperator as U;
    Some(match (o, c) {
        (U::Negate, C::I32(x)) => C::I32(x.wrapping_neg()),
        (U::Negate, C::F32(x)) => C::F32(x ^ 0x8000_0000),
        (U::Negate, C::F16(x)) => C::F16(x ^ 0x8000),
        (U::LogicalNot, C::Bool(x)) => C::Bool(!x),
        (U::BitwiseNot, C::I32(x)) => C::I32(!x),
        (U::BitwiseNot, C::U32(x)) => C::U32(!x),
        _ => return super::fold64::unary(o, c),
    })
}

/// `a o b` on constants, `None` where it does not fold (also used by loop rotation to decide
/// a guard at compile time).
pub(crate) fn binary(o: BinaryOperator, a: &ConstValue, b: &ConstValue) -> Option<ConstValue> {
    use BinaryOperator as B;
    use ConstValue as C;
    Some(match (a, b) {
        (C::I32(x), C::I32(y)) => {
            let (x, y) = (*x, *y);
            match o {
                B::Add => C::I32(x.wrapping_add(y)),
                B::Subtract => C::I32(x.wrapping_sub(y)),
                B::Multiply => C::I32(x.wrapping_mul(y)),
                B::Divide => C::I32(if y == 0 { x } else { x.wrapping_div(y) }),
                B::Modulo => C::I32(if y == 0 { 0 } else { x.wrapping_rem(y) }),
                B::And => C::I32(x & y),
                B::InclusiveOr => C::I32(x | y),
                B::ExclusiveOr => C::I32(x ^ y),
                _ => return compare(o, x.cmp(&y)),
            }
        }
        (C::U32(x), C::U32(y)) => {
            let (x, y) = (*x, *y);
            match o {
                B::Add => C::U32(x.wrapping_add(y)),
                B::Subtract => C::U32(x.wrapping_sub(y)),
                B::Multiply => C::U32(x.wrapping_mul(y)),
                B::Divide => C::U32(x.checked_div(y).unwrap_or(x)),
                B::Modulo => C::U32(if y == 0 { 0 } else { x % y }),
                B::And => C::U32(x & y),
                B::InclusiveOr => C::U32(x | y),
                B::ExclusiveOr => C::U32(x ^ y),
                B::ShiftLeft => C::U32(x << (y & 31)),
                B::ShiftRight => C::U32(x >> (y & 31)),
                _ => return compare(o, x.cmp(&y)),
            }
        }
        (C::I32(x), C::U32(y)) => match o {
            B::ShiftLeft => C::I32(x << (y & 31)),
            B::ShiftRight => C::I32(x >> (y & 31)),
            _ => return None,
        },
        (C::F32(x), C::F32(y)) => {
            let (x, y) = (f32::from_bits(*x), f32::from_bits(*y));
            match o {
                B::Add => return f32c(x + y),
                B::Subtract => return f32c(x - y),
                B::Multiply => return f32c(x * y),
                B::Divide => return f32c(x / y),
                _ => return fcompare(o, x, y),
            }
        }
        (C::F16(x), C::F16(y)) => {
            let (x, y) = (f16(*x), f16(*y));
            match o {
                B::Add => return f16c(x + y),
                B::Subtract => return f16c(x - y),
                B::Multiply => return f16c(x * y),
                B::Divide => return f16c(x / y),
                _ => return fcompare(o, x, y),
            }
        }
        (C::Bool(x), C::Bool(y)) => C::Bool(match o {
            B::LogicalAnd | B::And => *x && *y,
            B::LogicalOr | B::InclusiveOr => *x || *y,
            B::Equal => x == y,
            B::NotEqual => x != y,
            _ => return None,
        }),
        _ => return super::fold64::binary(o, a, b),
    })
}

pub(super) fn compare(o: BinaryOperator, ord: std::cmp::Ordering) -> Option<ConstValue> {
    use std::cmp::Ordering::*;
    use BinaryOperator as B;
    Some(ConstValue::Bool(match o {
        B::Equal => ord == Equal,
        B::NotEqual => ord != Equal,
        B::Less => ord == Less,
        B::LessEqual => ord != Greater,
        B::Greater => ord == Greater,
        B::GreaterEqual => ord != Less,
        _ => return None,
    }))
}

/// IEEE comparisons (`!=` is unordered: true when either side is NaN).
fn fcompare(o: BinaryOperator, x: f32, y: f32) -> Option<ConstValue> {
    use BinaryOperator as B;
    Some(ConstValue::Bool(match o {
        B::Equal => x == y,
        B::NotEqual => x != y,
        B::Less => x < y,
        B::LessEqual => x <= y,
        B::Greater => x > y,
        B::GreaterEqual => x >= y,
        _ => return None,
    }))
}

/// A value conversion, when every target computes the same result.
fn convert(c: &ConstValue, to: Scalar) -> Option<ConstValue> {
    use ConstValue as C;
    /// The source value, widened without loss.
    enum Src {
        Bool(bool),
        Int(i128),
        Float(f64),
    }
    let src = match *c {
        C::Bool(b) => Src::Bool(b),
        C::I32(x) => Src::Int(x as i128),
        C::U32(x) => Src::Int(x as i128),
        C::I64(x) => Src::Int(x as i128),
        C::U64(x) => Src::Int(x as i128),
        C::F32(x) => Src::Float(f32::from_bits(x) as f64),
        C::F16(x) => Src::Float(f16(x) as f64),
        C::F64(x) => Src::Float(f64::from_bits(x)),
        _ => return None,
    };
    let from_f64 = matches!(c, C::F64(_));
    match src {
        Src::Bool(b) => Some(match to {
            Scalar::Bool => C::Bool(b),
            Scalar::I32 => C::I32(b as i32),
            Scalar::U32 => C::U32(b as u32),
            Scalar::I64 => C::I64(b as i64),
            Scalar::U64 => C::U64(b as u64),
            Scalar::F32 => C::F32(if b { 1.0f32 } else { 0.0 }.to_bits()),
            Scalar::F16 => C::F16(if b { 0x3c00 } else { 0 }),
            Scalar::F64 => C::F64(if b { 1.0f64 } else { 0.0 }.to_bits()),
        }),
        // Integer to integer keeps the low bits of the (sign- or zero-extended) source.
        // Integer to float: only when exact (targets may round differently).
        Src::Int(x) => match to {
            Scalar::Bool => Some(C::Bool(x != 0)),
            Scalar::I32 => Some(C::I32(x as i32)),
            Scalar::U32 => Some(C::U32(x as u32)),
            Scalar::I64 => Some(C::I64(x as i64)),
            Scalar::U64 => Some(C::U64(x as u64)),
            Scalar::F32 => {
                let f = x as f32;
                (f as i128 == x).then_some(C::F32(f.to_bits()))
            }
            Scalar::F16 => {
                let h = half::f16::from_f32(x as f32);
                (h.to_f32() as i128 == x && h.is_finite()).then_some(C::F16(h.to_bits()))
            }
            Scalar::F64 => {
                let f = x as f64;
                (f as i128 == x).then_some(C::F64(f.to_bits()))
            }
        },
        Src::Float(x) => {
            if x.is_nan() {
                return None;
            }
            // Rust's `as` truncates and saturates, as WGSL specifies; f64 -> f32 and
            // f64 -> f16 round to nearest even once, as PTX's `cvt.rn`.
            Some(match to {
                Scalar::Bool => C::Bool(x != 0.0),
                Scalar::I32 => C::I32(x as i32),
                Scalar::U32 => C::U32(x as u32),
                Scalar::I64 => C::I64(x as i64),
                Scalar::U64 => C::U64(x as u64),
                Scalar::F32 => {
                    let f = x as f32;
                    if from_f64 && f.is_infinite() && x.is_finite() {
                        return None;
                    }
                    C::F32(f.to_bits())
                }
                Scalar::F16 => {
                    let h = half::f16::from_f64(x);
                    if !(h.is_finite() || x.is_infinite()) {
                        return None;
                    }
                    C::F16(h.to_bits())
                }
                Scalar::F64 => C::F64(x.to_bits()),
            })
        }
    }
}

/// Exact integer math and the float functions whose result cannot differ between targets.
/// The packing builtins, which map a whole vector to a word or back (not per component).
fn is_packing(fun: MathFunction) -> bool {
    use MathFunction as M;
    matches!(
        fun,
        M::Pack4x8snorm
            | M::Pack4x8unorm
            | M::Pack2x16snorm
            | M::Pack2x16unorm
            | M::Pack2x16float
            | M::Pack4xI8
            | M::Pack4xU8
            | M::Pack4xI8Clamp
            | M::Pack4xU8Clamp
            | M::Unpack4x8snorm
            | M::Unpack4x8unorm
            | M::Unpack2x16snorm
            | M::Unpack2x16unorm
            | M::Unpack2x16float
            | M::Unpack4xI8
            | M::Unpack4xU8
    )
}

/// A packing builtin of constant components, by WGSL's formulas ([`crate::packing`], the
/// interpreter's too); not folded: a NaN lane in (implementation-defined) or out (payloads).
fn packing(fun: MathFunction, comps: &[ConstValue]) -> Option<Vec<ConstValue>> {
    use crate::packing::{pack_float, pack_int, unpack_float, unpack_int};
    use ConstValue as C;
    let floats: Option<Vec<f32>> = comps
        .iter()
        .map(|c| if let C::F32(x) = c { Some(f32::from_bits(*x)) } else { None })
        .collect();
    if let Some(xs) = floats {
        if xs.iter().any(|x| x.is_nan()) {
            return None;
        }
        return Some(vec![C::U32(pack_float(fun, &xs)?)]);
    }
    let words: Vec<u32> = comps
        .iter()
        .map(|c| match c {
            C::U32(x) => Some(*x),
            C::I32(x) => Some(*x as u32),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if let Some(w) = pack_int(fun, &words) {
        return Some(vec![C::U32(w)]);
    }
    let [x] = words[..] else { return None };
    if let Some(lanes) = unpack_float(fun, x) {
        if lanes.iter().any(|v| v.is_nan()) {
            return None;
        }
        return Some(lanes.into_iter().map(|v| C::F32(v.to_bits())).collect());
    }
    let lanes = unpack_int(fun, x)?;
    Some(if fun == MathFunction::Unpack4xI8 {
        lanes.iter().map(|&v| C::I32(v as i32)).collect()
    } else {
        lanes.iter().map(|&v| C::U32(v)).collect()
    })
}

fn math(fun: MathFunction, xs: &[&ConstValue]) -> Option<ConstValue> {
    use ConstValue as C;
    use MathFunction as M;
    let ordered = |a: f32, b: f32| !(a.is_nan() || b.is_nan() || (a == 0.0 && b == 0.0));
    Some(match (fun, xs) {
        (M::Abs, [C::I32(x)]) => C::I32(x.wrapping_abs()),
        (M::Abs, [C::U32(x)]) => C::U32(*x),
        (M::Abs, [C::F32(x)]) => C::F32(x & 0x7fff_ffff),
        (M::Abs, [C::F16(x)]) => C::F16(x & 0x7fff),
        (M::Min, [C::I32(x), C::I32(y)]) => C::I32(*x.min(y)),
        (M::Min, [C::U32(x), C::U32(y)]) => C::U32(*x.min(y)),
        (M::Max, [C::I32(x), C::I32(y)]) => C::I32(*x.max(y)),
        (M::Max, [C::U32(x), C::U32(y)]) => C::U32(*x.max(y)),
        (M::Min | M::Max, [C::F32(x), C::F32(y)]) => {
            let (a, b) = (f32::from_bits(*x), f32::from_bits(*y));
            if !ordered(a, b) {
                return None;
            }
            C::F32(if (fun == M::Min) == (a < b) { *x } else { *y })
        }
        (M::Clamp, [C::I32(e), C::I32(lo), C::I32(hi)]) => C::I32((*e).max(*lo).min(*hi)),
        (M::Clamp, [C::U32(e), C::U32(lo), C::U32(hi)]) => C::U32((*e).max(*lo).min(*hi)),
        (M::CountOneBits, [C::I32(x)]) => C::I32(x.count_ones() as i32),
        (M::CountOneBits, [C::U32(x)]) => C::U32(x.count_ones()),
        (M::ReverseBits, [C::I32(x)]) => C::I32(x.reverse_bits()),
        (M::ReverseBits, [C::U32(x)]) => C::U32(x.reverse_bits()),
        (M::CountLeadingZeros, [C::I32(x)]) => C::I32(x.leading_zeros() as i32),
        (M::CountLeadingZeros, [C::U32(x)]) => C::U32(x.leading_zeros()),
        (M::CountTrailingZeros, [C::I32(x)]) => C::I32(x.trailing_zeros() as i32),
        (M::CountTrailingZeros, [C::U32(x)]) => C::U32(x.trailing_zeros()),
        _ => return super::fold64::math(fun, xs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::Builder;
    use crate::verifier::verify;
    use BinaryOperator as B;

    /// Builds `fn f(p) -> T { return <op on consts> }`, folds, and returns the returned value's
    /// defining op (or the param when the result was simplified to it).
    fn fold_ret(build: impl FnOnce(&mut Builder, ValueId) -> ValueId, pty: Scalar) -> (Module, Op) {
        let mut b = Builder::new("f");
        let t = b.t(Type::Scalar(pty));
        let p = b.param(t);
        let r = build(&mut b, p);
        let rt = b.f.ty(r);
        b.result(rt);
        let mut m = b.finish_entry(Terminator::Return(Some(r)));
        verify(&m).unwrap();
        fold(&mut m);
        verify(&m).unwrap();
        let f = &m.functions[0];
        let Terminator::Return(Some(v)) = f.body.term else { panic!() };
        let op = f
            .body
            .insts
            .iter()
            .find(|i| i.result == Some(v))
            .map(|i| i.op.clone())
            .unwrap_or(Op::Unary(UnaryOperator::Negate, v)); // marker: returns a param
        (m, op)
    }

    fn int_case(o: B, x: i32, y: i32) -> Op {
        fold_ret(
            |b, _| {
                let (x, y) = (b.ci(x), b.ci(y));
                b.bin(o, x, y)
            },
            Scalar::I32,
        )
        .1
    }

    #[test]
    fn integer_semantics_follow_wgsl() {
        let c = |x: i32| Op::Const(ConstValue::I32(x));
        assert_eq!(int_case(B::Add, i32::MAX, 1), c(i32::MIN));
        assert_eq!(int_case(B::Divide, 7, 0), c(7));
        assert_eq!(int_case(B::Modulo, 7, 0), c(0));
        assert_eq!(int_case(B::Divide, i32::MIN, -1), c(i32::MIN));
        assert_eq!(int_case(B::Modulo, i32::MIN, -1), c(0));
        assert_eq!(int_case(B::Divide, -7, 2), c(-3));
        assert_eq!(int_case(B::Modulo, -7, 2), c(-1));
        assert_eq!(int_case(B::Multiply, 65536, 65536), c(0));
        let shifted = fold_ret(
            |b, _| {
                let x = b.ci(-8);
                let s = b.cu(33);
                let it = b.i32();
                b.op(Op::Binary(B::ShiftRight, x, s), it)
            },
            Scalar::I32,
        )
        .1;
        assert_eq!(shifted, c(-4), "shift amount masked to 1, arithmetic shift");
        let u = fold_ret(
            |b, _| {
                let (x, y) = (b.cu(5), b.cu(0));
                b.bin(B::Divide, x, y)
            },
            Scalar::U32,
        )
        .1;
        assert_eq!(u, Op::Const(ConstValue::U32(5)));
    }

    #[test]
    fn float_folding_is_ieee_and_skips_nan() {
        let f = |o: B, x: f32, y: f32| {
            fold_ret(
                |b, _| {
                    let (x, y) = (b.cf(x), b.cf(y));
                    b.bin(o, x, y)
                },
                Scalar::F32,
            )
            .1
        };
        assert_eq!(f(B::Add, 0.1, 0.2), Op::Const(ConstValue::F32(0x3e99999a)));
        assert_eq!(f(B::Divide, 1.0, 3.0), Op::Const(ConstValue::F32(0x3eaaaaab)));
        assert!(matches!(f(B::Divide, 0.0, 0.0), Op::Binary(..)), "NaN result not folded");
        assert!(matches!(f(B::Modulo, 5.0, 3.0), Op::Binary(..)), "float % not folded");
    }

    #[test]
    fn exact_identities_only() {
        // x + 0 -> x for ints.
        let (_, op) = fold_ret(
            |b, p| {
                let z = b.ci(0);
                b.bin(B::Add, p, z)
            },
            Scalar::I32,
        );
        assert!(matches!(op, Op::Unary(UnaryOperator::Negate, ValueId(0))), "{op:?}");
        // x + 0.0 stays for floats (-0.0 + 0.0 = +0.0), x * 1.0 and x + (-0.0) fold.
        let (_, op) = fold_ret(
            |b, p| {
                let z = b.cf(0.0);
                b.bin(B::Add, p, z)
            },
            Scalar::F32,
        );
        assert!(matches!(op, Op::Binary(B::Add, ..)), "{op:?}");
        let (_, op) = fold_ret(
            |b, p| {
                let z = b.cf(-0.0);
                b.bin(B::Add, p, z)
            },
            Scalar::F32,
        );
        assert!(matches!(op, Op::Unary(_, ValueId(0))), "{op:?}");
        let (_, op) = fold_ret(
            |b, p| {
                let one = b.cf(1.0);
                b.bin(B::Multiply, one, p)
            },
            Scalar::F32,
        );
        assert!(matches!(op, Op::Unary(_, ValueId(0))), "{op:?}");
        // x - x -> 0 for ints.
        let (_, op) = fold_ret(|b, p| b.bin(B::Subtract, p, p), Scalar::I32);
        assert_eq!(op, Op::Const(ConstValue::I32(0)));
    }

    #[test]
    fn vectors_conversions_and_bitcasts() {
        let (m, op) = fold_ret(
            |b, _| {
                let x = b.ci(3);
                let vt = b.vec(2, Scalar::I32);
                let v = b.op(Op::Splat(x), vt);
                let w = b.op(Op::Compose(vec![x, x]), vt);
                let s = b.bin(B::Multiply, v, w);
                let it = b.i32();
                let e = b.op(Op::Extract(s, 1), it);
                let ft = b.f32();
                let fl = b.op(Op::Convert(e, Scalar::F32), ft);
                let ut = b.u32();
                b.op(Op::Bitcast(fl), ut)
            },
            Scalar::I32,
        );
        // 3 * 3 = 9 -> 9.0f = 0x41100000.
        assert_eq!(op, Op::Const(ConstValue::U32(0x4110_0000)), "{}", crate::text::module_text(&m));
        let (_, op) = fold_ret(
            |b, _| {
                let x = b.cf(-1.5e10);
                let it = b.i32();
                b.op(Op::Convert(x, Scalar::I32), it)
            },
            Scalar::I32,
        );
        assert_eq!(op, Op::Const(ConstValue::I32(i32::MIN)), "float to int saturates");
    }

    #[test]
    fn constant_if_is_replaced_by_the_taken_arm() {
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let c = b.cb(false);
        b.open();
        let t = b.close(Terminator::Yield(vec![p]));
        b.open();
        let two = b.ci(2);
        let s = b.bin(B::Multiply, p, two);
        let e = b.close(Terminator::Yield(vec![s]));
        let r = b.val(it);
        b.stmt(Op::If { cond: c, then_: t, else_: e, results: vec![r] });
        let mut m = b.finish_entry(Terminator::Return(Some(r)));
        fold(&mut m);
        verify(&m).unwrap();
        let f = &m.functions[0];
        assert!(!f.body.insts.iter().any(|i| matches!(i.op, Op::If { .. })));
        assert_eq!(f.body.term, Terminator::Return(Some(s)));
    }

    #[test]
    fn extract_of_insert_and_compose() {
        let (_, op) = fold_ret(
            |b, p| {
                let vt = b.vec(3, Scalar::I32);
                let z = b.op(Op::Const(ConstValue::Zero(vt)), vt);
                let one = b.ci(1);
                let v = b.op(Op::Insert { base: z, index: 1, value: p }, vt);
                let w = b.op(Op::Insert { base: v, index: 2, value: one }, vt);
                let it = b.i32();
                b.op(Op::Extract(w, 1), it)
            },
            Scalar::I32,
        );
        assert!(matches!(op, Op::Unary(_, ValueId(0))), "{op:?}");
        let (_, op) = fold_ret(
            |b, p| {
                let vt = b.vec(2, Scalar::I32);
                let v = b.op(Op::Compose(vec![p, p]), vt);
                let it = b.i32();
                let e = b.op(Op::Extract(v, 0), it);
                let n = b.op(Op::Unary(UnaryOperator::Negate, e), it);
                b.op(Op::Unary(UnaryOperator::Negate, n), it)
            },
            Scalar::I32,
        );
        assert!(matches!(op, Op::Unary(_, ValueId(0))), "{op:?}");
    }
}
