//! End-to-end pass tests: WGSL lowered to memory form, then the full pipeline. Each function
//! is run by the test interpreter before and after and compared with plain Rust code.

use super::testutil::{count_insts, parsed, run, Val};
use super::*;
use crate::ir::*;
use crate::text::module_text;

fn lower(src: &str) -> Module {
    match crate::lower::lower_module(&parsed(src)) {
        Ok(m) => m,
        Err(ds) => panic!("lowering failed: {ds:#?}"),
    }
}

fn fid(m: &Module, name: &str) -> FuncId {
    let i =
        m.functions.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("no fn {name}"));
    FuncId(i as u32)
}

fn call(m: &Module, f: FuncId, x: i32) -> Option<Val> {
    match run(m, f, vec![Val::I(x)]) {
        Ok(v) => v,
        Err(e) => panic!("interpreter: {e}\n{}", module_text(m)),
    }
}

/// Asserts `f(x) == expect(x)` for every input; `stage` names the pipeline step in failures.
fn check_calls(m: &Module, f: FuncId, inputs: &[i32], expect: &impl Fn(i32) -> i32, stage: &str) {
    for &x in inputs {
        let want = Some(Val::I(expect(x)));
        assert_eq!(call(m, f, x), want, "{stage}, input {x}\n{}", module_text(m));
    }
}

/// `optimize`, panicking with the module text on a diagnostic.
fn optimized(m: &mut Module) {
    if let Err(d) = optimize(m) {
        panic!("{d:#?}\n{}", module_text(m));
    }
}

/// Lowers `src`, checks `name(x) == expect(x)` before and after `optimize`; returns the
/// optimized module and the function.
fn check(src: &str, name: &str, inputs: &[i32], expect: impl Fn(i32) -> i32) -> (Module, FuncId) {
    let mut m = lower(src);
    let f = fid(&m, name);
    check_calls(&m, f, inputs, &expect, "memory form");
    optimized(&mut m);
    if std::env::var("SHOW_SSA").is_ok() {
        eprintln!("{}", module_text(&m));
    }
    check_calls(&m, f, inputs, &expect, "optimized");
    (m, f)
}

/// Inlines every call in `f` (the verifier must accept the result and no call may remain),
/// then checks `f(x) == expect(x)` before and after optimizing again.
fn inline_and_check(m: &mut Module, f: FuncId, inputs: &[i32], expect: impl Fn(i32) -> i32) {
    m.functions[f.index()] = inline_calls(m, f).unwrap_or_else(|d| panic!("{d:#?}"));
    crate::verifier::verify(m).unwrap_or_else(|d| panic!("{d:#?}\n{}", module_text(m)));
    let calls = count_insts(&m.functions[f.index()].body, &|op| matches!(op, Op::Call(..)));
    assert_eq!(calls, 0, "{}", module_text(m));
    check_calls(m, f, inputs, &expect, "inlined");
    optimized(m);
    check_calls(m, f, inputs, &expect, "inlined and optimized");
}

/// [`check`], then asserts that no memory operation (load, store, local address) is left in
/// `name`: every local was promoted to SSA values.
fn check_promoted(
    src: &str,
    name: &str,
    inputs: &[i32],
    expect: impl Fn(i32) -> i32,
) -> (Module, FuncId) {
    let (m, f) = check(src, name, inputs, expect);
    let memory_ops = count_insts(&m.functions[f.index()].body, &|op| {
        matches!(op, Op::Load(_) | Op::Store { .. } | Op::LocalAddr(_))
    });
    assert_eq!(memory_ops, 0, "{}", module_text(&m));
    (m, f)
}

#[test]
fn for_loop_with_continue_and_switch() {
    let src = r#"
fn f(n: i32) -> i32 {
    var s = 0;
    for (var i = 0; i < n; i++) {
        if (i % 3 == 1) { continue; }
        switch i {
            case 4, 5: { s += 100; }
            default: { s += i; }
        }
    }
    return s;
}"#;
    let expect = |n: i32| {
        let mut s = 0;
        for i in 0..n {
            if i % 3 == 1 {
                continue;
            }
            s += if i == 4 || i == 5 { 100 } else { i };
        }
        s
    };
    // Hand check: n = 7 visits 0, 2, 3, 5 (+100), 6 -> 0 + 2 + 3 + 100 + 6.
    assert_eq!(expect(7), 111);
    let (m, f) = check_promoted(src, "f", &[0, 1, 2, 5, 7, 12], expect);
    assert!(m.functions[f.index()].locals.is_empty());
}

#[test]
fn continuing_recomputes_what_the_body_computes_after_a_continue() {
    // `n * 3 + 1` in the body comes after a possible `continue`, so it does not dominate the
    // continuing block: CSE must not make the continuing block use it (found by `dianran fuzz`:
    // the PTX register allocator then failed with `EntryLivein`).
    let src = r#"
fn f(n: i32) -> i32 {
    var s = 0;
    var i = 0;
    loop {
        if (i % 2 == 1) { continue; }
        s += n * 3 + 1;
        continuing {
            s += (n * 3 + 1) * 10;
            i++;
            break if i >= 4;
        }
    }
    return s;
}"#;
    // i = 0 and 2 run the body (k each); all four iterations run the continuing block (10 k).
    let expect = |n: i32| 42 * (3 * n + 1);
    assert_eq!(expect(1), 168);
    check(src, "f", &[0, 1, 5, -7], expect);
}

#[test]
fn while_loop_with_break_in_nested_if() {
    let src = r#"
fn w(x: i32) -> i32 {
    var i = x;
    var c = 0;
    while (i > 1) {
        if (i % 2 == 0) { i = i / 2; } else { i = 3 * i + 1; }
        c++;
        if (c >= 10) { break; }
    }
    return c * 1000 + i;
}"#;
    let expect = |x: i32| {
        let (mut i, mut c) = (x, 0);
        while i > 1 {
            i = if i % 2 == 0 { i / 2 } else { 3 * i + 1 };
            c += 1;
            if c >= 10 {
                break;
            }
        }
        c * 1000 + i
    };
    assert_eq!(expect(6), 8001); // 6 3 10 5 16 8 4 2 1: eight steps
    check_promoted(src, "w", &[0, 1, 2, 6, 7, 27], expect);
}

#[test]
fn loop_with_break_if_and_early_return() {
    let src = r#"
fn l(x: i32) -> i32 {
    var n = x;
    var k = 0;
    loop {
        if (n == 42) { return -1; }
        k += 1;
        continuing {
            n = n + 2;
            break if n > 50;
        }
    }
    return n * 100 + k;
}"#;
    let expect = |x: i32| {
        let (mut n, mut k) = (x, 0);
        loop {
            if n == 42 {
                return -1;
            }
            k += 1;
            n += 2;
            if n > 50 {
                return n * 100 + k;
            }
        }
    };
    check_promoted(src, "l", &[0, 1, 40, 41, 49, 60], expect);
}

#[test]
fn vectors_structs_and_runtime_indexed_array() {
    let src = r#"
struct S { a: i32, v: vec2<i32> }
fn g(p: i32) -> i32 {
    var v = vec3<i32>(1, 2, 3);
    v[u32(p) & 1u] = 10;
    v.z += p;
    var s: S;
    s.a = p;
    s.v.y = p * 2;
    s.v[p & 1] += 7;
    var a = array<i32, 4>(5, 6, 7, 8);
    a[p & 3] = 0;
    return v.x + v.y * 10 + v.z * 100 + a[1] * 1000 + (s.a + s.v.x + s.v.y) * 10000;
}"#;
    let expect = |p: i32| {
        let mut v = [1, 2, 3];
        v[(p & 1) as usize] = 10;
        v[2] += p;
        let (sa, mut sv) = (p, [0, p * 2]);
        sv[(p & 1) as usize] += 7;
        let mut a = [5, 6, 7, 8];
        a[(p & 3) as usize] = 0;
        v[0] + v[1] * 10 + v[2] * 100 + a[1] * 1000 + (sa + sv[0] + sv[1]) * 10000
    };
    let (m, g) = check(src, "g", &[0, 1, 2, 5], expect);
    let f = &m.functions[g.index()];
    let names: Vec<&str> = f.locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a"], "only the runtime-indexed array stays in memory");
}

#[test]
fn constants_fold_away() {
    let src = r#"
fn c(x: i32) -> i32 {
    var b = 6;
    b = b * 7;
    if (b == 42) { b = b + 1; } else { b = x; }
    let z = x * 0 + (x - x);
    return b + z;
}"#;
    let (m, c) = check(src, "c", &[3, -9], |_| 43);
    let f = &m.functions[c.index()];
    assert_eq!(f.body.insts.len(), 1, "{}", module_text(&m));
    assert!(matches!(f.body.insts[0].op, Op::Const(ConstValue::I32(43))), "{}", module_text(&m));
}

#[test]
fn pointer_params_are_promoted_after_inlining() {
    let src = r#"
fn bump(p: ptr<function, i32>, k: i32) { *p = *p + k; }
fn twice(y: i32) -> i32 { return y * 2; }
fn h(x: i32) -> i32 {
    var a = x;
    bump(&a, 5);
    bump(&a, twice(x));
    return a;
}"#;
    let expect = |x: i32| x + 5 + 2 * x;
    let (mut m, h) = check(src, "h", &[0, 4, -3], expect);
    // Before inlining `a` escapes through the calls.
    assert_eq!(m.functions[h.index()].locals.len(), 1);
    inline_and_check(&mut m, h, &[0, 4, -3], expect);
    assert!(m.functions[h.index()].locals.is_empty(), "{}", module_text(&m));
}

/// A callee with a `return` inside a loop, for the inlining tests; [`first_multiple`] is its
/// reference.
const FIRST_MULTIPLE: &str = r#"
fn first_multiple(k: i32) -> i32 {
    var i = 1;
    loop {
        if (i % k == 0) { return i; }
        i++;
        if (i > 100) { break; }
    }
    return -1;
}
"#;

/// The smallest multiple of `k` in 1..=100, or -1.
fn first_multiple(k: i32) -> i32 {
    (1..=100).find(|i| i % k == 0).unwrap_or(-1)
}

#[test]
fn inline_return_inside_loop_leaves_the_region() {
    let src = [
        FIRST_MULTIPLE,
        "fn q(x: i32) -> i32 { return first_multiple(x + 3) + first_multiple(7); }",
    ]
    .concat();
    let expect = |x: i32| first_multiple(x + 3) + first_multiple(7);
    let (mut m, q) = check(&src, "q", &[0, 2, 50, 200], expect);
    inline_and_check(&mut m, q, &[0, 2, 50, 200], expect);
    let inlines = count_insts(&m.functions[q.index()].body, &|op| matches!(op, Op::Inline { .. }));
    assert_eq!(inlines, 2);
}

#[test]
fn compute_entry_points_optimize_and_verify() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
var<workgroup> tile: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    var acc = 0u;
    for (var i = 0u; i < 4u; i++) {
        acc += data[gid.x * 4u + i];
    }
    tile[li] = acc;
    workgroupBarrier();
    var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
    m[li & 1u][0] = 5.0;
    let v = m * vec2<f32>(1.0, 1.0);
    if (v.x > 3.0) { data[gid.x] = tile[(li + 1u) % 64u]; }
}"#;
    let mut m = lower(src);
    optimized(&mut m);
    let f = &m.functions[m.entry_points[0].function.index()];
    assert!(f.locals.is_empty(), "{}", module_text(&m));
    let barriers = count_insts(&f.body, &|op| matches!(op, Op::Barrier(_)));
    assert_eq!(barriers, 1);
}

/// Every sample kernel: lowered, optimized, every entry inlined and optimized again, with the
/// verifier after each pass. Samples the lowering rejects are skipped (its own tests cover it).
#[test]
fn all_samples_optimize_and_inline() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let mut done = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "wgsl")) {
        let name = path.display().to_string();
        let Ok(src) = std::fs::read_to_string(path) else { continue };
        let Ok(parsed) = crate::parse(&name, &src, &crate::Options::default()) else { continue };
        let Ok(mut m) = crate::lower::lower_module(&parsed) else { continue };
        if let Err(d) = optimize(&mut m) {
            panic!("{name}: {d:#?}\n{}", module_text(&m));
        }
        if std::env::var("SHOW_SSA").is_ok_and(|s| name.contains(&s)) {
            eprintln!("{}", module_text(&m));
        }
        for e in m.entry_points.clone() {
            let mut f = inline_calls(&m, e.function).unwrap_or_else(|d| panic!("{name}: {d:#?}"));
            // The PTX backend's loop passes; the verifier runs inside.
            optimize_inlined(&m, e.function, &mut f)
                .unwrap_or_else(|d| panic!("{name} (loop passes): {d:#?}"));
            m.functions[e.function.index()] = f;
        }
        if let Err(d) = optimize(&mut m) {
            panic!("{name} (inlined): {d:#?}\n{}", module_text(&m));
        }
        done += 1;
    }
    eprintln!("optimized {done} samples");
}

#[test]
fn constant_switch_is_replaced_by_its_arm() {
    let src = r#"
fn s(x: i32) -> i32 {
    var r = x;
    let k = 2;
    switch k {
        case 1: { r = 10; }
        case 2, 3: { r = r * 3; }
        default: { r = 0; }
    }
    return r;
}"#;
    let (m, s) = check(src, "s", &[1, 7, -4], |x| x * 3);
    let f = &m.functions[s.index()];
    assert_eq!(count_insts(&f.body, &|o| matches!(o, Op::Switch { .. })), 0, "{}", module_text(&m));
}

#[test]
fn inlined_callee_locals_inside_a_caller_loop() {
    let caller = r#"
fn z(x: i32) -> i32 {
    var acc = 0;
    for (var j = 1; j < 4; j++) {
        acc += first_multiple(x + j) * j;
    }
    return acc;
}"#;
    let src = [FIRST_MULTIPLE, caller].concat();
    let expect = |x: i32| (1..4).map(|j| first_multiple(x + j) * j).sum::<i32>();
    let (mut m, z) = check(&src, "z", &[0, 5, 120], expect);
    inline_and_check(&mut m, z, &[0, 5, 120], expect);
    assert!(m.functions[z.index()].locals.is_empty(), "{}", module_text(&m));
}

#[test]
fn caller_local_written_behind_an_early_return_stays_in_memory() {
    let src = r#"
fn setp(p: ptr<function, i32>, v: i32) {
    if (v < 0) { return; }
    *p = v;
}
fn y(x: i32) -> i32 {
    var a = 7;
    setp(&a, x);
    return a;
}"#;
    let expect = |x: i32| if x < 0 { 7 } else { x };
    let (mut m, y) = check(src, "y", &[-2, 0, 9], expect);
    inline_and_check(&mut m, y, &[-2, 0, 9], expect);
    assert_eq!(m.functions[y.index()].locals.len(), 1, "{}", module_text(&m));
}

/// Deep nesting (as deep as naga's parser accepts) does not exhaust the stack in the passes.
#[test]
fn deeply_nested_regions() {
    let depth = 126;
    let mut src = String::from("fn d(x: i32) -> i32 {\n var s = 0;\n");
    for k in 0..depth {
        if k % 2 == 0 {
            src.push_str(&format!("if (x > {k}) {{ s += 1;\n"));
        } else {
            src.push_str("for (var i = 0; i < 2; i++) { s += i;\n");
        }
    }
    for _ in 0..depth {
        src.push_str("}\n");
    }
    src.push_str("return s;\n}\n");
    let result = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let Ok(parsed) = crate::parse("deep.wgsl", &src, &crate::Options::default()) else {
                return None;
            };
            let mut m = crate::lower::lower_module(&parsed).ok()?;
            Some(optimize(&mut m).map(|_| m))
        })
        .unwrap()
        .join();
    match result {
        Ok(Some(Ok(m))) => assert!(m.functions[0].locals.is_empty()),
        Ok(Some(Err(d))) => panic!("{d:#?}"),
        Ok(None) => eprintln!("deep nesting rejected before the passes"),
        Err(_) => panic!("stack overflow or panic in the passes"),
    }
}

#[test]
fn short_circuit_operators_keep_their_values_as_logic() {
    let src = r#"
fn s(x: i32) -> i32 {
    var r = 0;
    if (x > 3 || x * 2 < -4) { r = r + 1; }
    if (x != 0 && x * x - 3 > 20) { r = r + 10; }
    if (x != 0 && 100 / x > 20) { r = r + 10000; }
    if (!(x < -1) || x == -5) { r = r + 100; }
    if (x < 9 && !(x == 2)) { r = r + 1000; }
    return r;
}"#;
    let expect = |x: i32| {
        let mut r = 0;
        if x > 3 || x * 2 < -4 {
            r += 1;
        }
        if x != 0 && x * x - 3 > 20 {
            r += 10;
        }
        if x != 0 && 100 / x > 20 {
            r += 10000;
        }
        if x >= -1 || x == -5 {
            r += 100;
        }
        if x < 9 && x != 2 {
            r += 1000;
        }
        r
    };
    let (m, s) = check(src, "s", &[-7, -5, -3, -2, -1, 0, 1, 2, 3, 4, 5, 9, 12], expect);
    let t = module_text(&m);
    // Every operator but the one whose right side divides became logic: the five guards'
    // `if`s and that operator's remain.
    assert_eq!(t.matches("logical_or").count(), 2, "{t}");
    assert_eq!(t.matches("logical_and").count(), 2, "{t}");
    assert_eq!(t.matches("= if ").count(), 6, "{t}");
    assert_eq!(m.functions[s.index()].name, "s");
}
