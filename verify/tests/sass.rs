//! The SASS mix (`dianran_verify::sass`: ptxas, then nvdisasm) of kernels whose machine code
//! is known from their source: a hand-written PTX kernel with one access of each width and
//! one `ldmatrix` of each count, a tensor-core loop whose HMMA count per K step follows from
//! its tiling, and an element-wise f32 kernel that can only load and store 4 bytes at a time.
//! Every PTX text goes through ptxas on the way.

use dianran_verify::sass::{self, KernelMix, Width};
use dianran_verify::tools;

/// Both tools, or `None` after printing `skipped:` (a failure under `CI=true`).
fn tools_present() -> Option<()> {
    tools::require("ptxas", tools::ptxas())?;
    tools::require("nvdisasm", tools::nvdisasm())?;
    Some(())
}

/// Our backend's PTX of `src` at `sm_<sm>`, then its SASS mix.
fn mix_of_wgsl(src: &str, sm: u32) -> Vec<KernelMix> {
    let m =
        dianran_frontend::compile("k.wgsl", src, &unchecked()).unwrap_or_else(|d| panic!("{d}"));
    let opts = dianran_ptx::codegen::Options { sm, ..Default::default() };
    let out = dianran_ptx::codegen::compile_module(&m, &opts);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    sass::of_ptx(&out.text, sm).unwrap_or_else(|e| panic!("{e}"))
}

/// Stores of 1, 2, 4, 8 and 16 bytes to distinct addresses, to shared and to global memory
/// (ptxas cannot merge stores of different widths into one), `ldmatrix` `.x1`, `.x2` and
/// `.x4`, one atomic add and one reduction, one barrier, and no loop.
const WIDTHS_PTX: &str = "
.version 7.8
.target sm_80
.address_size 64
.visible .entry widths(.param .u64 p)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .b16 %h<4>;
  .shared .align 16 .b8 sm[4096];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 64;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2,%r3,%r4,%r5}, [%rd4];
  cvt.u16.u32 %h1, %r2;
  mov.u32 %r9, sm;
  shl.b32 %r10, %r1, 6;
  add.u32 %r11, %r9, %r10;
  st.shared.v4.u32 [%r11], {%r2,%r3,%r4,%r5};
  st.shared.v2.u32 [%r11+16], {%r3,%r4};
  st.shared.u32 [%r11+24], %r5;
  st.shared.u16 [%r11+28], %h1;
  st.shared.u8 [%r11+30], %h1;
  bar.sync 0;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r12}, [%r11];
  ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r13,%r14}, [%r11+128];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r15,%r16,%r17,%r18}, [%r11+256];
  add.u32 %r26, %r12, %r13; add.u32 %r26, %r26, %r14; add.u32 %r26, %r26, %r15;
  add.u32 %r26, %r26, %r16; add.u32 %r26, %r26, %r17; add.u32 %r26, %r26, %r18;
  st.global.v4.u32 [%rd4+16], {%r26,%r2,%r3,%r4};
  st.global.v2.u32 [%rd4+32], {%r26,%r2};
  st.global.u32 [%rd4+40], %r26;
  st.global.u16 [%rd4+44], %h1;
  st.global.u8 [%rd4+46], %h1;
  atom.global.add.u32 %r30, [%rd4+48], 1;
  red.global.add.u32 [%rd4+52], %r30;
  ret;
}
";

#[test]
fn one_access_of_each_width_and_one_ldmatrix_of_each_count() {
    if tools_present().is_none() {
        return;
    }
    for sm in [80, 90] {
        let ptx = WIDTHS_PTX.replace("sm_80", &format!("sm_{sm}"));
        let mixes = sass::of_ptx(&ptx, sm).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mixes.len(), 1);
        let k = &mixes[0];
        assert_eq!(k.kernel, "widths");
        let m = &k.mix;
        for w in Width::ALL {
            assert_eq!(m.sts.get(w), 1, "sm_{sm}: one STS of {} bits", w.bits());
            assert_eq!(m.stg.get(w), 1, "sm_{sm}: one STG of {} bits", w.bits());
        }
        assert_eq!(m.ldsm, [1, 1, 1], "sm_{sm}");
        assert_eq!(m.ldg.get(Width::B128), 1, "sm_{sm}: the one v4 load");
        assert_eq!(m.atomic, 2, "sm_{sm}");
        assert_eq!(m.barrier, 1, "sm_{sm}");
        assert_eq!(m.tensor, 0, "sm_{sm}");
        assert_eq!(m.local, 0, "sm_{sm}");
        assert!(k.loops.is_empty(), "sm_{sm}: {:?}", k.loops);
    }
}

/// One subgroup, one 16x16 accumulator, K walked in steps of 16 with a trip count only known
/// at run time (so ptxas cannot unroll it): per step one 16x16x16 f16 product, which is two
/// m16n8k16 HMMAs (the 16x16 result is two 16x8 halves), on an A and a B tile each read from
/// workgroup memory with one `ldmatrix.x4` (a 16x16 f16 tile is four 8x8 matrices).
const TENSOR_LOOP: &str = "
enable f16;
enable wgpu_cooperative_matrix;
struct Dims { k: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
var<workgroup> ta: array<f16, 256>;
var<workgroup> tb: array<f16, 256>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc: coop_mat16x16<f32, C>;
    for (var t = 0u; t < dims.k / 16u; t++) {
        for (var i = 0u; i < 8u; i++) {
            ta[i * 32u + lid] = a[t * 256u + i * 32u + lid];
            tb[i * 32u + lid] = b[t * 256u + i * 32u + lid];
        }
        workgroupBarrier();
        let x = coopLoadT<coop_mat16x16<f16, A>>(&ta[0], 16u);
        let y = coopLoadT<coop_mat16x16<f16, B>>(&tb[0], 16u);
        acc = coopMultiplyAdd(x, y, acc);
        workgroupBarrier();
    }
    let p = &c[0];
    coopStoreT(acc, p, 16u);
}
";

#[test]
fn tensor_loop_has_two_hmma_and_two_ldsm_x4_per_k_step() {
    if tools_present().is_none() {
        return;
    }
    for sm in [80, 90] {
        let mixes = mix_of_wgsl(TENSOR_LOOP, sm);
        let k = &mixes[0];
        let main = k.main_loop().unwrap_or_else(|| panic!("sm_{sm}: no main loop: {k:?}"));
        assert_eq!(main.mix.tensor, 2, "sm_{sm}: {main:?}");
        assert_eq!(main.mix.ldsm, [0, 0, 2], "sm_{sm}: {main:?}");
        assert_eq!(main.mix.barrier, 2, "sm_{sm}: {main:?}");
        // The HMMAs are all in the loop; per HMMA, the loop's other instructions count too.
        assert_eq!(k.mix.tensor, 2, "sm_{sm}");
        assert_eq!(main.mix.per_tensor(), Some(f64::from(main.mix.total) / 2.0));
        assert!(main.mix.total > 2 + 2 + 2, "sm_{sm}: {main:?}");
    }
}

/// One f32 in, one f32 out per invocation: the only global accesses are 32-bit ones, two
/// loads (the element, and `arrayLength`'s entry of the buffer-size table dianran passes as
/// the `p_sizes` parameter) and one store.
const SCALE: &str = "
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < arrayLength(&y)) {
        y[i] = x[i] * 3.0;
    }
}
";

#[test]
fn four_byte_accesses_are_plain_ldg_and_stg() {
    if tools_present().is_none() {
        return;
    }
    for sm in [80, 90] {
        let mixes = mix_of_wgsl(SCALE, sm);
        let m = &mixes[0].mix;
        assert_eq!((m.ldg.total(), m.ldg.get(Width::B32)), (2, 2), "sm_{sm}: {m:?}");
        assert_eq!((m.stg.total(), m.stg.get(Width::B32)), (1, 1), "sm_{sm}: {m:?}");
        assert_eq!((m.tensor, m.ldsm, m.local, m.atomic), (0, [0; 3], 0, 0), "sm_{sm}");
        assert!(m.float >= 1, "sm_{sm}: the multiply");
        assert!(mixes[0].loops.is_empty(), "sm_{sm}");
    }
}

/// The table of the GEMM sample: its kernel row, and a main-loop row with HMMAs.
#[test]
fn gemm_sample_table_has_a_main_loop_row() {
    if tools_present().is_none() {
        return;
    }
    let root = tools::workspace_root().expect("workspace root");
    let src = std::fs::read_to_string(root.join("tests/samples/gemm_tiled_f16.wgsl"))
        .expect("the sample reads");
    let mixes = mix_of_wgsl(&src, 80);
    let table = sass::table(&mixes);
    assert!(table.starts_with(sass::HEADER), "{table}");
    let main_row = table
        .lines()
        .find(|l| l.split('\t').nth(1).is_some_and(|s| s.ends_with(" main")))
        .unwrap_or_else(|| panic!("no main loop row:\n{table}"));
    let cells: Vec<&str> = main_row.split('\t').collect();
    let hmma: u32 = cells[3].parse().expect("tensor count");
    // m16n8k16 HMMAs come in pairs: each 16x16x16 product is two of them.
    assert!(hmma > 0 && hmma.is_multiple_of(2), "{main_row}");
    assert!(cells[17].parse::<f64>().is_ok(), "{main_row}");
}

/// Frontend options without the bounds policy: hand counts of unguarded kernels; the bounds policy's cost is measured by `cargo bench --bench bounds`.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}

/// The GEMM on a workgroup matrix (`tests/samples/tile_gemm.wgsl`, issue 28's criterion):
/// with the default bounds policy, its main loop holds 16 HMMA and 10 `ldmatrix.x4` per
/// 32-deep slab, and takes no more than 10 % more SASS instructions per HMMA than the
/// hand-tuned `gemm_tiled_f16.wgsl` (the same buffers, staging and blocks), at sm_80 and
/// sm_90. The f32-operand sample has no tensor instruction at all (the portable form).
#[test]
fn workgroup_matrix_gemm_loop_is_within_a_tenth_of_the_hand_tuned_one() {
    if tools_present().is_none() {
        return;
    }
    let root = tools::workspace_root().expect("workspace root");
    let mix = |name: &str, sm: u32| {
        let src = std::fs::read_to_string(root.join("tests/samples").join(name)).expect("sample");
        let m = dianran_frontend::compile(name, &src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let opts = dianran_ptx::codegen::Options { sm, ..Default::default() };
        let out = dianran_ptx::codegen::compile_module(&m, &opts);
        assert!(out.diagnostics.is_empty(), "{name}: {:?}", out.diagnostics);
        sass::of_ptx(&out.text, sm).unwrap_or_else(|e| panic!("{e}"))
    };
    for sm in [80, 90] {
        let tile = mix("tile_gemm.wgsl", sm);
        let hand = mix("gemm_tiled_f16.wgsl", sm);
        let t = tile[0].main_loop().unwrap_or_else(|| panic!("sm_{sm}: no main loop"));
        let h = hand[0].main_loop().unwrap_or_else(|| panic!("sm_{sm}: no main loop"));
        assert_eq!(t.mix.tensor, 16, "sm_{sm}: {t:?}");
        assert_eq!(t.mix.ldsm, [0, 0, 10], "sm_{sm}: {t:?}");
        assert_eq!(t.mix.local, 0, "sm_{sm}: {t:?}");
        let (tp, hp) = (t.mix.per_tensor().expect("hmma"), h.mix.per_tensor().expect("hmma"));
        assert!(tp <= 1.1 * hp, "sm_{sm}: {tp:.2} SASS per HMMA against {hp:.2}");
        let portable = mix("tile_gemm_f32.wgsl", sm);
        assert_eq!(portable[0].mix.tensor, 0, "sm_{sm}: the f32 operand takes the portable form");
    }
}

/// `--sm 90a` (docs/hopper.md): the workgroup-matrix GEMM's product is Hopper's `wgmma`, two
/// `HGMMA.64x64x16` per 32-deep slab in the main loop (where sm_80 and sm_90 have 16 HMMA),
/// and ptxas assembles it for sm_90a; the bias/ReLU sample, whose operands come straight from
/// storage, has HGMMA too, and stages them with `cp.async` (`LDGSTS.128`, no registers) when
/// a run-time test finds their rows 16-byte aligned.
#[test]
fn workgroup_matrix_gemm_on_sm_90a_is_hgmma() {
    if tools_present().is_none() {
        return;
    }
    let root = tools::workspace_root().expect("workspace root");
    let sm = dianran_ptx::model::SM_90A;
    for (name, per_loop) in [("tile_gemm.wgsl", Some(2)), ("tile_gemm_bias_relu.wgsl", None)] {
        let src = std::fs::read_to_string(root.join("tests/samples").join(name)).expect("sample");
        let m = dianran_frontend::compile(name, &src, &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        let opts = dianran_ptx::codegen::Options { sm, ..Default::default() };
        let out = dianran_ptx::codegen::compile_module(&m, &opts);
        assert!(out.diagnostics.is_empty(), "{name}: {:?}", out.diagnostics);
        assert!(out.text.contains(".target sm_90a\n"), "{name}");
        assert!(out.text.contains("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), "{name}");
        assert!(!out.text.contains("mma.sync"), "{name}: no mma.sync left");
        let mix = sass::of_ptx(&out.text, sm).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(mix[0].mix.tensor > 0, "{name}: no HGMMA");
        let copies = out.text.matches("cp.async.cg.shared.global").count();
        let cubin = dianran_verify::ptxas::assemble(&out.text, sm)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .cubin;
        let listing = sass::disassemble(&cubin).unwrap_or_else(|e| panic!("{name}: {e}"));
        let kernels = sass::parse(&listing).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ldgsts = kernels
            .iter()
            .flat_map(|k| &k.instructions)
            .filter(|i| i.opcode == "LDGSTS.E.BYPASS.128")
            .count();
        if per_loop.is_some() {
            // tile_gemm's operands are in workgroup memory: nothing to copy from global.
            assert_eq!((copies, ldgsts), (0, 0), "{name}");
        } else {
            // A (K-major) and B (MN-major), 32 deep: two 16-byte pieces each per invocation.
            assert_eq!((copies, ldgsts), (4, 4), "{name}");
            assert_eq!(out.text.matches("cp.async.wait_group \t0;").count(), 1, "{name}");
        }
        if let Some(n) = per_loop {
            let l = mix[0].main_loop().unwrap_or_else(|| panic!("{name}: no main loop"));
            assert_eq!(l.mix.tensor, n, "{name}: {l:?}");
            // Double-buffered staging: the loop keeps one group in flight (`wait_group 1`
            // before its copies); the one full wait is the store's, after the loop.
            let waits =
                |n: u32| out.text.matches(&format!("wgmma.wait_group.sync.aligned \t{n};")).count();
            assert_eq!((waits(1), waits(0)), (1, 1), "{name}: waits");
        }
    }
}
