// dispatch: 1,1,1
// Dawn's 8 x 16 x 32 int8 subgroup matrices (M x N x K):
//   D = A * B + 7    (A: 8 x 32 i8, B: 32 x 16 i8, D: 8 x 16 i32)
//   E = A * B        (8 x 16 i8 result: the low byte of each sum, sign-extended when read)
// A and B arrive packed four bytes to a u32 (A row-major, 8 words a row; B column-major: column
// n of B is row n of `bt`, the layout of quantized weights). A is staged through workgroup
// memory, B read from storage. On PTX each product is two `mma.m16n8k32.s8` with rows 8..15 of
// A and of the accumulator zero (docs/subgroup-matrix.md). D is stored row-major; E, an i8
// matrix, four bytes to each word of `e`, column-major.
enable chromium_experimental_subgroup_matrix;

@group(0) @binding(0) var<storage, read> a: array<u32, 64>;
@group(0) @binding(1) var<storage, read> bt: array<u32, 128>;
@group(0) @binding(2) var<storage, read_write> d: array<i32, 128>;
@group(0) @binding(3) var<storage, read_write> e: array<i32, 32>;

var<workgroup> wa: array<u32, 64>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
  wa[li] = a[li];
  wa[li + 32u] = a[li + 32u];
  workgroupBarrier();
  let l = subgroupMatrixLoad<subgroup_matrix_left<i8, 32, 8>, row_major>(&wa, 0u, 8u);
  let r = subgroupMatrixLoad<subgroup_matrix_right<i8, 16, 32>, col_major>(&bt, 0u, 8u);
  let acc = subgroup_matrix_result<i32, 16, 8>(7i);
  subgroupMatrixStore<row_major>(&d, 0u, subgroupMatrixMultiplyAccumulate(l, r, acc), 16u);
  subgroupMatrixStore<col_major>(&e, 0u, subgroupMatrixMultiply<i8>(l, r), 2u);
}
