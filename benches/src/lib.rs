//! Benchmarks of dianran against NVIDIA's own compiler (see `benches/README.md`):
//!
//! * compile time of every sample, WGSL -> PTX, and of equivalent CUDA C++ through NVRTC;
//! * `ptxas -v` registers and spills of our PTX against NVRTC's for the same kernels;
//! * on a CUDA device, GEMM TFLOP/s at 4096³ for both;
//! * where compile time goes, stage by stage, against naga's own parse + validate;
//! * our backend against the LLVM one (`dianran-llvm`, with the `llvm` feature) and NVRTC, in
//!   compile time and `ptxas -v` registers, in one table ([`backends`]);
//! * the PTX emulator's counters (instructions, global sectors, shared bank conflicts, `mma`,
//!   `ldmatrix`, barriers) of our PTX and NVRTC's on the same inputs ([`profile`]);
//! * the SASS instruction mix (nvdisasm) of our PTX against NVRTC's and LLVM's ([`sass`]);
//! * what WebGPU's bounds policy costs, checks on against `--bounds-checks off` ([`bounds`]);
//! * what math costs per math-heavy kernel, precise and fast, against LLVM and NVRTC
//!   ([`mathcost`]).
//!
//! This library holds what the bench targets share: the kernel pairs ([`kernels`]), our
//! pipeline ([`pipeline`]) and its stages timed one by one ([`stages`]), NVRTC loading ([`nvrtc`]), the CUDA GEMM timer ([`device`]) and
//! plain-text tables ([`table`]).

pub mod backends;
pub mod bandwidth;
pub mod bounds;
pub mod device;
pub mod kernels;
pub mod mathcost;
pub mod nvrtc;
pub mod pipeline;
pub mod profile;
pub mod sass;
pub mod stages;
pub mod table;
