// dispatch: 1,1,1
// Host-shareable layout: a vec3 followed by a scalar shares its 16-byte slot, mat3x3 columns
// and array<vec3> elements have a 16-byte stride, structs round up to their alignment.
struct Particle {
    pos: vec3<f32>,     // offset 0
    mass: f32,          // offset 12
    vel: vec3<f32>,     // offset 16
    id: u32,            // offset 28
    rot: mat3x3<f32>,   // offset 32, size 48
    tags: array<vec3<f32>, 2>, // offset 80, stride 16
    flag: u32,          // offset 112; struct size 128
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> points: array<vec3<f32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var p = particles[i];
    p.pos = p.pos + p.vel * 0.5;
    p.vel = p.rot * p.vel;
    p.mass = p.mass * 0.25;
    p.id = p.id + 1000u;
    p.tags[1] = p.tags[0] + p.pos;
    p.flag = select(0u, 1u, p.mass > 1.0) | (i << 8u);
    particles[i] = p;
    points[i] = points[i] * 2.0 + vec3<f32>(1.0, 2.0, 3.0);
    particles[i].rot[2].y = f32(i);
}
