// dispatch: 2,1,1
// The composite builtins on f64: mix, step, saturate, smoothstep, degrees, radians, and on
// vec3<f64> length, distance, normalize, cross, reflect and faceForward.
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
    out[i] = o;
}
