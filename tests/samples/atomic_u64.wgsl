// dispatch: 2,1,1
// 64-bit atomics on storage and workgroup memory: add, sub, min, max (signed and
// unsigned), and, or, xor, exchange and compare-exchange on atomic<u64>/atomic<i64>.
struct Acc {
    sum: atomic<u64>,
    smin: atomic<i64>,
    smax: atomic<i64>,
    umin: atomic<u64>,
    umax: atomic<u64>,
    ands: atomic<u64>,
    ors: atomic<u64>,
    xors: atomic<u64>,
    sub: atomic<i64>,
    wg_sum: atomic<u64>,
    cas_hits: atomic<u32>,
    last: atomic<u64>,
}

@group(0) @binding(0) var<storage, read> vals: array<i64>;
@group(0) @binding(1) var<storage, read_write> acc: Acc;

var<workgroup> wsum: atomic<u64>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let v = vals[gid.x];
    let u = bitcast<u64>(v);
    atomicAdd(&acc.sum, u);
    atomicMin(&acc.smin, v);
    atomicMax(&acc.smax, v);
    atomicMin(&acc.umin, u);
    atomicMax(&acc.umax, u);
    atomicAnd(&acc.ands, u | 0xfff0000000000000lu);
    atomicOr(&acc.ors, u);
    atomicXor(&acc.xors, u);
    atomicSub(&acc.sub, v);
    atomicAdd(&wsum, u >> 4u);
    // Exactly one invocation (the one holding gid 5) swaps 0 -> its value.
    if (gid.x == 5u) {
        let r = atomicCompareExchangeWeak(&acc.last, 0lu, u);
        if (r.exchanged) {
            atomicAdd(&acc.cas_hits, 1u);
        }
    }
    workgroupBarrier();
    if (li == 0u) {
        atomicAdd(&acc.wg_sum, atomicExchange(&wsum, 0lu));
    }
}
