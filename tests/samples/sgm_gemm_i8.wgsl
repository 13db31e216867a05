// dispatch: 2,3,1
// int8 GEMM with Dawn's subgroup matrices, staged through workgroup memory the way ONNX
// Runtime's and llama.cpp's WebGPU kernels do: C[M x N] (i32) = A[M x K] (i8) * B[K x N] (i8),
// A row-major and B given as its transpose Bt[N x K] (each column of B contiguous, the layout
// of quantized weights), both packed four bytes to a u32, so K must be a multiple of 4; M and
// N are any size (partial tiles). Dispatch ceil(N / 32) x ceil(M / 32) workgroups (the
// header fits the reference test's M = 72, N = 40).
//
// A workgroup computes a 32 x 32 block of C with 4 subgroups; subgroup s owns the 16 x 16
// tile (s / 2, s % 2). K is walked in slabs of 32 bytes (8 words): every invocation copies
// two words of A and two of Bt into the stages (zeros outside the matrices; the indices are
// computed once before the loop, which only adds the slab offset), a barrier, and
// each subgroup multiplies a 16 x 32 slice of A by a 32 x 16 slice of B into its i32
// accumulator (on PTX: one `ldmatrix.x4` per operand and two `mma.m16n8k32.s8`). Stage rows
// are padded to 12 words (48 bytes): 16-byte aligned for `ldmatrix`, and an odd number of
// 16-byte bank groups apart, so an `ldmatrix` sub-matrix's 8 rows hit 8 distinct groups.
// The block goes through a workgroup tile so that only elements inside C are written.
enable chromium_experimental_subgroup_matrix;
// Tiles are placed by subgroup (local_invocation_index / 32), which Dawn's workgroup
// uniformity rule cannot prove uniform; ONNX Runtime and llama.cpp turn it off the same way.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Dims { m: u32, n: u32, k: u32, pad: u32 }

const LD: u32 = 12u;

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> bt: array<u32>;
@group(0) @binding(3) var<storage, read_write> c: array<i32>;

var<workgroup> wa: array<u32, 384>;
var<workgroup> wb: array<u32, 384>;
var<workgroup> wc: array<i32, 1024>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let row0 = wg.y * 32u;
  let col0 = wg.x * 32u;
  let kw = dims.k / 4u;
  let s = li / 32u;
  let ti = s / 2u;
  let tj = s % 2u;
  // This invocation's two words of every slab: row r (and r + 16) of both stages, word w.
  // Everything but the slab offset is computed once, before the loop.
  let r = li / 8u;
  let w = li % 8u;
  let st = r * LD + w;
  let a_in0 = row0 + r < dims.m;
  let a_in1 = row0 + r + 16u < dims.m;
  let b_in0 = col0 + r < dims.n;
  let b_in1 = col0 + r + 16u < dims.n;
  let ai = (row0 + r) * kw + w;
  let bi = (col0 + r) * kw + w;
  var acc = subgroup_matrix_result<i32, 16, 16>();
  for (var w0 = 0u; w0 < kw; w0 += 8u) {
    let k_in = w0 + w < kw;
    var x0 = 0u;
    if (k_in && a_in0) { x0 = a[ai + w0]; }
    wa[st] = x0;
    var x1 = 0u;
    if (k_in && a_in1) { x1 = a[ai + 16u * kw + w0]; }
    wa[st + 16u * LD] = x1;
    var y0 = 0u;
    if (k_in && b_in0) { y0 = bt[bi + w0]; }
    wb[st] = y0;
    var y1 = 0u;
    if (k_in && b_in1) { y1 = bt[bi + 16u * kw + w0]; }
    wb[st + 16u * LD] = y1;
    workgroupBarrier();
    let l = subgroupMatrixLoad<subgroup_matrix_left<i8, 32, 16>, row_major>(&wa, ti * 16u * LD, LD);
    let rm = subgroupMatrixLoad<subgroup_matrix_right<i8, 16, 32>, col_major>(&wb, tj * 16u * LD, LD);
    acc = subgroupMatrixMultiplyAccumulate(l, rm, acc);
    workgroupBarrier();
  }
  subgroupMatrixStore<row_major>(&wc, ti * 16u * 32u + tj * 16u, acc, 32u);
  workgroupBarrier();
  for (var i = li; i < 1024u; i += 128u) {
    let r = row0 + i / 32u;
    let q = col0 + i % 32u;
    if (r < dims.m && q < dims.n) {
      c[r * dims.n + q] = wc[i];
    }
  }
}
