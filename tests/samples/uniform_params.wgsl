// dispatch: 4,1,1
// A params struct in a uniform buffer drives a bounds-checked saxpy-like kernel.
struct Params {
    n: u32,
    alpha: f32,
    bias: vec2<f32>,
    weights: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.n) {
        return;
    }
    let w = params.weights[i % 4u];
    y[i] = params.alpha * x[i] + y[i] * w + params.bias.x - params.bias.y;
}
