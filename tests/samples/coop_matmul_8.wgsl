// dispatch: 2,2,1
// 8x8 cooperative matrices of f32: D(16x16) = A(16x16) * B(16x16) + C, A row-major,
// B and C column-major (the plain coopLoad/coopStore forms), D row-major.
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> d: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.y * 8u;
    let col = wid.x * 8u;
    // Column-major 16x16: element (r, c) at c * 16 + r.
    var acc = coopLoad<coop_mat8x8<f32, C>>(&c[col * 16u + row], 16u);
    for (var k = 0u; k < 16u; k += 8u) {
        let am = coopLoadT<coop_mat8x8<f32, A>>(&a[row * 16u + k], 16u);
        let bm = coopLoad<coop_mat8x8<f32, B>>(&b[col * 16u + k], 16u);
        acc = coopMultiplyAdd(am, bm, acc);
    }
    coopStoreT(acc, &d[row * 16u + col], 16u);
}
