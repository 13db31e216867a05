// dispatch: 2,1,1
// Conversions between the 64-bit and the 32-bit scalars: integer widening extends by the
// source's signedness, narrowing keeps the low bits, float -> int truncates and saturates
// (NaN -> 0), int -> float and f64 -> f32 round to nearest even; bitcasts keep the bits.
struct Conv {
    i_from_f: i64,
    u_from_f: u64,
    f_from_i: f64,
    f_from_u: f64,
    f32_from_f64: f32,
    f64_from_f32: f64,
    i64_from_i32: i64,
    u64_from_i32: u64,
    u64_from_u32: u64,
    i32_from_i64: i32,
    u32_from_u64: u32,
    f32_from_i64: f32,
    bits: u64,
    back: f64,
    i32_from_f64: i32,
    u32_from_f64: u32,
}

@group(0) @binding(0) var<storage, read> fs: array<f64>;
@group(0) @binding(1) var<storage, read> is: array<i64>;
@group(0) @binding(2) var<storage, read> ws: array<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<Conv>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let f = fs[i];
    let n = is[i];
    let w = ws[i];
    var c: Conv;
    c.i_from_f = i64(f);
    c.u_from_f = u64(f);
    c.f_from_i = f64(n);
    c.f_from_u = f64(bitcast<u64>(n));
    c.f32_from_f64 = f32(f);
    c.f64_from_f32 = f64(f32(f) * 0.5f);
    c.i64_from_i32 = i64(w);
    c.u64_from_i32 = u64(w);
    c.u64_from_u32 = u64(bitcast<u32>(w));
    c.i32_from_i64 = i32(n);
    c.u32_from_u64 = u32(bitcast<u64>(n));
    c.f32_from_i64 = f32(n);
    c.bits = bitcast<u64>(f);
    c.back = bitcast<f64>(bitcast<u64>(f) ^ 0x8000000000000000lu);
    c.i32_from_f64 = i32(f);
    c.u32_from_f64 = u32(f);
    out[i] = c;
}
