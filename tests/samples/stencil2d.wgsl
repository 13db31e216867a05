// dispatch: 4,4,1
// 5-point Jacobi stencil on a 32x32 grid; boundary cells are copied unchanged.
const W: u32 = 32u;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    let i = y * W + x;
    if (x == 0u || y == 0u || x == W - 1u || y == W - 1u) {
        dst[i] = src[i];
        return;
    }
    let neighbours = src[i - 1u] + src[i + 1u] + src[i - W] + src[i + W];
    dst[i] = 0.2 * (neighbours + src[i]);
}
