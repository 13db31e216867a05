// dispatch: 4,1,1
// Pipeline-overridable constants with defaults: the workgroup size comes from BLOCK,
// SCALE and USE_BIAS change the arithmetic. Expected results assume the defaults.
override BLOCK: u32 = 64;
override SCALE: f32 = 2.0;
override USE_BIAS: bool = true;
override BIAS = SCALE * 0.25;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> lanes: array<u32>;

@compute @workgroup_size(BLOCK)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    var v = x[gid.x] * SCALE;
    if (USE_BIAS) {
        v += BIAS * f32(wid.x);
    }
    y[gid.x] = v;
    lanes[gid.x] = lid + BLOCK * 1000u;
}
