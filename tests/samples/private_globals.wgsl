// dispatch: 2,1,1
// Per-invocation state in private globals: a xorshift generator mutated by a helper
// function, an initialized private counter and an initialized private lookup table.
@group(0) @binding(0) var<storage, read> seeds: array<u32>;
// 2 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<private> rng_state: u32;
var<private> calls: u32 = 7u;
var<private> table: array<u32, 8> = array<u32, 8>(3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u);

fn next_random() -> u32 {
    rng_state ^= rng_state << 13u;
    rng_state ^= rng_state >> 17u;
    rng_state ^= rng_state << 5u;
    calls += 1u;
    return rng_state;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    rng_state = seeds[gid.x] | 1u;
    var mixed = 0u;
    let rounds = seeds[gid.x] % 5u + 3u;
    for (var k = 0u; k < rounds; k++) {
        let r = next_random();
        mixed = (mixed ^ r) + table[r & 7u];
        table[k & 7u] += 1u;
    }
    out[2u * gid.x] = mixed;
    out[2u * gid.x + 1u] = calls + table[0] * 1000u;
}
