// dispatch: 2,1,1
// Value conversions: f32 -> i32/u32 (truncating, saturating at the range ends),
// i32/u32 -> f32 (rounding to nearest), bool -> integers and floats, and bitcasts.
struct Converted {
    to_i: i32,
    to_u: u32,
    from_i: f32,
    from_u: f32,
    bits: u32,
    from_bits: f32,
    from_bool: u32,
    vec_conv: vec2<i32>,
}

@group(0) @binding(0) var<storage, read> floats: array<f32>;
@group(0) @binding(1) var<storage, read> ints: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<Converted>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let f = floats[gid.x];
    let n = ints[gid.x];
    var r: Converted;
    r.to_i = i32(f);
    r.to_u = u32(f);
    r.from_i = f32(n);
    r.from_u = f32(bitcast<u32>(n));
    r.bits = bitcast<u32>(f);
    r.from_bits = bitcast<f32>((bitcast<u32>(n) & 0x807fffffu) | 0x3f800000u);
    r.from_bool = u32(f > 0.0) + 2u * u32(n < 0) + u32(f32(f < 1.0) * 4.0);
    r.vec_conv = vec2<i32>(vec2<f32>(f, -f) * 0.5);
    out[gid.x] = r;
}
