// dispatch: 4,1,1
// f64 arithmetic, each operation rounded once to nearest even: + - * / %, fma, sqrt,
// floor/ceil/trunc/round/fract, abs, sign, min/max/clamp, comparisons and dot products.
struct OutF64 {
    sum: f64,
    diff: f64,
    prod: f64,
    quot: f64,
    rem: f64,
    fused: f64,
    root: f64,
    rounded: vec4<f64>,
    fr: f64,
    mag: f64,
    sgn: f64,
    mm: f64,
    dotp: f64,
    flags: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f64>;
@group(0) @binding(1) var<storage, read> b: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<OutF64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    var o: OutF64;
    o.sum = x + y;
    o.diff = x - y;
    o.prod = x * y;
    o.quot = x / y;
    o.rem = x % y;
    o.fused = fma(x, y, 0.1lf);
    o.root = sqrt(abs(x));
    o.rounded = vec4<f64>(floor(x), ceil(x), trunc(x), round(x));
    o.fr = fract(y);
    o.mag = abs(y) * 3.0lf;
    o.sgn = sign(x);
    o.mm = clamp(x, -0.5lf, 0.5lf) + min(x, y) * max(x, y);
    o.dotp = dot(vec3<f64>(x, y, 1.5lf), vec3<f64>(y, x, -2.0lf));
    var f = 0u;
    if (x < y) { f |= 1u; }
    if (x <= y) { f |= 2u; }
    if (x == y) { f |= 4u; }
    if (x != y) { f |= 8u; }
    o.flags = f;
    out[i] = o;
}
