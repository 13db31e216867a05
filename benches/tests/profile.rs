//! The counters bench's runs: every pair's PTX runs on the emulator with the counters on, and
//! NVRTC's too when NVRTC is installed (`skipped: nvrtc not found` otherwise; a failure under
//! CI=true). The counts themselves are checked against hand-computed kernels in
//! `verify/tests/emu_profile.rs`; here, what holds for any correct run: a launch issues
//! instructions and reads or writes global memory, and the sector efficiency is a percentage.

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
