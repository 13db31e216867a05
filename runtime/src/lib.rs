//! dianran's CUDA runtime: the one place that talks to the CUDA driver (through `cudarc`).
//!
//! * `cuda` (feature `cuda`): device discovery, contexts that survive a missing driver or a faulting kernel,
//!   driver error text, and `cuda::run_kernel`, which JIT-loads PTX and launches one entry
//!   with its parameters as device buffers or by-value bytes (immediate data, compare words).
//! * [`texture`]: texture host data (formats, texels, sampler state, the compare word) that a
//!   launch binds and the reference model in `dianran-verify` reads.
//!
//! `dianran::launch` (reflection-driven launches for applications) and `dianran-verify`'s
//! `cuda` executors both launch through this crate, so a parameter the one can pass the other
//! can too. Nothing here depends on the test oracle.

#[cfg(feature = "cuda")]
pub mod cuda;
pub mod texture;
