//! `dianran run --profile`: the emulator's counters go to stderr as `COUNTER<TAB>VALUE`
//! lines, stdout is what it is without the flag, and executors other than the emulator's are
//! refused.

use std::process::{Command, Output};

fn dianran(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dianran")).args(args).output().expect("the binary starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Two workgroups of one warp each: every invocation loads one u32, swaps it through
/// workgroup memory in reverse order and stores it back.
const SWAP: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32, 64>;\n\
var<workgroup> tile: array<u32, 32>;\n\
@compute @workgroup_size(32)\n\
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) wg: vec3<u32>) {\n\
    let i = wg.x * 32u + l;\n\
    tile[l] = data[i];\n\
    workgroupBarrier();\n\
    data[i] = tile[31u - l] * 2u;\n\
}\n";

fn file(test: &str) -> String {
    let dir =
        std::env::temp_dir().join(format!("dianran-cli-profile-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("swap.wgsl");
    std::fs::write(&p, SWAP).expect("write");
    p.to_string_lossy().into_owned()
}

/// The value of `name` in `COUNTER<TAB>VALUE` lines.
fn counter<'a>(lines: &'a str, name: &str) -> Option<&'a str> {
    lines.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix('\t'))
}

#[test]
fn profile_prints_counters_on_stderr() {
    let f = file("emu");
    let args = ["run", &f, "--entry", "main", "--dispatch", "2", "--executor", "emu"];
    let plain = dianran(&args);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let mut with = args.to_vec();
    with.push("--profile");
    let out = dianran(&with);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, plain.stdout, "stdout changes with --profile");
    assert!(!text(&plain.stderr).contains("warp_instructions"));
    let err = text(&out.stderr);
    assert!(err.lines().all(|l| l.split('\t').count() == 2), "{err}");
    for name in [
        "warp_instructions",
        "global_requests",
        "global_sectors",
        "global_sector_efficiency",
        "shared_bank_conflicts",
        "mma",
        "ldmatrix",
        "barriers",
    ] {
        assert!(counter(&err, name).is_some(), "no {name} in\n{err}");
    }
    // Per warp (one per workgroup): one load and one store of 32 consecutive u32, 128 bytes
    // = 4 sectors each, all used.
    assert_eq!(counter(&err, "global_requests"), Some("4"), "{err}");
    assert_eq!(counter(&err, "global_sectors"), Some("16"), "{err}");
    assert_eq!(counter(&err, "global_sector_efficiency"), Some("100.0"), "{err}");
    // Lane l touches word l (and 31 - l): one bank each, no conflict.
    assert_eq!(counter(&err, "shared_bank_conflicts"), Some("0"), "{err}");
    // Per workgroup: the barrier after WGSL's zero-initialization of `tile`, and
    // workgroupBarrier().
    assert_eq!(counter(&err, "barriers"), Some("4"), "{err}");
    assert_eq!(counter(&err, "mma"), Some("0"), "{err}");
    assert_eq!(counter(&err, "ldmatrix"), Some("0"), "{err}");
}

#[test]
fn profile_needs_the_emulator() {
    let f = file("interp");
    let out = dianran(&["run", &f, "--entry", "main", "--dispatch", "2", "--profile"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--executor emu"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
}
