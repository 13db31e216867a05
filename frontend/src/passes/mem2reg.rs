//! mem2reg: promotes function-local variables whose address does not escape to SSA values.
//!
//! A local is promoted when every pointer derived from it (its `LocalAddr`, static
//! `AccessIndex` chains, and `Access` with a runtime index into a vector or matrix) is used
//! only as the pointer of a `Load` or `Store` or as the base of a further access. Anything
//! else (a call or inline argument, an atomic or cooperative operand, `arrayLength`, a stored
//! value, a terminator argument, a runtime index into an array) keeps the local in memory.
//!
//! The rewrite walks each function in dominance order carrying the current value of every
//! promoted local: loads read it (through `Extract`/`ExtractDyn` for sub-accesses), stores
//! replace it (through `Insert`/`InsertDyn`). Regions that assign a local get new results
//! (`If`, `Switch`) or carried state (`Loop`), appended after any they already have, and every
//! `Yield`/`Break`/`Continue` that reaches the region passes the current values.
//!
//! `Inline` regions that return only at their end are first spliced into the caller. The
//! others have at most one result, so a local may be stored inside such a body only when all
//! its accesses are inside it (the callee's own locals): its value never needs to leave the
//! region. Other locals stored inside it stay in memory.

use super::util::{element_type, Subst};
use crate::ir::*;
// FxHash: these maps are keyed by small integers on the hot path; SipHash was a visible cost.
use rustc_hash::FxHashMap as HashMap;

/// Promotes every non-escaping local of every function.
pub fn mem2reg(m: &mut Module) {
    let Module { types, functions, .. } = m;
    for f in functions.iter_mut() {
        promote_function(types, f);
    }
}

/// One step of an access path from a local's root.
#[derive(Clone, Debug)]
enum Step {
    Static(u32),
    Dyn(ValueId),
}

/// What the analysis learns about one local.
#[derive(Default, Clone)]
struct LocalFacts {
    escaped: bool,
    /// Common prefix of the inline-region stacks of all loads and stores.
    common: Option<Vec<u32>>,
    /// Inline-region stacks of the stores.
    stores: Vec<Vec<u32>>,
}

struct Analysis<'a> {
    types: &'a Types,
    values: &'a [ValueData],
    /// Pointers derived from locals: (local index, path).
    ptrs: HashMap<ValueId, (usize, Vec<Step>)>,
    facts: Vec<LocalFacts>,
    inline_stack: Vec<u32>,
    next_inline: u32,
}

impl Analysis<'_> {
    fn escape_operand(&mut self, v: ValueId) {
        if let Some((l, _)) = self.ptrs.get(&v) {
            let l = *l;
            self.facts[l].escaped = true;
        }
    }

    fn access(&mut self, l: usize, store: bool) {
        let here = self.inline_stack.clone();
        let fact = &mut self.facts[l];
        fact.common = Some(match fact.common.take() {
            None => here.clone(),
            Some(c) => {
                let n = c.iter().zip(&here).take_while(|(a, b)| a == b).count();
                c[..n].to_vec()
            }
        });
        if store {
            fact.stores.push(here);
        }
    }

    fn pointee(&self, p: ValueId) -> Option<&Type> {
        let t = self.values.get(p.index())?.ty;
        match self.types.get(t) {
            Type::Pointer { base, .. } => Some(self.types.get(*base)),
            _ => None,
        }
    }

    fn block(&mut self, b: &Block) {
        for inst in &b.insts {
            match (&inst.op, inst.result) {
                (Op::LocalAddr(l), Some(r)) if l.index() < self.facts.len() => {
                    self.ptrs.insert(r, (l.index(), Vec::new()));
                }
                (Op::AccessIndex(p, i), Some(r)) if self.ptrs.contains_key(p) => {
                    if let Some((l, path)) = self.ptrs.get(p).cloned() {
                        let mut path = path;
                        path.push(Step::Static(*i));
                        self.ptrs.insert(r, (l, path));
                    }
                }
                (Op::Access(p, idx), Some(r)) if self.ptrs.contains_key(p) => {
                    self.escape_operand(*idx);
                    let dyn_ok =
                        matches!(self.pointee(*p), Some(Type::Vector { .. } | Type::Matrix { .. }));
                    if let Some((l, mut path)) = self.ptrs.get(p).cloned() {
                        if !dyn_ok {
                            self.facts[l].escaped = true;
                        }
                        path.push(Step::Dyn(*idx));
                        self.ptrs.insert(r, (l, path));
                    }
                }
                (Op::Load(p), _) if self.ptrs.contains_key(p) => {
                    if let Some(&(l, _)) = self.ptrs.get(p) {
                        self.access(l, false);
                    }
                }
                (Op::Store { ptr, value }, _) if self.ptrs.contains_key(ptr) => {
                    self.escape_operand(*value);
                    if let Some(&(l, _)) = self.ptrs.get(ptr) {
                        self.access(l, true);
                    }
                }
                (op, _) => {
                    let mut ops = Vec::new();
                    op.for_each_operand(|v| ops.push(v));
                    for v in ops {
                        self.escape_operand(v);
                    }
                    if let Op::Inline { body, .. } = op {
                        self.inline_stack.push(self.next_inline);
                        self.next_inline += 1;
                        self.block(body);
                        self.inline_stack.pop();
                    } else {
                        for nb in op.blocks() {
                            self.block(nb);
                        }
                    }
                }
            }
        }
        for &a in b.term.args() {
            self.escape_operand(a);
        }
    }
}

fn promote_function(types: &mut Types, f: &mut Function) {
    // Inlined bodies without early returns become straight-line code of the caller, so the
    // caller's locals they store to can be promoted.
    super::inline::splice_inlines(f);
    let n = f.locals.len();
    if n == 0 {
        return;
    }
    let mut an = Analysis {
        types,
        values: &f.values,
        ptrs: HashMap::default(),
        facts: vec![LocalFacts::default(); n],
        inline_stack: Vec::new(),
        next_inline: 0,
    };
    an.block(&f.body);
    // Loop `break_if` values are bools, never pointers; nothing else escapes unseen.
    let Analysis { ptrs, facts, .. } = an;
    let mut slot_of: Vec<Option<usize>> = vec![None; n];
    let mut slots: Vec<usize> = Vec::new();
    for (l, fact) in facts.iter().enumerate() {
        let confined = match &fact.common {
            None => true,
            Some(c) => fact.stores.iter().all(|s| s == c),
        };
        if !fact.escaped && confined {
            slot_of[l] = Some(slots.len());
            slots.push(l);
        }
    }
    if slots.is_empty() {
        return;
    }
    let ptrs: HashMap<ValueId, (usize, Vec<Step>)> =
        ptrs.into_iter().filter_map(|(v, (l, path))| slot_of[l].map(|s| (v, (s, path)))).collect();

    let mut body = std::mem::take(&mut f.body);
    let mut rw =
        Rewriter { types, f, ptrs, slots: &slots, subst: Subst::default(), frames: Vec::new() };
    // Every promoted local starts as its zero value (the lowering stores the initializer
    // right after, and DCE drops the zero when it is never read).
    let mut state = Vec::with_capacity(slots.len());
    let mut zeros = Vec::with_capacity(slots.len());
    for &l in &slots {
        let local = &rw.f.locals[l];
        let (ty, name, span) = (local.ty, local.name.clone(), local.span);
        let v = rw.f.new_value(ty, Some(name));
        zeros.push(Inst { result: Some(v), op: Op::Const(ConstValue::Zero(ty)), span });
        state.push(v);
    }
    rw.block(&mut body, &mut state, None);
    body.insts.splice(0..0, zeros);

    // Drop the promoted locals and renumber the rest.
    let mut new_id = vec![None; n];
    let mut kept = Vec::new();
    for (l, local) in std::mem::take(&mut f.locals).into_iter().enumerate() {
        if slot_of[l].is_none() {
            new_id[l] = Some(LocalId(kept.len() as u32));
            kept.push(local);
        }
    }
    f.locals = kept;
    super::util::for_each_block_mut(&mut body, &mut |b| {
        for inst in &mut b.insts {
            if let Op::LocalAddr(l) = &mut inst.op {
                if let Some(Some(id)) = new_id.get(l.index()) {
                    *l = *id;
                }
            }
        }
    });
    f.body = body;
}

/// A region that `Break`/`Continue` may reach, with the slots it carries.
enum Frame {
    Loop(Vec<usize>),
    Switch(Vec<usize>),
    Inline,
}

struct Rewriter<'a> {
    types: &'a mut Types,
    f: &'a mut Function,
    /// Promoted pointers: (slot, path).
    ptrs: HashMap<ValueId, (usize, Vec<Step>)>,
    /// Slot -> local index.
    slots: &'a [usize],
    subst: Subst,
    frames: Vec<Frame>,
}

impl Rewriter<'_> {
    fn slot_ty(&self, s: usize) -> TypeId {
        self.f.locals[self.slots[s]].ty
    }

    fn new_state_value(&mut self, s: usize) -> ValueId {
        let l = &self.f.locals[self.slots[s]];
        let (ty, name) = (l.ty, l.name.clone());
        self.f.new_value(ty, Some(name))
    }

    /// Slots stored anywhere in `blocks` (not looking into `Inline` bodies, whose stores are
    /// confined to them).
    fn stored_slots(&self, blocks: &[&Block]) -> Vec<usize> {
        let mut set = vec![false; self.slots.len()];
        fn walk(b: &Block, ptrs: &HashMap<ValueId, (usize, Vec<Step>)>, set: &mut [bool]) {
            for inst in &b.insts {
                match &inst.op {
                    Op::Store { ptr, .. } => {
                        if let Some((s, _)) = ptrs.get(ptr) {
                            set[*s] = true;
                        }
                    }
                    Op::Inline { .. } => {}
                    op => {
                        for nb in op.blocks() {
                            walk(nb, ptrs, set);
                        }
                    }
                }
            }
        }
        for b in blocks {
            walk(b, &self.ptrs, &mut set);
        }
        set.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| i).collect()
    }

    fn emit(&mut self, out: &mut Vec<Inst>, op: Op, ty: TypeId, span: Span) -> ValueId {
        let v = self.f.new_value(ty, None);
        out.push(Inst { result: Some(v), op, span });
        v
    }

    /// Types along an access path, starting with the root's type; `None` when the path does
    /// not fit the type (verified IR never does that).
    fn path_types(&mut self, s: usize, path: &[Step]) -> Option<Vec<TypeId>> {
        let mut tys = vec![self.slot_ty(s)];
        for st in path {
            let cur = *tys.last()?;
            let idx = match st {
                Step::Static(i) => Some(*i),
                Step::Dyn(_) => None,
            };
            tys.push(element_type(self.types, cur, idx)?);
        }
        Some(tys)
    }

    fn extract_op(&self, base: ValueId, st: &Step) -> Op {
        match st {
            Step::Static(i) => Op::Extract(base, *i),
            Step::Dyn(v) => Op::ExtractDyn(base, self.subst.get(*v)),
        }
    }

    fn block(&mut self, b: &mut Block, state: &mut [ValueId], yield_carry: Option<&[usize]>) {
        let old = std::mem::take(&mut b.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            self.subst.apply_op(&mut inst.op);
            if let Some(r) = inst.result {
                if self.ptrs.contains_key(&r) {
                    // LocalAddr / AccessIndex / Access of a promoted local: no longer needed.
                    continue;
                }
            }
            match &mut inst.op {
                Op::Load(p) if self.ptrs.contains_key(p) => {
                    let Some((s, path)) = self.ptrs.get(p).cloned() else { continue };
                    let Some(r) = inst.result else { continue };
                    let mut cur = state[s];
                    let tys = self.path_types(s, &path).unwrap_or_default();
                    for (k, st) in path.iter().enumerate() {
                        let op = self.extract_op(cur, st);
                        if k + 1 == path.len() {
                            out.push(Inst { result: Some(r), op, span: inst.span });
                            cur = r;
                        } else {
                            let ty = tys.get(k + 1).copied().unwrap_or(self.f.ty(r));
                            cur = self.emit(&mut out, op, ty, inst.span);
                        }
                    }
                    if path.is_empty() {
                        self.subst.set(r, cur);
                    }
                }
                Op::Store { ptr, value } if self.ptrs.contains_key(ptr) => {
                    let Some((s, path)) = self.ptrs.get(ptr).cloned() else { continue };
                    let value = *value;
                    if path.is_empty() {
                        state[s] = value;
                        continue;
                    }
                    let Some(tys) = self.path_types(s, &path) else { continue };
                    // Read the enclosing composites down the path, then rebuild upwards.
                    let mut chain = vec![state[s]];
                    for (k, st) in path[..path.len() - 1].iter().enumerate() {
                        let op = self.extract_op(chain[k], st);
                        let v = self.emit(&mut out, op, tys[k + 1], inst.span);
                        chain.push(v);
                    }
                    let mut newv = value;
                    for k in (0..path.len()).rev() {
                        let base = chain[k];
                        let op = match &path[k] {
                            Step::Static(i) => Op::Insert { base, index: *i, value: newv },
                            Step::Dyn(ix) => {
                                Op::InsertDyn { base, index: self.subst.get(*ix), value: newv }
                            }
                        };
                        newv = self.emit(&mut out, op, tys[k], inst.span);
                    }
                    state[s] = newv;
                }
                Op::If { then_, else_, results, .. } => {
                    let carried = self.stored_slots(&[then_, else_]);
                    for arm in [then_, else_] {
                        let mut st = state.to_vec();
                        self.block(arm, &mut st, Some(&carried));
                    }
                    for &c in &carried {
                        let r = self.new_state_value(c);
                        results.push(r);
                        state[c] = r;
                    }
                    out.push(inst);
                }
                Op::Switch { cases, results, .. } => {
                    let blocks: Vec<&Block> = cases.iter().map(|c| &c.body).collect();
                    let carried = self.stored_slots(&blocks);
                    self.frames.push(Frame::Switch(carried.clone()));
                    for c in cases.iter_mut() {
                        let mut st = state.to_vec();
                        self.block(&mut c.body, &mut st, Some(&carried));
                    }
                    self.frames.pop();
                    for &c in &carried {
                        let r = self.new_state_value(c);
                        results.push(r);
                        state[c] = r;
                    }
                    out.push(inst);
                }
                Op::Loop { init, body, continuing, break_if, results } => {
                    let carried = self.stored_slots(&[body, continuing]);
                    let mut body_state = state.to_vec();
                    let mut cont_state = state.to_vec();
                    for &c in &carried {
                        init.push(state[c]);
                        let pb = self.new_state_value(c);
                        body.params.push(pb);
                        body_state[c] = pb;
                        let pc = self.new_state_value(c);
                        continuing.params.push(pc);
                        cont_state[c] = pc;
                    }
                    self.frames.push(Frame::Loop(carried.clone()));
                    self.block(body, &mut body_state, Some(&carried));
                    self.block(continuing, &mut cont_state, Some(&carried));
                    self.frames.pop();
                    if let Some(b) = break_if {
                        *b = self.subst.get(*b);
                    }
                    for &c in &carried {
                        let r = self.new_state_value(c);
                        results.push(r);
                        state[c] = r;
                    }
                    out.push(inst);
                }
                Op::Inline { body, .. } => {
                    // Locals stored inside are confined to the body: nothing flows out.
                    self.frames.push(Frame::Inline);
                    let mut st = state.to_vec();
                    self.block(body, &mut st, None);
                    self.frames.pop();
                    out.push(inst);
                }
                _ => out.push(inst),
            }
        }
        b.insts = out;
        self.subst.apply_term(&mut b.term);
        let carried: Option<Vec<usize>> = match &b.term {
            Terminator::Yield(_) => yield_carry.map(|c| c.to_vec()),
            Terminator::Break(_) => self.frames.last().map(|fr| match fr {
                Frame::Loop(c) | Frame::Switch(c) => c.clone(),
                Frame::Inline => Vec::new(),
            }),
            Terminator::Continue(_) => self.frames.iter().rev().find_map(|fr| match fr {
                Frame::Loop(c) => Some(c.clone()),
                Frame::Switch(_) => None,
                Frame::Inline => Some(Vec::new()),
            }),
            _ => None,
        };
        if let Some(carried) = carried {
            if let Terminator::Yield(args) | Terminator::Break(args) | Terminator::Continue(args) =
                &mut b.term
            {
                args.extend(carried.iter().map(|&c| state[c]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::{count_insts, run, Builder, Val};
    use crate::verifier::verify;
    use BinaryOperator as B;

    fn memory_ops(m: &Module, f: FuncId) -> usize {
        count_insts(&m.functions[f.index()].body, &|op| {
            matches!(op, Op::Load(_) | Op::Store { .. } | Op::LocalAddr(_))
        })
    }

    /// Runs `f` before and after mem2reg on each input; both must equal `expect(input)`.
    fn check(m: Module, inputs: &[i32], expect: impl Fn(i32) -> i32) -> Module {
        verify(&m).unwrap();
        let f = m.entry_points[0].function;
        let before: Vec<_> = inputs.iter().map(|&x| run(&m, f, vec![Val::I(x)]).unwrap()).collect();
        let mut after = m.clone();
        mem2reg(&mut after);
        if let Err(d) = verify(&after) {
            panic!("{}\n{}", d.message, crate::text::module_text(&after));
        }
        for (k, &x) in inputs.iter().enumerate() {
            let want = Some(Val::I(expect(x)));
            assert_eq!(before[k], want, "memory form, input {x}");
            let got = run(&after, f, vec![Val::I(x)]).unwrap();
            assert_eq!(got, want, "after mem2reg, input {x}\n{}", crate::text::module_text(&after));
        }
        after
    }

    #[test]
    fn promotes_through_if() {
        // var x = p; if p > 0 { x = x + 1 } else { x = 7 } return x
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let x = b.var("x", it);
        b.store(x, p);
        let zero = b.ci(0);
        let c = b.bin(B::Greater, p, zero);
        b.open();
        let l = b.load(x);
        let one = b.ci(1);
        let s = b.bin(B::Add, l, one);
        b.store(x, s);
        let then_ = b.close(Terminator::Yield(vec![]));
        b.open();
        let seven = b.ci(7);
        b.store(x, seven);
        let else_ = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c, then_, else_, results: vec![] });
        let r = b.load(x);
        let m = b.finish_entry(Terminator::Return(Some(r)));
        let after = check(m, &[-3, 0, 5], |p| if p > 0 { p + 1 } else { 7 });
        assert_eq!(memory_ops(&after, FuncId(0)), 0);
        assert!(after.functions[0].locals.is_empty());
    }

    /// var i = 0; var s = 0;
    /// loop { if i >= p { break } if i % 3 == 1 { continue }
    ///        switch i { case 4 { if s > 100 { break } s = s + 100 } default { s = s + i } }
    ///        continuing { i = i + 1 } }
    /// return s
    fn loop_sample() -> Module {
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let i = b.var("i", it);
        let s = b.var("s", it);
        let zero = b.ci(0);
        b.store(i, zero);
        b.store(s, zero);
        b.open();
        let iv = b.load(i);
        let c = b.bin(B::GreaterEqual, iv, p);
        b.open();
        let t = b.close(Terminator::Break(vec![]));
        b.open();
        let e = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c, then_: t, else_: e, results: vec![] });
        let three = b.ci(3);
        let one = b.ci(1);
        let md = b.bin(B::Modulo, iv, three);
        let c2 = b.bin(B::Equal, md, one);
        b.open();
        let t = b.close(Terminator::Continue(vec![]));
        b.open();
        let e = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c2, then_: t, else_: e, results: vec![] });
        // switch
        b.open();
        let sv = b.load(s);
        let hundred = b.ci(100);
        let c3 = b.bin(B::Greater, sv, hundred);
        b.open();
        let t = b.close(Terminator::Break(vec![]));
        b.open();
        let e = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c3, then_: t, else_: e, results: vec![] });
        let sv2 = b.bin(B::Add, sv, hundred);
        b.store(s, sv2);
        let case4 = b.close(Terminator::Yield(vec![]));
        b.open();
        let sv = b.load(s);
        let sv2 = b.bin(B::Add, sv, iv);
        b.store(s, sv2);
        let dflt = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::Switch {
            selector: iv,
            cases: vec![
                SwitchCase { values: vec![4], default: false, body: case4 },
                SwitchCase { values: vec![], default: true, body: dflt },
            ],
            results: vec![],
        });
        let body = b.close(Terminator::Yield(vec![]));
        b.open();
        let iv = b.load(i);
        let one = b.ci(1);
        let i2 = b.bin(B::Add, iv, one);
        b.store(i, i2);
        let continuing = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::Loop { init: vec![], body, continuing, break_if: None, results: vec![] });
        let r = b.load(s);
        b.finish_entry(Terminator::Return(Some(r)))
    }

    fn loop_expect(p: i32) -> i32 {
        let mut s = 0;
        let mut i = 0;
        loop {
            if i >= p {
                break;
            }
            if i % 3 != 1 {
                if i == 4 {
                    if s <= 100 {
                        s += 100;
                    }
                } else {
                    s += i;
                }
            }
            i += 1;
        }
        s
    }

    #[test]
    fn promotes_through_loop_switch_break_continue() {
        let after = check(loop_sample(), &[0, 1, 3, 5, 9, 30], loop_expect);
        assert_eq!(memory_ops(&after, FuncId(0)), 0);
        // Hand check: with p = 9, i visits 0..8, skipping 1, 4 (is 4 % 3 == 1, skipped), 7:
        assert_eq!(loop_expect(9), 2 + 3 + 5 + 6 + 8);
    }

    #[test]
    fn second_run_is_a_no_op() {
        let mut m = loop_sample();
        mem2reg(&mut m);
        let once = crate::text::module_text(&m);
        mem2reg(&mut m);
        verify(&m).unwrap();
        assert_eq!(once, crate::text::module_text(&m));
    }

    #[test]
    fn loop_with_break_if_and_return_inside() {
        // var n = p; loop { if n == 42 { return 1000 } continuing { n = n + 2; break if n > 50 } }
        // return n
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let n = b.var("n", it);
        b.store(n, p);
        b.open();
        let v = b.load(n);
        let k = b.ci(42);
        let c = b.bin(B::Equal, v, k);
        b.open();
        let thousand = b.ci(1000);
        let t = b.close(Terminator::Return(Some(thousand)));
        b.open();
        let e = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c, then_: t, else_: e, results: vec![] });
        let body = b.close(Terminator::Yield(vec![]));
        b.open();
        let v = b.load(n);
        let two = b.ci(2);
        let v2 = b.bin(B::Add, v, two);
        b.store(n, v2);
        let v3 = b.load(n);
        let fifty = b.ci(50);
        let c = b.bin(B::Greater, v3, fifty);
        let continuing = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::Loop { init: vec![], body, continuing, break_if: Some(c), results: vec![] });
        let r = b.load(n);
        let m = b.finish_entry(Terminator::Return(Some(r)));
        let expect = |p: i32| {
            let mut n = p;
            loop {
                if n == 42 {
                    return 1000;
                }
                n += 2;
                if n > 50 {
                    return n;
                }
            }
        };
        check(m, &[0, 1, 40, 41, 60], expect);
    }

    #[test]
    fn partial_stores_use_insert_and_dynamic_vector_index() {
        // var v: vec3<i32>; v[1] = p; v[p & 1] = 5 (runtime index); return v.y + v.x*10
        let mut b = Builder::new("f");
        let it = b.i32();
        let ut = b.u32();
        b.result(it);
        let p = b.param(it);
        let vt = b.vec(3, Scalar::I32);
        let v = b.var("v", vt);
        let z = b.op(Op::Const(ConstValue::Zero(vt)), vt);
        b.store(v, z);
        let y = b.access_index(v, 1, it);
        b.store(y, p);
        let pu = b.op(Op::Bitcast(p), ut);
        let one = b.cu(1);
        let idx = b.bin(B::And, pu, one);
        let d = b.access(v, idx, it);
        let five = b.ci(5);
        b.store(d, five);
        let y = b.access_index(v, 1, it);
        let yv = b.load(y);
        let x = b.access_index(v, 0, it);
        let xv = b.load(x);
        let ten = b.ci(10);
        let x10 = b.bin(B::Multiply, xv, ten);
        let r = b.bin(B::Add, yv, x10);
        let m = b.finish_entry(Terminator::Return(Some(r)));
        let after = check(m, &[2, 3, -4], |p| if p & 1 == 1 { 5 } else { p + 50 });
        assert_eq!(memory_ops(&after, FuncId(0)), 0);
        assert_eq!(
            count_insts(&after.functions[0].body, &|o| matches!(o, Op::InsertDyn { .. })),
            1
        );
    }

    #[test]
    fn runtime_indexed_array_and_escaping_locals_stay_in_memory() {
        // var a: array<i32, 4>; a[p] = 3; var b = 1; var c = 2; g(&c); c[...]
        let mut b = Builder::new("g");
        let it = b.i32();
        let pt = b.ptr(it);
        let q = b.param(pt);
        let nine = b.ci(9);
        b.store(q, nine);
        let (m, g) = b.finish(Terminator::Return(None));
        let mut b = Builder::next_function(m, "f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let at = b.t(Type::Array { base: it, len: Some(4), stride: 4 });
        let a = b.var("a", at);
        let z = b.op(Op::Const(ConstValue::Zero(at)), at);
        b.store(a, z);
        let e = b.access(a, p, it);
        let three = b.ci(3);
        b.store(e, three);
        let bb = b.var("b", it);
        let one = b.ci(1);
        b.store(bb, one);
        let c = b.var("c", it);
        let two = b.ci(2);
        b.store(c, two);
        b.stmt(Op::Call(g, vec![c]));
        let e0 = b.access_index(a, 0, it);
        let a0 = b.load(e0);
        let bv = b.load(bb);
        let cv = b.load(c);
        let s = b.bin(B::Add, a0, bv);
        let s = b.bin(B::Add, s, cv);
        let (mut m, f) = b.finish(Terminator::Return(Some(s)));
        m.entry_points.push(EntryPoint {
            name: "f".into(),
            stage: Stage::Compute,
            workgroup_size: [1, 1, 1],
            early_depth_test: false,
            function: f,
        });
        let after = check(m, &[0, 2], |p| if p == 0 { 3 } else { 0 } + 1 + 9);
        let names: Vec<_> = after.functions[1].locals.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
    }
}
