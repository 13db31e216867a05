// dispatch: 4,4,1
// C = A * B for 64x64 row-major f32 matrices, 16x16 tiles staged in workgroup memory.
const N: u32 = 64u;
const TILE: u32 = 16u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < N / TILE; t++) {
        tile_a[lid.y][lid.x] = a[row * N + t * TILE + lid.x];
        tile_b[lid.y][lid.x] = b[(t * TILE + lid.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc += tile_a[lid.y][k] * tile_b[k][lid.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = acc;
}
