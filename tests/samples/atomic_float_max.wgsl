// dispatch: 4,1,1
// Lock-free f32 maximum with an atomicCompareExchangeWeak loop on the value's bits,
// globally and per workgroup (in workgroup memory).
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> global_max: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> group_max: array<f32>;

var<workgroup> wg_max: atomic<u32>;

fn update_global_max(v: f32) {
    var old = atomicLoad(&global_max);
    loop {
        if (bitcast<f32>(old) >= v) {
            break;
        }
        let r = atomicCompareExchangeWeak(&global_max, old, bitcast<u32>(v));
        if (r.exchanged) {
            break;
        }
        old = r.old_value;
    }
}

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    if (lid == 0u) {
        atomicStore(&wg_max, bitcast<u32>(-3.0e38));
    }
    workgroupBarrier();
    let v = values[gid.x];
    update_global_max(v);
    var old = atomicLoad(&wg_max);
    while (bitcast<f32>(old) < v) {
        let r = atomicCompareExchangeWeak(&wg_max, old, bitcast<u32>(v));
        if (r.exchanged) {
            break;
        }
        old = r.old_value;
    }
    workgroupBarrier();
    if (lid == 0u) {
        group_max[wid.x] = bitcast<f32>(atomicLoad(&wg_max));
    }
}
