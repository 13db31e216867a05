// dispatch: 2,1,1
// Boolean vectors, any/all, component-wise select, short-circuit && / || guarding a read.
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> picked: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let u = a[i];
    let v = b[i];
    let lt = u < v;
    picked[i] = select(v, u, lt) + select(vec4<f32>(0.0), vec4<f32>(1.0), !(u >= vec4<f32>(0.0)));
    var f = 0u;
    f |= select(0u, 1u, any(lt));
    f |= select(0u, 2u, all(lt));
    f |= select(0u, 4u, all(u.xy != v.xy) || u.z == 0.5);
    f |= select(0u, 8u, i + 1u < arrayLength(&a) && a[i + 1u].x > u.x);
    f |= select(0u, 16u, i == 0u || b[i - 1u].y < v.y);
    let mask = vec4<u32>(lt) * vec4<u32>(1u, 2u, 4u, 8u);
    f |= (mask.x + mask.y + mask.z + mask.w) << 8u;
    flags[i] = f;
}
