// dispatch: 8,1,1
// GELU as transformer kernels write it (tanh approximation with pow of a possibly negative
// base), the erf-free sigmoid form, and SiLU: PTX math must give CUDA's and Vulkan's values for
// negative inputs, not NaN.
@group(0) @binding(0) var<storage, read> x: array<f32>;    // in [-6, 6]
// Three results per element: gelu_tanh, gelu_sigmoid, silu.
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

const SQRT_2_OVER_PI: f32 = 0.7978845608028654;

fn gelu_tanh(v: f32) -> f32 {
    let inner = SQRT_2_OVER_PI * (v + 0.044715 * pow(v, 3.0));
    return 0.5 * v * (1.0 + tanh(inner));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&x) || 3u * i + 2u >= arrayLength(&y)) {
        return;
    }
    let v = x[i];
    y[3u * i] = gelu_tanh(v);
    y[3u * i + 1u] = v / (1.0 + exp(-1.702 * v));
    y[3u * i + 2u] = v / (1.0 + exp(-v));
}
