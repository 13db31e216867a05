// dispatch: 4,1,1
// Integer division and remainder with WGSL's rules for the cases the hardware leaves
// undefined: x / 0 == x, x % 0 == 0, i32::MIN / -1 == i32::MIN, i32::MIN % -1 == 0.
struct QuotRem {
    q: i32,
    r: i32,
    uq: u32,
    ur: u32,
}

@group(0) @binding(0) var<storage, read> num: array<i32>;
@group(0) @binding(1) var<storage, read> den: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<QuotRem>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = num[i];
    let y = den[i];
    let ux = bitcast<u32>(x);
    let uy = bitcast<u32>(y);
    out[i] = QuotRem(x / y, x % y, ux / uy, ux % uy);
}
