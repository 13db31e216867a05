override scale: f32 = 1.0;
override count: u32 = scale;

@compute @workgroup_size(1)
fn main() {
}
