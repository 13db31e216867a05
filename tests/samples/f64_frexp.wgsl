// dispatch: 2,1,1
// frexp on f64 (naga's result has an i64 exponent): fract in [0.5, 1) with x's sign and
// x = fract * 2^exp, subnormals included; zeros, infinities and NaN give (x, 0). Also on a
// vec2<f64>.
struct Parts {
    fract: f64,
    exp: i64,
    vfract: f64, // frexp(vec2(x, -2x)).fract.y
    vexp: i64,
}

@group(0) @binding(0) var<storage, read> xs: array<f64>;
@group(0) @binding(1) var<storage, read_write> out: array<Parts>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = xs[gid.x];
    let s = frexp(x);
    let v = frexp(vec2<f64>(x, -2.0lf * x));
    out[gid.x] = Parts(s.fract, s.exp, v.fract.y, v.exp.y);
}
