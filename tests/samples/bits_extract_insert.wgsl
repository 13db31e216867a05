// dispatch: 4,1,1
// extractBits (zero- and sign-extending) and insertBits, with offsets and counts that
// overflow 32 bits (WGSL clamps them).
struct Fields {
    value: u32,
    other: u32,
    offset: u32,
    count: u32,
}

@group(0) @binding(0) var<storage, read> input: array<Fields>;
// 4 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let f = input[gid.x];
    let o = gid.x * 4u;
    out[o + 0u] = extractBits(f.value, f.offset, f.count);
    out[o + 1u] = bitcast<u32>(extractBits(bitcast<i32>(f.value), f.offset, f.count));
    out[o + 2u] = insertBits(f.value, f.other, f.offset, f.count);
    let v = insertBits(vec2<u32>(f.value, f.other), vec2<u32>(f.other, 0xffffffffu), 4u, 8u);
    out[o + 3u] = v.x ^ (v.y << 1u);
}
