enable f16, shader_int64;

@compute @workgroup_size(1)
fn main() {
}
