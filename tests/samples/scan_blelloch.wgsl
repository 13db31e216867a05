// dispatch: 2,1,1
// Work-efficient (Blelloch) exclusive prefix sum of 512 u32 per workgroup of 256
// invocations, plus each block's total.
const BLOCK: u32 = 512u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> block_sums: array<u32>;

var<workgroup> temp: array<u32, BLOCK>;

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let base = wid.x * BLOCK;
    temp[2u * lid] = input[base + 2u * lid];
    temp[2u * lid + 1u] = input[base + 2u * lid + 1u];

    // Up-sweep.
    var offset = 1u;
    for (var d = BLOCK >> 1u; d > 0u; d >>= 1u) {
        workgroupBarrier();
        if (lid < d) {
            let ai = offset * (2u * lid + 1u) - 1u;
            let bi = offset * (2u * lid + 2u) - 1u;
            temp[bi] += temp[ai];
        }
        offset *= 2u;
    }

    workgroupBarrier();
    if (lid == 0u) {
        block_sums[wid.x] = temp[BLOCK - 1u];
        temp[BLOCK - 1u] = 0u;
    }

    // Down-sweep.
    for (var d = 1u; d < BLOCK; d *= 2u) {
        offset >>= 1u;
        workgroupBarrier();
        if (lid < d) {
            let ai = offset * (2u * lid + 1u) - 1u;
            let bi = offset * (2u * lid + 2u) - 1u;
            let t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    workgroupBarrier();

    output[base + 2u * lid] = temp[2u * lid];
    output[base + 2u * lid + 1u] = temp[2u * lid + 1u];
}
