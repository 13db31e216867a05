// dispatch: 2,1,1
// Column sums of a row-major matrix whose shape comes from a uniform buffer. The loop bound,
// the row stride and the scale are loop-invariant uniform loads, and the element index
// `r * dims.cols + col` grows by `dims.cols` per iteration: the loop passes hoist the loads
// and turn the index into an induction variable (issue #15).
struct Dims {
    rows: u32,
    cols: u32,
    scale: f32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> m: array<f32>;
@group(0) @binding(2) var<storage, read_write> sums: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let col = gid.x;
    if (col >= dims.cols) {
        return;
    }
    var acc = 0.0;
    for (var r = 0u; r < dims.rows; r++) {
        acc += m[r * dims.cols + col] * dims.scale;
    }
    sums[col] = acc;
}
