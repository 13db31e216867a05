// dispatch: 1,1,1
// Struct constructors of structs whose MSL declaration needs explicit padding members to keep
// WGSL's layout (here before the `@align(16)` member and at the end).
// Regression: MSL initialized such a struct with its values in order, so values landed in
// the padding members and clang rejected the program (found by `dianran fuzz`); padding
// members now get `{}`.
enable f16;

struct Loc {
    p: f32,
    @align(16) q: vec2<u32>,
    r: array<i32, 3>,
    s: u32,
    h: vec2<f16>,
}

@group(0) @binding(0) var<storage, read> a: array<f32, 4>;
@group(0) @binding(1) var<storage, read_write> out: array<f32, 8>;

var<private> g: Loc;

@compute @workgroup_size(1)
fn main() {
    var l = Loc(a[0], vec2<u32>(u32(a[1]), 7u), array<i32, 3>(1, i32(a[2]), 3), u32(a[3] > 0.0), vec2<f16>(f16(a[0]), 0.5h));
    g = Loc(2.0 * a[0], l.q + vec2<u32>(1u), l.r, 1u - l.s, l.h * 2.0h);
    out[0] = l.p;
    out[1] = f32(l.q.x + l.q.y);
    out[2] = f32(l.r[0] + l.r[1] + l.r[2]);
    out[3] = f32(l.s);
    out[4] = f32(l.h.x + l.h.y);
    out[5] = g.p;
    out[6] = f32(g.q.y) + 10.0 * f32(g.s);
    out[7] = f32(g.h.y);
}
