// dispatch: 2,1,1
// A uniform buffer holding an array of structs (each vec3 + f32 packed in 16 bytes),
// a count and a trailing vec3: diffuse lighting of points with normals.
struct Light {
    position: vec3<f32>,
    intensity: f32,
}

struct Scene {
    lights: array<Light, 4>,   // offset 0, stride 16
    count: u32,                // offset 64
    ambient: vec3<f32>,        // offset 80; struct size 96
}

struct Surfel {
    position: vec3<f32>,
    normal: vec3<f32>,
}

@group(0) @binding(0) var<uniform> scene: Scene;
@group(0) @binding(1) var<storage, read> surfels: array<Surfel>;
@group(0) @binding(2) var<storage, read_write> radiance: array<vec4<f32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let s = surfels[gid.x];
    var total = scene.ambient;
    for (var k = 0u; k < min(scene.count, 4u); k++) {
        let light = scene.lights[k];
        let to_light = light.position - s.position;
        let d2 = max(dot(to_light, to_light), 1e-4);
        let lambert = max(dot(s.normal, to_light * inverseSqrt(d2)), 0.0);
        total += vec3<f32>(lambert * light.intensity / d2);
    }
    radiance[gid.x] = vec4<f32>(total, f32(scene.count));
}
