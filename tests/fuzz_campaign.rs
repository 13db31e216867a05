//! `dianran fuzz` as CI runs it: a short fixed-seed campaign through every tool and executor
//! present must find nothing, and a deliberately broken PTX code generator must be caught.
//!
//! The campaigns run the real binary (workers are processes of it). Their length is bounded by
//! the campaign's own `--seconds`, not by timing assertions.

use std::path::PathBuf;
use std::process::Command;

/// Runs `dianran fuzz ARGS --out DIR`; returns (exit code, stdout, stderr, DIR).
/// The campaigns of this file run one at a time: each starts one worker per CPU plus one,
/// and two at once on CI's two cores left a program's executor short of its time limit.
static ONE_CAMPAIGN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn fuzz(name: &str, args: &[&str]) -> (Option<i32>, String, String, PathBuf) {
    let _one = ONE_CAMPAIGN.lock().unwrap_or_else(|e| e.into_inner());
    let out = std::env::temp_dir().join(format!("dianran-fuzz-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new(env!("CARGO_BIN_EXE_dianran"))
        .current_dir(root)
        .arg("fuzz")
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("the binary starts");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        out,
    )
}

/// The counts of the summary line, by name.
fn counts(stdout: &str) -> Vec<(String, f64)> {
    let line = stdout.lines().rfind(|l| l.starts_with("programs ")).unwrap_or("");
    line.split(", ")
        .filter_map(|part| {
            let (name, n) = part.rsplit_once(' ')?;
            Some((name.to_string(), n.parse().ok()?))
        })
        .collect()
}

fn count(stdout: &str, name: &str) -> f64 {
    counts(stdout).into_iter().find(|(n, _)| n == name).map_or(-1.0, |(_, v)| v)
}

#[test]
fn fixed_seed_campaign_finds_nothing() {
    // Every tool the campaign uses must be here under CI (a missing one fails there).
    let tools = [
        dianran::verify::tools::require("ptxas", dianran::verify::tools::ptxas()).is_some(),
        dianran::verify::tools::require("clang++", dianran::verify::tools::clang()).is_some(),
        dianran::verify::tools::require_that(
            dianran::verify::lavapipe::available(),
            "no Vulkan adapter (lavapipe)",
        ),
    ];
    if tools.contains(&false) {
        return;
    }
    let (code, stdout, stderr, out) = fuzz(
        "clean",
        // `--timeout 60`: an executor's limit per program. Program 35 (an int8 subgroup-matrix
        // product, whose portable form lavapipe compiles for about 8 s on an idle machine)
        // ran past the default 20 s on CI's two busy cores.
        &[
            "--seed",
            "2026",
            "--count",
            "100",
            "--seconds",
            "240",
            "--mutate-every",
            "5",
            "--timeout",
            "60",
        ],
    );
    let summary = counts(&stdout);
    assert_eq!(
        summary.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        [
            "programs",
            "rejected-by-naga",
            "compile-errors",
            "ptxas-errors",
            "disagreements",
            "crashes",
            "programs/s"
        ],
        "summary line:\n{stdout}"
    );
    let saved: Vec<String> = std::fs::read_dir(&out)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".wgsl"))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(code, Some(0), "the campaign failed:\n{stdout}\n{stderr}\nfiles: {saved:?}");
    assert_eq!(count(&stdout, "programs"), 100.0, "{stdout}");
    assert!(stdout.contains("mutants "), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn injected_code_generator_bugs_are_caught_within_a_minute() {
    for bug in ["sub-swap", "drop-barrier"] {
        let (code, stdout, stderr, out) = fuzz(
            bug,
            &[
                "--inject-bug",
                bug,
                "--seed",
                "1",
                "--seconds",
                "60",
                "--executors",
                "emu",
                "--mutate-every",
                "0",
                "--reduce-seconds",
                "5",
                "--max-failures",
                "1",
            ],
        );
        assert_eq!(code, Some(1), "{bug}: the campaign did not fail:\n{stdout}\n{stderr}");
        assert!(count(&stdout, "disagreements") > 0.0, "{bug}: no disagreement:\n{stdout}");
        // The failure was reduced and saved with its outputs.
        let reduced = std::fs::read_dir(&out)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                n.starts_with("disagreement-") && !n.ends_with(".orig.wgsl")
            })
            .unwrap_or_else(|| panic!("{bug}: no reduced program in {}", out.display()));
        let text = std::fs::read_to_string(&reduced).unwrap_or_default();
        assert!(
            text.contains("values differ"),
            "{bug}: no outputs in {}:\n{text}",
            reduced.display()
        );
        assert!(text.contains(&format!("injected code-generator bug {bug}")), "{text}");
        let _ = std::fs::remove_dir_all(&out);
    }
}
