// dispatch: 1,1,1
// Dawn's 8 x 16 x 16 f16 subgroup matrices (M x N x K: the shape Intel's backend exposes):
//   D = A * B + C    (A: 8 x 16 f16, B: 16 x 16 f16, C and D: 8 x 16 f32)
//   E = A * B        (8 x 16 f16 result)
// A is row-major in storage; B arrives column-major (column n of B is row n of `bt`) and is
// staged through workgroup memory; C is read column-major. On PTX no instruction has M = 8:
// each product is two `mma.m16n8k16` with rows 8..15 of A and C zero (docs/subgroup-matrix.md).
// D is stored row-major, E column-major.
enable f16;
enable chromium_experimental_subgroup_matrix;

@group(0) @binding(0) var<storage, read> a: array<f16, 128>;
@group(0) @binding(1) var<storage, read> bt: array<f16, 256>;
@group(0) @binding(2) var<storage, read> c: array<f32, 128>;
@group(0) @binding(3) var<storage, read_write> d: array<f32, 128>;
@group(0) @binding(4) var<storage, read_write> e: array<f16, 128>;

var<workgroup> wb: array<f16, 256>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
  for (var i = li; i < 256u; i += 32u) {
    wb[i] = bt[i];
  }
  workgroupBarrier();
  let l = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 8>, row_major>(&a, 0u, 16u);
  let r = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&wb, 0u, 16u);
  let acc = subgroupMatrixLoad<subgroup_matrix_result<f32, 16, 8>, col_major>(&c, 0u, 8u);
  subgroupMatrixStore<row_major>(&d, 0u, subgroupMatrixMultiplyAccumulate(l, r, acc), 16u);
  subgroupMatrixStore<col_major>(&e, 0u, subgroupMatrixMultiply<f16>(l, r), 8u);
}
