// Source: https://github.com/ArthurBrussee/brush
// Path: crates/brush-sort/src/shaders/sort_reduce.wgsl, which imports
//       crates/brush-sort/src/shaders/sorting.wgsl
// Commit: 5c1b01658bc0295d53d7a9b0dbb82fa437a0245b
// License: Apache-2.0 (sorting.wgsl: Apache-2.0, "also licensed under MIT license")
// Changes: the naga_oil `#import sorting` was resolved by hand: the imported module's
// declarations are pasted first and the `sorting::` prefixes are dropped.
// Kind: reduction (per-thread partial sums, then a workgroup tree reduction)
// Params: num_keys = 1048576 (1024 count blocks per bin, 16 reduce workgroups).
// dispatch: 16,1,1
// buffer 0,0: u:1048576
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
// ---- sort_reduce.wgsl ----

@group(0) @binding(0) var<storage, read> num_keys_arr: array<u32>;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> reduced: array<u32>;

var<workgroup> sums: array<u32, WG>;

@compute
@workgroup_size(WG, 1, 1)
fn main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let num_keys = num_keys_arr[0];
    // let num_keys = num_keys_arr[0];
    let num_wgs = div_ceil(num_keys, BLOCK_SIZE);
    let num_reduce_wgs = BIN_COUNT * div_ceil(num_wgs, BLOCK_SIZE);

    let group_id = get_workgroup_id(wid);

    if group_id >= num_reduce_wgs {
        return;
    }

    let num_reduce_wg_per_bin = num_reduce_wgs / BIN_COUNT;
    let bin_id = group_id / num_reduce_wg_per_bin;

    let bin_offset = bin_id * num_wgs;
    let base_index = (group_id % num_reduce_wg_per_bin) * BLOCK_SIZE;
    var sum = 0u;
    for (var i = 0u; i < ELEMENTS_PER_THREAD; i++) {
        let data_index = base_index + i * WG + local_id.x;
        if data_index < num_wgs {
            sum += counts[bin_offset + data_index];
        }
    }
    sums[local_id.x] = sum;
    for (var i = 0u; i < 8u; i++) {
        workgroupBarrier();
        if local_id.x < ((WG / 2u) >> i) {
            sum += sums[local_id.x + ((WG / 2u) >> i)];
            sums[local_id.x] = sum;
        }
    }
    if local_id.x == 0u {
        reduced[group_id] = sum;
    }
}
