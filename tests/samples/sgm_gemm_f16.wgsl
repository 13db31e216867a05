// dispatch: 3,2,1
// f16 GEMM with Dawn's subgroup matrices, staged through workgroup memory the way ONNX
// Runtime's and llama.cpp's WebGPU kernels do: C[M x N] (f32) = A[M x K] (f16) * B[K x N]
// (f16), both row-major and packed two halves to a u32, so K and N must be even; M is any
// size and N need not be a multiple of the block (partial tiles). Dispatch ceil(N / 32) x
// ceil(M / 32) workgroups (the header fits the reference test's M = 40, N = 72).
//
// A workgroup computes a 32 x 32 block of C with 4 subgroups; subgroup s owns the 16 x 16
// tile (s / 2, s % 2). K is walked in slabs of 16: every invocation copies two words of A
// (rows r, r + 16, word w of 8) and two of B (rows q, q + 8, word v of 16) into the stages,
// zeros outside the matrices, with the indices computed once before the loop. A's stage rows
// are 12 words (48 bytes) and B's 20 (80 bytes): 16-byte aligned for `ldmatrix`, and an odd
// number of 16-byte bank groups apart. The f16 matrices are loaded straight from the u32
// stages (Dawn's reinterpreting loads: offsets and strides count words). The block goes
// through a workgroup tile so that only elements inside C are written.
enable f16;
enable chromium_experimental_subgroup_matrix;
// Tiles are placed by subgroup (local_invocation_index / 32), which Dawn's workgroup
// uniformity rule cannot prove uniform; ONNX Runtime and llama.cpp turn it off the same way.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Dims { m: u32, n: u32, k: u32, pad: u32 }

const LA: u32 = 12u;
const LB: u32 = 20u;

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> wa: array<u32, 384>;
var<workgroup> wb: array<u32, 320>;
var<workgroup> wc: array<f32, 1024>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let row0 = wg.y * 32u;
  let col0 = wg.x * 32u;
  let kw = dims.k / 2u;
  let nw = dims.n / 2u;
  let s = li / 32u;
  let ti = s / 2u;
  let tj = s % 2u;
  // A: row r (and r + 16), word w of the slab's 8; B: slab row q (and q + 8), word v of 16.
  let r = li / 8u;
  let w = li % 8u;
  let q = li / 16u;
  let v = li % 16u;
  let sa = r * LA + w;
  let sb = q * LB + v;
  let a_in0 = row0 + r < dims.m;
  let a_in1 = row0 + r + 16u < dims.m;
  let b_in = col0 / 2u + v < nw;
  let ai = (row0 + r) * kw + w;
  let bi = q * nw + col0 / 2u + v;
  var acc = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = 0u; k0 < dims.k; k0 += 16u) {
    let w0 = k0 / 2u;
    let ka = w0 + w < kw;
    var x0 = 0u;
    if (ka && a_in0) { x0 = a[ai + w0]; }
    wa[sa] = x0;
    var x1 = 0u;
    if (ka && a_in1) { x1 = a[ai + 16u * kw + w0]; }
    wa[sa + 16u * LA] = x1;
    var y0 = 0u;
    if (k0 + q < dims.k && b_in) { y0 = b[bi + k0 * nw]; }
    wb[sb] = y0;
    var y1 = 0u;
    if (k0 + q + 8u < dims.k && b_in) { y1 = b[bi + (k0 + 8u) * nw]; }
    wb[sb + 8u * LB] = y1;
    workgroupBarrier();
    let l = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&wa, ti * 16u * LA, LA);
    let rm = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&wb, tj * 8u, LB);
    acc = subgroupMatrixMultiplyAccumulate(l, rm, acc);
    workgroupBarrier();
  }
  subgroupMatrixStore<row_major>(&wc, ti * 16u * 32u + tj * 16u, acc, 32u);
  workgroupBarrier();
  for (var i = li; i < 1024u; i += 128u) {
    let rr = row0 + i / 32u;
    let cc = col0 + i % 32u;
    if (rr < dims.m && cc < dims.n) {
      c[rr * dims.n + cc] = wc[i];
    }
  }
}
