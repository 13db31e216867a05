// dispatch: 2,1,1
// Subgroup collectives. EVERY output here depends on the subgroup size: subgroups are taken
// to be consecutive runs of local_invocation_index (lanes 0..size-1).
enable subgroups;

struct SubgroupOut {
    sum: u32,
    exclusive: u32,
    broadcast: u32,
    lane_info: u32,
    ballot: vec4<u32>,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<SubgroupOut>;

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let v = input[gid.x];
    var r: SubgroupOut;
    r.sum = subgroupAdd(v);
    r.exclusive = subgroupExclusiveAdd(v);
    r.broadcast = subgroupBroadcast(v, 3u);
    r.lane_info = lane | (size << 16u);
    r.ballot = subgroupBallot((v & 1u) == 1u);
    out[gid.x] = r;
}
