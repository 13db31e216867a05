// Texture loads and stores: textureLoad from sampled float and uint textures, textureStore
// into write-only rgba8unorm and r32uint storage textures, and a read_write r32float storage
// texture updated in place. Each invocation handles one texel of a 16x8 image.
// dispatch: 2,1,1
// texture: 0:0=16x8:rgba32float
// texture: 0:1=16x8:rgba32uint
// texture: 0:2=16x8:rgba8unorm
// texture: 0:3=16x8:r32uint
// texture: 0:4=16x8:r32float
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var src_u: texture_2d<u32>;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(3) var dst_u: texture_storage_2d<r32uint, write>;
@group(0) @binding(4) var acc: texture_storage_2d<r32float, read_write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = textureDimensions(dst);
    if id.x >= dims.x || id.y >= dims.y {
        return;
    }
    let c = vec2<i32>(id.xy);
    // The texel mirrored through the image center.
    let m = vec2<i32>(dims) - vec2<i32>(1) - c;
    let a = textureLoad(src, c, 0);
    let b = textureLoad(src, m, 0);
    // Stored as unorm8: clamped to [0, 1] and rounded.
    textureStore(dst, c, a * 0.5 + b.wzyx * 0.25 + vec4<f32>(0.25));
    let u = textureLoad(src_u, c, 0);
    textureStore(dst_u, c, vec4<u32>(u.x * 3u + u.w + id.x * 100u + id.y, 0u, 0u, 0u));
    let old = textureLoad(acc, c);
    textureStore(acc, c, vec4<f32>(old.x * 2.0 + a.y, 0.0, 0.0, 0.0));
}
