// dispatch: 4,1,1
// Bit counting and scanning builtins on u32, i32 and vectors.
@group(0) @binding(0) var<storage, read> input: array<u32>;
// 9 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    let xi = bitcast<i32>(x);
    let o = gid.x * 9u;
    out[o + 0u] = countOneBits(x);
    out[o + 1u] = countLeadingZeros(x);
    out[o + 2u] = countTrailingZeros(x);
    out[o + 3u] = reverseBits(x);
    out[o + 4u] = firstLeadingBit(x);
    out[o + 5u] = bitcast<u32>(firstLeadingBit(xi));
    out[o + 6u] = firstTrailingBit(x);
    let v = countOneBits(vec2<i32>(xi, xi >> 7u));
    out[o + 7u] = bitcast<u32>(v.x * 100 + v.y);
    out[o + 8u] = bitcast<u32>(reverseBits(xi) ^ ~xi);
}
