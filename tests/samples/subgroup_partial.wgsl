// dispatch: 1,1,1
// Subgroup reductions and scans that only some invocations run (a data-dependent branch):
// each combines the active invocations alone, in invocation order. On PTX a partial warp takes
// the path that walks the 32 lanes (docs/ptx.md, "Subgroups"). Outputs depend on the subgroup
// size; invocations outside the branch write nothing.
enable subgroups;

@group(0) @binding(0) var<storage, read> a: array<u32, 64>;
@group(0) @binding(1) var<storage, read_write> o: array<u32, 384>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    let x = a[i];
    if (x % 3u != 0u) {
        o[6u * i] = subgroupAdd(x);
        o[6u * i + 1u] = subgroupInclusiveAdd(x);
        o[6u * i + 2u] = subgroupExclusiveAdd(x);
        o[6u * i + 3u] = u32(subgroupMax(f32(x)));
        o[6u * i + 4u] = u32(subgroupExclusiveMul(f32(x % 2u + 1u)));
        o[6u * i + 5u] = bitcast<u32>(subgroupMin(i32(x) - 2000));
    }
}
