//! The `ldmatrix` addresses of workgroup tiles in a loop ([`super::coop`]): the tile's
//! address plus the lane's row offset is computed once in the entry block, so each fragment
//! costs one `mad.lo.u32 x, 2, base` per iteration, with `&tile[x + k]`'s constant `k` as the
//! `ldmatrix`'s immediate offset. (Results: `ldmatrix_tile_addresses_agree` in
//! `verify/tests/loop_opts.rs` runs the same kernel on the interpreter and the emulator.)

use super::{compile_module, Options};

/// Two 16x16 f16 tiles per workgroup array (rows of 40 halves, 80 bytes: 16-byte aligned),
/// multiplied while `kk` steps through 8-column (A, 8 columns further in) and 8-row (B)
/// offsets.
pub(super) const TILES: &str = "enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read> src: array<f16>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> dims: vec4<u32>;
const LD: u32 = 40u;
var<workgroup> ta: array<f16, 1280>;
var<workgroup> tb: array<f16, 1280>;
@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = lid; i < 1280u; i += 32u) {
        ta[i] = src[i];
        tb[i] = src[1280u + i];
    }
    workgroupBarrier();
    var acc: coop_mat16x16<f32, C>;
    let cur = dims.x & 1u;
    let lim = dims.y;
    for (var kk = 0u; kk < 24u && kk < lim; kk += 8u) {
        let am = coopLoadT<coop_mat16x16<f16, A>>(&ta[cur * 640u + kk + 8u], LD);
        let bm = coopLoadT<coop_mat16x16<f16, B>>(&tb[kk * LD], LD);
        acc = coopMultiplyAdd(am, bm, acc);
    }
    coopStoreT(acc, &out[0], 16u);
}
";

/// The register an instruction writes (its first operand), e.g. `%r12`.
fn dest(line: &str) -> Option<&str> {
    let ops = line.split_once(char::is_whitespace)?.1.trim();
    Some(ops.split(',').next()?.trim())
}

#[test]
fn ldmatrix_addresses_are_one_mad_of_an_entry_block_base() {
    let m = dianran_frontend::compile("t.wgsl", TILES, &unchecked())
        .unwrap_or_else(|d| panic!("frontend: {d}"));
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let text = out.text;
    crate::parse_module(&text).expect("our parser reads it back").validate().expect("valid");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let first_label = lines.iter().position(|l| l.starts_with("$L") && l.ends_with(':'));
    let first_label = first_label.unwrap_or_else(|| panic!("no label in\n{text}"));
    let mut seen = 0;
    let mut imms = Vec::new();
    for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.starts_with("ldmatrix")) {
        seen += 1;
        let addr = l.rsplit_once('[').and_then(|(_, a)| a.split_once(']')).map(|(a, _)| a);
        let addr = addr.unwrap_or_else(|| panic!("no address in {l}"));
        let (reg, imm) = addr.split_once('+').unwrap_or((addr, "0"));
        imms.push(imm.to_string());
        // The address register's definition: the nearest earlier write of it.
        let def = lines[..i].iter().rev().find(|d| dest(d) == Some(reg));
        let def = def.unwrap_or_else(|| panic!("{reg} undefined before {l}\n{text}"));
        assert!(def.starts_with("mad.lo.u32") && def.contains(", 2, "), "{def} for {l}\n{text}");
        // Its base (last operand) is defined once, in the entry block, as an `add`.
        let base = def.trim_end_matches(';').rsplit(',').next().map(str::trim).unwrap_or("");
        let entry_def = lines[..first_label].iter().rev().find(|d| dest(d) == Some(base));
        let entry_def = entry_def.unwrap_or_else(|| panic!("{base} not in the entry\n{text}"));
        assert!(entry_def.starts_with("add.u32"), "{entry_def}\n{text}");
        // ... and not written again in the loop (which precedes the `ldmatrix` in the text).
        let again = lines[first_label..i].iter().find(|d| dest(d) == Some(base));
        assert!(again.is_none(), "{base} rewritten: {again:?}\n{text}");
    }
    assert_eq!(seen, 2, "{text}");
    // `&ta[cur * 640 + kk + 8]`: the 8 elements are the immediate (16 bytes).
    imms.sort();
    assert_eq!(imms, ["0", "16"], "{text}");
}

/// Frontend options without the bounds policy: the address shape without the bounds policy's guards, which `benches/README.md` measures.
fn unchecked() -> dianran_frontend::Options {
    dianran_frontend::Options {
        bounds_checks: dianran_frontend::BoundsChecks::Off,
        ..Default::default()
    }
}
