struct FragmentIn {
    @builtin(position) frag_coord: vec4<f32>,
    @location(0) shadow_pos: vec3<f32>,
}

@group(0) @binding(0) var shadow_map: texture_depth_2d;
@group(0) @binding(1) var shadow_sampler: sampler_comparison;


@fragment
fn fs_shadow(input: FragmentIn) -> @location(0) vec4<f32> {
    let v25 = input.shadow_pos;
    let v26 = v25.xy;
    let v29 = v25.z;
    let v31 = (v29 - 0.005f);
    var lit = 0.0f;
    var k = 0i;
    loop {
        let lit_1 = lit;
        let k_1 = k;
        let v7 = (k_1 < 4i);
        if !(v7) {
            break;
        }
        let v10 = (k_1 & 1i);
        let v11 = f32(v10);
        let v14 = (k_1 >> 1u);
        let v15 = f32(v14);
        let v16 = vec2<f32>(v11, v15);
        let v56 = -(vec2<f32>(0.00048828125f, 0.00048828125f));
        let offset = fma(v16, vec2<f32>(0.0009765625f, 0.0009765625f), v56);
        let v27 = (v26 + offset);
        let v34 = textureSampleCompare(shadow_map, shadow_sampler, v27, v31);
        let v35 = (lit_1 + v34);
        lit = v35;
        continuing {
            let lit_2 = lit;
            let k_2 = k;
            let v38 = (k_2 + 1i);
            k = v38;
        }
    }
    let v41 = (0.75f * lit);
    let v = fma(v41, 0.25f, 0.25f);
    let v47 = vec4<f32>(v, v, v, 1.0f);
    return v47;
}
