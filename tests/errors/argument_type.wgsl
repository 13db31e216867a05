fn scale(x: f32, by: f32) -> f32 {
    return x * by;
}

@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = scale(data[id.x], id.x);
}
