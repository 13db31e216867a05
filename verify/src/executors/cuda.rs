//! The CUDA executors: a compiled entry launched through `dianran-runtime`'s
//! [`CudaModule::launch_full`](dianran_runtime::launch::CudaModule::launch_full), the launcher
//! `dianran::launch` gives applications, so buffers, `p_sizes`, immediates, textures and
//! samplers reach the kernel exactly as they reach it in a user's program. The [`Entry`] it
//! launches is built by the same reflection code `dianran::compile` uses
//! ([`from_module::ptx_entry`]).
//!
//! [`Entry`]: dianran_runtime::reflect::Entry
//! [`from_module::ptx_entry`]: dianran_runtime::reflect::from_module::ptx_entry

use super::{ExecError, Ptx};
use crate::texture::TextureBindings;
use dianran_frontend::ir;
use dianran_ptx::abi::EntryInfo;

/// Why the CUDA executors cannot run here, if they cannot.
pub(super) fn unavailable() -> Option<String> {
    #[cfg(feature = "cuda")]
    if !dianran_runtime::cuda::available() {
        return Some("no CUDA device".into());
    }
    #[cfg(not(feature = "cuda"))]
    return Some("no CUDA device (built without the `cuda` feature)".into());
    #[cfg(feature = "cuda")]
    None
}

/// Launches entry `info` of `ptx` on a grid of `grid` blocks with `params` (one byte vector
/// per PTX parameter, as [`super::ptx_params`] lays them out; buffers the kernel writes are
/// updated in place) and, when given, `textures` (storage textures updated in place).
#[cfg(feature = "cuda")]
pub(super) fn launch(
    m: &ir::Module,
    ptx: Ptx<'_>,
    info: &EntryInfo,
    params: &mut [Vec<u8>],
    grid: [u32; 3],
    textures: Option<&mut TextureBindings>,
) -> Result<(), ExecError> {
    use dianran_ptx::abi::ParamKind;
    use dianran_runtime::launch::{BufferArg, CudaModule, LaunchError, SamplerArg, TextureArg};
    use dianran_runtime::reflect::from_module;
    // Which parameters the code reads decides placeholders; LLVM's text is parsed for it.
    let parsed;
    let model = match &ptx {
        Ptx::Module(m, _) => Some(*m),
        Ptx::Text(t) => {
            parsed = dianran_ptx::parse_module(t).ok();
            parsed.as_ref()
        }
    };
    let entry = from_module::ptx_entry(m, info, model).map_err(ExecError::Failed)?;
    let failed = |e: LaunchError| match e {
        LaunchError::NoDevice => ExecError::Skipped("no CUDA device".into()),
        e => ExecError::Failed(e.to_string()),
    };
    let module = CudaModule::load(ptx.text()).map_err(failed)?;
    let mut immediates = Vec::new();
    let mut buffers = Vec::new();
    for (name, data) in info.params.iter().zip(params.iter_mut()) {
        match ParamKind::of(name) {
            // Placeholders (no buffer given) get the launcher's zeroed allocation.
            Some(ParamKind::Slot((group, binding))) if !data.is_empty() => {
                buffers.push(BufferArg::new(group, binding, data));
            }
            // `ptx_params` padded them to whole words; the launcher pads them itself.
            Some(ParamKind::Immediates) => {
                immediates = data.clone();
                immediates.truncate(entry.ptx_immediates as usize);
            }
            _ => {}
        }
    }
    let (mut texture_args, samplers) = match textures {
        Some(t) => (
            t.textures
                .iter_mut()
                .map(|(&(group, binding), texture)| TextureArg { group, binding, texture })
                .collect(),
            t.samplers
                .iter()
                .map(|(&(group, binding), &sampler)| SamplerArg { group, binding, sampler })
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    module
        .launch_full(&entry, grid, &mut buffers, &mut texture_args, &samplers, &immediates)
        .map_err(failed)
}

/// Without the `cuda` feature there is no launcher: the executors are skipped.
#[cfg(not(feature = "cuda"))]
pub(super) fn launch(
    _: &ir::Module,
    _: Ptx<'_>,
    _: &EntryInfo,
    _: &mut [Vec<u8>],
    _: [u32; 3],
    _: Option<&mut TextureBindings>,
) -> Result<(), ExecError> {
    Err(ExecError::Skipped("no CUDA device (built without the `cuda` feature)".into()))
}
