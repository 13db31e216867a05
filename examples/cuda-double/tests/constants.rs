//! The constants the build integration generated.

use cuda_double::shaders::double;

#[test]
fn entry_constants_describe_the_kernel() {
    let e = &double::加倍;
    assert_eq!(e.name, "加倍");
    assert_eq!(e.ptx_name.as_deref(), Some("yy_e5_8a_a0_e5_80_8d"));
    assert_eq!(e.workgroup_size, [64, 1, 1]);
    assert!(e.ptx_uses_sizes);
    let params: Vec<(u32, u32)> = e.ptx_params.iter().map(|p| (p.group, p.binding)).collect();
    assert_eq!(params, [(0, 0), (0, 1)]);
    assert_eq!(double::ENTRIES.len(), 1);
    assert!(double::PTX.contains(".visible .entry yy_e5_8a_a0_e5_80_8d("));
    assert!(double::WGSL.contains("fn 加倍("));
    assert!(double::MSL.contains("kernel void 加倍("));
    // Params { offset: f32, count: u32 }: offsets 0 and 4, size 8 (hand layout).
    let layout = double::BINDINGS[1].layout.as_ref().expect("a buffer has a layout");
    let offsets: Vec<u32> = layout.fields.iter().map(|f| f.offset).collect();
    assert_eq!((layout.size, offsets), (8, vec![0, 4]));
}

#[test]
fn launch_fails_cleanly_without_a_driver() {
    match dianran::launch::CudaModule::load(double::PTX) {
        Err(dianran::launch::LaunchError::NoDevice) => println!("skipped: no CUDA device"),
        Err(e) => panic!("{e}"),
        Ok(_) => {}
    }
}
