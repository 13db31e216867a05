//! Hand-computed checks of the texture model (the expected values are worked out in the
//! comments from the Vulkan formulas, not from the code under test).

use super::*;

fn r32f(dim: TexDim, extent: [u32; 3], levels: u32, values: &[f32]) -> TextureData {
    let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    TextureData::with_data(dim, TexelFormat::R32Float, extent, levels, data).expect("valid texture")
}

fn r(t: Texel) -> f32 {
    t.to_f32()[0]
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * b.abs().max(1.0)
}

#[test]
fn shapes_and_mip_dimensions() {
    let t = TextureData::new(TexDim::D2, TexelFormat::Rgba8Unorm, 5, 3, 1, 3).unwrap();
    assert_eq!(t.dimensions(0), [5, 3, 1]);
    assert_eq!(t.dimensions(1), [2, 1, 1]);
    assert_eq!(t.dimensions(2), [1, 1, 1]);
    // 15 + 2 + 1 texels of 4 bytes.
    assert_eq!(t.byte_len(), 72);
    assert_eq!(t.level_offset(1), 60);
    assert_eq!(t.num_levels(), 3);
    assert_eq!(t.num_layers(), 1);
    let v = TextureData::new(TexDim::D3, TexelFormat::R32Uint, 4, 4, 2, 3).unwrap();
    assert_eq!(v.dimensions(1), [2, 2, 1]);
    // 32 + 4 + 1 texels.
    assert_eq!(v.byte_len(), 37 * 4);
    let a = TextureData::new(TexDim::D2Array, TexelFormat::R32Uint, 4, 4, 3, 2).unwrap();
    assert_eq!(a.dimensions(1), [2, 2, 1]);
    assert_eq!(a.num_layers(), 3);
    // Layers do not shrink: 48 + 12 texels.
    assert_eq!(a.byte_len(), 60 * 4);
    let c = TextureData::new(TexDim::CubeArray, TexelFormat::R32Float, 2, 2, 12, 1).unwrap();
    assert_eq!(c.num_layers(), 2);
}

#[test]
fn bad_shapes_are_errors() {
    assert!(TextureData::new(TexDim::D2, TexelFormat::R32Float, 0, 4, 1, 1).is_err());
    assert!(TextureData::new(TexDim::D1, TexelFormat::R32Float, 4, 2, 1, 1).is_err());
    assert!(TextureData::new(TexDim::D2, TexelFormat::R32Float, 4, 4, 2, 1).is_err());
    assert!(TextureData::new(TexDim::Cube, TexelFormat::R32Float, 4, 2, 6, 1).is_err());
    assert!(TextureData::new(TexDim::CubeArray, TexelFormat::R32Float, 4, 4, 7, 1).is_err());
    // 4x4 has 3 levels (4, 2, 1).
    assert!(TextureData::new(TexDim::D2, TexelFormat::R32Float, 4, 4, 1, 4).is_err());
    assert!(TextureData::new(TexDim::D2, TexelFormat::Rgba32Float, 1 << 15, 1 << 15, 1, 1).is_err());
    let e = TextureData::with_data(TexDim::D2, TexelFormat::R32Float, [2, 2, 1], 1, vec![0; 15])
        .unwrap_err();
    assert!(e.message.contains("needs 16"), "{}", e.message);
}

#[test]
fn fetch_and_store_layout() {
    let mut t = TextureData::new(TexDim::D2, TexelFormat::R32Uint, 4, 3, 1, 1).unwrap();
    assert!(t.store([1, 2, 0], 0, 0, &Texel::Uint([77, 0, 0, 0])));
    // Row 2, column 1 of a 4-wide texture: texel 9, byte 36.
    assert_eq!(&t.data[36..40], &77u32.to_le_bytes());
    assert_eq!(t.fetch([1, 2, 0], 0, 0), Texel::Uint([77, 0, 0, 1]));
    // Out of bounds: loads read zero, stores are dropped.
    assert_eq!(t.fetch([4, 0, 0], 0, 0), Texel::Uint([0; 4]));
    assert_eq!(t.fetch([-1, 0, 0], 0, 0), Texel::Uint([0; 4]));
    assert_eq!(t.fetch([0, 0, 0], 0, 1), Texel::Uint([0; 4]));
    assert!(!t.store([0, 3, 0], 0, 0, &Texel::Uint([1; 4])));
    assert!(!t.store([0, 0, 0], 0, -1, &Texel::Uint([1; 4])));
    assert!(t.data.iter().enumerate().all(|(i, &b)| (36..40).contains(&i) || b == 0));
}

#[test]
fn fetch_layers_levels_and_faces() {
    let mut a = TextureData::new(TexDim::D2Array, TexelFormat::R32Sint, 2, 2, 3, 2).unwrap();
    a.store([1, 1, 0], 2, 0, &Texel::Sint([-5, 0, 0, 0]));
    // Layer 2 starts at texel 8; (1, 1) is texel 3 within it: byte 44.
    assert_eq!(&a.data[44..48], &(-5i32).to_le_bytes());
    a.store([0, 0, 0], 1, 1, &Texel::Sint([9, 0, 0, 0]));
    // Level 1 starts after 12 texels (48 bytes); layer 1 of it is its texel 1: byte 52.
    assert_eq!(&a.data[52..56], &9i32.to_le_bytes());
    assert_eq!(r(a.fetch([0, 0, 0], 1, 1)), 9.0);
    assert_eq!(a.fetch([0, 0, 0], 3, 0), Texel::Sint([0; 4]));
    let mut c = TextureData::new(TexDim::CubeArray, TexelFormat::R32Float, 1, 1, 12, 1).unwrap();
    c.store([0, 0, 4], 1, 0, &Texel::Float([3.5; 4]));
    // Cube 1, face +Z: slice 10.
    assert_eq!(&c.data[40..44], &3.5f32.to_le_bytes());
    assert_eq!(c.fetch([0, 0, 6], 1, 0), Texel::Float([0.0; 4]));
    let mut v = TextureData::new(TexDim::D3, TexelFormat::R32Float, 2, 2, 2, 1).unwrap();
    v.store([1, 0, 1], 0, 0, &Texel::Float([2.0; 4]));
    // Slice 1 starts at texel 4; (1, 0) is texel 5: byte 20.
    assert_eq!(&v.data[20..24], &2.0f32.to_le_bytes());
    // A 1D texture ignores the y it is given.
    let mut d1 = TextureData::new(TexDim::D1, TexelFormat::R32Float, 3, 1, 1, 1).unwrap();
    d1.store([2, 9, 0], 0, 0, &Texel::Float([1.0; 4]));
    assert_eq!(r(d1.fetch([2, 0, 0], 0, 0)), 1.0);
}

fn ramp() -> TextureData {
    r32f(TexDim::D1, [4, 1, 1], 1, &[10.0, 20.0, 30.0, 40.0])
}

#[test]
fn nearest_address_modes() {
    let t = ramp();
    let at = |u: f32, mode: AddressMode| {
        r(sample(
            &t,
            &SamplerDesc::uniform(mode, Filter::Nearest),
            [u, 0.0, 0.0],
            0,
            0.0,
            Weights::Exact,
        ))
    };
    // u = 0.3 * 4 = 1.2 -> texel 1.
    assert_eq!(at(0.3, AddressMode::ClampToEdge), 20.0);
    // u = -0.4 -> i = -1: clamp 0, repeat 3, mirror 0, border (transparent black).
    assert_eq!(at(-0.1, AddressMode::ClampToEdge), 10.0);
    assert_eq!(at(-0.1, AddressMode::Repeat), 40.0);
    assert_eq!(at(-0.1, AddressMode::MirrorRepeat), 10.0);
    assert_eq!(at(-0.1, AddressMode::ClampToBorder), 0.0);
    // u = 1.3 * 4 = 5.2 -> i = 5: clamp 3, repeat 1, mirror (5 mod 8) - 4 = 1 -> 3 - 1 = 2.
    assert_eq!(at(1.3, AddressMode::ClampToEdge), 40.0);
    assert_eq!(at(1.3, AddressMode::Repeat), 20.0);
    assert_eq!(at(1.3, AddressMode::MirrorRepeat), 30.0);
    assert_eq!(at(1.3, AddressMode::ClampToBorder), 0.0);
    // u = -1.9 * 4 = -7.6 -> i = -8: repeat 0; mirror (-8 mod 8) - 4 = -4 -> 3 - 3 = 0.
    assert_eq!(at(-1.9, AddressMode::Repeat), 10.0);
    assert_eq!(at(-1.9, AddressMode::MirrorRepeat), 10.0);
    // An offset moves whole texels: u = 1.2 -> 1 + 1.
    let s = SamplerDesc::default();
    assert_eq!(r(sample_offset(&t, &s, [0.3, 0.0, 0.0], 0, 0.0, [1, 0, 0], Weights::Exact)), 30.0);
    let white = SamplerDesc {
        border: BorderColor::OpaqueWhite,
        ..SamplerDesc::uniform(AddressMode::ClampToBorder, Filter::Nearest)
    };
    assert_eq!(sample(&t, &white, [2.0, 0.0, 0.0], 0, 0.0, Weights::Exact), Texel::Float([1.0; 4]));
}

#[test]
fn linear_1d() {
    let t = ramp();
    let at = |u: f32, mode: AddressMode| {
        r(sample(
            &t,
            &SamplerDesc::uniform(mode, Filter::Linear),
            [u, 0.0, 0.0],
            0,
            0.0,
            Weights::Exact,
        ))
    };
    // u - 0.5 = 0.7: texels 0 and 1, alpha 0.7: 10 * 0.3 + 20 * 0.7 = 17.
    assert!(close(at(0.3, AddressMode::ClampToEdge), 17.0));
    // u - 0.5 = 1.5: 20 and 30 halfway.
    assert_eq!(at(0.5, AddressMode::ClampToEdge), 25.0);
    // u - 0.5 = -0.5: texels -1 and 0 halfway: clamp 10/10, repeat 40/10, border 0/10,
    // mirror 0/0.
    assert_eq!(at(0.0, AddressMode::ClampToEdge), 10.0);
    assert_eq!(at(0.0, AddressMode::Repeat), 25.0);
    assert_eq!(at(0.0, AddressMode::ClampToBorder), 5.0);
    assert_eq!(at(0.0, AddressMode::MirrorRepeat), 10.0);
    // u - 0.5 = 3.5: texels 3 and 4 halfway: repeat 40/10, mirror 40/40, border 40/0.
    assert_eq!(at(1.0, AddressMode::Repeat), 25.0);
    assert_eq!(at(1.0, AddressMode::MirrorRepeat), 40.0);
    assert_eq!(at(1.0, AddressMode::ClampToBorder), 20.0);
}

#[test]
fn cuda_weights_are_8_bit() {
    let t = ramp();
    let s = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear);
    // u - 0.5 = 0.3 (plus f32 rounding): exact 10 + 10 * 0.3 = 13; CUDA rounds alpha to
    // 77/256 = 0.30078125: 13.0078125.
    let exact = r(sample(&t, &s, [0.2, 0.0, 0.0], 0, 0.0, Weights::Exact));
    let cuda = r(sample(&t, &s, [0.2, 0.0, 0.0], 0, 0.0, Weights::Cuda8Bit));
    assert!(close(exact, 13.0), "{exact}");
    assert_eq!(cuda, 13.007_812_5);
    let tol = cuda_filter_tolerance(30.0, 40.0, 1);
    assert!((exact - cuda).abs() <= tol);
    assert!(tol < 0.2, "{tol}");
    // The bound is tight enough to fail a result one texel step off.
    assert!(cuda_filter_tolerance(30.0, 40.0, 2) < 10.0);
}

#[test]
fn bilinear_2d() {
    // Row 0: 1 2; row 1: 3 4.
    let t = r32f(TexDim::D2, [2, 2, 1], 1, &[1.0, 2.0, 3.0, 4.0]);
    let s = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear);
    let at = |u: f32, v: f32| r(sample(&t, &s, [u, v, 0.0], 0, 0.0, Weights::Exact));
    // Center: all four weights 1/4.
    assert_eq!(at(0.5, 0.5), 2.5);
    // u - 0.5 = 0 (alpha 0 on texel 0), v - 0.5 = 1 (beta 0 on row 1): texel (0, 1) = 3.
    assert_eq!(at(0.25, 0.75), 3.0);
    // alpha 0.25, beta 0.5: rows 1.25 and 3.25, halfway 2.25.
    assert_eq!(at(0.375, 0.5), 2.25);
    // Nearest at the same place: u = 0.75 -> 0, v = 1 -> 1.
    let n = SamplerDesc::default();
    assert_eq!(r(sample(&t, &n, [0.375, 0.5, 0.0], 0, 0.0, Weights::Exact)), 3.0);
}

#[test]
fn trilinear_3d_and_layers() {
    // Slice 0 all 0, slice 1 all 8: the center blends halfway.
    let v = r32f(TexDim::D3, [2, 2, 2], 1, &[0.0, 0.0, 0.0, 0.0, 8.0, 8.0, 8.0, 8.0]);
    let s = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear);
    assert_eq!(r(sample(&v, &s, [0.5, 0.5, 0.5], 0, 0.0, Weights::Exact)), 4.0);
    // w - 0.5 = 0.25: 8 * 0.25.
    assert_eq!(r(sample(&v, &s, [0.5, 0.5, 0.375], 0, 0.0, Weights::Exact)), 2.0);
    // A layer index out of range clamps to the last layer.
    let a = r32f(TexDim::D2Array, [1, 1, 2], 1, &[5.0, 6.0]);
    assert_eq!(r(sample(&a, &s, [0.5, 0.5, 0.0], 7, 0.0, Weights::Exact)), 6.0);
    assert_eq!(r(sample(&a, &s, [0.5, 0.5, 0.0], -3, 0.0, Weights::Exact)), 5.0);
}

#[test]
fn mip_selection() {
    // Level 0 (2x2) all 1, level 1 (1x1) 5.
    let t = r32f(TexDim::D2, [2, 2, 1], 2, &[1.0, 1.0, 1.0, 1.0, 5.0]);
    let lin = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear);
    let near = SamplerDesc::default();
    let at = |s: &SamplerDesc, lod: f32| r(sample(&t, s, [0.3, 0.6, 0.0], 0, lod, Weights::Exact));
    assert_eq!(at(&lin, 0.0), 1.0);
    assert_eq!(at(&lin, 1.0), 5.0);
    // 1 * 0.75 + 5 * 0.25.
    assert_eq!(at(&lin, 0.25), 2.0);
    assert_eq!(at(&lin, 9.0), 5.0);
    assert_eq!(at(&lin, -2.0), 1.0);
    // Nearest mip: 0.5 rounds down (Vulkan's ceil(d + 0.5) - 1), 0.6 up.
    assert_eq!(at(&near, 0.5), 1.0);
    assert_eq!(at(&near, 0.6), 5.0);
    // lod_max_clamp keeps level 0.
    let clamped = SamplerDesc { lod_max_clamp: 0.0, ..lin };
    assert_eq!(at(&clamped, 1.0), 1.0);
    // The CUDA mip blend weight is 8-bit too: 0.3 -> 77/256.
    let cuda = r(sample(&t, &lin, [0.3, 0.6, 0.0], 0, 0.3, Weights::Cuda8Bit));
    assert_eq!(cuda, 1.0 + 4.0 * 77.0 / 256.0);
}

#[test]
fn mag_and_min_filters() {
    let t = r32f(TexDim::D2, [2, 2, 1], 2, &[1.0, 2.0, 3.0, 4.0, 9.0]);
    // Linear magnification, nearest minification: at lod 0 the center blends to 2.5.
    let s = SamplerDesc { mag: Filter::Linear, ..SamplerDesc::default() };
    assert_eq!(r(sample(&t, &s, [0.5, 0.5, 0.0], 0, 0.0, Weights::Exact)), 2.5);
    // With nearest magnification the center is texel (1, 1).
    assert_eq!(
        r(sample(&t, &SamplerDesc::default(), [0.5, 0.5, 0.0], 0, 0.0, Weights::Exact)),
        4.0
    );
}

#[test]
fn gather_order_and_components() {
    let vals: Vec<f32> =
        (0..4).flat_map(|i| [i as f32 + 1.0, 10.0 * (i as f32 + 1.0), 0.0, 0.0]).collect();
    let data = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let t =
        TextureData::with_data(TexDim::D2, TexelFormat::Rgba32Float, [2, 2, 1], 1, data).unwrap();
    let s = SamplerDesc::default();
    // Footprint (0..1, 0..1); order (i0, j1) = 3, (i1, j1) = 4, (i1, j0) = 2, (i0, j0) = 1.
    assert_eq!(gather(&t, &s, [0.5, 0.5, 0.0], 0, 0, [0; 3]), Texel::Float([3.0, 4.0, 2.0, 1.0]));
    assert_eq!(
        gather(&t, &s, [0.5, 0.5, 0.0], 0, 1, [0; 3]),
        Texel::Float([30.0, 40.0, 20.0, 10.0])
    );
    // Corner (0, 0) with clamp: the footprint is (-1..0, -1..0), all texel (0, 0).
    assert_eq!(gather(&t, &s, [0.0, 0.0, 0.0], 0, 0, [0; 3]), Texel::Float([1.0; 4]));
    // Border: only (i1, j1) = texel (0, 0) is inside.
    let b = SamplerDesc::uniform(AddressMode::ClampToBorder, Filter::Nearest);
    assert_eq!(gather(&t, &b, [0.0, 0.0, 0.0], 0, 0, [0; 3]), Texel::Float([0.0, 1.0, 0.0, 0.0]));
    // Integer textures gather integers.
    let u = TextureData::with_data(
        TexDim::D2,
        TexelFormat::R32Uint,
        [2, 2, 1],
        1,
        [7u32, 8, 9, 10].iter().flat_map(|v| v.to_le_bytes()).collect(),
    )
    .unwrap();
    assert_eq!(gather(&u, &s, [0.5, 0.5, 0.0], 0, 0, [0; 3]), Texel::Uint([9, 10, 8, 7]));
    // The alpha channel a one-channel format does not store reads 1.
    assert_eq!(gather(&u, &s, [0.5, 0.5, 0.0], 0, 3, [0; 3]), Texel::Uint([1; 4]));
}

#[test]
fn depth_comparison() {
    let d = TextureData::with_data(
        TexDim::D2,
        TexelFormat::Depth32Float,
        [2, 2, 1],
        1,
        [0.1f32, 0.2, 0.3, 0.4].iter().flat_map(|v| v.to_le_bytes()).collect(),
    )
    .unwrap();
    let less = SamplerDesc {
        compare: Some(CompareFn::Less),
        ..SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear)
    };
    // 0.25 < texel for the bottom row (0.3, 0.4) only; gather order is bottom row first.
    assert_eq!(gather_compare(&d, &less, [0.5, 0.5, 0.0], 0, 0.25, [0; 3]), [1.0, 1.0, 0.0, 0.0]);
    // Linear compare at the center: two of four pass.
    assert_eq!(
        sample_compare(&d, &less, [0.5, 0.5, 0.0], 0, 0.0, 0.25, [0; 3], Weights::Exact),
        0.5
    );
    // alpha = 0.25, beta = 0.5: passes weigh 0.5 * (0.75 + 0.25).
    assert_eq!(
        sample_compare(&d, &less, [0.375, 0.5, 0.0], 0, 0.0, 0.25, [0; 3], Weights::Exact),
        0.5
    );
    // beta = 0.75 (v = 1.25): 0.75 of the weight is on the bottom row.
    assert_eq!(
        sample_compare(&d, &less, [0.5, 0.625, 0.0], 0, 0.0, 0.25, [0; 3], Weights::Exact),
        0.75
    );
    let ge = SamplerDesc { compare: Some(CompareFn::GreaterEqual), ..SamplerDesc::default() };
    // Nearest at texel (0, 0) = 0.1: 0.1 >= 0.1.
    assert_eq!(
        sample_compare(&d, &ge, [0.25, 0.25, 0.0], 0, 0.0, 0.1, [0; 3], Weights::Exact),
        1.0
    );
    assert_eq!(
        sample_compare(&d, &ge, [0.25, 0.25, 0.0], 0, 0.0, 0.05, [0; 3], Weights::Exact),
        0.0
    );
    assert_eq!(CompareFn::parse("less_equal"), Some(CompareFn::LessEqual));
    assert_eq!(CompareFn::parse("Greater-Equal"), Some(CompareFn::GreaterEqual));
    assert_eq!(CompareFn::parse("lt"), None);
}

#[test]
fn cube_faces() {
    // +X: sc = -z, tc = -y.
    assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
    assert_eq!(cube_face([1.0, 0.5, -0.5]), (0, 0.75, 0.25));
    // -X: sc = +z.
    assert_eq!(cube_face([-2.0, 0.0, 1.0]), (1, 0.75, 0.5));
    // +Y: sc = x, tc = z.
    assert_eq!(cube_face([0.5, 1.0, 0.5]), (2, 0.75, 0.75));
    // -Y: sc = x, tc = -z.
    assert_eq!(cube_face([0.0, -1.0, 0.5]), (3, 0.5, 0.25));
    // +Z: sc = x, tc = -y.
    assert_eq!(cube_face([0.5, 0.5, 1.0]), (4, 0.75, 0.25));
    // -Z: sc = -x, tc = -y.
    assert_eq!(cube_face([-0.5, 0.5, -1.0]), (5, 0.75, 0.25));
    // Ties prefer X, then Y.
    assert_eq!(cube_face([1.0, 1.0, 0.0]).0, 0);
    assert_eq!(cube_face([0.0, -1.0, 1.0]).0, 3);
    // Sampling reads the selected face: faces hold 0..6.
    let c = r32f(TexDim::Cube, [1, 1, 6], 1, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let s = SamplerDesc::default();
    assert_eq!(r(sample(&c, &s, [0.1, -0.9, 0.3], 0, 0.0, Weights::Exact)), 3.0);
    assert_eq!(r(sample(&c, &s, [0.1, 0.2, -0.9], 0, 0.0, Weights::Exact)), 5.0);
}

#[test]
fn gradients_give_lod() {
    let t = TextureData::new(TexDim::D2, TexelFormat::R32Float, 16, 16, 1, 5).unwrap();
    // d/dx covers 2 texels, d/dy 1: log2(2) = 1.
    assert_eq!(lod_from_gradients(&t, [0.5; 3], [0.125, 0.0, 0.0], [0.0, 1.0 / 16.0, 0.0]), 1.0);
    // (3, 4) texels: length 5.
    assert!(close(
        lod_from_gradients(&t, [0.5; 3], [3.0 / 16.0, 4.0 / 16.0, 0.0], [0.0; 3]),
        5f32.log2()
    ));
    // Cube: on +X at the face center, d/dx of z by 0.25 moves sc by -0.25 and s by 0.125,
    // 2 texels of an 16-texel face: lod 1.
    let c = TextureData::new(TexDim::Cube, TexelFormat::R32Float, 16, 16, 6, 1).unwrap();
    assert_eq!(lod_from_gradients(&c, [1.0, 0.0, 0.0], [0.0, 0.0, 0.25], [0.0; 3]), 1.0);
}

#[test]
fn integer_textures_point_sample() {
    let u = TextureData::with_data(
        TexDim::D2,
        TexelFormat::R32Sint,
        [2, 1, 1],
        1,
        [-4i32, 6].iter().flat_map(|v| v.to_le_bytes()).collect(),
    )
    .unwrap();
    let s = SamplerDesc::uniform(AddressMode::ClampToEdge, Filter::Linear);
    assert_eq!(sample(&u, &s, [0.6, 0.5, 0.0], 0, 0.0, Weights::Exact), Texel::Sint([6, 0, 0, 1]));
    let b = SamplerDesc {
        border: BorderColor::OpaqueBlack,
        ..SamplerDesc::uniform(AddressMode::ClampToBorder, Filter::Nearest)
    };
    assert_eq!(sample(&u, &b, [1.6, 0.5, 0.0], 0, 0.0, Weights::Exact), Texel::Sint([0, 0, 0, 1]));
}

#[test]
fn seeded_fill_is_exact_and_deterministic() {
    let mut a = TextureData::new(TexDim::D2, TexelFormat::Rgba16Float, 8, 8, 1, 1).unwrap();
    a.fill_seeded(3);
    let mut b = a.clone();
    b.fill_seeded(3);
    assert_eq!(a, b);
    b.fill_seeded(4);
    assert_ne!(a, b);
    let mut distinct = std::collections::BTreeSet::new();
    for y in 0..8 {
        for x in 0..8 {
            for v in a.fetch([x, y, 0], 0, 0).to_f32() {
                assert!((-1.0..1.0).contains(&v) && (v * 256.0).fract() == 0.0, "{v}");
                distinct.insert(v.to_bits());
            }
        }
    }
    assert!(distinct.len() > 50, "{}", distinct.len());
    let mut d = TextureData::new(TexDim::D2, TexelFormat::Depth32Float, 4, 4, 1, 1).unwrap();
    d.fill_seeded(1);
    assert!(d
        .data
        .chunks(4)
        .all(|c| (0.0..1.0).contains(&f32::from_le_bytes([c[0], c[1], c[2], c[3]]))));
    let mut i = TextureData::new(TexDim::D2, TexelFormat::Rgba32Sint, 4, 4, 1, 1).unwrap();
    i.fill_seeded(1);
    assert!(i
        .data
        .chunks(4)
        .all(|c| (-1000..1000).contains(&i32::from_le_bytes([c[0], c[1], c[2], c[3]]))));
}
