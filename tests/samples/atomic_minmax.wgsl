// dispatch: 4,1,1
// atomicMax / atomicMin on i32 and u32 and the bitwise atomics, all into one struct.
struct Stats {
    max_i: atomic<i32>,
    min_i: atomic<i32>,
    max_u: atomic<u32>,
    min_u: atomic<u32>,
    and_bits: atomic<u32>,
    or_bits: atomic<u32>,
    xor_bits: atomic<u32>,
    total: atomic<u32>,
    sub_total: atomic<i32>,
}

@group(0) @binding(0) var<storage, read> values: array<i32>;
@group(0) @binding(1) var<storage, read_write> stats: Stats;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = values[gid.x];
    let u = bitcast<u32>(v);
    atomicMax(&stats.max_i, v);
    atomicMin(&stats.min_i, v);
    atomicMax(&stats.max_u, u);
    atomicMin(&stats.min_u, u);
    atomicAnd(&stats.and_bits, u | 0x0f0f0f0fu);
    atomicOr(&stats.or_bits, u & 0x00ff00ffu);
    atomicXor(&stats.xor_bits, u);
    atomicAdd(&stats.total, u >> 8u);
    atomicSub(&stats.sub_total, v >> 4u);
}
