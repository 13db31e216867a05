//! Stores to per-invocation memory that nothing reads back.
//!
//! Private variables and function variables that stay in memory live in the entry's local
//! depot (`__local_depot`). Some are written and never read in the PTX: the workgroup-matrix
//! extension keeps `local_invocation_index` in a private variable for its portable helpers,
//! which the tensor-core lowering replaces without reading it. `ptxas` usually deletes such
//! stores itself, but not always (beside `cp.async` it kept a 144-byte stack frame for two
//! of them), so the selected code drops them: when no instruction can read local memory (a
//! load, atomic or reduction in `.local` or through a generic address, or a call), every
//! `st.local` is dead, and so is what only computed its address or value.

use super::regalloc::MFunction;
use crate::model::{Opcode, Operand, StateSpace};

/// The depot's name in the PTX.
pub(crate) const DEPOT: &str = "__local_depot";

/// Deletes the function's `st.local` instructions when nothing can read local memory;
/// returns whether any instruction still names the depot (the caller declares it only then).
pub(crate) fn drop_unread_stores(mf: &mut MFunction) -> bool {
    let insts = || mf.blocks.iter().flat_map(|b| &b.insts);
    let may_read = insts().any(|i| match i.op {
        Opcode::Ld | Opcode::Atom | Opcode::Red => {
            matches!(i.space(), StateSpace::Local | StateSpace::Generic)
        }
        Opcode::Call => true,
        _ => false,
    });
    if !may_read {
        let mut work = Vec::new();
        for b in &mut mf.blocks {
            b.insts.retain(|i| {
                let dead = i.op == Opcode::St && i.space() == StateSpace::Local;
                if dead {
                    i.for_each_reg(|r| work.push(r));
                }
                !dead
            });
        }
        super::vectorize::delete_dead(mf, work);
    }
    mf.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        i.operands.iter().any(|o| match o {
            Operand::Symbol(s) => s == DEPOT,
            Operand::Address(a) => {
                matches!(&a.base, crate::model::AddrBase::Symbol(s) if s == DEPOT)
            }
            _ => false,
        })
    })
}
