// Source: https://github.com/ArthurBrussee/brush
// Path: crates/brush-prefix-sum/src/shaders/prefix_sum_scan.wgsl, which imports
//       crates/brush-prefix-sum/src/shaders/prefix_sum_helpers.wgsl
// Commit: 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b
// License: Apache-2.0
// Changes: the naga_oil `#import prefix_sum_helpers as helpers` was resolved by hand: the
// helper module's text is pasted first and the `helpers::` prefixes are dropped.
// Kind: inclusive prefix sum (Hillis-Steele scan in workgroup memory, arrayLength bound)
// dispatch: 8,1,1
// runtime-len: 4096
// ---- prefix_sum_helpers.wgsl ----
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

const THREADS_PER_GROUP: u32 = 512u;

// Maximum workgroups per dimension (WebGPU limit)
const MAX_WG_PER_DIM: u32 = 65535u;

// Compute linear workgroup ID from 2D dispatch
fn get_workgroup_id(wid: vec3u) -> u32 {
    return wid.x + wid.y * MAX_WG_PER_DIM;
}

// Compute linear global invocation ID from 2D dispatch
fn get_global_id(gid: vec3u, wid: vec3u, lid: u32) -> u32 {
    return get_workgroup_id(wid) * THREADS_PER_GROUP + lid;
}

var<workgroup> bucket: array<u32, THREADS_PER_GROUP>;

fn groupScan(id: u32, gi: u32, x: u32) {
    bucket[gi] = x;
    for (var t = 1u; t < THREADS_PER_GROUP; t = t * 2u) {
        workgroupBarrier();
        var temp = bucket[gi];
        if (gi >= t) {
            temp += bucket[gi - t];
        }
        workgroupBarrier();
        bucket[gi] = temp;
    }
    if id < arrayLength(&output) {
        output[id] = bucket[gi];
    }
}
// ---- prefix_sum_scan.wgsl ----

@compute
@workgroup_size(THREADS_PER_GROUP, 1, 1)
fn main(
    @builtin(global_invocation_id) gid: vec3u,
    @builtin(workgroup_id) wid: vec3u,
    @builtin(local_invocation_index) lid: u32,
) {
    let id = get_global_id(gid, wid, lid);

    var x = 0u;
    if (id < arrayLength(&input)) {
        x = input[id];
    }

    groupScan(id, lid, x);
}
