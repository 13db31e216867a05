//! Seeded random buffer contents and the comparison rules of `dianran verify`.
//!
//! # Random contents
//!
//! Every scalar of every buffer gets a value valid for its type: floats uniform in [-1, 1)
//! (never NaN or infinite), `u32`/`u64` in [0, 64) and `i32`/`i64` in [-32, 32) (small, so
//! kernels that use buffer values as sizes, indices or loop counts stay in range), `bool` 0
//! or 1.
//!
//! `f64` is compared within 4 ULP or 1e-12 absolute in every class: the PTX's `f64`
//! operations are the interpreter's exactly (`.rn`, the same `fma`s), and the bound only
//! leaves room for a Vulkan implementation that contracts `a * b + c`.
//!
//! # Comparison rules
//!
//! Integers (and bools) must be bit-identical. Floats are compared with a bound that depends
//! on the operations the entry point uses and on the executor ([`precision_for`]):
//!
//! | class | when | f32 bound | f16 bound |
//! |---|---|---|---|
//! | [`Precision::Exact`] | only `+ - * /`, `sqrt`, `fma`, conversions, min/max, ... | 4 ULP, or 1e-6 absolute | 2 ULP, or 1e-3 absolute |
//! | [`Precision::PreciseMath`] | math builtins (`exp`, `log`, `pow`, trigonometry, `tanh`, `inverseSqrt`, ...) on the PTX executors in the default (precise) mode | 8 ULP, or 1e-6 absolute | 2 ULP, or 1e-3 absolute |
//! | [`Precision::FastMath`] | math builtins on the PTX executors under `--fast-math` | 2^-11 relative, or 2^-11 absolute | 2^-8 relative, or 1e-2 absolute |
//! | [`Precision::Approximate`] | math builtins on lavapipe (Vulkan) | 2^-11 relative, or 2^-11 absolute | 2^-8 relative, or 1e-2 absolute |
//! | [`Precision::Accumulated`] | cooperative-matrix products (`coopMultiplyAdd`), workgroup-matrix products, float subgroup sums and products (their order is the implementation's) | 2^-10 relative, or 1e-4 absolute | 2^-8 relative, or 1e-2 absolute |
//! | [`Precision::Tf32`] | f32 x f32 cooperative and workgroup-matrix products compiled with `--tf32`, PTX executors | 2^-9 relative, or 2^-7 absolute | as cooperative products |
//!
//! Why these numbers:
//!
//! * **Precise math.** dianran's PTX math library is within 4 ulp of the correctly rounded
//!   result for every function (`docs/math.md`: 1 to 2 for most), and the reference
//!   interpreter is within half an ulp; 8 ulp leaves room for one more rounding of the
//!   surrounding arithmetic, and the 1e-6 floor is the exact class's (below).
//! * **Fast math.** PTX's `.approx` instructions document: `ex2` 2 ulp, `lg2` 2^-22 absolute in
//!   (0.5, 2) and 2^-22 relative elsewhere, `rsqrt` 2^-22.9 relative, `sin`/`cos` 2^-20.5
//!   absolute in [-2 pi, 2 pi] (2^-14.7 up to 100 pi, no bound beyond), `tanh` 2^-11 relative
//!   (PTX ISA 9.1). `tanh.approx` is the weakest, so the class is 2^-11; arguments of `sin`/`cos`
//!   beyond 100 pi have no documented bound at all (the precise default exists for them).
//! * **Vulkan.** Its minimum precision for `sin`/`cos` is 2^-11 absolute, `exp`/`exp2`
//!   3 + 2|x| ulp, `pow` inherited from `exp2(y log2 x)`, and llvmpipe uses such
//!   approximations, so lavapipe gets 2^-11 whatever mode the PTX was compiled in.
//! * **TF32** rounds each f32 product operand to a 10-bit mantissa, so a product
//!   `sum_k a_k * b_k` is off by up to about `2^-9 * sum_k |a_k * b_k|` (the bound
//!   `verify/tests/coop_tf32.rs` checks element by element). A buffer comparison does not know
//!   the terms, so the TF32 class bounds the difference by 2^-9 of the result's magnitude, with
//!   an absolute floor of 2^-7 = 2^-9 * 4: the expected `sum_k |a_k * b_k|` of a 16-term
//!   product of the random inputs below (uniform in [-1, 1), so `E|a * b|` = 1/4).
//! * **Tensor cores** accumulate a product's K terms in their own order (and without IEEE
//!   rounding of every partial sum), so coop products get a bound relative to the result.
//! * **The absolute floors** exist because fma contraction (PTX fuses `a * b + c`, the
//!   interpreter does not) changes a result by up to one rounding of the product, which can be
//!   large relative to a result near zero after cancellation: such a difference is not a
//!   failure.
//!
//! Values that are NaN on both sides agree; NaN against a number does not.
//!
//! # The kernel's sensitivity to math error
//!
//! A kernel can amplify legitimate math error beyond any fixed bound: `500 * (x - y)` of two
//! cube roots near 1 turns one ulp of `pow` into about 30 ulp of the result (or far more,
//! relative to a result near zero). When values fail their class's bound and the kernel uses
//! a math builtin that is not correctly rounded ([`has_inexact_math`]), `dianran verify`
//! reruns the interpreter with every such result moved by up to the executor's documented
//! math error and lets each value differ by twice the largest change those reruns show
//! ([`Slack`], [`compare_slots`]); `crate::sensitivity` has the numbers and the reasoning.

use crate::buffers::{entry_bindings, Buffers};
use dianran_frontend::ir::{self, MathFunction, Op, Scalar, SubgroupOperation, Type, TypeId};
use dianran_frontend::{DiagKind, Diagnostic};

/// A scalar slot in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Byte offset in the buffer.
    pub offset: u32,
    /// Scalar type stored there.
    pub scalar: Scalar,
}

/// Appends the scalar slots of a value of type `ty` at `base`; runtime arrays get
/// `runtime_len` elements.
pub fn slots(types: &ir::Types, ty: TypeId, base: u32, runtime_len: u32, out: &mut Vec<Slot>) {
    match types.get(ty) {
        Type::Scalar(s) | Type::Atomic(s) => out.push(Slot { offset: base, scalar: *s }),
        Type::Vector { size, scalar } => {
            for i in 0..*size as u32 {
                out.push(Slot { offset: base + i * scalar.size(), scalar: *scalar });
            }
        }
        Type::Matrix { columns, rows, scalar } => {
            let col = if *rows == 2 { 2 } else { 4 } * scalar.size();
            for c in 0..*columns as u32 {
                for r in 0..*rows as u32 {
                    out.push(Slot { offset: base + c * col + r * scalar.size(), scalar: *scalar });
                }
            }
        }
        Type::Array { base: elem, len, stride } => {
            for i in 0..len.unwrap_or(runtime_len) {
                slots(types, *elem, base + i * stride, runtime_len, out);
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                slots(types, m.ty, base + m.offset, runtime_len, out);
            }
        }
        _ => {}
    }
}

/// A small deterministic PRNG (xorshift64*), so `--seed` reproduces a run anywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
    /// Uniform in [-1, 1).
    pub fn next_unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

/// Buffers for every binding `entry` uses, filled with seeded random values valid for their
/// element types (see the module doc).
pub fn random_buffers(
    m: &ir::Module,
    entry: &str,
    runtime_len: u32,
    seed: u64,
) -> Result<Buffers, Diagnostic> {
    let mut out = crate::buffers::default_buffers(m, entry, runtime_len)?;
    let mut rng = Rng::new(seed);
    for b in entry_bindings(m, entry)? {
        let Some(bytes) = out.get_mut(&(b.group, b.binding)) else { continue };
        let mut list = Vec::new();
        slots(&m.types, b.ty, 0, runtime_len, &mut list);
        for s in list {
            let at = s.offset as usize;
            let value: Vec<u8> = match s.scalar {
                Scalar::F32 => rng.next_unit().to_le_bytes().to_vec(),
                Scalar::F16 => half::f16::from_f32(rng.next_unit()).to_le_bytes().to_vec(),
                Scalar::U32 => (rng.next_u32() % 64).to_le_bytes().to_vec(),
                Scalar::I32 => ((rng.next_u32() % 64) as i32 - 32).to_le_bytes().to_vec(),
                Scalar::Bool => (rng.next_u32() & 1).to_le_bytes().to_vec(),
                Scalar::F64 => f64::from(rng.next_unit()).to_le_bytes().to_vec(),
                Scalar::U64 => u64::from(rng.next_u32() % 64).to_le_bytes().to_vec(),
                Scalar::I64 => (i64::from(rng.next_u32() % 64) - 32).to_le_bytes().to_vec(),
            };
            if let Some(dst) = bytes.get_mut(at..at + value.len()) {
                dst.copy_from_slice(&value);
            }
        }
    }
    Ok(out)
}

/// Which float bound applies (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Correctly rounded operations only.
    Exact,
    /// Cooperative-matrix products (tensor-core accumulation order).
    Accumulated,
    /// Math builtins through dianran's precise PTX library (the default).
    PreciseMath,
    /// Math builtins through PTX's `.approx` instructions (`--fast-math`).
    FastMath,
    /// Math builtins on an executor with Vulkan's minimum precision (lavapipe).
    Approximate,
    /// f32 x f32 cooperative products on TF32 tensor cores (`--tf32`): 10-bit mantissa
    /// operands.
    Tf32,
}

/// Whether `f` is a transcendental (or otherwise not correctly rounded) math builtin.
pub fn approx_fn(f: MathFunction) -> bool {
    use MathFunction as M;
    matches!(
        f,
        M::Cos
            | M::Cosh
            | M::Sin
            | M::Sinh
            | M::Tan
            | M::Tanh
            | M::Acos
            | M::Asin
            | M::Atan
            | M::Atan2
            | M::Asinh
            | M::Acosh
            | M::Atanh
            | M::Exp
            | M::Exp2
            | M::Log
            | M::Log2
            | M::Pow
            | M::InverseSqrt
            | M::Length
            | M::Normalize
            | M::Distance
            | M::SmoothStep
            | M::Refract
    )
}

/// The precision class of `entry` on an executor with Vulkan's guarantees: approximate when it
/// (or a function it calls) uses a transcendental math function.
pub fn precision(m: &ir::Module, entry: &str) -> Precision {
    // The whole module is scanned: cheap, and functions the entry calls are covered.
    let _ = entry;
    if has_inexact_math(m) {
        Precision::Approximate
    } else if accumulates(m) {
        Precision::Accumulated
    } else {
        Precision::Exact
    }
}

/// Whether `m` sums in an order the implementation chooses: cooperative-matrix and
/// workgroup-matrix products (the PTX backend's tensor-core form of the latter,
/// `docs/workgroup-matrix.md`) and float subgroup sums.
fn accumulates(m: &ir::Module) -> bool {
    any_op(m, &|_, op| matches!(op, Op::CoopMultiplyAdd(..)))
        || m.tiles.iter().any(|t| t.op == ir::TileOp::MultiplyAccumulate)
        || any_op(m, &|f, op| float_subgroup_sum(m, f, op))
}

/// A subgroup sum or product (reduction or scan) of floats: WGSL leaves the order of its
/// operations to the implementation, so its rounding differs between executors.
fn float_subgroup_sum(m: &ir::Module, f: &ir::Function, op: &Op) -> bool {
    match op {
        Op::SubgroupCollective {
            op: SubgroupOperation::Add | SubgroupOperation::Mul, arg, ..
        } => f
            .values
            .get(arg.index())
            .is_some_and(|v| matches!(m.types.scalar_of(v.ty), Some(Scalar::F32 | Scalar::F16))),
        _ => false,
    }
}

/// What a PTX executor's PTX was compiled with (the options that change its results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtxMode {
    /// `--tf32`
    pub tf32: bool,
    /// `--fast-math`
    pub fast_math: bool,
}

/// The precision class of `entry` as run by one executor: `ptx` is `Some` for the PTX
/// executors (emulator, CUDA) with the options their PTX was compiled with, `None` for the
/// others (lavapipe keeps Vulkan's bounds; the interpreter is the reference).
pub fn precision_for(m: &ir::Module, entry: &str, ptx: Option<PtxMode>) -> Precision {
    let Some(mode) = ptx else {
        return precision(m, entry);
    };
    let f32_product = |f: &ir::Function, op: &Op| match op {
        Op::CoopMultiplyAdd(a, _, _) => f.values.get(a.index()).is_some_and(|v| {
            matches!(m.types.get(v.ty), Type::CoopMatrix { elem: ir::CoopElem::F32, .. })
        }),
        _ => false,
    };
    let f32_tiles = m.tiles.iter().any(|t| {
        t.op == ir::TileOp::MultiplyAccumulate && t.arrays.iter().all(|a| a.elem == Scalar::F32)
    });
    if mode.tf32 && (any_op(m, &f32_product) || f32_tiles) {
        return Precision::Tf32;
    }
    match precision(m, entry) {
        Precision::Approximate if mode.fast_math => Precision::FastMath,
        // Precise math next to sums in another order: the sums' bound is the looser.
        Precision::Approximate if accumulates(m) => Precision::Accumulated,
        Precision::Approximate => Precision::PreciseMath,
        p => p,
    }
}

/// Whether some instruction of some function of `m` (nested blocks included) satisfies `pick`.
fn any_op(m: &ir::Module, pick: &dyn Fn(&ir::Function, &Op) -> bool) -> bool {
    fn block(f: &ir::Function, b: &ir::Block, pick: &dyn Fn(&ir::Function, &Op) -> bool) -> bool {
        b.insts
            .iter()
            .any(|i| pick(f, &i.op) || i.op.blocks().into_iter().any(|b| block(f, b, pick)))
    }
    m.functions.iter().any(|f| block(f, &f.body, pick))
}

fn ulp_f32(x: f32) -> f32 {
    let a = x.abs();
    if a < f32::MIN_POSITIVE {
        f32::from_bits(1)
    } else {
        f32::from_bits(a.to_bits() + 1) - a
    }
}

fn ulp_f16(x: f32) -> f32 {
    let h = half::f16::from_f32(x.abs());
    let next = half::f16::from_bits(h.to_bits().saturating_add(1));
    (next.to_f32() - h.to_f32()).max(f32::from_bits(1))
}

/// Whether two floats agree under `p` (`is_f16` selects the f16 column of the table).
pub fn floats_agree(reference: f32, other: f32, is_f16: bool, p: Precision) -> bool {
    floats_agree_within(reference, other, is_f16, p, 0.0)
}

/// [`floats_agree`], with the bound raised by `extra` (absolute): the allowance a kernel's
/// sensitivity to math error gives (`crate::sensitivity`). An infinite `extra` also lets a
/// number stand against NaN (a nudged rerun of the interpreter made that value NaN).
pub fn floats_agree_within(
    reference: f32,
    other: f32,
    is_f16: bool,
    p: Precision,
    extra: f64,
) -> bool {
    if reference.is_nan() || other.is_nan() {
        return (reference.is_nan() && other.is_nan()) || extra == f64::INFINITY;
    }
    if reference == other {
        return true;
    }
    // The f32 difference, as the plain bound has always been checked.
    let diff = f64::from((reference - other).abs());
    diff <= f64::from(float_bound(reference, other, is_f16, p)) + extra
}

/// The largest difference [`floats_agree`] accepts between `reference` and `other` under `p`.
fn float_bound(reference: f32, other: f32, is_f16: bool, p: Precision) -> f32 {
    let big = reference.abs().max(other.abs());
    match (p, is_f16) {
        (Precision::Exact, false) => (4.0 * ulp_f32(big)).max(1e-6),
        (Precision::Exact | Precision::PreciseMath, true) => (2.0 * ulp_f16(big)).max(1e-3),
        (Precision::PreciseMath, false) => (8.0 * ulp_f32(big)).max(1e-6),
        (Precision::Accumulated, false) => (big * (1.0 / 1024.0)).max(1e-4),
        (Precision::Approximate | Precision::FastMath, false) => {
            (big * (1.0 / 2048.0)).max(1.0 / 2048.0)
        }
        (Precision::Tf32, false) => (big * (1.0 / 512.0)).max(1.0 / 128.0),
        (
            Precision::Accumulated | Precision::Approximate | Precision::FastMath | Precision::Tf32,
            true,
        ) => (big * (1.0 / 256.0)).max(1e-2),
    }
}

/// The distance between `reference` and `other` in ulps of the larger magnitude, in the
/// precision of `s` (for reports).
pub fn ulps_apart(s: Scalar, reference: f64, other: f64) -> f64 {
    let big = reference.abs().max(other.abs());
    let ulp = match s {
        Scalar::F16 => f64::from(ulp_f16(big as f32)),
        Scalar::F32 => f64::from(ulp_f32(big as f32)),
        _ => ulp_f64(big),
    };
    (reference - other).abs() / ulp
}

/// Extra absolute allowance per scalar slot, ((group, binding), byte offset) for buffers or
/// ((group, binding), channel index) for texels: what a kernel's sensitivity to math error
/// adds to the bound (`crate::sensitivity`).
pub type Slack = std::collections::BTreeMap<((u32, u32), u32), f64>;

/// The values a comparison accepted only through their [`Slack`]: how many, and the
/// largest of their differences.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlackUse {
    /// Values beyond the plain bound and within the slack.
    pub values: usize,
    /// The largest difference among them, in ulps of the value's type ([`ulps_apart`]); near
    /// zero (after cancellation) a small absolute difference is many ulps.
    pub largest_ulps: f64,
    /// The largest absolute difference among them.
    pub largest_diff: f64,
    /// The largest share of its whole allowance (plain bound plus slack) a value used.
    pub largest_share: f64,
}

impl SlackUse {
    /// Counts the value `other` of type `s` against `reference`, accepted with `extra` over
    /// the plain bound of `p`.
    pub fn add(&mut self, s: Scalar, reference: f64, other: f64, p: Precision, extra: f64) {
        self.values += 1;
        if reference.is_nan() || other.is_nan() {
            // Accepted because a nudged rerun made the value NaN: no distance to report.
            self.largest_share = self.largest_share.max(1.0);
            return;
        }
        let diff = (reference - other).abs();
        let bound = match s {
            Scalar::F16 | Scalar::F32 => {
                f64::from(float_bound(reference as f32, other as f32, s == Scalar::F16, p))
            }
            _ => f64_bound(reference, other),
        };
        self.largest_ulps = self.largest_ulps.max(ulps_apart(s, reference, other));
        self.largest_diff = self.largest_diff.max(diff);
        self.largest_share = self.largest_share.max(diff / (bound + extra));
    }
    /// Whether `other` (type `s`) agrees with `reference` under `p` once the bound is raised by
    /// `extra`; counts it when it does. A value that agrees without `extra` is not asked.
    pub fn accept(
        &mut self,
        s: Scalar,
        reference: f64,
        other: f64,
        p: Precision,
        extra: f64,
    ) -> bool {
        let ok = extra > 0.0 && values_agree_within(s, reference, other, p, extra);
        if ok {
            self.add(s, reference, other, p, extra);
        }
        ok
    }

    /// Both counts together.
    pub fn merge(self, other: SlackUse) -> SlackUse {
        SlackUse {
            values: self.values + other.values,
            largest_ulps: self.largest_ulps.max(other.largest_ulps),
            largest_diff: self.largest_diff.max(other.largest_diff),
            largest_share: self.largest_share.max(other.largest_share),
        }
    }
}

/// Scalar slots of an entry's buffers: ((group, binding), byte offset).
pub type Slots = std::collections::BTreeSet<((u32, u32), u32)>;

/// Whether `m` uses a math builtin that is not correctly rounded ([`approx_fn`]): only then
/// can another executor's legitimate math error differ from the reference's, and
/// `crate::sensitivity` measure how much the kernel amplifies it.
pub fn has_inexact_math(m: &ir::Module) -> bool {
    any_op(m, &|_, op| matches!(op, Op::Math(f, _) if approx_fn(*f)))
}

/// Whether `m` holds a fused multiply-add (the source's own `fma` or one the contraction pass
/// formed): without one, compiling the source again without contraction gives the same module.
pub fn has_fma(m: &ir::Module) -> bool {
    any_op(m, &|_, op| matches!(op, Op::Math(MathFunction::Fma, _)))
}

/// Whether `m` uses a math builtin whose WGSL result is undefined on part of its domain:
/// `pow` (of a negative base, or of zero with a non-positive exponent) and `sin`, `cos`,
/// `tan` (no accuracy beyond ±pi). Only then can a conforming Vulkan implementation compute
/// values the reference interpreter's exact C99 results do not predict.
pub fn has_undefined_math(m: &ir::Module) -> bool {
    use MathFunction as M;
    any_op(m, &|_, op| matches!(op, Op::Math(M::Pow | M::Sin | M::Cos | M::Tan, _)))
}

/// Whether `m` exchanges values between subgroup invocations (`subgroupShuffle`,
/// `subgroupBroadcast`, quad operations, ...): reading an inactive invocation that way gives
/// an indeterminate value.
pub fn has_subgroup_exchanges(m: &ir::Module) -> bool {
    any_op(m, &|_, op| matches!(op, Op::SubgroupGather { .. }))
}

/// The scalar slots of `entry` that differ between two runs of the interpreter (bit for bit,
/// NaN equal to NaN): the values that depend on what one run made undefined
/// (`InterpOptions::undefined_math_nan`, `InterpOptions::inactive_read`).
pub fn differing_slots(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
) -> Result<Slots, String> {
    let mut out = Slots::new();
    for (key, s, r, o) in paired_slots(m, entry, reference, other)? {
        let nan = |b: &[u8]| match s {
            Scalar::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]).is_nan(),
            Scalar::F16 => half::f16::from_le_bytes([b[0], b[1]]).is_nan(),
            Scalar::F64 => f64_of(b).is_nan(),
            _ => false,
        };
        if r.1 != o.1 && !(nan(r.1) && nan(o.1)) {
            out.insert((key, r.0));
        }
    }
    Ok(out)
}

/// Every scalar slot of `entry`'s bindings in both buffer sets: (binding, scalar type,
/// (offset, bytes in `a`), (offset, bytes in `b`)).
pub(crate) type SlotPair<'a> = ((u32, u32), Scalar, (u32, &'a [u8]), (u32, &'a [u8]));

pub(crate) fn paired_slots<'a>(
    m: &ir::Module,
    entry: &str,
    a: &'a Buffers,
    b: &'a Buffers,
) -> Result<Vec<SlotPair<'a>>, String> {
    let bindings = entry_bindings(m, entry).map_err(|d| d.message)?;
    let mut out = Vec::new();
    for bd in bindings {
        let key = (bd.group, bd.binding);
        let (Some(r), Some(o)) = (a.get(&key), b.get(&key)) else {
            return Err(format!("buffer @group({}) @binding({}) is missing", bd.group, bd.binding));
        };
        let mut list = Vec::new();
        // A runtime array holds as many elements as fit the reference buffer.
        let len =
            bd.runtime_stride.map_or(0, |s| (r.len() as u32).saturating_sub(bd.size) / s.max(1));
        slots(&m.types, bd.ty, 0, len, &mut list);
        for s in list {
            let at = s.offset as usize;
            let n = s.scalar.size() as usize;
            let (Some(rb), Some(ob)) = (r.get(at..at + n), o.get(at..at + n)) else { continue };
            out.push((key, s.scalar, (s.offset, rb), (s.offset, ob)));
        }
    }
    Ok(out)
}

/// Compares `other` with the `reference` buffers of `entry`. Returns the first few
/// differences as a message naming the binding, the byte offset and both values.
pub fn compare(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
) -> Result<(), String> {
    compare_with(m, entry, reference, other, precision(m, entry))
}

/// [`compare`] under the float bounds of `p` (for example [`precision_for`]'s choice).
pub fn compare_with(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
) -> Result<(), String> {
    compare_except(m, entry, reference, other, p, &Slots::new()).map(|_| ())
}

/// [`compare_with`], leaving out the slots in `skip`; returns those of them that differ.
pub fn compare_except(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
    skip: &Slots,
) -> Result<Slots, String> {
    compare_slots(m, entry, reference, other, p, skip, &Slack::new()).map(|(s, _)| s)
}

/// [`compare_except`], with float slots allowed to differ by their `slack` more; also returns
/// how many values needed it.
pub fn compare_slots(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
    skip: &Slots,
    slack: &Slack,
) -> Result<(Slots, SlackUse), String> {
    let mut diffs = Vec::new();
    let mut count = 0usize;
    let mut skipped = Slots::new();
    let mut used = SlackUse::default();
    for (key, scalar, (at, rb), (_, ob)) in paired_slots(m, entry, reference, other)? {
        let extra = slack.get(&(key, at)).copied().unwrap_or(0.0);
        let floats = float_value(scalar, rb).zip(float_value(scalar, ob));
        let agree = match floats {
            Some((r, o)) => values_agree_within(scalar, r, o, p, 0.0),
            None => rb == ob,
        };
        if agree {
            continue;
        }
        if skip.contains(&(key, at)) {
            skipped.insert((key, at));
            continue;
        }
        if floats.is_some_and(|(r, o)| used.accept(scalar, r, o, p, extra)) {
            continue;
        }
        count += 1;
        if diffs.len() < 3 {
            let name = entry_bindings(m, entry)
                .ok()
                .and_then(|bs| bs.into_iter().find(|b| (b.group, b.binding) == key))
                .map_or_else(String::new, |b| b.name);
            let allowance = if extra > 0.0 {
                format!(" (math sensitivity allows {extra:.1e} more)")
            } else {
                String::new()
            };
            diffs.push(format!(
                "{name} (@group({}) @binding({})) byte {at}: expected {} got {}{allowance}",
                key.0,
                key.1,
                show(scalar, rb),
                show(scalar, ob)
            ));
        }
    }
    if count == 0 {
        Ok((skipped, used))
    } else {
        Err(format!("{count} values differ; {}", diffs.join("; ")))
    }
}

/// The value of a float scalar of type `s` from its little-endian bytes (`None` for the other
/// types; 0 when the slice is shorter than the type).
pub(crate) fn float_value(s: Scalar, b: &[u8]) -> Option<f64> {
    let word =
        |n: usize| b.get(..n).map(|w| w.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x)));
    match s {
        Scalar::F32 => Some(f64::from(f32::from_bits(word(4).unwrap_or(0) as u32))),
        Scalar::F16 => Some(f64::from(half::f16::from_bits(word(2).unwrap_or(0) as u16))),
        Scalar::F64 => Some(f64_of(b)),
        _ => None,
    }
}

/// Whether two float values of type `s` (given exactly as f64) agree under `p` with the bound
/// raised by `extra`: [`floats_agree_within`] for f32 and f16, [`f64s_agree_within`] for f64.
pub(crate) fn values_agree_within(
    s: Scalar,
    reference: f64,
    other: f64,
    p: Precision,
    extra: f64,
) -> bool {
    match s {
        Scalar::F64 => f64s_agree_within(reference, other, extra),
        _ => floats_agree_within(reference as f32, other as f32, s == Scalar::F16, p, extra),
    }
}

/// An f64 from its 8 little-endian bytes (0 when the slice is shorter).
pub(crate) fn f64_of(b: &[u8]) -> f64 {
    b.get(..8).and_then(|s| <[u8; 8]>::try_from(s).ok()).map_or(0.0, f64::from_le_bytes)
}

/// Whether two f64 values agree: NaN with NaN, else within 4 ULP or 1e-12 (module doc).
pub fn f64s_agree(reference: f64, other: f64) -> bool {
    f64s_agree_within(reference, other, 0.0)
}

/// [`f64s_agree`] with the bound raised by `extra`, as [`floats_agree_within`].
pub fn f64s_agree_within(reference: f64, other: f64, extra: f64) -> bool {
    if reference.is_nan() || other.is_nan() {
        return (reference.is_nan() && other.is_nan()) || extra == f64::INFINITY;
    }
    if reference == other {
        return true;
    }
    (reference - other).abs() <= f64_bound(reference, other) + extra
}

/// The largest difference [`f64s_agree`] accepts.
fn f64_bound(reference: f64, other: f64) -> f64 {
    (4.0 * ulp_f64(reference.abs().max(other.abs()))).max(1e-12)
}

fn ulp_f64(x: f64) -> f64 {
    let a = x.abs();
    if a < f64::MIN_POSITIVE {
        f64::from_bits(1)
    } else {
        f64::from_bits(a.to_bits() + 1) - a
    }
}

fn show(s: Scalar, b: &[u8]) -> String {
    match (s, b) {
        (Scalar::F64, _) => format!("{:?}", f64_of(b)),
        (Scalar::I64, _) if b.len() == 8 => format!("{}", f64_of(b).to_bits() as i64),
        (Scalar::U64, _) if b.len() == 8 => format!("{}", f64_of(b).to_bits()),
        (Scalar::F32, [a, b, c, d]) => format!("{:?}", f32::from_le_bytes([*a, *b, *c, *d])),
        (Scalar::F16, [a, b]) => format!("{}", half::f16::from_le_bytes([*a, *b])),
        (Scalar::I32, [a, b, c, d]) => format!("{}", i32::from_le_bytes([*a, *b, *c, *d])),
        (_, [a, b, c, d]) => format!("{}", u32::from_le_bytes([*a, *b, *c, *d])),
        _ => format!("{b:?}"),
    }
}

/// A runtime error from an executor, as a diagnostic.
pub fn runtime(message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(DiagKind::Runtime, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bounds() {
        // 1.0 and its neighbours: 4 ULP of 1.0 is 4 * 2^-23.
        let one_ulp = f32::from_bits(1.0f32.to_bits() + 1);
        assert!(floats_agree(1.0, one_ulp, false, Precision::Exact));
        assert!(!floats_agree(1.0, 1.001, false, Precision::Exact));
        assert!(floats_agree(1.0, 1.0004, false, Precision::Approximate));
        assert!(!floats_agree(1.0, 1.001, false, Precision::Approximate));
        // Precise math: 8 ULP.
        let eight = f32::from_bits(1.0f32.to_bits() + 8);
        let nine = f32::from_bits(1.0f32.to_bits() + 9);
        assert!(floats_agree(1.0, eight, false, Precision::PreciseMath));
        assert!(!floats_agree(1.0, nine, false, Precision::PreciseMath));
        assert!(!floats_agree(1.0, 1.0004, false, Precision::PreciseMath));
        assert!(floats_agree(1.0, 1.0004, false, Precision::FastMath));
        assert!(floats_agree(2.9506474, 2.9506488, false, Precision::Accumulated));
        assert!(!floats_agree(2.95, 2.96, false, Precision::Accumulated));
        // TF32: 2^-9 of 2.0 is 0.0039; the floor 2^-7 is 0.0078.
        assert!(floats_agree(2.0, 2.0035, false, Precision::Tf32));
        assert!(!floats_agree(2.0, 2.0045 + 0.004, false, Precision::Tf32));
        assert!(floats_agree(0.0, 0.0078, false, Precision::Tf32));
        assert!(!floats_agree(0.0, 0.008, false, Precision::Tf32));
        // Cancellation near zero: absolute floor.
        assert!(floats_agree(0.0, 5e-7, false, Precision::Exact));
        assert!(floats_agree(f32::NAN, f32::NAN, false, Precision::Exact));
        assert!(!floats_agree(f32::NAN, 0.0, false, Precision::Exact));
    }

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.next_unit();
            assert_eq!(x.to_bits(), b.next_unit().to_bits());
            assert!((-1.0..1.0).contains(&x));
        }
    }
}
