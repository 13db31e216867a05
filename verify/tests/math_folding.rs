//! Constant math folds at compile time to the device's result (issue 30, `docs/math.md`,
//! "Constant arguments"): for every function of the precise library, a kernel whose
//! arguments are constants stores constants (no arithmetic left in its PTX), and each
//! constant is bit for bit what the same PTX computes on the emulator when the arguments
//! come from a buffer at run time.

mod common;

use common::*;
use dianran_frontend::ir::MathFunction as M;

/// The functions (all of `dianran_ptx::math::FUNCTIONS`), their WGSL names and arguments
/// (exact in f32, inside each domain).
fn cases() -> Vec<(M, &'static str, Vec<Vec<f32>>)> {
    let one = |xs: &[f32]| xs.iter().map(|&x| vec![x]).collect::<Vec<_>>();
    let two = |xs: &[(f32, f32)]| xs.iter().map(|&(a, b)| vec![a, b]).collect::<Vec<_>>();
    let trig = one(&[0.5, 2.0, -3.75, 100.25, 0.0009765625]);
    let expo = one(&[0.375, -2.5, 10.0, 0.0009765625, 60.5]);
    let logs = one(&[0.5, 3.0, 12345.0, 1.75, 0.0009765625]);
    let hyper = one(&[1.0, -0.375, 5.0, 0.0009765625, 20.5]);
    let unit = one(&[0.5, -0.90625, 0.0009765625, 0.99609375]);
    vec![
        (M::Sin, "sin", trig.clone()),
        (M::Cos, "cos", trig.clone()),
        (M::Tan, "tan", trig),
        (M::Exp, "exp", expo.clone()),
        (M::Exp2, "exp2", expo),
        (M::Log, "log", logs.clone()),
        (M::Log2, "log2", logs),
        (M::Pow, "pow", two(&[(1.75, 2.25), (0.5, -3.5), (2.0, 10.0), (9.0, 0.5), (3.0, 2.0)])),
        (M::Sinh, "sinh", hyper.clone()),
        (M::Cosh, "cosh", hyper.clone()),
        (M::Tanh, "tanh", hyper),
        (M::Asin, "asin", unit.clone()),
        (M::Acos, "acos", unit.clone()),
        (M::Atan, "atan", one(&[0.5, -20.0, 0.0009765625, 1.0])),
        (M::Atan2, "atan2", two(&[(1.0, 2.0), (-3.0, -0.5), (0.25, -4.0), (0.0, -1.0)])),
        (M::Asinh, "asinh", one(&[0.5, -20.0, 0.0009765625])),
        (M::Acosh, "acosh", one(&[1.5, 20.0, 1.000_976_6])),
        (M::Atanh, "atanh", unit),
        (M::InverseSqrt, "inverseSqrt", one(&[2.0, 0.0078125, 1.0e10, 3.0])),
    ]
}

/// Compiles `src` (bounds checks off: the kernels index with constants) for sm_80 and runs
/// its one entry on the emulator with `inp` and an `n`-float output: the PTX and the output.
fn run(src: &str, inp: &[f32], n: usize) -> (String, Vec<f32>) {
    let off = dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    };
    let m =
        dianran_frontend::compile("fold.wgsl", src, &off).unwrap_or_else(|d| panic!("{d}\n{src}"));
    let out = dianran_ptx::codegen::compile_module(&m, &Default::default());
    let [info] = out.entries.as_slice() else { panic!("{:?}\n{src}", out.diagnostics) };
    let mut params = vec![f32_bytes(inp), zeros(4 * n)];
    let opts = dianran_verify::emu::EmuOptions::default();
    if let Err(e) = dianran_verify::emu::run(
        &out.text,
        &info.ptx_name,
        &mut params,
        [1, 1, 1],
        [1, 1, 1],
        &opts,
    ) {
        panic!("emulator: {e}\n{}", out.text);
    }
    (out.text, f32s(&params[1]).to_vec())
}

#[test]
fn constant_math_folds_to_the_device_result() {
    let header = "@group(0) @binding(0) var<storage, read> inp: array<f32>;\n\
                  @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
                  @compute @workgroup_size(1)\nfn main() {\n";
    let mut folded = 0;
    for (fun, name, args) in cases() {
        let (mut constant, mut runtime, mut inp) = (String::new(), String::new(), Vec::new());
        for (i, a) in args.iter().enumerate() {
            // Constants through variables: naga leaves the call, dianran folds it.
            let vars: Vec<String> = (0..a.len()).map(|j| format!("a{i}_{j}")).collect();
            for (v, x) in vars.iter().zip(a) {
                constant += &format!("    var {v}: f32 = {x:?};\n");
            }
            constant += &format!("    out[{i}] = {name}({});\n", vars.join(", "));
            let from: Vec<String> =
                (0..a.len()).map(|j| format!("inp[{}]", inp.len() + j)).collect();
            runtime += &format!("    out[{i}] = {name}({});\n", from.join(", "));
            inp.extend(a);
        }
        let (ptx, got) = run(&format!("{header}{constant}}}\n"), &inp, args.len());
        let (_, want) = run(&format!("{header}{runtime}}}\n"), &inp, args.len());
        assert!(
            !ptx.contains("setp.") && !ptx.contains("fma.") && !ptx.contains("ex2."),
            "{fun:?}: arithmetic left in the constant kernel:\n{ptx}"
        );
        for (i, a) in args.iter().enumerate() {
            assert_eq!(
                got[i].to_bits(),
                want[i].to_bits(),
                "{name}{a:?}: folded {:e}, the device computes {:e}",
                got[i],
                want[i]
            );
            folded += 1;
        }
    }
    assert!(folded >= 70, "{folded} cases");
}

/// The shape of Dawn's generated builtin tests (`var arg_0 = vec4<f32>(1.f); var res =
/// tanh(arg_0);`): every component folds, to the values the device computes from a buffer.
#[test]
fn dawn_style_vector_calls_fold() {
    let header = "@group(0) @binding(0) var<storage, read> inp: array<f32>;\n\
                  @group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;\n";
    let constant = format!(
        "{header}fn tanh_5663c5() -> vec4<f32> {{\n  var arg_0 = vec4<f32>(1.0f);\n  \
         var res: vec4<f32> = tanh(arg_0);\n  return res;\n}}\n\
         fn log_3da25a() -> vec4<f32> {{\n  var arg_0 = vec4<f32>(1.5f);\n  \
         var res: vec4<f32> = log(arg_0);\n  return res;\n}}\n\
         @compute @workgroup_size(1)\nfn main() {{\n  out[0] = tanh_5663c5();\n  \
         out[1] = log_3da25a();\n}}\n"
    );
    let runtime = format!(
        "{header}@compute @workgroup_size(1)\nfn main() {{\n  out[0] = tanh(vec4(inp[0]));\n  \
         out[1] = log(vec4(inp[1]));\n}}\n"
    );
    let (ptx, got) = run(&constant, &[1.0, 1.5], 8);
    let (_, want) = run(&runtime, &[1.0, 1.5], 8);
    assert!(!ptx.contains("setp."), "arithmetic left:\n{ptx}");
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want));
}

/// The packing builtins fold in the frontend (`dianran_frontend::packing`, WGSL's formulas):
/// a kernel packing or unpacking constants stores constants, equal bit for bit to what the
/// PTX computes on the emulator from the same values in a buffer.
#[test]
fn packing_builtins_fold_to_the_device_result() {
    let header = "@group(0) @binding(0) var<storage, read> inp: array<f32>;\n\
                  @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
                  @compute @workgroup_size(1)\nfn main() {\n";
    let f4 = [0.3f32, -0.7, 1.5, 0.5];
    let f2 = [0.123f32, -65519.0];
    let i4 = [300u32, (-300i32) as u32, 5, 0x7F];
    let word = 0x80FF_7F01u32;
    // (call, type of its argument, the argument's words, words of the result)
    let cases: Vec<(&str, &str, Vec<u32>, usize)> = vec![
        ("pack4x8snorm", "vec4<f32>", f4.iter().map(|x| x.to_bits()).collect(), 1),
        ("pack4x8unorm", "vec4<f32>", f4.iter().map(|x| x.to_bits()).collect(), 1),
        ("pack2x16snorm", "vec2<f32>", f2.iter().map(|x| x.to_bits()).collect(), 1),
        ("pack2x16unorm", "vec2<f32>", f2.iter().map(|x| x.to_bits()).collect(), 1),
        ("pack2x16float", "vec2<f32>", f2.iter().map(|x| x.to_bits()).collect(), 1),
        ("pack4xI8", "vec4<i32>", i4.to_vec(), 1),
        ("pack4xU8", "vec4<u32>", i4.to_vec(), 1),
        ("pack4xI8Clamp", "vec4<i32>", i4.to_vec(), 1),
        ("pack4xU8Clamp", "vec4<u32>", i4.to_vec(), 1),
        ("unpack4x8snorm", "u32", vec![word], 4),
        ("unpack4x8unorm", "u32", vec![word], 4),
        ("unpack2x16snorm", "u32", vec![word], 2),
        ("unpack2x16unorm", "u32", vec![word], 2),
        ("unpack2x16float", "u32", vec![0x3C00_C400], 2),
        ("unpack4xI8", "u32", vec![word], 4),
        ("unpack4xU8", "u32", vec![word], 4),
    ];
    for (name, ty, words, n) in cases {
        let scalar = ty.trim_end_matches('>').rsplit('<').next().unwrap_or(ty);
        let lanes = words.len();
        let lit = |w: u32| match scalar {
            "f32" => format!("{:?}", f32::from_bits(w)),
            "i32" => format!("{}i", w as i32),
            _ => format!("{w}u"),
        };
        let from = |k: usize| format!("bitcast<{scalar}>(inp[{k}])");
        let (cons, run_arg) = if lanes == 1 {
            (lit(words[0]), from(0))
        } else {
            let c: Vec<String> = words.iter().map(|&w| lit(w)).collect();
            let r: Vec<String> = (0..lanes).map(from).collect();
            (format!("{ty}({})", c.join(", ")), format!("{ty}({})", r.join(", ")))
        };
        let store = |arg: &str| {
            if n == 1 {
                format!("    out[0] = bitcast<f32>({name}({arg}));\n")
            } else {
                let mut s = format!("    let r = {name}({arg});\n");
                for k in 0..n {
                    s += &format!("    out[{k}] = bitcast<f32>(r[{k}]);\n");
                }
                s
            }
        };
        let constant = format!("{header}    var a: {ty} = {cons};\n{}}}\n", store("a"));
        let runtime = format!("{header}{}}}\n", store(&run_arg));
        let inp: Vec<f32> = words.iter().map(|&w| f32::from_bits(w)).collect();
        let (ptx, got) = run(&constant, &inp, n);
        let (_, want) = run(&runtime, &inp, n);
        assert!(
            !ptx.contains("cvt.") && !ptx.contains("bfe.") && !ptx.contains("max."),
            "{name}: arithmetic left in the constant kernel:\n{ptx}"
        );
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "{name}({cons})");
    }
}

/// `ldexp`, `frexp` and `modf` of constants fold in the PTX backend with the library's own
/// sequence on the CPU (`math::Native`): the stored constants equal what the same PTX
/// computes on the emulator from a buffer (a subnormal `ldexp` result and a negative `modf`
/// among them).
#[test]
fn ldexp_frexp_modf_fold_to_the_device_result() {
    let header = "@group(0) @binding(0) var<storage, read> inp: array<f32>;\n\
                  @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
                  @compute @workgroup_size(1)\nfn main() {\n";
    let cases: [(f32, i32); 4] = [(3.5, 4), (-0.7, -140), (1.0e30, 90), (-2.75, 0)];
    let body = |x: &str, n: &str, k: usize| {
        format!(
            "    out[{}] = ldexp({x}, {n});\n    let f{k} = frexp({x});\n    out[{}] = f{k}.fract;\n    \
             out[{}] = bitcast<f32>(f{k}.exp);\n    let m{k} = modf({x});\n    \
             out[{}] = m{k}.fract;\n    out[{}] = m{k}.whole;\n",
            5 * k,
            5 * k + 1,
            5 * k + 2,
            5 * k + 3,
            5 * k + 4
        )
    };
    let (mut constant, mut runtime, mut inp) = (String::new(), String::new(), Vec::new());
    for (k, (x, n)) in cases.iter().enumerate() {
        constant += &format!("    var x{k}: f32 = {x:?};\n    var n{k}: i32 = {n}i;\n");
        constant += &body(&format!("x{k}"), &format!("n{k}"), k);
        let (ix, inn) = (inp.len(), inp.len() + 1);
        runtime += &body(&format!("inp[{ix}]"), &format!("bitcast<i32>(inp[{inn}])"), k);
        inp.push(*x);
        inp.push(f32::from_bits(*n as u32));
    }
    let n = 5 * cases.len();
    let (ptx, got) = run(&format!("{header}{constant}}}\n"), &inp, n);
    let (_, want) = run(&format!("{header}{runtime}}}\n"), &inp, n);
    assert!(
        !ptx.contains("setp.") && !ptx.contains("cvt.") && !ptx.contains("mul."),
        "arithmetic left in the constant kernel:\n{ptx}"
    );
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want));
}
