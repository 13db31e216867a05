//! Verification for dianran: the reference interpreter of the SSA form, the PTX emulator,
//! ptxas, the cubin reader and the SASS instruction mix (nvdisasm), the CUDA driver runner,
//! the lavapipe runner and the MSL syntax check (docs/verification.md).

pub mod agree;
pub mod buffers;
pub mod contraction;
pub mod cubin;
/// The CUDA driver runner: `dianran-runtime`'s, the one `dianran::launch` uses too.
#[cfg(feature = "cuda")]
pub use dianran_runtime::cuda;
pub mod emu;
pub mod engine;
pub mod executors;
pub mod interp;
#[cfg(feature = "lavapipe")]
pub mod lavapipe;
#[cfg(feature = "lavapipe")]
pub mod lavapipe_features;
#[cfg(feature = "lavapipe")]
mod lavapipe_textures;
pub mod msl_check;
pub mod mufu;
pub mod ptxas;
pub mod samples;
pub mod sass;
pub mod sensitivity;
pub mod texture;
pub mod textured;
pub mod tools;
pub mod wide_features;
