// CUDA C++ equivalent of tests/samples/saxpy_vec4.wgsl: y = alpha * x + y over `count`
// float4s, one float4 per thread, fused multiply-adds; 16-byte coalesced accesses.
// Grid: ceil(count / 256) blocks of 256.
struct Params {
    float alpha;
    unsigned int count;
};

extern "C" __global__ void __launch_bounds__(256)
saxpy_vec4(const Params* params, const float4* x, float4* y) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < params->count) {
        float alpha = params->alpha;
        float4 a = x[i], b = y[i];
        y[i] = make_float4(fmaf(alpha, a.x, b.x), fmaf(alpha, a.y, b.y), fmaf(alpha, a.z, b.z),
                           fmaf(alpha, a.w, b.w));
    }
}
