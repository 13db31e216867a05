//! Reflection: what a host program must know to bind and launch a compiled module.
//!
//! * [`Entry`]: one entry point: its names on every target, stage, workgroup size, the PTX
//!   parameter list (docs/architecture.md) and whether the PTX or MSL function takes a sizes buffer.
//! * [`Binding`]: one `@group @binding` resource: kind, access and, for buffers, the byte
//!   [`Layout`] of its type (size, alignment, field offsets, runtime-array stride).
//!
//! Text and lists are [`Cow<'static, _>`](Cow), so the same types describe a module compiled
//! at run time ([`crate::compile`]) and the constants that [`crate::build`] generates at build
//! time (`pub const 加倍: dianran::reflect::Entry = ...`).
//!
//! The types, and the code that fills them in from a compiled module
//! ([`from_module`]), live in `dianran-runtime`: the launcher and `dianran-verify`'s CUDA
//! executor read the same description.

pub use dianran_runtime::reflect::*;
