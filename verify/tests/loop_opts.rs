//! The loop passes (loop-invariant code motion and strength reduction, run on the inlined
//! entry) seen in the PTX: what the main loops of kernels execute per iteration, counted over
//! the loop's blocks, with the PTX checked by ptxas. Results of the same kernels are compared
//! between the interpreter and the emulator by `emu_samples` and `agreement`.

use dianran_verify::ptxas;
use std::collections::{BTreeMap, BTreeSet};

/// One basic block of PTX text: its instructions and the labels it may jump to next.
struct PtxBlock {
    insts: Vec<String>,
    succ: Vec<String>,
}

/// Splits the body of the (single) entry of `ptx` into labelled blocks; the entry block is
/// called `entry`.
fn blocks(ptx: &str) -> (Vec<String>, BTreeMap<String, PtxBlock>) {
    let mut order = vec!["entry".to_string()];
    let mut map = BTreeMap::new();
    map.insert("entry".to_string(), PtxBlock { insts: Vec::new(), succ: Vec::new() });
    let mut cur = "entry".to_string();
    let mut open = true; // whether control falls through from the previous instruction
    for line in ptx.lines() {
        let t = line.trim();
        if let Some(label) = t.strip_suffix(':') {
            let label = label.to_string();
            if open {
                if let Some(b) = map.get_mut(&cur) {
                    b.succ.push(label.clone());
                }
            }
            map.insert(label.clone(), PtxBlock { insts: Vec::new(), succ: Vec::new() });
            order.push(label.clone());
            cur = label;
            open = true;
            continue;
        }
        if !line.starts_with('\t') || t.is_empty() || t.starts_with('.') || t.starts_with("//") {
            continue;
        }
        let Some(b) = map.get_mut(&cur) else { continue };
        b.insts.push(t.to_string());
        if let Some((_, target)) = t.split_once("bra") {
            let target = target.trim().trim_start_matches(".uni").trim().trim_end_matches(';');
            b.succ.push(target.to_string());
            open = t.starts_with('@');
        } else if t.starts_with("ret") {
            open = false;
        }
    }
    (order, map)
}

/// Labels reachable from `from` (itself included).
fn reach(map: &BTreeMap<String, PtxBlock>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(b) = stack.pop() {
        if seen.insert(b.clone()) {
            if let Some(blk) = map.get(&b) {
                stack.extend(blk.succ.iter().cloned());
            }
        }
    }
    seen
}

/// The instructions of every loop (blocks on a cycle through the loop's first block, in text
/// order), outermost loop first, as (first label, instructions).
fn loops(ptx: &str) -> Vec<(String, Vec<String>)> {
    let (order, map) = blocks(ptx);
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        order.iter().map(|l| (l, reach(&map, l))).collect();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen_sets: Vec<BTreeSet<String>> = Vec::new();
    for h in &order {
        let members: BTreeSet<String> = order
            .iter()
            .filter(|b| reaches[h].contains(*b) && reaches[b].contains(h) && b != &h)
            .cloned()
            .collect();
        if members.is_empty() {
            continue;
        }
        let mut all = members.clone();
        all.insert(h.clone());
        if seen_sets.contains(&all) {
            continue;
        }
        seen_sets.push(all.clone());
        let insts = order
            .iter()
            .filter(|b| all.contains(*b))
            .flat_map(|b| map[b].insts.iter().cloned())
            .collect();
        out.push((h.clone(), insts));
    }
    out.sort_by_key(|(_, i)| std::cmp::Reverse(i.len()));
    out
}

fn ptx_of(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/samples").join(file);
    let src = std::fs::read_to_string(&path).expect("sample readable");
    let m = dianran_frontend::compile(file, &src, &unchecked()).expect("compiles");
    let out = dianran_ptx::codegen::compile_module(&m, &Default::default());
    assert!(out.diagnostics.is_empty(), "{file}: {:?}", out.diagnostics);
    match ptxas::check(&out.text, 80) {
        Ok(_) | Err(ptxas::PtxasError::NotFound) => {}
        Err(e) => panic!("{file}: ptxas rejects the PTX: {e}\n{}", out.text),
    }
    out.text
}

/// Instructions whose opcode starts with `opcode` (a predicate guard is skipped).
fn count(insts: &[String], opcode: &str) -> usize {
    insts
        .iter()
        .filter(|i| {
            i.split_whitespace()
                .find(|w| !w.starts_with('@'))
                .is_some_and(|w| w.starts_with(opcode))
        })
        .count()
}

#[test]
fn uniform_loads_leave_the_loop_and_the_index_steps() {
    let ptx = ptx_of("uniform_loop_strided.wgsl");
    let ls = loops(&ptx);
    assert_eq!(ls.len(), 1, "{ptx}");
    let (_, body) = &ls[0];
    // Hand count of what must remain per iteration: the bound test (setp, 2 branches), the
    // element address (mul.wide, add.s64), its load, the scale multiply and the sum, the
    // branch to the latch, the two induction-variable adds and the back branch. Without the
    // loop passes the loop also loads dims.rows, dims.cols and dims.scale and computes
    // `r * dims.cols + col`.
    assert!(body.len() <= 12, "{} instructions: {body:#?}\n{ptx}", body.len());
    assert_eq!(count(body, "ld.global"), 1, "only m[...] is loaded: {body:#?}");
    assert_eq!(count(body, "mul.lo"), 0, "the index is an induction variable: {body:#?}");
}

#[test]
fn matmul_tiled_tile_loop_keeps_only_the_strided_indices() {
    let ptx = ptx_of("matmul_tiled.wgsl");
    // The tile loop is the kernel's only loop: workgroup memory is zeroed by straight-line
    // stores and the inner k loop's 16 trips are unrolled (`passes::unroll_loops`).
    let ls = loops(&ptx);
    assert_eq!(ls.len(), 1, "{ptx}");
    let (_, tile) = &ls[0];
    // `a[row * N + t * TILE + lid.x]` and `b[(t * TILE + lid.y) * N + col]` became two
    // induction variables: no 32-bit multiply is left in the tile loop, and the unrolled
    // products read workgroup memory at constant offsets (no address arithmetic per step).
    assert_eq!(count(tile, "mul.lo"), 0, "{tile:#?}");
    assert_eq!(count(tile, "ld.shared"), 32, "{tile:#?}");
    assert_eq!(count(tile, "fma.rn.f32"), 16, "{tile:#?}");
    // Before the passes the tile loop (k loop included) held 48 instructions, 3 of them
    // mul.lo, and ran its k loop's 10 instructions 16 times; unrolled, each tile runs
    // 65 instructions: the 48 of the products, the two element loads with their checks,
    // the stores, the barriers and the latch.
    assert!(tile.len() <= 65, "{} instructions: {tile:#?}", tile.len());
}

#[test]
fn gemm_k_loop_reads_no_lane_id_and_no_f16_halves() {
    for file in ["gemm_tiled_f16.wgsl", "gemm_bias_relu.wgsl"] {
        let ptx = ptx_of(file);
        // The K loop: the loop that holds the `mma.sync`s.
        let ls = loops(&ptx);
        let (_, k) = ls
            .iter()
            .filter(|(_, b)| count(b, "mma.sync") > 0)
            .min_by_key(|(_, b)| b.len())
            .expect("a loop with mma.sync");
        assert_eq!(count(k, "ldmatrix"), 8, "{file}: {k:#?}");
        // Each lane's ldmatrix row offset is computed once before the loop (constant strides
        // 40 and 72): no `%laneid` read and no per-lane arithmetic inside.
        assert!(!k.iter().any(|i| i.contains("%laneid")), "{file}: {k:#?}");
        // The prefetched `Half8`s cross the loop's joins packed: the loaded words and b32
        // zeros reach the shared stores without any f16 move.
        assert_eq!(count(k, "mov.b16"), 0, "{file}: {k:#?}");
        assert!(!k.iter().any(|i| i.contains("%h")), "{file}: {k:#?}");
        assert_eq!(count(k, "ld.global.v4.b32"), 4, "{file}: {k:#?}");
        assert_eq!(count(k, "st.shared.v4.b32"), 4, "{file}: {k:#?}");
    }
}

/// Runs `src`'s `main` (one workgroup) on the reference interpreter and on the emulator (our
/// PTX) with random buffers, binding (0, `b`) overwritten by each of `inputs` in turn, and
/// asserts that every output agrees (and that binding (0, 1), the output, is not all zero).
fn interp_and_emu_agree(src: &str, b: u32, inputs: &[Vec<u8>]) {
    use dianran_verify::executors::{self, Executor, Job};
    let m = dianran_frontend::compile("t.wgsl", src, &unchecked()).expect("compiles");
    ptx_checked(&m);
    for (n, bytes) in inputs.iter().enumerate() {
        let mut input = dianran_verify::agree::random_buffers(&m, "main", 4096, 0x5EED + n as u64)
            .expect("buffers");
        let slot = input.get_mut(&(0, b)).expect("binding");
        slot[..bytes.len()].copy_from_slice(bytes);
        let job = |_| Job::new("t.wgsl", src, &m, "main", [1, 1, 1]);
        let reference = executors::run(Executor::Interp, &job(()), &input).expect("interp");
        let emu = executors::run(Executor::Emu, &job(()), &input).expect("emu");
        if let Err(e) = dianran_verify::agree::compare(&m, "main", &reference, &emu) {
            panic!("input {n}: the emulator differs from the interpreter: {e}");
        }
        // The output, binding (0, 1), is not all zero: the kernel computed something.
        assert!(reference[&(0, 1)].iter().any(|&x| x != 0), "input {n}");
    }
}

/// Compiles `m` to PTX and checks it with ptxas (when found).
fn ptx_checked(m: &dianran_frontend::ir::Module) -> String {
    let out = dianran_ptx::codegen::compile_module(m, &Default::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    match ptxas::check(&out.text, 80) {
        Ok(_) | Err(ptxas::PtxasError::NotFound) => {}
        Err(e) => panic!("ptxas rejects the PTX: {e}\n{}", out.text),
    }
    out.text
}

/// Loops that loop rotation (`frontend/src/passes/rotate.rs`) rewrites: a short-circuit
/// header, `continue`, `break` with other state, a `while` on `!=`, nested loops whose inner
/// start depends on the outer variable, and zero-trip loops (`n <= 0`).
const ROTATED: &str = "
@group(0) @binding(0) var<storage, read> inp: array<i32>;
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let n = inp[i] % 40;
    var s = 0;
    for (var j = 0; j < n && j * 3 < n + 7; j += 2) {
        if (j == 4) { continue; }
        s = s * 3 + j;
        if (s > 1000) { break; }
    }
    var k = u32(inp[i]) ^ i;
    var c = 0u;
    while (k != 0u) { c += k & 1u; k = k >> 1u; }
    var t = 0;
    for (var a = 0; a < n; a++) {
        for (var b = a; b < 5; b++) { t += a * b + s; }
    }
    out[i] = s;
    out[64u + i] = i32(c);
    out[128u + i] = t;
}
";

#[test]
fn rotated_loops_agree_between_interpreter_and_emulator() {
    use dianran_frontend::ir::{Block, Op};
    let m = dianran_frontend::compile("t.wgsl", ROTATED, &unchecked()).expect("compiles");
    // The entry as the PTX backend optimizes it: all four loops are rotated (they end in
    // `break_if`), the inner one inside the outer one's guard and body.
    let id = m.entry_points[0].function;
    let mut f = dianran_frontend::passes::inline_calls(&m, id).expect("inlines");
    dianran_frontend::passes::optimize_inlined(&m, id, &mut f).expect("optimizes");
    fn loops(b: &Block, out: &mut (usize, usize)) {
        for i in &b.insts {
            if let Op::Loop { break_if, .. } = &i.op {
                out.0 += 1;
                out.1 += usize::from(break_if.is_some());
            }
            for nb in i.op.blocks() {
                loops(nb, out);
            }
        }
    }
    let mut n = (0, 0);
    loops(&f.body, &mut n);
    assert_eq!(n, (4, 4), "(loops, rotated loops)");
    // Per invocation n = inp[i] % 40 from -39 to 39 (zero-trip loops included).
    let vals: Vec<u8> = (0..64i32).flat_map(|i| ((i * 37) % 79 - 39).to_le_bytes()).collect();
    let small: Vec<u8> = (0..64i32).flat_map(|i| (i % 6 - 1).to_le_bytes()).collect();
    interp_and_emu_agree(ROTATED, 0, &[vals, small]);
}

/// `ptx/src/codegen/ldmatrix_tests.rs`'s kernel: `ldmatrix` addresses from entry-block bases
/// (tile address plus lane offset) and one `mad` per fragment, with an immediate offset.
const TILES: &str = "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> src: array<f16>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> dims: vec4<u32>;
const LD: u32 = 40u;
var<workgroup> ta: array<f16, 1280>;
var<workgroup> tb: array<f16, 1280>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = lid; i < 1280u; i += 32u) {
        ta[i] = src[i];
        tb[i] = src[1280u + i];
    }
    workgroupBarrier();
    var acc: coop_mat16x16<f32, C>;
    let cur = dims.x & 1u;
    let lim = dims.y;
    for (var kk = 0u; kk < 24u && kk < lim; kk += 8u) {
        let am = coopLoadT<coop_mat16x16<f16, A>>(&ta[cur * 640u + kk + 8u], LD);
        let bm = coopLoadT<coop_mat16x16<f16, B>>(&tb[kk * LD], LD);
        acc = coopMultiplyAdd(am, bm, acc);
    }
    coopStoreT(acc, &out[0], 16u);
}
";

#[test]
fn ldmatrix_tile_addresses_agree_between_interpreter_and_emulator() {
    // (cur, lim): both halves of `ta`, 1 to 3 iterations of the k loop.
    let dims = [(0u32, 1u32), (1, 9), (0, 17), (1, 100), (3, 24)];
    let inputs: Vec<Vec<u8>> = dims
        .iter()
        .map(|&(c, l)| [c, l, 0, 0].iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    interp_and_emu_agree(TILES, 2, &inputs);
}

/// Frontend options without the bounds policy: the loop passes on unguarded accesses; the bounds policy's cost is measured by `cargo bench --bench bounds`.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
