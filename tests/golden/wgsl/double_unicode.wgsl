@group(0) @binding(0) var<storage, read_write> 数据: array<u32>;


@compute @workgroup_size(4, 1, 1)
fn 加倍(@builtin(global_invocation_id) 序: vec3<u32>) {
    let v1 = 序.x;
    let v9 = arrayLength(&数据);
    let v10 = (v1 < v9);
    if v10 {
        let v11 = 数据[v1];
        let v13 = (v11 * 2u);
        数据[v1] = v13;
    }
}
