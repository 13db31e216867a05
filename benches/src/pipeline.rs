//! dianran's WGSL -> PTX pipeline as the benchmarks time it: parse, validate, lower,
//! optimize, and generate PTX, from source text to PTX text; with the `llvm` feature, the same
//! frontend followed by the LLVM backend.

use dianran_ptx::codegen::{compile_module, CompiledPtx, Options};

/// Why a sample produced no PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineError {
    /// The frontend rejected the source (a bug in the sample, or a frontend gap).
    Frontend(String),
    /// The PTX codegen reported diagnostics (for example a construct it does not lower yet).
    Codegen(String),
}

impl std::fmt::Display for PipelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PipelineError::Frontend(m) => write!(f, "frontend: {m}"),
            PipelineError::Codegen(m) => write!(f, "PTX codegen: {m}"),
        }
    }
}

/// Compiles `source` to PTX for `sm_<sm>`. Any codegen diagnostic is an error: a partial
/// module is not a fair thing to time or to hand to ptxas.
pub fn wgsl_to_ptx(file_name: &str, source: &str, sm: u32) -> Result<CompiledPtx, PipelineError> {
    wgsl_to_ptx_with(file_name, source, &Options { sm, ..Options::default() })
}

/// [`wgsl_to_ptx`] with code generation options (for example `fast_math`).
pub fn wgsl_to_ptx_with(
    file_name: &str,
    source: &str,
    opts: &Options,
) -> Result<CompiledPtx, PipelineError> {
    let module = dianran_frontend::compile(file_name, source, &Default::default())
        .map_err(|d| PipelineError::Frontend(first_line(&d.to_string())))?;
    let out = compile_module(&module, opts);
    if let Some(d) = out.diagnostics.first() {
        return Err(PipelineError::Codegen(d.message.clone()));
    }
    if out.entries.is_empty() {
        return Err(PipelineError::Codegen("no compute entry point".into()));
    }
    Ok(out)
}

/// The LLVM backend from source text: the same frontend, then `dianran_llvm::compile_module`
/// (LLVM IR, libdevice when a math builtin needs it, `default<O3>`, the NVPTX target). Any
/// error diagnostic is an error, as in [`wgsl_to_ptx`].
#[cfg(feature = "llvm")]
pub fn wgsl_to_ptx_llvm(
    file_name: &str,
    source: &str,
    sm: u32,
) -> Result<dianran_llvm::CompiledLlvm, PipelineError> {
    let module = dianran_frontend::compile(file_name, source, &Default::default())
        .map_err(|d| PipelineError::Frontend(first_line(&d.to_string())))?;
    let out =
        dianran_llvm::compile_module(&module, &dianran_llvm::Options { sm, ..Default::default() });
    if let Some(d) = out.diagnostics.iter().find(|d| !d.warning) {
        return Err(PipelineError::Codegen(d.message.clone()));
    }
    if out.entries.is_empty() {
        return Err(PipelineError::Codegen("no compute entry point".into()));
    }
    Ok(out)
}

/// The first non-empty line of a (possibly multi-line, rendered) message.
pub(crate) fn first_line(s: &str) -> String {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_a_plain_kernel() {
        let src = "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n\
                   @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) \
                   { d[g.x] = d[g.x] * 2u; }";
        let out = wgsl_to_ptx("t.wgsl", src, 80).expect("compiles");
        assert_eq!(out.entries.len(), 1);
        assert!(out.text.contains(".entry"));
    }

    #[test]
    fn frontend_errors_are_reported() {
        match wgsl_to_ptx("bad.wgsl", "fn main( {", 80) {
            Err(PipelineError::Frontend(m)) => assert!(!m.is_empty()),
            other => panic!("expected a frontend error, got {other:?}"),
        }
    }

    #[cfg(feature = "llvm")]
    #[test]
    fn the_llvm_backend_compiles_a_plain_kernel() {
        let src = "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n\
                   @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) \
                   { d[g.x] = d[g.x] * 2u; }";
        let ours = wgsl_to_ptx("t.wgsl", src, 80).expect("ours");
        let out = wgsl_to_ptx_llvm("t.wgsl", src, 80).expect("compiles");
        assert_eq!(out.entries.len(), 1);
        assert_eq!(out.entries[0].ptx_name, ours.entries[0].ptx_name);
        assert!(out.text.contains(".entry"));
    }

    #[test]
    fn first_line_skips_blank_lines() {
        assert_eq!(first_line("\n  error: x\nmore"), "error: x");
        assert_eq!(first_line(""), "");
    }
}
