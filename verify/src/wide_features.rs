//! Which of wgpu's 64-bit shader features a module needs, so the lavapipe executors can
//! request them and, where the adapter lacks one, skip with a reason instead of failing.

use dianran_frontend::ir::{self, AtomicOp, Op, Scalar, Type, TypeId};

/// A 64-bit capability of WGSL that a device must grant (wgpu's feature of the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WideFeature {
    /// `f64` values (`SHADER_F64`).
    F64,
    /// `i64`/`u64` values (`SHADER_INT64`).
    Int64,
    /// `atomicMin`/`atomicMax` on 64-bit atomics (`SHADER_INT64_ATOMIC_MIN_MAX`).
    Int64AtomicMinMax,
    /// Every other atomic operation on 64-bit atomics (`SHADER_INT64_ATOMIC_ALL_OPS`).
    Int64AtomicAllOps,
}

impl WideFeature {
    /// wgpu's name of the feature.
    pub fn wgpu_name(self) -> &'static str {
        match self {
            WideFeature::F64 => "SHADER_F64",
            WideFeature::Int64 => "SHADER_INT64",
            WideFeature::Int64AtomicMinMax => "SHADER_INT64_ATOMIC_MIN_MAX",
            WideFeature::Int64AtomicAllOps => "SHADER_INT64_ATOMIC_ALL_OPS",
        }
    }
}

fn scalars(types: &ir::Types, t: TypeId, depth: u32, out: &mut Vec<Scalar>) {
    if depth > 64 {
        return;
    }
    match types.get(t) {
        Type::Scalar(s) | Type::Atomic(s) => out.push(*s),
        Type::Vector { scalar, .. } | Type::Matrix { scalar, .. } => out.push(*scalar),
        Type::Array { base, .. } | Type::Pointer { base, .. } => {
            scalars(types, *base, depth + 1, out)
        }
        Type::Struct { members, .. } => {
            for m in members {
                scalars(types, m.ty, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The 64-bit features `m` needs, sorted, without repeats.
pub fn needed(m: &ir::Module) -> Vec<WideFeature> {
    let mut found = Vec::new();
    for t in 0..m.types.len() {
        scalars(&m.types, TypeId(t as u32), 0, &mut found);
    }
    let mut out = Vec::new();
    if found.contains(&Scalar::F64) {
        out.push(WideFeature::F64);
    }
    if found.iter().any(|s| matches!(s, Scalar::I64 | Scalar::U64)) {
        out.push(WideFeature::Int64);
    }
    let atomic64 = |f: &ir::Function, p: ir::ValueId| {
        f.values.get(p.index()).is_some_and(|v| match m.types.get(v.ty) {
            Type::Pointer { base, .. } => {
                matches!(m.types.get(*base), Type::Atomic(s) if s.is_64())
            }
            _ => false,
        })
    };
    fn walk(b: &ir::Block, f: &ir::Function, visit: &mut dyn FnMut(&ir::Function, &Op)) {
        for i in &b.insts {
            visit(f, &i.op);
            for nb in i.op.blocks() {
                walk(nb, f, visit);
            }
        }
    }
    let (mut min_max, mut other) = (false, false);
    for f in &m.functions {
        walk(&f.body, f, &mut |f, op| match op {
            Op::Atomic { ptr, op: AtomicOp::Min | AtomicOp::Max, .. } if atomic64(f, *ptr) => {
                min_max = true
            }
            Op::Atomic { ptr, .. } | Op::AtomicCompareExchange { ptr, .. } if atomic64(f, *ptr) => {
                other = true
            }
            Op::Load(ptr) | Op::Store { ptr, .. } if atomic64(f, *ptr) => other = true,
            _ => {}
        });
    }
    if min_max {
        out.push(WideFeature::Int64AtomicMinMax);
    }
    if other {
        out.push(WideFeature::Int64AtomicAllOps);
    }
    out
}

/// Why lavapipe (through naga's SPIR-V backend and Mesa) cannot give a comparable result for
/// `m`'s 64-bit operations, if it cannot; checked on naga 30 and Mesa's llvmpipe. `printed`:
/// the WGSL is dianran's own output, which spells the first four around naga's bugs
/// (`dianran_wgsl`'s `wide` module), so only the last two apply to it:
/// * `countLeadingZeros`/`firstLeadingBit` on 64 bits: naga's SPIR-V writer panics
///   (gfx-rs/wgpu#5276);
/// * `countTrailingZeros`/`firstTrailingBit` on 64 bits: naga emits GLSL.std.450 `FindILsb`,
///   which is 32-bit only (llvmpipe answers 64 for every input);
/// * `reverseBits` on 64 bits: llvmpipe's LLVM aborts ("Cannot emit physreg copy");
/// * widening between signed and unsigned (`u64(i32)`, `i64(u32)`): naga's SPIR-V writer
///   extends by the *destination's* signedness (`UConvert`/`SConvert`) where naga's constant
///   evaluator, C, Rust and dianran extend by the source's;
/// * `exp`, `exp2`, `log`, `log2`, `pow`, `inverseSqrt` and the trigonometric, hyperbolic and
///   inverse functions on f64: GLSL.std.450 defines them for 16/32-bit floats only, and
///   llvmpipe returns garbage for f64 operands;
/// * `frexp` on f64: naga's i64 exponent comes back zero-extended from 32 bits (2^32 - 996
///   for -996), and subnormal fractions are wrong.
pub fn lavapipe_blocker(m: &ir::Module, printed: bool) -> Option<&'static str> {
    use ir::MathFunction as M;
    let wide_arg = |f: &ir::Function, v: &ir::ValueId| {
        f.values.get(v.index()).and_then(|d| m.types.scalar_of(d.ty)).is_some_and(|s| s.is_64())
    };
    let mut why = None;
    for f in &m.functions {
        fn walk(b: &ir::Block, visit: &mut dyn FnMut(&Op)) {
            for i in &b.insts {
                visit(&i.op);
                for nb in i.op.blocks() {
                    walk(nb, visit);
                }
            }
        }
        walk(&f.body, &mut |op| {
            let found = match op {
                Op::Math(M::CountLeadingZeros | M::FirstLeadingBit, a) if !printed && wide_arg(f, &a[0]) => {
                    Some("naga's SPIR-V writer panics on 64-bit countLeadingZeros (gfx-rs/wgpu#5276)")
                }
                Op::Math(M::CountTrailingZeros | M::FirstTrailingBit, a) if !printed && wide_arg(f, &a[0]) => {
                    Some("naga emits the 32-bit-only FindILsb for 64-bit countTrailingZeros")
                }
                Op::Math(M::ReverseBits, a) if !printed && wide_arg(f, &a[0]) => {
                    Some("llvmpipe aborts on 64-bit reverseBits")
                }
                Op::Math(
                    M::Exp
                    | M::Exp2
                    | M::Log
                    | M::Log2
                    | M::Pow
                    | M::InverseSqrt
                    | M::Sin
                    | M::Cos
                    | M::Tan
                    | M::Sinh
                    | M::Cosh
                    | M::Tanh
                    | M::Asin
                    | M::Acos
                    | M::Atan
                    | M::Atan2
                    | M::Asinh
                    | M::Acosh
                    | M::Atanh,
                    a,
                ) if wide_arg(f, &a[0]) => Some(
                    "GLSL.std.450's exp/exp2/log/log2/pow/inverseSqrt and trigonometric, \
                     hyperbolic and inverse functions are 16/32-bit only; lavapipe computes \
                     garbage for f64 arguments",
                ),
                Op::Math(M::Frexp, a) if wide_arg(f, &a[0]) => Some(
                    "naga's f64 frexp on llvmpipe zero-extends the exponent from 32 bits and \
                     mis-scales subnormal fractions",
                ),
                Op::Convert(a, to) if !printed => {
                    let from = f.values.get(a.index()).and_then(|d| m.types.scalar_of(d.ty));
                    from.is_some_and(|s| {
                        s.is_int() && to.is_int() && s.size() < to.size() && s.is_signed() != to.is_signed()
                    })
                    .then_some(
                        "naga's SPIR-V writer extends i32 -> u64 and u32 -> i64 by the \
                         destination's signedness, not the source's",
                    )
                }
                _ => None,
            };
            if why.is_none() {
                why = found;
            }
        });
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(src: &str) -> ir::Module {
        dianran_frontend::compile("t.wgsl", src, &Default::default()).expect("compiles")
    }

    #[test]
    fn finds_each_feature() {
        let m = compile(
            "@group(0) @binding(0) var<storage, read_write> a: atomic<u64>;
             @group(0) @binding(1) var<storage, read_write> f: array<f64>;
             @compute @workgroup_size(1) fn main() { atomicMax(&a, 1lu); f[0] = 1.0lf; }",
        );
        assert_eq!(
            needed(&m),
            vec![WideFeature::F64, WideFeature::Int64, WideFeature::Int64AtomicMinMax]
        );
        let m = compile(
            "@group(0) @binding(0) var<storage, read_write> a: atomic<i64>;
             @compute @workgroup_size(1) fn main() { atomicAdd(&a, 1li); }",
        );
        assert_eq!(needed(&m), vec![WideFeature::Int64, WideFeature::Int64AtomicAllOps]);
        let m = compile(
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
             @compute @workgroup_size(1) fn main() { a[0] = 1u; }",
        );
        assert!(needed(&m).is_empty());
    }

    #[test]
    fn printed_wgsl_is_blocked_only_by_f64_transcendentals() {
        let m = compile(
            "@group(0) @binding(0) var<storage, read_write> a: array<u64>;
             @compute @workgroup_size(1) fn main() {
                 a[0] = countLeadingZeros(a[1]) + u64(i32(a[2])) + reverseBits(a[3]);
             }",
        );
        assert!(lavapipe_blocker(&m, false).is_some());
        assert_eq!(lavapipe_blocker(&m, true), None);
        let m = compile(
            "@group(0) @binding(0) var<storage, read_write> f: array<f64>;
             @compute @workgroup_size(1) fn main() { f[0] = exp(f[1]); }",
        );
        assert!(lavapipe_blocker(&m, true).is_some());
    }
}
