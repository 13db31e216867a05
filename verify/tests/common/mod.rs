//! Shared helpers for the sample reference tests: a deterministic PRNG, byte packing in
//! WGSL's host-shareable layout (little-endian), running a sample through the frontend and
//! the reference interpreter, and comparisons that report the first mismatching indices.

#![allow(dead_code)]

use std::path::PathBuf;

use dianran_verify::interp::{self, Buffers, InterpOptions};
use dianran_verify::samples;

/// xorshift32: small, deterministic, no external crates.
pub struct Rng(u32);

impl Rng {
    /// A generator; `seed` 0 is replaced because xorshift would stay at 0.
    pub fn new(seed: u32) -> Rng {
        Rng(if seed == 0 { 0x9e37_79b9 } else { seed })
    }

    /// Next raw 32-bit value.
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant for test data.
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn i32_in(&mut self, lo: i32, hi: i32) -> i32 {
        let span = (hi as i64 - lo as i64 + 1) as u64;
        (lo as i64 + (self.next_u32() as u64 % span) as i64) as i32
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// `n` values from `f`.
    pub fn vec<T>(&mut self, n: usize, mut f: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        (0..n).map(|_| f(self)).collect()
    }
}

/// Path of a sample file.
pub fn sample_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/samples").join(name)
}

/// The dispatch and entry of a compute sample from its header
/// ([`dianran_verify::samples::header`]); without an `// entry:` line, the only `@compute`
/// function. Panics on a malformed or missing `// dispatch:` line.
pub fn sample_header(src: &str) -> ([u32; 3], String) {
    let header = samples::header(src).unwrap_or_else(|e| panic!("bad sample header: {e}"));
    let dispatch = header.dispatch.expect("compute sample without a `// dispatch:` header");
    let entry = header.entry.unwrap_or_else(|| {
        let names = compute_entries(src);
        assert_eq!(names.len(), 1, "several @compute entries and no `// entry:` header");
        names[0].clone()
    });
    (dispatch, entry)
}

/// Names of the `@compute` functions of a source (text scan; samples keep attributes and
/// `fn` on one line or the attribute directly on the line before).
pub fn compute_entries(src: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut pending = false;
    for line in src.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.contains("@compute") {
            pending = true;
        }
        if pending {
            if let Some(pos) = t.find("fn ") {
                let rest = &t[pos + 3..];
                let end = rest.find('(').unwrap_or(rest.len());
                names.push(rest[..end].trim().to_string());
                pending = false;
            }
        }
    }
    names
}

/// Compiles sample `name` and runs its entry on `buffers` with the given subgroup size.
pub fn run_sample(name: &str, buffers: Buffers, subgroup_size: u32) -> Buffers {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    let (dispatch, entry) = sample_header(&src);
    run_entry(name, &entry, dispatch, buffers, subgroup_size)
}

/// Compiles sample `name` and runs `entry` over `dispatch` (for samples with several
/// entries, or a dispatch other than the header's).
pub fn run_entry(
    name: &str,
    entry: &str,
    dispatch: [u32; 3],
    mut buffers: Buffers,
    subgroup_size: u32,
) -> Buffers {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    let module = match dianran_frontend::compile(name, &src, &Default::default()) {
        Ok(m) => m,
        Err(d) => panic!("{name}: frontend failed:\n{d}"),
    };
    let opts = InterpOptions { subgroup_size, ..InterpOptions::default() };
    if let Err(d) = interp::run(&module, entry, dispatch, &mut buffers, &opts) {
        panic!("{name}: interpreter failed: {d:?}");
    }
    buffers
}

/// Compiles sample `name` and runs its entry (subgroups of 32) with `buffers` and the
/// textures and samplers in `textures`, which hold the storage textures' contents after the
/// run.
pub fn run_textured(
    name: &str,
    mut buffers: Buffers,
    textures: &mut dianran_verify::texture::TextureBindings,
) -> Buffers {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    let (dispatch, entry) = sample_header(&src);
    let module = dianran_frontend::compile(name, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: frontend failed:\n{d}"));
    let opts = InterpOptions::default();
    if let Err(d) =
        interp::run_with_textures(&module, &entry, dispatch, &mut buffers, textures, &opts)
    {
        panic!("{name}: interpreter failed: {d:?}");
    }
    buffers
}

/// Runs with the default subgroup size of 32.
pub fn run(name: &str, buffers: Buffers) -> Buffers {
    run_sample(name, buffers, 32)
}

/// Builds a `Buffers` map from `(binding, bytes)` pairs in group 0.
pub fn group0(list: Vec<(u32, Vec<u8>)>) -> Buffers {
    list.into_iter().map(|(b, bytes)| ((0, b), bytes)).collect()
}

/// Runs sample `name` (subgroups of 32) with `buffers` bound in order at bindings 0, 1, …
/// of group 0.
pub fn run_bound(name: &str, buffers: Vec<Vec<u8>>) -> Buffers {
    run(name, group0((0..).zip(buffers).collect()))
}

/// Runs sample `name` (subgroups of 32) with `inputs` bound in order at bindings 0, 1, … of
/// group 0 and a zero-filled output of `out_bytes` bytes at the binding after them; returns
/// the output's bytes.
pub fn run_io(name: &str, mut inputs: Vec<Vec<u8>>, out_bytes: usize) -> Vec<u8> {
    let binding = inputs.len() as u32;
    inputs.push(zeros(out_bytes));
    let mut bufs = run_bound(name, inputs);
    bufs.remove(&(0, binding)).expect("output buffer missing after run")
}

/// Reference outputs of a kernel that writes a fixed group of values per input element: the
/// values `f` gives for each element of `items`, concatenated in order.
pub fn per_item<T, I: IntoIterator>(
    items: impl IntoIterator<Item = T>,
    f: impl FnMut(T) -> I,
) -> Vec<I::Item> {
    items.into_iter().flat_map(f).collect()
}

/// The components of `K`-vectors (or matrix columns), one after the other.
pub fn flat<T: Copy, const K: usize>(v: &[[T; K]]) -> Vec<T> {
    v.iter().flatten().copied().collect()
}

/// The bytes of buffer (0, binding) after a run.
pub fn out(bufs: &Buffers, binding: u32) -> &[u8] {
    bufs.get(&(0, binding)).map(|v| v.as_slice()).expect("buffer missing after run")
}

/// Little-endian bytes of u32 values.
pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// Little-endian bytes of i32 values.
pub fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// Little-endian bytes of f32 values.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// Little-endian bytes of f16 values (stride 2, as in `array<f16>`).
pub fn f16_bytes(v: &[half::f16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
/// A zero-filled buffer of `n` bytes.
pub fn zeros(n: usize) -> Vec<u8> {
    vec![0; n]
}

/// The u32 at byte offset `off`.
pub fn get_u32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
/// The i32 at byte offset `off`.
pub fn get_i32(b: &[u8], off: usize) -> i32 {
    get_u32(b, off) as i32
}
/// The f32 at byte offset `off`.
pub fn get_f32(b: &[u8], off: usize) -> f32 {
    f32::from_bits(get_u32(b, off))
}
/// The f16 at byte offset `off`.
pub fn get_f16(b: &[u8], off: usize) -> half::f16 {
    half::f16::from_le_bytes([b[off], b[off + 1]])
}
/// Writes a u32 at byte offset `off`.
pub fn set_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
/// Writes an f32 at byte offset `off`.
pub fn set_f32(b: &mut [u8], off: usize, v: f32) {
    set_u32(b, off, v.to_bits());
}

/// A buffer read as u32 values.
pub fn u32s(b: &[u8]) -> Vec<u32> {
    (0..b.len() / 4).map(|i| get_u32(b, 4 * i)).collect()
}
/// A buffer read as i32 values.
pub fn i32s(b: &[u8]) -> Vec<i32> {
    (0..b.len() / 4).map(|i| get_i32(b, 4 * i)).collect()
}
/// A buffer read as f32 values.
pub fn f32s(b: &[u8]) -> Vec<f32> {
    (0..b.len() / 4).map(|i| get_f32(b, 4 * i)).collect()
}
/// A buffer read as f16 values.
pub fn f16s(b: &[u8]) -> Vec<half::f16> {
    (0..b.len() / 2).map(|i| get_f16(b, 2 * i)).collect()
}

/// Exact comparison of integer-like values; reports up to 8 mismatches.
pub fn check_eq<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length differs");
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(i, (g, w))| format!("  [{i}] expected {w:?}, got {g:?}"))
        .collect();
    assert!(bad.is_empty(), "{what}: mismatches\n{}", bad.join("\n"));
}

/// Float comparison: |got - want| <= abs + rel * |want| (NaN never matches).
pub fn check_f32(what: &str, got: &[f32], want: &[f32], abs: f32, rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length differs");
    let bad: Vec<String> = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (g, w))| !close(**g, **w, abs, rel))
        .take(8)
        .map(|(i, (g, w))| format!("  [{i}] expected {w:e}, got {g:e}"))
        .collect();
    assert!(bad.is_empty(), "{what}: mismatches (abs {abs:e}, rel {rel:e})\n{}", bad.join("\n"));
}

/// Whether `got` is within `abs + rel * |want|` of `want`; equal infinities match.
pub fn close(got: f32, want: f32, abs: f32, rel: f32) -> bool {
    if got == want {
        return true;
    }
    (got - want).abs() <= abs + rel * want.abs()
}

/// Runs sample `name` (header dispatch and entry) on executor `exec` (precise PTX math, no
/// TF32 for the PTX executors) with `buffers` bound at bindings 0, 1, … of group 0.
pub fn run_bound_on(
    exec: dianran_verify::executors::Executor,
    name: &str,
    buffers: Vec<Vec<u8>>,
) -> Buffers {
    run_on(exec, name, group0((0..).zip(buffers).collect()))
}

/// Runs sample `name` (header dispatch and entry) on executor `exec` (precise PTX math, no
/// TF32 for the PTX executors) with `input` (immediate data under `buffers::IMMEDIATES`).
pub fn run_on(exec: dianran_verify::executors::Executor, name: &str, input: Buffers) -> Buffers {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    let (dispatch, entry) = sample_header(&src);
    let module = dianran_frontend::compile(name, &src, &Default::default())
        .unwrap_or_else(|d| panic!("{name}: frontend failed:\n{d}"));
    let job = dianran_verify::executors::Job::new(name, &src, &module, &entry, dispatch);
    dianran_verify::executors::run(exec, &job, &input)
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", exec.name()))
}
