//! Compiles `shaders/double.wgsl` to WGSL, MSL and PTX constants in
//! `$OUT_DIR/dianran_shaders.rs`, with the `Params` host struct and the typed launcher
//! `double::Kernels::加倍`. A shader error fails the build with the rendered diagnostic.

fn main() -> Result<(), dianran::build::BuildError> {
    dianran::build::Shaders::new().file("shaders/double.wgsl").cuda_launchers(true).compile()?;
    Ok(())
}
