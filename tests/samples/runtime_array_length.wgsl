// dispatch: 1,1,1
// arrayLength on a plain runtime array and on one at the end of a struct.
struct Items {
    scale: f32,
    count: u32,
    items: array<vec2<f32>>,
}

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> items: Items;
@group(0) @binding(2) var<storage, read_write> summary: array<u32, 4>;

@compute @workgroup_size(1)
fn main() {
    let n = arrayLength(&values);
    var total = 0u;
    for (var i = 0u; i < n; i++) {
        total += values[i];
    }
    let m = arrayLength(&items.items);
    for (var i = 0u; i < m; i++) {
        items.items[i] = items.items[i] * items.scale + vec2<f32>(f32(i), 0.0);
    }
    items.count = m;
    summary[0] = n;
    summary[1] = total;
    summary[2] = m;
    summary[3] = n * 100u + m;
}
