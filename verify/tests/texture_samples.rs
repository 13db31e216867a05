//! Reference tests for the texture samples in `tests/samples/` (`texture_*.wgsl`).
//!
//! Each test builds its texels itself, computes the expected outputs with plain Rust from
//! WGSL/Vulkan semantics (its own indexing and its own little sampler below, not
//! `verify::texture`'s), runs the sample through the interpreter and compares. The texture
//! model is used only as the container the interpreter reads (`TextureData::with_data`
//! over bytes laid out here).

// Reference code indexes texels the way the formulas do, by position.
#![allow(clippy::needless_range_loop)]

mod common;

use common::*;
use dianran_verify::buffers::Buffers;
use dianran_verify::texture::{
    AddressMode, CompareFn, Filter, SamplerDesc, TexDim, TexelFormat, TextureBindings, TextureData,
};
use half::f16;

fn tex(
    dim: TexDim,
    format: TexelFormat,
    extent: [u32; 3],
    levels: u32,
    data: Vec<u8>,
) -> TextureData {
    TextureData::with_data(dim, format, extent, levels, data).expect("texture shape")
}

fn f32s_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn texture_load_store() {
    let (w, h) = (16usize, 8usize);
    let mut rng = Rng::new(71);
    // rgba32float in [-0.5, 1.5) so the unorm store clamps some components.
    let src: Vec<[f32; 4]> = rng.vec(w * h, |r| [0; 4].map(|_| r.f32_in(-0.5, 1.5)));
    let src_u: Vec<[u32; 4]> = rng.vec(w * h, |r| [0; 4].map(|_| r.below(1_000_000)));
    let acc: Vec<f32> = rng.vec(w * h, |r| r.f32_in(-4.0, 4.0));
    let mut t = TextureBindings::default();
    let flat_f: Vec<f32> = src.iter().flatten().copied().collect();
    let flat_u: Vec<u32> = src_u.iter().flatten().copied().collect();
    let ext = [w as u32, h as u32, 1];
    t.textures
        .insert((0, 0), tex(TexDim::D2, TexelFormat::Rgba32Float, ext, 1, f32s_bytes(&flat_f)));
    t.textures.insert((0, 1), tex(TexDim::D2, TexelFormat::Rgba32Uint, ext, 1, u32_bytes(&flat_u)));
    t.textures.insert((0, 2), tex(TexDim::D2, TexelFormat::Rgba8Unorm, ext, 1, vec![0; w * h * 4]));
    t.textures.insert((0, 3), tex(TexDim::D2, TexelFormat::R32Uint, ext, 1, vec![0; w * h * 4]));
    t.textures.insert((0, 4), tex(TexDim::D2, TexelFormat::R32Float, ext, 1, f32s_bytes(&acc)));
    run_textured("texture_load_store.wgsl", group0(Vec::new()), &mut t);

    let mut want8 = Vec::new();
    let mut want_u = Vec::new();
    let mut want_acc = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let a = src[y * w + x];
            let b = src[(h - 1 - y) * w + (w - 1 - x)];
            let bw = [b[3], b[2], b[1], b[0]];
            for c in 0..4 {
                let v = a[c] * 0.5 + bw[c] * 0.25 + 0.25;
                // unorm8: clamp to [0, 1], scale by 255, round to nearest.
                want8.push((v.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
            let u = src_u[y * w + x];
            want_u.push(
                u[0].wrapping_mul(3)
                    .wrapping_add(u[3])
                    .wrapping_add(x as u32 * 100)
                    .wrapping_add(y as u32),
            );
            want_acc.push(acc[y * w + x] * 2.0 + a[1]);
        }
    }
    check_eq("dst", &t.textures[&(0, 2)].data, &want8);
    check_eq("dst_u", &u32s(&t.textures[&(0, 3)].data), &want_u);
    check_f32("acc", &f32s(&t.textures[&(0, 4)].data), &want_acc, 0.0, 1e-6);
}

/// One mip level of an rgba texture for the reference sampler.
struct Level {
    w: usize,
    h: usize,
    texels: Vec<[f32; 4]>,
}

/// Vulkan's wrap of an integer texel coordinate.
fn wrap(i: i64, n: i64, mode: AddressMode) -> usize {
    (match mode {
        AddressMode::Repeat => i.rem_euclid(n),
        AddressMode::MirrorRepeat => {
            let p = i.rem_euclid(2 * n);
            if p < n {
                p
            } else {
                2 * n - 1 - p
            }
        }
        _ => i.clamp(0, n - 1),
    }) as usize
}

/// Bilinear or nearest lookup on one level (no border mode needed by the samples).
fn lookup(l: &Level, uv: [f32; 2], mode: AddressMode, linear: bool) -> [f32; 4] {
    let (w, h) = (l.w as i64, l.h as i64);
    let at = |i: i64, j: i64| l.texels[wrap(j, h, mode) * l.w + wrap(i, w, mode)];
    if !linear {
        return at((uv[0] * l.w as f32).floor() as i64, (uv[1] * l.h as f32).floor() as i64);
    }
    let x = uv[0] * l.w as f32 - 0.5;
    let y = uv[1] * l.h as f32 - 0.5;
    let (i0, j0) = (x.floor() as i64, y.floor() as i64);
    let (a, b) = (x - x.floor(), y - y.floor());
    let mut out = [0.0; 4];
    for c in 0..4 {
        out[c] = (1.0 - a) * (1.0 - b) * at(i0, j0)[c]
            + a * (1.0 - b) * at(i0 + 1, j0)[c]
            + (1.0 - a) * b * at(i0, j0 + 1)[c]
            + a * b * at(i0 + 1, j0 + 1)[c];
    }
    out
}

fn f16_exact(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

#[test]
fn texture_sample() {
    let mut rng = Rng::new(72);
    // Level 0 (8x8): r = x, g = y (a linear ramp, so clamped bilinear filtering gives back
    // the clamped coordinate), b random, a = 0. Level 1 (4x4): r = 10 + x, g = 10 + y, a = 1.
    let mut levels = Vec::new();
    for (l, n) in [8usize, 4].into_iter().enumerate() {
        let base = 10.0 * l as f32;
        let texels = (0..n * n)
            .map(|k| {
                [
                    base + (k % n) as f32,
                    base + (k / n) as f32,
                    f16_exact(rng.f32_in(0.0, 1.0)),
                    l as f32,
                ]
            })
            .collect();
        levels.push(Level { w: n, h: n, texels });
    }
    let bytes: Vec<u8> = levels
        .iter()
        .flat_map(|l| l.texels.iter().flatten().flat_map(|&x| f16::from_f32(x).to_le_bytes()))
        .collect();
    let mut t = TextureBindings::default();
    t.textures.insert((0, 0), tex(TexDim::D2, TexelFormat::Rgba16Float, [8, 8, 1], 2, bytes));
    let s = |a, f| SamplerDesc::uniform(a, f);
    t.samplers.insert((0, 1), s(AddressMode::ClampToEdge, Filter::Nearest));
    t.samplers.insert((0, 2), s(AddressMode::ClampToEdge, Filter::Linear));
    t.samplers.insert((0, 3), s(AddressMode::Repeat, Filter::Linear));
    t.samplers.insert((0, 4), s(AddressMode::MirrorRepeat, Filter::Linear));
    let bufs = run_textured("texture_sample.wgsl", group0(vec![(5, zeros(64 * 6 * 16))]), &mut t);
    let got = f32s(out(&bufs, 5));

    let mut want = Vec::new();
    for i in 0..64u32 {
        let uv =
            [(i % 8) as f32 * 0.15 - 0.27 + 0.013 * (i / 8) as f32, (i / 8) as f32 * 0.16 - 0.31];
        // Hand check of the ramp: clamped bilinear r and g are the clamped texel-space
        // coordinates u * 8 - 0.5 and v * 8 - 0.5.
        let clamp_lin = lookup(&levels[0], uv, AddressMode::ClampToEdge, true);
        assert!((clamp_lin[0] - (uv[0] * 8.0 - 0.5).clamp(0.0, 7.0)).abs() < 1e-4, "point {i}");
        assert!((clamp_lin[1] - (uv[1] * 8.0 - 0.5).clamp(0.0, 7.0)).abs() < 1e-4, "point {i}");
        let repeat0 = lookup(&levels[0], uv, AddressMode::Repeat, true);
        let repeat1 = lookup(&levels[1], uv, AddressMode::Repeat, true);
        want.extend(lookup(&levels[0], uv, AddressMode::ClampToEdge, false));
        want.extend(clamp_lin);
        want.extend(repeat0);
        want.extend(lookup(&levels[0], uv, AddressMode::MirrorRepeat, true));
        want.extend(lookup(&levels[1], uv, AddressMode::ClampToEdge, true));
        // lod 0.5 with linear mipmap filtering: halfway between the two levels.
        want.extend((0..4).map(|c| 0.5 * repeat0[c] + 0.5 * repeat1[c]));
    }
    check_f32("samples", &got, &want, 1e-4, 1e-5);
}

#[test]
fn texture_gather_compare() {
    let mut rng = Rng::new(73);
    let color: Vec<[f32; 4]> = rng.vec(64, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let depth: Vec<f32> = rng.vec(64, |r| r.f32_in(0.0, 1.0));
    let mut t = TextureBindings::default();
    let flat: Vec<f32> = color.iter().flatten().copied().collect();
    t.textures
        .insert((0, 0), tex(TexDim::D2, TexelFormat::Rgba32Float, [8, 8, 1], 1, f32s_bytes(&flat)));
    t.textures.insert(
        (0, 1),
        tex(TexDim::D2, TexelFormat::Depth32Float, [8, 8, 1], 1, f32s_bytes(&depth)),
    );
    t.samplers.insert((0, 2), SamplerDesc::default());
    let shadow = SamplerDesc {
        compare: Some(CompareFn::Less),
        ..SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear)
    };
    t.samplers.insert((0, 3), shadow);
    let input = group0(vec![(4, zeros(32 * 4 * 16))]);
    let bufs = run_textured("texture_gather_compare.wgsl", input.clone(), &mut t);
    let got = f32s(out(&bufs, 4));
    // Our PTX on the emulator: the comparison emulated with tld4/tex and the compare word
    // (docs/textures.md), against the same plain-Rust values.
    let emu = run_emu_textured("texture_gather_compare.wgsl", &input, &t);
    let got_emu = f32s(out(&emu, 4));

    let mut want = Vec::new();
    for i in 0..32u32 {
        let uv = [(i % 8) as f32 * 0.131 + 0.021, (i / 8) as f32 * 0.227 + 0.043];
        let reference = i as f32 / 32.0;
        let x = uv[0] * 8.0 - 0.5;
        let y = uv[1] * 8.0 - 0.5;
        let (i0, j0) = (x.floor() as i64, y.floor() as i64);
        let (a, b) = (x - x.floor(), y - y.floor());
        let idx = |i: i64, j: i64| (j.clamp(0, 7) * 8 + i.clamp(0, 7)) as usize;
        // Gather order: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        let quad = [idx(i0, j0 + 1), idx(i0 + 1, j0 + 1), idx(i0 + 1, j0), idx(i0, j0)];
        want.extend(quad.map(|k| color[k][1]));
        want.extend(quad.map(|k| depth[k]));
        let pass = quad.map(|k| if reference < depth[k] { 1.0f32 } else { 0.0 });
        want.extend(pass);
        // Bilinear blend of the comparison results with the same weights.
        let c = (1.0 - a) * b * pass[0]
            + a * b * pass[1]
            + a * (1.0 - b) * pass[2]
            + (1.0 - a) * (1.0 - b) * pass[3];
        want.extend([c, 0.0, 0.0, 0.0]);
    }
    check_f32("gathers", &got, &want, 1e-5, 1e-5);
    check_f32("gathers on the emulator", &got_emu, &want, 1e-5, 1e-5);
}

/// Plain-Rust depth comparison on a cube (or one cube of a cube array) of `w` x `w` faces
/// stored face after face, row-major, with the `less` function: the face and (s, t) from
/// Vulkan's "Cube Map Face Selection" table (ties prefer X over Y over Z, the reference
/// model's decision), then per-face clamp-to-edge addressing: the reference model does not
/// filter across face edges (docs/textures.md).
struct CubeRef<'a> {
    depth: &'a [f32],
    w: usize,
}

impl CubeRef<'_> {
    /// (face, s, t) of direction `d`.
    fn face(d: [f32; 3]) -> (usize, f32, f32) {
        let [x, y, z] = d;
        let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
        let (face, sc, tc, ma) = if ax >= ay && ax >= az {
            if x >= 0.0 {
                (0, -z, -y, ax)
            } else {
                (1, z, -y, ax)
            }
        } else if ay >= az {
            if y >= 0.0 {
                (2, x, z, ay)
            } else {
                (3, x, -z, ay)
            }
        } else if z >= 0.0 {
            (4, x, -y, az)
        } else {
            (5, -x, -y, az)
        };
        (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
    }

    /// Passes (1.0) when `reference < texel (i, j)` of `face` of cube `cube`, indices clamped.
    fn pass(&self, cube: usize, face: usize, i: i64, j: i64, reference: f32) -> f32 {
        let c = |v: i64| v.clamp(0, self.w as i64 - 1) as usize;
        let texel = self.depth[((cube * 6 + face) * self.w + c(j)) * self.w + c(i)];
        if reference < texel {
            1.0
        } else {
            0.0
        }
    }

    /// textureSampleCompareLevel with a nearest sampler.
    fn nearest(&self, cube: usize, d: [f32; 3], reference: f32) -> f32 {
        let (face, s, t) = Self::face(d);
        let n = self.w as f32;
        let (i, j) = ((s * n).floor() as i64, (t * n).floor() as i64);
        self.pass(cube, face, i, j, reference)
    }

    /// The compared footprint in gather order, (i0, j1), (i1, j1), (i1, j0), (i0, j0), and
    /// the bilinear weights (a, b).
    fn footprint(&self, cube: usize, d: [f32; 3], reference: f32) -> ([f32; 4], f32, f32) {
        let (face, s, t) = Self::face(d);
        let n = self.w as f32;
        let (u, v) = (s * n - 0.5, t * n - 0.5);
        let (i0, j0) = (u.floor() as i64, v.floor() as i64);
        let p = |i, j| self.pass(cube, face, i, j, reference);
        let quad = [p(i0, j0 + 1), p(i0 + 1, j0 + 1), p(i0 + 1, j0), p(i0, j0)];
        (quad, u - u.floor(), v - v.floor())
    }

    /// textureGatherCompare.
    fn gather(&self, cube: usize, d: [f32; 3], reference: f32) -> [f32; 4] {
        self.footprint(cube, d, reference).0
    }

    /// textureSampleCompareLevel with a linear sampler.
    fn linear(&self, cube: usize, d: [f32; 3], reference: f32) -> f32 {
        let (q, a, b) = self.footprint(cube, d, reference);
        (1.0 - a) * (1.0 - b) * q[3] + a * (1.0 - b) * q[2] + (1.0 - a) * b * q[0] + a * b * q[1]
    }
}

/// `depth_compare_cube.wgsl` with its 16 directions replaced by `dirs`.
fn depth_compare_cube_source(dirs: &[[f32; 3]; 16]) -> String {
    let src = std::fs::read_to_string(sample_path("depth_compare_cube.wgsl")).expect("sample");
    let start = src.find("const DIRS").expect("DIRS");
    let end = start + src[start..].find(");\n").expect("end of DIRS") + 3;
    let list: Vec<String> = dirs
        .iter()
        .map(|d| format!("    vec3<f32>({:?}, {:?}, {:?}),\n", d[0], d[1], d[2]))
        .collect();
    format!(
        "{}const DIRS = array<vec3<f32>, 16>(\n{});\n{}",
        &src[..start],
        list.concat(),
        &src[end..]
    )
}

/// Runs `depth_compare_cube.wgsl` (directions `dirs`, or the sample's own) on the interpreter
/// and on our PTX on the emulator, checks both against [`CubeRef`], and the emulator's
/// results bit for bit against the interpreter's: the kernel selects the face, forms the
/// weights and blends in the reference model's operation order.
fn depth_compare_cube_on(name: &str, src: &str, dirs: &[[f32; 3]; 16]) {
    let mut rng = Rng::new(79);
    let cube_depth: Vec<f32> = rng.vec(8 * 8 * 6, |r| r.f32_in(0.0, 1.0));
    let array_depth: Vec<f32> = rng.vec(4 * 4 * 12, |r| r.f32_in(0.0, 1.0));
    let mut t = TextureBindings::default();
    let d32 = TexelFormat::Depth32Float;
    t.textures.insert((0, 0), tex(TexDim::Cube, d32, [8, 8, 6], 1, f32s_bytes(&cube_depth)));
    t.textures.insert((0, 1), tex(TexDim::CubeArray, d32, [4, 4, 12], 1, f32s_bytes(&array_depth)));
    let sampler = |filter| SamplerDesc {
        compare: Some(CompareFn::Less),
        ..SamplerDesc::uniform(AddressMode::ClampToEdge, filter)
    };
    t.samplers.insert((0, 2), sampler(Filter::Nearest));
    t.samplers.insert((0, 3), sampler(Filter::Linear));
    let input = group0(vec![(4, zeros(32 * 3 * 16))]);
    let (dispatch, entry) = sample_header(src);
    let module = dianran_frontend::compile(name, src, &Default::default()).expect("compiles");
    let bufs = run_interp_on(&module, &entry, dispatch, &input, &mut t.clone());
    let got = f32s(out(&bufs, 4));
    let emu = run_emu_on(name, src, &input, &t);
    let got_emu = f32s(out(&emu, 4));

    let cube = CubeRef { depth: &cube_depth, w: 8 };
    let cubes = CubeRef { depth: &array_depth, w: 4 };
    let mut want = Vec::new();
    for i in 0..32usize {
        let d = dirs[i % 16].map(|c| c * (1.0 + (i / 16) as f32 * 2.5));
        let reference = i as f32 / 32.0 + 1.0 / 512.0;
        let layer = i % 2;
        want.extend([
            cube.nearest(0, d, reference),
            cube.linear(0, d, reference),
            cubes.nearest(layer, d, reference),
            cubes.linear(layer, d, reference),
        ]);
        want.extend(cube.gather(0, d, reference));
        want.extend(cubes.gather(layer, d, reference));
    }
    check_f32(name, &got, &want, 1e-5, 1e-5);
    for (k, (e, r)) in got_emu.iter().zip(&got).enumerate() {
        assert_eq!(e.to_bits(), r.to_bits(), "{name}: word {k}: emulator {e}, interpreter {r}");
    }
}

/// The directions of `depth_compare_cube.wgsl`.
const CUBE_DIRS: [[f32; 3]; 16] = [
    [1.0, 0.1, -0.2],
    [-1.0, 0.3, 0.55],
    [0.2, 1.0, -0.4],
    [-0.45, -1.0, 0.15],
    [0.45, -0.15, 1.0],
    [0.05, 0.6, -1.0],
    [1.0, 0.7, 0.7],
    [-1.0, -0.7, 0.3],
    [0.7, 1.0, -0.7],
    [-0.7, -1.0, 0.7],
    [-0.7, 0.7, 1.0],
    [0.7, -0.7, -1.0],
    [0.0, 0.0, -1.0],
    [0.0, -1.0, 0.0],
    [1.0, -0.4, 0.6],
    [-0.6, 1.0, 0.05],
];

#[test]
fn depth_compare_cube() {
    let name = "depth_compare_cube.wgsl";
    let src = std::fs::read_to_string(sample_path(name)).expect("sample");
    // The sample's table is CUBE_DIRS.
    let table: Vec<Vec<f32>> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("vec3<f32>(")?.strip_suffix("),"))
        .map(|l| l.split(',').map(|x| x.trim().parse::<f32>().expect("a float")).collect())
        .collect();
    assert_eq!(table, CUBE_DIRS.map(|d| d.to_vec()), "DIRS of {name}");
    depth_compare_cube_on(name, &src, &CUBE_DIRS);
}

/// Directions on face edges (ties between major axes), on corners, and next to edges with
/// the footprint past the edge (clamped to the face): the emulator's `tld4`/`tex` on cube
/// and cube-array objects and the kernel's face selection against the interpreter. Vulkan
/// filters across edges there, so lavapipe is not compared.
#[test]
fn depth_compare_cube_edges_and_corners() {
    let dirs = [
        [-1.0, 0.2, 1.0],
        [1.0, 1.0, 0.3],
        [0.5, -1.0, -1.0],
        [1.0, -0.3, -1.0],
        [-1.0, 1.0, -0.6],
        [0.2, 1.0, 1.0],
        [1.0, 1.0, 1.0],
        [-1.0, -1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [1.0, 0.2, 0.93],
        [0.9, -1.0, 0.3],
        [-0.3, 0.95, -1.0],
        [-1.0, -0.97, -0.5],
        [1.0, 0.999, -0.999],
        [-0.0, 0.0, 1.0],
    ];
    let src = depth_compare_cube_source(&dirs);
    depth_compare_cube_on("depth_compare_cube_edges.wgsl", &src, &dirs);
}

/// Directions the sample cannot spell: infinite and NaN components and a zero direction
/// (NaN face coordinates, so NaN weights: the kernel adds `0*x + 0*y + 0*z` to the major
/// axis as the model's dot products do), and subnormal ones (no flush to zero). The linear
/// comparison on the emulator matches the interpreter bit for bit, NaN for NaN.
#[test]
fn depth_compare_cube_degenerate_directions() {
    let src = "// dispatch: 1,1,1
@group(0) @binding(0) var cube: texture_depth_cube;
@group(0) @binding(3) var s_linear: sampler_comparison;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read> dirs: array<vec4<f32>>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = textureSampleCompareLevel(cube, s_linear, dirs[i].xyz, 0.5);
}
";
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let dirs: [[f32; 3]; 8] = [
        [inf, 0.2, 0.3],
        [1.0, -inf, 0.5],
        [0.5, 0.2, nan],
        [0.0, 0.0, 0.0],
        [1.0, 0.1, -0.2],
        [-0.0, 0.0, 1.0],
        [3e-39, 1e-39, -2e-39],
        [-1e-39, 2.5e-39, 0.7e-39],
    ];
    let mut rng = Rng::new(83);
    let depth: Vec<f32> = rng.vec(8 * 8 * 6, |r| r.f32_in(0.0, 1.0));
    let mut t = TextureBindings::default();
    let d32 = TexelFormat::Depth32Float;
    t.textures.insert((0, 0), tex(TexDim::Cube, d32, [8, 8, 6], 1, f32s_bytes(&depth)));
    t.samplers.insert(
        (0, 3),
        SamplerDesc {
            compare: Some(CompareFn::Less),
            ..SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear)
        },
    );
    let flat: Vec<f32> = dirs.iter().flat_map(|d| [d[0], d[1], d[2], 0.0]).collect();
    let input = group0(vec![(4, zeros(8 * 4)), (5, f32s_bytes(&flat))]);
    let name = "depth_compare_cube_degenerate.wgsl";
    let (dispatch, entry) = sample_header(src);
    let module = dianran_frontend::compile(name, src, &Default::default()).expect("compiles");
    let bufs = run_interp_on(&module, &entry, dispatch, &input, &mut t.clone());
    let got = f32s(out(&bufs, 4));
    let emu = run_emu_on(name, src, &input, &t);
    let got_emu = f32s(out(&emu, 4));
    let cube = CubeRef { depth: &depth, w: 8 };
    for (k, d) in dirs.iter().enumerate() {
        let finite = d.iter().all(|c| c.is_finite()) && d.iter().any(|&c| c != 0.0);
        if finite {
            let want = cube.linear(0, *d, 0.5);
            assert!((got[k] - want).abs() <= 1e-5, "{d:?}: interpreter {}, want {want}", got[k]);
            assert_eq!(got_emu[k].to_bits(), got[k].to_bits(), "{d:?}: emulator {}", got_emu[k]);
        } else {
            assert!(got[k].is_nan() && got_emu[k].is_nan(), "{d:?}: {} / {}", got[k], got_emu[k]);
        }
    }
}

/// Runs sample `name` through our PTX on the emulator with `textures` bound
/// (`dianran_verify::textured::run_textured`); returns the buffers after.
fn run_emu_textured(name: &str, input: &Buffers, textures: &TextureBindings) -> Buffers {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    run_emu_on(name, &src, input, textures)
}

fn run_emu_on(name: &str, src: &str, input: &Buffers, textures: &TextureBindings) -> Buffers {
    use dianran_verify::executors::{Executor, Job};
    let (dispatch, entry) = sample_header(src);
    let module = dianran_frontend::compile(name, src, &Default::default()).expect("compiles");
    let job = Job::new(name, src, &module, &entry, dispatch);
    dianran_verify::textured::run_textured(Executor::Emu, &job, input, textures)
        .unwrap_or_else(|e| panic!("{name} on the emulator: {e}"))
        .0
}

/// Every compare function, nearest and linear, on a 2D and a 2D-array depth texture with
/// clamp-to-border (white) and repeat, through the interpreter and our PTX on the emulator,
/// against plain Rust: each texel passes when `reference OP texel`; nearest compares the
/// texel `floor(u * W)`, linear blends the four results of the footprint
/// `floor(u * W - 0.5) + {0, 1}` with weights `frac(u * W - 0.5)`.
#[test]
fn depth_comparison_every_function() {
    use dianran_verify::texture::BorderColor;
    let src = "// dispatch: 1
@group(0) @binding(0) var flat: texture_depth_2d;
@group(0) @binding(1) var layered: texture_depth_2d_array;
@group(0) @binding(2) var s_near: sampler_comparison;
@group(0) @binding(3) var s_lin: sampler_comparison;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let uv = vec2<f32>(f32(i % 8u) * 0.173 - 0.21, f32(i / 8u) * 0.151 - 0.17);
    let r = f32(i % 9u) * 0.125;
    out[i * 3u + 0u] = vec4<f32>(
        textureSampleCompareLevel(flat, s_near, uv, r),
        textureSampleCompareLevel(flat, s_lin, uv, r),
        textureSampleCompareLevel(layered, s_near, uv, i % 3u, r),
        textureSampleCompareLevel(layered, s_lin, uv, i % 3u, r));
    out[i * 3u + 1u] = textureGatherCompare(flat, s_lin, uv, r);
    out[i * 3u + 2u] = textureGatherCompare(layered, s_near, uv, i % 3u, r);
}
";
    let (w, h, layers) = (5usize, 4usize, 3usize);
    let mut rng = Rng::new(75);
    // Depths on a 1/8 grid so that `equal` and friends see ties with the references.
    let flat: Vec<f32> = rng.vec(w * h, |r| r.below(9) as f32 * 0.125);
    let layered: Vec<f32> = rng.vec(w * h * layers, |r| r.below(9) as f32 * 0.125);
    let functions = [
        CompareFn::Never,
        CompareFn::Less,
        CompareFn::Equal,
        CompareFn::LessEqual,
        CompareFn::Greater,
        CompareFn::NotEqual,
        CompareFn::GreaterEqual,
        CompareFn::Always,
    ];
    for (k, f) in functions.into_iter().enumerate() {
        let near = SamplerDesc {
            compare: Some(f),
            border: BorderColor::OpaqueWhite,
            ..SamplerDesc::uniform(AddressMode::ClampToBorder, Filter::Nearest)
        };
        let lin = SamplerDesc {
            compare: Some(functions[7 - k]),
            ..SamplerDesc::uniform(AddressMode::Repeat, Filter::Linear)
        };
        let mut t = TextureBindings::default();
        let ext = [w as u32, h as u32, 1];
        t.textures
            .insert((0, 0), tex(TexDim::D2, TexelFormat::Depth32Float, ext, 1, f32s_bytes(&flat)));
        let ext = [w as u32, h as u32, layers as u32];
        t.textures.insert(
            (0, 1),
            tex(TexDim::D2Array, TexelFormat::Depth32Float, ext, 1, f32s_bytes(&layered)),
        );
        t.samplers.insert((0, 2), near);
        t.samplers.insert((0, 3), lin);
        let input = group0(vec![(4, zeros(64 * 3 * 16))]);
        let module =
            dianran_frontend::compile("cmp.wgsl", src, &Default::default()).expect("compiles");
        let interp = run_interp_on(&module, "main", [1, 1, 1], &input, &mut t.clone());
        let emu = run_emu_on("cmp.wgsl", src, &input, &t);

        let pass = |f: CompareFn, r: f32, d: f32| -> f32 {
            let ok = match f {
                CompareFn::Never => false,
                CompareFn::Less => r < d,
                CompareFn::Equal => r == d,
                CompareFn::LessEqual => r <= d,
                CompareFn::Greater => r > d,
                CompareFn::NotEqual => r != d,
                CompareFn::GreaterEqual => r >= d,
                CompareFn::Always => true,
            };
            if ok {
                1.0
            } else {
                0.0
            }
        };
        // Border (white, depth 1.0) outside for the nearest sampler; repeat for linear.
        let at_border = |data: &[f32], layer: usize, i: i64, j: i64| -> f32 {
            if (0..w as i64).contains(&i) && (0..h as i64).contains(&j) {
                data[layer * w * h + j as usize * w + i as usize]
            } else {
                1.0
            }
        };
        let at_repeat = |data: &[f32], layer: usize, i: i64, j: i64| -> f32 {
            let (i, j) = (i.rem_euclid(w as i64), j.rem_euclid(h as i64));
            data[layer * w * h + j as usize * w + i as usize]
        };
        let mut want = Vec::new();
        for i in 0..64u32 {
            let uv = [(i % 8) as f32 * 0.173 - 0.21, (i / 8) as f32 * 0.151 - 0.17];
            let r = (i % 9) as f32 * 0.125;
            let layer = (i % 3) as usize;
            let (fl, fn_) = (functions[7 - k], f);
            let nearest = |data: &[f32], layer: usize| {
                let x = (uv[0] * w as f32).floor() as i64;
                let y = (uv[1] * h as f32).floor() as i64;
                pass(fn_, r, at_border(data, layer, x, y))
            };
            let x = uv[0] * w as f32 - 0.5;
            let y = uv[1] * h as f32 - 0.5;
            let (i0, j0) = (x.floor() as i64, y.floor() as i64);
            let (a, b) = (x - x.floor(), y - y.floor());
            let quad = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)];
            let linear = |data: &[f32], layer: usize| {
                let p = quad.map(|(x, y)| pass(fl, r, at_repeat(data, layer, x, y)));
                (1.0 - a) * b * p[0]
                    + a * b * p[1]
                    + a * (1.0 - b) * p[2]
                    + (1.0 - a) * (1.0 - b) * p[3]
            };
            want.extend([
                nearest(&flat, 0),
                linear(&flat, 0),
                nearest(&layered, layer),
                linear(&layered, layer),
            ]);
            want.extend(quad.map(|(x, y)| pass(fl, r, at_repeat(&flat, 0, x, y))));
            want.extend(quad.map(|(x, y)| pass(fn_, r, at_border(&layered, layer, x, y))));
        }
        let tag = format!("{} / {}", f.name(), functions[7 - k].name());
        check_f32(&format!("interp {tag}"), &f32s(out(&interp, 4)), &want, 1e-5, 1e-5);
        check_f32(&format!("emu {tag}"), &f32s(out(&emu, 4)), &want, 1e-5, 1e-5);
        // The emulated blend rounds like the reference model: bit-exact agreement.
        assert_eq!(out(&interp, 4), out(&emu, 4), "{tag}: interp and emu differ");
    }
}

#[test]
fn texture_dims() {
    let mut rng = Rng::new(74);
    let t1: Vec<f32> = rng.vec(13, |r| r.f32_in(-100.0, 100.0));
    // 2D array 4x4, 5 layers, 2 levels: level 1 is 2x2 x 5 layers after 80 texels.
    let ta: Vec<i32> = rng.vec(80 + 20, |r| r.i32_in(-5000, 5000));
    // 3D 8x4x4, 2 levels: level 1 is 4x2x2 after 128 texels.
    let t3: Vec<u32> = rng.vec(128 + 16, |r| r.next_u32());
    let mut t = TextureBindings::default();
    t.textures
        .insert((0, 0), tex(TexDim::D1, TexelFormat::R32Float, [13, 1, 1], 1, f32s_bytes(&t1)));
    let mut t2 = TextureData::new(TexDim::D2, TexelFormat::Rgba8Unorm, 16, 8, 1, 3).unwrap();
    t2.data.iter_mut().enumerate().for_each(|(k, b)| *b = k as u8);
    t.textures.insert((0, 1), t2);
    t.textures
        .insert((0, 2), tex(TexDim::D2Array, TexelFormat::R32Sint, [4, 4, 5], 2, i32_bytes(&ta)));
    t.textures.insert((0, 3), tex(TexDim::D3, TexelFormat::R32Uint, [8, 4, 4], 2, u32_bytes(&t3)));
    let cube = TextureData::new(TexDim::Cube, TexelFormat::Rgba16Float, 4, 4, 6, 3).unwrap();
    t.textures.insert((0, 4), cube);
    let bufs = run_textured(
        "texture_dims.wgsl",
        group0(vec![(5, zeros(24 * 4)), (6, zeros(8 * 16))]),
        &mut t,
    );
    let mut want_dims = vec![13, 16, 8, 4, 2, 3, 2, 2, 5, 2, 8, 4, 4, 4, 2, 2, 2, 2, 3, 2];
    want_dims.resize(24, 0);
    check_eq("dims", &u32s(out(&bufs, 5)), &want_dims);
    let mut want = Vec::new();
    for k in 0..8usize {
        let x = t1[k + 3].to_bits();
        // Level 1 of the array: layer (k % 5), texel (k % 2, k / 4) of a 2x2 layer.
        let a = ta[80 + (k % 5) * 4 + (k / 4) * 2 + k % 2];
        // Level 1 of the 3D texture: slice k % 2 of 4x2, texel (k % 4, k / 4).
        let v = t3[128 + (k % 2) * 8 + (k / 4) * 4 + k % 4];
        // A one-channel integer texel reads alpha 1.
        want.extend([x, a as u32, v, 1]);
    }
    check_eq("texels", &u32s(out(&bufs, 6)), &want);
}

/// Runs a texture sample on the interpreter and on lavapipe with seeded textures built from
/// its header (`build_textures`) and zeroed buffers, and compares buffers and storage
/// textures: lavapipe is an independent implementation of the same WGSL semantics. Linear
/// filtering gets [`dianran_verify::textured::filter_slack`] (lavapipe's filter weights are
/// its own) on top of the usual bounds.
fn lavapipe_agrees(name: &str) {
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    lavapipe_agrees_on(name, &src);
}

fn lavapipe_agrees_on(name: &str, src: &str) {
    dianran_verify::lavapipe::quiet_mesa_warnings();
    // No adapter: `skipped: ...`, and a failure under CI=true (verify::tools).
    if !dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    ) {
        return;
    }
    agrees_with_interp(name, src, dianran_verify::executors::Executor::Lavapipe);
}

/// A texture sample compiled, with seeded textures from its header and zeroed buffers.
struct Sample {
    module: dianran_frontend::ir::Module,
    entry: String,
    dispatch: [u32; 3],
    textures: dianran_verify::texture::TextureBindings,
    input: dianran_verify::buffers::Buffers,
}

impl Sample {
    fn of(name: &str, src: &str) -> Sample {
        let (dispatch, entry) = sample_header(src);
        let header = dianran_verify::samples::header(src).expect("header");
        let module = dianran_frontend::compile(name, src, &Default::default()).expect("compiles");
        let textures = dianran_verify::texture::build_textures(
            &module,
            &entry,
            &header.textures,
            &header.samplers,
            9,
        )
        .expect("textures");
        let input =
            dianran_verify::buffers::default_buffers(&module, &entry, 512).expect("buffers");
        Sample { module, entry, dispatch, textures, input }
    }
}

/// Runs a texture sample on the interpreter and on `exec` (see [`lavapipe_agrees`]) and
/// compares buffers and storage textures; `exec` must run it (a skip is a failure).
fn agrees_with_interp(name: &str, src: &str, exec: dianran_verify::executors::Executor) {
    use dianran_verify::executors::{ExecError, Executor, Job};
    use dianran_verify::textured::{compare_textures, filter_slack, run_textured};
    let Sample { module, entry, dispatch, textures, input } = Sample::of(name, src);
    let job = Job::new(name, src, &module, &entry, dispatch);
    let (rb, rt) = run_textured(Executor::Interp, &job, &input, &textures).expect("interp");
    // With an adapter (a device), every one of these samples runs: a skip (a feature or
    // binding the executor declines) is a failure here, not a pass.
    let on = exec.name();
    let (lb, lt) = match run_textured(exec, &job, &input, &textures) {
        Err(ExecError::Skipped(why)) => panic!("{name}: {on} skipped the sample: {why}"),
        other => other.unwrap_or_else(|e| panic!("{name} on {on}: {e}")),
    };
    let p = dianran_verify::agree::precision(&module, &entry);
    compare_textures(&module, &entry, &rt, &lt, p).unwrap_or_else(|e| panic!("{name}: {e}"));
    let slack = filter_slack(&module, &textures);
    for (key, r) in &rb {
        let l = &lb[key];
        for (i, (a, b)) in f32s(r).iter().zip(f32s(l)).enumerate() {
            // Every buffer of these samples holds f32 or u32 words; u32 ones compare by bits.
            let same = a.to_bits() == b.to_bits() || (a - b).abs() <= 1e-5 + slack;
            assert!(same, "{name}: buffer {key:?} word {i}: interp {a} {on} {b} (slack {slack})");
        }
    }
}

/// The texture samples through the CUDA driver, bound by the launcher `dianran::launch` uses,
/// agree with the interpreter. Without a device the executor must say so, not decline
/// textures.
#[test]
fn cuda_texture_samples() {
    use dianran_verify::executors::{ExecError, Executor};
    let samples = [
        "texture_load_store.wgsl",
        "texture_sample.wgsl",
        "texture_gather_compare.wgsl",
        "depth_compare_cube.wgsl",
        "texture_dims.wgsl",
    ];
    let src = std::fs::read_to_string(sample_path(samples[0])).expect("cannot read sample");
    let Sample { module, entry, dispatch, textures, input } = Sample::of(samples[0], &src);
    let job = dianran_verify::executors::Job::new(samples[0], &src, &module, &entry, dispatch);
    match dianran_verify::textured::run_textured(Executor::Cuda, &job, &input, &textures) {
        Err(ExecError::Skipped(why)) => {
            assert!(why.starts_with("no CUDA device"), "cuda declined a textured entry: {why}");
            println!("skipped: {why}");
            return;
        }
        other => drop(other.unwrap_or_else(|e| panic!("cuda: {e}"))),
    }
    for name in samples {
        let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
        agrees_with_interp(name, &src, Executor::Cuda);
    }
}

#[test]
fn lavapipe_texture_load_store() {
    lavapipe_agrees("texture_load_store.wgsl");
}

#[test]
fn lavapipe_texture_sample() {
    lavapipe_agrees("texture_sample.wgsl");
}

#[test]
fn lavapipe_texture_gather_compare() {
    lavapipe_agrees("texture_gather_compare.wgsl");
}

#[test]
fn lavapipe_depth_compare_cube() {
    lavapipe_agrees("depth_compare_cube.wgsl");
}

#[test]
fn lavapipe_texture_dims() {
    lavapipe_agrees("texture_dims.wgsl");
}

/// Cube maps (directions near face centers, where seamless filtering does not matter),
/// trilinear 3D sampling, 2D arrays, explicit gradients and integer-texture gathers agree
/// between the interpreter and lavapipe. The gradient gives a level of detail of exactly 1
/// (2 texels per step): Vulkan lets implementations approximate `log2` and the blend weight
/// between levels, and lavapipe's level for a gradient of 1.6 texels (0.678) blends about
/// 0.03 away from the exact one.
#[test]
fn lavapipe_cube_3d_array_grad() {
    let src = "// dispatch: 1
// texture: 0:0=8x8x6:rgba16float:2
// texture: 0:1=4x4x4:rgba16float
// texture: 0:2=8x8x3:rgba16float:3
// texture: 0:4=4x4:rgba32uint
// sampler: 0:3=repeat,linear
// sampler: 0:6=mirror-repeat,nearest
@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var vol: texture_3d<f32>;
@group(0) @binding(2) var arr: texture_2d_array<f32>;
@group(0) @binding(3) var s: sampler;
@group(0) @binding(4) var ints: texture_2d<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<vec4<f32>, 256>;
@group(0) @binding(6) var point: sampler;
@compute @workgroup_size(48)
fn main(@builtin(local_invocation_index) i: u32) {
    let face = i % 6u;
    let axis = face / 2u;
    let sign = select(1.0, -1.0, (face & 1u) == 1u);
    var d = vec3<f32>(f32(i % 5u) * 0.07 - 0.13, f32(i % 7u) * 0.05 - 0.16, f32(i % 3u) * 0.09 - 0.1);
    d[axis] = sign;
    let t = vec3<f32>(f32(i % 8u) * 0.13 + 0.02, f32(i / 8u) * 0.11 + 0.03, f32(i % 5u) * 0.19 + 0.01);
    out[i * 5u + 0u] = textureSampleLevel(cube, s, d, f32(i % 3u) * 0.5);
    out[i * 5u + 1u] = textureSampleLevel(vol, s, t, 0.0);
    out[i * 5u + 2u] = textureSampleLevel(arr, s, t.xy, i % 4u, 0.7);
    out[i * 5u + 3u] = textureSampleGrad(arr, s, t.yx, i % 3u, vec2<f32>(0.25, 0.0), vec2<f32>(0.0, 0.05));
    out[i * 5u + 4u] = vec4<f32>(textureGather(2, ints, point, t.xy * 1.7 - 0.3));
}
";
    lavapipe_agrees_on("cube_3d_array_grad.wgsl", src);
}

/// Texel offsets (WGSL's `offset` argument): nearest and linear `textureSampleLevel` on 2D,
/// 2D-array and 3D textures, `textureSampleGrad`, `textureGather`, `textureGatherCompare`
/// and `textureSampleCompareLevel` with constant offsets at the ends of WGSL's range
/// [-8, 7], on repeat, clamp-to-edge and mirror-repeat samplers: the interpreter agrees with
/// lavapipe and with our PTX on the emulator, and nearest sampling matches plain Rust.
#[test]
fn texel_offsets_agree() {
    let src = "// dispatch: 1
// texture: 0:0=8x8:rgba32float
// texture: 0:1=8x8x3:rgba16float
// texture: 0:2=4x4x4:rgba16float
// texture: 0:3=8x8:depth32float
// sampler: 0:4=repeat,nearest
// sampler: 0:5=clamp-to-edge,linear
// sampler: 0:6=mirror-repeat,linear,greater
// sampler: 0:8=repeat,nearest,less-equal
@group(0) @binding(0) var img: texture_2d<f32>;
@group(0) @binding(1) var arr: texture_2d_array<f32>;
@group(0) @binding(2) var vol: texture_3d<f32>;
@group(0) @binding(3) var shadow: texture_depth_2d;
@group(0) @binding(4) var near: sampler;
@group(0) @binding(5) var lin: sampler;
@group(0) @binding(6) var cmp_lin: sampler_comparison;
@group(0) @binding(7) var<storage, read_write> out: array<vec4<f32>, 512>;
@group(0) @binding(8) var cmp_near: sampler_comparison;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let uv = vec2<f32>(f32(i % 8u) * 0.13 + 0.021, f32(i / 8u) * 0.117 + 0.033);
    let r = f32(i % 5u) * 0.2 + 0.1;
    out[i * 8u + 0u] = textureSampleLevel(img, near, uv, 0.0, vec2<i32>(-8, 7));
    out[i * 8u + 1u] = textureSampleLevel(img, lin, uv, 0.0, vec2<i32>(1, -2));
    out[i * 8u + 2u] = textureSampleLevel(arr, near, uv, i % 3u, 0.0, vec2<i32>(3, 5));
    out[i * 8u + 3u] = textureSampleLevel(vol, lin, vec3<f32>(uv, 0.4), 0.0, vec3<i32>(-1, 0, 2));
    out[i * 8u + 4u] = textureGather(1, img, near, uv, vec2<i32>(2, -3));
    out[i * 8u + 5u] = textureGatherCompare(shadow, cmp_near, uv, r, vec2<i32>(-4, 6));
    out[i * 8u + 6u] = vec4<f32>(
        textureSampleCompareLevel(shadow, cmp_lin, uv, r, vec2<i32>(1, 1)),
        textureSampleCompareLevel(shadow, cmp_near, uv, r, vec2<i32>(-2, 3)),
        0.0, 0.0);
    out[i * 8u + 7u] = textureSampleGrad(img, lin, uv, vec2<f32>(0.0), vec2<f32>(0.0), vec2<i32>(0, 4));
}
";
    lavapipe_agrees_on("texel_offsets.wgsl", src);
    let (_, entry) = sample_header(src);
    let header = dianran_verify::samples::header(src).expect("header");
    let module = dianran_frontend::compile("offsets.wgsl", src, &Default::default()).expect("wgsl");
    let textures = dianran_verify::texture::build_textures(
        &module,
        &entry,
        &header.textures,
        &header.samplers,
        11,
    )
    .expect("textures");
    let input = group0(vec![(7, zeros(512 * 16))]);
    let mut ti = textures.clone();
    let interp = run_interp_on(&module, &entry, [1, 1, 1], &input, &mut ti);
    let emu = run_emu_on("texel_offsets.wgsl", src, &input, &textures);
    let slack = dianran_verify::textured::filter_slack(&module, &textures);
    let (a, b) = (f32s(out(&interp, 7)), f32s(out(&emu, 7)));
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(
            x.to_bits() == y.to_bits() || (x - y).abs() <= 1e-5 + slack,
            "word {k}: interp {x} emu {y} (slack {slack})"
        );
    }
    // Nearest with an offset, in plain Rust: texel (floor(u * 8) - 8, floor(v * 8) + 7),
    // wrapped (repeat).
    let img: Vec<f32> = f32s(&textures.textures[&(0, 0)].data);
    for i in 0..64usize {
        let uv = [(i % 8) as f32 * 0.13 + 0.021, (i / 8) as f32 * 0.117 + 0.033];
        let x = ((uv[0] * 8.0).floor() as i64 - 8).rem_euclid(8) as usize;
        let y = ((uv[1] * 8.0).floor() as i64 + 7).rem_euclid(8) as usize;
        let want = &img[(y * 8 + x) * 4..(y * 8 + x) * 4 + 4];
        assert_eq!(&a[i * 32..i * 32 + 4], want, "invocation {i}");
    }
}

/// The buffers after the interpreter runs `entry` of `module` on `input` and `textures`.
fn run_interp_on(
    module: &dianran_frontend::ir::Module,
    entry: &str,
    dispatch: [u32; 3],
    input: &Buffers,
    textures: &mut TextureBindings,
) -> Buffers {
    let mut b = input.clone();
    dianran_verify::interp::run_with_textures(
        module,
        entry,
        dispatch,
        &mut b,
        textures,
        &Default::default(),
    )
    .unwrap_or_else(|d| panic!("interpreter failed: {d:?}"));
    b
}
