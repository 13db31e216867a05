// Source: https://github.com/AnswerDotAI/gpu.cpp
// Path: examples/hello_world/run.cpp (kGelu, a C++ raw string literal)
// Commit: 0735132b5d6a4be667aaf2edd0c2fe38e9a4d9c2
// License: Apache-2.0
// Changes: the template's {{precision}} instantiated as f32 and {{workgroupSize}} as 256, as
// the example's CreateShader(kGelu, 256, kf32) does; this header.
// Kind: tanh GELU with a select for large inputs
// dispatch: 4,1,1
// runtime-len: 1024

const GELU_SCALING_FACTOR: f32 = 0.7978845608028654; // sqrt(2.0 / PI)
@group(0) @binding(0) var<storage, read_write> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) GlobalInvocationID: vec3<u32>) {
    let i: u32 = GlobalInvocationID.x;
    if (i < arrayLength(&inp)) {
        let x: f32 = inp[i];
        // select is more stable than tanh for large x
        out[i] = select(0.5 * x * (1.0 + tanh(GELU_SCALING_FACTOR 
               * (x + .044715 * x * x * x))), x, x > 10.0);
    }
}
