// dispatch: 16,1,1
// Row softmax over 16 rows of 128 f32, one workgroup of 64 per row, numerically stable
// (subtracts the row max), with max and sum reductions in workgroup memory.
const COLS: u32 = 128u;
const WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

var<workgroup> red: array<f32, WG>;

@compute @workgroup_size(64)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let base = wid.x * COLS;
    let v0 = x[base + lid];
    let v1 = x[base + lid + WG];
    red[lid] = max(v0, v1);
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (lid < s) {
            red[lid] = max(red[lid], red[lid + s]);
        }
        workgroupBarrier();
    }
    let row_max = red[0];
    workgroupBarrier();
    let e0 = exp(v0 - row_max);
    let e1 = exp(v1 - row_max);
    red[lid] = e0 + e1;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s /= 2u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        workgroupBarrier();
    }
    let inv = 1.0 / red[0];
    y[base + lid] = e0 * inv;
    y[base + lid + WG] = e1 * inv;
}
