// dispatch: 1,1,1
// Subgroup shuffles inside a branch only even invocations take: reading another even (active)
// invocation is defined; reading an odd (inactive) one gives an indeterminate value in WGSL,
// which the PTX emulator must not report as an error (it returns the reader's own value) and
// `dianran verify` leaves out of every comparison with a note. Regression: the emulator
// stopped with a member-mask violation (found on wgpu's tests/subgroup_operations shader).
enable subgroups;

@group(0) @binding(0) var<storage, read_write> defined: array<u32, 32>;
@group(0) @binding(1) var<storage, read_write> indeterminate: array<u32, 32>;

@compute @workgroup_size(32)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) sid: u32,
    @builtin(subgroup_size) size: u32,
) {
    var a = 1000u + sid;
    var b = 2000u + sid;
    if (sid % 2u == 0u) {
        a = subgroupShuffle(sid * 10u, (sid + 2u) % size);
        b = subgroupShuffle(sid * 10u, sid + 1u);
    }
    defined[lid] = a;
    indeterminate[lid] = b;
}
