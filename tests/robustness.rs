//! No input may panic or hang (SPEC §5): every sample and error sample, truncated at about 40
//! points and mutated about 100 ways (deterministically), goes through the frontend inside
//! `catch_unwind`; whatever compiles goes through every back end (PTX with and without TF32,
//! MSL, WGSL) and runs each compute entry on the interpreter with small buffers and a step
//! limit.

use dianran::frontend::ir::Stage;
use dianran::verify::buffers::default_buffers;
use dianran::verify::interp::{self, InterpOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CUTS: usize = 40;
const MUTANTS: usize = 150;

/// xorshift64*: small, deterministic, good enough to pick mutation sites.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn wgsl_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    for dir in ["samples", "errors"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "wgsl")),
            );
        }
    }
    files.sort();
    files
}

/// Byte ranges of tokens: identifier/number runs, and single other characters.
fn tokens(src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut it = src.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut end = i + c.len_utf8();
        if c.is_alphanumeric() || c == '_' {
            while let Some(&(j, d)) = it.peek() {
                if d.is_alphanumeric() || d == '_' || d == '.' {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
        }
        out.push((i, end));
    }
    out
}

/// The truncated versions: ~CUTS evenly spaced byte cuts (a cut inside a multi-byte
/// character leaves a replacement character) plus the boundaries around non-ASCII chars.
fn truncations(src: &str) -> Vec<String> {
    let bytes = src.as_bytes();
    let mut cuts: Vec<usize> = (0..=CUTS).map(|k| k * bytes.len() / CUTS).collect();
    for (i, c) in src.char_indices().filter(|(_, c)| !c.is_ascii()).take(8) {
        cuts.extend([i, i + 1, i + c.len_utf8()]);
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.into_iter()
        .map(|n| String::from_utf8_lossy(&bytes[..n.min(bytes.len())]).into_owned())
        .collect()
}

const INSERTS: [&str; 8] = ["加", "é", "\u{200B}", "🦀", "\u{FEFF}", "\u{0301}", "ß", "\u{FFFD}"];

const EDGE_NUMBERS: [&str; 10] = [
    "0",
    "1",
    "0u",
    "4294967295u",
    "2147483647",
    "(-2147483647 - 1)",
    "65536",
    "1e38",
    "0.0",
    "31u",
];

/// One deterministic mutant of `src`.
fn mutate(src: &str, rng: &mut Rng) -> String {
    let toks = tokens(src);
    match rng.below(7) {
        0 => {
            // Flip one bit of one byte.
            let mut b = src.as_bytes().to_vec();
            if !b.is_empty() {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        1 if !toks.is_empty() => {
            let (a, e) = toks[rng.below(toks.len())];
            format!("{}{}", &src[..a], &src[e..])
        }
        2 if !toks.is_empty() => {
            let (a, e) = toks[rng.below(toks.len())];
            format!("{}{} {}", &src[..e], &src[a..e], &src[e..])
        }
        3 => {
            let mut lines: Vec<&str> = src.lines().collect();
            if lines.len() > 1 {
                let i = rng.below(lines.len());
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            lines.join("\n")
        }
        4 if !toks.is_empty() => {
            // Replace a token with another token of the file.
            let (a, e) = toks[rng.below(toks.len())];
            let (c, d) = toks[rng.below(toks.len())];
            format!("{}{}{}", &src[..a], &src[c..d], &src[e..])
        }
        5 => {
            // Replace a number with an edge value: likely to still compile, and to reach
            // the interpreter with extreme sizes, indices and shift amounts.
            let nums: Vec<(usize, usize)> = toks
                .iter()
                .copied()
                .filter(|&(a, _)| src[a..].starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            if nums.is_empty() {
                return src.to_string();
            }
            let (a, e) = nums[rng.below(nums.len())];
            format!("{}{}{}", &src[..a], EDGE_NUMBERS[rng.below(EDGE_NUMBERS.len())], &src[e..])
        }
        _ => {
            let mut at = rng.below(src.len() + 1);
            while !src.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{}", &src[..at], INSERTS[rng.below(INSERTS.len())], &src[at..])
        }
    }
}

/// What happened to one input.
enum Outcome {
    Rejected,
    /// Compiled; the number of entry points run.
    Compiled(usize),
    Panicked(String),
}

/// Compiles `src` and runs every compute entry, catching panics.
fn exercise(name: &str, src: &str) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Ok(module) = dianran::frontend::compile(name, src, &Default::default()) else {
            return Outcome::Rejected;
        };
        // Every back end, with and without TF32: a diagnostic is fine, a panic is not.
        for tf32 in [false, true] {
            let _ = dianran::ptx::codegen::compile_module(
                &module,
                &dianran::ptx::codegen::Options { sm: 80, tf32, ..Default::default() },
            );
        }
        let _ = dianran::msl::write_module(&module);
        let _ = dianran::wgsl::write_module(&module, &Default::default());
        let mut ran = 0;
        for ep in module.entry_points.iter().filter(|e| e.stage == Stage::Compute) {
            let Ok(mut buffers) = default_buffers(&module, &ep.name, 16) else { continue };
            let opts =
                InterpOptions { subgroup_size: 32, max_steps: 200_000, ..Default::default() };
            let _ = interp::run(&module, &ep.name, [1, 1, 1], &mut buffers, &opts);
            ran += 1;
        }
        Outcome::Compiled(ran)
    }));
    match result {
        Ok(o) => o,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome::Panicked(msg)
        }
    }
}

#[test]
fn truncated_and_mutated_sources_never_panic() {
    let started = Instant::now();
    let files = wgsl_files();
    let mut jobs: Vec<(String, String, String)> = Vec::new(); // (file, what, text)
    for (k, path) in files.iter().enumerate() {
        let Ok(src) = std::fs::read_to_string(path) else { continue };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for (i, t) in truncations(&src).into_iter().enumerate() {
            jobs.push((name.clone(), format!("truncation {i} ({} bytes)", t.len()), t));
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (k as u64 + 1));
        for i in 0..MUTANTS {
            jobs.push((name.clone(), format!("mutant {i}"), mutate(&src, &mut rng)));
        }
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    let chunk = jobs.len().div_ceil(threads.max(1)).max(1);
    let results: Vec<(Vec<String>, usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut failures, mut compiled, mut runs) = (Vec::new(), 0, 0);
                    for (file, what, text) in part {
                        match exercise(file, text) {
                            Outcome::Rejected => {}
                            Outcome::Compiled(n) => {
                                compiled += 1;
                                runs += n;
                            }
                            Outcome::Panicked(m) => failures.push(format!(
                                "{file} {what}: panic: {m}\n--- input ---\n{text}\n---"
                            )),
                        }
                    }
                    (failures, compiled, runs)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| (vec!["worker thread died".to_string()], 0, 0)))
            .collect()
    });
    let compiled: usize = results.iter().map(|r| r.1).sum();
    let runs: usize = results.iter().map(|r| r.2).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.0).collect();
    eprintln!(
        "robustness: {} inputs from {} files ({compiled} compiled, {runs} interpreter runs) in {:.1?}",
        jobs.len(),
        files.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{} input(s) panicked:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn helpers_are_deterministic() {
    let mut a = Rng(7);
    let mut b = Rng(7);
    assert_eq!((a.next(), a.next()), (b.next(), b.next()));
    assert_eq!(tokens("let x1 = a.b;"), vec![(0, 3), (4, 6), (7, 8), (9, 12), (12, 13)]);
    let t = truncations("a加b");
    assert!(t.iter().any(|s| s == "a\u{FFFD}"), "{t:?}");
    assert!(t.iter().any(|s| s == "a加"), "{t:?}");
}
