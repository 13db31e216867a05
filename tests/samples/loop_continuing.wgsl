// dispatch: 2,1,1
// loop with a continuing block and `break if`, `continue` that runs the continuing block,
// and labelled-style break/continue in nested loops.
@group(0) @binding(0) var<storage, read> input: array<u32>;
// 3 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    let n = (x % 23u) + 1u;

    // Sum i * x over i in [0, n) skipping multiples of 3.
    var i = 0u;
    var acc = 0u;
    loop {
        if (i % 3u == 0u) {
            continue;
        }
        acc += i * x;
        continuing {
            i += 1u;
            break if i >= n;
        }
    }
    out[3u * gid.x + 0u] = acc;

    // Nested loops: count pairs (a, b), a < b < 12, with break and continue at both levels.
    var pairs = 0u;
    var a = 0u;
    loop {
        if (a >= 12u) {
            break;
        }
        a += 1u;
        if ((a + x) % 5u == 0u) {
            continue;
        }
        for (var b = a + 1u; b < 12u; b++) {
            if (a * b > (x % 40u) + 10u) {
                break;
            }
            if ((a ^ b ^ x) % 3u == 0u) {
                continue;
            }
            pairs += a * 16u + b;
        }
    }
    out[3u * gid.x + 1u] = pairs;

    // A loop whose continuing block updates two variables.
    var lo = 0u;
    var hi = x % 1000u + 1u;
    var probes = 0u;
    loop {
        let mid = (lo + hi) / 2u;
        if (mid * mid > x % 1000u) {
            hi = mid;
        } else {
            lo = mid;
        }
        continuing {
            probes += 1u;
            break if hi - lo <= 1u;
        }
    }
    out[3u * gid.x + 2u] = lo | (probes << 16u);
}
