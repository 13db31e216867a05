// dispatch: 2,1,1
// Function-local array indexed by runtime values: per-invocation insertion sort of 8 keys.
@group(0) @binding(0) var<storage, read> input: array<f32>;
// 8 sorted keys per invocation.
@group(0) @binding(1) var<storage, read_write> sorted: array<f32>;
@group(0) @binding(2) var<storage, read_write> medians: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var keys: array<f32, 8>;
    for (var i = 0u; i < 8u; i++) {
        keys[i] = input[gid.x * 8u + i];
    }
    for (var i = 1u; i < 8u; i++) {
        let key = keys[i];
        var j = i32(i) - 1;
        while (j >= 0 && keys[j] > key) {
            keys[j + 1] = keys[j];
            j--;
        }
        keys[j + 1] = key;
    }
    for (var i = 0u; i < 8u; i++) {
        sorted[gid.x * 8u + i] = keys[i];
    }
    medians[gid.x] = 0.5 * (keys[3] + keys[4]);
}
