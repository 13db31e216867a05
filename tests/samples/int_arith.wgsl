// dispatch: 4,1,1
// Wrapping i32/u32 arithmetic, negation and abs of i32::MIN, min/max/clamp and comparisons.
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
// 10 results per element.
@group(0) @binding(2) var<storage, read_write> out: array<i32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let ux = bitcast<u32>(x);
    let uy = bitcast<u32>(y);
    let o = i * 10u;
    out[o + 0u] = x + y;
    out[o + 1u] = x - y;
    out[o + 2u] = x * y;
    out[o + 3u] = -x;
    out[o + 4u] = abs(x);
    out[o + 5u] = min(x, y);
    out[o + 6u] = max(x, y);
    out[o + 7u] = clamp(x, -1000, 1000);
    out[o + 8u] = bitcast<i32>(ux * uy - min(ux, uy) + max(ux, uy));
    var flags = 0u;
    flags |= select(0u, 1u, x < y);
    flags |= select(0u, 2u, x <= y);
    flags |= select(0u, 4u, x == y);
    flags |= select(0u, 8u, x != y);
    flags |= select(0u, 16u, ux > uy);
    flags |= select(0u, 32u, ux >= uy);
    flags |= select(0u, 64u, (x & y) != 0);
    flags |= select(0u, 128u, (x | y) < 0);
    flags |= u32(~x == (x ^ -1)) << 8u;
    out[o + 9u] = bitcast<i32>(flags);
}
