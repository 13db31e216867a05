//! dianran's frontend: WGSL (through naga) to the structured SSA form of [`ir`].
//!
//! The entry point is [`compile`]: parse and validate with naga, resolve `override`s, run the
//! checks naga misses, lower to SSA, and run the standard passes (contraction last, unless
//! [`Options::no_fma`]) with the verifier after each one in debug builds. See `docs/architecture.md` for the contract between the pieces.

pub mod checks;
pub mod diag;
pub mod ext;
pub mod ir;
pub mod lower;
pub mod names;
pub mod packing;
pub mod parse;
pub mod passes;
pub mod printer;
pub mod source;
pub mod text;
pub mod uniformity;
pub mod verifier;

pub use diag::{DiagKind, Diagnostic, Diagnostics};
pub use ir::Module;

/// Options that change what a source means.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--override NAME=VALUE` pairs, applied with naga's `process_overrides`.
    pub overrides: Vec<(String, f64)>,
    /// `--no-fma`: skip [`passes::contract`], so every float `*`, `+` and `-` rounds on its own
    /// (NVCC's `-fmad=false`); see `docs/math.md`, "Contraction".
    pub no_fma: bool,
    /// WebGPU's bounds policy ([`passes::bounds`], `docs/bounds.md`): [`BoundsChecks::On`],
    /// the default, makes every access safe; [`BoundsChecks::Off`] (`--bounds-checks off`)
    /// leaves indices as written.
    pub bounds_checks: BoundsChecks,
}

/// Whether the compiler applies WebGPU's bounds policy (`docs/bounds.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BoundsChecks {
    /// Buffer accesses out of range read zero and drop writes; other indices are clamped.
    /// The default: WGSL's promise that no access leaves its variable.
    #[default]
    On,
    /// No checks: an index out of range is undefined behaviour on every target, and the
    /// interpreter reports it as an error (its sanitizer, `dianran run --sanitize`).
    Off,
}

/// A parsed and validated module with overrides resolved.
#[derive(Debug)]
pub struct Parsed {
    /// naga's module, overrides already substituted.
    pub module: naga::Module,
    /// naga's validation info for `module`.
    pub info: naga::valid::ModuleInfo,
    /// Enable-extensions seen in the source (`enable subgroups;` included).
    pub enables: ir::Enables,
    /// File name as given.
    pub file_name: String,
    /// The user's original text (spans index into it).
    pub source: String,
    /// Dawn's subgroup matrices, when enabled: the rewritten text naga parsed and what its
    /// opaque structs and helper functions stand for ([`ext::sgm`]).
    pub sgm: Option<ext::sgm::Rewrite>,
}

pub use parse::parse;

/// Lowers a parsed module to SSA in memory form (no passes run).
pub fn lower(parsed: &Parsed) -> Result<ir::Module, Diagnostics> {
    lower::lower_module(parsed)
        .map_err(|list| Diagnostics::new(&parsed.file_name, &parsed.source, list))
}

/// Parses, validates, lowers and optimizes `source`.
pub fn compile(file_name: &str, source: &str, opts: &Options) -> Result<ir::Module, Diagnostics> {
    let parsed = parse(file_name, source, opts)?;
    let mut module = lower(&parsed)?;
    let internal = |d| Diagnostics::new(file_name, source, vec![d]);
    passes::optimize(&mut module).map_err(internal)?;
    if module.enables.subgroup_matrix || module.enables.workgroup_matrix {
        // On SSA, before the bounds policy adds guards of its own around accesses.
        let scopes = parsed.sgm.as_ref().map_or(&[][..], |r| &r.uniformity_scopes[..]);
        let found = uniformity::check(&module, scopes);
        if !found.errors.is_empty() {
            return Err(Diagnostics::new(file_name, source, found.errors));
        }
        module.warnings = found.warnings;
    }
    run_late_passes(&mut module, opts).map_err(internal)?;
    Ok(module)
}

/// The passes [`compile`] runs on a lowered module, as `opts` asks: [`passes::optimize`], the
/// bounds policy ([`passes::bounds_checked`], unless [`BoundsChecks::Off`]) and contraction
/// ([`passes::contract_checked`], unless `no_fma`). Tools that lower a module themselves (the
/// fuzzer) call this so that they check what users get. An error is a bug in a pass.
pub fn run_passes(module: &mut ir::Module, opts: &Options) -> Result<(), Diagnostic> {
    passes::optimize(module)?;
    run_late_passes(module, opts)
}

/// The passes of [`run_passes`] after [`passes::optimize`].
fn run_late_passes(module: &mut ir::Module, opts: &Options) -> Result<(), Diagnostic> {
    if opts.bounds_checks == BoundsChecks::On {
        passes::bounds_checked(module)?;
    }
    if !opts.no_fma {
        passes::contract_checked(module)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A module whose only f32 values are inside a `vec4<f32>` constant: the component type
    /// `f32` is never interned, which once made the verifier reject the constant.
    #[test]
    fn vector_constant_without_its_scalar_type_compiles() {
        let src = "@vertex fn vs() -> @builtin(position) vec4<f32> {\n    return vec4<f32>(0.0, 0.0, 0.0, 1.0);\n}\n";
        let m = crate::compile("v.wgsl", src, &Default::default());
        assert!(m.is_ok(), "{}", m.err().map(|d| d.render()).unwrap_or_default());
    }

    /// `quantizeToF16` needs naga's SHADER_FLOAT16_IN_FLOAT32 capability.
    #[test]
    fn quantize_to_f16_is_accepted() {
        let src = "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(1) fn main() { b[0] = quantizeToF16(b[0]); }\n";
        let m = crate::compile("q.wgsl", src, &Default::default());
        assert!(m.is_ok(), "{}", m.err().map(|d| d.render()).unwrap_or_default());
    }
}
