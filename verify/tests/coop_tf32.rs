//! `--tf32`: f32 x f32 16x16 cooperative products on TF32 tensor cores
//! (`mma.m16n8k8...tf32`). Without the option the product is a diagnostic that names the
//! option; with it the PTX assembles for sm_80 and sm_90 and, on the PTX emulator, agrees
//! with the reference interpreter (exact f32 products) within the TF32 bound
//! `2^-9 * sum_k |a_ik * b_kj|` per element (each input rounded to a 10-bit mantissa).

mod common;

use common::*;
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::interp::{self, InterpOptions};
use dianran_verify::{ptxas, tools};

/// C(32x32) += A(32x32) * B(32x32), all f32 and row-major; one 16x16 tile per workgroup.
const SRC: &str = "enable wgpu_cooperative_matrix;

const N: u32 = 32u;
const K: u32 = 32u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.y * 16u;
    let col = wid.x * 16u;
    var acc = coopLoadT<coop_mat16x16<f32, C>>(&c[row * N + col], N);
    for (var k = 0u; k < K; k += 16u) {
        let am = coopLoadT<coop_mat16x16<f32, A>>(&a[row * K + k], K);
        let bm = coopLoad<coop_mat16x16<f32, B>>(&b[col * K + k], K);
        acc = coopMultiplyAdd(am, bm, acc);
    }
    coopStoreT(acc, &c[row * N + col], N);
}
";

fn module() -> dianran_frontend::ir::Module {
    match dianran_frontend::compile("coop_tf32.wgsl", SRC, &unchecked()) {
        Ok(m) => m,
        Err(d) => panic!("frontend failed:\n{d}"),
    }
}

fn compile(tf32: bool, sm: u32) -> dianran_ptx::codegen::CompiledPtx {
    dianran_ptx::codegen::compile_module(
        &module(),
        &dianran_ptx::codegen::Options { sm, tf32, ..Default::default() },
    )
}

#[test]
fn without_tf32_is_a_diagnostic_naming_the_option() {
    let out = compile(false, 80);
    assert!(out.entries.is_empty());
    let [d] = out.diagnostics.as_slice() else { panic!("{:?}", out.diagnostics) };
    assert_eq!(d.kind, dianran_frontend::DiagKind::Unsupported);
    assert!(d.message.contains("f32 x f32"), "{}", d.message);
    let help = d.help.as_deref().unwrap_or("");
    assert!(help.contains("pass --tf32 to use TF32 tensor cores"), "{help}");
}

#[test]
fn with_tf32_uses_m16n8k8_and_assembles() {
    for sm in [80, 90] {
        let out = compile(true, sm);
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        assert!(out.entries.iter().all(|e| e.tf32()));
        // 2 k-steps x 2 n-tiles per product, and the K loop's two trips unrolled.
        assert_eq!(
            out.text.matches("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32").count(),
            8
        );
        assert!(out.text.contains("cvt.rna.tf32.f32"));
        // The toolkit's own PTX model reads it back and finds it well formed.
        match dianran_ptx::parse_module(&out.text) {
            Ok(parsed) => {
                if let Err(e) = parsed.validate() {
                    panic!("the PTX model rejects the output: {e:?}");
                }
            }
            Err(e) => panic!("the PTX parser rejects the output: {e:?}"),
        }
        let Some(_) = tools::require("ptxas", tools::ptxas()) else { return };
        if let Err(e) = ptxas::check(&out.text, sm) {
            panic!("ptxas sm_{sm}: {e}\n{}", out.text);
        }
    }
}

#[test]
fn tf32_on_the_emulator_matches_the_interpreter_within_the_tf32_bound() {
    // All-distinct values in about [-1, 1], not exact in TF32.
    let a: Vec<f32> = (0..1024).map(|i| ((i * 37 % 1024) as f32 - 511.3) / 517.0).collect();
    let b: Vec<f32> = (0..1024).map(|i| ((i * 91 % 1024) as f32 - 500.7) / 523.0).collect();
    let c: Vec<f32> = (0..1024).map(|i| (i as f32 - 512.0) / 1000.0).collect();
    let mut want = group0(vec![(0, f32_bytes(&a)), (1, f32_bytes(&b)), (2, f32_bytes(&c))]);
    let m = module();
    if let Err(d) = interp::run(&m, "main", [2, 2, 1], &mut want, &InterpOptions::default()) {
        panic!("interpreter: {d:?}");
    }
    let ptx = compile(true, 80);
    let [info] = ptx.entries.as_slice() else { panic!("{:?}", ptx.diagnostics) };
    assert_eq!(info.params, ["p_g0_b0", "p_g0_b1", "p_g0_b2"]);
    let mut params = vec![f32_bytes(&a), f32_bytes(&b), f32_bytes(&c)];
    let block = info.workgroup_size;
    if let Err(e) =
        emu::run(&ptx.text, &info.ptx_name, &mut params, [2, 2, 1], block, &EmuOptions::default())
    {
        panic!("emulator: {e}");
    }
    let (got, exp) = (&params[2], out(&want, 2));
    let mut tf32_differs = false;
    for r in 0..32 {
        for col in 0..32 {
            // B is read column-major (`coopLoad`): element (k, col) at col * 32 + k.
            let terms: f32 = (0..32).map(|k| (a[r * 32 + k] * b[col * 32 + k]).abs()).sum();
            let (x, y) = (get_f32(got, 4 * (r * 32 + col)), get_f32(exp, 4 * (r * 32 + col)));
            let bound = terms / 512.0 + 1e-6;
            assert!((x - y).abs() <= bound, "C[{r}][{col}]: emu {x}, interp {y}, bound {bound}");
            tf32_differs |= x != y;
        }
    }
    // The inputs are not TF32-exact, so the TF32 result is not the exact-f32 one.
    assert!(tf32_differs);
}

/// Frontend options without the bounds policy: the hand-laid parameter lists hold the buffers only (no `p_sizes`); the bounds policy has its own tests.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
