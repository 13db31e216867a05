// dispatch: 1,1,1
// A loop whose `continuing` block stores to the same place as the body (`out[k * 2u + 1u]`,
// loop-invariant but written inside the loop). After CSE the continuing block's pointer is
// the body's, built from body values.
// Regression: MSL prints the continuing block first and printed that place from a name the
// body declares later: clang reported an undeclared identifier (found by `dianran fuzz`,
// seed 8066065136446956912).
@group(0) @binding(0) var<storage, read_write> out: array<u32, 8>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) k: u32) {
    var i = 0u;
    loop {
        out[k * 2u + 1u] = i + 10u * k;
        continuing {
            out[k * 2u + 1u] += 100u;
            out[k * 2u] += i;
            i++;
            break if i >= 4u;
        }
    }
}
