// dispatch: 8,1,1
// 64-bin histogram: per-workgroup counts with workgroup atomics, merged with atomicAdd
// into a storage histogram that keeps its previous contents.
@group(0) @binding(0) var<storage, read> samples: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 64>;

var<workgroup> local_hist: array<atomic<u32>, 64>;

@compute @workgroup_size(128)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if (lid < 64u) {
        atomicStore(&local_hist[lid], 0u);
    }
    workgroupBarrier();
    let bin = samples[gid.x] >> 26u;
    atomicAdd(&local_hist[bin], 1u);
    workgroupBarrier();
    if (lid < 64u) {
        let count = atomicLoad(&local_hist[lid]);
        if (count != 0u) {
            atomicAdd(&hist[lid], count);
        }
    }
}
