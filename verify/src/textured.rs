//! Running and comparing entry points that use textures: [`run_textured`] runs an executor
//! with textures and samplers bound next to the buffers, [`compare_textures`] compares the
//! storage textures two runs leave, and [`filter_slack`] is the extra absolute bound float
//! results get when they come from filtered sampling on an executor with CUDA's 8-bit filter
//! weights.
//!
//! The reference interpreter, our PTX on the emulator and through the CUDA driver (texture
//! objects and, for depth comparison, compare words: `docs/textures.md`) and lavapipe (the
//! input WGSL and the WGSL dianran prints) bind textures here; the LLVM executors report
//! [`ExecError::Skipped`] ([`run_textured`]).

use crate::agree::{
    float_value, floats_agree_within, values_agree_within, Precision, Slack, SlackUse,
};
use crate::buffers::Buffers;
use crate::executors::{ExecError, Executor, Job};
use crate::texture::{
    cuda_filter_tolerance, entry_handles, Channel, Filter, HandleKind, TextureBindings,
};
use dianran_frontend::ir::{self, Block, Op};

/// Runs `exec` on `input` buffers and `textures`; returns the buffers and the textures after
/// the run (storage textures updated). Without textures this is [`crate::executors::run`].
pub fn run_textured(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
) -> Result<(Buffers, TextureBindings), ExecError> {
    if textures.is_empty() {
        return crate::executors::run(exec, job, input).map(|b| (b, TextureBindings::default()));
    }
    let mut bufs = input.clone();
    let mut tex = textures.clone();
    match exec {
        Executor::Interp => {
            let opts = crate::interp::InterpOptions {
                subgroup_size: job.subgroup_size,
                ..Default::default()
            };
            crate::interp::run_with_textures(
                job.module,
                job.entry,
                job.dispatch,
                &mut bufs,
                &mut tex,
                &opts,
            )
            .map_err(|d| ExecError::Failed(d.message))?;
        }
        Executor::Emu => bufs = crate::executors::run_emu_textured(job, &bufs, &mut tex)?,
        Executor::Cuda => bufs = crate::executors::run_cuda_textured(job, &bufs, &mut tex)?,
        #[cfg(feature = "lavapipe")]
        Executor::Lavapipe => run_lavapipe_textured(job, &mut bufs, &mut tex)?,
        #[cfg(feature = "lavapipe")]
        Executor::LavapipeOut => run_lavapipe_out_textured(job, &mut bufs, &mut tex)?,
        other => {
            return Err(ExecError::Skipped(format!(
                "the {} executor does not bind textures",
                other.name()
            )))
        }
    }
    Ok((bufs, tex))
}

/// The input WGSL on lavapipe with buffers and textures bound (buffers as wgpu's automatic
/// layout of the source has them).
#[cfg(feature = "lavapipe")]
fn run_lavapipe_textured(
    job: &Job<'_>,
    bufs: &mut Buffers,
    tex: &mut TextureBindings,
) -> Result<(), ExecError> {
    if let Some(why) = crate::executors::lavapipe_skips(job, Executor::Lavapipe) {
        return Err(ExecError::Skipped(why));
    }
    if !job.overrides.is_empty() {
        return Err(ExecError::Skipped("lavapipe with textures takes no overrides".into()));
    }
    // The pipeline layout holds every buffer the entry uses in the *source* (a `_ = &buf;`
    // counts), as for buffer-only runs; extra ones are zeroed here and dropped afterwards.
    let given: Vec<(u32, u32)> = bufs.keys().copied().collect();
    let lava = crate::executors::source_bindings(job, bufs)?;
    let handles = entry_handles(job.module, job.entry).map_err(|d| ExecError::Failed(d.message))?;
    crate::lavapipe_textures::check(&handles, tex).map_err(ExecError::Skipped)?;
    crate::lavapipe::run_wgsl_textured(
        job.source,
        job.entry,
        job.dispatch,
        bufs,
        &lava,
        &handles,
        tex,
    )
    .map_err(|e| ExecError::Failed(e.to_string()))?;
    bufs.retain(|k, _| given.contains(k));
    Ok(())
}

/// The WGSL dianran prints for the module on lavapipe with buffers and textures bound
/// (buffers as the SSA module uses them: the printed text holds no others).
#[cfg(feature = "lavapipe")]
fn run_lavapipe_out_textured(
    job: &Job<'_>,
    bufs: &mut Buffers,
    tex: &mut TextureBindings,
) -> Result<(), ExecError> {
    use crate::lavapipe::{LavaBinding, LavaBindingKind};
    use dianran_frontend::ir::AddressSpace;
    if let Some(why) = crate::executors::lavapipe_skips(job, Executor::LavapipeOut) {
        return Err(ExecError::Skipped(why));
    }
    let opts = dianran_wgsl::Options { omit_subgroups_enable: true, portable_matrices: true };
    let text = dianran_wgsl::write_module(job.module, &opts).map_err(|ds| {
        let msgs: Vec<String> = ds.into_iter().map(|d| d.message).collect();
        ExecError::Failed(format!("printing WGSL failed: {}", msgs.join("; ")))
    })?;
    // wgpu knows the entry by its name in the printed text, which may escape it.
    let names = dianran_frontend::names::ModuleNames::new(job.module);
    let entry = job
        .module
        .entry_point(job.entry)
        .and_then(|e| names.functions.get(e.function.index()).cloned())
        .unwrap_or_else(|| job.entry.to_string());
    let bindings = crate::buffers::entry_bindings(job.module, job.entry)
        .map_err(|d| ExecError::Failed(d.message))?;
    let lava: Vec<LavaBinding> = bindings
        .iter()
        .filter(|b| b.space != AddressSpace::Immediate)
        .map(|b| LavaBinding {
            group: b.group,
            binding: b.binding,
            kind: match b.space {
                AddressSpace::Uniform => LavaBindingKind::Uniform,
                AddressSpace::Storage { writable } => {
                    LavaBindingKind::Storage { read_only: !writable }
                }
                _ => LavaBindingKind::Storage { read_only: false },
            },
        })
        .collect();
    let handles = entry_handles(job.module, job.entry).map_err(|d| ExecError::Failed(d.message))?;
    crate::lavapipe_textures::check(&handles, tex).map_err(ExecError::Skipped)?;
    crate::lavapipe::run_wgsl_textured(&text, &entry, job.dispatch, bufs, &lava, &handles, tex)
        .map_err(|e| ExecError::Failed(e.to_string()))
}

/// Compares the writable storage textures of `entry` in `other` with `reference`: float
/// channels under `p`, normalized channels within one step of their encoding (Vulkan lets
/// implementations round either way), integers exactly. Returns the first few differences
/// naming the binding, texel and channel.
pub fn compare_textures(
    m: &ir::Module,
    entry: &str,
    reference: &TextureBindings,
    other: &TextureBindings,
    p: Precision,
) -> Result<(), String> {
    compare_textures_within(m, entry, reference, other, p, &Slack::new()).map(|_| ())
}

/// [`compare_textures`], with float channels allowed to differ by their `slack` more (keyed by
/// ((group, binding), channel index)); also returns how many needed it.
pub fn compare_textures_within(
    m: &ir::Module,
    entry: &str,
    reference: &TextureBindings,
    other: &TextureBindings,
    p: Precision,
    slack: &Slack,
) -> Result<SlackUse, String> {
    let mut used = SlackUse::default();
    let handles = entry_handles(m, entry).map_err(|d| d.message)?;
    let mut diffs = Vec::new();
    let mut count = 0usize;
    for h in handles.iter().filter(|h| h.is_writable()) {
        let key = (h.group, h.binding);
        let (Some(r), Some(o)) = (reference.textures.get(&key), other.textures.get(&key)) else {
            return Err(format!("texture @group({}) @binding({}) is missing", h.group, h.binding));
        };
        if r.data.len() != o.data.len() {
            return Err(format!(
                "texture '{}' has {} bytes, expected {}",
                h.name,
                o.data.len(),
                r.data.len()
            ));
        }
        let ch = r.format.channel();
        let size = ch.bytes();
        for (i, (rb, ob)) in r.data.chunks(size).zip(o.data.chunks(size)).enumerate() {
            let word = |b: &[u8]| b.iter().rev().fold(0u32, |acc, &x| (acc << 8) | u32::from(x));
            let (rw, ow) = (word(rb), word(ob));
            let extra = slack.get(&(key, i as u32)).copied().unwrap_or(0.0);
            let floats =
                ch.float_scalar().and_then(|s| Some((s, float_value(s, rb)?, float_value(s, ob)?)));
            let ok = match ch {
                _ if floats.is_some() => floats.is_some_and(|(s, r, o)| {
                    values_agree_within(s, r, o, p, 0.0) || used.accept(s, r, o, p, extra)
                }),
                Channel::Unorm8 | Channel::Unorm16 => rw.abs_diff(ow) <= 1,
                Channel::Snorm8 => (rw as u8 as i8).abs_diff(ow as u8 as i8) <= 1,
                Channel::Snorm16 => (rw as u16 as i16).abs_diff(ow as u16 as i16) <= 1,
                _ => rw == ow,
            };
            if !ok {
                count += 1;
                if diffs.len() < 3 {
                    let texel = i / r.format.channels();
                    let c = ["r", "g", "b", "a"][i % r.format.channels()];
                    diffs.push(format!(
                        "texture {} (@group({}) @binding({})) texel {texel} channel {c}: expected {rw:#x} got {ow:#x}",
                        h.name, h.group, h.binding
                    ));
                }
            }
        }
    }
    if count == 0 {
        Ok(used)
    } else {
        Err(format!("{count} texel channels differ; {}", diffs.join("; ")))
    }
}

fn has_filtered_sample(b: &Block) -> bool {
    b.insts.iter().any(|i| {
        matches!(&i.op, Op::ImageSample { gather: None, .. })
            || i.op.blocks().iter().any(|b| has_filtered_sample(b))
    })
}

/// The absolute slack float results of `m` get on an executor that filters with CUDA's 8-bit
/// weights: 0 unless the module samples (not gathers) with some linear sampler of
/// `textures`; then [`cuda_filter_tolerance`] for three filtered dimensions over the spread
/// and magnitude of all float texels bound. Values computed from a sample later (scaled,
/// summed) may move further; the bound covers results that are the sample or a light
/// function of it.
pub fn filter_slack(m: &ir::Module, textures: &TextureBindings) -> f32 {
    let linear = textures
        .samplers
        .values()
        .any(|s| s.mag == Filter::Linear || s.min == Filter::Linear || s.mipmap == Filter::Linear);
    if !linear || !m.functions.iter().any(|f| has_filtered_sample(&f.body)) {
        return 0.0;
    }
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for t in textures.textures.values() {
        if t.format.kind() != crate::texture::SampleKind::Float {
            continue;
        }
        let bpt = t.format.bytes_per_texel();
        for texel in t.data.chunks(bpt) {
            for v in t.format.decode(texel).to_f32() {
                if v.is_finite() {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
    }
    if lo > hi {
        return 0.0;
    }
    cuda_filter_tolerance(hi - lo, lo.abs().max(hi.abs()), 3)
}

/// Compares the buffers of `entry` in `other` with `reference` like
/// [`crate::agree::compare_with`] under `p`, and lets `f32` values differ by `slack` more
/// (see [`filter_slack`]). Returns the first few differences.
pub fn compare_buffers(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
    slack: f32,
) -> Result<(), String> {
    compare_buffers_within(m, entry, reference, other, p, slack, &Slack::new()).map(|_| ())
}

/// [`compare_buffers`], with float values allowed to differ by their `math` slack more (keyed
/// by ((group, binding), byte offset)); also returns how many needed it.
pub fn compare_buffers_within(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
    slack: f32,
    math: &Slack,
) -> Result<SlackUse, String> {
    use dianran_frontend::ir::Scalar;
    let mut used = SlackUse::default();
    let bindings = crate::buffers::entry_bindings(m, entry).map_err(|d| d.message)?;
    let mut diffs = Vec::new();
    let mut count = 0usize;
    for b in bindings {
        let key = (b.group, b.binding);
        let (Some(r), Some(o)) = (reference.get(&key), other.get(&key)) else {
            return Err(format!("buffer @group({}) @binding({}) is missing", b.group, b.binding));
        };
        let len =
            b.runtime_stride.map_or(0, |s| (r.len() as u32).saturating_sub(b.size) / s.max(1));
        let mut list = Vec::new();
        crate::agree::slots(&m.types, b.ty, 0, len, &mut list);
        for sl in list {
            let at = sl.offset as usize;
            let n = sl.scalar.size() as usize;
            let (Some(rb), Some(ob)) = (r.get(at..at + n), o.get(at..at + n)) else { continue };
            let extra = math.get(&(key, sl.offset)).copied().unwrap_or(0.0);
            let floats = match sl.scalar {
                Scalar::F32 | Scalar::F16 => {
                    float_value(sl.scalar, rb).zip(float_value(sl.scalar, ob))
                }
                _ => None,
            };
            let ok = match floats {
                Some((x, y)) => {
                    let h = sl.scalar == Scalar::F16;
                    // The filter slack is f32 results' (module doc of `filter_slack`).
                    let filtered = f64::from(if h { 0.0 } else { slack });
                    let plain = floats_agree_within(x as f32, y as f32, h, p, 0.0)
                        || (!h && (x as f32 - y as f32).abs() <= slack);
                    plain || (extra > 0.0 && used.accept(sl.scalar, x, y, p, filtered + extra))
                }
                None => rb == ob,
            };
            if !ok {
                count += 1;
                if diffs.len() < 3 {
                    let show = |x: &[u8]| match (sl.scalar, x) {
                        (Scalar::F32, [a, b, c, d]) => {
                            format!("{:?}", f32::from_le_bytes([*a, *b, *c, *d]))
                        }
                        (Scalar::F16, [a, b]) => format!("{}", half::f16::from_le_bytes([*a, *b])),
                        (Scalar::I32, [a, b, c, d]) => {
                            format!("{}", i32::from_le_bytes([*a, *b, *c, *d]))
                        }
                        (_, [a, b, c, d]) => format!("{}", u32::from_le_bytes([*a, *b, *c, *d])),
                        _ => format!("{x:?}"),
                    };
                    diffs.push(format!(
                        "{} (@group({}) @binding({})) byte {at}: expected {} got {}",
                        b.name,
                        b.group,
                        b.binding,
                        show(rb),
                        show(ob)
                    ));
                }
            }
        }
    }
    if count == 0 {
        Ok(used)
    } else {
        Err(format!("{count} values differ; {}", diffs.join("; ")))
    }
}

/// Compares what `exec` left (`result`: buffers and textures) with the interpreter's
/// `reference`, as `dianran verify` does for textured entries: buffers under the executor's
/// bounds plus [`filter_slack`], storage textures with [`compare_textures`]. Values beyond
/// those are judged again by the kernel's sensitivity to math error
/// ([`crate::sensitivity`]), which reruns the interpreter with `input` and `textures`.
/// `Ok(Some(note))`: agree, with a note on the slack used.
pub fn compare_run_textured(
    exec: Executor,
    job: &Job<'_>,
    input: &Buffers,
    textures: &TextureBindings,
    reference: (&Buffers, &TextureBindings),
    result: (&Buffers, &TextureBindings),
) -> Result<Option<String>, String> {
    let (m, entry) = (job.module, job.entry);
    let p = crate::executors::precision_of(exec, job);
    let filtered = filter_slack(m, textures);
    let compare = |bufs: &Slack, texels: &Slack| -> Result<SlackUse, String> {
        let b = compare_buffers_within(m, entry, reference.0, result.0, p, filtered, bufs)?;
        let t = compare_textures_within(m, entry, reference.1, result.1, p, texels)?;
        Ok(b.merge(t))
    };
    let mut notes = Vec::new();
    if filtered > 0.0 {
        notes.push(format!("filtered samples within {filtered:e}"));
    }
    if let Err(diff) = compare(&Slack::new(), &Slack::new()) {
        let ((), note) =
            crate::sensitivity::judge(exec, job, input, textures, reference, diff, |sens| {
                Ok(((), compare(&sens.buffer_slack(), &sens.texel_slack())?))
            })?;
        notes.push(note);
    }
    Ok((!notes.is_empty()).then(|| notes.join("; ")))
}

/// Whether handle bindings of `entry` include textures or samplers.
pub fn uses_textures(m: &ir::Module, entry: &str) -> bool {
    entry_handles(m, entry).is_ok_and(|h| {
        h.iter().any(|h| matches!(h.kind, HandleKind::Texture { .. } | HandleKind::Sampler { .. }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::{build_textures, SamplerSpec, TextureSpec};

    const SRC: &str = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var o: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(3) var<storage, read_write> out: array<f32, 4>;
@compute @workgroup_size(1)
fn main() {
    let v = textureSampleLevel(t, s, vec2<f32>(0.3, 0.6), 0.0);
    out[0] = v.x;
    textureStore(o, vec2<i32>(1, 0), v);
}
";

    fn setup(sampler: &str) -> (ir::Module, TextureBindings) {
        let m = dianran_frontend::compile("t.wgsl", SRC, &Default::default()).unwrap();
        let tex = TextureSpec::parse("0:0=4x4:rgba16float").unwrap();
        let o = TextureSpec::parse("0:2=2x1:rgba8unorm").unwrap();
        let t = build_textures(&m, "main", &[tex, o], &[SamplerSpec::parse(sampler).unwrap()], 5)
            .unwrap();
        (m, t)
    }

    #[test]
    fn interp_runs_and_storage_textures_compare() {
        let (m, t) = setup("0:1=clamp-to-edge,nearest");
        let job = Job::new("t.wgsl", SRC, &m, "main", [1, 1, 1]);
        let input: Buffers = [((0, 3), vec![0u8; 16])].into_iter().collect();
        let (bufs, after) = run_textured(Executor::Interp, &job, &input, &t).unwrap();
        // Nearest at (0.3, 0.6) of 4x4: texel (1, 2).
        let want = t.textures[&(0, 0)].fetch([1, 2, 0], 0, 0).to_f32();
        assert_eq!(f32::from_le_bytes(bufs[&(0, 3)][..4].try_into().unwrap()), want[0]);
        let p = crate::agree::precision(&m, "main");
        assert_eq!(compare_textures(&m, "main", &after, &after, p), Ok(()));
        let mut off = after.clone();
        // One unorm step is allowed, two are not.
        let d = &mut off.textures.get_mut(&(0, 2)).unwrap().data;
        d[4] = d[4].wrapping_add(1);
        assert_eq!(compare_textures(&m, "main", &after, &off, p), Ok(()));
        let d = &mut off.textures.get_mut(&(0, 2)).unwrap().data;
        d[4] = d[4].wrapping_add(1);
        let e = compare_textures(&m, "main", &after, &off, p).unwrap_err();
        assert!(e.contains("texel 1 channel r"), "{e}");
    }

    /// Two entries binding different handles at one (group, binding), and a phony use of a
    /// buffer (`_ = &buf_in;`) that the SSA module drops but wgpu's automatic layout keeps
    /// (webgpu-samples' particles/probabilityMap.wgsl does both).
    const SHARED: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32, 4>;
@group(0) @binding(1) var<storage, read> buf_in: array<f32>;
@group(0) @binding(2) var tex_in: texture_2d<f32>;
@group(0) @binding(2) var tex_out: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(1)
fn load() {
    _ = &buf_in;
    out[0] = textureLoad(tex_in, vec2<i32>(1, 0), 0).w;
}
@compute @workgroup_size(1)
fn store() {
    textureStore(tex_out, vec2<i32>(1, 0), vec4<f32>(0.0, 0.2, 0.6, 1.0));
}
";

    fn shared_job<'a>(m: &'a ir::Module, entry: &'a str) -> Job<'a> {
        Job::new("shared.wgsl", SHARED, m, entry, [1, 1, 1])
    }

    #[test]
    fn interp_binds_the_entrys_own_handle_at_a_shared_binding() {
        let m = dianran_frontend::compile("shared.wgsl", SHARED, &Default::default()).unwrap();
        let spec = TextureSpec::parse("0:2=2x1:rgba8unorm").unwrap();
        let t = build_textures(&m, "store", &[spec], &[], 3).unwrap();
        let input: Buffers = [((0, 0), vec![0u8; 16])].into_iter().collect();
        let (_, after) =
            run_textured(Executor::Interp, &shared_job(&m, "store"), &input, &t).unwrap();
        // round(v * 255) of (0, 0.2, 0.6, 1) at texel 1 (bytes 4..8).
        assert_eq!(&after.textures[&(0, 2)].data[4..8], &[0, 51, 153, 255]);
    }

    #[test]
    fn lavapipe_gets_the_buffers_the_source_uses() {
        let Some(_device) = crate::lavapipe::test_device() else { return };
        let m = dianran_frontend::compile("shared.wgsl", SHARED, &Default::default()).unwrap();
        let spec = TextureSpec::parse("0:2=2x1:rgba8unorm").unwrap();
        let t = build_textures(&m, "load", &[spec], &[], 3).unwrap();
        // The SSA module's entry uses only `out`; wgpu's layout also wants `buf_in`.
        let input: Buffers = [((0, 0), vec![0u8; 16])].into_iter().collect();
        let job = shared_job(&m, "load");
        let (want, _) = run_textured(Executor::Interp, &job, &input, &t).unwrap();
        let (got, _) = run_textured(Executor::Lavapipe, &job, &input, &t).unwrap();
        assert_eq!(got.keys().collect::<Vec<_>>(), vec![&(0, 0)]);
        // The alpha of texel 1 (unorm8, exact in f32 after decoding either way).
        let alpha = f32::from(t.textures[&(0, 2)].data[7]) / 255.0;
        assert_eq!(f32::from_le_bytes(want[&(0, 0)][..4].try_into().unwrap()), alpha);
        // lavapipe decodes unorm8 as x * (1 / 255): within an ulp of x / 255.
        let lava = f32::from_le_bytes(got[&(0, 0)][..4].try_into().unwrap());
        assert!((lava - alpha).abs() <= f32::EPSILON, "{lava} vs {alpha}");
    }

    #[test]
    fn lavapipe_runs_the_printed_wgsl_with_textures() {
        let Some(_device) = crate::lavapipe::test_device() else { return };
        let m = dianran_frontend::compile("shared.wgsl", SHARED, &Default::default()).unwrap();
        let spec = TextureSpec::parse("0:2=2x1:rgba8unorm").unwrap();
        let t = build_textures(&m, "store", &[spec], &[], 3).unwrap();
        let input: Buffers = [((0, 0), vec![0u8; 16])].into_iter().collect();
        let (_, after) =
            run_textured(Executor::LavapipeOut, &shared_job(&m, "store"), &input, &t).unwrap();
        // Vulkan may round unorm encodings either way: within one step of (0, 51, 153, 255).
        let got = &after.textures[&(0, 2)].data[4..8];
        for (g, w) in got.iter().zip([0u8, 51, 153, 255]) {
            assert!(g.abs_diff(w) <= 1, "{got:?}");
        }
    }

    /// A storage texture written with `1000 (cbrt(a) - b)`, `b` the f32 cube root of `a`:
    /// one ulp of `pow` is about 6e-5 of the result.
    const CANCEL: &str = "
@group(0) @binding(0) var<storage, read> a: array<f32, 4>;
@group(0) @binding(1) var<storage, read> b: array<f32, 4>;
@group(0) @binding(2) var o: texture_storage_1d<rgba32float, write>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    textureStore(o, i, vec4<f32>(1000.0 * (pow(a[i], 1.0 / 3.0) - b[i]), 0.0, 0.0, 1.0));
}
";

    #[test]
    fn storage_texels_get_the_kernels_sensitivity_to_math_error() {
        let m = dianran_frontend::compile("c.wgsl", CANCEL, &Default::default()).unwrap();
        let spec = TextureSpec::parse("0:2=4:rgba32float").unwrap();
        let t = build_textures(&m, "main", &[spec], &[], 1).unwrap();
        let a = [0.55f32, 0.7, 0.85, 0.95];
        let b: Vec<f32> = a.iter().map(|&x| f64::from(x).cbrt() as f32).collect();
        let le = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let input: Buffers = [((0, 0), le(&a)), ((0, 1), le(&b))].into();
        let job = Job::new("c.wgsl", CANCEL, &m, "main", [1, 1, 1]);
        let (rb, rt) = run_textured(Executor::Interp, &job, &input, &t).unwrap();
        // What an executor with `pow` `ulps` steps off stores (red channels, texel i at
        // byte 16 i).
        let other = |ulps: i32| {
            let mut tex = rt.clone();
            let data = &mut tex.textures.get_mut(&(0, 2)).unwrap().data;
            for (i, (&x, &c)) in a.iter().zip(&b).enumerate() {
                let p = f32::from_bits(x.powf(1.0 / 3.0).to_bits().wrapping_add_signed(ulps));
                data[16 * i..16 * i + 4].copy_from_slice(&(1000.0 * (p - c)).to_le_bytes());
            }
            tex
        };
        let p = crate::agree::precision_for(&m, "main", Some(Default::default()));
        let two = other(2);
        assert!(compare_textures(&m, "main", &rt, &two, p).is_err());
        let note = compare_run_textured(Executor::Emu, &job, &input, &t, (&rb, &rt), (&rb, &two))
            .unwrap_or_else(|d| panic!("{d}"))
            .unwrap_or_default();
        assert!(note.contains("4 values beyond the plain bound"), "{note}");
        let forty = other(40);
        let e = compare_run_textured(Executor::Emu, &job, &input, &t, (&rb, &rt), (&rb, &forty))
            .unwrap_err();
        assert!(e.contains("4 texel channels differ") && e.contains("beyond the kernel's"), "{e}");
    }

    #[test]
    fn slack_only_for_linear_sampling() {
        let (m, t) = setup("0:1=clamp-to-edge,nearest");
        assert_eq!(filter_slack(&m, &t), 0.0);
        let (m, t) = setup("0:1=repeat,linear");
        let s = filter_slack(&m, &t);
        // Seeded rgba16float texels lie in [-1, 1): spread < 2, so the slack is below
        // 3 * 2 / 256 plus rounding.
        assert!(s > 0.0 && s < 3.0 * 2.0 / 256.0 + 1e-5, "{s}");
        assert!(uses_textures(&m, "main"));
    }
}
