// dispatch: 4,1,1
// 1-D convolution with a 7-tap filter from a uniform buffer; each workgroup stages its
// 64 inputs plus a 3-element halo on each side in workgroup memory (clamped at the ends).
const WG: u32 = 64u;
const RADIUS: u32 = 3u;

struct Filter {
    taps: array<vec4<f32>, 2>,  // taps[k / 4][k % 4], k in 0..7
    n: u32,
}

@group(0) @binding(0) var<uniform> kernel: Filter;
@group(0) @binding(1) var<storage, read> signal: array<f32>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;

var<workgroup> tile: array<f32, 70>;

fn load_clamped(i: i32) -> f32 {
    return signal[clamp(i, 0, i32(kernel.n) - 1)];
}

@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let g = i32(gid.x);
    tile[lid + RADIUS] = load_clamped(g);
    if (lid < RADIUS) {
        tile[lid] = load_clamped(g - i32(RADIUS));
        tile[lid + WG + RADIUS] = load_clamped(g + i32(WG));
    }
    workgroupBarrier();
    var acc = 0.0;
    for (var k = 0u; k < 2u * RADIUS + 1u; k++) {
        acc += kernel.taps[k / 4u][k % 4u] * tile[lid + k];
    }
    result[gid.x] = acc;
}
