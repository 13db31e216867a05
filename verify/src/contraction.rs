//! Which contraction decisions an executor's results follow, so that its reference makes the
//! same ones (`docs/math.md`, "Contraction").
//!
//! The PTX executors (ours and LLVM's, emulated or on CUDA) run code made from dianran's SSA,
//! whose fused multiply-adds are explicit `fma`s that PTX rounds once: the interpreter on the
//! same SSA predicts them exactly. `lavapipe` runs the user's own WGSL, and llvmpipe contracts
//! nothing; `lavapipe-out` runs the WGSL printed from the SSA, whose `fma` calls llvmpipe
//! rounds like `a * b + c` (WGSL does not require one rounding). Both are predicted by the
//! interpreter on the module compiled with contraction off (`verify/tests/samples.rs`,
//! `hash_noise`, checks both bit for bit against the unfused hashes). The agreement engine
//! (`crate::engine`, `reference_for`) picks each executor's reference by this rule.

use crate::executors::Executor;

/// Whether `exec` computes the SSA's `fma`s with one rounding, and so follows its contraction
/// decisions.
pub fn follows_ssa_contraction(exec: Executor) -> bool {
    !matches!(exec, Executor::Lavapipe | Executor::LavapipeOut)
}

/// The frontend options of the module whose interpretation is the reference for `exec`, when
/// the executors run a module compiled with `opts`.
pub fn reference_options(
    exec: Executor,
    opts: &dianran_frontend::Options,
) -> dianran_frontend::Options {
    let mut o = opts.clone();
    if !follows_ssa_contraction(exec) {
        o.no_fma = true;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lavapipe_is_predicted_without_contraction() {
        let opts = dianran_frontend::Options::default();
        for exec in Executor::ALL {
            let want = matches!(exec, Executor::Lavapipe | Executor::LavapipeOut);
            assert_eq!(reference_options(exec, &opts).no_fma, want, "{}", exec.name());
        }
        let off = dianran_frontend::Options { no_fma: true, ..Default::default() };
        assert!(Executor::ALL.iter().all(|&e| reference_options(e, &off).no_fma));
    }
}
