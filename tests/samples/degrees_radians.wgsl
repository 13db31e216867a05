// dispatch: 1,1,1
// `degrees` and `radians` of f32 and f16 scalars and vectors.
// Regression: MSL multiplied by a bare double literal (`x * 57.29577951308232`), which makes
// the product a double, a type Metal does not have (seen in MSL printed for `dianran fuzz`
// programs). The factor is now typed (`float(...)`, `half(...)`):
// `msl/tests/typed_constants.rs`.
enable f16;

@group(0) @binding(0) var<storage, read> a: array<f32, 4>;
@group(0) @binding(1) var<storage, read_write> out: array<f32, 16>;

@compute @workgroup_size(1)
fn main() {
    let v = vec4<f32>(a[0], a[1], a[2], a[3]);
    let d = degrees(v);
    let r = radians(v);
    let h = degrees(vec3<f16>(v.xyz));
    let hr = clamp(radians(f16(v.w)), -4.0h, 4.0h);
    for (var i = 0u; i < 4u; i++) {
        out[i] = d[i];
        out[4u + i] = r[i];
    }
    for (var i = 0u; i < 3u; i++) {
        out[8u + i] = f32(h[i]);
    }
    out[11] = f32(hr);
    out[12] = max(degrees(a[0]), -1000.0);
}
