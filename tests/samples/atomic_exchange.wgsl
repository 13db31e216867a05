// dispatch: 2,1,1
// atomicExchange returns the previous value; each invocation owns one slot so the result
// is deterministic. A shared flag is claimed once per workgroup with atomicExchange.
@group(0) @binding(0) var<storage, read_write> slots: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> replacements: array<u32>;
@group(0) @binding(2) var<storage, read_write> previous: array<u32>;
@group(0) @binding(3) var<storage, read_write> winners: array<atomic<u32>>;

var<workgroup> claimed: atomic<u32>;

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = gid.x;
    previous[i] = atomicExchange(&slots[i], replacements[i]) ^ 0xffffu;
    if (lid == 0u) {
        atomicStore(&claimed, 0u);
    }
    workgroupBarrier();
    if (atomicExchange(&claimed, 1u) == 0u) {
        // Exactly one invocation per workgroup gets here.
        atomicAdd(&winners[wid.x], 1u);
    }
}
