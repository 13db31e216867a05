// dispatch: 2,1,1
// Immediate data (`var<immediate>`, Vulkan's push constants): a scale, an offset, a count and
// a small table passed with the dispatch instead of in a buffer, the table indexed at run
// time. On PTX the block is the last kernel parameter, read in place (docs/immediates.md).
struct Params {
    scale: f32,
    offset: f32,
    count: u32,
    table: array<vec4<f32>, 2>,
}

var<immediate> params: Params;
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&output) || i >= arrayLength(&input)) {
        return;
    }
    let t = params.table[(i / 4u) % 2u][i % 4u];
    output[i] = select(-1.0, input[i] * params.scale + params.offset + t, i < params.count);
}
