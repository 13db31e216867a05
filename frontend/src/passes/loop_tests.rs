//! Tests of the loop passes ([`super::licm`], [`super::strength_reduce`]): WGSL lowered and
//! optimized, the loop's contents inspected, and (for plain functions) run by the test
//! interpreter and compared with plain Rust code.

use super::testutil::{count_insts, parsed, run, Val};
use super::*;
use crate::ir::*;
use crate::text::module_text;
use BinaryOperator as B;

fn lower(src: &str) -> Module {
    match crate::lower::lower_module(&parsed(src)) {
        Ok(m) => m,
        Err(ds) => panic!("lowering failed: {ds:#?}"),
    }
}

fn optimized(src: &str) -> Module {
    let mut m = lower(src);
    if let Err(d) = optimize(&mut m) {
        panic!("{d:#?}\n{}", module_text(&m));
    }
    m
}

fn fid(m: &Module, name: &str) -> FuncId {
    let i =
        m.functions.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("no fn {name}"));
    FuncId(i as u32)
}

/// The first loop at the top level of `f`'s body: (instructions before it, the loop's body,
/// its continuing block).
fn first_loop(f: &Function) -> (&[Inst], &Block, &Block) {
    for (k, inst) in f.body.insts.iter().enumerate() {
        if let Op::Loop { body, continuing, .. } = &inst.op {
            return (&f.body.insts[..k], body, continuing);
        }
    }
    panic!("no top-level loop in {}", f.name);
}

/// The body and continuing block of the first loop of `f`, searched through nested regions
/// (a rotated loop sits in the arm of its guarding `if`).
fn any_loop(f: &Function) -> (&Block, &Block) {
    fn find(b: &Block) -> Option<(&Block, &Block)> {
        b.insts.iter().find_map(|i| match &i.op {
            Op::Loop { body, continuing, .. } => Some((body, continuing)),
            op => op.blocks().into_iter().find_map(find),
        })
    }
    find(&f.body).unwrap_or_else(|| panic!("no loop in {}", f.name))
}

/// Counts matching instructions in a loop's body and continuing block.
fn in_loop(body: &Block, continuing: &Block, pred: &impl Fn(&Op) -> bool) -> usize {
    count_insts(body, pred) + count_insts(continuing, pred)
}

fn is_load(op: &Op) -> bool {
    matches!(op, Op::Load(_))
}

fn is_mul(op: &Op) -> bool {
    matches!(op, Op::Binary(B::Multiply | B::ShiftLeft, ..))
}

const UNIFORM_KERNEL: &str = r#"
struct Dims { n: u32, k: u32, scale: array<vec4<u32>, 2> }
struct Params { bias: u32, table: array<u32> }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> params: Params;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4)
fn no_writes(@builtin(global_invocation_id) gid: vec3<u32>) {
    var s = 0u;
    for (var i = 0u; i < 8u; i++) {
        // dims.k, dims.n * 4u, dims.scale[1].y and params.bias leave the loop; the runtime
        // indices into the uniform array and the runtime-sized table stay (the arm might not
        // run and the index might be out of bounds).
        s += i * dims.k + dims.n * 4u + dims.scale[1].y + params.bias;
        if (gid.x < 2u) {
            s += dims.scale[gid.x].x + params.table[gid.x];
        }
    }
    out[gid.x] = s;
}

@compute @workgroup_size(4)
fn writes(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = 0u; i < 8u; i++) {
        // A store in the loop: both loads leave all the same (no write can reach a read-only
        // binding or a uniform during a dispatch, docs/abi.md).
        out[gid.x * 8u + i] = params.bias + dims.k;
    }
}
"#;

#[test]
fn uniform_and_read_only_loads_leave_loops_by_the_documented_rule() {
    let m = optimized(UNIFORM_KERNEL);
    let f = m.function(fid(&m, "no_writes"));
    let (before, body, continuing) = first_loop(f);
    let text = module_text(&m);
    let loads_before = before.iter().filter(|i| is_load(&i.op)).count();
    // dims.k, dims.n, dims.scale[1].y, params.bias.
    assert_eq!(loads_before, 4, "{text}");
    // The two runtime-indexed loads in the arm stay.
    assert_eq!(in_loop(body, continuing, &is_load), 2, "{text}");
    // `dims.n * 4u` left with its operand; `i * dims.k` stays.
    assert_eq!(in_loop(body, continuing, &is_mul), 1, "{text}");
    assert!(before.iter().any(|i| is_mul(&i.op)), "{text}");

    let f = m.function(fid(&m, "writes"));
    let (before, body, continuing) = first_loop(f);
    assert_eq!(before.iter().filter(|i| is_load(&i.op)).count(), 2, "{text}");
    assert_eq!(in_loop(body, continuing, &is_load), 0, "{text}");
}

#[test]
fn immediate_loads_leave_loops_that_store() {
    let src = r#"
struct Push { k: u32, pad: u32 }
var<immediate> push: Push;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = 0u; i < 8u; i++) {
        out[gid.x * 8u + i] = push.k * i;
    }
}
"#;
    let m = optimized(src);
    let (before, body, continuing) = first_loop(m.function(fid(&m, "main")));
    let text = module_text(&m);
    assert_eq!(before.iter().filter(|i| is_load(&i.op)).count(), 1, "{text}");
    assert_eq!(in_loop(body, continuing, &is_load), 0, "{text}");
}

#[test]
fn pure_invariants_leave_nested_loops_and_results_are_unchanged() {
    let src = r#"
fn f(x: i32) -> i32 {
    var s = 0;
    for (var i = 0; i < 5; i++) {
        for (var j = 0; j < 3; j++) {
            // x * 7 + 1 is invariant in both loops; i * 3 in the inner one.
            s += (x * 7 + 1) * j + i * 3;
            if (s > 100000) { s -= x / (j + 1); }
        }
    }
    return s;
}"#;
    let expect = |x: i32| {
        let mut s = 0i32;
        for i in 0..5i32 {
            for j in 0..3i32 {
                let t = x.wrapping_mul(7).wrapping_add(1).wrapping_mul(j);
                s = s.wrapping_add(t.wrapping_add(i * 3));
                if s > 100000 {
                    s = s.wrapping_sub(x / (j + 1));
                }
            }
        }
        s
    };
    // Hand check for x = 0: sum over i, j of (j + 3i) = 5 * 3 + 3 * 3 * 10.
    assert_eq!(expect(0), 105);
    let mut m = lower(src);
    let f = fid(&m, "f");
    let inputs = [0, 1, -3, 1000, 50_000_000, i32::MAX];
    let before: Vec<_> = inputs.iter().map(|&x| run(&m, f, vec![Val::I(x)])).collect();
    for (x, got) in inputs.iter().zip(&before) {
        assert_eq!(got, &Ok(Some(Val::I(expect(*x)))), "memory form, x = {x}");
    }
    optimize(&mut m).unwrap_or_else(|d| panic!("{d:#?}"));
    for &x in &inputs {
        assert_eq!(run(&m, f, vec![Val::I(x)]), Ok(Some(Val::I(expect(x)))), "x = {x}");
    }
    let text = module_text(&m);
    let (before, body, _) = first_loop(m.function(f));
    // x * 7 and + 1 are before the outer loop.
    assert!(before.iter().any(|i| matches!(i.op, Op::Binary(B::Multiply, ..))), "{text}");
    // Inside the outer loop body, before the inner loop: i * 3.
    let inner_at = body.insts.iter().position(|i| matches!(i.op, Op::Loop { .. }));
    let inner_at = inner_at.unwrap_or_else(|| panic!("no inner loop\n{text}"));
    let hoisted_into_outer = body.insts[..inner_at]
        .iter()
        .filter(|i| matches!(i.op, Op::Binary(B::Multiply, ..)))
        .count();
    assert_eq!(hoisted_into_outer, 1, "i * 3 waits before the inner loop\n{text}");
}

/// Optimizes, strength-reduces `name` as the PTX backend does after inlining, checks the
/// verifier accepts it and `name(x) == expect(x)` on every input; returns the module.
fn reduced(src: &str, name: &str, inputs: &[i32], expect: impl Fn(i32) -> i32) -> Module {
    let mut m = optimized(src);
    let id = fid(&m, name);
    let mut f = m.function(id).clone();
    optimize_inlined(&m, id, &mut f).unwrap_or_else(|d| panic!("{d:#?}\n{}", module_text(&m)));
    m.functions[id.index()] = f;
    crate::verifier::verify(&m).unwrap_or_else(|d| panic!("{d:#?}\n{}", module_text(&m)));
    for &x in inputs {
        let got = run(&m, id, vec![Val::I(x)]);
        assert_eq!(got, Ok(Some(Val::I(expect(x)))), "x = {x}\n{}", module_text(&m));
    }
    m
}

#[test]
fn strength_reduction_replaces_multiplies_and_wraps_like_the_original() {
    // The stride 1000003 makes i * 1000003 + x overflow i32 after a few iterations.
    let src = r#"
fn f(n: i32) -> i32 {
    var s = 0;
    for (var i = 0; i < n; i += 100000007) {
        s ^= i * 1000003 + n;
        s += (i << 3u) - 5;
    }
    return s;
}"#;
    let expect = |n: i32| {
        let (mut s, mut i) = (0i32, 0i32);
        while i < n {
            s ^= i.wrapping_mul(1000003).wrapping_add(n);
            s = s.wrapping_add((i << 3).wrapping_sub(5));
            i += 100000007;
        }
        s
    };
    // Hand check: n = 1 runs i = 0 only: s = (0 ^ 1) + (0 - 5) = -4.
    assert_eq!(expect(1), -4);
    let m = reduced(src, "f", &[0, 1, 7, 250_000_000, 2_000_000_000], expect);
    let f = m.function(fid(&m, "f"));
    let (body, continuing) = any_loop(f);
    let text = module_text(&m);
    assert_eq!(in_loop(body, continuing, &is_mul), 0, "{text}");
    // i, s and the two reduced expressions.
    assert_eq!(body.params.len(), 4, "{text}");
}

#[test]
fn strength_reduction_passes_new_state_through_continue_and_break() {
    let src = r#"
fn g(n: i32) -> i32 {
    var s = 0;
    for (var i = 0; i < n; i++) {
        let a = i * 5 + 2;
        if (a % 3 == 0) { continue; }
        switch (a % 4) {
            case 1: { s += a; break; }
            default: { s -= 1; }
        }
        if (s > 200) { break; }
    }
    return s;
}"#;
    let expect = |n: i32| {
        let mut s = 0;
        for i in 0..n {
            let a = i * 5 + 2;
            if a % 3 == 0 {
                continue;
            }
            if a % 4 == 1 {
                s += a;
            } else {
                s -= 1;
            }
            if s > 200 {
                break;
            }
        }
        s
    };
    // Hand check n = 4: a = 2 (-1), 7 (-1), 12 (skip), 17 (+17) -> 15.
    assert_eq!(expect(4), 15);
    let m = reduced(src, "g", &[0, 1, 4, 10, 60], expect);
    let f = m.function(fid(&m, "g"));
    let (body, continuing) = any_loop(f);
    assert_eq!(in_loop(body, continuing, &is_mul), 0, "{}", module_text(&m));
}

#[test]
fn a_slot_changed_in_the_body_is_not_an_induction_variable() {
    // `i` also grows inside the body on some iterations: `i * 9` must stay a multiply.
    let src = r#"
fn h(n: i32) -> i32 {
    var s = 0;
    var i = 0;
    loop {
        if (i >= n) { break; }
        s += i * 9;
        if (s % 2 == 0) { i += 2; }
        continuing { i += 1; }
    }
    return s;
}"#;
    let expect = |n: i32| {
        let (mut s, mut i) = (0, 0);
        while i < n {
            s += i * 9;
            if s % 2 == 0 {
                i += 2;
            }
            i += 1;
        }
        s
    };
    // Hand check n = 4: i = 0 (s 0, even: i 3), i = 3 (s 27) -> 27.
    assert_eq!(expect(4), 27);
    let m = reduced(src, "h", &[0, 1, 4, 9, 30], expect);
    let (body, continuing) = any_loop(m.function(fid(&m, "h")));
    assert_eq!(in_loop(body, continuing, &is_mul), 1, "{}", module_text(&m));
}

#[test]
fn rotation_moves_a_pure_short_circuit_test_to_the_bottom() {
    // The header `i < n && i * 3 < n + 7` is pure (the `&&` is an `if` region); after the
    // loop passes it is tested before the loop (the guard) and at the end of each iteration
    // (`break_if`), and the body no longer leaves the loop.
    let src = r#"
fn r(n: i32) -> i32 {
    var s = 0;
    for (var i = 0; i < n && i * 3 < n + 7; i += 2) {
        if (i == 4) { continue; }
        s = s * 3 + i;
    }
    return s;
}"#;
    let expect = |n: i32| {
        let (mut s, mut i) = (0i32, 0i32);
        while i < n && i * 3 < n + 7 {
            if i != 4 {
                s = s.wrapping_mul(3).wrapping_add(i);
            }
            i += 2;
        }
        s
    };
    // Hand check n = 7: i = 0 (s 0), 2 (s 2), 4 (skipped), 6 (6 * 3 < 14 fails): 2.
    assert_eq!(expect(7), 2);
    let m = reduced(src, "r", &[-5, 0, 1, 2, 7, 9, 30], expect);
    let f = m.function(fid(&m, "r"));
    let text = module_text(&m);
    // The loop is no longer at the top level: it sits in the arm of the guard.
    assert!(!f.body.insts.iter().any(|i| matches!(i.op, Op::Loop { .. })), "{text}");
    let rotated = |b: &Block| {
        b.insts.iter().any(|i| {
            matches!(&i.op, Op::If { then_, else_, .. }
            if [then_, else_].iter().any(|a| a.insts.iter().any(|j|
                matches!(j.op, Op::Loop { break_if: Some(_), .. }))))
        })
    };
    assert!(rotated(&f.body), "{text}");
    let (body, _) = any_loop(f);
    let breaks = |b: &Block| matches!(b.term, Terminator::Break(_));
    fn count(b: &Block, pred: &impl Fn(&Block) -> bool) -> usize {
        usize::from(pred(b))
            + b.insts.iter().flat_map(|i| i.op.blocks()).map(|nb| count(nb, pred)).sum::<usize>()
    }
    assert_eq!(count(body, &breaks), 0, "{text}");
}

#[test]
fn a_header_that_reads_memory_is_not_rotated() {
    // Loading the bound in the header must not be duplicated: the loop stays as it was.
    let src = r#"
fn q(n: i32) -> i32 {
    // Indexed with a value only known in the loop, so the array stays in memory.
    var lim = array<i32, 2>(n, n);
    var s = 0;
    for (var i = 0; i < lim[i & 1]; i++) {
        s += i;
        if (s > 20) { lim = array<i32, 2>(0, 0); }
    }
    return s;
}"#;
    // Hand check n = 7: s = 0, 1, 3, 6, 10, 15, 21 (lim = 0): 21; n = 4: 0 + 1 + 2 + 3 = 6.
    let expect = |n: i32| match n {
        7 => 21,
        4 => 6,
        _ => 0,
    };
    let m = reduced(src, "q", &[0, 4, 7], expect);
    let f = m.function(fid(&m, "q"));
    assert!(
        f.body.insts.iter().any(|i| matches!(i.op, Op::Loop { break_if: None, .. })),
        "{}",
        module_text(&m)
    );
}

#[test]
fn a_rotated_loop_from_a_constant_start_below_a_constant_bound_has_no_guard() {
    // `i = 0; i < 40` always enters: the rotated loop (too long to unroll) stands at the top
    // level with no guard `if`, tests only at the bottom, and still computes the same sum.
    let src = r#"
fn c(x: i32) -> i32 {
    var s = x;
    for (var i = 0; i < 40; i++) {
        s = s * 2 + i;
    }
    return s;
}"#;
    let expect = |x: i32| (0..40).fold(x, |s: i32, i| s.wrapping_mul(2).wrapping_add(i));
    // Hand check x = 0: s_n = 2^n - n - 1 (s_8 = 247), and 2^40 - 41 wraps to -41.
    assert_eq!(expect(0), -41);
    let m = reduced(src, "c", &[-3, 0, 1, 1 << 28], expect);
    let f = m.function(fid(&m, "c"));
    let text = module_text(&m);
    let top_loop = f.body.insts.iter().any(|i| matches!(i.op, Op::Loop { break_if: Some(_), .. }));
    assert!(top_loop, "{text}");
    let guard = f.body.insts.iter().any(|i| matches!(i.op, Op::If { .. }));
    assert!(!guard, "{text}");
}

/// Loops in `f` (nested ones included).
fn loops(f: &Function) -> usize {
    count_insts(&f.body, &|op| matches!(op, Op::Loop { .. }))
}

#[test]
fn short_counted_loops_are_unrolled() {
    // Eight trips from constants, a halving counter (a workgroup reduction's shape) and a
    // nest of 4 x 3 trips: no loop is left, and the interpreter's results are the plain
    // Rust loops'.
    let src = r#"
fn c(x: i32) -> i32 {
    var s = x;
    for (var i = 0; i < 8; i++) {
        s = s * 2 + i;
    }
    for (var h = 128u; h > 0u; h >>= 1u) {
        if (s > x) { s -= i32(h); } else { s += i32(h * 3u); }
    }
    for (var j = 0; j < 4; j++) {
        for (var k = j; k < j + 3; k++) {
            s = s * 5 + k * j;
        }
    }
    return s;
}"#;
    let expect = |x: i32| {
        let mut s = (0..8).fold(x, |s: i32, i| s.wrapping_mul(2).wrapping_add(i));
        let mut h = 128u32;
        while h > 0 {
            if s > x {
                s = s.wrapping_sub(h as i32);
            } else {
                s = s.wrapping_add((h * 3) as i32);
            }
            h >>= 1;
        }
        for j in 0..4 {
            for k in j..j + 3 {
                s = s.wrapping_mul(5).wrapping_add(k * j);
            }
        }
        s
    };
    // Hand check of the first loop, x = 0: 0, 1, 4, 11, 26, 57, 120, 247.
    assert_eq!((0..8).fold(0, |s: i32, i| s * 2 + i), 247);
    let m = reduced(src, "c", &[-3, 0, 1, 250, 1 << 28], expect);
    let f = m.function(fid(&m, "c"));
    assert_eq!(loops(f), 0, "{}", module_text(&m));
    // The copies' arithmetic on their constants is folded, in the `if` arms too (`h * 3u`).
    let mut consts = std::collections::HashSet::new();
    fn gather(b: &Block, out: &mut std::collections::HashSet<ValueId>) {
        for i in &b.insts {
            if let (Some(r), Op::Const(_)) = (i.result, &i.op) {
                out.insert(r);
            }
            for nb in i.op.blocks() {
                gather(nb, out);
            }
        }
    }
    gather(&f.body, &mut consts);
    let both =
        |op: &Op| matches!(op, Op::Binary(_, a, b) if consts.contains(a) && consts.contains(b));
    assert_eq!(count_insts(&f.body, &both), 0, "{}", module_text(&m));
}

#[test]
fn loops_the_unroller_leaves_alone_still_compute_the_same() {
    // 17 trips (over MAX_TRIPS), a `break` and a `continue` in the body, a bound that is not
    // constant, and a body too large for its trips: each keeps its loop.
    assert_eq!(MAX_TRIPS, 16);
    type Case = (&'static str, fn(i32) -> i32);
    let cases: [Case; 4] = [
        (
            "fn c(x: i32) -> i32 { var s = x; for (var i = 0; i < 17; i++) { s = s * 3 + i; } return s; }",
            |x| (0..17).fold(x, |s: i32, i| s.wrapping_mul(3).wrapping_add(i)),
        ),
        (
            "fn c(x: i32) -> i32 { var s = x; for (var i = 0; i < 8; i++) { if (s > 100) { break; } s = s * 3 + i; } return s; }",
            |x| {
                let mut s = x;
                for i in 0..8 {
                    if s > 100 {
                        break;
                    }
                    s = s.wrapping_mul(3).wrapping_add(i);
                }
                s
            },
        ),
        (
            "fn c(x: i32) -> i32 { var s = x; for (var i = 0; i < 8; i++) { if (i == x) { continue; } s = s * 3 + i; } return s; }",
            |x| (0..8).filter(|&i| i != x).fold(x, |s: i32, i| s.wrapping_mul(3).wrapping_add(i)),
        ),
        (
            "fn c(x: i32) -> i32 { var s = 1; for (var i = 0; i < x; i++) { s = s * 3 + i; } return s; }",
            |x| (0..x.max(0)).fold(1, |s: i32, i| s.wrapping_mul(3).wrapping_add(i)),
        ),
    ];
    for (src, expect) in cases {
        let m = reduced(src, "c", &[-3, 0, 1, 5, 7, 250], expect);
        let f = m.function(fid(&m, "c"));
        assert_eq!(loops(f), 1, "{src}\n{}", module_text(&m));
    }
    // 16 trips of a body of about 20 instructions: more than MAX_COPIED in all.
    let mut body = String::new();
    for k in 0..10 {
        body.push_str(&format!("s = s * {} + i;", k + 2));
    }
    let src = format!(
        "fn c(x: i32) -> i32 {{ var s = x; for (var i = 0; i < 16; i++) {{ {body} }} return s; }}"
    );
    let expect = |x: i32| {
        (0..16)
            .fold(x, |s: i32, i| (0..10).fold(s, |s: i32, k| s.wrapping_mul(k + 2).wrapping_add(i)))
    };
    let m = reduced(&src, "c", &[-3, 0, 1, 250], expect);
    assert_eq!(loops(m.function(fid(&m, "c"))), 1, "{}", module_text(&m));
}
