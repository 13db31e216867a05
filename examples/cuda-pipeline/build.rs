//! Compiles `shaders/mlp.wgsl` into `$OUT_DIR/dianran_shaders.rs`: the PTX, a `#[repr(C)]`
//! `Dims` struct with WGSL's layout, and `mlp::Kernels` with one typed launcher per entry.

fn main() -> Result<(), dianran::build::BuildError> {
    dianran::build::Shaders::new().file("shaders/mlp.wgsl").cuda_launchers(true).compile()?;
    Ok(())
}
