//! Which contraction decisions an executor's results follow, so that its reference makes the
//! same ones (`docs/math.md`, "Contraction").
//!
//! The PTX executors (ours and LLVM's, emulated or on CUDA) run code made from dianran's SSA,
//! whose fused multiply-adds are explicit `fma`s that PTX rounds once: the interpreter on the
//! same SSA predicts them exactly. `lavapipe` runs the user's own WGSL, and llvmpipe contracts
//! nothing: its reference is the interpreter on the module compiled with contraction off.
//! `lavapipe-out` runs the WGSL printed from the SSA; WGSL lets `fma` round once or twice and
//! llvmpipe does either (twice in `hash_noise`, once somewhere in gpu.cpp's aurora kernel), so
//! no reference can predict a printed `fma` bit for bit: the agreement engine
//! (`crate::engine`) has `lavapipe-out` print the module compiled with contraction off, whose
//! every rounding is explicit, and compares it with the interpreter on that module
//! (`verify/tests/samples.rs`, `hash_noise`, checks both lavapipe executors bit for bit
//! against the unfused hashes).

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
