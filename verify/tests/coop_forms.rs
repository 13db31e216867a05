//! Cooperative matrices in every orientation and form, checked against plain Rust arithmetic:
//! `D = A * B + C` on one workgroup of 32 invocations, run by the reference interpreter and
//! by the PTX emulator and, where a CUDA device is present, by the CUDA driver (each compared
//! with the reference separately), and the PTX assembled with `ptxas` for sm_80 when it is
//! installed.
//!
//! naga's semantics: `coopLoad`/`coopStore` are column-major (element (r, c) at
//! `p[c * stride + r]`), `coopLoadT`/`coopStoreT` row-major (`p[r * stride + c]`). Inputs are
//! random and not symmetric, so a transposed operand or swapped product gives other values.
//! Buffer elements outside a matrix hold junk of magnitude 2..3 (reading them shows), and
//! outputs start as a sentinel that every element outside D must keep (writing there shows).
//!
//! The cases come from [`cases`]: for each shape and element types, all four A/B orientation
//! pairs, loaded from storage buffers or copied first into `var<workgroup>` arrays and loaded
//! from there with a stride and offsets that are a multiple of 16 bytes (known to the compiler
//! or only at run time, from a uniform) or not; D is stored with both `coopStore` and
//! `coopStoreT`.

use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::executors::{self, ptx_params, ExecError, Executor, Job};
use dianran_verify::interp::{self, Buffers, InterpOptions};
use dianran_verify::{ptxas, tools};

mod coop_cases;

use coop_cases::{cases, check, data, Case};

/// Runs one case everywhere; returns its failures.
fn run_case(case: &Case, seed: u32, ptxas_found: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let name = case.name();
    let src = case.wgsl();
    let module = match dianran_frontend::compile("coop_forms.wgsl", &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => return vec![format!("{name}: frontend failed:\n{d}\n{src}")],
    };
    let data = data(case, seed);

    let mut interp_out = data.input.clone();
    match interp::run(&module, "main", [1, 1, 1], &mut interp_out, &InterpOptions::default()) {
        Ok(()) => check(case, "interp", &data, &interp_out, &mut failures),
        Err(d) => failures.push(format!("{name} on interp: {d:?}")),
    }

    let opts = dianran_ptx::codegen::Options { tf32: case.tf32, ..Default::default() };
    let ptx = dianran_ptx::codegen::compile_module(&module, &opts);
    let Some(info) = ptx.entries.iter().find(|e| e.name == "main") else {
        failures.push(format!("{name}: no PTX: {:?}", ptx.diagnostics));
        return failures;
    };
    match ptx_params(info, &data.input) {
        Ok(mut params) => {
            let opts = EmuOptions::default();
            let block = info.workgroup_size;
            match emu::run(&ptx.text, &info.ptx_name, &mut params.buffers, [1, 1, 1], block, &opts)
            {
                Ok(()) => {
                    let out: Buffers = params
                        .bindings
                        .into_iter()
                        .zip(params.buffers)
                        .filter_map(|(k, b)| Some((k?, b)))
                        .collect();
                    check(case, "emu", &data, &out, &mut failures);
                }
                Err(e) => failures.push(format!("{name} on emu: {e}")),
            }
        }
        Err(e) => failures.push(format!("{name}: parameters: {e}")),
    }
    // The CUDA driver, where a device is present (elsewhere the executor says skipped).
    let job = Job {
        tf32: case.tf32,
        ptx: Some(&ptx.text),
        ..Job::new("coop_forms.wgsl", &src, &module, "main", [1, 1, 1])
    };
    match executors::run(Executor::Cuda, &job, &data.input) {
        Ok(out) => check(case, "cuda", &data, &out, &mut failures),
        Err(ExecError::Skipped(_)) => {}
        Err(e) => failures.push(format!("{name} on cuda: {e}")),
    }
    if ptxas_found {
        if let Err(e) = ptxas::check(&ptx.text, 80) {
            failures.push(format!("{name}: ptxas sm_80 rejects the PTX: {e}"));
        }
    }
    failures
}

/// Runs every case of `group` and fails with the full list of differences.
fn run_group(group: char) {
    let ptxas_found = tools::require("ptxas", tools::ptxas()).is_some();
    let list = cases(group);
    assert!(!list.is_empty());
    let mut failures = Vec::new();
    for (i, case) in list.iter().enumerate() {
        failures.extend(run_case(case, 0x5eed_0000 + i as u32 * 7919, ptxas_found));
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_16x16_f16_f32_acc_from_storage() {
    run_group('a');
}

#[test]
fn b_16x16_f16_f32_acc_from_workgroup_memory() {
    run_group('b');
}

#[test]
fn c_16x16_f16_f16_acc() {
    run_group('c');
}

#[test]
fn d_8x8_f16_f32_and_f16_acc() {
    run_group('d');
}

#[test]
fn e_8x8_f32_exact() {
    run_group('e');
}

#[test]
fn f_f32_on_tf32_tensor_cores() {
    run_group('f');
}

/// The checks tell orientations apart: the kernel that reads B row-major, run on the buffers
/// of the case that stores B column-major (the same matrices), fails them almost everywhere.
#[test]
fn a_transposed_operand_fails_the_checks() {
    let case = cases('a')[0];
    let swapped = Case { b_row: !case.b_row, ..case };
    let module =
        match dianran_frontend::compile("swapped.wgsl", &swapped.wgsl(), &Default::default()) {
            Ok(m) => m,
            Err(d) => panic!("frontend failed:\n{d}"),
        };
    let data = data(&case, 1);
    let mut out = data.input.clone();
    if let Err(d) = interp::run(&module, "main", [1, 1, 1], &mut out, &InterpOptions::default()) {
        panic!("interpreter: {d:?}");
    }
    let mut failures = Vec::new();
    check(&case, "interp", &data, &out, &mut failures);
    // Three listed elements and a count, for each of the two outputs.
    assert_eq!(failures.len(), 8, "{failures:#?}");
    let count =
        |f: &String| f.strip_suffix(" elements differ")?.rsplit(' ').next()?.parse::<u32>().ok();
    for f in failures.iter().filter(|f| f.ends_with("elements differ")) {
        let bad = count(f).unwrap_or(0);
        assert!(bad > 200, "{f}");
    }
}
