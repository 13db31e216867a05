// Source: https://github.com/cryscan/web-rwkv
// Path: src/shaders/token_shift.wgsl
// Commit: 520b3550b709e74d810e3bb96a9fc931b4cee388
// License: MIT OR Apache-2.0
// Changes: none (this header only).
// Kind: token shift, 4 entries (fp16/fp32 time-mix, forward and reversed): a cursor word read from
// `cursors[stack]` picks the batch (`sx[compute_index(vx, cursor.batch, 0, index)]`) and, through
// `stack - cursor.token` (u32 wrap), whether to mix with `sx` or with `x[bti - stride]`.
// Params: C = 512 (stride 128 vec4s), 4 tokens; vt views time_mix as (A=4, C), vx views sx as
// (B=64, 1, C); cursors: stacks 0-1 are batch 2 from token 0, stacks 2-3 batch 7 from token 2
// (`batch | token << 8 | len << 24`).
// dispatch: 1,4,1
// buffer 0,0: u:512 u:4 u:1 u:0 u:0 u:0 u:0 u:0 u:512 u:4 u:1 u:0
// buffer 0,1: u:512 u:1 u:64 u:0 u:0 u:0 u:0 u:0 u:512 u:1 u:64 u:0
// buffer 0,2: u:33554434 u:33554434 u:33554951 u:33554951
struct View {
    stride: vec4<u32>,
    offset: vec4<u32>,
    shape: vec4<u32>,  
};

struct Cursor {
    batch: u32,
    token: u32,
    len: u32,
};

@group(0) @binding(0) var<uniform> vt: View;
@group(0) @binding(1) var<uniform> vx: View;                                // [C, _, B] / [C, 5L, B]
@group(0) @binding(2) var<storage, read> cursors: array<u32>;               // [A]

@group(0) @binding(3) var<storage, read> time_mix_fp16: array<vec2<u32>>;   // (C) | (A, C)
@group(0) @binding(4) var<storage, read> time_mix_fp32: array<vec4<f32>>;   // (C) | (A, C)

@group(0) @binding(5) var<storage, read> x: array<vec4<f32>>;               // (1, A, C)
@group(0) @binding(6) var<storage, read> sx: array<vec4<f32>>;              // (B, 1, C)
@group(0) @binding(7) var<storage, read_write> output: array<vec4<f32>>;    // (1, A, C)

const BLOCK_SIZE: u32 = 128u;

fn compute_index(view: View, batch: u32, token: u32, index: u32) -> u32 {
    let stride = view.stride.x / 4u;
    let offset = view.offset.x / 4u;
    return ((view.offset.z + batch) * view.stride.y + view.offset.y + token) * stride + offset + index;
}

fn compute_cursor(x: u32) -> Cursor {
    // let unpacked = vec4<u32>(unpack4x8unorm(x) * 255.0 + 0.5);
    var cursor: Cursor;
    cursor.batch = x & 0xffu;
    cursor.token = (x >> 8u) & 0xffffu;
    cursor.len = (x >> 24u) & 0xffu;
    return cursor;
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

fn fetch_time_mix_fp16(stack: u32, index: u32) -> vec4<f32> {
    let token = select(stack, 0u, vt.shape.y == 1u);
    return unpack4x16float(time_mix_fp16[compute_index(vt, 0u, token, index)]);
}

@compute @workgroup_size(128, 1, 1)
fn token_shift_fp16(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let factor = fetch_time_mix_fp16(stack, index);
    if token == 0u {
        output[bti] = mix(sx[compute_index(vx, cursor.batch, 0u, index)], x[bti], factor);
    } else {
        output[bti] = mix(x[bti - stride], x[bti], factor);
    }
}

@compute @workgroup_size(128, 1, 1)
fn token_shift_rev_fp16(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let factor = fetch_time_mix_fp16(stack, index);
    if token == 0u {
        output[bti] = mix(x[bti], sx[compute_index(vx, cursor.batch, 0u, index)], factor);
    } else {
        output[bti] = mix(x[bti], x[bti - stride], factor);
    }
}

fn fetch_time_mix_fp32(stack: u32, index: u32) -> vec4<f32> {
    let token = select(stack, 0u, vt.shape.y == 1u);
    return time_mix_fp32[compute_index(vt, 0u, token, index)];
}

@compute @workgroup_size(128, 1, 1)
fn token_shift_fp32(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let factor = fetch_time_mix_fp32(stack, index);
    if token == 0u {
        output[bti] = mix(sx[compute_index(vx, cursor.batch, 0u, index)], x[bti], factor);
    } else {
        output[bti] = mix(x[bti - stride], x[bti], factor);
    }
}

@compute @workgroup_size(128, 1, 1)
fn token_shift_rev_fp32(@builtin(global_invocation_id) invocation_id: vec3<u32>, @builtin(num_workgroups) num_blocks: vec3<u32>) {
    let stride = vx.shape.x / 4u;
    let index = invocation_id.x;
    let stack = invocation_id.y;
    let cursor = compute_cursor(cursors[stack]);
    let token = stack - cursor.token;

    if index >= stride {
        return;
    }

    let bti = stack * stride + index;
    let factor = fetch_time_mix_fp32(stack, index);
    if token == 0u {
        output[bti] = mix(x[bti], sx[compute_index(vx, cursor.batch, 0u, index)], factor);
    } else {
        output[bti] = mix(x[bti], x[bti - stride], factor);
    }
}