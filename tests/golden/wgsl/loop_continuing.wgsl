@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;


@compute @workgroup_size(64, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v17 = gid.x;
    let v170 = arrayLength(&input);
    let v171 = (v17 < v170);
    var x: u32;
    if v171 {
        let v172 = input[v17];
        x = v172;
    } else {
        x = u32();
    }
    let v22 = (x % 23u);
    let n = (v22 + 1u);
    var i = 0u;
    var acc = 0u;
    loop {
        let i_1 = i;
        let acc_1 = acc;
        let v27 = (i_1 % 3u);
        let v29 = (v27 == 0u);
        if v29 {
            continue;
        }
        let v32 = (i_1 * x);
        let v33 = (acc_1 + v32);
        acc = v33;
        continuing {
            let i_2 = i;
            let acc_2 = acc;
            let v36 = (i_2 + 1u);
            let v38 = (v36 >= n);
            i = v36;
            break if v38;
        }
    }
    let v41 = (3u * v17);
    let v174 = arrayLength(&out);
    let v175 = (v41 < v174);
    if v175 {
        out[v41] = acc;
    }
    let v69 = (x % 40u);
    let v71 = (v69 + 10u);
    var pairs = 0u;
    var a = 0u;
    loop {
        let pairs_1 = pairs;
        let a_1 = a;
        let v49 = (a_1 >= 12u);
        if v49 {
            break;
        }
        let v52 = (a_1 + 1u);
        let v54 = (v52 + x);
        let v56 = (v54 % 5u);
        let v58 = (v56 == 0u);
        if v58 {
            a = v52;
            continue;
        }
        let v61 = (v52 + 1u);
        let v84 = (v52 * 16u);
        var pairs_2 = pairs_1;
        var b = v61;
        loop {
            let pairs_3 = pairs_2;
            let b_1 = b;
            let v64 = (b_1 < 12u);
            if !(v64) {
                break;
            }
            let v67 = (v52 * b_1);
            let v72 = (v67 > v71);
            if v72 {
                break;
            }
            let v75 = (v52 ^ b_1);
            let v76 = (v75 ^ x);
            let v78 = (v76 % 3u);
            let v80 = (v78 == 0u);
            if v80 {
                continue;
            }
            let v86 = (v84 + b_1);
            let v87 = (pairs_3 + v86);
            pairs_2 = v87;
            continuing {
                let pairs_4 = pairs_2;
                let b_2 = b;
                let v90 = (b_2 + 1u);
                b = v90;
            }
        }
        pairs = pairs_2;
        a = v52;
        continuing {
            let pairs_5 = pairs;
            let a_2 = a;
        }
    }
    let v95 = (v41 + 1u);
    let v177 = (v95 < v174);
    if v177 {
        out[v95] = pairs;
    }
    let v99 = (x % 1000u);
    let v101 = (v99 + 1u);
    var lo = 0u;
    var hi = v101;
    var probes = 0u;
    loop {
        let lo_1 = lo;
        let hi_1 = hi;
        let probes_1 = probes;
        let v104 = (lo_1 + hi_1);
        let mid = (v104 / 2u);
        let v107 = (mid * mid);
        let v110 = (v107 > v99);
        var lo_2: u32;
        var hi_2: u32;
        if v110 {
            lo_2 = lo_1;
            hi_2 = mid;
        } else {
            lo_2 = mid;
            hi_2 = hi_1;
        }
        lo = lo_2;
        hi = hi_2;
        continuing {
            let lo_3 = lo;
            let hi_3 = hi;
            let probes_2 = probes;
            let v113 = (probes_2 + 1u);
            let v116 = (hi_3 - lo_3);
            let v118 = (v116 <= 1u);
            probes = v113;
            break if v118;
        }
    }
    let v123 = (v41 + 2u);
    let v179 = (v123 < v174);
    let v128 = (probes << 16u);
    let v129 = (lo | v128);
    if v179 {
        out[v123] = v129;
    }
}
