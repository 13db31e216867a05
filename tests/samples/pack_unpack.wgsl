// dispatch: 2,1,1
// Data packing builtins: 4x8 unorm/snorm, 2x16 unorm/snorm, and their inverses.
// (pack2x16float, unpack2x16float and quantizeToF16 need naga's SHADER_FLOAT16_IN_FLOAT32
// capability, which the frontend does not enable, so they are not used here.)
struct PackIn {
    v4: vec4<f32>,
    v2: vec2<f32>,
    word: u32,
}

struct PackOut {
    p4unorm: u32,
    p4snorm: u32,
    p2unorm: u32,
    p2snorm: u32,
    u4unorm: vec4<f32>,
    u4snorm: vec4<f32>,
    u2unorm: vec2<f32>,
    u2snorm: vec2<f32>,
}

@group(0) @binding(0) var<storage, read> input: array<PackIn>;
@group(0) @binding(1) var<storage, read_write> out: array<PackOut>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = input[gid.x];
    var r: PackOut;
    r.p4unorm = pack4x8unorm(p.v4);
    r.p4snorm = pack4x8snorm(p.v4);
    r.p2unorm = pack2x16unorm(p.v2);
    r.p2snorm = pack2x16snorm(p.v2);
    r.u4unorm = unpack4x8unorm(p.word);
    r.u4snorm = unpack4x8snorm(p.word);
    r.u2unorm = unpack2x16unorm(p.word);
    r.u2snorm = unpack2x16snorm(p.word);
    out[gid.x] = r;
}
