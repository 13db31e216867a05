//! Dead-code elimination.
//!
//! Liveness is computed to a fixed point over the region tree: a value is live when a
//! side-effecting instruction, a `Return`, a region's condition/selector, a loop's `break_if`
//! or a live instruction uses it; a terminator argument is live when the region slot it feeds
//! is live (an `If`/`Switch` result, or one slot of loop state: results, body params and
//! continuing params together). Then dead pure instructions, dead `If`/`Switch` results and
//! dead loop state (state only passed around) are removed together with the terminator
//! arguments that fed them, and empty `If`s disappear. Locals no `LocalAddr` refers to any
//! more are dropped.

use crate::ir::*;

/// Removes dead code from every function.
pub fn dce(m: &mut Module) {
    for f in &mut m.functions {
        dce_function(f);
    }
}

/// Removes dead code from `f`.
pub(crate) fn dce_function(f: &mut Function) {
    for _ in 0..16 {
        let live = liveness(f);
        if !sweep(&mut f.body, &live) {
            break;
        }
    }
    drop_unused_locals(f);
}

/// Removes locals no `LocalAddr` refers to any more, renumbering the rest.
fn drop_unused_locals(f: &mut Function) {
    let mut used = vec![false; f.locals.len()];
    super::util::for_each_block_mut(&mut f.body, &mut |b| {
        for inst in &b.insts {
            if let Op::LocalAddr(l) = inst.op {
                if let Some(u) = used.get_mut(l.index()) {
                    *u = true;
                }
            }
        }
    });
    if used.iter().all(|&u| u) {
        return;
    }
    let mut new_id = Vec::with_capacity(used.len());
    let mut next = 0u32;
    for &u in &used {
        new_id.push(LocalId(next));
        next += u as u32;
    }
    let mut k = 0;
    f.locals.retain(|_| {
        k += 1;
        used[k - 1]
    });
    super::util::for_each_block_mut(&mut f.body, &mut |b| {
        for inst in &mut b.insts {
            if let Op::LocalAddr(l) = &mut inst.op {
                if let Some(n) = new_id.get(l.index()) {
                    *l = *n;
                }
            }
        }
    });
}

/// The region slots a terminator can feed; a slot is live when any of its values is.
#[derive(Clone)]
enum Target {
    Slots(Vec<Vec<ValueId>>),
    /// An `Inline` boundary: `Break`/`Continue` never cross it.
    Barrier,
}

struct Marker<'a> {
    live: &'a mut Vec<bool>,
    changed: bool,
}

impl Marker<'_> {
    fn is_live(&self, v: ValueId) -> bool {
        self.live.get(v.index()).copied().unwrap_or(false)
    }
    fn mark(&mut self, v: ValueId) {
        if let Some(l) = self.live.get_mut(v.index()) {
            if !*l {
                *l = true;
                self.changed = true;
            }
        }
    }
    fn slot_live(&self, slot: &[ValueId]) -> bool {
        slot.iter().any(|&v| self.is_live(v))
    }
    fn mark_args(&mut self, args: &[ValueId], target: Option<&Target>) {
        match target {
            Some(Target::Slots(slots)) => {
                for (k, &a) in args.iter().enumerate() {
                    // An argument without a slot is malformed IR; keep it rather than guess.
                    if slots.get(k).is_none_or(|s| self.slot_live(s)) {
                        self.mark(a);
                    }
                }
            }
            _ => args.iter().for_each(|&a| self.mark(a)),
        }
    }

    /// `breaks`: the innermost Loop/Switch target; `conts`: the innermost loop target.
    fn block(
        &mut self,
        b: &Block,
        yields: Option<&Target>,
        breaks: Option<&Target>,
        conts: Option<&Target>,
    ) {
        match &b.term {
            Terminator::Yield(a) => self.mark_args(a, yields),
            Terminator::Break(a) => self.mark_args(a, breaks),
            Terminator::Continue(a) => self.mark_args(a, conts),
            Terminator::Return(Some(v)) => self.mark(*v),
            _ => {}
        }
        for inst in b.insts.iter().rev() {
            match &inst.op {
                Op::If { cond, then_, else_, results } => {
                    let t = Target::Slots(results.iter().map(|&r| vec![r]).collect());
                    self.block(then_, Some(&t), breaks, conts);
                    self.block(else_, Some(&t), breaks, conts);
                    self.mark(*cond);
                }
                Op::Switch { selector, cases, results } => {
                    let t = Target::Slots(results.iter().map(|&r| vec![r]).collect());
                    for c in cases {
                        self.block(&c.body, Some(&t), Some(&t), conts);
                    }
                    self.mark(*selector);
                }
                Op::Loop { init, body, continuing, break_if, results } => {
                    let slots: Vec<Vec<ValueId>> = (0..results.len())
                        .map(|k| {
                            [results.get(k), body.params.get(k), continuing.params.get(k)]
                                .into_iter()
                                .flatten()
                                .copied()
                                .collect()
                        })
                        .collect();
                    for (k, s) in slots.iter().enumerate() {
                        if self.slot_live(s) {
                            for &v in s {
                                self.mark(v);
                            }
                            if let Some(&i) = init.get(k) {
                                self.mark(i);
                            }
                        }
                    }
                    if let Some(b) = break_if {
                        self.mark(*b);
                    }
                    let t = Target::Slots(slots);
                    self.block(
                        continuing,
                        Some(&t),
                        Some(&Target::Barrier),
                        Some(&Target::Barrier),
                    );
                    self.block(body, Some(&t), Some(&t), Some(&t));
                }
                Op::Inline { body, args, .. } => {
                    self.block(body, None, Some(&Target::Barrier), Some(&Target::Barrier));
                    args.iter().for_each(|&a| self.mark(a));
                }
                op => {
                    let live =
                        op.has_side_effects() || inst.result.is_some_and(|r| self.is_live(r));
                    if live {
                        op.for_each_operand(|v| self.mark(v));
                    }
                }
            }
        }
    }
}

fn liveness(f: &Function) -> Vec<bool> {
    let mut live = vec![false; f.values.len()];
    for _ in 0..10_000 {
        let mut mk = Marker { live: &mut live, changed: false };
        mk.block(&f.body, None, None, None);
        if !mk.changed {
            break;
        }
    }
    live
}

fn is_live(live: &[bool], v: ValueId) -> bool {
    live.get(v.index()).copied().unwrap_or(true)
}

fn remove_indices<T>(v: &mut Vec<T>, dead: &[usize]) {
    let mut k = 0;
    v.retain(|_| {
        let keep = !dead.contains(&k);
        k += 1;
        keep
    });
}

/// Removes the `dead` arguments of the terminators that reach a region from inside `b`.
fn strip(b: &mut Block, yields: bool, breaks: bool, conts: bool, dead: &[usize]) {
    match &mut b.term {
        Terminator::Yield(a) if yields => remove_indices(a, dead),
        Terminator::Break(a) if breaks => remove_indices(a, dead),
        Terminator::Continue(a) if conts => remove_indices(a, dead),
        _ => {}
    }
    if !breaks && !conts {
        return;
    }
    for inst in &mut b.insts {
        match &mut inst.op {
            Op::If { then_, else_, .. } => {
                strip(then_, false, breaks, conts, dead);
                strip(else_, false, breaks, conts, dead);
            }
            Op::Switch { cases, .. } => {
                for c in cases {
                    strip(&mut c.body, false, false, conts, dead);
                }
            }
            _ => {}
        }
    }
}

/// Removes what `live` says is dead; returns whether anything changed.
fn sweep(b: &mut Block, live: &[bool]) -> bool {
    let mut changed = false;
    let before = b.insts.len();
    b.insts
        .retain(|inst| inst.op.has_side_effects() || inst.result.is_none_or(|r| is_live(live, r)));
    changed |= b.insts.len() != before;
    for inst in &mut b.insts {
        match &mut inst.op {
            Op::If { then_, else_, results, .. } => {
                let dead: Vec<usize> =
                    (0..results.len()).filter(|&k| !is_live(live, results[k])).collect();
                if !dead.is_empty() {
                    strip(then_, true, false, false, &dead);
                    strip(else_, true, false, false, &dead);
                    remove_indices(results, &dead);
                    changed = true;
                }
            }
            Op::Switch { cases, results, .. } => {
                let dead: Vec<usize> =
                    (0..results.len()).filter(|&k| !is_live(live, results[k])).collect();
                if !dead.is_empty() {
                    for c in cases.iter_mut() {
                        strip(&mut c.body, true, true, false, &dead);
                    }
                    remove_indices(results, &dead);
                    changed = true;
                }
            }
            Op::Loop { init, body, continuing, results, .. } => {
                let n = results.len();
                if init.len() == n && body.params.len() == n && continuing.params.len() == n {
                    let dead: Vec<usize> = (0..n)
                        .filter(|&k| {
                            !is_live(live, results[k])
                                && !is_live(live, body.params[k])
                                && !is_live(live, continuing.params[k])
                        })
                        .collect();
                    if !dead.is_empty() {
                        strip(body, true, true, true, &dead);
                        strip(continuing, true, false, false, &dead);
                        remove_indices(init, &dead);
                        remove_indices(&mut body.params, &dead);
                        remove_indices(&mut continuing.params, &dead);
                        remove_indices(results, &dead);
                        changed = true;
                    }
                }
            }
            _ => {}
        }
        for nb in inst.op.blocks_mut() {
            changed |= sweep(nb, live);
        }
    }
    // An `if` with nothing inside and no results does nothing.
    let before = b.insts.len();
    b.insts.retain(|inst| match &inst.op {
        Op::If { then_, else_, results, .. } => {
            let empty = |x: &Block| x.insts.is_empty() && x.term == Terminator::Yield(Vec::new());
            !(results.is_empty() && empty(then_) && empty(else_))
        }
        _ => true,
    });
    changed | (b.insts.len() != before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::testutil::{count_insts, run, Builder, Val};
    use crate::verifier::verify;
    use BinaryOperator as B;

    #[test]
    fn removes_dead_values_results_and_loop_state() {
        // loop carrying (i, junk): junk = junk * 3 is only passed around; an if result unused.
        let mut b = Builder::new("f");
        let it = b.i32();
        b.result(it);
        let p = b.param(it);
        let zero = b.ci(0);
        let _dead = b.bin(B::Add, p, zero);
        let (i, j) = (b.val(it), b.val(it));
        let (ci, cj) = (b.val(it), b.val(it));
        let (ri, rj) = (b.val(it), b.val(it));
        b.open_with(vec![i, j]);
        let c = b.bin(B::GreaterEqual, i, p);
        b.open();
        let t = b.close(Terminator::Break(vec![i, j]));
        b.open();
        let e = b.close(Terminator::Yield(vec![]));
        b.stmt(Op::If { cond: c, then_: t, else_: e, results: vec![] });
        let three = b.ci(3);
        let j2 = b.bin(B::Multiply, j, three);
        let unused = b.val(it);
        let c2 = b.bin(B::Less, i, three);
        b.open();
        let t = b.close(Terminator::Yield(vec![j2]));
        b.open();
        let e = b.close(Terminator::Yield(vec![i]));
        b.stmt(Op::If { cond: c2, then_: t, else_: e, results: vec![unused] });
        let body = b.close(Terminator::Yield(vec![i, j2]));
        b.open_with(vec![ci, cj]);
        let one = b.ci(1);
        let i2 = b.bin(B::Add, ci, one);
        let cont = b.close(Terminator::Yield(vec![i2, cj]));
        b.stmt(Op::Loop {
            init: vec![zero, zero],
            body,
            continuing: cont,
            break_if: None,
            results: vec![ri, rj],
        });
        let mut m = b.finish_entry(Terminator::Return(Some(ri)));
        verify(&m).unwrap();
        dce(&mut m);
        verify(&m).unwrap_or_else(|d| panic!("{d:?}\n{}", crate::text::module_text(&m)));
        let f = &m.functions[0];
        let Some(Op::Loop { init, results, body, .. }) =
            f.body.insts.iter().map(|i| &i.op).find(|o| matches!(o, Op::Loop { .. }))
        else {
            panic!()
        };
        assert_eq!((init.len(), results.len(), body.params.len()), (1, 1, 1));
        assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::Binary(B::Multiply, ..))), 0);
        assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::If { .. })), 1, "empty if removed");
        assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::Binary(B::Add, ..))), 1);
        for x in [0, 4] {
            assert_eq!(run(&m, FuncId(0), vec![Val::I(x)]).unwrap(), Some(Val::I(x)));
        }
    }

    #[test]
    fn keeps_side_effects() {
        let mut b = Builder::new("f");
        let it = b.i32();
        let x = b.var("x", it);
        let one = b.ci(1);
        b.store(x, one);
        let _unused_load = b.load(x);
        let it2 = b.u32();
        b.local("never_used", it2);
        let mut m = b.finish_entry(Terminator::Return(None));
        dce(&mut m);
        verify(&m).unwrap();
        let body = &m.functions[0].body;
        assert_eq!(count_insts(body, &|o| matches!(o, Op::Store { .. })), 1);
        assert_eq!(count_insts(body, &|o| matches!(o, Op::Load(_))), 0);
        let names: Vec<_> = m.functions[0].locals.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["x"]);
    }
}
