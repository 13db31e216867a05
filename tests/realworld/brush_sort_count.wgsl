// Source: https://github.com/ArthurBrussee/brush
// Path: crates/brush-sort/src/shaders/sort_count.wgsl, which imports
//       crates/brush-sort/src/shaders/sorting.wgsl
// Commit: 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b
// License: Apache-2.0 (sorting.wgsl: Apache-2.0, "also licensed under MIT license")
// Changes: the naga_oil `#import sorting` was resolved by hand: the imported module's
// declarations are pasted first and the `sorting::` prefixes are dropped.
// Note: as published this is not valid WGSL: it stores to and loads from a workgroup
// atomic<u32> directly (older naga accepted that); naga 30 and so dianran reject it.
// brush_sort_count_atomics.wgsl is the same kernel with atomicStore/atomicLoad.
// Kind: radix-sort histogram (workgroup atomics, 16 bins). `config.shift` stays random, so
// shift amounts of 32 and more (which WGSL takes modulo 32) are exercised too.
// Params: num_keys = 4096 (4 blocks of 1024 keys).
// dispatch: 4,1,1
// buffer 0,1: u:4096
// ---- sorting.wgsl ----
// Copyright 2021 Google LLC
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     https://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
//
// Also licensed under MIT license, at your choice.
const OFFSET: u32 = 42;
const WG: u32 = 256;

const BITS_PER_PASS: u32 = 4;
const BIN_COUNT: u32 = 1u << BITS_PER_PASS;
const HISTOGRAM_SIZE: u32 = WG * BIN_COUNT;
const ELEMENTS_PER_THREAD: u32 = 4;

const BLOCK_SIZE = WG * ELEMENTS_PER_THREAD;

// Maximum workgroups per dimension (WebGPU limit)
const MAX_WG_PER_DIM: u32 = 65535u;

fn div_ceil(a: u32, b: u32) -> u32 {
    return (a + b - 1u) / b;
}

// Compute linear workgroup ID from 2D dispatch
fn get_workgroup_id(wid: vec3u) -> u32 {
    return wid.x + wid.y * MAX_WG_PER_DIM;
}
// ---- sort_count.wgsl ----

struct Uniforms {
    shift: u32,
}

@group(0) @binding(0) var<storage, read> config: Uniforms;
@group(0) @binding(1) var<storage, read> num_keys_arr: array<u32>;
@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;

var<workgroup> histogram: array<atomic<u32>, BIN_COUNT>;

@compute
@workgroup_size(WG, 1, 1)
fn main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let num_keys = num_keys_arr[0];

    // let num_keys = num_keys_arr[0];
    let num_wgs = div_ceil(num_keys, BLOCK_SIZE);
    let group_id = get_workgroup_id(wid);

    if group_id >= num_wgs {
        return;
    }

    if local_id.x < BIN_COUNT {
        histogram[local_id.x] = 0u;
    }
    workgroupBarrier();

    let wg_block_start = BLOCK_SIZE * group_id;
    var block_index = wg_block_start + local_id.x;
    let shift_bit = config.shift;
    var data_index = block_index;

    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        if data_index < num_keys {
            let local_key = (src[data_index] >> shift_bit) & 0xfu;
            atomicAdd(&histogram[local_key], 1u);
        }
        data_index += WG;
    }
    block_index += BLOCK_SIZE;
    workgroupBarrier();
    if local_id.x < BIN_COUNT {
        let num_wgs = div_ceil(num_keys, BLOCK_SIZE);
        counts[local_id.x * num_wgs + group_id] = histogram[local_id.x];
    }
}
