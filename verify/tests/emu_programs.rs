//! PTX emulator on whole programs: NVRTC-style PTX, a tiled matmul (its warp instructions
//! counted), and the PTX the
//! backend emits for the compute samples, compared with the reference interpreter.

use dianran_verify::emu::{run, run_profiled, EmuOptions, InstClass};
use std::path::Path;

fn ptx_file(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn to_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn nvrtc_vector_add() {
    let text = ptx_file("nvrtc_vecadd_reduce.ptx");
    let n = 512;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    let mut bufs = vec![f32s(&a), f32s(&b), vec![0u8; 4 * n]];
    run(&text, "vecAdd", &mut bufs, [4, 1, 1], [128, 1, 1], &EmuOptions::default()).unwrap();
    let c = to_f32(&bufs[2]);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
}

#[test]
fn nvrtc_shared_reduction_with_shuffles() {
    let text = ptx_file("nvrtc_vecadd_reduce.ptx");
    let n = 1024;
    let input: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let mut bufs = vec![f32s(&input), vec![0u8; 4]];
    run(&text, "reduceSum", &mut bufs, [4, 1, 1], [256, 1, 1], &EmuOptions::default()).unwrap();
    let expected: f32 = input.iter().sum();
    assert_eq!(to_f32(&bufs[1])[0], expected);
    // .maxntid 256 is enforced.
    let mut bufs = vec![f32s(&input), vec![0u8; 4]];
    assert!(
        run(&text, "reduceSum", &mut bufs, [2, 1, 1], [512, 1, 1], &EmuOptions::default()).is_err()
    );
}

/// The tiled matmul is exact and issues exactly the warp instructions of the program: each of
/// the 16 CTAs has 8 warps, and every warp runs the straight-line code once (18 instructions
/// before `$L_tile`, 5 after it), the tile loop 4 times (21 before `$L_k`, 4 after it), and
/// the 8-instruction `$L_k` loop 16 times per tile, all 32 lanes together. An emulator that
/// splits warps, runs lanes one by one or revisits instructions issues more, which is what
/// makes it slow; the count measures that without a clock.
#[test]
fn tiled_matmul_64_is_exact_and_issues_each_warp_instruction_once() {
    let text = ptx_file("matmul_tiled_64.ptx");
    let n = 64;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let mut bufs = vec![f32s(&a), f32s(&b), vec![0u8; 4 * n * n]];
    let prof = run_profiled(
        &text,
        "matmul_tiled",
        &mut bufs,
        [4, 4, 1],
        [16, 16, 1],
        &EmuOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = to_f32(&bufs[2]);
    for r in 0..n {
        for col in 0..n {
            let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + col]).sum();
            assert_eq!(c[r * n + col], want, "C[{r}][{col}]");
        }
    }
    let warps = 16 * 8;
    let per_warp = 18 + 4 * (21 + 16 * 8 + 4) + 5;
    assert_eq!(prof.warp_instructions, warps * per_warp, "{prof:?}");
    // Every lane runs every instruction, except the last branch of each loop (its guard is
    // false there): 4 `$L_k` exits and 1 `$L_tile` exit per warp.
    assert_eq!(prof.thread_instructions, 32 * warps * (per_warp - 5), "{prof:?}");
    // Per warp: two global loads per tile and the final store; two shared stores per tile
    // and two shared loads per `$L_k` step.
    assert_eq!(prof.class(InstClass::Global), warps * (4 * 2 + 1), "{prof:?}");
    assert_eq!(prof.class(InstClass::Shared), warps * 4 * (2 + 16 * 2), "{prof:?}");
    // The step budget counts the same warp instructions: one fewer stops the run.
    let mut bufs = vec![f32s(&a), f32s(&b), vec![0u8; 4 * n * n]];
    let short = EmuOptions { max_steps: warps * per_warp - 1, ..EmuOptions::default() };
    let e = run(&text, "matmul_tiled", &mut bufs, [4, 4, 1], [16, 16, 1], &short).unwrap_err();
    assert_eq!(e.kind, dianran_verify::emu::EmuErrorKind::StepLimit, "{e}");
}

#[test]
fn errors_name_the_source_register_and_line() {
    // Drop the load of %f2 from the NVRTC vector add: the add reads it undefined.
    let text =
        ptx_file("nvrtc_vecadd_reduce.ptx").replace("\tld.global.nc.f32 \t%f2, [%rd9];\n", "");
    let mut bufs = vec![vec![0u8; 64], vec![0u8; 64], vec![0u8; 64]];
    let e =
        run(&text, "vecAdd", &mut bufs, [1, 1, 1], [16, 1, 1], &EmuOptions::default()).unwrap_err();
    assert_eq!(e.kind, dianran_verify::emu::EmuErrorKind::UndefinedRegister);
    assert!(e.message.contains("%f2"), "{e}");
    let line = text.lines().position(|l| l.contains("add.f32 \t%f3")).map(|p| p as u32 + 1);
    assert_eq!(e.line, line);
}

/// Module-scope `.global` and `.const` variables with initializers, as NVRTC emits for CUDA's
/// math tables: read through `mov` of the symbol and `ld.global`, and through `ld.const`.
#[test]
fn module_variables_with_initializers() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
.global .align 4 .b8 tbl[8] = {1, 0, 0, 0, 2, 1, 0, 0};\n\
.const .align 4 .u32 k[2] = {10, 20};\n\
.visible .entry t(.param .u64 out)\n{\n\
\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<6>;\n\
\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\tmov.u64 %rd3, tbl;\n\tld.global.nc.u32 %r1, [%rd3+4];\n\
\tld.const.u32 %r2, [k+4];\n\tadd.s32 %r3, %r1, %r2;\n\
\tst.global.u32 [%rd2], %r3;\n\tret;\n}\n";
    let mut bufs = vec![vec![0u8; 4]];
    run(text, "t", &mut bufs, [1, 1, 1], [1, 1, 1], &EmuOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(u32::from_le_bytes([bufs[0][0], bufs[0][1], bufs[0][2], bufs[0][3]]), 258 + 20);
}
