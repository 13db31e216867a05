// dispatch: 1,1,1
// mat4x4 * vec4, vec4 * mat4x4, mat4x4 * mat4x4, transpose and determinants of 2x2/3x3/4x4.
struct MatResult {
    mv: vec4<f32>,
    vm: vec4<f32>,
    mm: mat4x4<f32>,
    t: mat4x4<f32>,
    det4: f32,
    det3: f32,
    det2: f32,
}

@group(0) @binding(0) var<storage, read> mats: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vecs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<MatResult>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = mats[i];
    let n = mats[(i + 1u) % 32u];
    let v = vecs[i];
    let m3 = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
    let m2 = mat2x2<f32>(m[0].xy, m[1].xy);
    var r: MatResult;
    r.mv = m * v;
    r.vm = v * m;
    r.mm = m * n;
    r.t = transpose(m);
    r.det4 = determinant(m);
    r.det3 = determinant(m3);
    r.det2 = determinant(m2);
    out[i] = r;
}
