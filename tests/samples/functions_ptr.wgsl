// dispatch: 2,1,1
// User functions: value parameters, ptr<function, T> parameters (scalars, vectors,
// arrays), helpers calling helpers, and a struct return.
struct Stats {
    lo: f32,
    mid: f32,
    hi: f32,
    acc: vec2<f32>,
    poly: f32,
    gcd: u32,
}

@group(0) @binding(0) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<Stats>;

fn swap(a: ptr<function, f32>, b: ptr<function, f32>) {
    let t = *a;
    *a = *b;
    *b = t;
}

fn sort3(v: ptr<function, array<f32, 3>>) {
    if ((*v)[0] > (*v)[1]) {
        swap(&(*v)[0], &(*v)[1]);
    }
    if ((*v)[1] > (*v)[2]) {
        swap(&(*v)[1], &(*v)[2]);
    }
    if ((*v)[0] > (*v)[1]) {
        swap(&(*v)[0], &(*v)[1]);
    }
}

fn accumulate(acc: ptr<function, vec2<f32>>, v: f32) {
    (*acc).x += v;
    (*acc).y = max((*acc).y, v);
}

fn horner(x: f32) -> f32 {
    return ((2.0 * x - 3.0) * x + 1.0) * x - 0.5;
}

fn gcd(a0: u32, b0: u32) -> u32 {
    var a = a0;
    var b = b0;
    while (b != 0u) {
        let t = a % b;
        a = b;
        b = t;
    }
    return a;
}

fn make_stats(v: vec4<f32>) -> Stats {
    var arr = array<f32, 3>(v.x, v.y, v.z);
    sort3(&arr);
    var acc = vec2<f32>(0.0, -1.0e30);
    accumulate(&acc, v.x);
    accumulate(&acc, v.w);
    accumulate(&acc, arr[1]);
    let g = gcd(u32(abs(v.x) * 1000.0), u32(abs(v.y) * 1000.0) + 1u);
    return Stats(arr[0], arr[1], arr[2], acc, horner(v.w), g);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = make_stats(input[gid.x]);
}
