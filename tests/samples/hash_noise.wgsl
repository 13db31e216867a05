// dispatch: 4,1,1
// Shader-toy style hash noise: `fract` of sums of products, where one rounding more or less
// changes the low bits the hash keeps. With contraction (the default) each `a * b + c` whose
// product has no other use is one fused multiply-add and `dot` is `a.x * b.x` then an `fma`
// (docs/math.md, "Contraction"); with `--no-fma` every operation rounds on its own.
@group(0) @binding(0) var<storage, read> points: array<vec2<f32>>;
// 4 hashes per point.
@group(0) @binding(1) var<storage, read_write> hashes: array<f32>;

// fma(p.x, 127.1, p.y * 311.7): the left product is fused.
fn hash_mad(p: vec2<f32>) -> f32 {
    return fract(p.x * 127.1 + p.y * 311.7);
}

// The classic `fract(sin(dot(p, k)) * 43758.5453)` without the `sin`, so every executor
// computes exactly the same operations.
fn hash_dot(p: vec2<f32>) -> f32 {
    return fract(dot(p, vec2<f32>(12.9898, 78.233)) * 43758.5453);
}

// fma(p.x, p.y, -0.3).
fn hash_sub(p: vec2<f32>) -> f32 {
    return fract(p.x * p.y - 0.3);
}

// fma(-p.x, 1.3, 17.0).
fn hash_rsub(p: vec2<f32>) -> f32 {
    return fract(17.0 - p.x * 1.3);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = points[gid.x];
    hashes[4u * gid.x] = hash_mad(p);
    hashes[4u * gid.x + 1u] = hash_dot(p);
    hashes[4u * gid.x + 2u] = hash_sub(p);
    hashes[4u * gid.x + 3u] = hash_rsub(p);
}
