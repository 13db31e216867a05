//! The shaders of this example, compiled by `build.rs` (see `dianran::build`).

/// One module per shader file: `double` for `shaders/double.wgsl`.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/dianran_shaders.rs"));
}
