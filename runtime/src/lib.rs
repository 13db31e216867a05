//! dianran's CUDA runtime: the one place that talks to the CUDA driver (through `cudarc`).
//!
//! * [`reflect`]: what a host must know to bind and launch an entry (`dianran::compile` and
//!   `dianran::build` fill these types in).
//! * [`texture`]: texture host data (formats, texels, sampler state, the compare word) that a
//!   launch binds and the reference model in `dianran-verify` reads.
//! * `cuda` (feature `cuda`): device discovery, contexts that survive a missing driver or a
//!   faulting kernel, driver error text, and `cuda::run_kernel`, which JIT-loads PTX and
//!   launches one entry with its parameters as device buffers or by-value bytes (immediate
//!   data, compare words).
//! * `launch` (feature `cuda`, re-exported as `dianran::launch`): reflection-driven launches
//!   for applications: buffers checked against their layouts, sizes, immediates, textures.
//!
//! `dianran::launch` and `dianran-verify`'s `cuda` executors both launch through this crate.
//! Nothing here depends on the test oracle; without the `cuda` feature nothing depends on
//! cudarc either, so a build script gets the reflection types alone.

#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(feature = "cuda")]
pub mod launch;
pub mod reflect;
pub mod texture;
