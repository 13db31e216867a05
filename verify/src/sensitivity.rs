//! Judging a disagreement by the kernel's own sensitivity to math error.
//!
//! A fixed ulp bound cannot tell a miscompile from a kernel that amplifies legitimate math
//! error: `500 * (pow(x, 1/3) - pow(y, 1/3))` of `x`, `y` near 1 turns a 1-ulp difference of
//! `pow` into about 30 ulp of the result. So when an executor's values fail the bound of its
//! class ([`crate::agree::precision_for`]) and the kernel uses math builtins that are not
//! correctly rounded ([`crate::agree::has_inexact_math`]), `dianran verify` reruns the
//! reference interpreter [`SEEDS`]`.len()` times with every such result moved by a
//! pseudo-random whole number of ulps in `[-u, +u]` ([`crate::interp::MathNudge`]), `u` being
//! the executor's documented math error ([`math_error`]). Per float value it takes the largest
//! change of those reruns from the reference, `d`, and accepts the executor's value when
//!
//! `|other - reference| <= bound + FACTOR * d`   ([`FACTOR`] = 2)
//!
//! The factor 2: when a value depends on one math result through a smooth function `g`, its
//! change is `|g'| k` ulps for the drawn move `k`; the executor may be off by the whole bound
//! `u`, and the largest `|k|` of eight uniform draws from `[-u, u]` reaches `u / 2` with
//! probability 1 - 2^-8, so `2 d` covers `|g'| u` in all but about 0.4% of cases (nearly
//! always when several math results feed the value, since their moves add up). A value the reruns do not
//! move at all gets no slack: a wrong result where the kernel does not amplify math error is
//! still reported. A rerun that the interpreter cannot finish (a moved value drove an index
//! out of range) is left out. The reruns happen only after a failed comparison: they cost eight
//! interpreter runs.

use crate::agree::{float_value, paired_slots, Slack, SlackUse};
use crate::buffers::Buffers;
use crate::executors::{runs_llvm_ptx, runs_our_ptx, Executor, Job};
use crate::interp::{InterpOptions, MathNudge, MathUlps};
use crate::texture::{entry_handles, TextureBindings};

/// The seeds of the nudged reruns: eight, so that the largest move drawn is at least half the
/// bound except with probability about 2^-8 (module doc).
pub const SEEDS: [u64; 8] = [
    0x5EED_0001,
    0x5EED_0002,
    0x5EED_0003,
    0x5EED_0004,
    0x5EED_0005,
    0x5EED_0006,
    0x5EED_0007,
    0x5EED_0008,
];

/// The factor on the largest change of the reruns (module doc).
pub const FACTOR: f64 = 2.0;

/// dianran's precise PTX math library and libdevice (the LLVM executors): `docs/math.md`
/// bounds every f32 function by 4 ulp (`pow`, `tan`, `acosh`; 1 to 3 for the others, as
/// CUDA documents for its own), every f16 function by 1 f16 ulp, and the f64 functions by one
/// step from glibc (what the interpreter computes).
pub const PRECISE: MathUlps = MathUlps { f16: 1, f32: 4, f64: 1 };

/// `--fast-math` PTX: the class bound 2^-11 relative (`tanh.approx`, the weakest documented
/// instruction) is 2^12 f32 ulps; f16 gets 2^-8 relative, 4 f16 ulps. f64 math has no
/// approximate form.
pub const FAST: MathUlps = MathUlps { f16: 4, f32: 4096, f64: 1 };

/// Vulkan (lavapipe): its minimum precision is absolute for `sin`/`cos` (2^-11) and
/// `3 + 2|x|` ulp for `exp`, inherited by `pow`; `verify` holds lavapipe to 2^-11 relative
/// (2^12 f32 ulps, 4 f16 ulps), and the nudge uses the same. GLSL has no f64 transcendentals
/// (lavapipe is skipped for f64 math).
pub const VULKAN: MathUlps = MathUlps { f16: 4, f32: 4096, f64: 1 };

/// The documented math error of `exec`'s math builtins (`fast_math`: the PTX was compiled with
/// `--fast-math`); `None` for the interpreter, the reference.
pub fn math_error(exec: Executor, fast_math: bool) -> Option<MathUlps> {
    if exec == Executor::Interp {
        None
    } else if runs_our_ptx(exec) && fast_math {
        Some(FAST)
    } else if runs_our_ptx(exec) || runs_llvm_ptx(exec) {
        Some(PRECISE)
    } else {
        Some(VULKAN)
    }
}

/// How far the nudged reruns moved each float value from the reference.
#[derive(Clone, Debug, Default)]
pub struct Sensitivity {
    /// The largest move of every math result.
    pub ulps: MathUlps,
    /// Reruns the interpreter finished.
    pub reruns: usize,
    /// Largest change of each buffer value that changed (absolute; infinite where a rerun
    /// made it NaN or infinite).
    pub buffers: Slack,
    /// The same for the channels of writable storage textures, by channel index.
    pub texels: Slack,
}

/// Runs the interpreter once per seed of [`SEEDS`] with math results moved by up to `ulps`,
/// and records how far each float value of the buffers and storage textures moved from
/// `reference` (`ref_textures`).
pub fn measure(
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
    reference: &Buffers,
    ref_textures: &TextureBindings,
    ulps: MathUlps,
) -> Sensitivity {
    let mut out = Sensitivity { ulps, ..Default::default() };
    for seed in SEEDS {
        let opts = InterpOptions {
            subgroup_size: job.subgroup_size,
            math_nudge: Some(MathNudge { seed, ulps }),
            ..Default::default()
        };
        let (mut bufs, mut tex) = (input.clone(), textures.clone());
        let run = crate::interp::run_with_textures(
            job.module,
            job.entry,
            job.dispatch,
            &mut bufs,
            &mut tex,
            &opts,
        );
        if run.is_err() {
            continue;
        }
        out.reruns += 1;
        if let Ok(pairs) = paired_slots(job.module, job.entry, reference, &bufs) {
            for (key, s, (at, r), (_, o)) in pairs {
                if let (Some(r), Some(o)) = (float_value(s, r), float_value(s, o)) {
                    record(&mut out.buffers, (key, at), r, o);
                }
            }
        }
        texel_changes(job, ref_textures, &tex, &mut out.texels);
    }
    out
}

/// A failed comparison (`diff`) judged again by the kernel's sensitivity to math error: when
/// `exec` has a documented math error and the kernel uses math builtins that are not
/// correctly rounded, measures the sensitivity (reruns of the interpreter on `input` and
/// `textures`, against `reference`) and runs `compare` with it, whose slack use becomes the
/// note; otherwise `diff` stands. A disagreement that remains says it is beyond the
/// sensitivity.
pub fn judge<T>(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
    reference: (&Buffers, &TextureBindings),
    diff: String,
    compare: impl FnOnce(&Sensitivity) -> Result<(T, SlackUse), String>,
) -> Result<(T, String), String> {
    let ulps = math_error(exec, job.fast_math)
        .filter(|_| crate::agree::has_inexact_math(job.module))
        .ok_or(diff)?;
    let sens = measure(job, input, textures, reference.0, reference.1, ulps);
    let (t, used) = compare(&sens).map_err(|d| sens.beyond(d))?;
    Ok((t, sens.note(used)))
}

/// Records in `slack` the change from `r` to `o` at `slot` when it is the largest so far.
fn record(slack: &mut Slack, slot: ((u32, u32), u32), r: f64, o: f64) {
    let change = if r == o || (r.is_nan() && o.is_nan()) {
        return;
    } else if r.is_finite() && o.is_finite() {
        (r - o).abs()
    } else {
        f64::INFINITY
    };
    let e = slack.entry(slot).or_insert(0.0);
    *e = e.max(change);
}

/// The changes of float channels of the entry's writable storage textures.
fn texel_changes(
    job: &Job<'_>,
    reference: &TextureBindings,
    other: &TextureBindings,
    slack: &mut Slack,
) {
    let Ok(handles) = entry_handles(job.module, job.entry) else { return };
    for h in handles.iter().filter(|h| h.is_writable()) {
        let key = (h.group, h.binding);
        let (Some(r), Some(o)) = (reference.textures.get(&key), other.textures.get(&key)) else {
            continue;
        };
        let ch = r.format.channel();
        let Some(s) = ch.float_scalar() else { continue };
        let size = ch.bytes();
        for (i, (rb, ob)) in r.data.chunks(size).zip(o.data.chunks(size)).enumerate() {
            if let (Some(rv), Some(ov)) = (float_value(s, rb), float_value(s, ob)) {
                record(slack, (key, i as u32), rv, ov);
            }
        }
    }
}

impl Sensitivity {
    /// The extra allowance of each buffer value: [`FACTOR`] times its largest change.
    pub fn buffer_slack(&self) -> Slack {
        self.buffers.iter().map(|(k, d)| (*k, FACTOR * d)).collect()
    }

    /// The extra allowance of each storage-texture channel.
    pub fn texel_slack(&self) -> Slack {
        self.texels.iter().map(|(k, d)| (*k, FACTOR * d)).collect()
    }

    /// The math error the reruns modelled, in words.
    pub fn describe(&self) -> String {
        let u = self.ulps;
        format!("{}-ulp math error (f16: {}, f64: {})", u.f32, u.f16, u.f64)
    }

    /// The note of an agreement that needed the allowance.
    pub fn note(&self, used: SlackUse) -> String {
        format!(
            "within the kernel's sensitivity to {}: {} values beyond the plain bound, the \
             largest {:.1e} ({:.0} ulp) from the reference, using at most {:.0}% of its \
             allowance",
            self.describe(),
            used.values,
            used.largest_diff,
            used.largest_ulps,
            100.0 * used.largest_share
        )
    }

    /// A disagreement that remains with the allowance.
    pub fn beyond(&self, diff: String) -> String {
        if self.reruns == 0 {
            return format!(
                "{diff} (the interpreter failed on every rerun with math results moved, so the \
                 kernel's sensitivity to math error is unknown)"
            );
        }
        format!("{diff} (beyond the kernel's sensitivity to {})", self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agree::{compare_except, Precision, Slots};
    use crate::executors::{compare_excused, Excuses};

    /// `f32` steps from `x` (positive `x`).
    fn steps(x: f32, k: i32) -> f32 {
        f32::from_bits(x.to_bits().wrapping_add_signed(k))
    }

    fn job<'a>(m: &'a dianran_frontend::ir::Module, src: &'a str) -> Job<'a> {
        Job::new("s.wgsl", src, m, "main", [1, 1, 1])
    }

    fn floats(b: &[u8]) -> Vec<f32> {
        b.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    fn bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// `1000 (cbrt(a) - b)` with `b` the cube root of `a` rounded to f32: the difference of
    /// two nearly equal numbers, so one ulp of `pow` is about 6e-5 of the result.
    const CANCEL: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32, 64>;
@group(0) @binding(1) var<storage, read> b: array<f32, 64>;
@group(0) @binding(2) var<storage, read_write> out: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = 1000.0 * (pow(a[i], 1.0 / 3.0) - b[i]);
}
";

    /// Inputs of [`CANCEL`]: `a` in [0.5, 1), `b` its cube root (f64, rounded to f32).
    fn cancel_input() -> (Vec<f32>, Buffers) {
        let a: Vec<f32> = (0..64).map(|i| 0.5 + i as f32 / 128.0).collect();
        let b: Vec<f32> = a.iter().map(|&x| f64::from(x).cbrt() as f32).collect();
        let input: Buffers =
            [((0, 0), bytes(&a)), ((0, 1), bytes(&b)), ((0, 2), vec![0; 256])].into();
        (a, input)
    }

    #[test]
    fn nudges_move_only_inexact_math_and_stay_within_the_bound() {
        let src = "
@group(0) @binding(0) var<storage, read_write> out: array<f32, 2>;
@compute @workgroup_size(1)
fn main() {
    let x = out[0];
    out[0] = sqrt(x);
    out[1] = exp(x);
}
";
        let m = dianran_frontend::compile("n.wgsl", src, &Default::default()).unwrap();
        let input: Buffers = [((0, 0), bytes(&[2.0, 0.0]))].into();
        let mut moved = Vec::new();
        for seed in SEEDS {
            let mut bufs = input.clone();
            let opts = InterpOptions {
                math_nudge: Some(MathNudge { seed, ulps: PRECISE }),
                ..Default::default()
            };
            crate::interp::run(&m, "main", [1, 1, 1], &mut bufs, &opts).unwrap();
            let got = floats(&bufs[&(0, 0)]);
            // sqrt is correctly rounded everywhere: never moved.
            assert_eq!(got[0], 2.0f32.sqrt());
            let k = got[1].to_bits() as i64 - 2.0f32.exp().to_bits() as i64;
            assert!(k.abs() <= 4, "exp moved by {k} ulp");
            moved.push(k);
        }
        assert!(moved.iter().any(|&k| k != 0), "{moved:?}");
    }

    #[test]
    fn cancellation_after_pow_is_accepted_through_the_kernels_sensitivity() {
        let m = dianran_frontend::compile("c.wgsl", CANCEL, &Default::default()).unwrap();
        let (a, input) = cancel_input();
        let job = job(&m, CANCEL);
        let mut reference = input.clone();
        crate::interp::run(&m, "main", [1, 1, 1], &mut reference, &Default::default()).unwrap();
        let want: Vec<f32> =
            a.iter().map(|&x| 1000.0 * (x.powf(1.0 / 3.0) - f64::from(x).cbrt() as f32)).collect();
        assert_eq!(floats(&reference[&(0, 2)]), want);
        // An executor whose pow is 2 ulp off (within the precise library's 4): 1000 * 2 ulp
        // of ~0.9 is 1.2e-4, far beyond 8 ulp or 1e-6 of a result near zero.
        let other = |ulps: i32| -> Buffers {
            let v: Vec<f32> = a
                .iter()
                .map(|&x| 1000.0 * (steps(x.powf(1.0 / 3.0), ulps) - f64::from(x).cbrt() as f32))
                .collect();
            let mut b = input.clone();
            b.insert((0, 2), bytes(&v));
            b
        };
        let two = other(2);
        let p = Precision::PreciseMath;
        assert!(compare_except(&m, "main", &reference, &two, p, &Slots::new()).is_err());
        let none = Excuses::default();
        let note = compare_excused(Executor::Emu, &job, &input, &reference, &two, &none)
            .unwrap_or_else(|d| panic!("{d}"))
            .unwrap_or_default();
        assert!(note.contains("within the kernel's sensitivity to 4-ulp math error"), "{note}");
        assert!(note.contains("64 values beyond the plain bound"), "{note}");
        // 40 ulp of pow is no legitimate error: rejected even here.
        let forty = other(40);
        let err =
            compare_excused(Executor::Emu, &job, &input, &reference, &forty, &none).unwrap_err();
        assert!(err.contains("beyond the kernel's sensitivity"), "{err}");
    }

    #[test]
    fn wrong_results_without_amplification_are_still_rejected() {
        let src = "
@group(0) @binding(0) var<storage, read> a: array<f32, 64>;
@group(0) @binding(1) var<storage, read_write> out: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = exp(a[i]) + inverseSqrt(a[i] + 2.0);
}
";
        let m = dianran_frontend::compile("w.wgsl", src, &Default::default()).unwrap();
        let a: Vec<f32> = (0..64).map(|i| -1.0 + i as f32 / 32.0).collect();
        let input: Buffers = [((0, 0), bytes(&a)), ((0, 1), vec![0; 256])].into();
        let mut reference = input.clone();
        crate::interp::run(&m, "main", [1, 1, 1], &mut reference, &Default::default()).unwrap();
        let job = job(&m, src);
        // Off by 1e-3 relative: the kernel moves its math error by at most a few ulp.
        let wrong: Vec<f32> =
            a.iter().map(|&x| (x.exp() + 1.0 / (x + 2.0).sqrt()) * 1.001).collect();
        let mut other = input.clone();
        other.insert((0, 1), bytes(&wrong));
        let none = Excuses::default();
        for exec in [Executor::Emu, Executor::LlvmEmu] {
            let err = compare_excused(exec, &job, &input, &reference, &other, &none).unwrap_err();
            assert!(err.starts_with("64 values differ"), "{err}");
            assert!(err.contains("beyond the kernel's sensitivity to 4-ulp"), "{err}");
        }
        // The measured sensitivity is a few ulp of each value, nowhere near 1e-3.
        let sens = measure(
            &job,
            &input,
            &TextureBindings::default(),
            &reference,
            &TextureBindings::default(),
            PRECISE,
        );
        assert_eq!(sens.reruns, SEEDS.len());
        let want = |at: u32| {
            let x = a[at as usize / 4];
            x.exp() + 1.0 / (x + 2.0).sqrt()
        };
        for (&((_, b), at), &d) in &sens.buffers {
            assert_eq!(b, 1);
            assert!(d <= 10.0 * f64::from(f32::EPSILON) * f64::from(want(at)), "{at}: {d}");
        }
    }

    #[test]
    fn math_error_per_executor() {
        assert_eq!(math_error(Executor::Interp, false), None);
        assert_eq!(math_error(Executor::Emu, false), Some(PRECISE));
        assert_eq!(math_error(Executor::Cuda, true), Some(FAST));
        assert_eq!(math_error(Executor::LlvmEmu, false), Some(PRECISE));
        assert_eq!(math_error(Executor::Lavapipe, false), Some(VULKAN));
        // 2^-11 relative is 2^12 f32 ulps and 4 f16 ulps.
        assert_eq!(f64::from(FAST.f32) * f64::from(f32::EPSILON), 1.0 / 2048.0);
        assert_eq!(f64::from(FAST.f16) * 2f64.powi(-10), 1.0 / 256.0);
    }
}
