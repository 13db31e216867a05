@group(0) @binding(0) var<storage, read_write> 数据: array<f32>;

@compute @workgroup_size(64)
fn 加倍(@builtin(global_invocation_id) id: vec3<u32>) {
    /* 注释 */ 数据[id.x] = 因子 * 数据[id.x];
}
