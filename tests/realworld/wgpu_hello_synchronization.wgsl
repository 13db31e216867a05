// Source: https://github.com/gfx-rs/wgpu
// Path: examples/src/hello_synchronization/shaders.wgsl
// Commit: efc6d9030055a6135875ddcffa62927dc00beae2
// License: MIT OR Apache-2.0
// Changes: none (this header only).
// Kind: workgroup atomics + barrier. `hasty_main` is racy on purpose (the example shows
// what goes wrong without the barrier), so its output legitimately differs between executors.
// dispatch: 4,1,1
// racy(hasty_main): reads a workgroup atomic without a barrier: the example shows the race on purpose
@group(0)
@binding(0)
var<storage, read_write> output: array<u32>;

var<workgroup> count: atomic<u32>;

@compute
@workgroup_size(16)
fn patient_main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>
) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    if (local_id.x == 0u) {
        output[workgroup_id.x] = atomicLoad(&count);
    }
}

@compute
@workgroup_size(16)
fn hasty_main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) workgroup_id: vec3<u32>
) {
    atomicAdd(&count, 1u);
    if (local_id.x == 0u) {
        output[workgroup_id.x] = atomicLoad(&count);
    }
}
