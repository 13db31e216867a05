// dispatch: 4,1,1
// i64/u64 arithmetic with WGSL's rules: wrapping + - *, x / 0 == x, x % 0 == 0,
// i64::MIN / -1 == i64::MIN, shift amounts (u32) taken modulo 64, comparisons, bit
// operations, abs/min/max/clamp/countOneBits (the bit-scan builtins: int64_bits.wgsl).
struct Out64 {
    sum: i64,
    diff: i64,
    prod: i64,
    quot: i64,
    rem: i64,
    uquot: u64,
    urem: u64,
    shl: u64,
    shr_u: u64,
    shr_s: i64,
    bits: u64,
    minmax: i64,
    absneg: i64,
    popc: u64,
    flags: u32,
}

@group(0) @binding(0) var<storage, read> a: array<i64>;
@group(0) @binding(1) var<storage, read> b: array<i64>;
@group(0) @binding(2) var<storage, read> s: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<Out64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let ux = bitcast<u64>(x);
    let uy = bitcast<u64>(y);
    let k = s[i];
    var o: Out64;
    o.sum = x + y;
    o.diff = x - y;
    o.prod = x * y;
    o.quot = x / y;
    o.rem = x % y;
    o.uquot = ux / uy;
    o.urem = ux % uy;
    o.shl = ux << k;
    o.shr_u = ux >> k;
    o.shr_s = x >> k;
    o.bits = (ux & uy) ^ (~ux | 0xff00ff00ff00ff00lu);
    o.minmax = clamp(x, min(y, -1000000000000li), max(y, 1000000000000li)) + max(x, y) - min(x, y);
    o.absneg = abs(x) - (-y);
    o.popc = countOneBits(ux) * 1000lu + countOneBits(uy);
    var f = 0u;
    if (x < y) { f |= 1u; }
    if (ux < uy) { f |= 2u; }
    if (x == y) { f |= 4u; }
    if (x >= 0li) { f |= 8u; }
    if (ux != 0lu) { f |= 16u; }
    o.flags = f;
    out[i] = o;
}
