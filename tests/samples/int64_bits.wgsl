// dispatch: 2,1,1
// Bit-scan builtins on 64-bit integers: countLeadingZeros, countTrailingZeros, reverseBits,
// firstLeadingBit and firstTrailingBit on u64 and i64, zero and all-ones included (64
// leading/trailing zeros of 0, -1 as the first bit of 0 and of i64 -1), and on vec2 of each;
// extractBits and insertBits with offsets and counts past 64 (clamped as WGSL says).
struct Bits {
    clz: u64,
    ctz: u64,
    rev: u64,
    sclz: i64,
    sctz: i64,
    srev: i64,
    flb: u64,
    ftb: u64,
    sflb: i64,
    sftb: i64,
    // Second lanes of vector calls: clz(~x), firstTrailingBit(-s), firstLeadingBit(~s),
    // reverseBits(s ^ 1).
    vclz: u64,
    vftb: i64,
    vflb: i64,
    vrev: i64,
    ext: u64,
    sext: i64,
    ins: u64,
}

@group(0) @binding(0) var<storage, read> v: array<u64>;
@group(0) @binding(1) var<storage, read_write> out: array<Bits>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = v[gid.x];
    let s = bitcast<i64>(x);
    let ux = vec2<u64>(x, ~x);
    let sx = vec2<i64>(s, -s);
    let o = (gid.x * 5u) % 70u;
    let c = (gid.x * 13u + 3u) % 70u;
    out[gid.x] = Bits(
        countLeadingZeros(x),
        countTrailingZeros(x),
        reverseBits(x),
        countLeadingZeros(s),
        countTrailingZeros(s),
        reverseBits(s),
        firstLeadingBit(x),
        firstTrailingBit(x),
        firstLeadingBit(s),
        firstTrailingBit(s),
        countLeadingZeros(ux).y,
        firstTrailingBit(sx).y,
        firstLeadingBit(vec2<i64>(s, ~s)).y,
        reverseBits(vec2<i64>(s, s ^ 1)).y,
        extractBits(x, o, c),
        extractBits(s, o, c),
        insertBits(x, ~x, o, c),
    );
}
