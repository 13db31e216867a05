// Source: https://github.com/AsherJingkongChen/gausplat-renderer
// Path: src/scene/gaussian_3d/render/forward/wgpu/kernel/radix_sort_scatter_key.wgsl
// Commit: ad0a36f139895eeebdef42c49cd55181331c5037
// License: MIT (LICENSE; Cargo `license-file`)
// Changes: none (this header only).
// Kind: radix-sort scatter: `keys_output[atomicAdd(&radix_offsets[(key >> shift) & 255], 1u)] = key`
// (the output index is an atomic's return value; the radix index is masked into the 256-array).
// Params: radix_bit_offset = 5, so the random keys (0..63) fall in radix 0 or 1; 1024 keys
// (4 workgroups); radix_offsets starts at 0 and 1024, so the two buckets never overlap.
// dispatch: 4,1,1
// buffer 0,0: u:5
// buffer 0,3: u:0 u:1024
// unordered: 0:2
struct Arguments {
    // (0 ~ , + 2^R)
    radix_bit_offset: u32,
}

@group(0) @binding(0) var<storage, read>
arguments: Arguments;
// [N]
@group(0) @binding(1) var<storage, read_write>
keys_input: array<u32>;
// [N]
@group(0) @binding(2) var<storage, read_write>
keys_output: array<u32>;
// [2^R]
@group(0) @binding(3) var<storage, read_write>
radix_offsets: array<atomic<u32>, RADIX>;

// 2^R
const RADIX: u32 = 1u << RADIX_BIT_COUNT;
// R
const RADIX_BIT_COUNT: u32 = 8u;
// 2^R - 1
const RADIX_BIT_MASK: u32 = RADIX - 1u;

@compute @workgroup_size(RADIX, 1, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
) {
    // Specifying the index

    let index = global_id.x;

    // Scattering the keys

    if index < arrayLength(&keys_input) {
        let key = keys_input[index];
        let radix = key >> arguments.radix_bit_offset & RADIX_BIT_MASK;

        let index_new = atomicAdd(&radix_offsets[radix], 1u);
        keys_output[index_new] = key;
    }
}
