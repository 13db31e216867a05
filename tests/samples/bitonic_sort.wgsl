// dispatch: 2,1,1
// Bitonic sort of 256 u32 keys per workgroup, ascending.
const N: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;

var<workgroup> s: array<u32, N>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    s[lid] = keys[gid.x];
    workgroupBarrier();
    for (var k = 2u; k <= N; k <<= 1u) {
        for (var j = k >> 1u; j > 0u; j >>= 1u) {
            let partner = lid ^ j;
            if (partner > lid) {
                let a = s[lid];
                let b = s[partner];
                let ascending = (lid & k) == 0u;
                if ((a > b) == ascending) {
                    s[lid] = b;
                    s[partner] = a;
                }
            }
            workgroupBarrier();
        }
    }
    keys[gid.x] = s[lid];
}
