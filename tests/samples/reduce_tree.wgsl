// dispatch: 4,1,1
// Tree reduction in workgroup memory: a u32 sum and an f32 max per workgroup of 256.
const WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> ints: array<u32>;
@group(0) @binding(1) var<storage, read> floats: array<f32>;
@group(0) @binding(2) var<storage, read_write> sums: array<u32>;
@group(0) @binding(3) var<storage, read_write> maxima: array<f32>;

var<workgroup> s_sum: array<u32, WG>;
var<workgroup> s_max: array<f32, WG>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    s_sum[lid] = ints[gid.x];
    s_max[lid] = floats[gid.x];
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            s_sum[lid] += s_sum[lid + s];
            s_max[lid] = max(s_max[lid], s_max[lid + s]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        sums[wid.x] = s_sum[0];
        maxima[wid.x] = s_max[0];
    }
}
