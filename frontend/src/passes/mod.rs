//! SSA passes: mem2reg, constant folding, CSE, DCE, inlining, loop-invariant code motion,
//! strength reduction, full unrolling of short counted loops, and the bounds policy with its check elimination and guard merging.
//!
//! Each pass takes a verified module and leaves a verified module; [`optimize`] runs the
//! standard pipeline and, in debug builds and tests, checks that promise with
//! [`crate::verifier::verify`] after every pass.

// `Diagnostic` is the project's error type everywhere; boxing it here alone would not help.
#![allow(clippy::result_large_err)]

mod bounds;
mod contract;
mod cse;
mod dce;
mod fold;
mod fold64;
mod guards;
mod inline;
mod licm;
mod mem2reg;
mod ranges;
mod rotate;
mod shortcircuit;
mod sr;
mod unroll;
mod util;
mod version;

pub use bounds::{bounds, entry_counts, BoundsCounts};
pub use contract::contract;
pub use cse::cse;
pub use dce::dce;
pub use fold::fold;
pub use guards::{merge_guards, merge_guards_function};
pub use inline::inline_calls;
pub use licm::{licm, licm_function, Speculate};
pub use mem2reg::mem2reg;
pub use ranges::{fold_ranges, ValueRanges};
pub use rotate::rotate_loops;
pub use shortcircuit::flatten_short_circuits;
pub use sr::{strength_reduce, MAX_NEW_STATE};
pub use unroll::{unroll_loops, MAX_COPIED, MAX_TRIPS};
pub use version::{version_loops, MAX_LOOP};

use crate::{
    ir::{FuncId, Function, Module},
    Diagnostic,
};

/// Rounds of fold/cse/dce after mem2reg; two reach a fixed point on typical shaders (folding
/// an `if` exposes more constants once, rarely twice).
const ROUNDS: usize = 2;

/// Runs the standard pipeline (mem2reg, then short-circuit flattening, fold, cse, dce twice,
/// then licm, cse, dce),
/// verifying the input and
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
        flatten_short_circuits(m);
        check(m, "flatten_short_circuits")?;
        fold(m);
        check(m, "fold")?;
        cse(m);
        check(m, "cse")?;
        dce(m);
        check(m, "dce")?;
    }
    // After folding, so that constant conditions are gone and hoisted instructions meet the
    // ones before the loop in the CSE that follows.
    licm(m);
    check(m, "licm")?;
    cse(m);
    check(m, "cse")?;
    dce(m);
    check(m, "dce")?;
    Ok(())
}

/// [`bounds`] (WebGPU's bounds policy, `docs/bounds.md`), then, when it added checks,
/// [`merge_guards`] (a check directly inside a user's guard joins its condition) and one
/// round of fold, CSE and DCE so that the new comparisons meet the ones already there; checked
/// with the verifier in debug builds and tests like the passes of [`optimize`]; runs after them.
pub fn bounds_checked(m: &mut Module) -> Result<(), Diagnostic> {
    let check = |m: &Module, pass: &str| -> Result<(), Diagnostic> {
        if cfg!(any(debug_assertions, test)) {
            crate::verifier::verify(m).map_err(|d| d.note(format!("after {pass}")))?;
        }
        Ok(())
    };
    if !bounds(m) {
        return check(m, "bounds");
    }
    check(m, "bounds")?;
    merge_guards(m, Speculate::Checked);
    check(m, "merge_guards")?;
    fold(m);
    check(m, "fold")?;
    cse(m);
    check(m, "cse")?;
    dce(m);
    check(m, "dce")
}

/// [`contract`] (the fused multiply-adds of `docs/math.md`, "Contraction"), checked with the
/// verifier in debug builds and tests like the passes of [`optimize`]; runs after them.
pub fn contract_checked(m: &mut Module) -> Result<(), Diagnostic> {
    contract(m);
    if cfg!(any(debug_assertions, test)) {
        crate::verifier::verify(m).map_err(|d| d.note("after contract"))?;
    }
    Ok(())
}

/// The passes for a function with its calls inlined (function `id` of `m`, see
/// [`inline_calls`]), for backends whose address arithmetic never faults (PTX, LLVM):
/// inlined bodies that only compute and return only at their end spliced into the caller, [`unroll_loops`] (short counted loops become straight-line code), [`fold_ranges`] (bounds-policy clamps and guards the caller's values prove unnecessary),
/// [`merge_guards`] with pointer formation speculated, then loop invariants move with [`Speculate::Addresses`], then [`version_loops`] (bounds checks hoisted out of counted loops), [`strength_reduce`],
/// [`rotate_loops`], CSE and DCE. In debug builds and tests the result is checked with the verifier (in a copy
/// of `m` holding it as function `id`); an error is a bug in a pass.
pub fn optimize_inlined(m: &Module, id: FuncId, f: &mut Function) -> Result<(), Diagnostic> {
    // Callees that only compute (no stores, atomics or barriers) and return only at their
    // end become straight-line code of the caller, so that CSE sees across calls
    // (`getIndex(x, y)` reloading `size` in every call). Callees that write keep their
    // regions: the PTX vectorizer merges a helper's stores `tile[at + k]` against its
    // parameter `at`, which splicing would replace by the argument's own sum
    // (`put_a(sa + 16u, v)`: measured, the GEMM main loop's four `STS.128` became fourteen
    // stores). The workgroup-matrix helpers keep their regions too.
    inline::splice_inlines_except(f, &|g, body| m.tile_helper(g).is_some() || inline::acts(body));
    // First, so that range folding sees each copy's constants (a reduction's `lid < 64`
    // guard then proves its `red[lid + 64]` clamp unnecessary).
    if unroll_loops(f) {
        cse::cse_function(&m.types, f);
        dce::dce_function(f);
    }
    if fold_ranges(m, id, f) {
        dce::dce_function(f);
    }
    // After range folding, which removes guards the caller proves, and before LICM, which can
    // then hoist the hoisted comparisons out of loops.
    merge_guards_function(&m.globals, f, Speculate::Addresses);
    licm_function(&m.types, &m.globals, f, Speculate::Addresses);
    // After LICM, which moves the checks' lengths and invariant index parts out of the loop,
    // and before strength reduction, which would hide the counter in new loop state.
    version_loops(&m.types, f);
    strength_reduce(&m.types, f);
    // After strength reduction, so that the duplicated header tests the reduced state.
    rotate_loops(f);
    cse::cse_function(&m.types, f);
    dce::dce_function(f);
    if cfg!(any(debug_assertions, test)) && id.index() < m.functions.len() {
        let mut copy = m.clone();
        copy.functions[id.index()] = f.clone();
        crate::verifier::verify(&copy).map_err(|d| d.note("after the loop passes (inlined)"))?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod loop_tests;
