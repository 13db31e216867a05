// dispatch: 4,1,1
// Transcendental and other math builtins on f32.
@group(0) @binding(0) var<storage, read> xs: array<f32>;   // in [-1, 1]
@group(0) @binding(1) var<storage, read> ps: array<f32>;   // in [0.1, 10]
// 18 results per element.
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = xs[i];
    let p = ps[i];
    let o = i * 18u;
    out[o + 0u] = exp(x);
    out[o + 1u] = exp2(x * 4.0);
    out[o + 2u] = log(p);
    out[o + 3u] = log2(p);
    out[o + 4u] = sqrt(p);
    out[o + 5u] = inverseSqrt(p);
    out[o + 6u] = pow(p, x);
    out[o + 7u] = sin(x * 3.0);
    out[o + 8u] = cos(x * 3.0);
    out[o + 9u] = tan(x);
    out[o + 10u] = atan(x * 5.0);
    out[o + 11u] = atan2(x, p - 5.0);
    out[o + 12u] = tanh(x * 2.0);
    out[o + 13u] = asin(x);
    out[o + 14u] = acos(x);
    out[o + 15u] = sinh(x) + cosh(x);
    out[o + 16u] = degrees(x) + radians(p);
    out[o + 17u] = length(vec2<f32>(x, p)) + distance(x, p);
}
