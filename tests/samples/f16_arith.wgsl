// dispatch: 4,1,1
// f16 storage arrays and f16 arithmetic, conversions to and from f32, f16 builtins.
enable f16;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
// 6 results per element.
@group(0) @binding(2) var<storage, read_write> out: array<f16>;
@group(0) @binding(3) var<storage, read_write> wide: array<f32>;

const HALF_PI: f16 = 1.5703125h;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let o = i * 6u;
    out[o + 0u] = x + y;
    out[o + 1u] = x * y - 1.5h;
    out[o + 2u] = x / y;
    out[o + 3u] = fma(x, y, HALF_PI);
    out[o + 4u] = max(abs(x), y) + sqrt(abs(y));
    let v = vec4<f16>(x, y, x - y, 2.0h) * vec4<f16>(0.5h);
    out[o + 5u] = dot(v, vec4<f16>(1.0h, -1.0h, 1.0h, 0.25h));
    wide[i] = f32(x) * f32(y) + f32(x - y);
}
