// dispatch: 1,1,1
// The body computes `&out[k]` after a possible `continue`; the continuing block computes it
// again. Regression: CSE let the continuing block use the body's pointer, which does not
// dominate it (the `continue` path skips it): the SSA verifier did not check that, and the PTX
// register allocator failed with `EntryLivein` (found by `dianran fuzz`, seed
// 4091049484984102592).
struct Out {
    m: vec2<u32>,
    v: vec2<u32>,
}

@group(0) @binding(0) var<storage, read_write> out: array<Out, 4>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) k: u32) {
    var i = 0u;
    loop {
        if (i % 2u == 1u) {
            continue;
        }
        out[k].m += vec2<u32>(1u, i);
        continuing {
            out[k].v += vec2<u32>(1u, i);
            i++;
            break if i >= 4u;
        }
    }
}
