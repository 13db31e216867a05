// dispatch: 1,1,1
// i64 and u64 values as indices into a storage array and a vector (the backends index with
// 32 bits: the lowering narrows a 64-bit index, keeping out-of-range ones out of range).
@group(0) @binding(0) var<storage, read> idx: array<i64>;
@group(0) @binding(1) var<storage, read> table: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    // & 31: `dianran verify` fills i64 buffers with values in [-32, 32).
    let k = idx[gid.x] & 31li;
    let v = vec4<u32>(1u, 2u, 3u, 4u);
    out[gid.x] = table[k] * 10u + v[u64(k) & 3lu];
}
