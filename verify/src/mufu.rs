//! The special-function unit, tabulated: what `ex2.approx.ftz.f32` and its siblings return for
//! every f32 input, measured on the device that runs them (issue 30, `docs/math.md`,
//! "Tabulating the special-function unit").
//!
//! Precise math may only use an approximate instruction whose bits the CPU twin can predict:
//! the PTX ISA bounds `ex2.approx` (2 ulp) but does not specify it, so libdevice's `expf`-based
//! functions cannot be copied until the unit's exact results are known. On a lent GPU,
//! `verify/gpu-check.sh --mufu` runs `examples/mufu_tables.rs`, which uses this module to
//! * sweep all 2^32 inputs of each instruction through the CUDA driver ([`Unit`]), and report
//!   the error against the exact function (f64 reference) in ulps and absolutely, the
//!   distribution of steps from the correctly rounded result, and a fingerprint of the whole
//!   table (equal fingerprints on two GPUs mean bit-identical units);
//! * test, for `ex2`, whether the result is a table of `2^f` on an n-bit fixed-point grid
//!   scaled by `2^i` (`x = i + f`, the shape of an interpolating unit), for n = 22, 23, 24 and
//!   truncating or nearest conversion ([`Ex2Model`]), counting the inputs where each variant
//!   disagrees with the device;
//! * write the 2^24-point grid `ex2(k 2^-24)` as byte deltas from the correctly rounded value,
//!   the table such a model needs.
//!
//! The same code runs on the PTX emulator (a sparse dry run: the emulator models the
//! instructions as the exact function rounded, so it exercises the pipeline, not the
//! hardware) and on a synthetic unit in the tests, which checks that the analysis finds a
//! table-shaped unit and rejects the wrong variants.

use crate::emu::{self, EmuOptions};
use dianran_ptx::math::accuracy::{steps_from_rounded, ulp_error};
use std::fmt::Write as _;

/// One approximate instruction of the special-function unit (all `.ftz.f32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approx {
    /// `ex2.approx.ftz.f32`: 2^x.
    Ex2,
    /// `lg2.approx.ftz.f32`: log2(x).
    Lg2,
    /// `rcp.approx.ftz.f32`: 1/x.
    Rcp,
    /// `rsqrt.approx.ftz.f32`: 1/sqrt(x).
    Rsqrt,
    /// `sin.approx.ftz.f32`.
    Sin,
    /// `cos.approx.ftz.f32`.
    Cos,
}

impl Approx {
    /// Every instruction, in report order.
    pub const ALL: [Approx; 6] =
        [Approx::Ex2, Approx::Lg2, Approx::Rcp, Approx::Rsqrt, Approx::Sin, Approx::Cos];

    /// The PTX instruction.
    pub fn instruction(self) -> &'static str {
        match self {
            Approx::Ex2 => "ex2.approx.ftz.f32",
            Approx::Lg2 => "lg2.approx.ftz.f32",
            Approx::Rcp => "rcp.approx.ftz.f32",
            Approx::Rsqrt => "rsqrt.approx.ftz.f32",
            Approx::Sin => "sin.approx.ftz.f32",
            Approx::Cos => "cos.approx.ftz.f32",
        }
    }

    /// The exact function (f64 reference) of an input already flushed to zero.
    pub fn exact(self, x: f64) -> f64 {
        match self {
            Approx::Ex2 => x.exp2(),
            Approx::Lg2 => x.log2(),
            Approx::Rcp => 1.0 / x,
            Approx::Rsqrt => 1.0 / x.sqrt(),
            Approx::Sin => x.sin(),
            Approx::Cos => x.cos(),
        }
    }

    /// Whether the error statistics include input `x` (flushed): sine and cosine only on
    /// [-pi, pi], where the PTX ISA states their (absolute) bound.
    fn measured(self, x: f64) -> bool {
        match self {
            Approx::Sin | Approx::Cos => x.abs() <= std::f64::consts::PI,
            _ => true,
        }
    }
}

/// Threads per block of the tabulating kernels.
const BLOCK: u32 = 256;

/// PTX of the two tabulating kernels for `op`: `approx_bits(out, base, step)` writes
/// `op(x)` with `x`'s bits `base + i * step` (wrapping) to `out[i]`, and
/// `approx_grid(out, base, scale)` writes `op(f32(base + i) * scale)` (exact for
/// `base + i <= 2^24` and a power-of-two `scale`). One result per thread, no bounds check:
/// launch whole blocks of [`BLOCK`] threads.
pub fn kernel(op: Approx) -> String {
    let inst = op.instruction();
    let mut s = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
    for (entry, third, make_x) in [
        ("approx_bits", "step", "\tmad.lo.u32 \t%r7, %r6, %r2, %r1;\n\tmov.b32 \t%f1, %r7;\n"),
        (
            "approx_grid",
            "scale",
            "\tadd.u32 \t%r7, %r6, %r1;\n\tcvt.rn.f32.u32 \t%f0, %r7;\n\
             \tmov.b32 \t%f3, %r2;\n\tmul.rn.f32 \t%f1, %f0, %f3;\n",
        ),
    ] {
        let _ = write!(
            s,
            "\n.visible .entry {entry}(\n\t.param .u64 out,\n\t.param .u32 base,\n\
             \t.param .u32 {third}\n)\n{{\n\t.reg .b32 \t%r<8>;\n\t.reg .f32 \t%f<4>;\n\
             \t.reg .b64 \t%rd<5>;\n\tld.param.u64 \t%rd1, [out];\n\
             \tld.param.u32 \t%r1, [base];\n\tld.param.u32 \t%r2, [{third}];\n\
             \tmov.u32 \t%r3, %ctaid.x;\n\tmov.u32 \t%r4, %ntid.x;\n\tmov.u32 \t%r5, %tid.x;\n\
             \tmad.lo.u32 \t%r6, %r3, %r4, %r5;\n{make_x}\t{inst} \t%f2, %f1;\n\
             \tcvta.to.global.u64 \t%rd2, %rd1;\n\tmul.wide.u32 \t%rd3, %r6, 4;\n\
             \tadd.s64 \t%rd4, %rd2, %rd3;\n\tst.global.f32 \t[%rd4], %f2;\n\tret;\n}}\n"
        );
    }
    s
}

/// Where the results come from: the CUDA driver, the emulator, or a model in the tests.
pub trait Unit {
    /// A line naming the unit for the report.
    fn name(&self) -> String;
    /// Runs entry `entry` of `ptx` over `blocks` blocks of [`BLOCK`] threads with `params`
    /// (the output buffer, then two `.u32` words); returns the output buffer's bytes.
    fn launch(
        &mut self,
        ptx: &str,
        entry: &str,
        params: [Vec<u8>; 3],
        blocks: u32,
    ) -> Result<Vec<u8>, String>;
    /// `op` of the inputs whose bits are `base + i * step` (wrapping), `i < n`.
    fn bits(&mut self, op: Approx, base: u32, step: u32, n: u32) -> Result<Vec<u32>, String> {
        run_entry(op, "approx_bits", base, step, n, |p, e, ps, b| self.launch(p, e, ps, b))
    }
    /// `op(k * 2^-grid_bits)` for `k` in `base..base + n` (`base + n <= 2^24`).
    fn grid(&mut self, op: Approx, grid_bits: u32, base: u32, n: u32) -> Result<Vec<u32>, String> {
        let scale = (-(grid_bits as f32)).exp2().to_bits();
        run_entry(op, "approx_grid", base, scale, n, |p, e, ps, b| self.launch(p, e, ps, b))
    }
}

/// Runs one of [`kernel`]'s entries through `launch(ptx, entry, params, blocks)`, which
/// returns the output buffer's bytes.
fn run_entry(
    op: Approx,
    entry: &str,
    a: u32,
    b: u32,
    n: u32,
    launch: impl FnOnce(&str, &str, [Vec<u8>; 3], u32) -> Result<Vec<u8>, String>,
) -> Result<Vec<u32>, String> {
    let blocks = n.div_ceil(BLOCK);
    let out = vec![0u8; blocks as usize * BLOCK as usize * 4];
    let params = [out, a.to_le_bytes().to_vec(), b.to_le_bytes().to_vec()];
    let bytes = launch(&kernel(op), entry, params, blocks)?;
    Ok(bytes
        .chunks_exact(4)
        .take(n as usize)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The PTX emulator: the instructions as the exact function rounded to f32 (a dry run).
pub struct Emulator;

impl Unit for Emulator {
    fn name(&self) -> String {
        "PTX emulator (a dry run: it models each instruction, it does not measure one)".into()
    }
    fn launch(
        &mut self,
        ptx: &str,
        entry: &str,
        params: [Vec<u8>; 3],
        blocks: u32,
    ) -> Result<Vec<u8>, String> {
        let mut params = params.to_vec();
        emu::run(ptx, entry, &mut params, [blocks, 1, 1], [BLOCK, 1, 1], &EmuOptions::default())
            .map_err(|e| e.to_string())?;
        Ok(params.swap_remove(0))
    }
}

/// The CUDA driver (device 0).
#[cfg(feature = "cuda")]
pub struct Driver;

#[cfg(feature = "cuda")]
impl Driver {
    /// The driver, or why there is none.
    pub fn open() -> Result<Driver, String> {
        if dianran_runtime::cuda::available() {
            Ok(Driver)
        } else {
            Err("no CUDA device".into())
        }
    }
}

#[cfg(feature = "cuda")]
impl Unit for Driver {
    fn name(&self) -> String {
        "CUDA driver, device 0".into()
    }
    fn launch(
        &mut self,
        ptx: &str,
        entry: &str,
        params: [Vec<u8>; 3],
        blocks: u32,
    ) -> Result<Vec<u8>, String> {
        use dianran_runtime::cuda::{run_kernel, KernelParam};
        let [out, a, b] = params;
        let ps = [KernelParam::Buffer(&out), KernelParam::Value(&a), KernelParam::Value(&b)];
        let mut res = run_kernel(ptx, entry, &ps, [BLOCK, 1, 1], [blocks, 1, 1])
            .map_err(|e| e.to_string())?;
        Ok(res.swap_remove(0))
    }
}

/// `x` with a subnormal flushed to a zero of the same sign (`.ftz` inputs).
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// How a real input becomes the unit's fixed-point argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Towards minus infinity (two's-complement truncation).
    Floor,
    /// To nearest, ties to even.
    Nearest,
}

/// A table-shaped model of `ex2`: `x` converted to a multiple of `2^-bits` (`q`), split into
/// `i = floor(q)` and `f = q - i` in [0, 1), the result `T(f) * 2^i` with `T(f)` the device's
/// own `ex2(f)` (from the grid). Where it holds for every input, the grid is the unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ex2Model {
    /// Fractional bits of the fixed-point argument (at most 24, the grid's).
    pub bits: u32,
    /// The conversion.
    pub rounding: Rounding,
}

impl Ex2Model {
    /// The variants [`tabulate`] tests.
    pub const VARIANTS: [Ex2Model; 6] = [
        Ex2Model { bits: 22, rounding: Rounding::Floor },
        Ex2Model { bits: 22, rounding: Rounding::Nearest },
        Ex2Model { bits: 23, rounding: Rounding::Floor },
        Ex2Model { bits: 23, rounding: Rounding::Nearest },
        Ex2Model { bits: 24, rounding: Rounding::Floor },
        Ex2Model { bits: 24, rounding: Rounding::Nearest },
    ];

    /// The model's bits for input `x`, given `grid[k] = ex2(k 2^-g)` for `k < 2^g`; `None`
    /// where the model says nothing: outside (-126, 128), where the result leaves the normal
    /// range, or where the grid is coarser than the model.
    pub fn predict(self, x: f32, grid: &[u32], g: u32) -> Option<u32> {
        let x = ftz(x);
        if !(x > -126.0 && x < 128.0) || self.bits > g {
            return None;
        }
        let scaled = f64::from(x) * f64::from(self.bits).exp2();
        let q = match self.rounding {
            Rounding::Floor => scaled.floor(),
            Rounding::Nearest => scaled.round_ties_even(),
        } as i64;
        let i = q >> self.bits;
        let k = (q & ((1i64 << self.bits) - 1)) << (g - self.bits);
        let t = *grid.get(k as usize)?;
        let e = i64::from((t >> 23) & 0xFF) + i;
        if !(1..255).contains(&e) {
            return None;
        }
        Some((t & 0x807F_FFFF) | ((e as u32) << 23))
    }
}

/// The measurements of one instruction over a sweep.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Inputs swept.
    pub inputs: u64,
    /// Inputs in the measured domain (finite non-NaN result expected, sine and cosine on
    /// [-pi, pi]) by the device result's distance in f32 steps from the correctly rounded
    /// one: 0, 1, 2, 3 or more.
    pub steps: [u64; 4],
    /// Largest error against the exact value in ulps of the exact value, and its input bits.
    pub worst_ulp: (f64, u32),
    /// Largest absolute error, and its input bits.
    pub worst_abs: (f64, u32),
    /// Sum of a hash of every (input, result) pair: the same for the same results however the
    /// sweep is split, different (but for a 2^-64 chance) when any result differs.
    pub fingerprint: u64,
    /// Per [`Ex2Model::VARIANTS`]: (inputs the model predicts, of which the device differs),
    /// and the first differing input's bits.
    pub models: Vec<(u64, u64, Option<u32>)>,
}

impl Stats {
    fn merge(&mut self, o: &Stats) {
        self.inputs += o.inputs;
        for (a, b) in self.steps.iter_mut().zip(o.steps) {
            *a += b;
        }
        if o.worst_ulp.0 > self.worst_ulp.0 {
            self.worst_ulp = o.worst_ulp;
        }
        if o.worst_abs.0 > self.worst_abs.0
            || (o.worst_abs.0.is_nan() && !self.worst_abs.0.is_nan())
        {
            self.worst_abs = o.worst_abs;
        }
        if self.models.len() < o.models.len() {
            self.models.resize(o.models.len(), (0, 0, None));
        }
        for (a, b) in self.models.iter_mut().zip(&o.models) {
            a.0 += b.0;
            a.1 += b.1;
            a.2 = a.2.or(b.2);
        }
        self.fingerprint = self.fingerprint.wrapping_add(o.fingerprint);
    }
}

/// SplitMix64's finalizer: a bijective mix of all 64 bits.
fn mix(v: u64) -> u64 {
    let v = (v ^ (v >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let v = (v ^ (v >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    v ^ (v >> 31)
}

/// Measures one run of results: `inputs[j]`'s result is `results[j]`.
fn measure(
    op: Approx,
    inputs: impl Iterator<Item = u32>,
    results: &[u32],
    grid: Option<(&[u32], u32)>,
) -> Stats {
    let mut s = Stats::default();
    if grid.is_some() {
        s.models = vec![(0, 0, None); Ex2Model::VARIANTS.len()];
    }
    for (xb, &rb) in inputs.zip(results) {
        s.inputs += 1;
        s.fingerprint = s.fingerprint.wrapping_add(mix(u64::from(xb) << 32 | u64::from(rb)));
        let x = ftz(f32::from_bits(xb));
        let got = f32::from_bits(rb);
        if let Some((g, gb)) = grid {
            for (m, slot) in Ex2Model::VARIANTS.iter().zip(s.models.iter_mut()) {
                if let Some(p) = m.predict(x, g, gb) {
                    slot.0 += 1;
                    if p != rb {
                        slot.1 += 1;
                        slot.2 = slot.2.or(Some(xb));
                    }
                }
            }
        }
        let exact = op.exact(f64::from(x));
        let normal_or_zero = exact == 0.0
            || (exact.abs() >= 2.0 * f64::from(f32::MIN_POSITIVE)
                && exact.abs() < f64::from(f32::MAX));
        if x.is_nan() || !normal_or_zero || !op.measured(f64::from(x)) {
            continue;
        }
        let st = if got.is_nan() { 3 } else { steps_from_rounded(got, exact).min(3) as usize };
        s.steps[st] += 1;
        let u = if got.is_nan() { f64::INFINITY } else { ulp_error(got, exact) };
        if u > s.worst_ulp.0 {
            s.worst_ulp = (u, xb);
        }
        let a = (f64::from(got) - exact).abs();
        if a > s.worst_abs.0 || (a.is_nan() && !s.worst_abs.0.is_nan()) {
            s.worst_abs = (a, xb);
        }
    }
    s
}

/// Measures `results` (of the inputs `base + i * step`) on all threads.
fn measure_parallel(
    op: Approx,
    base: u32,
    step: u32,
    results: &[u32],
    grid: Option<(&[u32], u32)>,
) -> Stats {
    const PARTS: usize = 64;
    let len = results.len().div_ceil(PARTS).max(1);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let parts: Vec<(usize, &[u32])> = results.chunks(len).enumerate().collect();
    let mut done: Vec<(usize, Stats)> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let parts = &parts;
                sc.spawn(move || {
                    parts
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&(p, r)| {
                            let first = base.wrapping_add(((p * len) as u32).wrapping_mul(step));
                            let inputs = (0..r.len() as u32)
                                .map(move |j| first.wrapping_add(j.wrapping_mul(step)));
                            (p, measure(op, inputs, r, grid))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|d| d.0);
    let mut all = Stats::default();
    for (_, s) in &done {
        all.merge(s);
    }
    all
}

/// What [`tabulate`] sweeps.
#[derive(Clone, Copy, Debug)]
pub struct Sweep {
    /// Every `step`-th bit pattern (1: all 2^32).
    pub step: u32,
    /// Results per launch.
    pub chunk: u32,
    /// `ex2`'s grid is `k 2^-grid_bits` for `k < 2^grid_bits` (24 for the real table).
    pub grid_bits: u32,
}

/// One instruction's report.
#[derive(Clone, Debug)]
pub struct Table {
    /// The instruction.
    pub op: Approx,
    /// Its measurements.
    pub stats: Stats,
    /// For `ex2`: the grid `ex2(k 2^-grid_bits)`, as bits.
    pub grid: Option<Vec<u32>>,
}

/// Sweeps `op` on `unit` (for `ex2`, first its grid, then the models against every input).
pub fn tabulate(unit: &mut dyn Unit, op: Approx, sweep: Sweep) -> Result<Table, String> {
    let grid = if op == Approx::Ex2 {
        let n = 1u32 << sweep.grid_bits;
        let mut g = Vec::with_capacity(n as usize);
        let mut k = 0;
        while k < n {
            let m = sweep.chunk.min(n - k);
            g.extend(unit.grid(op, sweep.grid_bits, k, m)?);
            k += m;
        }
        Some(g)
    } else {
        None
    };
    let total = (1u64 << 32).div_ceil(u64::from(sweep.step));
    let mut stats = Stats::default();
    let mut i = 0u64;
    while i < total {
        let n = (total - i).min(u64::from(sweep.chunk)) as u32;
        let base = (i * u64::from(sweep.step)) as u32;
        let r = unit.bits(op, base, sweep.step, n)?;
        let g = grid.as_deref().map(|g| (g, sweep.grid_bits));
        stats.merge(&measure_parallel(op, base, sweep.step, &r, g));
        i += u64::from(n);
    }
    Ok(Table { op, stats, grid })
}

/// The report lines of one table.
pub fn report(t: &Table) -> String {
    let s = &t.stats;
    let measured: u64 = s.steps.iter().sum();
    let mut out = format!(
        "{}: {} inputs, fingerprint {:016x}; over {} measured: steps from the correctly rounded \
         result 0/1/2/3+ = {}/{}/{}/{}; worst {:.3} ulp at {:e} ({:#010x}); worst absolute \
         {:.3e} at {:e} ({:#010x})\n",
        t.op.instruction(),
        s.inputs,
        s.fingerprint,
        measured,
        s.steps[0],
        s.steps[1],
        s.steps[2],
        s.steps[3],
        s.worst_ulp.0,
        f32::from_bits(s.worst_ulp.1),
        s.worst_ulp.1,
        s.worst_abs.0,
        f32::from_bits(s.worst_abs.1),
        s.worst_abs.1,
    );
    for (m, (n, bad, first)) in Ex2Model::VARIANTS.iter().zip(&s.models) {
        let first = first
            .map_or(String::new(), |b| format!(", first at {:e} ({b:#010x})", f32::from_bits(b)));
        let _ = writeln!(
            out,
            "  model {}-bit {:?}: {bad} of {n} inputs differ{first}",
            m.bits, m.rounding
        );
    }
    out
}

/// `grid[k]` as signed steps from the correctly rounded `2^(k 2^-grid_bits)`, one byte each
/// (`i8::MIN` where the difference does not fit), and how many did not fit.
pub fn grid_deltas(grid: &[u32], grid_bits: u32) -> (Vec<i8>, u64) {
    let mut escaped = 0;
    let d = grid
        .iter()
        .enumerate()
        .map(|(k, &b)| {
            let rn = ((k as f64) * (-f64::from(grid_bits)).exp2()).exp2() as f32;
            let diff = i64::from(b) - i64::from(rn.to_bits());
            i8::try_from(diff).ok().filter(|&v| v != i8::MIN).unwrap_or_else(|| {
                escaped += 1;
                i8::MIN
            })
        })
        .collect();
    (d, escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit built like a table-interpolating one: `ex2` truncates its argument to 23
    /// fractional bits and returns `2^f` rounded down, scaled; the other instructions are
    /// exact.
    struct Tabled;

    fn tabled_ex2(x: f32) -> u32 {
        let x = ftz(x);
        if x >= 128.0 {
            return f32::INFINITY.to_bits();
        }
        if x <= -126.0 {
            return 0;
        }
        const SCALE: f64 = 8_388_608.0; // 2^23
        let q = (f64::from(x) * SCALE).floor();
        let (i, f) = ((q / SCALE).floor(), q.rem_euclid(SCALE) / SCALE);
        let t = f.exp2() as f32;
        let t = if f64::from(t) > f.exp2() { f32::from_bits(t.to_bits() - 1) } else { t };
        (t * (i as f32).exp2()).to_bits()
    }

    impl Unit for Tabled {
        fn name(&self) -> String {
            "a 23-bit table".into()
        }
        fn launch(&mut self, _: &str, _: &str, _: [Vec<u8>; 3], _: u32) -> Result<Vec<u8>, String> {
            Err("a model runs no kernel".into())
        }
        fn bits(&mut self, op: Approx, base: u32, step: u32, n: u32) -> Result<Vec<u32>, String> {
            Ok((0..n)
                .map(|i| {
                    let x = f32::from_bits(base.wrapping_add(i.wrapping_mul(step)));
                    if op == Approx::Ex2 {
                        tabled_ex2(x)
                    } else {
                        (op.exact(f64::from(ftz(x))) as f32).to_bits()
                    }
                })
                .collect())
        }
        fn grid(&mut self, op: Approx, g: u32, base: u32, n: u32) -> Result<Vec<u32>, String> {
            assert_eq!(op, Approx::Ex2);
            Ok((base..base + n).map(|k| tabled_ex2(k as f32 * (-(g as f32)).exp2())).collect())
        }
    }

    #[test]
    fn a_table_shaped_unit_is_recognised_and_wrong_variants_are_not() {
        // Against the 24-bit grid: the 23- and 24-bit truncating models reproduce the 23-bit
        // unit (the 23-bit one reads every other grid point), the 22-bit one is too coarse,
        // and the nearest ones round some inputs into the next cell.
        let sweep = Sweep { step: 65_537, chunk: 1 << 20, grid_bits: 24 };
        let t = tabulate(&mut Tabled, Approx::Ex2, sweep).unwrap();
        let by = |bits, rounding| {
            let i =
                Ex2Model::VARIANTS.iter().position(|m| *m == Ex2Model { bits, rounding }).unwrap();
            t.stats.models[i]
        };
        for bits in [23, 24] {
            let (n, bad, _) = by(bits, Rounding::Floor);
            assert!(n > 10_000, "{n} inputs predicted");
            assert_eq!(bad, 0, "{}", report(&t));
        }
        assert!(by(22, Rounding::Floor).1 > 0, "{}", report(&t));
        for bits in [22, 23, 24] {
            assert!(by(bits, Rounding::Nearest).1 > 0, "{}", report(&t));
        }
        // A model finer than the grid predicts nothing.
        let coarse = tabulate(&mut Tabled, Approx::Ex2, Sweep { grid_bits: 22, ..sweep }).unwrap();
        assert_eq!(coarse.stats.models[4].0, 0, "{}", report(&coarse));
        // Rounded down, many results sit one step below the correctly rounded ones.
        assert!(t.stats.steps[1] > 0 && t.stats.steps[0] > 0, "{}", report(&t));
    }

    #[test]
    fn fingerprints_tell_tables_apart_and_do_not_depend_on_chunking() {
        let a = Sweep { step: 1_000_003, chunk: 1 << 10, grid_bits: 8 };
        let b = Sweep { chunk: 333, ..a };
        let t1 = tabulate(&mut Tabled, Approx::Rcp, a).unwrap();
        let t2 = tabulate(&mut Tabled, Approx::Rcp, b).unwrap();
        let t3 = tabulate(&mut Tabled, Approx::Rsqrt, a).unwrap();
        assert_eq!(t1.stats.fingerprint, t2.stats.fingerprint);
        assert_eq!(t1.stats.inputs, t2.stats.inputs);
        assert_ne!(t1.stats.fingerprint, t3.stats.fingerprint);
        // Exact rounding of the reference: every measured result 0 steps away.
        assert_eq!(t1.stats.steps[1..], [0, 0, 0], "{}", report(&t1));
    }

    #[test]
    fn the_kernels_assemble_and_run_on_the_emulator() {
        if crate::tools::require("ptxas", crate::tools::ptxas()).is_some() {
            for op in Approx::ALL {
                crate::ptxas::check(&kernel(op), 80).unwrap_or_else(|e| panic!("{op:?}: {e}"));
            }
        }
        // A dry run: every 2^20-th input, and a 2^6 grid for ex2.
        let sweep = Sweep { step: 1 << 20, chunk: 1 << 12, grid_bits: 6 };
        let t = tabulate(&mut Emulator, Approx::Ex2, sweep).unwrap();
        assert_eq!(t.stats.inputs, 4096);
        assert_eq!(t.grid.as_ref().map(Vec::len), Some(64));
        // ex2(k/64) from the grid kernel: k = 64 is not in it, k = 32 is sqrt(2).
        let g = t.grid.unwrap();
        assert_eq!(g[0], 1.0f32.to_bits());
        assert!((f32::from_bits(g[32]) - std::f32::consts::SQRT_2).abs() < 1e-6);
        let r = tabulate(&mut Emulator, Approx::Rcp, sweep).unwrap();
        assert!(r.stats.steps.iter().sum::<u64>() > 3000, "{}", report(&r));
    }
}
