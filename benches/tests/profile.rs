//! The counters bench's runs: every pair's PTX runs on the emulator with the counters on, and
//! NVRTC's too when NVRTC is installed (`skipped: nvrtc not found` otherwise; a failure under
//! CI=true). The counts themselves are checked against hand-computed kernels in
//! `verify/tests/emu_profile.rs`; here, what holds for any correct run: a launch issues
//! instructions and reads or writes global memory, and the sector efficiency is a percentage.
//! And a hand-counted CUTLASS-style kernel (inline `ldmatrix` and `mma.sync`) through NVRTC.

use dianran_benches::kernels::PAIRS;
use dianran_benches::nvrtc::{self, NvrtcError};
use dianran_benches::profile::profile_pair;
use dianran_verify::emu::Profile;

fn sane(what: &str, p: &Profile) {
    assert!(p.warp_instructions > 0, "{what}: no instructions");
    assert!(p.global_requests > 0, "{what}: no global access");
    assert!(p.global_sectors >= p.global_sectors_min, "{what}: {p:?}");
    let eff = p.global_sector_efficiency();
    assert!(eff > 0.0 && eff <= 100.0, "{what}: efficiency {eff}");
    assert!(p.shared_wavefronts >= p.shared_wavefronts_ideal, "{what}: {p:?}");
}

#[test]
fn every_pair_runs_with_counters() {
    let nvrtc_found = match nvrtc::load() {
        Ok(()) => true,
        Err(NvrtcError::NotFound(why)) => {
            dianran_verify::tools::require_that(false, &format!("nvrtc not found ({why})"));
            false
        }
        Err(e) => panic!("{e}"),
    };
    for pair in PAIRS {
        let pp = profile_pair(pair, 80).unwrap_or_else(|e| panic!("{}: {e}", pair.sample));
        match &pp.ours {
            Ok(p) => sane(&format!("{} (dianran)", pair.sample), p),
            Err(e) => panic!("{} (dianran): {e}", pair.sample),
        }
        if nvrtc_found {
            match &pp.theirs {
                Ok(p) => sane(&format!("{} (NVRTC)", pair.cuda_file), p),
                // The emulator runs mma.sync/ldmatrix, not the opaque-layout wmma forms;
                // CUDA equivalents written with wmma cannot be counted.
                Err(e) if e.contains("'wmma' is not in the supported subset") => {
                    println!(
                        "skipped: {} uses wmma, which the emulator does not run",
                        pair.cuda_file
                    )
                }
                Err(e) => panic!("{} (NVRTC): {e}", pair.cuda_file),
            }
        }
    }
}

/// CUTLASS-style inline PTX through NVRTC: a 16x16 f16 tile staged in shared memory with
/// rows padded to 80 bytes, read by one `ldmatrix.x4` and multiplied by one `mma.sync`.
const INLINE_MMA: &str = r#"
extern "C" __global__ void k(const unsigned short* a, float* d) {
    __shared__ __align__(16) unsigned short s[16 * 40];
    unsigned l = threadIdx.x;
    for (unsigned i = l; i < 256; i += 32) {
        s[(i / 16) * 40 + i % 16] = a[i];
    }
    __syncthreads();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(l % 16) * 40 + (l / 16) * 8]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                 : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(r0), "r"(r2));
    d[l * 4 + 0] = c0;
    d[l * 4 + 1] = c1;
    d[l * 4 + 2] = c2;
    d[l * 4 + 3] = c3;
}
"#;

#[test]
fn nvrtc_inline_ldmatrix_and_mma_are_counted() {
    let ptx = match nvrtc::compile(INLINE_MMA, "inline_mma.cu", 80) {
        Ok(p) => p,
        Err(NvrtcError::NotFound(why)) => {
            dianran_verify::tools::require_that(false, &format!("nvrtc not found ({why})"));
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let a: Vec<u8> =
        (0..256u32).flat_map(|i| half::f16::from_f32((i % 7) as f32).to_le_bytes()).collect();
    let mut params = vec![a, vec![0u8; 512]];
    let p = dianran_verify::emu::run_profiled(
        &ptx,
        "k",
        &mut params,
        [1, 1, 1],
        [32, 1, 1],
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    assert_eq!(p.ldmatrix, 1);
    assert_eq!(p.mma, 1);
    assert_eq!(p.barriers, 1);
    // Rows 80 bytes (20 words) apart start in 8 disjoint groups of 4 banks; the matrices of
    // lanes 16-31 are 16 bytes further along, which shifts every group alike.
    assert_eq!(p.ldmatrix_bank_conflicts(), 0);
    // Loads: 8 iterations of 32 consecutive halves (64 bytes, 2 sectors, all used). Stores:
    // 4 scalar stores per lane, each request covering every 4th word of 512 bytes: 16
    // sectors touched for 128 bytes (4 sectors). (8 * 2 + 4 * 4) / (8 * 2 + 4 * 16) = 40%.
    assert_eq!(p.global_requests, 8 + 4);
    assert_eq!(p.global_sectors, 8 * 2 + 4 * 16);
    assert_eq!(p.global_sectors_min, 8 * 2 + 4 * 4);
    assert_eq!(p.global_sector_efficiency(), 40.0);
    match dianran_verify::ptxas::check(&ptx, 80) {
        Ok(_) | Err(dianran_verify::ptxas::PtxasError::NotFound) => {}
        Err(e) => panic!("{e}"),
    }
}
