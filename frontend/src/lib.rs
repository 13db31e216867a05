//! dianran's frontend: WGSL (through naga) to the structured SSA form of [`ir`].
//!
//! The entry point is [`compile`]: parse and validate with naga, resolve `override`s, run the
//! checks naga misses, lower to SSA, and run the standard passes with the verifier after each
//! one in debug builds.

pub mod diag;
pub mod ir;
pub mod text;

pub use diag::{DiagKind, Diagnostic, Diagnostics};
pub use ir::Module;
