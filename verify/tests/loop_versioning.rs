//! Loop versioning (`frontend/src/passes/version.rs`): a counted loop whose bounds checks one
//! test before the loop proves runs as a check-free copy when the test passes and as the
//! checked loop otherwise. Two kernels, each with invocations (or workgroups) on both sides of
//! the test, including an index that wraps `u32` (which the check-free copy must never see):
//! every executor's output equals plain Rust applying the bounds policy (a buffer read past
//! the end is zero), and the inlined SSA and the PTX show the two copies and the decision
//! (`bar.red.and.pred` where the loop holds a workgroup barrier). A third kernel, whose loop
//! holds a subgroup reduction (so each subgroup decides together, `subgroupAll`), is compared
//! between the interpreter and both PTX backends on the emulator.

use dianran_frontend::ir::{Block, Op};
use dianran_verify::executors::{self, Executor, Job};
use dianran_verify::interp::Buffers;

/// Per invocation: `s = s * 31 + a[b + i]` for `i < n`, `b = base[g]`; no barrier, so each
/// invocation decides for itself.
const PER_INVOCATION: &str = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> base: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> n: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let b = base[g.x];
    var s = 0u;
    for (var i = 0u; i < n.x; i++) {
        s = s * 31u + a[b + i];
    }
    out[g.x] = s;
}
";

/// Per workgroup: every iteration stages `a[b + i]` and adds the neighbour's value between two
/// barriers, so the workgroup decides together.
const PER_WORKGROUP: &str = "
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> base: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> n: vec4<u32>;
var<workgroup> t: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) w: vec3<u32>) {
    let b = base[w.x * 64u + l];
    var s = 0u;
    for (var i = 0u; i < n.x; i++) {
        t[l] = a[b + i];
        workgroupBarrier();
        s = s * 31u + t[(l + 1u) % 64u];
        workgroupBarrier();
    }
    out[w.x * 64u + l] = s;
}
";

const LEN: u32 = 1000;
const TRIPS: u32 = 13;

/// Invocations: three workgroups of 64.
const INVOCATIONS: usize = 192;

/// `base` per invocation: workgroup 0 all in range (its last start exactly fits), workgroup 1
/// with starts that run past the end and start past it, workgroup 2 with one start that wraps
/// `u32` back to 0 (every index it reads but the first three is in range).
fn bases() -> Vec<u32> {
    (0..INVOCATIONS as u32)
        .map(|g| match g {
            63 => LEN - TRIPS,
            64 => LEN - TRIPS + 1,
            65 => LEN + 5,
            130 => u32::MAX - 3,
            _ => (g * 7) % (LEN - TRIPS),
        })
        .collect()
}

fn a_vals() -> Vec<u32> {
    (0..LEN).map(|k| k.wrapping_mul(2654435761) >> 7).collect()
}

/// The policy in plain Rust: `a[x]` past the end reads zero.
fn read(a: &[u32], x: u32) -> u32 {
    a.get(x as usize).copied().unwrap_or(0)
}

fn fold(a: &[u32], b: u32) -> u32 {
    (0..TRIPS).fold(0u32, |s, i| s.wrapping_mul(31).wrapping_add(read(a, b.wrapping_add(i))))
}

fn input() -> Buffers {
    let words = |w: Vec<u32>| w.into_iter().flat_map(u32::to_le_bytes).collect::<Vec<u8>>();
    [
        ((0, 0), words(a_vals())),
        ((0, 1), words(bases())),
        ((0, 2), vec![0u8; 4 * INVOCATIONS]),
        ((0, 3), words(vec![TRIPS, 0, 0, 0])),
    ]
    .into_iter()
    .collect()
}

/// The executors that run our PTX and LLVM's on the emulator, where their tools are here.
fn ptx_executors() -> Vec<Executor> {
    let mut execs = Vec::new();
    if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_some() {
        execs.push(Executor::Emu);
    }
    if cfg!(feature = "llvm") {
        execs.push(Executor::LlvmEmu);
    }
    execs
}

/// `exec`'s buffers after `job` on [`input`]; `None` when LLVM's backend is not built in.
fn run(exec: Executor, job: &Job) -> Option<Buffers> {
    match executors::run(exec, job, &input()) {
        Ok(b) => Some(b),
        Err(executors::ExecError::Skipped(why)) if exec == Executor::LlvmEmu => {
            println!("skipped: llvm-emu: {why}");
            None
        }
        Err(e) => panic!("{}: {e}", exec.name()),
    }
}

/// Every executor that runs the checks' PTX or the reference, on `src` over three workgroups
/// of 64; their `out` must equal `want`.
fn every_executor_gives(name: &str, src: &str, want: &[u32]) {
    let m = dianran_frontend::compile(name, src, &Default::default()).expect("compiles");
    let job = Job::new(name, src, &m, "main", [3, 1, 1]);
    for exec in std::iter::once(Executor::Interp).chain(ptx_executors()) {
        let Some(out) = run(exec, &job) else { continue };
        let got: Vec<u32> = out[&(0, 2)]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for (g, (x, y)) in got.iter().zip(want).enumerate() {
            assert_eq!(x, y, "{}: invocation {g} (base {})", exec.name(), bases()[g]);
        }
    }
}

/// Per subgroup: a subgroup sum of `a[b + i]` in every iteration.
const PER_SUBGROUP: &str = "
enable subgroups;
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> base: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> n: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let b = base[g.x];
    var s = 0u;
    for (var i = 0u; i < n.x; i++) {
        s = s * 31u + subgroupAdd(a[b + i]);
    }
    out[g.x] = s;
}
";

/// The entry as the PTX backend receives it; (loops, `workgroup_all`s).
fn versioned_shape(src: &str) -> (usize, usize) {
    let m = dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("compiles");
    let id = m.entry_points[0].function;
    let mut f = dianran_frontend::passes::inline_calls(&m, id).expect("inlines");
    dianran_frontend::passes::optimize_inlined(&m, id, &mut f).expect("optimizes");
    fn count(b: &Block, out: &mut (usize, usize)) {
        for i in &b.insts {
            out.0 += usize::from(matches!(i.op, Op::Loop { .. }));
            out.1 += usize::from(matches!(i.op, Op::WorkgroupAll(_)));
            for nb in i.op.blocks() {
                count(nb, out);
            }
        }
    }
    let mut n = (0, 0);
    count(&f.body, &mut n);
    n
}

#[test]
fn per_invocation_versions_agree_with_plain_rust() {
    assert_eq!(versioned_shape(PER_INVOCATION), (2, 0), "(loops, workgroup_all)");
    let a = a_vals();
    let want: Vec<u32> = bases().iter().map(|&b| fold(&a, b)).collect();
    every_executor_gives("per_invocation.wgsl", PER_INVOCATION, &want);
}

#[test]
fn per_workgroup_versions_agree_with_plain_rust() {
    assert_eq!(versioned_shape(PER_WORKGROUP), (2, 1), "(loops, workgroup_all)");
    let m = dianran_frontend::compile("w.wgsl", PER_WORKGROUP, &Default::default()).unwrap();
    let ptx = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(ptx.diagnostics.is_empty(), "{:?}", ptx.diagnostics);
    assert!(ptx.text.contains("bar.red.and.pred"), "{}", ptx.text);
    assert!(ptx.text.contains("bra.uni"), "{}", ptx.text);
    match dianran_verify::ptxas::check(&ptx.text, 80) {
        Ok(_) | Err(dianran_verify::ptxas::PtxasError::NotFound) => {}
        Err(e) => panic!("ptxas rejects the PTX: {e}"),
    }
    // Invocation l adds its neighbour's element each iteration.
    let a = a_vals();
    let b = bases();
    let want: Vec<u32> = (0..INVOCATIONS)
        .map(|g| {
            let nb = g / 64 * 64 + (g % 64 + 1) % 64;
            fold(&a, b[nb])
        })
        .collect();
    every_executor_gives("per_workgroup.wgsl", PER_WORKGROUP, &want);
}

#[test]
fn per_subgroup_versions_agree_between_interpreter_and_emulator() {
    assert_eq!(versioned_shape(PER_SUBGROUP), (2, 0), "(loops, workgroup_all)");
    let m = dianran_frontend::compile("s.wgsl", PER_SUBGROUP, &Default::default()).unwrap();
    let ptx = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(ptx.text.contains("vote.sync.all.pred"), "{}", ptx.text);
    let job = Job::new("s.wgsl", PER_SUBGROUP, &m, "main", [3, 1, 1]);
    let reference = executors::run(Executor::Interp, &job, &input()).expect("interp");
    for exec in ptx_executors() {
        let Some(out) = run(exec, &job) else { continue };
        if let Err(e) = dianran_verify::agree::compare(&m, "main", &reference, &out) {
            panic!("{} differs from the interpreter: {e}", exec.name());
        }
    }
    assert!(reference[&(0, 2)].iter().any(|&x| x != 0));
}
