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
    let m = dianran_frontend::compile(file, &src, &Default::default()).expect("compiles");
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
    // The outermost loop of the kernel's compute part is the tile loop (the zeroing loops
    // of workgroup memory are smaller and come first in text order).
    let ls = loops(&ptx);
    let (_, tile) = ls.first().expect("loops");
    // `a[row * N + t * TILE + lid.x]` and `b[(t * TILE + lid.y) * N + col]` became two
    // induction variables: no 32-bit multiply is left in the tile loop, only the inner
    // k loop's address arithmetic (mul.wide) and the two global element addresses.
    assert_eq!(count(tile, "mul.lo"), 0, "{tile:#?}");
    // Before the passes the tile loop (k loop included) held 48 instructions, 3 of them
    // mul.lo; after them 35, and 38 since loop rotation: the k loop's latch repeats the bound
    // test (setp, not.pred, conditional branch, branch: 4 instructions instead of the back
    // `bra`), which ptxas turns into one conditional back branch.
    assert!(tile.len() <= 38, "{} instructions: {tile:#?}", tile.len());
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
