@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;


@compute @workgroup_size(64, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v9 = gid.x;
    let v94 = arrayLength(&input);
    let v95 = (v9 < v94);
    var x: u32;
    if v95 {
        let v96 = input[v9];
        x = v96;
    } else {
        x = u32();
    }
    let v14 = (x & 15u);
    var r: u32;
    switch v14 {
        case 0u, 1u: {
            r = 10u;
        }
        case 2u: {
            let v17 = (20u + x);
            r = v17;
        }
        default: {
            r = 99u;
        }
        case 3u, 4u, 5u: {
            let v20 = (x * 3u);
            r = v20;
        }
        case 12u: {
            let v22 = (x > 1000u);
            if v22 {
                r = 1u;
                break;
            }
            r = 2u;
        }
    }
    let v27 = (3u * v9);
    let v98 = arrayLength(&out);
    let v99 = (v27 < v98);
    if v99 {
        out[v27] = r;
    }
    let v33 = bitcast<i32>(x);
    let s = (v33 % 7i);
    var q: i32;
    switch s {
        case -6i, -5i, -4i: {
            let v37 = (s * 100i);
            q = v37;
        }
        case -3i, -2i, -1i: {
            q = (-1i);
        }
        case 6i, default: {
            q = 77i;
        }
        case 0i: {
            q = 5i;
        }
    }
    let v45 = (v27 + 1u);
    let v101 = (v45 < v98);
    let v48 = bitcast<u32>(q);
    if v101 {
        out[v45] = v48;
    }
    var acc = 0u;
    var k = 0u;
    loop {
        let acc_1 = acc;
        let k_1 = k;
        let v51 = (k_1 < 16u);
        if !(v51) {
            break;
        }
        let v53 = (x >> k_1);
        let v55 = (v53 & 3u);
        var acc_2: u32;
        switch v55 {
            case 0u: {
                continue;
            }
            case 1u: {
                let v58 = (acc_1 + k_1);
                acc_2 = v58;
            }
            case 2u: {
                let v61 = (acc_1 * 3u);
                let v63 = (v61 + 1u);
                acc_2 = v63;
            }
            default: {
                let v66 = (acc_1 ^ 85u);
                acc_2 = v66;
            }
        }
        let v69 = (acc_2 + 1u);
        acc = v69;
        continuing {
            let acc_3 = acc;
            let k_2 = k;
            let v72 = (k_2 + 1u);
            k = v72;
        }
    }
    let v77 = (v27 + 2u);
    let v103 = (v77 < v98);
    if v103 {
        out[v77] = acc;
    }
}
