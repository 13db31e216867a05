//! Automatic reduction of a failing program on the generator's syntax tree.
//!
//! Edits are tried one at a time, largest first: delete a helper function or a module-scope
//! variable, delete a statement, replace a compound statement by one of its bodies, replace an
//! expression by the zero value of its type or by one of its same-typed operands. An edit is
//! kept when the result still fails the same way (same kind and stage; naga's validation is
//! part of the check, so an edit that makes the program invalid is dropped). Passes repeat
//! until none applies or the time budget runs out.
//!
//! Edits never touch what keeps a program deterministic and finite: assignment targets (an
//! invocation's own output slot must stay its own), pointers (`&out_c[...]`, atomic slots),
//! loop conditions and counter steps, the `idx`/`csg` indices, barriers, and the masking
//! that keeps an index in range (it may become zero, not its unmasked operand).

use crate::ast::{Expr, ExprKind, Program, Stmt, ENTRY};
use crate::check::Failure;
use std::time::{Duration, Instant};

/// One edit site, found by walking the tree in a fixed order.
struct Walker {
    /// The edit to apply.
    target: usize,
    /// Sites seen so far.
    seen: usize,
    /// Set once the target was applied.
    done: bool,
}

impl Walker {
    /// Counts a site; true when it is the target (and marks the walk done).
    fn hit(&mut self) -> bool {
        let now = self.seen == self.target && !self.done;
        self.seen += 1;
        if now {
            self.done = true;
        }
        now
    }

    fn stmts(&mut self, list: &mut Vec<Stmt>) {
        // Deleting whole halves, then single statements.
        let n = list.len();
        if n >= 4 {
            for half in [0..n / 2, n / 2..n] {
                if self.done {
                    return;
                }
                if self.hit() {
                    list.drain(half);
                    return;
                }
            }
        }
        let mut i = 0;
        while i < list.len() {
            if self.done {
                return;
            }
            let keep = match &list[i] {
                Stmt::Step(..) => true,
                // A deleted barrier would make a race, a failure of its own.
                Stmt::Call(f, _) => f.ends_with("Barrier"),
                Stmt::Let(n, _) => n == "idx" || n == "csg",
                _ => false,
            };
            if !keep && self.hit() {
                list.remove(i);
                return;
            }
            // A compound statement replaced by one of its bodies.
            let bodies: Vec<Vec<Stmt>> = match &list[i] {
                Stmt::If(_, t, e) => vec![t.clone(), e.clone()],
                Stmt::For { body, .. } | Stmt::While(_, body) | Stmt::Block(body) => {
                    vec![body.clone()]
                }
                Stmt::Loop { body, .. } => vec![body.clone()],
                Stmt::Switch(_, cases) => cases.iter().map(|c| c.body.clone()).collect(),
                _ => Vec::new(),
            };
            for b in bodies {
                if self.hit() {
                    list.splice(i..=i, b);
                    return;
                }
            }
            for body in list[i].bodies_mut() {
                self.stmts(body);
                if self.done {
                    return;
                }
            }
            // Values only: not assignment targets, loop control, or the invocation indices.
            let values: Vec<&mut Expr> = match &mut list[i] {
                Stmt::Assign(_, _, rhs) => vec![rhs],
                Stmt::Let(n, _) if n == "idx" || n == "csg" => Vec::new(),
                Stmt::Step(..) | Stmt::For { .. } | Stmt::While(..) | Stmt::Loop { .. } => {
                    Vec::new()
                }
                s => s.exprs_mut(),
            };
            for e in values {
                self.expr(e);
                if self.done {
                    return;
                }
            }
            i += 1;
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        self.expr_in(e, false);
    }

    /// `masked`: `e` is an index, whose outermost operation keeps it in range (`% len`,
    /// `min(i, last)`): it may become zero but not one of its operands.
    fn expr_in(&mut self, e: &mut Expr, masked: bool) {
        // Pointers (output regions, atomic slots) stay as they are.
        if matches!(&*e.kind, ExprKind::AddrOf(_)) {
            return;
        }
        // Pointers, atomics and matrices of the cooperative kind have no zero value.
        if let Some(z) = Expr::zero(&e.ty) {
            if !matches!(&*e.kind, ExprKind::Call(f, a) if a.is_empty() && f == &e.ty.wgsl())
                && self.hit()
            {
                *e = z;
                return;
            }
        }
        if !masked {
            let same: Vec<Expr> =
                e.children().into_iter().filter(|c| c.ty == e.ty).cloned().collect();
            for c in same {
                if self.hit() {
                    *e = c;
                    return;
                }
            }
        }
        if let ExprKind::Index(base, index) = &mut *e.kind {
            self.expr(base);
            if !self.done {
                self.expr_in(index, true);
            }
            return;
        }
        for c in e.children_mut() {
            self.expr(c);
            if self.done {
                return;
            }
        }
    }

    fn program(&mut self, p: &mut Program) {
        // Helper functions and module-scope variables (they are dropped only when nothing
        // uses them: otherwise naga rejects the candidate).
        let mut k = 0;
        while k < p.functions.len() {
            if p.functions[k].name != ENTRY && self.hit() {
                p.functions.remove(k);
                return;
            }
            k += 1;
        }
        let mut k = 0;
        while k < p.globals.len() {
            if self.hit() {
                p.globals.remove(k);
                return;
            }
            k += 1;
        }
        for f in &mut p.functions {
            self.stmts(&mut f.body);
            if self.done {
                return;
            }
        }
    }
}

/// Applies edit number `k` to a copy of `p`; `None` when there are fewer edits.
fn edit(p: &Program, k: usize) -> Option<Program> {
    let mut q = p.clone();
    let mut w = Walker { target: k, seen: 0, done: false };
    w.program(&mut q);
    w.done.then_some(q)
}

/// Shrinks `program`, which fails as `failure` under `test` (which returns the failure of a
/// candidate, if any), for at most `budget`. Returns the smallest program found and the
/// number of edits kept.
pub fn reduce(
    program: &Program,
    failure: &Failure,
    budget: Duration,
    mut test: impl FnMut(&Program) -> Option<Failure>,
) -> (Program, usize) {
    let start = Instant::now();
    let mut best = program.clone();
    let mut kept = 0;
    loop {
        let mut progress = false;
        let mut k = 0;
        while let Some(cand) = edit(&best, k) {
            if start.elapsed() > budget {
                return (best, kept);
            }
            match test(&cand) {
                Some(f) if f.same(failure) => {
                    best = cand;
                    kept += 1;
                    progress = true;
                    // The same index now names the next edit.
                }
                _ => k += 1,
            }
        }
        if !progress {
            return (best, kept);
        }
    }
}

/// The statements of a program, counted through every nesting (a size measure for reports).
pub fn size(p: &Program) -> usize {
    fn count(list: &[Stmt]) -> usize {
        list.iter()
            .map(|s| {
                1 + match s {
                    Stmt::If(_, a, b) => count(a) + count(b),
                    Stmt::Switch(_, cs) => cs.iter().map(|c| count(&c.body)).sum(),
                    Stmt::Loop { body, continuing, .. } => count(body) + count(continuing),
                    Stmt::For { body, .. } | Stmt::While(_, body) | Stmt::Block(body) => {
                        count(body)
                    }
                    _ => 0,
                }
            })
            .sum()
    }
    p.functions.iter().map(|f| count(&f.body)).sum()
}
