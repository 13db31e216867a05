// dispatch: 4,1,1
// Row statistics as WebGPT-style LayerNorm kernels compute them: the variance from
// pow(x - mean, 2.0) (a negative base), the standard deviation by sqrt, then the normalized
// row. One workgroup of 256 per row of 256 f32.
const COLS: u32 = 256u;
const EPS: f32 = 1e-5;

@group(0) @binding(0) var<storage, read> x: array<f32>;        // in [-4, 4]
@group(0) @binding(1) var<storage, read_write> stats: array<f32>;   // mean, std per row
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

var<workgroup> red: array<f32, COLS>;

fn reduce_sum(lid: u32, v: f32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = COLS / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        workgroupBarrier();
    }
    let total = red[0];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let row = wid.x;
    let v = x[row * COLS + lid];
    let mean = reduce_sum(lid, v) / f32(COLS);
    let variance = reduce_sum(lid, pow(v - mean, 2.0)) / f32(COLS);
    let stdev = sqrt(variance + EPS);
    if (lid == 0u) {
        stats[2u * row] = mean;
        stats[2u * row + 1u] = stdev;
    }
    y[row * COLS + lid] = (v - mean) / stdev;
}
