// dispatch: 1,1,1
// refract(i, n, eta) on vec3 and vec2, total internal reflection (the zero vector) included.
// rays[k].xyz is the incident direction and rays[k].w the ratio of indices of refraction.
@group(0) @binding(0) var<storage, read> rays: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> normals: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> bent: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= arrayLength(&rays) || k >= arrayLength(&normals) || k >= arrayLength(&bent)) {
        return;
    }
    let r = rays[k];
    let n = normals[k].xyz;
    let t3 = refract(r.xyz, n, r.w);
    let t2 = refract(r.xy, n.xy, r.w);
    bent[k] = vec4<f32>(t3, t2.x + t2.y);
}
