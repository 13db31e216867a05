fn axpy(a: f32, x: f32, y: f32) -> f32 {
    return a * x + y;
}

@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = axpy(2.0, data[id.x]);
}
