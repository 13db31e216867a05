struct Params {
    alpha: f32,
    count: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> y: array<vec4<f32>>;


@compute @workgroup_size(256, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v4 = params.count;
    let v5 = (i < v4);
    if v5 {
        let v17 = arrayLength(&y);
        let v18 = (i < v17);
        let v9 = params.alpha;
        let v10 = vec4<f32>(v9);
        let v19 = arrayLength(&x);
        let v20 = (i < v19);
        var v13: vec4<f32>;
        if v20 {
            let v21 = x[i];
            v13 = v21;
        } else {
            v13 = vec4<f32>();
        }
        var v15: vec4<f32>;
        if v18 {
            let v23 = y[i];
            v15 = v23;
        } else {
            v15 = vec4<f32>();
        }
        let v16 = fma(v10, v13, v15);
        if v18 {
            y[i] = v16;
        }
        return;
    } else {
        return;
    }
}
