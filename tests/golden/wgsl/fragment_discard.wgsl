struct FragmentIn {
    @builtin(position) frag_coord: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@group(0) @binding(0) var sprite: texture_2d<f32>;
@group(0) @binding(1) var sprite_sampler: sampler;


@fragment
fn fs_alpha_test(input: FragmentIn) -> @location(0) vec4<f32> {
    let v1 = input.uv;
    let c = textureSample(sprite, sprite_sampler, v1);
    let v5 = c.w;
    let v7 = (v5 < 0.5f);
    if v7 {
        discard;
    }
    let v8 = input.frag_coord;
    let v9 = v8.x;
    let v10 = u32(v9);
    let v12 = (v10 / 8u);
    let v14 = v8.y;
    let v15 = u32(v14);
    let v17 = (v15 / 8u);
    let v18 = (v12 + v17);
    let checker = (v18 % 2u);
    let v21 = c.xyz;
    let v22 = f32(checker);
    let v26 = fma(0.25f, v22, 0.75f);
    let v27 = vec3<f32>(v26);
    let v28 = (v21 * v27);
    let v30 = vec4<f32>(v28, 1.0f);
    return v30;
}
