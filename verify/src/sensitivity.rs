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
//! `u`, and the largest `|k|` of four uniform draws from `[-u, u]` reaches `u / 2` with
//! probability 1 - 2^-4, so `2 d` covers `|g'| u` in about 94% of cases (nearly always when
//! several math results feed the value, since their moves add up). A value the reruns do not
//! move at all gets no slack: a wrong result where the kernel does not amplify math error is
//! still reported. A rerun that the interpreter cannot finish (a moved value drove an index
//! out of range) is left out. The reruns happen only after a failed comparison: they cost four
//! interpreter runs.

use crate::agree::{f64_of, paired_slots, Slack, SlackUse};
use crate::buffers::Buffers;
use crate::executors::{runs_llvm_ptx, runs_our_ptx, Executor, Job};
use crate::interp::{InterpOptions, MathNudge, MathUlps};
use crate::texture::{entry_handles, Channel, TextureBindings};
use dianran_frontend::ir::Scalar;

/// The seeds of the nudged reruns: four, so that the largest move drawn is at least half the
/// bound with probability 15/16 (module doc).
pub const SEEDS: [u64; 4] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003, 0x5EED_0004];

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
                let value = |b: &[u8]| match s {
                    Scalar::F32 => Some(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
                    Scalar::F16 => Some(f64::from(half::f16::from_le_bytes([b[0], b[1]]))),
                    Scalar::F64 => Some(f64_of(b)),
                    _ => None,
                };
                if let (Some(r), Some(o)) = (value(r), value(o)) {
                    record(&mut out.buffers, (key, at), r, o);
                }
            }
        }
        texel_changes(job, ref_textures, &tex, &mut out.texels);
    }
    out
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
        let value = |b: &[u8]| -> Option<f64> {
            let word = b.iter().rev().fold(0u32, |acc, &x| (acc << 8) | u32::from(x));
            match ch {
                Channel::F32 => Some(f64::from(f32::from_bits(word))),
                Channel::F16 => Some(f64::from(half::f16::from_bits(word as u16))),
                _ => None,
            }
        };
        let size = ch.bytes();
        for (i, (rb, ob)) in r.data.chunks(size).zip(o.data.chunks(size)).enumerate() {
            if let (Some(rv), Some(ov)) = (value(rb), value(ob)) {
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
