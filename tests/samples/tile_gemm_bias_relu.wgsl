// dispatch: 2,2,1
// GEMM with an epilogue on a workgroup matrix (docs/workgroup-matrix.md):
// Y[M x N] = relu(A[M x K] * B[K x N] + R[M x N] + bias[N]), A and B f16 row-major, the
// residual R, the bias and Y f32. M and N are any sizes; K must be a multiple of 32 (A and B
// are read straight from their buffers, 32 columns of A and 32 rows of B per product).
// Dispatch ceil(N / 64) x ceil(M / 64) workgroups (the header fits the reference test's
// M = 96, N = 80, K = 64).
//
// The accumulator starts as the residual's block, loaded with a (columns, rows) bound (zero
// outside R). Rows of A past M and columns of B past N feed only accumulator elements outside
// Y, which the epilogue never writes, so the products need no bound. The epilogue stores the
// tile to workgroup memory (the element placement inside the workgroup is the
// implementation's), and each invocation then adds the bias and applies the activation to
// the elements it writes.
enable f16;
enable dianran_workgroup_matrix;

struct Dims { m: u32, n: u32, k: u32, pad: u32 }

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read> residual: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

alias Tile = workgroup_matrix_result<f32, 64, 64>;

var<workgroup> block: array<f32, 4096>; // the finished tile, row-major

fn extent(start: u32, end: u32) -> u32 {
  return select(0u, min(64u, end - start), end > start);
}

// K in steps of 32, straight from the buffers.
fn product(acc0: Tile, row0: u32, col0: u32) -> Tile {
  let n = dims.n;
  let k = dims.k;
  var acc = acc0;
  for (var k0 = 0u; k0 < k; k0 += 32u) {
    acc = workgroupMatrixMultiplyAccumulate<32, row_major, row_major>(
        &a, row0 * k + k0, k, &b, k0 * n + col0, n, acc);
  }
  return acc;
}

@compute @workgroup_size(64, 2)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let m = dims.m;
  let n = dims.n;
  let row0 = wg.y * 64u;
  let col0 = wg.x * 64u;
  let rows = extent(row0, m);
  let cols = extent(col0, n);
  let start = workgroupMatrixLoad<row_major>(&residual, row0 * n + col0, n, cols, rows);
  let acc = product(start, row0, col0);
  workgroupMatrixStore<row_major>(&block, 0u, acc, 64u);
  workgroupBarrier();
  for (var e = li; e < 4096u; e += 128u) {
    let r = e / 64u;
    let c = e % 64u;
    if (r < rows && c < cols) {
      y[(row0 + r) * n + col0 + c] = max(block[e] + bias[col0 + c], 0.0);
    }
  }
}
