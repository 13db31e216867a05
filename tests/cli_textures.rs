//! `dianran run` and `dianran verify` with textures: `--texture`, `--sampler`, the
//! `// texture:`/`// sampler:` header lines and the texture dumps.

use std::path::PathBuf;
use std::process::{Command, Output};

fn dianran(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dianran")).args(args).output().expect("the binary starts")
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dianran-clitex-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Copies a 4x2 r32uint texture into a buffer (plus 1000) and writes texel x + 10 y into
/// an r32uint storage texture.
const COPY: &str = "// dispatch: 1
// texture: 0:2=4x2:r32uint
@group(0) @binding(0) var src: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 8>;
@group(0) @binding(2) var dst: texture_storage_2d<r32uint, write>;
@compute @workgroup_size(4, 2)
fn main(@builtin(local_invocation_id) id: vec3<u32>) {
    let c = vec2<i32>(id.xy);
    out[id.y * 4u + id.x] = textureLoad(src, c, 0).x + 1000u;
    textureStore(dst, c, vec4<u32>(id.x + 10u * id.y));
}
";

#[test]
fn run_reads_texture_files_and_dumps_textures() {
    let dir = scratch("files");
    let k = dir.join("k.wgsl");
    std::fs::write(&k, COPY).unwrap();
    // 4x2 rgba32uint texels: channel r of texel i is 7 * i.
    let texels: Vec<u8> =
        (0..8u32).flat_map(|i| [7 * i, 1, 2, 3]).flat_map(u32::to_le_bytes).collect();
    let tex = dir.join("src.bin");
    std::fs::write(&tex, &texels).unwrap();
    let dump = dir.join("dump");
    let spec = format!("0:0={}:4x2:rgba32uint", tex.display());
    let out = dianran(&[
        "run",
        k.to_str().unwrap(),
        "--entry",
        "main",
        "--dispatch",
        "1",
        "--texture",
        &spec,
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let buf = std::fs::read(dump.join("g0_b1.bin")).unwrap();
    let words: Vec<u32> =
        buf.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(words, (0..8).map(|i| 7 * i + 1000).collect::<Vec<u32>>());
    // The storage texture from the header (4x2 r32uint): x + 10 y.
    let t = std::fs::read(dump.join("g0_b2.tex")).unwrap();
    let words: Vec<u32> = t.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(words, [0, 1, 2, 3, 10, 11, 12, 13]);
    // The input texture is dumped too, unchanged.
    assert_eq!(std::fs::read(dump.join("g0_b0.tex")).unwrap(), texels);
}

#[test]
fn bad_texture_descriptions_are_errors() {
    let dir = scratch("bad");
    let k = dir.join("k.wgsl");
    std::fs::write(&k, COPY).unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["run", k.to_str().unwrap(), "--entry", "main", "--dispatch", "1"];
        a.extend_from_slice(extra);
        dianran(&a)
    };
    let out = run(&["--texture", "0:0=4x2:rgba8unorm"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("cannot hold rgba8unorm"), "{}", text(&out.stderr));
    let out = run(&["--texture", "0:0=4x2:rgb9"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown texel format"), "{}", text(&out.stderr));
    let out = run(&["--sampler", "0:0=repeat,linear"]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("uses no sampler"), "{}", text(&out.stderr));
    let missing = format!("0:0={}:4x2:rgba32uint", dir.join("none.bin").display());
    let out = run(&["--texture", &missing]);
    assert!(text(&out.stderr).contains("cannot read texture data"), "{}", text(&out.stderr));
}

#[test]
fn verify_compares_textured_samples() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    for name in [
        "texture_load_store.wgsl",
        "texture_sample.wgsl",
        "texture_gather_compare.wgsl",
        "depth_compare_cube.wgsl",
        "texture_param.wgsl",
    ] {
        let f = root.join(name);
        let out = dianran(&["verify", f.to_str().unwrap(), "--executors", "lavapipe,emu"]);
        let s = text(&out.stdout);
        assert!(out.status.success(), "{name}: {s}{}", text(&out.stderr));
        assert!(s.starts_with("interp\tagree\treference\n"), "{s}");
        assert!(s.contains("lavapipe\tagree") || s.contains("lavapipe\tskipped"), "{s}");
        assert!(s.contains("emu\tagree"), "{name}: {s}");
    }
}
