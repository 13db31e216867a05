//! The `dianran` binary: output formats and exit codes of `check`, `ssa` and `run`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn dianran(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dianran")).args(args).output().expect("the binary starts")
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dianran-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const DOUBLE: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
@compute @workgroup_size(4, 2)\n\
fn double(@builtin(global_invocation_id) id: vec3<u32>) {\n\
    let i = id.x + id.y * 4u;\n\
    data[i] = data[i] * 2u + 1u;\n\
}\n\
@vertex fn vs(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> { return p; }\n";

#[test]
fn check_prints_the_entry_table() {
    let dir = scratch("check");
    let f = write(&dir, "k.wgsl", DOUBLE);
    let out = dianran(&["check", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "double\tcompute\t4,2,1\tdouble\nvs\tvertex\t-\t-\n");
}

#[test]
fn check_reports_errors_with_location_and_exit_1() {
    let dir = scratch("check-err");
    let f =
        write(&dir, "bad.wgsl", "@compute @workgroup_size(1)\nfn main() {\n    let x = y;\n}\n");
    let out = dianran(&["check", &f]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("bad.wgsl:3:13"), "{err}");
    assert!(err.contains("help:"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn overrides_from_the_command_line() {
    let dir = scratch("override");
    let f = write(
        &dir,
        "o.wgsl",
        "override block: u32;\n@compute @workgroup_size(block) fn main() {}\n",
    );
    let out = dianran(&["check", &f]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--override block=VALUE"), "{}", text(&out.stderr));
    let out = dianran(&["check", &f, "--override", "block=128"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "main\tcompute\t128,1,1\tmain\n");
    let out = dianran(&["check", &f, "--override", "block=1", "--override", "other=2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("other"), "{}", text(&out.stderr));
    // A malformed value is a usage error.
    assert_eq!(dianran(&["check", &f, "--override", "block"]).status.code(), Some(2));
}

#[test]
fn bad_paths_and_bytes_are_errors_not_panics() {
    let dir = scratch("paths");
    let out = dianran(&["check", &dir.join("missing.wgsl").to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read"), "{}", text(&out.stderr));
    let p = dir.join("latin1.wgsl");
    std::fs::write(&p, b"// caf\xe9\nfn f() {}\n").expect("write");
    let out = dianran(&["ssa", &p.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not UTF-8"), "{}", text(&out.stderr));
    let out = dianran(&["check", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(dianran(&[]).status.code(), Some(2));
    assert_eq!(dianran(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(dianran(&["run", "x.wgsl", "--entry", "main"]).status.code(), Some(2));
    assert_eq!(
        dianran(&["run", "x.wgsl", "--entry", "main", "--dispatch", "1,2,3,4"]).status.code(),
        Some(2)
    );
    assert_eq!(
        dianran(&["run", "x.wgsl", "--entry", "m", "--dispatch", "1", "--buffer", "0=a"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn ssa_prints_the_module() {
    let dir = scratch("ssa");
    let f = write(&dir, "k.wgsl", DOUBLE);
    let out = dianran(&["ssa", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("double"), "{s}");
}

#[test]
fn run_fills_buffers_and_dumps_them() {
    let dir = scratch("run");
    let f = write(&dir, "k.wgsl", DOUBLE);
    // One workgroup of 4x2 invocations: invocation (x, y) updates data[x + 4y], i.e.
    // elements 0..8 of a 16-element buffer.
    let input: Vec<u32> = (0..16).map(|i| i * 10).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inp = dir.join("in.bin");
    std::fs::write(&inp, &bytes).expect("write");
    let dump = dir.join("out");
    let out = dianran(&[
        "run",
        &f,
        "--entry",
        "double",
        "--dispatch",
        "1",
        "--buffer",
        &format!("0:0={}", inp.display()),
        "--dump",
        &dump.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = std::fs::read(dump.join("g0_b0.bin")).expect("dumped buffer");
    let got: Vec<u32> =
        got.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Workgroup 4x2 covers indices 0..8; the rest stays.
    let want: Vec<u32> =
        input.iter().enumerate().map(|(i, &v)| if i < 8 { v * 2 + 1 } else { v }).collect();
    assert_eq!(got, want);
}

#[test]
fn run_rejects_bad_entries_and_bindings() {
    let dir = scratch("run-bad");
    let f = write(&dir, "k.wgsl", DOUBLE);
    let out = dianran(&["run", &f, "--entry", "nope", "--dispatch", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("double"), "{}", text(&out.stderr));
    let out = dianran(&["run", &f, "--entry", "vs", "--dispatch", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("vertex"), "{}", text(&out.stderr));
    let out =
        dianran(&["run", &f, "--entry", "double", "--dispatch", "1", "--buffer", "3:3=x.bin"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("0:0 (data)"), "{}", text(&out.stderr));
}

/// Four bytes hold one element, and invocations 1 to 7 index past the end: under the bounds
/// policy their loads read zero and their stores are dropped (exit 0, element 0 doubled);
/// `--sanitize` stops at the first index out of range (exit 1, naming it).
#[test]
fn run_drops_stores_out_of_bounds_and_sanitize_reports_them() {
    let dir = scratch("run-oob");
    let f = write(&dir, "k.wgsl", DOUBLE);
    let inp = write(&dir, "small.bin", "abcd");
    let dump = dir.join("dump");
    let buffer = format!("0:0={inp}");
    let args = ["run", &f, "--entry", "double", "--dispatch", "1", "--buffer", &buffer];
    let mut checked = args.to_vec();
    let dump_arg = dump.display().to_string();
    checked.extend(["--dump", &dump_arg]);
    let out = dianran(&checked);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bytes = std::fs::read(dump.join("g0_b0.bin")).expect("dumped buffer");
    // "abcd" is 0x64636261; doubled plus one, wrapping.
    let want = 0x6463_6261u32.wrapping_mul(2).wrapping_add(1).to_le_bytes();
    assert_eq!(bytes, want);
    let mut sanitized = args.to_vec();
    sanitized.push("--sanitize");
    let out = dianran(&sanitized);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.contains("index 1 out of bounds") && err.contains("data"), "{err}");
}

#[test]
fn ptx_prints_ascii_ptx_and_the_entry_table() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/double_unicode.wgsl");
    let out = dianran(&["ptx", sample]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_ascii());
    let ptx = text(&out.stdout);
    assert!(ptx.contains(".visible .entry yy_e5_8a_a0_e5_80_8d("), "{ptx}");
    assert!(ptx.contains(".reqntid 4, 1, 1"), "{ptx}");
    assert_eq!(
        text(&out.stderr),
        "\u{52a0}\u{500d}\tcompute\t4,1,1\tyy_e5_8a_a0_e5_80_8d\tp_g0_b0,p_sizes\n"
    );
    let out = dianran(&["check", sample]);
    assert_eq!(text(&out.stdout), "\u{52a0}\u{500d}\tcompute\t4,1,1\tyy_e5_8a_a0_e5_80_8d\n");
}

#[test]
fn wgsl_and_msl_print_the_unicode_kernel() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/double_unicode.wgsl");
    let out = dianran(&["wgsl", sample]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("fn \u{52a0}\u{500d}("));
    let out = dianran(&["msl", sample]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("kernel void \u{52a0}\u{500d}("));
}

#[test]
fn run_gives_the_same_buffers_on_every_executor() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/double_unicode.wgsl");
    let dir = scratch("executors");
    let input: Vec<u8> = (0u32..8).flat_map(|v| (v * 3 + 1).to_le_bytes()).collect();
    let inp = dir.join("in.bin");
    std::fs::write(&inp, &input).expect("writable");
    let expected: Vec<u8> = (0u32..8).flat_map(|v| ((v * 3 + 1) * 2).to_le_bytes()).collect();
    for exec in ["interp", "emu", "lavapipe", "lavapipe-out"] {
        let out_dir = dir.join(exec);
        let buffer = format!("0:0={}", inp.display());
        let out = dianran(&[
            "run",
            sample,
            "--entry",
            "\u{52a0}\u{500d}",
            "--dispatch",
            "2",
            "--buffer",
            &buffer,
            "--dump",
            &out_dir.display().to_string(),
            "--executor",
            exec,
        ]);
        let err = text(&out.stderr);
        // No adapter: `skipped: ...`, a failure under CI=true (verify::tools).
        if exec.starts_with("lavapipe")
            && !dianran::verify::tools::require_that(
                !err.contains("no Vulkan adapter"),
                "no Vulkan adapter",
            )
        {
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{exec}: {err}");
        let got = std::fs::read(out_dir.join("g0_b0.bin")).expect("dumped");
        assert_eq!(got, expected, "{exec}");
    }
    let out = dianran(&["run", sample, "--entry", "x", "--dispatch", "1", "--executor", "gpu"]);
    assert_eq!(out.status.code(), Some(2), "an unknown executor is a usage error");
}

/// Runs `dianran ptx` on a sample and returns the PTX text.
fn ptx_of(sample: &str) -> String {
    let out = dianran(&["ptx", sample]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// `dianran verify --ptx` catches deliberately wrong PTX: a missing barrier in a multi-warp
/// workgroup reduction and a subtraction with swapped operands.
#[test]
fn verify_catches_wrong_ptx() {
    let dir = scratch("wrong-ptx");
    let reduce = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/reduce_tree.wgsl");
    let ptx = ptx_of(reduce);
    // The unchanged PTX agrees.
    let good = dir.join("good.ptx");
    std::fs::write(&good, &ptx).expect("writable");
    let out = dianran(&["verify", reduce, "--ptx", &good.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).contains("emu\tagree"), "{}", text(&out.stdout));
    // Without its barriers the reduction reads shared memory other warps have not written.
    let no_barrier: String =
        ptx.lines().filter(|l| !l.contains("bar.sync")).map(|l| format!("{l}\n")).collect();
    assert_ne!(no_barrier, ptx, "the reduction has barriers to remove");
    let bad = dir.join("no_barrier.ptx");
    std::fs::write(&bad, &no_barrier).expect("writable");
    let out = dianran(&["verify", reduce, "--ptx", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("emu\tDISAGREE"), "{}", text(&out.stdout));

    // Swap the two sources of the first integer subtraction (straight-line arithmetic, so the
    // wrong PTX still terminates).
    let looped = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/int_arith.wgsl");
    let ptx = ptx_of(looped);
    let mut swapped = String::new();
    let mut done = false;
    for line in ptx.lines() {
        let t = line.trim_start();
        if !done && (t.starts_with("sub.s32 ") || t.starts_with("sub.u32 ")) {
            let (op, rest) = t.split_at(8);
            let ops: Vec<&str> = rest.trim_end_matches(';').split(", ").collect();
            if ops.len() == 3 && ops[1] != ops[2] {
                swapped.push_str(&format!("\t{op}{}, {}, {};\n", ops[0], ops[2], ops[1]));
                done = true;
                continue;
            }
        }
        swapped.push_str(line);
        swapped.push('\n');
    }
    assert!(done, "int_arith's PTX has an integer subtraction to swap");
    let bad = dir.join("swapped.ptx");
    std::fs::write(&bad, &swapped).expect("writable");
    let out = dianran(&["verify", looped, "--len", "4096", "--ptx", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("emu\tDISAGREE"), "{}", text(&out.stdout));
}

/// An f32 x f32 16x16 cooperative product: TF32 tensor cores with `--tf32`, a diagnostic
/// naming the option without it.
const COOP_F32: &str = "enable wgpu_cooperative_matrix;\n\
@group(0) @binding(0) var<storage, read> a: array<f32, 256>;\n\
@group(0) @binding(1) var<storage, read> b: array<f32, 256>;\n\
@group(0) @binding(2) var<storage, read_write> c: array<f32, 256>;\n\
@compute @workgroup_size(32)\n\
fn main() {\n\
    let am = coopLoadT<coop_mat16x16<f32, A>>(&a[0], 16u);\n\
    let bm = coopLoad<coop_mat16x16<f32, B>>(&b[0], 16u);\n\
    let cm = coopLoad<coop_mat16x16<f32, C>>(&c[0], 16u);\n\
    coopStore(coopMultiplyAdd(am, bm, cm), &c[0], 16u);\n\
}\n";

#[test]
fn verify_tf32_agrees_on_interp_and_emu() {
    let dir = scratch("verify-tf32");
    let f = write(&dir, "coop_f32.wgsl", COOP_F32);
    let out = dianran(&["verify", &f, "--tf32"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("interp\tagree\treference\n"), "{stdout}");
    assert!(stdout.contains("emu\tagree\t"), "{stdout}");
}

#[test]
fn verify_without_tf32_names_the_option() {
    let dir = scratch("verify-no-tf32");
    let f = write(&dir, "coop_f32.wgsl", COOP_F32);
    let out = dianran(&["verify", &f]);
    let stdout = text(&out.stdout);
    // The backend declines the form by design: not applicable, not a disagreement.
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let emu = stdout.lines().find(|l| l.starts_with("emu\t")).unwrap_or_default();
    assert!(emu.starts_with("emu\tnot-applicable\t"), "{stdout}");
    assert!(emu.contains("--tf32"), "{stdout}");
}

#[test]
fn run_on_emu_takes_tf32() {
    let dir = scratch("run-tf32");
    let f = write(&dir, "coop_f32.wgsl", COOP_F32);
    let args = ["run", &f, "--entry", "main", "--dispatch", "1", "--executor", "emu"];
    let out = dianran(&[&args[..], &["--tf32"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "ran 'main' over 1x1x1 workgroups on emu\n");
    let out = dianran(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--tf32"), "{}", text(&out.stderr));
}

/// GELU with `pow` of negative bases: precise by default (the PTX executors agree with the
/// interpreter everywhere, lavapipe's NaNs are reported as WGSL-undefined values), and the
/// old NaNs under `--fast-math`, which the table marks.
const GELU_POW: &str = "@group(0) @binding(0) var<storage, read> x: array<f32>;\n\
@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n\
@compute @workgroup_size(64)\n\
fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n\
    let v = x[g.x];\n\
    y[g.x] = 0.5 * v * (1.0 + tanh(0.7978846 * (v + 0.044715 * pow(v, 3.0 + 0.0 * v))));\n\
}\n";

#[test]
fn precise_math_by_default_fast_math_on_request() {
    let dir = scratch("fast-math");
    let f = write(&dir, "gelu.wgsl", GELU_POW);
    let out = dianran(&["verify", &f, "--dispatch", "4"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("emu\tagree\t\n"), "{stdout}");
    let out = dianran(&["verify", &f, "--dispatch", "4", "--fast-math"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("emu\tDISAGREE\t") && stdout.contains("got NaN"), "{stdout}");
    let out = dianran(&["ptx", &f]);
    // `p_sizes`: the bounds policy checks the runtime-sized arrays against their lengths.
    assert_eq!(text(&out.stderr), "main\tcompute\t64,1,1\tmain\tp_g0_b0,p_g0_b1,p_sizes\n");
    // Precise math uses no approximate instruction but the refined reciprocal, whose result
    // does not depend on the approximation (docs/math.md).
    let ptx = text(&out.stdout);
    let approx: Vec<&str> = ptx.lines().filter(|l| l.contains(".approx")).collect();
    assert!(approx.iter().all(|l| l.contains("rcp.approx.ftz.f32")), "{approx:?}");
    let out = dianran(&["ptx", &f, "--fast-math"]);
    assert_eq!(
        text(&out.stderr),
        "main\tcompute\t64,1,1\tmain\tp_g0_b0,p_g0_b1,p_sizes\tfast-math\n"
    );
    assert!(text(&out.stdout).contains("lg2.approx.f32"));
    let out = dianran(&["run", &f, "--entry", "main", "--dispatch", "1", "--executor", "emu"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = dianran(&["msl", &f]);
    assert!(text(&out.stdout).contains("precise::tanh("), "{}", text(&out.stdout));
    let out = dianran(&["msl", &f, "--fast-math"]);
    assert!(text(&out.stdout).contains("fast::tanh("), "{}", text(&out.stdout));
}

/// An executor that takes longer than `--timeout` is reported as `timeout` (lavapipe's child
/// process is killed), the next one still runs and the command ends (lavapipe compiles this
/// array initializer for minutes).
#[test]
fn verify_reports_executor_timeouts() {
    let dir = scratch("timeout");
    let n = 32767;
    let init = vec!["true"; n].join(", ");
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         var<private> flags: array<bool, {n}> = array<bool, {n}>({init});\n\
         @compute @workgroup_size(1) fn main() {{ out[0] = select(0u, 1u, flags[7]); }}\n"
    );
    let f = write(&dir, "slow.wgsl", &src);
    // Only the lavapipe executors: compiling 32767 stores for the PTX executors takes seconds
    // in CI's build (debug assertions, the SSA verifier after every pass), which would make
    // the test depend on the machine's speed.
    let out = dianran(&["verify", &f, "--timeout", "2", "--executors", "lavapipe,lavapipe-out"]);
    let stdout = text(&out.stdout);
    // Whether the children were stopped is read from the verdicts below, not from a clock: an
    // executor that ran to its end (minutes later) would be reported `agree` instead.
    if !dianran::verify::tools::require_that(!stdout.contains("\tskipped\t"), "no Vulkan adapter") {
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.starts_with("interp\tagree\treference\n"), "{stdout}");
    assert!(stdout.contains("lavapipe\ttimeout\tno result after 2 s"), "{stdout}");
    assert!(stdout.contains("lavapipe-out\ttimeout\tno result after 2 s"), "{stdout}");
    let out = dianran(&["verify", &f, "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(2), "a zero limit is a usage error");
}

/// `verify --executors` picks the executors; lavapipe runs in a child process of the binary
/// (`dianran run --executor lavapipe` with the same buffers and overrides), whose results come
/// back for the comparison.
#[test]
fn verify_executors_option_and_lavapipe_child_process() {
    let dir = scratch("verify-child");
    let f = dir.join("k.wgsl");
    let src = "override scale: u32 = 3u;\n\
@group(0) @binding(0) var<storage, read> a: array<u32>;\n\
@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n\
@compute @workgroup_size(8)\n\
fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n\
    b[g.x] = a[g.x] * scale + g.x;\n\
}\n";
    std::fs::write(&f, src).expect("writable");
    let f = f.display().to_string();
    let out = dianran(&["verify", &f, "--dispatch", "4", "--len", "32", "--executors", "emu"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(text(&out.stdout), "interp\tagree\treference\nemu\tagree\t\n");
    let out = dianran(&[
        "verify",
        &f,
        "--dispatch",
        "4",
        "--len",
        "32",
        "--override",
        "scale=7",
        "--executors",
        "lavapipe,lavapipe-out",
    ]);
    let stdout = text(&out.stdout);
    if !dianran::verify::tools::require_that(!stdout.contains("\tskipped\t"), "no Vulkan adapter") {
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("lavapipe\tagree") && stdout.contains("lavapipe-out\tagree"),
        "{stdout}"
    );
    let out = dianran(&["verify", &f, "--executors", "interp"]);
    assert_eq!(out.status.code(), Some(2), "interp is not a choice: {}", text(&out.stderr));
}

/// `ptx --stats` prints the cubin's facts per kernel: 2048 bytes of `.shared` for
/// matmul_tiled (two 16x16 f32 tiles, a hand count), plus sm_90's 1 KiB reservation.
#[test]
fn ptx_stats_come_from_the_cubin() {
    if dianran::verify::tools::require("ptxas", dianran::verify::tools::ptxas()).is_none() {
        return;
    }
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/matmul_tiled.wgsl");
    for (sm, reserved) in [("80", "0"), ("90", "1024")] {
        let out = dianran(&["ptx", sample, "--sm", sm, "--stats", "-o", "/dev/null"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        let header =
            "KERNEL\tREGISTERS\tSHARED_BYTES\tRESERVED_SHARED_BYTES\tSTACK_BYTES\tCODE_BYTES";
        let mut lines = err.lines().skip_while(|l| *l != header);
        assert_eq!(lines.next(), Some(header), "{err}");
        let row: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
        assert_eq!(row.len(), 6, "{err}");
        assert_eq!((row[0], row[2], row[3], row[4]), ("main", "2048", reserved, "0"), "{err}");
        let regs: u32 = row[1].parse().expect("registers");
        assert!((8..=255).contains(&regs), "{err}");
        let code: u32 = row[5].parse().expect("code bytes");
        assert!(code > 0 && code.is_multiple_of(16), "{err}");
    }
}

/// `ptx --backend llvm` prints LLVM's PTX with the same entry table (names, parameters) as our
/// backend, ASCII only, and `verify` runs both backends' PTX against the interpreter.
#[cfg(feature = "llvm")]
#[test]
fn llvm_backend_gives_the_same_entry_table() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/samples/double_unicode.wgsl");
    let ours = dianran(&["ptx", sample]);
    let llvm = dianran(&["ptx", sample, "--backend", "llvm"]);
    assert_eq!(llvm.status.code(), Some(0), "{}", text(&llvm.stderr));
    assert_eq!(text(&llvm.stderr), text(&ours.stderr));
    let ptx = text(&llvm.stdout);
    assert!(ptx.is_ascii() && ptx.contains(".entry yy_e5_8a_a0_e5_80_8d("), "{ptx}");
    assert!(ptx.contains("LLVM") && ptx.contains(".reqntid"), "{ptx}");
    // The options only our backend has are refused, not ignored.
    let out = dianran(&["ptx", sample, "--backend", "llvm", "--fast-math"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = dianran(&["verify", sample, "--executors", "emu,llvm-emu"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("emu\tagree") && report.contains("llvm-emu\tagree"), "{report}");
}
