// dispatch: 4,1,1
// Integer hashing (PCG, xxhash-style avalanche) relying on wrapping u32 multiplication.
@group(0) @binding(0) var<storage, read> keys: array<u32>;
// 3 hashes per key.
@group(0) @binding(1) var<storage, read_write> hashes: array<u32>;

fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn avalanche(h0: u32) -> u32 {
    var h = h0;
    h ^= h >> 15u;
    h *= 0x85ebca77u;
    h ^= h >> 13u;
    h *= 0xc2b2ae3du;
    h ^= h >> 16u;
    return h;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = keys[gid.x];
    hashes[3u * gid.x] = pcg(k);
    hashes[3u * gid.x + 1u] = avalanche(k);
    hashes[3u * gid.x + 2u] = pcg(avalanche(k) ^ gid.x);
}
