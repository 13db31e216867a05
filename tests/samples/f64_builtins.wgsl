// dispatch: 2,1,1
// The composite builtins on f64: mix, step, saturate, smoothstep, degrees, radians, modf,
// ldexp (into the subnormal range and past overflow), and on vec3<f64> length, distance,
// normalize, cross, reflect, refract and faceForward; determinant and transpose of f64
// matrices.
struct Out {
    v: vec3<f64>, // normalize(p)
    c: vec3<f64>, // cross(p, q)
    r: vec3<f64>, // reflect(p, n)
    f: vec3<f64>, // faceForward(p, q, n)
    m: f64,       // mix(x, y, t)
    st: f64,      // step(x, y)
    sat: f64,     // saturate(x)
    sm: f64,      // smoothstep(-1, 2, x)
    deg: f64,     // degrees(x)
    rad: f64,     // radians(y)
    len: f64,     // length(p)
    dist: f64,    // distance(p, q)
    mf: f64,      // modf(y).fract
    mw: f64,      // modf(y).whole
    ld: f64,      // ldexp(x, e), e in [-1150, 1150)
    rf: vec3<f64>, // refract(normalize(p), normalize(q), 0.66)
    det: f64,     // determinant(mat3x3(p, q, p + q + a.w)) + transpose(mat2x3(p, q))[2][1]
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f64>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f64>>;
@group(0) @binding(2) var<storage, read_write> out: array<Out>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let p = a[i].xyz;
    let q = b[i].xyz;
    let x = a[i].w;
    let y = b[i].w;
    let n = normalize(q);
    var o: Out;
    o.v = normalize(p);
    o.c = cross(p, q);
    o.r = reflect(p, n);
    o.f = faceForward(p, q, n);
    o.m = mix(x, y, 0.25lf);
    o.st = step(x, y);
    o.sat = saturate(x);
    o.sm = smoothstep(-1.0lf, 2.0lf, x);
    o.deg = degrees(x);
    o.rad = radians(y);
    o.len = length(p);
    o.dist = distance(p, q);
    let m = modf(y);
    o.mf = m.fract;
    o.mw = m.whole;
    o.ld = ldexp(x, i32((i * 37u) % 2300u) - 1150);
    o.rf = refract(o.v, n, 0.66lf);
    o.det = determinant(mat3x3<f64>(p, q, p + q + x)) + transpose(mat2x3<f64>(p, q))[2][1];
    out[i] = o;
}
