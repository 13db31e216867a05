// dispatch: 8,1,1
// Layer normalization of 8 rows of 256 f32 with per-column gamma and beta; one workgroup
// of 128 per row, mean and variance by workgroup reductions.
const COLS: u32 = 256u;
const WG: u32 = 128u;
const EPS: f32 = 1e-5;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

var<workgroup> red: array<f32, WG>;

fn reduce_sum(lid: u32, v: f32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        workgroupBarrier();
    }
    let total = red[0];
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(128)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let base = wid.x * COLS;
    let a = x[base + lid];
    let b = x[base + lid + WG];
    let mean = reduce_sum(lid, a + b) / f32(COLS);
    let da = a - mean;
    let db = b - mean;
    let variance = reduce_sum(lid, da * da + db * db) / f32(COLS);
    let rstd = inverseSqrt(variance + EPS);
    y[base + lid] = da * rstd * gamma[lid] + beta[lid];
    y[base + lid + WG] = db * rstd * gamma[lid + WG] + beta[lid + WG];
}
