//! Accuracy of the native evaluation against f64 references over a sweep of the f32 range
//! (the emitted PTX computes the same bits; `verify/tests/math_accuracy.rs` checks that on the
//! PTX emulator). `exhaustive` (ignored by default) sweeps all 2^32 inputs.

use super::*;

use super::accuracy::{reference, reference2, ulp_error};

/// Inputs: every `stride`-th bit pattern, plus specials.
fn sweep(stride: u64, mut f: impl FnMut(f32)) {
    let mut b: u64 = 0;
    while b < 1u64 << 32 {
        f(f32::from_bits(b as u32));
        b += stride;
    }
    for x in [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, -1.0, 0.5, -0.5] {
        f(x);
    }
}

fn check_unary(fun: M, stride: u64) -> (f64, f32) {
    let mut worst = (0.0f64, 0.0f32);
    sweep(stride, |x| {
        let got = eval(fun, &[x]).unwrap_or(f32::NAN);
        let e = ulp_error(got, reference(fun, f64::from(x)));
        if e > worst.0 {
            worst = (e, x);
        }
    });
    worst
}

#[test]
fn unary_functions_meet_their_bounds_on_a_sweep() {
    let mut report = String::new();
    let mut bad = Vec::new();
    for b in BOUNDS {
        if matches!(b.fun, M::Pow | M::Atan2) {
            continue;
        }
        let (e, x) = check_unary(b.fun, 4093);
        report.push_str(&format!("{:?}: max {e:.3} ulp at {x:e} ({:#010x})\n", b.fun, x.to_bits()));
        if e > f64::from(b.ulp) {
            bad.push(b.fun);
        }
    }
    eprintln!("{report}");
    assert!(bad.is_empty(), "over their bounds: {bad:?}\n{report}");
}

/// Pairs for the two-argument functions: a grid of bit patterns, integral and half-integral
/// exponents on negative bases, bases near 1 with large exponents, and pseudo-random pairs.
pub(crate) fn pairs(grid: u64, random: usize) -> Vec<(f32, f32)> {
    let mut v = Vec::new();
    let mut b = 0u64;
    let mut axis = Vec::new();
    while b < 1u64 << 32 {
        axis.push(f32::from_bits(b as u32));
        b += grid;
    }
    for &x in &axis {
        for &y in &axis {
            v.push((x, y));
        }
    }
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-45,
        f32::MAX,
        -f32::MAX,
        0.75,
        1.5,
    ];
    for &x in &specials {
        for &y in &specials {
            v.push((x, y));
        }
        for &y in &axis {
            v.push((x, y));
            v.push((y, x));
        }
    }
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in 0..random {
        let r = next();
        let x = f32::from_bits(r as u32);
        let y = match i % 4 {
            // integral exponents, negative bases
            0 => ((r >> 32) as i32 % 300) as f32,
            1 => (((r >> 32) as i32 % 600) as f32) * 0.5,
            // bases near 1, large exponents
            2 => f32::from_bits((r >> 32) as u32),
            _ => ((r >> 40) as f32) * 1e-3,
        };
        let x = if i % 4 == 2 { 1.0 + (x.to_bits() % 4096) as f32 * f32::EPSILON * 0.5 } else { x };
        v.push((x, y));
    }
    v
}

#[test]
fn binary_functions_meet_their_bounds_on_a_sweep() {
    let list = pairs(1 << 22, 200_000);
    let mut report = String::new();
    let mut bad = Vec::new();
    for fun in [M::Pow, M::Atan2] {
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for &(a, b) in &list {
            let got = eval(fun, &[a, b]).unwrap_or(f32::NAN);
            let e = ulp_error(got, reference2(fun, f64::from(a), f64::from(b)));
            if e > worst.0 {
                worst = (e, a, b);
            }
        }
        report.push_str(&format!(
            "{fun:?}: max {:.3} ulp at ({:e}, {:e})\n",
            worst.0, worst.1, worst.2
        ));
        if worst.0 > f64::from(bound(fun).map_or(0.0, |b| b.ulp)) {
            bad.push(fun);
        }
    }
    eprintln!("{report}");
    assert!(bad.is_empty(), "over their bounds: {bad:?}\n{report}");
}

/// All 2^32 inputs of every one-argument function (an hour or more per function on two
/// cores): `cargo test --release -p dianran-ptx --lib exhaustive -- --ignored --nocapture`;
/// `DIANRAN_MATH=Tanh,Cos` limits it to those functions.
#[test]
#[ignore]
fn exhaustive() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let only = std::env::var("DIANRAN_MATH").ok();
    for b in BOUNDS {
        if matches!(b.fun, M::Pow | M::Atan2) {
            continue;
        }
        if let Some(list) = &only {
            if !list.split(',').any(|n| n.trim() == format!("{:?}", b.fun)) {
                continue;
            }
        }
        let fun = b.fun;
        let parts: Vec<(f64, u32)> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    sc.spawn(move || {
                        let mut worst = (0.0f64, 0u32);
                        let mut i = t;
                        while i < 1u64 << 32 {
                            let x = f32::from_bits(i as u32);
                            let got = eval(fun, &[x]).unwrap_or(f32::NAN);
                            let e = ulp_error(got, reference(fun, f64::from(x)));
                            if e > worst.0 {
                                worst = (e, i as u32);
                            }
                            i += threads;
                        }
                        worst
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap_or((f64::INFINITY, 0))).collect()
        });
        let w = parts.iter().copied().fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        eprintln!(
            "{fun:?}: max {:.3} ulp at {:e} ({:#010x}), bound {}",
            w.0,
            f32::from_bits(w.1),
            w.1,
            b.ulp
        );
    }
}
