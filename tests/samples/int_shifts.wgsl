// dispatch: 4,1,1
// Shifts by runtime amounts, including amounts >= 32 (WGSL masks them to the low 5 bits),
// arithmetic right shift of negative i32 and a rotate built from two shifts.
struct Shifted {
    shl: u32,
    shr: u32,
    shl_i: i32,
    shr_i: i32,
    rotl: u32,
}

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read> amounts: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<Shifted>;

fn rotate_left(x: u32, k: u32) -> u32 {
    let s = k & 31u;
    return (x << s) | (x >> ((32u - s) & 31u));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = values[i];
    let k = amounts[i];
    let xi = bitcast<i32>(x);
    out[i] = Shifted(x << k, x >> k, xi << k, xi >> k, rotate_left(x, k));
}
