// dispatch: 8,1,1
// Numerically stable row softmax, y[r][j] = exp(x[r][j] - max_r) / sum_j exp(x[r][j] - max_r),
// over rows of `cols` f32 (a multiple of 4, from a uniform), one workgroup of 256 per row:
// dispatch one workgroup per row (the header's 8 fits the reference test's 8 rows).
//
// Memory-bound, so the row is read twice and written once, 16 bytes per access, and never
// staged: pass 1 keeps a running (max, sum of exp(x - max)) per invocation over the
// vec4<f32> elements lid, lid + 256, ... (the "online" softmax: when the max grows, the sum
// is rescaled by exp(old - new)), then merges the pairs across the subgroup (subgroupMax,
// then subgroupAdd of the rescaled sums) and across subgroups through workgroup memory (one
// barrier); pass 2 writes exp(x - max) * (1 / sum). Consecutive invocations access
// consecutive 16-byte elements: a subgroup of 32 covers 512 contiguous bytes per access,
// whole 32-byte sectors when a row starts 32-byte aligned (cols a multiple of 8).
//
// An invocation with no elements (cols < 1024) starts from the lowest finite f32 rather
// than -inf, so its pair (lowest, 0) merges as zero instead of producing exp(-inf + inf).
// Inputs are finite.
enable subgroups;

struct Params {
    cols: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;

const WG: u32 = 256u;
const LOWEST: f32 = -3.40282347e38;

// One (max, sum) pair per subgroup; a subgroup has at least one invocation, so at most WG.
var<workgroup> part_max: array<f32, WG>;
var<workgroup> part_sum: array<f32, WG>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) sid: u32,
    @builtin(subgroup_size) ssz: u32,
) {
    let n4 = params.cols / 4u;
    let base = wid.x * n4;

    // Pass 1: this invocation's running max and sum of exp(x - max).
    var m = LOWEST;
    var s = 0.0;
    for (var i = lid; i < n4; i += WG) {
        let v = x[base + i];
        let mv = max(max(v.x, v.y), max(v.z, v.w));
        let mn = max(m, mv);
        let e = exp(v - vec4<f32>(mn));
        s = s * exp(m - mn) + (e.x + e.y) + (e.z + e.w);
        m = mn;
    }

    // Merge over the subgroup, then over the subgroups.
    let sm = subgroupMax(m);
    let ss = subgroupAdd(s * exp(m - sm));
    let sg = lid / ssz;
    if (sid == 0u) {
        part_max[sg] = sm;
        part_sum[sg] = ss;
    }
    workgroupBarrier();
    let groups = (WG + ssz - 1u) / ssz;
    var row_max = LOWEST;
    for (var g = 0u; g < groups; g++) {
        row_max = max(row_max, part_max[g]);
    }
    var total = 0.0;
    for (var g = 0u; g < groups; g++) {
        total += part_sum[g] * exp(part_max[g] - row_max);
    }
    let inv = 1.0 / total;

    // Pass 2.
    for (var i = lid; i < n4; i += WG) {
        y[base + i] = exp(x[base + i] - vec4<f32>(row_max)) * inv;
    }
}
