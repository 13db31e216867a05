//! The extension layer: WGSL that naga cannot read, rewritten into WGSL it can.
//!
//! An extension runs only when its `enable` directive is present; other files reach naga
//! unchanged (byte for byte, so their output and compile time do not change). Each
//! extension parses the text for real, checks its own rules with spans into the user's
//! file, splices in ordinary WGSL (opaque structs and helper functions with the reserved
//! prefix `_dr_`) and records a [`srcmap::SourceMap`] so that everything naga reports about
//! the new text points back into the user's. The lowering then recognises the helpers and
//! emits the extension's IR operations.
//!
//! * [`sgm`]: Dawn's subgroup matrices (`docs/subgroup-matrix.md`).

pub mod naga_spans;
pub mod sgm;
pub mod srcmap;
