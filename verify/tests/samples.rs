//! Reference tests for the compute samples in `tests/samples/`.
//!
//! Each test builds deterministic pseudo-random inputs, computes the expected outputs with
//! plain Rust written from WGSL's semantics (never from the interpreter), runs the sample
//! through `dianran_frontend::compile` and `dianran_verify::interp::run`, and compares:
//! integers exactly, floats within the tolerance stated at each test.

// Reference code indexes matrices and vectors the way the WGSL does, by position.
#![allow(clippy::needless_range_loop)]

mod common;

use common::*;
use dianran_verify::executors::Executor;
use half::f16;

/// Samples without a compute entry point (no reference test).
const NON_COMPUTE: &[&str] =
    &["render_textured.wgsl", "fragment_discard.wgsl", "depth_compare.wgsl"];

/// Compute samples whose reference tests live in another file (named per entry); listed
/// here so `every_sample_is_covered` sees them.
#[allow(dead_code)]
const TESTED_ELSEWHERE: &[&str] = &[
    // verify/tests/gemm.rs
    "gemm_tiled_f16.wgsl",
    "gemm_small_m.wgsl",
    "gemm_bias_relu.wgsl",
    // verify/tests/texture_samples.rs
    "texture_load_store.wgsl",
    "texture_sample.wgsl",
    "texture_gather_compare.wgsl",
    "texture_dims.wgsl",
    "depth_compare_cube.wgsl",
    // verify/tests/texture_param.rs
    "texture_param.wgsl",
    // verify/tests/subgroup_matrix_int8.rs
    "sgm_int8_tile.wgsl",
    "sgm_gemm_i8.wgsl",
    // verify/tests/subgroup_matrix_f16.rs
    "sgm_gemm_f16.wgsl",
    // verify/tests/subgroup_matrix_short.rs
    "sgm_short_f16.wgsl",
    "sgm_short_i8.wgsl",
    // verify/tests/workgroup_matrix.rs
    "tile_gemm.wgsl",
    "tile_gemm_bias_relu.wgsl",
    "tile_gemm_f32.wgsl",
];

/// The names of the `.wgsl` files in `tests/samples/`, sorted, each with its source.
fn samples_with_source() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(sample_path(""))
        .expect("tests/samples missing")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let src = std::fs::read_to_string(sample_path(&name)).expect("read sample");
            (name, src)
        })
        .collect()
}

#[test]
fn every_sample_is_covered() {
    let this_file = include_str!("samples.rs");
    let samples = samples_with_source();
    let names: Vec<&String> = samples.iter().map(|(name, _)| name).collect();
    assert!(names.len() >= 45, "expected at least 45 samples, found {}", names.len());
    let mut missing = Vec::new();
    for (name, src) in &samples {
        let is_compute = !compute_entries(src).is_empty();
        if NON_COMPUTE.contains(&name.as_str()) {
            assert!(!is_compute, "{name} is listed as non-compute but has a @compute entry");
            continue;
        }
        assert!(is_compute, "{name} has no @compute entry; list it in NON_COMPUTE");
        // Header must parse.
        let _ = sample_header(src);
        let uses = this_file.matches(&format!("\"{name}\"")).count();
        if uses == 0 {
            missing.push(name.clone());
        }
    }
    assert!(missing.is_empty(), "compute samples without a reference test: {missing:?}");
    for name in NON_COMPUTE {
        assert!(names.iter().any(|n| n == name), "NON_COMPUTE lists missing file {name}");
    }
}

/// Every sample, compute or not, goes through naga's parser and validator and the lowering.
#[test]
fn every_sample_compiles() {
    let mut failures = Vec::new();
    for (name, src) in samples_with_source() {
        if let Err(d) = dianran_frontend::compile(&name, &src, &Default::default()) {
            failures.push(format!("{d}"));
        }
    }
    assert!(failures.is_empty(), "samples that do not compile:\n{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Integer arithmetic

#[test]
fn double_unicode() {
    let data = Rng::new(1).vec(16, |r| r.next_u32());
    let bufs = run_bound("double_unicode.wgsl", vec![u32_bytes(&data)]);
    let want: Vec<u32> = data.iter().map(|x| x.wrapping_mul(2)).collect();
    check_eq("数据", &u32s(out(&bufs, 0)), &want);
}

#[test]
fn int_division() {
    let mut rng = Rng::new(2);
    let n = 256;
    let mut a: Vec<i32> = rng.vec(n, |r| r.next_u32() as i32);
    let mut b: Vec<i32> = rng.vec(n, |r| r.i32_in(-8, 8));
    let special = [
        (i32::MIN, -1),
        (i32::MIN, 0),
        (5, 0),
        (-7, 2),
        (7, -2),
        (i32::MIN, 1),
        (i32::MAX, -1),
        (-1, -1),
        (0, 0),
        (-9, 4),
    ];
    for (k, (x, y)) in special.iter().enumerate() {
        a[k] = *x;
        b[k] = *y;
    }
    // Some large divisors too.
    for k in (100..n).step_by(7) {
        b[k] = rng.next_u32() as i32;
    }
    let got = run_io("int_division.wgsl", vec![i32_bytes(&a), i32_bytes(&b)], 16 * n);
    let want = per_item(a.iter().zip(&b), |(&x, &y)| {
        let (ux, uy) = (x as u32, y as u32);
        // WGSL: x / 0 == x, x % 0 == 0; MIN / -1 == MIN, MIN % -1 == 0 (wrapping_* does that).
        [
            if y == 0 { x } else { x.wrapping_div(y) } as u32,
            if y == 0 { 0 } else { x.wrapping_rem(y) } as u32,
            ux.checked_div(uy).unwrap_or(ux),
            ux.checked_rem(uy).unwrap_or(0),
        ]
    });
    check_eq("QuotRem", &u32s(&got), &want);
}

#[test]
fn int_shifts() {
    let mut rng = Rng::new(3);
    let n = 256;
    let mut values = rng.vec(n, |r| r.next_u32());
    let mut amounts = rng.vec(n, |r| r.below(100));
    values[0] = 0x8000_0001;
    amounts[0] = 32;
    values[1] = 0xffff_fff0;
    amounts[1] = 33;
    values[2] = 0x8000_0000;
    amounts[2] = 31;
    amounts[3] = 0;
    amounts[4] = 64;
    let got = run_io("int_shifts.wgsl", vec![u32_bytes(&values), u32_bytes(&amounts)], 20 * n);
    // Runtime shift amounts are taken modulo 32 (wrapping_shl/shr mask the same way).
    let want = per_item(values.iter().zip(&amounts), |(&x, &k)| {
        [
            x.wrapping_shl(k),
            x.wrapping_shr(k),
            (x as i32).wrapping_shl(k) as u32,
            (x as i32).wrapping_shr(k) as u32,
            x.rotate_left(k & 31),
        ]
    });
    check_eq("Shifted", &u32s(&got), &want);
}

#[test]
fn int_arith() {
    let mut rng = Rng::new(4);
    let n = 256;
    let mut a: Vec<i32> = rng.vec(n, |r| r.next_u32() as i32);
    let mut b: Vec<i32> = rng.vec(n, |r| r.next_u32() as i32);
    for k in 0..n {
        if k % 4 == 1 {
            a[k] = rng.i32_in(-3000, 3000);
            b[k] = rng.i32_in(-3000, 3000);
        }
        if k % 16 == 2 {
            b[k] = a[k];
        }
    }
    a[0] = i32::MIN;
    b[0] = -1;
    a[3] = i32::MAX;
    b[3] = 1;
    let got = run_io("int_arith.wgsl", vec![i32_bytes(&a), i32_bytes(&b)], 40 * n);
    let want = per_item(a.iter().zip(&b), |(&x, &y)| {
        let (ux, uy) = (x as u32, y as u32);
        let mut f = 0u32;
        f |= (x < y) as u32;
        f |= ((x <= y) as u32) << 1;
        f |= ((x == y) as u32) << 2;
        f |= ((x != y) as u32) << 3;
        f |= ((ux > uy) as u32) << 4;
        f |= ((ux >= uy) as u32) << 5;
        f |= (((x & y) != 0) as u32) << 6;
        f |= (((x | y) < 0) as u32) << 7;
        f |= 1 << 8;
        [
            x.wrapping_add(y),
            x.wrapping_sub(y),
            x.wrapping_mul(y),
            x.wrapping_neg(),
            x.wrapping_abs(), // abs(i32::MIN) == i32::MIN
            x.min(y),
            x.max(y),
            x.clamp(-1000, 1000),
            ux.wrapping_mul(uy).wrapping_sub(ux.min(uy)).wrapping_add(ux.max(uy)) as i32,
            f as i32,
        ]
    });
    check_eq("int_arith out", &i32s(&got), &want);
}

#[test]
fn int_vectors() {
    let mut rng = Rng::new(53);
    let n = 128;
    let mut a: Vec<[i32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.next_u32() as i32));
    let mut b: Vec<[i32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.i32_in(-4, 4)));
    a[0] = [i32::MIN, i32::MIN, 5, -5];
    b[0] = [-1, 0, 0, -1];
    for k in (1..n).step_by(3) {
        b[k][k % 4] = rng.next_u32() as i32;
    }
    let got = run_io("int_vectors.wgsl", vec![i32_bytes(&flat(&a)), i32_bytes(&flat(&b))], 96 * n);
    let want = per_item(a.iter().zip(&b), |(&x, &y)| {
        let (ux, uy) = (x.map(|v| v as u32), y.map(|v| v as u32));
        let dot = (0..4).fold(0i32, |s, k| s.wrapping_add(x[k].wrapping_mul(y[k])));
        let udot = ux[0].wrapping_mul(uy[2]).wrapping_add(ux[1].wrapping_mul(uy[3])) & 0x7fff_ffff;
        let extra = [dot, udot as i32, 0, 1];
        let amounts = [ux[1] & 7, ux[2] & 15, ux[3] & 31, ux[0] & 63];
        let k4 = [0, 1, 2, 3];
        [
            // Component-wise WGSL division: x / 0 == x, x % 0 == 0, MIN / -1 == MIN.
            k4.map(|k| if y[k] == 0 { x[k] } else { x[k].wrapping_div(y[k]) }),
            k4.map(|k| if y[k] == 0 { 0 } else { x[k].wrapping_rem(y[k]) }),
            k4.map(|k| {
                let q = ux[k].checked_div(uy[k]).unwrap_or(ux[k]);
                let r = ux[k].checked_rem(uy[k]).unwrap_or(0);
                q.wrapping_add(r) as i32
            }),
            k4.map(|k| x[k].wrapping_mul(3).wrapping_sub(y[k]).wrapping_add(extra[k])),
            k4.map(|k| {
                x[k].wrapping_abs().wrapping_add(x[k].min(y[k])).wrapping_sub(x[k].max(y[k]))
            }),
            k4.map(|k| x[k].wrapping_shr(amounts[k]) ^ y[k].wrapping_shl(uy[k])),
        ]
        .concat()
    });
    check_eq("int_vectors out", &i32s(&got), &want);
}

fn classify(x: u32) -> u32 {
    if x == 0 {
        return 100;
    }
    let mut state = x;
    let mut score = 0u32;
    for round in 0..6 {
        let mut inner = 0u32;
        loop {
            if inner >= 4 {
                break;
            }
            match (state >> (inner * 2)) & 3 {
                0 => score += 1,
                1 | 2 => {
                    if score > 40 {
                        return score * 1000 + round;
                    }
                    score += 3;
                }
                _ => {
                    inner += 1;
                    continue;
                }
            }
            inner += 1;
            score += inner;
        }
        state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        if state & 0xf00 == 0 {
            break;
        }
    }
    score
}

#[test]
fn control_nesting() {
    let mut rng = Rng::new(54);
    let n = 128;
    let mut input = rng.vec(n, |r| r.next_u32());
    input[0] = 0;
    input[1] = 0x5555_5555;
    input[2] = 0xffff_ffff;
    let got = run_io("control_nesting.wgsl", vec![u32_bytes(&input)], 4 * n);
    let want = per_item(&input, |&x| {
        let c = classify(x);
        let (mut v, mut steps) = (c, 0u32);
        while v > 10 {
            if v & 1 == 1 {
                v -= 7;
            } else if v & 2 == 2 {
                v /= 2;
            } else {
                v = v / 4 + 1;
            }
            steps += 1;
        }
        [c | (steps << 20) | (v << 26)]
    });
    check_eq("control_nesting out", &u32s(&got), &want);
}

#[test]
fn hash_pcg() {
    let n = 256;
    let keys = Rng::new(5).vec(n, |r| r.next_u32());
    let got = run_io("hash_pcg.wgsl", vec![u32_bytes(&keys)], 12 * n);
    fn pcg(v: u32) -> u32 {
        let state = v.wrapping_mul(747796405).wrapping_add(2891336453);
        let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277803737);
        (word >> 22) ^ word
    }
    fn avalanche(mut h: u32) -> u32 {
        h ^= h >> 15;
        h = h.wrapping_mul(0x85eb_ca77);
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae3d);
        h ^= h >> 16;
        h
    }
    let want = per_item(keys.iter().enumerate(), |(i, &k)| {
        [pcg(k), avalanche(k), pcg(avalanche(k) ^ i as u32)]
    });
    check_eq("hashes", &u32s(&got), &want);
}

#[test]
fn conversions() {
    let mut rng = Rng::new(6);
    let n = 128;
    let mut floats = rng.vec(n, |r| r.f32_in(-5000.0, 5000.0));
    let mut ints: Vec<i32> = rng.vec(n, |r| r.next_u32() as i32);
    let special_f = [3.0e9, -3.0e9, 5.0e9, -1.5, 2.9e9, -0.7, 16777217.0, 0.0, 0.999, 2147483520.0];
    for (k, v) in special_f.iter().enumerate() {
        floats[k] = *v;
    }
    ints[0] = i32::MIN;
    ints[1] = i32::MAX;
    ints[2] = -1;
    ints[3] = 16777217;
    ints[4] = 0;
    let got = run_io("conversions.wgsl", vec![f32_bytes(&floats), i32_bytes(&ints)], 40 * n);
    // f32 -> integer truncates toward zero and saturates (Rust `as` does the same).
    let want = per_item(floats.iter().zip(&ints), |(&f, &v)| {
        [
            f as i32 as u32,
            f as u32,
            (v as f32).to_bits(),
            (v as u32 as f32).to_bits(),
            f.to_bits(),
            f32::from_bits((v as u32 & 0x807f_ffff) | 0x3f80_0000).to_bits(),
            (f > 0.0) as u32 + 2 * (v < 0) as u32 + (((f < 1.0) as u32 as f32) * 4.0) as u32,
            0, // padding: not compared
            (f * 0.5) as i32 as u32,
            (-f * 0.5) as i32 as u32,
        ]
    });
    let mut got = u32s(&got);
    for k in 0..n {
        got[10 * k + 7] = 0;
    }
    check_eq("Converted", &got, &want);
}

// ---------------------------------------------------------------------------------------
// Bit manipulation and packing

#[test]
fn bits_count() {
    let mut rng = Rng::new(7);
    let n = 256;
    let mut input = rng.vec(n, |r| r.next_u32());
    for (k, v) in [0, u32::MAX, 1, 0x8000_0000, 0x7fff_ffff, 0x0001_0000].iter().enumerate() {
        input[k] = *v;
    }
    for k in (10..n).step_by(5) {
        input[k] >>= rng.below(32);
    }
    let got = run_io("bits_count.wgsl", vec![u32_bytes(&input)], 36 * n);
    let want = per_item(&input, |&x| {
        let xi = x as i32;
        // Signed: position of the most significant bit that differs from the sign bit.
        let fl = if xi == 0 || xi == -1 {
            -1
        } else if xi < 0 {
            31 - (!x).leading_zeros() as i32
        } else {
            31 - x.leading_zeros() as i32
        };
        let vy = (xi >> 7).count_ones() as i32;
        [
            x.count_ones(),
            x.leading_zeros(),
            x.trailing_zeros(),
            x.reverse_bits(),
            if x == 0 { u32::MAX } else { 31 - x.leading_zeros() },
            fl as u32,
            if x == 0 { u32::MAX } else { x.trailing_zeros() },
            (xi.count_ones() as i32 * 100 + vy) as u32,
            x.reverse_bits() ^ !x,
        ]
    });
    check_eq("bits_count out", &u32s(&got), &want);
}

/// WGSL `extractBits`: `count` bits from bit `offset` (both clamped to the word),
/// sign-extended when `signed`.
fn extract(e: u32, offset: u32, count: u32, signed: bool) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    match c {
        0 => 0,
        32 => e,
        _ if signed => (((e << (32 - o - c)) as i32) >> (32 - c)) as u32,
        _ => (e >> o) & ((1u32 << c) - 1),
    }
}

fn insert(e: u32, newbits: u32, offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return e;
    }
    let mask = if c == 32 { u32::MAX } else { ((1u32 << c) - 1) << o };
    (e & !mask) | ((newbits << (o & 31)) & mask)
}

#[test]
fn bits_extract_insert() {
    let mut rng = Rng::new(8);
    let n = 256;
    let mut fields: Vec<[u32; 4]> =
        rng.vec(n, |r| [r.next_u32(), r.next_u32(), r.below(40), r.below(40)]);
    fields[0][2..].copy_from_slice(&[0, 32]);
    fields[1][2..].copy_from_slice(&[32, 5]);
    fields[2][2..].copy_from_slice(&[31, 1]);
    fields[3][2..].copy_from_slice(&[4, 0]);
    fields[4][2..].copy_from_slice(&[0, 1]);
    fields[5][2..].copy_from_slice(&[28, 8]);
    let got = run_io("bits_extract_insert.wgsl", vec![u32_bytes(&flat(&fields))], 16 * n);
    let want = per_item(&fields, |f| {
        let vx = insert(f[0], f[1], 4, 8);
        let vy = insert(f[1], u32::MAX, 4, 8);
        [
            extract(f[0], f[2], f[3], false),
            extract(f[0], f[2], f[3], true),
            insert(f[0], f[1], f[2], f[3]),
            vx ^ (vy << 1),
        ]
    });
    check_eq("bits_extract_insert out", &u32s(&got), &want);
}

#[test]
fn pack_unpack() {
    let mut rng = Rng::new(9);
    let n = 128;
    let mut input = zeros(32 * n);
    let mut v4s = Vec::new();
    let mut v2s = Vec::new();
    let mut words = Vec::new();
    for i in 0..n {
        let v4: [f32; 4] = [0; 4].map(|_| rng.f32_in(-1.3, 1.3));
        let v2: [f32; 2] = [0; 2].map(|_| rng.f32_in(-1.3, 1.3));
        let w = rng.next_u32();
        for (k, c) in v4.iter().enumerate() {
            set_f32(&mut input, 32 * i + 4 * k, *c);
        }
        set_f32(&mut input, 32 * i + 16, v2[0]);
        set_f32(&mut input, 32 * i + 20, v2[1]);
        set_u32(&mut input, 32 * i + 24, w);
        v4s.push(v4);
        v2s.push(v2);
        words.push(w);
    }
    let got = &run_io("pack_unpack.wgsl", vec![input], 64 * n);
    // The packs are exact: floor(0.5 + scale * clamp(e)) as the WGSL spec writes them.
    let mut packs_got = Vec::new();
    let mut packs_want = Vec::new();
    // Unpacks: a division by 255 / 127 / 65535 / 32767; allow 1e-6 relative.
    let mut unp_got = Vec::new();
    let mut unp_want = Vec::new();
    for i in 0..n {
        let base = 64 * i;
        for k in 0..4 {
            packs_got.push(get_u32(got, base + 4 * k));
        }
        let mut p4u = 0u32;
        let mut p4s = 0u32;
        for (k, &e) in v4s[i].iter().enumerate() {
            p4u |= ((0.5 + 255.0 * e.clamp(0.0, 1.0)).floor() as u32) << (8 * k);
            p4s |= (((0.5 + 127.0 * e.clamp(-1.0, 1.0)).floor() as i32 as u32) & 0xff) << (8 * k);
        }
        let mut p2u = 0u32;
        let mut p2s = 0u32;
        for (k, &e) in v2s[i].iter().enumerate() {
            p2u |= ((0.5 + 65535.0 * e.clamp(0.0, 1.0)).floor() as u32) << (16 * k);
            p2s |=
                (((0.5 + 32767.0 * e.clamp(-1.0, 1.0)).floor() as i32 as u32) & 0xffff) << (16 * k);
        }
        packs_want.extend([p4u, p4s, p2u, p2s]);
        for k in 0..12 {
            unp_got.push(get_f32(got, base + 16 + 4 * k));
        }
        let w = words[i];
        for k in 0..4 {
            unp_want.push(((w >> (8 * k)) & 0xff) as f32 / 255.0);
        }
        for k in 0..4 {
            unp_want.push((((w >> (8 * k)) & 0xff) as u8 as i8 as f32 / 127.0).max(-1.0));
        }
        for k in 0..2 {
            unp_want.push(((w >> (16 * k)) & 0xffff) as f32 / 65535.0);
        }
        for k in 0..2 {
            unp_want.push((((w >> (16 * k)) & 0xffff) as u16 as i16 as f32 / 32767.0).max(-1.0));
        }
    }
    check_eq("packs", &packs_got, &packs_want);
    check_f32("unpacks", &unp_got, &unp_want, 0.0, 1e-6);
}

// ---------------------------------------------------------------------------------------
// Floating point

/// `hash_noise.wgsl` on `exec`, compiled with contraction (`no_fma` false) or without; the
/// hashes.
fn hash_noise_on(exec: Executor, points: &[f32], no_fma: bool) -> Vec<f32> {
    let name = "hash_noise.wgsl";
    let src = std::fs::read_to_string(sample_path(name)).expect("cannot read sample");
    let (dispatch, entry) = sample_header(&src);
    let opts = dianran_frontend::Options { no_fma, ..Default::default() };
    let module = dianran_frontend::compile(name, &src, &opts)
        .unwrap_or_else(|d| panic!("{name}: frontend failed:\n{d}"));
    let job = dianran_verify::executors::Job::new(name, &src, &module, &entry, dispatch);
    let n = points.len() / 2;
    let input = group0(vec![(0, f32_bytes(points)), (1, zeros(16 * n))]);
    let bufs = dianran_verify::executors::run(exec, &job, &input)
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", exec.name()));
    f32s(out(&bufs, 1))
}

/// The hashes `hash_noise.wgsl` computes for `(x, y)`, fused as `docs/math.md` ("Contraction")
/// says (`fused`) or with every operation rounded on its own. The constants are spelled as in
/// the WGSL source, so both round them to the same f32.
#[allow(clippy::excessive_precision)]
fn hash_noise_ref(x: f32, y: f32, fused: bool) -> [f32; 4] {
    let fract = |v: f32| v - v.floor();
    let mad = |a: f32, b: f32, c: f32| if fused { a.mul_add(b, c) } else { a * b + c };
    [
        fract(mad(x, 127.1, y * 311.7)),
        fract(mad(y, 78.233, x * 12.9898) * 43758.5453),
        fract(mad(x, y, -0.3)),
        fract(mad(-x, 1.3, 17.0)),
    ]
}

/// Contraction is an SSA decision that the PTX executors follow exactly: the interpreter and the
/// PTX emulator give the fused hashes bit for bit by default and the unfused ones under
/// `no_fma`, and the two differ (so the test sees which one ran).
#[test]
fn hash_noise() {
    let n = 256;
    let mut rng = Rng::new(24);
    let points = rng.vec(2 * n, |r| r.f32_in(-100.0, 100.0));
    let want = |fused| per_item(points.chunks(2), |p| hash_noise_ref(p[0], p[1], fused));
    let (fused, unfused) = (want(true), want(false));
    for k in 0..4 {
        let differ = (0..n).filter(|&i| fused[4 * i + k] != unfused[4 * i + k]).count();
        assert!(differ > 0, "hash {k}: no input where fusing changes the result");
    }
    for exec in [Executor::Interp, Executor::Emu] {
        check_eq(&format!("{} fused", exec.name()), &hash_noise_on(exec, &points, false), &fused);
        let got = hash_noise_on(exec, &points, true);
        check_eq(&format!("{} --no-fma", exec.name()), &got, &unfused);
    }
    // llvmpipe contracts nothing and rounds WGSL's `fma` like `a * b + c` (WGSL allows it), so
    // both lavapipe executors give the unfused hashes: their reference is the module compiled
    // without contraction (`dianran_verify::contraction`).
    if dianran_verify::tools::require_that(dianran_verify::lavapipe::available(), "no lavapipe") {
        for exec in [Executor::Lavapipe, Executor::LavapipeOut] {
            check_eq(exec.name(), &hash_noise_on(exec, &points, false), &unfused);
        }
    }
}

#[test]
fn float_arith() {
    let mut rng = Rng::new(10);
    let n = 256;
    let mut a = rng.vec(n, |r| r.f32_in(-10.0, 10.0));
    let b = rng.vec(n, |r| {
        let m = r.f32_in(0.5, 10.0);
        if r.below(2) == 0 {
            m
        } else {
            -m
        }
    });
    let c = rng.vec(n, |r| r.f32_in(0.0, 1.0));
    for (k, v) in [2.5f32, -2.5, 0.5, 1.5, -0.5, 0.0, -3.0, 7.0].iter().enumerate() {
        a[k] = *v;
    }
    let got = run_io("float_arith.wgsl", vec![f32_bytes(&a), f32_bytes(&b), f32_bytes(&c)], 80 * n);
    let want = per_item(0..n, |i| {
        let (x, y, t) = (a[i], b[i], c[i]);
        let s = ((x + 1.0) / 4.0).clamp(0.0, 1.0);
        [
            x + y,
            x - y,
            x * y,
            x / y,
            x - y * (x / y).trunc(), // WGSL's float %
            x.mul_add(y, t),
            x.min(y),
            x.max(y),
            x.clamp(-2.5, 2.5),
            x.abs(),
            x.floor(),
            x.ceil(),
            x.round_ties_even(), // WGSL round: ties to even
            x.trunc(),
            x - x.floor(),
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            },
            if y <= x { 1.0 } else { 0.0 },
            x * (1.0 - t) + y * t,
            s * s * (3.0 - 2.0 * s),
            (t * 2.0 - 0.5).clamp(0.0, 1.0) + x,
        ]
    });
    // Single correctly rounded operations agree to a few ulp whatever the evaluation order
    // (fma may be fused or not, % may be fmod-exact or the trunc formula): 2e-6 absolute
    // plus 2e-6 relative for values of magnitude <= 100.
    check_f32("float_arith out", &f32s(&got), &want, 2e-6, 2e-6);
}

#[test]
fn float_math() {
    let mut rng = Rng::new(11);
    let n = 256;
    let mut xs = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
    let ps = rng.vec(n, |r| r.f32_in(0.1, 10.0));
    xs[0] = 0.0;
    xs[1] = -1.0;
    let got = run_io("float_math.wgsl", vec![f32_bytes(&xs), f32_bytes(&ps)], 72 * n);
    let want = per_item(0..n, |i| {
        // Reference in f64, rounded once.
        let (x, p) = (xs[i] as f64, ps[i] as f64);
        [
            x.exp(),
            ((xs[i] * 4.0) as f64).exp2(),
            p.ln(),
            p.log2(),
            p.sqrt(),
            1.0 / p.sqrt(),
            p.powf(x),
            ((xs[i] * 3.0) as f64).sin(),
            ((xs[i] * 3.0) as f64).cos(),
            x.tan(),
            ((xs[i] * 5.0) as f64).atan(),
            x.atan2((ps[i] - 5.0) as f64),
            ((xs[i] * 2.0) as f64).tanh(),
            x.asin(),
            x.acos(),
            x.sinh() + x.cosh(),
            x.to_degrees() + p.to_radians(),
            (x * x + p * p).sqrt() + (x - p).abs(),
        ]
        .map(|e| e as f32)
    });
    // Transcendentals: the interpreter uses host libm-quality functions; 1e-5 relative plus
    // 1e-6 absolute (near zeros of sin/cos/atan2) covers a few ulp of f32.
    check_f32("float_math out", &f32s(&got), &want, 1e-6, 1e-5);
}

#[test]
fn activations() {
    let mut rng = Rng::new(12);
    let n = 256;
    let mut x = rng.vec(n, |r| r.f32_in(-6.0, 6.0));
    x[0] = 0.0;
    x[1] = -0.0;
    x[2] = 6.0;
    let got = run_io("activations.wgsl", vec![f32_bytes(&x)], 40 * n);
    let want = per_item(&x, |&vf| {
        let v = vf as f64;
        let sigmoid = 1.0 / (1.0 + (-v).exp());
        let softplus = (1.0 + v.exp()).ln();
        let gelu = 0.5 * v * (1.0 + (0.7978845608028654 * (v + 0.044715 * v * v * v)).tanh());
        [
            v.max(0.0),
            if v > 0.0 { v } else { 0.01 * v },
            sigmoid,
            v.tanh(),
            gelu,
            v * sigmoid,
            if v > 0.0 { v } else { v.exp() - 1.0 },
            softplus,
            v * softplus.tanh(),
            (v / 6.0 + 0.5).clamp(0.0, 1.0) / (1.0 + v * v).sqrt() + (v.abs() + 1.0).powf(0.75),
        ]
        .map(|e| e as f32)
    });
    // Chains of a few f32 transcendentals: 1e-5 relative plus 1e-6 absolute.
    check_f32("activations out", &f32s(&got), &want, 1e-6, 1e-5);
}

#[test]
fn vector_swizzle() {
    let mut rng = Rng::new(13);
    let n = 128;
    let a: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let b: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let got =
        run_io("vector_swizzle.wgsl", vec![f32_bytes(&flat(&a)), f32_bytes(&flat(&b))], 64 * n);
    let dot = |p: &[f32], q: &[f32]| p.iter().zip(q).map(|(x, y)| x * y).sum::<f32>();
    let want = per_item(a.iter().zip(&b), |(&u, &v)| {
        let len = dot(&u, &u).sqrt();
        let d: Vec<f32> = u.iter().zip(&v).map(|(x, y)| x - y).collect();
        let mut w = u;
        w[1] = v[3];
        w[2] += 1.0;
        let w = [w[2] * 1.0, w[0] * 2.0, w[1] * 3.0, w[3] * 4.0];
        [
            [u[3] + v[0] * 2.0, u[2] + v[0] * 2.0, u[1] + v[1] * 2.0, u[0] + v[1] * 2.0],
            [dot(&u, &v), len, dot(&d, &d).sqrt(), u[0] * v[2] + u[1] * v[1] + u[2] * v[0]],
            [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
                w[0] + w[1] - w[2] * w[3],
            ],
            [u[0] / len + v[1], u[1] / len + v[0], u[2] / len + 1.5, u[3] / len + 0.5],
        ]
        .concat()
    });
    // Dot products and square roots of values in [-1, 1]: 1e-5 absolute, 1e-5 relative.
    check_f32("vector_swizzle out", &f32s(&got), &want, 1e-5, 1e-5);
}

type Mat4 = [[f32; 4]; 4]; // [column][row]

fn det(m: &[Vec<f64>]) -> f64 {
    // Laplace expansion along the first column; m[col][row].
    let n = m.len();
    if n == 1 {
        return m[0][0];
    }
    let mut total = 0.0;
    for r in 0..n {
        let minor: Vec<Vec<f64>> = m[1..]
            .iter()
            .map(|col| col.iter().enumerate().filter(|(k, _)| *k != r).map(|(_, v)| *v).collect())
            .collect();
        let sign = if r % 2 == 0 { 1.0 } else { -1.0 };
        total += sign * m[0][r] * det(&minor);
    }
    total
}

#[test]
fn matrix_ops() {
    let mut rng = Rng::new(14);
    let n = 32;
    let mats: Vec<Mat4> = rng.vec(n, |r| [0; 4].map(|_| [0; 4].map(|_| r.f32_in(-1.0, 1.0))));
    let vecs: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let (mflat, vflat) = (f32_bytes(&flat(&flat(&mats))), f32_bytes(&flat(&vecs)));
    let got = &run_io("matrix_ops.wgsl", vec![mflat, vflat], 176 * n);
    let mut g = Vec::new();
    let mut want = Vec::new();
    for i in 0..n {
        let m = mats[i];
        let o = mats[(i + 1) % n];
        let v = vecs[i];
        let mv = |m: &Mat4, v: &[f32; 4]| -> [f32; 4] {
            [0, 1, 2, 3].map(|r| (0..4).map(|c| m[c][r] * v[c]).sum())
        };
        want.extend(mv(&m, &v));
        want.extend([0, 1, 2, 3].map(|c| (0..4).map(|r| v[r] * m[c][r]).sum::<f32>()));
        for col in &o {
            want.extend(mv(&m, col));
        }
        for c in 0..4 {
            for r in 0..4 {
                want.push(m[r][c]);
            }
        }
        let to64 = |k: usize| -> Vec<Vec<f64>> {
            (0..k).map(|c| (0..k).map(|r| m[c][r] as f64).collect()).collect()
        };
        want.push(det(&to64(4)) as f32);
        want.push(det(&to64(3)) as f32);
        want.push(det(&to64(2)) as f32);
        for k in 0..43 {
            g.push(get_f32(got, 176 * i + 4 * k));
        }
    }
    // Sums of up to 24 products of values in [-1, 1]: 1e-4 absolute.
    check_f32("MatResult", &g, &want, 1e-4, 0.0);
}

#[test]
fn matrix_nonsquare() {
    let mut rng = Rng::new(15);
    let n = 16;
    let mut input = zeros(80 * n);
    let mut ts = Vec::new();
    for i in 0..n {
        let m23: [[f32; 3]; 2] = [0; 2].map(|_| [0; 3].map(|_| rng.f32_in(-2.0, 2.0)));
        let m32: [[f32; 2]; 3] = [0; 3].map(|_| [0; 2].map(|_| rng.f32_in(-2.0, 2.0)));
        let v2: [f32; 2] = [0; 2].map(|_| rng.f32_in(-2.0, 2.0));
        let v3: [f32; 3] = [0; 3].map(|_| rng.f32_in(-2.0, 2.0));
        let b = 80 * i;
        for c in 0..2 {
            for r in 0..3 {
                set_f32(&mut input, b + 16 * c + 4 * r, m23[c][r]);
            }
        }
        for c in 0..3 {
            for r in 0..2 {
                set_f32(&mut input, b + 32 + 8 * c + 4 * r, m32[c][r]);
            }
        }
        set_f32(&mut input, b + 56, v2[0]);
        set_f32(&mut input, b + 60, v2[1]);
        for r in 0..3 {
            set_f32(&mut input, b + 64 + 4 * r, v3[r]);
        }
        ts.push((m23, m32, v2, v3));
    }
    let got = &run_io("matrix_nonsquare.wgsl", vec![input], 112 * n);
    let mut g = Vec::new();
    let mut want = Vec::new();
    for (i, (m23, m32, v2, v3)) in ts.iter().enumerate() {
        let b = 112 * i;
        let mut offs = vec![0, 4, 8, 16, 20];
        // a = m23 * v2
        for r in 0..3 {
            want.push(m23[0][r] * v2[0] + m23[1][r] * v2[1]);
        }
        // b = m32 * v3 + v3 * m23
        for r in 0..2 {
            let x: f32 = (0..3).map(|c| m32[c][r] * v3[c]).sum();
            let y: f32 = (0..3).map(|k| v3[k] * m23[r][k]).sum();
            want.push(x + y);
        }
        // sq = m23 * m32 (mat3x3): column j = m23 * m32[j]
        for j in 0..3 {
            for r in 0..3 {
                want.push(m23[0][r] * m32[j][0] + m23[1][r] * m32[j][1]);
                offs.push(32 + 16 * j + 4 * r);
            }
        }
        // sum = m23 * 0.5 + transpose(m32)
        for c in 0..2 {
            for r in 0..3 {
                want.push(m23[c][r] * 0.5 + m32[r][c]);
                offs.push(80 + 16 * c + 4 * r);
            }
        }
        for o in offs {
            g.push(get_f32(got, b + o));
        }
    }
    // A few products of values in [-2, 2]: 1e-5 absolute.
    check_f32("nonsquare Result", &g, &want, 1e-5, 1e-6);
}

// ---------------------------------------------------------------------------------------
// Structs, uniforms, layout

#[test]
fn struct_layout() {
    let mut rng = Rng::new(16);
    let n = 32;
    let mut particles = zeros(128 * n);
    for i in 0..n {
        for k in 0..32 {
            set_f32(&mut particles, 128 * i + 4 * k, rng.f32_in(-2.0, 2.0));
        }
        set_f32(&mut particles, 128 * i + 12, rng.f32_in(0.0, 8.0)); // mass
        set_u32(&mut particles, 128 * i + 28, rng.below(5000)); // id
        set_u32(&mut particles, 128 * i + 112, 0xdead); // flag
    }
    let points: Vec<f32> = rng.vec(4 * n, |r| r.f32_in(-5.0, 5.0));
    let input = particles.clone();
    let bufs = run_bound("struct_layout.wgsl", vec![particles, f32_bytes(&points)]);
    let got = out(&bufs, 0);
    let (mut gf, mut wf, mut gu, mut wu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let b = 128 * i;
        let f = |o: usize| get_f32(&input, b + o);
        let pos = [0, 1, 2].map(|k| f(4 * k));
        let vel = [0, 1, 2].map(|k| f(16 + 4 * k));
        let rot = [0, 1, 2].map(|c| [0, 1, 2].map(|r| f(32 + 16 * c + 4 * r)));
        let tag0 = [0, 1, 2].map(|k| f(80 + 4 * k));
        let new_pos = [0, 1, 2].map(|k| pos[k] + vel[k] * 0.5);
        let new_vel =
            [0, 1, 2].map(|r| rot[0][r] * vel[0] + rot[1][r] * vel[1] + rot[2][r] * vel[2]);
        let mass = f(12) * 0.25;
        let mut push = |o: usize, v: f32| {
            gf.push(get_f32(got, b + o));
            wf.push(v);
        };
        for k in 0..3 {
            push(4 * k, new_pos[k]);
            push(16 + 4 * k, new_vel[k]);
            push(80 + 4 * k, tag0[k]);
            push(96 + 4 * k, tag0[k] + new_pos[k]);
        }
        push(12, mass);
        for c in 0..3 {
            for r in 0..3 {
                let v = if c == 2 && r == 1 { i as f32 } else { rot[c][r] };
                push(32 + 16 * c + 4 * r, v);
            }
        }
        gu.push(get_u32(got, b + 28));
        wu.push(get_u32(&input, b + 28) + 1000);
        gu.push(get_u32(got, b + 112));
        wu.push((mass > 1.0) as u32 | ((i as u32) << 8));
    }
    // Elementwise products/sums of values in [-8, 8]: 1e-5 absolute.
    check_f32("Particle floats", &gf, &wf, 1e-5, 1e-6);
    check_eq("Particle ints", &gu, &wu);
    let pts = out(&bufs, 1);
    let (mut gp, mut wp) = (Vec::new(), Vec::new());
    for i in 0..n {
        for k in 0..3 {
            gp.push(get_f32(pts, 16 * i + 4 * k));
            wp.push(points[4 * i + k] * 2.0 + [1.0, 2.0, 3.0][k]);
        }
    }
    check_f32("points (array<vec3>, stride 16)", &gp, &wp, 1e-6, 1e-6);
}

#[test]
fn uniform_params() {
    let mut rng = Rng::new(17);
    let n = 256;
    let limit = 200u32;
    let mut params = zeros(32);
    set_u32(&mut params, 0, limit);
    let alpha = 1.75f32;
    let bias = [0.25f32, -0.5];
    let weights = [1.0f32, 0.5, -2.0, 3.0];
    set_f32(&mut params, 4, alpha);
    set_f32(&mut params, 8, bias[0]);
    set_f32(&mut params, 12, bias[1]);
    for k in 0..4 {
        set_f32(&mut params, 16 + 4 * k, weights[k]);
    }
    let x = rng.vec(n, |r| r.f32_in(-10.0, 10.0));
    let y = rng.vec(n, |r| r.f32_in(-10.0, 10.0));
    let bufs = run_bound("uniform_params.wgsl", vec![params, f32_bytes(&x), f32_bytes(&y)]);
    let want: Vec<f32> = (0..n)
        .map(|i| {
            if i as u32 >= limit {
                y[i]
            } else {
                alpha * x[i] + y[i] * weights[i % 4] + bias[0] - bias[1]
            }
        })
        .collect();
    // A handful of f32 operations on values <= 60: 1e-5 absolute; the tail is untouched.
    check_f32("y", &f32s(out(&bufs, 2)), &want, 1e-5, 1e-6);
}

#[test]
fn uniform_lights() {
    let mut rng = Rng::new(55);
    let n = 64;
    let mut scene = zeros(96);
    let mut lights = Vec::new();
    for k in 0..4 {
        let p: [f32; 3] = [0; 3].map(|_| rng.f32_in(-3.0, 3.0));
        let intensity = rng.f32_in(0.5, 2.0);
        for (j, v) in p.iter().enumerate() {
            set_f32(&mut scene, 16 * k + 4 * j, *v);
        }
        set_f32(&mut scene, 16 * k + 12, intensity);
        lights.push((p, intensity));
    }
    let count = 3u32; // the fourth light must be ignored
    set_u32(&mut scene, 64, count);
    let ambient = [0.05f32, 0.1, 0.15];
    for (j, v) in ambient.iter().enumerate() {
        set_f32(&mut scene, 80 + 4 * j, *v);
    }
    let mut surfels = zeros(32 * n);
    let mut sf = Vec::new();
    for i in 0..n {
        let p: [f32; 3] = [0; 3].map(|_| rng.f32_in(-2.0, 2.0));
        let d: [f32; 3] = [0; 3].map(|_| rng.f32_in(-1.0, 1.0));
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt().max(1e-3);
        let nrm = d.map(|c| c / len);
        for j in 0..3 {
            set_f32(&mut surfels, 32 * i + 4 * j, p[j]);
            set_f32(&mut surfels, 32 * i + 16 + 4 * j, nrm[j]);
        }
        sf.push((p, nrm));
    }
    let got = run_io("uniform_lights.wgsl", vec![scene, surfels], 16 * n);
    let want = per_item(&sf, |(p, nrm)| {
        let mut total = ambient;
        for (lp, intensity) in &lights[..count as usize] {
            let t = [0, 1, 2].map(|j| lp[j] - p[j]);
            let d2 = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).max(1e-4);
            let inv = 1.0 / d2.sqrt();
            let lambert =
                (nrm[0] * t[0] * inv + nrm[1] * t[1] * inv + nrm[2] * t[2] * inv).max(0.0);
            for c in &mut total {
                *c += lambert * intensity / d2;
            }
        }
        [total[0], total[1], total[2], count as f32]
    });
    // Three lights with inverseSqrt and a division by d2 >= 1e-4: 1e-4 relative plus
    // 1e-5 absolute.
    check_f32("radiance", &f32s(&got), &want, 1e-5, 1e-4);
}

#[test]
fn runtime_array_length() {
    let mut rng = Rng::new(18);
    let values = rng.vec(37, |r| r.below(1_000_000));
    let m = 13;
    let mut items = zeros(8 + 8 * m);
    let scale = 1.5f32;
    set_f32(&mut items, 0, scale);
    set_u32(&mut items, 4, 999);
    let xy: Vec<f32> = rng.vec(2 * m, |r| r.f32_in(-4.0, 4.0));
    for (k, v) in xy.iter().enumerate() {
        set_f32(&mut items, 8 + 4 * k, *v);
    }
    let bufs = run_bound("runtime_array_length.wgsl", vec![u32_bytes(&values), items, zeros(16)]);
    let total: u32 = values.iter().fold(0u32, |a, v| a.wrapping_add(*v));
    check_eq("summary", &u32s(out(&bufs, 2)), &[37, total, m as u32, 3700 + m as u32]);
    let got = out(&bufs, 1);
    check_eq("items.count", &[get_u32(got, 4)], &[m as u32]);
    let g: Vec<f32> = (0..2 * m).map(|k| get_f32(got, 8 + 4 * k)).collect();
    let w: Vec<f32> =
        (0..2 * m).map(|k| xy[k] * scale + if k % 2 == 0 { (k / 2) as f32 } else { 0.0 }).collect();
    check_f32("items", &g, &w, 1e-6, 1e-6);
}

#[test]
fn workgroup_ids() {
    let got = run_io("workgroup_ids.wgsl", vec![], 192 * 64);
    let mut want = vec![0u32; 192 * 16];
    for wz in 0..2u32 {
        for wy in 0..3u32 {
            for wx in 0..2u32 {
                for lz in 0..2u32 {
                    for ly in 0..2u32 {
                        for lx in 0..4u32 {
                            let (gx, gy, gz) = (wx * 4 + lx, wy * 2 + ly, wz * 2 + lz);
                            let flat = gx + 8 * (gy + 6 * gz);
                            let o = 16 * flat as usize;
                            want[o..o + 16].copy_from_slice(&[
                                gx,
                                gy,
                                gz,
                                flat,
                                lx,
                                ly,
                                lz,
                                lx + 4 * (ly + 2 * lz),
                                wx,
                                wy,
                                wz,
                                0xabcd,
                                2,
                                3,
                                2,
                                wx + 2 * (wy + 3 * wz),
                            ]);
                        }
                    }
                }
            }
        }
    }
    check_eq("builtins", &u32s(&got), &want);
}

#[test]
fn override_block() {
    let mut rng = Rng::new(19);
    let n = 256;
    let x = rng.vec(n, |r| r.f32_in(-10.0, 10.0));
    let bufs = run_bound("override_block.wgsl", vec![f32_bytes(&x), zeros(4 * n), zeros(4 * n)]);
    // Defaults: BLOCK = 64, SCALE = 2, USE_BIAS = true, BIAS = 0.5.
    let want: Vec<f32> = (0..n).map(|i| x[i] * 2.0 + 0.5 * (i / 64) as f32).collect();
    check_f32("y", &f32s(out(&bufs, 1)), &want, 1e-6, 1e-6);
    let lanes: Vec<u32> = (0..n as u32).map(|i| i % 64 + 64000).collect();
    check_eq("lanes", &u32s(out(&bufs, 2)), &lanes);
}

#[test]
fn multi_entry() {
    let mut rng = Rng::new(51);
    let rows = rng.vec(128, |r| r.f32_in(-10.0, 10.0));
    let factors = [1.5f32, -0.75];
    let input = || group0(vec![(0, f32_bytes(&rows)), (1, f32_bytes(&factors))]);
    // The header names `scale_rows`.
    let bufs = run("multi_entry.wgsl", input());
    let want: Vec<f32> =
        (0..128).map(|i| rows[i] * factors[i / 64] + (i % 64) as f32 * 0.25).collect();
    // One multiply-add of values <= 25: 1e-5 absolute.
    check_f32("scaled rows", &f32s(out(&bufs, 0)), &want, 1e-5, 1e-6);
    // The other entry, on the second row only.
    let bufs = run_entry("multi_entry.wgsl", "clear_rows", [1, 1, 1], input(), 32);
    let mut want = rows.clone();
    want[..64].fill(0.0);
    check_f32("cleared rows", &f32s(out(&bufs, 0)), &want, 0.0, 0.0);
}

// ---------------------------------------------------------------------------------------
// Control flow and functions

#[test]
fn loops_for_while() {
    let mut rng = Rng::new(20);
    let n = 128;
    let mut input = rng.vec(n, |r| r.below(10000));
    input[0] = 0;
    input[1] = 1;
    input[2] = 9999;
    let got = run_io("loops_for_while.wgsl", vec![u32_bytes(&input)], 16 * n);
    let want = per_item(&input, |&x| {
        let w: u32 = (0..(x & 15)).map(|k| k * x).sum();
        let mut c = x as u64 + 1;
        let mut steps = 0;
        while c != 1 {
            c = if c.is_multiple_of(2) { c / 2 } else { 3 * c + 1 };
            steps += 1;
        }
        let digits = x.to_string().len() as u32;
        let sq = (0u32..).find(|k| k * k > x).unwrap();
        [w, steps, digits, sq]
    });
    check_eq("LoopOut", &u32s(&got), &want);
}

#[test]
fn loop_continuing() {
    let mut rng = Rng::new(21);
    let n = 128;
    let input = rng.vec(n, |r| if r.below(2) == 0 { r.next_u32() } else { r.below(500) });
    let got = run_io("loop_continuing.wgsl", vec![u32_bytes(&input)], 12 * n);
    let want = per_item(&input, |&x| {
        let n = x % 23 + 1;
        let mut acc = 0u32;
        let mut i = 0u32;
        loop {
            if !i.is_multiple_of(3) {
                acc = acc.wrapping_add(i.wrapping_mul(x));
            }
            i += 1;
            if i >= n {
                break;
            }
        }
        let mut pairs = 0u32;
        let mut a = 0u32;
        while a < 12 {
            a += 1;
            if (a.wrapping_add(x)) % 5 == 0 {
                continue;
            }
            for b in a + 1..12 {
                if a * b > x % 40 + 10 {
                    break;
                }
                if (a ^ b ^ x).is_multiple_of(3) {
                    continue;
                }
                pairs += a * 16 + b;
            }
        }
        let (mut lo, mut hi, mut probes) = (0u32, x % 1000 + 1, 0u32);
        loop {
            let mid = (lo + hi) / 2;
            if mid * mid > x % 1000 {
                hi = mid;
            } else {
                lo = mid;
            }
            probes += 1;
            if hi - lo <= 1 {
                break;
            }
        }
        [acc, pairs, lo | (probes << 16)]
    });
    check_eq("loop_continuing out", &u32s(&got), &want);
}

#[test]
fn switch_cases() {
    let mut rng = Rng::new(22);
    let n = 128;
    let input = rng.vec(n, |r| if r.below(2) == 0 { r.next_u32() } else { r.below(2000) });
    let got = run_io("switch_cases.wgsl", vec![u32_bytes(&input)], 12 * n);
    let want = per_item(&input, |&x| {
        let r = match x & 15 {
            0 | 1 => 10,
            2 => 20u32.wrapping_add(x),
            3..=5 => x.wrapping_mul(3),
            12 => {
                if x > 1000 {
                    1
                } else {
                    2
                }
            }
            _ => 99,
        };
        let s = (x as i32) % 7;
        let q: i32 = match s {
            -6..=-4 => s * 100,
            -3..=-1 => -1,
            0 => 5,
            _ => 77,
        };
        let mut acc = 0u32;
        for k in 0..16 {
            match (x >> k) & 3 {
                0 => continue,
                1 => acc = acc.wrapping_add(k),
                2 => acc = acc.wrapping_mul(3).wrapping_add(1),
                _ => acc ^= 0x55,
            }
            acc = acc.wrapping_add(1);
        }
        [r, q as u32, acc]
    });
    check_eq("switch out", &u32s(&got), &want);
}

#[test]
fn functions_ptr() {
    let mut rng = Rng::new(23);
    let n = 128;
    let input: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-5.0, 5.0)));
    let got = &run_io("functions_ptr.wgsl", vec![f32_bytes(&flat(&input))], 32 * n);
    let (mut gf, mut wf, mut gu, mut wu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, v) in input.iter().enumerate() {
        let mut arr = [v[0], v[1], v[2]];
        arr.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut acc = [0.0f32, -1.0e30];
        for x in [v[0], v[3], arr[1]] {
            acc[0] += x;
            acc[1] = acc[1].max(x);
        }
        let w = v[3];
        let poly = ((2.0 * w - 3.0) * w + 1.0) * w - 0.5;
        let (mut a, mut b) = ((v[0].abs() * 1000.0) as u32, (v[1].abs() * 1000.0) as u32 + 1);
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        let b0 = 32 * i;
        for (o, want) in
            [(0, arr[0]), (4, arr[1]), (8, arr[2]), (16, acc[0]), (20, acc[1]), (24, poly)]
        {
            gf.push(get_f32(got, b0 + o));
            wf.push(want);
        }
        gu.push(get_u32(got, b0 + 28));
        wu.push(a);
    }
    // Short f32 expressions on values in [-5, 5]: 1e-5 absolute and relative.
    check_f32("Stats floats", &gf, &wf, 1e-5, 1e-5);
    check_eq("Stats.gcd", &gu, &wu);
}

#[test]
fn ptr_address_spaces() {
    let mut rng = Rng::new(52);
    let n = 128;
    let input = rng.vec(n, |r| r.next_u32());
    let got = run_io("ptr_address_spaces.wgsl", vec![u32_bytes(&input)], 16 * n);
    let want = per_item(input.iter().enumerate(), |(gid, &x)| {
        let lid = gid % 64;
        let base = gid - lid;
        // Private memory starts zeroed for every invocation.
        let ns = x.wrapping_add(input[base + (lid + 1) % 64]);
        let history = [ns, x.wrapping_mul(2), x, 0];
        let mut counts = [0u32; 4];
        for k in 0..(x & 7) {
            counts[((x >> k) & 3) as usize] += 1;
        }
        let mut m = [[(x & 255) as f32, 1.0], [2.0, lid as f32]];
        let (col, row) = ((x & 1) as usize, ((x >> 1) & 1) as usize);
        m[col][row] += 0.5;
        [
            history[(x % 4) as usize],
            counts[0] | (counts[1] << 8) | (counts[2] << 16) | (counts[3] << 24),
            (m[row][col] + m[col][row]).to_bits(),
            history[3].wrapping_add(history[1]),
        ]
    });
    check_eq("ptr_address_spaces out", &u32s(&got), &want);
}

#[test]
fn private_globals() {
    let mut rng = Rng::new(24);
    let n = 128;
    let seeds = rng.vec(n, |r| r.next_u32());
    let got = run_io("private_globals.wgsl", vec![u32_bytes(&seeds)], 8 * n);
    let want = per_item(&seeds, |&seed| {
        let mut state = seed | 1;
        let mut calls = 7u32;
        let mut table = [3u32, 1, 4, 1, 5, 9, 2, 6];
        let mut mixed = 0u32;
        for k in 0..seed % 5 + 3 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            calls += 1;
            mixed = (mixed ^ state).wrapping_add(table[(state & 7) as usize]);
            table[(k & 7) as usize] += 1;
        }
        [mixed, calls + table[0] * 1000]
    });
    check_eq("private_globals out", &u32s(&got), &want);
}

#[test]
fn local_array_sort() {
    let mut rng = Rng::new(25);
    let n = 64;
    let input = rng.vec(8 * n, |r| r.f32_in(-100.0, 100.0));
    let bufs =
        run_bound("local_array_sort.wgsl", vec![f32_bytes(&input), zeros(32 * n), zeros(4 * n)]);
    let mut sorted = input.clone();
    let mut medians = Vec::new();
    for chunk in sorted.chunks_mut(8) {
        chunk.sort_by(|a, b| a.partial_cmp(b).unwrap());
        medians.push(0.5 * (chunk[3] + chunk[4]));
    }
    // Sorting moves values: exact. The median is one add and one exact halving.
    check_f32("sorted", &f32s(out(&bufs, 1)), &sorted, 0.0, 0.0);
    check_f32("medians", &f32s(out(&bufs, 2)), &medians, 0.0, 0.0);
}

#[test]
fn select_bool() {
    let mut rng = Rng::new(26);
    let n = 128;
    let mut a: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    let b: Vec<[f32; 4]> = rng.vec(n, |r| [0; 4].map(|_| r.f32_in(-1.0, 1.0)));
    for i in 0..n {
        if i % 7 == 0 {
            a[i][2] = 0.5;
        }
        if i % 5 == 0 {
            a[i][0] = b[i][0];
        }
        if i % 11 == 3 {
            a[i] = [-1.0, -1.0, -1.0, -1.0];
        }
    }
    let (fa, fb) = (f32_bytes(&flat(&a)), f32_bytes(&flat(&b)));
    let bufs = run_bound("select_bool.wgsl", vec![fa, fb, zeros(16 * n), zeros(4 * n)]);
    let mut picked = Vec::new();
    let mut flags = Vec::new();
    for i in 0..n {
        let (u, v) = (a[i], b[i]);
        let lt = [0, 1, 2, 3].map(|k| u[k] < v[k]);
        for k in 0..4 {
            picked.push(if lt[k] { u[k] } else { v[k] } + if u[k] >= 0.0 { 0.0 } else { 1.0 });
        }
        let mut f = 0u32;
        f |= lt.iter().any(|x| *x) as u32;
        f |= (lt.iter().all(|x| *x) as u32) << 1;
        f |= (((u[0] != v[0] && u[1] != v[1]) || u[2] == 0.5) as u32) << 2;
        f |= ((i + 1 < n && a[i + 1][0] > u[0]) as u32) << 3;
        f |= ((i == 0 || b[i - 1][1] < v[1]) as u32) << 4;
        let mask: u32 = (0..4).map(|k| (lt[k] as u32) << k).sum();
        f |= mask << 8;
        flags.push(f);
    }
    check_f32("picked", &f32s(out(&bufs, 2)), &picked, 0.0, 0.0);
    check_eq("flags", &u32s(out(&bufs, 3)), &flags);
}

// ---------------------------------------------------------------------------------------
// Workgroup memory and barriers

#[test]
fn reduce_tree() {
    let mut rng = Rng::new(27);
    let ints = rng.vec(1024, |r| r.next_u32());
    let floats = rng.vec(1024, |r| r.f32_in(-100.0, 100.0));
    let bufs = run_bound(
        "reduce_tree.wgsl",
        vec![u32_bytes(&ints), f32_bytes(&floats), zeros(16), zeros(16)],
    );
    let sums: Vec<u32> =
        ints.chunks(256).map(|c| c.iter().fold(0u32, |a, v| a.wrapping_add(*v))).collect();
    let maxima: Vec<f32> =
        floats.chunks(256).map(|c| c.iter().copied().fold(f32::MIN, f32::max)).collect();
    check_eq("sums", &u32s(out(&bufs, 2)), &sums);
    check_f32("maxima", &f32s(out(&bufs, 3)), &maxima, 0.0, 0.0);
}

#[test]
fn matmul_tiled() {
    let mut rng = Rng::new(28);
    let n = 64;
    let a = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let b = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let got = run_io("matmul_tiled.wgsl", vec![f32_bytes(&a), f32_bytes(&b)], 4 * n * n);
    let mut c = vec![0.0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            c[r * n + col] =
                (0..n).map(|k| a[r * n + k] as f64 * b[k * n + col] as f64).sum::<f64>() as f32;
        }
    }
    // 64 products of values in [-1, 1] accumulated in f32: 1e-4 absolute.
    check_f32("C", &f32s(&got), &c, 1e-4, 0.0);
}

#[test]
fn scan_blelloch() {
    let mut rng = Rng::new(29);
    let input = rng.vec(1024, |r| r.below(1000));
    let bufs = run_bound("scan_blelloch.wgsl", vec![u32_bytes(&input), zeros(4096), zeros(8)]);
    let mut scan = Vec::new();
    let mut sums = Vec::new();
    for block in input.chunks(512) {
        let mut acc = 0u32;
        for v in block {
            scan.push(acc);
            acc += v;
        }
        sums.push(acc);
    }
    check_eq("exclusive scan", &u32s(out(&bufs, 1)), &scan);
    check_eq("block sums", &u32s(out(&bufs, 2)), &sums);
}

#[test]
fn scan_hillis_steele() {
    let mut rng = Rng::new(30);
    let input = rng.vec(384, |r| r.i32_in(-1000, 1000));
    let got = run_io("scan_hillis_steele.wgsl", vec![i32_bytes(&input)], 4 * 384);
    let mut scan = Vec::new();
    for block in input.chunks(128) {
        let mut acc = 0i32;
        for v in block {
            acc += v;
            scan.push(acc);
        }
    }
    check_eq("inclusive scan", &i32s(&got), &scan);
}

#[test]
fn transpose_shared() {
    let mut rng = Rng::new(31);
    let (w, h) = (64, 48);
    let input = rng.vec(w * h, |r| r.f32_in(-1000.0, 1000.0));
    let got = run_io("transpose_shared.wgsl", vec![f32_bytes(&input)], 4 * w * h);
    let mut want = vec![0.0f32; w * h];
    for r in 0..w {
        for c in 0..h {
            want[r * h + c] = input[c * w + r];
        }
    }
    check_f32("transposed", &f32s(&got), &want, 0.0, 0.0);
}

#[test]
fn bitonic_sort() {
    let mut rng = Rng::new(32);
    let mut keys = rng.vec(512, |r| r.next_u32());
    for k in (0..512).step_by(9) {
        keys[k] = keys[(k * 7) % 512]; // duplicates
    }
    let bufs = run_bound("bitonic_sort.wgsl", vec![u32_bytes(&keys)]);
    let mut want = keys.clone();
    for chunk in want.chunks_mut(256) {
        chunk.sort();
    }
    check_eq("sorted keys", &u32s(out(&bufs, 0)), &want);
}

#[test]
fn conv1d() {
    let mut rng = Rng::new(33);
    let n = 256;
    let taps: Vec<f32> = rng.vec(8, |r| r.f32_in(-1.0, 1.0));
    let mut uniform = f32_bytes(&taps);
    uniform.extend(u32_bytes(&[n as u32, 0, 0, 0]));
    let signal = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
    let got = run_io("conv1d.wgsl", vec![uniform, f32_bytes(&signal)], 4 * n);
    let want: Vec<f32> = (0..n as i32)
        .map(|g| {
            let mut acc = 0.0f32;
            for k in 0..7 {
                acc += taps[k as usize] * signal[(g + k - 3).clamp(0, n as i32 - 1) as usize];
            }
            acc
        })
        .collect();
    // Seven products of values in [-1, 1]: 1e-5 absolute.
    check_f32("result", &f32s(&got), &want, 1e-5, 0.0);
}

#[test]
fn stencil2d() {
    let mut rng = Rng::new(34);
    let w = 32;
    let src = rng.vec(w * w, |r| r.f32_in(0.0, 10.0));
    let got = run_io("stencil2d.wgsl", vec![f32_bytes(&src)], 4 * w * w);
    let mut want = src.clone();
    for y in 1..w - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            let nb = src[i - 1] + src[i + 1] + src[i - w] + src[i + w];
            want[i] = 0.2 * (nb + src[i]);
        }
    }
    // Five additions and a multiply of values <= 10: 1e-5 absolute.
    check_f32("dst", &f32s(&got), &want, 1e-5, 0.0);
}

#[test]
fn gemv() {
    let mut rng = Rng::new(35);
    let (rows, cols) = (96, 80);
    let a = rng.vec(rows * cols, |r| r.f32_in(-1.0, 1.0));
    let x = rng.vec(cols, |r| r.f32_in(-1.0, 1.0));
    let y = rng.vec(rows, |r| r.f32_in(-1.0, 1.0));
    let bufs = run_bound("gemv.wgsl", vec![f32_bytes(&a), f32_bytes(&x), f32_bytes(&y)]);
    let want: Vec<f32> = (0..rows)
        .map(|r| {
            let dot: f64 = (0..cols).map(|c| a[r * cols + c] as f64 * x[c] as f64).sum();
            (dot + 0.5 * y[r] as f64) as f32
        })
        .collect();
    // 80 products of values in [-1, 1] in f32: 1e-4 absolute.
    check_f32("y", &f32s(out(&bufs, 2)), &want, 1e-4, 0.0);
}

#[test]
fn workgroup_uniform_load() {
    let mut rng = Rng::new(36);
    let counts = rng.vec(2, |r| r.next_u32());
    let values = rng.vec(512, |r| r.below(1000));
    let got =
        run_io("workgroup_uniform_load.wgsl", vec![u32_bytes(&counts), u32_bytes(&values)], 8);
    let want: Vec<u32> = (0..2)
        .map(|w| {
            let n = counts[w] % 8 + 1;
            let mut t = 0;
            for round in 0..n as usize {
                for lid in 0..32 {
                    t += values[(w * 8 + round) * 32 + lid];
                }
            }
            t + n * 1_000_000
        })
        .collect();
    check_eq("out", &u32s(&got), &want);
}

// ---------------------------------------------------------------------------------------
// Atomics

#[test]
fn histogram_atomic() {
    let mut rng = Rng::new(37);
    let samples = rng.vec(1024, |r| r.next_u32());
    let initial = rng.vec(64, |r| r.below(1000));
    let bufs = run_bound("histogram_atomic.wgsl", vec![u32_bytes(&samples), u32_bytes(&initial)]);
    let mut want = initial.clone();
    for s in &samples {
        want[(s >> 26) as usize] += 1;
    }
    check_eq("hist", &u32s(out(&bufs, 1)), &want);
}

#[test]
fn atomic_minmax() {
    let mut rng = Rng::new(38);
    let values: Vec<i32> = rng.vec(256, |r| r.next_u32() as i32);
    let init: Vec<u32> = rng.vec(9, |r| r.next_u32());
    let bufs = run_bound("atomic_minmax.wgsl", vec![i32_bytes(&values), u32_bytes(&init)]);
    let mut w = init.clone();
    for &v in &values {
        let u = v as u32;
        w[0] = (w[0] as i32).max(v) as u32;
        w[1] = (w[1] as i32).min(v) as u32;
        w[2] = w[2].max(u);
        w[3] = w[3].min(u);
        w[4] &= u | 0x0f0f_0f0f;
        w[5] |= u & 0x00ff_00ff;
        w[6] ^= u;
        w[7] = w[7].wrapping_add(u >> 8);
        w[8] = (w[8] as i32).wrapping_sub(v >> 4) as u32;
    }
    check_eq("Stats", &u32s(out(&bufs, 1)), &w);
}

#[test]
fn atomic_float_max() {
    let mut rng = Rng::new(39);
    let values = rng.vec(256, |r| r.f32_in(-1000.0, 1000.0));
    let init = -5000.0f32;
    let bufs =
        run_bound("atomic_float_max.wgsl", vec![f32_bytes(&values), f32_bytes(&[init]), zeros(16)]);
    let global = values.iter().copied().fold(init, f32::max);
    let groups: Vec<f32> =
        values.chunks(64).map(|c| c.iter().copied().fold(-3.0e38, f32::max)).collect();
    check_f32("global_max", &f32s(out(&bufs, 1)), &[global], 0.0, 0.0);
    check_f32("group_max", &f32s(out(&bufs, 2)), &groups, 0.0, 0.0);
}

#[test]
fn atomic_exchange() {
    let mut rng = Rng::new(40);
    let n = 128;
    let slots = rng.vec(n, |r| r.next_u32());
    let replacements = rng.vec(n, |r| r.next_u32());
    let bufs = run_bound(
        "atomic_exchange.wgsl",
        vec![u32_bytes(&slots), u32_bytes(&replacements), zeros(4 * n), u32_bytes(&[5, 9])],
    );
    check_eq("slots", &u32s(out(&bufs, 0)), &replacements);
    let prev: Vec<u32> = slots.iter().map(|s| s ^ 0xffff).collect();
    check_eq("previous", &u32s(out(&bufs, 2)), &prev);
    check_eq("winners", &u32s(out(&bufs, 3)), &[6, 10]);
}

#[test]
fn atomic_float_add() {
    let mut rng = Rng::new(80);
    let n = 256;
    let values = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
    let slots = rng.vec(n, |r| r.f32_in(-4.0, 4.0));
    // The sums start as garbage: the kernel zeroes them first.
    let bufs = run_bound(
        "atomic_float_add.wgsl",
        vec![f32_bytes(&values), f32_bytes(&[7.25; 16]), f32_bytes(&slots), zeros(4 * n)],
    );
    let q: Vec<f32> = values.iter().map(|v| (v * 8.0).floor().clamp(-8.0, 8.0)).collect();
    let mut sums = vec![0.0f32; 16];
    for (i, &qi) in q.iter().enumerate() {
        let (w, lid) = (i / 64, i % 64);
        sums[w * 4 + lid % 4] += qi;
        sums[w * 4 + (lid + 1) % 4] -= qi * 0.5;
    }
    check_f32("sums", &f32s(out(&bufs, 1)), &sums, 0.0, 0.0);
    let after: Vec<f32> = q.iter().zip(&slots).map(|(q, s)| q + s).collect();
    check_f32("slots", &f32s(out(&bufs, 2)), &after, 0.0, 0.0);
    check_f32("olds", &f32s(out(&bufs, 3)), &slots, 0.0, 0.0);
}

/// WGSL's `refract` in f64 (the reference for the f32 kernel).
fn refract_f64(i: &[f64], n: &[f64], eta: f64) -> Vec<f64> {
    let d: f64 = i.iter().zip(n).map(|(a, b)| a * b).sum();
    let k = 1.0 - eta * eta * (1.0 - d * d);
    if k < 0.0 {
        return vec![0.0; i.len()];
    }
    i.iter().zip(n).map(|(a, b)| eta * a - (eta * d + k.sqrt()) * b).collect()
}

#[test]
fn refract() {
    let mut rng = Rng::new(81);
    let s = 0.5f32.sqrt();
    // Hand-picked rays first: straight down through a flat surface (eta 1.5: unchanged
    // direction), eta 1 (unchanged), total internal reflection at 60 degrees from glass
    // (eta 1.5: k = 1 - 2.25 * 0.25 * 3 < 0), 45 degrees into water (eta 1/1.33).
    let mut rays: Vec<[f32; 4]> = vec![
        [0.0, 0.0, -1.0, 1.5],
        [0.6, 0.0, -0.8, 1.0],
        [0.866_025_4, 0.0, -0.5, 1.5],
        [s, 0.0, -s, 1.0 / 1.33],
    ];
    let mut normals: Vec<[f32; 4]> = vec![[0.0, 0.0, 1.0, 0.0]; 4];
    // k = 1 - eta^2 (1 - dot(n, i)^2) for the first `len` components.
    let k_of = |r: &[f32; 4], n: &[f32; 4], len: usize| {
        let d: f64 = (0..len).map(|c| f64::from(r[c]) * f64::from(n[c])).sum();
        1.0 - f64::from(r[3]).powi(2) * (1.0 - d * d)
    };
    while rays.len() < 64 {
        let r = [
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(-1.0, 1.0),
            rng.f32_in(0.5, 1.5),
        ];
        let n = [rng.f32_in(-1.0, 1.0), rng.f32_in(-1.0, 1.0), rng.f32_in(-1.0, 1.0), 0.0];
        // Away from k = 0, where the rounding of k in f32 is amplified by the square root.
        if k_of(&r, &n, 3).abs() > 1e-2 && k_of(&r, &n, 2).abs() > 1e-2 {
            rays.push(r);
            normals.push(n);
        }
    }
    let got =
        run_io("refract.wgsl", vec![f32_bytes(&flat(&rays)), f32_bytes(&flat(&normals))], 16 * 64);
    let want: Vec<f32> = per_item(rays.iter().zip(&normals), |(r, n)| {
        let f = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        let eta = f64::from(r[3]);
        let t3 = refract_f64(&f(&r[..3]), &f(&n[..3]), eta);
        let t2 = refract_f64(&f(&r[..2]), &f(&n[..2]), eta);
        [t3[0] as f32, t3[1] as f32, t3[2] as f32, (t2[0] + t2[1]) as f32]
    });
    check_f32("bent", &f32s(&got), &want, 2e-5, 2e-5);
    check_f32("straight", &f32s(&got[..16]), &[0.0, 0.0, -1.0, 0.0], 1e-6, 0.0);
    check_f32("eta 1", &f32s(&got[16..32])[..3], &[0.6, 0.0, -0.8], 1e-6, 0.0);
    check_f32("total reflection", &f32s(&got[32..48])[..3], &[0.0, 0.0, 0.0], 0.0, 0.0);
}

/// The bytes of `immediates.wgsl`'s `Params` (scale, offset, count, then the table at
/// offset 16: a `vec4` array aligns to 16).
fn immediates_params(scale: f32, offset: f32, count: u32, table: [f32; 8]) -> Vec<u8> {
    let mut b = f32_bytes(&[scale, offset]);
    b.extend(u32_bytes(&[count, 0]));
    b.extend(f32_bytes(&table));
    b
}

#[test]
fn immediates() {
    let mut rng = Rng::new(82);
    let n = 128;
    let input = rng.vec(n, |r| r.f32_in(-4.0, 4.0));
    let table = [0.5, -1.0, 2.0, 0.25, 8.0, -0.125, 3.0, 1.5];
    let (scale, offset, count) = (1.5f32, -0.75f32, 100u32);
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let t = table[(i / 4) % 2 * 4 + i % 4];
            if (i as u32) < count {
                input[i] * scale + offset + t
            } else {
                -1.0
            }
        })
        .collect();
    let mut bufs = group0(vec![(0, f32_bytes(&input)), (1, zeros(4 * n))]);
    bufs.insert(
        dianran_verify::buffers::IMMEDIATES,
        immediates_params(scale, offset, count, table),
    );
    // The reference interpreter, then our PTX on the emulator (the by-value parameter).
    let got = run("immediates.wgsl", bufs.clone());
    check_f32("output (interp)", &f32s(out(&got, 1)), &want, 1e-6, 1e-6);
    let got = run_on(Executor::Emu, "immediates.wgsl", bufs);
    check_f32("output (emu)", &f32s(out(&got, 1)), &want, 1e-6, 1e-6);
}

#[test]
fn stream_compact() {
    let mut rng = Rng::new(41);
    let input = rng.vec(256, |r| r.below(1000));
    let bufs = run_bound("stream_compact.wgsl", vec![u32_bytes(&input), zeros(4), zeros(1024)]);
    let mut want: Vec<u32> = input.iter().copied().filter(|v| v % 3 == 0).collect();
    want.sort();
    let count = u32s(out(&bufs, 1))[0] as usize;
    check_eq("counter", &[count], &[want.len()]);
    let kept = u32s(out(&bufs, 2));
    // The order of the kept values is up to the scheduler: compare as multisets.
    let mut got = kept[..count.min(256)].to_vec();
    got.sort();
    check_eq("kept (sorted)", &got, &want);
    check_eq("untouched tail", &kept[count.min(256)..], &vec![0; 256 - count.min(256)]);
}

// ---------------------------------------------------------------------------------------
// Machine-learning kernels

#[test]
fn softmax() {
    let mut rng = Rng::new(42);
    let (rows, cols) = (16, 128);
    let x = rng.vec(rows * cols, |r| r.f32_in(-5.0, 5.0));
    let got = run_io("softmax.wgsl", vec![f32_bytes(&x)], 4 * rows * cols);
    let want = per_item(x.chunks(cols), |row| {
        let m = row.iter().copied().fold(f32::MIN, f32::max) as f64;
        let e: Vec<f64> = row.iter().map(|v| (*v as f64 - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| (v / s) as f32).collect::<Vec<_>>()
    });
    // exp and a 128-term f32 sum: 2e-5 relative plus 1e-8 absolute.
    check_f32("softmax", &f32s(&got), &want, 1e-8, 2e-5);
}

#[test]
fn softmax_rows() {
    // The header's 8 rows of 2056 (two full passes of the workgroup plus 2 vec4s), on the
    // interpreter with subgroups of 32 and of 8 (more partial pairs to merge) and on the
    // PTX emulator; then 3 rows of 40 (most invocations hold no element).
    let mut rng = Rng::new(43);
    for (rows, cols) in [(8usize, 2056usize), (3, 40)] {
        let x = rng.vec(rows * cols, |r| r.f32_in(-8.0, 8.0));
        let want = per_item(x.chunks(cols), |row| {
            let m = row.iter().copied().fold(f32::MIN, f32::max) as f64;
            let e: Vec<f64> = row.iter().map(|v| (*v as f64 - m).exp()).collect();
            let s: f64 = e.iter().sum();
            e.iter().map(|v| (v / s) as f32).collect::<Vec<_>>()
        });
        let input = || {
            group0(vec![
                (0, u32_bytes(&[cols as u32, 0, 0, 0])),
                (1, f32_bytes(&x)),
                (2, zeros(4 * rows * cols)),
            ])
        };
        let dispatch = [rows as u32, 1, 1];
        for sg in [32, 8] {
            let bufs = run_entry("softmax_rows.wgsl", "main", dispatch, input(), sg);
            // exp, rescaled partial sums of up to 2056 terms: 2e-5 relative, 1e-9 absolute.
            check_f32(&format!("y {rows}x{cols} sg {sg}"), &f32s(out(&bufs, 2)), &want, 1e-9, 2e-5);
        }
        if rows == 8 {
            let emu = run_bound_on(
                Executor::Emu,
                "softmax_rows.wgsl",
                vec![u32_bytes(&[cols as u32, 0, 0, 0]), f32_bytes(&x), zeros(4 * rows * cols)],
            );
            check_f32("y on emu", &f32s(out(&emu, 2)), &want, 1e-9, 2e-5);
        }
    }
}

#[test]
fn saxpy_vec4() {
    // The header's 4 workgroups over 1000 vec4s: the last workgroup is partial, and the
    // 24 elements past `count` (the buffer is longer) must stay untouched.
    let mut rng = Rng::new(44);
    let count = 1000usize;
    let alpha = -1.25f32;
    let x = rng.vec(4 * 1024, |r| r.f32_in(-4.0, 4.0));
    let y = rng.vec(4 * 1024, |r| r.f32_in(-4.0, 4.0));
    let mut params = zeros(16);
    set_f32(&mut params, 0, alpha);
    set_u32(&mut params, 4, count as u32);
    let want: Vec<f32> = (0..4 * 1024)
        .map(|i| if i < 4 * count { alpha.mul_add(x[i], y[i]) } else { y[i] })
        .collect();
    let inputs = || vec![params.clone(), f32_bytes(&x), f32_bytes(&y)];
    let bufs = run_bound("saxpy_vec4.wgsl", inputs());
    // One multiply-add per element; WGSL lets `fma` round once or twice, so within an ulp
    // or two of the fused result (values below 24 in magnitude: 4e-6 absolute).
    check_f32("y", &f32s(out(&bufs, 2)), &want, 4e-6, 0.0);
    let emu = run_bound_on(Executor::Emu, "saxpy_vec4.wgsl", inputs());
    check_f32("y on emu", &f32s(out(&emu, 2)), &want, 4e-6, 0.0);
}

#[test]
fn uniform_loop_strided() {
    // Column sums of a 37 x 50 matrix read with a row stride from the uniform; the header's
    // 2 workgroups of 32 cover 64 columns, so columns 50..64 return early and stay 0.
    let mut rng = Rng::new(45);
    let (rows, cols, scale) = (37usize, 50usize, 0.5f32);
    let m = rng.vec(rows * cols, |r| r.f32_in(-2.0, 2.0));
    let mut dims = zeros(16);
    set_u32(&mut dims, 0, rows as u32);
    set_u32(&mut dims, 4, cols as u32);
    set_f32(&mut dims, 8, scale);
    let want: Vec<f32> = (0..64)
        .map(|c| {
            if c >= cols {
                return 0.0;
            }
            (0..rows).map(|r| m[r * cols + c] as f64 * scale as f64).sum::<f64>() as f32
        })
        .collect();
    let inputs = || vec![dims.clone(), f32_bytes(&m), zeros(4 * 64)];
    let bufs = run_bound("uniform_loop_strided.wgsl", inputs());
    // 37 f32 additions of terms below 1 in magnitude (fused or not): 2e-5 absolute.
    check_f32("sums", &f32s(out(&bufs, 2)), &want, 2e-5, 0.0);
    let emu = run_bound_on(Executor::Emu, "uniform_loop_strided.wgsl", inputs());
    check_f32("sums on emu", &f32s(out(&emu, 2)), &want, 2e-5, 0.0);
}

#[test]
fn layer_norm() {
    let mut rng = Rng::new(43);
    let (rows, cols) = (8, 256);
    let x = rng.vec(rows * cols, |r| r.f32_in(-3.0, 3.0));
    let gamma = rng.vec(cols, |r| r.f32_in(0.5, 1.5));
    let beta = rng.vec(cols, |r| r.f32_in(-0.5, 0.5));
    let got = run_io(
        "layer_norm.wgsl",
        vec![f32_bytes(&x), f32_bytes(&gamma), f32_bytes(&beta)],
        4 * rows * cols,
    );
    let want = per_item(x.chunks(cols), |row| {
        let mean = row.iter().map(|v| *v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + 1e-5).sqrt();
        let affine = gamma.iter().zip(&beta);
        let norm = row
            .iter()
            .zip(affine)
            .map(|(v, (g, b))| ((*v as f64 - mean) * rstd * *g as f64 + *b as f64) as f32);
        norm.collect::<Vec<_>>()
    });
    // Mean and variance from 256-term f32 sums, outputs of magnitude <= ~3: 1e-4 absolute.
    check_f32("layer_norm", &f32s(&got), &want, 1e-4, 1e-5);
}

// ---------------------------------------------------------------------------------------
// f16

/// Rounds an f32 to f16 and back (one f16 operation's rounding).
fn h(v: f32) -> f32 {
    f16::from_f32(v).to_f32()
}

#[test]
fn f16_arith() {
    let mut rng = Rng::new(44);
    let n = 256;
    let a: Vec<f16> = rng.vec(n, |r| f16::from_f32(r.f32_in(-4.0, 4.0)));
    let b: Vec<f16> = rng.vec(n, |r| {
        let m = r.f32_in(0.25, 4.0);
        f16::from_f32(if r.below(2) == 0 { m } else { -m })
    });
    let bufs = run_bound(
        "f16_arith.wgsl",
        vec![f16_bytes(&a), f16_bytes(&b), zeros(12 * n), zeros(4 * n)],
    );
    let mut want = Vec::new();
    let mut wide = Vec::new();
    for i in 0..n {
        let (x, y) = (a[i].to_f32(), b[i].to_f32());
        // Every f16 operation rounds its result to f16.
        want.push(h(x + y));
        want.push(h(h(x * y) - 1.5));
        want.push(h(x / y));
        want.push(h(x * y + 1.5703125));
        want.push(h(x.abs().max(y) + h(y.abs().sqrt())));
        let v = [h(x * 0.5), h(y * 0.5), h(h(x - y) * 0.5), 1.0];
        want.push(h(v[0] - v[1] + v[2] + 0.25 * v[3]));
        wide.push(x * y + h(x - y));
    }
    let got: Vec<f32> = f16s(out(&bufs, 2)).iter().map(|v| v.to_f32()).collect();
    // f16 results: 1e-2 relative plus 1e-2 absolute (the dot product may round in any order).
    check_f32("f16 out", &got, &want, 1e-2, 1e-2);
    // f32 result from f16 inputs: f32 rounding only.
    check_f32("wide", &f32s(out(&bufs, 3)), &wide, 1e-5, 1e-6);
}

#[test]
fn f16_vec2_storage() {
    let mut rng = Rng::new(45);
    let n = 128;
    let halves: Vec<f16> = rng.vec(2 * n, |r| f16::from_f32(r.f32_in(-4.0, 4.0)));
    // Host side the pairs are u32 words: x in the low 16 bits, y in the high 16 bits.
    let words: Vec<u32> =
        halves.chunks(2).map(|p| p[0].to_bits() as u32 | ((p[1].to_bits() as u32) << 16)).collect();
    let bufs =
        run_bound("f16_vec2_storage.wgsl", vec![u32_bytes(&words), zeros(4 * n), zeros(8 * n)]);
    let mut rep = Vec::new();
    let mut wid = Vec::new();
    for p in halves.chunks(2) {
        let (x, y) = (p[0].to_f32(), p[1].to_f32());
        let w = [h(h(x * 2.0) + y), h(h(y * 0.5) + x)];
        rep.extend(w);
        wid.extend([w[0] + y, w[1] + x]);
    }
    let got: Vec<f32> = u32s(out(&bufs, 1))
        .iter()
        .flat_map(|w| [f16::from_bits(*w as u16), f16::from_bits((*w >> 16) as u16)])
        .map(|v| v.to_f32())
        .collect();
    // One f16 rounding step per result: 2e-3 relative (about one f16 ulp) plus 1e-3 absolute.
    check_f32("repacked", &got, &rep, 1e-3, 2e-3);
    check_f32("widened", &f32s(out(&bufs, 2)), &wid, 1e-3, 2e-3);
}

// ---------------------------------------------------------------------------------------
// Subgroups. The interpreter's subgroups are consecutive runs of local_invocation_index;
// the references below model that for any subgroup size.

/// The inputs of the subgroup of `size` lanes that invocation `gid` belongs to, and its lane
/// in it, for workgroups of `wg` invocations.
fn subgroup(input: &[u32], gid: usize, wg: usize, size: usize) -> (&[u32], usize) {
    let lane = (gid % wg) % size;
    let base = gid - lane;
    (&input[base..base + size], lane)
}

fn subgroup_ops_case(size: usize) {
    let mut rng = Rng::new(46);
    let n = 128;
    let input = rng.vec(n, |r| r.below(1 << 20));
    let bufs = run_sample(
        "subgroup_ops.wgsl",
        group0(vec![(0, u32_bytes(&input)), (1, zeros(32 * n))]),
        size as u32,
    );
    let want = per_item(0..n, |gid| {
        let (group, lane) = subgroup(&input, gid, 64, size);
        let sum = group.iter().sum::<u32>();
        let excl = group[..lane].iter().sum::<u32>();
        let mut ballot = [0u32; 4];
        for (l, v) in group.iter().enumerate() {
            if v & 1 == 1 {
                ballot[l / 32] |= 1 << (l % 32);
            }
        }
        let [b0, b1, b2, b3] = ballot;
        [sum, excl, group[3], lane as u32 | ((size as u32) << 16), b0, b1, b2, b3]
    });
    check_eq(&format!("SubgroupOut (size {size})"), &u32s(out(&bufs, 1)), &want);
}

#[test]
fn subgroup_ops_32() {
    subgroup_ops_case(32);
}

#[test]
fn subgroup_ops_8() {
    subgroup_ops_case(8);
}

fn subgroup_butterfly_case(size: usize) {
    let mut rng = Rng::new(47);
    let n = 512;
    let input = rng.vec(n, |r| r.below(1 << 20));
    let bufs = run_sample(
        "subgroup_butterfly.wgsl",
        group0(vec![(0, u32_bytes(&input)), (1, zeros(4 * n)), (2, zeros(16)), (3, zeros(4 * n))]),
        size as u32,
    );
    let mut partial = Vec::new();
    let mut maxima = Vec::new();
    for gid in 0..n {
        let (group, _) = subgroup(&input, gid, 128, size);
        partial.push(group.iter().sum::<u32>());
        maxima.push(group.iter().map(|v| (v & 0xffff) as f32 - 1000.0).fold(f32::MIN, f32::max));
    }
    let totals: Vec<u32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    check_eq(&format!("partial (size {size})"), &u32s(out(&bufs, 1)), &partial);
    check_eq(&format!("totals (size {size})"), &u32s(out(&bufs, 2)), &totals);
    check_f32(&format!("maxima (size {size})"), &f32s(out(&bufs, 3)), &maxima, 0.0, 0.0);
}

#[test]
fn subgroup_butterfly_32() {
    subgroup_butterfly_case(32);
}

#[test]
fn subgroup_butterfly_8() {
    subgroup_butterfly_case(8);
}

fn subgroup_misc_case(size: usize) {
    let mut rng = Rng::new(48);
    let n = 128;
    let mut input = rng.vec(n, |r| r.next_u32());
    // One subgroup-sized run of even values so `all_even` is sometimes true.
    for v in &mut input[64..96] {
        *v &= !1;
    }
    let bufs = run_sample(
        "subgroup_misc.wgsl",
        group0(vec![(0, u32_bytes(&input)), (1, zeros(24 * n))]),
        size as u32,
    );
    let got = out(&bufs, 1);
    let (mut gu, mut wu, mut gf, mut wf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for gid in 0..n {
        let (group, lane) = subgroup(&input, gid, 64, size);
        let inclusive = group[..=lane].iter().map(|v| v & 0xffff).sum::<u32>();
        let min_v = group.iter().map(|v| *v as i32).min().unwrap();
        let shuffled = group[(lane + 1) % size];
        let all_even = group.iter().all(|v| v & 1 == 0) as u32;
        let uniform_any = (gid / 64 == 1) as u32;
        wu.extend([inclusive, min_v as u32, shuffled, all_even, uniform_any]);
        for k in 0..5 {
            gu.push(get_u32(got, 24 * gid + 4 * k));
        }
        let product: f64 = group.iter().map(|v| 1.0 + (v & 3) as f64 * 0.125).product();
        wf.push(product as f32);
        gf.push(get_f32(got, 24 * gid + 20));
    }
    check_eq(&format!("MiscOut ints (size {size})"), &gu, &wu);
    // A product of up to 32 f32 factors in unknown order: 1e-5 relative.
    check_f32(&format!("MiscOut.product (size {size})"), &gf, &wf, 0.0, 1e-5);
}

#[test]
fn subgroup_misc_32() {
    subgroup_misc_case(32);
}

#[test]
fn subgroup_misc_8() {
    subgroup_misc_case(8);
}

// ---------------------------------------------------------------------------------------
// Cooperative matrices

#[test]
fn coop_matmul_16() {
    let mut rng = Rng::new(49);
    let n = 32;
    let a: Vec<f16> = rng.vec(n * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let b: Vec<f16> = rng.vec(n * n, |r| f16::from_f32(r.f32_in(-1.0, 1.0)));
    let c = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let bufs = run_bound("coop_matmul_16.wgsl", vec![f16_bytes(&a), f16_bytes(&b), f32_bytes(&c)]);
    // C += A * B (A times B, not B times A), all row-major.
    let mut want = c.clone();
    for r in 0..n {
        for col in 0..n {
            let dot: f64 = (0..n).map(|k| a[r * n + k].to_f64() * b[k * n + col].to_f64()).sum();
            want[r * n + col] = (c[r * n + col] as f64 + dot) as f32;
        }
    }
    // f16 products are exact in f32; 32-term f32 accumulation: 1e-3 absolute.
    check_f32("C", &f32s(out(&bufs, 2)), &want, 1e-3, 0.0);
}

#[test]
fn coop_matmul_8() {
    let mut rng = Rng::new(50);
    let n = 16;
    // A row-major, B and C column-major, D row-major.
    let a = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let b = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let c = rng.vec(n * n, |r| r.f32_in(-1.0, 1.0));
    let got =
        run_io("coop_matmul_8.wgsl", vec![f32_bytes(&a), f32_bytes(&b), f32_bytes(&c)], 4 * n * n);
    let mut want = vec![0.0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            let dot: f64 = (0..n).map(|k| a[r * n + k] as f64 * b[col * n + k] as f64).sum();
            want[r * n + col] = (dot + c[col * n + r] as f64) as f32;
        }
    }
    // 16 products of values in [-1, 1] in f32: 1e-4 absolute.
    check_f32("D", &f32s(&got), &want, 1e-4, 0.0);
}

// ---------------------------------------------------------------------------------------
// Precise math (PTX's default): each kernel runs on the reference interpreter and, as PTX, on
// the emulator; both must match plain Rust in f64.

/// The executors the precise-math samples are checked on.
const MATH_EXECUTORS: [Executor; 2] = [Executor::Interp, Executor::Emu];

#[test]
fn gelu() {
    let mut rng = Rng::new(71);
    let n = 512;
    let mut x = rng.vec(n, |r| r.f32_in(-6.0, 6.0));
    x[..6].copy_from_slice(&[0.0, -0.0, -6.0, -1.0, -0.5, 6.0]);
    let want = per_item(&x, |&vf| {
        let v = vf as f64;
        let inner = 0.7978845608028654 * (v + 0.044715 * v.powf(3.0));
        [0.5 * v * (1.0 + inner.tanh()), v / (1.0 + (-1.702 * v).exp()), v / (1.0 + (-v).exp())]
            .map(|e| e as f32)
    });
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "gelu.wgsl", vec![f32_bytes(&x), zeros(12 * n)]);
        let got = f32s(&bufs[&(0, 1)]);
        // Negative inputs included: pow(v, 3.0) of a negative base is -|v|^3, never NaN.
        assert!(got.iter().all(|g| !g.is_nan()), "gelu on {}: NaN", exec.name());
        check_f32(&format!("gelu on {}", exec.name()), &got, &want, 1e-6, 1e-5);
    }
}

#[test]
fn layer_norm_pow() {
    let mut rng = Rng::new(72);
    let (rows, cols) = (4, 256);
    let x = rng.vec(rows * cols, |r| r.f32_in(-4.0, 4.0));
    let mut want_stats = Vec::new();
    let mut want_y = Vec::new();
    for row in x.chunks(cols) {
        let mean = row.iter().map(|v| *v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (*v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let std = (var + 1e-5).sqrt();
        want_stats.extend([mean as f32, std as f32]);
        want_y.extend(row.iter().map(|v| ((*v as f64 - mean) / std) as f32));
    }
    for exec in MATH_EXECUTORS {
        let inputs = vec![f32_bytes(&x), zeros(8 * rows), zeros(4 * rows * cols)];
        let bufs = run_bound_on(exec, "layer_norm_pow.wgsl", inputs);
        let what = format!("layer_norm_pow on {}", exec.name());
        // 256-term f32 sums: 1e-5 absolute on means near 0, 1e-5 relative.
        check_f32(&format!("{what} stats"), &f32s(&bufs[&(0, 1)]), &want_stats, 1e-5, 1e-5);
        check_f32(&format!("{what} y"), &f32s(&bufs[&(0, 2)]), &want_y, 1e-5, 1e-5);
    }
}

#[test]
fn trig_waves() {
    let mut rng = Rng::new(73);
    let n = 256;
    let mut t = rng.vec(n, |r| r.f32_in(-1.0, 1.0));
    t[..4].copy_from_slice(&[0.0, -0.0, 1.0, -1.0]);
    let want = per_item(&t, |&v| {
        // The kernel's f32 intermediates, then f64 functions rounded once per call.
        let big = (v * 98765.4) as f64;
        let huge = (v * 1.0e9) as f64;
        let f = |x: f64| x as f32 as f64;
        let w = v as f64;
        [
            big.sin(),
            ((v * 98765.4 + 0.5) as f64).cos(),
            f(huge.sin()) * f(huge.cos()),
            ((v * 1234.5) as f64).tan(),
            f(big.sin()).atan2(f(huge.cos())),
            f(((v * 0.99) as f64).asin())
                + f(((v * 0.5) as f64).acos())
                + f(((v * 50.0) as f64).atan()),
            f(((v * 2.0) as f64).sinh()) - f(w.cosh()) + f(((v * 8.0) as f64).tanh()),
            f(((v * 100.0) as f64).asinh())
                + f(((v * 0.9) as f64).atanh())
                + f(((2.0 + v) as f64).acosh()),
        ]
        .map(|e| e as f32)
    });
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "trig_waves.wgsl", vec![f32_bytes(&t), zeros(32 * n)]);
        // tan near its poles magnifies the argument's last bit: relative 1e-5.
        check_f32(
            &format!("trig_waves on {}", exec.name()),
            &f32s(&bufs[&(0, 1)]),
            &want,
            1e-6,
            1e-5,
        );
    }
}

#[test]
fn bool_memory() {
    let bufs = run_bound("bool_memory.wgsl", vec![zeros(64)]);
    let flags = |l: u32| (l == 1, l > 1, l * 10, l != 2);
    let mut want = Vec::new();
    for l in 0..4u32 {
        let mut bits = [true, false, true, true, false, false, true];
        bits[l as usize] = !bits[l as usize];
        let count: u32 = (0..7).filter(|&i| bits[i]).map(|i| 1u32 << i).sum();
        let (a, b, n, c) = flags((l + 1) % 4);
        want.extend([count, a as u32 + 2 * b as u32 + 4 * c as u32, n, flags(l).1 as u32]);
    }
    check_eq("bool_memory out", &u32s(&bufs[&(0, 0)]), &want);
    let emu = run_bound_on(Executor::Emu, "bool_memory.wgsl", vec![zeros(64)]);
    check_eq("bool_memory out on emu", &u32s(&emu[&(0, 0)]), &want);
}

#[test]
fn matrix_conversions() {
    let x: [f32; 8] = [1.25, -2.5, 3.0, 0.1, -0.3, 2.75, 1.6, -0.9];
    let h = |v: f32| f16::from_f32(v).to_f32();
    let mut want = vec![0.0f32; 16];
    for c in 0..3 {
        want[2 * c] = x[2 * c] + h(x[2 * c + 1]);
        want[2 * c + 1] = h(x[2 * c]) * 2.0;
    }
    want[6] = (x[6] * 4.0).trunc();
    want[7] = (x[7] * 4.0).trunc();
    want[8] = (x[0] * 4.0).trunc();
    want[9] = 10.0;
    let lava = dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    for exec in [Executor::Interp, Executor::Emu, Executor::LavapipeOut] {
        if exec == Executor::LavapipeOut && !lava {
            continue;
        }
        let bufs = vec![f32_bytes(&x), zeros(64)];
        let got = run_bound_on(exec, "matrix_conversions.wgsl", bufs);
        check_f32(
            &format!("matrix_conversions on {}", exec.name()),
            &f32s(&got[&(0, 1)]),
            &want,
            0.0,
            0.0,
        );
    }
}

#[test]
fn unused_binding_load() {
    let want: Vec<u32> = (0..8).map(|i| i * 3 + 1).collect();
    let lava = dianran_verify::tools::require_that(
        dianran_verify::lavapipe::available(),
        "no Vulkan adapter (lavapipe)",
    );
    for exec in [Executor::Interp, Executor::Emu, Executor::Lavapipe] {
        if exec == Executor::Lavapipe && !lava {
            continue;
        }
        let bufs = vec![zeros(8), zeros(16), zeros(32)];
        let got = run_bound_on(exec, "unused_binding_load.wgsl", bufs);
        check_eq(&format!("unused_binding_load on {}", exec.name()), &u32s(&got[&(0, 2)]), &want);
    }
}

#[test]
fn subgroup_inactive_read() {
    // Only the lanes whose source is active are defined (at every subgroup size).
    for size in [32u32, 8] {
        let want: Vec<u32> = (0..32)
            .map(|lid| {
                let lane = lid % size;
                if lane % 2 == 0 {
                    ((lane + 2) % size) * 10
                } else {
                    1000 + lane
                }
            })
            .collect();
        let bufs = run_sample(
            "subgroup_inactive_read.wgsl",
            group0(vec![(0, zeros(128)), (1, zeros(128))]),
            size,
        );
        check_eq(&format!("defined at subgroup size {size}"), &u32s(&bufs[&(0, 0)]), &want);
    }
    // The emulator runs the indeterminate reads without an error; the defined values match.
    let bufs =
        run_bound_on(Executor::Emu, "subgroup_inactive_read.wgsl", vec![zeros(128), zeros(128)]);
    let want: Vec<u32> =
        (0..32).map(|s| if s % 2 == 0 { ((s + 2) % 32) * 10 } else { 1000 + s }).collect();
    check_eq("defined on emu", &u32s(&bufs[&(0, 0)]), &want);
}

#[test]
fn loop_continuing_uses_body() {
    let x = [3u32, 8, 5, 10];
    let mut want = vec![0u32; 8];
    let (mut acc, mut last) = (0u32, 0u32);
    for (i, &v) in x.iter().enumerate() {
        let t = v * 3 + 1;
        if t % 2 == 0 {
            acc += 100;
        } else {
            acc += t;
        }
        last = t + v;
        want[i] = last;
    }
    want[4] = acc;
    want[5] = last;
    for exec in MATH_EXECUTORS {
        let bufs =
            run_bound_on(exec, "loop_continuing_uses_body.wgsl", vec![u32_bytes(&x), zeros(32)]);
        check_eq(
            &format!("loop_continuing_uses_body on {}", exec.name()),
            &u32s(&bufs[&(0, 1)]),
            &want,
        );
    }
}

#[test]
fn padded_struct_constructor() {
    // l = Loc(1.5, (2, 7), [1, -4, 3], 1, (1.5, 0.5)); g = Loc(3, (3, 8), [1, -4, 3], 0, (3, 1)).
    let a = [1.5f32, 2.0, -4.0, 0.5];
    let want = [1.5f32, 9.0, 0.0, 1.0, 2.0, 3.0, 8.0, 1.0];
    for exec in MATH_EXECUTORS {
        let bufs =
            run_bound_on(exec, "padded_struct_constructor.wgsl", vec![f32_bytes(&a), zeros(32)]);
        check_eq(
            &format!("padded_struct_constructor on {}", exec.name()),
            &f32s(&bufs[&(0, 1)]),
            &want,
        );
    }
}

#[test]
fn degrees_radians() {
    let a = [1.0f32, -0.5, 2.0, 0.25];
    let (deg, rad) = (180.0 / std::f64::consts::PI, std::f64::consts::PI / 180.0);
    let mut want: Vec<f64> = a.iter().map(|&x| f64::from(x) * deg).collect();
    want.extend(a.iter().map(|&x| f64::from(x) * rad));
    want.extend(a[..3].iter().map(|&x| f64::from(x) * deg));
    want.push(0.25 * rad);
    want.push(deg);
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "degrees_radians.wgsl", vec![f32_bytes(&a), zeros(64)]);
        let got = f32s(&bufs[&(0, 1)]);
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            // f16 results (8..12) within 2^-10 relative, f32 ones within 2 ulp.
            let rel = if (8..12).contains(&i) { 1.0 / 1024.0 } else { 2.5e-7 };
            assert!(
                close(g, w as f32, 0.0, rel),
                "degrees_radians on {} [{i}]: {g}, want {w}",
                exec.name()
            );
        }
    }
}

#[test]
fn division_by_folded_zero() {
    // WGSL: x / 0 = x, x % 0 = 0; -i32::MIN wraps to itself.
    let a = [7i32, -9, 0, i32::MIN];
    let want: Vec<i32> = a.iter().flat_map(|&x| [x, 0, x / 2, x.wrapping_neg()]).collect();
    for exec in MATH_EXECUTORS {
        let bufs =
            run_bound_on(exec, "division_by_folded_zero.wgsl", vec![i32_bytes(&a), zeros(64)]);
        check_eq(
            &format!("division_by_folded_zero on {}", exec.name()),
            &i32s(&bufs[&(0, 1)]),
            &want,
        );
    }
}

#[test]
fn subgroup_float_sum() {
    // Every lane holds v = x[32 % 8] * 1.1; the sum is 32 v and lane s's inclusive scan is
    // (s + 1) v, each up to a few roundings away (the order of the additions is free).
    let x = [0.3f32, 0.5, -0.25, 1.0, 0.125, 2.0, -1.5, 0.75];
    let v = x[0] * 1.1f32;
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "subgroup_float_sum.wgsl", vec![f32_bytes(&x), zeros(256)]);
        let got = f32s(&bufs[&(0, 1)]);
        for s in 0..32 {
            let (sum, scan) = (got[2 * s], got[2 * s + 1]);
            let what = format!("subgroup_float_sum on {} lane {s}", exec.name());
            assert!(close(sum, 32.0 * v, 0.0, 1e-5), "{what}: sum {sum}, want {}", 32.0 * v);
            let want = (s as f32 + 1.0) * v;
            assert!(close(scan, want, 0.0, 1e-5), "{what}: scan {scan}, want {want}");
        }
    }
}

#[test]
fn subgroup_partial() {
    // Lanes with x % 3 != 0 run the collectives; each result combines those lanes of its
    // 32-lane subgroup alone (exact: integer sums, a float max, products of ones and twos).
    let a: Vec<u32> = (0..64u32).map(|k| k.wrapping_mul(2_654_435_761) >> 20).collect();
    let on = |l: usize| !a[l].is_multiple_of(3);
    let mut want = vec![0u32; 6 * 64];
    for l in (0..64).filter(|&l| on(l)) {
        let group: Vec<usize> = (l / 32 * 32..l / 32 * 32 + 32).filter(|&k| on(k)).collect();
        let before = || group.iter().filter(move |&&k| k < l).map(|&k| a[k]);
        want[6 * l] = group.iter().map(|&k| a[k]).sum();
        want[6 * l + 1] = before().sum::<u32>() + a[l];
        want[6 * l + 2] = before().sum();
        want[6 * l + 3] = group.iter().map(|&k| a[k]).max().unwrap_or(0);
        want[6 * l + 4] = before().map(|x| x % 2 + 1).product();
        want[6 * l + 5] = group.iter().map(|&k| a[k] as i32 - 2000).min().unwrap_or(0) as u32;
    }
    assert!(want.iter().any(|&w| w != 0) && (0..64).any(|l| !on(l)));
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "subgroup_partial.wgsl", vec![u32_bytes(&a), zeros(4 * 384)]);
        check_eq(&format!("subgroup_partial on {}", exec.name()), &u32s(&bufs[&(0, 1)]), &want);
    }
}

#[test]
fn loop_continue_skips_body_value() {
    // Iterations 0 and 2 run the body: m = (2, 0 + 2); all four run the continuing block:
    // v = (4, 0 + 1 + 2 + 3).
    let want: Vec<u32> = (0..4).flat_map(|_| [2, 2, 4, 6]).collect();
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "loop_continue_skips_body_value.wgsl", vec![zeros(64)]);
        check_eq(
            &format!("loop_continue_skips_body_value on {}", exec.name()),
            &u32s(&bufs[&(0, 0)]),
            &want,
        );
    }
}

#[test]
fn loop_continuing_uses_place() {
    // Four iterations: the body writes i + 10k, the continuing block adds 100 to it and sums
    // i = 0..3 into the even slot.
    let mut want = vec![0u32; 8];
    for k in 0..4u32 {
        want[(2 * k) as usize] = 6;
        want[(2 * k + 1) as usize] = 3 + 10 * k + 100;
    }
    for exec in MATH_EXECUTORS {
        let bufs = run_bound_on(exec, "loop_continuing_uses_place.wgsl", vec![zeros(32)]);
        check_eq(
            &format!("loop_continuing_uses_place on {}", exec.name()),
            &u32s(&bufs[&(0, 0)]),
            &want,
        );
    }
}

// ---- 64-bit scalars (i64, u64, f64) ----

fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn get_u64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().expect("8 bytes"))
}

/// The output of sample `name` (inputs at bindings 0.., a zeroed output after them) from the
/// interpreter and from our PTX on the emulator: the reference checks run on both.
fn run_io_both(name: &str, inputs: Vec<Vec<u8>>, out_bytes: usize) -> Vec<(&'static str, Vec<u8>)> {
    let binding = inputs.len() as u32;
    let interp = run_io(name, inputs.clone(), out_bytes);
    let mut all = inputs;
    all.push(zeros(out_bytes));
    let mut emu = run_bound_on(Executor::Emu, name, all);
    let emu = emu.remove(&(0, binding)).expect("output buffer missing after the emulator");
    vec![("interp", interp), ("emu", emu)]
}

/// A 64-bit random value (two draws).
fn next_u64(r: &mut Rng) -> u64 {
    (u64::from(r.next_u32()) << 32) | u64::from(r.next_u32())
}

/// f64 results compared bit for bit (every operation in these kernels is one correctly
/// rounded IEEE operation), NaN against NaN whatever the payload.
fn check_f64_bits(what: &str, got: &[u64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let gf = f64::from_bits(g);
        assert!(
            g == w.to_bits() || (gf.is_nan() && w.is_nan()),
            "{what}[{i}]: got {gf:?} ({g:#018x}) want {w:?} ({:#018x})",
            w.to_bits()
        );
    }
}

#[test]
fn int64_arith() {
    let mut rng = Rng::new(64);
    let n = 256;
    let mut a: Vec<i64> = rng.vec(n, |r| next_u64(r) as i64);
    let mut b: Vec<i64> = rng.vec(n, |r| next_u64(r) as i64);
    let mut s: Vec<u32> = rng.vec(n, |r| r.below(200));
    let special = [
        (i64::MIN, -1, 63),
        (i64::MIN, 0, 64),
        (5, 0, 65),
        (-7, 2, 1),
        (7, -2, 127),
        (i64::MAX, -1, 0),
        (-1, -1, 32),
        (0, 0, 31),
        (1 << 40, 3, 33),
        (-(1 << 40), 1 << 41, 200),
    ];
    for (k, &(x, y, sh)) in special.iter().enumerate() {
        a[k] = x;
        b[k] = y;
        s[k] = sh;
    }
    // Small divisors too, so quotients are not all 0 or -1.
    for k in (20..n).step_by(3) {
        b[k] = i64::from(rng.i32_in(-9, 9));
    }
    const STRIDE: usize = 120; // 14 eight-byte fields, a u32, padded to 8
    for (exec, got) in run_io_both(
        "int64_arith.wgsl",
        vec![i64_bytes(&a), i64_bytes(&b), u32_bytes(&s)],
        STRIDE * n,
    ) {
        for i in 0..n {
            let (x, y, k) = (a[i], b[i], s[i]);
            let (ux, uy) = (x as u64, y as u64);
            // WGSL: x / 0 == x, x % 0 == 0, MIN / -1 == MIN (wrapping_div), shifts modulo 64.
            let want: [u64; 14] = [
                x.wrapping_add(y) as u64,
                x.wrapping_sub(y) as u64,
                x.wrapping_mul(y) as u64,
                if y == 0 { x } else { x.wrapping_div(y) } as u64,
                if y == 0 { 0 } else { x.wrapping_rem(y) } as u64,
                ux.checked_div(uy).unwrap_or(ux),
                ux.checked_rem(uy).unwrap_or(0),
                ux << (k % 64),
                ux >> (k % 64),
                (x >> (k % 64)) as u64,
                (ux & uy) ^ (!ux | 0xff00_ff00_ff00_ff00),
                x.max(y.min(-1_000_000_000_000))
                    .min(y.max(1_000_000_000_000))
                    .wrapping_add(x.max(y))
                    .wrapping_sub(x.min(y)) as u64,
                x.wrapping_abs().wrapping_sub(y.wrapping_neg()) as u64,
                u64::from(ux.count_ones()) * 1000 + u64::from(uy.count_ones()),
            ];
            let got_row: Vec<u64> = (0..14).map(|f| get_u64(&got, i * STRIDE + 8 * f)).collect();
            check_eq(&format!("{exec}: Out64[{i}] (x={x}, y={y}, k={k})"), &got_row, &want);
            let flags = u32::from(x < y)
                | u32::from(ux < uy) << 1
                | u32::from(x == y) << 2
                | u32::from(x >= 0) << 3
                | u32::from(ux != 0) << 4;
            assert_eq!(get_u32(&got, i * STRIDE + 112), flags, "{exec}: flags[{i}]");
        }
    }
}

#[test]
fn int64_bits() {
    let mut rng = Rng::new(65);
    let n = 64;
    let mut v: Vec<u64> = rng.vec(n, next_u64);
    // Zero (64 leading and trailing zeros), all ones, single bits at both ends.
    v[..6].copy_from_slice(&[0, u64::MAX, 1, 1 << 63, 0x0000_ffff_0000_0000, 0x10]);
    for k in (8..n).step_by(4) {
        v[k] >>= rng.below(64); // more leading zeros
    }
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    // WGSL: the index of the most significant 1 (of a negative i64: 0) bit, -1 when there is
    // none; of the least significant 1 bit, -1 for zero.
    let first_leading = |x: u64| if x == 0 { u64::MAX } else { 63 - u64::from(x.leading_zeros()) };
    let first_leading_s = |s: i64| first_leading(if s < 0 { !s as u64 } else { s as u64 });
    let first_trailing = |x: u64| if x == 0 { u64::MAX } else { u64::from(x.trailing_zeros()) };
    // extractBits/insertBits at o = min(offset, 64), c = min(count, 64 - o): the `c` bits
    // from `o` (sign-extended for i64) and `x` with them replaced.
    let field = |o: u32, c: u32| {
        let (o, c) = (o.min(64), c.min(64 - o.min(64)));
        let ones = if c == 64 { u64::MAX } else { (1u64 << c) - 1 };
        (o, c, ones)
    };
    let extract = |x: u64, signed: bool, o: u32, c: u32| {
        let (o, c, ones) = field(o, c);
        if c == 0 {
            return 0;
        }
        let v = x.checked_shr(o).unwrap_or(0) & ones;
        if signed && c < 64 && v >> (c - 1) & 1 == 1 {
            v | !ones
        } else {
            v
        }
    };
    let insert = |x: u64, y: u64, o: u32, c: u32| {
        let (o, _, ones) = field(o, c);
        let mask = ones.checked_shl(o).unwrap_or(0);
        (x & !mask) | (y.checked_shl(o).unwrap_or(0) & mask)
    };
    for (exec, got) in run_io_both("int64_bits.wgsl", vec![bytes], 136 * n) {
        let want: Vec<u64> = per_item(v.iter().enumerate(), |(g, &x)| {
            let s = x as i64;
            let g = g as u32;
            let (o, c) = ((g * 5) % 70, (g * 13 + 3) % 70);
            [
                u64::from(x.leading_zeros()),
                u64::from(x.trailing_zeros()),
                x.reverse_bits(),
                u64::from(s.leading_zeros()),
                u64::from(s.trailing_zeros()),
                s.reverse_bits() as u64,
                first_leading(x),
                first_trailing(x),
                first_leading_s(s),
                first_trailing(x),
                u64::from((!x).leading_zeros()),
                first_trailing(s.wrapping_neg() as u64),
                first_leading_s(!s),
                (s ^ 1).reverse_bits() as u64,
                extract(x, false, o, c),
                extract(x, true, o, c),
                insert(x, !x, o, c),
            ]
        });
        let got: Vec<u64> = (0..17 * n).map(|k| get_u64(&got, 8 * k)).collect();
        check_eq(&format!("{exec}: Bits"), &got, &want);
    }
}

#[test]
fn f64_frexp() {
    let mut rng = Rng::new(68);
    let n = 64;
    // Random bit patterns (every exponent, subnormals included) and the special values.
    let mut xs: Vec<f64> = rng.vec(n, |r| f64::from_bits(next_u64(r)));
    let special = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -0.75,
        f64::from_bits(1),
        -f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        f64::MIN_POSITIVE,
        f64::MAX,
        1e-310,
    ];
    xs[..special.len()].copy_from_slice(&special);
    // frexp by the definition: exp = floor(log2 |x|) + 1 from the exponent field (or, for a
    // subnormal, the position of its top bit), fract = x / 2^exp.
    let frexp = |x: f64| -> (f64, i64) {
        if x == 0.0 || !x.is_finite() {
            return (x, 0);
        }
        let bits = x.to_bits() & !(1 << 63);
        let field = (bits >> 52) as i32;
        let e = if field == 0 { -1074 + (64 - bits.leading_zeros() as i32) } else { field - 1022 };
        // 2^-e in two exact halves (2^1074 alone is no f64); both products stay normal.
        (x * pow2(-e / 2) * pow2(-e - (-e / 2)), i64::from(e))
    };
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    for (exec, got) in run_io_both("f64_frexp.wgsl", vec![bytes], 32 * n) {
        for (i, &x) in xs.iter().enumerate() {
            let (f, e) = frexp(x);
            let (vf, ve) = frexp(-2.0 * x);
            if x.is_finite() && x != 0.0 {
                assert!((0.5..1.0).contains(&f.abs()), "reference frexp({x:e}) = {f}");
            }
            let fields = [f.to_bits(), e as u64, vf.to_bits(), ve as u64];
            for (k, want) in fields.into_iter().enumerate() {
                let g = get_u64(&got, 32 * i + 8 * k);
                let nan = f64::from_bits(g).is_nan() && f64::from_bits(want).is_nan() && k % 2 == 0;
                assert!(
                    g == want || nan,
                    "{exec}: Parts[{i}] field {k} of x = {x:e}: got {g:#x} want {want:#x}"
                );
            }
        }
    }
}

/// 2^k for k in [-1022, 1023], from its exponent field.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x * 2^e` rounded once, for `e` in [-1150, 1150): a product by an exact power of two,
/// moved into the normal range first where `e` is beyond it (that first product is exact, or
/// overflows when the result does).
fn ldexp(e: i32, x: f64) -> f64 {
    if e > 1023 {
        x * pow2(1023) * pow2(e - 1023)
    } else if e < -1022 {
        // 2^-1074 is the smallest subnormal.
        x * pow2(e + 1074) * f64::from_bits(1)
    } else {
        x * pow2(e)
    }
}

#[test]
fn f64_builtins() {
    let mut rng = Rng::new(67);
    let n = 64;
    let unit = |r: &mut Rng| (next_u64(r) >> 11) as f64 / (1u64 << 53) as f64;
    let mut a: Vec<[f64; 4]> = rng.vec(n, |r| {
        [0, 1, 2, 3].map(|k| if k < 3 { unit(r) * 20.0 - 10.0 } else { unit(r) * 5.0 - 2.0 })
    });
    let b: Vec<[f64; 4]> = rng.vec(n, |r| {
        [0, 1, 2, 3].map(|k| if k < 3 { unit(r) * 20.0 - 10.0 } else { unit(r) * 400.0 - 200.0 })
    });
    // smoothstep's and saturate's edges, and step's tie (x == y).
    for (k, x) in [-1.0, 2.0, 0.0, 1.0, -0.5, 2.5].into_iter().enumerate() {
        a[k][3] = x;
    }
    a[6][3] = b[6][3];
    let bytes = |v: &[[f64; 4]]| f64_bytes(&flat(v));
    const STRIDE: usize = 256; // vec3<f64> members align to 32
    let runs = run_io_both("f64_builtins.wgsl", vec![bytes(&a), bytes(&b)], STRIDE * n);
    let dot = |p: &[f64], q: &[f64]| p.iter().zip(q).map(|(x, y)| x * y).sum::<f64>();
    // WGSL's definitions, in plain f64 arithmetic; dianran may fuse steps, so each value is
    // compared within 4 ulp or 1e-12 (`dianran verify`'s f64 bound).
    let close = |g: f64, w: f64| {
        let ulp = f64::EPSILON * g.abs().max(w.abs());
        g == w || (g - w).abs() <= 4.0 * ulp || (g - w).abs() <= 1e-12
    };
    for (exec, got) in runs {
        for i in 0..n {
            let (p, q, x, y) = (&a[i][..3], &b[i][..3], a[i][3], b[i][3]);
            let lq = dot(q, q).sqrt();
            let nn: Vec<f64> = q.iter().map(|v| v / lq).collect();
            let lp = dot(p, p).sqrt();
            let d: Vec<f64> = p.iter().zip(q).map(|(u, v)| u - v).collect();
            let dn = dot(&nn, p);
            let keep = dot(&nn, q) < 0.0;
            let t = ((x + 1.0) / 3.0).clamp(0.0, 1.0);
            let mut want: Vec<f64> = Vec::new();
            want.extend(p.iter().map(|v| v / lp));
            want.extend([
                p[1] * q[2] - p[2] * q[1],
                p[2] * q[0] - p[0] * q[2],
                p[0] * q[1] - p[1] * q[0],
            ]);
            want.extend(p.iter().zip(&nn).map(|(u, v)| u - 2.0 * dn * v));
            want.extend(p.iter().map(|v| if keep { *v } else { -v }));
            want.extend([
                x * 0.75 + y * 0.25,
                if y >= x { 1.0 } else { 0.0 },
                x.clamp(0.0, 1.0),
                t * t * (3.0 - 2.0 * t),
                x * (180.0 / std::f64::consts::PI),
                y * (std::f64::consts::PI / 180.0),
                lp,
                dot(&d, &d).sqrt(),
                // C99 modf: the fraction keeps y's sign.
                (y - y.trunc()).copysign(y),
                y.trunc(),
                ldexp((i as u32 * 37 % 2300) as i32 - 1150, x),
            ]);
            // refract(u, nn, eta) of the unit u = p / |p|: zero under total reflection.
            let u: Vec<f64> = p.iter().map(|v| v / lp).collect();
            let (eta, du) = (0.66, dot(&nn, &u));
            let kk = 1.0 - eta * eta * (1.0 - du * du);
            want.extend(u.iter().zip(&nn).map(|(a, b)| {
                if kk < 0.0 {
                    0.0
                } else {
                    eta * a - (eta * du + kk.sqrt()) * b
                }
            }));
            // det(c0, c1, c2) = c0 . (c1 x c2); transpose(mat2x3(p, q))[2][1] is q.z.
            let r: Vec<f64> = p.iter().zip(q).map(|(u, v)| u + v + x).collect();
            let c12 =
                [q[1] * r[2] - q[2] * r[1], q[2] * r[0] - q[0] * r[2], q[0] * r[1] - q[1] * r[0]];
            want.push(dot(p, &c12) + q[2]);
            let offs = [
                0, 8, 16, 32, 40, 48, 64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168,
                176, 184, 192, 200, 224, 232, 240, 248,
            ];
            assert_eq!(offs.len(), want.len());
            for (k, (&o, &w)) in offs.iter().zip(&want).enumerate() {
                let g = f64::from_bits(get_u64(&got, i * STRIDE + o));
                // modf and ldexp round at most once: their bits are exact.
                let ok =
                    if (20..23).contains(&k) { g.to_bits() == w.to_bits() } else { close(g, w) };
                assert!(ok, "{exec}: Out[{i}] value {k} (byte {o}): got {g:?} want {w:?}");
            }
        }
    }
}

#[test]
// WGSL's clamp is min(max(e, lo), hi), which ignores a NaN `e` as f64::max does;
// f64::clamp would return the NaN.
#[allow(clippy::manual_clamp)]
fn f64_arith() {
    let mut rng = Rng::new(66);
    let n = 256;
    let unit = |r: &mut Rng| (next_u64(r) >> 11) as f64 / (1u64 << 53) as f64;
    let mut a: Vec<f64> = rng.vec(n, |r| (unit(r) - 0.5) * 2000.0);
    let mut b: Vec<f64> = rng.vec(n, |r| (unit(r) - 0.5) * 20.0);
    let special = [
        (1.0, 0.0),
        (0.0, 0.0),
        (-0.0, 3.0),
        (2.5, -2.5),
        (-2.5, 0.5),
        (1e300, 1e300),
        (5.5, 2.0),
        (-5.5, 2.0),
        (f64::MIN_POSITIVE / 4.0, 0.75),
        (0.1, 0.2),
        (f64::INFINITY, 1.0),
        (-1.0e-310, -3.5),
    ];
    for (k, &(x, y)) in special.iter().enumerate() {
        a[k] = x;
        b[k] = y;
    }
    const STRIDE: usize = 160; // vec4<f64> at 64 gives the struct 32-byte alignment
    let runs = run_io_both("f64_arith.wgsl", vec![f64_bytes(&a), f64_bytes(&b)], STRIDE * n);
    // WGSL `sign` of zero or NaN gives the argument back (as the other float types here).
    let sign = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        }
    };
    for (exec, got) in runs {
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            // `clamp(e, lo, hi)` = min(max(e, lo), hi); `%` = x - y * trunc(x / y);
            // `dot` = a0*b0, then fma(a1, b1, .), fma(a2, b2, .) (the order dianran computes).
            let want = [
                x + y,
                x - y,
                x * y,
                x / y,
                x - (x / y).trunc() * y,
                x.mul_add(y, 0.1),
                x.abs().sqrt(),
                x.floor(),
                x.ceil(),
                x.trunc(),
                x.round_ties_even(),
                y - y.floor(),
                y.abs() * 3.0,
                sign(x),
                // `clamp(..) + min * max`: the product is fused (docs/math.md, "Contraction").
                x.min(y).mul_add(x.max(y), x.max(-0.5).min(0.5)),
                1.5f64.mul_add(-2.0, y.mul_add(x, x * y)),
            ];
            let offs = [0, 8, 16, 24, 32, 40, 48, 64, 72, 80, 88, 96, 104, 112, 120, 128];
            let got_row: Vec<u64> = offs.iter().map(|o| get_u64(&got, i * STRIDE + o)).collect();
            check_f64_bits(&format!("{exec}: OutF64[{i}] (x={x:?}, y={y:?})"), &got_row, &want);
            let flags = u32::from(x < y)
                | u32::from(x <= y) << 1
                | u32::from(x == y) << 2
                | u32::from(x != y) << 3;
            assert_eq!(get_u32(&got, i * STRIDE + 136), flags, "{exec}: flags[{i}]");
        }
    }
}

/// Steps between two f64 values (0 when equal or both NaN; `u64::MAX` when one is NaN).
fn f64_steps(got: f64, want: f64) -> u64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0 } else { u64::MAX };
    }
    let ord = |x: f64| {
        let b = x.to_bits();
        let m = i128::from(b & !(1 << 63));
        if b >> 63 == 1 {
            -m
        } else {
            m
        }
    };
    u64::try_from((ord(got) - ord(want)).unsigned_abs()).unwrap_or(u64::MAX)
}

#[test]
fn f64_math() {
    let mut rng = Rng::new(68);
    let n = 256;
    let unit = |r: &mut Rng| (next_u64(r) >> 11) as f64 / (1u64 << 53) as f64;
    let mut a: Vec<f64> = rng.vec(n, |r| (unit(r) - 0.5) * 40.0);
    let mut b: Vec<f64> = rng.vec(n, |r| (unit(r) - 0.5) * 20.0);
    // Axes, zeros of both signs (atan2's quadrant edges), tiny, large, huge and near-pi/2
    // values.
    let special = [
        (0.0, 0.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (-0.0, -0.0),
        (-3.0, 0.0),
        (-3.0, -0.0),
        (0.0, 2.0),
        (-0.0, -2.0),
        (1e-300, 1e-300),
        (std::f64::consts::FRAC_PI_2, 1.0),
        (-7.0 * std::f64::consts::FRAC_PI_2, -1.0),
        (1e5, 700.0),
        (-1e5, -700.0),
        (0.5, 1e-8),
        // Payne-Hanek's range for sin, cos and tan.
        (1e22, 1.0),
        (-3e15, 0.5),
    ];
    for (k, &(x, y)) in special.iter().enumerate() {
        a[k] = x;
        b[k] = y;
    }
    const STRIDE: usize = 128;
    let runs = run_io_both("f64_math.wgsl", vec![f64_bytes(&a), f64_bytes(&b)], STRIDE * n);
    // Rust's f64 functions; the inverse hyperbolic ones on |x| with the sign put back, where
    // Rust's formulas are accurate (they lose digits for negative atanh arguments).
    let odd = |f: fn(f64) -> f64, x: f64| if x == 0.0 { x } else { f(x.abs()).copysign(x) };
    for (exec, got) in runs {
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let u = x / (1.0 + x.abs());
            let want = [
                x.sin(),
                x.cos(),
                x.tan(),
                y.sinh(),
                y.cosh(),
                x.tanh(),
                u.asin(),
                u.acos(),
                x.atan(),
                y.atan2(x),
                odd(f64::asinh, x),
                (2.0 + y.abs()).acosh(),
                odd(f64::atanh, u),
                y.exp(),
                x.abs().ln(),
                x.abs().powf(y),
            ];
            for (k, &w) in want.iter().enumerate() {
                let g = f64::from_bits(get_u64(&got, i * STRIDE + 8 * k));
                // The library is within 1 ulp of the exact values and glibc within 1-2 (the
                // interpreter computes with Rust's functions); zeros' signs must match.
                let ok = f64_steps(g, w) <= 4 && (g != 0.0 || g.to_bits() == w.to_bits());
                assert!(
                    ok,
                    "{exec}: OutMath[{i}] field {k} (x={x:?}, y={y:?}): got {g:?} want {w:?}"
                );
            }
        }
    }
}

#[test]
fn atomic_u64() {
    let mut rng = Rng::new(67);
    let n = 64;
    let mut vals: Vec<i64> = rng.vec(n, |r| next_u64(r) as i64);
    vals[3] = i64::MIN;
    vals[9] = i64::MAX;
    vals[11] = -1;
    // Accumulator start values: ands all ones, mins at their maximum, the rest zero.
    let mut init = [0u64; 12];
    init[1] = i64::MAX as u64;
    init[2] = i64::MIN as u64;
    init[3] = u64::MAX;
    init[5] = u64::MAX;
    let mut acc_bytes: Vec<u8> = init.iter().flat_map(|x| x.to_le_bytes()).collect();
    acc_bytes.truncate(8 * 10 + 4); // cas_hits is a u32 at 80, `last` a u64 at 88
    acc_bytes.resize(96, 0);
    let inputs = vec![i64_bytes(&vals), acc_bytes];
    let interp = run_bound("atomic_u64.wgsl", inputs.clone());
    let emu = run_bound_on(Executor::Emu, "atomic_u64.wgsl", inputs);
    let us: Vec<u64> = vals.iter().map(|&v| v as u64).collect();
    let want = [
        us.iter().fold(0u64, |s, &u| s.wrapping_add(u)),
        vals.iter().copied().fold(i64::MAX, i64::min) as u64,
        vals.iter().copied().fold(i64::MIN, i64::max) as u64,
        us.iter().copied().fold(u64::MAX, u64::min),
        us.iter().copied().fold(0, u64::max),
        us.iter().fold(u64::MAX, |s, &u| s & (u | 0xfff0_0000_0000_0000)),
        us.iter().fold(0, |s, &u| s | u),
        us.iter().fold(0, |s, &u| s ^ u),
        vals.iter().fold(0i64, |s, &v| s.wrapping_sub(v)) as u64,
        us.iter().fold(0u64, |s, &u| s.wrapping_add(u >> 4)),
    ];
    for (exec, bufs) in [("interp", interp), ("emu", emu)] {
        let acc = out(&bufs, 1);
        let got: Vec<u64> = (0..10).map(|k| get_u64(acc, 8 * k)).collect();
        check_eq(&format!("{exec}: Acc"), &got, &want);
        assert_eq!(get_u32(acc, 80), 1, "{exec}: exactly one compare-exchange succeeds");
        assert_eq!(get_u64(acc, 88), us[5], "{exec}: the exchanged value");
    }
}

#[test]
fn conversions64() {
    let mut rng = Rng::new(68);
    let n = 64;
    let unit = |r: &mut Rng| (next_u64(r) >> 11) as f64 / (1u64 << 53) as f64;
    let mut fs: Vec<f64> = rng.vec(n, |r| (unit(r) - 0.5) * 1e6);
    let mut is: Vec<i64> = rng.vec(n, |r| next_u64(r) as i64);
    let mut ws: Vec<i32> = rng.vec(n, |r| r.next_u32() as i32);
    let specials = [
        f64::NAN,
        1e30,
        -1e30,
        -0.75,
        2.5,
        4294967296.5,
        -2147483649.0,
        9.3e18,
        f64::INFINITY,
        3.4028235677973366e38, // rounds to f32::MAX or beyond
        1.0 + f64::EPSILON,
        -0.0,
    ];
    fs[..specials.len()].copy_from_slice(&specials);
    is[..6].copy_from_slice(&[i64::MIN, i64::MAX, -1, 0, (1 << 53) + 1, -(1 << 24) - 1]);
    ws[..4].copy_from_slice(&[i32::MIN, -1, 0, i32::MAX]);
    const STRIDE: usize = 112;
    for (exec, got) in run_io_both(
        "conversions64.wgsl",
        vec![f64_bytes(&fs), i64_bytes(&is), i32_bytes(&ws)],
        STRIDE * n,
    ) {
        for i in 0..n {
            let (f, k, w) = (fs[i], is[i], ws[i]);
            let at = |o: usize| i * STRIDE + o;
            // Rust's `as` is WGSL's float -> int (truncate, saturate, NaN -> 0) and rounds
            // int -> float and f64 -> f32 to nearest even; integer widening extends by the
            // source's signedness and narrowing keeps the low bits.
            let words64 = [
                (0, f as i64 as u64),
                (8, f as u64),
                (16, (k as f64).to_bits()),
                (24, (k as u64 as f64).to_bits()),
                (40, f64::from(f as f32 * 0.5).to_bits()),
                (48, i64::from(w) as u64),
                (56, w as i64 as u64),
                (64, u64::from(w as u32)),
                (88, f.to_bits()),
                (96, (-f).to_bits()),
            ];
            for (o, want) in words64 {
                let g = get_u64(&got, at(o));
                assert_eq!(g, want, "{exec}: Conv[{i}] byte {o} (f={f:?}, k={k}, w={w})");
            }
            let words32 = [
                (32, (f as f32).to_bits()),
                (72, k as i32 as u32),
                (76, k as u64 as u32),
                (80, (k as f32).to_bits()),
                (104, f as i32 as u32),
                (108, f as u32),
            ];
            for (o, want) in words32 {
                let g = get_u32(&got, at(o));
                // f32(NaN) is a NaN whose payload the targets choose.
                let nan = o == 32 && f.is_nan() && f32::from_bits(g).is_nan();
                assert!(
                    g == want || nan,
                    "{exec}: Conv[{i}] byte {o} (f={f:?}, k={k}, w={w}): {g:#x} != {want:#x}"
                );
            }
        }
    }
}

/// `int64_index.wgsl` lives in `verify/tests/data/`, not among the samples: Mesa's llvmpipe
/// aborts the whole process ("Cannot emit physreg copy instruction") on naga's SPIR-V for a
/// 64-bit index, so `agreement.rs` (which runs every sample on lavapipe in-process) cannot
/// take it; `dianran verify` runs it on interp, emu and lavapipe-out.
#[test]
fn int64_index() {
    let mut rng = Rng::new(69);
    let idx: Vec<i64> = rng.vec(32, |r| i64::from(r.i32_in(-64, 64)));
    let table: Vec<u32> = rng.vec(64, |r| r.below(1000));
    let want: Vec<u32> =
        idx.iter().map(|&k| table[(k & 31) as usize] * 10 + ((k & 31) as u32 & 3) + 1).collect();
    for (exec, got) in run_io_both(
        "../../verify/tests/data/int64_index.wgsl",
        vec![i64_bytes(&idx), u32_bytes(&table)],
        4 * 32,
    ) {
        check_eq(&format!("{exec}: out"), &u32s(&got), &want);
    }
}
