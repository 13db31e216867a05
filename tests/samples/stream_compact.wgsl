// dispatch: 4,1,1
// Stream compaction with an atomic counter: keeps the multiples of 3. The order of the
// kept values is not deterministic; only the multiset and the count are.
// unordered: 0:2
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> kept: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = input[gid.x];
    if (v % 3u == 0u) {
        let slot = atomicAdd(&counter, 1u);
        kept[slot] = v;
    }
}
