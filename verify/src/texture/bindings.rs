//! The textures and samplers an entry point uses, how they are described on the command line
//! and in sample headers, and the data the executors bind to them.
//!
//! Spellings (the `dianran run/verify` flags `--texture` and `--sampler`, and the sample
//! header lines `// texture:` and `// sampler:`):
//!
//! ```text
//! G:B=[PATH:]W[xH[xD]]:FORMAT[:LEVELS]   a texture: extent of level 0 (D is the depth of a 3D
//!                                        texture or the layer count of an array, 6 per cube),
//!                                        WebGPU format name, mip levels (default 1); PATH is a
//!                                        file of raw texels (all levels, level 0 first,
//!                                        tightly packed), without it texels are seeded random
//! G:B=ADDRESS,FILTER[,COMPARE]           a sampler: clamp-to-edge | repeat | mirror-repeat |
//!                                        clamp-to-border; nearest | linear (mag, min and
//!                                        mipmap); a WebGPU compare function (less, ...)
//! ```
//!
//! Defaults for bindings nothing describes: see [`default_extent`] and [`default_format`];
//! samplers clamp to edge with nearest filtering, comparison samplers compare with `less`.

// `Diagnostic` is the project-wide error type of every public API; boxing it here would
// only make this module differ from the rest.
#![allow(clippy::result_large_err)]

use super::{AddressMode, CompareFn, Filter, SamplerDesc, TexDim, TexelFormat, TextureData};
use crate::buffers::used_globals;
use dianran_frontend::ir::{self, AddressSpace, ImageClass, Type};
use dianran_frontend::{DiagKind, Diagnostic};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Texture and sampler contents by (group, binding).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TextureBindings {
    /// Textures (sampled, depth and storage).
    pub textures: BTreeMap<(u32, u32), TextureData>,
    /// Samplers.
    pub samplers: BTreeMap<(u32, u32), SamplerDesc>,
}

impl TextureBindings {
    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.textures.is_empty() && self.samplers.is_empty()
    }
}

/// What kind of handle a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    /// A texture of this shape and class.
    Texture {
        /// Shape.
        dim: TexDim,
        /// Sampled (with its component kind), depth or storage (with format and access).
        class: ImageClass,
    },
    /// A sampler; `comparison` for `sampler_comparison`.
    Sampler {
        /// `sampler_comparison`.
        comparison: bool,
    },
}

/// A texture or sampler binding an entry point uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleBinding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Source name.
    pub name: String,
    /// Texture or sampler.
    pub kind: HandleKind,
}

impl HandleBinding {
    /// Whether shaders may write it (a storage texture with `write` or `read_write` access).
    pub fn is_writable(&self) -> bool {
        matches!(self.kind, HandleKind::Texture { class: ImageClass::Storage { access, .. }, .. }
            if access.contains(naga::StorageAccess::STORE))
    }
}

/// The texture and sampler bindings `entry` uses (directly or through calls), sorted by
/// (group, binding).
pub fn entry_handles(m: &ir::Module, entry: &str) -> Result<Vec<HandleBinding>, Diagnostic> {
    let f = m.entry_point(entry).map(|e| e.function).ok_or_else(|| {
        Diagnostic::error(DiagKind::Runtime, format!("no entry point named '{entry}'"))
    })?;
    let mut out = Vec::new();
    for g in used_globals(m, f) {
        let Some(global) = m.globals.get(g.index()) else { continue };
        if global.space != AddressSpace::Handle {
            continue;
        }
        let kind = match m.types.get(global.ty) {
            Type::Image { dim, arrayed, class } => {
                HandleKind::Texture { dim: TexDim::from_ir(*dim, *arrayed), class: *class }
            }
            Type::Sampler { comparison } => HandleKind::Sampler { comparison: *comparison },
            _ => continue,
        };
        let Some(rb) = global.binding else {
            return Err(Diagnostic::error(
                DiagKind::Internal,
                format!("handle '{}' has no @group/@binding", global.name),
            )
            .at(global.span));
        };
        out.push(HandleBinding {
            group: rb.group,
            binding: rb.binding,
            name: global.name.clone(),
            kind,
        });
    }
    out.sort_by_key(|b| (b.group, b.binding));
    Ok(out)
}

/// A texture description (`--texture` / `// texture:`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureSpec {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// File of raw texels; `None`: seeded random texels.
    pub path: Option<PathBuf>,
    /// Extent of level 0 as given (missing trailing components are `None`).
    pub extent: [Option<u32>; 3],
    /// Texel format.
    pub format: TexelFormat,
    /// Mip levels.
    pub levels: u32,
}

/// A sampler description (`--sampler` / `// sampler:`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerSpec {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The sampler.
    pub desc: SamplerDesc,
}

/// Splits `G:B=REST`.
fn split_binding(s: &str) -> Result<(u32, u32, &str), String> {
    let (gb, rest) = s.split_once('=').ok_or_else(|| format!("expected G:B=..., got '{s}'"))?;
    let (g, b) =
        gb.split_once(':').ok_or_else(|| format!("expected G:B before '=', got '{gb}'"))?;
    let num = |x: &str| {
        x.trim().parse::<u32>().map_err(|_| format!("'{x}' is not a group/binding number"))
    };
    Ok((num(g)?, num(b)?, rest.trim()))
}

/// Parses `W[xH[xD]]`.
fn parse_extent(s: &str) -> Option<[Option<u32>; 3]> {
    let parts: Vec<&str> = s.split('x').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut out = [None; 3];
    for (slot, p) in out.iter_mut().zip(&parts) {
        let v = p.trim().parse::<u32>().ok().filter(|&v| v > 0)?;
        *slot = Some(v);
    }
    Some(out)
}

impl TextureSpec {
    /// Parses `G:B=[PATH:]W[xH[xD]]:FORMAT[:LEVELS]`.
    pub fn parse(s: &str) -> Result<TextureSpec, String> {
        let (group, binding, rest) = split_binding(s)?;
        let mut parts: Vec<&str> = rest.split(':').collect();
        let usage = "expected G:B=[PATH:]WxH[xD]:FORMAT[:LEVELS]";
        let mut levels = 1;
        if parts.len() >= 3 {
            if let Ok(l) = parts[parts.len() - 1].trim().parse::<u32>() {
                levels = l;
                parts.pop();
            }
        }
        if parts.len() < 2 {
            return Err(format!("{usage}, got '{s}'"));
        }
        let fmt = parts.pop().unwrap_or_default().trim();
        let format = TexelFormat::parse(fmt).ok_or_else(|| {
            let names: Vec<&str> = TexelFormat::all().map(TexelFormat::name).collect();
            format!("unknown texel format '{fmt}' (known: {})", names.join(", "))
        })?;
        let ext = parts.pop().unwrap_or_default();
        let extent = parse_extent(ext)
            .ok_or_else(|| format!("'{ext}' is not an extent W[xH[xD]] of positive numbers"))?;
        let path = if parts.is_empty() { None } else { Some(PathBuf::from(parts.join(":"))) };
        if levels == 0 {
            return Err("a texture has at least 1 mip level".to_string());
        }
        Ok(TextureSpec { group, binding, path, extent, format, levels })
    }
}

impl SamplerSpec {
    /// Parses `G:B=ADDRESS,FILTER[,COMPARE]`.
    pub fn parse(s: &str) -> Result<SamplerSpec, String> {
        let (group, binding, rest) = split_binding(s)?;
        let parts: Vec<&str> = rest.split(',').map(str::trim).collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(format!("expected G:B=ADDRESS,FILTER[,COMPARE], got '{s}'"));
        }
        let address = match parts[0].replace('_', "-").to_ascii_lowercase().as_str() {
            "clamp-to-edge" | "clamp" => AddressMode::ClampToEdge,
            "repeat" => AddressMode::Repeat,
            "mirror-repeat" | "mirror" => AddressMode::MirrorRepeat,
            "clamp-to-border" | "border" => AddressMode::ClampToBorder,
            other => {
                return Err(format!(
                    "unknown address mode '{other}' (clamp-to-edge, repeat, mirror-repeat, clamp-to-border)"
                ))
            }
        };
        let filter = match parts[1].to_ascii_lowercase().as_str() {
            "nearest" => Filter::Nearest,
            "linear" => Filter::Linear,
            other => return Err(format!("unknown filter '{other}' (nearest, linear)")),
        };
        let compare = match parts.get(2) {
            Some(c) => Some(CompareFn::parse(c).ok_or_else(|| {
                format!("unknown compare function '{c}' (never, less, equal, less-equal, greater, not-equal, greater-equal, always)")
            })?),
            None => None,
        };
        Ok(SamplerSpec {
            group,
            binding,
            desc: SamplerDesc { compare, ..SamplerDesc::uniform(address, filter) },
        })
    }
}

/// The extent a texture binding gets when nothing describes it: 16 texels for 1D, 16x16
/// for 2D, 16x16 with 4 layers for 2D arrays, 8x8x8 for 3D, 8x8 faces for cube maps (2
/// cubes for cube arrays).
pub fn default_extent(dim: TexDim) -> [u32; 3] {
    match dim {
        TexDim::D1 => [16, 1, 1],
        TexDim::D2 => [16, 16, 1],
        TexDim::D2Array => [16, 16, 4],
        TexDim::D3 => [8, 8, 8],
        TexDim::Cube => [8, 8, 6],
        TexDim::CubeArray => [8, 8, 12],
    }
}

/// The format a texture binding gets when nothing describes it: a storage texture's own
/// format; `rgba16float` for sampled float textures (filterable on every backend, exact for
/// the seeded values); `rgba32sint`/`rgba32uint` for integer ones; `depth32float` for depth.
pub fn default_format(class: ImageClass) -> Option<TexelFormat> {
    match class {
        ImageClass::Storage { format, .. } => TexelFormat::from_storage(format),
        ImageClass::Sampled { kind: naga::ScalarKind::Sint, .. } => Some(TexelFormat::Rgba32Sint),
        ImageClass::Sampled { kind: naga::ScalarKind::Uint, .. } => Some(TexelFormat::Rgba32Uint),
        ImageClass::Sampled { .. } => Some(TexelFormat::Rgba16Float),
        ImageClass::Depth { .. } => Some(TexelFormat::Depth32Float),
        ImageClass::External => None,
    }
}

/// Whether `format` fits a binding of `class` (storage: exactly its format; sampled: the
/// same component kind, not depth; depth: a depth format).
fn format_fits(class: ImageClass, format: TexelFormat) -> bool {
    use super::SampleKind;
    match class {
        ImageClass::Storage { format: f, .. } => TexelFormat::from_storage(f) == Some(format),
        ImageClass::Sampled { kind, .. } => {
            !format.is_depth()
                && match kind {
                    naga::ScalarKind::Sint => format.kind() == SampleKind::Sint,
                    naga::ScalarKind::Uint => format.kind() == SampleKind::Uint,
                    _ => format.kind() == SampleKind::Float,
                }
        }
        ImageClass::Depth { .. } => format.is_depth(),
        ImageClass::External => false,
    }
}

/// Builds the textures and samplers of every handle binding of `entry`: described ones from
/// `textures`/`samplers` (a later description of the same binding wins), the others from
/// the defaults; seeded texels are filled from `seed` and the binding. Errors name the
/// binding: a description of a binding the entry does not use, a format that does not fit
/// the texture type, a file of the wrong size, multisampled or external textures.
pub fn build_textures(
    m: &ir::Module,
    entry: &str,
    textures: &[TextureSpec],
    samplers: &[SamplerSpec],
    seed: u64,
) -> Result<TextureBindings, Diagnostic> {
    let handles = entry_handles(m, entry)?;
    let err = |msg: String| Diagnostic::error(DiagKind::Runtime, msg);
    for t in textures {
        if !handles.iter().any(|h| {
            (h.group, h.binding) == (t.group, t.binding)
                && matches!(h.kind, HandleKind::Texture { .. })
        }) {
            return Err(err(format!(
                "--texture {}:{}: entry '{entry}' uses no texture at that binding",
                t.group, t.binding
            )));
        }
    }
    for s in samplers {
        if !handles.iter().any(|h| {
            (h.group, h.binding) == (s.group, s.binding)
                && matches!(h.kind, HandleKind::Sampler { .. })
        }) {
            return Err(err(format!(
                "--sampler {}:{}: entry '{entry}' uses no sampler at that binding",
                s.group, s.binding
            )));
        }
    }
    let mut out = TextureBindings::default();
    for h in &handles {
        let key = (h.group, h.binding);
        let what = format!("texture '{}' (@group({}) @binding({}))", h.name, h.group, h.binding);
        match h.kind {
            HandleKind::Sampler { comparison } => {
                let desc = match samplers.iter().rev().find(|s| (s.group, s.binding) == key) {
                    Some(s) => s.desc,
                    None if comparison => {
                        SamplerDesc { compare: Some(CompareFn::Less), ..SamplerDesc::default() }
                    }
                    None => SamplerDesc::default(),
                };
                out.samplers.insert(key, desc);
            }
            HandleKind::Texture { dim, class } => {
                if matches!(
                    class,
                    ImageClass::Sampled { multi: true, .. } | ImageClass::Depth { multi: true }
                ) {
                    return Err(err(format!(
                        "{what} is multisampled, which the executors do not run"
                    )));
                }
                let spec = textures.iter().rev().find(|t| (t.group, t.binding) == key);
                let format = match spec {
                    Some(s) => s.format,
                    None => default_format(class).ok_or_else(|| {
                        err(format!("{what} has a format ({class:?}) the executors do not run"))
                    })?,
                };
                if !format_fits(class, format) {
                    return Err(err(format!("{what} cannot hold {} texels", format.name())));
                }
                let def = default_extent(dim);
                let extent = match spec {
                    Some(s) => {
                        let w = s.extent[0].unwrap_or(def[0]);
                        let h = match dim {
                            TexDim::D1 => s.extent[1].unwrap_or(1),
                            TexDim::Cube | TexDim::CubeArray => s.extent[1].unwrap_or(w),
                            _ => s.extent[1].unwrap_or(1),
                        };
                        let d = match dim {
                            TexDim::Cube | TexDim::CubeArray => s.extent[2].unwrap_or(6),
                            _ => s.extent[2].unwrap_or(1),
                        };
                        [w, h, d]
                    }
                    None => def,
                };
                let levels = spec.map_or(1, |s| s.levels);
                let tex = match spec.and_then(|s| s.path.as_ref()) {
                    Some(path) => {
                        let data = std::fs::read(path).map_err(|e| {
                            err(format!("cannot read texture data '{}': {e}", path.display()))
                        })?;
                        TextureData::with_data(dim, format, extent, levels, data)
                    }
                    None => TextureData::new(dim, format, extent[0], extent[1], extent[2], levels)
                        .map(|mut t| {
                            t.fill_seeded(
                                seed ^ (u64::from(h.group) << 40) ^ (u64::from(h.binding) << 20),
                            );
                            t
                        }),
                }
                .map_err(|d| err(format!("{what}: {}", d.message)))?;
                out.textures.insert(key, tex);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_specs() {
        let t = TextureSpec::parse("0:3=16x8:rgba8unorm").unwrap();
        assert_eq!(
            (t.group, t.binding, t.path.clone(), t.extent, t.format, t.levels),
            (0, 3, None, [Some(16), Some(8), None], TexelFormat::Rgba8Unorm, 1)
        );
        let t = TextureSpec::parse("1:0=data/tex.bin:4x4x6:r32float:3").unwrap();
        assert_eq!(t.path, Some(PathBuf::from("data/tex.bin")));
        assert_eq!((t.extent, t.levels), ([Some(4), Some(4), Some(6)], 3));
        // A path may itself contain ':'.
        let t = TextureSpec::parse("0:0=C:/x.bin:13:r32uint").unwrap();
        assert_eq!((t.path, t.extent), (Some(PathBuf::from("C:/x.bin")), [Some(13), None, None]));
        assert!(TextureSpec::parse("0:0=16x16").unwrap_err().contains("expected"));
        assert!(TextureSpec::parse("0:0=16x16:rgb8").unwrap_err().contains("unknown texel format"));
        assert!(TextureSpec::parse("0:0=16x0:r32float").unwrap_err().contains("extent"));
        assert!(TextureSpec::parse("0=16:r32float").is_err());
        assert!(TextureSpec::parse("0:0=16:r32float:0").is_err());
    }

    #[test]
    fn sampler_specs() {
        let s = SamplerSpec::parse("0:2=repeat,linear").unwrap();
        assert_eq!(s.desc, SamplerDesc::uniform(AddressMode::Repeat, Filter::Linear));
        let s = SamplerSpec::parse("2:1=clamp_to_border, nearest, greater-equal").unwrap();
        assert_eq!((s.group, s.binding), (2, 1));
        assert_eq!(s.desc.address, [AddressMode::ClampToBorder; 3]);
        assert_eq!(s.desc.compare, Some(CompareFn::GreaterEqual));
        assert!(SamplerSpec::parse("0:0=wrap,linear").unwrap_err().contains("address mode"));
        assert!(SamplerSpec::parse("0:0=repeat,cubic").unwrap_err().contains("filter"));
        assert!(SamplerSpec::parse("0:0=repeat").is_err());
    }

    fn module(src: &str) -> ir::Module {
        dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("compiles")
    }

    const SRC: &str = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var d: texture_depth_2d;
@group(0) @binding(3) var c: sampler_comparison;
@group(1) @binding(0) var o: texture_storage_2d<rgba8uint, write>;
@group(1) @binding(1) var unused: texture_3d<f32>;
@compute @workgroup_size(1)
fn main() {
    let v = textureSampleLevel(t, s, vec2<f32>(0.5), 0.0);
    let w = textureSampleCompareLevel(d, c, vec2<f32>(0.5), 0.5);
    textureStore(o, vec2<i32>(0), vec4<u32>(u32(v.x + w)));
}
";

    #[test]
    fn handles_of_an_entry() {
        let m = module(SRC);
        let hs = entry_handles(&m, "main").unwrap();
        let keys: Vec<(u32, u32)> = hs.iter().map(|h| (h.group, h.binding)).collect();
        assert_eq!(keys, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]);
        assert!(hs[4].is_writable() && !hs[0].is_writable());
        assert_eq!(hs[1].kind, HandleKind::Sampler { comparison: false });
    }

    #[test]
    fn defaults_and_descriptions() {
        let m = module(SRC);
        let b = build_textures(&m, "main", &[], &[], 7).unwrap();
        let t = &b.textures[&(0, 0)];
        assert_eq!(
            (t.dim, t.format, t.width, t.height, t.mip_levels),
            (TexDim::D2, TexelFormat::Rgba16Float, 16, 16, 1)
        );
        assert_eq!(b.textures[&(0, 2)].format, TexelFormat::Depth32Float);
        assert_eq!(b.textures[&(1, 0)].format, TexelFormat::Rgba8Uint);
        assert_eq!(b.samplers[&(0, 1)], SamplerDesc::default());
        assert_eq!(b.samplers[&(0, 3)].compare, Some(CompareFn::Less));
        // Same seed, same texels; the binding changes them.
        assert_eq!(build_textures(&m, "main", &[], &[], 7).unwrap(), b);
        assert_ne!(build_textures(&m, "main", &[], &[], 8).unwrap().textures[&(0, 0)], *t);
        let spec = TextureSpec::parse("0:0=4x2:rgba8unorm:2").unwrap();
        let samp = SamplerSpec::parse("0:1=mirror-repeat,linear").unwrap();
        let b = build_textures(&m, "main", &[spec], &[samp], 7).unwrap();
        let t = &b.textures[&(0, 0)];
        assert_eq!((t.width, t.height, t.mip_levels, t.byte_len()), (4, 2, 2, 40));
        assert_eq!(b.samplers[&(0, 1)].address[0], AddressMode::MirrorRepeat);
    }

    #[test]
    fn bad_descriptions_name_the_binding() {
        let m = module(SRC);
        let e = |t: &str| {
            build_textures(&m, "main", &[TextureSpec::parse(t).unwrap()], &[], 1)
                .unwrap_err()
                .message
        };
        assert!(e("0:0=4x4:r32uint").contains("'t' (@group(0) @binding(0)) cannot hold r32uint"));
        assert!(e("1:0=4x4:rgba8unorm").contains("cannot hold rgba8unorm"));
        assert!(e("0:2=4x4:r32float").contains("cannot hold"));
        assert!(e("0:1=4x4:r32float").contains("uses no texture"));
        assert!(e("1:1=4x4x4:r32float").contains("uses no texture"));
        assert!(e("0:0=4x4x2:rgba8unorm").contains("one layer"));
        let dir = std::env::temp_dir().join(format!("dianran-texspec-{}", std::process::id()));
        std::fs::write(&dir, [0u8; 10]).unwrap();
        let msg = e(&format!("0:0={}:2x2:rgba8unorm", dir.display()));
        assert!(msg.contains("10 bytes") && msg.contains("needs 16"), "{msg}");
        std::fs::write(&dir, [9u8; 16]).unwrap();
        let ok = build_textures(
            &m,
            "main",
            &[TextureSpec::parse(&format!("0:0={}:2x2:rgba8unorm", dir.display())).unwrap()],
            &[],
            1,
        )
        .unwrap();
        assert_eq!(ok.textures[&(0, 0)].data, vec![9u8; 16]);
        let _ = std::fs::remove_file(&dir);
        let s =
            build_textures(&m, "main", &[], &[SamplerSpec::parse("0:0=repeat,linear").unwrap()], 1)
                .unwrap_err();
        assert!(s.message.contains("uses no sampler"));
    }
}
