// Depth comparison on cube and cube-array depth textures in compute: textureSampleCompareLevel
// with a nearest and a linear `less` comparison sampler and textureGatherCompare, at
// directions inside faces, next to face edges and on axes, each also scaled (the face
// coordinates divide by the major axis). No footprint here crosses a face edge: the
// reference model clamps to the face while Vulkan (lavapipe) filters across edges
// (docs/textures.md); verify/tests/texture_samples.rs checks edges and corners on the
// emulator against the interpreter.
// dispatch: 1,1,1
// texture: 0:0=8x8x6:depth32float
// texture: 0:1=4x4x12:depth32float
// sampler: 0:2=clamp-to-edge,nearest,less
// sampler: 0:3=clamp-to-edge,linear,less
@group(0) @binding(0) var cube: texture_depth_cube;
@group(0) @binding(1) var cubes: texture_depth_cube_array;
@group(0) @binding(2) var s_nearest: sampler_comparison;
@group(0) @binding(3) var s_linear: sampler_comparison;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

const DIRS = array<vec3<f32>, 16>(
    // Inside each face.
    vec3<f32>(1.0, 0.1, -0.2),
    vec3<f32>(-1.0, 0.3, 0.55),
    vec3<f32>(0.2, 1.0, -0.4),
    vec3<f32>(-0.45, -1.0, 0.15),
    vec3<f32>(0.45, -0.15, 1.0),
    vec3<f32>(0.05, 0.6, -1.0),
    // Next to the edges of each face: the footprint takes the first or last texel row and
    // column (on the 4x4 faces too) but stays on the face.
    vec3<f32>(1.0, 0.7, 0.7),
    vec3<f32>(-1.0, -0.7, 0.3),
    vec3<f32>(0.7, 1.0, -0.7),
    vec3<f32>(-0.7, -1.0, 0.7),
    vec3<f32>(-0.7, 0.7, 1.0),
    vec3<f32>(0.7, -0.7, -1.0),
    // On an axis (zero components), and more inside.
    vec3<f32>(0.0, 0.0, -1.0),
    vec3<f32>(0.0, -1.0, 0.0),
    vec3<f32>(1.0, -0.4, 0.6),
    vec3<f32>(-0.6, 1.0, 0.05),
);

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) i: u32) {
    let dir = DIRS[i % 16u] * (1.0 + f32(i / 16u) * 2.5);
    let reference = f32(i) / 32.0 + 1.0 / 512.0;
    let layer = i32(i % 2u);
    let n = textureSampleCompareLevel(cube, s_nearest, dir, reference);
    let l = textureSampleCompareLevel(cube, s_linear, dir, reference);
    let na = textureSampleCompareLevel(cubes, s_nearest, dir, layer, reference);
    let la = textureSampleCompareLevel(cubes, s_linear, dir, layer, reference);
    out[i * 3u + 0u] = vec4<f32>(n, l, na, la);
    out[i * 3u + 1u] = textureGatherCompare(cube, s_nearest, dir, reference);
    out[i * 3u + 2u] = textureGatherCompare(cubes, s_linear, dir, layer, reference);
}
