const N: u32 = 64u;
const TILE: u32 = 16u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;


@compute @workgroup_size(16, 16, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    let v13 = lid.y;
    let v16 = lid.x;
    let v19 = (row * 64u);
    var acc = 0.0f;
    var t = 0u;
    loop {
        let acc_1 = acc;
        let t_1 = t;
        let v12 = (t_1 < 4u);
        if !(v12) {
            break;
        }
        let v22 = (t_1 * 16u);
        let v23 = (v19 + v22);
        let v25 = (v23 + v16);
        let v92 = arrayLength(&a);
        let v93 = (v25 < v92);
        var v28: f32;
        if v93 {
            let v94 = a[v25];
            v28 = v94;
        } else {
            v28 = f32();
        }
        tile_a[v13][v16] = v28;
        let v38 = (v22 + v13);
        let v40 = (v38 * 64u);
        let v41 = (v40 + col);
        let v96 = arrayLength(&b);
        let v97 = (v41 < v96);
        var v44: f32;
        if v97 {
            let v98 = b[v41];
            v44 = v98;
        } else {
            v44 = f32();
        }
        tile_b[v13][v16] = v44;
        workgroupBarrier();
        var acc_2 = acc_1;
        var k = 0u;
        loop {
            let acc_3 = acc_2;
            let k_1 = k;
            let v48 = (k_1 < 16u);
            if !(v48) {
                break;
            }
            let v54 = tile_a[v13][k_1];
            let v59 = tile_b[k_1][v16];
            let v61 = fma(v54, v59, acc_3);
            acc_2 = v61;
            continuing {
                let acc_4 = acc_2;
                let k_2 = k;
                let v64 = (k_2 + 1u);
                k = v64;
            }
        }
        workgroupBarrier();
        acc = acc_2;
        continuing {
            let acc_5 = acc;
            let t_2 = t;
            let v67 = (t_2 + 1u);
            t = v67;
        }
    }
    let v70 = (v19 + col);
    let v100 = arrayLength(&c);
    let v101 = (v70 < v100);
    if v101 {
        c[v70] = acc;
    }
}
