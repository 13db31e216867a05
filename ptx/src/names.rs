//! PTX names for WGSL entry points and workgroup variables (docs/abi.md).
//!
//! A name is kept when it is ASCII, a valid PTX identifier, not a PTX reserved word and does
//! not start with the mangling prefix. Otherwise it becomes the prefix followed by its UTF-8
//! bytes, where ASCII letters and digits stay and every other byte (underscore included)
//! becomes `_` and two lowercase hex digits. The encoding is injective, so only a kept name
//! can collide with another kept name; [`check_unique`] reports such collisions.

use crate::error::{PtxError, PtxErrorKind};
use std::collections::HashMap;

/// Every PTX instruction opcode (PTX ISA 8.x, "Instructions" chapter) plus the predefined
/// identifier `WARP_SZ`. A kernel or variable with one of these names confuses ptxas.
pub const RESERVED: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "alloca",
    "and",
    "applypriority",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bmsk",
    "bra",
    "brev",
    "brkpt",
    "brx",
    "call",
    "clz",
    "clusterlaunchcontrol",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "createpolicy",
    "cvt",
    "cvta",
    "discard",
    "div",
    "dp2a",
    "dp4a",
    "elect",
    "ex2",
    "exit",
    "fence",
    "fma",
    "fns",
    "getctarank",
    "griddepcontrol",
    "isspacep",
    "istypep",
    "ld",
    "ldmatrix",
    "ldu",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mapa",
    "match",
    "max",
    "mbarrier",
    "membar",
    "min",
    "mma",
    "mov",
    "movmatrix",
    "mul",
    "mul24",
    "multimem",
    "nanosleep",
    "neg",
    "not",
    "or",
    "pmevent",
    "popc",
    "prefetch",
    "prefetchu",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setmaxnreg",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "slct",
    "sqrt",
    "st",
    "stackrestore",
    "stacksave",
    "stmatrix",
    "sub",
    "subc",
    "suld",
    "suq",
    "sured",
    "sust",
    "szext",
    "tanh",
    "tcgen05",
    "tensormap",
    "testp",
    "tex",
    "tld4",
    "trap",
    "txq",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vadd",
    "vadd2",
    "vadd4",
    "vavrg2",
    "vavrg4",
    "vmad",
    "vmax",
    "vmax2",
    "vmax4",
    "vmin",
    "vmin2",
    "vmin4",
    "vote",
    "vset",
    "vset2",
    "vset4",
    "vshl",
    "vshr",
    "vsub",
    "vsub2",
    "vsub4",
    "wgmma",
    "wmma",
    "xor",
    "WARP_SZ",
];

/// Whether `s` is a PTX reserved word (an opcode or `WARP_SZ`).
pub fn is_reserved(s: &str) -> bool {
    RESERVED.contains(&s)
}

/// Whether `s` is a PTX identifier: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`.
pub fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    let follow = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$';
    match b.split_first() {
        Some((c, rest)) if c.is_ascii_alphabetic() => rest.iter().all(follow),
        Some((b'_' | b'$' | b'%', rest)) => !rest.is_empty() && rest.iter().all(follow),
        _ => false,
    }
}

/// The PTX name of a WGSL entry point (prefix `yy`).
pub fn entry_name(wgsl: &str) -> String {
    name_with_prefix(wgsl, "yy")
}

/// The PTX name of a WGSL workgroup variable (prefix `ys`).
pub fn workgroup_var_name(wgsl: &str) -> String {
    name_with_prefix(wgsl, "ys")
}

/// Keeps `name` when it is a usable identifier not starting with `prefix`, else mangles it.
pub fn name_with_prefix(name: &str, prefix: &str) -> String {
    // `%` is a valid identifier start in PTX but marks registers; never keep it.
    let keep = is_identifier(name)
        && !name.starts_with('%')
        && !is_reserved(name)
        && !name.starts_with(prefix);
    if keep {
        return name.to_string();
    }
    let mut out = String::with_capacity(prefix.len() + name.len() * 3);
    out.push_str(prefix);
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(char::from(b));
        } else {
            // `_` and the byte in two lowercase hex digits (`é` is `_c3_a9`).
            out.push('_');
            out.push_str(&hex::encode([b]));
        }
    }
    out
}

/// Checks that no two source names map to one PTX name. `pairs` holds
/// `(source name, PTX name)`; the same source name listed twice is not a collision.
pub fn check_unique<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<(), PtxError> {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (src, ptx) in pairs {
        match seen.get(ptx) {
            Some(prev) if *prev != src => {
                return Err(PtxError::new(
                    PtxErrorKind::NameCollision,
                    format!("'{prev}' and '{src}' both map to the PTX name '{ptx}'"),
                ));
            }
            _ => {
                seen.insert(ptx, src);
            }
        }
    }
    Ok(())
}

/// Maps entry names with [`entry_name`] and checks they stay distinct.
pub fn entry_names(wgsl: &[&str]) -> Result<Vec<String>, PtxError> {
    let mapped: Vec<String> = wgsl.iter().map(|n| entry_name(n)).collect();
    check_unique(wgsl.iter().copied().zip(mapped.iter().map(String::as_str)))?;
    Ok(mapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_names() {
        assert_eq!(entry_name("main"), "main");
        assert_eq!(entry_name("my_var"), "my_var");
        assert_eq!(entry_name("_x"), "_x");
        assert_eq!(workgroup_var_name("tile"), "tile");
        // Not reserved: PTX is case-sensitive.
        assert_eq!(entry_name("Add"), "Add");
    }

    #[test]
    fn mangled_names() {
        // 加 = E5 8A A0, 倍 = E5 80 8D (UTF-8, from the Unicode tables).
        assert_eq!(entry_name("加倍"), "yy_e5_8a_a0_e5_80_8d");
        // Reserved words: letters stay.
        assert_eq!(entry_name("min"), "yymin");
        assert_eq!(entry_name("mov"), "yymov");
        assert_eq!(entry_name("WARP_SZ"), "yyWARP_5fSZ");
        // Starts with the prefix: '_' = 0x5f.
        assert_eq!(entry_name("yy_a"), "yyyy_5fa");
        assert_eq!(workgroup_var_name("ys1"), "ysys1");
        assert_eq!(workgroup_var_name("yy1"), "yy1");
        // 'é' = C3 A9.
        assert_eq!(workgroup_var_name("é_1"), "ys_c3_a9_5f1");
        assert_eq!(workgroup_var_name("add"), "ysadd");
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("$L__BB0_2"));
        assert!(is_identifier("a$b"));
        assert!(!is_identifier("_"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a-b"));
        assert!(!is_identifier(""));
        assert!(RESERVED.len() >= 120);
        for r in RESERVED {
            assert!(is_identifier(r), "{r}");
        }
    }

    #[test]
    fn collisions() {
        assert!(check_unique([("a", "a"), ("b", "b"), ("a", "a")]).is_ok());
        let e = check_unique([("tile", "tile"), ("x", "tile")]);
        assert_eq!(e.map_err(|e| e.kind), Err(PtxErrorKind::NameCollision));
        assert_eq!(
            entry_names(&["main", "加倍"]).ok(),
            Some(vec!["main".into(), "yy_e5_8a_a0_e5_80_8d".into()])
        );
    }
}
