// dispatch: 4,1,1
// f64 transcendental functions (the precise f64 library on PTX, docs/math.md "f64 functions"):
// the trigonometric, hyperbolic and inverse functions, atan2 in all four quadrants, and
// exp/log/pow, one per output so each result is a single library call.
struct OutMath {
    s: f64,
    c: f64,
    t: f64,
    sh: f64,
    ch: f64,
    th: f64,
    asn: f64,
    acs: f64,
    atn: f64,
    angle: f64,
    ash: f64,
    ach: f64,
    ath: f64,
    ex: f64,
    lg: f64,
    pw: f64,
}

@group(0) @binding(0) var<storage, read> a: array<f64>;
@group(0) @binding(1) var<storage, read> b: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<OutMath>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    // In (-1, 1) for the inverse sine, cosine and hyperbolic tangent.
    let u = x / (1.0lf + abs(x));
    var o: OutMath;
    o.s = sin(x);
    o.c = cos(x);
    o.t = tan(x);
    o.sh = sinh(y);
    o.ch = cosh(y);
    o.th = tanh(x);
    o.asn = asin(u);
    o.acs = acos(u);
    o.atn = atan(x);
    o.angle = atan2(y, x);
    o.ash = asinh(x);
    o.ach = acosh(2.0lf + abs(y));
    o.ath = atanh(u);
    o.ex = exp(y);
    o.lg = log(abs(x));
    o.pw = pow(abs(x), y);
    out[i] = o;
}
