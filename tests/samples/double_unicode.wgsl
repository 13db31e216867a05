// dispatch: 4,1,1
// Doubles every element of a buffer; all names are Unicode identifiers.
@group(0) @binding(0) var<storage, read_write> 数据: array<u32>;

@compute @workgroup_size(4)
fn 加倍(@builtin(global_invocation_id) 序: vec3<u32>) {
    数据[序.x] = 数据[序.x] * 2u;
}
