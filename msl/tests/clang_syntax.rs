//! Every MSL the printer emits for the samples passes `clang++ -fsyntax-only -std=c++17`
//! against the Metal stub header in `msl/stub/` (types, address-space keywords and functions
//! the printer uses; attributes ignored). This catches syntax and type errors; it is not a
//! Metal compiler.

use std::path::{Path, PathBuf};
use std::process::Command;

const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// The `vec<T, N>` specializations, with swizzles as `__declspec(property)` members.
fn vector_specializations() -> String {
    let mut out = String::new();
    for n in 2..=4usize {
        let fields: Vec<&str> = LANES[..n].to_vec();
        out.push_str(&format!(
            "template <typename T> struct vec<T, {n}> {{\n    union {{\n        struct {{ T {}; }};\n        T d[{n}];\n    }};\n",
            fields.join(", ")
        ));
        out.push_str(&format!(
            "    vec() : d{{}} {{}}\n    explicit vec(T s) {{ for (int i = 0; i < {n}; ++i) d[i] = s; }}\n    template <typename S, typename = std::enable_if_t<dr_is_scalar<S>::value && !std::is_same<S, T>::value>> explicit vec(S s) {{ for (int i = 0; i < {n}; ++i) d[i] = T(s); }}\n    template <typename A, typename B, typename... R> vec(A a, B b, R... r) {{\n        int at = 0;\n        dr_fill(d, at, a, b, r...);\n    }}\n    template <typename U, typename = std::enable_if_t<!std::is_same<U, T>::value>> explicit vec(vec<U, {n}> o) {{ for (int i = 0; i < {n}; ++i) d[i] = T(o.d[i]); }}\n    vec(packed_vec<T, {n}> p) {{ for (int i = 0; i < {n}; ++i) d[i] = p.d[i]; }}\n    T& operator[](int i) {{ return d[i]; }}\n    const T& operator[](int i) const {{ return d[i]; }}\n"
        ));
        for k in 2..=4usize {
            let mut idx = vec![0usize; k];
            loop {
                let name: String = idx.iter().map(|&i| LANES[i]).collect();
                let comps: Vec<String> = idx.iter().map(|&i| format!("d[{i}]")).collect();
                out.push_str(&format!(
                    "    vec<T, {k}> get_{name}() const {{ return vec<T, {k}>({}); }}\n",
                    comps.join(", ")
                ));
                let distinct = {
                    let mut s = idx.clone();
                    s.sort();
                    s.dedup();
                    s.len() == k
                };
                if distinct {
                    let sets: Vec<String> = idx
                        .iter()
                        .enumerate()
                        .map(|(j, &i)| format!("d[{i}] = v.d[{j}];"))
                        .collect();
                    out.push_str(&format!(
                        "    void put_{name}(vec<T, {k}> v) {{ {} }}\n    __declspec(property(get = get_{name}, put = put_{name})) vec<T, {k}> {name};\n",
                        sets.join(" ")
                    ));
                } else {
                    out.push_str(&format!(
                        "    __declspec(property(get = get_{name})) vec<T, {k}> {name};\n"
                    ));
                }
                // Next index tuple in base n.
                let mut p = k;
                loop {
                    if p == 0 {
                        break;
                    }
                    p -= 1;
                    idx[p] += 1;
                    if idx[p] < n {
                        break;
                    }
                    idx[p] = 0;
                }
                if idx.iter().all(|&i| i == 0) {
                    break;
                }
            }
        }
        out.push_str("};\n\n");
    }
    out
}

fn write_stub(dir: &Path) -> std::io::Result<()> {
    let base = include_str!("../stub/metal_stub_base.h");
    let header = base.replace("// @VECTORS@", &vector_specializations());
    std::fs::write(dir.join("metal_stdlib"), header)?;
    std::fs::write(
        dir.join("metal_simdgroup_matrix"),
        include_str!("../stub/metal_simdgroup_matrix.h"),
    )
}

/// The samples and the third-party kernels in `tests/realworld/`.
fn samples() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut v: Vec<PathBuf> = ["tests/samples", "tests/realworld"]
        .iter()
        .filter_map(|d| std::fs::read_dir(root.join(d)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
        .collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "wgsl"));
    v.sort();
    v
}

fn syntax_check(clang: &Path, stub_dir: &Path, msl: &str, name: &str) -> Result<(), String> {
    let file = stub_dir.join(format!("{name}.metal.cpp"));
    std::fs::write(&file, msl).map_err(|e| e.to_string())?;
    let out = Command::new(clang)
        .args(["-fsyntax-only", "-std=c++17", "-fdeclspec", "-x", "c++"])
        .args([
            "-Wno-unknown-attributes",
            "-Wno-user-defined-literals",
            "-Wno-gnu-anonymous-struct",
        ])
        .args(["-Wno-nested-anon-types", "-ferror-limit=5"])
        .arg("-I")
        .arg(stub_dir)
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn stub_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dianran-metal-stub-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

#[test]
fn stub_header_compiles_on_its_own() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = stub_dir();
    write_stub(&dir).expect("temp dir is writable");
    let probe = "#include <metal_stdlib>\nusing namespace metal;\nkernel void k(device float* a [[buffer(0)]], uint3 g [[thread_position_in_grid]]) {\n    float4 v = float4(float3(1.0f, 2.0f, 3.0f), 4.0f);\n    const auto s = v.zyx;\n    v.xy = float2(0.5f);\n    a[g.x] = dot(s, float3(1.0f)) + v.w + float(half(1.0h));\n}\n";
    syntax_check(&clang, &dir, probe, "probe").expect("the stub accepts a small kernel");
    let bad = "#include <metal_stdlib>\nusing namespace metal;\nkernel void k(device float* a) { a[0] = float3(1.0f).xq; }\n";
    assert!(syntax_check(&clang, &dir, bad, "bad").is_err(), "a bad swizzle must be rejected");
}

#[test]
fn printed_msl_of_every_sample_passes_clang_syntax_check() {
    let Some(clang) = dianran_verify::tools::require("clang++", dianran_verify::tools::clang())
    else {
        return;
    };
    let dir = stub_dir();
    write_stub(&dir).expect("temp dir is writable");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in samples() {
        let src = std::fs::read_to_string(&path).expect("sample is readable");
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let module =
            match dianran_frontend::compile(&path.display().to_string(), &src, &Default::default())
            {
                Ok(m) => m,
                // The frontend's own tests cover inputs it rejects (one real-world kernel is
                // invalid WGSL as published).
                Err(_) if path.parent().is_some_and(|p| p.ends_with("realworld")) => continue,
                Err(d) => {
                    failures.push(format!("{name}: frontend error\n{d}"));
                    continue;
                }
            };
        // Precise math (the default) and fast math print different calls; both must compile.
        for fast_math in [false, true] {
            let out = dianran_msl::write_module_with(&module, &dianran_msl::Options { fast_math });
            for d in out.errors.iter().filter(|_| !fast_math) {
                // A construct MSL cannot express is a diagnostic, not a failure of this test;
                // the printed remainder must still be valid.
                println!("{name}: diagnostic: {}", d.message);
            }
            checked += 1;
            if let Err(e) = syntax_check(&clang, &dir, &out.text, &name) {
                let mode = if fast_math { " (fast math)" } else { "" };
                failures.push(format!("{name}{mode}:\n{e}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
