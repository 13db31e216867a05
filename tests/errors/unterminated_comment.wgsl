@compute @workgroup_size(1)
fn main() {
    /* scale the input
}
