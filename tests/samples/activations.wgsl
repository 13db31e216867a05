// dispatch: 4,1,1
// Neural-network activation functions built from math builtins.
@group(0) @binding(0) var<storage, read> x: array<f32>;
// 10 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

const SQRT_2_OVER_PI: f32 = 0.7978845608028654;

fn sigmoid(v: f32) -> f32 {
    return 1.0 / (1.0 + exp(-v));
}

fn gelu_tanh(v: f32) -> f32 {
    return 0.5 * v * (1.0 + tanh(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)));
}

fn softplus(v: f32) -> f32 {
    return log(1.0 + exp(v));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = x[gid.x];
    let o = gid.x * 10u;
    out[o + 0u] = max(v, 0.0);
    out[o + 1u] = select(0.01 * v, v, v > 0.0);
    out[o + 2u] = sigmoid(v);
    out[o + 3u] = tanh(v);
    out[o + 4u] = gelu_tanh(v);
    out[o + 5u] = v * sigmoid(v);
    out[o + 6u] = select(exp(v) - 1.0, v, v > 0.0);
    out[o + 7u] = softplus(v);
    out[o + 8u] = v * tanh(softplus(v));
    out[o + 9u] = saturate(v / 6.0 + 0.5) * inverseSqrt(1.0 + v * v) + pow(abs(v) + 1.0, 0.75);
}
