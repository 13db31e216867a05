enable f16, subgroups; alias Half4 = vec4<f17>;

@compute @workgroup_size(32)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
}
