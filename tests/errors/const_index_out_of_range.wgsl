@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(1)
fn main() {
    let weights = array<f32, 4>(0.1, 0.2, 0.3, 0.4);
    data[0] = weights[4];
}
