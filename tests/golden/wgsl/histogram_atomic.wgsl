@group(0) @binding(0) var<storage, read> samples: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 64>;
var<workgroup> local_hist: array<atomic<u32>, 64>;


@compute @workgroup_size(128, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let v3 = (lid < 64u);
    if v3 {
        atomicStore(&local_hist[lid], 0u);
    }
    workgroupBarrier();
    let v7 = gid.x;
    let v25 = arrayLength(&samples);
    let v26 = (v7 < v25);
    var v10: u32;
    if v26 {
        let v27 = samples[v7];
        v10 = v27;
    } else {
        v10 = u32();
    }
    let bin = (v10 >> 26u);
    let v15 = atomicAdd(&local_hist[bin], 1u);
    workgroupBarrier();
    if v3 {
        let count = atomicLoad(&local_hist[lid]);
        let v21 = (count != 0u);
        if v21 {
            let v24 = atomicAdd(&hist[lid], count);
        }
    }
}
