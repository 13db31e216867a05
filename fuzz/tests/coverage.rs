//! What the generator writes: every program passes naga's validation, the same seed gives the
//! same text, the features the fuzzing issue names appear in most programs, and every
//! operator and builtin the generator supports appears on every type it supports.

use dianran_fuzz::ast::{Expr, ExprKind, Stmt, Ty};
use dianran_fuzz::gen::{generate, SGM_SHAPES, SUPPORTED};
use dianran_fuzz::rng::program_seed;
use std::collections::HashSet;

const PROGRAMS: u64 = 300;

/// Each feature, and how to spot it in a program's text.
const FEATURES: [(&str, &[&str]); 10] = [
    ("loops", &["loop {", "for (", "while ("]),
    ("switches", &["switch ("]),
    ("barriers", &["workgroupBarrier()", "storageBarrier()"]),
    ("atomics", &["atomic"]),
    ("subgroup operations", &["subgroup", "quad"]),
    ("calls with pointers", &["ptr<"]),
    ("cooperative matrices", &["coopMultiplyAdd"]),
    ("matrices", &["mat2x", "mat3x", "mat4x"]),
    ("f16", &["enable f16;"]),
    ("subgroup matrices", &["subgroupMatrixStore"]),
];

#[test]
fn programs_are_valid_deterministic_and_cover_the_features() {
    let mut seen = vec![0u64; FEATURES.len()];
    let mut rich = 0;
    for i in 0..PROGRAMS {
        let seed = program_seed(1, i);
        let text = generate(seed).wgsl();
        assert_eq!(text, generate(seed).wgsl(), "seed {seed} is not deterministic");
        if let Err(d) = dianran_frontend::parse("gen.wgsl", &text, &Default::default()) {
            panic!("seed {seed}: naga rejects the program:\n{d}\n{text}");
        }
        let mut n = 0;
        for (k, (_, marks)) in FEATURES.iter().enumerate() {
            if marks.iter().any(|m| text.contains(m)) {
                seen[k] += 1;
                n += 1;
            }
        }
        // Loops, switches, barriers, atomics, subgroups, pointer calls, cooperative matrices:
        // a program with four of the first seven is a rich one.
        let first7 = FEATURES[..7]
            .iter()
            .filter(|(_, marks)| marks.iter().any(|m| text.contains(m)))
            .count();
        if first7 >= 4 {
            rich += 1;
        }
        let _ = n;
    }
    let share = |k: usize| seen[k] as f64 / PROGRAMS as f64;
    let report: Vec<String> = FEATURES
        .iter()
        .enumerate()
        .map(|(k, (name, _))| format!("{name} {:.0}%", 100.0 * share(k)))
        .collect();
    println!("features over {PROGRAMS} programs: {}; rich: {rich}", report.join(", "));
    // Every feature shows up often enough to be exercised in a short campaign.
    let floors = [0.8, 0.5, 0.5, 0.5, 0.4, 0.4, 0.1, 0.3, 0.3, 0.08];
    for (k, (name, _)) in FEATURES.iter().enumerate() {
        assert!(share(k) >= floors[k], "{name} in only {:.0}% of programs", 100.0 * share(k));
    }
    assert!(
        rich * 2 > PROGRAMS,
        "only {rich} of {PROGRAMS} programs have four of the named features"
    );
}

/// Programs generated for the operator × type table.
const TABLE_PROGRAMS: u64 = 8000;

/// The key of an operation in [`dianran_fuzz::gen::SUPPORTED`]: prefix operators as `-x`.
fn key(e: &Expr) -> Option<(String, &Ty)> {
    match &*e.kind {
        ExprKind::Binary(op, a, _) => Some((op.to_string(), &a.ty)),
        ExprKind::Unary(op, a) => Some((format!("{op}x"), &a.ty)),
        ExprKind::Call(f, args) => args.first().map(|a| (f.clone(), &a.ty)),
        _ => None,
    }
}

/// Adds every (operation, first operand type) of `e` and its subexpressions to `seen`.
fn collect_expr(e: &mut Expr, seen: &mut HashSet<(String, Ty)>) {
    if let Some((k, ty)) = key(e) {
        seen.insert((k, ty.clone()));
    }
    for c in e.children_mut() {
        collect_expr(c, seen);
    }
}

fn collect(list: &mut [Stmt], seen: &mut HashSet<(String, Ty)>) {
    for s in list {
        if let Stmt::Assign(place, op, _) = s {
            if *op != "=" {
                seen.insert((op.to_string(), place.ty.clone()));
            }
        }
        if let Stmt::For { init, update, .. } = s {
            collect(std::slice::from_mut(init.as_mut()), seen);
            collect(std::slice::from_mut(update.as_mut()), seen);
        }
        for e in s.exprs_mut() {
            collect_expr(e, seen);
        }
        for b in s.bodies_mut() {
            collect(b, seen);
        }
    }
}

/// Every operator and builtin the generator lists in `SUPPORTED`, on every scalar type and
/// width listed with it, appears in a few thousand programs: an operation the generator
/// never writes on some type (as it once never wrote a float `%`) is a hole in what a fuzzing
/// campaign can find, and this test names each such pair.
#[test]
fn every_operator_and_builtin_on_every_type() {
    let mut seen = HashSet::new();
    for i in 0..TABLE_PROGRAMS {
        let mut p = generate(program_seed(2, i));
        for g in &mut p.globals {
            if let Some(e) = &mut g.init {
                collect_expr(e, &mut seen);
            }
        }
        for f in &mut p.functions {
            collect(&mut f.body, &mut seen);
        }
    }
    let mut missing = Vec::new();
    let mut pairs = 0;
    for (ops, scalars, widths) in SUPPORTED {
        for op in *ops {
            for &s in *scalars {
                for &n in *widths {
                    let ty = if n == 1 { Ty::S(s) } else { Ty::Vec(n, s) };
                    pairs += 1;
                    if !seen.contains(&(op.to_string(), ty.clone())) {
                        missing.push(format!("{op} on {}", ty.wgsl()));
                    }
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "{} of {pairs} (operation, type) pairs never appear in {TABLE_PROGRAMS} programs: {}",
        missing.len(),
        missing.join(", ")
    );
}

/// Every subgroup-matrix shape and type pair of [`SGM_SHAPES`], in every layout and form
/// (row- and column-major loads and stores, the deprecated `bool` forms, multiplies with and
/// without an accumulator, scalar operations), appears among the first programs, and every
/// such program passes the frontend (Dawn's rules as dianran checks them).
#[test]
fn subgroup_matrix_programs_cover_every_shape_and_form() {
    let mut shapes: HashSet<String> = HashSet::new();
    let mut forms: HashSet<&str> = HashSet::new();
    let marks = [
        "row_major>(",
        "col_major>(",
        ", true, (",
        ", false, (",
        "subgroupMatrixMultiply<",
        "subgroupMatrixMultiplyAccumulate(",
        "subgroupMatrixScalarAdd(",
        "subgroupMatrixScalarSubtract(",
        "subgroupMatrixScalarMultiply(",
        "subgroupMatrixStore<",
        "subgroupMatrixStore(",
        "arrayLength(&out_m) - ",
    ];
    for i in 0..3000 {
        let seed = program_seed(3, i);
        let text = generate(seed).wgsl();
        if !text.contains("subgroupMatrixStore") {
            continue;
        }
        if let Err(d) = dianran_frontend::parse("gen.wgsl", &text, &Default::default()) {
            panic!("seed {seed}: the frontend rejects the program:\n{d}\n{text}");
        }
        for s in SGM_SHAPES {
            let left = format!("subgroup_matrix_left<{}, {}, {}>", s.elem, s.k, s.m);
            let result = format!("subgroup_matrix_result<{}, {}, {}>", s.result, s.n, s.m);
            let multiply = format!("subgroupMatrixMultiply<{}>", s.result);
            if text.contains(&left) && (text.contains(&result) || text.contains(&multiply)) {
                shapes.insert(format!("{s:?}"));
            }
        }
        forms.extend(marks.iter().filter(|m| text.contains(*m)));
        if shapes.len() == SGM_SHAPES.len() && forms.len() == marks.len() {
            return;
        }
    }
    let missing: Vec<String> =
        SGM_SHAPES.iter().map(|s| format!("{s:?}")).filter(|s| !shapes.contains(s)).collect();
    let absent: Vec<&&str> = marks.iter().filter(|m| !forms.contains(*m)).collect();
    panic!("never generated: shapes {missing:?}, forms {absent:?}");
}

/// Every form of the workgroup-matrix phase (zero, filled and loaded tiles, bounds, both K,
/// every majorness pair, f32 and f16 operands) appears among the first programs, and every
/// such program compiles, the extension's uniformity and workgroup-size rules included.
#[test]
fn workgroup_matrix_programs_cover_every_form_and_compile() {
    let tile = "workgroup_matrix_result<f32, 64, 64>";
    let zero = format!("{tile}()");
    let filled = format!("{tile}(");
    let mut forms: HashSet<String> = HashSet::new();
    let mut marks: Vec<String> = [
        "workgroupMatrixLoad<row_major>(",
        "workgroupMatrixLoad<col_major>(",
        "workgroupMatrixStore<row_major>(",
        "workgroupMatrixStore<col_major>(",
        "workgroupMatrixMultiplyAccumulate<16, ",
        "workgroupMatrixMultiplyAccumulate<32, ",
        "row_major, row_major>(&in_f",
        "row_major, col_major>(&in_h",
        "col_major, row_major>(",
        "col_major, col_major>(",
        "(uni.k % 64u + 1u)",
        "(uni.k % 1u + ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    marks.push(zero.clone());
    let mut programs = 0;
    for i in 0..2000 {
        let seed = program_seed(4, i);
        let text = generate(seed).wgsl();
        if !text.contains("enable dianran_workgroup_matrix;") {
            continue;
        }
        programs += 1;
        if let Err(d) = dianran_frontend::compile("gen.wgsl", &text, &Default::default()) {
            panic!("seed {seed}: the frontend rejects the program:\n{d}\n{text}");
        }
        forms.extend(marks.iter().filter(|m| text.contains(m.as_str())).cloned());
        if text.replace(&zero, "").contains(&filled) {
            forms.insert("filled".into());
        }
        if forms.len() == marks.len() + 1 && programs >= 20 {
            return;
        }
    }
    let absent: Vec<&String> = marks.iter().filter(|m| !forms.contains(*m)).collect();
    panic!(
        "{programs} programs; never generated: {absent:?}, filled: {}",
        forms.contains("filled")
    );
}

/// Generated workgroup-matrix programs print as MSL in both forms (Metal 4's `matmul2d`, the
/// portable one with `no_metal4`) and pass the clang check against the Metal stub: random
/// arrays, element types, majorness, K and bounds reach the Metal 4 printer.
#[test]
fn workgroup_matrix_programs_print_valid_msl_in_both_forms() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = dianran_verify::msl_check::stub_dir().expect("the stub is writable");
    let (mut programs, mut metal4) = (0, 0);
    for i in 0..2000 {
        let seed = program_seed(4, i);
        let text = generate(seed).wgsl();
        if !text.contains("enable dianran_workgroup_matrix;") {
            continue;
        }
        let m = dianran_frontend::compile("gen.wgsl", &text, &Default::default())
            .unwrap_or_else(|d| panic!("seed {seed}: the frontend rejects the program:\n{d}"));
        for no_metal4 in [false, true] {
            let out = dianran_msl::write_module_with(
                &m,
                &dianran_msl::Options { no_metal4, ..Default::default() },
            );
            // Refused by design: Metal 4 takes one product configuration per module, and MSL
            // has no integer subgroup matrices (docs/subgroup-matrix.md).
            let by_design = |d: &dianran_frontend::Diagnostic| {
                d.message.contains("one product configuration")
                    || d.message.contains("integer subgroup matrices")
            };
            if !out.errors.is_empty() && out.errors.iter().all(by_design) {
                continue;
            }
            assert!(out.errors.is_empty(), "seed {seed}: {:?}\n{text}", out.errors);
            metal4 += usize::from(out.metal4);
            let name = format!("wgm_{seed}_{no_metal4}");
            if let Err(e) = dianran_verify::msl_check::syntax_check(&clang, &dir, &out.text, &name)
            {
                panic!("seed {seed} (no_metal4: {no_metal4}):\n{e}\n{text}\n{}", out.text);
            }
        }
        programs += 1;
        if programs >= 12 && metal4 >= 8 {
            return;
        }
    }
    panic!("{programs} programs, {metal4} printed on Metal 4");
}

/// Generated workgroup-matrix programs agree with the interpreter on the emulator when their
/// PTX targets `sm_90a` (f16 products on Hopper's `wgmma`, `docs/hopper.md`): random arrays,
/// majorness, K, bounds and data, and ptxas assembles every one for `sm_90a`.
#[test]
fn workgroup_matrix_programs_agree_on_sm_90a() {
    let Some(ptxas) = dianran_verify::tools::require("ptxas", dianran_verify::tools::ptxas())
    else {
        return;
    };
    let opts = dianran_fuzz::check::Options {
        executors: vec![dianran_verify::executors::Executor::Emu],
        ptxas: Some(ptxas),
        clang: None,
        timeout: std::time::Duration::from_secs(120),
        inject: None,
        sm: dianran_ptx::model::SM_90A,
    };
    let mut programs = 0;
    for i in 0..2000 {
        let seed = program_seed(4, i);
        let p = generate(seed);
        let text = p.wgsl();
        if !text.contains("enable dianran_workgroup_matrix;") {
            continue;
        }
        let m = dianran_frontend::compile("gen.wgsl", &text, &Default::default())
            .unwrap_or_else(|d| panic!("seed {seed}: {d}"));
        let popts =
            dianran_ptx::codegen::Options { sm: dianran_ptx::model::SM_90A, ..Default::default() };
        // Programs without an f16 product print the portable form, as at sm_80.
        if !dianran_ptx::codegen::compile_module(&m, &popts).text.contains("wgmma.mma_async") {
            continue;
        }
        if let Err(f) =
            dianran_fuzz::check::check("gen.wgsl", &text, p.dispatch, p.runtime_len, seed, &opts)
        {
            panic!("seed {seed}: {} at {}: {}\n{text}", f.kind.name(), f.stage, f.detail);
        }
        programs += 1;
        if programs >= 3 {
            return;
        }
    }
    panic!("only {programs} programs with wgmma");
}
