enable subgroups;

struct Params {
    cols: u32,
}

const WG: u32 = 256u;
const LOWEST: f32 = (-3.4028235e38f);

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;
var<workgroup> part_max: array<f32, 256>;
var<workgroup> part_sum: array<f32, 256>;


@compute @workgroup_size(256, 1, 1)
fn main_(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ssz: u32) {
    let v22 = params.cols;
    let n4 = (v22 / 4u);
    let v25 = wid.x;
    let base = (v25 * n4);
    var m = (-3.4028235e38f);
    var s = 0.0f;
    var i = lid;
    loop {
        let m_1 = m;
        let s_1 = s;
        let i_1 = i;
        let v28 = (i_1 < n4);
        if !(v28) {
            break;
        }
        let v30 = (base + i_1);
        let v163 = arrayLength(&x);
        let v164 = (v30 < v163);
        var v: vec4<f32>;
        if v164 {
            let v165 = x[v30];
            v = v165;
        } else {
            v = vec4<f32>();
        }
        let v34 = v.x;
        let v35 = v.y;
        let v36 = max(v34, v35);
        let v37 = v.z;
        let v38 = v.w;
        let v39 = max(v37, v38);
        let mv = max(v36, v39);
        let mn = max(m_1, mv);
        let v43 = vec4<f32>(mn);
        let v44 = (v - v43);
        let e = exp(v44);
        let v48 = (m_1 - mn);
        let v49 = exp(v48);
        let v51 = e.x;
        let v52 = e.y;
        let v53 = (v51 + v52);
        let v54 = fma(s_1, v49, v53);
        let v55 = e.z;
        let v56 = e.w;
        let v57 = (v55 + v56);
        let v58 = (v54 + v57);
        m = mn;
        s = v58;
        continuing {
            let m_2 = m;
            let s_2 = s;
            let i_2 = i;
            let v61 = (i_2 + 256u);
            i = v61;
        }
    }
    let sm = subgroupMax(m);
    let v66 = (m - sm);
    let v67 = exp(v66);
    let v68 = (s * v67);
    let ss = subgroupAdd(v68);
    let sg = (lid / ssz);
    let v72 = (sid == 0u);
    if v72 {
        part_max[sg] = sm;
        part_sum[sg] = ss;
    }
    workgroupBarrier();
    let v78 = (256u + ssz);
    let v80 = (v78 - 1u);
    let groups = (v80 / ssz);
    var row_max = (-3.4028235e38f);
    var g = 0u;
    loop {
        let row_max_1 = row_max;
        let g_1 = g;
        let v83 = (g_1 < groups);
        if !(v83) {
            break;
        }
        let v168 = min(g_1, 255u);
        let v87 = part_max[v168];
        let v88 = max(row_max_1, v87);
        row_max = v88;
        continuing {
            let row_max_2 = row_max;
            let g_2 = g;
            let v91 = (g_2 + 1u);
            g = v91;
        }
    }
    var total = 0.0f;
    var g_3 = 0u;
    loop {
        let total_1 = total;
        let g_4 = g_3;
        let v93 = (g_4 < groups);
        if !(v93) {
            break;
        }
        let v170 = min(g_4, 255u);
        let v97 = part_sum[v170];
        let v100 = part_max[v170];
        let v102 = (v100 - row_max);
        let v103 = exp(v102);
        let v105 = fma(v97, v103, total_1);
        total = v105;
        continuing {
            let total_2 = total;
            let g_5 = g_3;
            let v108 = (g_5 + 1u);
            g_3 = v108;
        }
    }
    let inv = (1.0f / total);
    let v123 = vec4<f32>(row_max);
    let v126 = vec4<f32>(inv);
    var i_3 = lid;
    loop {
        let i_4 = i_3;
        let v113 = (i_4 < n4);
        if !(v113) {
            break;
        }
        let v115 = (base + i_4);
        let v173 = arrayLength(&y);
        let v174 = (v115 < v173);
        let v175 = arrayLength(&x);
        let v176 = (v115 < v175);
        var v121: vec4<f32>;
        if v176 {
            let v177 = x[v115];
            v121 = v177;
        } else {
            v121 = vec4<f32>();
        }
        let v124 = (v121 - v123);
        let v125 = exp(v124);
        let v127 = (v125 * v126);
        if v174 {
            y[v115] = v127;
        }
        continuing {
            let i_5 = i_3;
            let v130 = (i_5 + 256u);
            i_3 = v130;
        }
    }
}
