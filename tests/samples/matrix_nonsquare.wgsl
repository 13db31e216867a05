// dispatch: 1,1,1
// Non-square matrices in storage (mat2x3 has vec3 columns with a 16-byte stride),
// matrix-scalar products, matrix addition and a mat3x2 * mat2x3 product.
struct Transform {
    m23: mat2x3<f32>,
    m32: mat3x2<f32>,
    v2: vec2<f32>,
    v3: vec3<f32>,
}

struct Result {
    a: vec3<f32>,
    b: vec2<f32>,
    sq: mat3x3<f32>,
    sum: mat2x3<f32>,
}

@group(0) @binding(0) var<storage, read> input: array<Transform>;
@group(0) @binding(1) var<storage, read_write> out: array<Result>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = input[gid.x];
    var r: Result;
    r.a = t.m23 * t.v2;
    r.b = t.m32 * t.v3 + t.v3 * t.m23;
    r.sq = t.m23 * t.m32;
    r.sum = t.m23 * 0.5 + transpose(t.m32);
    out[gid.x] = r;
}
