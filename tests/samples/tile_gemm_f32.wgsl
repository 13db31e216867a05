// dispatch: 2,2,1
// GEMM on a workgroup matrix with an f32 left operand (`enable dianran_workgroup_matrix;`,
// docs/workgroup-matrix.md): C[M x N] (f32) = A[M x K] (f32, row-major) * B[K x N], with B
// given as its N x K transpose in f16 (the layout weights are usually stored in), M, N and K
// any sizes read from a uniform buffer. An f32 operand has no exact tensor-core product, so
// every target computes this one with scalar fma (the portable form), exactly. Dispatch ceil(N / 64) x ceil(M / 64) workgroups (the header fits the
// reference test's M = 80, N = 72).
//
// A workgroup of 128 invocations owns one 64 x 64 block of C as one workgroup matrix. K is
// walked in slabs of 32: the workgroup copies the 64 x 32 slab of A (f32) and the 64 x 32 slab
// of B's transpose (f16) into workgroup memory, zero outside the matrices, and multiplies them
// into the accumulator: A's slab row-major, B's slab read column-major (it holds B's columns
// as rows). The block is stored with a (columns, rows) bound, so partial blocks at the
// right and bottom edges write only elements inside C.
enable f16;
enable dianran_workgroup_matrix;

struct Dims { m: u32, n: u32, k: u32, pad: u32 }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> bt: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const BK: u32 = 32u;

var<workgroup> slab_a: array<f32, 2048>; // 64 rows x BK, row-major
var<workgroup> slab_b: array<f16, 2048>; // 64 columns of B x BK, one column per row

// The part of a 64-wide block starting at `start` that lies before `end`.
fn extent(start: u32, end: u32) -> u32 {
  return select(0u, min(64u, end - start), end > start);
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let m = dims.m;
  let n = dims.n;
  let k = dims.k;
  let row0 = wg.y * 64u;
  let col0 = wg.x * 64u;
  var acc = workgroup_matrix_result<f32, 64, 64>();
  for (var k0 = 0u; k0 < k; k0 += BK) {
    for (var i = li; i < 2048u; i += 128u) {
      let r = i / BK;
      let kk = k0 + i % BK;
      var x = 0.0;
      if (row0 + r < m && kk < k) {
        x = a[(row0 + r) * k + kk];
      }
      slab_a[i] = x;
      var y = 0.0h;
      if (col0 + r < n && kk < k) {
        y = bt[(col0 + r) * k + kk];
      }
      slab_b[i] = y;
    }
    workgroupBarrier();
    acc = workgroupMatrixMultiplyAccumulate<32, row_major, col_major>(
        &slab_a, 0u, BK, &slab_b, 0u, BK, acc);
    workgroupBarrier();
  }
  workgroupMatrixStore<row_major>(&c, row0 * n + col0, acc, n, extent(col0, n), extent(row0, m));
}
