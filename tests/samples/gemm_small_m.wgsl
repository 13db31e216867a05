// dispatch: 2,1,1
// Small-M tensor-core GEMM, the inference decode case: C[M x N] (f32) = A[M x K] (f16) *
// B[K x N] (f16), all row-major, with M <= 16 (typically 8: one token for each of 8
// sequences), N and K multiples of 16, read from a uniform buffer. Dispatch ceil(N / 64)
// workgroups (the header's 2 fits the reference test's N = 96).
//
// A is tiny and B is large, so the kernel is bound by reading B once: each of the 4
// subgroups owns one 16-column strip of a 64-column block and streams its B tiles straight
// from storage, while the A slab (padded with zero rows to the 16 rows a tile needs) is
// staged once per K slab in workgroup memory and shared by all 4. The 16x16 result goes
// through workgroup memory so that only the M real rows are written. Needs N >= 16.
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

const BK: u32 = 64u;
const A_LD: u32 = 72u; // padded row of the A slab (a multiple of 8, tiles stay aligned)
const THREADS: u32 = 128u;

var<workgroup> slab_a: array<f16, 1152>; // 16 * A_LD
var<workgroup> result: array<f32, 1024>; // one 16x16 tile per subgroup

@compute @workgroup_size(128)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let sg = lid / 32u;
    let lane = lid % 32u;
    let col = wid.x * 64u + sg * 16u;
    let n = dims.n;
    // Cooperative operations must stay in uniform control flow, so a strip past the end of
    // C (in the last workgroup) computes a copy of the last real strip instead of
    // branching around the loads; its results are not stored.
    let strip = min(col, n - 16u);

    var acc: coop_mat16x16<f32, C>;
    for (var k0 = 0u; k0 < dims.k; k0 += BK) {
        for (var i = 0u; i < 16u * BK / THREADS; i++) {
            let idx = i * THREADS + lid;
            let r = idx / BK;
            let kk = idx % BK;
            var v = f16(0.0);
            if (r < dims.m && k0 + kk < dims.k) {
                v = a[r * dims.k + k0 + kk];
            }
            slab_a[r * A_LD + kk] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < BK && k0 + kk < dims.k; kk += 16u) {
            let am = coopLoadT<coop_mat16x16<f16, A>>(&slab_a[kk], A_LD);
            let bm = coopLoadT<coop_mat16x16<f16, B>>(&b[(k0 + kk) * n + strip], n);
            acc = coopMultiplyAdd(am, bm, acc);
        }
        // The slab is overwritten next iteration.
        workgroupBarrier();
    }

    // Operands from earlier statements: naga 30 places the evaluation of expressions
    // written inside a `coopStoreT(...)` call after the store itself.
    let tile = acc;
    let dst = &result[sg * 256u];
    coopStoreT(tile, dst, 16u);
    workgroupBarrier();
    for (var i = 0u; i < 8u; i++) {
        let idx = i * 32u + lane;
        let r = idx / 16u;
        let cc = idx % 16u;
        if (r < dims.m && col + cc < n) {
            c[r * n + col + cc] = result[sg * 256u + idx];
        }
    }
}
