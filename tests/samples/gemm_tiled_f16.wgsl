// dispatch: 2,2,1
// Tiled tensor-core GEMM: C[M x N] (f32) = A[M x K] (f16) * B[K x N] (f16), all row-major,
// M, N and K multiples of 16 read from a uniform buffer. Dispatch ceil(N / 64) x ceil(M / 64)
// workgroups (the header's 2,2,1 fits the reference test's M = 80, N = 112, K = 48).
//
// Each workgroup computes a 64x64 block of C with 4 subgroups of 32 invocations; subgroup s
// owns the 32x32 quarter (s / 2, s % 2) of the block as 2x2 tiles of 16x16. K is walked in
// slabs of 32: the A (64x32) and B (32x64) slabs are staged in workgroup memory, double
// buffered, so the loads of slab t + 1 are issued before the multiply of slab t, and one
// barrier per slab separates writers from readers. Rows of the staging tiles are padded
// (40 and 72 halves instead of 32 and 64) to spread them over shared-memory banks; every
// 16x16 tile still starts 32-byte aligned. Out-of-range rows, columns and K entries are
// staged as zeros. Blocks wholly inside C store their tiles directly; edge blocks go
// through a workgroup tile and store only the elements inside C (cooperative operations
// must stay in uniform control flow, so a subgroup cannot simply skip a tile).
enable f16;
enable wgpu_cooperative_matrix;

struct Dims {
    m: u32,
    n: u32,
    k: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 32u;
const A_LD: u32 = 40u;
const B_LD: u32 = 72u;
const A_STAGE: u32 = 2560u; // BM * A_LD
const B_STAGE: u32 = 2304u; // BK * B_LD
const THREADS: u32 = 128u;

var<workgroup> tile_a: array<f16, 5120>; // 2 * A_STAGE
var<workgroup> tile_b: array<f16, 4608>; // 2 * B_STAGE
var<workgroup> block: array<f32, 4096>; // BM * BN, row-major, for edge blocks

// Copies the A and B slabs starting at column/row `k0` into staging buffer `stage`.
fn load_slab(stage: u32, k0: u32, row0: u32, col0: u32, lid: u32) {
    for (var i = 0u; i < BM * BK / THREADS; i++) {
        let idx = i * THREADS + lid;
        let r = idx / BK;
        let kk = idx % BK;
        var v = f16(0.0);
        if (row0 + r < dims.m && k0 + kk < dims.k) {
            v = a[(row0 + r) * dims.k + k0 + kk];
        }
        tile_a[stage * A_STAGE + r * A_LD + kk] = v;
    }
    for (var i = 0u; i < BK * BN / THREADS; i++) {
        let idx = i * THREADS + lid;
        let kk = idx / BN;
        let col = idx % BN;
        var v = f16(0.0);
        if (k0 + kk < dims.k && col0 + col < dims.n) {
            v = b[(k0 + kk) * dims.n + col0 + col];
        }
        tile_b[stage * B_STAGE + kk * B_LD + col] = v;
    }
}

// Tile stores take every operand from an earlier statement: naga 30 places the evaluation
// of expressions written inside a `coopStoreT(...)` call after the store itself.
fn store_block(m: coop_mat16x16<f32, C>, offset: u32) {
    let p = &block[offset];
    coopStoreT(m, p, BN);
}

fn store_c(m: coop_mat16x16<f32, C>, offset: u32, stride: u32) {
    let p = &c[offset];
    coopStoreT(m, p, stride);
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let sg = lid / 32u;
    let wr = (sg / 2u) * 32u; // this subgroup's rows within the block
    let wc = (sg % 2u) * 32u; // and columns

    var acc00: coop_mat16x16<f32, C>;
    var acc01: coop_mat16x16<f32, C>;
    var acc10: coop_mat16x16<f32, C>;
    var acc11: coop_mat16x16<f32, C>;

    let slabs = (dims.k + BK - 1u) / BK;
    load_slab(0u, 0u, row0, col0, lid);
    workgroupBarrier();
    for (var t = 0u; t < slabs; t++) {
        let cur = t % 2u;
        if (t + 1u < slabs) {
            load_slab(1u - cur, (t + 1u) * BK, row0, col0, lid);
        }
        for (var kk = 0u; kk < BK; kk += 16u) {
            let ab = cur * A_STAGE + kk;
            let bb = cur * B_STAGE + kk * B_LD + wc;
            let a0 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab + wr * A_LD], A_LD);
            let a1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab + (wr + 16u) * A_LD], A_LD);
            let b0 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb], B_LD);
            let b1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb + 16u], B_LD);
            acc00 = coopMultiplyAdd(a0, b0, acc00);
            acc01 = coopMultiplyAdd(a0, b1, acc01);
            acc10 = coopMultiplyAdd(a1, b0, acc10);
            acc11 = coopMultiplyAdd(a1, b1, acc11);
        }
        // Readers of stage `cur` are done and writers of the other stage have finished.
        workgroupBarrier();
    }

    if (row0 + BM <= dims.m && col0 + BN <= dims.n) {
        let n = dims.n;
        let base = (row0 + wr) * n + col0 + wc;
        store_c(acc00, base, n);
        store_c(acc01, base + 16u, n);
        store_c(acc10, base + 16u * n, n);
        store_c(acc11, base + 16u * n + 16u, n);
    } else {
        store_block(acc00, wr * BN + wc);
        store_block(acc01, wr * BN + wc + 16u);
        store_block(acc10, (wr + 16u) * BN + wc);
        store_block(acc11, (wr + 16u) * BN + wc + 16u);
        workgroupBarrier();
        for (var i = 0u; i < BM * BN / THREADS; i++) {
            let idx = i * THREADS + lid;
            let r = row0 + idx / BN;
            let col = col0 + idx % BN;
            if (r < dims.m && col < dims.n) {
                c[r * dims.n + col] = block[idx];
            }
        }
    }
}
