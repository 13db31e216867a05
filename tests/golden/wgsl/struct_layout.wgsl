struct Particle {
    pos: vec3<f32>,
    mass: f32,
    vel: vec3<f32>,
    id: u32,
    rot: mat3x3<f32>,
    tags: array<vec3<f32>, 2>,
    flag: u32,
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> points: array<vec3<f32>>;


@compute @workgroup_size(32, 1, 1)
fn main_(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v6 = particles[i];
    let v9 = v6.pos;
    let v11 = v6.vel;
    let v15 = fma(v11, vec3<f32>(0.5f, 0.5f, 0.5f), v9);
    var v68 = v6;
    v68.pos = v15;
    let v18 = v6.rot;
    let v21 = (v18 * v11);
    var v69 = v68;
    v69.vel = v21;
    let v24 = v6.mass;
    let v26 = (v24 * 0.25f);
    var v70 = v69;
    v70.mass = v26;
    let v29 = v6.id;
    let v31 = (v29 + 1000u);
    var v71 = v70;
    v71.id = v31;
    let v72 = v6.tags;
    let v36 = v72[0];
    let v39 = (v36 + v15);
    var v74 = v72;
    v74[1] = v39;
    var v75 = v71;
    v75.tags = v74;
    let v44 = (v26 > 1.0f);
    let v47 = select(0u, 1u, v44);
    let v49 = (i << 8u);
    let v50 = (v47 | v49);
    var v76 = v75;
    v76.flag = v50;
    particles[i] = v76;
    let v56 = points[i];
    let v61 = fma(v56, vec3<f32>(2.0f, 2.0f, 2.0f), vec3<f32>(1.0f, 2.0f, 3.0f));
    points[i] = v61;
    let v66 = f32(i);
    particles[i].rot[2].y = v66;
}
