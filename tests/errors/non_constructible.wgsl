@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
    let a = atomic<u32>(0u);
    atomicAdd(&counter, 1u);
}
