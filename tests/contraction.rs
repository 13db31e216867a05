//! `dianran verify` agrees on hash-noise kernels with and without `--no-fma`: contraction is
//! decided in the SSA, and every executor's reference makes the same decisions
//! (`docs/math.md`, "Contraction").

use std::process::Command;

/// Runs `dianran verify` with `args`; panics unless it succeeds with every executor line
/// `agree` or `skipped`. Returns the report.
fn verify_agrees(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_dianran"))
        .arg("verify")
        .args(args)
        .output()
        .expect("the binary starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "dianran verify {args:?}:\n{stdout}\n{stderr}");
    let mut executors = 0;
    for line in stdout.lines() {
        let verdict = line.split('\t').nth(1).unwrap_or_default();
        assert!(matches!(verdict, "agree" | "skipped"), "{args:?}: {line}\n{stdout}");
        executors += 1;
    }
    // The interpreter's line and at least the emulator's.
    assert!(executors >= 2, "{args:?}: no executor ran:\n{stdout}");
    stdout
}

#[test]
fn hash_noise_agrees_with_and_without_fma() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/hash_noise.wgsl");
    for extra in [&[][..], &["--no-fma"][..]] {
        let mut args = vec![file, "--len", "1024"];
        args.extend(extra);
        let report = verify_agrees(&args);
        assert!(report.contains("emu\tagree"), "{report}");
    }
}

#[test]
fn aurora_agrees_with_and_without_fma() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/realworld/gpucpp_aurora.wgsl");
    // The header's parameters: time 1234.5 s, 64 x 32 pixels.
    let mut params = 1234.5f32.to_le_bytes().to_vec();
    params.extend(64u32.to_le_bytes());
    params.extend(32u32.to_le_bytes());
    let path = std::env::temp_dir().join(format!("dianran-aurora-{}.bin", std::process::id()));
    std::fs::write(&path, &params).expect("write the parameters");
    let buffer = format!("0:1={}", path.display());
    for extra in [&[][..], &["--no-fma"][..]] {
        let mut args = vec![file, "--len", "2048", "--buffer", &buffer];
        args.extend(extra);
        let report = verify_agrees(&args);
        assert!(report.contains("emu\tagree"), "{report}");
    }
    let _ = std::fs::remove_file(&path);
}
