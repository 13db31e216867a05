// Source: https://github.com/cryscan/web-rwkv
// Path: src/shaders/layer_norm.wgsl
// Commit: 143bc30cd41bc7784918222c29891598398798a2
// License: MIT OR Apache-2.0
// Changes: the crate's preprocessor was applied by hand: BLOCK_SIZE -> 128u, EPS -> 1.0e-5,
// FP16 not defined (each `#ifdef FP16 ... #else ... #endif` replaced by its `#else` branch).
// Kind: layer norm / group norm (workgroup tree reduction of vec4 sums, inverseSqrt, fma,
// f16 unpacking of the weights). Relies on workgroup memory starting zeroed.
// Params: shape = [C = 256, T = 4, B = 1].
// dispatch: 1,4,1
// buffer 0,0: u:256 u:4 u:1 u:0
@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read> w: array<vec2<u32>>;               // (C)
@group(0) @binding(2) var<storage, read> b: array<vec2<u32>>;               // (C)
@group(0) @binding(3) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

var<workgroup> sum: array<vec4<f32>, 128u>;
var<workgroup> sum_squared: array<vec4<f32>, 128u>;
var<workgroup> mean: f32;
var<workgroup> deviation: f32;

fn pack4x16float(x: vec4<f32>) -> vec2<u32> {
    return vec2<u32>(pack2x16float(x.xy), pack2x16float(x.zw));
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

fn reduce_step(index: u32, stride: u32) {
    if index < stride {
        sum[index] += sum[index + stride];
        sum_squared[index] += sum_squared[index + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(128u, 1, 1)
fn layer_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    for (var i = index; i < stride; i += 128u) {
        let value = x[bb + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 64u);
    reduce_step(index, 32u);
    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + 1.0e-5);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += 128u) {
        let value = (x[bb + i] - mean) * deviation;
        x[bb + i] = fma(value, unpack4x16float(w[i]), unpack4x16float(b[i]));
    }
}

@compute @workgroup_size(128u, 1, 1)
fn group_norm(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let head = invocation_id.y;
    let token = invocation_id.z;

    let h = head * stride;
    let th = (token * shape[1] + head) * stride;

    for (var i = index; i < stride; i += 128u) {
        let value = x[th + i];
        sum[index] += value;
        sum_squared[index] += value * value;
    }
    workgroupBarrier();

    reduce_step(index, 16u);
    reduce_step(index, 8u);
    reduce_step(index, 4u);
    reduce_step(index, 2u);
    reduce_step(index, 1u);

    if index == 0u {
        mean = dot(sum[0], vec4<f32>(1.0)) / f32(shape[0]);
        deviation = inverseSqrt(dot(sum_squared[0], vec4<f32>(1.0)) / f32(shape[0]) - mean * mean + 1.0e-5);
    }
    workgroupBarrier();

    for (var i = index; i < stride; i += 128u) {
        let value = (x[th + i] - mean) * deviation;
        x[th + i] = fma(value, unpack4x16float(w[h + i]), unpack4x16float(b[h + i]));
    }
}
