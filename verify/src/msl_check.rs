//! The clang syntax check of printed MSL (docs/verification.md): `clang++ -fsyntax-only -std=c++20`
//! against a stub of the Metal headers (`msl/stub/`: the types, address-space keywords and
//! functions the printer uses; attributes ignored), Metal 4's `<metal_tensor>` and
//! `matmul2d` (Metal Performance Primitives) included. C++20 because Metal 4's operation
//! takes its descriptor, a class, as a template argument. It catches syntax and type errors;
//! it is not a Metal compiler.

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

/// Writes the stub headers (`metal_stdlib`, `metal_simdgroup_matrix`, `metal_tensor`,
/// `MetalPerformancePrimitives/MetalPerformancePrimitives.h`) into `dir`.
pub fn write_stub(dir: &Path) -> std::io::Result<()> {
    // One writer at a time: a half-written file read by a second writer would be rewritten.
    static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let base = include_str!("../../msl/stub/metal_stub_base.h");
    let header = base.replace("// @VECTORS@", &vector_specializations());
    write_if_changed(&dir.join("metal_stdlib"), &header)?;
    write_if_changed(
        &dir.join("metal_simdgroup_matrix"),
        include_str!("../../msl/stub/metal_simdgroup_matrix.h"),
    )?;
    write_if_changed(&dir.join("metal_tensor"), include_str!("../../msl/stub/metal_tensor.h"))?;
    let mpp = dir.join("MetalPerformancePrimitives");
    std::fs::create_dir_all(&mpp)?;
    write_if_changed(
        &mpp.join("MetalPerformancePrimitives.h"),
        include_str!("../../msl/stub/MetalPerformancePrimitives.h"),
    )
}

/// Writes `text` to `path` unless it already holds it: rewriting would change the file's
/// time, and clang refuses a precompiled header older than the header it was built from
/// (tests in one process write the same stub concurrently).
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

/// A directory with the stub headers, for this process (written once).
pub fn stub_dir() -> std::io::Result<PathBuf> {
    static DIR: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("dianran-metal-stub-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        write_stub(&dir).map_err(|e| e.to_string())?;
        Ok(dir)
    })
    .clone()
    .map_err(std::io::Error::other)
}

/// clang's flags for Metal-as-C++ (the header and the sources alike).
const FLAGS: [&str; 7] = [
    "-std=c++20",
    "-fdeclspec",
    "-Wno-unknown-attributes",
    "-Wno-user-defined-literals",
    "-Wno-gnu-anonymous-struct",
    "-Wno-nested-anon-types",
    "-ferror-limit=5",
];

/// The stub precompiled by `clang` (`None` when that fails: the check then parses the header
/// each time). Parsing the header is most of a check's time.
fn precompiled(clang: &Path, stub_dir: &Path) -> Option<PathBuf> {
    static PCH: std::sync::Mutex<Option<(PathBuf, Option<PathBuf>)>> = std::sync::Mutex::new(None);
    let mut cache = PCH.lock().ok()?;
    if let Some((dir, pch)) = cache.as_ref() {
        if dir == stub_dir {
            return pch.clone();
        }
    }
    let pch = stub_dir.join("metal_stdlib.pch");
    let ok = Command::new(clang)
        .args(["-x", "c++-header"])
        .args(FLAGS)
        .arg("-I")
        .arg(stub_dir)
        .arg(stub_dir.join("metal_stdlib"))
        .arg("-o")
        .arg(&pch)
        .output()
        .is_ok_and(|o| o.status.success());
    let pch = ok.then_some(pch);
    *cache = Some((stub_dir.to_path_buf(), pch.clone()));
    pch
}

/// Checks MSL `text` (named `name` in the scratch file, removed afterwards) with `clang`
/// against the stub in `stub_dir`; `Err` holds clang's messages.
pub fn syntax_check(clang: &Path, stub_dir: &Path, msl: &str, name: &str) -> Result<(), String> {
    let file = stub_dir.join(format!("{name}.metal.cpp"));
    std::fs::write(&file, msl).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(clang);
    cmd.args(["-fsyntax-only", "-x", "c++"]).args(FLAGS);
    if let Some(pch) = precompiled(clang, stub_dir) {
        cmd.arg("-include-pch").arg(pch);
    }
    let out = cmd.arg("-I").arg(stub_dir).arg(&file).output().map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&file);
    let out = out?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
