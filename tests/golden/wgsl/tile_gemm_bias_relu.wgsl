enable f16;
enable dianran_workgroup_matrix;

struct Dims {
    m: u32,
    n: u32,
    k: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read> residual: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
var<workgroup> block: array<f32, 4096>;


fn extent(start: u32, end: u32) -> u32 {
    let v2 = (end - start);
    let v4 = min(64u, v2);
    let v5 = (end > start);
    let v7 = select(0u, v4, v5);
    return v7;
}

fn product(acc0: workgroup_matrix_result<f32, 64, 64>, row0: u32, col0: u32) -> workgroup_matrix_result<f32, 64, 64> {
    let n = dims.n;
    let k = dims.k;
    let v14 = (row0 * k);
    var acc = acc0;
    var k0 = 0u;
    loop {
        let acc_1 = acc;
        let k0_1 = k0;
        let v13 = (k0_1 < k);
        if !(v13) {
            break;
        }
        let v16 = (v14 + k0_1);
        let v18 = (k0_1 * n);
        let v19 = (v18 + col0);
        let v21 = workgroupMatrixMultiplyAccumulate<32, row_major, row_major>(&a, v16, k, &b, v19, n, acc_1);
        acc = v21;
        continuing {
            let acc_2 = acc;
            let k0_2 = k0;
            let v24 = (k0_2 + 32u);
            k0 = v24;
        }
    }
    return acc;
}

@compute @workgroup_size(64, 2, 1)
fn main_(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let m = dims.m;
    let n = dims.n;
    let v12 = wg.y;
    let row0 = (v12 * 64u);
    let v15 = wg.x;
    let col0 = (v15 * 64u);
    let rows = extent(row0, m);
    let cols = extent(col0, n);
    let v20 = (row0 * n);
    let v21 = (v20 + col0);
    let start = workgroupMatrixLoad<row_major>(&residual, v21, n, cols, rows);
    let acc = product(start, row0, col0);
    workgroupMatrixStore<row_major>(&block, 0u, acc, 64u, 64u, 64u);
    workgroupBarrier();
    var e = li;
    loop {
        let e_1 = e;
        let v30 = (e_1 < 4096u);
        if !(v30) {
            break;
        }
        let r = (e_1 / 64u);
        let c = (e_1 % 64u);
        let v37 = (r < rows);
        let v38 = (c < cols);
        let local1 = (v37 && v38);
        if local1 {
            let v41 = (row0 + r);
            let v42 = (v41 * n);
            let v43 = (v42 + col0);
            let v44 = (v43 + c);
            let v70 = arrayLength(&y);
            let v71 = (v44 < v70);
            let v50 = block[e_1];
            let v51 = (col0 + c);
            let v72 = arrayLength(&bias);
            let v73 = (v51 < v72);
            var v54: f32;
            if v73 {
                let v74 = bias[v51];
                v54 = v74;
            } else {
                v54 = f32();
            }
            let v55 = (v50 + v54);
            let v57 = max(v55, 0.0f);
            if v71 {
                y[v44] = v57;
            }
        }
        continuing {
            let e_2 = e;
            let v60 = (e_2 + 128u);
            e = v60;
        }
    }
}
