// One transformer-style MLP step over a batch of rows, as three kernels:
// layer norm (x -> h), GEMM with bias (h * w + b -> y), GELU in place (y).
// Row-major f32 matrices; `dims` says how big they are.

struct Dims {
    rows: u32,
    cols: u32,
    eps: f32,
    // Keeps the struct a multiple of 16 bytes, as a uniform's layout often is.
    _unused: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> h: array<f32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;
@group(0) @binding(6) var<storage, read> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> y: array<f32>;

const WG: u32 = 64u;
var<workgroup> partial: array<f32, WG>;

fn workgroup_sum(lid: u32, v: f32) -> f32 {
    partial[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            partial[lid] += partial[lid + s];
        }
        workgroupBarrier();
    }
    let total = partial[0];
    workgroupBarrier();
    return total;
}

// One workgroup per row: mean and variance by workgroup reductions.
@compute @workgroup_size(64)
fn layer_norm(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.x * dims.cols;
    var s = 0.0;
    for (var c = lid; c < dims.cols; c += WG) {
        s += x[row + c];
    }
    let mean = workgroup_sum(lid, s) / f32(dims.cols);
    var q = 0.0;
    for (var c = lid; c < dims.cols; c += WG) {
        let d = x[row + c] - mean;
        q += d * d;
    }
    let rstd = inverseSqrt(workgroup_sum(lid, q) / f32(dims.cols) + dims.eps);
    for (var c = lid; c < dims.cols; c += WG) {
        h[row + c] = (x[row + c] - mean) * rstd * gamma[c] + beta[c];
    }
}

// y = h * w + bias, w square (cols x cols); one invocation per output element.
@compute @workgroup_size(16, 16)
fn gemm(@builtin(global_invocation_id) id: vec3<u32>) {
    let r = id.y;
    let c = id.x;
    if r >= dims.rows || c >= dims.cols {
        return;
    }
    var acc = bias[c];
    for (var k = 0u; k < dims.cols; k++) {
        acc = fma(h[r * dims.cols + k], w[k * dims.cols + c], acc);
    }
    y[r * dims.cols + c] = acc;
}

// GELU, tanh form, in place.
@compute @workgroup_size(256)
fn gelu(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= dims.rows * dims.cols {
        return;
    }
    let v = y[i];
    y[i] = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}
