// dispatch: 2,1,1
// More subgroup operations. All outputs except `uniform_any` depend on the subgroup size
// (subgroups = consecutive runs of local_invocation_index); `uniform_any` only depends on
// whether any lane of the subgroup saw an odd value, computed on a value that is the
// same for every lane of a workgroup, so it is size independent.
enable subgroups;

struct MiscOut {
    inclusive: u32,
    min_v: i32,
    shuffled: u32,
    all_even: u32,
    uniform_any: u32,
    product: f32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<MiscOut>;

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let v = input[gid.x];
    var r: MiscOut;
    r.inclusive = subgroupInclusiveAdd(v & 0xffffu);
    r.min_v = subgroupMin(bitcast<i32>(v));
    r.shuffled = subgroupShuffle(v, (lane + 1u) % size);
    r.all_even = u32(subgroupAll((v & 1u) == 0u));
    r.uniform_any = u32(subgroupAny(wid.x == 1u));
    r.product = subgroupMul(1.0 + f32(v & 3u) * 0.125);
    out[gid.x] = r;
}
