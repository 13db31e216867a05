// dispatch: 1,1,1
// A loop whose `continuing` block uses values defined in the body (WGSL allows it; after CSE
// it also happens when body and continuing compute the same expression). Regression: MSL
// prints the continuing block at the top of its `while` (so `continue` runs it), where the
// body's values were not declared yet: clang reported an undeclared identifier (found by
// `dianran fuzz`, seed 62).
@group(0) @binding(0) var<storage, read> x: array<u32, 4>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 8>;

@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    var acc = 0u;
    var last = 0u;
    loop {
        let t = x[i] * 3u + 1u;
        let u = i32(x[i]);
        if (t % 2u == 0u) {
            acc += 100u;
            continue;
        }
        acc += t;
        continuing {
            last = t + u32(u);
            out[i] = last;
            i++;
            break if i >= 4u;
        }
    }
    out[4] = acc;
    out[5] = last;
}
