// dispatch: 3,1,1
// y = A * x + beta * y for a 96x80 row-major matrix, one row per invocation, with the
// inner loop unrolled by four through vec4 dot products.
const ROWS: u32 = 96u;
const COLS: u32 = 80u;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    var acc = 0.0;
    for (var c = 0u; c < COLS / 4u; c++) {
        acc += dot(a[row * (COLS / 4u) + c], x[c]);
    }
    y[row] = acc + 0.5 * y[row];
}
