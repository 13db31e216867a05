enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read> a: array<f16>;

@compute @workgroup_size(32)
fn main() {
    let stride = 8.0;
    let ma = coopLoad<coop_mat8x8<f16, A>>(&a[0], stride);
    _ = ma;
}
