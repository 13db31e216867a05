// dispatch: 2,1,1
// for loops, while loops and an early return inside a loop.
struct LoopOut {
    weighted: u32,
    collatz_steps: u32,
    digits: u32,
    first_square_above: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<LoopOut>;

fn first_square_above(x: u32) -> u32 {
    for (var k = 0u; k < 100000u; k++) {
        if (k * k > x) {
            return k;
        }
    }
    return 0u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    var r: LoopOut;
    var w = 0u;
    for (var k = 0u; k < (x & 15u); k += 1u) {
        w += k * x;
    }
    r.weighted = w;
    var c = x + 1u;
    var steps = 0u;
    while (c != 1u) {
        if ((c & 1u) == 0u) {
            c = c / 2u;
        } else {
            c = 3u * c + 1u;
        }
        steps++;
    }
    r.collatz_steps = steps;
    var d = 1u;
    var v = x;
    while (v >= 10u) {
        v /= 10u;
        d++;
    }
    r.digits = d;
    r.first_square_above = first_square_above(x);
    out[gid.x] = r;
}
