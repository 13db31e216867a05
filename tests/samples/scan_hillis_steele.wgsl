// dispatch: 3,1,1
// Hillis-Steele inclusive scan of i32 within a workgroup of 128 (two barriers per step).
@group(0) @binding(0) var<storage, read> input: array<i32>;
@group(0) @binding(1) var<storage, read_write> output: array<i32>;

var<workgroup> data: array<i32, 128>;

@compute @workgroup_size(128)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    data[lid] = input[gid.x];
    workgroupBarrier();
    for (var off = 1u; off < 128u; off <<= 1u) {
        var t = 0;
        if (lid >= off) {
            t = data[lid - off];
        }
        workgroupBarrier();
        data[lid] += t;
        workgroupBarrier();
    }
    output[gid.x] = data[lid];
}
