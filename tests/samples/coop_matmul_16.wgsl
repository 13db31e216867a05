// dispatch: 2,2,1
// Tensor-core style matmul: C(32x32, f32) += A(32x32, f16) * B(32x32, f16), all row-major,
// one 16x16 output tile per workgroup (one subgroup of 32), K stepped by 16.
enable f16;
enable wgpu_cooperative_matrix;

const N: u32 = 32u;
const K: u32 = 32u;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.y * 16u;
    let col = wid.x * 16u;
    var acc = coopLoadT<coop_mat16x16<f32, C>>(&c[row * N + col], N);
    for (var k = 0u; k < K; k += 16u) {
        let am = coopLoadT<coop_mat16x16<f16, A>>(&a[row * K + k], K);
        let bm = coopLoadT<coop_mat16x16<f16, B>>(&b[k * N + col], N);
        acc = coopMultiplyAdd(am, bm, acc);
    }
    coopStoreT(acc, &c[row * N + col], N);
}
