// dispatch: 2,1,1
// Small-M tensor-core GEMM, the inference decode case: C[M x N] (f32) = A[M x K] (f16) *
// B[K x N] (f16), all row-major, with M <= 16 (typically 8: one token for each of 8
// sequences), N and K multiples of 16, read from a uniform buffer. Dispatch ceil(N / 64)
// workgroups (the header's 2 fits the reference test's N = 96).
//
// A is tiny and B is large, so the kernel is bound by reading B once, and reads it as
// gemm_tiled_f16 reads its operands: K slabs of 64, each invocation fetching 16-byte pieces
// (A and B bound as arrays of 16-byte `Half8`, the same bytes as `array<f16>`) of slab t + 1 into
// registers while slab t is multiplied, then staging them in the other of two padded
// workgroup buffers; one barrier per slab. Each subgroup fetches 4 rows x 128 contiguous
// bytes of B per load (whole 32-byte sectors) and the A slab (zero rows up to the 16 a tile
// needs) takes one piece per invocation. Each of the 4 subgroups then multiplies the A slab
// by its own 16-column strip of the 64-column B slab.
//
// Padding: rows of 72 halves = 144 bytes = 9 groups of 16 bytes; shared memory serves 128
// bytes per wavefront as 8 such groups, so the 8 rows an `ldmatrix` reads at one column,
// rows r0 + i, fall in groups (g0 + 9i) % 8 = (g0 + i) % 8: all distinct, no conflicts.
// The 16-byte stores are served per 8 invocations, one row's 8 pieces: distinct too.
//
// Columns past N are staged as zeros, so every subgroup runs the same instructions
// (cooperative operations must stay in uniform control flow); the 16x16 results go
// through workgroup memory so that only the M real rows and the real columns are written.
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

const BK: u32 = 64u;
const LD: u32 = 72u; // padded row of both slabs (144 bytes: 9 groups of 16, odd)
const A_STAGE: u32 = 1152u; // 16 * LD
const B_STAGE: u32 = 4608u; // BK * LD
// Row stride of a subgroup's f32 result tile: a fragment store writes 8 rows x 32 bytes,
// served per 4 rows; rows 96 bytes apart start at 0, 96, 64, 32 (mod 128): disjoint.
const R_LD: u32 = 24u;

var<workgroup> slab_a: array<f16, 2304>; // 2 * A_STAGE
var<workgroup> slab_b: array<f16, 9216>; // 2 * B_STAGE
var<workgroup> result: array<f32, 1536>; // 4 subgroups x 16 * R_LD

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

// Stores 8 halves into slab_a[at .. at + 8] (`at` a multiple of 8: 16-byte aligned).
fn put_a(at: u32, v: Half8) {
    slab_a[at] = v.lo.x;
    slab_a[at + 1u] = v.lo.y;
    slab_a[at + 2u] = v.lo.z;
    slab_a[at + 3u] = v.lo.w;
    slab_a[at + 4u] = v.hi.x;
    slab_a[at + 5u] = v.hi.y;
    slab_a[at + 6u] = v.hi.z;
    slab_a[at + 7u] = v.hi.w;
}

// Stores 8 halves into slab_b[at .. at + 8] (`at` a multiple of 8: 16-byte aligned).
fn put_b(at: u32, v: Half8) {
    slab_b[at] = v.lo.x;
    slab_b[at + 1u] = v.lo.y;
    slab_b[at + 2u] = v.lo.z;
    slab_b[at + 3u] = v.lo.w;
    slab_b[at + 4u] = v.hi.x;
    slab_b[at + 5u] = v.hi.y;
    slab_b[at + 6u] = v.hi.z;
    slab_b[at + 7u] = v.hi.w;
}

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let sg = lid / 32u;
    let lane = lid % 32u;
    let col0 = wid.x * 64u;
    let wc = sg * 16u; // this subgroup's strip within the block
    // This invocation's pieces of each slab: A row `row` (zero past M), B rows row,
    // row + 16, row + 32, row + 48, all at piece `piece`.
    let row = lid >> 3u;
    let piece = lid & 7u;
    let at = row * LD + 8u * piece;
    // The dimensions, read once; pieces (8 halves) per row of A and of B, and the piece
    // indices of this invocation's pieces of slab 0 (a slab further on, A moves BK / 8
    // pieces right and B moves BK rows down).
    let m = dims.m;
    let n = dims.n;
    let k = dims.k;
    let kq = k / 8u;
    let nq = n / 8u;
    let a_in = row < m;
    let b_in = col0 / 8u + piece < nq;
    let a_idx = row * kq + piece;
    let b_idx = row * nq + col0 / 8u + piece;

    var acc: coop_mat16x16<f32, C>;
    let slabs = (k + BK - 1u) / BK;
    var ra = fetch_a(a_in && piece < kq, a_idx);
    var rb0 = fetch_b(b_in && row < k, b_idx);
    var rb1 = fetch_b(b_in && row + 16u < k, b_idx + 16u * nq);
    var rb2 = fetch_b(b_in && row + 32u < k, b_idx + 32u * nq);
    var rb3 = fetch_b(b_in && row + 48u < k, b_idx + 48u * nq);
    put_a(at, ra);
    put_b(at, rb0);
    put_b(at + 16u * LD, rb1);
    put_b(at + 32u * LD, rb2);
    put_b(at + 48u * LD, rb3);
    workgroupBarrier();
    for (var t = 0u; t < slabs; t++) {
        let cur = t & 1u;
        let more = t + 1u < slabs;
        // Slab t + 1 into registers; the loads complete while slab t is multiplied.
        if (more) {
            let kr = (t + 1u) * BK; // first B row of slab t + 1
            let kp = (t + 1u) * (BK / 8u); // first A piece column of slab t + 1
            let bi = b_idx + kr * nq;
            ra = fetch_a(a_in && kp + piece < kq, a_idx + kp);
            rb0 = fetch_b(b_in && kr + row < k, bi);
            rb1 = fetch_b(b_in && kr + row + 16u < k, bi + 16u * nq);
            rb2 = fetch_b(b_in && kr + row + 32u < k, bi + 32u * nq);
            rb3 = fetch_b(b_in && kr + row + 48u < k, bi + 48u * nq);
        }
        // A last slab past K holds zeros: its 16-deep steps are skipped (a uniform bound).
        for (var kk = 0u; kk < BK && t * BK + kk < k; kk += 16u) {
            let am = coopLoadT<coop_mat16x16<f16, A>>(&slab_a[cur * A_STAGE + kk], LD);
            let bm = coopLoadT<coop_mat16x16<f16, B>>(&slab_b[cur * B_STAGE + kk * LD + wc], LD);
            acc = coopMultiplyAdd(am, bm, acc);
        }
        // Stage 1 - cur was last read during slab t - 1, before the previous barrier.
        if (more) {
            let sa = (1u - cur) * A_STAGE + at;
            let sb = (1u - cur) * B_STAGE + at;
            put_a(sa, ra);
            put_b(sb, rb0);
            put_b(sb + 16u * LD, rb1);
            put_b(sb + 32u * LD, rb2);
            put_b(sb + 48u * LD, rb3);
        }
        // Slab t + 1 is staged for everyone.
        workgroupBarrier();
    }

    // Operands from earlier statements: naga 30 places the evaluation of expressions
    // written inside a `coopStoreT(...)` call after the store itself.
    let tile = acc;
    let dst = &result[sg * 16u * R_LD];
    coopStoreT(tile, dst, R_LD);
    workgroupBarrier();
    // Each subgroup writes its own tile: 2 rows of 16 columns per step, 64-byte runs.
    let col = col0 + wc;
    for (var i = 0u; i < 8u; i++) {
        let idx = i * 32u + lane;
        let r = idx / 16u;
        let cc = idx % 16u;
        if (r < m && col + cc < n) {
            c[r * n + col + cc] = result[sg * 16u * R_LD + r * R_LD + cc];
        }
    }
}
