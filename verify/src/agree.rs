//! Seeded random buffer contents and the comparison rules of `dianran verify`.
//!
//! # Random contents
//!
//! Every scalar of every buffer gets a value valid for its type: floats uniform in [-1, 1)
//! (never NaN or infinite), `u32` in [0, 64) and `i32` in [-32, 32) (small, so kernels that
//! use buffer values as sizes, indices or loop counts stay in range), `bool` 0 or 1.
//!
//! # Comparison rules
//!
//! Integers (and bools) must be bit-identical. Floats are compared with a bound that depends
//! on the operations the entry point uses:
//!
//! | entry uses | f32 bound | f16 bound |
//! |---|---|---|
//! | only `+ - * /`, `sqrt`, `fma`, conversions, min/max, ... | 4 ULP, or 1e-6 absolute | 2 ULP, or 1e-3 absolute |
//! | cooperative-matrix products (`coopMultiplyAdd`) | 2^-10 relative, or 1e-4 absolute | 2^-8 relative, or 1e-2 absolute |
//! | approximate math (`exp`, `log`, `pow`, trigonometry, `tanh`, `inverseSqrt`, ...) | 2^-11 relative, or 2^-11 absolute | 2^-8 relative, or 1e-2 absolute |
//! | f32 x f32 cooperative products compiled with `--tf32` ([`Precision::Tf32`]) | 2^-9 relative, or 2^-7 absolute | as cooperative products |
//!
//! TF32 rounds each f32 product operand to a 10-bit mantissa, so a product `sum_k a_k * b_k`
//! is off by up to about `2^-9 * sum_k |a_k * b_k|` (the bound `verify/tests/coop_tf32.rs`
//! checks element by element). A buffer comparison does not know the terms, so the TF32 class
//! bounds the difference by 2^-9 of the result's magnitude, with an absolute floor of
//! 2^-7 = 2^-9 * 4: the expected `sum_k |a_k * b_k|` of a 16-term product of the random
//! inputs below (uniform in [-1, 1), so `E|a * b|` = 1/4). Only the executors that ran TF32
//! PTX are compared under it; [`precision_with_tf32`] chooses it.
//!
//! Tensor cores accumulate a product's K terms in their own order (and without IEEE rounding of
//! every partial sum), so coop products get a bound relative to the result. The approximate
//! class follows the weakest guarantee among the executors: Vulkan's minimum precision for
//! `sin`/`cos` is 2^-11 absolute, and llvmpipe uses it (PTX's `.approx` forms are far tighter).
//! The absolute floor exists because fma contraction (PTX fuses `a * b + c`, the interpreter
//! does not) changes a result by up to one rounding of the product, which can be large relative
//! to a result near zero after cancellation: such a difference is not a failure. Values that
//! are NaN on both sides agree; NaN against a number does not.

use crate::buffers::{entry_bindings, Buffers};
use dianran_frontend::ir::{self, MathFunction, Op, Scalar, Type, TypeId};
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
    /// Approximate transcendental functions are involved.
    Approximate,
    /// f32 x f32 cooperative products on TF32 tensor cores (`--tf32`): 10-bit mantissa
    /// operands.
    Tf32,
}

/// The precision class of `entry`: approximate when it (or a function it calls) uses a
/// transcendental math function.
pub fn precision(m: &ir::Module, entry: &str) -> Precision {
    fn approx_fn(f: MathFunction) -> bool {
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
    // The whole module is scanned: cheap, and functions the entry calls are covered.
    let _ = entry;
    if any_op(m, &|_, op| matches!(op, Op::Math(f, _) if approx_fn(*f))) {
        Precision::Approximate
    } else if any_op(m, &|_, op| matches!(op, Op::CoopMultiplyAdd(..))) {
        Precision::Accumulated
    } else {
        Precision::Exact
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

/// The precision class of `entry` as run by an executor whose PTX was compiled with `tf32`
/// ([`Precision::Tf32`] when that is on and the module multiplies f32 cooperative matrices,
/// the looser of the bounds; otherwise [`precision`]).
pub fn precision_with_tf32(m: &ir::Module, entry: &str, tf32: bool) -> Precision {
    let f32_product = |f: &ir::Function, op: &Op| match op {
        Op::CoopMultiplyAdd(a, _, _) => f.values.get(a.index()).is_some_and(|v| {
            matches!(m.types.get(v.ty), Type::CoopMatrix { scalar: Scalar::F32, .. })
        }),
        _ => false,
    };
    if tf32 && any_op(m, &f32_product) {
        Precision::Tf32
    } else {
        precision(m, entry)
    }
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
    if reference.is_nan() || other.is_nan() {
        return reference.is_nan() && other.is_nan();
    }
    if reference == other {
        return true;
    }
    let diff = (reference - other).abs();
    let big = reference.abs().max(other.abs());
    match (p, is_f16) {
        (Precision::Exact, false) => diff <= 4.0 * ulp_f32(big) || diff <= 1e-6,
        (Precision::Exact, true) => diff <= 2.0 * ulp_f16(big) || diff <= 1e-3,
        (Precision::Accumulated, false) => diff <= big * (1.0 / 1024.0) || diff <= 1e-4,
        (Precision::Approximate, false) => diff <= (big * (1.0 / 2048.0)).max(1.0 / 2048.0),
        (Precision::Tf32, false) => diff <= big * (1.0 / 512.0) || diff <= 1.0 / 128.0,
        (Precision::Accumulated | Precision::Approximate | Precision::Tf32, true) => {
            diff <= big * (1.0 / 256.0) || diff <= 1e-2
        }
    }
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

/// [`compare`] under the float bounds of `p` (for example [`precision_with_tf32`]'s choice).
pub fn compare_with(
    m: &ir::Module,
    entry: &str,
    reference: &Buffers,
    other: &Buffers,
    p: Precision,
) -> Result<(), String> {
    let bindings = entry_bindings(m, entry).map_err(|d| d.message)?;
    let mut diffs = Vec::new();
    let mut count = 0usize;
    for b in bindings {
        let key = (b.group, b.binding);
        let (Some(r), Some(o)) = (reference.get(&key), other.get(&key)) else {
            return Err(format!("buffer @group({}) @binding({}) is missing", b.group, b.binding));
        };
        let mut list = Vec::new();
        // A runtime array holds as many elements as fit the reference buffer.
        let len =
            b.runtime_stride.map_or(0, |s| (r.len() as u32).saturating_sub(b.size) / s.max(1));
        slots(&m.types, b.ty, 0, len, &mut list);
        for s in list {
            let at = s.offset as usize;
            let n = s.scalar.size() as usize;
            let (Some(rb), Some(ob)) = (r.get(at..at + n), o.get(at..at + n)) else { continue };
            let ok = match s.scalar {
                Scalar::F32 => floats_agree(
                    f32::from_le_bytes([rb[0], rb[1], rb[2], rb[3]]),
                    f32::from_le_bytes([ob[0], ob[1], ob[2], ob[3]]),
                    false,
                    p,
                ),
                Scalar::F16 => floats_agree(
                    half::f16::from_le_bytes([rb[0], rb[1]]).to_f32(),
                    half::f16::from_le_bytes([ob[0], ob[1]]).to_f32(),
                    true,
                    p,
                ),
                _ => rb == ob,
            };
            if !ok {
                count += 1;
                if diffs.len() < 3 {
                    diffs.push(format!(
                        "{} (@group({}) @binding({})) byte {}: expected {} got {}",
                        b.name,
                        b.group,
                        b.binding,
                        at,
                        show(s.scalar, rb),
                        show(s.scalar, ob)
                    ));
                }
            }
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(format!("{count} values differ; {}", diffs.join("; ")))
    }
}

fn show(s: Scalar, b: &[u8]) -> String {
    match (s, b) {
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
