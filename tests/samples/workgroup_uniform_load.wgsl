// dispatch: 2,1,1
// workgroupUniformLoad makes a value chosen by one invocation uniform, so it can bound a
// loop that contains a barrier. Each workgroup sums its first `count` inputs.
@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read> values: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

var<workgroup> count: u32;
var<workgroup> partial: array<u32, 32>;

@compute @workgroup_size(32)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    if (lid == 0u) {
        count = counts[wid.x] % 8u + 1u;
    }
    let n = workgroupUniformLoad(&count);
    partial[lid] = 0u;
    for (var round = 0u; round < n; round++) {
        partial[lid] += values[(wid.x * 8u + round) * 32u + lid];
        workgroupBarrier();
    }
    workgroupBarrier();
    if (lid == 0u) {
        var t = 0u;
        for (var k = 0u; k < 32u; k++) {
            t += partial[k];
        }
        out[wid.x] = t + n * 1000000u;
    }
}
