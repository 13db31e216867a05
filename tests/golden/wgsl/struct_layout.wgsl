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
    let v77 = arrayLength(&particles);
    let v78 = (i < v77);
    var v82: vec3<f32>;
    var v85: f32;
    var v88: vec3<f32>;
    var v91: u32;
    var v94: mat3x3<f32>;
    var v97: array<vec3<f32>, 2>;
    var v100: u32;
    if v78 {
        let v79 = particles[i];
        let v80 = v79.pos;
        let v83 = v79.mass;
        let v86 = v79.vel;
        let v89 = v79.id;
        let v92 = v79.rot;
        let v95 = v79.tags;
        let v98 = v79.flag;
        v82 = v80;
        v85 = v83;
        v88 = v86;
        v91 = v89;
        v94 = v92;
        v97 = v95;
        v100 = v98;
    } else {
        v82 = vec3<f32>();
        v85 = f32();
        v88 = vec3<f32>();
        v91 = u32();
        v94 = mat3x3<f32>();
        v97 = array<vec3<f32>, 2>();
        v100 = u32();
    }
    let v6 = Particle(v82, v85, v88, v91, v94, v97, v100);
    let v15 = fma(v88, vec3<f32>(0.5f, 0.5f, 0.5f), v82);
    var v68 = v6;
    v68.pos = v15;
    let v21 = (v94 * v88);
    var v69 = v68;
    v69.vel = v21;
    let v26 = (v85 * 0.25f);
    var v70 = v69;
    v70.mass = v26;
    let v31 = (v91 + 1000u);
    var v71 = v70;
    v71.id = v31;
    let v36 = v97[0];
    let v39 = (v36 + v15);
    var v74 = v97;
    v74[1] = v39;
    var v75 = v71;
    v75.tags = v74;
    let v44 = (v26 > 1.0f);
    let v47 = select(0u, 1u, v44);
    let v49 = (i << 8u);
    let v50 = (v47 | v49);
    var v76 = v75;
    v76.flag = v50;
    if v78 {
        particles[i] = v76;
    }
    let v101 = arrayLength(&points);
    let v102 = (i < v101);
    var v56: vec3<f32>;
    if v102 {
        let v103 = points[i];
        v56 = v103;
    } else {
        v56 = vec3<f32>();
    }
    let v61 = fma(v56, vec3<f32>(2.0f, 2.0f, 2.0f), vec3<f32>(1.0f, 2.0f, 3.0f));
    if v102 {
        points[i] = v61;
    }
    let v66 = f32(i);
    if v78 {
        particles[i].rot[2].y = v66;
    }
}
