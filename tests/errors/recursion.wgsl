fn fact(n: u32) -> u32 {
    if n <= 1u {
        return 1u;
    }
    return n * fact(n - 1u);
}

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(1)
fn main() {
    data[0] = fact(5u);
}
