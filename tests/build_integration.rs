//! The build integration from a user's point of view: a fresh crate outside the workspace
//! depends on dianran by path, compiles its shaders from build.rs, includes the generated
//! module and reads the constants. Then: a no-op build compiles nothing, a changed shader
//! rebuilds, a broken shader fails the build with the rendered diagnostic, and a target that
//! cannot express an entry gives a `cargo:warning`.
//!
//! A second crate compiles every sample shader with typed CUDA launchers
//! (docs/host.md): rustc checks the generated `#[repr(C)]` structs against the compiler's
//! layouts (the interpreter's and every executor's) through their const assertions, and the
//! typed launchers against cudarc's types; its tests launch through them where a CUDA device
//! exists and print `skipped: no CUDA device` elsewhere. The examples (`examples/`) build and
//! run the same way.
//!
//! The crates build in `target/build-integration` (kept between runs, so only the first run
//! compiles dianran's dependencies there) with `--offline`.

use std::path::{Path, PathBuf};
use std::process::Command;

const SHADER: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn 加倍(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) {
        data[id.x] = data[id.x] * 2.0;
    }
}
";

/// Compiles for WGSL and MSL, not for PTX (a multisampled texture, docs/textures.md).
const TEXTURED: &str = "\
@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(1)
fn sample() {
    out[0] = textureLoad(t, vec2<i32>(0, 0), 0).x;
}
";

const MAIN: &str = r#"
include!(concat!(env!("OUT_DIR"), "/dianran_shaders.rs"));

fn main() {
    let e = &double::加倍;
    println!("{} {}", e.ptx_name.as_deref().unwrap_or("-"), e.workgroup_size[0]);
}

#[test]
fn constants() {
    assert_eq!(double::加倍.ptx_name.as_deref(), Some("yy_e5_8a_a0_e5_80_8d"));
    assert_eq!(double::加倍.name, "加倍");
    assert!(double::PTX.contains(".entry yy_e5_8a_a0_e5_80_8d("));
    assert!(double::WGSL.contains("fn 加倍("));
    assert!(double::MSL.contains("加倍"));
    assert_eq!(double::ENTRIES.len(), 1);
    assert!(textured::PTX.starts_with("// PTX is not available: shaders/textured.wgsl:"));
    assert!(!textured::PTX.trim_end().contains('\n'));
    assert!(textured::WGSL.contains("fn sample("));
}
"#;

const BUILD: &str = r#"
fn main() -> Result<(), dianran::build::BuildError> {
    dianran::build::Shaders::new()
        .file("shaders/double.wgsl")
        .file("shaders/textured.wgsl")
        .compile()?;
    Ok(())
}
"#;

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn cargo(dir: &Path, target: &Path, args: &[&str]) -> Run {
    cargo_env(dir, target, args, &[])
}

fn cargo_env(dir: &Path, target: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .arg("--offline")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn compiled_fresh(run: &Run) -> bool {
    run.stderr.lines().any(|l| l.trim_start().starts_with("Compiling fresh-shaders"))
}

/// A fresh crate `name` in `target/build-integration/NAME-PID` depending on dianran by path
/// (`features` appended to the normal dependency) and as a build-dependency, with the
/// workspace's lock file (the same versions, all available offline). Returns (dianran's root,
/// the shared target directory, the crate's directory).
fn new_crate(name: &str, features: &str) -> (PathBuf, PathBuf, PathBuf) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("build-integration");
    let dir = target.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n\
         [dependencies]\ndianran = {{ path = {root:?}, default-features = false{features} }}\n\n\
         [build-dependencies]\ndianran = {{ path = {root:?}, default-features = false }}\n\n\
         # Build dependencies share their compiled units with the crate's.\n\
         [profile.dev]\ndebug = false\n",
        root = root.display().to_string()
    );
    write(&dir.join("Cargo.toml"), &manifest);
    if let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) {
        write(&dir.join("Cargo.lock"), &lock);
    }
    (root, target, dir)
}

#[test]
fn fresh_crate_uses_the_build_integration() {
    let (_, target, dir) = new_crate("fresh-shaders", "");
    write(&dir.join("build.rs"), BUILD);
    write(&dir.join("src/main.rs"), MAIN);
    write(&dir.join("shaders/double.wgsl"), SHADER);
    write(&dir.join("shaders/textured.wgsl"), TEXTURED);

    // 1. It builds, and its test reads the constants.
    let run = cargo(&dir, &target, &["test"]);
    assert!(run.ok, "cargo test failed:\n{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("test constants ... ok"), "{}", run.stdout);
    let warned = run
        .stderr
        .lines()
        .any(|l| l.contains("warning") && l.contains("shaders/textured.wgsl: PTX:"));
    assert!(warned, "no cargo:warning for the PTX failure:\n{}", run.stderr);

    let run = cargo(&dir, &target, &["run", "-q"]);
    assert!(run.ok, "cargo run failed:\n{}", run.stderr);
    assert_eq!(run.stdout.trim(), "yy_e5_8a_a0_e5_80_8d 64");

    // 2. Nothing changed: nothing is compiled, the build script does not run again.
    let run = cargo(&dir, &target, &["build"]);
    assert!(run.ok && !compiled_fresh(&run), "a no-op build rebuilt the crate:\n{}", run.stderr);

    // 3. A changed shader rebuilds the crate, and the constants follow.
    write(&dir.join("shaders/double.wgsl"), &SHADER.replace("(64)", "(128)"));
    let run = cargo(&dir, &target, &["run"]);
    assert!(run.ok && compiled_fresh(&run), "the shader change was missed:\n{}", run.stderr);
    assert_eq!(run.stdout.trim(), "yy_e5_8a_a0_e5_80_8d 128");
    let run = cargo(&dir, &target, &["build"]);
    assert!(run.ok && !compiled_fresh(&run), "a no-op build rebuilt the crate:\n{}", run.stderr);

    // 4. A type error fails the build with the rendered diagnostic.
    write(&dir.join("shaders/double.wgsl"), &SHADER.replace("* 2.0", "* 2u"));
    let run = cargo(&dir, &target, &["build"]);
    assert!(!run.ok, "a broken shader built");
    assert!(run.stderr.contains("shaders/double.wgsl:6:"), "{}", run.stderr);
    assert!(run.stderr.contains("data[id.x] * 2u"), "no source snippet:\n{}", run.stderr);

    let _ = std::fs::remove_dir_all(&dir);
}

const SAMPLES_BUILD: &str = r#"
fn main() -> Result<(), dianran::build::BuildError> {
    let mut files: Vec<_> = std::fs::read_dir("shaders")
        .expect("shaders/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    let mut shaders = dianran::build::Shaders::new().cuda_launchers(true);
    for f in files {
        shaders = shaders.file(f);
    }
    shaders.compile()?;
    Ok(())
}
"#;

const SAMPLES_LIB: &str = r#"
include!(concat!(env!("OUT_DIR"), "/dianran_shaders.rs"));

#[cfg(test)]
mod tests {
    use super::*;
    use dianran::launch::LaunchError;

    /// The host structs have the sizes the entry tables report for their bindings.
    #[test]
    fn host_structs_match_the_reflected_layouts() {
        let p = saxpy_vec4::Params { alpha: 2.0, count: 3 };
        let layout = saxpy_vec4::main.bindings[0].layout.as_ref().expect("a layout");
        assert_eq!(dianran::bytemuck::bytes_of(&p).len() as u64, u64::from(layout.size));
        assert_eq!(dianran::bytemuck::bytes_of(&p)[4..8], 3u32.to_le_bytes());
    }

    /// WGSL's layout of `Wide`: `a` at 0 (132 bytes), `b` at 192 (align 64), `c` at 204,
    /// size 256 (rounded up to the alignment of 64).
    #[test]
    fn edge_layouts() {
        use host_layout_edges::{u8_, Wide};
        assert_eq!(core::mem::size_of::<Wide>(), 256);
        assert_eq!(core::mem::offset_of!(Wide, b), 192);
        assert_eq!(core::mem::offset_of!(Wide, c), 204);
        assert_eq!(core::mem::size_of::<u8_>(), 4);
        // One launcher per entry, each with its own entry's immediate type.
        let _ = naga_immediates_layout::Kernels::whole_vector;
        let _ = naga_immediates_layout::Kernels::scalar_then_struct;
        let k = host_layout_edges::Kernels_ { _pad: 1, x: 2.0 };
        assert_eq!(dianran::bytemuck::bytes_of(&k)[..4], 1u32.to_le_bytes());
    }

    /// saxpy through its typed launcher: device-resident buffers, one stream, no copies.
    #[test]
    fn typed_launcher_runs_or_skips() {
        let k = match saxpy_vec4::Kernels::load() {
            Err(LaunchError::NoDevice) => {
                println!("skipped: no CUDA device");
                return;
            }
            k => k.expect("load"),
        };
        let stream = k.module().context().default_stream();
        let n = 1024usize;
        let x = stream.clone_htod(&vec![1.5f32; n]).expect("x");
        let mut y = stream.clone_htod(&vec![2.0f32; n]).expect("y");
        let params = saxpy_vec4::Params { alpha: 3.0, count: (n / 4) as u32 };
        for _ in 0..10 {
            k.main(&stream, [1, 1, 1], &params, &x, &mut y).expect("launch");
        }
        let out = stream.clone_dtoh(&y).expect("read back");
        assert!(out.iter().all(|v| *v == 2.0 + 10.0 * 4.5), "{:?}", &out[..4]);
    }
}
"#;

/// Names and layouts that once broke the generated host code: a struct named like a Rust
/// primitive (`u8`) or like the generated `Kernels`, a member named `_pad`, an array longer
/// than 32 elements and 60 bytes of padding (`Pod` for every length), a binding named like
/// the launcher's `immediates` parameter.
const HOST_LAYOUT_EDGES: &str = "
struct u8 { a: u32 }
struct Kernels { _pad: u32, x: f32 }
struct Wide { a: array<f32, 33>, @align(64) b: vec3<f32>, c: u8 }
struct Imm { v: f32 }
var<immediate> imm: Imm;
@group(0) @binding(0) var<storage, read_write> immediates: array<Wide>;
@group(0) @binding(1) var<uniform> k: Kernels;
@compute @workgroup_size(1) fn main() {
    immediates[0].a[32] = k.x + imm.v + f32(immediates[0].c.a);
}
";

#[test]
fn samples_generate_host_code_that_compiles() {
    let (root, target, dir) = new_crate("sample-shaders", ", features = [\"cuda\"]");
    write(&dir.join("build.rs"), SAMPLES_BUILD);
    write(&dir.join("src/lib.rs"), SAMPLES_LIB);
    let samples = root.join("tests").join("samples");
    let mut n = 0;
    for e in std::fs::read_dir(&samples).unwrap_or_else(|e| panic!("{}: {e}", samples.display())) {
        let path = e.unwrap_or_else(|e| panic!("{e}")).path();
        if path.extension().is_some_and(|x| x == "wgsl") {
            let name = path.file_name().unwrap_or_default();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
            write(&dir.join("shaders").join(name), &text);
            n += 1;
        }
    }
    assert!(n > 50, "only {n} samples");
    write(&dir.join("shaders/host_layout_edges.wgsl"), HOST_LAYOUT_EDGES);
    // Several `var<immediate>`s, one per entry: each launcher takes its own entry's type.
    let imm = root.join("tests/realworld/naga_immediates_layout.wgsl");
    let text = std::fs::read_to_string(&imm).unwrap_or_else(|e| panic!("{}: {e}", imm.display()));
    write(&dir.join("shaders/naga_immediates_layout.wgsl"), &text);
    // The README's typed-launcher example, verbatim, as a binary of the crate.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_else(|e| panic!("{e}"));
    let example = readme
        .split_once("// src/main.rs\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(code, _)| code)
        .unwrap_or_else(|| panic!("README.md has no `// src/main.rs` block"));
    assert!(example.contains("saxpy_vec4::Kernels::load()"), "{example}");
    write(&dir.join("src/bin/readme.rs"), example);
    let run = cargo(&dir, &target, &["test"]);
    assert!(run.ok, "cargo test failed:\n{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("test tests::typed_launcher_runs_or_skips ... ok"),
        "{}",
        run.stdout
    );
    let run = cargo(&dir, &target, &["run", "-q", "--bin", "readme"]);
    assert!(run.ok, "the README example failed:\n{}\n{}", run.stdout, run.stderr);
    let out = run.stdout.trim();
    assert!(out == "skipped: no CUDA device" || out == "y[0] = 3002", "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example crates (`examples/`) build, pass their tests and run: on a machine without a
/// CUDA device they print `skipped: no CUDA device`, with one they check their results.
#[test]
fn examples_build_and_run() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("build-integration");
    for name in ["cuda-double", "cuda-pipeline"] {
        let dir = root.join("examples").join(name);
        // The fixtures' profile (no debug info), so the dependencies compile once for all.
        let run = cargo_env(&dir, &target, &["test"], &[("CARGO_PROFILE_DEV_DEBUG", "false")]);
        assert!(run.ok, "{name}: cargo test failed:\n{}\n{}", run.stdout, run.stderr);
        let run = cargo_env(&dir, &target, &["run", "-q"], &[("CARGO_PROFILE_DEV_DEBUG", "false")]);
        assert!(run.ok, "{name}: cargo run failed:\n{}\n{}", run.stdout, run.stderr);
        let skipped = run.stdout.lines().any(|l| l == "skipped: no CUDA device");
        let checked = run.stdout.contains("CUDA: ") || run.stdout.contains("results match the CPU");
        assert!(skipped || checked, "{name}: neither skipped nor checked:\n{}", run.stdout);
    }
}
