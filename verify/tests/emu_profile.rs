//! The emulator's counters (`run_profiled`) on small hand-written kernels whose counts are
//! worked out by hand in each test from the addresses the lanes use: coalescing of global
//! loads, shared-memory bank conflicts (scalar, vector and `ldmatrix` accesses), `mma` and
//! barrier counts. Every kernel also goes through ptxas when it is installed.

use dianran_verify::emu::{run_profiled, EmuOptions, InstClass, Profile};
use dianran_verify::ptxas::{self, PtxasError};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\n";
const REGS: &str =
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<32>;\n\t.reg .f32 %f<8>;\n";

/// A kernel `k(p0, p1)`: `%rd1` = buffer 0 (output), `%rd2` = buffer 1 (input), `%r0` =
/// %tid.x; `shared` declares variables, `body` follows.
fn kernel(shared: &str, body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(\n\t.param .u64 p0,\n\t.param .u64 p1\n)\n{{\n{REGS}{shared}\tld.param.u64 %rd1, [p0];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tld.param.u64 %rd2, [p1];\n\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r0, %tid.x;\n{body}\tret;\n}}\n"
    )
}

/// The instructions `kernel` adds around the body: 2 `ld.param`, 2 `cvta`, 1 `mov`, `ret`.
const FRAME: u64 = 6;

/// ptxas accepts the kernel (skipped when ptxas is not installed).
fn ptxas_accepts(text: &str) {
    match ptxas::check(text, 80) {
        Ok(_) | Err(PtxasError::NotFound) => {}
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Runs `text` over `grid` CTAs of `block` threads with a 64 KiB output and `input`.
fn profile(text: &str, grid: u32, block: u32, input: Vec<u8>) -> Profile {
    ptxas_accepts(text);
    let mut bufs = vec![vec![0u8; 1 << 16], input];
    match run_profiled(text, "k", &mut bufs, [grid, 1, 1], [block, 1, 1], &EmuOptions::default()) {
        Ok(p) => p,
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Lane `tid` loads the f32 at `4 * stride * tid` of the input; the store after it is
/// predicated off in every lane (the input holds ones, never 12345), so the load is the only
/// global request.
fn strided_load(stride: u32) -> String {
    kernel(
        "",
        &format!(
            "\tmul.lo.u32 %r1, %r0, {};\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
             \tld.global.u32 %r2, [%rd4];\n\tsetp.eq.u32 %p1, %r2, 12345;\n\
             \t@%p1 st.global.u32 [%rd1], %r2;\n",
            stride
        ),
    )
}

fn ones(words: usize) -> Vec<u8> {
    (0..words).flat_map(|_| 1u32.to_le_bytes()).collect()
}

#[test]
fn consecutive_f32_loads_are_one_request_of_four_sectors() {
    let p = profile(&strided_load(1), 1, 32, ones(64));
    // 32 lanes x 4 bytes = 128 contiguous bytes from a 32-byte aligned base: 4 sectors, all
    // of their bytes used.
    assert_eq!(p.global_requests, 1);
    assert_eq!(p.global_sectors, 4);
    assert_eq!(p.global_sectors_min, 4);
    assert_eq!(p.global_bytes, 128);
    assert_eq!(p.global_sector_efficiency(), 100.0);
    // The frame, mul, mul.wide, add, ld, setp, the store: one warp, every instruction once.
    assert_eq!(p.warp_instructions, FRAME + 6);
    assert_eq!(p.class(InstClass::Global), 2);
    assert_eq!(p.class(InstClass::Constant), 2);
    assert_eq!(p.class(InstClass::Int), 2 + 4);
    assert_eq!(p.class(InstClass::Move), 1);
    assert_eq!(p.class(InstClass::Control), 1);
    // Every lane runs every instruction but the predicated-off store.
    assert_eq!(p.thread_instructions, 32 * (FRAME + 5));
}

#[test]
fn stride_two_loads_touch_twice_the_sectors() {
    let p = profile(&strided_load(2), 1, 32, ones(64));
    // Lanes read 4 of every 8 bytes over 256 bytes: 8 sectors touched, 128 bytes used =
    // 4 sectors at best.
    assert_eq!(p.global_requests, 1);
    assert_eq!(p.global_sectors, 8);
    assert_eq!(p.global_sectors_min, 4);
    assert_eq!(p.global_sector_efficiency(), 50.0);
}

/// Lane `tid` stores a word at byte `4 * stride * tid` of a shared array.
fn shared_store(stride: u32) -> String {
    kernel(
        &format!("\t.shared .align 16 .b8 s[{}];\n", 4 * stride * 32),
        &format!(
            "\tmov.u32 %r1, s;\n\tmul.lo.u32 %r2, %r0, {};\n\tadd.u32 %r3, %r1, %r2;\n\
             \tst.shared.u32 [%r3], %r0;\n",
            4 * stride
        ),
    )
}

#[test]
fn shared_stride_of_32_words_is_a_32_way_conflict() {
    let p = profile(&shared_store(32), 1, 32, Vec::new());
    // Word 32 * tid is in bank 0 for every lane: 32 distinct words in one bank, 32 wavefronts
    // where one would do.
    assert_eq!(p.shared_requests, 1);
    assert_eq!(p.shared_wavefronts, 32);
    assert_eq!(p.shared_bank_conflicts(), 31);
    assert_eq!(p.global_requests, 0);
}

#[test]
fn shared_stride_of_33_words_has_no_conflict() {
    let p = profile(&shared_store(33), 1, 32, Vec::new());
    // Word 33 * tid is in bank tid % 32: every bank once.
    assert_eq!(p.shared_wavefronts, 1);
    assert_eq!(p.shared_bank_conflicts(), 0);
}

#[test]
fn shared_through_a_generic_pointer_counts_as_shared() {
    // The same stride-32 store through `cvta.shared` and a generic `st`.
    let text = kernel(
        "\t.shared .align 16 .b8 s[4096];\n",
        "\tmov.u64 %rd5, s;\n\tcvta.shared.u64 %rd6, %rd5;\n\tmul.wide.u32 %rd7, %r0, 128;\n\
         \tadd.s64 %rd8, %rd6, %rd7;\n\tst.u32 [%rd8], %r0;\n",
    );
    let p = profile(&text, 1, 32, Vec::new());
    assert_eq!(p.shared_requests, 1);
    assert_eq!(p.shared_bank_conflicts(), 31);
    assert_eq!(p.global_requests, 0);
    assert_eq!(p.class(InstClass::Shared), 1);
}

#[test]
fn sixteen_byte_consecutive_shared_stores_have_no_conflict() {
    let text = kernel(
        "\t.shared .align 16 .b8 s[512];\n",
        "\tmov.u32 %r1, s;\n\tshl.b32 %r2, %r0, 4;\n\tadd.u32 %r3, %r1, %r2;\n\
         \tst.shared.v4.u32 [%r3], {%r0, %r0, %r0, %r0};\n",
    );
    let p = profile(&text, 1, 32, Vec::new());
    // 512 bytes in 4 quarter-warp phases of 128 contiguous bytes: 4 wavefronts, all needed.
    assert_eq!(p.shared_wavefronts, 4);
    assert_eq!(p.shared_bank_conflicts(), 0);
}

#[test]
fn eight_byte_shared_loads_at_a_16_byte_stride_conflict_per_half_warp() {
    let text = kernel(
        "\t.shared .align 16 .b8 s[512];\n",
        "\tmov.u32 %r1, s;\n\tshl.b32 %r2, %r0, 4;\n\tadd.u32 %r3, %r1, %r2;\n\
         \tld.shared.v2.u32 {%r4, %r5}, [%r3];\n\tadd.u32 %r6, %r4, %r5;\n\
         \tst.shared.u32 [%r3], %r6;\n",
    );
    let p = profile(&text, 1, 32, Vec::new());
    // ld.v2: each half-warp of 16 lanes reads words 4t and 4t+1, t = 0..16, of a 256-byte
    // span: banks 0,1,4,5,... hold 2 words each: 2 wavefronts per half-warp, 4 in all where
    // 2 would do. st.u32 at a 16-byte stride: 32 words 4t in banks 0,4,...,28, 4 words each:
    // 4 wavefronts where 1 would do.
    assert_eq!(p.shared_requests, 2);
    assert_eq!(p.shared_wavefronts, 4 + 4);
    assert_eq!(p.shared_bank_conflicts(), 2 + 3);
}

/// `ldmatrix.x4` with lane `l` giving row `l` of a tile whose rows are `row_bytes` apart.
fn ldmatrix_x4(row_bytes: u32) -> String {
    kernel(
        &format!("\t.shared .align 16 .b8 s[{}];\n", 32 * row_bytes),
        &format!(
            "\tmov.u32 %r1, s;\n\tmul.lo.u32 %r2, %r0, {row_bytes};\n\tadd.u32 %r3, %r1, %r2;\n\
             \tldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%r4, %r5, %r6, %r7}}, [%r3];\n\
             \tmul.wide.u32 %rd3, %r0, 16;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
             \tst.global.v4.u32 [%rd4], {{%r4, %r5, %r6, %r7}};\n"
        ),
    )
}

#[test]
fn ldmatrix_on_unpadded_64_byte_rows_conflicts_four_ways() {
    let p = profile(&ldmatrix_x4(64), 1, 32, Vec::new());
    // Each matrix is 8 rows 64 bytes (16 words) apart: row r covers banks 0-3 (r even) or
    // 16-19 (r odd), so banks 0-3 hold 4 distinct words: 4 wavefronts per matrix, 16 for
    // the x4 where 4 would do.
    assert_eq!(p.ldmatrix, 1);
    assert_eq!(p.shared_wavefronts, 16);
    assert_eq!(p.ldmatrix_bank_conflicts(), 12);
    assert_eq!(p.shared_bank_conflicts(), 12);
    // The v4 store: 512 contiguous bytes, 16 sectors, all used.
    assert_eq!(p.global_sectors, 16);
    assert_eq!(p.global_sector_efficiency(), 100.0);
}

#[test]
fn ldmatrix_on_padded_80_byte_rows_has_no_conflict() {
    let p = profile(&ldmatrix_x4(80), 1, 32, Vec::new());
    // Rows 20 words apart start in banks 0, 20, 8, 28, 16, 4, 24, 12: eight disjoint groups
    // of 4 banks, one wavefront per matrix.
    assert_eq!(p.ldmatrix, 1);
    assert_eq!(p.shared_wavefronts, 4);
    assert_eq!(p.ldmatrix_bank_conflicts(), 0);
    assert_eq!(p.shared_bank_conflicts(), 0);
}

#[test]
fn mma_and_barriers_are_counted_per_warp_and_per_cta() {
    // Two warps per CTA, three CTAs; each warp runs one mma between two barriers.
    let text = kernel(
        "",
        "\tmov.b32 %r1, 0;\n\tbar.sync 0;\n\
         \tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, \
         {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f4, %f4, %f4, %f4};\n\
         \tbar.sync 0;\n\tmul.wide.u32 %rd3, %r0, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\
         \tst.global.f32 [%rd4], %f0;\n",
    )
    .replace("\tmov.b32 %r1, 0;\n", "\tmov.b32 %r1, 0;\n\tmov.f32 %f4, 0f00000000;\n");
    let p = profile(&text, 3, 64, Vec::new());
    assert_eq!(p.mma, 2 * 3);
    assert_eq!(p.barriers, 2 * 3);
    assert_eq!(p.class(InstClass::Tensor), 2 * 3);
    assert_eq!(p.class(InstClass::Sync), 2 * 2 * 3);
    // The store: 2 warps x 3 CTAs of 128 contiguous bytes.
    assert_eq!(p.global_requests, 6);
    assert_eq!(p.global_sectors, 24);
}

#[test]
fn counters_print_as_tab_separated_lines() {
    let p = profile(&strided_load(2), 1, 32, ones(64));
    let text = p.to_string();
    for want in [
        "global_requests\t1\n",
        "global_sectors\t8\n",
        "global_sector_efficiency\t50.0\n",
        "shared_bank_conflicts\t0\n",
        "mma\t0\n",
        "ldmatrix\t0\n",
        "barriers\t0\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(text.starts_with(&format!("warp_instructions\t{}\n", FRAME + 6)));
    assert!(text.lines().all(|l| l.split('\t').count() == 2), "{text}");
}
