//! The texture samples (`tests/samples/texture_*.wgsl`, `depth_compare_*.wgsl`) through the
//! launch helper (`dianran::launch::CudaModule::launch_with_textures`) on a CUDA device,
//! against the PTX emulator on the same inputs (textures from the sample headers, seeded). Without a device
//! every sample still runs on the emulator and the device part prints `skipped: no CUDA
//! device` (`verify/gpu-check.sh` runs this test on a GPU machine).
//!
//! Comparison: words that are normal f32 on both sides may differ by
//! `cuda_filter_tolerance` (the emulator's 8-bit filter weights model CUDA's, but the
//! guide does not say how the hardware rounds them); every other word (integers below 2^23,
//! zeros, stored texels) must match exactly.
#![cfg(feature = "cuda")]

use dianran::launch::{BufferArg, CudaModule, LaunchError, SamplerArg, TextureArg};
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::texture::{build_textures, cuda_filter_tolerance};
use std::path::Path;

fn close(a: u32, b: u32) -> bool {
    let normal = |x: u32| (x >> 23) & 0xff != 0 && (x >> 23) & 0xff != 0xff;
    a == b
        || (normal(a)
            && normal(b)
            && (f32::from_bits(a) - f32::from_bits(b)).abs() <= cuda_filter_tolerance(2.0, 1.0, 3))
}

#[test]
fn texture_samples_through_the_launch_helper() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    names.retain(|n: &String| {
        (n.starts_with("texture_") || n.starts_with("depth_compare_")) && n.ends_with(".wgsl")
    });
    names.sort();
    let mut device_missing = false;
    for name in names {
        let src = std::fs::read_to_string(dir.join(&name)).unwrap_or_default();
        let header =
            dianran_verify::samples::header(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Some(dispatch) = header.dispatch else { continue };
        let m = dianran::frontend::compile(&name, &src, &Default::default())
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let c =
            dianran::compile(&name, &src, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
        let entry = header.entry.clone().unwrap_or_else(|| {
            m.entry_points
                .iter()
                .find(|e| e.stage == dianran::reflect::Stage::Compute)
                .map(|e| e.name.clone())
                .unwrap_or_default()
        });
        // Every texture sample compiles to PTX: a missing entry is a failure, not a skip.
        let ptx = c.ptx.as_ref().unwrap_or_else(|d| panic!("{name}: no PTX: {d}"));
        let e = c.entry(&entry).unwrap_or_else(|| panic!("{name}: no entry {entry}"));
        assert!(e.ptx_name.is_some(), "{name}: entry {entry} is not in the PTX");
        let bound = build_textures(&m, &entry, &header.textures, &header.samplers, 1)
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let buffers = dianran_verify::buffers::default_buffers(&m, &entry, 1024)
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));

        // The emulator.
        let out = dianran_ptx::codegen::compile_module(&m, &Default::default());
        let info = out.entries.iter().find(|i| i.name == entry).unwrap_or_else(|| panic!("{name}"));
        // Laid out as the executors lay them out (`p_sizes` included: docs/abi.md).
        let mut params = dianran_verify::executors::ptx_params(info, &buffers)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .buffers;
        let mut emu_bound = bound.clone();
        emu::fill_compare_words(&info.params, &emu_bound, &mut params)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut objects = emu::texture_objects(&info.params, &emu_bound)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        emu::run_module_textures(
            &out.module,
            &info.ptx_name,
            &mut params,
            &mut objects,
            dispatch,
            e.workgroup_size,
            &EmuOptions::default(),
        )
        .unwrap_or_else(|err| panic!("{name}: emulator: {err}"));
        emu::write_back_textures(&info.params, &objects, &mut emu_bound);

        // The device.
        if device_missing {
            continue;
        }
        let module = match CudaModule::load(ptx) {
            Err(LaunchError::NoDevice) => {
                println!("skipped: no CUDA device");
                device_missing = true;
                continue;
            }
            r => r.unwrap_or_else(|err| panic!("{name}: {err}")),
        };
        let mut dev_buffers = buffers.clone();
        let mut dev_bound = bound.clone();
        let mut bargs: Vec<BufferArg<'_>> =
            dev_buffers.iter_mut().map(|(k, v)| BufferArg::new(k.0, k.1, v)).collect();
        let mut targs: Vec<TextureArg<'_>> = dev_bound
            .textures
            .iter_mut()
            .map(|(k, t)| TextureArg { group: k.0, binding: k.1, texture: t })
            .collect();
        let sargs: Vec<SamplerArg> = bound
            .samplers
            .iter()
            .map(|(k, s)| SamplerArg { group: k.0, binding: k.1, sampler: *s })
            .collect();
        module
            .launch_with_textures(e, dispatch, &mut bargs, &mut targs, &sargs)
            .unwrap_or_else(|err| panic!("{name}: launch: {err}"));
        drop((bargs, targs));
        for (p, emu_bytes) in info.params.iter().zip(&params) {
            let Some(k) = dianran_ptx::abi::param_binding(p) else { continue };
            let Some(dev) = dev_buffers.get(&k) else { continue };
            let (a, b) = (words(dev), words(emu_bytes));
            let bad = a.iter().zip(&b).filter(|(x, y)| !close(**x, **y)).count();
            assert_eq!(bad, 0, "{name}: buffer {k:?}: {bad} words differ");
        }
        for (k, t) in &dev_bound.textures {
            assert_eq!(t.data, emu_bound.textures[k].data, "{name}: texture {k:?} differs");
        }
        println!("{name}: device agrees with the emulator");
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}
