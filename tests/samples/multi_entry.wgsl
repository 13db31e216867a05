// dispatch: 2,1,1
// entry: scale_rows
// Two compute entry points sharing a buffer and a helper function; tools run the entry
// named in the header. `clear_rows` zeroes a row, `scale_rows` scales each row of 64 by its
// own factor.
@group(0) @binding(0) var<storage, read_write> rows: array<f32>;
@group(0) @binding(1) var<storage, read> factors: array<f32>;

fn row_index(wid: vec3<u32>, lid: u32) -> u32 {
    return wid.x * 64u + lid;
}

@compute @workgroup_size(64)
fn clear_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    rows[row_index(wid, lid)] = 0.0;
}

@compute @workgroup_size(64)
fn scale_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = row_index(wid, lid);
    rows[i] = rows[i] * factors[wid.x] + f32(lid) * 0.25;
}
