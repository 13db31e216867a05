// dispatch: 2,2,1
// Tiled f16 GEMM on a workgroup matrix (`enable dianran_workgroup_matrix;`,
// docs/workgroup-matrix.md): C[M x N] (f32) = A[M x K] (f16) * B[K x N] (f16), all
// row-major, M, N and K multiples of 8 read from a uniform buffer. Dispatch ceil(N / 64) x
// ceil(M / 64) workgroups (the header's 2,2,1 fits the reference test's M = 80, N = 112,
// K = 48).
//
// The same kernel as `gemm_tiled_f16.wgsl` (its header explains the staging, the padding and
// the bank groups), with the four subgroups' cooperative matrices replaced by one workgroup
// matrix: a workgroup computes a 64 x 64 block of C as one tile, and K is walked in slabs of
// 32 through two workgroup stages, the global loads of slab t + 1 in flight while slab t is
// multiplied. Where the tile's elements live is the compiler's business: on PTX each
// subgroup holds 16 rows, multiplied with `ldmatrix` and `mma.m16n8k16`. The block is stored
// with a (columns, rows) bound, so partial blocks at the edges write only elements inside C.
enable f16;
enable dianran_workgroup_matrix;

struct Dims {
    m: u32,
    n: u32,
    k: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
// 8 halves in 16 bytes, 16-byte aligned: the same bytes as `array<f16>`, read 8 at a time.
struct Half8 {
    @align(16) lo: vec4<f16>,
    hi: vec4<f16>,
}

@group(0) @binding(1) var<storage, read> a: array<Half8>; // f16 A, 8 halves per element
@group(0) @binding(2) var<storage, read> b: array<Half8>; // f16 B, 8 halves per element
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 32u;
const A_LD: u32 = 40u; // 80-byte rows: 5 groups of 16 bytes (odd)
const B_LD: u32 = 72u; // 144-byte rows: 9 groups of 16 bytes (odd)
const A_STAGE: u32 = 2560u; // BM * A_LD
const B_STAGE: u32 = 2304u; // BK * B_LD

var<workgroup> tile_a: array<f16, 5120>; // 2 * A_STAGE
var<workgroup> tile_b: array<f16, 4608>; // 2 * B_STAGE

// The 8 halves at piece `i` of A, or zeros when `inside` is false (a piece past M or K).
fn fetch_a(inside: bool, i: u32) -> Half8 {
    var v: Half8;
    if (inside) {
        v = a[i];
    }
    return v;
}

// The 8 halves at piece `i` of B, or zeros when `inside` is false (a piece past K or N).
fn fetch_b(inside: bool, i: u32) -> Half8 {
    var v: Half8;
    if (inside) {
        v = b[i];
    }
    return v;
}

// Stores 8 halves into tile_a[at .. at + 8] (`at` a multiple of 8: 16-byte aligned).
fn put_a(at: u32, v: Half8) {
    tile_a[at] = v.lo.x;
    tile_a[at + 1u] = v.lo.y;
    tile_a[at + 2u] = v.lo.z;
    tile_a[at + 3u] = v.lo.w;
    tile_a[at + 4u] = v.hi.x;
    tile_a[at + 5u] = v.hi.y;
    tile_a[at + 6u] = v.hi.z;
    tile_a[at + 7u] = v.hi.w;
}

// Stores 8 halves into tile_b[at .. at + 8] (`at` a multiple of 8: 16-byte aligned).
fn put_b(at: u32, v: Half8) {
    tile_b[at] = v.lo.x;
    tile_b[at + 1u] = v.lo.y;
    tile_b[at + 2u] = v.lo.z;
    tile_b[at + 3u] = v.lo.w;
    tile_b[at + 4u] = v.hi.x;
    tile_b[at + 5u] = v.hi.y;
    tile_b[at + 6u] = v.hi.z;
    tile_b[at + 7u] = v.hi.w;
}

// The part of a 64-wide block starting at `start` that lies before `end`.
fn extent(start: u32, end: u32) -> u32 {
    return select(0u, min(64u, end - start), end > start);
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let sg = lid / 32u;
    let lane = lid % 32u;
    // This invocation's pieces of each slab, as in gemm_tiled_f16.wgsl.
    let a_row = 16u * sg + 2u * ((lane >> 1u) & 3u) + ((lane >> 3u) & 1u) + 8u * (lane >> 4u);
    let a_piece = lane & 1u;
    let b_row = lid >> 3u;
    let b_piece = lid & 7u;
    let a_at = a_row * A_LD + 8u * a_piece;
    let b_at = b_row * B_LD + 8u * b_piece;
    let m = dims.m;
    let n = dims.n;
    let k = dims.k;
    let kq = k / 8u;
    let nq = n / 8u;
    let a_in = row0 + a_row < m;
    let b_in = col0 / 8u + b_piece < nq;
    let a_idx = (row0 + a_row) * kq + a_piece;
    let b_idx = b_row * nq + col0 / 8u + b_piece;

    var acc = workgroup_matrix_result<f32, 64, 64>();

    let slabs = (k + BK - 1u) / BK;
    var ra0 = fetch_a(a_in && a_piece < kq, a_idx);
    var ra1 = fetch_a(a_in && a_piece + 2u < kq, a_idx + 2u);
    var rb0 = fetch_b(b_in && b_row < k, b_idx);
    var rb1 = fetch_b(b_in && b_row + 16u < k, b_idx + 16u * nq);
    put_a(a_at, ra0);
    put_a(a_at + 16u, ra1);
    put_b(b_at, rb0);
    put_b(b_at + 16u * B_LD, rb1);
    workgroupBarrier();
    for (var t = 0u; t < slabs; t++) {
        let cur = t & 1u;
        let more = t + 1u < slabs;
        // Slab t + 1 into registers; the loads complete while slab t is multiplied.
        if (more) {
            let kp = (t + 1u) * (BK / 8u);
            let kr = (t + 1u) * BK;
            let ai = a_idx + kp;
            let bi = b_idx + kr * nq;
            ra0 = fetch_a(a_in && kp + a_piece < kq, ai);
            ra1 = fetch_a(a_in && kp + a_piece + 2u < kq, ai + 2u);
            rb0 = fetch_b(b_in && kr + b_row < k, bi);
            rb1 = fetch_b(b_in && kr + b_row + 16u < k, bi + 16u * nq);
        }
        acc = workgroupMatrixMultiplyAccumulate<32, row_major, row_major>(
            &tile_a, cur * A_STAGE, A_LD, &tile_b, cur * B_STAGE, B_LD, acc);
        // Stage 1 - cur was last read during slab t - 1, before the previous barrier.
        if (more) {
            let sa = (1u - cur) * A_STAGE + a_at;
            let sb = (1u - cur) * B_STAGE + b_at;
            put_a(sa, ra0);
            put_a(sa + 16u, ra1);
            put_b(sb, rb0);
            put_b(sb + 16u * B_LD, rb1);
        }
        // Slab t + 1 is staged for everyone.
        workgroupBarrier();
    }
    workgroupMatrixStore<row_major>(&c, row0 * n + col0, acc, n, extent(col0, n), extent(row0, m));
}
