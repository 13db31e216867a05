//! Dawn's own subgroup-matrix tests (`tests/dawn/`, copied unchanged from google/dawn's
//! `test/tint/`; provenance and license in `tests/dawn/README.md`) through every stage:
//! the extension layer and frontend, PTX for sm_80 and sm_90 (assembled by `ptxas` when it is
//! available), the LLVM backend, MSL (checked by clang against the Metal stub), the WGSL printer in Dawn's syntax (printed, read back and
//! printed again twice: the last two texts must be equal) and in its portable form, and executor agreement on
//! random inputs: the PTX emulator, LLVM's PTX on the emulator and lavapipe running the
//! portable form are each compared with the reference interpreter.
//!
//! Two adjustments are made in memory, as `docs/subgroup-matrix.md` ("Dawn's tests") says:
//! the generated builtin tests (`builtins/gen/`) declare `@workgroup_size(1)`, which Dawn's
//! pipeline creation rejects for shaders that use subgroup matrices (the x size must be a
//! multiple of the subgroup size), so they run with 32; and the workgroup-memory load/store
//! tests declare seven 1024-element arrays (57 KiB), more than PTX's 48 KiB of static shared
//! memory, so their arrays have 256 elements. [`EXCLUDED`] lists the files not run, with why.

use dianran::frontend::ir::{self, Stage};
use dianran::verify::agree::random_buffers;
use dianran::verify::engine::{self, Kind};
use dianran::verify::executors::{Executor, Job};
use std::path::{Path, PathBuf};

/// Files that use features outside the extension, with the reason.
const EXCLUDED: &[(&str, &str)] = &[(
    "extensions/subgroup_matrix/runtime_array_workgroup.wgsl",
    "uses `buffer<N>` and `bufferView`, Dawn's separate buffer-view extension",
)];

/// Elements per runtime-sized array.
const RUNTIME_LEN: u32 = 2048;
/// Seed of the random buffer contents.
const SEED: u64 = 0xDA3E;
/// Time limit of each run and comparison.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "wgsl") {
            out.push(p);
        }
    }
}

/// The source as the suite runs it (see the module doc).
fn adjusted(rel: &str, source: &str) -> String {
    let mut s = source.to_string();
    if rel.starts_with("builtins/gen/") {
        s = s.replace("@workgroup_size(1)", "@workgroup_size(32)");
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.starts_with("workgroup_") {
        s = s.replace(", 1024>;", ", 256>;");
    }
    s
}

/// Whether a diagnostic is one of the documented "not on this target" answers.
fn integer_only(message: &str) -> bool {
    message.contains("integer subgroup matrices")
}

/// Whether `message` is the portable WGSL form's documented limit (tiles over `vec3`
/// padding), which lavapipe-out reports as not applicable.
fn portable_limit(message: &str) -> bool {
    message.contains("portable WGSL cannot read or write the padding")
}

#[test]
fn dawn_subgroup_matrix_tests_pass_every_stage() {
    dianran::verify::lavapipe::quiet_mesa_warnings();
    let ptxas = dianran::verify::tools::require("ptxas", dianran::verify::tools::ptxas()).is_some();
    let lavapipe = dianran::verify::tools::require_that(
        dianran::verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    // The MSL's syntax is checked against the Metal stub with clang (docs/msl.md).
    let clang = dianran::verify::tools::require("clang++", dianran::verify::tools::clang())
        .and_then(|c| dianran::verify::msl_check::stub_dir().ok().map(|d| (c, d)));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dawn");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    paths.sort();
    assert!(paths.len() >= 390, "expected Dawn's 394 subgroup-matrix tests in {}", root.display());
    let mut failures = Vec::new();
    let (mut run, mut excluded) = (0, 0);
    for p in &paths {
        let rel = p.strip_prefix(&root).unwrap_or(p).to_string_lossy().replace('\\', "/");
        if EXCLUDED.iter().any(|(f, _)| *f == rel) {
            excluded += 1;
            continue;
        }
        run += 1;
        let source = adjusted(&rel, &std::fs::read_to_string(p).expect("readable test"));
        let mut fail =
            |stage: &str, what: String| failures.push(format!("{rel} [{stage}]: {what}"));
        let m = match dianran::frontend::compile(&rel, &source, &Default::default()) {
            Ok(m) => m,
            Err(d) => {
                fail("frontend", d.render());
                continue;
            }
        };
        for sm in [80, 90] {
            let opts = dianran::ptx::codegen::Options { sm, ..Default::default() };
            let ptx = dianran::ptx::codegen::compile_module(&m, &opts);
            for d in &ptx.diagnostics {
                fail("ptx", d.message.clone());
            }
            if ptxas && !ptx.entries.is_empty() {
                if let Err(e) = dianran::verify::ptxas::check(&ptx.text, sm) {
                    fail("ptxas", format!("sm_{sm}: {e}"));
                }
            }
        }
        #[cfg(feature = "llvm")]
        {
            let c = dianran::llvm::compile_module(&m, &Default::default());
            for d in c.diagnostics.iter().filter(|d| !integer_only(&d.message)) {
                fail("llvm", d.message.clone());
            }
        }
        let msl = dianran::msl::write_module(&m);
        for d in msl.errors.iter().filter(|d| !integer_only(&d.message)) {
            fail("msl", d.message.clone());
        }
        if let (true, Some((c, dir))) = (msl.errors.is_empty(), &clang) {
            let name = format!("dawn-{}-{}", rel.replace(['/', '.'], "_"), std::process::id());
            if let Err(e) = dianran::verify::msl_check::syntax_check(c, dir, &msl.text, &name) {
                fail("msl-clang", e);
            }
        }
        if let Err(e) = wgsl_round_trip(&rel, &m) {
            fail("wgsl", e);
        }
        let entries: Vec<String> = m
            .entry_points
            .iter()
            .filter(|e| e.stage == Stage::Compute)
            .map(|e| e.name.clone())
            .collect();
        for entry in &entries {
            check_entry(&rel, &source, &m, entry, lavapipe, &mut fail);
        }
    }
    println!("{run} Dawn tests run, {excluded} excluded");
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}

/// The WGSL printer on `m`: Dawn's syntax compiles again and printing the printed text again
/// gives the same text, and the portable form is WGSL naga validates.
fn wgsl_round_trip(rel: &str, m: &ir::Module) -> Result<(), String> {
    let print = |m: &ir::Module| {
        dianran::wgsl::write_module(m, &Default::default())
            .map_err(|ds| ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "))
    };
    let again = |text: &str| {
        dianran::frontend::compile(rel, text, &Default::default())
            .map_err(|d| format!("the printed WGSL does not compile: {}\n{text}", d.render()))
    };
    let first = print(m)?;
    let second = print(&again(&first)?)?;
    if first != second {
        return Err(format!("printing the printed WGSL changes it:\n{first}\n---\n{second}"));
    }
    let opts = dianran::wgsl::Options { portable_matrices: true, ..Default::default() };
    let portable = dianran::wgsl::write_module(m, &opts)
        .map_err(|ds| ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>().join("; "));
    let portable = match (dianran::wgsl::portable_blocker(m), portable) {
        // The documented limit: the printer refuses what `portable_blocker` names.
        (Some(_), Err(_)) => return Ok(()),
        (Some(why), Ok(_)) => return Err(format!("portable WGSL printed a module with {why}")),
        (None, portable) => portable?,
    };
    // No extension left: the frontend hands the text to naga as it is.
    dianran::frontend::compile(rel, &portable, &Default::default())
        .map_err(|d| format!("portable WGSL: {}\n{portable}", d.render()))?;
    Ok(())
}

/// Executor agreement for one entry, on random buffers.
fn check_entry(
    rel: &str,
    source: &str,
    m: &ir::Module,
    entry: &str,
    lavapipe: bool,
    fail: &mut impl FnMut(&str, String),
) {
    let input = match random_buffers(m, entry, RUNTIME_LEN, SEED) {
        Ok(b) => b,
        Err(d) => return fail("interp", d.message),
    };
    let job = Job::new(rel, source, m, entry, [1, 1, 1]);
    let mut executors = vec![Executor::Emu];
    if cfg!(feature = "llvm") {
        executors.push(Executor::LlvmEmu);
    }
    if lavapipe {
        executors.push(Executor::LavapipeOut);
    }
    let opts = engine::Options::new(executors, TIMEOUT);
    for v in engine::check(&job, &input, &opts).verdicts {
        let (name, detail) = (v.executor.name(), &v.detail);
        match v.kind {
            Kind::Agree | Kind::Note => {}
            Kind::NotApplicable if integer_only(detail) || portable_limit(detail) => {}
            _ => fail(name, format!("{}: {detail}", v.kind.label())),
        }
    }
}

/// One kernel of [`int8_tensor_core_forms_pass_every_stage`]: the i8/u8 16x16x32 shape of
/// `mma.m16n8k32` in every load form (words, `ldmatrix`, bytes, bounds-checked bytes). The
/// accumulator is read from `c0`, not from `c`, so the kernel does not depend on the subgroup
/// size: lavapipe's subgroups are narrower than 32, and each one stores the same product.
fn int8_kernel(elem: &str, a_row: bool, b_row: bool, pad: u32, space: &str, ops: bool) -> String {
    let (scalar, result) = if elem == "i8" { ("i32", "i32") } else { ("u32", "u32") };
    let major = |row: bool| if row { "row_major" } else { "col_major" };
    // Words per stored row or column: A is 16 x 32 bytes, B 32 x 16.
    let sa = if a_row { 8 } else { 4 } + pad;
    let sb = if b_row { 4 } else { 8 } + pad;
    let (decl, src_a, src_b, stage) = match space {
        "runtime" => ("array<u32>", "a", "b", String::new()),
        "workgroup" => (
            "array<u32, 320>",
            "wa",
            "wb",
            "  for (var i = li; i < 320u; i += 32u) { wa[i] = a[i]; wb[i] = b[i]; }\n  \
             workgroupBarrier();\n"
                .to_string(),
        ),
        _ => ("array<u32, 320>", "a", "b", String::new()),
    };
    let wg = if space == "workgroup" {
        "var<workgroup> wa: array<u32, 320>;\nvar<workgroup> wb: array<u32, 320>;\n"
    } else {
        ""
    };
    let scaled = if ops {
        format!(
            "subgroupMatrixScalarMultiply(subgroupMatrixScalarAdd(l0, 3{s}), 5{s})",
            s = &scalar[..1]
        )
    } else {
        "l0".to_string()
    };
    format!(
        "enable chromium_experimental_subgroup_matrix;\n\
         @group(0) @binding(0) var<storage, read> a: {decl};\n\
         @group(0) @binding(1) var<storage, read> b: {decl};\n\
         @group(0) @binding(2) var<storage, read_write> c: array<{result}, 256>;\n\
         @group(0) @binding(3) var<storage, read_write> d8: array<u32, 64>;\n\
         @group(0) @binding(4) var<storage, read> c0: array<{result}, 256>;\n\
         {wg}\
         @compute @workgroup_size(32)\n\
         fn main(@builtin(local_invocation_index) li: u32) {{\n\
         {stage}\
           let l0 = subgroupMatrixLoad<subgroup_matrix_left<{elem}, 32, 16>, {ma}>(&{src_a}, 4, {sa});\n\
           let r = subgroupMatrixLoad<subgroup_matrix_right<{elem}, 16, 32>, {mb}>(&{src_b}, 8, {sb});\n\
           let l = {scaled};\n\
           let acc = subgroupMatrixLoad<subgroup_matrix_result<{result}, 16, 16>, row_major>(&c0, 0, 16);\n\
           subgroupMatrixStore<col_major>(&c, 0, subgroupMatrixMultiplyAccumulate(l, r, acc), 16);\n\
           let p8 = subgroupMatrixMultiply<{elem}>(l, r);\n\
           subgroupMatrixStore<row_major>(&d8, 0, p8, 4);\n\
         }}\n",
        ma = major(a_row),
        mb = major(b_row),
    )
}

#[test]
fn int8_tensor_core_forms_pass_every_stage() {
    dianran::verify::lavapipe::quiet_mesa_warnings();
    let ptxas = dianran::verify::tools::require("ptxas", dianran::verify::tools::ptxas()).is_some();
    let lavapipe = dianran::verify::tools::require_that(
        dianran::verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    let mut failures = Vec::new();
    let mut n = 0;
    for elem in ["i8", "u8"] {
        for (a_row, b_row) in [(true, false), (false, true)] {
            for pad in [0, 1] {
                for space in ["storage", "runtime", "workgroup"] {
                    n += 1;
                    let ops = n % 2 == 0;
                    let name = format!("{elem} a_row={a_row} b_row={b_row} pad={pad} {space}");
                    let source = int8_kernel(elem, a_row, b_row, pad, space, ops);
                    let mut fail = |stage: &str, what: String| {
                        failures.push(format!("{name} [{stage}]: {what}"))
                    };
                    let m =
                        match dianran::frontend::compile("int8.wgsl", &source, &Default::default())
                        {
                            Ok(m) => m,
                            Err(d) => {
                                fail("frontend", format!("{}\n{source}", d.render()));
                                continue;
                            }
                        };
                    for sm in [80, 90] {
                        let opts = dianran::ptx::codegen::Options { sm, ..Default::default() };
                        let ptx = dianran::ptx::codegen::compile_module(&m, &opts);
                        for d in &ptx.diagnostics {
                            fail("ptx", d.message.clone());
                        }
                        if !ptx.text.contains("mma.sync.aligned.m16n8k32.row.col.s32") {
                            fail("ptx", format!("sm_{sm}: no m16n8k32 integer mma"));
                        }
                        if ptxas {
                            if let Err(e) = dianran::verify::ptxas::check(&ptx.text, sm) {
                                fail("ptxas", format!("sm_{sm}: {e}"));
                            }
                        }
                    }
                    if let Err(e) = wgsl_round_trip("int8.wgsl", &m) {
                        fail("wgsl", e);
                    }
                    check_entry(&name, &source, &m, "main", lavapipe, &mut fail);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
