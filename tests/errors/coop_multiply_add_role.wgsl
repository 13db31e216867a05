enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(32)
fn main() {
    let ma = coopLoad<coop_mat8x8<f16, A>>(&a[0]);
    let mc = coopLoad<coop_mat8x8<f32, C>>(&c[0]);
    let md = coopMultiplyAdd(ma, ma, mc);
    coopStore(md, &c[0]);
}
