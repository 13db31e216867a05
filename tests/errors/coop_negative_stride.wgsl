enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(32)
fn main() {
    let mc = coopLoad<coop_mat8x8<f32, C>>(&c[0]);
    coopStore(mc, &c[0], -8);
}
