// dispatch: 4,1,1
// Basic f32 arithmetic and the rounding / range builtins.
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
// 20 results per element.
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let t = c[i];
    let o = i * 20u;
    out[o + 0u] = x + y;
    out[o + 1u] = x - y;
    out[o + 2u] = x * y;
    out[o + 3u] = x / y;
    out[o + 4u] = x % y;
    out[o + 5u] = fma(x, y, t);
    out[o + 6u] = min(x, y);
    out[o + 7u] = max(x, y);
    out[o + 8u] = clamp(x, -2.5, 2.5);
    out[o + 9u] = abs(x);
    out[o + 10u] = floor(x);
    out[o + 11u] = ceil(x);
    out[o + 12u] = round(x);
    out[o + 13u] = trunc(x);
    out[o + 14u] = fract(x);
    out[o + 15u] = sign(x);
    out[o + 16u] = step(y, x);
    out[o + 17u] = mix(x, y, t);
    out[o + 18u] = smoothstep(-1.0, 3.0, x);
    out[o + 19u] = saturate(t * 2.0 - 0.5) - x * -1.0;
}
