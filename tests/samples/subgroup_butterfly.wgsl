// dispatch: 4,1,1
// Butterfly reduction with subgroupShuffleXor, then a workgroup reduction of the subgroup
// partials. `partial` depends on the subgroup size; `totals` (one per workgroup) does not.
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partial: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;
@group(0) @binding(3) var<storage, read_write> maxima: array<f32>;

var<workgroup> sg_sums: array<u32, 128>;

@compute @workgroup_size(128)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    var x = input[gid.x];
    for (var mask = size / 2u; mask > 0u; mask >>= 1u) {
        x += subgroupShuffleXor(x, mask);
    }
    partial[gid.x] = x;
    if (lane == 0u) {
        sg_sums[lid / size] = x;
    }
    workgroupBarrier();
    if (lid == 0u) {
        var t = 0u;
        for (var k = 0u; k < 128u / size; k++) {
            t += sg_sums[k];
        }
        totals[wid.x] = t;
    }
    // subgroupMax over f32: the maximum of a subgroup (depends on the size).
    maxima[gid.x] = subgroupMax(f32(input[gid.x] & 0xffffu) - 1000.0);
}
