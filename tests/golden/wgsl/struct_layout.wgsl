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
    let v49 = (i << 8u);
    if v78 {
        let v79 = particles[i];
        let v80 = v79.pos;
        let v83 = v79.mass;
        let v86 = v79.vel;
        let v89 = v79.id;
        let v92 = v79.rot;
        let v95 = v79.tags;
        let v98 = v79.flag;
        let v105 = Particle(v80, v83, v86, v89, v92, v95, v98);
        let v109 = fma(v86, vec3<f32>(0.5f, 0.5f, 0.5f), v80);
        var v110 = v105;
        v110.pos = v109;
        let v112 = (v92 * v86);
        var v113 = v110;
        v113.vel = v112;
        let v115 = (v83 * 0.25f);
        var v116 = v113;
        v116.mass = v115;
        let v118 = (v89 + 1000u);
        var v119 = v116;
        v119.id = v118;
        let v121 = v95[0];
        let v122 = (v121 + v109);
        var v123 = v95;
        v123[1] = v122;
        var v124 = v119;
        v124.tags = v123;
        let v125 = (v115 > 1.0f);
        let v126 = select(0u, 1u, v125);
        let v127 = (v126 | v49);
        var v128 = v124;
        v128.flag = v127;
        particles[i] = v128;
    }
    let v101 = arrayLength(&points);
    let v102 = (i < v101);
    if v102 {
        let v103 = points[i];
        let v130 = fma(v103, vec3<f32>(2.0f, 2.0f, 2.0f), vec3<f32>(1.0f, 2.0f, 3.0f));
        points[i] = v130;
    }
    let v66 = f32(i);
    if v78 {
        particles[i].rot[2].y = v66;
    }
}
