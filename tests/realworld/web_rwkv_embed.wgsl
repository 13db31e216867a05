// Source: https://github.com/cryscan/web-rwkv
// Path: src/shaders/embed.wgsl
// Commit: 1a2720db18718542737f18863ba623da3d45c9f6
// License: MIT OR Apache-2.0
// Changes: none (this header only).
// Kind: embedding lookup: `input[tokens[b*T + t] * stride + index]` (a gather at a token id read
// from a buffer), f16 unpacking.
// Params: shape = [C 512, T 4, B 2] (stride 128 vec2s); the random token ids (0..63) stay inside
// a 64-row table.
// dispatch: 1,4,2
// buffer 0,0: u:512 u:4 u:2 u:0
@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read> tokens: array<u32>;                // (B, T)
@group(0) @binding(2) var<storage, read> input: array<vec2<u32>>;           // (V, C)
@group(0) @binding(3) var<storage, read_write> output: array<vec4<f32>>;    // (B, T, C)

const BLOCK_SIZE: u32 = 128u;

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

@compute @workgroup_size(128, 1, 1)
fn embed(@builtin(global_invocation_id) invocation_id: vec3<u32>) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let fetch = tokens[batch * shape[1] + token];

    if index < stride {
        let bti = (batch * shape[1] + token) * stride + index;
        let bei = fetch * stride + index;

        output[bti] = unpack4x16float(input[bei]);
    }
}