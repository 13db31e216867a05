// dispatch: 2,3,2
// Every compute builtin with a 3-D workgroup size and a 3-D dispatch.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(4, 2, 2)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) lindex: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let width = nwg.x * 4u;
    let height = nwg.y * 2u;
    let flat = gid.x + width * (gid.y + height * gid.z);
    out[4u * flat + 0u] = vec4<u32>(gid, flat);
    out[4u * flat + 1u] = vec4<u32>(lid, lindex);
    out[4u * flat + 2u] = vec4<u32>(wid, 0xabcdu);
    out[4u * flat + 3u] = vec4<u32>(nwg, wid.x + 2u * (wid.y + 3u * wid.z));
}
