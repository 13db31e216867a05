//! The set-up header of a WGSL sample: comment lines that say how to run a compute entry,
//! read by the sample tests, the real-world kernel tests and `dianran verify`.
//!
//! ```text
//! // dispatch: 4,2,1     workgroups per dimension, `X[,Y[,Z]]` (missing ones are 1)
//! // entry: scale_rows   the compute entry to run when the file has several
//! // texture: 0:1=16x8:rgba8unorm     a texture binding's extent and format (any number)
//! // sampler: 0:2=repeat,linear       a sampler binding's descriptor (any number)
//! // unordered: 0:2      a binding whose order depends on scheduling (any number)
//! // racy: REASON        every entry's result depends on scheduling
//! // racy(ENTRY): REASON one entry's result depends on scheduling
//! // runtime-len: 4096   elements per runtime-sized array of the test inputs
//! // buffer 0,1: u:16 f:0.5   words written at the start of binding (0, 1) (any number)
//! ```
//!
//! The last two kinds say what of a nondeterministic kernel is deterministic, and the agreement
//! engine ([`crate::engine`]) compares exactly that: `// unordered: G:B` compares binding
//! (G, B) as a multiset of 32-bit words (an atomic counter hands out its slots: the kept
//! values are deterministic, their order is not), and `// racy:` turns a difference into the
//! verdict *racy* with the reason given (a data race the kernel's authors put there on
//! purpose, or a result that depends on rounding choices WGSL leaves open).
//!
//! `// texture:` and `// sampler:` take the spellings of `--texture`/`--sampler`
//! ([`crate::texture::bindings`]), without a data file, and may appear once per binding.
//! Any other key counts on any line that starts with it after leading blanks; when it appears
//! twice, the first line wins. `// runtime-len:` and `// buffer` are the inputs of the
//! real-world kernel tests and of the math-cost bench: [`SampleHeader::apply_presets`] writes
//! the words over seeded random contents (`u:` u32, `i:` i32, `f:` f32, little-endian).

use crate::buffers::Buffers;
use crate::texture::{SamplerSpec, TextureSpec};
use std::fmt;

/// What a sample's header comments ask for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleHeader {
    /// `// dispatch: X[,Y[,Z]]`: workgroups per dimension. `None` for files without the line
    /// (vertex and fragment samples).
    pub dispatch: Option<[u32; 3]>,
    /// `// entry: NAME`: the compute entry to run. `None` when the line is absent, in which
    /// case the caller picks (usually the only `@compute` function).
    pub entry: Option<String>,
    /// `// texture: G:B=WxH[xD]:FORMAT[:LEVELS]` lines, in order.
    pub textures: Vec<TextureSpec>,
    /// `// sampler: G:B=ADDRESS,FILTER[,COMPARE]` lines, in order.
    pub samplers: Vec<SamplerSpec>,
    /// `// unordered: G:B` bindings, in order.
    pub unordered: Vec<(u32, u32)>,
    /// `// racy:` (entry `None`) and `// racy(ENTRY):` lines: (entry, reason).
    pub racy: Vec<(Option<String>, String)>,
    /// `// runtime-len: N`: elements per runtime-sized array of the test inputs.
    pub runtime_len: Option<u32>,
    /// `// buffer G,B: WORDS` lines: (group, binding, the words' little-endian bytes).
    pub presets: Vec<(u32, u32, Vec<u8>)>,
}

impl SampleHeader {
    /// Writes the `// buffer` words at the start of their bindings in `bufs`; an error when
    /// the entry does not use a binding or the words do not fit.
    pub fn apply_presets(&self, bufs: &mut Buffers) -> Result<(), String> {
        for (g, b, bytes) in &self.presets {
            let Some(buf) = bufs.get_mut(&(*g, *b)) else {
                return Err(format!("preset for ({g}, {b}): entry does not use that binding"));
            };
            let Some(dst) = buf.get_mut(..bytes.len()) else {
                return Err(format!("preset for ({g}, {b}) is longer than the buffer"));
            };
            dst.copy_from_slice(bytes);
        }
        Ok(())
    }

    /// What of `entry`'s results is deterministic, as the agreement engine compares it.
    pub fn nondeterminism(&self, entry: &str) -> Nondeterminism {
        let racy = self
            .racy
            .iter()
            .find(|(e, _)| e.as_deref().is_none_or(|e| e == entry))
            .map(|(_, why)| why.clone());
        Nondeterminism { unordered: self.unordered.clone(), racy }
    }
}

/// What of an entry's results depends on scheduling ([`SampleHeader::nondeterminism`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Nondeterminism {
    /// Bindings compared as multisets of 32-bit words.
    pub unordered: Vec<(u32, u32)>,
    /// Why results may differ from the reference: a difference is then *racy*, not a
    /// disagreement.
    pub racy: Option<String>,
}

/// A header line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderError {
    /// 1-based line number in the source.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for HeaderError {}

const DISPATCH: &str = "// dispatch:";
const ENTRY: &str = "// entry:";
const TEXTURE: &str = "// texture:";
const SAMPLER: &str = "// sampler:";
const UNORDERED: &str = "// unordered:";
const RACY: &str = "// racy";
const RUNTIME_LEN: &str = "// runtime-len:";
const BUFFER: &str = "// buffer ";

/// Reads the `// dispatch:` and `// entry:` lines of `source`.
///
/// A malformed value (`// dispatch: 4,x`, an empty `// entry:`) is an error rather than
/// being ignored, so a typo does not silently run the default.
pub fn header(source: &str) -> Result<SampleHeader, HeaderError> {
    let mut out = SampleHeader::default();
    for (i, line) in source.lines().enumerate() {
        let line = line.trim();
        let bad = |message: String| HeaderError { line: i + 1, message };
        if let Some(rest) = line.strip_prefix(DISPATCH) {
            if out.dispatch.is_none() {
                out.dispatch = Some(parse_dispatch(rest.trim()).map_err(bad)?);
            }
        } else if let Some(rest) = line.strip_prefix(ENTRY) {
            let name = rest.trim();
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(bad(format!("`{ENTRY}` needs one entry point name, got '{name}'")));
            }
            if out.entry.is_none() {
                out.entry = Some(name.to_string());
            }
        } else if let Some(rest) = line.strip_prefix(TEXTURE) {
            let spec = TextureSpec::parse(rest.trim()).map_err(bad)?;
            if spec.path.is_some() {
                return Err(bad(format!("`{TEXTURE}` takes no data file (the texels are seeded)")));
            }
            out.textures.push(spec);
        } else if let Some(rest) = line.strip_prefix(SAMPLER) {
            out.samplers.push(SamplerSpec::parse(rest.trim()).map_err(bad)?);
        } else if let Some(rest) = line.strip_prefix(UNORDERED) {
            for gb in rest.split_whitespace() {
                let parsed =
                    gb.split_once(':').and_then(|(g, b)| Some((g.parse().ok()?, b.parse().ok()?)));
                let Some(key) = parsed else {
                    return Err(bad(format!("`{UNORDERED}` takes bindings G:B, got '{gb}'")));
                };
                out.unordered.push(key);
            }
        } else if let Some(rest) = line.strip_prefix(RUNTIME_LEN) {
            let n =
                rest.trim().parse().map_err(|_| bad(format!("`{RUNTIME_LEN}` needs a number")))?;
            out.runtime_len.get_or_insert(n);
        } else if let Some(rest) = line.strip_prefix(BUFFER) {
            // Only `// buffer G,B: ...` is this key; `// buffer of floats` is a comment.
            if !rest.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let preset = parse_preset(rest).ok_or_else(|| {
                bad(format!("expected `{BUFFER}G,B: u:N i:N f:X ...`, got '{line}'"))
            })?;
            out.presets.push(preset);
        } else if let Some(rest) = line.strip_prefix(RACY) {
            let (entry, why) = match rest.strip_prefix('(') {
                Some(r) => match r.split_once("):") {
                    Some((e, why)) if !e.trim().is_empty() => (Some(e.trim().to_string()), why),
                    _ => return Err(bad(format!("expected `{RACY}(ENTRY): REASON`"))),
                },
                None => match rest.strip_prefix(':') {
                    Some(why) => (None, why),
                    // Another word that starts with "racy" (`// racy-ish`): not this key.
                    None => continue,
                },
            };
            if why.trim().is_empty() {
                return Err(bad(format!("`{RACY}` needs a reason")));
            }
            out.racy.push((entry, why.trim().to_string()));
        }
    }
    Ok(out)
}

/// `G,B: u:16 i:-1 f:0.5`: the binding and the words' little-endian bytes.
fn parse_preset(spec: &str) -> Option<(u32, u32, Vec<u8>)> {
    let (gb, words) = spec.split_once(':')?;
    let (g, b) = gb.split_once(',')?;
    let mut bytes = Vec::new();
    for w in words.split_whitespace() {
        let (ty, v) = w.split_once(':')?;
        match ty {
            "u" => bytes.extend(v.parse::<u32>().ok()?.to_le_bytes()),
            "i" => bytes.extend(v.parse::<i32>().ok()?.to_le_bytes()),
            "f" => bytes.extend(v.parse::<f32>().ok()?.to_le_bytes()),
            _ => return None,
        }
    }
    Some((g.trim().parse().ok()?, b.trim().parse().ok()?, bytes))
}

/// Parses a workgroup count `X[,Y[,Z]]` (blanks around numbers allowed); missing dimensions
/// are 1. The error says which part is wrong.
pub fn parse_dispatch(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X[,Y[,Z]], got '{s}'"));
    }
    let mut out = [1u32; 3];
    for (slot, p) in out.iter_mut().zip(&parts) {
        *slot = p
            .parse()
            .map_err(|_| format!("'{p}' is not a workgroup count (a non-negative integer)"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_dispatch_and_entry() {
        let src = "// sample\n// dispatch: 4,2,1\n// entry: scale_rows\n@compute fn f() {}\n";
        let h = header(src);
        assert_eq!(
            h,
            Ok(SampleHeader {
                dispatch: Some([4, 2, 1]),
                entry: Some("scale_rows".into()),
                ..SampleHeader::default()
            })
        );
    }

    #[test]
    fn missing_dimensions_are_one_and_blanks_are_allowed() {
        assert_eq!(header("  //   dispatch: 7").map(|h| h.dispatch), Ok(None));
        assert_eq!(header("  // dispatch:  7 , 3 ").map(|h| h.dispatch), Ok(Some([7, 3, 1])));
        assert_eq!(parse_dispatch("5"), Ok([5, 1, 1]));
        assert_eq!(parse_dispatch("2, 3, 4"), Ok([2, 3, 4]));
    }

    #[test]
    fn runtime_len_and_buffer_presets() {
        let src = "// runtime-len: 64\n// buffer 0,1: u:1000 i:-2 f:0.5\n// buffer of floats\n";
        let h = header(src).expect("valid header");
        assert_eq!(h.runtime_len, Some(64));
        let mut bytes = 1000u32.to_le_bytes().to_vec();
        bytes.extend((-2i32).to_le_bytes());
        bytes.extend(0.5f32.to_le_bytes());
        assert_eq!(h.presets, vec![(0, 1, bytes.clone())]);
        let mut bufs = Buffers::new();
        bufs.insert((0, 1), vec![0xAA; 16]);
        h.apply_presets(&mut bufs).expect("fits");
        assert_eq!(bufs[&(0, 1)][..12], bytes[..]);
        assert_eq!(bufs[&(0, 1)][12..], [0xAA; 4]);
        bufs.insert((0, 1), vec![0; 8]);
        assert!(h.apply_presets(&mut bufs).is_err(), "12 bytes do not fit in 8");
        assert!(header("// buffer 0,1: q:3").is_err());
        assert!(header("// runtime-len: many").is_err());
    }

    #[test]
    fn absent_lines_are_none() {
        let h = header("@vertex fn v() -> @builtin(position) vec4<f32> { return vec4(0.0); }");
        assert_eq!(h, Ok(SampleHeader::default()));
    }

    #[test]
    fn first_line_of_a_key_wins() {
        let h = header("// dispatch: 1,1,1\n// entry: a\n// dispatch: 2,2,2\n// entry: b\n");
        assert_eq!(
            h,
            Ok(SampleHeader {
                dispatch: Some([1, 1, 1]),
                entry: Some("a".into()),
                ..SampleHeader::default()
            })
        );
    }

    #[test]
    fn malformed_lines_are_errors_with_their_line() {
        let e = header("\n// dispatch: 4,x,1\n").err();
        assert_eq!(e.as_ref().map(|e| e.line), Some(2));
        assert!(e.is_some_and(|e| e.message.contains("'x'")));
        assert_eq!(header("// dispatch: 1,2,3,4").err().map(|e| e.line), Some(1));
        assert_eq!(header("// dispatch:").err().map(|e| e.line), Some(1));
        assert_eq!(header("// entry:   ").err().map(|e| e.line), Some(1));
        assert_eq!(header("// entry: a b").err().map(|e| e.line), Some(1));
    }

    #[test]
    fn texture_and_sampler_lines_accumulate() {
        let h = header(
            "// texture: 0:0=8x8:rgba16float:2\n// sampler: 0:1=repeat,linear\n// texture: 0:2=4:r32uint\n",
        )
        .unwrap();
        assert_eq!(h.textures.len(), 2);
        assert_eq!((h.textures[0].levels, h.textures[1].binding), (2, 2));
        assert_eq!(h.samplers[0].binding, 1);
        assert_eq!(header("\n// sampler: 0:1=wrap,linear").err().map(|e| e.line), Some(2));
        assert!(header("// texture: 0:0=f.bin:4x4:r32uint").is_err());
    }

    #[test]
    fn nondeterminism_lines() {
        let h = header("// unordered: 0:2 1:3\n// racy(a): reads late\n// racy: all of them\n")
            .unwrap();
        assert_eq!(h.unordered, vec![(0, 2), (1, 3)]);
        let a = h.nondeterminism("a");
        assert_eq!(a.racy.as_deref(), Some("reads late"));
        assert_eq!(h.nondeterminism("b").racy.as_deref(), Some("all of them"));
        assert_eq!(header("// racy(a) no colon").err().map(|e| e.line), Some(1));
        assert_eq!(header("// racy:  ").err().map(|e| e.line), Some(1));
        assert_eq!(header("\n// unordered: 0-2").err().map(|e| e.line), Some(2));
        assert_eq!(header("// racy(): x").err().map(|e| e.line), Some(1));
    }

    #[test]
    fn other_comments_are_ignored() {
        let h = header("// buffer of floats\n// dispatcher: 3\n// entry point below\n");
        assert_eq!(h, Ok(SampleHeader::default()));
    }
}
