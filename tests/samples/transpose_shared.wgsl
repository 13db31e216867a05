// dispatch: 4,3,1
// Transposes a 48x64 (rows x columns) f32 matrix through a padded 16x17 workgroup tile.
const W: u32 = 64u;
const H: u32 = 48u;

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

var<workgroup> tile: array<array<f32, 17>, 16>;

@compute @workgroup_size(16, 16)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let x = wid.x * 16u + lid.x;
    let y = wid.y * 16u + lid.y;
    tile[lid.y][lid.x] = input[y * W + x];
    workgroupBarrier();
    let tx = wid.y * 16u + lid.x;
    let ty = wid.x * 16u + lid.y;
    output[ty * H + tx] = tile[lid.x][lid.y];
}
