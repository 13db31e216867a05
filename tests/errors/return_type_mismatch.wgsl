fn half_of(x: f32) -> f32 {
    return x / 2;
}

fn index_of(x: f32) -> u32 {
    return x;
}

@compute @workgroup_size(1)
fn main() {
    _ = index_of(half_of(3.0));
}
