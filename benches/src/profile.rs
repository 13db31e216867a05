//! The PTX emulator's counters ([`dianran_verify::emu::Profile`]) for both sides of every
//! kernel pair: our PTX and NVRTC's for the CUDA equivalent, run on the same inputs with the
//! same launch.
//!
//! Inputs: every buffer the WGSL entry uses, sized as `dianran run` sizes them (`--len`
//! elements in a runtime-sized array: [`DEFAULT_LEN`] unless [`SIZES`] says otherwise) and filled with
//! deterministic values of the buffer's scalar type (floats in [-1, 1), integers in 0..16);
//! a pair listed in [`SIZES`] gets its matrix sizes written into its `dims` uniform. Launch:
//! the sample's `// dispatch:` header, blocks of the WGSL workgroup size. The CUDA kernel
//! takes one pointer per binding in (group, binding) order, uniform structs by pointer (see
//! `benches/cuda/`); our PTX gets the same buffers through docs/abi.md's parameter convention.

use crate::device::Rng;
use crate::kernels::{self, Pair};
use crate::nvrtc;
use dianran_frontend::ir::{self, Scalar, Type};
use dianran_verify::buffers::{default_buffers, entry_bindings, Buffers};
use dianran_verify::emu::{self, EmuOptions, Profile};

/// Sizes for the pairs whose sample reads its problem size from a `dims` uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// The sample's file name.
    pub sample: &'static str,
    /// The `u32` words written at the start of the `dims` uniform (M, N, K).
    pub dims: [u32; 3],
    /// Elements of every runtime-sized array.
    pub runtime_len: u32,
}

/// Problem sizes that fill every workgroup of the sample's `// dispatch:` header with whole
/// output blocks (so the counters measure the main loop, not the edge handling).
pub const SIZES: &[Sizes] = &[
    Sizes { sample: "gemm_tiled_f16.wgsl", dims: [128, 128, 64], runtime_len: 128 * 128 },
    Sizes { sample: "tile_gemm.wgsl", dims: [128, 128, 64], runtime_len: 128 * 128 },
    Sizes { sample: "gemm_bias_relu.wgsl", dims: [64, 128, 64], runtime_len: 128 * 128 },
    Sizes { sample: "gemm_small_m.wgsl", dims: [8, 128, 64], runtime_len: 128 * 128 },
    // 32x32 blocks: the header's 2 x 3 workgroups are N = 64, M = 96.
    Sizes { sample: "sgm_gemm_i8.wgsl", dims: [96, 64, 64], runtime_len: 96 * 64 },
    // The header's 3 x 2 workgroups are N = 96, M = 64.
    Sizes { sample: "sgm_gemm_f16.wgsl", dims: [64, 96, 64], runtime_len: 96 * 64 },
];

/// Elements of a runtime-sized array where [`SIZES`] says nothing: four times `dianran run`'s
/// default of 1024, because the CUDA equivalents size their arrays for the sample's whole
/// dispatch (64x64 matrices, 16 rows of 128, eight results per element of 256).
pub const DEFAULT_LEN: u32 = 4096;

/// Warp instructions the emulator may run per side before giving up.
const MAX_STEPS: u64 = 1 << 28;

/// The counters of both sides of one pair.
#[derive(Clone, Debug)]
pub struct PairProfile {
    /// Our PTX on the emulator.
    pub ours: Result<Profile, String>,
    /// NVRTC's PTX of the CUDA equivalent on the emulator.
    pub theirs: Result<Profile, String>,
}

/// The scalar type a buffer of type `ty` holds (its innermost element; a struct's last
/// member, which is the runtime-sized array when there is one).
fn leaf_scalar(m: &ir::Module, ty: ir::TypeId) -> Option<Scalar> {
    match m.types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => Some(*s),
        Type::Vector { scalar, .. } | Type::Matrix { scalar, .. } => Some(*scalar),
        Type::Array { base, .. } => leaf_scalar(m, *base),
        Type::Struct { members, .. } => members.last().and_then(|l| leaf_scalar(m, l.ty)),
        _ => None,
    }
}

/// Deterministic `len` bytes of `scalar` values.
fn fill(rng: &mut Rng, scalar: Option<Scalar>, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 4);
    while out.len() < len {
        match scalar {
            Some(Scalar::F32) | None => out.extend(rng.unit().to_le_bytes()),
            Some(Scalar::F16) => out.extend(half::f16::from_f32(rng.unit()).to_le_bytes()),
            Some(Scalar::U32 | Scalar::I32) => out.extend((rng.next_u32() % 16).to_le_bytes()),
            Some(Scalar::Bool) => out.extend((rng.next_u32() & 1).to_le_bytes()),
            Some(Scalar::F64) => out.extend(f64::from(rng.unit()).to_le_bytes()),
            Some(Scalar::U64 | Scalar::I64) => {
                out.extend(u64::from(rng.next_u32() % 16).to_le_bytes())
            }
        }
    }
    out.truncate(len);
    out
}

/// The inputs of `pair`'s entry `entry` in `module` (see the module documentation).
pub fn inputs(pair: &Pair, module: &ir::Module, entry: &str) -> Result<Buffers, String> {
    let sizes = SIZES.iter().find(|s| s.sample == pair.sample);
    let len = sizes.map_or(DEFAULT_LEN, |s| s.runtime_len);
    let mut buffers = default_buffers(module, entry, len).map_err(|d| d.message)?;
    let mut rng = Rng(0x5EED_0001);
    for b in entry_bindings(module, entry).map_err(|d| d.message)? {
        let Some(buf) = buffers.get_mut(&(b.group, b.binding)) else { continue };
        *buf = fill(&mut rng, leaf_scalar(module, b.ty), buf.len());
        if let (Some(s), "dims") = (sizes, b.name.as_str()) {
            for (k, w) in s.dims.iter().enumerate() {
                if let Some(dst) = buf.get_mut(4 * k..4 * k + 4) {
                    dst.copy_from_slice(&w.to_le_bytes());
                }
            }
        }
    }
    Ok(buffers)
}

/// Compiles both sides of `pair` for `sm_<sm>` and runs each once on the emulator with the
/// counters on. `Err` when a side cannot run (the message says why); NVRTC missing is
/// `Err` with "nvrtc not found" on the CUDA side.
pub fn profile_pair(pair: &Pair, sm: u32) -> Result<PairProfile, String> {
    let src = kernels::sample_source(pair.sample)?;
    let module = dianran_frontend::compile(pair.sample, &src, &Default::default())
        .map_err(|d| format!("{}: {}", pair.sample, d.to_string().lines().next().unwrap_or("")))?;
    let header = dianran_verify::samples::header(&src).map_err(|e| e.to_string())?;
    let dispatch = header.dispatch.ok_or("the sample has no // dispatch: header")?;
    let compiled = dianran_ptx::codegen::compile_module(
        &module,
        &dianran_ptx::codegen::Options { sm, ..Default::default() },
    );
    let info = match &header.entry {
        Some(e) => compiled.entries.iter().find(|x| &x.name == e),
        None => compiled.entries.first(),
    }
    .ok_or_else(|| {
        let why: Vec<&str> = compiled.diagnostics.iter().map(|d| d.message.as_str()).collect();
        format!("no PTX entry: {}", why.join("; "))
    })?;
    let input = inputs(pair, &module, &info.name)?;
    let opts = EmuOptions { max_steps: MAX_STEPS, ..Default::default() };
    let block = info.workgroup_size;

    let ours = dianran_verify::executors::ptx_params(info, &input)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            let mut params = p.buffers;
            emu::run_module_profiled(
                &compiled.module,
                &info.ptx_name,
                &mut params,
                dispatch,
                block,
                &opts,
            )
            .map_err(|e| e.to_string())
        });

    let theirs = kernels::cuda_source(pair).and_then(|cuda| {
        let ptx = nvrtc::compile(&cuda, pair.cuda_file, sm).map_err(|e| e.to_string())?;
        // One pointer per binding, in (group, binding) order: the buffers map's order.
        let mut params: Vec<Vec<u8>> = input.values().cloned().collect();
        emu::run_profiled(&ptx, pair.cuda_entry, &mut params, dispatch, block, &opts)
            .map_err(|e| format!("{}: {e}", pair.cuda_file))
    });
    Ok(PairProfile { ours, theirs })
}

/// A table column: its title and the cell of a profile.
pub type Column = (&'static str, fn(&Profile) -> String);

/// The counters the table shows.
pub fn columns() -> Vec<Column> {
    vec![
        ("warp instrs", |p| p.warp_instructions.to_string()),
        ("global req", |p| p.global_requests.to_string()),
        ("sectors", |p| p.global_sectors.to_string()),
        ("sector eff %", |p| format!("{:.1}", p.global_sector_efficiency())),
        ("shared wavefronts", |p| p.shared_wavefronts.to_string()),
        ("bank conflicts", |p| p.shared_bank_conflicts().to_string()),
        ("ldmatrix conflicts", |p| p.ldmatrix_bank_conflicts().to_string()),
        ("mma", |p| p.mma.to_string()),
        ("ldmatrix", |p| p.ldmatrix.to_string()),
        ("barriers", |p| p.barriers.to_string()),
        ("local req", |p| p.local_requests.to_string()),
    ]
}

/// One table row per side of a pair: the kernel, `dianran` or `NVRTC`, then [`columns`];
/// a side that did not run gets `not run [n]`, and the reason is pushed to `notes` (note `n`
/// is `notes[n - 1]`).
pub fn rows(
    pair: &Pair,
    p: &Result<PairProfile, String>,
    notes: &mut Vec<String>,
) -> Vec<Vec<String>> {
    let mut side = |who: &str, r: &Result<Profile, String>| -> Vec<String> {
        let mut row = vec![pair.sample.trim_end_matches(".wgsl").to_string(), who.to_string()];
        match r {
            Ok(p) => row.extend(columns().into_iter().map(|(_, f)| f(p))),
            Err(e) => {
                notes.push(format!("{} ({who}): {}", pair.sample, e.lines().next().unwrap_or("")));
                row.push(format!("not run [{}]", notes.len()));
            }
        }
        row
    };
    match p {
        Ok(pp) => vec![side("dianran", &pp.ours), side("NVRTC", &pp.theirs)],
        Err(e) => vec![side("both", &Err(e.clone()))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_name_listed_pairs() {
        for s in SIZES {
            assert!(kernels::PAIRS.iter().any(|p| p.sample == s.sample), "{}", s.sample);
        }
    }

    #[test]
    fn fill_respects_types_and_lengths() {
        let mut rng = Rng(1);
        let f = fill(&mut rng, Some(Scalar::F16), 6);
        assert_eq!(f.len(), 6);
        for c in f.chunks_exact(2) {
            let x = half::f16::from_le_bytes([c[0], c[1]]).to_f32();
            assert!((-1.0..1.0).contains(&x), "{x}");
        }
        let u = fill(&mut rng, Some(Scalar::U32), 64);
        assert!(u.chunks_exact(4).all(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) < 16));
    }
}
