// dispatch: 1,1,1
// Matrix conversions and identity constructors (`mat3x2<f16>(m)`, `mat2x2<f32>(m_f16)`) and
// vector conversions. Regression: the WGSL and MSL printers wrote a matrix conversion as a
// scalar cast (`f16(m)`), which naga rejects (found by `dianran verify` on Dawn's
// expressions/type_ctor/mat3x2/explicit/identity/f16.wgsl).
enable f16;

@group(0) @binding(0) var<storage, read> x: array<f32, 8>;     // in [-4, 4]
@group(0) @binding(1) var<storage, read_write> out: array<f32, 16>;

@compute @workgroup_size(1)
fn main() {
    let m = mat3x2<f32>(x[0], x[1], x[2], x[3], x[4], x[5]);
    let same = mat3x2<f32>(m);
    let h = mat3x2<f16>(m);
    let h_same = mat3x2<f16>(h);
    let back = mat3x2<f32>(h_same);
    let v = vec3<i32>(vec3<f32>(x[6], x[7], x[0]) * 4.0);
    let w = vec2<f32>(vec2<u32>(3u, 7u));
    for (var c = 0u; c < 3u; c++) {
        out[2u * c] = same[c].x + back[c].y;
        out[2u * c + 1u] = f32(h[c].x) * 2.0;
    }
    out[6] = f32(v.x);
    out[7] = f32(v.y);
    out[8] = f32(v.z);
    out[9] = w.x + w.y;
}
