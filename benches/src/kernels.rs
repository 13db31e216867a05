//! The samples and their CUDA C++ equivalents (`benches/cuda/*.cu`).

use std::path::PathBuf;

/// A WGSL sample and the CUDA C++ kernel written to do the same work the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// File name under `tests/samples/`.
    pub sample: &'static str,
    /// File name under `benches/cuda/`.
    pub cuda_file: &'static str,
    /// The `extern "C"` kernel name in that file.
    pub cuda_entry: &'static str,
}

/// The kernels compared against NVRTC.
pub const PAIRS: &[Pair] = &[
    Pair { sample: "double_unicode.wgsl", cuda_file: "double.cu", cuda_entry: "double_u32" },
    Pair { sample: "matmul_tiled.wgsl", cuda_file: "matmul_tiled.cu", cuda_entry: "matmul_tiled" },
    Pair { sample: "reduce_tree.wgsl", cuda_file: "reduce_tree.cu", cuda_entry: "reduce_tree" },
    Pair { sample: "softmax.wgsl", cuda_file: "softmax.cu", cuda_entry: "softmax" },
    Pair {
        sample: "gemm_tiled_f16.wgsl",
        cuda_file: "gemm_tiled_f16.cu",
        cuda_entry: "gemm_tiled_f16",
    },
    Pair { sample: "gemm_small_m.wgsl", cuda_file: "gemm_small_m.cu", cuda_entry: "gemm_small_m" },
    Pair {
        sample: "gemm_bias_relu.wgsl",
        cuda_file: "gemm_bias_relu.cu",
        cuda_entry: "gemm_bias_relu",
    },
    Pair { sample: "gelu.wgsl", cuda_file: "gelu.cu", cuda_entry: "gelu" },
    Pair {
        sample: "layer_norm_pow.wgsl",
        cuda_file: "layer_norm_pow.cu",
        cuda_entry: "layer_norm_pow",
    },
    Pair { sample: "trig_waves.wgsl", cuda_file: "trig_waves.cu", cuda_entry: "trig_waves" },
    Pair { sample: "saxpy_vec4.wgsl", cuda_file: "saxpy_vec4.cu", cuda_entry: "saxpy_vec4" },
    Pair { sample: "softmax_rows.wgsl", cuda_file: "softmax_rows.cu", cuda_entry: "softmax_rows" },
    Pair { sample: "sgm_gemm_i8.wgsl", cuda_file: "sgm_gemm_i8.cu", cuda_entry: "sgm_gemm_i8" },
    Pair { sample: "sgm_gemm_f16.wgsl", cuda_file: "sgm_gemm_f16.cu", cuda_entry: "sgm_gemm_f16" },
    // The same GEMM as gemm_tiled_f16 (buffers, staging, 64 x 64 blocks) on one workgroup
    // matrix: its CUDA equivalent is gemm_tiled_f16's.
    Pair { sample: "tile_gemm.wgsl", cuda_file: "gemm_tiled_f16.cu", cuda_entry: "gemm_tiled_f16" },
];

/// The pairs whose kernels call math builtins: the benches also compare both math modes
/// (dianran's precise default against `--fast-math`, NVRTC's default against
/// `--use_fast_math`).
pub const MATH_PAIRS: [&str; 5] =
    ["softmax.wgsl", "gelu.wgsl", "layer_norm_pow.wgsl", "trig_waves.wgsl", "softmax_rows.wgsl"];

/// The GEMM pair the device benchmark times.
pub const GEMM: Pair = Pair {
    sample: "gemm_tiled_f16.wgsl",
    cuda_file: "gemm_tiled_f16.cu",
    cuda_entry: "gemm_tiled_f16",
};

/// The workspace root (this crate's parent directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tests/samples/`.
pub fn samples_dir() -> PathBuf {
    root().join("tests/samples")
}

/// `benches/cuda/`.
pub fn cuda_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cuda")
}

/// Reads a file, with its path in the error.
fn read(path: PathBuf) -> Result<String, String> {
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The source of sample `name`.
pub fn sample_source(name: &str) -> Result<String, String> {
    read(samples_dir().join(name))
}

/// The CUDA C++ source of a pair.
pub fn cuda_source(pair: &Pair) -> Result<String, String> {
    read(cuda_dir().join(pair.cuda_file))
}

/// Every sample as `(file name, source)`, sorted by name.
pub fn all_samples() -> Result<Vec<(String, String)>, String> {
    wgsl_names(&samples_dir())?.into_iter().map(|n| sample_source(&n).map(|s| (n, s))).collect()
}

/// The `.wgsl` file names in `dir`, sorted.
fn wgsl_names(dir: &std::path::Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    names.sort();
    Ok(names)
}

/// Every sample and every kernel of `tests/realworld/` as `(name, source)`; real-world
/// kernels are named `realworld/FILE`.
pub fn samples_and_realworld() -> Result<Vec<(String, String)>, String> {
    let mut out = all_samples()?;
    let dir = root().join("tests/realworld");
    for n in wgsl_names(&dir)? {
        let src = read(dir.join(&n))?;
        out.push((format!("realworld/{n}"), src));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_has_both_sources() {
        for p in PAIRS {
            let wgsl = sample_source(p.sample).expect("sample");
            assert!(wgsl.contains("@compute"), "{}", p.sample);
            let cuda = cuda_source(p).expect("cuda source");
            assert!(
                cuda.contains(&format!("__global__ void {}(", p.cuda_entry))
                    || cuda.contains(&format!("\n{}(", p.cuda_entry)),
                "{} does not define {}",
                p.cuda_file,
                p.cuda_entry
            );
        }
        assert!(PAIRS.contains(&GEMM));
    }

    #[test]
    fn samples_are_listed() {
        let all = all_samples().expect("samples");
        assert!(all.iter().any(|(n, _)| n == "gemm_tiled_f16.wgsl"));
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
