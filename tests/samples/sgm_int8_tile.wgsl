// dispatch: 1,1,1
// One int8 tensor-core tile with Dawn's subgroup matrices, and the design documents' integer
// tile rule. A (16 x 32, i8, row-major) and B (32 x 16, i8, stored column-major: B's column n
// is row n of an N x K array, the way quantized weights are stored) arrive packed four bytes
// to a u32. One subgroup stages both through workgroup memory with rows padded to 12 words
// (48 bytes: 16-byte aligned for `ldmatrix`, and 48 / 16 = 3 is odd, so the 8 rows of an
// `ldmatrix` sub-matrix fall in 8 distinct 16-byte bank groups), then computes
//   D = A * B + C, C filled with 0x4B400000 (the f32 1.5 * 2^23 = 12582912 as an i32),
// on `mma.m16n8k32.s8` on PTX. While |dot| < 2^22, D's bits read as an f32 are exactly
// 12582912 + dot: `dots` holds `bitcast<f32>(d) - 12582912.0`, which is the integer dot
// product as a float with no conversion instruction. `raw` holds D as integers.
enable chromium_experimental_subgroup_matrix;

const BIAS: i32 = 0x4B400000;
const LD: u32 = 12u;

@group(0) @binding(0) var<storage, read> a: array<u32, 128>;
@group(0) @binding(1) var<storage, read> bt: array<u32, 128>;
@group(0) @binding(2) var<storage, read_write> raw: array<i32, 256>;
@group(0) @binding(3) var<storage, read_write> dots: array<f32, 256>;

var<workgroup> wa: array<u32, 192>;
var<workgroup> wb: array<u32, 192>;
var<workgroup> wd: array<i32, 256>;

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
  // 16 rows of 8 words each: invocation li copies words li, li + 32, li + 64 and li + 96.
  for (var i = li; i < 128u; i += 32u) {
    let row = i / 8u;
    let w = i % 8u;
    wa[row * LD + w] = a[i];
    wb[row * LD + w] = bt[i];
  }
  workgroupBarrier();
  let l = subgroupMatrixLoad<subgroup_matrix_left<i8, 32, 16>, row_major>(&wa, 0, LD);
  let r = subgroupMatrixLoad<subgroup_matrix_right<i8, 16, 32>, col_major>(&wb, 0, LD);
  let c = subgroup_matrix_result<i32, 16, 16>(BIAS);
  let d = subgroupMatrixMultiplyAccumulate(l, r, c);
  subgroupMatrixStore(&raw, 0, d, false, 16);
  subgroupMatrixStore<row_major>(&wd, 0, d, 16);
  workgroupBarrier();
  for (var i = li; i < 256u; i += 32u) {
    dots[i] = bitcast<f32>(wd[i]) - 12582912.0;
  }
}
