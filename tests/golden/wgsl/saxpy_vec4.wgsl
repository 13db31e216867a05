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
    let v17 = arrayLength(&y);
    let v18 = (i < v17);
    let v9 = params.alpha;
    let v10 = vec4<f32>(v9);
    let v19 = arrayLength(&x);
    let v20 = (i < v19);
    let v26 = (v5 && v20);
    var v13: vec4<f32>;
    if v26 {
        let v21 = x[i];
        v13 = v21;
    } else {
        v13 = vec4<f32>();
    }
    let v27 = (v5 && v18);
    if v27 {
        let v23 = y[i];
        let v25 = fma(v10, v13, v23);
        y[i] = v25;
    }
}
