// dispatch: 2,2,1
// Tiled tensor-core GEMM: C[M x N] (f32) = A[M x K] (f16) * B[K x N] (f16), all row-major,
// M, N and K multiples of 16 read from a uniform buffer. Dispatch ceil(N / 64) x ceil(M / 64)
// workgroups (the header's 2,2,1 fits the reference test's M = 80, N = 112, K = 48).
//
// Each workgroup computes a 64x64 block of C with 4 subgroups of 32 invocations; subgroup s
// owns the 32x32 quarter (s / 2, s % 2) of the block as 2x2 tiles of 16x16. K is walked in
// slabs of 32 halves through a pipeline of three places:
//   global --(16-byte loads, slab t + 1)--> registers --(after the multiply of slab t)-->
//   workgroup stage (t + 1) % 2 --(one barrier)--> tiles for the multiply of slab t + 1,
// so the global loads of the next slab are in flight while the tensor cores work on the
// current one, and one barrier per slab separates writers from readers.
//
// A and B are bound as arrays of `Half8` (8 halves, 16 bytes, 16-byte aligned): the same
// bytes as `array<f16>` (row-major halves), read 8 halves (16 bytes) at a time. Every such
// piece starts at a multiple of 8 halves because K and N are multiples of 16, so a piece is
// wholly inside or wholly outside the matrix; outside pieces (rows past M, columns past N,
// the second half of a last slab when K % 32 == 16) are staged as zeros.
//
// Coalescing: a subgroup's load of A covers 16 rows x 32 contiguous bytes (32-byte aligned:
// rows start at multiples of 16 halves, slabs at multiples of 32); its load of B covers 4
// rows x 128 contiguous bytes. Every 32-byte sector it touches is used whole.
//
// Bank groups (why the rows are padded to A_LD = 40 and B_LD = 72 halves): shared memory
// serves 128 bytes per wavefront as 8 groups of 16 bytes, group = (byte address / 16) % 8.
// `ldmatrix` reads, per 8x8 matrix, 8 rows of 16 bytes at one column, rows r0 .. r0 + 7, so
// row i is in group (g0 + i * u) % 8 with u = row stride / 16 bytes: u = 80 / 16 = 5 for A,
// u = 144 / 16 = 9 for B. u is odd, hence invertible mod 8, so i -> i * u mod 8 is a
// bijection on 0..7: the 8 rows fall in 8 distinct groups, no conflicts. (Unpadded rows,
// u = 4 or 8, would put 2 or 8 rows in one group.) Stores into the stages are 16 bytes per
// invocation, served per 8 invocations: for B those 8 are one row's 8 pieces (groups
// g0 + 0..7); for A they are rows r0, r0 + 2, r0 + 4, r0 + 6 with pieces p, p + 1 each,
// groups g0 + 10j + p + {0, 1} = g0 + 2j + {0, 1} (mod 8) for j = 0..3: distinct again,
// which is why A's rows are handed out in that interleaved order (`a_row` below).
//
// Blocks wholly inside C store their tiles directly (each store instruction writes 8 rows x
// 32 bytes, whole sectors); edge blocks go through a workgroup tile and store only the
// elements inside C, consecutive invocations on consecutive columns (cooperative operations
// must stay in uniform control flow, so a subgroup cannot simply skip a tile).
enable f16;
enable wgpu_cooperative_matrix;

struct Dims {
    m: u32,
    n: u32,
    k: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
// 8 halves in 16 bytes, 16-byte aligned: A and B are bound as arrays of these, the same
// bytes as `array<f16>` (`array<vec4<u32>>` would need bitcast<vec2<f16>>(u32) to unpack,
// which naga 30 cannot express).
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
const A_LD: u32 = 40u; // 80-byte rows: 5 groups of 16 bytes (odd, see above)
const B_LD: u32 = 72u; // 144-byte rows: 9 groups of 16 bytes (odd)
const A_STAGE: u32 = 2560u; // BM * A_LD
const B_STAGE: u32 = 2304u; // BK * B_LD
// Row stride of the f32 result tile: a fragment store writes 8 rows x 32 bytes, served per
// 4 rows (64-bit accesses); rows 288 bytes apart start at 0, 32, 64, 96 (mod 128): disjoint.
const C_LD: u32 = 72u;

var<workgroup> tile_a: array<f16, 5120>; // 2 * A_STAGE
var<workgroup> tile_b: array<f16, 4608>; // 2 * B_STAGE
var<workgroup> block: array<f32, 4608>; // BM * C_LD, row-major, for edge blocks

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

// Tile stores take every operand from an earlier statement: naga 30 places the evaluation
// of expressions written inside a `coopStoreT(...)` call after the store itself.
fn store_block(m: coop_mat16x16<f32, C>, offset: u32) {
    let p = &block[offset];
    coopStoreT(m, p, C_LD);
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
    let lane = lid % 32u;
    let wr = (sg / 2u) * 32u; // this subgroup's rows within the block
    let wc = (sg % 2u) * 32u; // and columns

    // This invocation's pieces of each slab: A rows a_row (pieces a_piece and a_piece + 2),
    // B rows b_row and b_row + 16 (piece b_piece); the interleaved A rows keep the stores
    // free of bank conflicts (see the header).
    let a_row = 16u * sg + 2u * ((lane >> 1u) & 3u) + ((lane >> 3u) & 1u) + 8u * (lane >> 4u);
    let a_piece = lane & 1u;
    let b_row = lid >> 3u;
    let b_piece = lid & 7u;
    let a_at = a_row * A_LD + 8u * a_piece;
    let b_at = b_row * B_LD + 8u * b_piece;
    // The dimensions, read once; pieces (8 halves) per row of A and of B.
    let m = dims.m;
    let n = dims.n;
    let k = dims.k;
    let kq = k / 8u;
    let nq = n / 8u;
    // Piece indices of this invocation's first A and B pieces of slab 0; a slab further on,
    // A moves BK / 8 pieces right and B moves BK rows down. Rows past M and columns past N
    // stay outside for the whole loop.
    let a_in = row0 + a_row < m;
    let b_in = col0 / 8u + b_piece < nq;
    let a_idx = (row0 + a_row) * kq + a_piece;
    let b_idx = b_row * nq + col0 / 8u + b_piece;

    var acc00: coop_mat16x16<f32, C>;
    var acc01: coop_mat16x16<f32, C>;
    var acc10: coop_mat16x16<f32, C>;
    var acc11: coop_mat16x16<f32, C>;

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
            let kp = (t + 1u) * (BK / 8u); // first A piece column of slab t + 1
            let kr = (t + 1u) * BK; // first B row of slab t + 1
            let ai = a_idx + kp;
            let bi = b_idx + kr * nq;
            ra0 = fetch_a(a_in && kp + a_piece < kq, ai);
            ra1 = fetch_a(a_in && kp + a_piece + 2u < kq, ai + 2u);
            rb0 = fetch_b(b_in && kr + b_row < k, bi);
            rb1 = fetch_b(b_in && kr + b_row + 16u < k, bi + 16u * nq);
        }
        // The two 16-deep steps of the slab, unrolled by hand (WGSL has no unroll hint).
        let ab = cur * A_STAGE + wr * A_LD;
        let bb = cur * B_STAGE + wc;
        {
            let a0 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab], A_LD);
            let a1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab + 16u * A_LD], A_LD);
            let b0 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb], B_LD);
            let b1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb + 16u], B_LD);
            acc00 = coopMultiplyAdd(a0, b0, acc00);
            acc01 = coopMultiplyAdd(a0, b1, acc01);
            acc10 = coopMultiplyAdd(a1, b0, acc10);
            acc11 = coopMultiplyAdd(a1, b1, acc11);
        }
        {
            let a0 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab + 16u], A_LD);
            let a1 = coopLoadT<coop_mat16x16<f16, A>>(&tile_a[ab + 16u * A_LD + 16u], A_LD);
            let b0 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb + 16u * B_LD], B_LD);
            let b1 = coopLoadT<coop_mat16x16<f16, B>>(&tile_b[bb + 16u * B_LD + 16u], B_LD);
            acc00 = coopMultiplyAdd(a0, b0, acc00);
            acc01 = coopMultiplyAdd(a0, b1, acc01);
            acc10 = coopMultiplyAdd(a1, b0, acc10);
            acc11 = coopMultiplyAdd(a1, b1, acc11);
        }
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

    if (row0 + BM <= m && col0 + BN <= n) {
        let base = (row0 + wr) * n + col0 + wc;
        store_c(acc00, base, n);
        store_c(acc01, base + 16u, n);
        store_c(acc10, base + 16u * n, n);
        store_c(acc11, base + 16u * n + 16u, n);
    } else {
        store_block(acc00, wr * C_LD + wc);
        store_block(acc01, wr * C_LD + wc + 16u);
        store_block(acc10, (wr + 16u) * C_LD + wc);
        store_block(acc11, (wr + 16u) * C_LD + wc + 16u);
        workgroupBarrier();
        for (var i = 0u; i < BM * BN / 128u; i++) {
            let idx = i * 128u + lid;
            let br = idx / BN;
            let bc = idx % BN;
            let r = row0 + br;
            let col = col0 + bc;
            if (r < m && col < n) {
                c[r * n + col] = block[br * C_LD + bc];
            }
        }
    }
}
