// dispatch: 2,1,1
// Buffers the entry point loads but never uses (`let p = params;`): dianran drops the dead
// loads, but the input WGSL's pipeline layout still holds the bindings. Regression: the
// lavapipe executor built its layout from dianran's SSA and wgpu rejected the input shader.
struct Params {
    scale: u32,
    bias: f32,
}

@group(0) @binding(0) var<storage, read> params: Params;
@group(0) @binding(1) var<uniform> unused_uniform: vec4<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32, 8>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = params;
    let u = unused_uniform;
    out[gid.x] = gid.x * 3u + 1u;
}
