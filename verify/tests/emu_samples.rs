//! The PTX the backend emits for every compute sample in `tests/samples/`, run by the PTX
//! emulator and by the reference interpreter on the same seeded buffers, compared word by
//! word: integers exactly, f32 within a relative 1e-5 (the backend's approximate math),
//! f16 within 1e-3. Samples whose PTX does not compile yet are listed, not failed; so are
//! the differences in [`KNOWN`], whose cause lies outside the emulator.

use dianran_frontend::ir::{self, Scalar, Type, TypeId};
use dianran_verify::buffers::{default_buffers, Buffers};
use dianran_verify::emu::{self, EmuOptions};
use dianran_verify::interp::{self, InterpOptions};
use dianran_verify::samples::{self, SampleHeader};
use std::path::PathBuf;

/// Understood differences, each with its cause (none is in the emulator). A sample listed
/// here that agrees again is reported so the entry can go.
const KNOWN: &[(&str, &str)] = &[];

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples")
}

/// A tiny deterministic generator (xorshift).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
}

/// What a 4-byte word of a buffer holds, for the comparison.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Int,
    F32,
    F16,
    /// Either word of an f64 (compared as the whole value).
    F64,
}

/// The `// in [lo, hi]` domain comment on the declaration line of `@group(g) @binding(b)`.
fn domain(src: &str, g: u32, b: u32) -> Option<(f32, f32)> {
    let decl = format!("@group({g}) @binding({b})");
    let line = src.lines().find(|l| l.contains(&decl))?;
    let rest = line.split_once("// in [")?.1;
    let (lo, hi) = rest.split_once(']')?.0.split_once(',')?;
    Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?))
}

/// Fills `buf[at..]` with values of type `ty`: small integers, f32 and f64 multiples of 1/8
/// in [-4, 4) (or spread over the binding's documented domain), f16 in [-2, 2); records each
/// word's kind.
fn fill(
    m: &ir::Module,
    ty: TypeId,
    at: usize,
    buf: &mut [u8],
    kinds: &mut [Kind],
    rng: &mut Rng,
    dom: Option<(f32, f32)>,
) {
    let scalar = |s: Scalar, at: usize, buf: &mut [u8], kinds: &mut [Kind], rng: &mut Rng| {
        let r = rng.next();
        let (bytes, kind): (Vec<u8>, Kind) = match s {
            Scalar::F32 => {
                let v = match dom {
                    Some((lo, hi)) => lo + (hi - lo) * (r % 1024) as f32 / 1023.0,
                    None => ((r % 64) as f32 - 32.0) / 8.0,
                };
                (v.to_le_bytes().to_vec(), Kind::F32)
            }
            Scalar::F16 => (
                half::f16::from_f32(((r % 32) as f32 - 16.0) / 8.0).to_le_bytes().to_vec(),
                Kind::F16,
            ),
            Scalar::F64 => {
                let v = match dom {
                    Some((lo, hi)) => {
                        f64::from(lo) + f64::from(hi - lo) * (r % 1024) as f64 / 1023.0
                    }
                    None => ((r % 64) as f64 - 32.0) / 8.0,
                };
                (v.to_le_bytes().to_vec(), Kind::F64)
            }
            Scalar::Bool => ((r % 2).to_le_bytes().to_vec(), Kind::Int),
            _ => ((r % 64).to_le_bytes().to_vec(), Kind::Int),
        };
        if let Some(dst) = buf.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
            for w in at / 4..(at + bytes.len()).div_ceil(4) {
                if let Some(k) = kinds.get_mut(w) {
                    *k = kind;
                }
            }
        }
    };
    match m.types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => scalar(*s, at, buf, kinds, rng),
        Type::Vector { size, scalar: s } => {
            for c in 0..usize::from(*size) {
                scalar(*s, at + c * s.size() as usize, buf, kinds, rng);
            }
        }
        Type::Matrix { columns, rows, scalar: s } => {
            let comp = s.size() as usize;
            let col_stride = if *rows == 2 { 2 * comp } else { 4 * comp };
            for c in 0..usize::from(*columns) {
                for r in 0..usize::from(*rows) {
                    scalar(*s, at + c * col_stride + r * comp, buf, kinds, rng);
                }
            }
        }
        Type::Array { base, len, stride } => {
            let n = match len {
                Some(n) => *n as usize,
                None => buf.len().saturating_sub(at) / (*stride).max(1) as usize,
            };
            for e in 0..n {
                fill(m, *base, at + e * *stride as usize, buf, kinds, rng, dom);
            }
        }
        Type::Struct { members, .. } => {
            for mem in members {
                fill(m, mem.ty, at + mem.offset as usize, buf, kinds, rng, dom);
            }
        }
        _ => {}
    }
}

enum Outcome {
    Same,
    Skipped(String),
    Differs(String),
}

fn compare_sample(name: &str) -> Outcome {
    let src = match std::fs::read_to_string(samples_dir().join(name)) {
        Ok(s) => s,
        Err(e) => return Outcome::Differs(format!("cannot read: {e}")),
    };
    // The header's `// dispatch:` marks a compute sample; the entry is its `// entry:` or the
    // first @compute function.
    let (dispatch, entry) = match samples::header(&src) {
        // Samples that bind textures need the header's textures: texture_samples.rs runs them.
        Ok(SampleHeader { dispatch: Some(_), textures, .. }) if !textures.is_empty() => {
            return Outcome::Skipped("binds textures (verify/tests/texture_samples.rs)".into())
        }
        Ok(SampleHeader { dispatch: Some(d), entry, .. }) => (d, entry),
        Ok(_) => return Outcome::Skipped("not a compute sample".into()),
        Err(e) => return Outcome::Differs(format!("bad header: {e}")),
    };
    let module = match dianran_frontend::compile(name, &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => return Outcome::Differs(format!("frontend: {d}")),
    };
    let entry = match entry {
        Some(e) => e,
        None => match module.entry_points.iter().find(|e| e.stage == ir::Stage::Compute) {
            Some(e) => e.name.clone(),
            None => return Outcome::Skipped("no compute entry".into()),
        },
    };
    let compiled = dianran_ptx::codegen::compile_module(&module, &Default::default());
    let Some(info) = compiled.entries.iter().find(|e| e.name == entry) else {
        let why = compiled
            .diagnostics
            .first()
            .map_or("entry not compiled".to_string(), |d| d.message.clone());
        return Outcome::Differs(format!("codegen: {}", why.lines().next().unwrap_or("")));
    };
    let Some(ep) = module.entry_point(&entry) else {
        return Outcome::Differs("entry missing".into());
    };
    let bindings = dianran_verify::buffers::entry_bindings(&module, &entry).unwrap_or_default();
    let invocations: u32 = dispatch.iter().chain(&ep.workgroup_size).product();
    // The smallest runtime-array length (of a few) with which the interpreter runs cleanly.
    let mut chosen = None;
    for runtime_len in [invocations, invocations * 4, invocations * 16, 1 << 16] {
        let Ok(mut bufs) = default_buffers(&module, &entry, runtime_len) else { continue };
        let mut kinds: Buffers = Buffers::new();
        let mut rng = Rng(0x9E37_79B9);
        let mut kind_map = std::collections::BTreeMap::new();
        for b in &bindings {
            if let Some(buf) = bufs.get_mut(&(b.group, b.binding)) {
                let mut k = vec![Kind::Int; buf.len().div_ceil(4)];
                fill(&module, b.ty, 0, buf, &mut k, &mut rng, domain(&src, b.group, b.binding));
                kind_map.insert((b.group, b.binding), k);
            }
        }
        kinds.clear();
        let input = bufs.clone();
        let opts = InterpOptions { max_steps: 1 << 28, ..InterpOptions::default() };
        if interp::run(&module, &entry, dispatch, &mut bufs, &opts).is_ok() {
            chosen = Some((input, bufs, kind_map));
            break;
        }
    }
    let Some((input, expected, kind_map)) = chosen else {
        return Outcome::Differs("the interpreter fails on every tried input size".into());
    };
    // Emulator parameters in the entry's order.
    let mut params: Vec<Vec<u8>> = Vec::new();
    let mut keys = Vec::new();
    for p in &info.params {
        if let Some(key) = dianran_ptx::abi::param_binding(p) {
            params.push(input.get(&key).cloned().unwrap_or_default());
            keys.push(Some(key));
        } else if p == "p_sizes" {
            let sizes: Vec<u8> = keys
                .iter()
                .flat_map(|k| {
                    let len = k.and_then(|k| input.get(&k)).map_or(0, |b| b.len() as u32);
                    len.to_le_bytes()
                })
                .collect();
            params.push(sizes);
            keys.push(None);
        } else if p == dianran_ptx::abi::IMMEDIATES_PARAM {
            // The immediate data by value, padded to the parameter's whole words.
            let mut b =
                input.get(&dianran_verify::buffers::IMMEDIATES).cloned().unwrap_or_default();
            b.resize(dianran_ptx::abi::immediates_len(b.len()), 0);
            params.push(b);
            keys.push(None);
        } else {
            return Outcome::Differs(format!("unknown parameter '{p}'"));
        }
    }
    let opts = EmuOptions { max_steps: 1 << 28, ..Default::default() };
    if let Err(e) =
        emu::run(&compiled.text, &info.ptx_name, &mut params, dispatch, info.workgroup_size, &opts)
    {
        let line =
            e.line.and_then(|l| compiled.text.lines().nth(l as usize - 1)).unwrap_or("").trim();
        return Outcome::Differs(format!("emulator error: {e}\n      at: {line}"));
    }
    let mut report = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let Some(key) = key else { continue };
        let (Some(want), Some(got)) = (expected.get(key), params.get(k)) else { continue };
        let kinds = kind_map.get(key);
        let mut bad = 0usize;
        for (w, (a, b)) in want.chunks(4).zip(got.chunks(4)).enumerate() {
            if a == b {
                continue;
            }
            let kind = kinds.and_then(|k| k.get(w)).copied().unwrap_or(Kind::Int);
            let word = |c: &[u8]| {
                let mut x = [0u8; 4];
                x[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(x)
            };
            let (x, y) = (word(a), word(b));
            let close = match kind {
                Kind::F32 => {
                    let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
                    (fx - fy).abs() <= 1e-5 * fx.abs().max(fy.abs()).max(1e-3)
                        || (fx.is_nan() && fy.is_nan())
                }
                Kind::F16 => (0..2).all(|h| {
                    let fx = half::f16::from_bits((x >> (16 * h)) as u16).to_f32();
                    let fy = half::f16::from_bits((y >> (16 * h)) as u16).to_f32();
                    fx == fy || (fx - fy).abs() <= 1e-3 * fx.abs().max(fy.abs()).max(1e-2)
                }),
                // The f64 this word belongs to (f64s are 8-byte aligned), within `verify`'s
                // f64 bound: the precise f64 library is within 1 ulp of the interpreter's.
                Kind::F64 => {
                    let at = 4 * (w & !1);
                    let f = |buf: &[u8]| {
                        buf.get(at..at + 8)
                            .and_then(|s| <[u8; 8]>::try_from(s).ok())
                            .map(f64::from_le_bytes)
                    };
                    match (f(want), f(got)) {
                        (Some(fx), Some(fy)) => dianran_verify::agree::f64s_agree(fx, fy),
                        _ => false,
                    }
                }
                Kind::Int => false,
            };
            if !close {
                if bad < 4 {
                    report.push(format!(
                        "@group({}) @binding({}) byte {}: interpreter {x:#010x} ({}), emulator {y:#010x} ({}) [{kind:?}]",
                        key.0,
                        key.1,
                        4 * w,
                        f32::from_bits(x),
                        f32::from_bits(y)
                    ));
                }
                bad += 1;
            }
        }
        if bad > 4 {
            report
                .push(format!("@group({}) @binding({}): {bad} words differ in all", key.0, key.1));
        }
    }
    if report.is_empty() {
        Outcome::Same
    } else {
        Outcome::Differs(report.join("\n      "))
    }
}

#[test]
fn emulated_ptx_matches_the_interpreter() {
    let mut names: Vec<String> = std::fs::read_dir(samples_dir())
        .map(|d| {
            d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default();
    names.retain(|n| n.ends_with(".wgsl"));
    names.sort();
    let (mut same, mut skipped, mut differs, mut known) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for name in &names {
        let cause = KNOWN.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
        match (compare_sample(name), cause) {
            (Outcome::Same, None) => same.push(name.clone()),
            (Outcome::Same, Some(_)) => same.push(format!("{name} (listed in KNOWN: remove it)")),
            (Outcome::Skipped(why), _) => skipped.push(format!("{name}: {why}")),
            (Outcome::Differs(why), Some(c)) => known.push(format!("{name} ({c}):\n      {why}")),
            (Outcome::Differs(why), None) => differs.push(format!("{name}:\n      {why}")),
        }
    }
    eprintln!("agree ({}): {}", same.len(), same.join(", "));
    eprintln!("skipped ({}):\n  {}", skipped.len(), skipped.join("\n  "));
    eprintln!("known differences ({}):\n  {}", known.len(), known.join("\n  "));
    eprintln!("differ ({}):\n  {}", differs.len(), differs.join("\n  "));
    assert!(
        differs.is_empty(),
        "{} samples differ between the PTX emulator and the interpreter:\n  {}",
        differs.len(),
        differs.join("\n  ")
    );
}
