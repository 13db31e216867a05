// Texture queries and loads from every dimension: textureDimensions (with and without a
// level), textureNumLevels and textureNumLayers of 1D, 2D, 2D-array, 3D and cube textures,
// and textureLoad from a 1D, a 2D-array and a 3D texture at a lower mip level.
// dispatch: 1,1,1
// texture: 0:0=13:r32float
// texture: 0:1=16x8:rgba8unorm:3
// texture: 0:2=4x4x5:r32sint:2
// texture: 0:3=8x4x4:r32uint:2
// texture: 0:4=4x4x6:rgba16float:3
@group(0) @binding(0) var t1: texture_1d<f32>;
@group(0) @binding(1) var t2: texture_2d<f32>;
@group(0) @binding(2) var ta: texture_2d_array<i32>;
@group(0) @binding(3) var t3: texture_3d<u32>;
@group(0) @binding(4) var tc: texture_cube<f32>;
@group(0) @binding(5) var<storage, read_write> dims: array<u32, 24>;
@group(0) @binding(6) var<storage, read_write> texels: array<vec4<u32>, 8>;

@compute @workgroup_size(8)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u {
        dims[0] = textureDimensions(t1);
        let d2 = textureDimensions(t2);
        dims[1] = d2.x;
        dims[2] = d2.y;
        let d2l = textureDimensions(t2, 2);
        dims[3] = d2l.x;
        dims[4] = d2l.y;
        dims[5] = textureNumLevels(t2);
        let da = textureDimensions(ta, 1);
        dims[6] = da.x;
        dims[7] = da.y;
        dims[8] = textureNumLayers(ta);
        dims[9] = textureNumLevels(ta);
        let d3 = textureDimensions(t3);
        dims[10] = d3.x;
        dims[11] = d3.y;
        dims[12] = d3.z;
        let d31 = textureDimensions(t3, 1);
        dims[13] = d31.x;
        dims[14] = d31.y;
        dims[15] = d31.z;
        let dc = textureDimensions(tc, 1);
        dims[16] = dc.x;
        dims[17] = dc.y;
        dims[18] = textureNumLevels(tc);
        dims[19] = textureNumLevels(t3);
    }
    let k = i32(i);
    let x = textureLoad(t1, k + 3, 0);
    let a = textureLoad(ta, vec2<i32>(k % 2, k / 4), k % 5, 1);
    let v = textureLoad(t3, vec3<i32>(k % 4, k / 4, k % 2), 1);
    texels[i] = vec4<u32>(bitcast<u32>(x.x), bitcast<u32>(a.x), v.x, bitcast<u32>(a.w));
}
