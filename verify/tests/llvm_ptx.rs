//! PTX from LLVM 19's NVPTX back end (fixtures in `tests/llvm-ptx`, generated from the `.ll`
//! sources next to them by `generate.sh`) on the emulator. Every kernel's outputs are
//! compared with values computed here in plain Rust; the parser and printer must round-trip
//! every fixture, and ptxas must accept the printed text.

// Index loops mirror the kernels' thread and element numbering.
#![allow(clippy::needless_range_loop)]

use dianran_verify::emu::{run, EmuErrorKind, EmuOptions};
use dianran_verify::{ptxas, tools};

/// Every fixture, with the target it was generated for.
const FIXTURES: &[(&str, &str, u32)] = &[
    ("int_ops", include_str!("llvm-ptx/int_ops.ptx"), 80),
    ("int_ops.sm90", include_str!("llvm-ptx/int_ops.sm90.ptx"), 90),
    ("float_ops", include_str!("llvm-ptx/float_ops.ptx"), 80),
    ("memory", include_str!("llvm-ptx/memory.ptx"), 80),
    ("atomics", include_str!("llvm-ptx/atomics.ptx"), 80),
    ("warp", include_str!("llvm-ptx/warp.ptx"), 80),
    ("mma", include_str!("llvm-ptx/mma.ptx"), 80),
    ("calls", include_str!("llvm-ptx/calls.ptx"), 80),
    ("pack", include_str!("llvm-ptx/pack.ptx"), 80),
    ("libdevice", include_str!("llvm-ptx/libdevice.ptx"), 80),
    ("libdevice_calls", include_str!("llvm-ptx/libdevice_calls.ptx"), 80),
    ("misc", include_str!("llvm-ptx/misc.ptx"), 80),
    ("extra", include_str!("llvm-ptx/extra.ptx"), 80),
    // ptxas cannot assemble a call to an `.extern .func` into a complete program.
    ("ext", include_str!("llvm-ptx/ext.ptx"), 0),
];

fn fixture(name: &str) -> &'static str {
    FIXTURES.iter().find(|f| f.0 == name).map(|f| f.1).unwrap_or_else(|| panic!("no {name}"))
}

/// Runs `entry` of fixture `file` on one CTA of `block` threads (or `grid` CTAs).
fn launch(file: &str, entry: &str, bufs: &mut [Vec<u8>], grid: u32, block: u32) {
    let text = fixture(file);
    if let Err(e) = run(text, entry, bufs, [grid, 1, 1], [block, 1, 1], &EmuOptions::default()) {
        panic!("{file}/{entry}: {e}");
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    words(b).into_iter().map(f32::from_bits).collect()
}

fn bytes_of_u32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_of_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn every_fixture_round_trips_and_assembles() {
    let ptxas = tools::require("ptxas", tools::ptxas());
    for &(name, text, sm) in FIXTURES {
        let m = dianran_ptx::parse_module(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The model's checks accept LLVM's forms (wide registers in ld/st/cvt, calls).
        if let Err(e) = m.validate() {
            panic!("{name}: {e}");
        }
        let printed = dianran_ptx::print_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = dianran_ptx::parse_module(&printed).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, m, "{name}: the printed text parses to another module:\n{printed}");
        if ptxas.is_some() && sm > 0 {
            if let Err(e) = ptxas::check(&printed, sm) {
                panic!("ptxas sm_{sm} rejects the printed {name}: {e}\n{printed}");
            }
        }
    }
}

/// `int_ops`: 32 results per thread from a pair (a, b) of i32: add/sub/mul, division and
/// remainder (signed and unsigned), shifts, min/max/abs, funnel shifts, popc/clz/ctz,
/// bitreverse, bswap (prmt), selects, 64-bit products, 8- and 16-bit arithmetic.
#[test]
fn int_ops() {
    let pairs: Vec<(i32, i32)> = (0..32)
        .map(|t: i32| {
            let a = t.wrapping_mul(-1_640_531_527).wrapping_add(12345) ^ (t << 7);
            let b = match t {
                0 => 5,
                1 => 0,
                2 => -1,
                3 => i32::MIN,
                _ => t.wrapping_mul(40503).wrapping_sub(77) >> (t % 9),
            };
            let a = if t == 4 { 0 } else { a };
            (a, b)
        })
        .collect();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a as u32, b as u32]).collect();
    let mut bufs = vec![vec![0u8; 32 * 32 * 4], bytes_of_u32(&input)];
    launch("int_ops", "int_ops", &mut bufs, 1, 32);
    let got = words(&bufs[0]);
    for (t, &(a, b)) in pairs.iter().enumerate() {
        let (ua, ub) = (a as u32, b as u32);
        let bnz = b | 1;
        let sh = ub & 31;
        let m64 = i64::from(a).wrapping_mul(i64::from(ub));
        let (a8, b8) = (a as i8, b as i8);
        let (a16, b16) = (a as u16, b as u16);
        let want: [u32; 32] = [
            ua.wrapping_add(ub),
            ua.wrapping_sub(ub),
            ua.wrapping_mul(ub),
            a.wrapping_div(bnz) as u32,
            a.wrapping_rem(bnz) as u32,
            ua / (bnz as u32),
            ua % (bnz as u32),
            ua << sh,
            (a >> sh) as u32,
            ua >> sh,
            a.min(b) as u32,
            ua.max(ub),
            a.unsigned_abs(),
            // fshl(a, b, b): the high word of (a:b) << (b % 32).
            if ub % 32 == 0 { ua } else { (ua << (ub % 32)) | (ub >> (32 - ub % 32)) },
            // fshr(a, b, 7): the low word of (a:b) >> 7.
            (ua << 25) | (ub >> 7),
            ua.count_ones(),
            ua.leading_zeros(),
            ua.trailing_zeros(),
            ua.reverse_bits(),
            ua.swap_bytes(),
            a.min(b) as u32,
            if ua < ub || b == 5 { 111 } else { 222 },
            m64 as u32,
            (m64 >> 32) as u32,
            (m64 / 7) as u32,
            (m64 as u64).count_ones(),
            u64::from(ub).leading_zeros(),
            (a8.wrapping_mul(b8) / 3) as i32 as u32,
            u32::from((a16 / 7).wrapping_add(b16)),
            i64::from(a).max(i64::from(ub)) as u32,
            !ua,
            ua & ub.wrapping_neg(),
        ];
        let row = &got[32 * t..32 * t + 32];
        for k in 0..32 {
            assert_eq!(row[k], want[k], "thread {t} (a = {a}, b = {b}) result {k}");
        }
    }
}

/// Whether `got` is `want`: the same bits, or both NaN (PTX's canonical NaN differs from
/// Rust's), or, with `zeros`, both zeros of either sign (`minnum` may return either).
fn same_f32(got: f32, want: f32, zeros: bool) -> bool {
    got.to_bits() == want.to_bits()
        || (got.is_nan() && want.is_nan())
        || (zeros && got == 0.0 && want == 0.0)
}

/// IEEE 754-2019 minimum / maximum: NaN propagates, -0 < +0.
fn minimum(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    if a == b {
        let a_neg = a.is_sign_negative();
        return if a_neg != max { a } else { b };
    }
    if (a < b) != max {
        a
    } else {
        b
    }
}

/// `float_ops`: f32 arithmetic and rounding functions, saturating conversions, f64 and f16
/// arithmetic, comparisons and classification, on pairs (a, b) including NaN, infinities,
/// signed zeros, ties and out-of-range values.
#[test]
fn float_ops() {
    use half::f16;
    let specials = [
        (2.5f32, -1.25f32),
        (-2.5, 0.1),
        (0.5, 3.0),
        (-0.0, 0.0),
        (f32::NAN, 2.0),
        (2.0, f32::NAN),
        (f32::INFINITY, -7.0),
        (1e10, f32::NEG_INFINITY),
        (-1e10, 1e-3),
        (3e9, 4e9),
        (-3e9, 1.5e19),
        (1.0e-40, -3.0),
        (0.49999997, 1.0),
        (8388609.0, 0.75),
        (-1.5, -1.5),
        (2.0, 2.0),
    ];
    let pairs: Vec<(f32, f32)> = specials
        .iter()
        .copied()
        .chain((0..16).map(|t| {
            let t = t as f32;
            ((t * 1.37 - 9.2) * (t + 1.0), (t * 0.73 + 0.3) / (t - 7.5))
        }))
        .collect();
    let input: Vec<f32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let mut bufs = vec![vec![0u8; 32 * 32 * 4], bytes_of_f32(&input)];
    launch("float_ops", "float_ops", &mut bufs, 1, 32);
    let got = floats(&bufs[0]);
    for (t, &(a, b)) in pairs.iter().enumerate() {
        let (ad, bd) = (f64::from(a), f64::from(b));
        let (ha, hb) = (f16::from_f32(a), f16::from_f32(b));
        let i32_bits = |x: i32| f32::from_bits(x as u32);
        let mut want: [Option<f32>; 32] = [
            Some(a + b),
            Some(a - b),
            Some(a * b),
            Some(a / b),
            Some(a.min(b)),
            Some(a.max(b)),
            Some(a.mul_add(b, 1.5)),
            Some(a.abs()),
            Some(b.sqrt()),
            Some(a.floor()),
            Some(a.ceil()),
            Some(a.trunc()),
            Some(a.round_ties_even()),
            Some(b.copysign(a)),
            Some(i32_bits(a as i32)),
            Some(f32::from_bits(a as u32)),
            Some(if a < b { a } else { 7.0 }),
            Some(if (a.is_nan() || b.is_nan()) && (a.is_nan() || a == 2.0) { 1.0 } else { 0.0 }),
            Some(((ad * bd / 3.0).mul_add(ad, bd) + bd.sqrt()) as f32),
            Some(((ha + hb) * hb).to_f32()),
            Some(minimum(a, b, false)),
            Some(minimum(a, b, true)),
            None, // frem, below
            Some(a.round()),
            (a.is_finite() && a.abs() < 2_147_483_648.0).then_some((a as i32) as f32),
            (0.0..1.8e19).contains(&b).then_some((b as u64) as f32),
            Some((ad * bd).floor() as f32),
            Some(-a),
            Some(if a.is_nan() { 1.0 } else { 2.0 }),
            Some(if b.is_infinite() { 1.0 } else { 2.0 }),
            Some(f16::from_f32(ha.to_f32() / hb.to_f32()).to_f32()),
            Some(if ha < hb { 1.0 } else { 2.0 }),
        ];
        // frem: LLVM's expansion a - trunc(a / b) * b (a when b is infinite), with the
        // product rounded or fused.
        let q = (a / b).trunc();
        let frem =
            if b.is_infinite() && a.is_finite() { [a, a] } else { [a - q * b, (-q).mul_add(b, a)] };
        let row = &got[32 * t..32 * t + 32];
        assert!(
            frem.iter().any(|&w| same_f32(row[22], w, false)),
            "thread {t} (a = {a:e}, b = {b:e}): frem gives {:e}, expected {frem:?}",
            row[22]
        );
        want[22] = None;
        for (k, w) in want.iter().enumerate() {
            if let Some(w) = *w {
                assert!(
                    same_f32(row[k], w, k == 4 || k == 5),
                    "thread {t} (a = {a:e}, b = {b:e}) result {k}: {:e} ({:#x}), expected {w:e} ({:#x})",
                    row[k],
                    row[k].to_bits(),
                    w.to_bits()
                );
            }
        }
    }
}

/// `memory`: a shared tile reversed through `bar.sync`, a `.global` table with an initializer
/// (read with `ld.global.nc`), a `.const` table, and 8- and 16-bit loads and stores; two
/// CTAs of 64 threads.
#[test]
fn memory_spaces_and_narrow_types() {
    let n = 128usize;
    let input: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let bytes: Vec<u8> = (0..n).map(|i| (i * 37 % 256) as u8).collect();
    let shorts: Vec<i16> = (0..n).map(|i| (i as i16 - 60).wrapping_mul(517)).collect();
    let mut bufs = vec![
        vec![0u8; 4 * n],
        bytes_of_f32(&input),
        bytes.clone(),
        shorts.iter().flat_map(|s| s.to_le_bytes()).collect(),
    ];
    launch("memory", "memory", &mut bufs, 2, 64);
    let table = [3, 1, 4, 1, 5, 9, 2, 6];
    let ctable = [0.5f32, 1.5, -2.0, 8.0];
    let out = floats(&bufs[0]);
    for g in 0..n {
        let (cta, t) = (g / 64, g % 64);
        let y = input[cta * 64 + 63 - t];
        let want = (y + table[g % 8] as f32) * ctable[g % 4];
        assert_eq!(out[g], want, "element {g}");
        assert_eq!(bufs[2][g], bytes[g].wrapping_mul(3).wrapping_add(1), "byte {g}");
        let s = i16::from_le_bytes([bufs[3][2 * g], bufs[3][2 * g + 1]]);
        assert_eq!(s, shorts[g] >> 1, "short {g}");
    }
}

/// `vec4`: `ld.global.v4.f32` / `st.global.v4.f32` in a grid-stride loop whose bound is a
/// `.param .u32` kernel parameter (its buffer holds the value).
#[test]
fn vector_loads_and_a_scalar_parameter() {
    let n = 37u32;
    let input: Vec<f32> = (0..4 * 40).map(|i| i as f32 * 1.25 - 7.0).collect();
    let mut bufs = vec![vec![0u8; 4 * 4 * 40], bytes_of_f32(&input), n.to_le_bytes().to_vec()];
    launch("memory", "vec4", &mut bufs, 3, 8);
    let out = floats(&bufs[0]);
    for i in 0..4 * 40 {
        let want = if i < 4 * n as usize { input[i] * 2.0 } else { 0.0 };
        assert_eq!(out[i], want, "element {i}");
    }
    // A scalar parameter's buffer must hold exactly its bytes.
    let mut bad = vec![vec![0u8; 16], vec![0u8; 16], vec![1u8; 8]];
    let e = run(fixture("memory"), "vec4", &mut bad, [1, 1, 1], [8, 1, 1], &EmuOptions::default());
    assert_eq!(e.map_err(|e| e.kind), Err(EmuErrorKind::Launch));
}

/// `local_array`: an alloca indexed at run time (`__local_depot`, `%SPL`, `st.local`).
#[test]
fn local_memory_array() {
    let idx: Vec<u32> = (0..48).map(|t| t * 5 + 3).collect();
    let mut bufs = vec![vec![0u8; 4 * 48], bytes_of_u32(&idx)];
    launch("memory", "local_array", &mut bufs, 1, 48);
    let out = words(&bufs[0]);
    for t in 0..48u32 {
        assert_eq!(out[t as usize], (idx[t as usize] % 7) * t, "thread {t}");
    }
}

/// Sorted copy, for comparing multisets.
fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// `atomics`: `atom.global` add/sub (as add of the negation)/and/or/xor/min/max (signed and
/// unsigned)/exch/cas/add.f32/add.u64 and `atom.shared` add/min between barriers, 64
/// threads. The final values are folds of the inputs; the old values returned must be
/// those of some order of the updates (checked without assuming the emulator's order).
#[test]
fn atomics() {
    let n = 64usize;
    let v: Vec<u32> = (0..n as u32).map(|t| t.wrapping_mul(2_654_435_761) ^ 0x5a5a_0f0f).collect();
    let init: [u32; 12] = [
        0,
        0,
        u32::MAX,
        0,
        0,
        i32::MAX as u32,
        i32::MIN as u32,
        u32::MAX,
        0,
        77,
        5,
        10f32.to_bits(),
    ];
    let mut acc = init.to_vec();
    acc.extend([1000, 0, 0, 0]); // the u64 at word 12, and words 14 and 15 from the kernel
    let mut bufs = vec![bytes_of_u32(&acc), bytes_of_u32(&v), vec![0u8; 4 * 12 * n]];
    launch("atomics", "atomics", &mut bufs, 1, n as u32);
    let got = words(&bufs[0]);
    let old = words(&bufs[2]);
    let olds = |k: usize| (0..n).map(|t| old[12 * t + k]).collect::<Vec<u32>>();
    let sum = v.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    let want = [
        sum,
        sum.wrapping_neg(),
        v.iter().fold(u32::MAX, |s, &x| s & x),
        v.iter().fold(0, |s, &x| s | x),
        v.iter().fold(0, |s, &x| s ^ x),
        v.iter().fold(i32::MAX, |s, &x| s.min(x as i32)) as u32,
        v.iter().fold(i32::MIN, |s, &x| s.max(x as i32)) as u32,
        v.iter().fold(u32::MAX, |s, &x| s.min(x)),
        v.iter().fold(0, |s, &x| s.max(x)),
    ];
    assert_eq!(&got[..9], &want, "folded results");
    // add/sub/xor/exch: each update maps one old value to the next.
    for (k, step) in [
        (0usize, (|o: u32, x: u32| o.wrapping_add(x)) as fn(u32, u32) -> u32),
        (1, |o, x| o.wrapping_sub(x)),
        (4, |o, x| o ^ x),
        (9, |_, x| x),
    ] {
        let o = olds(k);
        let mut before = o.clone();
        before.push(got[k]);
        let mut after: Vec<u32> = o.iter().zip(&v).map(|(&o, &x)| step(o, x)).collect();
        after.push(init[k]);
        assert_eq!(sorted(before), sorted(after), "old values of update {k}");
    }
    // cas(p, tid, v): only thread 5 matches the initial 5.
    assert_eq!(got[10], v[5]);
    assert_eq!(old[12 * 5 + 10], 5);
    assert!(olds(10).iter().all(|&o| o == 5 || o == v[5]));
    // 64 additions of 1.0 to 10.0.
    assert_eq!(f32::from_bits(got[11]), 74.0);
    let mut fold = olds(11).iter().map(|&b| f32::from_bits(b)).collect::<Vec<f32>>();
    fold.sort_by(f32::total_cmp);
    assert_eq!(fold, (0..64).map(|k| 10.0 + k as f32).collect::<Vec<f32>>());
    let wide = u64::from(got[12]) | u64::from(got[13]) << 32;
    assert_eq!(wide, 1000 + v.iter().map(|&x| u64::from(x)).sum::<u64>());
    // Shared memory: the sum and the unsigned minimum, read back by thread 0.
    assert_eq!(got[14], sum);
    assert_eq!(got[15], *v.iter().min().unwrap_or(&0));
}

/// `warp`: `shfl.sync` idx/up/down/bfly (i32 and f32, and the `%r|%p` form),
/// `vote.sync` ballot/all/any, `redux.sync` add/min.u32/max.s32/or, `activemask` inside a
/// branch taken by the even lanes, `bar.warp.sync` and `barrier.sync`; two warps. The
/// kernel is marked by `!nvvm.annotations` (`.reqntid 64, 1, 1`).
#[test]
fn warp_collectives() {
    let n = 64usize;
    let v: Vec<i32> =
        (0..n as i32).map(|t| (t * 7 % 23) - 5 + if t == 40 { 100 } else { 0 }).collect();
    let mut bufs =
        vec![vec![0u8; 4 * 16 * n], bytes_of_u32(&v.iter().map(|&x| x as u32).collect::<Vec<_>>())];
    launch("warp", "warp", &mut bufs, 1, n as u32);
    let got = words(&bufs[0]);
    for t in 0..n {
        let (w, l) = (t / 32 * 32, t % 32);
        let lanes = &v[w..w + 32];
        let ballot = (0..32).filter(|&k| lanes[k] > 10).fold(0u32, |b, k| b | 1 << k);
        let down4 = if l + 4 <= 31 { lanes[l + 4] + 1 } else { lanes[l] };
        let even = if l % 2 == 0 { 0x5555_5555u32.wrapping_add(lanes[0] as u32) } else { 0 };
        let want: [u32; 15] = [
            lanes[3] as u32,
            if l >= 1 { lanes[l - 1] } else { lanes[l] } as u32,
            if l + 2 <= 31 { lanes[l + 2] } else { lanes[l] } as u32,
            lanes[l ^ ((l >> 1) & 3)] as u32,
            lanes[l ^ 16] as u32,
            ballot,
            u32::from(ballot == u32::MAX),
            u32::from(ballot != 0),
            lanes.iter().fold(0i32, |s, &x| s.wrapping_add(x)) as u32,
            lanes.iter().map(|&x| x as u32).min().unwrap_or(0),
            lanes.iter().copied().max().unwrap_or(0) as u32,
            lanes.iter().fold(0u32, |s, &x| s | x as u32),
            down4 as u32,
            even,
            u32::MAX,
        ];
        assert_eq!(&got[16 * t..16 * t + 15], &want, "thread {t}");
    }
}

/// `mma_f16`: A (16x16) and B (16x8) staged in shared memory, `ldmatrix.x4` for A and
/// `ldmatrix.x2.trans` for B, then `mma.m16n8k16.row.col` with f32 and with f16
/// accumulators. Values are multiples of 1/2 whose sums are exact in f16.
#[test]
fn ldmatrix_and_mma_f16() {
    use half::f16;
    let a: Vec<f32> =
        (0..256).map(|i| ((i / 16 * 3 + i % 16 * 5) % 7) as f32 / 2.0 - 1.5).collect();
    let b: Vec<f32> = (0..128).map(|i| ((i / 8 * 2 + i % 8 * 3) % 5) as f32 - 2.0).collect();
    let halves = |v: &[f32]| -> Vec<u8> {
        v.iter().flat_map(|&x| f16::from_f32(x).to_bits().to_le_bytes()).collect()
    };
    let mut bufs = vec![vec![0u8; 4 * 128], vec![0u8; 2 * 128], halves(&a), halves(&b)];
    launch("mma", "mma_f16", &mut bufs, 1, 32);
    let d = floats(&bufs[0]);
    for r in 0..16 {
        for c in 0..8 {
            let want: f32 = (0..16).map(|k| a[r * 16 + k] * b[k * 8 + c]).sum();
            assert_eq!(d[r * 8 + c], want, "f32 D[{r}][{c}]");
            let h = u16::from_le_bytes([bufs[1][2 * (r * 8 + c)], bufs[1][2 * (r * 8 + c) + 1]]);
            assert_eq!(f16::from_bits(h).to_f32(), want, "f16 D[{r}][{c}]");
        }
    }
}

/// `mma_tf32`: per-lane fragments loaded from global memory by the ISA's layout, then
/// `mma.m16n8k8.row.col.f32.tf32.tf32.f32`; values exact in TF32.
#[test]
fn mma_tf32() {
    let a: Vec<f32> = (0..128).map(|i| ((i / 8 * 5 + i % 8 * 3) % 9) as f32 * 0.25 - 1.0).collect();
    let b: Vec<f32> = (0..64).map(|i| ((i / 8 * 7 + i % 8) % 11) as f32 * 0.5 - 2.5).collect();
    let mut bufs = vec![vec![0u8; 4 * 128], bytes_of_f32(&a), bytes_of_f32(&b)];
    launch("mma", "mma_tf32", &mut bufs, 1, 32);
    let d = floats(&bufs[0]);
    for r in 0..16 {
        for c in 0..8 {
            let want: f32 = (0..8).map(|k| a[r * 8 + k] * b[k * 8 + c]).sum();
            assert_eq!(d[r * 8 + c], want, "D[{r}][{c}]");
        }
    }
}

/// `calls`: device functions called with `call.uni`: a loop returning f32 in
/// `func_retval0`, a 16-byte aggregate result, a pointer to the caller's local memory (a
/// generic address from `cvta.local`), a `.align 16 .b8 [8]` vector argument and 8- and
/// 16-bit arguments.
#[test]
fn device_function_calls() {
    let n = 40usize;
    let x: Vec<f32> = (0..n).map(|t| t as f32 * 0.37 - 4.0).collect();
    let mut bufs = vec![vec![0u8; 16 * n], bytes_of_f32(&x)];
    launch("calls", "calls", &mut bufs, 1, n as u32);
    for t in 0..n {
        let row = &bufs[0][16 * t..16 * t + 16];
        let mut acc = 1.0f32;
        for _ in 0..t % 4 {
            acc = acc * x[t] + 1.0;
        }
        let p1 = (t as u64) * 3;
        let f = floats(&row[..8]);
        assert_eq!(f[0], acc, "thread {t}: poly");
        assert_eq!(f[1], (7 + t) as f32, "thread {t}: pair.0");
        assert_eq!(row[8], p1 as u8, "thread {t}: i8 argument");
        assert_eq!(
            i16::from_le_bytes([row[10], row[11]]),
            (p1 as i16).wrapping_mul(1000),
            "thread {t}: i16 argument"
        );
    }
}

/// The distance in units in the last place between two f32 values (0 for two NaNs).
fn ulps(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    // Maps the floats onto a line of integers in the same order.
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    key(a).abs_diff(key(b))
}

/// `libdevice`: a kernel calling `__nv_sinf`, `__nv_cosf`, `__nv_powf`, `__nv_expf`,
/// `__nv_logf`, `__nv_tanhf`, `__nv_atan2f`, `__nv_acosf`, `__nv_asinhf`, `__nv_fmodf`,
/// `__nv_exp2f`, `__nv_log2f` and `__nv_sinf` on an f16 value, linked with libdevice and
/// optimized (everything inlined: the Payne-Hanek reduction with `mad.lo.cc`/`madc.hi`,
/// `__cudart_i2opi_f` in `.global` memory, a local array), and the same without `opt`
/// (every function called). Results are compared with f64 `std` functions rounded to f32.
#[test]
fn libdevice_math() {
    use half::f16;
    let n = 64usize;
    let x: Vec<f32> = (0..n)
        .map(|t| match t {
            0 => 0.0,
            1 => -0.0,
            2 => 1.0e6,
            3 => -3.0e7,
            4 => 123_456.79,
            5 => 1.0e-30,
            6 => 88.0,
            7 => -100.0,
            8 => f32::INFINITY,
            9 => f32::NAN,
            10 => 1.0e38,
            _ => (t as f32 - 35.0) * 0.3711,
        })
        .collect();
    let y: Vec<f32> = (0..n)
        .map(|t| match t {
            0 => 0.0,
            1 => -1.0,
            2 => 1.0,
            _ => ((t * 37 % 61) as f32 - 30.0) / 31.0,
        })
        .collect();
    let input: Vec<f32> = x.iter().zip(&y).flat_map(|(&a, &b)| [a, b]).collect();
    let names = [
        "sin", "cos", "pow", "exp", "log", "tanh", "atan2", "acos", "asinh", "fmod", "exp2",
        "log2", "f16 sin",
    ];
    // Allowed error in ulps (libdevice documents at most 1 to 4 for these).
    let bound = [2u64, 2, 4, 2, 1, 2, 3, 3, 3, 0, 2, 1, 1];
    for fixture in ["libdevice", "libdevice_calls"] {
        let mut bufs = vec![vec![0u8; 4 * 16 * n], bytes_of_f32(&input)];
        launch(fixture, "libdevice", &mut bufs, 1, n as u32);
        let got = floats(&bufs[0]);
        let mut worst = [0u64; 13];
        for t in 0..n {
            let (a, b) = (f64::from(x[t]), f64::from(y[t]));
            let h = f16::from_f32(x[t]).to_f32();
            let want = [
                a.sin() as f32,
                a.cos() as f32,
                a.powf(b) as f32,
                a.exp() as f32,
                a.ln() as f32,
                a.tanh() as f32,
                a.atan2(b) as f32,
                b.acos() as f32,
                a.asinh() as f32,
                x[t] % y[t],
                a.exp2() as f32,
                a.log2() as f32,
                f16::from_f64(f64::from(h).sin()).to_f32(),
            ];
            for k in 0..13 {
                let g = got[16 * t + k];
                // The f16 result must be an f16 value; it is compared in f16 ulps.
                let e = if k == 12 {
                    let (hg, hw) = (f16::from_f32(g), f16::from_f32(want[k]));
                    assert_eq!(hg.to_f32().to_bits(), g.to_bits(), "{fixture}: not an f16");
                    ulps(hg.to_f32(), hw.to_f32()) >> 13
                } else {
                    ulps(g, want[k])
                };
                assert!(
                    e <= bound[k],
                    "{fixture}: {}({}, {}) = {g:e}, expected {:e} ({e} ulps)",
                    names[k],
                    x[t],
                    y[t],
                    want[k]
                );
                worst[k] = worst[k].max(e);
            }
        }
        println!("{fixture}: worst ulps {:?}", names.iter().zip(worst).collect::<Vec<_>>());
    }
}

/// `pack`: `mov.b64 {a, b}` unpacking through a scoped `{ .reg .b32 tmp; ... }` block,
/// `mov.b64 %rd, {a, b}` and `mov.b32 %r, {h, h}` packing, `shf.l.wrap`, 64-bit rotates in
/// a block with `%lhs`/`%rhs` registers, f16x2 `fma`/`min`, `neg.f16`, `prmt` byte swaps,
/// `bfe`/`bfi` byte arithmetic, 64-bit `ctz`, shifts and conversions through f64.
#[test]
fn packing_and_bit_manipulation() {
    use half::f16;
    let xs: Vec<u64> = (0..32u64)
        .map(|t| match t {
            0 => 0,
            1 => 1,
            2 => 1 << 40,
            _ => t.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (t << 29),
        })
        // Bit 14 of every half clear: the f16 halves are finite.
        .map(|x| x & !0x4000_4000_4000_4000)
        .collect();
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut bufs = vec![vec![0u8; 4 * 16 * 32], input];
    launch("pack", "pack", &mut bufs, 1, 32);
    let got = words(&bufs[0]);
    let h = |bits: u32| f16::from_bits(bits as u16);
    for (t, &x) in xs.iter().enumerate() {
        let (lo, hi) = (x as u32, (x >> 32) as u32);
        let rot = x.rotate_left(13);
        let lanes = |f: &dyn Fn(f16, f16) -> f16| -> u32 {
            let l0 = f(h(lo), h(hi)).to_bits() as u32;
            let l1 = f(h(lo >> 16), h(hi >> 16)).to_bits() as u32;
            l0 | l1 << 16
        };
        // f16 fma: the exact a*b+c (in f64) rounded once.
        let fma = lanes(&|a, b| f16::from_f64(f64::from(a).mul_add(f64::from(b), f64::from(a))));
        let neg_abs = -f16::from_f32(h(lo >> 16).to_f32().abs());
        let bytes: Vec<u8> =
            hi.to_le_bytes().iter().zip([1u8, 2, 3, 200]).map(|(a, b)| a.wrapping_add(b)).collect();
        let want: [u32; 14] = [
            lo.rotate_left(hi % 32),
            ((u64::from(hi) << 32 | u64::from(lo)) >> (hi % 32)) as u32,
            rot as u32,
            (rot >> 32) as u32,
            fma,
            (hi & 0xffff_0000) | u32::from(neg_abs.to_bits()),
            0, // min, below
            u32::from((lo as u16).swap_bytes()),
            x.swap_bytes() as u32,
            x.trailing_zeros(),
            (((x << 40) as i64) >> 7) as u32,
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            u32::from(x > 1000),
            ((x as f64 * 0.5) as u64) as u32,
        ];
        let row = &got[16 * t..16 * t + 14];
        for k in (0..14).filter(|&k| k != 6) {
            assert_eq!(row[k], want[k], "thread {t} (x = {x:#x}) result {k}");
        }
        // minnum per lane; equal values (signed zeros) may give either.
        for l in 0..2 {
            let (a, b, g) = (h(lo >> (16 * l)), h(hi >> (16 * l)), h(row[6] >> (16 * l)));
            let ok =
                if a == b { g == a } else { g.to_bits() == if a < b { a } else { b }.to_bits() };
            assert!(ok, "thread {t}: min lane {l} of {a} and {b} gives {g}");
        }
    }
}

/// `rounding`: directed rounding where the f64 value of the exact result is not enough
/// (sums of far-apart magnitudes, fused products), f64 directed rounding, the approximate
/// functions (`div.approx`, `div.full`, `sqrt.approx`, `rsqrt`, `ex2`, `lg2`, `sin`, `cos`),
/// `rcp.rn`, `cvt.sat`, `min.NaN` and `prmt` with a selector in a register.
#[test]
fn rounding_modes_and_approximations() {
    let p = |e: i32| 2f32.powi(e);
    let pd = |e: i32| 2f64.powi(e);
    let input = [
        1.0,
        p(-30),
        p(-60),
        -p(-60),
        1.0 + p(-23),
        1.0 - p(-23),
        0.0,
        p(-70),
        3.0,
        16_777_215.0,
        1.5,
        -2.0,
        0.3,
        f32::NAN,
    ];
    let input_d = [1.0, pd(-80), 1.0 + pd(-52), 1.0 - pd(-52), 0.0];
    let mut bufs = vec![
        vec![0u8; 4 * 24],
        bytes_of_f32(&input),
        vec![0u8; 8 * 4],
        input_d.iter().flat_map(|x: &f64| x.to_le_bytes()).collect(),
    ];
    launch("misc", "rounding", &mut bufs, 1, 1);
    let r = floats(&bufs[0]);
    let exact = [
        (0, 1.0),
        (1, 1.0 + p(-23)),
        (2, 1.0 - p(-24)),
        (3, -1.0),
        (4, 1.0 - p(-24)),
        (5, 1.0),
        (6, 1.0),
        (7, 1.0 + p(-23)),
        (8, f32::from_bits(0x3EAA_AAAA)),
        (9, f32::from_bits(0x3EAA_AAAB)),
        (10, 25_165_822.0),
        (13, 1.0 / 3.0),
        (20, 1.0),
        (21, 0.0),
    ];
    for (k, w) in exact {
        assert_eq!(r[k].to_bits(), w.to_bits(), "result {k}: {:e}, expected {w:e}", r[k]);
    }
    let near = [
        (11, 1.0 / 3.0),
        (12, 0.3f32 / 3.0),
        (14, 3f32.sqrt()),
        (15, 1.0 / 3f32.sqrt()),
        (16, 0.3f32.exp2()),
        (17, 3f32.log2()),
    ];
    for (k, w) in near {
        assert!(ulps(r[k], w) <= 2, "result {k}: {:e}, expected {w:e}", r[k]);
    }
    assert!((r[18] - 0.3f32.sin()).abs() < 1e-6 && (r[19] - 0.3f32.cos()).abs() < 1e-6);
    assert!(r[22].is_nan(), "min.NaN(1, NaN)");
    // prmt with selector 0x7507: bytes 7, 0, 5, 7 of b:a.
    let ab = u64::from(0.3f32.to_bits()) << 32 | u64::from(16_777_215f32.to_bits());
    let byte = |k: u64| (ab >> (8 * k)) & 0xff;
    let want = byte(7) | byte(0) << 8 | byte(5) << 16 | byte(7) << 24;
    assert_eq!(u64::from(r[23].to_bits()), want, "prmt");
    let d: Vec<f64> = bufs[2]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    assert_eq!(d[0], 1.0 + pd(-52), "add.rp.f64");
    assert_eq!(d[1], 1.0 - pd(-53), "fma.rm.f64");
    assert_eq!(d[2], 1.0 + pd(-51) + pd(-52), "mul.rp.f64");
    assert_eq!(d[3], 1.0 + pd(-51), "mul.rm.f64");
}

/// `generic`: generic pointer parameters (`cvta.to.global`), and a device function that
/// updates memory through generic pointers to shared (`cvta.shared`), local
/// (`cvta.local`) and global (`cvta.global`) memory; two warps.
#[test]
fn generic_addresses_through_calls() {
    let n = 64u32;
    let v: Vec<u32> = (0..n).map(|t| t * 3 + 1).collect();
    let mut bufs = vec![vec![0u8; 4 * n as usize], bytes_of_u32(&v)];
    launch("misc", "generic", &mut bufs, 1, n);
    let out = words(&bufs[0]);
    for t in 0..n as usize {
        let o = t ^ 1;
        let slot = o as u32 + v[o];
        let want = slot.wrapping_mul(1_000_000) + (100 + v[t]) * 1000 + 1000 + v[t];
        assert_eq!(out[t], want, "thread {t}");
    }
}

/// What the emulator does not run is an error, never a panic: recursion, a call to a
/// function without a body, and indirect calls (`.callprototype`, rejected by the parser).
#[test]
fn unsupported_forms_are_errors() {
    let opts = EmuOptions::default();
    let mut bufs = vec![vec![0u8; 4]];
    let e = run(fixture("misc"), "recursive", &mut bufs, [1, 1, 1], [4, 1, 1], &opts);
    match e {
        Err(e) => {
            assert_eq!(e.kind, EmuErrorKind::Unsupported, "{e}");
            assert!(e.message.contains("recursive"), "{e}");
            assert!(e.line.is_some(), "{e}");
        }
        Ok(()) => panic!("recursion ran"),
    }
    let e = run(fixture("ext"), "external", &mut bufs, [1, 1, 1], [1, 1, 1], &opts);
    match e {
        Err(e) => {
            assert_eq!(e.kind, EmuErrorKind::Unsupported, "{e}");
            assert!(e.message.contains("elsewhere"), "{e}");
        }
        Ok(()) => panic!("an undefined function ran"),
    }
    let indirect = fixture("calls").replace(
        "	{ // callseq 0, 0",
        "	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);\n	{",
    );
    let e = run(&indirect, "calls", &mut bufs, [1, 1, 1], [1, 1, 1], &opts);
    assert_eq!(e.map_err(|e| e.kind), Err(EmuErrorKind::Parse));
}

/// `extra`: relaxed atomic loads and stores (`ld.volatile`/`st.volatile`), a switch
/// lowered to a tree of branches, `atom.global.add.noftz.f16` and bf16 conversions.
#[test]
fn volatile_switch_f16_atomics_and_bf16() {
    use half::f16;
    let n = 64usize;
    let v: Vec<i32> = (0..n as i32).map(|t| t * 5 % 9 - 2).collect();
    let init = f16::from_f32(0.5).to_bits();
    let mut bufs = vec![
        vec![0u8; 4 * 2 * n],
        bytes_of_u32(&v.iter().map(|&x| x as u32).collect::<Vec<_>>()),
        init.to_le_bytes().to_vec(),
    ];
    launch("extra", "extra", &mut bufs, 1, n as u32);
    let out = words(&bufs[0]);
    for t in 0..n {
        let s = 2 * v[t];
        let want = if (0..7).contains(&s) { [10, 21, 32, 43, 54, 65, 76][s as usize] } else { 99 };
        assert_eq!(out[t], want, "thread {t}: switch on {s}");
        assert_eq!(f32::from_bits(out[n + t]), v[t] as f32 + 1.5, "thread {t}: bf16");
    }
    // Two f16 atomic adds of every value (all sums are exact in f16).
    let sum = 0.5 + 2.0 * v.iter().map(|&x| x as f32).sum::<f32>();
    assert_eq!(f16::from_bits(u16::from_le_bytes([bufs[2][0], bufs[2][1]])).to_f32(), sum);
}

/// What a back end does with LLVM's output: parse, rename the kernel parameters
/// (`calls_param_0` -> `p_g0_b0`), print. The printed module, and the model itself
/// (`run_module`), run as the original does (whose results the tests above check against
/// Rust).
#[test]
fn renamed_and_printed_modules_run_the_same() {
    for (file, entry, inputs, out_len, block) in [
        ("calls", "calls", bytes_of_f32(&[1.5, -2.0, 0.25, 3.0]), 64, 4),
        ("misc", "generic", bytes_of_u32(&[5, 6, 7, 8]), 16, 4),
    ] {
        let mut m = dianran_ptx::parse_module(fixture(file)).unwrap_or_else(|e| panic!("{e}"));
        let Some(e) = m.entries.iter_mut().find(|e| e.name == entry) else { panic!("{entry}") };
        for k in 0..e.params.len() {
            let (from, to) = (format!("{entry}_param_{k}"), format!("p_g0_b{k}"));
            assert_eq!(e.rename_symbol(&from, &to), 2, "{file}: {from} is declared and read once");
        }
        let printed = dianran_ptx::print_module(&m).unwrap_or_else(|e| panic!("{e}"));
        assert!(!printed.contains(&format!("{entry}_param_")), "{printed}");
        let opts = EmuOptions::default();
        let mut a = vec![vec![0u8; out_len], inputs.clone()];
        let mut b = a.clone();
        launch(file, entry, &mut a, 1, block);
        if let Err(e) = run(&printed, entry, &mut b, [1, 1, 1], [block, 1, 1], &opts) {
            panic!("{file}: {e}\n{printed}");
        }
        assert_eq!(a, b, "{file}");
        // The model itself runs too (no text).
        let mut c = vec![vec![0u8; out_len], inputs];
        let r = dianran_verify::emu::run_module(&m, entry, &mut c, [1, 1, 1], [block, 1, 1], &opts);
        if let Err(e) = r {
            panic!("{file}: {e}");
        }
        assert_eq!(a, c, "{file}");
    }
}
