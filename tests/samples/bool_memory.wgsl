// dispatch: 1,1,1
// bools in memory: dianran stores each as a 4-byte word, so arrays and structs of bools in
// private, function and workgroup memory get 4-byte strides and offsets (naga lays a bool out
// as one byte). Regression: a private array<bool, N> with an initializer overflowed the local
// depot (found by `dianran verify` with an array of 32767 bools).
struct Flags {
    a: bool,
    b: bool,
    n: u32,
    c: bool,
}

var<private> bits: array<bool, 7> = array<bool, 7>(true, false, true, true, false, false, true);
var<workgroup> wf: array<Flags, 4>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) lid: u32) {
    var local = Flags(lid == 1u, lid > 1u, lid * 10u, lid != 2u);
    wf[lid] = local;
    workgroupBarrier();
    let other = wf[(lid + 1u) % 4u];
    bits[lid] = !bits[lid];
    var count = 0u;
    for (var i = 0u; i < 7u; i++) {
        if (bits[i]) {
            count += 1u << i;
        }
    }
    out[lid * 4u] = count;
    out[lid * 4u + 1u] = select(0u, 1u, other.a) + select(0u, 2u, other.b) + select(0u, 4u, other.c);
    out[lid * 4u + 2u] = other.n;
    out[lid * 4u + 3u] = select(0u, 1u, local.b);
}
