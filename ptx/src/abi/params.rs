//! Parameter names of a PTX entry and what each one carries (docs/abi.md, "Parameters").
//!
//! Every parameter's role is readable from its name alone, so a host that has only the entry
//! table ([`super::EntryInfo::params`]) can marshal it: [`ParamKind::of`] is the one parser,
//! and each `*_name` function here is the one writer of its form.
//!
//! | name | kind | `.param` type | value |
//! |---|---|---|---|
//! | `p_g<G>_b<B>` | [`ParamKind::Slot`] | `.u64` | buffer pointer, or a texture/surface object |
//! | `p_g<G>_b<B>_s<SG>_b<SB>` | [`ParamKind::Pair`] | `.u64` | texture object with the sampler's state |
//! | `…_s<SG>_b<SB>_cmp` | [`ParamKind::CompareWord`] | `.u32` | [`compare_word`](COMPARE_FN_MASK) bits |
//! | `p_sizes` | [`ParamKind::Sizes`] | `.u64` | pointer to one `u32` byte size per slot |
//! | `p_immediates` | [`ParamKind::Immediates`] | `.align 16 .b8[N]` | the immediate bytes |

use dianran_frontend::ir;

/// A `(group, binding)` pair.
pub type BindingKey = (u32, u32);

/// The name of the parameter that holds an entry's immediate data by value:
/// `.param .align 16 .b8 p_immediates[N]`, N from [`immediates_len`].
pub const IMMEDIATES_PARAM: &str = "p_immediates";

/// The name of the buffer-sizes parameter (entries that use `arrayLength`).
pub const SIZES_PARAM: &str = "p_sizes";

/// What [`compare_param_name`] appends to the pair's name.
pub const COMPARE_SUFFIX: &str = "_cmp";

/// Bits 0..=2 of a compare word: the sampler's compare function in WebGPU's
/// `GPUCompareFunction` order (never 0, less 1, equal 2, less-equal 3, greater 4, not-equal
/// 5, greater-equal 6, always 7). The order is a mask: bit 0 passes `reference < texel`,
/// bit 1 `==`, bit 2 `>`.
pub const COMPARE_FN_MASK: u32 = 0x7;

/// Bit 3 of a compare word: `textureSampleCompareLevel` filters linearly (the sampler's
/// magnification filter); clear: nearest.
pub const COMPARE_LINEAR_BIT: u32 = 0x8;

/// What one entry parameter carries, read from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// `p_g<G>_b<B>`: the binding's buffer pointer, or the texture or surface object of a
    /// texture used on its own; a placeholder when the entry does not use the binding.
    Slot(BindingKey),
    /// `p_g<G>_b<B>_s<SG>_b<SB>`: a texture object carrying the sampler's state.
    Pair {
        /// The texture's binding.
        texture: BindingKey,
        /// The sampler's binding.
        sampler: BindingKey,
    },
    /// `p_g<G>_b<B>_s<SG>_b<SB>_cmp`: a comparison pair's `.u32` compare word, by value.
    CompareWord {
        /// The texture's binding.
        texture: BindingKey,
        /// The (comparison) sampler's binding.
        sampler: BindingKey,
    },
    /// [`SIZES_PARAM`]: a device pointer to one `u32` byte size per parameter before it.
    Sizes,
    /// [`IMMEDIATES_PARAM`]: the `var<immediate>` bytes by value.
    Immediates,
}

impl ParamKind {
    /// The kind of the parameter named `name`; `None` for a name dianran does not write.
    pub fn of(name: &str) -> Option<ParamKind> {
        match name {
            SIZES_PARAM => return Some(ParamKind::Sizes),
            IMMEDIATES_PARAM => return Some(ParamKind::Immediates),
            _ => {}
        }
        if let Some(pair) = name.strip_suffix(COMPARE_SUFFIX) {
            let (texture, sampler) = parse_pair(pair)?;
            return Some(ParamKind::CompareWord { texture, sampler });
        }
        if let Some((texture, sampler)) = parse_pair(name) {
            return Some(ParamKind::Pair { texture, sampler });
        }
        parse_slot(name).map(ParamKind::Slot)
    }

    /// Whether the parameter is passed by value (a compare word, the immediates) rather than
    /// as a `.u64` pointer or object handle.
    pub fn by_value(self) -> bool {
        matches!(self, ParamKind::CompareWord { .. } | ParamKind::Immediates)
    }
}

/// The parameter name of the buffer or texture at `@group(group) @binding(binding)`:
/// `p_g<G>_b<B>`.
pub fn param_name(group: u32, binding: u32) -> String {
    format!("p_g{group}_b{binding}")
}

/// The `(group, binding)` of a slot parameter named by [`param_name`]; `None` for any other
/// name.
pub fn param_binding(name: &str) -> Option<BindingKey> {
    match ParamKind::of(name)? {
        ParamKind::Slot(k) => Some(k),
        _ => None,
    }
}

/// The parameter name of a (texture, sampler) pair: `p_g<G>_b<B>_s<SG>_b<SB>`.
pub fn pair_param_name(texture: ir::ResourceBinding, sampler: ir::ResourceBinding) -> String {
    format!("p_g{}_b{}_s{}_b{}", texture.group, texture.binding, sampler.group, sampler.binding)
}

/// The `(texture, sampler)` bindings of a pair parameter named by [`pair_param_name`]; `None`
/// for other names.
pub fn pair_param_binding(name: &str) -> Option<(BindingKey, BindingKey)> {
    match ParamKind::of(name)? {
        ParamKind::Pair { texture, sampler } => Some((texture, sampler)),
        _ => None,
    }
}

/// The parameter name of a comparison pair's compare word: `p_g<G>_b<B>_s<SG>_b<SB>_cmp`,
/// right after the pair's texture object (`docs/textures.md`, "Depth comparison").
pub fn compare_param_name(texture: ir::ResourceBinding, sampler: ir::ResourceBinding) -> String {
    format!("{}{COMPARE_SUFFIX}", pair_param_name(texture, sampler))
}

/// The pair of a compare-word parameter named by [`compare_param_name`]; `None` for other
/// names.
pub fn compare_param_binding(name: &str) -> Option<(BindingKey, BindingKey)> {
    match ParamKind::of(name)? {
        ParamKind::CompareWord { texture, sampler } => Some((texture, sampler)),
        _ => None,
    }
}

/// The size in bytes of the `p_immediates` parameter for a `var<immediate>` of `size` bytes:
/// whole 32-bit words, at least one. The host pads the bytes it passes to this size.
pub fn immediates_len(size: usize) -> usize {
    size.max(4).next_multiple_of(4)
}

/// `p_g<G>_b<B>` as `(G, B)`.
fn parse_slot(name: &str) -> Option<BindingKey> {
    let (g, b) = name.strip_prefix("p_g")?.split_once("_b")?;
    Some((number(g)?, number(b)?))
}

/// `p_g<G>_b<B>_s<SG>_b<SB>` as `((G, B), (SG, SB))`.
fn parse_pair(name: &str) -> Option<(BindingKey, BindingKey)> {
    let (tex, sampler) = name.split_once("_s")?;
    let texture = parse_slot(tex)?;
    let (sg, sb) = sampler.split_once("_b")?;
    Some((texture, (number(sg)?, number(sb)?)))
}

/// A decimal number as the writers print it (digits only: no sign, no spaces).
fn number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rb(group: u32, binding: u32) -> ir::ResourceBinding {
        ir::ResourceBinding { group, binding }
    }

    #[test]
    fn every_writer_round_trips_through_the_parser() {
        assert_eq!(ParamKind::of(&param_name(3, 12)), Some(ParamKind::Slot((3, 12))));
        let (t, s) = (rb(1, 4), rb(2, 1));
        assert_eq!(
            ParamKind::of(&pair_param_name(t, s)),
            Some(ParamKind::Pair { texture: (1, 4), sampler: (2, 1) })
        );
        assert_eq!(
            ParamKind::of(&compare_param_name(t, s)),
            Some(ParamKind::CompareWord { texture: (1, 4), sampler: (2, 1) })
        );
        assert_eq!(ParamKind::of(SIZES_PARAM), Some(ParamKind::Sizes));
        assert_eq!(ParamKind::of(IMMEDIATES_PARAM), Some(ParamKind::Immediates));
    }

    #[test]
    fn names_dianran_does_not_write_are_rejected() {
        for bad in ["p_g_b1", "p_g1_b", "p_g+1_b2", "p_g1_b2_s3", "p_g1_b2_cmp", "x", "p_g1_b2_x"] {
            assert_eq!(ParamKind::of(bad), None, "{bad}");
        }
        assert_eq!(param_binding("p_g0_b2_s0_b3"), None);
        assert_eq!(pair_param_binding("p_g0_b2_s0_b3_cmp"), None);
        assert_eq!(compare_param_binding("p_g0_b2_s0_b3"), None);
    }

    #[test]
    fn by_value_parameters_are_the_words_and_the_immediates() {
        assert!(ParamKind::Immediates.by_value());
        assert!(ParamKind::CompareWord { texture: (0, 0), sampler: (0, 1) }.by_value());
        assert!(!ParamKind::Slot((0, 0)).by_value());
        assert!(!ParamKind::Sizes.by_value());
        assert!(!ParamKind::Pair { texture: (0, 0), sampler: (0, 1) }.by_value());
    }

    #[test]
    fn immediates_are_whole_words_at_least_one() {
        assert_eq!([0, 1, 4, 5, 8, 13].map(immediates_len), [4, 4, 4, 8, 8, 16]);
    }
}
