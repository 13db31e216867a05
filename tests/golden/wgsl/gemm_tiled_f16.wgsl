enable f16;
enable wgpu_cooperative_matrix;

struct Dims {
    m: u32,
    n: u32,
    k: u32,
}

struct Half8 {
    @align(16) lo: vec4<f16>,
    hi: vec4<f16>,
}

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 32u;
const A_LD: u32 = 40u;
const B_LD: u32 = 72u;
const A_STAGE: u32 = 2560u;
const B_STAGE: u32 = 2304u;
const C_LD: u32 = 72u;

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<Half8>;
@group(0) @binding(2) var<storage, read> b: array<Half8>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
var<workgroup> tile_a: array<f16, 5120>;
var<workgroup> tile_b: array<f16, 4608>;
var<workgroup> block: array<f32, 4608>;


fn fetch_a(inside: bool, i: u32) -> Half8 {
    let v10 = arrayLength(&a);
    let v11 = (i < v10);
    let v19 = (inside && v11);
    var v15: vec4<f16>;
    var v18: vec4<f16>;
    if v19 {
        let v12 = a[i];
        let v13 = v12.lo;
        let v16 = v12.hi;
        v15 = v13;
        v18 = v16;
    } else {
        v15 = vec4<f16>();
        v18 = vec4<f16>();
    }
    let v6 = Half8(v15, v18);
    return v6;
}

fn fetch_b(inside: bool, i: u32) -> Half8 {
    let v10 = arrayLength(&b);
    let v11 = (i < v10);
    let v19 = (inside && v11);
    var v15: vec4<f16>;
    var v18: vec4<f16>;
    if v19 {
        let v12 = b[i];
        let v13 = v12.lo;
        let v16 = v12.hi;
        v15 = v13;
        v18 = v16;
    } else {
        v15 = vec4<f16>();
        v18 = vec4<f16>();
    }
    let v6 = Half8(v15, v18);
    return v6;
}

fn put_a(at: u32, v: Half8) {
    let v42 = min(at, 5119u);
    let v4 = v.lo;
    let v5 = v4.x;
    tile_a[v42] = v5;
    let v7 = (at + 1u);
    let v44 = min(v7, 5119u);
    let v10 = v4.y;
    tile_a[v44] = v10;
    let v12 = (at + 2u);
    let v46 = min(v12, 5119u);
    let v15 = v4.z;
    tile_a[v46] = v15;
    let v17 = (at + 3u);
    let v48 = min(v17, 5119u);
    let v20 = v4.w;
    tile_a[v48] = v20;
    let v22 = (at + 4u);
    let v50 = min(v22, 5119u);
    let v24 = v.hi;
    let v25 = v24.x;
    tile_a[v50] = v25;
    let v27 = (at + 5u);
    let v52 = min(v27, 5119u);
    let v30 = v24.y;
    tile_a[v52] = v30;
    let v32 = (at + 6u);
    let v54 = min(v32, 5119u);
    let v35 = v24.z;
    tile_a[v54] = v35;
    let v37 = (at + 7u);
    let v56 = min(v37, 5119u);
    let v40 = v24.w;
    tile_a[v56] = v40;
}

fn put_b(at: u32, v: Half8) {
    let v42 = min(at, 4607u);
    let v4 = v.lo;
    let v5 = v4.x;
    tile_b[v42] = v5;
    let v7 = (at + 1u);
    let v44 = min(v7, 4607u);
    let v10 = v4.y;
    tile_b[v44] = v10;
    let v12 = (at + 2u);
    let v46 = min(v12, 4607u);
    let v15 = v4.z;
    tile_b[v46] = v15;
    let v17 = (at + 3u);
    let v48 = min(v17, 4607u);
    let v20 = v4.w;
    tile_b[v48] = v20;
    let v22 = (at + 4u);
    let v50 = min(v22, 4607u);
    let v24 = v.hi;
    let v25 = v24.x;
    tile_b[v50] = v25;
    let v27 = (at + 5u);
    let v52 = min(v27, 4607u);
    let v30 = v24.y;
    tile_b[v52] = v30;
    let v32 = (at + 6u);
    let v54 = min(v32, 4607u);
    let v35 = v24.z;
    tile_b[v54] = v35;
    let v37 = (at + 7u);
    let v56 = min(v37, 4607u);
    let v40 = v24.w;
    tile_b[v56] = v40;
}

fn store_block(m: coop_mat16x16<f32, C>, offset: u32) {
    coopStoreT(m, &block[offset], 72u);
}

fn store_c(m: coop_mat16x16<f32, C>, offset: u32, stride: u32) {
    coopStoreT(m, &c[offset], stride);
}

@compute @workgroup_size(128, 1, 1)
fn main_(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let v42 = wid.y;
    let row0 = (v42 * 64u);
    let v45 = wid.x;
    let col0 = (v45 * 64u);
    let sg = (lid / 32u);
    let lane = (lid % 32u);
    let v53 = (sg / 2u);
    let wr = (v53 * 32u);
    let v57 = (sg % 2u);
    let wc = (v57 * 32u);
    let v61 = (16u * sg);
    let v63 = (lane >> 1u);
    let v65 = (v63 & 3u);
    let v67 = (2u * v65);
    let v68 = (v61 + v67);
    let v70 = (lane >> 3u);
    let v72 = (v70 & 1u);
    let v73 = (v68 + v72);
    let v75 = (lane >> 4u);
    let v77 = (8u * v75);
    let a_row = (v73 + v77);
    let a_piece = (lane & 1u);
    let b_row = (lid >> 3u);
    let b_piece = (lid & 7u);
    let v86 = (a_row * 40u);
    let v88 = (8u * a_piece);
    let a_at = (v86 + v88);
    let v91 = (b_row * 72u);
    let v93 = (8u * b_piece);
    let b_at = (v91 + v93);
    let m = dims.m;
    let n = dims.n;
    let k = dims.k;
    let kq = (k / 8u);
    let nq = (n / 8u);
    let v106 = (row0 + a_row);
    let a_in = (v106 < m);
    let v109 = (col0 / 8u);
    let v110 = (v109 + b_piece);
    let b_in = (v110 < nq);
    let v113 = (v106 * kq);
    let a_idx = (v113 + a_piece);
    let v115 = (b_row * nq);
    let v118 = (v115 + v109);
    let b_idx = (v118 + b_piece);
    let v121 = (k + 32u);
    let v123 = (v121 - 1u);
    let slabs = (v123 / 32u);
    let v126 = (a_piece < kq);
    let local4 = (a_in && v126);
    let v129 = fetch_a(local4, a_idx);
    let v131 = (a_piece + 2u);
    let v132 = (v131 < kq);
    let local6 = (a_in && v132);
    let v136 = (a_idx + 2u);
    let v137 = fetch_a(local6, v136);
    let v138 = (b_row < k);
    let local8 = (b_in && v138);
    let v141 = fetch_b(local8, b_idx);
    let v143 = (b_row + 16u);
    let v144 = (v143 < k);
    let local10 = (b_in && v144);
    let v148 = (16u * nq);
    let v149 = (b_idx + v148);
    let v150 = fetch_b(local10, v149);
    put_a(a_at, v129);
    let v153 = (a_at + 16u);
    put_a(v153, v137);
    put_b(b_at, v141);
    let v157 = (b_at + 1152u);
    put_b(v157, v150);
    workgroupBarrier();
    let v213 = (wr * 40u);
    var acc00 = coop_mat16x16<f32, C>();
    var acc01 = coop_mat16x16<f32, C>();
    var acc10 = coop_mat16x16<f32, C>();
    var acc11 = coop_mat16x16<f32, C>();
    var ra0 = v129;
    var ra1 = v137;
    var rb0 = v141;
    var rb1 = v150;
    var t = 0u;
    loop {
        let acc00_1 = acc00;
        let acc01_1 = acc01;
        let acc10_1 = acc10;
        let acc11_1 = acc11;
        let ra0_1 = ra0;
        let ra1_1 = ra1;
        let rb0_1 = rb0;
        let rb1_1 = rb1;
        let t_1 = t;
        let v160 = (t_1 < slabs);
        if !(v160) {
            break;
        }
        let cur = (t_1 & 1u);
        let v166 = (t_1 + 1u);
        let more = (v166 < slabs);
        var ra0_2: Half8;
        var ra1_2: Half8;
        var rb0_2: Half8;
        var rb1_2: Half8;
        if more {
            let kp = (v166 * 4u);
            let kr = (v166 * 32u);
            let ai = (a_idx + kp);
            let v179 = (kr * nq);
            let bi = (b_idx + v179);
            let v181 = (kp + a_piece);
            let v182 = (v181 < kq);
            let local13 = (a_in && v182);
            let v185 = fetch_a(local13, ai);
            let v188 = (v181 + 2u);
            let v189 = (v188 < kq);
            let local14 = (a_in && v189);
            let v193 = (ai + 2u);
            let v194 = fetch_a(local14, v193);
            let v195 = (kr + b_row);
            let v196 = (v195 < k);
            let local15 = (b_in && v196);
            let v199 = fetch_b(local15, bi);
            let v202 = (v195 + 16u);
            let v203 = (v202 < k);
            let local16 = (b_in && v203);
            let v208 = (bi + v148);
            let v209 = fetch_b(local16, v208);
            ra0_2 = v185;
            ra1_2 = v194;
            rb0_2 = v199;
            rb1_2 = v209;
        } else {
            ra0_2 = ra0_1;
            ra1_2 = ra1_1;
            rb0_2 = rb0_1;
            rb1_2 = rb1_1;
        }
        let v211 = (cur * 2560u);
        let ab = (v211 + v213);
        let v216 = (cur * 2304u);
        let bb = (v216 + wc);
        let a0 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab], 40u);
        let v223 = (ab + 640u);
        let a1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[v223], 40u);
        let b0 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb], 72u);
        let v232 = (bb + 16u);
        let b1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[v232], 72u);
        let v237 = coopMultiplyAdd(a0, b0, acc00_1);
        let v239 = coopMultiplyAdd(a0, b1, acc01_1);
        let v241 = coopMultiplyAdd(a1, b0, acc10_1);
        let v243 = coopMultiplyAdd(a1, b1, acc11_1);
        let v245 = (ab + 16u);
        let a0_1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[v245], 40u);
        let v252 = (v223 + 16u);
        let a1_1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[v252], 40u);
        let v257 = (bb + 1152u);
        let b0_1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[v257], 72u);
        let v264 = (v257 + 16u);
        let b1_1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[v264], 72u);
        let v269 = coopMultiplyAdd(a0_1, b0_1, v237);
        let v271 = coopMultiplyAdd(a0_1, b1_1, v239);
        let v273 = coopMultiplyAdd(a1_1, b0_1, v241);
        let v275 = coopMultiplyAdd(a1_1, b1_1, v243);
        if more {
            let v277 = (1u - cur);
            let v279 = (v277 * 2560u);
            let sa = (v279 + a_at);
            let v284 = (v277 * 2304u);
            let sb = (v284 + b_at);
            put_a(sa, ra0_2);
            let v288 = (sa + 16u);
            put_a(v288, ra1_2);
            put_b(sb, rb0_2);
            let v292 = (sb + 1152u);
            put_b(v292, rb1_2);
        }
        workgroupBarrier();
        acc00 = v269;
        acc01 = v271;
        acc10 = v273;
        acc11 = v275;
        ra0 = ra0_2;
        ra1 = ra1_2;
        rb0 = rb0_2;
        rb1 = rb1_2;
        continuing {
            let acc00_2 = acc00;
            let acc01_2 = acc01;
            let acc10_2 = acc10;
            let acc11_2 = acc11;
            let ra0_3 = ra0;
            let ra1_3 = ra1;
            let rb0_3 = rb0;
            let rb1_3 = rb1;
            let t_2 = t;
            let v296 = (t_2 + 1u);
            t = v296;
        }
    }
    let v298 = (row0 + 64u);
    let v299 = (v298 <= m);
    let v301 = (col0 + 64u);
    let v302 = (v301 <= n);
    let local17 = (v299 && v302);
    if local17 {
        let v305 = (row0 + wr);
        let v306 = (v305 * n);
        let v307 = (v306 + col0);
        let base = (v307 + wc);
        store_c(acc00, base, n);
        let v312 = (base + 16u);
        store_c(acc01, v312, n);
        let v315 = (16u * n);
        let v316 = (base + v315);
        store_c(acc10, v316, n);
        let v322 = (v316 + 16u);
        store_c(acc11, v322, n);
    } else {
        let v325 = (wr * 72u);
        let v326 = (v325 + wc);
        store_block(acc00, v326);
        let v332 = (v326 + 16u);
        store_block(acc01, v332);
        let v335 = (wr + 16u);
        let v337 = (v335 * 72u);
        let v338 = (v337 + wc);
        store_block(acc10, v338);
        let v346 = (v338 + 16u);
        store_block(acc11, v346);
        workgroupBarrier();
        var i = 0u;
        loop {
            let i_1 = i;
            let v349 = (i_1 < 32u);
            if !(v349) {
                break;
            }
            let v352 = (i_1 * 128u);
            let idx = (v352 + lid);
            let br = (idx / 64u);
            let bc = (idx % 64u);
            let r = (row0 + br);
            let col = (col0 + bc);
            let v360 = (r < m);
            let v361 = (col < n);
            let local19 = (v360 && v361);
            if local19 {
                let v364 = (r * n);
                let v365 = (v364 + col);
                let v462 = arrayLength(&c);
                let v463 = (v365 < v462);
                let v369 = (br * 72u);
                let v370 = (v369 + bc);
                let v373 = block[v370];
                if v463 {
                    c[v365] = v373;
                }
            }
            continuing {
                let i_2 = i;
                let v376 = (i_2 + 1u);
                i = v376;
            }
        }
    }
}
