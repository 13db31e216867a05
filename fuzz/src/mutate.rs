//! Mutation of real kernels, and running a mutant through every command of the `dianran`
//! binary: no input may make it panic, die on a signal or hang (docs/errors.md).
//!
//! Mutants are byte- and token-level edits (`tests/robustness.rs` uses the same ones in
//! process): flip a bit, delete or duplicate a token, swap two lines, replace a token by
//! another of the file, replace a number by an edge value, insert a non-ASCII character, or
//! truncate. Most mutants are rejected by naga; that is an ordinary error (exit 1).

use crate::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Byte ranges of tokens: identifier/number runs, and single other characters.
pub fn tokens(src: &str) -> Vec<(usize, usize)> {
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

/// Truncated versions of `src`: `cuts + 1` evenly spaced byte cuts (a cut inside a
/// multi-byte character leaves a replacement character) plus the boundaries around the
/// first non-ASCII characters.
pub fn truncations(src: &str, cuts: usize) -> Vec<String> {
    let bytes = src.as_bytes();
    let mut at: Vec<usize> = (0..=cuts).map(|k| k * bytes.len() / cuts.max(1)).collect();
    for (i, c) in src.char_indices().filter(|(_, c)| !c.is_ascii()).take(8) {
        at.extend([i, i + 1, i + c.len_utf8()]);
    }
    at.sort_unstable();
    at.dedup();
    at.into_iter()
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

fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(u32::try_from(n).unwrap_or(u32::MAX)) as usize
}

/// One deterministic mutant of `src`.
pub fn mutant(src: &str, rng: &mut Rng) -> String {
    let toks = tokens(src);
    match rng.below(8) {
        0 => {
            // Flip one bit of one byte.
            let mut b = src.as_bytes().to_vec();
            if !b.is_empty() {
                let i = below(rng, b.len());
                b[i] ^= 1 << rng.below(8);
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        1 if !toks.is_empty() => {
            let (a, e) = toks[below(rng, toks.len())];
            format!("{}{}", &src[..a], &src[e..])
        }
        2 if !toks.is_empty() => {
            let (a, e) = toks[below(rng, toks.len())];
            format!("{}{} {}", &src[..e], &src[a..e], &src[e..])
        }
        3 => {
            let mut lines: Vec<&str> = src.lines().collect();
            if lines.len() > 1 {
                let i = below(rng, lines.len());
                let j = below(rng, lines.len());
                lines.swap(i, j);
            }
            lines.join("\n")
        }
        4 if !toks.is_empty() => {
            // Replace a token with another token of the file.
            let (a, e) = toks[below(rng, toks.len())];
            let (c, d) = toks[below(rng, toks.len())];
            format!("{}{}{}", &src[..a], &src[c..d], &src[e..])
        }
        5 => {
            // Replace a number with an edge value: likely to still compile, and to reach
            // the executors with extreme sizes, indices and shift amounts.
            let nums: Vec<(usize, usize)> = toks
                .iter()
                .copied()
                .filter(|&(a, _)| src[a..].starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            if nums.is_empty() {
                return src.to_string();
            }
            let (a, e) = nums[below(rng, nums.len())];
            format!("{}{}{}", &src[..a], EDGE_NUMBERS[below(rng, EDGE_NUMBERS.len())], &src[e..])
        }
        6 => {
            let cuts = truncations(src, 40);
            cuts[below(rng, cuts.len())].clone()
        }
        _ => {
            let mut at = below(rng, src.len() + 1);
            while !src.is_char_boundary(at) {
                at -= 1;
            }
            format!("{}{}{}", &src[..at], INSERTS[below(rng, INSERTS.len())], &src[at..])
        }
    }
}

/// The `.wgsl` files directly in `dirs`, sorted.
pub fn corpus(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for d in dirs {
        if let Ok(rd) = std::fs::read_dir(d) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "wgsl")),
            );
        }
    }
    files.sort();
    files
}

/// How one command ended.
#[derive(Clone, Debug)]
pub struct Ended {
    /// The command line after `dianran`.
    pub args: Vec<String>,
    /// Exit code (`None`: killed by a signal, or by us after the time limit).
    pub code: Option<i32>,
    /// Ran past its time limit (and was killed).
    pub timed_out: bool,
    /// Its standard error.
    pub stderr: String,
}

impl Ended {
    /// A crash: an exit other than 0 or 1, a signal, `panicked` on stderr, or a timeout.
    pub fn crashed(&self) -> bool {
        self.timed_out || !matches!(self.code, Some(0 | 1)) || self.stderr.contains("panicked")
    }

    /// One line saying how it ended.
    pub fn describe(&self) -> String {
        let how = if self.timed_out {
            "ran past its time limit".to_string()
        } else {
            match self.code {
                Some(c) => format!("exited with {c}"),
                None => "was killed by a signal".to_string(),
            }
        };
        format!("`dianran {}` {how}", self.args.join(" "))
    }
}

/// Runs `exe args` with stdout discarded, stderr kept (in `scratch`), killed after `limit`.
pub fn run_command(
    exe: &Path,
    args: &[String],
    limit: Duration,
    scratch: &Path,
) -> std::io::Result<Ended> {
    let err_path = scratch.with_extension("stderr");
    let err = std::fs::File::create(&err_path)?;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()?;
    let start = Instant::now();
    let (code, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (status.code(), false);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = std::fs::read(&err_path).map(|b| String::from_utf8_lossy(&b).into_owned());
    let _ = std::fs::remove_file(&err_path);
    Ok(Ended { args: args.to_vec(), code, timed_out, stderr: stderr.unwrap_or_default() })
}

/// The command lines a mutant at `file` goes through: every command of the tool (`run` on
/// the interpreter and on the emulator, with `entry` as the entry point). `check` comes
/// first: when it rejects the mutant, the others would stop at the same parse and validation,
/// and the campaign runs only it.
pub fn command_lines(file: &str, entry: &str, verify_timeout: u64) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["check", file]),
        s(&["ssa", file]),
        s(&["wgsl", file]),
        s(&["msl", file]),
        s(&["ptx", file]),
        s(&["ptx", file, "--fast-math", "--tf32", "--sm", "90"]),
        s(&["generate", file]),
        s(&["run", file, "--entry", entry, "--dispatch", "2", "--len", "64"]),
        s(&["run", file, "--entry", entry, "--dispatch", "2", "--len", "64", "--executor", "emu"]),
        s(&["verify", file, "--len", "64", "--timeout", &verify_timeout.to_string()]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_are_deterministic() {
        assert_eq!(tokens("let x1 = a.b;"), vec![(0, 3), (4, 6), (7, 8), (9, 12), (12, 13)]);
        let t = truncations("a加b", 40);
        assert!(t.iter().any(|s| s == "a\u{FFFD}"), "{t:?}");
        assert!(t.iter().any(|s| s == "a加"), "{t:?}");
        let src = "fn f() -> u32 { return 7u; }";
        let a: Vec<String> = (0..20).map(|i| mutant(src, &mut Rng::new(i))).collect();
        let b: Vec<String> = (0..20).map(|i| mutant(src, &mut Rng::new(i))).collect();
        assert_eq!(a, b);
        assert!(a.iter().any(|m| m != src));
    }

    #[test]
    fn crash_rules() {
        let e = |code, timed_out, stderr: &str| Ended {
            args: vec!["ptx".into()],
            code,
            timed_out,
            stderr: stderr.into(),
        };
        assert!(!e(Some(0), false, "").crashed());
        assert!(!e(Some(1), false, "error: expected `;`").crashed());
        assert!(e(Some(2), false, "").crashed());
        assert!(e(None, false, "").crashed());
        assert!(e(Some(0), true, "").crashed());
        assert!(e(Some(1), false, "thread 'main' panicked at x.rs").crashed());
    }
}
