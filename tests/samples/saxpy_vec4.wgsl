// dispatch: 4,1,1
// y = alpha * x + y over `count` vec4<f32> (BLAS saxpy, 4 floats per invocation): a
// memory-bound kernel that moves 48 bytes per invocation and computes 4 fused multiply-adds.
// Dispatch ceil(count / 256) workgroups (the header's 4 fits the reference test's
// count = 1000). Consecutive invocations touch consecutive 16-byte elements, so a subgroup
// of 32 reads 512 contiguous bytes of x and of y and writes 512 of y: whole 32-byte sectors
// (the buffers start 16-byte aligned; at 32-byte alignment every sector is used whole).
struct Params {
    alpha: f32,
    count: u32, // elements of x and y (vec4s)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < params.count) {
        // Fused, as BLAS implementations on GPUs compute it (one rounding per element).
        y[i] = fma(vec4<f32>(params.alpha), x[i], y[i]);
    }
}
