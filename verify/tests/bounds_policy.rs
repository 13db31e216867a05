//! WebGPU's bounds policy (docs/bounds.md) on every executor: a kernel that scatters and
//! gathers through indices read from a buffer, compiled with `--bounds-checks on`, gives on
//! the interpreter, our PTX on the emulator (and LLVM's, when built) and lavapipe exactly what
//! plain Rust computes from the rule: a buffer read past the end is zero, a write past the end
//! is dropped, an index into a fixed-size function array clamps to its last element; checks
//! inside the kernel's own guards (which the compiler merges with them) too. With the
//! checks off, the interpreter stops on the first index out of range (its sanitizer).

use dianran_frontend::{BoundsChecks, Options};
use dianran_verify::executors::{self, Executor, Job};
use dianran_verify::interp::Buffers;

const SRC: &str = "@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read> vals: array<f32>;
@group(0) @binding(2) var<storage, read_write> scatter: array<f32>;
@group(0) @binding(3) var<storage, read_write> gather: array<f32>;
@group(0) @binding(4) var<storage, read_write> local_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>, 4>;
@group(0) @binding(6) var<storage, read_write> cas_out: array<u32>;
@group(0) @binding(7) var<storage, read_write> nested: array<f32>;
@group(0) @binding(8) var<storage, read_write> guarded_scatter: array<f32>;
fn fetch(inside: bool, i: u32) -> f32 {
    var v: f32;
    if inside { v = vals[i]; }
    return v;
}
@compute @workgroup_size(8) fn main(@builtin(local_invocation_index) t: u32) {
    var tbl = array<f32, 4>(10.0, 20.0, 30.0, 40.0);
    scatter[idx[t]] = vals[t];
    gather[t] = vals[idx[t]];
    local_out[t] = tbl[idx[t]];
    atomicAdd(&counts[idx[t]], 1u);
    let r = atomicCompareExchangeWeak(&counts[idx[t]], 1u, t + 10u);
    cas_out[t] = r.old_value * 2u + select(0u, 1u, r.exchanged);
    nested[t] = fetch(t % 2u == 0u, idx[t]);
    if t < 6u { guarded_scatter[idx[t]] = vals[t] * 2.0; }
}
";

/// Indices in range, just past the end, far past it and the largest `u32`; distinct where in
/// range, so the scatter has no race.
const IDX: [u32; 8] = [0, 5, 8, 3, u32::MAX, 2, 100, 1];
const N: usize = 8;

fn input() -> Buffers {
    let words = |w: Vec<u32>| w.into_iter().flat_map(u32::to_le_bytes).collect::<Vec<u8>>();
    let vals: Vec<u32> = (0..N).map(|i| (i as f32 + 1.5).to_bits()).collect();
    [
        ((0, 0), words(IDX.to_vec())),
        ((0, 1), words(vals)),
        ((0, 2), vec![0u8; 4 * N]),
        ((0, 3), vec![0u8; 4 * N]),
        ((0, 4), vec![0u8; 4 * N]),
        ((0, 5), vec![0u8; 16]),
        ((0, 6), vec![0u8; 4 * N]),
        ((0, 7), vec![0u8; 4 * N]),
        ((0, 8), vec![0u8; 4 * N]),
    ]
    .into_iter()
    .collect()
}

/// What the kernel writes, by binding.
struct Expected {
    scatter: Vec<f32>,
    gather: Vec<f32>,
    local: Vec<f32>,
    counts: Vec<u32>,
    cas: Vec<u32>,
    nested: Vec<f32>,
    guarded_scatter: Vec<f32>,
}

/// The rule computed in plain Rust. Each slot of
/// `counts` in range is one invocation's (the indices in range are distinct), so its add makes
/// it 1 and its compare-exchange then succeeds; one out of range gives `{ 0, false }`.
fn expected() -> Expected {
    let vals: Vec<f32> = (0..N).map(|i| i as f32 + 1.5).collect();
    let tbl = [10.0, 20.0, 30.0, 40.0];
    let mut scatter = vec![0.0; N];
    let mut gather = vec![0.0; N];
    let mut local = vec![0.0; N];
    let mut counts = vec![0u32; 4];
    let mut cas = vec![0u32; N];
    let mut nested = vec![0.0; N];
    let mut guarded_scatter = vec![0.0; N];
    for (t, &i) in IDX.iter().enumerate() {
        let i = i as usize;
        if i < N {
            scatter[i] = vals[t];
            gather[t] = vals[i];
            if t % 2 == 0 {
                nested[t] = vals[i];
            }
            if t < 6 {
                guarded_scatter[i] = vals[t] * 2.0;
            }
        }
        local[t] = tbl[i.min(3)];
        if i < 4 {
            counts[i] += 1;
            // The compare-exchange finds 1: old value 1, exchanged.
            cas[t] = 3;
            counts[i] = t as u32 + 10;
        }
    }
    Expected { scatter, gather, local, counts, cas, nested, guarded_scatter }
}

fn floats(b: &Buffers, binding: u32) -> Vec<f32> {
    b[&(0, binding)].chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn words(b: &Buffers, binding: u32) -> Vec<u32> {
    b[&(0, binding)].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn compile(bounds_checks: BoundsChecks) -> dianran_frontend::ir::Module {
    let opts = Options { bounds_checks, ..Default::default() };
    dianran_frontend::compile("bounds.wgsl", SRC, &opts).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn every_executor_follows_the_policy() {
    let m = compile(BoundsChecks::On);
    assert!(m.bounds_checked);
    let job = Job::new("bounds.wgsl", SRC, &m, "main", [1, 1, 1]);
    let want = expected();
    let mut execs = vec![Executor::Interp];
    if dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas()).is_some() {
        execs.push(Executor::Emu);
    }
    if cfg!(feature = "llvm") {
        execs.push(Executor::LlvmEmu);
    }
    if dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    ) {
        // The source, and the WGSL dianran prints (the checks explicit in it).
        execs.extend([Executor::Lavapipe, Executor::LavapipeOut]);
    }
    for exec in execs {
        let out = match executors::run(exec, &job, &input()) {
            Ok(b) => b,
            Err(executors::ExecError::Skipped(why)) if exec == Executor::LlvmEmu => {
                println!("skipped: llvm-emu: {why}");
                continue;
            }
            Err(e) => panic!("{}: {e}", exec.name()),
        };
        let name = exec.name();
        assert_eq!(floats(&out, 2), want.scatter, "{name}: scatter");
        assert_eq!(floats(&out, 3), want.gather, "{name}: gather");
        assert_eq!(floats(&out, 4), want.local, "{name}: local_out");
        assert_eq!(words(&out, 5), want.counts, "{name}: counts");
        assert_eq!(words(&out, 6), want.cas, "{name}: cas_out");
        assert_eq!(floats(&out, 7), want.nested, "{name}: nested");
        assert_eq!(floats(&out, 8), want.guarded_scatter, "{name}: guarded_scatter");
    }
}

#[test]
fn without_the_checks_the_interpreter_reports_the_first_index_out_of_range() {
    let m = compile(BoundsChecks::Off);
    assert!(!m.bounds_checked);
    let job = Job::new("bounds.wgsl", SRC, &m, "main", [1, 1, 1]);
    let e = executors::run(Executor::Interp, &job, &input()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("out of bounds") && msg.contains("index 8"), "{msg}");
}
