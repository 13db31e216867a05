// Source: https://github.com/cryscan/web-rwkv
// Path: src/shaders/subgroup/softmax.wgsl
// Commit: 5eb930a167f07fd76829c7d8905e421c4b4ae151
// License: MIT OR Apache-2.0
// Changes: the crate's preprocessor was applied by hand: BLOCK_SIZE -> 128u,
// MIN_SUBGROUP_SIZE -> 8u (lavapipe's subgroup size, so `sketch` holds one slot per subgroup at
// subgroup size 8 and 32 alike), FP16 not defined (each `#ifdef FP16 ... #else ... #endif`
// replaced by its `#else` branch).
// Kind: softmax with subgroup reductions (subgroupMax/Add on vec4, subgroupBroadcast)
// Params: shape = [C = 256, T = 4, B = 1].
// dispatch: 1,4,1
// buffer 0,0: u:256 u:4 u:1 u:0
@group(0) @binding(0) var<uniform> shape: vec4<u32>;                        // [C, T, B]

@group(0) @binding(1) var<storage, read_write> x: array<vec4<f32>>;         // (B, T, C)

const NUM_SUBGROUPS: u32 = 128u / 8u;

var<workgroup> sketch: array<vec4<f32>, NUM_SUBGROUPS>;
var<workgroup> sum: f32;
var<workgroup> maximum: f32;

fn pack4x16float(x: vec4<f32>) -> vec2<u32> {
    return vec2<u32>(pack2x16float(x.xy), pack2x16float(x.zw));
}

fn unpack4x16float(x: vec2<u32>) -> vec4<f32> {
    return vec4<f32>(unpack2x16float(x.x), unpack2x16float(x.y));
}

@compute @workgroup_size(128u, 1, 1)
fn softmax(
    @builtin(global_invocation_id) invocation_id: vec3<u32>,
    @builtin(num_subgroups) num_subgroups: u32,
    @builtin(subgroup_id) subgroup_id: u32,
    @builtin(subgroup_size) subgroup_size: u32,
    @builtin(subgroup_invocation_id) subgroup_invocation_id: u32
) {
    let stride = shape[0] / 4u;
    let index = invocation_id.x;
    let token = invocation_id.y;
    let batch = invocation_id.z;

    let bb = (batch * shape[1] + token) * stride;

    var _max_4 = vec4<f32>(-1.0e30);
    for (var i = index; i < stride; i += 128u) {
        let value = x[bb + i];
        _max_4 = max(_max_4, value);
    }
    _max_4 = subgroupMax(_max_4);

    if subgroup_invocation_id == 0u {
        sketch[subgroup_id] = _max_4;
    }
    workgroupBarrier();

    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {
        if index < step {
            sketch[index] = max(sketch[index], sketch[index + step]);
        }
        workgroupBarrier();
    }

    var _maximum: f32;
    if index == 0u {
        _max_4 = sketch[0];
        _maximum = _max_4.x;
        _maximum = max(_maximum, _max_4.y);
        _maximum = max(_maximum, _max_4.z);
        _maximum = max(_maximum, _max_4.w);
        maximum = _maximum;
    }
    workgroupBarrier();

    if subgroup_invocation_id == 0u {
        _maximum = maximum;
    }
    _maximum = subgroupBroadcast(_maximum, 0u);

    var _sum_4: vec4<f32>;
    for (var i = index; i < stride; i += 128u) {
        let value = x[bb + i];
        _sum_4 += exp(value - _maximum);
    }
    _sum_4 = subgroupAdd(_sum_4);

    if subgroup_invocation_id == 0u {
        sketch[subgroup_id] = _sum_4;
    }
    workgroupBarrier();

    for (var step = num_subgroups >> 1u; step > 0u; step >>= 1u) {
        if index < step {
            sketch[index] += sketch[index + step];
        }
        workgroupBarrier();
    }

    var _sum: f32;
    if index == 0u {
        _sum = dot(sketch[0], vec4<f32>(1.0));
        sum = _sum;
    }
    workgroupBarrier();

    if subgroup_invocation_id == 0u {
        _sum = sum;
    }
    _sum = subgroupBroadcast(_sum, 0u);

    for (var i = index; i < stride; i += 128u) {
        let value = x[bb + i];
        x[bb + i] = exp(value - _maximum) / _sum;
    }
}
