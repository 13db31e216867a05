// dispatch: 1,1,1
// Integer divisors that are zero at run time only after constant folding (`x ^ x`), as a
// scalar and as one component of a vector. WGSL defines `x / 0` as `x` and `x % 0` as `0`.
// Regression: the WGSL printer printed the folded divisor as `0i` (and `vec2<i32>(2i, 0i)`),
// which naga rejects as a division by zero (found by `dianran fuzz`).
@group(0) @binding(0) var<storage, read> a: array<i32, 4>;
@group(0) @binding(1) var<storage, read_write> out: array<i32, 16>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = a[i];
    let z = x ^ x;
    out[i * 4u] = x / z;
    out[i * 4u + 1u] = x % z;
    let q = vec2<i32>(x, -x) / vec2<i32>(2, z);
    out[i * 4u + 2u] = q.x;
    out[i * 4u + 3u] = q.y;
}
