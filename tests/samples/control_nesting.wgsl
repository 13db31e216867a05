// dispatch: 2,1,1
// Deeply nested structured control flow: a switch inside a loop inside an if, early
// returns from inside nested loops, a while loop whose body ends in an if/else chain, and
// values that flow out of every level.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn classify(x: u32) -> u32 {
    if (x == 0u) {
        return 100u;
    }
    var state = x;
    var score = 0u;
    for (var round = 0u; round < 6u; round++) {
        var inner = 0u;
        loop {
            if (inner >= 4u) {
                break;
            }
            switch ((state >> (inner * 2u)) & 3u) {
                case 0u: {
                    score += 1u;
                }
                case 1u, 2u: {
                    if (score > 40u) {
                        return score * 1000u + round;
                    }
                    score += 3u;
                }
                default: {
                    inner += 1u;
                    continue;
                }
            }
            inner += 1u;
            score += inner;
        }
        state = state * 1664525u + 1013904223u;
        if ((state & 0xf00u) == 0u) {
            break;
        }
    }
    return score;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    var v = classify(x);
    var steps = 0u;
    while (v > 10u) {
        if ((v & 1u) == 1u) {
            v = v - 7u;
        } else if ((v & 2u) == 2u) {
            v = v / 2u;
        } else {
            v = v / 4u + 1u;
        }
        steps++;
    }
    out[gid.x] = classify(x) | (steps << 20u) | (v << 26u);
}
