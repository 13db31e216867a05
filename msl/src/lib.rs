//! Prints Metal Shading Language from dianran's SSA form (docs/msl.md).
//!
//! * The output starts with `#include <metal_stdlib>` and `using namespace metal;`, then
//!   helper templates (only those used), structs, constants and functions in source order.
//! * Resources are function parameters with index `group * 16 + binding`: buffers
//!   `[[buffer(n)]]`, textures `[[texture(n)]]`, samplers `[[sampler(n)]]`. A storage buffer
//!   whose type is a runtime-sized array is `device T*` (`const device T*` when read-only),
//!   other storage buffers are `device T&`, uniform buffers `constant T&`. An index past
//!   Metal's argument tables (buffers 0-29, 30 being `_buffer_sizes`; textures 0-127;
//!   samplers 0-15) is a diagnostic for the entry that uses the resource.
//! * Helper functions take the resources, workgroup variables and private variables they use
//!   (directly or through calls) as extra trailing parameters, in module order.
//! * `arrayLength` reads a `constant uint* _buffer_sizes [[buffer(30)]]` parameter holding the
//!   byte size of every bound buffer, indexed by the buffer's Metal index (`group * 16 +
//!   binding`); the host fills it (see [`EntryInfo::uses_sizes`]).
//! * Layout parity: see [`layout`].
//! * Names are kept (Unicode included) and escaped through the shared namer, so WGSL and MSL
//!   use the same identifiers.
//!
//! * f32 math builtins, division and square roots call `metal::precise::` (correctly rounded
//!   division and square root, Metal's precise accuracy table) unless [`Options::fast_math`]
//!   asks for `metal::fast::`; `half` math has one variant.
//!
//! Workgroup matrices print on Metal 4's tensor operations (`tile.rs`) unless
//! [`Options::no_metal4`] asks for `simdgroup_matrix` pieces.
//!
//! Cooperative matrices map to `simdgroup_matrix` 8×8 tiles; a 16×16 matrix is four tiles. A
//! tile partly outside its array (the bounds policy's `limit`) goes through a per-simdgroup
//! staging slot in threadgroup memory, which the entry declares and passes to helpers as
//! `_coop_stage`/`_coop_lane` (see `coop.rs`).

mod body;
mod builtins;
mod coop;
mod helpers;
pub mod layout;
mod module;
mod syntax;
mod tile;
mod types;
mod wide;

use dianran_frontend::{ir, DiagKind, Diagnostic};

/// What the host must know about one entry point's MSL function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    /// The WGSL entry name.
    pub name: String,
    /// The MSL function name.
    pub msl_name: String,
    /// Whether the function takes the `_buffer_sizes` buffer at index 30.
    pub uses_sizes: bool,
}

/// The printed module.
#[derive(Clone, Debug)]
pub struct MslOutput {
    /// MSL source text.
    pub text: String,
    /// One line per entry point that printed.
    pub entries: Vec<EntryInfo>,
    /// Entry points that could not be expressed in MSL (the rest still printed).
    pub errors: Vec<Diagnostic>,
    /// The text uses Metal 4's tensor operations (workgroup matrices): compile it as MSL 4.0
    /// (`MTLLanguageVersion4_0`) for a device in `MTLGPUFamilyMetal4`, and dispatch each
    /// entry that uses them with threadgroups of `threadExecutionWidth × 4` = 128 threads.
    pub metal4: bool,
}

/// The Metal buffer index (`[[buffer(n)]]`) of the sizes buffer used by `arrayLength`.
pub const SIZES_BUFFER_INDEX: u32 = 30;

/// The Metal buffer index of an entry's immediate data (`var<immediate>`), a `constant T&`
/// the host fills with `setBytes` (docs/immediates.md). In a module with immediate data,
/// bound buffers must have indices below it (`group × 16 + binding` ≤ 28).
pub const IMMEDIATES_BUFFER_INDEX: u32 = 29;

/// How to print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Call Metal's fast f32 math (`metal::fast::sin`, plain `/`) instead of the precise
    /// variants (`metal::precise::sin`, `metal::precise::divide`), which are the default
    /// because Metal compiles with fast math unless the host asks otherwise (see
    /// `docs/math.md` for what each guarantees).
    pub fast_math: bool,
    /// Print workgroup matrices on Metal 3's `simdgroup_matrix` 8 × 8 pieces (GPUs without
    /// Metal 4) instead of Metal 4's `matmul2d` tensor operation (`docs/workgroup-matrix.md`).
    pub no_metal4: bool,
}

/// Prints `m` as MSL with precise math. An entry point (or function) that uses something MSL
/// cannot express is left out with a diagnostic; the others still print.
pub fn write_module(m: &ir::Module) -> MslOutput {
    write_module_with(m, &Options::default())
}

/// [`write_module`] with [`Options`].
pub fn write_module_with(m: &ir::Module, opts: &Options) -> MslOutput {
    let mut w = module::Writer::new(m, tile::plan(m, opts.no_metal4));
    w.fast_math = opts.fast_math;
    w.write()
}

fn unsupported(what: impl Into<String>, span: ir::Span, func: &str) -> Diagnostic {
    Diagnostic::error(DiagKind::Unsupported, format!("MSL does not support {}", what.into()))
        .at(span)
        .in_fn(func)
        .help("remove the construct from this entry point, or compile for another target")
}
