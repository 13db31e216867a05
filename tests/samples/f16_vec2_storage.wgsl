// dispatch: 2,1,1
// vec2<f16> pairs in storage: each element occupies 4 bytes, exactly the bytes of a u32
// holding the two halves (x in the low 16 bits). naga 30 cannot express
// bitcast<vec2<f16>>(u32) (it keeps the vector size and yields vec2<u16>), so the packing
// is done by the buffer layout instead of a bitcast.
enable f16;

@group(0) @binding(0) var<storage, read> packed: array<vec2<f16>>;
@group(0) @binding(1) var<storage, read_write> repacked: array<vec2<f16>>;
@group(0) @binding(2) var<storage, read_write> widened: array<vec2<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = packed[gid.x];
    let w = v * vec2<f16>(2.0h, 0.5h) + vec2<f16>(v.y, v.x);
    repacked[gid.x] = w;
    widened[gid.x] = vec2<f32>(w) + vec2<f32>(f32(v.y), f32(v.x));
}
