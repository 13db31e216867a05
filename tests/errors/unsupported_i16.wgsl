enable wgpu_int16;

@compute @workgroup_size(1)
fn main() {
    var a: i16 = i16(1i);
}
