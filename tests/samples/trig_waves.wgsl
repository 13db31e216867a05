// dispatch: 4,1,1
// Trigonometry far from zero, as animated shaders write it: sin/cos/tan of time-scaled
// arguments (up to about 1e5 and 1e9, where the argument reduction must be exact), plus the
// inverse and hyperbolic functions of the results.
@group(0) @binding(0) var<storage, read> t: array<f32>;   // in [-1, 1]
// Eight results per element.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&t) || 8u * i + 7u >= arrayLength(&out)) {
        return;
    }
    let v = t[i];
    let big = v * 98765.4;
    let huge = v * 1.0e9;
    let o = 8u * i;
    out[o] = sin(big);
    out[o + 1u] = cos(big + 0.5);
    out[o + 2u] = sin(huge) * cos(huge);
    out[o + 3u] = tan(v * 1234.5);
    out[o + 4u] = atan2(sin(big), cos(huge));
    out[o + 5u] = asin(v * 0.99) + acos(v * 0.5) + atan(v * 50.0);
    out[o + 6u] = sinh(v * 2.0) - cosh(v) + tanh(v * 8.0);
    out[o + 7u] = asinh(v * 100.0) + atanh(v * 0.9) + acosh(2.0 + v);
}
