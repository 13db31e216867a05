// dispatch: 2,1,1
// Bit-scan builtins on 64-bit integers: countLeadingZeros, countTrailingZeros and
// reverseBits on u64 and i64, zero and all-ones included (64 leading/trailing zeros of 0).
struct Bits {
    clz: u64,
    ctz: u64,
    rev: u64,
    sclz: i64,
    sctz: i64,
    srev: i64,
}

@group(0) @binding(0) var<storage, read> v: array<u64>;
@group(0) @binding(1) var<storage, read_write> out: array<Bits>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = v[gid.x];
    let s = bitcast<i64>(x);
    out[gid.x] = Bits(
        countLeadingZeros(x),
        countTrailingZeros(x),
        reverseBits(x),
        countLeadingZeros(s),
        countTrailingZeros(s),
        reverseBits(s),
    );
}
