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


@compute @workgroup_size(64, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32) {
    let v5 = gid.x;
    let v36 = arrayLength(&input);
    let v37 = (v5 < v36);
    var v: u32;
    if v37 {
        let v38 = input[v5];
        v = v38;
    } else {
        v = u32();
    }
    let v10 = subgroupAdd(v);
    var v31 = SubgroupOut();
    v31.sum = v10;
    let v12 = subgroupExclusiveAdd(v);
    var v32 = v31;
    v32.exclusive = v12;
    let v15 = subgroupBroadcast(v, 3u);
    var v33 = v32;
    v33.broadcast = v15;
    let v18 = (size << 16u);
    let v19 = (lane | v18);
    var v34 = v33;
    v34.lane_info = v19;
    let v22 = (v & 1u);
    let v24 = (v22 == 1u);
    let v25 = subgroupBallot(v24);
    var v35 = v34;
    v35.ballot = v25;
    let v40 = arrayLength(&out);
    let v41 = (v5 < v40);
    if v41 {
        out[v5] = v35;
    }
}
