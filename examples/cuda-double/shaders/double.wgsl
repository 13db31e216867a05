// Doubles every element of `data`, then adds `params.offset`.

struct Params {
    offset: f32,
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(64)
fn 加倍(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < arrayLength(&data) && i < params.count {
        data[i] = data[i] * 2.0 + params.offset;
    }
}
