enable f16;

const HALF_PI: f16 = 1.5703125h;

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<f16>;
@group(0) @binding(3) var<storage, read_write> wide: array<f32>;


@compute @workgroup_size(64, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v56 = arrayLength(&a);
    let v57 = (i < v56);
    var x: f16;
    if v57 {
        let v58 = a[i];
        x = v58;
    } else {
        x = f16();
    }
    let v60 = arrayLength(&b);
    let v61 = (i < v60);
    var y: f16;
    if v61 {
        let v62 = b[i];
        y = v62;
    } else {
        y = f16();
    }
    let o = (i * 6u);
    let v64 = arrayLength(&out);
    let v65 = (o < v64);
    let v14 = (x + y);
    if v65 {
        out[o] = v14;
    }
    let v16 = (o + 1u);
    let v67 = (v16 < v64);
    let v78 = -(1.5h);
    let v20 = fma(x, y, v78);
    if v67 {
        out[v16] = v20;
    }
    let v22 = (o + 2u);
    let v69 = (v22 < v64);
    let v24 = (x / y);
    if v69 {
        out[v22] = v24;
    }
    let v26 = (o + 3u);
    let v71 = (v26 < v64);
    let v29 = fma(x, y, 1.5703125h);
    if v71 {
        out[v26] = v29;
    }
    let v31 = (o + 4u);
    let v73 = (v31 < v64);
    let v33 = abs(x);
    let v34 = max(v33, y);
    let v35 = abs(y);
    let v36 = sqrt(v35);
    let v37 = (v34 + v36);
    if v73 {
        out[v31] = v37;
    }
    let v38 = (x - y);
    let v40 = vec4<f16>(x, y, v38, 2.0h);
    let v = (v40 * vec4<f16>(0.5h, 0.5h, 0.5h, 0.5h));
    let v44 = (o + 5u);
    let v75 = (v44 < v64);
    let v79 = v.x;
    let v80 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).x;
    let v81 = (v79 * v80);
    let v82 = v.y;
    let v83 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).y;
    let v84 = fma(v82, v83, v81);
    let v85 = v.z;
    let v86 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).z;
    let v87 = fma(v85, v86, v84);
    let v88 = v.w;
    let v89 = vec4<f16>(1.0h, (-1.0h), 1.0h, 0.25h).w;
    let v47 = fma(v88, v89, v87);
    if v75 {
        out[v44] = v47;
    }
    let v76 = arrayLength(&wide);
    let v77 = (i < v76);
    let v50 = f32(x);
    let v51 = f32(y);
    let v54 = f32(v38);
    let v55 = fma(v50, v51, v54);
    if v77 {
        wide[i] = v55;
    }
}
