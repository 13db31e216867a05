enable f16;
enable wgpu_cooperative_matrix;

const N: u32 = 32u;
const K: u32 = 32u;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;


@compute @workgroup_size(32, 1, 1)
fn main_(@builtin(workgroup_id) wid: vec3<u32>) {
    let v5 = wid.y;
    let row = (v5 * 16u);
    let v8 = wid.x;
    let col = (v8 * 16u);
    let v12 = (row * 32u);
    let v13 = (v12 + col);
    let v17 = coopLoadT<coop_mat16x16<f32, C>>(&c[v13], 32u);
    var acc = v17;
    var k = 0u;
    loop {
        let acc_1 = acc;
        let k_1 = k;
        let v20 = (k_1 < 32u);
        if !(v20) {
            break;
        }
        let v24 = (v12 + k_1);
        let am = coopLoadT<coop_mat16x16<f16, A>>(&a[v24], 32u);
        let v31 = (k_1 * 32u);
        let v32 = (v31 + col);
        let bm = coopLoadT<coop_mat16x16<f16, B>>(&b[v32], 32u);
        let v38 = coopMultiplyAdd(am, bm, acc_1);
        acc = v38;
        continuing {
            let acc_2 = acc;
            let k_2 = k;
            let v41 = (k_2 + 16u);
            k = v41;
        }
    }
    coopStoreT(acc, &c[v13], 32u);
}
