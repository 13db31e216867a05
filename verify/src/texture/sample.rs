//! Samplers: addressing, nearest and linear filtering, mip selection, gathers, depth
//! comparison and cube-map face selection, following the Vulkan specification's "Texel
//! Coordinate Systems" / "Texel Filtering" chapters (what WGSL's `textureSampleLevel`,
//! `textureSampleGrad`, `textureSampleCompareLevel`, `textureGather` and
//! `textureGatherCompare` mean on Vulkan/WebGPU).
//!
//! Filter weights are exact `f32` ([`Weights::Exact`]) or CUDA's texture-unit weights
//! ([`Weights::Cuda8Bit`]): "α, β, γ are stored in 9-bit fixed point format with 8 bits of
//! fractional value" (CUDA C++ Programming Guide, appendix "Texture Fetching"); this model
//! rounds them to the nearest multiple of 1/256, which is within the documented
//! [`super::cuda_filter_tolerance`] of either rounding direction.
//!
//! Decisions where Vulkan leaves room:
//! * Cube-map face selection on ties prefers X over Y over Z (`|x| >= |y|, |z|` selects X).
//! * Linear filtering on a cube face clamps to the face's edge (the Vulkan "seamless"
//!   blending across faces is not modelled); results next to a face edge may therefore
//!   differ from hardware by the spread of the neighbouring texels.
//! * "Sampling" an integer texture (which WGSL does not allow; CUDA allows only point
//!   sampling) returns the nearest texel of the selected level.

use super::format::{SampleKind, Texel};
use super::{TexDim, TextureData};
pub use dianran_runtime::texture::{AddressMode, BorderColor, CompareFn, Filter, SamplerDesc};

/// Precision of the filter weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Weights {
    /// `f32` weights (WGSL/Vulkan).
    Exact,
    /// CUDA's texture unit: weights rounded to multiples of 1/256.
    Cuda8Bit,
}

impl Weights {
    fn apply(self, w: f32) -> f32 {
        match self {
            Weights::Exact => w,
            Weights::Cuda8Bit => (w * 256.0).round() / 256.0,
        }
    }
}

/// The face and the face coordinates (s, t in [0, 1]) a cube-map direction selects
/// (Vulkan's "Cube Map Face Selection" table). Faces: 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z.
pub fn cube_face(dir: [f32; 3]) -> (u32, f32, f32) {
    let (face, sc, tc, ma) = cube_axes(dir);
    let ma = dot(ma, dir).abs();
    let s = 0.5 * (dot(sc, dir) / ma + 1.0);
    let t = 0.5 * (dot(tc, dir) / ma + 1.0);
    (face, s, t)
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The face and the vectors whose dot products with the direction give sc, tc and ma.
fn cube_axes(d: [f32; 3]) -> (u32, [f32; 3], [f32; 3], [f32; 3]) {
    let [x, y, z] = d.map(f32::abs);
    if x >= y && x >= z {
        if d[0] >= 0.0 {
            (0, [0.0, 0.0, -1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0])
        } else {
            (1, [0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0])
        }
    } else if y >= z {
        if d[1] >= 0.0 {
            (2, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0])
        } else {
            (3, [1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0])
        }
    } else if d[2] >= 0.0 {
        (4, [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0])
    } else {
        (5, [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0])
    }
}

/// The level of detail `textureSampleGrad` uses: `log2(max(|ddx| , |ddy|))` with the
/// derivatives scaled to texels of level 0 (Vulkan's ρ with the vector length). For cube
/// maps the direction derivatives are first turned into face-coordinate derivatives at
/// `coords`.
pub fn lod_from_gradients(
    tex: &TextureData,
    coords: [f32; 3],
    ddx: [f32; 3],
    ddy: [f32; 3],
) -> f32 {
    let [w, h, d] = tex.dimensions(0).map(|e| e as f32);
    let rho = |g: [f32; 3]| -> f32 {
        match tex.dim {
            TexDim::D1 => (g[0] * w).abs(),
            TexDim::D2 | TexDim::D2Array => (g[0] * w).hypot(g[1] * h),
            TexDim::D3 => ((g[0] * w).powi(2) + (g[1] * h).powi(2) + (g[2] * d).powi(2)).sqrt(),
            TexDim::Cube | TexDim::CubeArray => {
                let (_, sc, tc, ma) = cube_axes(coords);
                let (m, dm) = (dot(ma, coords), dot(ma, g));
                let ds = 0.5 * (dot(sc, g) * m - dot(sc, coords) * dm) / (m * m);
                let dt = 0.5 * (dot(tc, g) * m - dot(tc, coords) * dm) / (m * m);
                (ds * w).hypot(dt * h)
            }
        }
    };
    rho(ddx).max(rho(ddy)).log2()
}

/// One axis of a filter footprint: up to two (texel index, weight) pairs; `None` for a
/// border texel.
type Taps = ([(Option<i64>, f32); 2], usize);

/// Maps an integer texel coordinate into [0, size) by the address mode (`None`: border).
fn wrap(i: i64, size: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::ClampToEdge => Some(i.clamp(0, size - 1)),
        AddressMode::Repeat => Some(i.rem_euclid(size)),
        AddressMode::MirrorRepeat => {
            // Vulkan: (size - 1) - mirror((i mod 2size) - size), mirror(n) = n >= 0 ? n : -(1 + n).
            let n = i.rem_euclid(2 * size) - size;
            let m = if n >= 0 { n } else { -(1 + n) };
            Some(size - 1 - m)
        }
        AddressMode::ClampToBorder => (0..size).contains(&i).then_some(i),
    }
}

/// The taps of one axis: `coord` normalized, `size` texels, integer `offset`.
fn taps(
    coord: f32,
    size: u32,
    offset: i32,
    filter: Filter,
    mode: AddressMode,
    weights: Weights,
) -> Taps {
    let size_i = i64::from(size);
    let u = coord * size as f32;
    match filter {
        Filter::Nearest => {
            let i = clamp_index(u.floor()) + i64::from(offset);
            ([(wrap(i, size_i, mode), 1.0), (None, 0.0)], 1)
        }
        Filter::Linear => {
            let ub = u - 0.5;
            let i0 = clamp_index(ub.floor()) + i64::from(offset);
            let alpha = weights.apply(ub - ub.floor());
            ([(wrap(i0, size_i, mode), 1.0 - alpha), (wrap(i0 + 1, size_i, mode), alpha)], 2)
        }
    }
}

/// A float texel index as an integer, saturated far outside any texture (NaN gives 0).
fn clamp_index(x: f32) -> i64 {
    x.clamp(-((1u64 << 40) as f32), (1u64 << 40) as f32) as i64
}

/// Resolved slice addressing: the cube face (or 3D / layer) and the 2D/3D coordinates.
struct Site {
    /// Normalized coordinates (u, v, w); w only for 3D.
    uvw: [f32; 3],
    /// Slice for non-3D textures: layer, face, or 6 x cube + face.
    slice: i64,
    /// Address modes (cube maps always clamp to edge).
    address: [AddressMode; 3],
    /// Constant texel offset.
    offset: [i32; 3],
}

fn site(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    offset: [i32; 3],
) -> Site {
    let layer = i64::from(layer).clamp(0, i64::from(tex.num_layers()) - 1);
    match tex.dim {
        TexDim::Cube | TexDim::CubeArray => {
            let (face, u, v) = cube_face(coords);
            Site {
                uvw: [u, v, 0.0],
                slice: layer * 6 + i64::from(face),
                address: [AddressMode::ClampToEdge; 3],
                offset,
            }
        }
        TexDim::D2Array => Site { uvw: coords, slice: layer, address: s.address, offset },
        _ => Site { uvw: coords, slice: 0, address: s.address, offset },
    }
}

/// The texel at wrapped indices (any `None`: the border color) as floats, or mapped by
/// `f` (depth comparison).
fn texel_f32(
    tex: &TextureData,
    s: &SamplerDesc,
    level: u32,
    site: &Site,
    idx: [Option<i64>; 3],
) -> [f32; 4] {
    match idx {
        [Some(x), Some(y), Some(z)] => {
            let slice = if tex.dim == TexDim::D3 { z } else { site.slice };
            match tex.texel_offset(x, y, slice, i64::from(level)) {
                Some(off) => tex.format.decode(&tex.data[off..]).to_f32(),
                None => [0.0; 4],
            }
        }
        _ => s.border.rgba(),
    }
}

/// Filters one level with `filter`; `map` turns each texel before blending (identity, or
/// the 0/1 of a depth comparison).
fn filter_level(
    tex: &TextureData,
    s: &SamplerDesc,
    level: u32,
    site: &Site,
    filter: Filter,
    weights: Weights,
    map: &dyn Fn([f32; 4]) -> [f32; 4],
) -> [f32; 4] {
    let dims = tex.dimensions(level);
    let axes = match tex.dim {
        TexDim::D1 => 1,
        TexDim::D3 => 3,
        _ => 2,
    };
    let unit: Taps = ([(Some(0), 1.0), (None, 0.0)], 1);
    let t: [Taps; 3] = std::array::from_fn(|a| {
        if a < axes {
            taps(site.uvw[a], dims[a], site.offset[a], filter, site.address[a], weights)
        } else {
            unit
        }
    });
    let mut acc = [0.0f32; 4];
    for &(z, wz) in &t[2].0[..t[2].1] {
        for &(y, wy) in &t[1].0[..t[1].1] {
            for &(x, wx) in &t[0].0[..t[0].1] {
                let w = wx * wy * wz;
                let v = map(texel_f32(tex, s, level, site, [x, y, z]));
                for c in 0..4 {
                    acc[c] += w * v[c];
                }
            }
        }
    }
    acc
}

/// The levels (and the blend weight of the second) a level of detail selects.
fn select_levels(
    tex: &TextureData,
    s: &SamplerDesc,
    lod: f32,
    weights: Weights,
) -> (Filter, u32, u32, f32) {
    let lambda = if lod.is_nan() { 0.0 } else { lod.clamp(s.lod_min_clamp, s.lod_max_clamp) };
    let filter = if lambda <= 0.0 { s.mag } else { s.min };
    let q = (tex.mip_levels - 1) as f32;
    let d = lambda.clamp(0.0, q);
    match s.mipmap {
        // Vulkan: d = ceil(d' + 0.5) - 1 (ties round down).
        Filter::Nearest => {
            let l = ((d + 0.5).ceil() - 1.0).max(0.0) as u32;
            (filter, l, l, 0.0)
        }
        Filter::Linear => {
            let lo = d.floor() as u32;
            let hi = (lo + 1).min(tex.mip_levels - 1);
            (filter, lo, hi, weights.apply(d - d.floor()))
        }
    }
}

/// `textureSampleLevel(t, s, coords[, layer], lod)`: normalized `coords` (a direction for
/// cube maps), array `layer` (clamped to the layers), explicit level of detail `lod`.
pub fn sample(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    lod: f32,
    weights: Weights,
) -> Texel {
    sample_offset(tex, s, coords, layer, lod, [0; 3], weights)
}

/// [`sample`] with a constant texel `offset` (WGSL's `offset` argument).
pub fn sample_offset(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    lod: f32,
    offset: [i32; 3],
    weights: Weights,
) -> Texel {
    let site = site(tex, s, coords, layer, offset);
    let (filter, lo, hi, delta) = select_levels(tex, s, lod, weights);
    if tex.format.kind() != SampleKind::Float {
        // Integer textures are point-sampled on the selected level.
        let filter_nearest = |level: u32| {
            let dims = tex.dimensions(level);
            let idx: [Option<i64>; 3] = std::array::from_fn(|a| {
                let used = a < tex.dim.coord_count() && !(tex.dim.is_cube() && a == 2);
                if used {
                    taps(site.uvw[a], dims[a], offset[a], Filter::Nearest, site.address[a], weights)
                        .0[0]
                        .0
                } else {
                    Some(0)
                }
            });
            let slice = if tex.dim == TexDim::D3 { idx[2].unwrap_or(0) } else { site.slice };
            match (idx[0], idx[1]) {
                (Some(x), Some(y)) if idx[2].is_some() => {
                    let y = if tex.dim == TexDim::D1 { 0 } else { y };
                    match tex.texel_offset(x, y, slice, i64::from(level)) {
                        Some(off) => tex.format.decode(&tex.data[off..]),
                        None => Texel::zero(tex.format.kind()),
                    }
                }
                _ => border_texel(s, tex.format.kind()),
            }
        };
        return filter_nearest(if delta >= 0.5 { hi } else { lo });
    }
    let id = |v: [f32; 4]| v;
    let a = filter_level(tex, s, lo, &site, filter, weights, &id);
    if hi == lo || delta == 0.0 {
        return Texel::Float(a);
    }
    let b = filter_level(tex, s, hi, &site, filter, weights, &id);
    Texel::Float(std::array::from_fn(|c| (1.0 - delta) * a[c] + delta * b[c]))
}

/// The border color as a texel of `kind`.
fn border_texel(s: &SamplerDesc, kind: SampleKind) -> Texel {
    let c = s.border.rgba();
    match kind {
        SampleKind::Float => Texel::Float(c),
        SampleKind::Sint => Texel::Sint(c.map(|x| x as i32)),
        SampleKind::Uint => Texel::Uint(c.map(|x| x as u32)),
    }
}

/// `textureSampleCompareLevel`: each texel of the footprint becomes 1.0 where
/// `reference OP texel` passes (the sampler's compare function; `Never` when it has none)
/// and 0.0 otherwise, then the results are filtered. Depth textures read channel r.
#[allow(clippy::too_many_arguments)]
pub fn sample_compare(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    lod: f32,
    reference: f32,
    offset: [i32; 3],
    weights: Weights,
) -> f32 {
    let site = site(tex, s, coords, layer, offset);
    let (filter, lo, hi, delta) = select_levels(tex, s, lod, weights);
    let f = s.compare.unwrap_or(CompareFn::Never);
    let cmp = |v: [f32; 4]| {
        let r = if f.passes(reference, v[0]) { 1.0 } else { 0.0 };
        [r, 0.0, 0.0, 0.0]
    };
    let a = filter_level(tex, s, lo, &site, filter, weights, &cmp)[0];
    if hi == lo || delta == 0.0 {
        return a;
    }
    let b = filter_level(tex, s, hi, &site, filter, weights, &cmp)[0];
    (1.0 - delta) * a + delta * b
}

/// The four texels of a bilinear footprint on level 0, in WGSL/Vulkan gather order:
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0). `None` for border texels.
fn gather_footprint(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    offset: [i32; 3],
) -> [Option<Texel>; 4] {
    let site = site(tex, s, coords, layer, offset);
    let dims = tex.dimensions(0);
    let tx =
        taps(site.uvw[0], dims[0], site.offset[0], Filter::Linear, site.address[0], Weights::Exact)
            .0;
    let ty =
        taps(site.uvw[1], dims[1], site.offset[1], Filter::Linear, site.address[1], Weights::Exact)
            .0;
    let at = |x: Option<i64>, y: Option<i64>| -> Option<Texel> {
        let (x, y) = (x?, y?);
        Some(match tex.texel_offset(x, y, site.slice, 0) {
            Some(off) => tex.format.decode(&tex.data[off..]),
            None => Texel::zero(tex.format.kind()),
        })
    };
    [at(tx[0].0, ty[1].0), at(tx[1].0, ty[1].0), at(tx[1].0, ty[0].0), at(tx[0].0, ty[0].0)]
}

/// `textureGather(component, t, s, coords[, layer][, offset])` on a 2D, 2D-array or cube
/// texture: `component` (0..=3) of the four footprint texels of level 0, in the order
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0). Depth textures gather channel r.
pub fn gather(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    component: u8,
    offset: [i32; 3],
) -> Texel {
    let c = usize::from(component.min(3));
    let kind = tex.format.kind();
    let texels = gather_footprint(tex, s, coords, layer, offset);
    let pick =
        |t: &Option<Texel>| -> [u32; 4] { t.unwrap_or_else(|| border_texel(s, kind)).to_bits() };
    let bits: [u32; 4] = std::array::from_fn(|i| pick(&texels[i])[c]);
    Texel::from_bits(kind, bits)
}

/// `textureGatherCompare`: the 0/1 comparison results of the four footprint texels of
/// level 0, in gather order.
pub fn gather_compare(
    tex: &TextureData,
    s: &SamplerDesc,
    coords: [f32; 3],
    layer: i32,
    reference: f32,
    offset: [i32; 3],
) -> [f32; 4] {
    let f = s.compare.unwrap_or(CompareFn::Never);
    let texels = gather_footprint(tex, s, coords, layer, offset);
    texels.map(|t| {
        let d = t.map_or(s.border.rgba()[0], |t| t.to_f32()[0]);
        if f.passes(reference, d) {
            1.0
        } else {
            0.0
        }
    })
}
