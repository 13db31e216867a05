//! The machine function's validator, run between the machine passes in debug builds
//! (`compile_entry`): a pass that breaks the model is named in an internal-error diagnostic
//! instead of surfacing as wrong PTX, a regalloc2 failure or a ptxas error far away.
//!
//! [`check_function`] checks, per function:
//!
//! * every instruction passes the model's structural check ([`check_instruction`]: operand
//!   count, operand forms, register file of every operand for the opcode and its types);
//! * every register is declared: its number indexes [`MFunction::kinds`] and its kind is the
//!   one recorded there;
//! * SSA: every register has at most one definition (block parameter or instruction);
//! * defined before use along the CFG: in every block reachable from the entry, each use
//!   (guard, source, address base, branch condition, branch argument) is dominated by the
//!   register's definition (earlier in the same block, or in a dominating block);
//! * the CFG: block 0 has no parameters, every branch target exists, argument counts and
//!   kinds match the target's parameters, branch conditions are predicates.
//!
//! Labels do not exist yet at this level (blocks are numbered); after allocation the entry's
//! statements go through [`check_entry`](crate::model::check::check_entry), which checks
//! labels and branch targets.

use super::regalloc::{MFunction, RegKind, Term, VRegId};
use crate::model::check::check_instruction;

/// Where a register is defined: block and position (0: a block parameter, `k + 1`: the
/// `k`-th instruction).
#[derive(Clone, Copy)]
struct Def {
    block: usize,
    pos: usize,
}

/// Checks `f` (module doc). The error names the block, and the instruction where there is one.
pub(crate) fn check_function(f: &MFunction) -> Result<(), String> {
    let n = f.blocks.len();
    if n == 0 {
        return Err("the function has no blocks".into());
    }
    if !f.blocks[0].params.is_empty() {
        return Err("the entry block has parameters".into());
    }
    let declared = |v: VRegId| f.kinds.get(v.num as usize) == Some(&v.kind);
    let mut defs: Vec<Option<Def>> = vec![None; f.kinds.len()];
    // Declarations, instruction forms, single definitions and the CFG's shape.
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut define = |v: VRegId, pos: usize, what: &dyn Fn() -> String| {
            if !declared(v) {
                return Err(format!("{}: undeclared register {v}", what()));
            }
            match &mut defs[v.num as usize] {
                Some(d) => Err(format!(
                    "{}: register {v} is defined a second time (first in block {}, position {})",
                    what(),
                    d.block,
                    d.pos
                )),
                slot => {
                    *slot = Some(Def { block: bi, pos });
                    Ok(())
                }
            }
        };
        for &p in &b.params {
            define(p, 0, &|| format!("block {bi} parameter"))?;
        }
        for (k, i) in b.insts.iter().enumerate() {
            let at = || format!("block {bi}, instruction {k} '{}'", i.opcode_text());
            check_instruction(i).map_err(|e| format!("{}: {}", at(), e.message))?;
            let mut err = None;
            i.for_each_reg_access(|r, def| {
                if err.is_some() {
                    return;
                }
                if def {
                    err = define(r, k + 1, &at).err();
                } else if !declared(r) {
                    err = Some(format!("{}: undeclared register {r}", at()));
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
        }
        if let Term::Branch { cond, .. } = &b.term {
            if !declared(*cond) || cond.kind != RegKind::Pred {
                return Err(format!("block {bi}: the branch condition {cond} is not a predicate"));
            }
        }
        for t in b.term.targets() {
            let Some(target) = f.blocks.get(t.block.0 as usize) else {
                return Err(format!("block {bi}: branch to missing block {}", t.block.0));
            };
            if target.params.len() != t.args.len() {
                return Err(format!(
                    "block {bi}: {} arguments for the {} parameters of block {}",
                    t.args.len(),
                    target.params.len(),
                    t.block.0
                ));
            }
            for (a, p) in t.args.iter().zip(&target.params) {
                if !declared(*a) || a.kind != p.kind {
                    return Err(format!(
                        "block {bi}: argument {a} does not fit parameter {p} of block {}",
                        t.block.0
                    ));
                }
            }
        }
    }
    // Defined before use: dominance on the reachable blocks.
    let dom = Dominators::new(f);
    for (bi, b) in f.blocks.iter().enumerate() {
        if !dom.reachable(bi) {
            continue;
        }
        let check = |v: VRegId, pos: usize, what: &dyn Fn() -> String| match defs
            .get(v.num as usize)
            .copied()
            .flatten()
        {
            None => Err(format!("{}: register {v} is used but never defined", what())),
            Some(d) if d.block == bi && d.pos < pos => Ok(()),
            Some(d) if d.block != bi && dom.dominates(d.block, bi) => Ok(()),
            Some(d) => Err(format!(
                "{}: register {v} is used where its definition (block {}, position {}) does \
                 not dominate",
                what(),
                d.block,
                d.pos
            )),
        };
        for (k, i) in b.insts.iter().enumerate() {
            let at = || format!("block {bi}, instruction {k} '{}'", i.opcode_text());
            let mut err = None;
            i.for_each_reg_access(|r, def| {
                if !def && err.is_none() {
                    err = check(r, k + 1, &at).err();
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
        }
        let end = b.insts.len() + 1;
        let at = || format!("block {bi}, terminator");
        if let Term::Branch { cond, .. } = &b.term {
            check(*cond, end, &at)?;
        }
        for t in b.term.targets() {
            for &a in &t.args {
                check(a, end, &at)?;
            }
        }
    }
    Ok(())
}

/// The dominator tree of the blocks reachable from block 0 (Cooper, Harvey and Kennedy's
/// iterative algorithm), with preorder intervals for constant-time queries.
struct Dominators {
    /// Preorder number of each block in the dominator tree (`usize::MAX`: unreachable).
    pre: Vec<usize>,
    /// One past the largest preorder number in each block's subtree.
    end: Vec<usize>,
}

impl Dominators {
    fn new(f: &MFunction) -> Self {
        let n = f.blocks.len();
        let succs = |b: usize| f.blocks[b].term.targets().into_iter().map(|t| t.block.0 as usize);
        // Reverse postorder by an explicit-stack depth-first search.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(0, succs(0).collect())];
        seen[0] = true;
        while let Some((b, rest)) = stack.last_mut() {
            match rest.pop() {
                Some(s) if s < n && !seen[s] => {
                    seen[s] = true;
                    stack.push((s, succs(s).collect()));
                }
                Some(_) => {}
                None => {
                    post.push(*b);
                    stack.pop();
                }
            }
        }
        let mut order = vec![usize::MAX; n];
        for (i, &b) in post.iter().enumerate() {
            order[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for &b in &post {
            for s in succs(b) {
                if s < n {
                    preds[s].push(b);
                }
            }
        }
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while order[x] < order[y] {
                                x = idom[x];
                            }
                            while order[y] < order[x] {
                                y = idom[y];
                            }
                        }
                        x
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for &b in &post {
            if b != 0 {
                children[idom[b]].push(b);
            }
        }
        let mut pre = vec![usize::MAX; n];
        let mut end = vec![0; n];
        let mut counter = 0;
        let mut stack = vec![(0usize, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                end[b] = counter;
                continue;
            }
            pre[b] = counter;
            counter += 1;
            stack.push((b, true));
            stack.extend(children[b].iter().map(|&c| (c, false)));
        }
        Dominators { pre, end }
    }

    fn reachable(&self, b: usize) -> bool {
        self.pre[b] != usize::MAX
    }

    /// Whether block `a` dominates block `b` (both reachable).
    fn dominates(&self, a: usize, b: usize) -> bool {
        self.reachable(a) && self.pre[a] <= self.pre[b] && self.pre[b] < self.end[a]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::regalloc::{BlockId, MBlock, Target};
    use crate::model::{build, Operand, Type};

    /// `b0: x = 1; @p? -> b1 | b2; b1: y = x + x -> b3(y); b2: -> b3(x); b3(z): ret`.
    fn diamond() -> MFunction {
        let mut f = MFunction::default();
        let x = f.new_vreg(RegKind::B32);
        let p = f.new_vreg(RegKind::Pred);
        let y = f.new_vreg(RegKind::B32);
        let z = f.new_vreg(RegKind::B32);
        let jump = |b: u32, args: Vec<VRegId>| Term::Jump(Target { block: BlockId(b), args });
        f.blocks = vec![
            MBlock {
                params: vec![],
                insts: vec![
                    build::mov(Type::U32, x, Operand::Imm(1)),
                    build::setp(crate::model::CmpOp::Eq, Type::U32, p, x, Operand::Imm(0)),
                ],
                term: Term::Branch {
                    cond: p,
                    then_: Target { block: BlockId(1), args: vec![] },
                    else_: Target { block: BlockId(2), args: vec![] },
                },
            },
            MBlock {
                params: vec![],
                insts: vec![build::add(Type::U32, y, x, x)],
                term: jump(3, vec![y]),
            },
            MBlock { params: vec![], insts: vec![], term: jump(3, vec![x]) },
            MBlock { params: vec![z], insts: vec![], term: Term::Ret },
        ];
        f
    }

    #[test]
    fn accepts_a_well_formed_diamond() {
        assert_eq!(check_function(&diamond()), Ok(()));
    }

    #[test]
    fn rejects_a_use_not_dominated_by_its_definition() {
        // y is defined in b1 only; b2 passing it to b3 reads it on a path without b1.
        let mut f = diamond();
        let y = f.blocks[1].insts[0].operands[0].clone();
        let Operand::Reg(y) = y else { panic!("add writes a register") };
        f.blocks[2].term = Term::Jump(Target { block: BlockId(3), args: vec![y] });
        let e = check_function(&f).expect_err("y does not dominate b2");
        assert!(e.contains("block 2") && e.contains("does not dominate"), "{e}");
    }

    #[test]
    fn rejects_a_use_before_the_definition_in_a_block() {
        let mut f = diamond();
        f.blocks[0].insts.swap(0, 1);
        let e = check_function(&f).expect_err("setp reads x before its mov");
        assert!(e.contains("block 0, instruction 0"), "{e}");
    }

    #[test]
    fn rejects_a_second_definition() {
        let mut f = diamond();
        let again = f.blocks[0].insts[0].clone();
        f.blocks[1].insts.push(again);
        let e = check_function(&f).expect_err("x is defined twice");
        assert!(e.contains("defined a second time"), "{e}");
    }

    #[test]
    fn rejects_undeclared_registers_and_wrong_files() {
        let mut f = diamond();
        let ghost = VRegId { kind: RegKind::B32, num: 99 };
        f.blocks[1].insts.push(build::add(Type::U32, ghost, ghost, ghost));
        assert!(check_function(&f).expect_err("undeclared").contains("undeclared"));
        // A 64-bit register as the source of a 32-bit add: the instruction check.
        let mut f = diamond();
        let wide = f.new_vreg(RegKind::B64);
        f.blocks[0].insts.insert(0, build::mov(Type::U64, wide, Operand::Imm(0)));
        let Operand::Reg(y) = f.blocks[1].insts[0].operands[0].clone() else { panic!() };
        f.blocks[1].insts[0] = build::add(Type::U32, y, wide, wide);
        let e = check_function(&f).expect_err("wrong register file");
        assert!(e.contains("block 1, instruction 0"), "{e}");
    }

    #[test]
    fn rejects_bad_branches() {
        let mut f = diamond();
        f.blocks[2].term = Term::Jump(Target { block: BlockId(3), args: vec![] });
        assert!(check_function(&f).expect_err("argument count").contains("0 arguments"));
        let mut f = diamond();
        f.blocks[2].term = Term::Jump(Target { block: BlockId(9), args: vec![] });
        assert!(check_function(&f).expect_err("missing block").contains("missing block 9"));
    }

    /// The check as `compile_entry` runs it between passes: a function broken by a pass is an
    /// internal error that names the pass (debug builds; release builds skip the check).
    #[test]
    fn a_broken_pass_is_an_internal_error_naming_it() {
        let mut f = diamond();
        f.blocks[0].insts.swap(0, 1);
        let r = crate::codegen::check_pass(&f, "vectorize", "main", Default::default());
        if cfg!(debug_assertions) {
            let d = r.expect_err("the swap breaks the function");
            assert_eq!(d.kind, dianran_frontend::DiagKind::Internal);
            assert!(d.message.contains("after vectorize"), "{}", d.message);
            assert_eq!(d.context.as_deref(), Some("main"));
        } else {
            assert!(r.is_ok());
        }
        assert!(
            crate::codegen::check_pass(&diamond(), "vectorize", "main", Default::default()).is_ok()
        );
    }
}
