// dispatch: 2,1,1
// Pointer parameters into private and function memory (naga rejects workgroup pointer
// parameters without unrestricted_pointer_parameters, so the workgroup array is read by a
// helper directly); dynamic indexing of a vector through a pointer, of a vector value, and
// of a local matrix.
@group(0) @binding(0) var<storage, read> input: array<u32>;
// 4 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<private> history: array<u32, 4>;
var<workgroup> shared_vals: array<u32, 64>;

fn push(h: ptr<private, array<u32, 4>>, v: u32) {
    (*h)[3] = (*h)[2];
    (*h)[2] = (*h)[1];
    (*h)[1] = (*h)[0];
    (*h)[0] = v;
}

fn neighbour_sum(i: u32) -> u32 {
    return shared_vals[i] + shared_vals[(i + 1u) % 64u];
}

fn bump(c: ptr<function, vec4<u32>>, k: u32) {
    (*c)[k & 3u] += 1u;
}

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let x = input[gid.x];
    shared_vals[lid] = x;
    workgroupBarrier();
    push(&history, x);
    push(&history, x * 2u);
    push(&history, neighbour_sum(lid));
    var counts: vec4<u32>;
    for (var k = 0u; k < (x & 7u); k++) {
        bump(&counts, x >> k);
    }
    let v = vec4<u32>(history[0], history[1], history[2], history[3]);
    var m = mat2x2<f32>(f32(x & 255u), 1.0, 2.0, f32(lid));
    let col = x & 1u;
    let row = (x >> 1u) & 1u;
    m[col][row] += 0.5;
    out[4u * gid.x + 0u] = v[x % 4u];
    out[4u * gid.x + 1u] = counts.x | (counts.y << 8u) | (counts.z << 16u) | (counts.w << 24u);
    out[4u * gid.x + 2u] = bitcast<u32>(m[row][col] + m[col][row]);
    out[4u * gid.x + 3u] = history[3] + v.y;
}
