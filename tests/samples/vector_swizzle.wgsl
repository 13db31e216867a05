// dispatch: 2,1,1
// vec4 swizzles, swizzle assignment through a var, dot/cross/length/normalize.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
// 4 vec4 results per element.
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let u = a[i];
    let v = b[i];
    out[4u * i + 0u] = u.wzyx + v.xxyy * 2.0;
    out[4u * i + 1u] = vec4<f32>(dot(u, v), length(u), distance(u, v), dot(u.xyz, v.zyx));
    var w = u;
    w.y = v.w;
    w.z += 1.0;
    w = vec4<f32>(w.zx, w.yw) * vec4<f32>(1.0, 2.0, 3.0, 4.0);
    out[4u * i + 2u] = vec4<f32>(cross(u.xyz, v.xyz), w.x + w.y - w.z * w.w);
    out[4u * i + 3u] = normalize(u) + vec4<f32>(v.xy, 0.5, 1.5).yxwz;
}
