// dispatch: 1,1,1
// A float subgroup sum and scan of one value in every lane. WGSL leaves the order of the
// additions to the implementation: the interpreter adds lane by lane (rounding at 3x, 5x,
// ...), the PTX butterfly adds pairs (exactly 32x). Regression: `verify` compared them with
// the exact class's 4-ulp bound and reported a disagreement of 5 ulp (found by
// `dianran fuzz`, seed 1437126653759108236); float subgroup sums now compare like other
// accumulations.
enable subgroups;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ssz: u32) {
    let v = x[ssz % arrayLength(&x)] * 1.1f;
    out[sid * 2u] = subgroupAdd(v);
    out[sid * 2u + 1u] = subgroupInclusiveAdd(v);
}
