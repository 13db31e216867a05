//! Verification for dianran: the reference interpreter of the SSA form, the PTX emulator,
//! ptxas, the CUDA driver runner and the lavapipe runner (SPEC §6).

pub mod buffers;
pub mod interp;
pub mod tools;
