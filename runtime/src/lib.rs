//! dianran's CUDA runtime: the one place that talks to the CUDA driver (through `cudarc`).
//!
//! * [`reflect`]: what a host must know to bind and launch an entry, and
//!   [`reflect::from_module`], which fills it in from a compiled module (`dianran::compile`,
//!   `dianran::build` and verify's CUDA executors use it).
//! * [`texture`]: texture host data (formats, texels, sampler state, the compare word) that a
//!   launch binds and the reference model in `dianran-verify` reads.
//! * `cuda` (feature `cuda`): device discovery, contexts that survive a missing driver or a
//!   faulting kernel, driver error text, and `cuda::run_kernel`, which JIT-loads raw PTX
//!   (hand-written kernels in tests) and launches one entry with its parameters as device
//!   buffers or by-value bytes.
//! * `launch` (feature `cuda`, re-exported as `dianran::launch`): reflection-driven launches
//!   for applications: buffers checked against their layouts, sizes, immediates, textures.
//!
//! `dianran::launch` and `dianran-verify`'s `cuda` executors both launch compiled entries
//! through `launch::CudaModule::launch_full`, textures and immediates included.
//! Nothing here depends on the test oracle; without the `cuda` feature nothing depends on
//! cudarc either, so a build script gets the reflection types alone.

#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(feature = "cuda")]
pub mod launch;
pub mod reflect;
pub mod texture;
