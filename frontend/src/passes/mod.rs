//! SSA passes: mem2reg, constant folding, CSE, DCE, inlining.
//!
//! Each pass takes a verified module and leaves a verified module; [`optimize`] runs the
//! standard pipeline and, in debug builds and tests, checks that promise with
//! [`crate::verifier::verify`] after every pass.

// `Diagnostic` is the project's error type everywhere; boxing it here alone would not help.
#![allow(clippy::result_large_err)]

mod cse;
mod dce;
mod fold;
mod inline;
mod mem2reg;
mod util;

pub use cse::cse;
pub use dce::dce;
pub use fold::fold;
pub use inline::inline_calls;
pub use mem2reg::mem2reg;

use crate::{ir::Module, Diagnostic};

/// Rounds of fold/cse/dce after mem2reg; two reach a fixed point on typical shaders (folding
/// an `if` exposes more constants once, rarely twice).
const ROUNDS: usize = 2;

/// Runs the standard pipeline (mem2reg, then fold, cse, dce twice), verifying the input and
/// the output of every pass in debug builds and tests. An error is a bug in a pass
/// (`DiagKind::Internal`), noted with the pass that produced the bad IR.
pub fn optimize(m: &mut Module) -> Result<(), Diagnostic> {
    let check = |m: &Module, pass: &str| -> Result<(), Diagnostic> {
        if cfg!(any(debug_assertions, test)) {
            crate::verifier::verify(m).map_err(|d| d.note(format!("after {pass}")))?;
        }
        Ok(())
    };
    check(m, "lowering")?;
    mem2reg(m);
    check(m, "mem2reg")?;
    for _ in 0..ROUNDS {
        fold(m);
        check(m, "fold")?;
        cse(m);
        check(m, "cse")?;
        dce(m);
        check(m, "dce")?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests;
