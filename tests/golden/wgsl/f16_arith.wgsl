enable f16;

const HALF_PI: f16 = 1.5703125h;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<f16>;
@group(0) @binding(3) var<storage, read_write> wide: array<f32>;


@compute @workgroup_size(64, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = a[i];
    let y = b[i];
    let o = (i * 6u);
    let v14 = (x + y);
    out[o] = v14;
    let v16 = (o + 1u);
    let v56 = -(1.5h);
    let v20 = fma(x, y, v56);
    out[v16] = v20;
    let v22 = (o + 2u);
    let v24 = (x / y);
    out[v22] = v24;
    let v26 = (o + 3u);
    let v29 = fma(x, y, 1.5703125h);
    out[v26] = v29;
    let v31 = (o + 4u);
    let v33 = abs(x);
    let v34 = max(v33, y);
    let v35 = abs(y);
    let v36 = sqrt(v35);
    let v37 = (v34 + v36);
    out[v31] = v37;
    let v38 = (x - y);
    let v40 = vec4<f16>(x, y, v38, 2.0h);
    let v = (v40 * vec4<f16>(0.5h, 0.5h, 0.5h, 0.5h));
    let v44 = (o + 5u);
    let v57 = v.x;
    let v58 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).x;
    let v59 = (v57 * v58);
    let v60 = v.y;
    let v61 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).y;
    let v62 = fma(v60, v61, v59);
    let v63 = v.z;
    let v64 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).z;
    let v65 = fma(v63, v64, v62);
    let v66 = v.w;
    let v67 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).w;
    let v47 = fma(v66, v67, v65);
    out[v44] = v47;
    let v50 = f32(x);
    let v51 = f32(y);
    let v54 = f32(v38);
    let v55 = fma(v50, v51, v54);
    wide[i] = v55;
}
