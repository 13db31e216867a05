//! The PTX the 64-bit scalars select: register class, instruction types and the WGSL guards
//! (ptxas acceptance of the same forms: `samples_compile_and_pass_ptxas` over the 64-bit
//! samples).

use super::{compile_module, Options};

fn ptx(src: &str) -> String {
    let m = dianran_frontend::compile("t.wgsl", src, &Default::default())
        .unwrap_or_else(|d| panic!("frontend: {d}"));
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let parsed = crate::parse_module(&out.text).expect("our parser reads it back");
    parsed.validate().expect("the model accepts it");
    out.text
}

fn has(text: &str, needle: &str) {
    assert!(text.contains(needle), "missing `{needle}` in\n{text}");
}

#[test]
fn integer_division_guards_zero_and_min_by_minus_one() {
    let t = ptx("@group(0) @binding(0) var<storage, read_write> a: array<i64>;
         @compute @workgroup_size(1) fn main() { a[0] = a[1] / a[2]; a[3] = a[4] % a[5]; }");
    has(&t, "ld.global.u64");
    has(&t, "st.global.u64");
    has(&t, "setp.eq.u64");
    has(&t, "setp.eq.s64");
    // i64::MIN's bits
    has(&t, "0x8000000000000000");
    has(&t, "selp.b64");
    has(&t, "div.s64");
    has(&t, "rem.s64");
}

#[test]
fn shifts_mask_a_u32_amount_to_63() {
    let t = ptx("@group(0) @binding(0) var<storage, read_write> a: array<u64>;
         @group(0) @binding(1) var<storage, read_write> s: array<u32>;
         @group(0) @binding(2) var<storage, read_write> b: array<i64>;
         @compute @workgroup_size(1) fn main() { a[0] = a[1] << s[0]; b[0] = b[1] >> s[1]; }");
    has(&t, ", 63;");
    has(&t, "shl.b64");
    has(&t, "shr.s64");
}

#[test]
fn f64_operations_round_to_nearest_explicitly() {
    let t = ptx("@group(0) @binding(0) var<storage, read_write> a: array<f64>;
         @compute @workgroup_size(1) fn main() {
             a[0] = (a[1] / a[2] + a[3]) * a[4];
             a[5] = sqrt(a[6]);
             a[7] = fma(a[8], a[9], a[10]);
             a[11] = floor(a[12]);
         }");
    has(&t, "div.rn.f64");
    has(&t, "mul.rn.f64");
    has(&t, "add.rn.f64");
    has(&t, "sqrt.rn.f64");
    has(&t, "fma.rn.f64");
    has(&t, "cvt.rmi.f64.f64");
}

#[test]
fn conversions_truncate_saturate_and_extend_by_source_sign() {
    let t = ptx("@group(0) @binding(0) var<storage, read_write> f: array<f64>;
         @group(0) @binding(1) var<storage, read_write> i: array<i64>;
         @group(0) @binding(2) var<storage, read_write> w: array<i32>;
         @group(0) @binding(3) var<storage, read_write> u: array<u64>;
         @compute @workgroup_size(1) fn main() {
             i[0] = i64(f[0]);
             f[1] = f64(i[1]);
             u[0] = u64(w[0]);
             w[1] = i32(i[2]);
             w[2] = bitcast<i32>(f32(f[2]));
         }");
    has(&t, "cvt.rzi.s64.f64");
    has(&t, "cvt.rn.f64.s64");
    has(&t, "cvt.u64.s32");
    has(&t, "cvt.u32.u64");
    has(&t, "cvt.rn.f32.f64");
}

#[test]
fn atomics_use_64_bit_forms() {
    let t = ptx("@group(0) @binding(0) var<storage, read_write> a: atomic<u64>;
         @group(0) @binding(1) var<storage, read_write> b: atomic<i64>;
         var<workgroup> w: atomic<u64>;
         @compute @workgroup_size(1) fn main() {
             atomicAdd(&a, 1lu); atomicMin(&b, -1li); atomicMax(&a, 2lu); atomicOr(&a, 4lu);
             atomicXor(&a, 8lu); atomicAnd(&a, 7lu); atomicExchange(&b, 3li);
             atomicSub(&w, 1lu);
             let r = atomicCompareExchangeWeak(&a, 1lu, 2lu);
             if r.exchanged { atomicStore(&b, 0li); }
         }");
    has(&t, "atom.global.add.u64");
    has(&t, "atom.global.min.s64");
    has(&t, "atom.global.max.u64");
    has(&t, "atom.global.or.b64");
    has(&t, "atom.global.xor.b64");
    has(&t, "atom.global.and.b64");
    has(&t, "atom.global.exch.b64");
    has(&t, "atom.shared.add.u64");
    has(&t, "neg.s64");
    has(&t, "atom.global.cas.b64");
    has(&t, "st.relaxed.gpu.global.u64");
}

/// Every WGSL math builtin naga accepts on 64-bit operands has a PTX lowering (the
/// diagnostic in `math64` is for IR no WGSL produces).
#[test]
fn every_64_bit_math_builtin_compiles() {
    let text = ptx("@group(0) @binding(0) var<storage, read_write> a: array<f64>;
         @group(0) @binding(1) var<storage, read_write> u: array<u64>;
         @group(0) @binding(2) var<storage, read_write> s: array<i64>;
         @compute @workgroup_size(1) fn k() {
             let x = a[1];
             let v = vec3<f64>(a[2], a[3], a[4]);
             let w = vec3<f64>(a[5], a[6], a[7]);
             let m = mat3x3<f64>(v, w, v + w);
             let mo = modf(x);
             let fr = frexp(x);
             a[0] = abs(x) + min(x, 1.0lf) + max(x, 1.0lf) + clamp(x, 0.0lf, 1.0lf) + sign(x)
                 + saturate(x) + sqrt(x) + fma(x, x, x) + floor(x) + ceil(x) + trunc(x)
                 + round(x) + fract(x) + mix(x, 2.0lf, 0.5lf) + step(x, 1.0lf)
                 + smoothstep(0.0lf, 1.0lf, x) + degrees(x) + radians(x) + dot(v, w)
                 + cross(v, w).x + length(v) + distance(v, w) + normalize(v).y
                 + faceForward(v, w, v).z + reflect(v, w).x + refract(v, w, 0.5lf).y
                 + mo.fract + mo.whole + fr.fract + f64(fr.exp) + ldexp(x, 3) + exp(x)
                 + exp2(x) + log(x) + log2(x) + pow(x, 2.0lf) + inverseSqrt(x) + sin(x)
                 + cos(x) + tan(x) + sinh(x) + cosh(x) + tanh(x) + asin(x) + acos(x)
                 + atan(x) + atan2(x, 1.0lf) + asinh(x) + acosh(x) + atanh(x)
                 + determinant(m) + transpose(m)[0][1];
             let b = u[1];
             u[0] = countOneBits(b) + countLeadingZeros(b) + countTrailingZeros(b)
                 + firstLeadingBit(b) + firstTrailingBit(b) + extractBits(b, 3u, 7u)
                 + insertBits(b, b, 5u, 9u) + reverseBits(b) + min(b, 3lu) + max(b, 3lu)
                 + clamp(b, 1lu, 9lu) + abs(b) + dot(vec2<u64>(b, b), vec2<u64>(b, b));
             let c = s[1];
             s[0] = abs(c) + sign(c) + countOneBits(c) + firstLeadingBit(c)
                 + extractBits(c, 3u, 7u) + min(c, 3li);
         }");
    has(&text, "bfind.u64");
    has(&text, "bfe.s64");
    has(&text, "bfi.b64");
    has(&text, "copysign.f64");
}

#[test]
fn f64_trig_hyperbolic_and_inverse_compile() {
    let m = dianran_frontend::compile(
        "t.wgsl",
        "@group(0) @binding(0) var<storage, read_write> a: array<f64>;
         @compute @workgroup_size(1) fn k() {
             a[0] = sin(a[1]) + cos(a[2]) + tan(a[3]) + sinh(a[4]) + cosh(a[5]) + tanh(a[6]);
             a[7] = asin(a[8]) + acos(a[9]) + atan(a[10]) + atan2(a[11], a[12]);
             a[13] = asinh(a[14]) + acosh(a[15]) + atanh(a[16]);
         }",
        &Default::default(),
    )
    .expect("naga accepts these on f64");
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(out.text.contains("fma.rn.f64"), "{}", out.text);
}

#[test]
fn f64_exp_compiles() {
    let m = dianran_frontend::compile(
        "t.wgsl",
        "@group(0) @binding(0) var<storage, read_write> a: array<f64>;
         @compute @workgroup_size(1) fn k() { a[0] = exp(a[1]) + pow(a[2], a[3]); }",
        &Default::default(),
    )
    .expect("naga accepts exp on f64");
    let out = compile_module(&m, &Options::default());
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    assert!(out.text.contains("fma.rn.f64"), "{}", out.text);
}
