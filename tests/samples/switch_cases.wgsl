// dispatch: 2,1,1
// switch with multi-value cases, default in the middle, `case x, default`, negative i32
// selectors, and `continue` from a switch inside a loop.
@group(0) @binding(0) var<storage, read> input: array<u32>;
// 3 results per element.
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = input[gid.x];
    var r = 0u;
    switch (x & 15u) {
        case 0u, 1u: {
            r = 10u;
        }
        case 2u: {
            r = 20u + x;
        }
        default: {
            r = 99u;
        }
        case 3u, 4u, 5u: {
            r = x * 3u;
        }
        case 12u: {
            if (x > 1000u) {
                r = 1u;
                break;
            }
            r = 2u;
        }
    }
    out[3u * gid.x + 0u] = r;

    let s = bitcast<i32>(x) % 7;
    var q = 0;
    switch s {
        case -6, -5, -4: {
            q = s * 100;
        }
        case -3, -2, -1 {
            q = -1;
        }
        case 6, default: {
            q = 77;
        }
        case 0 {
            q = 5;
        }
    }
    out[3u * gid.x + 1u] = bitcast<u32>(q);

    var acc = 0u;
    for (var k = 0u; k < 16u; k++) {
        switch ((x >> k) & 3u) {
            case 0u: {
                continue;
            }
            case 1u: {
                acc += k;
            }
            case 2u: {
                acc = acc * 3u + 1u;
            }
            default: {
                acc ^= 0x55u;
            }
        }
        acc += 1u;
    }
    out[3u * gid.x + 2u] = acc;
}
