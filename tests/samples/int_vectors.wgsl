// dispatch: 2,1,1
// Component-wise integer vector arithmetic: division and remainder by zero components,
// i32::MIN / -1 in a lane, scalar-vector mixing (splat), integer dot products, abs/min/max.
@group(0) @binding(0) var<storage, read> a: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<i32>>;
// 6 vec4 results per element.
@group(0) @binding(2) var<storage, read_write> out: array<vec4<i32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let ux = vec4<u32>(x);
    let uy = vec4<u32>(y);
    out[6u * i + 0u] = x / y;
    out[6u * i + 1u] = x % y;
    out[6u * i + 2u] = vec4<i32>(ux / uy + ux % uy);
    out[6u * i + 3u] = x * 3 - y + vec4<i32>(dot(x, y), i32(dot(ux.xy, uy.zw) & 0x7fffffffu), 0, 1);
    out[6u * i + 4u] = abs(x) + min(x, y) - max(x, y);
    out[6u * i + 5u] = (x >> (ux.yzwx & vec4<u32>(7u, 15u, 31u, 63u))) ^ (y << uy);
}
