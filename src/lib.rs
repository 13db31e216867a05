//! dianran: one WGSL kernel source, three targets (PTX first, MSL and WGSL).
//!
//! This crate is the facade over the pipeline's crates and the home of the `dianran`
//! command-line tool (`cli`, feature `cli`):
//!
//! * [`frontend`]: WGSL (through naga) to the structured SSA form, with diagnostics;
//! * [`ptx`], [`msl`], [`wgsl`]: the three printers;
//! * `verify` (feature `verify`): the reference interpreter, the PTX emulator and the external
//!   runners;
//! * `fuzz` (feature `fuzz`): the random program generator, reducer and campaign behind
//!   `dianran fuzz`.
//!
//! With `default-features = false` (a `build.rs` that compiles kernels) only the compiler crates
//! are built: no oracle, fuzzer or clap.
//!
//! ```no_run
//! let src = std::fs::read_to_string("kernel.wgsl").unwrap();
//! match dianran::frontend::compile("kernel.wgsl", &src, &Default::default()) {
//!     Ok(module) => print!("{}", dianran::frontend::text::module_text(&module)),
//!     Err(diagnostics) => eprint!("{}", diagnostics.render()),
//! }
//! ```

pub use dianran_frontend as frontend;
/// The random program generator (the `fuzz` cargo feature).
#[cfg(feature = "fuzz")]
pub use dianran_fuzz as fuzz;
/// The LLVM backend (the `llvm` cargo feature).
#[cfg(feature = "llvm")]
pub use dianran_llvm as llvm;
pub use dianran_msl as msl;
pub use dianran_ptx as ptx;
/// The reference interpreter, the emulator and the executors (the `verify` cargo feature).
#[cfg(feature = "verify")]
pub use dianran_verify as verify;
pub use dianran_wgsl as wgsl;

pub use dianran_frontend::{BoundsChecks, DiagKind, Diagnostic, Diagnostics};

pub mod api;
pub mod build;
#[cfg(feature = "cli")]
pub mod cli;
/// `bytemuck`, re-exported for the `Pod`/`Zeroable` host structs `dianran::build` generates.
pub use bytemuck;
/// Launching compiled entries through the CUDA driver (the `cuda` cargo feature):
/// `dianran-runtime`'s launcher.
#[cfg(feature = "cuda")]
pub use dianran_runtime::launch;
/// `half`, re-exported for the `f16` fields of generated host structs.
pub use half;
pub mod reflect;

pub use api::{compile, Compiled, Options};
