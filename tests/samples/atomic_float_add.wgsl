// dispatch: 4,1,1
// f32 atomics in storage memory (naga's SHADER_FLOAT32_ATOMIC): atomicAdd and atomicSub of
// multiples of 0.5 into per-workgroup sums (exact in any order, so every executor agrees bit
// for bit whatever order its invocations run in), atomicExchange, atomicLoad, atomicStore.
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<atomic<f32>>;
@group(0) @binding(2) var<storage, read_write> slots: array<atomic<f32>>;
@group(0) @binding(3) var<storage, read_write> olds: array<f32>;

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = gid.x;
    let base = wid.x * 4u;
    let have_sums = base + 4u <= arrayLength(&sums);
    // Zero this workgroup's four sums before anyone adds (the buffer starts with any values,
    // and a sum started from a non-integer would round differently in different orders).
    if (have_sums && lid < 4u) {
        atomicStore(&sums[base + lid], 0.0);
    }
    storageBarrier();
    // floor(8 v) is an integer in [-8, 8) for v in [-1, 1): partial sums of such values and of
    // their halves are exact in f32, so the order of the additions does not matter.
    var q = 0.0;
    if (i < arrayLength(&values)) {
        q = clamp(floor(values[i] * 8.0), -8.0, 8.0);
    }
    if (have_sums) {
        atomicAdd(&sums[base + lid % 4u], q);
        atomicSub(&sums[base + (lid + 1u) % 4u], q * 0.5);
    }
    if (i < arrayLength(&slots) && i < arrayLength(&olds)) {
        let old = atomicExchange(&slots[i], q);
        atomicStore(&slots[i], atomicLoad(&slots[i]) + old);
        olds[i] = old;
    }
}
