fn clamp_index(i: u32, n: u32) -> u32 {
    if i < n {
        return i;
    }
}

@compute @workgroup_size(1)
fn main() {
    _ = clamp_index(3u, 2u);
}
