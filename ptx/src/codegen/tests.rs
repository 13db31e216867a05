//! Code generation tests: hand-built IR kernels (golden-ish assertions), ASCII and determinism,
//! and ptxas acceptance of every compute sample in `tests/samples/` when ptxas is installed.

use super::*;
use dianran_frontend::ir::{
    BinaryOperator, Block, BuiltIn, ConstValue, EntryPoint, Function, Global, Inst, IoBinding,
    Module, Op, Param, ResourceBinding, Scalar, Span, Terminator, Type, ValueData, ValueId,
};
use std::path::{Path, PathBuf};

/// Builder for small hand-written IR functions.
struct Fb {
    f: Function,
    insts: Vec<Inst>,
}

impl Fb {
    fn new(name: &str) -> Self {
        let f = Function {
            name: name.into(),
            params: Vec::new(),
            result: None,
            values: Vec::new(),
            locals: Vec::new(),
            body: Block::default(),
            bounds: Default::default(),
            span: Span::default(),
        };
        Fb { f, insts: Vec::new() }
    }
    fn value(&mut self, ty: ir::TypeId) -> ValueId {
        self.f.values.push(ValueData { ty, name: None });
        ValueId(self.f.values.len() as u32 - 1)
    }
    fn op(&mut self, ty: ir::TypeId, op: Op) -> ValueId {
        let v = self.value(ty);
        self.insts.push(Inst { result: Some(v), op, span: Span::default() });
        v
    }
    fn eff(&mut self, op: Op) {
        self.insts.push(Inst { result: None, op, span: Span::default() });
    }
    fn finish(mut self) -> Function {
        self.f.body = Block { params: vec![], insts: self.insts, term: Terminator::Return(None) };
        self.f
    }
}

/// `@group(0) @binding(0) var<storage, read_write> 数据: array<u32>;`
/// `@compute @workgroup_size(4) fn 加倍(@builtin(global_invocation_id) 序: vec3<u32>)
///  { 数据[序.x] = 数据[序.x] * 2u; }`
fn doubling_module() -> Module {
    let mut m = Module::default();
    let u32_ = m.types.scalar(Scalar::U32);
    let v3 = m.types.intern(Type::Vector { size: 3, scalar: Scalar::U32 });
    let arr = m.types.intern(Type::Array { base: u32_, len: None, stride: 4 });
    let space = ir::AddressSpace::Storage { writable: true };
    let parr = m.types.intern(Type::Pointer { base: arr, space });
    let pu = m.types.intern(Type::Pointer { base: u32_, space });
    m.globals.push(Global {
        name: "数据".into(),
        space,
        ty: arr,
        binding: Some(ResourceBinding { group: 0, binding: 0 }),
        init: None,
        span: Span::default(),
    });
    let mut b = Fb::new("加倍");
    let gid = b.value(v3);
    b.f.params.push(Param {
        name: "序".into(),
        value: gid,
        binding: Some(IoBinding::BuiltIn(BuiltIn::GlobalInvocationId)),
    });
    let base = b.op(parr, Op::GlobalAddr(GlobalId(0)));
    let x = b.op(u32_, Op::Extract(gid, 0));
    let p = b.op(pu, Op::Access(base, x));
    let v = b.op(u32_, Op::Load(p));
    let two = b.op(u32_, Op::Const(ConstValue::U32(2)));
    let d = b.op(u32_, Op::Binary(BinaryOperator::Multiply, v, two));
    b.eff(Op::Store { ptr: p, value: d });
    m.functions.push(b.finish());
    m.entry_points.push(EntryPoint {
        name: "加倍".into(),
        stage: Stage::Compute,
        workgroup_size: [4, 1, 1],
        early_depth_test: false,
        function: ir::FuncId(0),
    });
    m
}

fn ptxas_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.tools/venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas")
}

/// Runs ptxas on `text` for `sm`; `None` when ptxas is missing.
pub(super) fn ptxas(text: &str, sm: u32, tag: &str) -> Option<Result<(), String>> {
    let exe = ptxas_path();
    if !exe.exists() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("dianran-codegen-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let src = dir.join(format!("{tag}_sm{sm}.ptx"));
    let out = dir.join(format!("{tag}_sm{sm}.cubin"));
    std::fs::write(&src, text).ok()?;
    let r = std::process::Command::new(exe)
        .arg(format!("-arch={}", crate::model::sm_name(sm)))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .ok()?;
    if r.status.success() {
        Some(Ok(()))
    } else {
        Some(Err(String::from_utf8_lossy(&r.stderr).into_owned()))
    }
}

pub(super) fn skip_or_fail(what: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{what} not found (required under CI=true)");
    }
    println!("skipped: {what} not found");
}

#[test]
fn doubling_kernel_unicode_names() {
    let m = doubling_module();
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert_eq!(out.entries.len(), 1);
    let e = &out.entries[0];
    assert_eq!(e.ptx_name, "yy_e5_8a_a0_e5_80_8d");
    assert_eq!(e.params, vec!["p_g0_b0".to_string()]);
    assert!(!e.uses_sizes());
    let t = &out.text;
    assert!(t.contains(".version 8.0\n.target sm_80\n.address_size 64\n"), "{t}");
    assert!(
        t.contains(
            ".visible .entry yy_e5_8a_a0_e5_80_8d(\n\t.param .u64 p_g0_b0\n)\n.reqntid 4, 1, 1\n"
        ),
        "{t}"
    );
    assert!(t.contains("ld.param.u64"), "{t}");
    assert!(t.contains("cvta.to.global.u64"), "{t}");
    assert!(t.contains("mul.lo.u32"), "{t}");
    assert!(t.contains("st.global.u32"), "{t}");
    assert!(t.is_ascii());
    // Deterministic.
    assert_eq!(compile_module(&m, &Options::default()).text, out.text);
    let t90 = compile_module(&m, &Options { sm: 90, ..Options::default() }).text;
    assert!(t90.contains(".target sm_90\n"));
    for (sm, text) in [(80, t.clone()), (90, t90)] {
        match ptxas(&text, sm, "doubling") {
            None => skip_or_fail("ptxas"),
            Some(r) => r.unwrap_or_else(|e| panic!("ptxas sm_{sm}: {e}\n{text}")),
        }
    }
}

#[test]
fn vertex_entries_become_comments() {
    let mut m = doubling_module();
    m.entry_points[0].stage = Stage::Vertex;
    let out = compile_module(&m, &Options::default());
    assert!(out.entries.is_empty());
    assert!(out.diagnostics.is_empty());
    assert!(out
        .text
        .contains("// vertex entry point 'yy_e5_8a_a0_e5_80_8d' is not a PTX entry point"));
}

#[test]
fn multisampled_textures_are_unsupported_per_entry() {
    let mut m = doubling_module();
    // A second entry that queries a multisampled texture: an error for it only.
    let img = m.types.intern(Type::Image {
        dim: ir::ImageDimension::D2,
        arrayed: false,
        class: ir::ImageClass::Depth { multi: true },
    });
    let v2 = m.types.intern(Type::Vector { size: 2, scalar: Scalar::U32 });
    m.globals.push(Global {
        name: "tex".into(),
        space: ir::AddressSpace::Handle,
        ty: img,
        binding: Some(ResourceBinding { group: 0, binding: 1 }),
        init: None,
        span: Span { start: 3, end: 6 },
    });
    let mut b = Fb::new("blur");
    let t = b.op(img, Op::GlobalAddr(GlobalId(1)));
    b.op(v2, Op::ImageQuery(t, ir::ImageQuery::NumSamples));
    m.functions.push(b.finish());
    m.entry_points.push(EntryPoint {
        name: "blur".into(),
        stage: Stage::Compute,
        workgroup_size: [1, 1, 1],
        early_depth_test: false,
        function: ir::FuncId(1),
    });
    let out = compile_module(&m, &Options::default());
    assert_eq!(out.entries.len(), 1);
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert_eq!(d.kind, DiagKind::Unsupported);
    assert!(d.message.contains("multisampled") && d.message.contains("blur"), "{}", d.message);
}

/// Samples with an entry PTX reports as unsupported, and the words of that diagnostic
/// (`docs/textures.md`, "What PTX reports as unsupported"); none today.
const PTX_CANNOT: &[(&str, &str)] = &[];

/// Every compute sample through the frontend, codegen and (when installed) ptxas.
#[test]
fn samples_compile_and_pass_ptxas() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/samples");
    let rd = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the samples directory {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    let have_ptxas = ptxas_path().exists();
    if !have_ptxas {
        skip_or_fail("ptxas");
    }
    let mut failures = Vec::new();
    let mut frontend_failures = 0;
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let Ok(src) = std::fs::read_to_string(&file) else { continue };
        let m = match dianran_frontend::compile(&name, &src, &Default::default()) {
            Ok(m) => m,
            Err(_) => {
                // The frontend reports its own errors in its own tests.
                frontend_failures += 1;
                continue;
            }
        };
        for sm in [80, 90] {
            let out = compile_module(&m, &Options { sm, ..Options::default() });
            assert!(out.text.is_ascii(), "{name}: non-ASCII output");
            // The toolkit's own model reads every emitted module back and finds it well formed
            // (the emulator depends on this parser).
            match crate::parse_module(&out.text) {
                Ok(parsed) => {
                    if let Err(e) = parsed.validate() {
                        failures.push(format!("{name}: the PTX model rejects the output: {e:?}"));
                    }
                }
                Err(e) => {
                    failures.push(format!("{name}: the PTX parser rejects the output: {e:?}"))
                }
            }
            assert_eq!(
                compile_module(&m, &Options { sm, ..Options::default() }).text,
                out.text,
                "{name}: not deterministic"
            );
            // Every compute sample compiles, cooperative matrices of both sizes included,
            // except what PTX documents it cannot express (`docs/textures.md`).
            for d in &out.diagnostics {
                let expected =
                    PTX_CANNOT.iter().any(|(n, what)| *n == name && d.message.contains(what));
                if !expected {
                    failures.push(format!("{name}: {}", d.message));
                }
            }
            if have_ptxas && !out.entries.is_empty() {
                if let Some(Err(e)) = ptxas(&out.text, sm, name.trim_end_matches(".wgsl")) {
                    failures.push(format!("{name} sm_{sm}: ptxas: {e}"));
                }
            }
        }
    }
    println!("frontend could not compile {frontend_failures} samples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes the PTX of one sample to /tmp (debugging aid; run with `--ignored`).
#[test]
#[ignore]
fn dump_sample() {
    let name = std::env::var("SAMPLE").unwrap_or_else(|_| "loop_continuing".into());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/samples/{name}.wgsl"));
    let src = std::fs::read_to_string(&path).expect("sample");
    let m = dianran_frontend::compile(&name, &src, &Default::default()).expect("frontend");
    let out = compile_module(&m, &Options::default());
    let _ = std::fs::create_dir_all("/tmp/cg");
    std::fs::write(format!("/tmp/cg/{name}.ptx"), &out.text).expect("write");
    println!("{:?}", out.diagnostics);
}

#[test]
fn parameter_names_round_trip() {
    assert_eq!(crate::abi::param_name(0, 3), "p_g0_b3");
    assert_eq!(crate::abi::param_binding("p_g0_b3"), Some((0, 3)));
    assert_eq!(crate::abi::param_binding("p_g0_b12"), Some((0, 12)));
    assert_eq!(crate::abi::param_binding("p_g3_b1"), Some((3, 1)));
    assert_eq!(crate::abi::param_binding("p_g12_b0"), Some((12, 0)));
    assert_eq!(crate::abi::param_binding("p_sizes"), None);
    assert_eq!(crate::abi::param_binding("p_g_b1"), None);
    for (g, b) in [(0, 0), (1, 15), (7, 123)] {
        assert_eq!(crate::abi::param_binding(&crate::abi::param_name(g, b)), Some((g, b)));
    }
}

/// Cooperative matrices occupy whole warps: a workgroup whose size is not a multiple of 32 is
/// a diagnostic at the first cooperative op (not PTX that fails on the device), and the
/// same kernel with 64 invocations compiles.
#[test]
fn coop_needs_whole_warps() {
    let src = |x: u32| {
        format!(
            "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> a: array<f16>;
@compute @workgroup_size({x}, 2)
fn mm() {{
    let m = coopLoad<coop_mat16x16<f16, A>>(&a[0], 16u);
    coopStore(m, &a[0], 16u);
}}
"
        )
    };
    let compile = |x: u32| {
        let m = dianran_frontend::compile("w.wgsl", &src(x), &Default::default())
            .unwrap_or_else(|d| panic!("{d}"));
        compile_module(&m, &Options::default())
    };
    let out = compile(8);
    assert!(out.entries.is_empty());
    let [d] = out.diagnostics.as_slice() else { panic!("{:?}", out.diagnostics) };
    assert_eq!(d.kind, DiagKind::Check);
    assert!(d.message.contains("8x2x1 has 16 invocations"), "{}", d.message);
    assert!(d.help.as_deref().unwrap_or("").contains("multiple of 32"), "{d:?}");
    let at = d.span.map(|s| s.start as usize).unwrap_or(0);
    assert!(src(8)[at..].starts_with("coopLoad"), "span at {:?}", &src(8)[at..]);
    let ok = compile(32);
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
}

/// Compiles every sample and real-world kernel in four configurations (default, sm_90,
/// fast math, TF32) and compares the PTX with the files in `$DIANRAN_REF`, or writes them
/// there when `DIANRAN_REF_WRITE=1`: a check that a refactoring of instruction selection
/// changes no output (run with `--ignored`).
#[test]
#[ignore]
fn same_as_reference() {
    let Ok(dir) = std::env::var("DIANRAN_REF") else {
        panic!("set DIANRAN_REF to a directory");
    };
    let write = std::env::var("DIANRAN_REF_WRITE").is_ok();
    let _ = std::fs::create_dir_all(&dir);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("tests/samples"), root.join("tests/realworld")];
    // More kernels, such as a corpus written by `dianran-fuzz`'s `dump_programs` example.
    if let Ok(extra) = std::env::var("DIANRAN_REF_EXTRA") {
        dirs.push(extra.into());
    }
    for sub in dirs {
        if let Ok(rd) = std::fs::read_dir(sub) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "wgsl")),
            );
        }
    }
    files.sort();
    let configs = [
        ("sm80", Options::default()),
        ("sm90", Options { sm: 90, ..Options::default() }),
        ("fast", Options { fast_math: true, ..Options::default() }),
        ("tf32", Options { tf32: true, ..Options::default() }),
    ];
    let mut diffs = Vec::new();
    for file in &files {
        let name = file.file_stem().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let Ok(src) = std::fs::read_to_string(file) else { continue };
        let Ok(m) = dianran_frontend::compile(&name, &src, &Default::default()) else { continue };
        for (tag, opts) in &configs {
            let out = compile_module(&m, opts);
            let mut text = out.text.clone();
            for d in &out.diagnostics {
                text.push_str(&format!("// diagnostic: {}\n", d.message));
            }
            let path = Path::new(&dir).join(format!("{name}.{tag}.ptx"));
            if write {
                std::fs::write(&path, &text).expect("write reference");
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                let _ = std::fs::write(path.with_extension("new"), &text);
                diffs.push(format!("{name}.{tag}"));
            }
        }
    }
    assert!(diffs.is_empty(), "differ from the reference (see *.new): {diffs:?}");
}

/// Builtin vector components the body never reads are not computed: a kernel that indexes
/// with `gid.x` reads no `%ctaid.y`/`%tid.z`; one that reads `gid.y` only computes `y`; one
/// that uses the whole vector computes all three.
#[test]
fn unused_builtin_components_are_not_computed() {
    let compile = |body: &str| {
        let src = format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(8, 2, 2)\n\
             fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n{body}\n}}\n"
        );
        let m = dianran_frontend::compile("gid.wgsl", &src, &Default::default()).expect("compiles");
        let out = compile_module(&m, &Options::default());
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        out.text
    };
    let x = compile("out[gid.x] = 1u;");
    assert!(x.contains("%ctaid.x") && x.contains("%tid.x"), "{x}");
    for unused in ["%ctaid.y", "%ntid.y", "%tid.y", "%ctaid.z", "%ntid.z", "%tid.z"] {
        assert!(!x.contains(unused), "{unused} in\n{x}");
    }
    let y = compile("out[gid.y] = 2u;");
    assert!(y.contains("%ctaid.y") && !y.contains("%ctaid.x") && !y.contains("%ctaid.z"), "{y}");
    let all = compile("let g = gid * 2u;\nout[g.x + g.y + g.z] = 3u;");
    for used in ["%ctaid.x", "%ctaid.y", "%ctaid.z"] {
        assert!(all.contains(used), "{used} missing in\n{all}");
    }
}

/// `t[i / 4u][i % 4u]` (and `t[i >> 2u][i & 3u]`) on an array of `vec4<u32>` addresses
/// element `i` of the flat array with one multiplication by 4 (`lower::split_indices`): no
/// shift, no mask, no multiplication by the vector's 16 bytes. The conv1d sample uses the
/// idiom; its agreement with the interpreter is checked on the emulator with the samples.
#[test]
fn split_indices_address_the_scalar_directly() {
    for index in ["u.t[i / 4u][i % 4u]", "u.t[i >> 2u][i & 3u]"] {
        let src = format!(
            "struct U {{ t: array<vec4<u32>, 4> }}\n\
             @group(0) @binding(0) var<uniform> u: U;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<u32, 16>;\n\
             @compute @workgroup_size(16)\n\
             fn main(@builtin(local_invocation_index) i: u32) {{\n\
                 out[i] = {index};\n\
             }}\n"
        );
        let m =
            dianran_frontend::compile("split.wgsl", &src, &Default::default()).expect("compiles");
        let out = compile_module(&m, &Options::default());
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        let t = out.text;
        for absent in ["shr.u32", ", 3;", ", 16;"] {
            assert!(!t.contains(absent), "{index}: `{absent}` in\n{t}");
        }
    }
}

/// `bra.uni` only where every active lane branches alike: here the partial-warp walk's
/// back edge (`setp.lt.u32 p, src, 32`). An `if` without `else` before the collective leaves
/// an empty block that register allocation removes; the marks must follow the renumbering
/// (they once landed on the data-dependent branch after it).
#[test]
fn uniform_branches_are_only_the_lane_walks() {
    let src = "enable subgroups;\n\
         @group(0) @binding(0) var<storage, read_write> d: array<f32, 64>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) i: u32) {\n\
             let x = d[i];\n\
             if (x > 1.0) { d[i] = 0.0; }\n\
             let s = subgroupAdd(x);\n\
             if (x > 5.0) { if (s > 2.0) { d[i] = s; } }\n\
         }\n";
    let m = dianran_frontend::compile("uni.wgsl", src, &Default::default()).expect("compiles");
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let t = out.text;
    let unis: Vec<&str> = t.lines().filter(|l| l.contains("bra.uni")).collect();
    assert!(!unis.is_empty(), "no uniform branch in\n{t}");
    for l in unis {
        let p = l.trim().trim_start_matches('@').split_whitespace().next().unwrap_or("");
        let def = format!("setp.lt.u32 \t{p}, ");
        let ok = t.lines().any(|d| d.contains(&def) && d.trim_end().ends_with(", 32;"));
        assert!(ok, "`{l}` is not a lane walk's back edge in\n{t}");
    }
}
