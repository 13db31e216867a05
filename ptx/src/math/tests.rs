//! Accuracy of the native evaluation against f64 references over a sweep of the f32 range
//! (the emitted PTX computes the same bits; `verify/tests/math_accuracy.rs` checks that on the
//! PTX emulator). `exhaustive` (ignored by default) sweeps all 2^32 inputs.

use super::*;

use super::accuracy::{reference, reference2, steps_from_rounded, ulp_error};

/// The worst results of one function over a set of inputs, by both measures the bound is
/// checked with.
#[derive(Clone, Copy, Debug)]
struct Worst {
    /// Largest distance in f32 steps from the correctly rounded result (the documented bound's
    /// measure, docs/math.md), and the input where it occurs.
    steps: (u64, [f32; 2]),
    /// Largest error against the exact value in fractional ulps, and its input.
    exact: (f64, [f32; 2]),
}

impl Worst {
    const NONE: Worst = Worst { steps: (0, [0.0; 2]), exact: (0.0, [0.0; 2]) };

    /// Records `fun(args)` (a failed evaluation counts as NaN, so as infinitely wrong).
    fn add(&mut self, fun: M, args: [f32; 2], unary: bool) {
        let (got, exact) = if unary {
            (eval(fun, &args[..1]).unwrap_or(f32::NAN), reference(fun, f64::from(args[0])))
        } else {
            (
                eval(fun, &args).unwrap_or(f32::NAN),
                reference2(fun, f64::from(args[0]), f64::from(args[1])),
            )
        };
        let steps = steps_from_rounded(got, exact);
        if steps > self.steps.0 {
            self.steps = (steps, args);
        }
        let e = ulp_error(got, exact);
        if e > self.exact.0 || (e.is_nan() && !self.exact.0.is_nan()) {
            self.exact = (e, args);
        }
    }

    /// The worse of two partial results, measure by measure.
    fn merge(self, o: Worst) -> Worst {
        Worst {
            steps: if o.steps.0 > self.steps.0 { o.steps } else { self.steps },
            exact: if o.exact.0 > self.exact.0 { o.exact } else { self.exact },
        }
    }

    /// One report line: both measures with the inputs where they occur, and the bound.
    fn line(&self, fun: M, unary: bool) -> String {
        let at = |a: [f32; 2]| {
            if unary {
                format!("{:e} ({:#010x})", a[0], a[0].to_bits())
            } else {
                format!(
                    "({:e}, {:e}) ({:#010x}, {:#010x})",
                    a[0],
                    a[1],
                    a[0].to_bits(),
                    a[1].to_bits()
                )
            }
        };
        format!(
            "{fun:?}: {} steps from the correctly rounded result at {}; {:.3} ulp from exact at {}; bound {}",
            self.steps.0,
            at(self.steps.1),
            self.exact.0,
            at(self.exact.1),
            bound(fun).map_or(0.0, |b| b.ulp),
        )
    }

    /// Whether the documented bound holds: at most `ulp` steps from the correctly rounded
    /// result, and (what the sweeps have always held, stricter than the + 0.5 the step bound
    /// implies) at most `ulp` from the exact value.
    fn within(&self, fun: M) -> bool {
        let ulp = bound(fun).map_or(0.0, |b| b.ulp);
        self.steps.0 as f64 <= f64::from(ulp) && self.exact.0 <= f64::from(ulp)
    }
}

/// Special inputs every unary sweep includes.
const SPECIALS: [f32; 9] =
    [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0, -1.0, 0.5, -0.5];

/// Measures `fun` on the bit patterns `start, start + step, ...` below 2^32.
fn scan(fun: M, start: u64, step: u64, below: f32) -> Worst {
    let mut w = Worst::NONE;
    let mut b = start;
    while b < 1u64 << 32 {
        let x = f32::from_bits(b as u32);
        // No limit keeps every pattern; NaNs stay too.
        if below.is_infinite() || x.is_nan() || x.abs() < below {
            w.add(fun, [x, 0.0], true);
        }
        b += step;
    }
    w
}

/// Measures `fun` on every `stride`-th bit pattern below `below` in magnitude, on all cores
/// (`stride` 1, `below` infinite: all 2^32 inputs), plus [`SPECIALS`].
fn sweep(fun: M, stride: u64, below: f32) -> Worst {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let mut w = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..threads)
            .map(|t| sc.spawn(move || scan(fun, t * stride, threads * stride, below)))
            .collect();
        // A panicking worker is a failed measurement: infinitely wrong, so the check fails.
        let failed =
            Worst { steps: (u64::MAX, [f32::NAN; 2]), exact: (f64::INFINITY, [f32::NAN; 2]) };
        hs.into_iter().map(|h| h.join().unwrap_or(failed)).fold(Worst::NONE, Worst::merge)
    });
    for x in SPECIALS {
        w.add(fun, [x, 0.0], true);
    }
    w
}

/// Sweeps every one-argument function of [`BOUNDS`] (those `only` names, when given) with
/// `stride` below `below` in magnitude and fails naming each function over its bound, with
/// the worst input.
fn check_unary_functions(stride: u64, only: Option<&str>, below: f32) {
    let mut report = String::new();
    let mut bad = Vec::new();
    let mut ran = 0;
    for b in BOUNDS {
        if matches!(b.fun, M::Pow | M::Atan2) {
            continue;
        }
        if let Some(list) = only {
            if !list.split(',').any(|n| n.trim() == format!("{:?}", b.fun)) {
                continue;
            }
        }
        ran += 1;
        let w = sweep(b.fun, stride, below);
        let line = w.line(b.fun, true);
        eprintln!("{line}");
        if !w.within(b.fun) {
            bad.push(line.clone());
        }
        report.push_str(&line);
        report.push('\n');
    }
    assert!(ran > 0, "no function matches DIANRAN_MATH={only:?}");
    assert!(bad.is_empty(), "over their bounds:\n{}\n\nall:\n{report}", bad.join("\n"));
}

#[test]
fn unary_functions_meet_their_bounds_on_a_sweep() {
    check_unary_functions(4093, None, f32::INFINITY);
}

#[test]
fn the_bound_check_fails_on_an_error() {
    // The check itself must be able to fail: log(1) = 0 exactly, and a result two steps
    // from 0 breaks log's 1-ulp bound by both measures.
    let mut w = Worst::NONE;
    w.add(M::Log, [1.0, 0.0], true);
    assert!(w.within(M::Log), "{}", w.line(M::Log, true));
    let two_off = f32::from_bits(2);
    w.steps = (steps_from_rounded(two_off, 0.0), [1.0, 0.0]);
    w.exact = (ulp_error(two_off, 0.0), [1.0, 0.0]);
    assert_eq!(w.steps.0, 2);
    assert!(!w.within(M::Log), "{}", w.line(M::Log, true));
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
        let mut w = Worst::NONE;
        for &(a, b) in &list {
            w.add(fun, [a, b], false);
        }
        let line = w.line(fun, false);
        if !w.within(fun) {
            bad.push(line.clone());
        }
        report.push_str(&line);
        report.push('\n');
    }
    eprintln!("{report}");
    assert!(bad.is_empty(), "over their bounds:\n{}\n\nall:\n{report}", bad.join("\n"));
}

/// All 2^32 inputs of every one-argument function (an hour or more per function on two
/// cores): `cargo test --release -p dianran-ptx --lib exhaustive -- --ignored --nocapture`;
/// `DIANRAN_MATH=Tanh,Cos` limits it to those functions, `DIANRAN_MATH_STEP=257` checks every
/// 257th input only (a minute for all functions), `DIANRAN_MATH_BELOW=105615` the inputs
/// below that magnitude only (a change to one range's algorithm).
#[test]
#[ignore]
fn exhaustive() {
    let var = |name: &str| std::env::var(name).ok();
    let step = var("DIANRAN_MATH_STEP").and_then(|s| s.parse().ok()).unwrap_or(1);
    let below = var("DIANRAN_MATH_BELOW").and_then(|s| s.parse().ok()).unwrap_or(f32::INFINITY);
    check_unary_functions(step, var("DIANRAN_MATH").as_deref(), below);
}
